//! Service benchmarks (measured, not asserted):
//!
//! * `solve_n1000`: 32 and 128 cases of n = 1000 (half planted losses)
//!   through Solve over loopback (`Client::solve`: batches of 32 cases,
//!   96 KiB of `piles_le` each — 3-byte words, as the piles are at most
//!   10^6 — on one stream, all in flight at once) beside the in-process
//!   `stonegame::core::solve_batch` on the same cases;
//! * `suggest_32_clients`: SuggestMove on rows of n = 100 from 32 concurrent
//!   connections, beside the same server's grpc.health.v1 Check (the floor).
//!   Criterion's throughput is the QPS; `stonegame client loadtest` prints
//!   QPS with p50/p99 latencies for the same load.
//!
//! Run: `cargo bench --bench service`.
//!
//! `cargo bench --bench service -- --paired [COUNT…] [--pairs N] [--batch B]`
//! measures `solve_n1000` differently, for a figure that survives a noisy
//! shared machine: instead of criterion's samples of one side then the
//! other, it runs both sides on the same cases back to back, pair after
//! pair (alternating which goes first), so a change in the machine's load
//! hits both, and prints the median over the pairs of in-process time ÷
//! gRPC time — gRPC throughput as a fraction of in-process — with its
//! quartiles. Every gRPC answer is checked against `solve_batch`'s. It
//! also prints how busy the cores were on each side (process CPU time ÷
//! wall time ÷ cores) and the ratio of the two sides' CPU time, which tell
//! idle time (latency) from extra work (transport) in the gap.

use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::client::Client;
use stonegame::core::planted::plant_loss;
use stonegame::core::{ValidRow, Variant, solve_batch};
use stonegame::service::config::Config;
use stonegame::service::pb;
use stonegame::service::{RunningServer, start};

/// Cases per `SolveRequest`.
const BATCH: usize = 32;

fn rows(count: usize, n: usize) -> Vec<Vec<u64>> {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    (0..count)
        .map(|i| {
            let tail: Vec<u64> = (0..n - 1)
                .map(|_| rng.random_range(1..=1_000_000))
                .collect();
            let planted = if i % 2 == 0 {
                ValidRow::try_from(&tail[..])
                    .ok()
                    .and_then(|tail| plant_loss(&tail))
                    .map(ValidRow::into_vec)
            } else {
                None
            };
            planted.unwrap_or_else(|| {
                let mut r = tail.clone();
                r.push(rng.random_range(1..=1_000_000));
                r
            })
        })
        .collect()
}

/// The rows as Solve cases, in `piles` (`Client::solve` packs them).
fn cases(rows: &[Vec<u64>]) -> Vec<pb::Case> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| pb::Case {
            id: i.to_string(),
            piles: r.clone(),
            variant: pb::Variant::TwoEnds as i32,
            ..Default::default()
        })
        .collect()
}

/// The allocator tuning of `stonegame serve` and `stonegame client`
/// (`service::alloc`), here process-wide: it applies to both sides of
/// each comparison.
fn tune_allocator() {
    stonegame::service::state::alloc::keep_freed_memory();
}

fn server(rt: &tokio::runtime::Runtime) -> RunningServer {
    let mut config = Config::defaults().expect("defaults");
    config.listen = "127.0.0.1:0".into();
    config.metrics.listen = Some("127.0.0.1:0".into());
    config.log.filter = "warn".into();
    rt.block_on(start(&config)).expect("server starts")
}

fn solve(c: &mut Criterion) {
    tune_allocator();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = server(&rt);
    let url = server.addr.to_string();
    let mut client = rt.block_on(Client::connect(&url)).expect("connect");
    let mut group = c.benchmark_group("solve_n1000");
    // The same rows go both ways; 32 cases is a short burst (one batch),
    // 128 cases a longer stream (4 batches, all in flight: the server's
    // default `max_batches_in_flight_per_stream`). Batches of 8 measured
    // the same for 32 cases and about 5 % slower for 128 (more per-batch
    // hops and a shallower pipeline).
    for count in [32, 128] {
        let rows = rows(count, 1000);
        let cases = cases(&rows);
        group.throughput(Throughput::Elements(rows.len() as u64));
        group.bench_function(BenchmarkId::new("in_process_solve_batch", count), |b| {
            b.iter(|| solve_batch(&rows, Variant::TwoEnds))
        });
        // The cases are cloned outside the timing (`Client::solve` takes
        // them by value); packing the rows into `piles_le`, encoding,
        // sending, solving and decoding the results are all timed.
        group.bench_function(BenchmarkId::new("grpc_loopback", count), |b| {
            b.iter_batched(
                || cases.clone(),
                |cases| rt.block_on(client.solve(cases, BATCH)).expect("solve"),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
    drop(server);
}

/// Runs `iters` requests from 32 concurrent connections; the wall time.
fn concurrent(
    rt: &tokio::runtime::Runtime,
    clients: &[Client],
    iters: u64,
    suggest: bool,
) -> Duration {
    let per = iters.div_ceil(clients.len() as u64);
    let started = Instant::now();
    rt.block_on(futures::future::join_all(clients.iter().enumerate().map(
        |(k, client)| {
            let mut client = client.clone();
            async move {
                let mut rng = ChaCha8Rng::seed_from_u64(k as u64);
                for _ in 0..per {
                    if suggest {
                        let row: Vec<u64> = (0..100).map(|_| rng.random_range(1..=1000)).collect();
                        client
                            .suggest(row, Variant::TwoEnds, None, 0)
                            .await
                            .expect("suggest");
                    } else {
                        client.health("").await.expect("health");
                    }
                }
            }
        },
    )));
    started.elapsed() * u32::try_from(iters).unwrap_or(u32::MAX)
        / u32::try_from(per * clients.len() as u64).unwrap_or(u32::MAX)
}

fn suggest(c: &mut Criterion) {
    tune_allocator();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = server(&rt);
    let url = server.addr.to_string();
    let clients: Vec<Client> = (0..32)
        .map(|_| rt.block_on(Client::connect(&url)).expect("connect"))
        .collect();
    let mut group = c.benchmark_group("suggest_32_clients");
    group.throughput(Throughput::Elements(1));
    group.bench_function("suggest_move_n100", |b| {
        b.iter_custom(|iters| concurrent(&rt, &clients, iters, true))
    });
    group.bench_function("health_check_floor", |b| {
        b.iter_custom(|iters| concurrent(&rt, &clients, iters, false))
    });
    group.finish();
    drop(server);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5));
    targets = solve, suggest
}

/// `--paired` options (`cargo bench --bench service -- --paired …`).
#[derive(clap::Parser)]
#[command(name = "service bench --paired")]
struct Paired {
    /// Run the paired comparison instead of criterion.
    #[arg(long)]
    paired: bool,
    /// Added by `cargo bench`.
    #[arg(long, hide = true)]
    bench: bool,
    /// Cases per stream, one comparison each.
    #[arg(value_parser = positive, default_values_t = [32, 128])]
    counts: Vec<usize>,
    /// Pairs per comparison (default: 6,400 cases' worth, at least 20).
    #[arg(long, value_parser = positive)]
    pairs: Option<usize>,
    /// Cases per SolveRequest.
    #[arg(long, value_parser = positive, default_value_t = BATCH)]
    batch: usize,
}

fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!("{text:?} is not a positive number")),
    }
}

/// The `--paired` options, if `--paired` was given (bad ones end the
/// process with clap's message).
fn paired_args() -> Option<Paired> {
    use clap::Parser;
    std::env::args()
        .any(|a| a == "--paired")
        .then(Paired::parse)
}

/// CPU time (user + system) this process has used so far, in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// `solve_n1000` in interleaved pairs (see the module documentation).
fn paired(args: &Paired) {
    tune_allocator();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = server(&rt);
    let mut client = rt
        .block_on(Client::connect(&server.addr.to_string()))
        .expect("connect");
    for &count in &args.counts {
        let rows = rows(count, 1000);
        let cases = cases(&rows);
        let want: Vec<bool> = solve_batch(&rows, Variant::TwoEnds)
            .into_iter()
            .map(|r| r.expect("valid rows"))
            .collect();
        // CPU seconds each side used, summed over the measured pairs.
        let (cpu_in, cpu_out) = (std::cell::Cell::new(0.0), std::cell::Cell::new(0.0));
        let in_process = || {
            let (t, c) = (Instant::now(), cpu_seconds());
            std::hint::black_box(solve_batch(&rows, Variant::TwoEnds));
            cpu_in.set(cpu_in.get() + cpu_seconds() - c);
            t.elapsed()
        };
        let mut grpc = || {
            let sent = cases.clone();
            let (t, c) = (Instant::now(), cpu_seconds());
            let results = rt.block_on(client.solve(sent, args.batch)).expect("solve");
            let elapsed = t.elapsed();
            cpu_out.set(cpu_out.get() + cpu_seconds() - c);
            let got: Vec<bool> = results.iter().map(|r| r.first_player_wins).collect();
            assert_eq!(got, want, "the service's verdicts differ from solve_batch");
            elapsed
        };
        let pairs = args.pairs.unwrap_or((6400 / count).max(20));
        // Warm-up: connections, allocator, caches.
        for _ in 0..pairs / 10 + 1 {
            in_process();
            grpc();
        }
        // Only the measured pairs count.
        cpu_in.set(0.0);
        cpu_out.set(0.0);
        let (mut ratios, mut ins, mut outs) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..pairs {
            let (a, b) = if k % 2 == 0 {
                let a = in_process();
                (a, grpc())
            } else {
                let b = grpc();
                (in_process(), b)
            };
            ratios.push(a.as_secs_f64() / b.as_secs_f64());
            ins.push(a.as_secs_f64() * 1e3);
            outs.push(b.as_secs_f64() * 1e3);
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let busy = |cpu: f64, wall: &[f64]| 100.0 * cpu * 1e3 / wall.iter().sum::<f64>() / cores;
        let (busy_in, busy_out) = (busy(cpu_in.get(), &ins), busy(cpu_out.get(), &outs));
        let cpu_ratio = cpu_in.get() / cpu_out.get();
        for v in [&mut ratios, &mut ins, &mut outs] {
            v.sort_by(f64::total_cmp);
        }
        println!(
            "solve_n1000/{count}: batches of {}, {pairs} pairs: gRPC throughput = {:.1} % of \
             in-process (median; quartiles {:.1}–{:.1} %); median times: in-process {:.2} ms, \
             gRPC {:.2} ms; cores busy: in-process {busy_in:.1} %, gRPC {busy_out:.1} %; \
             CPU time in-process ÷ gRPC {:.1} %",
            args.batch,
            100.0 * quantile(&ratios, 0.5),
            100.0 * quantile(&ratios, 0.25),
            100.0 * quantile(&ratios, 0.75),
            quantile(&ins, 0.5),
            quantile(&outs, 0.5),
            100.0 * cpu_ratio,
        );
    }
    drop(server);
}

fn main() {
    match paired_args() {
        Some(args) => paired(&args),
        None => {
            benches();
            Criterion::default().configure_from_args().final_summary();
        }
    }
}
