//! Criterion benchmarks of the verdict kernels, with the O(n²)-memory table
//! DP (the algorithm of the C++ peer, here in Rust) beside them, and
//! whole-process `stonegame solve` beside the C++ peer itself
//! (`bench/peer.cpp`) when g++ is there. Throughput is in cell updates (intervals `[i, j]`) per second.
//!
//! `cargo bench --bench kernel` (add `-- --quick` for a fast pass).

use std::hint::black_box;
use std::io::Write;
use std::process::{Command, Stdio};

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::core::kernel::direct::Width;
use stonegame::core::kernel::{Isa, KernelOptions};
use stonegame::core::tables::Tables;
use stonegame::core::verdict::{KernelKind, end_values_with};
use stonegame::core::{Never, ValidRow};

fn row(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| rng.random_range(1..=1_000_000_000))
        .collect()
}

fn cells(n: usize) -> u64 {
    (n as u64) * (n as u64 - 1) / 2
}

fn kernels(c: &mut Criterion) {
    let mut g = c.benchmark_group("verdict_kernel");
    g.sampling_mode(SamplingMode::Flat);
    for n in [1_000usize, 20_000, 200_000] {
        let piles = ValidRow::try_from(row(n, n as u64)).expect("random piles are valid");
        g.throughput(Throughput::Elements(cells(n)));
        g.sample_size(if n >= 200_000 { 10 } else { 20 });
        let mut configs = vec![
            ("codes-1core", KernelKind::Codes, false),
            ("codes-allcores", KernelKind::Codes, true),
        ];
        if n <= 20_000 {
            configs.push(("direct-u32-1core", KernelKind::Direct(Width::W32), false));
            configs.push(("direct-u64-1core", KernelKind::Direct(Width::W64), false));
        }
        for (name, kind, parallel) in configs {
            let opts = KernelOptions {
                isa: Isa::detect(),
                parallel,
                blocking: true,
            };
            g.bench_with_input(BenchmarkId::new(name, n), &piles, |b, p| {
                b.iter(|| black_box(end_values_with(p, kind, opts, &Never)))
            });
        }
        if n <= 2_000 {
            g.bench_with_input(BenchmarkId::new("tables-o(n2)", n), &piles, |b, p| {
                b.iter(|| black_box(Tables::new(p).first_player_wins()))
            });
        }
    }
    g.finish();
}

/// Whole process on the same file: ours vs the C++ peer (g++ -O2).
fn whole_process(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("stonegame-criterion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let peer_src = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/peer.cpp");
    let peer_bin = dir.join("peer");
    let have_peer = std::path::Path::new(peer_src).exists()
        && Command::new("g++")
            .args(["-O2", "-o"])
            .arg(&peer_bin)
            .arg(peer_src)
            .status()
            .is_ok_and(|s| s.success());
    let ours = env!("CARGO_BIN_EXE_stonegame");
    let mut g = c.benchmark_group("whole_process");
    g.sample_size(10);
    for (cases, n) in [(10usize, 1_000usize), (2, 5_000)] {
        let path = dir.join(format!("in-{cases}x{n}.txt"));
        let mut f = std::fs::File::create(&path).unwrap();
        writeln!(f, "{cases}").unwrap();
        for k in 0..cases {
            let r: Vec<String> = row(n, k as u64).iter().map(u64::to_string).collect();
            writeln!(f, "{n}\n{}", r.join(" ")).unwrap();
        }
        drop(f);
        let run = |cmd: &[&str]| {
            let status = Command::new(cmd[0])
                .args(&cmd[1..])
                .stdin(std::fs::File::open(&path).unwrap())
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        };
        let label = format!("{cases}x{n}");
        g.bench_function(BenchmarkId::new("stonegame-solve", &label), |b| {
            b.iter(|| run(&[ours, "solve"]))
        });
        if have_peer {
            let peer = peer_bin.to_str().unwrap();
            g.bench_function(BenchmarkId::new("cpp-peer", &label), |b| {
                b.iter(|| run(&[peer]))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, kernels, whole_process);
criterion_main!(benches);
