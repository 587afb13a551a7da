//! The metric families and how they are exported (see `docs/metrics.md`).
//!
//! * [`Metrics`] — the Prometheus families (`prometheus-client`) behind
//!   `/metrics`, which the tests read too, updated at a few places: a case solved ([`Metrics::count_case`]),
//!   a request refused ([`Metrics::refused`]), an RPC ended
//!   ([`Metrics::rpc_ended`], called by the [`super::calls`] layer), a
//!   connection accepted ([`Metrics::connection_opened`], by the
//!   transport's connection guard);
//! * [`listener`] — the HTTP/1 listener answering `GET /metrics` with
//!   OpenMetrics text (hyper, which tonic already brings).
//!
//! This module depends only on [`super::units`], [`super::labels`] and the core; the gauges of
//! work in flight are read from the state when a scrape comes
//! ([`Metrics::encode`] takes them as an [`InFlight`]).

use std::hash::Hash;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::{Registry, Unit};
use tonic::Code;

use crate::core::Variant;

use super::labels::{
    AuthReason, CodeLabel, ConnRefusal, GameStart, HandshakeFailure, Mover, PlayEnd, PlayReject,
    Protocol, ReloadResult, Reloaded, Rpc, label_enum,
};
use super::units::{AdmissionError, CELLS, PLAY_SESSIONS, cells_of};

/// The `Content-Type` of a scrape: OpenMetrics text, which Prometheus
/// prefers and every Prometheus since 2.0 reads.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Upper bounds of the `stonegame_rpc_duration_seconds` buckets: from a
/// SuggestMove solved inline (about 10 µs) to a long Solve stream.
pub const DURATION_BUCKETS: [f64; 21] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0, 25.0, 60.0, 150.0, 300.0, 600.0,
];

label_enum! {
    /// Why a request was refused before its work started: the `reason` label of
    /// `stonegame_admission_rejected_total`.
    Refusal as "reason" {
        /// The cell-update budget is busy now (RESOURCE_EXHAUSTED, retry hint).
        BusyCells => "busy_cells",
        /// The piles budget is busy now (RESOURCE_EXHAUSTED, retry hint).
        BusyPiles => "busy_piles",
        /// More cell updates than the whole budget (RESOURCE_EXHAUSTED, "split it").
        TooLargeCells => "too_large_cells",
        /// More piles than the whole budget (RESOURCE_EXHAUSTED, "split it").
        TooLargePiles => "too_large_piles",
        /// `max_concurrent_rpcs` RPCs already running (RESOURCE_EXHAUSTED).
        TooManyRpcs => "too_many_rpcs",
        /// The server is draining (UNAVAILABLE).
        ShuttingDown => "shutting_down",
        /// `max_play_sessions` games already open (RESOURCE_EXHAUSTED, retry hint).
        TooManyPlaySessions => "too_many_play_sessions",
    }
}

impl From<&AdmissionError> for Refusal {
    fn from(e: &AdmissionError) -> Refusal {
        match e {
            AdmissionError::Busy { unit, .. } | AdmissionError::TooLarge { unit, .. }
                if *unit == PLAY_SESSIONS =>
            {
                Refusal::TooManyPlaySessions
            }
            AdmissionError::Busy { unit, .. } if *unit == CELLS => Refusal::BusyCells,
            AdmissionError::Busy { .. } => Refusal::BusyPiles,
            AdmissionError::TooLarge { unit, .. } if *unit == CELLS => Refusal::TooLargeCells,
            AdmissionError::TooLarge { .. } => Refusal::TooLargePiles,
        }
    }
}

/// The name of a gRPC status code as the gRPC spec writes it (`OK`,
/// `INVALID_ARGUMENT`, …): the `code` label value.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// The labels of `stonegame_rpc_requests_total` (the one-label families
/// are keyed by the label's value itself, see [`labels`]).
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RpcCodeLabels {
    rpc: Rpc,
    code: CodeLabel,
    protocol: Protocol,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReloadLabels {
    what: Reloaded,
    result: ReloadResult,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VersionLabels {
    version: &'static str,
}

/// The Prometheus side of [`Metrics`]: each family declared once, with its
/// field, type, name (and unit) and help, registered in this order by
/// `Exported::registered`; a family without an initial value starts from
/// its `Default`.
macro_rules! exported {
    ($($field:ident: $ty:ty $(= $init:expr)? => $name:literal $([$unit:expr])?, $help:literal;)+) => {
        #[derive(Debug)]
        struct Exported {
            registry: Registry,
            $($field: $ty,)+
        }

        impl Exported {
            /// Every family, created and registered.
            fn registered() -> Exported {
                let mut registry = Registry::default();
                $(
                    let $field: $ty = exported!(@init $($init)?);
                    exported!(@register registry, $name, $help, $field.clone() $(, $unit)?);
                )+
                Exported { registry, $($field,)+ }
            }
        }
    };
    (@init) => { Default::default() };
    (@init $init:expr) => { $init };
    (@register $r:ident, $name:literal, $help:literal, $metric:expr) => {
        $r.register($name, $help, $metric)
    };
    (@register $r:ident, $name:literal, $help:literal, $metric:expr, $unit:expr) => {
        $r.register_with_unit($name, $help, $unit, $metric)
    };
}

exported! {
    rpc_requests: Family<RpcCodeLabels, Counter> => "stonegame_rpc_requests",
        "StoneGame RPCs ended, by method and final gRPC status code (streams count when they end)";
    rpc_duration: Family<Rpc, Histogram, fn() -> Histogram> =
        Family::new_with_constructor(|| Histogram::new(DURATION_BUCKETS))
        => "stonegame_rpc_duration" [Unit::Seconds],
        "Time from an RPC's start to its end (for streams: the whole stream)";
    cases: Family<Variant, Counter> => "stonegame_cases",
        "Cases solved to the end (Solve cases, SuggestMove rows, the cases Check and Generate solve), by variant";
    cases_started: Counter => "stonegame_cases_started",
        "Cases whose solving started (solved, cancelled or still running)";
    cases_cancelled: Counter => "stonegame_cases_cancelled",
        "Cases whose solving was cancelled (client gone, deadline, shutdown)";
    case_errors: Counter => "stonegame_case_errors",
        "Solve cases answered with a case error instead of being solved";
    cells: Counter => "stonegame_cells",
        "Cell updates done: n(n-1)/2 per two-ends case of n piles, n per leftmost case, n(n-1)/2 per GetTables row";
    admission_rejected: Family<Refusal, Counter> => "stonegame_admission_rejected",
        "Requests refused before their work started, by reason";
    auth_rejected: Family<AuthReason, Counter> => "stonegame_auth_rejected",
        "StoneGame calls refused UNAUTHENTICATED (auth.tokens_file), by reason: missing, malformed or unknown token";
    tls_handshake_failures: Family<HandshakeFailure, Counter> => "stonegame_tls_handshake_failures",
        "Connections closed because their TLS handshake failed, by reason: no_client_certificate, unknown_ca, expired, bad_certificate, plaintext, timeout, other";
    reloads: Family<ReloadLabels, Counter> => "stonegame_reloads",
        "Re-reads of changed files, by what (tls, auth) and result (ok, error: the old ones are kept)";
    connections_accepted: Counter => "stonegame_connections_accepted",
        "gRPC connections accepted";
    connections_open: Gauge => "stonegame_connections_open",
        "gRPC connections open now";
    send_stalls: Family<Rpc, Counter> => "stonegame_send_stalls",
        "Server streams cut because their client took no message for transport.send_stall_timeout, by method";
    connections_refused: Family<ConnRefusal, Counter> => "stonegame_connections_refused",
        "Connections closed as soon as they were accepted, by reason: max_connections, max_connections_per_ip";
    cells_in_flight: Gauge => "stonegame_cells_in_flight",
        "Cell updates admitted and not yet done (the admission budget in use)";
    cells_in_flight_max: Gauge => "stonegame_cells_in_flight_max",
        "The cell-update budget (limits.max_cells_in_flight)";
    piles_in_flight: Gauge => "stonegame_piles_in_flight",
        "Piles held by admitted requests";
    piles_in_flight_max: Gauge => "stonegame_piles_in_flight_max",
        "The piles budget (limits.max_piles_in_flight)";
    rpcs_in_flight: Gauge => "stonegame_rpcs_in_flight",
        "RPCs running now (StoneGame only)";
    rpcs_in_flight_max: Gauge => "stonegame_rpcs_in_flight_max",
        "The concurrency limit (limits.max_concurrent_rpcs)";
    solve_batches_in_flight: Gauge => "stonegame_solve_batches_in_flight",
        "Solve batches admitted and not yet answered, over all streams";
    play_sessions: Gauge => "stonegame_play_sessions",
        "Play streams (games) open now";
    play_sessions_max: Gauge => "stonegame_play_sessions_max",
        "The Play session limit (limits.max_play_sessions)";
    play_games_started: Family<GameStart, Counter> => "stonegame_play_games_started",
        "Play games begun, by how: start (StartGame) or resume (ResumeGame)";
    play_games_ended: Family<PlayEnd, Counter> => "stonegame_play_games_ended",
        "Play games ended, by reason (no_moves, resigned, timeout, too_many_illegal_moves, abandoned)";
    play_moves: Family<Mover, Counter> => "stonegame_play_moves",
        "Play moves accepted, by who played them: client or bot";
    play_rejected: Family<PlayReject, Counter> => "stonegame_play_rejected_moves",
        "Play moves rejected (MoveRejected), by reason";
    play_row_cache_hits: Counter => "stonegame_play_row_cache_hits",
        "Play games whose prepared row was already in the row cache (or being prepared)";
    play_row_cache_misses: Counter => "stonegame_play_row_cache_misses",
        "Play games that prepared their row (the one O(n^2) sweep)";
    play_row_cache_bytes: Gauge => "stonegame_play_row_cache" [Unit::Bytes],
        "Heap bytes of the prepared rows in the Play row cache";
    play_row_cache_entries: Gauge => "stonegame_play_row_cache_entries",
        "Prepared rows in the Play row cache";
}

impl Default for Exported {
    /// The families, registered with the build info and every series a
    /// dashboard expects created at 0, so rate() sees the first increment.
    fn default() -> Exported {
        let mut e = Exported::registered();
        e.registry.register(
            "stonegame_build",
            "The running build",
            Info::new(VersionLabels {
                version: env!("CARGO_PKG_VERSION"),
            }),
        );
        fn zeros<L: Clone + Hash + Eq>(family: &Family<L, Counter>, labels: &[L]) {
            labels.iter().for_each(|l| drop(family.get_or_create(l)));
        }
        zeros(&e.play_games_started, &GameStart::ALL);
        zeros(&e.tls_handshake_failures, &HandshakeFailure::ALL);
        zeros(&e.play_games_ended, &PlayEnd::ALL);
        zeros(&e.play_moves, &Mover::ALL);
        zeros(&e.play_rejected, &PlayReject::ALL);
        for &rpc in Rpc::ALL.iter().filter(|&&rpc| rpc != Rpc::Other) {
            for protocol in Protocol::ALL {
                let code = CodeLabel(Code::Ok);
                let _ = e.rpc_requests.get_or_create(&RpcCodeLabels {
                    rpc,
                    code,
                    protocol,
                });
            }
            let _ = e.rpc_duration.get_or_create(&rpc);
        }
        zeros(&e.cases, &Variant::ALL);
        zeros(&e.admission_rejected, &Refusal::ALL);
        zeros(&e.auth_rejected, &AuthReason::ALL);
        e
    }
}

/// What the server counts: the Prometheus families behind `/metrics`
/// (`prometheus-client`), which are also what the tests read (the
/// accessors below).
#[derive(Debug, Default)]
pub struct Metrics {
    /// The largest number of Solve batches in flight at once (not
    /// exported: a gauge's past peak is what a scrape cannot see).
    batches_in_flight_peak: AtomicU64,
    exported: Exported,
}

/// The gauges of work in flight, read from the state at each scrape.
#[derive(Debug, Clone, Copy, Default)]
pub struct InFlight {
    /// Cell updates admitted.
    pub cells: u64,
    /// The cell-update budget.
    pub cells_max: u64,
    /// Piles held.
    pub piles: u64,
    /// The piles budget.
    pub piles_max: u64,
    /// RPCs running.
    pub rpcs: u64,
    /// The concurrency limit.
    pub rpcs_max: u64,
    /// The Play session limit.
    pub play_sessions_max: u64,
    /// Bytes of the Play row cache.
    pub play_row_cache_bytes: u64,
    /// Entries of the Play row cache.
    pub play_row_cache_entries: u64,
}

/// The sum of a counter family's series for `labels`.
fn total<'a, L: Clone + Hash + Eq + 'a>(
    family: &Family<L, Counter>,
    labels: impl IntoIterator<Item = &'a L>,
) -> u64 {
    labels
        .into_iter()
        .map(|l| family.get_or_create(l).get())
        .sum()
}

/// Adds one to the series of `labels` in a counter family.
fn inc<L: Clone + Hash + Eq>(family: &Family<L, Counter>, labels: &L) {
    family.get_or_create(labels).inc();
}

fn gauge(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl Metrics {
    /// Cases (Solve cases, SuggestMove rows, the cases Check and Generate
    /// solve) whose solving started.
    pub fn cases_started(&self) -> u64 {
        self.exported.cases_started.get()
    }

    /// Cases solved to the end, both variants.
    pub fn cases_completed(&self) -> u64 {
        total(&self.exported.cases, &Variant::ALL)
    }

    /// Cases whose solving stopped because they were cancelled.
    pub fn cases_cancelled(&self) -> u64 {
        self.exported.cases_cancelled.get()
    }

    /// Requests refused by admission control (the budgets and the Play
    /// session limit): every reason but the concurrency limit and draining.
    pub fn admissions_refused(&self) -> u64 {
        let budgets = Refusal::ALL
            .iter()
            .filter(|r| !matches!(r, Refusal::TooManyRpcs | Refusal::ShuttingDown));
        total(&self.exported.admission_rejected, budgets)
    }

    /// RPCs refused by the concurrency limit.
    pub fn rpcs_refused(&self) -> u64 {
        total(&self.exported.admission_rejected, &[Refusal::TooManyRpcs])
    }

    /// The largest number of Solve batches in flight at once so far.
    pub fn batches_in_flight_peak(&self) -> u64 {
        self.batches_in_flight_peak.load(Ordering::Acquire)
    }

    /// gRPC connections accepted.
    pub fn connections_accepted(&self) -> u64 {
        self.exported.connections_accepted.get()
    }

    /// Play sessions open now (a stream from its first message to its end).
    pub fn play_sessions(&self) -> u64 {
        u64::try_from(self.exported.play_sessions.get()).unwrap_or(0)
    }

    /// Play games begun (started or resumed).
    pub fn play_games(&self) -> u64 {
        total(&self.exported.play_games_started, &GameStart::ALL)
    }

    /// Play games ended, whatever the reason.
    pub fn play_games_ended(&self) -> u64 {
        total(&self.exported.play_games_ended, &PlayEnd::ALL)
    }

    /// Play games whose row came from the row cache.
    pub fn play_row_cache_hits(&self) -> u64 {
        self.exported.play_row_cache_hits.get()
    }

    /// Play games that prepared their row.
    pub fn play_row_cache_misses(&self) -> u64 {
        self.exported.play_row_cache_misses.get()
    }

    /// Counts a StoneGame call refused for its bearer token.
    pub fn auth_rejected(&self, reason: AuthReason) {
        inc(&self.exported.auth_rejected, &reason);
    }

    /// Counts a failed TLS handshake by its reason.
    pub fn tls_handshake_failed(&self, reason: HandshakeFailure) {
        inc(&self.exported.tls_handshake_failures, &reason);
    }

    /// Counts a re-read of changed files.
    pub fn reloaded(&self, what: Reloaded, ok: bool) {
        let result = if ok {
            ReloadResult::Ok
        } else {
            ReloadResult::Error
        };
        inc(&self.exported.reloads, &ReloadLabels { what, result });
    }

    /// Runs the solving of one case of `piles` piles (of any RPC), counting
    /// it as started, then completed (`Some`: its cell updates count too)
    /// or cancelled (`None`).
    pub fn count_case<T>(
        &self,
        variant: Variant,
        piles: usize,
        solve: impl FnOnce() -> Option<T>,
    ) -> Option<T> {
        self.exported.cases_started.inc();
        let result = solve();
        match result {
            Some(_) => {
                inc(&self.exported.cases, &variant);
                self.exported
                    .cells
                    .inc_by(cells_of(piles, variant == Variant::TwoEnds));
            }
            None => {
                self.exported.cases_cancelled.inc();
            }
        }
        result
    }

    /// Counts a Solve case answered with a case error.
    pub fn case_error(&self) {
        self.exported.case_errors.inc();
    }

    /// Counts the cell updates of a GetTables row of `piles` piles.
    pub fn count_tables(&self, piles: usize) {
        self.exported.cells.inc_by(cells_of(piles, true));
    }

    /// Counts a request refused before its work started.
    pub fn refused(&self, reason: Refusal) {
        inc(&self.exported.admission_rejected, &reason);
    }

    /// Counts an RPC that ended with `code` after `elapsed`.
    pub fn rpc_ended(&self, rpc: Rpc, code: Code, protocol: Protocol, elapsed: Duration) {
        inc(
            &self.exported.rpc_requests,
            &RpcCodeLabels {
                rpc,
                code: CodeLabel(code),
                protocol,
            },
        );
        self.exported
            .rpc_duration
            .get_or_create(&rpc)
            .observe(elapsed.as_secs_f64());
    }

    /// Counts a Play session opened; closed when the guard drops.
    pub fn play_session(self: &Arc<Self>) -> PlaySession {
        self.exported.play_sessions.inc();
        PlaySession(Arc::clone(self))
    }

    /// Counts a Play game begun.
    pub fn play_game_started(&self, how: GameStart) {
        inc(&self.exported.play_games_started, &how);
    }

    /// Counts a Play game ended.
    pub fn play_game_ended(&self, reason: PlayEnd) {
        inc(&self.exported.play_games_ended, &reason);
    }

    /// Counts an accepted Play move.
    pub fn play_move(&self, by: Mover) {
        inc(&self.exported.play_moves, &by);
    }

    /// Counts a rejected Play move.
    pub fn play_rejected(&self, reason: PlayReject) {
        inc(&self.exported.play_rejected, &reason);
    }

    /// Counts a Play game's row found in the cache (`hit`) or prepared.
    pub fn play_row_cache(&self, hit: bool) {
        if hit {
            self.exported.play_row_cache_hits.inc();
        } else {
            self.exported.play_row_cache_misses.inc();
        }
    }

    /// Counts a connection accepted and open (the transport's guard).
    pub fn connection_opened(&self) {
        self.exported.connections_accepted.inc();
        self.exported.connections_open.inc();
    }

    /// Counts a connection closed as soon as it was accepted (the
    /// transport's gate).
    pub fn connection_refused(&self, reason: ConnRefusal) {
        self.exported
            .connections_refused
            .get_or_create(&reason)
            .inc();
    }

    /// Connections closed as soon as they were accepted, for `reason`.
    pub fn connections_refused(&self, reason: ConnRefusal) -> u64 {
        self.exported
            .connections_refused
            .get_or_create(&reason)
            .get()
    }

    /// Counts a server stream cut because its client stalled.
    pub fn send_stalled(&self, rpc: Rpc) {
        self.exported.send_stalls.get_or_create(&rpc).inc();
    }

    /// Server streams of `rpc` cut because their client stalled.
    pub fn send_stalls(&self, rpc: Rpc) -> u64 {
        self.exported.send_stalls.get_or_create(&rpc).get()
    }

    /// Counts a connection closed (the transport's guard).
    pub fn connection_closed(&self) {
        self.exported.connections_open.dec();
    }

    /// The OpenMetrics text of every metric, the gauges of work in flight
    /// set from `in_flight`.
    pub fn encode(&self, in_flight: InFlight) -> String {
        let e = &self.exported;
        e.cells_in_flight.set(gauge(in_flight.cells));
        e.cells_in_flight_max.set(gauge(in_flight.cells_max));
        e.piles_in_flight.set(gauge(in_flight.piles));
        e.piles_in_flight_max.set(gauge(in_flight.piles_max));
        e.rpcs_in_flight.set(gauge(in_flight.rpcs));
        e.rpcs_in_flight_max.set(gauge(in_flight.rpcs_max));
        e.play_sessions_max.set(gauge(in_flight.play_sessions_max));
        e.play_row_cache_bytes
            .set(gauge(in_flight.play_row_cache_bytes));
        e.play_row_cache_entries
            .set(gauge(in_flight.play_row_cache_entries));
        let mut text = String::with_capacity(8 << 10);
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &e.registry);
        text
    }
}

/// One open Play session, counted in `stonegame_play_sessions` while it
/// lives.
#[derive(Debug)]
pub struct PlaySession(Arc<Metrics>);

impl Drop for PlaySession {
    fn drop(&mut self) {
        self.0.exported.play_sessions.dec();
    }
}

/// Counts one Solve batch in flight while it lives.
#[derive(Debug)]
pub struct BatchInFlight(Arc<Metrics>);

impl BatchInFlight {
    /// Starts counting a batch.
    pub fn new(metrics: &Arc<Metrics>) -> BatchInFlight {
        let now = metrics.exported.solve_batches_in_flight.inc() + 1;
        metrics
            .batches_in_flight_peak
            .fetch_max(u64::try_from(now).unwrap_or(0), Ordering::AcqRel);
        BatchInFlight(Arc::clone(metrics))
    }
}

impl Drop for BatchInFlight {
    fn drop(&mut self) {
        self.0.exported.solve_batches_in_flight.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_is_exported() {
        let m = Metrics::default();
        m.count_case(Variant::TwoEnds, 4, || Some(()));
        m.count_case(Variant::Leftmost, 7, || Some(()));
        m.count_case(Variant::Leftmost, 7, || None::<()>);
        m.refused(Refusal::BusyCells);
        m.rpc_ended(
            Rpc::Solve,
            Code::InvalidArgument,
            Protocol::Grpc,
            Duration::from_millis(3),
        );
        let text = m.encode(InFlight {
            cells: 5,
            ..InFlight::default()
        });
        for line in [
            "stonegame_cases_total{variant=\"two_ends\"} 1",
            "stonegame_cases_total{variant=\"leftmost\"} 1",
            "stonegame_cases_cancelled_total 1",
            "stonegame_cells_total 13",
            "stonegame_admission_rejected_total{reason=\"busy_cells\"} 1",
            "stonegame_admission_rejected_total{reason=\"shutting_down\"} 0",
            "stonegame_rpc_requests_total{rpc=\"Solve\",code=\"INVALID_ARGUMENT\",protocol=\"grpc\"} 1",
            "stonegame_rpc_requests_total{rpc=\"Check\",code=\"OK\",protocol=\"grpc\"} 0",
            "stonegame_rpc_duration_seconds_count{rpc=\"Solve\"} 1",
            "stonegame_rpc_duration_seconds_bucket{le=\"0.005\",rpc=\"Solve\"} 1",
            "stonegame_cells_in_flight 5",
            "stonegame_build_info{version=\"",
            "# EOF",
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
        assert_eq!(m.admissions_refused(), 1);
        assert_eq!(m.cases_cancelled(), 1);
        assert_eq!(m.cases_started(), 3);
        assert_eq!(m.cases_completed(), 2);
    }

    #[test]
    fn rpc_names_and_codes() {
        assert_eq!(code_name(Code::ResourceExhausted), "RESOURCE_EXHAUSTED");
        let busy = AdmissionError::Busy {
            unit: CELLS,
            amount: 1,
            in_flight: 1,
            max: 1,
            retry_after_ms: 50,
        };
        assert_eq!(Refusal::from(&busy), Refusal::BusyCells);
    }
}
