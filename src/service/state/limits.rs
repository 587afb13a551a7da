//! Admission control, concurrency limits, cancellation and deadlines
//! (docs/service.md, "Admission, deadlines and cancellation").
//!
//! * [`Budget`] — a server-wide budget of work in flight: cell updates
//!   (bounds CPU time) and piles (bounds memory). A request that does not
//!   fit now is refused `RESOURCE_EXHAUSTED` with a retry delay
//!   ([`retry_status`]); one that could never fit without one.
//! * [`RpcLimiter`] — at most `max_concurrent_rpcs` RPCs at once.
//! * Cancellation: each RPC works under a child of the server's
//!   `CancellationToken`, cancelled by a drop guard when the client goes
//!   away; [`Cancellation`] watches it and the deadline at once, and
//!   [`GuardedStream`] ends a response stream at the deadline.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use hyper::http;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

pub use crate::service::metrics::units::{
    AdmissionError, CELLS, PILES, PLAY_SESSIONS, cells_of, piles_of_bytes,
};

/// A server-wide budget of some unit of work in flight.
#[derive(Debug)]
pub struct Budget {
    /// What is counted, for messages ("cell updates", "piles").
    unit: &'static str,
    max: u64,
    used: AtomicU64,
    /// Rough units finished per millisecond, for the retry hint.
    per_ms: u64,
    /// The shortest retry hint.
    min_retry_ms: u64,
}

/// Units reserved in a [`Budget`]; released on drop.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<Budget>,
    amount: u64,
}

impl Reservation {
    /// Units held now.
    pub fn amount(&self) -> u64 {
        self.amount
    }

    /// Takes `extra`, a reservation in the same budget, into this one.
    pub fn absorb(&mut self, mut extra: Reservation) {
        debug_assert!(Arc::ptr_eq(&extra.budget, &self.budget));
        self.amount += extra.amount;
        extra.amount = 0;
    }

    /// Makes the reservation hold `amount` units: what its holder uses now
    /// (a Play session after a move). Shrinking gives units back at once.
    /// Growing counts the units even past the budget's maximum: the memory
    /// is already in use, and counting it makes later admissions wait for
    /// it; the holder's worst case was admitted when it started.
    pub fn resize(&mut self, amount: u64) {
        if amount > self.amount {
            self.budget
                .used
                .fetch_add(amount - self.amount, Ordering::AcqRel);
        } else {
            self.budget
                .used
                .fetch_sub(self.amount - amount, Ordering::AcqRel);
        }
        self.amount = amount;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.amount, Ordering::AcqRel);
    }
}

impl From<AdmissionError> for Status {
    /// `RESOURCE_EXHAUSTED`; when busy, with the delay as a
    /// `google.rpc.RetryInfo` detail and a `retry-after-ms` metadata entry.
    fn from(e: AdmissionError) -> Status {
        match e {
            AdmissionError::Busy { retry_after_ms, .. } => {
                retry_status(e.to_string(), retry_after_ms)
            }
            AdmissionError::TooLarge { .. } => Status::resource_exhausted(e.to_string()),
        }
    }
}

/// `RESOURCE_EXHAUSTED` with `message` and the delay after which to retry,
/// as a `google.rpc.RetryInfo` detail and a `retry-after-ms` metadata entry.
pub fn retry_status(message: String, retry_after_ms: u64) -> Status {
    let mut metadata = MetadataMap::new();
    metadata.insert("retry-after-ms", MetadataValue::from(retry_after_ms));
    let retry = ErrorDetails::with_retry_info(Some(Duration::from_millis(retry_after_ms)));
    Status::with_error_details_and_metadata(Code::ResourceExhausted, message, retry, metadata)
}

impl Budget {
    /// A budget of `max` cell updates for `workers` CPU threads.
    pub fn cells(max: u64, workers: usize) -> Arc<Budget> {
        // About 10^6 cell updates per ms per thread (the kernel is several
        // times faster; the hint errs on the slow side).
        Budget::new(CELLS, max, 1_000_000 * workers.max(1) as u64)
    }

    /// A budget of `max` piles held by admitted requests.
    pub fn piles(max: u64) -> Arc<Budget> {
        Budget::new(PILES, max, 100_000)
    }

    /// A budget of `max` Play sessions (a game lasts seconds to minutes:
    /// the retry hint is its floor).
    pub fn play_sessions(max: u64) -> Arc<Budget> {
        Budget::with_floor(PLAY_SESSIONS, max, 1, 1_000)
    }

    /// A budget of `max` units, `per_ms` of which finish per millisecond.
    pub fn new(unit: &'static str, max: u64, per_ms: u64) -> Arc<Budget> {
        Budget::with_floor(unit, max, per_ms, 50)
    }

    /// [`Budget::new`] with the shortest retry hint.
    fn with_floor(unit: &'static str, max: u64, per_ms: u64, min_retry_ms: u64) -> Arc<Budget> {
        Arc::new(Budget {
            unit,
            max,
            used: AtomicU64::new(0),
            per_ms: per_ms.max(1),
            min_retry_ms,
        })
    }

    /// Units in flight now.
    pub fn in_flight(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }

    /// The whole budget.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Could `amount` ever fit? [`AdmissionError::TooLarge`] if it is more
    /// than the whole budget.
    pub fn fits(&self, amount: u64) -> Result<(), AdmissionError> {
        if amount > self.max {
            return Err(AdmissionError::TooLarge {
                unit: self.unit,
                amount,
                max: self.max,
            });
        }
        Ok(())
    }

    /// Reserves `amount`, or says why not.
    pub fn try_reserve(self: &Arc<Self>, amount: u64) -> Result<Reservation, AdmissionError> {
        self.fits(amount)?;
        let reserved = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(amount).filter(|&total| total <= self.max)
            });
        match reserved {
            Ok(_) => Ok(Reservation {
                budget: Arc::clone(self),
                amount,
            }),
            Err(used) => {
                let excess = used.saturating_add(amount) - self.max;
                Err(AdmissionError::Busy {
                    unit: self.unit,
                    amount,
                    in_flight: used,
                    max: self.max,
                    retry_after_ms: (excess / self.per_ms).clamp(self.min_retry_ms, 60_000),
                })
            }
        }
    }
}

/// At most a fixed number of RPCs at once; refuses new RPCs while the server
/// shuts down.
#[derive(Debug)]
pub struct RpcLimiter {
    permits: Arc<Semaphore>,
    max: usize,
    shutting_down: AtomicBool,
}

impl RpcLimiter {
    /// A limiter of `max` concurrent RPCs.
    pub fn new(max: usize) -> RpcLimiter {
        RpcLimiter {
            permits: Arc::new(Semaphore::new(max)),
            max,
            shutting_down: AtomicBool::new(false),
        }
    }

    /// Admits one RPC: the permit is held for its lifetime.
    pub fn admit(&self) -> Result<OwnedSemaphorePermit, RpcRefused> {
        if self.shutting_down.load(Ordering::Acquire) {
            return Err(RpcRefused::ShuttingDown);
        }
        Arc::clone(&self.permits)
            .try_acquire_owned()
            .map_err(|_| RpcRefused::TooMany { max: self.max })
    }

    /// RPCs running now.
    pub fn in_flight(&self) -> usize {
        self.max.saturating_sub(self.permits.available_permits())
    }

    /// The limit.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Refuses every RPC from now on.
    pub fn shut_down(&self) {
        self.shutting_down.store(true, Ordering::Release);
    }
}

/// Why an RPC was not admitted by the [`RpcLimiter`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RpcRefused {
    /// The server is draining: `UNAVAILABLE`.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// `max` RPCs are running: `RESOURCE_EXHAUSTED`.
    #[error("too many concurrent RPCs: the server's limit is {max}; retry later")]
    TooMany { max: usize },
}

impl From<RpcRefused> for Status {
    fn from(e: RpcRefused) -> Status {
        match e {
            RpcRefused::ShuttingDown => Status::unavailable(e.to_string()),
            RpcRefused::TooMany { .. } => Status::resource_exhausted(e.to_string()),
        }
    }
}

/// Everything that stops one RPC's work: its token (a child of the
/// server's, so cancelled when the client goes away — by a drop guard — or
/// when the shutdown grace ends) and its deadline.
#[derive(Debug, Clone)]
pub struct Cancellation {
    rpc: CancellationToken,
    server: CancellationToken,
    deadline: Option<Instant>,
}

impl Cancellation {
    /// A new child token of `server`, watched with `deadline`.
    pub fn new(server: &CancellationToken, deadline: Option<Instant>) -> Cancellation {
        Cancellation {
            rpc: server.child_token(),
            server: server.clone(),
            deadline,
        }
    }

    /// The RPC's token: cancel it, or take a drop guard of it.
    pub fn token(&self) -> &CancellationToken {
        &self.rpc
    }

    /// Must the work stop?
    pub fn is_cancelled(&self) -> bool {
        self.rpc.is_cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The status an RPC stopped this way ends with: `DEADLINE_EXCEEDED`
    /// when its deadline passed, else `CANCELLED`. `what` names the RPC's
    /// work ("the check").
    pub fn status(&self, what: &str) -> Status {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            deadline_passed(what)
        } else if self.server.is_cancelled() {
            Status::cancelled(format!(
                "the server shut down before {what} ended; it was cancelled"
            ))
        } else {
            Status::cancelled(format!("{what} was cancelled"))
        }
    }
}

/// `DEADLINE_EXCEEDED` for `what`, the RPC's work, stopped at its deadline.
fn deadline_passed(what: &str) -> Status {
    Status::deadline_exceeded(format!(
        "the deadline passed before {what} ended; it was cancelled"
    ))
}

/// A response stream fed by a channel that cancels its RPC's token when
/// dropped (tonic drops it when the client goes away) and, at the
/// client's deadline, ends with `DEADLINE_EXCEEDED` (for server-streaming
/// RPCs, whose handler returns before the body is sent, tonic's own
/// deadline does not cover the body).
#[derive(Debug)]
pub struct GuardedStream<T> {
    rx: mpsc::Receiver<Result<T, Status>>,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    token: CancellationToken,
    _guard: DropGuard,
    /// What the RPC's work is, for the deadline's message.
    what: &'static str,
    ended: bool,
}

impl<T> GuardedStream<T> {
    /// The stream of `rx`, cancelling `cancel` when dropped or at
    /// `deadline`.
    pub fn new(
        rx: mpsc::Receiver<Result<T, Status>>,
        cancel: &CancellationToken,
        deadline: Option<Instant>,
        what: &'static str,
    ) -> GuardedStream<T> {
        GuardedStream {
            rx,
            deadline: deadline.map(|d| Box::pin(tokio::time::sleep_until(d.into()))),
            token: cancel.clone(),
            _guard: cancel.clone().drop_guard(),
            what,
            ended: false,
        }
    }
}

impl<T> Stream for GuardedStream<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        if let Some(sleep) = self.deadline.as_mut()
            && sleep.as_mut().poll(cx).is_ready()
        {
            self.ended = true;
            self.token.cancel();
            self.rx.close();
            return Poll::Ready(Some(Err(deadline_passed(self.what))));
        }
        let item = self.rx.poll_recv(cx);
        if let Poll::Ready(None) = item {
            self.ended = true;
        }
        item
    }
}

/// What the call layer ([`crate::service::edge::calls`]) learnt of a call before its
/// handler runs, handed over as a request extension.
#[derive(Debug, Clone, Copy)]
pub struct CallInfo {
    /// The method (`Solve`, …), the `rpc` label of the metrics.
    pub rpc: &'static str,
    /// When the client's `grpc-timeout` passes, if it sent one.
    pub deadline: Option<Instant>,
}

/// The instant the client's deadline passes, if it set one, as the call
/// layer read it. tonic applies the `grpc-timeout` header to a handler's
/// future, dropping it at the deadline, which covers unary and
/// client-streaming RPCs; the bodies of server-streaming ones need it here.
pub fn deadline<T>(request: &tonic::Request<T>) -> Option<Instant> {
    request.extensions().get::<CallInfo>()?.deadline
}

/// The deadline of a `grpc-timeout` header in `headers`, from now.
pub fn deadline_in(headers: &http::HeaderMap) -> Option<Instant> {
    let timeout = parse_grpc_timeout(headers.get("grpc-timeout")?.to_str().ok()?)?;
    Instant::now().checked_add(timeout)
}

/// Parses a `grpc-timeout` value: up to 8 digits and a unit (H M S m u n).
pub fn parse_grpc_timeout(text: &str) -> Option<Duration> {
    // Bytes, not `str` slicing: a last character of several bytes must be
    // refused, not split (found by fuzz/fuzz_targets/grpc_timeout.rs).
    let (&unit, digits) = text.as_bytes().split_last()?;
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = digits
        .iter()
        .fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'));
    Some(match unit {
        b'H' => Duration::from_secs(value * 3600),
        b'M' => Duration::from_secs(value * 60),
        b'S' => Duration::from_secs(value),
        b'm' => Duration::from_millis(value),
        b'u' => Duration::from_micros(value),
        b'n' => Duration::from_nanos(value),
        _ => return None,
    })
}

#[cfg(test)]
mod tests;

/// The memory reservations of a Solve stream's request messages, one per
/// message in arrival order, made by the edge while each message was read
/// (a request extension): the handler takes each one into its batch's own
/// reservation, so a message is counted once from its first byte to its
/// end.
#[derive(Debug, Clone, Default)]
pub struct HeldMessages(pub Arc<std::sync::Mutex<std::collections::VecDeque<Reservation>>>);

impl HeldMessages {
    /// The reservation of the next message, if the edge made one.
    pub fn next(&self) -> Option<Reservation> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
    }
}
