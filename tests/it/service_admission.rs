//! Check and Generate pass the same admission and cancellation as Solve:
//! their cases reserve the server's budgets and count in its metrics while
//! they are solved, a case larger than the whole budget is
//! RESOURCE_EXHAUSTED ("split it"), a busy budget makes them wait rather
//! than fail, and their work stops — the counters say so, not only the end
//! of the test — when the client goes away or the deadline passes.

use crate::common;

use std::num::NonZero;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::service::RunningServer;
use stonegame::service::pb;
use stonegame::service::pb::check_request::Part;
use stonegame::service::pb::stone_game_client::StoneGameClient;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;
use tonic::transport::Channel;

use common::{case, eventually};

/// A row of `n` random piles: n = 200,000 takes the two workers seconds.
fn huge_row(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| rng.random_range(1..=1_000_000_000))
        .collect()
}

/// The OJ-format input of `rows`.
fn input_of_rows(rows: &[Vec<u64>]) -> Vec<u8> {
    let mut out = format!("{}\n", rows.len());
    for row in rows {
        let piles: Vec<String> = row.iter().map(u64::to_string).collect();
        out += &format!("{}\n{}\n", row.len(), piles.join(" "));
    }
    out.into_bytes()
}

/// The OJ-format input of one case.
fn input_of(row: &[u64]) -> Vec<u8> {
    input_of_rows(&[row.to_vec()])
}

/// Sends `input` (and `answer`, if any) on a Check stream in 64 KiB chunks;
/// the stream stays open while the sender lives.
async fn open_check(
    client: &mut StoneGameClient<Channel>,
    input: &[u8],
    answer: Option<&[u8]>,
) -> (
    mpsc::Sender<pb::CheckRequest>,
    tokio::task::JoinHandle<Result<pb::CheckResponse, tonic::Status>>,
) {
    let (tx, rx) = mpsc::channel(4096);
    let mut chunks: Vec<Part> = input
        .chunks(64 << 10)
        .map(|c| Part::InputChunk(c.to_vec()))
        .collect();
    if let Some(answer) = answer {
        chunks.push(Part::AnswerChunk(answer.to_vec()));
    }
    for part in chunks {
        tx.send(pb::CheckRequest {
            part: Some(part),
            variant: 0,
        })
        .await
        .unwrap();
    }
    let mut client = client.clone();
    let call = tokio::spawn(async move {
        client
            .check(ReceiverStream::new(rx))
            .await
            .map(tonic::Response::into_inner)
    });
    (tx, call)
}

/// Waits until a huge case runs: counted as started, its cells reserved.
async fn until_solving(server: &RunningServer, started: u64) {
    let (metrics, state) = (&server.metrics, &server.state);
    eventually("the huge case is being solved", || {
        metrics.cases_started() >= started && state.budget.in_flight() > 0
    })
    .await;
}

/// Waits until the huge case is cancelled and its reservations released.
async fn until_cancelled(server: &RunningServer, cancelled: u64) {
    let (metrics, state) = (&server.metrics, &server.state);
    eventually("the huge case is cancelled", || {
        metrics.cases_cancelled() == cancelled
    })
    .await;
    eventually("the budgets are released", || {
        state.budget.in_flight() == 0 && state.piles_budget.in_flight() == 0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_of_a_case_larger_than_the_budget_is_refused() {
    // 1,000 piles cost 499,500 cell updates; the whole budget is 100,000.
    let server =
        common::server(|c| c.limits.max_cells_in_flight = NonZero::new(100_000).unwrap()).await;
    let mut client = common::client(&server).await;
    let (tx, call) = open_check(&mut client, &input_of(&vec![1; 1_000]), Some(b"1\n")).await;
    drop(tx);
    let s = call.await.unwrap().unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert!(s.message().contains("split it"), "{s:?}");
    assert!(s.message().contains("499500 cell updates"), "{s:?}");
    assert!(s.metadata().get("retry-after-ms").is_none(), "{s:?}");
    assert_eq!(server.metrics.admissions_refused(), 1);
    assert_eq!(server.metrics.cases_started(), 0);
    // A case that fits is judged as usual.
    let (tx, call) = open_check(&mut client, &input_of(&[3, 1, 9, 4]), Some(b"0\n")).await;
    drop(tx);
    let r = call.await.unwrap().unwrap();
    assert_eq!(r.verdict, pb::Verdict::Accepted as i32, "{r:?}");
    assert_eq!(server.metrics.cases_completed(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generate_of_a_case_larger_than_the_budget_ends_with_resource_exhausted() {
    let server =
        common::server(|c| c.limits.max_piles_in_flight = NonZero::new(500).unwrap()).await;
    let mut client = common::client(&server).await;
    let request = pb::GenerateRequest {
        family: "max".into(),
        cases: 3,
        max_n: 1_000,
        max_a: 9,
        seed: 1,
        variant: 0,
    };
    let mut stream = client.generate(request).await.unwrap().into_inner();
    let s = loop {
        match stream.message().await {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the stream ended without an error"),
            Err(s) => break s,
        }
    };
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert!(s.message().contains("1000 piles"), "{s:?}");
    assert!(s.message().contains("split it"), "{s:?}");
    assert_eq!(server.metrics.admissions_refused(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_is_counted_while_it_runs_and_stops_when_the_client_goes_away() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let (tx, call) = open_check(&mut client, &input_of(&huge_row(200_000, 1)), None).await;
    until_solving(&server, 1).await;
    // Its cells and piles are reserved like a Solve case's.
    assert!(server.state.budget.in_flight() >= 200_000 * 199_999 / 2);
    assert!(server.state.piles_budget.in_flight() >= 200_000);
    // The client goes away.
    call.abort();
    drop(tx);
    until_cancelled(&server, 1).await;
    assert_eq!(server.metrics.cases_completed(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_stops_at_its_deadline() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let (tx, rx) = mpsc::channel(128);
    // Two huge cases, solved one after the other: seconds of work in all.
    let input = input_of_rows(&[huge_row(200_000, 2), huge_row(200_000, 5)]);
    for chunk in input.chunks(64 << 10) {
        tx.send(pb::CheckRequest {
            part: Some(Part::InputChunk(chunk.to_vec())),
            variant: 0,
        })
        .await
        .unwrap();
    }
    let mut request = tonic::Request::new(ReceiverStream::new(rx));
    request.set_timeout(Duration::from_secs(1));
    // tonic ends the call at the deadline (on either side: CANCELLED or
    // DEADLINE_EXCEEDED, as for SuggestMove) and drops the handler.
    let s = client.check(request).await.unwrap_err();
    assert!(
        matches!(s.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{s:?}"
    );
    until_cancelled(&server, 1).await;
    assert_eq!(server.metrics.cases_started(), 1);
    assert_eq!(server.metrics.cases_completed(), 0);
    drop(tx);
}

/// A Generate of `cases` cases of 200,000 piles; its chunks are read (so
/// the generator gets to solving) by a task the caller may abort.
async fn open_huge_generate(
    client: &mut StoneGameClient<Channel>,
    cases: u64,
    timeout: Option<Duration>,
) -> tokio::task::JoinHandle<Result<(), tonic::Status>> {
    let mut request = tonic::Request::new(pb::GenerateRequest {
        family: "max".into(),
        cases,
        max_n: 200_000,
        max_a: 1_000_000_000,
        seed: 1,
        variant: 0,
    });
    if let Some(timeout) = timeout {
        request.set_timeout(timeout);
    }
    let mut stream = client.generate(request).await.unwrap().into_inner();
    tokio::spawn(async move {
        while stream.message().await?.is_some() {}
        Ok(())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generate_is_counted_while_it_runs_and_stops_when_the_stream_is_dropped() {
    let server = common::server(|c| c.limits.max_concurrent_rpcs = NonZero::new(1).unwrap()).await;
    let mut client = common::client(&server).await;
    let reader = open_huge_generate(&mut client, 1, None).await;
    until_solving(&server, 1).await;
    assert!(server.state.budget.in_flight() >= 200_000 * 199_999 / 2);
    // The client drops the stream.
    reader.abort();
    until_cancelled(&server, 1).await;
    assert_eq!(server.metrics.cases_completed(), 0);
    // The generator ended and gave back its RPC slot.
    common::eventually_async("the generator's slot is free", || {
        let mut client = client.clone();
        async move {
            client
                .suggest_move(pb::SuggestMoveRequest {
                    piles: vec![1, 2],
                    ..Default::default()
                })
                .await
                .is_ok()
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generate_stream_ends_with_deadline_exceeded_and_stops() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    // Two huge cases, solved one after the other: seconds of work in all.
    let reader = open_huge_generate(&mut client, 2, Some(Duration::from_secs(1))).await;
    let s = reader.await.unwrap().unwrap_err();
    assert_eq!(s.code(), Code::DeadlineExceeded, "{s:?}");
    until_cancelled(&server, 1).await;
    assert_eq!(server.metrics.cases_started(), 1);
    assert_eq!(server.metrics.cases_completed(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_waits_for_a_busy_budget_instead_of_failing() {
    // Room for the huge Solve case (≈ 2·10^10 cells) but not for the
    // Check's case of 20,000 piles (≈ 2·10^8) beside it.
    let server =
        common::server(|c| c.limits.max_cells_in_flight = NonZero::new(20_100_000_000).unwrap())
            .await;
    let mut client = common::client(&server).await;
    let (solve_tx, rx) = mpsc::channel(1);
    solve_tx
        .send(pb::SolveRequest {
            cases: vec![case("huge", huge_row(200_000, 3), pb::Variant::TwoEnds)],
            want_remoteness: false,
        })
        .await
        .unwrap();
    let solve = client
        .solve(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    until_solving(&server, 1).await;

    let row = huge_row(20_000, 4);
    let truth =
        stonegame::core::first_player_wins(&common::valid(&row), stonegame::core::Variant::TwoEnds);
    let answer = if truth { b"1\n" } else { b"0\n" };
    let (tx, call) = open_check(&mut client, &input_of(&row), Some(answer)).await;
    drop(tx);
    // The Check neither fails nor starts while the budget is full.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!call.is_finished());
    assert_eq!(server.metrics.cases_started(), 1);
    assert_eq!(server.metrics.admissions_refused(), 0);
    // Once the Solve case is gone, the Check's case is admitted and judged.
    drop(solve);
    drop(solve_tx);
    let r = call.await.unwrap().unwrap();
    assert_eq!(r.verdict, pb::Verdict::Accepted as i32, "{r:?}");
    assert_eq!(server.metrics.cases_cancelled(), 1);
    assert_eq!(server.metrics.cases_completed(), 1);
}
