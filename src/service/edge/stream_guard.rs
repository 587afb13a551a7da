//! What a server stream may cost its readers' neighbours, applied to every
//! StoneGame response stream (Solve, GetTables, Generate, Play, PlayStep):
//!
//! * **A stall ends it.** A stream whose client has not taken a message for
//!   `transport.send_stall_timeout` while one was ready (hyper does not ask
//!   for the next: the client's flow-control window is full) is cut: the
//!   producer behind it is dropped at once, so its RPC slot, its client's
//!   share and its reservations come back, and
//!   `stonegame_send_stalls_total{rpc}` counts it. Nobody polls such a
//!   stream, so a watchdog task does: every quarter of the timeout (at
//!   most a second) it looks, with the reader's own waker, for a message
//!   the reader has not asked for, keeps it for the reader, and cuts the
//!   stream when that message has waited the whole timeout. A later poll
//!   ends the stream with CANCELLED naming the setting. Time spent
//!   computing the next message is not a stall.
//! * **A rate bounds it.** At most `transport.max_stream_bytes_per_second`
//!   bytes of messages a second (a token bucket of one second's bytes): a
//!   client that reads as fast as it can cannot keep a core busy encoding
//!   for it. A message goes out whole while the bucket is not in debt and
//!   its bytes are taken as it goes, into debt if need be: the next one
//!   waits until the debt is paid, so a message bigger than a second's
//!   bytes still passes.
//!
//! The bucket (`Bucket`) is written here, not taken from a crate: none of
//! the maintained ones keeps its semantics with less glue than its
//! twenty-odd lines (governor 0.10, leaky-bucket 1.1 and tokio-util 0.7
//! were tried):
//!
//! * governor counts its rate in whole nanoseconds a cell: at the default
//!   32 MiB/s that is 29 ns a byte, 2.8 % too fast, and a rate above
//!   `u32::MAX` has no `Quota`. Its `check_n` refuses more than the burst
//!   (`InsufficientCapacity`), so a message bigger than a second's bytes
//!   would be paid in chunks; and it waits on clocks of its own (quanta,
//!   futures-timer), not tokio's, so it would also need a hand-written
//!   `Clock` over `tokio::time::Instant` (under paused time its
//!   `until_n_ready` waits in real time, unseen by the tests).
//! * leaky-bucket (tokio's clock; an `acquire` above the maximum is paid
//!   over time) adds whole tokens every interval of at least a millisecond:
//!   an exact rate takes steps of `1000 / gcd(rate, 1000)` ms (125 ms of
//!   4 MiB at the default, whole seconds at 7 bytes a second), finer steps
//!   a rounded rate.
//! * tokio-util has no rate limiter; tokio-stream's `throttle` is a fixed
//!   delay between items, not a number of bytes.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures::Stream;
use tokio::time::{Instant, Sleep};
use tonic::Status;

use crate::service::metrics::{Metrics, Rpc};
use crate::service::state::BoxStream;

/// The limits of [`guard`].
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `transport.send_stall_timeout`; `None`: never cut.
    pub stall: Option<Duration>,
    /// `transport.max_stream_bytes_per_second`; 0: no bound.
    pub bytes_per_second: u64,
}

/// What the stream and its watchdog share.
struct Shared<T> {
    /// The producer's stream; `None` once it ended or the watchdog cut it.
    inner: Option<BoxStream<T>>,
    /// A message (or the end) the watchdog took from `inner` for a reader
    /// who had not asked for it, and since when.
    peeked: Option<(Option<Result<T, Status>>, Instant)>,
    /// The reader's last poll and its waker.
    polled_at: Instant,
    waker: Option<Waker>,
    /// The watchdog cut the stream (the status to end it with).
    cut: Option<Status>,
}

/// `stream`, cut when its client stalls and bounded in bytes a second.
pub fn guard<T>(
    stream: BoxStream<T>,
    limits: Limits,
    rpc: Rpc,
    metrics: Arc<Metrics>,
) -> BoxStream<T>
where
    T: prost::Message + Send + 'static,
{
    let shared = Arc::new(Mutex::new(Shared {
        inner: Some(stream),
        peeked: None,
        polled_at: Instant::now(),
        waker: None,
        cut: None,
    }));
    if let Some(stall) = limits.stall {
        tokio::spawn(watchdog(Arc::downgrade(&shared), stall, rpc, metrics));
    }
    Box::pin(Guarded {
        shared,
        rate: (limits.bytes_per_second > 0).then(|| Bucket::new(limits.bytes_per_second)),
        pause: None,
        done: false,
    })
}

/// Looks for a message the reader of `shared` leaves waiting and cuts the
/// stream once one has waited `stall`; ends when the stream does.
async fn watchdog<T>(
    shared: std::sync::Weak<Mutex<Shared<T>>>,
    stall: Duration,
    rpc: Rpc,
    metrics: Arc<Metrics>,
) {
    let tick = (stall / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    loop {
        tokio::time::sleep(tick).await;
        let Some(shared) = shared.upgrade() else {
            return; // the stream is gone
        };
        let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *guard;
        if s.inner.is_none() {
            return;
        }
        match &s.peeked {
            Some((_, since)) if since.elapsed() >= stall => {
                // Dropped outside the lock: its drop guards run the RPC's
                // cancellation and free its slot and reservations.
                let inner = s.inner.take();
                s.peeked = None;
                s.cut = Some(Status::cancelled(format!(
                    "the client took no message for {} (transport.send_stall_timeout); the \
                     stream was cut",
                    humantime_serde::re::humantime::format_duration(stall)
                )));
                let waker = s.waker.take();
                drop(guard);
                drop(inner);
                if let Some(waker) = waker {
                    waker.wake();
                }
                metrics.send_stalled(rpc);
                tracing::info!(rpc = rpc.label(), "a stream nobody read was cut");
                return;
            }
            Some(_) => {}
            None if s.polled_at.elapsed() >= tick => {
                // Not asked for a while: is a message waiting? Polled with
                // the reader's waker, so that the reader still hears of it.
                let (Some(waker), Some(inner)) = (s.waker.clone(), s.inner.as_mut()) else {
                    continue;
                };
                let mut cx = Context::from_waker(&waker);
                if let Poll::Ready(item) = inner.as_mut().poll_next(&mut cx) {
                    s.peeked = Some((item, Instant::now()));
                }
            }
            None => {}
        }
    }
}

/// A token bucket of bytes: at most a second's worth saved up, and a
/// debt, paid before the next message, for a message that takes more than
/// it holds (hand-written: see the module doc).
#[derive(Debug)]
struct Bucket {
    per_second: u64,
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new(per_second: u64) -> Bucket {
        Bucket {
            per_second,
            tokens: per_second as f64,
            at: Instant::now(),
        }
    }

    /// Takes `bytes`; how long to wait before the next message, if the
    /// bucket ran dry.
    fn take(&mut self, bytes: usize) -> Option<Duration> {
        let now = Instant::now();
        let rate = self.per_second as f64;
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * rate).min(rate);
        self.at = now;
        self.tokens -= bytes as f64;
        (self.tokens < 0.0).then(|| Duration::from_secs_f64(-self.tokens / rate))
    }
}

struct Guarded<T> {
    shared: Arc<Mutex<Shared<T>>>,
    rate: Option<Bucket>,
    /// The rate's pause before the next message.
    pause: Option<Pin<Box<Sleep>>>,
    done: bool,
}

impl<T: prost::Message> Stream for Guarded<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let mut s = this.shared.lock().unwrap_or_else(|e| e.into_inner());
        s.polled_at = Instant::now();
        if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            s.waker = Some(cx.waker().clone());
        }
        if let Some(pause) = &mut this.pause {
            if pause.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.pause = None;
        }
        let polled = match s.peeked.take() {
            Some((item, _)) => Poll::Ready(item),
            None => match s.inner.as_mut() {
                Some(inner) => inner.as_mut().poll_next(cx),
                None => {
                    this.done = true;
                    return Poll::Ready(s.cut.take().map(Err));
                }
            },
        };
        match &polled {
            Poll::Ready(Some(Ok(message))) => {
                if let Some(wait) = this
                    .rate
                    .as_mut()
                    .and_then(|r| r.take(message.encoded_len()))
                {
                    this.pause = Some(Box::pin(tokio::time::sleep(wait)));
                }
            }
            Poll::Ready(None) => {
                this.done = true;
                s.inner = None;
            }
            Poll::Ready(Some(Err(_))) | Poll::Pending => {}
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(n: u32) -> BoxStream<u32> {
        Box::pin(futures::stream::iter((0..n).map(Ok)))
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_read_in_time_is_whole_and_a_stalled_one_is_cut() {
        use futures::StreamExt;
        let limits = Limits {
            stall: Some(Duration::from_secs(30)),
            bytes_per_second: 0,
        };
        let metrics = Arc::new(Metrics::default());
        // Read with 29 s between messages: never cut.
        let mut s = guard(numbers(3), limits, Rpc::Generate, Arc::clone(&metrics));
        let mut got = Vec::new();
        while let Some(m) = s.next().await {
            got.push(m.unwrap());
            tokio::time::sleep(Duration::from_secs(29)).await;
        }
        assert_eq!(got, [0, 1, 2]);
        // One message taken, then no ask for the timeout and a watchdog
        // tick (1 s) more: cut, freed, counted.
        let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        struct Flag(Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let flag = Flag(Arc::clone(&dropped));
        let inner: BoxStream<u32> = Box::pin(numbers(10).map(move |m| {
            let _held = &flag;
            m
        }));
        let mut s = guard(inner, limits, Rpc::PlayStep, Arc::clone(&metrics));
        assert_eq!(s.next().await.unwrap().unwrap(), 0);
        tokio::time::sleep(Duration::from_secs(32)).await;
        assert!(
            dropped.load(std::sync::atomic::Ordering::SeqCst),
            "the producer (and what it holds) is dropped"
        );
        let end = s.next().await.unwrap().unwrap_err();
        assert_eq!(end.code(), tonic::Code::Cancelled);
        assert!(
            end.message().contains("transport.send_stall_timeout"),
            "{end:?}"
        );
        assert!(s.next().await.is_none());
        assert_eq!(metrics.send_stalls(Rpc::PlayStep), 1);
        assert_eq!(metrics.send_stalls(Rpc::Generate), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_message_bigger_than_a_second_passes_and_its_debt_is_paid() {
        let mut bucket = Bucket::new(100);
        // 250 bytes at 100 a second: out at once, 1.5 s of debt.
        assert_eq!(bucket.take(250), Some(Duration::from_millis(1500)));
        tokio::time::sleep(Duration::from_millis(1500)).await;
        // Debt paid, nothing saved up: the next 5 bytes owe 50 ms.
        assert_eq!(bucket.take(5), Some(Duration::from_millis(50)));
        // Never more than a second's bytes saved up.
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert_eq!(bucket.take(100), None);
        assert_eq!(bucket.take(1), Some(Duration::from_millis(10)));
    }

    #[tokio::test(start_paused = true)]
    async fn the_rate_bounds_bytes_a_second() {
        use futures::StreamExt;
        // 100 messages of 5 bytes (a varint 2^28..) at 100 bytes a second:
        // the first second's bucket, then about 4 s more.
        let big: BoxStream<u64> = Box::pin(futures::stream::iter((0..100).map(|_| Ok(1u64 << 30))));
        let limits = Limits {
            stall: None,
            bytes_per_second: 100,
        };
        let start = Instant::now();
        let n = guard(big, limits, Rpc::Generate, Arc::default())
            .count()
            .await;
        assert_eq!(n, 100);
        let took = start.elapsed();
        assert!(
            took >= Duration::from_secs(3) && took <= Duration::from_secs(6),
            "{took:?}"
        );
    }
}
