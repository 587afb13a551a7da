//! What every RPC shares ([`State`]): the limits in force, the CPU pool
//! and its executor ([`State::run_cpu`]), the budgets and the concurrency
//! limit with their admission ([`State::admit_work`], [`State::admit_rpc`]),
//! the counters, the server's cancellation token, the Play sessions' shared
//! parts ([`PlayShared`]) and [`Admitted`], the solver through which Check
//! and Generate pass the same admission and cancellation.
//!
//! The transport ([`crate::service::edge::server`]) builds it and the handlers use it; it
//! depends only on the metrics, the limits, the configuration and the core.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::Stream;
use rayon::prelude::*;
use tokio::sync::oneshot;
use tonic::Status;

use crate::core::verdict::first_player_wins_cancellable;
use crate::core::{ValidRow, Variant};
use crate::judge::SolveBatch;

use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;

use crate::service::config::{Config, Limits};
use crate::service::metrics::{InFlight, Metrics, Refusal};
use crate::service::state::clients::{ClientKey, ClientShares, SharePermit};
use crate::service::state::limits::{
    AdmissionError, Budget, Cancellation, Reservation, RpcLimiter, RpcRefused, cells_of,
};
use crate::service::state::play_token::{RandomKeyError, TokenKey};
use crate::service::state::row_cache::RowCache;

/// One RPC's slot in `max_concurrent_rpcs` and in its client's share;
/// both given back when dropped.
#[derive(Debug)]
pub struct RpcPermit {
    _global: OwnedSemaphorePermit,
    _share: Option<SharePermit>,
}

/// A boxed response stream.
pub type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// Why the shared state could not be built (a start-up error).
#[derive(Debug, thiserror::Error)]
pub enum StateInitError {
    /// The CPU pool could not be started.
    #[error("cannot start the worker pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// No `play.token_key` and no random key.
    #[error(transparent)]
    TokenKey(#[from] RandomKeyError),
}

/// The memory budget in units of 8 bytes: the smaller of
/// `max_piles_in_flight` and `max_memory_bytes` (0: a fraction of the
/// container's or the machine's memory, [`crate::service::state::memory`]).
fn memory_units(limits: &Limits) -> u64 {
    let (bytes, source) = crate::service::state::memory::budget_bytes(limits.max_memory_bytes);
    let units = (bytes / 8).clamp(1, limits.max_piles_in_flight.get());
    tracing::info!(
        bytes = units * 8,
        max_memory_bytes = %source,
        max_piles_in_flight = limits.max_piles_in_flight.get(),
        "memory budget"
    );
    units
}

/// What every RPC shares.
#[derive(Debug)]
pub struct State {
    /// The limits in force.
    pub limits: Limits,
    /// The CPU pool all solving runs on.
    pub pool: rayon::ThreadPool,
    /// Cell updates in flight (CPU).
    pub budget: Arc<Budget>,
    /// Piles held by admitted requests (memory).
    pub piles_budget: Arc<Budget>,
    /// Concurrent RPCs.
    pub rpcs: RpcLimiter,
    /// Concurrent RPCs per client.
    pub rpc_shares: Arc<ClientShares>,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Cancelled when the shutdown grace period ends: every RPC's token is
    /// a child of it ([`State::rpc_token`]), so every job stops.
    pub cancel_all: CancellationToken,
    /// Jobs of at most this many cell updates run inline (0: none).
    pub inline_max_cells: u64,
    /// The Play sessions' limit, token key and row cache.
    pub play: PlayShared,
}

/// What the Play sessions share (part of [`State`]).
#[derive(Debug)]
pub struct PlayShared {
    /// Open sessions (`limits.max_play_sessions`).
    pub sessions: Arc<Budget>,
    /// Open sessions per client (`limits.max_play_sessions_per_client`).
    pub per_client: Arc<ClientShares>,
    /// The state tokens' key.
    pub key: TokenKey,
    /// Prepared rows.
    pub cache: Arc<RowCache>,
}

impl PlayShared {
    /// The shared parts for `max_sessions` sessions (`max_per_client` per
    /// client), the key of
    /// `play.token_key` and a cache of `cache_bytes`.
    pub fn new(
        max_sessions: u64,
        max_per_client: u64,
        token_key: Option<&str>,
        cache_bytes: u64,
    ) -> Result<PlayShared, RandomKeyError> {
        Ok(PlayShared {
            sessions: Budget::play_sessions(max_sessions),
            per_client: ClientShares::new(
                "limits.max_play_sessions_per_client",
                "open Play sessions",
                max_per_client,
                Duration::from_secs(1),
            ),
            key: TokenKey::from_config(token_key)?,
            cache: Arc::new(RowCache::new(cache_bytes)),
        })
    }
}

impl State {
    /// The state for a configuration.
    pub fn new(config: &Config) -> Result<State, StateInitError> {
        let workers = match config.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("stonegame-worker-{i}"))
            .build()?;
        Ok(State {
            limits: config.limits.clone(),
            pool,
            budget: Budget::cells(config.limits.max_cells_in_flight.get(), workers),
            piles_budget: Budget::piles(memory_units(&config.limits)),
            rpcs: RpcLimiter::new(config.limits.max_concurrent_rpcs.get()),
            rpc_shares: ClientShares::new(
                "limits.max_rpcs_per_client",
                "RPCs in flight",
                config.limits.max_rpcs_per_client.get() as u64,
                Duration::from_millis(50),
            ),
            metrics: Arc::new(Metrics::default()),
            cancel_all: CancellationToken::new(),
            inline_max_cells: config.inline_max_cells,
            play: PlayShared::new(
                config.limits.max_play_sessions.get() as u64,
                config.limits.max_play_sessions_per_client.get() as u64,
                config.play.token_key.as_deref(),
                config.play.row_cache_bytes,
            )?,
        })
    }

    /// Reserves `cells` cell updates over `piles` piles in the two budgets,
    /// or says why not. The reservations are released when dropped.
    /// When the memory (piles) budget is busy, the row cache's idle rows
    /// (no game uses them) are dropped first and the memory asked again:
    /// cached rows never cost a request its admission.
    pub fn try_admit(&self, cells: u64, piles: u64) -> Result<[Reservation; 2], AdmissionError> {
        let cells = self.budget.try_reserve(cells)?;
        Ok([cells, self.reserve_memory(piles)?])
    }

    /// Reserves `piles` (8 bytes each) in the memory budget; when it is
    /// busy, evicts the row cache's idle rows and tries once more.
    pub fn reserve_memory(&self, piles: u64) -> Result<Reservation, AdmissionError> {
        self.play.cache.reserve_or_evict(&self.piles_budget, piles)
    }

    /// Admits a request of `cells` cell updates over `piles` piles, or
    /// refuses it with RESOURCE_EXHAUSTED (see [`crate::service::state::limits`]). The
    /// reservations are released when dropped.
    pub fn admit_work(&self, cells: u64, piles: u64) -> Result<[Reservation; 2], Status> {
        self.try_admit(cells, piles).map_err(|e| self.refused(e))
    }

    /// Counts a refusal by admission control; its status.
    pub fn refused(&self, e: AdmissionError) -> Status {
        self.metrics.refused(Refusal::from(&e));
        e.into()
    }

    /// A new RPC's token: a child of the server's, so cancelled when the
    /// shutdown grace ends; the handler cancels it (with a drop guard) when
    /// its client goes away.
    pub fn rpc_token(&self) -> CancellationToken {
        self.cancel_all.child_token()
    }

    /// A new RPC's token with its deadline.
    pub fn cancellation(&self, deadline: Option<Instant>) -> Cancellation {
        Cancellation::new(&self.cancel_all, deadline)
    }

    /// Admits one RPC of `client` under `max_concurrent_rpcs` and the
    /// client's share of them, `max_rpcs_per_client` (the permit is held for
    /// the RPC's lifetime), or counts the refusal and says why not:
    /// RESOURCE_EXHAUSTED, or UNAVAILABLE while the server shuts down.
    pub fn admit_rpc(&self, client: ClientKey) -> Result<RpcPermit, Status> {
        let global = self.rpcs.admit().map_err(|e| {
            self.metrics.refused(match e {
                RpcRefused::ShuttingDown => Refusal::ShuttingDown,
                RpcRefused::TooMany { .. } => Refusal::TooManyRpcs,
            });
            Status::from(e)
        })?;
        let share = self.rpc_shares.try_acquire(client).map_err(|e| {
            self.metrics.refused(Refusal::TooManyRpcs);
            Status::from(e)
        })?;
        Ok(RpcPermit {
            _global: global,
            _share: share,
        })
    }

    /// The OpenMetrics text of the server's metrics, with the work in
    /// flight now.
    pub fn encode_metrics(&self) -> String {
        self.metrics.encode(InFlight {
            cells: self.budget.in_flight(),
            cells_max: self.budget.max(),
            piles: self.piles_budget.in_flight(),
            piles_max: self.piles_budget.max(),
            rpcs: self.rpcs.in_flight() as u64,
            rpcs_max: self.rpcs.max() as u64,
            play_sessions_max: self.play.sessions.max(),
            play_row_cache_bytes: self.play.cache.stats().bytes,
            play_row_cache_entries: self.play.cache.stats().entries,
        })
    }

    /// Runs CPU work of about `cells` cell updates: inline on the calling
    /// (async) thread when it is small (at most `inline_max_cells`), where
    /// the hop to the pool and back would cost more than the work, else on
    /// the pool ([`State::run_cpu`]). A panic in `f` becomes `INTERNAL`.
    pub async fn run_cpu_sized<T, F>(&self, cells: u64, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        if self.inline_max_cells > 0 && cells <= self.inline_max_cells {
            return std::panic::catch_unwind(AssertUnwindSafe(f))
                .map_err(|_| Status::internal("a worker panicked on this request"));
        }
        self.run_cpu(f).await
    }

    /// Runs CPU work on the pool and awaits its result. A panic in `f`
    /// becomes `INTERNAL` instead of taking the process down. Work whose
    /// caller has gone (this future dropped) before a worker picks it up is
    /// dropped unstarted.
    pub async fn run_cpu<T, F>(&self, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.pool.spawn(move || {
            // The caller went away while the job was queued (its future was
            // dropped: client gone, deadline passed): never start it.
            if tx.is_closed() {
                return;
            }
            let _ = tx.send(std::panic::catch_unwind(AssertUnwindSafe(f)));
        });
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => Err(Status::internal("a worker panicked on this request")),
            Err(_) => Err(Status::internal("the worker pool dropped this request")),
        }
    }
}

/// The longest pause between two tries of a batch that waits for the
/// budget (it also bounds how late a cancellation is seen while waiting).
const MAX_PAUSE: Duration = Duration::from_millis(50);

/// Solves the batches of a Check or a Generate through the same admission
/// and cancellation as Solve and SuggestMove: each batch reserves its cell
/// updates and piles in the budgets before it is solved on the pool and
/// releases them after; its cases count in [`Metrics`] and stop when
/// `cancel` says so (polled between blocks of layers).
///
/// A case larger than a whole budget fails at once with `RESOURCE_EXHAUSTED`
/// ("split it"), as in Solve. A batch that does not fit *now* waits for the
/// budget (pauses of 1 ms doubling up to [`MAX_PAUSE`], watching `cancel`)
/// instead of failing the RPC: a half-done check or generation cannot be
/// resent cheaply, and the wait ends with the client, its deadline or the
/// server's grace. A batch whose total is larger than a budget is solved in
/// parts that fit.
#[derive(Debug)]
pub struct Admitted<'a> {
    state: &'a State,
    cancel: Cancellation,
    /// What the RPC's work is, for messages ("the check").
    what: &'static str,
}

impl<'a> Admitted<'a> {
    /// A solver for one RPC, stopped by `cancel`.
    pub fn new(state: &'a State, cancel: Cancellation, what: &'static str) -> Admitted<'a> {
        Admitted {
            state,
            cancel,
            what,
        }
    }

    /// The longest run of rows from the first that fits both whole budgets,
    /// with its cost; refuses a first row that alone does not fit, as Solve
    /// refuses such a case.
    fn fitting(
        &self,
        rows: &[ValidRow<'static>],
        variant: Variant,
    ) -> Result<(usize, u64, u64), Status> {
        let (budget, piles_budget) = (&self.state.budget, &self.state.piles_budget);
        let (mut cells, mut piles) = (0u64, 0u64);
        for (i, row) in rows.iter().enumerate() {
            let c = cells.saturating_add(cells_of(row.len(), variant == Variant::TwoEnds));
            let p = piles.saturating_add(row.len() as u64);
            let fits = budget.fits(c).and_then(|()| piles_budget.fits(p));
            match fits {
                Ok(()) => (cells, piles) = (c, p),
                Err(e) if i == 0 => return Err(self.state.refused(e)),
                Err(_) => return Ok((i, cells, piles)),
            }
        }
        Ok((rows.len(), cells, piles))
    }

    /// Reserves `cells` and `piles`, waiting while the budgets are busy.
    fn reserve(&self, cells: u64, piles: u64) -> Result<[Reservation; 2], Status> {
        let mut pause = Duration::from_millis(1);
        loop {
            if self.cancel.is_cancelled() {
                return Err(self.cancel.status(self.what));
            }
            match self.state.try_admit(cells, piles) {
                Ok(reservations) => return Ok(reservations),
                Err(AdmissionError::Busy { .. }) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(MAX_PAUSE);
                }
                Err(e @ AdmissionError::TooLarge { .. }) => return Err(self.state.refused(e)),
            }
        }
    }
}

impl SolveBatch for Admitted<'_> {
    type Error = Status;

    fn solve(&mut self, rows: &[ValidRow<'static>], variant: Variant) -> Result<Vec<bool>, Status> {
        let mut verdicts = Vec::with_capacity(rows.len());
        let mut rest = rows;
        while !rest.is_empty() {
            let (count, cells, piles) = self.fitting(rest, variant)?;
            let (part, next) = rest.split_at(count);
            let _reservations = self.reserve(cells, piles)?;
            let (metrics, cancel) = (&self.state.metrics, &self.cancel);
            let cancelled = || cancel.is_cancelled();
            let solved = self.state.pool.install(|| {
                part.par_iter()
                    .with_max_len(1)
                    .map(|row| {
                        if cancelled() {
                            return None;
                        }
                        metrics.count_case(variant, row.len(), || {
                            first_player_wins_cancellable(row, variant, &cancelled)
                        })
                    })
                    .collect::<Option<Vec<_>>>()
            });
            verdicts.extend(solved.ok_or_else(|| self.cancel.status(self.what))?);
            rest = next;
        }
        Ok(verdicts)
    }
}
