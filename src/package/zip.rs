//! `stonegame package --zip`: the files of a directory in a zip written by
//! the `zip` crate, deterministic so the same package gives the same zip:
//! entries sorted by path, deflated at a fixed level, every one dated
//! 1980-01-01 00:00 with fixed Unix permissions (0755 for `.sh`, else 0644).

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

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
    let mut zip = ZipWriter::new(BufWriter::new(File::create(out)?));
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(DateTime::default())
        .system(System::Unix);
    for (name, path) in files(root)? {
        let mode = if name.ends_with(".sh") { 0o755 } else { 0o644 };
        zip.start_file(name, options.unix_permissions(mode))?;
        io::copy(&mut File::open(&path)?, &mut zip)?;
    }
    zip.finish()?
        .into_inner()
        .map_err(|e| e.into_error())?
        .sync_all()
}
