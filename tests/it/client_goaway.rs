//! A request that races a server's graceful GOAWAY, made deterministic: a
//! bare HTTP/2 server on loopback answers every request's HEADERS with
//! GOAWAY(last stream 0), so the request is refused unprocessed exactly as
//! when a `max_connection_age` server closes a connection under a
//! client. The client must recognise it (`never_reached_server`) and the
//! `Client` resend it (a unary call, or the opening of a Play stream); a
//! GOAWAY carrying an error code must not be resent.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use stonegame::client::{Client, ClientError, GameSpec, never_reached_server};
use stonegame::core::Variant;
use stonegame::wire::pb;
use stonegame::wire::pb::stone_game_client::StoneGameClient;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const SETTINGS: u8 = 0x4;
const GOAWAY: u8 = 0x7;
const ACK: u8 = 0x1;

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len() as u32;
    let mut f = len.to_be_bytes()[1..].to_vec();
    f.extend([kind, flags]);
    f.extend(stream.to_be_bytes());
    f.extend(payload);
    f
}

/// Serves one connection: settings exchanged, then every HEADERS frame is
/// counted in `requests` and answered with GOAWAY(last stream 0, `code`).
async fn serve_connection(mut conn: TcpStream, code: u32, requests: Arc<AtomicUsize>) {
    let mut preface = [0u8; 24];
    if conn.read_exact(&mut preface).await.is_err() || preface != PREFACE {
        return;
    }
    if conn.write_all(&frame(SETTINGS, 0, 0, &[])).await.is_err() {
        return;
    }
    loop {
        let mut head = [0u8; 9];
        if conn.read_exact(&mut head).await.is_err() {
            return;
        }
        let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
        let mut payload = vec![0u8; len];
        if conn.read_exact(&mut payload).await.is_err() {
            return;
        }
        let reply = match (head[3], head[4] & ACK) {
            (SETTINGS, 0) => frame(SETTINGS, ACK, 0, &[]),
            (HEADERS, _) => {
                requests.fetch_add(1, Ordering::SeqCst);
                let mut goaway = 0u32.to_be_bytes().to_vec();
                goaway.extend(code.to_be_bytes());
                frame(GOAWAY, 0, 0, &goaway)
            }
            _ => continue,
        };
        if conn.write_all(&reply).await.is_err() {
            return;
        }
    }
}

/// A loopback server that refuses every request with GOAWAY(`code`); its
/// URL and the count of requests it saw.
async fn goaway_server(code: u32) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let seen = requests.clone();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            tokio::spawn(serve_connection(conn, code, seen.clone()));
        }
    });
    (url, requests)
}

fn request() -> pb::SuggestMoveRequest {
    pb::SuggestMoveRequest {
        piles: vec![3, 1, 9, 4],
        variant: pb::Variant::TwoEnds as i32,
        strength: None,
        seed: 0,
        want_remoteness: false,
    }
}

#[tokio::test]
async fn a_request_refused_by_a_graceful_goaway_is_recognised() {
    let (url, requests) = goaway_server(0).await;
    let mut raw = StoneGameClient::connect(url).await.unwrap();
    let status = raw.suggest_move(request()).await.unwrap_err();
    // tonic's form of it: INTERNAL over h2's remote GOAWAY(NO_ERROR).
    assert_eq!(status.code(), tonic::Code::Internal, "{status:?}");
    assert!(never_reached_server(&status), "{status:?}");
    assert_eq!(requests.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_client_resends_a_request_refused_by_a_graceful_goaway() {
    let (url, requests) = goaway_server(0).await;
    let mut client = Client::connect(&url).await.unwrap();
    let err = client
        .suggest(vec![3, 1, 9, 4], Variant::TwoEnds, None, 0)
        .await
        .unwrap_err();
    // Sent three times in all (every one refused here), then the last
    // refusal is returned as it is.
    assert_eq!(requests.load(Ordering::SeqCst), 3);
    match err {
        ClientError::Status(s) => assert!(never_reached_server(&s), "{s:?}"),
        e => panic!("{e}"),
    }
}

#[tokio::test]
async fn the_client_reopens_a_play_stream_refused_by_a_graceful_goaway() {
    let (url, requests) = goaway_server(0).await;
    let mut client = Client::connect(&url).await.unwrap();
    let Err(err) = client.play(&GameSpec::new(vec![3, 1, 9, 4])).await else {
        panic!("every stream is refused, yet a game started");
    };
    assert_eq!(requests.load(Ordering::SeqCst), 3);
    match err {
        ClientError::Status(s) => assert!(never_reached_server(&s), "{s:?}"),
        e => panic!("{e}"),
    }
}

#[tokio::test]
async fn a_goaway_with_an_error_code_is_not_resent() {
    // PROTOCOL_ERROR (1): the server failed, the request may not be safe.
    let (url, requests) = goaway_server(1).await;
    let mut raw = StoneGameClient::connect(url.clone()).await.unwrap();
    let status = raw.suggest_move(request()).await.unwrap_err();
    assert!(!never_reached_server(&status), "{status:?}");
    let mut client = Client::connect(&url).await.unwrap();
    client
        .suggest(vec![3, 1, 9, 4], Variant::TwoEnds, None, 0)
        .await
        .unwrap_err();
    assert_eq!(requests.load(Ordering::SeqCst), 2);
}
