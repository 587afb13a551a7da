//! How much memory the server may hold for requests: the size of the memory
//! budget (the piles budget, 8 bytes a unit) when `limits.max_memory_bytes`
//! is 0, a fraction of the memory the process can have — the container's
//! limit (cgroup v2 `memory.max`, cgroup v1 `memory.limit_in_bytes`) or,
//! without one, the machine's (`MemTotal` in `/proc/meminfo`).

use std::path::Path;

/// The share of the available memory the budget takes by default: the
/// rest is the process itself, the transport's buffers and the
/// allocator's slack (docs/configuration.md).
pub const DEFAULT_FRACTION: (u64, u64) = (1, 2);

/// The memory this process can use, in bytes, and where the figure comes
/// from; `None` when nothing says (not Linux, or unreadable files).
pub fn available() -> Option<(u64, &'static str)> {
    let root = Path::new("/");
    let cgroup = cgroup_limit(root);
    let machine = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| mem_total(&m));
    match (cgroup, machine) {
        (Some(c), Some(m)) if c < m => Some((c, "the container's memory limit")),
        (_, Some(m)) => Some((m, "the machine's memory")),
        (Some(c), None) => Some((c, "the container's memory limit")),
        (None, None) => None,
    }
}

/// The cgroup memory limit under `root` (v2, then v1); `None` when there
/// is none ("max", or a v1 figure so large it means unlimited).
fn cgroup_limit(root: &Path) -> Option<u64> {
    let v2 = root.join("sys/fs/cgroup/memory.max");
    let v1 = root.join("sys/fs/cgroup/memory/memory.limit_in_bytes");
    [v2, v1]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .and_then(|text| parse_limit(&text))
}

/// A cgroup limit file's value: bytes, or `None` for "max" and v1's
/// "unlimited" (a page-rounded `i64::MAX`).
fn parse_limit(text: &str) -> Option<u64> {
    let value: u64 = text.trim().parse().ok()?;
    (value < 1 << 60).then_some(value)
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemTotal:"))?;
    let kib: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// The memory budget's size in bytes for `limits.max_memory_bytes` (0:
/// [`DEFAULT_FRACTION`] of [`available`], or 1 GiB when nothing says), and
/// where it comes from, for the start-up log.
pub fn budget_bytes(max_memory_bytes: u64) -> (u64, String) {
    if max_memory_bytes > 0 {
        return (max_memory_bytes, "limits.max_memory_bytes".into());
    }
    let (num, den) = DEFAULT_FRACTION;
    match available() {
        Some((bytes, source)) => (bytes / den * num, format!("{num}/{den} of {source}")),
        None => (1 << 30, "1 GiB (the available memory is unknown)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse() {
        assert_eq!(parse_limit("268435456\n"), Some(268_435_456));
        assert_eq!(parse_limit("max\n"), None);
        // cgroup v1's "unlimited".
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(
            mem_total("MemTotal:       24576000 kB\nMemFree: 1 kB\n"),
            Some(24_576_000 * 1024)
        );
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn a_container_limit_is_read_under_its_root() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("sys/fs/cgroup");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_limit(root.path()), None);
        std::fs::write(dir.join("memory.max"), "268435456\n").unwrap();
        assert_eq!(cgroup_limit(root.path()), Some(256 << 20));
    }

    #[test]
    fn an_explicit_size_wins_and_the_default_is_a_fraction() {
        assert_eq!(budget_bytes(5_000).0, 5_000);
        let (bytes, source) = budget_bytes(0);
        assert!(bytes > 0, "{source}");
        if let Some((available, _)) = available() {
            assert_eq!(bytes, available / 2, "{source}");
        }
    }
}
