//! The load tester (`client::loadtest`, `stonegame client loadtest`)
//! against an in-process server: closed and open loop send exactly the
//! requests asked for (counted by the server), over the connections asked
//! for; a refused request ends the test with its status; bad parameters are
//! refused before anything is sent; the Play modes (bot replies in
//! concurrent games, self-played games) time exactly what was asked for.
//! No timing is asserted.

use crate::common;

use std::num::NonZero;
use std::time::Duration;

use stonegame::client::{
    ClientError, LoadReport, LoadRpc, LoadSpec, LoadSpecError, loadtest, selfplay,
};
use tonic::Code;

fn completed(server: &stonegame::service::RunningServer) -> u64 {
    server.metrics.cases_completed()
}

fn well_formed(r: &LoadReport, requests: u64) {
    assert_eq!(r.requests, requests);
    assert!(r.p50 <= r.p90 && r.p90 <= r.p99 && r.p99 <= r.p999 && r.p999 <= r.max);
    assert!(r.elapsed > Duration::ZERO && r.qps() > 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_loop_sends_exactly_the_requests() {
    let server = common::server(|_| {}).await;
    let url = server.addr.to_string();
    let mut expected = 0;
    // Fewer requests than clients, uneven shares, shared connections.
    for (concurrency, connections, requests) in [(5, 2, 23), (8, 0, 3), (3, 1, 30), (1, 7, 4)] {
        let spec = LoadSpec {
            connections,
            ..LoadSpec::closed(LoadRpc::Suggest, concurrency, requests, 50)
        };
        let r = loadtest(&url, &spec).await.unwrap();
        well_formed(&r, requests);
        assert_eq!(r.max_send_lag, None);
        expected += requests;
        assert_eq!(completed(&server), expected, "{spec:?}");
    }
    let r = loadtest(&url, &LoadSpec::closed(LoadRpc::Health, 4, 17, 0))
        .await
        .unwrap();
    well_formed(&r, 17);
    assert_eq!(completed(&server), expected, "health solves nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_and_json_send_exactly_the_requests() {
    use stonegame::client::web::WebProtocol;
    let server = common::server(|_| {}).await;
    let url = format!("http://{}", server.addr);
    let mut expected = 0;
    for protocol in [WebProtocol::GrpcWeb, WebProtocol::Json] {
        for rate in [None, Some(2_000.0)] {
            let spec = LoadSpec {
                protocol,
                rate,
                ..LoadSpec::closed(LoadRpc::Suggest, 6, 40, 30)
            };
            let r = loadtest(&url, &spec).await.unwrap();
            well_formed(&r, 40);
            expected += 40;
            assert_eq!(completed(&server), expected, "{spec:?}");
        }
        // Measured on SuggestMove only; one http:// URL.
        let health = LoadSpec {
            protocol,
            ..LoadSpec::closed(LoadRpc::Health, 1, 1, 0)
        };
        let e = loadtest(&url, &health).await.unwrap_err();
        assert!(e.to_string().contains("SuggestMove only"), "{e}");
        let spec = LoadSpec {
            protocol,
            ..LoadSpec::closed(LoadRpc::Suggest, 1, 1, 3)
        };
        let e = loadtest(&format!("https://{}", server.addr), &spec)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("http://HOST:PORT"), "{e}");
    }
    let text = server.state.encode_metrics();
    for protocol in ["grpc_web", "connect"] {
        let line = format!(
            "stonegame_rpc_requests_total{{rpc=\"SuggestMove\",code=\"OK\",protocol=\"{protocol}\"}} 80"
        );
        assert!(text.contains(&line), "{line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_loop_sends_exactly_the_requests_on_schedule() {
    let server = common::server(|_| {}).await;
    let url = server.addr.to_string();
    let spec = LoadSpec {
        connections: 2,
        rate: Some(2_000.0),
        ..LoadSpec::closed(LoadRpc::Suggest, 4, 60, 100)
    };
    let r = loadtest(&url, &spec).await.unwrap();
    well_formed(&r, 60);
    assert!(r.max_send_lag.is_some());
    assert_eq!(completed(&server), 60);
    // At most one outstanding: every request still answered.
    let spec = LoadSpec {
        rate: Some(5_000.0),
        ..LoadSpec::closed(LoadRpc::Health, 1, 25, 0)
    };
    well_formed(&loadtest(&url, &spec).await.unwrap(), 25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_ends_the_test_with_its_status() {
    let server = common::server(|c| c.limits.max_piles = NonZero::new(10).unwrap()).await;
    let url = server.addr.to_string();
    for rate in [None, Some(1_000.0)] {
        let spec = LoadSpec {
            rate,
            ..LoadSpec::closed(LoadRpc::Suggest, 4, 40, 11)
        };
        match loadtest(&url, &spec).await {
            Err(ClientError::Status(s)) => {
                assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
                assert!(s.message().starts_with("piles:"), "{}", s.message());
            }
            other => panic!("{rate:?}: {other:?}"),
        }
    }
    // The server serves on.
    let ok = LoadSpec::closed(LoadRpc::Suggest, 2, 6, 10);
    well_formed(&loadtest(&url, &ok).await.unwrap(), 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_parameters_are_refused_before_connecting() {
    // Nothing listens here (a loopback port just freed): the parameters
    // are checked first.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", free.local_addr().unwrap());
    drop(free);
    let url = url.as_str();
    let mut spec = LoadSpec::closed(LoadRpc::Health, 4, 0, 0);
    assert!(matches!(
        loadtest(url, &spec).await,
        Err(ClientError::LoadSpec(LoadSpecError::NoRequests))
    ));
    spec.requests = 5;
    spec.rate = Some(-3.0);
    assert!(matches!(
        loadtest(url, &spec).await,
        Err(ClientError::LoadSpec(LoadSpecError::Rate(_)))
    ));
    spec.rate = Some(10.0);
    assert!(matches!(
        loadtest(url, &spec).await,
        Err(ClientError::Connect { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_reports_one_line_and_refuses_bad_rates() {
    let server = common::server(|_| {}).await;
    let url = format!("http://{}", server.addr);
    let run = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            common::run_cli(&args, "")
        })
    };
    let base = |extra: &[&str]| {
        let mut v: Vec<String> = ["client", "loadtest", "--server", url.as_str()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let (code, out, err) = run(base(&[
        "--rpc",
        "suggest",
        "--rate",
        "1000",
        "--requests",
        "30",
        "--concurrency",
        "4",
        "--connections",
        "2",
        "--piles",
        "20",
    ]))
    .await
    .unwrap();
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    for part in [
        "Suggest: 30 requests",
        "open loop at 1000/s (at most 4 outstanding",
        "2 connections",
        "p99 ",
        "p99.9 ",
    ] {
        assert!(out.contains(part), "{part:?} in {out}");
    }
    let (code, out, _) = run(base(&[
        "--rpc",
        "health",
        "--requests",
        "9",
        "--concurrency",
        "3",
    ]))
    .await
    .unwrap();
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with("Health: 9 requests, 3 concurrent, 3 connections"),
        "{out}"
    );
    for bad in ["0", "-5", "NaN"] {
        let (code, out, err) = run(base(&["--rate", bad, "--requests", "5"]))
            .await
            .unwrap();
        assert_eq!(code, Some(1), "{bad}: {out}");
        assert!(err.contains("rate:"), "{bad}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_times_exactly_the_bot_replies_asked_for() {
    let server = common::server(|_| {}).await;
    let url = server.addr.to_string();
    // Many short games (rows of 2 or 3 small piles), longer ones, more
    // clients than connections, one client.
    for (concurrency, connections, requests, piles, max_pile) in
        [(6, 2, 200, 3, 5), (3, 0, 50, 30, 1000), (1, 1, 9, 2, 1)]
    {
        let spec = LoadSpec {
            connections,
            max_pile,
            strength: Some(0.5),
            ..LoadSpec::closed(LoadRpc::Play, concurrency, requests, piles)
        };
        let r = loadtest(&url, &spec).await.unwrap();
        well_formed(&r, requests);
        assert!(
            r.games >= 1 && r.games <= requests + concurrency as u64,
            "{r:?}"
        );
        if max_pile == 1 {
            // Rows `1 1`: the client takes one pile, the bot the other.
            assert_eq!(r.games, requests, "{r:?}");
        }
    }
    // Games answer move by move: no open loop; a row needs two piles for
    // every game to have a reply.
    let mut spec = LoadSpec::closed(LoadRpc::Play, 2, 10, 1);
    assert!(matches!(
        loadtest(&url, &spec).await,
        Err(ClientError::LoadSpec(LoadSpecError::PlayPiles))
    ));
    spec.piles = 5;
    spec.rate = Some(100.0);
    assert!(matches!(
        loadtest(&url, &spec).await,
        Err(ClientError::LoadSpec(LoadSpecError::PlayOpenLoop))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selfplay_counts_games_and_plies() {
    let server = common::server(|_| {}).await;
    let url = server.addr.to_string();
    for concurrency in [1, 3] {
        let spec = LoadSpec {
            max_pile: 3,
            ..LoadSpec::closed(LoadRpc::Play, concurrency, 5, 40)
        };
        let r = selfplay(&url, &spec).await.unwrap();
        assert_eq!(r.games, 5);
        // Every pile is taken, at most one stone a move.
        assert!(r.plies >= 5 * 40 && r.plies <= 5 * 40 * 3, "{r:?}");
        assert!(r.start_p50 <= r.start_max && r.per_ply() > Duration::ZERO);
    }
}

/// `stonegame client loadtest --server URL ARGS` on a blocking thread
/// (`args` separated by spaces).
async fn loadtest_cli(url: &str, args: &str) -> (Option<i32>, String, String) {
    let mut all: Vec<String> = ["client", "loadtest", "--server", url]
        .iter()
        .map(|s| s.to_string())
        .collect();
    all.extend(args.split(' ').map(|s| s.to_string()));
    tokio::task::spawn_blocking(move || {
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        common::run_cli(&all, "")
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_reports_play_beside_the_floor() {
    let server = common::server(|_| {}).await;
    let url = format!("http://{}", server.addr);
    let (code, out, err) = loadtest_cli(
        &url,
        "--rpc play --requests 60 --concurrency 4 --piles 6 --max-pile 9",
    )
    .await;
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("Health: 60 requests, 4 concurrent"),
        "{out}"
    );
    assert!(lines[1].starts_with("Play: 60 bot replies in "), "{out}");
    assert!(
        lines[1].contains("games of 6 piles (1..=9 stones), 4 concurrent"),
        "{out}"
    );
    assert!(lines[2].starts_with("Play / Health: "), "{out}");
    let (code, out, err) =
        loadtest_cli(&url, "--rpc play-self --requests 2 --piles 20 --max-pile 2").await;
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(
            "PlaySelf: 2 games of 20 piles (1..=2 stones), bot against bot, 1 at a time"
        ),
        "{out}"
    );
    assert!(out.contains(" ns per move"), "{out}");
}
