//! Unit tests of `transport`, in their own file beside it. The tests of
//! deadlines run on tokio's paused clock: the deadlines are tens of
//! milliseconds, which a busy machine could spend between two lines of a
//! test, and virtual time only moves when every task waits.

use super::*;
use futures::StreamExt;
use std::num::NonZeroUsize;
use tokio::io::AsyncReadExt;

fn config(max_connections: usize, handshake_ms: u64) -> TransportConfig {
    let mut c = crate::service::Config::defaults()
        .expect("defaults")
        .transport;
    c.max_connections = NonZeroUsize::new(max_connections).expect("nonzero");
    c.handshake_timeout = Duration::from_millis(handshake_ms);
    c
}

#[test]
fn defaults_and_zero_limits() {
    use std::collections::HashMap;
    let c = crate::service::Config::defaults()
        .expect("defaults")
        .transport;
    assert_eq!(c.max_concurrent_streams.get(), 256);
    assert_eq!(c.max_header_list_size.get(), 16384);
    assert_eq!(c.max_connections.get(), 4096);
    assert_eq!(c.handshake_timeout, Duration::from_secs(10));
    assert_eq!(c.request_timeout, Duration::ZERO);
    let load = |k: &str, v: &str| {
        let env: HashMap<String, String> = [(
            format!("STONEGAME_TRANSPORT__{}", k.to_uppercase()),
            v.into(),
        )]
        .into();
        crate::service::Config::load(None, Some(env), &Default::default())
    };
    for key in [
        "max_concurrent_streams",
        "max_header_list_size",
        "max_pending_accept_reset_streams",
        "max_local_error_reset_streams",
        "max_connections",
    ] {
        let e = load(key, "0").expect_err(key);
        assert!(e.to_string().contains(key), "{key}: {e}");
        load(key, "1").expect(key);
    }
    let e = load("http2_keepalive_timeout", "0s").expect_err("zero timeout");
    assert!(e.to_string().contains("http2_keepalive_timeout"), "{e}");
    load("http2_keepalive_timeout", "1ms").expect("1ms");
    // 0 turns these off.
    for key in [
        "http2_keepalive_interval",
        "tcp_keepalive",
        "handshake_timeout",
        "http1_keepalive_timeout",
        "request_timeout",
    ] {
        load(key, "0s").expect(key);
    }
    let e = load("max_streams", "1").expect_err("unknown key");
    assert!(e.to_string().contains("max_streams"), "{e}");
}

#[tokio::test(start_paused = true)]
async fn connections_past_the_limit_are_closed_and_slots_come_back() {
    let (a, _a) = tokio::io::duplex(64);
    let (b, _b) = tokio::io::duplex(64);
    let (c, _c) = tokio::io::duplex(64);
    let accepted = futures::stream::iter(vec![Ok(a), Ok(b), Ok(c)]);
    let mut incoming = Incoming::new(accepted, &config(1, 0), Arc::default());
    let first = incoming.next().await.expect("first").expect("ok");
    // b is over the limit: dropped; c is too while `first` is open.
    assert!(incoming.next().await.is_none());
    drop(first);
    assert_eq!(incoming.gate.open.load(Ordering::Relaxed), 0);
}

#[tokio::test(start_paused = true)]
async fn a_silent_connection_fails_at_the_handshake_deadline() {
    let (server, _client) = tokio::io::duplex(64);
    let mut incoming = Incoming::new(
        futures::stream::iter(vec![Ok(server)]),
        &config(8, 20),
        Arc::default(),
    );
    let mut conn = incoming.next().await.expect("one").expect("ok");
    let mut buf = [0u8; 8];
    let e = conn.read(&mut buf).await.expect_err("times out");
    assert_eq!(e.kind(), io::ErrorKind::TimedOut);
}

#[tokio::test(start_paused = true)]
async fn the_deadline_ends_once_the_preface_is_read() {
    use tokio::io::AsyncWriteExt;
    let (server, mut client) = tokio::io::duplex(256);
    let mut incoming = Incoming::new(
        futures::stream::iter(vec![Ok(server)]),
        &config(8, 20),
        Arc::default(),
    );
    let mut conn = incoming.next().await.expect("one").expect("ok");
    let mut preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    preface.extend_from_slice(&[0; 9]);
    assert_eq!(preface.len() as u64, PREFACE_BYTES);
    client.write_all(&preface).await.unwrap();
    let mut buf = vec![0u8; 64];
    let mut got = 0;
    while got < PREFACE_BYTES as usize {
        got += conn.read(&mut buf[got..]).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(60)).await;
    client.write_all(b"x").await.unwrap();
    assert_eq!(conn.read(&mut buf).await.unwrap(), 1);
}

#[tokio::test(start_paused = true)]
async fn http1_heads_are_timed_and_an_idle_connection_closes() {
    use tokio::io::AsyncWriteExt;
    let mut c = config(8, 40);
    c.http1_keepalive_timeout = Duration::from_millis(40);
    // A head that never ends: closed at the deadline.
    let (server, mut client) = tokio::io::duplex(256);
    let mut incoming = Incoming::new(futures::stream::iter(vec![Ok(server)]), &c, Arc::default());
    let mut conn = incoming.next().await.expect("one").expect("ok");
    client
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut buf = vec![0u8; 256];
    assert!(conn.read(&mut buf).await.unwrap() > 0);
    let e = conn.read(&mut buf).await.expect_err("times out");
    assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    // A whole head, handled for longer than the deadline, answered;
    // then silence: closed after the keep-alive time.
    let (server, mut client) = tokio::io::duplex(256);
    let mut incoming = Incoming::new(futures::stream::iter(vec![Ok(server)]), &c, Arc::default());
    let mut conn = incoming.next().await.expect("one").expect("ok");
    client.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    assert!(conn.read(&mut buf).await.unwrap() > 0);
    tokio::time::sleep(Duration::from_millis(80)).await;
    conn.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await.unwrap();
    let e = conn.read(&mut buf).await.expect_err("idle");
    assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    // Too long a head: refused at once.
    let (server, mut client) = tokio::io::duplex(1 << 16);
    let mut incoming = Incoming::new(futures::stream::iter(vec![Ok(server)]), &c, Arc::default());
    let mut conn = incoming.next().await.expect("one").expect("ok");
    let mut head = b"GET / HTTP/1.1\r\nX: ".to_vec();
    head.resize(20_000, b'a');
    client.write_all(&head).await.unwrap();
    let mut big = vec![0u8; 1 << 16];
    let e = loop {
        match conn.read(&mut big).await {
            Ok(_) => continue,
            Err(e) => break e,
        }
    };
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
}

/// The in-memory connections of these tests have no address (so no
/// per-address count).
impl Peer for tokio::io::DuplexStream {
    fn peer(&self) -> TcpConnectInfo {
        TcpConnectInfo {
            local_addr: None,
            remote_addr: None,
        }
    }
}

#[test]
fn one_address_holds_at_most_max_connections_per_ip() {
    let mut c = config(16, 0);
    c.max_connections_per_ip = 2;
    let incoming = Incoming::new(
        futures::stream::empty::<io::Result<tokio::io::DuplexStream>>(),
        &c,
        Arc::default(),
    );
    let gate = &incoming.gate;
    let (a, b): (IpAddr, IpAddr) = ("127.0.0.2".parse().unwrap(), "127.0.0.1".parse().unwrap());
    assert!(gate.admit_ip(a));
    assert!(gate.admit_ip(a));
    assert!(!gate.admit_ip(a), "a third from the same address");
    assert!(gate.admit_ip(b), "another address is not affected");
    gate.release_ip(a);
    assert!(gate.admit_ip(a), "a slot comes back when one closes");
    gate.release_ip(a);
    gate.release_ip(a);
    gate.release_ip(b);
    assert!(
        gate.per_ip.lock().unwrap().is_empty(),
        "no address left behind"
    );
    // 0: no limit.
    c.max_connections_per_ip = 0;
    let incoming = Incoming::new(
        futures::stream::empty::<io::Result<tokio::io::DuplexStream>>(),
        &c,
        Arc::default(),
    );
    assert!((0..100).all(|_| incoming.gate.admit_ip(a)));
}
