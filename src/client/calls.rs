//! [`Client`], the connected client, and its calls: Solve (one stream, or
//! spread over every replica), Check, Generate, SuggestMove, GetTables
//! (unpacked into [`TableCodes`]) and the health check, with a call
//! refused by a GOAWAY race or an UNAVAILABLE replica sent again. How a
//! client connects is in [`super::builder`]; the Play calls are in
//! [`super::play`].

use std::future::Future;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};
use tonic_health::pb::health_client::HealthClient;

use super::connect::{Transport, stonegame_client};
use super::error::ClientError;
use super::goaway::never_reached_server;
use super::replicated::{self, SolveOptions, SolveRun};
use super::request::{generate_request, pack_case};
use super::resolve::{ReplicaSet, Replicas};
use super::target::Target;
use crate::core::Variant;
use crate::core::tables::decode;
use crate::judge::check::CheckReport;
use crate::judge::generate::GenSpec;
use crate::wire::pb::stone_game_client::StoneGameClient;
use crate::wire::{pb, unpack_code};

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

/// A connected client: to one server, or balanced over replicas.
#[derive(Debug, Clone)]
pub struct Client {
    channel: Channel,
    inner: StoneGameClient<Transport>,
    target: Arc<Target>,
    replicas: Replicas,
    channels: replicated::Channels,
}

/// Attempts of a unary call (or of opening a stream) refused by a GOAWAY
/// race, or over several replicas refused with UNAVAILABLE.
const CALL_ATTEMPTS: u32 = 3;

impl Client {
    pub(super) fn assemble(
        channel: Channel,
        target: Target,
        replicas: Replicas,
        channels: replicated::Channels,
    ) -> Client {
        let inner = stonegame_client(channel.clone(), channels.token());
        Client {
            channel,
            inner,
            target: Arc::new(target),
            replicas,
            channels,
        }
    }

    /// What the client was connected to.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The replicas now known (one for a single URL).
    pub fn replicas(&self) -> ReplicaSet {
        self.replicas.current()
    }

    /// The generated client, for anything not wrapped here.
    pub fn raw(&mut self) -> &mut StoneGameClient<Transport> {
        &mut self.inner
    }

    /// Runs `call` with a copy of `request`. A call that raced a server's graceful GOAWAY and never
    /// reached it ([`never_reached_server`]) is sent again at once, on any
    /// target, up to [`CALL_ATTEMPTS`] times in all. Over several
    /// replicas, a call refused with UNAVAILABLE (a replica gone or shutting
    /// down) is tried again too, with backoff, and the resolver is told.
    pub(super) async fn with_resends<R: Clone, T, F, Fut>(
        &self,
        request: &R,
        mut call: F,
    ) -> Result<T, Status>
    where
        F: FnMut(StoneGameClient<Transport>, R) -> Fut,
        Fut: Future<Output = Result<T, Status>>,
    {
        let mut attempt = 1;
        loop {
            match call(self.inner.clone(), request.clone()).await {
                Err(status) if never_reached_server(&status) && attempt < CALL_ATTEMPTS => {
                    attempt += 1;
                }
                Err(status)
                    if status.code() == Code::Unavailable
                        && self.target.is_balanced()
                        && attempt < CALL_ATTEMPTS =>
                {
                    self.replicas.report_failure();
                    tokio::time::sleep(Duration::from_millis(50 << attempt)).await;
                    attempt += 1;
                }
                result => return result,
            }
        }
    }

    /// Solves a stream of batches over every replica: one Solve stream per
    /// replica with `options.in_flight` batches in flight on each, the
    /// batches of a replica that fails resent to the others (bounded by
    /// `options.retry`), and the answers returned in input order, each
    /// exactly once ([`SolveRun`]). Rows given in `piles` are sent as they
    /// are (see [`pack_case`]).
    pub fn solve_batches(
        &self,
        batches: impl Stream<Item = pb::SolveRequest> + Send + Unpin + 'static,
        options: SolveOptions,
    ) -> SolveRun {
        replicated::start(
            batches,
            self.replicas.clone(),
            self.channels.clone(),
            options,
        )
    }

    /// Opens a Solve stream sending `batches`; responses come one per batch,
    /// in order. One stream goes to one server (over several replicas, the
    /// one the balancer picks): [`Client::solve_batches`] spreads the work
    /// and survives a lost replica.
    pub async fn solve_stream(
        &mut self,
        batches: impl Stream<Item = pb::SolveRequest> + Send + 'static,
    ) -> Result<Streaming<pb::SolveResponse>, ClientError> {
        Ok(self.inner.solve(batches).await?.into_inner())
    }

    /// Solves `cases` in batches of `batch_size` over one stream (all sent
    /// ahead of the answers); the results come back in case order. Rows given in `piles` are sent as
    /// `piles_le` ([`pack_case`]), each batch as it is sent.
    pub async fn solve(
        &mut self,
        cases: Vec<pb::Case>,
        batch_size: usize,
    ) -> Result<Vec<pb::CaseResult>, ClientError> {
        let (total, size) = (cases.len(), batch_size.max(1));
        // Full batches of `size` cases, then the rest.
        let expected = (0..total)
            .step_by(size)
            .map(|start| size.min(total - start));
        let batches = futures::stream::iter(cases).chunks(size).map(|mut cases| {
            cases.iter_mut().for_each(pack_case);
            pb::SolveRequest {
                cases,
                ..Default::default()
            }
        });
        let mut responses = self.solve_stream(batches).await?;
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
        let request = generate_request(spec);
        Ok(self
            .with_resends(&request, |mut c, r| async move { c.generate(r).await })
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
            want_remoteness: false,
        };
        self.suggest_request(req).await
    }

    /// Sends one SuggestMove request as it is (`want_remoteness` included).
    pub async fn suggest_request(
        &mut self,
        req: pb::SuggestMoveRequest,
    ) -> Result<pb::SuggestMoveResponse, ClientError> {
        Ok(self
            .with_resends(&req, |mut c, r| async move { c.suggest_move(r).await })
            .await?
            .into_inner())
    }

    /// Fetches and unpacks the tables of a row.
    pub async fn tables(
        &mut self,
        piles: Vec<u64>,
        chunk_rows: u32,
    ) -> Result<TableCodes, ClientError> {
        let n = piles.len();
        let piles_kept = piles.clone();
        let request = pb::GetTablesRequest { piles, chunk_rows };
        let mut stream = self
            .with_resends(&request, |mut c, r| async move { c.get_tables(r).await })
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
        let request = tonic_health::pb::HealthCheckRequest {
            service: service.to_string(),
        };
        let resp = self
            .with_resends(&request, |_, r| {
                let mut health = HealthClient::new(self.channel.clone());
                async move { health.check(r).await }
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
