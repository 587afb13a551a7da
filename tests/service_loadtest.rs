//! The load tester (`client::loadtest`, `stonegame client loadtest`)
//! against an in-process server: closed and open loop send exactly the
//! requests asked for (counted by the server), over the connections asked
//! for; a refused request ends the test with its status; bad parameters are
//! refused before anything is sent. No timing is asserted.

mod common;

use std::num::NonZero;
use std::sync::atomic::Ordering;
use std::time::Duration;

use stonegame::client::{ClientError, LoadReport, LoadRpc, LoadSpec, LoadSpecError, loadtest};
use tonic::Code;

fn completed(server: &stonegame::service::RunningServer) -> u64 {
    server.metrics.cases_completed.load(Ordering::Relaxed)
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
