//! Browsers and plain HTTP on the gRPC port (docs/web.md), against a real
//! server on loopback: gRPC-Web over HTTP/1.1 with tonic-web's client
//! (unary, server streams, PlayStep) and as raw `grpc-web-text`, each
//! answer equal to native gRPC's; the streams gRPC-Web cannot carry
//! refused by name; Connect JSON (64-bit integers as strings, errors with
//! their HTTP status and where the JSON is wrong); bearer tokens and the
//! `protocol` label for every protocol; CORS off by default and on for the
//! listed origins only; the page with its Content-Security-Policy, and off
//! with `web.page = false`.

use crate::common;

use std::path::Path;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::http;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use prost::Message;
use stonegame::service::RunningServer;
use stonegame::service::pb;
use stonegame::service::pb::stone_game_client::StoneGameClient;
use tonic::Code;
use tonic_web::{GrpcWebCall, GrpcWebClientLayer, GrpcWebClientService};
use tower::Layer;

type WebClient = StoneGameClient<
    GrpcWebClientService<HttpClient<HttpConnector, GrpcWebCall<tonic::body::Body>>>,
>;

/// A tonic client speaking gRPC-Web over HTTP/1.1 to `server`.
fn web_client(server: &RunningServer) -> WebClient {
    let http = HttpClient::builder(TokioExecutor::new()).build_http();
    let origin = format!("http://{}", server.addr).parse().unwrap();
    StoneGameClient::with_origin(GrpcWebClientLayer::new().layer(http), origin)
}

/// One raw HTTP/1.1 request: the status, headers and body of the answer.
async fn raw(
    server: &RunningServer,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (u16, http::HeaderMap, Bytes) {
    let client: HttpClient<HttpConnector, Full<Bytes>> =
        HttpClient::builder(TokioExecutor::new()).build_http();
    let mut request = http::Request::builder()
        .method(method)
        .uri(format!("http://{}{path}", server.addr));
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = client
        .request(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .expect("an answer");
    let status = response.status().as_u16();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("a body").to_bytes();
    (status, parts.headers, body)
}

/// A Connect JSON call of SuggestMove.
async fn json(
    server: &RunningServer,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, http::HeaderMap, serde_json::Value) {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    let (status, headers, body) = raw(
        server,
        "POST",
        "/stonegame.v1.StoneGame/SuggestMove",
        &all,
        body.as_bytes().to_vec(),
    )
    .await;
    let value = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    (status, headers, value)
}

/// `message` as one uncompressed gRPC frame (flag, length, bytes).
fn grpc_frame(message: &impl Message) -> Vec<u8> {
    let bytes = message.encode_to_vec();
    let mut framed = vec![0u8];
    framed.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    framed.extend_from_slice(&bytes);
    framed
}

fn suggest_request(piles: &[u64]) -> pb::SuggestMoveRequest {
    pb::SuggestMoveRequest {
        piles: piles.to_vec(),
        variant: pb::Variant::TwoEnds as i32,
        strength: Some(0.5),
        seed: 9,
        ..Default::default()
    }
}

/// `stonegame_rpc_requests_total` of `rpc`, `code` and `protocol`.
fn requests(server: &RunningServer, rpc: &str, code: &str, protocol: &str) -> u64 {
    let want = format!(
        "stonegame_rpc_requests_total{{rpc=\"{rpc}\",code=\"{code}\",protocol=\"{protocol}\"}} "
    );
    let text = server.state.encode_metrics();
    text.lines()
        .find_map(|l| l.strip_prefix(&want)?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_answers_as_grpc_does() {
    let server = common::server(|c| c.play.token_key = Some("k".repeat(32))).await;
    let mut native = common::client(&server).await;
    let mut web = web_client(&server);

    for piles in [
        vec![3, 1, 9, 4],
        vec![5],
        vec![2, 7, 1, 8, 2, 8, 1, 8, 2, 8],
    ] {
        let a = native
            .suggest_move(suggest_request(&piles))
            .await
            .unwrap()
            .into_inner();
        let b = web
            .suggest_move(suggest_request(&piles))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(a, b, "{piles:?}");
    }
    // A server stream: the tables of a row, chunk by chunk.
    let tables = pb::GetTablesRequest {
        piles: (1..=40).collect(),
        chunk_rows: 7,
    };
    let mut a = native
        .get_tables(tables.clone())
        .await
        .unwrap()
        .into_inner();
    let mut b = web.get_tables(tables).await.unwrap().into_inner();
    let mut chunks = 0;
    loop {
        let (x, y) = (a.message().await.unwrap(), b.message().await.unwrap());
        assert_eq!(x, y);
        if x.is_none() {
            break;
        }
        chunks += 1;
    }
    assert!(chunks > 1);
    // Generate (a server stream): the same bytes.
    let generate = pb::GenerateRequest {
        family: "random".into(),
        cases: 30,
        max_n: 50,
        max_a: 1000,
        seed: 7,
        variant: pb::Variant::TwoEnds as i32,
    };
    let mut a = native
        .generate(generate.clone())
        .await
        .unwrap()
        .into_inner();
    let mut b = web.generate(generate).await.unwrap().into_inner();
    loop {
        let (x, y) = (a.message().await.unwrap(), b.message().await.unwrap());
        assert_eq!(x, y);
        if x.is_none() {
            break;
        }
    }
    // PlayStep over gRPC-Web: the same events as over gRPC.
    let start = pb::PlayStepRequest {
        step: Some(pb::play_step_request::Step::Start(pb::StartGame {
            piles: vec![4, 2, 7, 1],
            client_seat: pb::Seat::Second as i32,
            analysis: true,
            ..Default::default()
        })),
    };
    let collect = |mut s: tonic::Streaming<pb::PlayEvent>| async move {
        let mut out = Vec::new();
        while let Some(e) = s.message().await.unwrap() {
            out.push(e);
        }
        out
    };
    let a = collect(native.play_step(start.clone()).await.unwrap().into_inner()).await;
    let b = collect(web.play_step(start).await.unwrap().into_inner()).await;
    assert_eq!(a, b);
    assert!(a.len() >= 2, "the first state and the bot's move: {a:?}");
    // An error keeps its code and message.
    let e = web
        .suggest_move(suggest_request(&[1, 0]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("piles"), "{e:?}");

    assert!(requests(&server, "SuggestMove", "OK", "grpc_web") >= 3);
    assert!(requests(&server, "SuggestMove", "OK", "grpc") >= 3);
    assert_eq!(requests(&server, "PlayStep", "OK", "grpc_web"), 1);
    assert_eq!(
        requests(&server, "SuggestMove", "INVALID_ARGUMENT", "grpc_web"),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_text_and_refused_streams() {
    let server = common::server(|_| {}).await;
    // grpc-web-text: base64 of the framed message, both ways.
    let framed = grpc_frame(&suggest_request(&[3, 1, 9, 4]));
    let b64 = base64::engine::general_purpose::STANDARD;
    let (status, headers, body) = raw(
        &server,
        "POST",
        "/stonegame.v1.StoneGame/SuggestMove",
        &[
            ("content-type", "application/grpc-web-text"),
            ("accept", "application/grpc-web-text"),
            ("x-grpc-web", "1"),
        ],
        b64.encode(&framed).into_bytes(),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/grpc-web-text"),
        "{headers:?}"
    );
    // The body: base64 chunks of the message frame, then of the trailers
    // frame (0x80).
    let text = String::from_utf8(body.to_vec()).unwrap();
    let mut bytes = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        // Each chunk is padded base64; chunks may be concatenated.
        let end = rest.find('=').map_or(rest.len(), |i| {
            let mut j = i;
            while rest[j..].starts_with('=') {
                j += 1;
            }
            j
        });
        bytes.extend(b64.decode(&rest[..end]).expect("base64"));
        rest = &rest[end..];
    }
    assert_eq!(bytes[0], 0, "a message frame first");
    let len = u32::from_be_bytes(bytes[1..5].try_into().unwrap()) as usize;
    let answer = pb::SuggestMoveResponse::decode(&bytes[5..5 + len]).unwrap();
    let mut native = common::client(&server).await;
    let expected = native
        .suggest_move(suggest_request(&[3, 1, 9, 4]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer, expected);
    let trailers = String::from_utf8_lossy(&bytes[5 + len + 5..]).to_lowercase();
    assert_eq!(bytes[5 + len], 0x80, "then the trailers frame");
    assert!(trailers.contains("grpc-status:0"), "{trailers}");

    // Streams gRPC-Web cannot carry: UNIMPLEMENTED, naming what to use.
    let mut web = web_client(&server);
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tx.send(pb::PlayRequest::default()).await.unwrap();
    drop(tx);
    let e = web
        .play(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unimplemented, "{e:?}");
    assert!(e.message().contains("PlayStep"), "{e:?}");
    let e = web
        .check(futures::stream::iter(Vec::<pb::CheckRequest>::new()))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unimplemented, "{e:?}");
    assert!(e.message().contains("Check is a client stream"), "{e:?}");
    assert_eq!(requests(&server, "Play", "UNIMPLEMENTED", "grpc_web"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_over_http2_with_a_deadline() {
    let server = common::server(|_| {}).await;
    // HTTP/2 with prior knowledge (h2c), as a proxy or a native client
    // speaking gRPC-Web would, with the bare `application/grpc-web` type.
    let client: HttpClient<HttpConnector, Full<Bytes>> = HttpClient::builder(TokioExecutor::new())
        .http2_only(true)
        .build_http();
    let framed = grpc_frame(&suggest_request(&[3, 1, 9, 4]));
    let call = |timeout: Option<&'static str>, body: Vec<u8>| {
        let mut request = http::Request::post(format!(
            "http://{}/stonegame.v1.StoneGame/SuggestMove",
            server.addr
        ))
        .header("content-type", "application/grpc-web")
        .header("x-grpc-web", "1");
        if let Some(t) = timeout {
            request = request.header("grpc-timeout", t);
        }
        client.request(request.body(Full::new(Bytes::from(body))).unwrap())
    };
    let response = call(None, framed).await.unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.status(), 200);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let len = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
    let answer = pb::SuggestMoveResponse::decode(&body[5..5 + len]).unwrap();
    let mut native = common::client(&server).await;
    let expected = native
        .suggest_move(suggest_request(&[3, 1, 9, 4]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer, expected);
    assert!(String::from_utf8_lossy(&body[5 + len..]).contains("grpc-status:0"));
    // A deadline that passes (grpc-timeout 1 ms) reaches the call: tonic
    // ends it CANCELLED ("Timeout expired"), as over native gRPC (or
    // DEADLINE_EXCEEDED from the handler), in the headers of a
    // trailers-only answer or in the trailers frame.
    // A row whose answer takes far longer than the deadline (2·10^8 cell
    // updates on the CPU pool, tens of milliseconds, against 1 ms).
    let framed = grpc_frame(&suggest_request(&(1..=20_000).collect::<Vec<u64>>()));
    let response = call(Some("1m"), framed).await.unwrap();
    let in_headers = response
        .headers()
        .get("grpc-status")
        .map(|v| v.to_str().unwrap().to_string());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let status = in_headers.unwrap_or_else(|| {
        let text = String::from_utf8_lossy(&body).to_string();
        text.split("grpc-status:")
            .nth(1)
            .unwrap_or("")
            .trim()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect()
    });
    assert!(
        status == "1" || status == "4",
        "a passed deadline: CANCELLED or DEADLINE_EXCEEDED, not {status}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_json_for_curl() {
    let server = common::server(|_| {}).await;
    let mut native = common::client(&server).await;
    // Numbers and strings for 64-bit integers; enums by name.
    let (status, headers, got) = json(
        &server,
        r#"{"piles": [3, "1", 9, "4"], "variant": "VARIANT_TWO_ENDS", "strength": 0.5, "seed": "9"}"#,
        &[],
    )
    .await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(headers["content-type"], "application/json");
    let expected = native
        .suggest_move(suggest_request(&[3, 1, 9, 4]))
        .await
        .unwrap()
        .into_inner();
    let chosen = expected.chosen.unwrap();
    assert_eq!(got["chosen"]["take"], chosen.take.to_string(), "{got}");
    assert_eq!(
        got["chosen"]["side"],
        pb::Side::try_from(chosen.side).unwrap().as_str_name()
    );
    assert_eq!(got["explanation"], expected.explanation);
    // A big pile: its exact value, as a string both ways.
    let (status, _, got) = json(&server, r#"{"piles": ["9223372036854775807"]}"#, &[]).await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["moverWins"], true);
    assert_eq!(got["chosen"]["take"], "9223372036854775807");

    // Errors: Connect's JSON, the HTTP status of the code, where it is.
    let (status, _, got) = json(&server, "{\"piles\": [1,\n  \"x\"]}", &[]).await;
    assert_eq!(
        (status, got["code"].as_str()),
        (400, Some("invalid_argument"))
    );
    let message = got["message"].as_str().unwrap();
    assert!(message.contains("line 2 column"), "{message}");
    let (status, _, got) = json(&server, r#"{"piles": [1, 0]}"#, &[]).await;
    assert_eq!(
        (status, got["code"].as_str()),
        (400, Some("invalid_argument"))
    );
    assert!(got["message"].as_str().unwrap().contains("piles"), "{got}");
    let (status, _, got) = json(&server, r#"{"pilez": [1]}"#, &[]).await;
    assert_eq!(status, 400, "an unknown field: {got}");
    // A streaming method is not served as Connect JSON.
    let (status, _, body) = raw(
        &server,
        "POST",
        "/stonegame.v1.StoneGame/GetTables",
        &[("content-type", "application/json")],
        b"{}".to_vec(),
    )
    .await;
    let got: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((status, got["code"].as_str()), (501, Some("unimplemented")));
    // A deadline in connect-timeout-ms reaches the call: 1 ms against a
    // row whose answer takes tens of milliseconds.
    let long: Vec<String> = (1..=20_000).map(|p: u64| p.to_string()).collect();
    let (status, _, got) = json(
        &server,
        &format!(r#"{{"piles": [{}]}}"#, long.join(",")),
        &[("connect-timeout-ms", "1")],
    )
    .await;
    assert!(
        (status == 499 && got["code"] == "canceled")
            || (status == 504 && got["code"] == "deadline_exceeded"),
        "{status} {got}"
    );
    assert!(requests(&server, "SuggestMove", "OK", "connect") >= 2);
    assert_eq!(
        requests(&server, "SuggestMove", "INVALID_ARGUMENT", "connect"),
        1,
        "the JSON errors never reach the service; the empty row does"
    );
}

/// The remoteness over Connect JSON: a `Remoteness` object whose `plies`
/// is a decimal string, exact past 2^64 − 1; move ranges in lowerCamelCase.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_json_shows_the_remoteness() {
    let server = common::server(|_| {}).await;
    let (status, _, got) = json(&server, r#"{"piles": [1, 2], "wantRemoteness": true}"#, &[]).await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(
        got,
        serde_json::json!({
            "moverWins": true,
            "chosen": {"side": "SIDE_RIGHT", "take": "1", "remaining": "1",
                       "remotenessAfter": {"plies": "2"}},
            "winningMoves": [{"side": "SIDE_RIGHT", "take": "1", "remaining": "1",
                              "remotenessAfter": {"plies": "2"}}],
            "explanation": got["explanation"].clone(),
            "remoteness": {"plies": "3"},
            "moveRanges": [
                {"side": "SIDE_RIGHT", "leftMin": "1", "leftMax": "1", "moverWins": true,
                 "remotenessAtMin": {"plies": "2"}},
                // Proto3 JSON leaves out the zeros: leftMin, leftMax, moverWins
                // false, slope. Losing ranges, longest resistance first, left
                // before right on a tie.
                {"side": "SIDE_LEFT", "remotenessAtMin": {"plies": "1"}},
                {"side": "SIDE_RIGHT", "remotenessAtMin": {"plies": "1"}},
            ],
        }),
        "{got}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_json_remoteness_past_u64() {
    let server = common::server(|_| {}).await;
    let a = stonegame::core::MAX_PILE;
    let row = [a, a - 1, a - 2, a - 3, a - 4, a];
    let want = stonegame::core::remoteness::remoteness(
        &common::valid(&row),
        stonegame::core::Variant::TwoEnds,
    );
    assert!(want > u128::from(u64::MAX));
    let body = serde_json::json!({"piles": row.map(|p| p.to_string()), "wantRemoteness": true});
    let (status, _, got) = json(&server, &body.to_string(), &[]).await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["remoteness"]["plies"], want.to_string(), "{got}");
    assert!(
        got["moveRanges"].as_array().is_some_and(|r| !r.is_empty()),
        "{got}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_hold_for_every_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, "web-token-1234\n").unwrap();
    let server = common::server(|c| c.auth.tokens_file = Some(tokens.clone())).await;
    let (status, _, got) = json(&server, r#"{"piles": [1, 2]}"#, &[]).await;
    assert_eq!(
        (status, got["code"].as_str()),
        (401, Some("unauthenticated"))
    );
    let (status, _, got) = json(
        &server,
        r#"{"piles": [1, 2]}"#,
        &[("authorization", "Bearer web-token-1234")],
    )
    .await;
    assert_eq!(status, 200, "{got}");
    let mut web = web_client(&server);
    let e = web
        .suggest_move(suggest_request(&[1, 2]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    let mut request = tonic::Request::new(suggest_request(&[1, 2]));
    request
        .metadata_mut()
        .insert("authorization", "Bearer web-token-1234".parse().unwrap());
    web.suggest_move(request).await.unwrap();
    assert_eq!(
        requests(&server, "SuggestMove", "UNAUTHENTICATED", "grpc_web"),
        1
    );
    assert_eq!(
        requests(&server, "SuggestMove", "UNAUTHENTICATED", "connect"),
        1
    );
}

/// A CORS preflight from `origin`: the answer's headers.
async fn preflight(server: &RunningServer, origin: &str) -> (u16, http::HeaderMap) {
    let (status, headers, _) = raw(
        server,
        "OPTIONS",
        "/stonegame.v1.StoneGame/SuggestMove",
        &[
            ("origin", origin),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "content-type,x-grpc-web,authorization",
            ),
        ],
        Vec::new(),
    )
    .await;
    (status, headers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_only_for_the_listed_origins() {
    // Off by default: no CORS headers for anyone.
    let server = common::server(|_| {}).await;
    let (_, headers) = preflight(&server, "https://games.example").await;
    assert!(
        headers.get("access-control-allow-origin").is_none(),
        "{headers:?}"
    );
    drop(server);

    let server = common::server(|c| {
        c.web.cors_allowed_origins = vec!["https://games.example".into()];
    })
    .await;
    let (status, headers) = preflight(&server, "https://games.example").await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://games.example"
    );
    let allowed = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    for h in ["content-type", "x-grpc-web", "authorization"] {
        assert!(allowed.contains(h), "{allowed}");
    }
    // An origin not listed: tower-http answers its preflight (200) with
    // everything but the origin (docs/web.md), which the browser refuses.
    let (status, headers) = preflight(&server, "https://evil.example").await;
    assert_eq!(status, 200);
    assert!(
        headers.get("access-control-allow-origin").is_none(),
        "{headers:?}"
    );
    assert_eq!(headers["access-control-allow-methods"], "POST,GET,OPTIONS");
    assert_eq!(headers["access-control-max-age"], "600");
    assert!(
        headers["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("connect-timeout-ms"),
        "{headers:?}"
    );
    let vary: Vec<_> = headers.get_all("vary").iter().collect();
    assert!(!vary.is_empty(), "{headers:?}");
    assert!(headers.get("access-control-expose-headers").is_none());
    // Its calls are served (CORS is the browser's check), with the exposed
    // headers but no origin.
    let (status, headers, _) = raw(
        &server,
        "POST",
        "/stonegame.v1.StoneGame/SuggestMove",
        &[
            ("content-type", "application/json"),
            ("origin", "https://evil.example"),
        ],
        br#"{"piles": [1]}"#.to_vec(),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        headers.get("access-control-allow-origin").is_none(),
        "{headers:?}"
    );
    assert!(
        headers.get("access-control-expose-headers").is_some(),
        "{headers:?}"
    );
    // A call from the listed origin can read the status headers.
    let (status, headers, _) = raw(
        &server,
        "POST",
        "/stonegame.v1.StoneGame/SuggestMove",
        &[
            ("content-type", "application/json"),
            ("origin", "https://games.example"),
        ],
        br#"{"piles": [1]}"#.to_vec(),
    )
    .await;
    assert_eq!(status, 200);
    let exposed = headers["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    for h in ["grpc-status", "grpc-message", "retry-after-ms"] {
        assert!(exposed.contains(h), "{exposed}");
    }
    // "*" must stand alone; an origin with a path is refused at start-up.
    for bad in [
        vec!["*".to_string(), "https://a.example".into()],
        vec!["https://a.example/".into()],
        vec!["a.example".into()],
    ] {
        let text = format!("[web]\ncors_allowed_origins = {bad:?}\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, text).unwrap();
        let e = stonegame::service::config::Config::load(
            Some(Path::new(&path)),
            None,
            &Default::default(),
        )
        .expect_err("refused");
        assert!(
            e.to_string().contains("web.cors_allowed_origins"),
            "{bad:?}: {e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_policy() {
    let server = common::server(|_| {}).await;
    let (status, headers, body) = raw(&server, "GET", "/", &[], Vec::new()).await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let csp = headers["content-security-policy"].to_str().unwrap();
    for part in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(part), "{csp}");
    }
    let html = String::from_utf8_lossy(&body);
    assert!(html.contains("assets/app.js"), "{html}");
    let tag = headers["etag"].to_str().unwrap().to_string();
    let (status, _, body) = raw(&server, "GET", "/", &[("if-none-match", &tag)], Vec::new()).await;
    assert_eq!((status, body.len()), (304, 0));
    for (path, kind) in [
        ("/assets/app.js", "text/javascript"),
        ("/assets/app.css", "text/css"),
    ] {
        let (status, headers, body) = raw(&server, "GET", path, &[], Vec::new()).await;
        assert_eq!(status, 200, "{path}");
        assert!(headers["content-type"].to_str().unwrap().starts_with(kind));
        assert!(!body.is_empty());
    }
    let (status, _, _) = raw(&server, "GET", "/assets/nope.js", &[], Vec::new()).await;
    assert_eq!(status, 404);
    // gRPC on the same port is untouched.
    let mut native = common::client(&server).await;
    native.suggest_move(suggest_request(&[1, 2])).await.unwrap();

    let server = common::server(|c| c.web.page = false).await;
    let (status, headers, _) = raw(&server, "GET", "/", &[], Vec::new()).await;
    assert!(
        headers.get("content-security-policy").is_none() && status != 304,
        "{status} {headers:?}"
    );
}

/// Sends `head` and then `body_part` of a request on a fresh HTTP/1.1
/// connection, keeps it open without sending the rest, and reads the answer:
/// its status line and its body (the answer is `connection: close`d or
/// sized, so it is read to its end or to `content-length`).
async fn answer_before_the_end(server: &RunningServer, head: &str, body_part: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut sock = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    sock.write_all(head.as_bytes()).await.unwrap();
    sock.write_all(body_part).await.unwrap();
    sock.flush().await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let read = async {
        loop {
            let n = sock.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head.lines().find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")?
                        .parse()
                        .ok()
                });
                if length.is_some_and(|n: usize| body.len() >= n) {
                    break;
                }
            }
        }
    };
    // A hang guard: the answer comes at once, or the test fails here.
    tokio::time::timeout(std::time::Duration::from_secs(30), read)
        .await
        .expect("an answer before the body's end was sent");
    drop(sock);
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_row_past_max_piles_is_refused_before_its_end() {
    let server =
        common::server(|c| c.limits.max_piles = std::num::NonZero::new(1000).unwrap()).await;
    let path = "/stonegame.v1.StoneGame/SuggestMove";
    // gRPC's refusal of 1,001 piles: the code and the form JSON must give.
    let mut native = common::client(&server).await;
    let e = native
        .suggest_move(suggest_request(&[1; 1001]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    assert_eq!(
        e.message(),
        "piles: the row has 1001 piles, more than the limit of 1000"
    );
    let want = r#"{"code":"resource_exhausted","message":"piles: the row has at least 1001 piles, more than the limit of 1000"}"#;
    // 1,500 piles of a body declared 100,000 bytes long (within the body
    // limit of 1,000 piles: 129,536 bytes), the rest never sent.
    let part = format!(r#"{{"piles": [{}"#, "1, ".repeat(1500));
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: 100000\r\n\r\n"
    );
    let answer = answer_before_the_end(&server, &head, part.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 429 "), "{answer}");
    assert!(answer.ends_with(want), "{answer}");
    // The same chunked, with no length.
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         transfer-encoding: chunked\r\n\r\n{:x}\r\n{part}\r\n",
        part.len()
    );
    let answer = answer_before_the_end(&server, &head, b"").await;
    assert!(answer.ends_with(want), "{answer}");
    // A length past the body limit is refused before a byte of the body.
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: 129537\r\n\r\n"
    );
    let answer = answer_before_the_end(&server, &head, b"").await;
    assert!(answer.starts_with("HTTP/1.1 429 "), "{answer}");
    assert!(
        answer.contains("larger than the limit of 129536 bytes")
            && answer.contains("limits.max_piles = 1000"),
        "{answer}"
    );
    // A well-behaved client: the limit itself, pretty-printed with the
    // largest piles, is answered.
    let row = vec!["9223372036854775807"; 1000];
    let text = serde_json::to_string_pretty(&serde_json::json!({ "piles": row })).unwrap();
    let (status, _, got) = json(&server, &text, &[]).await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(
        requests(&server, "SuggestMove", "RESOURCE_EXHAUSTED", "connect"),
        2,
        "each row refused for its length is counted as gRPC's refusal is"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_json_says_what_is_wrong_briefly() {
    let server = common::server(|_| {}).await;
    // A deadline that is not 1 to 10 digits is refused by name.
    for bad in ["soon", "12345678901", "-5"] {
        let (status, _, got) = json(
            &server,
            r#"{"piles": [1, 2]}"#,
            &[("connect-timeout-ms", bad)],
        )
        .await;
        assert_eq!(
            (status, got["code"].as_str()),
            (400, Some("invalid_argument"))
        );
        let message = got["message"].as_str().unwrap();
        assert!(message.starts_with("connect-timeout-ms: "), "{message}");
    }
    // A 1 MiB key comes back cut.
    let key = "k".repeat(1 << 20);
    let (status, _, got) = json(&server, &format!(r#"{{"{key}": [1]}}"#), &[]).await;
    assert_eq!(status, 400);
    let message = got["message"].as_str().unwrap();
    assert!(message.len() < 400, "{} bytes", message.len());
    assert!(message.contains("unknown field `kkk"), "{message}");
    assert!(message.contains("… at line 1 column"), "{message}");
    // The streams: what to use instead.
    let advice = |method: &'static str| {
        let server = &server;
        async move {
            let (status, _, body) = raw(
                server,
                "POST",
                &format!("/stonegame.v1.StoneGame/{method}"),
                &[("content-type", "application/json")],
                b"{}".to_vec(),
            )
            .await;
            let got: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!((status, got["code"].as_str()), (501, Some("unimplemented")));
            got["message"].as_str().unwrap().to_string()
        }
    };
    for method in ["Solve", "Check"] {
        let message = advice(method).await;
        assert!(message.contains("native gRPC"), "{message}");
        assert!(!message.contains("over gRPC-Web"), "{message}");
    }
    let message = advice("Play").await;
    assert!(message.contains("PlayStep"), "{message}");
    let message = advice("GetTables").await;
    assert!(message.contains("over gRPC-Web or gRPC"), "{message}");
    let message = advice("NoSuchMethod").await;
    assert!(message.contains("not a method"), "{message}");
}
