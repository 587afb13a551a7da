//! A minimal, deterministic zip writer for `stonegame package --zip`: the
//! files of a directory, sorted by path, stored without compression, with a
//! fixed timestamp (1980-01-01 00:00), so the same package gives the same
//! zip. No crate needed: a stored zip is headers, CRC-32 and the bytes.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// CRC-32 (IEEE, reflected, polynomial 0xEDB88320), as zip uses it.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Every regular file under `root`, as paths relative to it with `/`
/// separators, sorted.
fn files(root: &Path) -> io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .map_err(io::Error::other)?
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, path));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Writes the files under `root` to the zip `out` (at its root: no
/// top-level folder, as DOMjudge and Kattis expect `problem.yaml` there).
pub fn write_dir_zip(root: &Path, out: &Path) -> io::Result<()> {
    let entries = files(root)?;
    if entries.len() > 0xffff {
        return Err(io::Error::other(
            "more than 65535 files (zip64 is not written)",
        ));
    }
    let mut w = BufWriter::new(File::create(out)?);
    let mut central = Vec::new();
    let mut offset: u64 = 0;
    // 1980-01-01 00:00:00 in MS-DOS format (years since 1980 << 9, month << 5, day).
    let (time, date) = (0u16, 0x21u16);
    for (name, path) in &entries {
        let data = fs::read(path)?;
        let (crc, size) = (crc32(&data), data.len() as u64);
        if size > u64::from(u32::MAX) || offset > u64::from(u32::MAX) {
            return Err(io::Error::other("a file over 4 GiB (zip64 is not written)"));
        }
        let mut local = Vec::with_capacity(30 + name.len());
        local.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        local.extend_from_slice(&20u16.to_le_bytes()); // version needed
        local.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
        local.extend_from_slice(&0u16.to_le_bytes()); // stored
        local.extend_from_slice(&time.to_le_bytes());
        local.extend_from_slice(&date.to_le_bytes());
        local.extend_from_slice(&crc.to_le_bytes());
        local.extend_from_slice(&(size as u32).to_le_bytes());
        local.extend_from_slice(&(size as u32).to_le_bytes());
        local.extend_from_slice(&(name.len() as u16).to_le_bytes());
        local.extend_from_slice(&0u16.to_le_bytes()); // extra
        local.extend_from_slice(name.as_bytes());
        w.write_all(&local)?;
        w.write_all(&data)?;

        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&((3u16 << 8) | 20).to_le_bytes()); // made by: Unix
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&0x0800u16.to_le_bytes());
        central.extend_from_slice(&0u16.to_le_bytes());
        central.extend_from_slice(&time.to_le_bytes());
        central.extend_from_slice(&date.to_le_bytes());
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&(size as u32).to_le_bytes());
        central.extend_from_slice(&(size as u32).to_le_bytes());
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 8]); // extra, comment, disk, internal attributes
        let mode: u32 = if name.ends_with(".sh") {
            0o100755
        } else {
            0o100644
        };
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&(offset as u32).to_le_bytes());
        central.extend_from_slice(name.as_bytes());
        offset += local.len() as u64 + size;
    }
    if offset > u64::from(u32::MAX) {
        return Err(io::Error::other("a zip over 4 GiB (zip64 is not written)"));
    }
    w.write_all(&central)?;
    let mut end = Vec::with_capacity(22);
    end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    end.extend_from_slice(&[0; 4]); // disk numbers
    end.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    end.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    end.extend_from_slice(&(central.len() as u32).to_le_bytes());
    end.extend_from_slice(&(offset as u32).to_le_bytes());
    end.extend_from_slice(&0u16.to_le_bytes());
    w.write_all(&end)?;
    w.into_inner().map_err(|e| e.into_error())?.sync_all()
}
