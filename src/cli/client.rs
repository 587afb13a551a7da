//! `stonegame client …`: talks to a running service, one subcommand per
//! RPC ([`ClientCommand`]). `solve`, `check` and `gen` give the output,
//! messages and exit codes of their offline commands (`check`: a server
//! that cannot be reached, refuses the call or whose name does not resolve
//! is `FAIL …`, exit 3); `play` is the terminal game of `stonegame play`
//! over the Play RPC ([`super::client_play`]); `health` exits 0 when
//! SERVING (an exec probe that speaks TLS).
//!
//! Every command takes the TLS flags and the bearer token ([`ServerArg`],
//! docs/security.md). `--server` is one URL, a comma-separated list of URLs
//! or `dns:///HOST:PORT`; a malformed value or a name that does not
//! resolve is an error, exit 1. `solve` spreads its batches over every
//! replica and resends those of a replica that fails (docs/replicas.md).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic_health::pb::health_check_response::ServingStatus;

use super::server_arg::ServerArg;
use crate::client::web::WebProtocol;
use crate::client::{
    ClientError, LoadReport, LoadRpc, LoadSpec, Notice, ReplicaStats, RetryPolicy, SelfPlayReport,
    SolveOptions, TableCodes, Target, loadtest_with, selfplay_with, solve_case,
};
use crate::core::{Move, Variant};
use crate::judge::check::Verdict;
use crate::ojformat::{OjError, OjReader};
use crate::wire::pb;

use super::row_input::RowArgs;
use super::suggest::{RemotenessMode, Suggestion, parse_piles, remoteness_help};
use super::{CliResult, cannot_read, exit, fail, open_input};
use crate::core::remoteness::MoveRange;
use crate::wire::convert::remoteness_from_wire;

/// Client subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ClientCommand {
    /// Judge OJ-format input on the server: one 0/1 line per case.
    Solve(SolveArgs),
    /// The verdict, winning moves and the bot's move of one position.
    Suggest(SuggestArgs),
    /// The `left` / `right` tables of a row.
    Tables(TablesArgs),
    /// Measure QPS and latency of SuggestMove (or health) under load.
    Loadtest(LoadtestArgs),
    /// Check a contestant's output on the server (testlib exit codes).
    Check(RemoteCheckArgs),
    /// Generate OJ-format test data on the server.
    Gen(RemoteGenArgs),
    /// Play a game against the server's bot in the terminal (Play RPC).
    Play(super::client_play::ClientPlayArgs),
    /// Ask grpc.health.v1 (exit 0 when SERVING): a probe that works over
    /// TLS and mTLS, for exec probes.
    Health(HealthArgs),
}

/// Arguments of `client health`.
#[derive(Debug, clap::Args)]
pub struct HealthArgs {
    #[command(flatten)]
    pub server: ServerArg,
    /// The service asked about ("" = the whole server).
    #[arg(long, default_value = "")]
    pub service: String,
    /// Give up after this many milliseconds.
    #[arg(long, default_value_t = 5000)]
    pub timeout_ms: u64,
}

/// Arguments of `client check`: the server and those of `stonegame check`.
#[derive(Debug, clap::Args)]
pub struct RemoteCheckArgs {
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub check: super::check::CheckArgs,
}

/// Arguments of `client gen`: the server and those of `stonegame gen`.
#[derive(Debug, clap::Args)]
pub struct RemoteGenArgs {
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub gen_args: super::generate::GenArgs,
}

/// Arguments of `client solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub server: ServerArg,
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// Cases per request.
    #[arg(long, default_value_t = 64)]
    pub batch_size: usize,
    /// Requests sent ahead of the answers, on each replica's stream.
    #[arg(long, default_value_t = 4)]
    pub in_flight: usize,
    /// At the end, print on stderr what each replica answered and how
    /// often it failed.
    #[arg(long)]
    pub stats: bool,
    /// OJ-format input; standard input when absent or `-`.
    pub file: Option<PathBuf>,
}

/// Arguments of `client suggest`.
#[derive(Debug, clap::Args)]
pub struct SuggestArgs {
    #[command(flatten)]
    pub server: ServerArg,
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The bot's strength in [0, 1] (default 1: perfect play).
    #[arg(long)]
    pub strength: Option<f64>,
    /// Seed of the bot's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The remoteness, as offline `suggest` computes it; sent as the
    /// request's `want_remoteness`.
    #[arg(long, value_enum, default_value_t = RemotenessMode::Auto,
          help = remoteness_help(), long_help = remoteness_help())]
    pub remoteness: RemotenessMode,
    #[command(flatten)]
    pub row: RowArgs,
}

/// Arguments of `client tables`.
#[derive(Debug, clap::Args)]
pub struct TablesArgs {
    #[command(flatten)]
    pub server: ServerArg,
    /// Rows per chunk (0: the server's choice).
    #[arg(long, default_value_t = 0)]
    pub chunk_rows: u32,
    /// The pile sizes, left to right.
    #[arg(required = true, allow_hyphen_values = true, value_name = "PILE")]
    pub piles: Vec<String>,
}

/// Which RPC `client loadtest` sends.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LoadRpcArg {
    /// SuggestMove on random rows.
    Suggest,
    /// grpc.health.v1 Check (the floor).
    Health,
    /// Whole games on Play streams (--concurrency games at a time), the
    /// client playing random legal moves: bot replies per second and
    /// reply latency, after a health run of as many requests (the floor)
    /// and beside it as a ratio.
    Play,
    /// Games of the bot against itself (SEAT_NONE, --requests games,
    /// --concurrency at a time): the time per move after the start.
    PlaySelf,
}

impl LoadRpcArg {
    /// The RPC of the load test and its `--concurrency` when none is given.
    fn rpc_and_concurrency(self) -> (LoadRpc, usize) {
        match self {
            LoadRpcArg::Suggest => (LoadRpc::Suggest, 32),
            LoadRpcArg::Health => (LoadRpc::Health, 32),
            LoadRpcArg::Play => (LoadRpc::Play, 64),
            LoadRpcArg::PlaySelf => (LoadRpc::Play, 1),
        }
    }
}

/// The help of `client loadtest --concurrency`, its defaults from
/// [`LoadRpcArg::rpc_and_concurrency`].
fn concurrency_help() -> String {
    let default = |rpc: LoadRpcArg| rpc.rpc_and_concurrency().1;
    format!(
        "Closed loop: concurrent clients, each sending its next request when the last is \
         answered (play: concurrent games). With --rate: the most requests outstanding. \
         Default {} (play: {}, play-self: {})",
        default(LoadRpcArg::Suggest),
        default(LoadRpcArg::Play),
        default(LoadRpcArg::PlaySelf)
    )
}

/// Arguments of `client loadtest`.
#[derive(Debug, clap::Args)]
pub struct LoadtestArgs {
    #[command(flatten)]
    pub server: ServerArg,
    /// The RPC to send.
    #[arg(long, value_enum, default_value = "suggest")]
    pub rpc: LoadRpcArg,
    /// Concurrent clients or games; its help is [`concurrency_help`].
    #[arg(long, help = concurrency_help(), long_help = concurrency_help())]
    pub concurrency: Option<usize>,
    /// HTTP/2 connections the clients share (0: one per client).
    #[arg(long, default_value_t = 0)]
    pub connections: usize,
    /// Open loop: send this many requests per second on a fixed schedule,
    /// whatever the answers (latency at a given load).
    #[arg(long, value_name = "QPS", allow_negative_numbers = true)]
    pub rate: Option<f64>,
    /// Total requests (play: bot replies; play-self: games).
    #[arg(long, default_value_t = 20_000)]
    pub requests: u64,
    /// Piles per SuggestMove or Play row.
    #[arg(long, default_value_t = 100)]
    pub piles: usize,
    /// The largest pile of the random rows (1..=this many stones each).
    #[arg(long, default_value_t = 1000)]
    pub max_pile: u64,
    /// Play: the bot's strength in [0, 1] (default: the server's, 1).
    #[arg(long, value_parser = super::interact::parse_strength)]
    pub strength: Option<f64>,
    /// SuggestMove over gRPC-Web or Connect JSON (HTTP/1.1, one connection
    /// per client; the server must be one http://HOST:PORT): runs the same
    /// test over gRPC first and prints both and their ratio.
    #[arg(long, value_enum, default_value = "grpc")]
    pub protocol: WebProtocol,
}

/// Runs the command.
pub fn run(cmd: ClientCommand) -> ExitCode {
    crate::service::state::alloc::keep_freed_memory();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => return fail(format!("cannot start the async runtime: {e}")),
    };
    match cmd {
        ClientCommand::Solve(args) => exit(run_solve(&runtime, args)),
        ClientCommand::Suggest(args) => exit(runtime.block_on(run_suggest(args))),
        ClientCommand::Tables(args) => exit(runtime.block_on(run_tables(args))),
        ClientCommand::Loadtest(args) => exit(runtime.block_on(run_loadtest(args))),
        ClientCommand::Check(args) => run_check(&runtime, &args),
        ClientCommand::Gen(args) => exit(run_gen(&runtime, &args)),
        ClientCommand::Play(args) => super::client_play::run(&runtime, &args),
        ClientCommand::Health(args) => runtime.block_on(run_health(args)),
    }
}

/// Prints the serving status; exit 0 when SERVING, 1 otherwise.
async fn run_health(args: HealthArgs) -> ExitCode {
    let ask = async {
        let client = args.server.connect().await?;
        client.health(&args.service).await
    };
    let timeout = std::time::Duration::from_millis(args.timeout_ms.max(1));
    match tokio::time::timeout(timeout, ask).await {
        Ok(Ok(status)) => {
            let status = ServingStatus::try_from(status);
            println!("{}", status.map_or("UNKNOWN", |s| s.as_str_name()));
            if status == Ok(ServingStatus::Serving) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Ok(Err(e)) => fail(e),
        Err(_) => fail(format!("no answer within {} ms", args.timeout_ms)),
    }
}

/// At most this many piles go into one request (at most 4 MiB of
/// `piles_le`, in 8-byte words).
const BATCH_PILES: usize = 1 << 19;

/// Why a remote solve stopped.
#[derive(Debug, thiserror::Error)]
enum RemoteSolveError {
    #[error(transparent)]
    Input(#[from] OjError),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("case {case}: the server refused it: {message}")]
    Case { case: u64, message: String },
    #[error("cannot write the verdicts: {0}")]
    Output(#[from] io::Error),
}

fn run_solve(runtime: &tokio::runtime::Runtime, args: SolveArgs) -> CliResult {
    let input =
        open_input(args.file.as_deref()).map_err(|e| cannot_read(args.file.as_deref(), &e))?;
    match solve_remote(runtime, input, &args) {
        Err(RemoteSolveError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => {}
        result => result?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One replica's line of `client solve --stats`.
fn stats_line(r: &ReplicaStats) -> String {
    let mut line = format!(
        "replica {}: {} batches, {} cases answered; {} failed streams",
        r.replica, r.batches, r.cases, r.failures
    );
    if let Some(e) = &r.last_error {
        line.push_str(&format!(" (last: {e})"));
    }
    if r.given_up {
        line.push_str("; given up");
    }
    if r.removed {
        line.push_str("; left the resolved set");
    }
    line
}

/// Reads OJ input on this thread, streams batches to the replicas from the
/// runtime and writes verdicts in order. On an input error every case
/// before it is written first, as offline.
fn solve_remote(
    runtime: &tokio::runtime::Runtime,
    input: Box<dyn io::BufRead>,
    args: &SolveArgs,
) -> Result<(), RemoteSolveError> {
    let mut reader = OjReader::new(input)?;
    let client = runtime.block_on(args.server.connect())?;
    let in_flight = args.in_flight.max(1);
    let (tx, rx) = mpsc::channel::<pb::SolveRequest>(in_flight);
    let options = SolveOptions {
        in_flight,
        retry: RetryPolicy::default(),
        // A replica that keeps refusing connections is reported when it
        // is given up, not at every attempt (--stats has them all).
        on_notice: Some(Arc::new(|notice| {
            let quiet = matches!(
                notice,
                Notice::Failed {
                    resent: 0,
                    retry_in: Some(_),
                    ..
                }
            );
            if !quiet {
                eprintln!("stonegame: warning: {notice}");
            }
        })),
    };
    let print_stats = args.stats;
    let answers = runtime.spawn(async move {
        let mut run = client.solve_batches(ReceiverStream::new(rx), options);
        let mut out = io::BufWriter::new(io::stdout());
        let mut case = 0u64;
        let result = async {
            while let Some(response) = run.next().await {
                for result in response?.results {
                    case += 1;
                    if let Some(error) = result.error {
                        out.flush()?;
                        return Err(RemoteSolveError::Case {
                            case,
                            message: error.message,
                        });
                    }
                    out.write_all(if result.first_player_wins {
                        b"1\n"
                    } else {
                        b"0\n"
                    })?;
                }
                out.flush()?;
            }
            Ok(())
        }
        .await;
        if print_stats {
            for r in run.stats() {
                eprintln!("stonegame: {}", stats_line(&r));
            }
        }
        result
    });
    let variant: Variant = args.variant;
    let batch_size = args.batch_size.max(1);
    let mut batch = Vec::new();
    let mut piles = 0;
    let mut failure = None;
    loop {
        let next = reader.next_case();
        let done = !matches!(next, Some(Ok(_)));
        match next {
            Some(Ok(case)) => {
                piles += case.piles.len();
                batch.push(solve_case(case.number.to_string(), &case.piles, variant));
            }
            Some(Err(e)) => failure = Some(e),
            None => {}
        }
        if !batch.is_empty() && (done || batch.len() >= batch_size || piles >= BATCH_PILES) {
            let cases = std::mem::take(&mut batch);
            piles = 0;
            if tx
                .blocking_send(pb::SolveRequest {
                    cases,
                    ..Default::default()
                })
                .is_err()
            {
                // The answering side stopped: its error is the one to report.
                break;
            }
        }
        if done {
            break;
        }
    }
    drop(tx);
    runtime
        .block_on(answers)
        .map_err(|e| ClientError::Protocol(format!("the answering task failed: {e}")))??;
    failure.map_or(Ok(()), |e| Err(e.into()))
}

/// The server's repeated field `items` as core values, or which of them
/// (`what`) is malformed.
fn decode_all<'a, M, T>(items: &'a [M], what: &str) -> Result<Vec<T>, ClientError>
where
    T: TryFrom<&'a M>,
    T::Error: std::fmt::Display,
{
    items
        .iter()
        .map(T::try_from)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ClientError::Protocol(format!("the server's {what}: {e}")))
}

/// The offline `suggest`'s lines from the server's answer (the verdict,
/// the winning moves, the remoteness and the move ranges; the bot's move
/// is derived from them as offline). With `--strength`, the move the bot
/// of that strength chose and why follow.
async fn run_suggest(args: SuggestArgs) -> CliResult {
    let row = args.row.row()?;
    let variant: Variant = args.variant;
    let want = args.remoteness.wants(variant, row.len());
    let mut client = args.server.connect().await?;
    let r = client
        .suggest_request(pb::SuggestMoveRequest {
            piles: row.as_slice().to_vec(),
            variant: pb::Variant::from(variant) as i32,
            strength: args.strength,
            seed: args.seed,
            want_remoteness: want,
        })
        .await?;
    let bad = |what: &str, e: &dyn std::fmt::Display| {
        ClientError::Protocol(format!("the server's {what}: {e}"))
    };
    let winning_moves: Vec<Move> = decode_all(&r.winning_moves, "winning move")?;
    let solved = match (&r.remoteness, want) {
        (Some(plies), true) => {
            let plies = remoteness_from_wire(plies).map_err(|e| bad("remoteness", &e))?;
            let ranges: Vec<MoveRange> = decode_all(&r.move_ranges, "move range")?;
            if ranges.is_empty() {
                return Err(bad("answer", &"a remoteness without move ranges").into());
            }
            if let Some(r) = ranges.iter().find(|r| !range_fits(&row, r)) {
                return Err(bad("move range", &format!("{r:?} is not a range of this row")).into());
            }
            Some((plies, ranges))
        }
        (None, true) => return Err(bad("answer", &"no remoteness, though asked for").into()),
        (_, false) => None,
    };
    let suggestion = Suggestion {
        row: &row,
        variant,
        mode: args.remoteness,
        mover_wins: r.mover_wins,
        winning_moves,
        solved,
    };
    let mut lines = suggestion.lines();
    if args.strength.is_some() {
        if let Some(m) = r.chosen.as_ref().and_then(|m| Move::try_from(m).ok()) {
            lines.push(format!("chosen move: {m}"));
        }
        lines.push(format!("explanation: {}", r.explanation));
    }
    for line in lines {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Does the range `r` of a server's answer hold moves of `row` only (so
/// that computing its moves and remoteness cannot overflow)?
fn range_fits(row: &crate::core::ValidRow<'_>, r: &MoveRange) -> bool {
    let pile = match r.side {
        crate::core::Side::Left => row.first_pile(),
        crate::core::Side::Right => row.last_pile(),
    };
    r.left_min <= r.left_max && r.left_max < pile && r.remoteness_at_min <= (i128::MAX / 2) as u128
}

async fn run_tables(args: TablesArgs) -> CliResult {
    let piles = parse_piles(&args.piles)?;
    let mut client = args.server.connect().await?;
    let codes = client.tables(piles, args.chunk_rows).await?;
    let n = codes.n;
    let mut out = io::BufWriter::new(io::stdout().lock());
    let printed = (|| -> io::Result<()> {
        let left = TableCodes::left as fn(&TableCodes, usize, usize) -> u64;
        for (name, entry) in [("left", left), ("right", TableCodes::right)] {
            writeln!(out, "# {name}[i][j] (1-based), row i lists j = i..{n}")?;
            for i in 0..n {
                let row: Vec<String> = (i..n).map(|j| entry(&codes, i, j).to_string()).collect();
                writeln!(out, "{name}[{}]: {}", i + 1, row.join(" "))?;
            }
        }
        out.flush()
    })();
    match printed {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write the tables: {e}").into())
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

async fn run_loadtest(args: LoadtestArgs) -> CliResult {
    let (rpc, default_concurrency) = args.rpc.rpc_and_concurrency();
    let spec = LoadSpec {
        rpc,
        concurrency: args.concurrency.unwrap_or(default_concurrency),
        connections: args.connections,
        requests: args.requests,
        piles: args.piles,
        max_pile: args.max_pile,
        strength: args.strength,
        rate: args.rate,
        protocol: args.protocol,
    };
    let builder = args.server.builder()?;
    if matches!(args.rpc, LoadRpcArg::PlaySelf) {
        let r = selfplay_with(&builder, &spec).await?;
        println!("{}", selfplay_line(&spec, &r));
        return Ok(ExitCode::SUCCESS);
    }
    // Play: the health floor first, with the same clients and connections;
    // another protocol: native gRPC first, the same requests. The ratio is
    // the figure.
    let baseline = if rpc == LoadRpc::Play {
        Some(LoadSpec {
            rpc: LoadRpc::Health,
            ..spec.clone()
        })
    } else if spec.protocol != WebProtocol::Grpc {
        Some(LoadSpec {
            protocol: WebProtocol::Grpc,
            ..spec.clone()
        })
    } else {
        None
    };
    let base = match baseline {
        Some(base_spec) => {
            spec.validate()?;
            let r = loadtest_with(&builder, &base_spec).await?;
            println!("{}", loadtest_line(&base_spec, &r));
            Some(r)
        }
        None => None,
    };
    let r = loadtest_with(&builder, &spec).await?;
    println!("{}", loadtest_line(&spec, &r));
    if let Some(base) = base {
        let ratio = 100.0 * r.qps() / base.qps();
        if rpc == LoadRpc::Play {
            println!(
                "Play / Health: {ratio:.0} % (bot replies per second over the health check's \
                 QPS, same clients)"
            );
        } else {
            let name = spec.protocol.name();
            println!("{name} / grpc: {ratio:.0} % (QPS over native gRPC's, same requests)");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The line of `client loadtest --rpc play-self`.
fn selfplay_line(spec: &LoadSpec, r: &SelfPlayReport) -> String {
    format!(
        "PlaySelf: {} games of {} piles (1..={} stones), bot against bot, {} at a time: \
         start p50 {:.3} ms, max {:.3} ms; {}, {:.3} s after the starts, {:.0} ns per move",
        r.games,
        spec.piles.max(1),
        spec.max_pile,
        spec.concurrency.max(1),
        r.start_p50.as_secs_f64() * 1e3,
        r.start_max.as_secs_f64() * 1e3,
        crate::core::remoteness::Plies::from(r.plies),
        r.after_start.as_secs_f64(),
        r.per_ply().as_secs_f64() * 1e9
    )
}

/// The one-line summary `client loadtest` prints.
fn loadtest_line(spec: &LoadSpec, r: &LoadReport) -> String {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let mode = match (spec.rate, r.max_send_lag) {
        (Some(rate), lag) => format!(
            "open loop at {rate:.0}/s (at most {} outstanding; sends up to {:.3} ms late)",
            spec.concurrency.max(1),
            lag.map_or(0.0, ms)
        ),
        (None, _) => format!("{} concurrent", spec.concurrency.max(1)),
    };
    let (what, unit) = match spec.rpc {
        LoadRpc::Play => (
            format!(
                "{} bot replies in {} games of {} piles (1..={} stones)",
                r.requests,
                r.games,
                spec.piles.max(1),
                spec.max_pile
            ),
            "replies/s",
        ),
        _ => (format!("{} requests", r.requests), "QPS"),
    };
    let connections = match spec.protocol {
        WebProtocol::Grpc => format!("{} connections", spec.connection_count()),
        web => format!("{} over HTTP/1.1", web.name()),
    };
    format!(
        "{:?}: {what}, {mode}, {connections}, {:.0} {unit}, p50 {:.3} ms, p90 {:.3} ms, \
         p99 {:.3} ms, p99.9 {:.3} ms, max {:.3} ms",
        spec.rpc,
        r.qps(),
        ms(r.p50),
        ms(r.p90),
        ms(r.p99),
        ms(r.p999),
        ms(r.max)
    )
}

fn run_check(runtime: &tokio::runtime::Runtime, args: &RemoteCheckArgs) -> ExitCode {
    // A malformed --server is bad usage, not a judging failure.
    if let Err(e) = Target::parse(&args.server.server) {
        return fail(e);
    }
    let (line, code) = match super::check::open_files(&args.check) {
        Ok((input, answer)) => {
            let variant = args.check.variant;
            let result = runtime.block_on(async {
                let mut client = args.server.connect().await?;
                client.check(input, answer, variant).await
            });
            match result {
                Ok(report) => (report.message, report.verdict.exit_code()),
                Err(e) => (format!("FAIL {e}"), Verdict::JudgeFailure.exit_code()),
            }
        }
        Err(line) => (line, Verdict::JudgeFailure.exit_code()),
    };
    let mut out = io::stdout().lock();
    // A verdict that cannot be printed still has its exit code.
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    ExitCode::from(code)
}

/// Why a remote gen stopped.
#[derive(Debug, thiserror::Error)]
enum RemoteGenError {
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error("cannot write the test input: {0}")]
    Input(io::Error),
    #[error("cannot write the expected answers: {0}")]
    Answers(io::Error),
}

fn run_gen(runtime: &tokio::runtime::Runtime, args: &RemoteGenArgs) -> CliResult {
    let spec = super::generate::spec(&args.gen_args);
    // Bad parameters are reported as offline, before any file is created.
    spec.validate()?;
    let mut stream = runtime.block_on(async {
        let mut client = args.server.connect().await?;
        client.generate(&spec).await
    })?;
    let mut answers = super::generate::create_answers(&args.gen_args)?;
    let mut input = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let result = (|| -> Result<(), RemoteGenError> {
        while let Some(chunk) = runtime
            .block_on(stream.message())
            .map_err(ClientError::from)?
        {
            input
                .write_all(&chunk.input_chunk)
                .map_err(RemoteGenError::Input)?;
            if let Some(out) = answers.as_mut() {
                out.write_all(&chunk.answer_chunk)
                    .map_err(RemoteGenError::Answers)?;
            }
        }
        input.flush().map_err(RemoteGenError::Input)?;
        if let Some(out) = answers.as_mut() {
            out.flush().map_err(RemoteGenError::Answers)?;
        }
        Ok(())
    })();
    match result {
        Err(RemoteGenError::Input(e)) if e.kind() == io::ErrorKind::BrokenPipe => {}
        result => result?,
    }
    Ok(ExitCode::SUCCESS)
}
