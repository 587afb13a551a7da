//! Allocator tuning for the processes that serve or call the service.
//!
//! Every gRPC message passes through freshly allocated buffers — tonic's
//! encode and decode buffers, HTTP/2 frames, the rows unpacked from
//! `piles_le` — tens to hundreds of KiB at a time, freed a moment later,
//! often on another thread. With its defaults, glibc's malloc hands the free
//! top of a heap back to the kernel as soon as it exceeds 128 KiB
//! (`M_TRIM_THRESHOLD`) and gives blocks of 128 KiB or more their own
//! `mmap`, so the same memory is returned and faulted in again for every
//! message. [`keep_freed_memory`] raises both thresholds, so such buffers
//! are reused from the heap (fewer page faults per message; the figures are
//! in `docs/benchmarks.md`). The price is that each heap may keep up to
//! [`TRIM_THRESHOLD`] bytes of free memory instead of returning it.
//!
//! Only glibc targets are tuned; elsewhere this is a no-op.

/// Free memory a heap keeps at its top before returning it to the kernel.
pub const TRIM_THRESHOLD: usize = 16 << 20;

/// Blocks at least this large get their own `mmap`; smaller ones come from
/// the heap and are reused.
pub const MMAP_THRESHOLD: usize = 4 << 20;

/// Sets glibc's `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD` (see the module
/// documentation). Process-wide; call it once at start-up, before the
/// runtime's threads exist. Returns whether both settings were taken
/// (always `false` off glibc).
pub fn keep_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only changes malloc's parameters; glibc makes it
        // safe to call at any time (it takes the arena lock).
        unsafe {
            let trim = libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD as libc::c_int);
            let mmap = libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int);
            trim == 1 && mmap == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Gives the heaps' free memory back to the kernel (glibc's `malloc_trim`),
/// after a request that held much more than [`TRIM_THRESHOLD`] let it go:
/// what stays resident after a burst is then what is in use, not the
/// burst's peak. A no-op off glibc.
pub fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages; glibc takes the arena
    // locks itself.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glibc_takes_the_settings() {
        let taken = super::keep_freed_memory();
        assert_eq!(taken, cfg!(all(target_os = "linux", target_env = "gnu")));
    }
}
