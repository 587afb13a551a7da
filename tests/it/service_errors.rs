//! Every error path returns its status and message, and the server keeps
//! serving afterwards; cancellation and deadlines stop server-side work
//! (checked with the server's counters, not with wall-clock thresholds).

use crate::common;

use std::num::NonZero;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::core::{Variant, first_player_wins};
use stonegame::service::pb;
use stonegame::service::pb::stone_game_client::StoneGameClient;
use stonegame::service::{Metrics, RunningServer};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

use common::{case, valid};

const TWO: pb::Variant = pb::Variant::TwoEnds;

fn solve_req(cases: Vec<pb::Case>) -> pb::SolveRequest {
    pb::SolveRequest {
        cases,
        ..Default::default()
    }
}

/// One Solve request on its own stream; the first response or the status.
async fn solve_once(
    client: &mut StoneGameClient<Channel>,
    cases: Vec<pb::Case>,
) -> Result<pb::SolveResponse, tonic::Status> {
    let mut stream = client
        .solve(futures::stream::iter([solve_req(cases)]))
        .await?
        .into_inner();
    stream
        .message()
        .await?
        .ok_or_else(|| tonic::Status::unknown("no response"))
}

fn suggest_req(piles: Vec<u64>, strength: Option<f64>) -> pb::SuggestMoveRequest {
    pb::SuggestMoveRequest {
        piles,
        variant: TWO as i32,
        strength,
        seed: 0,
        want_remoteness: false,
    }
}

/// The server still answers a normal request correctly.
async fn still_serves(client: &mut StoneGameClient<Channel>) {
    let r = solve_once(client, vec![case("ok", vec![3, 1, 9, 4], TWO)])
        .await
        .expect("normal request after an error");
    assert_eq!(r.results.len(), 1);
    assert!(!r.results[0].first_player_wins);
    let r = client
        .suggest_move(suggest_req(vec![1, 2], None))
        .await
        .expect("normal SuggestMove after an error")
        .into_inner();
    assert!(r.mover_wins);
}

fn huge_row(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| rng.random_range(1..=1_000_000_000))
        .collect()
}

/// The verdict of case `i` of a response, which must have no error.
fn verdict_of(r: &pb::SolveResponse, i: usize) -> bool {
    assert!(r.results[i].error.is_none(), "{:?}", r.results[i]);
    r.results[i].first_player_wins
}

/// The error of case `i` of a response, which must have one.
fn error_of(r: &pb::SolveResponse, i: usize) -> pb::CaseError {
    r.results[i].error.clone().expect("an error")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_cases_get_errors_and_their_neighbours_verdicts() {
    let server = common::server(|c| c.limits.max_piles = NonZero::new(100).unwrap()).await;
    let mut client = common::client(&server).await;
    let cases = vec![
        case("a", vec![3, 1, 9, 4], TWO),
        case("zero", vec![3, 0, 9], TWO),
        case("b", vec![1, 1, 2, 2], TWO),
        case("empty", vec![], TWO),
        case("huge", vec![1, u64::MAX], TWO),
        case("long", vec![1; 101], TWO),
        case("variant", vec![1, 2], TWO),
        case("c", vec![5, 3], pb::Variant::Leftmost),
    ];
    let mut cases = cases;
    cases[6].variant = 42;
    let r = solve_once(&mut client, cases).await.unwrap();
    let ids: Vec<&str> = r.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        ["a", "zero", "b", "empty", "huge", "long", "variant", "c"]
    );
    let verdict = |i: usize| verdict_of(&r, i);
    assert!(!verdict(0));
    assert!(!verdict(2));
    assert_eq!(
        verdict(7),
        first_player_wins(&valid(&[5, 3]), Variant::Leftmost)
    );
    let err = |i: usize| error_of(&r, i);
    let e = err(1);
    assert_eq!(e.code, pb::CaseErrorCode::ZeroPile as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles", 2));
    assert!(e.message.contains("pile 2 is 0"), "{}", e.message);
    assert_eq!(err(3).code, pb::CaseErrorCode::EmptyRow as i32);
    let e = err(4);
    assert_eq!(e.code, pb::CaseErrorCode::PileTooLarge as i32);
    assert_eq!(e.pile_index, 2);
    let e = err(5);
    assert_eq!(e.code, pb::CaseErrorCode::TooManyPiles as i32);
    assert!(
        e.message.contains("101 piles") && e.message.contains("100"),
        "{}",
        e.message
    );
    let e = err(6);
    assert_eq!(e.code, pb::CaseErrorCode::UnknownVariant as i32);
    assert_eq!(e.field, "variant");
    still_serves(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn piles_le_errors_are_case_errors_naming_the_field() {
    use stonegame::client::solve_case;
    let server = common::server(|c| c.limits.max_piles = NonZero::new(100).unwrap()).await;
    let mut client = common::client(&server).await;
    let mut both = solve_case("both", &[3, 1, 9, 4], Variant::TwoEnds);
    both.piles = vec![3, 1, 9, 4];
    let odd = |id: &str, len: usize| pb::Case {
        id: id.into(),
        piles_le: vec![1u8; len].into(),
        ..Default::default()
    };
    let cases = vec![
        solve_case("a", &[3, 1, 9, 4], Variant::TwoEnds),
        both,
        odd("odd", 13),
        solve_case("b", &[1, 2], Variant::TwoEnds),
        odd("short", 7),
        solve_case("zero", &[3, 0, 9], Variant::TwoEnds),
        solve_case("long", &[1; 101], Variant::TwoEnds),
        solve_case("c", &[5, 3], Variant::Leftmost),
        pb::Case {
            piles_le_width: 9,
            ..solve_case("wide", &[3, 1, 9, 4], Variant::TwoEnds)
        },
        pb::Case {
            piles_le_width: 3,
            ..odd("not-threes", 16)
        },
        solve_case("d", &[1_000_000_000, 1_000_000_000], Variant::TwoEnds),
    ];
    let r = solve_once(&mut client, cases).await.unwrap();
    let ids: Vec<&str> = r.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "a",
            "both",
            "odd",
            "b",
            "short",
            "zero",
            "long",
            "c",
            "wide",
            "not-threes",
            "d"
        ]
    );
    // Two equal piles sent as 4-byte words: a loss.
    assert!(!verdict_of(&r, 10));
    let verdict = |i: usize| verdict_of(&r, i);
    assert!(!verdict(0));
    assert!(verdict(3));
    assert_eq!(
        verdict(7),
        first_player_wins(&valid(&[5, 3]), Variant::Leftmost)
    );
    let err = |i: usize| error_of(&r, i);
    let e = err(1);
    assert_eq!(e.code, pb::CaseErrorCode::BothPileFields as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 0));
    assert!(
        e.message.contains("piles_le") && e.message.contains("piles"),
        "{}",
        e.message
    );
    for (i, len) in [(2, 13), (4, 7)] {
        let e = err(i);
        assert_eq!(e.code, pb::CaseErrorCode::PilesLeLength as i32);
        assert_eq!(e.field, "piles_le");
        assert!(e.message.contains(&format!("{len} bytes")), "{}", e.message);
    }
    let e = err(5);
    assert_eq!(e.code, pb::CaseErrorCode::ZeroPile as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 2));
    let e = err(6);
    assert_eq!(e.code, pb::CaseErrorCode::TooManyPiles as i32);
    assert_eq!(e.field, "piles_le");
    let e = err(8);
    assert_eq!(e.code, pb::CaseErrorCode::PilesLeWidth as i32);
    assert_eq!((e.field.as_str(), e.pile_index), ("piles_le_width", 0));
    assert_eq!(
        e.message,
        "piles_le_width: 9 is not a width of 1 to 8 bytes (0 means 8)"
    );
    let e = err(9);
    assert_eq!(e.code, pb::CaseErrorCode::PilesLeLength as i32);
    assert_eq!(e.field, "piles_le");
    assert!(
        e.message.contains("16 bytes is not a multiple of 3"),
        "{}",
        e.message
    );
    still_serves(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_breaches_are_clear_statuses() {
    let server = common::server(|c| {
        c.limits.max_piles = NonZero::new(100).unwrap();
        c.limits.max_cases_per_batch = NonZero::new(10).unwrap();
        c.limits.max_message_bytes = NonZero::new(4_000).unwrap();
        c.limits.max_table_piles = NonZero::new(50).unwrap();
    })
    .await;
    let mut client = common::client(&server).await;

    // Too many cases in one batch.
    let cases = (0..11).map(|i| case(i.to_string(), vec![1], TWO)).collect();
    let s = solve_once(&mut client, cases).await.unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted);
    assert!(
        s.message().contains("11 cases") && s.message().contains("10"),
        "{s:?}"
    );
    still_serves(&mut client).await;

    // Too many piles for SuggestMove.
    let s = client
        .suggest_move(suggest_req(vec![1; 101], None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted);
    assert!(
        s.message().contains("piles: the row has 101 piles"),
        "{s:?}"
    );
    still_serves(&mut client).await;

    // Message too large (Solve and SuggestMove).
    let s = solve_once(&mut client, vec![case("big", vec![1_000; 2_000], TWO)])
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    assert!(s.message().contains("too large"), "{s:?}");
    let s = client
        .suggest_move(suggest_req(vec![1_000; 2_000], None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    still_serves(&mut client).await;

    // GetTables beyond the table limit.
    let s = client
        .get_tables(pb::GetTablesRequest {
            piles: vec![1; 51],
            chunk_rows: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted);
    assert!(
        s.message().contains("51 piles") && s.message().contains("50"),
        "{s:?}"
    );
    let s = client
        .get_tables(pb::GetTablesRequest {
            piles: vec![1, 0],
            chunk_rows: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(s.message().contains("pile 2 is 0"), "{s:?}");
    still_serves(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_move_refuses_bad_requests() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let s = client
        .suggest_move(suggest_req(vec![], None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::FailedPrecondition);
    assert!(s.message().contains("already lost"), "{s:?}");
    for bad in [f64::NAN, -0.5, 1.01, f64::INFINITY] {
        let s = client
            .suggest_move(suggest_req(vec![1, 2], Some(bad)))
            .await
            .unwrap_err();
        assert_eq!(s.code(), Code::InvalidArgument, "{bad}");
        assert!(s.message().starts_with("strength:"), "{s:?}");
    }
    // The value as sent, short (it was 330 characters for -1e-300).
    for (bad, shown) in [(-1e-300, "-1e-300"), (f64::MAX, "1.7976931348623157e308")] {
        let s = client
            .suggest_move(suggest_req(vec![1, 2], Some(bad)))
            .await
            .unwrap_err();
        assert_eq!(s.code(), Code::InvalidArgument);
        assert_eq!(
            s.message(),
            format!("strength: {shown} is not a number between 0 and 1")
        );
    }
    let s = client
        .suggest_move(suggest_req(vec![1, 0], None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(s.message().contains("pile 2 is 0"), "{s:?}");
    let mut req = suggest_req(vec![1], None);
    req.variant = 9;
    let s = client.suggest_move(req).await.unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(s.message().starts_with("variant:"), "{s:?}");
    still_serves(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_and_generate_errors_then_normal_service() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let s = client
        .check(futures::stream::iter([pb::CheckRequest {
            part: None,
            variant: 42,
        }]))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(s.message().starts_with("variant:"), "{s:?}");
    // An empty stream is an empty input: a judge failure, not an error.
    let r = client
        .check(futures::stream::iter([pb::CheckRequest::default()]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.verdict, pb::Verdict::JudgeFailure as i32);
    assert!(r.message.starts_with("FAIL "), "{r:?}");
    let s = client
        .generate(pb::GenerateRequest::default())
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(s.message().contains("family"), "{s:?}");
    still_serves(&mut client).await;
}

/// Opens a Solve stream holding one huge case and waits until the server
/// works on it. Returns the request sender (keeps the stream open) and the
/// response stream.
async fn hold_huge_case(
    server: &RunningServer,
    n: usize,
) -> (
    mpsc::Sender<pb::SolveRequest>,
    tonic::Streaming<pb::SolveResponse>,
) {
    let mut client = common::client(server).await;
    let (tx, rx) = mpsc::channel(1);
    tx.send(solve_req(vec![case("huge", huge_row(n, 3), TWO)]))
        .await
        .unwrap();
    let responses = client
        .solve(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let metrics = &server.metrics;
    common::eventually("the huge case starts", || metrics.cases_started() >= 1).await;
    (tx, responses)
}

fn counters(m: &Metrics) -> (u64, u64, u64) {
    (m.cases_started(), m.cases_completed(), m.cases_cancelled())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_stream_stops_its_huge_case() {
    let server = common::server(|_| {}).await;
    let (tx, responses) = hold_huge_case(&server, 200_000).await;
    assert_eq!(counters(&server.metrics), (1, 0, 0));
    // The client goes away.
    drop(responses);
    drop(tx);
    let metrics = &server.metrics;
    common::eventually("the huge case is cancelled", || {
        metrics.cases_cancelled() == 1
    })
    .await;
    // It was stopped, not finished, and its cells are released (when the
    // pool's task ends, a moment after the case counts as cancelled).
    assert_eq!(counters(metrics), (1, 0, 1));
    let state = &server.state;
    common::eventually("the budget is released", || state.budget.in_flight() == 0).await;
    let mut client = common::client(&server).await;
    still_serves(&mut client).await;
    // Only still_serves's two small rows (Solve, SuggestMove) ran to the end.
    assert_eq!(metrics.cases_completed(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_passed_deadline_stops_the_work() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let (tx, rx) = mpsc::channel(1);
    tx.send(solve_req(vec![case("huge", huge_row(200_000, 4), TWO)]))
        .await
        .unwrap();
    let mut req = tonic::Request::new(ReceiverStream::new(rx));
    req.set_timeout(Duration::from_millis(300));
    let mut responses = client.solve(req).await.unwrap().into_inner();
    let s = responses.message().await.unwrap_err();
    assert_eq!(s.code(), Code::DeadlineExceeded, "{s:?}");
    let metrics = &server.metrics;
    common::eventually("the huge case is cancelled", || {
        metrics.cases_cancelled() == 1
    })
    .await;
    assert_eq!(metrics.cases_completed(), 0);
    drop(tx);
    still_serves(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_passed_deadline_stops_suggest_move() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let mut req = tonic::Request::new(suggest_req(huge_row(200_000, 8), None));
    req.set_timeout(Duration::from_millis(300));
    let s = client.suggest_move(req).await.unwrap_err();
    assert!(
        matches!(s.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{s:?}"
    );
    let metrics = &server.metrics;
    common::eventually("the huge row is cancelled", || {
        metrics.cases_cancelled() == 1
    })
    .await;
    assert_eq!(metrics.cases_completed(), 0);
    still_serves(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admission_control_refuses_with_a_retry_hint() {
    // Room for the huge case (≈ 2·10^10 cells) but not for one more large one.
    let server =
        common::server(|c| c.limits.max_cells_in_flight = NonZero::new(20_100_000_000).unwrap())
            .await;
    let (tx, responses) = hold_huge_case(&server, 200_000).await;
    let mut client = common::client(&server).await;

    let s = solve_once(&mut client, vec![case("more", huge_row(20_000, 5), TWO)])
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert!(s.message().contains("retry after"), "{s:?}");
    let header: u64 = s
        .metadata()
        .get("retry-after-ms")
        .expect("retry-after-ms")
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    // The standard google.rpc.RetryInfo detail says the same.
    let info = s.get_details_retry_info().expect("a RetryInfo detail");
    assert_eq!(info.retry_delay, Some(Duration::from_millis(header)));
    let s = client
        .suggest_move(suggest_req(huge_row(20_000, 6), None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert_eq!(server.metrics.admissions_refused(), 2);
    // Small requests still fit.
    still_serves(&mut client).await;

    // Once the huge case is gone, the large one is admitted.
    drop(responses);
    drop(tx);
    let state = &server.state;
    common::eventually("the budget is released", || state.budget.in_flight() == 0).await;
    let r = solve_once(&mut client, vec![case("more", huge_row(20_000, 5), TWO)])
        .await
        .unwrap();
    assert!(r.results[0].error.is_none());

    // A request larger than the whole budget is refused without a hint.
    let server =
        common::server(|c| c.limits.max_cells_in_flight = NonZero::new(1_000).unwrap()).await;
    let mut client = common::client(&server).await;
    let s = solve_once(&mut client, vec![case("x", vec![1; 100], TWO)])
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted);
    assert!(s.message().contains("split it"), "{s:?}");
    assert!(s.metadata().get("retry-after-ms").is_none());
    assert!(s.get_details_retry_info().is_none());

    // The piles budget (memory held by admitted requests) works the same way.
    let server = common::server(|c| c.limits.max_piles_in_flight = NonZero::new(50).unwrap()).await;
    let mut client = common::client(&server).await;
    let s = solve_once(
        &mut client,
        vec![case("x", vec![1; 51], pb::Variant::Leftmost)],
    )
    .await
    .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted);
    // Refused as its message arrives: its 51 piles, and the message's own
    // bytes, are more than the whole budget.
    assert!(
        s.message()
            .contains("piles (memory units of 8 bytes), more than the server's whole budget of 50"),
        "{s:?}"
    );
    still_serves(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_rpc_limit_refuses_then_recovers() {
    let server = common::server(|c| c.limits.max_concurrent_rpcs = NonZero::new(1).unwrap()).await;
    let mut client = common::client(&server).await;
    // An open Solve stream holds the only slot.
    let (tx, rx) = mpsc::channel(1);
    let mut responses = client
        .solve(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let s = client
        .suggest_move(suggest_req(vec![1, 2], None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted);
    assert!(s.message().contains("too many concurrent RPCs"), "{s:?}");
    // The open stream itself works.
    tx.send(solve_req(vec![case("a", vec![1, 1], TWO)]))
        .await
        .unwrap();
    let r = responses.message().await.unwrap().unwrap();
    assert!(!r.results[0].first_player_wins);
    drop(tx);
    assert!(responses.message().await.unwrap().is_none());
    assert_eq!(server.metrics.rpcs_refused(), 1);
    common::eventually_async("the slot is free again", || {
        let mut client = client.clone();
        async move {
            client
                .suggest_move(suggest_req(vec![1, 2], None))
                .await
                .is_ok()
        }
    })
    .await;
}
