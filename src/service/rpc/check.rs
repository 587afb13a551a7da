//! `Check`: a contestant's answer against a test input, both streamed by the
//! client in chunks, in any interleaving (docs/service.md, "Check").
//!
//! [`judge::check`](crate::judge::check) runs on a blocking thread and reads
//! the input and the answer alternately through two [`PipeReader`]s, which
//! the RPC's task fills through [`Pipes`]. A pipe takes chunks freely up to
//! a small window, beyond it the stream is not read (flow control pushes
//! back) unless the checker waits for the *other* file. All that is
//! buffered is bounded by `max_check_bytes` (`RESOURCE_EXHAUSTED` beyond)
//! and reserved in the server's memory budget (the piles budget, 8 bytes a
//! unit: full means `RESOURCE_EXHAUSTED` with a retry hint). The check's
//! batches pass admission like every RPC's ([`Admitted`]); when the client
//! goes away, its deadline passes or the server's grace ends, the pipes
//! fail and the case being solved stops.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status, Streaming};

use crate::core::Variant;
use crate::judge::check::{CheckReport, check_with};
use crate::wire::convert::variant_from_wire;

use crate::service::pb;
use crate::service::rpc::validate::RequestError;
use crate::service::state::clients::ClientKey;
use crate::service::state::limits::{
    AdmissionError, Budget, Cancellation, Reservation, piles_of_bytes, retry_status,
};
use crate::service::state::{Admitted, RpcPermit, State};

/// Bytes a pipe takes without waiting while the checker is busy.
const WINDOW: usize = 1 << 20;

/// Which of the two files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The test input.
    Input = 0,
    /// The contestant's answer.
    Answer = 1,
}

/// Why a Check stream failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// More bytes buffered at once than allowed.
    #[error(
        "the check holds {held} bytes sent ahead and a chunk of {chunk} more would pass the \
         server's limit of {max} bytes: send the input and the answer interleaved, in \
         smaller chunks"
    )]
    TooMuchBuffered {
        held: usize,
        chunk: usize,
        max: usize,
    },
    /// The server's memory budget has no room for the chunk now.
    #[error("the check's buffered chunks do not fit the server's memory now: {0}")]
    Busy(AdmissionError),
    /// The variant changed in the middle of the stream.
    #[error(transparent)]
    Request(#[from] RequestError),
}

impl From<CheckError> for Status {
    fn from(e: CheckError) -> Status {
        match e {
            // The admission status (retry hint) with the check's message.
            CheckError::Busy(AdmissionError::Busy { retry_after_ms, .. }) => {
                retry_status(e.to_string(), retry_after_ms)
            }
            CheckError::TooMuchBuffered { .. } | CheckError::Busy(_) => {
                Status::resource_exhausted(e.to_string())
            }
            CheckError::Request(r) => r.into(),
        }
    }
}

#[derive(Debug)]
struct Inner {
    queues: [VecDeque<Vec<u8>>; 2],
    queued: [usize; 2],
    /// `queued` in the server's memory budget (8 bytes a unit).
    held: Reservation,
    /// The most bytes queued at once.
    peak: usize,
    /// The end of each file has been reached (the stream ended).
    closed: [bool; 2],
    /// The file the checker is blocked on, if any.
    waiting_on: Option<Part>,
    /// The writer went away without closing: the reads fail.
    aborted: bool,
    /// The checker returned: further chunks are dropped.
    finished: bool,
}

struct Shared {
    inner: Mutex<Inner>,
    /// Wakes the checker (data, end of file or abort).
    readable: Condvar,
    /// Wakes the async writer (data taken, checker waiting or done).
    writable: Notify,
    max_bytes: usize,
    window: usize,
    /// Reserves memory for the buffers.
    reserve: ReserveMemory,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("inner", &self.inner)
            .field("max_bytes", &self.max_bytes)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A poisoned lock only means a reader panicked; the state is plain
        // data and stays consistent.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    /// Makes the memory reservation what the queues hold now.
    fn release_taken(&mut self) {
        self.held
            .resize(piles_of_bytes((self.queued[0] + self.queued[1]) as u64));
    }
}

/// Reserves memory-budget units (8 bytes each) for a Check's buffers.
pub type ReserveMemory = Arc<dyn Fn(u64) -> Result<Reservation, AdmissionError> + Send + Sync>;

impl Drop for Shared {
    /// A check that buffered a lot gives the memory back to the kernel, so
    /// the server's resident size after a burst of such checks is what is
    /// in use.
    fn drop(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(|e| e.into_inner());
        inner.queues = Default::default();
        if inner.peak > crate::service::state::alloc::TRIM_THRESHOLD {
            crate::service::state::alloc::return_free_memory();
        }
    }
}

/// The async side of the two pipes of one Check: the RPC task pushes
/// chunks; dropping it without [`Pipes::close`] makes the reads fail.
#[derive(Debug)]
pub struct Pipes {
    shared: Arc<Shared>,
}

impl Pipes {
    /// Two pipes holding at most `max_bytes` in all, and their readers,
    /// with no server-wide budget and no cancellation.
    pub fn new(max_bytes: usize) -> (Pipes, PipeReader, PipeReader) {
        let unbounded = Budget::piles(u64::MAX);
        Pipes::in_budget(
            max_bytes,
            CancellationToken::new(),
            Arc::new(move |units| unbounded.try_reserve(units)),
        )
    }

    /// Two pipes holding at most `max_bytes` in all, whose buffered bytes
    /// are also reserved through `reserve` (the server's memory budget, 8
    /// bytes a unit), and their readers.
    pub fn in_budget(
        max_bytes: usize,
        cancel: CancellationToken,
        reserve: ReserveMemory,
    ) -> (Pipes, PipeReader, PipeReader) {
        let held = reserve(0).expect("nothing always fits");
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                queues: Default::default(),
                queued: [0, 0],
                held,
                peak: 0,
                closed: [false, false],
                waiting_on: None,
                aborted: false,
                finished: false,
            }),
            readable: Condvar::new(),
            writable: Notify::new(),
            max_bytes,
            window: WINDOW.min(max_bytes / 4).max(1),
            reserve,
        });
        let reader = |part| PipeReader {
            shared: Arc::clone(&shared),
            part,
            current: Vec::new(),
            pos: 0,
            cancel: cancel.clone(),
        };
        let (input, answer) = (reader(Part::Input), reader(Part::Answer));
        (Pipes { shared }, input, answer)
    }

    /// Appends `chunk` to `part`, waiting while that pipe is full and the
    /// checker is not waiting for the other one.
    pub async fn push(&self, part: Part, chunk: Vec<u8>) -> Result<(), CheckError> {
        if chunk.is_empty() {
            return Ok(());
        }
        loop {
            let notified = self.shared.writable.notified();
            {
                let mut inner = self.shared.lock();
                if inner.finished {
                    return Ok(());
                }
                let held = inner.queued[0] + inner.queued[1];
                if held.saturating_add(chunk.len()) > self.shared.max_bytes {
                    return Err(CheckError::TooMuchBuffered {
                        held,
                        chunk: chunk.len(),
                        max: self.shared.max_bytes,
                    });
                }
                let i = part as usize;
                // Beyond the window only while the checker waits, for this
                // file or (so neither side deadlocks) the other one.
                if inner.queued[i] < self.shared.window || inner.waiting_on.is_some() {
                    let need = piles_of_bytes((held + chunk.len()) as u64);
                    let more = need.saturating_sub(inner.held.amount());
                    let extra = (self.shared.reserve)(more).map_err(CheckError::Busy)?;
                    inner.held.absorb(extra);
                    if inner.waiting_on == Some(part) {
                        inner.waiting_on = None;
                    }
                    inner.queued[i] += chunk.len();
                    inner.peak = inner.peak.max(held + chunk.len());
                    inner.queues[i].push_back(chunk);
                    self.shared.readable.notify_all();
                    return Ok(());
                }
            }
            notified.await;
        }
    }

    /// A guard for the checking job: when it is dropped (the check returned
    /// or panicked), chunks pushed from then on are dropped.
    pub fn finish_on_drop(&self) -> FinishOnDrop {
        FinishOnDrop(Arc::clone(&self.shared))
    }

    /// Ends both files (the client's stream ended).
    pub fn close(&self) {
        let mut inner = self.shared.lock();
        inner.closed = [true, true];
        self.shared.readable.notify_all();
    }
}

impl Drop for Pipes {
    fn drop(&mut self) {
        let mut inner = self.shared.lock();
        if !inner.closed.iter().all(|&c| c) {
            inner.aborted = true;
        }
        self.shared.readable.notify_all();
    }
}

/// The blocking side of one pipe: a `BufRead` over the chunks of one file.
#[derive(Debug)]
pub struct PipeReader {
    shared: Arc<Shared>,
    part: Part,
    current: Vec<u8>,
    pos: usize,
    cancel: CancellationToken,
}

impl BufRead for PipeReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos < self.current.len() {
            return Ok(&self.current[self.pos..]);
        }
        let i = self.part as usize;
        let mut inner = self.shared.lock();
        loop {
            if inner.aborted || self.cancel.is_cancelled() {
                return Err(io::Error::other("the check was cancelled"));
            }
            if let Some(chunk) = inner.queues[i].pop_front() {
                inner.queued[i] -= chunk.len();
                inner.release_taken();
                if inner.waiting_on == Some(self.part) {
                    inner.waiting_on = None;
                }
                drop(inner);
                self.shared.writable.notify_one();
                self.current = chunk;
                self.pos = 0;
                return Ok(&self.current);
            }
            if inner.closed[i] {
                return Ok(&[]);
            }
            if inner.waiting_on != Some(self.part) {
                inner.waiting_on = Some(self.part);
                self.shared.writable.notify_one();
            }
            // The timeout only lets the server's shutdown flag be seen.
            inner = self
                .shared
                .readable
                .wait_timeout(inner, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.current.len());
    }
}

impl Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Marks the pipes finished when the check returns (or panics):
/// [`Pipes::finish_on_drop`].
#[derive(Debug)]
pub struct FinishOnDrop(Arc<Shared>);

impl Drop for FinishOnDrop {
    /// Marks the check as done: chunks pushed from now on are dropped.
    fn drop(&mut self) {
        let mut inner = self.0.lock();
        inner.finished = true;
        inner.queues = Default::default();
        inner.queued = [0, 0];
        inner.release_taken();
        self.0.writable.notify_one();
    }
}

/// Answers one Check stream.
#[tracing::instrument(
    name = "Check",
    skip_all,
    fields(variant = tracing::field::Empty, verdict = tracing::field::Empty, cases = tracing::field::Empty)
)]
pub async fn check(
    state: &Arc<State>,
    request: Request<Streaming<pb::CheckRequest>>,
) -> Result<Response<pb::CheckResponse>, Status> {
    let permit = state.admit_rpc(ClientKey::of(&request))?;
    let started = Instant::now();
    // tonic drops this future when the client goes away or its deadline
    // passes: the guard then stops the batch being solved.
    let cancel = state.cancellation(None);
    let _guard = cancel.token().clone().drop_guard();
    let report = run(state, request.into_inner(), cancel, permit).await?;
    let span = tracing::Span::current();
    span.record("verdict", report.verdict.testlib_name());
    span.record("cases", report.cases);
    tracing::info!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        "Check done"
    );
    Ok(Response::new(report.into()))
}

/// Routes the stream's chunks into the pipes while the check runs on a
/// blocking thread; returns its report.
async fn run(
    state: &Arc<State>,
    mut inbound: Streaming<pb::CheckRequest>,
    cancel: Cancellation,
    permit: RpcPermit,
) -> Result<CheckReport, Status> {
    let first = inbound.message().await?;
    let variant =
        variant_from_wire(first.as_ref().map_or(0, |m| m.variant)).map_err(RequestError::from)?;
    tracing::Span::current().record("variant", tracing::field::display(variant));
    // The server's memory budget, making room the way every admission does.
    let (pipes, input, answer) = Pipes::in_budget(
        state.limits.max_check_bytes.get(),
        state.cancel_all.clone(),
        {
            let state = Arc::clone(state);
            Arc::new(move |units| state.reserve_memory(units))
        },
    );
    let job_state = Arc::clone(state);
    let finished = pipes.finish_on_drop();
    // The job holds the RPC's slot until it really ends, even after the
    // client went away.
    let mut job = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let _finished = finished;
        let mut solver = Admitted::new(&job_state, cancel, "the check");
        check_with(input, answer, variant, &mut solver)
    });
    let mut next = first;
    let mut ended = false;
    loop {
        if let Some(message) = next.take() {
            route(&pipes, message, variant).await?;
        } else if !ended {
            ended = true;
            pipes.close();
        }
        tokio::select! {
            report = &mut job => {
                return report.map_err(|_| Status::internal("the check failed on the server"))?;
            }
            message = inbound.message(), if !ended => next = message?,
        }
    }
}

/// Checks the message's variant (`variant`: the first message's) and
/// pushes its chunk into its pipe.
pub async fn route(
    pipes: &Pipes,
    message: pb::CheckRequest,
    variant: Variant,
) -> Result<(), Status> {
    if message.variant != 0 && message.variant != pb::Variant::from(variant) as i32 {
        return Err(RequestError::VariantChanged {
            first: variant,
            now: message.variant,
        }
        .into());
    }
    match message.part {
        Some(pb::check_request::Part::InputChunk(bytes)) => pipes.push(Part::Input, bytes).await?,
        Some(pb::check_request::Part::AnswerChunk(bytes)) => {
            pipes.push(Part::Answer, bytes).await?
        }
        None => {}
    }
    Ok(())
}
