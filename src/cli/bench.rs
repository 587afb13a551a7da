//! `stonegame bench`: the benchmark tables of `docs/benchmarks.md`.
//!
//! 1. Verdict-kernel throughput in cell updates per second (one cell = one
//!    interval `[i, j]`, both its `left` and `right` entries) for rows of
//!    n = 1,000 / 20,000 / 200,000 random piles up to 10^9, per instruction
//!    set and on one core or all cores.
//! 2. Whole-process time of `stonegame solve` beside the C++ peer, the
//!    classic O(n²)-memory DP (`bench/peer.cpp`, built with `g++ -O2`), on
//!    the same input files, the two alternating in one run; the ratio is
//!    peer time / ours. Peak resident memory of each process comes from
//!    `wait4`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::core::kernel::direct::Width;
use crate::core::kernel::{Isa, KernelOptions};
use crate::core::verdict::{KernelKind, end_values_with};
use crate::core::{Never, RowError, ValidRow};

use super::exit;

/// The repository's C++ peer (`bench/peer.cpp`), built into the binary so
/// that `bench` needs no checkout: written next to the inputs when no
/// `--peer` is given.
pub const BUILT_IN_PEER: &str = include_str!("../../bench/peer.cpp");

/// Arguments of `stonegame bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// The C++ peer's source (built with `g++ -O2`; skipped when missing).
    /// Default: the copy of the repository's bench/peer.cpp built into this
    /// binary.
    #[arg(long, value_name = "FILE")]
    pub peer: Option<PathBuf>,
    /// Runs of each whole-process measurement (median reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Only the kernel table (no process timings).
    #[arg(long)]
    pub kernel_only: bool,
    /// Smaller sizes and fewer runs, for a smoke test.
    #[arg(long)]
    pub quick: bool,
    /// Only the remoteness table: the exact remoteness of one random row
    /// (with its move ranges) beside the verdict of the same row, at the
    /// sizes of `--remoteness-sizes`.
    #[arg(long)]
    pub remoteness: bool,
    /// Row sizes of the remoteness table (comma-separated); the largest
    /// takes the longest, the remoteness being O(n²) (docs/benchmarks.md).
    #[arg(long, value_delimiter = ',', default_value = "1000,20000,200000")]
    pub remoteness_sizes: Vec<usize>,
}

/// The remoteness table: one row of each size, piles up to 10^9, the
/// verdict and the remoteness of the same row and their ratio.
fn remoteness_table(sizes: &[usize]) {
    println!("## Remoteness beside the verdict (one row, piles 1..=10^9, two ends)");
    println!();
    println!("| n | verdict | remoteness | ratio | remoteness (plies) | pieces |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let t = match crate::core::remoteness::bench(
            n.clamp(1, 200_000),
            1_000_000_000,
            2009,
            &Never,
        ) {
            Ok(t) => t,
            Err(never) => match never {},
        };
        println!(
            "| {} | {:.3} ms | {:.3} s | {:.0}× | {} | {} |",
            t.piles,
            t.verdict.as_secs_f64() * 1e3,
            t.remoteness.as_secs_f64(),
            t.remoteness.as_secs_f64() / t.verdict.as_secs_f64().max(1e-9),
            t.value,
            t.max_pieces
        );
        let _ = std::io::stdout().flush();
    }
    println!();
}

/// Random piles 1..=max_a, reproducible for `seed`.
pub fn random_row(n: usize, max_a: u64, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(1..=max_a)).collect()
}

/// Seconds per verdict of `row` with `opts` (best of a few runs).
fn time_kernel(row: &ValidRow<'_>, kind: KernelKind, opts: KernelOptions, budget: Duration) -> f64 {
    let mut best = f64::INFINITY;
    let start = Instant::now();
    let mut runs = 0;
    while runs < 3 || (start.elapsed() < budget && runs < 50) {
        let t = Instant::now();
        let Ok(ends) = end_values_with(row, kind, opts, &Never);
        std::hint::black_box(ends);
        best = best.min(t.elapsed().as_secs_f64());
        runs += 1;
    }
    best
}

fn kind_name(kind: KernelKind) -> &'static str {
    match kind {
        KernelKind::Codes => "codes (default)",
        KernelKind::Direct(Width::W16) => "direct u16",
        KernelKind::Direct(Width::W32) => "direct u32",
        KernelKind::Direct(Width::W64) => "direct u64",
    }
}

fn kernel_table(quick: bool) -> Result<(), RowError> {
    println!("## Verdict kernel: cell updates per second (random piles 1..=10^9)");
    println!();
    println!("| n | kernel | instruction set | cores | time per row | cell updates/s |");
    println!("|---:|---|---|---:|---:|---:|");
    let sizes: &[usize] = if quick {
        &[1_000, 20_000]
    } else {
        &[1_000, 20_000, 200_000]
    };
    let threads = rayon::current_num_threads();
    let best = Isa::detect();
    for &n in sizes {
        let row = ValidRow::new(random_row(n, 1_000_000_000, n as u64), n)?;
        let cells = (n as f64) * (n as f64 - 1.0) / 2.0;
        let budget = Duration::from_millis(if quick { 200 } else { 1500 });
        let mut configs: Vec<(KernelKind, Isa, bool)> = Vec::new();
        for kind in [KernelKind::Codes, KernelKind::Direct(Width::W32)] {
            for isa in Isa::available() {
                // The slower paths take long at the largest size.
                if n < 200_000 || (isa == best && kind == KernelKind::Codes) {
                    configs.push((kind, isa, false));
                }
            }
        }
        if n >= 20_000 && threads > 1 {
            configs.push((KernelKind::Codes, best, true));
        }
        for (kind, isa, parallel) in configs {
            let opts = KernelOptions {
                isa,
                parallel,
                blocking: true,
            };
            let secs = time_kernel(&row, kind, opts, budget);
            let cores = if parallel { threads } else { 1 };
            println!(
                "| {n} | {} | {} | {cores} | {:.3} ms | {:.2e} |",
                kind_name(kind),
                isa.name(),
                secs * 1e3,
                cells / secs
            );
        }
    }
    println!();
    Ok(())
}

/// Wall time and peak RSS (KiB) of one process run with `input` on stdin.
fn run_process(cmd: &[&str], input: &Path) -> std::io::Result<(Duration, u64, Vec<u8>)> {
    let file = std::fs::File::open(input)?;
    let start = Instant::now();
    let child = Command::new(cmd[0])
        .args(&cmd[1..])
        .stdin(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.expect("piped");
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut out)?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet waited for; both pointers are valid.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(std::io::Error::other(format!(
            "{} failed: status {status}",
            cmd[0]
        )));
    }
    Ok((elapsed, usage.ru_maxrss as u64, out))
}

fn write_input(path: &Path, cases: usize, n: usize, seed: u64) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "{cases}")?;
    for c in 0..cases {
        let row = random_row(n, 1_000_000_000, seed + c as u64);
        writeln!(f, "{n}")?;
        let line: Vec<String> = row.iter().map(u64::to_string).collect();
        writeln!(f, "{}", line.join(" "))?;
    }
    f.flush()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn process_table(args: &BenchArgs) -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("stonegame-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let me = std::env::current_exe()?;
    let me = me.to_string_lossy().into_owned();
    let peer_bin = dir.join("peer");
    let peer_src = match &args.peer {
        Some(path) => path.clone(),
        None => {
            let path = dir.join("peer.cpp");
            std::fs::write(&path, BUILT_IN_PEER)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            path
        }
    };
    let peer = if peer_src.exists() {
        let ok = Command::new("g++")
            .args(["-O2", "-o"])
            .arg(&peer_bin)
            .arg(&peer_src)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!(
                "stonegame: warning: cannot build {} with g++ -O2; timing ours only",
                peer_src.display()
            );
        }
        ok
    } else {
        eprintln!(
            "stonegame: warning: peer {} not found; timing ours only",
            peer_src.display()
        );
        false
    };
    let peer_cmd = peer_bin.to_string_lossy().into_owned();

    let workloads: Vec<(usize, usize, bool)> = if args.quick {
        vec![(10, 1000, true), (2, 2000, true)]
    } else {
        vec![(10, 1000, true), (2, 5000, true), (1, 200_000, false)]
    };
    println!(
        "## Whole process: `stonegame solve` vs the C++ peer (g++ -O2), same files, alternating"
    );
    println!();
    println!(
        "| input | runs | ours (median) | ours peak RSS | peer (median) | peer peak RSS | speed-up |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let runs = if args.quick { 1 } else { args.runs.max(1) };
    for (i, &(cases, n, with_peer)) in workloads.iter().enumerate() {
        let input = dir.join(format!("in{i}.txt"));
        write_input(&input, cases, n, 1000 * i as u64)?;
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        let (mut our_rss, mut peer_rss) = (0, 0);
        for _ in 0..runs {
            let (t, rss, out) = run_process(&[&me, "solve"], &input)?;
            ours.push(t);
            our_rss = our_rss.max(rss);
            if peer && with_peer {
                let (t2, rss2, out2) = run_process(&[&peer_cmd], &input)?;
                if out2 != out {
                    let input = input.display();
                    return Err(format!("the peer and stonegame disagree on {input}").into());
                }
                theirs.push(t2);
                peer_rss = peer_rss.max(rss2);
            }
        }
        let ours_m = median(ours);
        let peer_columns = if theirs.is_empty() {
            "— | — | —".to_string()
        } else {
            let theirs_m = median(theirs);
            format!(
                "{:.1} ms | {:.1} MB | {:.1}×",
                theirs_m.as_secs_f64() * 1e3,
                peer_rss as f64 / 1024.0,
                theirs_m.as_secs_f64() / ours_m.as_secs_f64()
            )
        };
        println!(
            "| {cases} × n = {n} | {runs} | {:.1} ms | {:.1} MB | {peer_columns} |",
            ours_m.as_secs_f64() * 1e3,
            our_rss as f64 / 1024.0
        );
    }
    println!();
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Runs the command.
pub fn run(args: BenchArgs) -> ExitCode {
    println!(
        "# stonegame bench ({} threads, best kernel: {})",
        rayon::current_num_threads(),
        Isa::detect().name()
    );
    println!();
    if args.remoteness {
        let sizes: Vec<usize> = if args.quick {
            vec![300, 1_000]
        } else {
            args.remoteness_sizes.clone()
        };
        remoteness_table(&sizes);
        return ExitCode::SUCCESS;
    }
    exit((|| {
        kernel_table(args.quick)?;
        if !args.kernel_only {
            process_table(&args)?;
        }
        Ok(ExitCode::SUCCESS)
    })())
}
