//! Graceful shutdown: the built binary exits 0 on SIGTERM; in-process,
//! in-flight streams finish during the grace period while new RPCs are
//! refused, and work still running when the grace ends is cancelled.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::Command;

use stonegame::client::Client;
use stonegame::core::Variant;
use stonegame::service::pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use common::case;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_and_exits_0_on_sigterm() {
    let mut child = common::serve_command(
        &["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"],
        &[
            ("STONEGAME_LOG__FORMAT", "json"),
            ("STONEGAME_LOG__FILTER", "stonegame=debug"),
        ],
    )
    .spawn()
    .expect("the binary starts");
    let stderr = child.stderr.take().unwrap();
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut log = Vec::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(addr) = line.strip_prefix("listening on ") {
                let _ = addr_tx.send(addr.trim().to_string());
            }
            log.push(line);
        }
        log
    });
    let addr = tokio::task::spawn_blocking(move || addr_rx.recv())
        .await
        .unwrap()
        .expect("the server prints its address");
    let mut client = Client::connect(&addr).await.unwrap();
    let r = client
        .suggest(vec![3, 1, 9, 4], Variant::TwoEnds, None, 0)
        .await
        .unwrap();
    assert!(!r.mover_wins);

    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    let log = reader.join().unwrap();
    assert!(status.success(), "exit {status}; log:\n{}", log.join("\n"));
    // JSON logs as configured through the environment.
    assert!(
        log.iter()
            .any(|l| l.starts_with('{') && l.contains("SuggestMove")),
        "{log:?}"
    );
    assert!(log.iter().any(|l| l.contains("shutting down")), "{log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_flight_streams_finish_during_the_grace_period() {
    let server = common::server(|c| c.shutdown_grace = std::time::Duration::from_secs(600)).await;
    let mut client = common::client(&server).await;
    let (tx, rx) = mpsc::channel(1);
    let mut responses = client
        .solve(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    tx.send(pb::SolveRequest {
        cases: vec![case("a", vec![1, 1, 2, 2], pb::Variant::TwoEnds)],
        want_remoteness: false,
    })
    .await
    .unwrap();
    assert!(responses.message().await.unwrap().is_some());

    let state = std::sync::Arc::clone(&server.state);
    let shutdown = tokio::spawn(server.shutdown());
    // New RPCs are refused once the shutdown has begun.
    let other = client.clone();
    common::eventually_async("new RPCs are refused", || {
        let mut other = other.clone();
        async move {
            other
                .suggest_move(pb::SuggestMoveRequest {
                    piles: vec![1, 2],
                    ..Default::default()
                })
                .await
                .is_err()
        }
    })
    .await;
    // The open stream still works and the server waits for it.
    tx.send(pb::SolveRequest {
        cases: vec![case("b", vec![5, 3], pb::Variant::TwoEnds)],
        want_remoteness: false,
    })
    .await
    .unwrap();
    let r = responses.message().await.unwrap().unwrap();
    assert_eq!(r.results[0].id, "b");
    assert!(r.results[0].first_player_wins);
    assert!(!shutdown.is_finished());
    drop(tx);
    assert!(responses.message().await.unwrap().is_none());
    shutdown.await.unwrap().unwrap();
    assert!(!state.cancel_all.is_cancelled());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_still_running_when_the_grace_ends_is_cancelled() {
    use rand::{Rng, SeedableRng};
    let server = common::server(|c| c.shutdown_grace = std::time::Duration::from_millis(50)).await;
    let mut client = common::client(&server).await;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let row: Vec<u64> = (0..200_000)
        .map(|_| rng.random_range(1..=1_000_000))
        .collect();
    let (tx, rx) = mpsc::channel(1);
    tx.send(pb::SolveRequest {
        cases: vec![case("huge", row, pb::Variant::TwoEnds)],
        want_remoteness: false,
    })
    .await
    .unwrap();
    let _responses = client.solve(ReceiverStream::new(rx)).await.unwrap();
    let metrics = std::sync::Arc::clone(&server.metrics);
    common::eventually("the huge case starts", || metrics.cases_started() == 1).await;
    let state = std::sync::Arc::clone(&server.state);
    server.shutdown().await.unwrap();
    assert!(state.cancel_all.is_cancelled());
    common::eventually("the huge case is cancelled", || {
        metrics.cases_cancelled() == 1
    })
    .await;
    assert_eq!(metrics.cases_completed(), 0);
    drop(tx);
}
