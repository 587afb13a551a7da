//! `Generate`: the test data of `stonegame gen`, streamed as it is made
//! (docs/service.md, "Generate").
//!
//! Once the request is validated (`GenSpec::try_from`), [`generate_with`]
//! runs on a blocking thread and writes into two [`ChunkWriter`]s, which cut
//! the input and the answers into [`CHUNK`]-byte `GenerateChunk`s and send
//! them through a small bounded channel: a slow client slows the generator
//! down. The answers are solved through the server's admission
//! ([`Admitted`]); the client going away, its deadline or the end of the
//! server's grace stop the generator.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tonic::{Request, Response, Status};

use crate::judge::generate::{GenError, GenSpec, generate_with};

use crate::service::pb;
use crate::service::state::clients::ClientKey;
use crate::service::state::limits::{Cancellation, GuardedStream, deadline};
use crate::service::state::{Admitted, BoxStream, State};

/// Largest number of bytes in one `GenerateChunk`.
pub const CHUNK: usize = 64 << 10;

/// Chunks queued ahead of the client.
const QUEUE: usize = 8;

type Tx = mpsc::Sender<Result<pb::GenerateChunk, Status>>;

/// Which field of `GenerateChunk` a writer fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `input_chunk`.
    Input,
    /// `answer_chunk`.
    Answers,
}

/// A `Write` that sends what it is given as `GenerateChunk`s of at most
/// [`CHUNK`] bytes (blocking while the channel is full).
#[derive(Debug)]
pub struct ChunkWriter {
    tx: Tx,
    target: Target,
    buf: Vec<u8>,
    cancel: Cancellation,
}

impl ChunkWriter {
    /// A writer of `target` chunks into `tx`; fails once `cancel` is set.
    pub fn new(tx: Tx, target: Target, cancel: Cancellation) -> ChunkWriter {
        ChunkWriter {
            tx,
            target,
            buf: Vec::with_capacity(CHUNK),
            cancel,
        }
    }

    fn send(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if self.cancel.is_cancelled() {
            return Err(io::Error::other("the generation was cancelled"));
        }
        let bytes = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        let mut chunk = pb::GenerateChunk::default();
        match self.target {
            Target::Input => chunk.input_chunk = bytes,
            Target::Answers => chunk.answer_chunk = bytes,
        }
        self.tx
            .blocking_send(Ok(chunk))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let n = data.len().min(CHUNK - self.buf.len());
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() == CHUNK {
            self.send()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send()
    }
}

/// Validates the request and starts streaming its data.
#[tracing::instrument(
    name = "Generate",
    skip_all,
    fields(
        family = %request.get_ref().family,
        cases = request.get_ref().cases,
        max_n = request.get_ref().max_n,
    )
)]
pub async fn generate(
    state: &Arc<State>,
    request: Request<pb::GenerateRequest>,
) -> Result<Response<BoxStream<pb::GenerateChunk>>, Status> {
    let permit = state.admit_rpc(ClientKey::of(&request))?;
    let spec = GenSpec::try_from((request.get_ref(), &state.limits))?;
    let deadline = deadline(&request);
    let (tx, rx) = mpsc::channel(QUEUE);
    // Cancelled when the response stream is dropped (the client went away)
    // or ends at the deadline.
    let cancel = state.cancellation(deadline);
    let stream = GuardedStream::new(rx, cancel.token(), deadline, "the generation");
    let job_state = Arc::clone(state);
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let _entered = span.enter();
        let started = Instant::now();
        let mut input = ChunkWriter::new(tx.clone(), Target::Input, cancel.clone());
        let mut answers = ChunkWriter::new(tx.clone(), Target::Answers, cancel.clone());
        let mut solver = Admitted::new(&job_state, cancel.clone(), "the generation");
        let result = generate_with(&spec, &mut input, Some(&mut answers), &mut solver);
        let status = match result {
            Ok(summary) => {
                tracing::info!(
                    cases = summary.cases,
                    piles = summary.piles,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "Generate done"
                );
                return;
            }
            Err(GenError::Solver(e)) => match e.downcast::<Status>() {
                Ok(status) => *status,
                Err(e) => Status::internal(e.to_string()),
            },
            Err(GenError::Input(_) | GenError::Answers(_)) if cancel.is_cancelled() => {
                cancel.status("the generation")
            }
            // The client went away: nobody to tell.
            Err(e @ (GenError::Input(_) | GenError::Answers(_))) => {
                tracing::info!(outcome = %e, "Generate stopped");
                return;
            }
            Err(e) => Status::internal(e.to_string()),
        };
        tracing::info!(code = ?status.code(), outcome = status.message(), "Generate stopped");
        // Tells the client, unless it is gone; a full queue waits for it.
        let _ = tx.blocking_send(Err(status));
    });
    Ok(Response::new(Box::pin(stream)))
}
