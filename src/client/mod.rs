//! A Rust client of the `stonegame.v1.StoneGame` service.
//!
//! * [`Client::solve_stream`] opens one Solve stream fed by a stream of
//!   batches; the server answers batch by batch, in order, with several in
//!   flight. [`Client::solve`] does the batching for a list of cases and
//!   sends every row as `Case.piles_le` (little-endian words of the fewest
//!   bytes that hold the row's largest pile, named in `piles_le_width`:
//!   much cheaper to encode and decode than varints, and 4 bytes a pile or
//!   less for the original problem's piles); [`solve_case`] builds such a
//!   case and [`pack_case`] converts one.
//! * [`Client::suggest`] wraps SuggestMove, [`Client::tables`] collects and
//!   unpacks GetTables, [`Client::health`] asks grpc.health.v1.
//! * [`Client::check`] streams a test input and an answer to Check,
//!   alternately in [`CHECK_CHUNK`]-byte chunks, and returns the checker's
//!   report; [`Client::generate`] opens a Generate stream for a
//!   [`GenSpec`].
//! * [`loadtest`] measures QPS and latency percentiles of SuggestMove (or of
//!   the health check, the floor), closed loop with many concurrent clients
//!   or open loop at a fixed rate ([`load`]).

use std::io::{self, Read};

use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tonic::transport::{Channel, Endpoint};
use tonic::{Status, Streaming};

use crate::core::Variant;
use crate::core::tables::decode;
use crate::judge::check::CheckReport;
use crate::judge::generate::GenSpec;
use crate::wire::pb::stone_game_client::StoneGameClient;
use crate::wire::{LeWidth, MAX_FRAME_SIZE, pb, piles_to_le, unpack_code};

pub mod load;

pub use load::{LoadReport, LoadRpc, LoadSpec, LoadSpecError, loadtest};

/// Largest response message the client accepts.
const MAX_MESSAGE: usize = 64 << 20;

/// Why a client call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server address is unusable or unreachable.
    #[error("cannot connect to {url}: {source}")]
    Connect {
        url: String,
        source: tonic::transport::Error,
    },
    /// The server answered with an error status.
    #[error("the server says {:?}: {}", .0.code(), .0.message())]
    Status(#[from] Status),
    /// The server broke the protocol's promises.
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
    /// A load test's parameters are unusable.
    #[error(transparent)]
    LoadSpec(#[from] LoadSpecError),
    /// A local file could not be read.
    #[error("cannot read the {what}: {source}")]
    Read {
        what: &'static str,
        source: io::Error,
    },
}

/// Bytes per chunk [`Client::check`] sends.
pub const CHECK_CHUNK: usize = 64 << 10;

/// Sends `input` and `answer` alternately, a chunk of each at a time, until
/// both end. On a read error the stream is left open (an `Err` item tells
/// [`Client::check`] to drop the call) so the server never judges a
/// truncated file.
fn feed_check(
    mut input: impl Read,
    mut answer: impl Read,
    variant: i32,
    tx: &mpsc::Sender<Result<pb::CheckRequest, ()>>,
) -> Result<(), ClientError> {
    use pb::check_request::Part;
    let mut ended = [false, false];
    while !ended.iter().all(|&e| e) {
        for (i, what) in ["input", "answer"].into_iter().enumerate() {
            if ended[i] {
                continue;
            }
            let reader: &mut dyn Read = if i == 0 { &mut input } else { &mut answer };
            let mut buf = Vec::with_capacity(CHECK_CHUNK);
            if let Err(source) = reader.take(CHECK_CHUNK as u64).read_to_end(&mut buf) {
                let _ = tx.blocking_send(Err(()));
                return Err(ClientError::Read { what, source });
            }
            ended[i] = buf.len() < CHECK_CHUNK;
            if buf.is_empty() {
                continue;
            }
            let part = if i == 0 {
                Part::InputChunk(buf)
            } else {
                Part::AnswerChunk(buf)
            };
            let message = pb::CheckRequest {
                part: Some(part),
                variant,
            };
            if tx.blocking_send(Ok(message)).is_err() {
                // The call ended (the server answered or failed).
                return Ok(());
            }
        }
    }
    Ok(())
}

/// `piles` as the client sends them: `Case.piles_le` in the narrowest width
/// that holds the largest pile, and the `Case.piles_le_width` naming it.
fn packed(piles: &[u64]) -> (prost::bytes::Bytes, u32) {
    let width = LeWidth::narrowest(piles);
    (piles_to_le(piles, width), width.to_pb())
}

/// A Solve case carrying `piles` in `piles_le`, in the narrowest width
/// that holds them.
pub fn solve_case(id: impl Into<String>, piles: &[u64], variant: Variant) -> pb::Case {
    let (piles_le, piles_le_width) = packed(piles);
    pb::Case {
        id: id.into(),
        piles: Vec::new(),
        variant: pb::Variant::from(variant) as i32,
        piles_le,
        piles_le_width,
    }
}

/// Moves a case's row from `piles` to `piles_le`, in the narrowest width
/// that holds it (rows of piles below 2^32 take half the bytes of 8-byte
/// words). A case that already uses `piles_le` (or sets both fields, which
/// the server refuses) is left as it is.
pub fn pack_case(case: &mut pb::Case) {
    if case.piles_le.is_empty() && !case.piles.is_empty() {
        (case.piles_le, case.piles_le_width) = packed(&case.piles);
        case.piles = Vec::new();
    }
}

/// The request of a [`GenSpec`].
pub fn generate_request(spec: &GenSpec) -> pb::GenerateRequest {
    pb::GenerateRequest {
        family: spec.family.name().to_string(),
        cases: spec.cases,
        max_n: spec.max_n,
        max_a: spec.max_a,
        seed: spec.seed,
        variant: pb::Variant::from(spec.variant) as i32,
    }
}

/// A connected client.
#[derive(Debug, Clone)]
pub struct Client {
    channel: Channel,
    inner: StoneGameClient<Channel>,
}

impl Client {
    /// Connects to `url` (e.g. `http://127.0.0.1:50051`; a bare `host:port`
    /// gets `http://`).
    pub async fn connect(url: &str) -> Result<Client, ClientError> {
        let url = if url.contains("://") {
            url.to_string()
        } else {
            format!("http://{url}")
        };
        let connect_err = |source| ClientError::Connect {
            url: url.clone(),
            source,
        };
        let channel = Endpoint::from_shared(url.clone())
            .map_err(connect_err)?
            .tcp_nodelay(true)
            .max_frame_size(MAX_FRAME_SIZE)
            .connect()
            .await
            .map_err(connect_err)?;
        Ok(Client::from_channel(channel))
    }

    /// A client over an existing channel.
    pub fn from_channel(channel: Channel) -> Client {
        let inner = StoneGameClient::new(channel.clone())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE);
        Client { channel, inner }
    }

    /// The generated client, for anything not wrapped here.
    pub fn raw(&mut self) -> &mut StoneGameClient<Channel> {
        &mut self.inner
    }

    /// Opens a Solve stream sending `batches`; responses come one per batch,
    /// in order.
    pub async fn solve_stream(
        &mut self,
        batches: impl Stream<Item = pb::SolveRequest> + Send + 'static,
    ) -> Result<Streaming<pb::SolveResponse>, ClientError> {
        Ok(self.inner.solve(batches).await?.into_inner())
    }

    /// Solves `cases` in batches of `batch_size` over one stream; the
    /// results come back in case order. Rows given in `piles` are sent as
    /// `piles_le` ([`pack_case`]), each batch as it is sent.
    pub async fn solve(
        &mut self,
        cases: Vec<pb::Case>,
        batch_size: usize,
    ) -> Result<Vec<pb::CaseResult>, ClientError> {
        let total = cases.len();
        let mut batches = Vec::new();
        let mut it = cases.into_iter().peekable();
        while it.peek().is_some() {
            batches.push(pb::SolveRequest {
                cases: it.by_ref().take(batch_size.max(1)).collect(),
            });
        }
        let expected: Vec<usize> = batches.iter().map(|b| b.cases.len()).collect();
        let packed = futures::stream::iter(batches).map(|mut batch| {
            batch.cases.iter_mut().for_each(pack_case);
            batch
        });
        let mut responses = self.solve_stream(packed).await?;
        let mut out = Vec::with_capacity(total);
        for want in expected {
            let response = responses
                .message()
                .await?
                .ok_or_else(|| ClientError::Protocol("the stream ended early".into()))?;
            if response.results.len() != want {
                return Err(ClientError::Protocol(format!(
                    "a batch of {want} cases got {} results",
                    response.results.len()
                )));
            }
            out.extend(response.results);
        }
        Ok(out)
    }

    /// Checks `answer` against the test `input` for `variant`: both are
    /// read on a blocking thread and sent alternately in [`CHECK_CHUNK`]-byte
    /// chunks over one Check stream. The report is the offline checker's.
    pub async fn check(
        &mut self,
        input: impl Read + Send + 'static,
        answer: impl Read + Send + 'static,
        variant: Variant,
    ) -> Result<CheckReport, ClientError> {
        let raw = pb::Variant::from(variant) as i32;
        let (tx, rx) = mpsc::channel::<Result<pb::CheckRequest, ()>>(4);
        // The first message carries the variant even if both files are empty.
        let first = pb::CheckRequest {
            part: None,
            variant: raw,
        };
        let _ = tx.send(Ok(first)).await;
        let mut feeder = tokio::task::spawn_blocking(move || feed_check(input, answer, raw, &tx));
        let requests = futures::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await {
                Some(Ok(message)) => Some((message, rx)),
                // A read error: never end the stream normally.
                Some(Err(())) => futures::future::pending().await,
                None => None,
            }
        });
        let call = self.inner.check(requests);
        tokio::pin!(call);
        let response = tokio::select! {
            response = &mut call => response?,
            fed = &mut feeder => {
                match fed {
                    Ok(Ok(())) => call.await?,
                    Ok(Err(e)) => return Err(e),
                    Err(e) => return Err(ClientError::Protocol(format!("the reading task failed: {e}"))),
                }
            }
        };
        CheckReport::try_from(response.into_inner())
            .map_err(|e| ClientError::Protocol(format!("a Check response is malformed: {e}")))
    }

    /// Opens a Generate stream for `spec`: the input in `input_chunk`s, the
    /// expected answers in `answer_chunk`s.
    pub async fn generate(
        &mut self,
        spec: &GenSpec,
    ) -> Result<Streaming<pb::GenerateChunk>, ClientError> {
        Ok(self
            .inner
            .generate(generate_request(spec))
            .await?
            .into_inner())
    }

    /// Asks for a move; `strength` `None` means perfect play.
    pub async fn suggest(
        &mut self,
        piles: Vec<u64>,
        variant: Variant,
        strength: Option<f64>,
        seed: u64,
    ) -> Result<pb::SuggestMoveResponse, ClientError> {
        let req = pb::SuggestMoveRequest {
            piles,
            variant: pb::Variant::from(variant) as i32,
            strength,
            seed,
        };
        Ok(self.inner.suggest_move(req).await?.into_inner())
    }

    /// Fetches and unpacks the tables of a row.
    pub async fn tables(
        &mut self,
        piles: Vec<u64>,
        chunk_rows: u32,
    ) -> Result<TableCodes, ClientError> {
        let n = piles.len();
        let piles_kept = piles.clone();
        let mut stream = self
            .inner
            .get_tables(pb::GetTablesRequest { piles, chunk_rows })
            .await?
            .into_inner();
        let mut codes = TableCodes {
            n,
            piles: piles_kept,
            left: Vec::with_capacity(n * (n + 1) / 2),
            right: Vec::with_capacity(n * (n + 1) / 2),
        };
        let mut next_row = 0usize;
        while let Some(chunk) = stream.message().await? {
            let entries: usize = (next_row..next_row + chunk.row_count as usize)
                .map(|i| n.saturating_sub(i))
                .sum();
            if chunk.first_row as usize != next_row
                || chunk.n as usize != n
                || chunk.entries as usize != entries
            {
                return Err(ClientError::Protocol(format!(
                    "chunk of rows {}+{} does not follow row {next_row} of {n}",
                    chunk.first_row, chunk.row_count
                )));
            }
            for k in 0..entries {
                let (l, r) = unpack_code(&chunk.left_codes, k)
                    .zip(unpack_code(&chunk.right_codes, k))
                    .ok_or_else(|| {
                        ClientError::Protocol("a chunk holds fewer codes than it says".into())
                    })?;
                codes.left.push(l);
                codes.right.push(r);
            }
            next_row += chunk.row_count as usize;
        }
        if next_row != n {
            return Err(ClientError::Protocol(format!(
                "the tables stopped at row {next_row} of {n}"
            )));
        }
        Ok(codes)
    }

    /// The serving status of `service` ("" = the whole server).
    pub async fn health(&self, service: &str) -> Result<i32, ClientError> {
        let mut health = tonic_health::pb::health_client::HealthClient::new(self.channel.clone());
        let resp = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.to_string(),
            })
            .await?;
        Ok(resp.into_inner().status)
    }
}

/// The 2-bit codes of a row's tables (see `TablesChunk` in the .proto),
/// one byte per entry, rows i = 0..n in order, entries j = i..n in each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCodes {
    /// Number of piles.
    pub n: usize,
    /// The row.
    pub piles: Vec<u64>,
    /// Codes of `left[i][j]`.
    pub left: Vec<u8>,
    /// Codes of `right[i][j]`.
    pub right: Vec<u8>,
}

impl TableCodes {
    /// The position of entry (i, j) (0-based, i ≤ j < n).
    pub fn index(&self, i: usize, j: usize) -> usize {
        // Rows 0..i hold n + (n−1) + … + (n−i+1) entries.
        i * self.n - i * i.saturating_sub(1) / 2 + (j - i)
    }

    /// The value `left[i][j]` (0-based, i ≤ j < n).
    pub fn left(&self, i: usize, j: usize) -> u64 {
        decode(self.left[self.index(i, j)], self.piles[j])
    }

    /// The value `right[i][j]` (0-based, i ≤ j < n).
    pub fn right(&self, i: usize, j: usize) -> u64 {
        decode(self.right[self.index(i, j)], self.piles[i])
    }
}
