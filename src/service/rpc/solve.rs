//! `Solve`: a bidirectional stream of batches of cases (docs/service.md,
//! "RPCs").
//!
//! One driver task per stream admits each request's cell updates and piles
//! and hands it to the rayon pool, where its cases are validated and
//! solved; up to `max_batches_in_flight_per_stream` batches at once
//! (`StreamExt::buffered`, in request order), beyond which the driver stops
//! reading (HTTP/2 flow control). The response is a [`GuardedStream`]: the
//! batches stop when the client goes away, the deadline passes or the
//! server's grace ends.
//!
//! A batch with `want_remoteness` also gets each valid case's remoteness,
//! and pays for it in admission ([`super::remoteness`]).

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use rayon::prelude::*;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status, Streaming};
use tracing::Instrument;

use crate::core::moves::analyze_cancellable;
use crate::core::remoteness::remoteness_with;

use crate::service::metrics::BatchInFlight;
use crate::service::pb;
use crate::service::rpc::remoteness;
use crate::service::rpc::validate::{CaseShape, check_batch};
use crate::service::state::clients::ClientKey;
use crate::service::state::limits::{GuardedStream, HeldMessages, Reservation, deadline};
use crate::service::state::{BoxStream, State};

/// Starts the stream: the work happens in a spawned driver task, in this
/// call's span.
#[tracing::instrument(
    name = "Solve",
    skip_all,
    fields(
        batches = tracing::field::Empty,
        cases = tracing::field::Empty,
        elapsed_ms = tracing::field::Empty,
        outcome = tracing::field::Empty,
    )
)]
pub fn solve(
    state: Arc<State>,
    request: Request<Streaming<pb::SolveRequest>>,
) -> Result<Response<BoxStream<pb::SolveResponse>>, Status> {
    let permit = state.admit_rpc(ClientKey::of(&request))?;
    let deadline = deadline(&request);
    // The reservations the edge made for each message while it was read.
    let held = request.extensions().get::<HeldMessages>().cloned();
    let inbound = request.into_inner();
    let (tx, rx) = mpsc::channel(state.limits.max_batches_in_flight_per_stream.get());
    let cancel = state.rpc_token();
    let stream = GuardedStream::new(rx, &cancel, deadline, "the stream");
    tokio::spawn(
        async move {
            let _permit = permit;
            drive(state, inbound, held, tx, cancel, deadline).await;
        }
        .in_current_span(),
    );
    Ok(Response::new(Box::pin(stream)))
}

type Tx = mpsc::Sender<Result<pb::SolveResponse, Status>>;

async fn drive(
    state: Arc<State>,
    inbound: Streaming<pb::SolveRequest>,
    held: Option<HeldMessages>,
    tx: Tx,
    cancel: CancellationToken,
    deadline: Option<Instant>,
) {
    let started = Instant::now();
    // The driver's end (an error sent, the inbound stream over) stops the
    // batches still being solved, as the stream's end does.
    let _guard = cancel.clone().drop_guard();
    let in_flight = state.limits.max_batches_in_flight_per_stream.get();
    let (st, c) = (Arc::clone(&state), cancel.clone());
    let mut responses = inbound
        .map(move |item| {
            let (st, c) = (Arc::clone(&st), c.clone());
            // Messages arrive in order: the next reservation is this one's.
            let reserved = held.as_ref().and_then(HeldMessages::next);
            async move { solve_request(&st, item?, reserved, &c).await }
        })
        .buffered(in_flight);
    let gone = || match deadline {
        Some(d) if Instant::now() >= d => "deadline exceeded",
        _ => "client went away",
    };
    let (mut batches, mut cases) = (0u64, 0u64);
    let outcome = loop {
        let next = tokio::select! {
            biased;
            () = tx.closed() => break gone(),
            next = responses.next() => next,
        };
        match next {
            None => break "ok",
            Some(Ok(response)) => {
                batches += 1;
                cases += response.results.len() as u64;
                if tx.send(Ok(response)).await.is_err() {
                    break gone();
                }
            }
            Some(Err(status)) => {
                tracing::debug!(code = ?status.code(), message = status.message(), "stream ends with an error");
                let _ = tx.send(Err(status)).await;
                break "error";
            }
        }
    };
    let span = tracing::Span::current();
    span.record("batches", batches);
    span.record("cases", cases);
    span.record("elapsed_ms", started.elapsed().as_millis() as u64);
    span.record("outcome", outcome);
    tracing::info!("Solve stream done");
}

/// Solves one batch on the pool; per-case errors stay inside the response.
async fn solve_request(
    state: &Arc<State>,
    request: pb::SolveRequest,
    reserved: Option<Reservation>,
    cancel: &CancellationToken,
) -> Result<pb::SolveResponse, Status> {
    let _in_flight = BatchInFlight::new(&state.metrics);
    check_batch(&request, state.limits.max_cases_per_batch.get())?;
    let max_piles = state.limits.max_piles.get();
    // Admission needs only the cases' headers (O(cases) here); the piles
    // themselves are validated on the pool. Cases that will be answered
    // with an error cost no cells.
    let shapes: Vec<CaseShape> = request.cases.iter().map(CaseShape::of).collect();
    let want = request.want_remoteness;
    let factor = want.then(|| state.limits.remoteness_cell_factor.get());
    let piles: u64 = shapes.iter().map(|s| s.held_piles() as u64).sum();
    let cells = shapes.iter().fold(0u64, |cells, s| {
        cells.saturating_add(s.cells(max_piles, factor))
    });
    let reservation = match reserved {
        // The message's memory, reserved as it arrived, becomes the
        // batch's: only what the batch needs beyond it is admitted.
        Some(reserved) => {
            let [cells, mut memory] = remoteness::admit(
                state,
                cells,
                piles.saturating_sub(reserved.amount()),
                want,
                "this batch",
            )?;
            memory.absorb(reserved);
            memory.resize(piles);
            [cells, memory]
        }
        None => remoteness::admit(state, cells, piles, want, "this batch")?,
    };
    let metrics = Arc::clone(&state.metrics);
    let stream_cancel = cancel.clone();
    let results = state
        .run_cpu(move || {
            let _reservation = reservation;
            let cancelled = || stream_cancel.is_cancelled();
            request
                .cases
                .into_par_iter()
                .zip(shapes)
                .with_max_len(1)
                .map(|(mut case, shape)| {
                    let id = std::mem::take(&mut case.id);
                    let (variant, piles) = match shape.row(&case, max_piles) {
                        Ok(valid) => valid,
                        Err(error) => {
                            metrics.case_error();
                            return Some(pb::CaseResult {
                                id,
                                error: Some(error),
                                ..Default::default()
                            });
                        }
                    };
                    if cancelled() {
                        return None;
                    }
                    let analysis = metrics.count_case(variant, piles.len(), || {
                        analyze_cancellable(&piles, variant, &cancelled)
                    })?;
                    let remoteness = if want {
                        Some(pb::Remoteness::from(
                            remoteness_with(&piles, variant, &cancelled).ok()?,
                        ))
                    } else {
                        None
                    };
                    Some(pb::CaseResult {
                        id,
                        first_player_wins: analysis.first_player_wins,
                        best_move: Some(analysis.best_move.into()),
                        error: None,
                        remoteness,
                    })
                })
                .collect::<Option<Vec<_>>>()
        })
        .await?;
    let results = results.ok_or_else(|| Status::cancelled("the batch was cancelled"))?;
    Ok(pb::SolveResponse { results })
}
