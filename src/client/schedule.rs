//! The bookkeeping of a Solve run over replicas, without any I/O: which
//! batch goes to which replica, what to resend when a replica fails, when
//! to try a replica again, and the reorder buffer that releases answers in
//! input order, each exactly once.
//!
//! The server answers a stream's batches in order, so each replica's stream
//! has a FIFO of the batch indices sent on it: an answer is for the front
//! one. When a stream fails, every batch still in its FIFO goes back to the
//! queue (lowest index first, so the batch holding up the output is resent
//! first) and the replica waits out a backoff. Batches are idempotent, so a
//! resent batch answered by another replica is simply its answer; a batch is
//! released only once, when every batch before it was.
//!
//! [`super::replicated`] drives this with the real streams; the unit tests
//! below drive it by hand.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

/// How hard a Solve run tries before it gives up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// A replica is given up after this many failures in a row (a stream
    /// that could not be opened or that broke; an answered batch resets
    /// the count).
    pub max_replica_failures: u32,
    /// A batch is given up (and the run fails) after this many streams
    /// failed while it was in flight on them.
    pub max_batch_attempts: u32,
    /// The wait before a replica's first retry; it doubles with each
    /// further failure in a row…
    pub initial_backoff: Duration,
    /// … up to this. A random 0–25 % is added to each wait.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_replica_failures: 6,
            max_batch_attempts: 6,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// The wait after the `failures`-th failure in a row (1-based), before
    /// jitter.
    pub fn backoff(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(30);
        self.initial_backoff
            .saturating_mul(1 << doublings)
            .min(self.max_backoff)
    }
}

/// What is known of one replica, as
/// [`super::replicated::SolveRun::stats`] reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicaStats {
    /// The replica's URL.
    pub replica: String,
    /// Batches it answered (and that were used).
    pub batches: u64,
    /// Cases in those batches.
    pub cases: u64,
    /// Its streams that failed (or could not be opened).
    pub failures: u64,
    /// The last failure.
    pub last_error: Option<String>,
    /// Whether it was given up.
    pub given_up: bool,
    /// Whether it left the resolved set.
    pub removed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No stream; one may be opened.
    Idle,
    /// A stream is being opened.
    Connecting,
    /// A stream is open and takes batches.
    Open,
    /// A stream is open but takes no new batches (the server drains, or the
    /// replica left the resolved set); it is closed when its last batch is
    /// answered.
    Draining,
    /// Its stream was told to end (no batch left on it).
    Closing,
    /// Waiting until then before opening a stream again.
    Backoff(Instant),
    /// Given up.
    Dead,
    /// Left the resolved set, no stream.
    Removed,
}

#[derive(Debug)]
struct Replica {
    state: State,
    /// Batches sent on the current stream and not yet answered, in order.
    outstanding: VecDeque<u64>,
    /// Failures in a row.
    failures: u32,
    /// The current stream's id (events of older streams are ignored).
    stream: u64,
    /// What it did; `stats.removed`: it left the resolved set.
    stats: ReplicaStats,
}

#[derive(Debug)]
struct Held<B> {
    batch: B,
    cases: usize,
    /// Streams that failed with this batch in flight.
    failed_attempts: u32,
}

/// What [`Scheduler::ended`] concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// An old stream's event, or a stream told to close that did.
    Quiet,
    /// The stream failed: `resent` batches went back to the queue; the
    /// replica is tried again after `retry_in`, or `None`: given up.
    Failed {
        resent: usize,
        retry_in: Option<Duration>,
    },
}

/// A batch failed on too many streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchGaveUp {
    /// The batch's index (0-based, input order).
    pub batch: u64,
    /// Streams that failed with it in flight.
    pub attempts: u32,
    /// The last error.
    pub last_error: String,
}

/// The state of a run: batches of type `B`, answers of type `R`.
#[derive(Debug)]
pub struct Scheduler<B, R> {
    policy: RetryPolicy,
    in_flight: usize,
    /// Every batch not yet answered.
    held: BTreeMap<u64, Held<B>>,
    /// Batches waiting to be sent (or resent), lowest first.
    queue: BTreeSet<u64>,
    /// Answers waiting for the batches before them.
    ready: BTreeMap<u64, R>,
    next_in: u64,
    next_out: u64,
    input_done: bool,
    released_cases: u64,
    replicas: BTreeMap<String, Replica>,
    streams: u64,
}

impl<B, R> Scheduler<B, R> {
    /// A run sending at most `in_flight` batches ahead on each replica.
    pub fn new(policy: RetryPolicy, in_flight: usize) -> Scheduler<B, R> {
        Scheduler {
            policy,
            in_flight: in_flight.max(1),
            held: BTreeMap::new(),
            queue: BTreeSet::new(),
            ready: BTreeMap::new(),
            next_in: 0,
            next_out: 0,
            input_done: false,
            released_cases: 0,
            replicas: BTreeMap::new(),
            streams: 0,
        }
    }

    // ---- input and output ----

    /// Whether another input batch may be taken: the batches held (sent,
    /// queued or answered but not released) stay under two rounds of every
    /// usable replica's in-flight window.
    pub fn wants_input(&self) -> bool {
        let usable = self
            .replicas
            .values()
            .filter(|r| !matches!(r.state, State::Dead | State::Removed))
            .count()
            .max(1);
        !self.input_done && self.held.len() + self.ready.len() < 2 * self.in_flight * usable
    }

    /// Adds the next input batch (of `cases` cases); its index.
    pub fn push(&mut self, batch: B, cases: usize) -> u64 {
        let index = self.next_in;
        self.next_in += 1;
        self.held.insert(
            index,
            Held {
                batch,
                cases,
                failed_attempts: 0,
            },
        );
        self.queue.insert(index);
        index
    }

    /// No more input.
    pub fn end_input(&mut self) {
        self.input_done = true;
    }

    /// The next answer in input order, when it is there.
    pub fn pop_ready(&mut self) -> Option<R> {
        let answer = self.ready.remove(&self.next_out)?;
        self.next_out += 1;
        Some(answer)
    }

    /// Every batch answered and released, and no more input.
    pub fn done(&self) -> bool {
        self.input_done && self.held.is_empty() && self.ready.is_empty()
    }

    /// Cases whose answers were released.
    pub fn released_cases(&self) -> u64 {
        self.released_cases
    }

    /// Batches remain, and no replica can take them now or later.
    pub fn stuck(&self) -> bool {
        !self.held.is_empty()
            && self.replicas.values().all(|r| {
                matches!(r.state, State::Dead | State::Removed)
                    || (r.stats.removed && r.outstanding.is_empty())
            })
    }

    /// A held batch.
    pub fn batch(&self, index: u64) -> Option<&B> {
        self.held.get(&index).map(|h| &h.batch)
    }

    // ---- replicas ----

    /// A replica joins (or rejoins) the set.
    pub fn add_replica(&mut self, name: &str) {
        let replica = self
            .replicas
            .entry(name.to_string())
            .or_insert_with(|| Replica {
                state: State::Idle,
                outstanding: VecDeque::new(),
                failures: 0,
                stream: 0,
                stats: ReplicaStats {
                    replica: name.to_string(),
                    ..ReplicaStats::default()
                },
            });
        replica.stats.removed = false;
        if replica.state == State::Removed {
            replica.state = State::Idle;
        }
    }

    /// A replica leaves the set: no new batches; a stream still answering
    /// its batches finishes them.
    pub fn remove_replica(&mut self, name: &str) {
        if let Some(r) = self.replicas.get_mut(name) {
            r.stats.removed = true;
            match r.state {
                State::Open => r.state = State::Draining,
                State::Idle | State::Backoff(_) => r.state = State::Removed,
                State::Connecting
                | State::Draining
                | State::Closing
                | State::Dead
                | State::Removed => {}
            }
        }
    }

    /// Replicas whose stream should be opened now, each with the new
    /// stream's id (every idle replica, and those whose backoff is over,
    /// while work remains).
    pub fn start(&mut self, now: Instant) -> Vec<(String, u64)> {
        if self.done() || (self.held.is_empty() && self.input_done) {
            return Vec::new();
        }
        let mut started = Vec::new();
        for (name, r) in &mut self.replicas {
            let due = match r.state {
                State::Idle => true,
                State::Backoff(until) => until <= now,
                _ => false,
            };
            if due && !r.stats.removed {
                self.streams += 1;
                r.stream = self.streams;
                r.state = State::Connecting;
                started.push((name.clone(), r.stream));
            }
        }
        started
    }

    /// The earliest end of a backoff.
    pub fn next_wakeup(&self) -> Option<Instant> {
        self.replicas
            .values()
            .filter_map(|r| match r.state {
                State::Backoff(until) if !r.stats.removed => Some(until),
                _ => None,
            })
            .min()
    }

    fn replica(&mut self, name: &str, stream: u64) -> Option<&mut Replica> {
        self.replicas.get_mut(name).filter(|r| r.stream == stream)
    }

    /// A stream is open.
    pub fn opened(&mut self, name: &str, stream: u64) {
        if let Some(r) = self.replica(name, stream)
            && r.state == State::Connecting
        {
            r.state = if r.stats.removed {
                State::Draining
            } else {
                State::Open
            };
        }
    }

    /// The server behind a stream is draining: no new batches for it.
    pub fn draining(&mut self, name: &str, stream: u64) {
        if let Some(r) = self.replica(name, stream)
            && matches!(r.state, State::Open | State::Connecting)
        {
            r.state = State::Draining;
        }
    }

    /// The next batch to send: the lowest queued index, to the open replica
    /// with the fewest batches in flight (then the fewest answered), if one
    /// has room. Returns the replica, its stream's id and the index.
    pub fn assign(&mut self) -> Option<(String, u64, u64)> {
        let &index = self.queue.first()?;
        let (name, r) = self
            .replicas
            .iter_mut()
            .filter(|(_, r)| r.state == State::Open && r.outstanding.len() < self.in_flight)
            .min_by_key(|(_, r)| (r.outstanding.len(), r.stats.batches))?;
        self.queue.remove(&index);
        r.outstanding.push_back(index);
        Some((name.clone(), r.stream, index))
    }

    /// Draining replicas whose last batch was answered: their streams are
    /// to be closed (returns name and stream id).
    pub fn to_close(&mut self) -> Vec<(String, u64)> {
        let mut closing = Vec::new();
        for (name, r) in &mut self.replicas {
            if r.state == State::Draining && r.outstanding.is_empty() {
                r.state = State::Closing;
                closing.push((name.clone(), r.stream));
            }
        }
        closing
    }

    /// The number of cases of the batch an answer on this stream is for
    /// (`None`: the stream is old, or has nothing in flight).
    pub fn expecting(&self, name: &str, stream: u64) -> Option<usize> {
        let r = self.replicas.get(name).filter(|r| r.stream == stream)?;
        let index = r.outstanding.front()?;
        self.held.get(index).map(|h| h.cases)
    }

    /// Whether `stream` is the replica's current one.
    pub fn is_current(&self, name: &str, stream: u64) -> bool {
        self.replicas.get(name).is_some_and(|r| r.stream == stream)
    }

    /// The answer to the front batch of a stream; returns its index.
    pub fn answered(&mut self, name: &str, stream: u64, answer: R) -> Option<u64> {
        let r = self.replicas.get_mut(name).filter(|r| r.stream == stream)?;
        let index = r.outstanding.pop_front()?;
        let held = self.held.remove(&index)?;
        r.failures = 0;
        r.stats.batches += 1;
        r.stats.cases += held.cases as u64;
        self.released_cases += held.cases as u64;
        self.ready.insert(index, answer);
        Some(index)
    }

    /// A stream ended. `error` is `None` when it ended normally; a stream
    /// told to close that ends normally is quiet, anything else is a
    /// failure: its batches are queued again and the replica backs off
    /// (`retry_after`: the server's own hint, a floor for the wait) or is
    /// given up. `Err`: a batch failed too often.
    pub fn ended(
        &mut self,
        name: &str,
        stream: u64,
        error: Option<String>,
        retry_after: Option<Duration>,
        now: Instant,
    ) -> Result<Ended, BatchGaveUp> {
        let policy = self.policy.clone();
        let Some(r) = self.replicas.get_mut(name).filter(|r| r.stream == stream) else {
            return Ok(Ended::Quiet);
        };
        if error.is_none() && r.state == State::Closing && r.outstanding.is_empty() {
            // Drained: try it later (it may come back at the same address);
            // opening a stream to a server that is gone counts as a failure.
            r.state = if r.stats.removed {
                State::Removed
            } else {
                State::Backoff(now + policy.max_backoff)
            };
            return Ok(Ended::Quiet);
        }
        let error = error.unwrap_or_else(|| {
            format!(
                "the server ended the stream with {} batches unanswered",
                r.outstanding.len()
            )
        });
        let resent: Vec<u64> = r.outstanding.drain(..).collect();
        r.failures += 1;
        r.stats.failures += 1;
        r.stats.last_error = Some(error.clone());
        let retry_in = if r.failures >= policy.max_replica_failures {
            r.state = State::Dead;
            r.stats.given_up = true;
            None
        } else if r.stats.removed {
            r.state = State::Removed;
            None
        } else {
            let base = policy.backoff(r.failures);
            let jitter = base.mul_f64(rand::random::<f64>() * 0.25);
            let wait = (base + jitter).max(retry_after.unwrap_or_default());
            r.state = State::Backoff(now + wait);
            Some(wait)
        };
        let mut gave_up = None;
        for &index in &resent {
            if let Some(held) = self.held.get_mut(&index) {
                held.failed_attempts += 1;
                if held.failed_attempts >= policy.max_batch_attempts && gave_up.is_none() {
                    gave_up = Some(BatchGaveUp {
                        batch: index,
                        attempts: held.failed_attempts,
                        last_error: error.clone(),
                    });
                }
            }
            self.queue.insert(index);
        }
        match gave_up {
            Some(g) => Err(g),
            None => Ok(Ended::Failed {
                resent: resent.len(),
                retry_in,
            }),
        }
    }

    /// What is known of every replica, by name.
    pub fn stats(&self) -> Vec<ReplicaStats> {
        self.replicas.values().map(|r| r.stats.clone()).collect()
    }
}

#[cfg(test)]
mod tests;
