//! The Prometheus endpoint of a real server on loopback: every counter moves
//! by exactly the traffic sent (scraped over plain HTTP before and after),
//! the gauges come back to 0, 404/405 for other requests, `metrics.listen =
//! ""` turns it off, a port in use is a clear start-up error; and
//! `max_connection_age` closes old connections gracefully while a client
//! keeps working.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::TokioExecutor;
use stonegame::service::metrics::code_name;
use stonegame::service::pb;
use stonegame::service::{RunningServer, start};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;

use common::case;

const TWO: pb::Variant = pb::Variant::Unspecified;
const LEFT: pb::Variant = pb::Variant::Leftmost;

/// One HTTP/1.1 request to `addr`: (status, headers, body).
fn http(addr: SocketAddr, method: &str, path: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).expect("the metrics listener accepts");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("a full response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    (status, head.to_string(), body.to_string())
}

/// The samples of a scrape, by series (`name{labels}`).
async fn scrape(server: &RunningServer) -> BTreeMap<String, f64> {
    let addr = server.metrics_addr.expect("metrics are on");
    let (status, head, body) = tokio::task::spawn_blocking(move || http(addr, "GET", "/metrics"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{head}\n{body}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/openmetrics-text; version=1.0.0"),
        "{head}"
    );
    assert!(body.ends_with("# EOF\n"), "{body}");
    parse(&body)
}

fn parse(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').expect("`series value`");
            (series.to_string(), value.parse().expect("a number"))
        })
        .collect()
}

/// What moved between two scrapes, among the counters (`_total`) and the
/// histograms' counts (`_count`).
fn moved(before: &BTreeMap<String, f64>, after: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    after
        .iter()
        .filter(|(k, _)| {
            let name = k.split('{').next().unwrap();
            name.ends_with("_total") || name.ends_with("_count")
        })
        .map(|(k, v)| (k.clone(), v - before.get(k).copied().unwrap_or(0.0)))
        .filter(|(_, d)| *d != 0.0)
        .collect()
}

fn expect(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn suggest(piles: Vec<u64>, variant: pb::Variant, strength: Option<f64>) -> pb::SuggestMoveRequest {
    pb::SuggestMoveRequest {
        piles,
        variant: variant as i32,
        strength,
        seed: 0,
        want_remoteness: false,
    }
}

fn cells(n: u64, two_ends: bool) -> u64 {
    if two_ends {
        (n * (n - 1) / 2).max(1)
    } else {
        n
    }
}

async fn no_rpc_running(server: &RunningServer) {
    let state = &server.state;
    common::eventually("every RPC's slot is free", || state.rpcs.in_flight() == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_counter_moves_by_exactly_the_traffic() {
    let server = common::server(|c| {
        c.limits.max_cells_in_flight = 1000.try_into().unwrap();
        c.limits.max_concurrent_rpcs = 1.try_into().unwrap();
    })
    .await;
    let before = scrape(&server).await;
    assert_eq!(
        before.get("stonegame_build_info{version=\"0.1.0\"}"),
        Some(&1.0),
        "{before:?}"
    );
    for gauge in ["cells", "piles", "rpcs"] {
        assert_eq!(before[&format!("stonegame_{gauge}_in_flight")], 0.0);
    }
    assert_eq!(before["stonegame_cells_in_flight_max"], 1000.0);
    assert_eq!(before["stonegame_rpcs_in_flight_max"], 1.0);
    let mut client = common::client(&server).await;

    // One Solve stream of 3 batches: 5 valid cases (3 two-ends, 2
    // leftmost) and 1 invalid one (a pile of 0).
    let batches = vec![
        vec![
            case("a", vec![3, 1, 9, 4], TWO),
            case("b", vec![5, 5], LEFT),
        ],
        vec![case("c", vec![1, 2, 3, 4, 5], TWO), case("d", vec![7], TWO)],
        vec![case("e", vec![2, 2, 2], LEFT), case("bad", vec![1, 0], TWO)],
    ];
    let solve_cells =
        cells(4, true) + cells(2, false) + cells(5, true) + cells(1, true) + cells(3, false);
    let (tx, rx) = mpsc::channel(4);
    let mut responses = client
        .solve(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    // The stream holds the only RPC slot: another RPC is refused.
    let s = client
        .suggest_move(suggest(vec![3, 1, 9, 4], TWO, None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert!(s.message().contains("too many concurrent RPCs"), "{s:?}");
    for batch in batches {
        tx.send(pb::SolveRequest {
            cases: batch,
            want_remoteness: false,
        })
        .await
        .unwrap();
        let r = responses.message().await.unwrap().expect("a response");
        assert_eq!(r.results.len(), 2);
    }
    drop(tx);
    assert!(responses.message().await.unwrap().is_none());
    no_rpc_running(&server).await;

    // Two SuggestMoves, one INVALID_ARGUMENT (strength 2).
    client
        .suggest_move(suggest(vec![3, 1, 9, 4], TWO, None))
        .await
        .unwrap();
    client
        .suggest_move(suggest(vec![4, 4, 4, 4], LEFT, None))
        .await
        .unwrap();
    let suggest_cells = cells(4, true) + cells(4, false);
    let s = client
        .suggest_move(suggest(vec![3, 1, 9, 4], TWO, Some(2.0)))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");

    // Admission: a row larger than the whole budget (50 piles: 1225 cells);
    // then busy budgets, held by the test itself.
    let s = client
        .suggest_move(suggest((1..=50).collect(), TWO, None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    let held = server.state.budget.try_reserve(995).unwrap();
    assert_eq!(scrape(&server).await["stonegame_cells_in_flight"], 995.0);
    let s = client
        .suggest_move(suggest(vec![3, 1, 9, 4], TWO, None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    drop(held);
    let max_piles = server.state.piles_budget.max();
    let held = server.state.piles_budget.try_reserve(max_piles).unwrap();
    let s = client
        .suggest_move(suggest(vec![3, 1, 9, 4], TWO, None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    drop(held);

    // A Check whose deadline passes while it waits for its input: tonic
    // drops the handler, which counts as DEADLINE_EXCEEDED, or CANCELLED
    // when the client's own timer (tonic's `Channel` enforces the same
    // deadline) reset the stream first.
    let (tx, rx) = mpsc::channel(1);
    tx.send(pb::CheckRequest {
        variant: TWO as i32,
        part: Some(pb::check_request::Part::InputChunk(b"1\n".to_vec())),
    })
    .await
    .unwrap();
    let mut request = tonic::Request::new(ReceiverStream::new(rx));
    request.set_timeout(Duration::from_millis(200));
    let s = client.check(request).await.unwrap_err();
    assert!(
        matches!(s.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{s:?}"
    );
    let check_ended = |m: &BTreeMap<String, f64>| {
        ["DEADLINE_EXCEEDED", "CANCELLED"]
            .iter()
            .find(|code| {
                m.get(&format!(
                    "stonegame_rpc_requests_total{{rpc=\"Check\",code=\"{code}\",protocol=\"grpc\"}}"
                )) == Some(&1.0)
            })
            .map(|code| code.to_string())
    };
    common::eventually_async("the Check past its deadline is counted", || async {
        check_ended(&scrape(&server).await).is_some()
    })
    .await;
    drop(tx);
    no_rpc_running(&server).await;

    // Draining: new RPCs are refused.
    server.state.rpcs.shut_down();
    let s = client
        .suggest_move(suggest(vec![3, 1, 9, 4], TWO, None))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::Unavailable, "{s:?}");

    let after = scrape(&server).await;
    let check_code = check_ended(&after).unwrap();
    let check_series = format!(
        "stonegame_rpc_requests_total{{rpc=\"Check\",code=\"{check_code}\",protocol=\"grpc\"}}"
    );
    let mut want = expect(&[
        (
            "stonegame_rpc_requests_total{rpc=\"Solve\",code=\"OK\",protocol=\"grpc\"}",
            1.0,
        ),
        (
            "stonegame_rpc_requests_total{rpc=\"SuggestMove\",code=\"OK\",protocol=\"grpc\"}",
            2.0,
        ),
        (
            "stonegame_rpc_requests_total{rpc=\"SuggestMove\",code=\"INVALID_ARGUMENT\",protocol=\"grpc\"}",
            1.0,
        ),
        (
            "stonegame_rpc_requests_total{rpc=\"SuggestMove\",code=\"RESOURCE_EXHAUSTED\",protocol=\"grpc\"}",
            4.0,
        ),
        (
            "stonegame_rpc_requests_total{rpc=\"SuggestMove\",code=\"UNAVAILABLE\",protocol=\"grpc\"}",
            1.0,
        ),
        ("stonegame_rpc_duration_seconds_count{rpc=\"Solve\"}", 1.0),
        ("stonegame_rpc_duration_seconds_count{rpc=\"Check\"}", 1.0),
        (
            "stonegame_rpc_duration_seconds_count{rpc=\"SuggestMove\"}",
            8.0,
        ),
        ("stonegame_cases_total{variant=\"two_ends\"}", 4.0),
        ("stonegame_cases_total{variant=\"leftmost\"}", 3.0),
        ("stonegame_cases_started_total", 7.0),
        ("stonegame_case_errors_total", 1.0),
        (
            "stonegame_cells_total",
            (solve_cells + suggest_cells) as f64,
        ),
        (
            "stonegame_admission_rejected_total{reason=\"too_many_rpcs\"}",
            1.0,
        ),
        (
            "stonegame_admission_rejected_total{reason=\"too_large_cells\"}",
            1.0,
        ),
        (
            "stonegame_admission_rejected_total{reason=\"busy_cells\"}",
            1.0,
        ),
        (
            "stonegame_admission_rejected_total{reason=\"busy_piles\"}",
            1.0,
        ),
        (
            "stonegame_admission_rejected_total{reason=\"shutting_down\"}",
            1.0,
        ),
        ("stonegame_connections_accepted_total", 1.0),
    ]);
    want.insert(check_series, 1.0);
    assert_eq!(moved(&before, &after), want);
    assert_eq!(solve_cells + suggest_cells, 22 + 10);
    // The histogram's sum is the time spent, its +Inf bucket its count.
    assert!(after["stonegame_rpc_duration_seconds_sum{rpc=\"Solve\"}"] > 0.0);
    assert_eq!(
        after["stonegame_rpc_duration_seconds_bucket{le=\"+Inf\",rpc=\"SuggestMove\"}"],
        8.0
    );
    for gauge in ["cells", "piles", "rpcs", "solve_batches"] {
        assert_eq!(
            after[&format!("stonegame_{gauge}_in_flight")],
            0.0,
            "{gauge}"
        );
    }
    assert_eq!(after["stonegame_connections_open"], 1.0);
    // The plain counters the other tests read agree.
    let m = &server.metrics;
    assert_eq!(m.admissions_refused(), 3);
    assert_eq!(m.rpcs_refused(), 1);
    assert_eq!(m.cases_completed(), 7);
    assert_eq!(m.connections_accepted(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_paths_are_404_and_other_methods_405() {
    let server = common::server(|_| {}).await;
    let addr = server.metrics_addr.unwrap();
    let (status, _, body) = tokio::task::spawn_blocking(move || http(addr, "GET", "/"))
        .await
        .unwrap();
    assert_eq!(status, 404);
    assert!(body.contains("/metrics"), "{body}");
    let (status, _, _) = tokio::task::spawn_blocking(move || http(addr, "GET", "/metricsx"))
        .await
        .unwrap();
    assert_eq!(status, 404);
    let (status, head, _) = tokio::task::spawn_blocking(move || http(addr, "POST", "/metrics"))
        .await
        .unwrap();
    assert_eq!(status, 405);
    assert!(
        head.to_ascii_lowercase().contains("allow: get, head"),
        "{head}"
    );
    // The listener stops with the server.
    server.shutdown().await.unwrap();
    common::eventually("the metrics port is closed", || {
        TcpStream::connect(addr).is_err()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_listen_address_turns_metrics_off() {
    let server = common::server(|c| c.metrics.listen = None).await;
    assert_eq!(server.metrics_addr, None);
    let mut client = common::client(&server).await;
    client
        .suggest_move(suggest(vec![3, 1, 9, 4], TWO, None))
        .await
        .unwrap();
}

/// Issue #22: GetTables calls were under-counted (95 of 100 with 1 ms
/// deadlines). 100 calls, each ended another way — by its deadline, by its
/// client before the response, by its client while the response streams —
/// and each counted once: the counters add up to the calls, by code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_get_tables_call_is_counted_once_however_it_ends() {
    let server = common::server(|_| {}).await;
    let client = common::client(&server).await;
    let before = scrape(&server).await;
    let row = |n: u64| -> Vec<u64> { (0..n).map(|i| i * 7919 % 1000 + 1).collect() };
    // How each call ended, as the server must count it. A refusal (a
    // budget busy with abandoned work) is counted with its code like any
    // answer.
    let mut ended: BTreeMap<String, f64> = BTreeMap::new();
    let mut end = |code: Code| *ended.entry(code_name(code).to_string()).or_default() += 1.0;
    // 60 calls with a 1 ms deadline, 6 at a time. Each ends with
    // DEADLINE_EXCEEDED from the handler, or with tonic's own deadline
    // status, CANCELLED "Timeout expired": both are counted
    // DEADLINE_EXCEEDED (docs/metrics.md). The deadline is the server's
    // alone: a tonic Channel enforces `grpc-timeout` on the client side
    // too, and on a loaded machine it cancels some calls before their
    // HEADERS leave, calls the server never sees and cannot count.
    let deadline_client = {
        let http = HttpClient::builder(TokioExecutor::new())
            .http2_only(true)
            .build_http();
        let origin = format!("http://{}", server.addr).parse().unwrap();
        pb::stone_game_client::StoneGameClient::with_origin(http, origin)
    };
    for _ in 0..10 {
        let calls: Vec<_> = (0..6)
            .map(|_| {
                let mut c = deadline_client.clone();
                let mut request = tonic::Request::new(pb::GetTablesRequest {
                    piles: row(1_500),
                    chunk_rows: 0,
                });
                request.set_timeout(Duration::from_millis(1));
                tokio::spawn(async move {
                    let mut stream = c.get_tables(request).await?.into_inner();
                    while stream.message().await?.is_some() {}
                    Ok::<_, tonic::Status>(())
                })
            })
            .collect();
        for call in calls {
            end(match call.await.unwrap() {
                Ok(()) => Code::Ok,
                Err(s) if s.code() == Code::Cancelled && s.message() == "Timeout expired" => {
                    Code::DeadlineExceeded
                }
                Err(s) => s.code(),
            });
        }
    }
    // 40 calls on a row whose tables (6 MB) outgrow the HTTP/2 windows, so
    // none can end on its own before its client leaves: 20 abandoned while
    // the server builds the tables, 20 after the first chunk came.
    let in_flight = || server.state.rpcs.in_flight();
    // No call in flight and its work given back: an abandoned build may
    // still hold the budgets until the pool sees its cancellation, and the
    // next call would find them busy (RESOURCE_EXHAUSTED on a loaded machine).
    let state = &server.state;
    let idle =
        || in_flight() == 0 && state.budget.in_flight() == 0 && state.piles_budget.in_flight() == 0;
    // A deadline call's handler is dropped just after its answer leaves:
    // none may be taken for the next call's (which would then be abandoned
    // before the server has it, and a stream reset before the server
    // accepts it never reaches the service).
    common::eventually("the deadline calls are gone", idle).await;
    for abandon_early in [true, false] {
        for _ in 0..20 {
            let mut c = client.clone();
            let request = pb::GetTablesRequest {
                piles: row(5_000),
                chunk_rows: 16,
            };
            let call = tokio::spawn(async move {
                let mut stream = c.get_tables(request).await?.into_inner();
                stream.message().await?;
                Ok::<_, tonic::Status>(stream)
            });
            if abandon_early {
                // Its handler is running, or (tables built fast) its first
                // chunk came: either way the server has it.
                common::eventually("the call reaches its handler", || {
                    in_flight() > 0 || call.is_finished()
                })
                .await;
                call.abort();
            }
            // Dropping the stream (or the aborted call) resets it.
            end(match call.await {
                Ok(Err(s)) => s.code(),
                Ok(Ok(_)) | Err(_) => Code::Cancelled,
            });
            common::eventually("the abandoned call is gone", idle).await;
        }
    }
    println!("GetTables calls ended: {ended:?}");
    assert!(ended.get("DEADLINE_EXCEEDED") >= Some(&30.0), "{ended:?}");
    assert!(ended.get("CANCELLED") >= Some(&20.0), "{ended:?}");
    let expected: BTreeMap<String, f64> = ended
        .iter()
        .map(|(code, n)| {
            (
                format!("stonegame_rpc_requests_total{{rpc=\"GetTables\",code=\"{code}\",protocol=\"grpc\"}}"),
                *n,
            )
        })
        .collect();
    // A stream whose client neither reads it nor resets it has not ended
    // (an abandoned call whose reset the client's transport never sent,
    // the server stalled on the HTTP/2 window): closing the connection
    // ends it. The count must then be exact.
    drop(client);
    let mut counted = BTreeMap::new();
    // Up to two minutes: on a loaded machine (CI beside other builds) the
    // last abandoned tables may take seconds to see their cancellation.
    for _ in 0..6_000 {
        counted = moved(&before, &scrape(&server).await)
            .into_iter()
            .filter(|(k, _)| k.starts_with("stonegame_rpc_requests_total{rpc=\"GetTables\""))
            .collect();
        if counted == expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(counted, expected);
    assert_eq!(counted.values().sum::<f64>(), 100.0);
    let after = scrape(&server).await;
    assert_eq!(
        after["stonegame_rpc_duration_seconds_count{rpc=\"GetTables\"}"]
            - before
                .get("stonegame_rpc_duration_seconds_count{rpc=\"GetTables\"}")
                .copied()
                .unwrap_or(0.0),
        100.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metrics_port_in_use_is_a_start_up_error_naming_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let e = start(&common::config(|c| c.metrics.listen = Some(addr.clone())))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!("cannot listen for metrics on {addr}: ")),
        "{e}"
    );
    assert!(e.contains("in use"), "{e}");
    let e = start(&common::config(|c| {
        c.metrics.listen = Some("nowhere".into())
    }))
    .await
    .unwrap_err()
    .to_string();
    assert!(e.contains("metrics listen address `nowhere`"), "{e}");

    // The binary: the message, a failure exit, no `listening on`.
    let out = Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            &addr,
        ])
        .env_remove("STONEGAME_METRICS__LISTEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen for metrics on {addr}: ")),
        "{stderr}"
    );
    assert!(!stderr.contains("listening on"), "{stderr}");
}

/// Runs `stonegame serve` with `args` and `env`, reads its stderr up to the
/// `listening on` line (and the `metrics on` line after it when
/// `metrics`), calls `during` with the metrics address, then stops it with
/// SIGTERM; returns all its stderr lines.
fn run_serve(
    args: &[&str],
    env: &[(&str, &str)],
    metrics: bool,
    during: impl FnOnce(Option<SocketAddr>),
) -> Vec<String> {
    let mut child = common::serve_command(args, env).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    let mut metrics_addr = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        let listening = line.starts_with("listening on ");
        if let Some(addr) = line.strip_prefix("metrics on ") {
            metrics_addr = Some(addr.parse().expect("metrics on ADDR"));
        }
        seen.push(line);
        if (listening && !metrics) || metrics_addr.is_some() {
            break;
        }
    }
    during(metrics_addr);
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    seen.extend(lines.map(Result::unwrap));
    assert!(child.wait().unwrap().success(), "{seen:?}");
    seen
}

#[test]
fn the_binary_prints_and_serves_its_metrics_address() {
    for (args, env) in [
        (
            &["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"][..],
            &[][..],
        ),
        (
            &["--listen", "127.0.0.1:0"][..],
            &[("STONEGAME_METRICS__LISTEN", "127.0.0.1:0")][..],
        ),
    ] {
        let lines = run_serve(args, env, true, |addr| {
            let addr = addr.expect("`metrics on ADDR`");
            assert_ne!(addr.port(), 9090);
            let (status, _, body) = http(addr, "GET", "/metrics");
            assert_eq!(status, 200);
            assert!(body.contains("stonegame_build_info{version="), "{body}");
        });
        // `metrics on` follows `listening on`, which keeps its exact form.
        let listening = lines
            .iter()
            .position(|l| l.starts_with("listening on 127.0.0.1:"));
        let metrics = lines
            .iter()
            .position(|l| l.starts_with("metrics on 127.0.0.1:"));
        assert!(listening.is_some() && listening < metrics, "{lines:?}");
    }
    // Off through the environment: no line.
    let lines = run_serve(
        &["--listen", "127.0.0.1:0"],
        &[("STONEGAME_METRICS__LISTEN", "")],
        false,
        |_| {},
    );
    assert!(!lines.iter().any(|l| l.contains("metrics on")), "{lines:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_connections_are_closed_gracefully_and_the_client_reconnects() {
    let age = Duration::from_millis(300);
    let server = common::server(|c| c.max_connection_age = age).await;
    let mut client = common::client(&server).await;
    // A Solve stream opened on the first connection outlives its age:
    // GOAWAY lets it finish (a hard close would fail it).
    let (tx, rx) = mpsc::channel(1);
    let mut stream = client
        .solve(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let started = Instant::now();
    let (mut answered, mut resent, mut batches) = (0, 0, 0);
    while started.elapsed() < age * 5 {
        // Every call succeeds, over whichever connection is current; one
        // that raced a GOAWAY (CANCELLED before it was written, or refused
        // unprocessed above the GOAWAY's last stream) is resent once.
        let request = || suggest(vec![3, 1, 9, 4], TWO, None);
        let r = match client.suggest_move(request()).await {
            Err(s) if stonegame::client::never_reached_server(&s) => {
                resent += 1;
                client.suggest_move(request()).await
            }
            r => r,
        };
        let r = r.unwrap_or_else(|s| panic!("after {:?}: {s:?}", started.elapsed()));
        assert!(!r.into_inner().mover_wins);
        answered += 1;
        if batches < 10 && started.elapsed() >= age / 5 * batches {
            tx.send(pb::SolveRequest {
                cases: vec![case("x", vec![3, 1, 9, 4], TWO)],
                want_remoteness: false,
            })
            .await
            .unwrap();
            let r = stream.message().await.unwrap().expect("a batch's answer");
            assert!(!r.results[0].first_player_wins);
            batches += 1;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    drop(tx);
    assert!(stream.message().await.unwrap().is_none());
    assert_eq!(batches, 10);
    let accepted = server.metrics.connections_accepted();
    // A new connection after each age (at least one), and at most one
    // resend for each new one.
    assert!(accepted >= 2, "{accepted} connections for {answered} calls");
    assert!(resent < accepted, "{resent} resent, {accepted} connections");
    let scraped = scrape(&server).await;
    assert_eq!(
        scraped["stonegame_connections_accepted_total"],
        accepted as f64
    );
    // The server counted no failed RPC: the resent ones never reached it.
    let m = moved(&BTreeMap::new(), &scraped);
    assert_eq!(
        m.keys()
            .filter(|k| k.starts_with("stonegame_rpc_requests_total"))
            .collect::<Vec<_>>(),
        [
            "stonegame_rpc_requests_total{rpc=\"Solve\",code=\"OK\",protocol=\"grpc\"}",
            "stonegame_rpc_requests_total{rpc=\"SuggestMove\",code=\"OK\",protocol=\"grpc\"}",
        ],
        "{m:?}"
    );
    assert_eq!(
        m["stonegame_rpc_requests_total{rpc=\"SuggestMove\",code=\"OK\",protocol=\"grpc\"}"],
        answered as f64
    );

    // Without the setting, the one connection stays.
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let started = Instant::now();
    while started.elapsed() < age * 2 {
        client
            .suggest_move(suggest(vec![3, 1, 9, 4], TWO, None))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(server.metrics.connections_accepted(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grace_cuts_the_streams_that_outlive_it() {
    let server = common::server(|c| {
        c.max_connection_age = Duration::from_millis(200);
        c.max_connection_age_grace = Duration::from_millis(200);
    })
    .await;
    // Before the connection is made: its age counts from later.
    let started = Instant::now();
    let mut client = common::client(&server).await;
    let (tx, rx) = mpsc::channel(1);
    let mut stream = client
        .solve(ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let failed = loop {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the stream was never cut"
        );
        let batch = pb::SolveRequest {
            cases: vec![case("x", vec![3, 1, 9, 4], TWO)],
            want_remoteness: false,
        };
        if tx.send(batch).await.is_err() {
            break started.elapsed();
        }
        match stream.message().await {
            Ok(Some(_)) => tokio::time::sleep(Duration::from_millis(20)).await,
            Ok(None) => panic!("the stream ended by itself"),
            Err(_) => break started.elapsed(),
        }
    };
    // Cut after the age and the grace, not before.
    assert!(failed >= Duration::from_millis(400), "{failed:?}");
    // The client goes on over a new connection.
    let request = || suggest(vec![3, 1, 9, 4], TWO, None);
    match client.suggest_move(request()).await {
        Err(s) if stonegame::client::never_reached_server(&s) => {
            client.suggest_move(request()).await
        }
        r => r,
    }
    .unwrap();
}

/// Two servers started at once with `--listen 127.0.0.1:0` and no metrics
/// setting both come up: the default metrics port follows the gRPC port
/// to a free one, and each prints and serves its own.
#[test]
fn two_servers_on_port_zero_take_two_metrics_ports() {
    use std::io::BufRead;
    let start = || {
        let mut child = crate::common::serve_command(&["--listen", "127.0.0.1:0"], &[])
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = Vec::new();
        let mut listening = None;
        let metrics = loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("serve stopped: {seen:?}"))
                .unwrap();
            if let Some(a) = line.strip_prefix("listening on ") {
                listening = Some(a.to_string());
            }
            if let Some(a) = line.strip_prefix("metrics on ") {
                break a.parse::<std::net::SocketAddr>().unwrap();
            }
            seen.push(line);
        };
        assert!(listening.is_some(), "{seen:?}");
        std::thread::spawn(move || lines.for_each(drop));
        (child, metrics)
    };
    let (mut a, metrics_a) = start();
    let (mut b, metrics_b) = start();
    assert_ne!(metrics_a, metrics_b);
    for addr in [metrics_a, metrics_b] {
        assert_eq!(addr.ip().to_string(), "127.0.0.1");
        assert_ne!(addr.port(), 9090);
        let (status, _, body) = http(addr, "GET", "/metrics");
        assert_eq!(status, 200);
        assert!(body.contains("stonegame_build_info{version="), "{body}");
    }
    for child in [&mut a, &mut b] {
        let _ = child.kill();
        let _ = child.wait();
    }
}
