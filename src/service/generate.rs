//! `Generate`: the test data of `stonegame gen`, streamed as it is made.
//!
//! The request is validated first ([`check_generate`]: family, generator
//! rules → `INVALID_ARGUMENT`; `max_generate_cases` and
//! `max_generate_piles` → `RESOURCE_EXHAUSTED`). Then
//! [`generate_in`] runs on a blocking thread (its answers are solved on the
//! CPU pool) and writes into two [`ChunkWriter`]s, which cut the input and
//! the answers into [`CHUNK`]-byte `GenerateChunk`s, each carrying one of
//! the two files, and send them through a small bounded channel with
//! `blocking_send`: a slow client slows the generator down instead of
//! filling the server's memory. When the client goes away (or the server's
//! grace ends) the next send fails and the generator stops.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::judge::generate::{GenError, generate_in};

use super::limits::CancelFlag;
use super::pb;
use super::server::{BoxStream, State};
use super::validate::check_generate;

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
    cancel: CancelFlag,
}

impl ChunkWriter {
    /// A writer of `target` chunks into `tx`; fails once `cancel` is set.
    pub fn new(tx: Tx, target: Target, cancel: CancelFlag) -> ChunkWriter {
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
            return Err(io::Error::other("the server is shutting down"));
        }
        let bytes = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        let chunk = match self.target {
            Target::Input => pb::GenerateChunk {
                input_chunk: bytes,
                answer_chunk: Vec::new(),
            },
            Target::Answers => pb::GenerateChunk {
                input_chunk: Vec::new(),
                answer_chunk: bytes,
            },
        };
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
pub async fn generate(
    state: &Arc<State>,
    request: Request<pb::GenerateRequest>,
) -> Result<Response<BoxStream<pb::GenerateChunk>>, Status> {
    let permit = state.rpcs.admit(&state.metrics)?;
    let spec = check_generate(request.get_ref(), &state.limits)?;
    let (tx, rx) = mpsc::channel(QUEUE);
    let job_state = Arc::clone(state);
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let _entered = span.enter();
        let started = Instant::now();
        let cancel = job_state.cancel_all.clone();
        let mut input = ChunkWriter::new(tx.clone(), Target::Input, cancel.clone());
        let mut answers = ChunkWriter::new(tx.clone(), Target::Answers, cancel);
        let result = generate_in(&spec, &mut input, Some(&mut answers), Some(&job_state.pool));
        let outcome = match result {
            Ok(summary) => {
                tracing::info!(
                    cases = summary.cases,
                    piles = summary.piles,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "Generate done"
                );
                return;
            }
            Err(GenError::Input(e) | GenError::Answers(e)) => e.to_string(),
            Err(e) => {
                let _ = tx.blocking_send(Err(Status::internal(e.to_string())));
                e.to_string()
            }
        };
        tracing::info!(outcome, "Generate stopped");
    });
    Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
}
