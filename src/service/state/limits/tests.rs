//! Unit tests of `limits`, in their own file beside it.

use super::*;

#[test]
fn budget_admits_and_releases() {
    let b = Budget::cells(100, 1);
    let r1 = b.try_reserve(60).unwrap();
    match b.try_reserve(50).unwrap_err() {
        AdmissionError::Busy { in_flight, .. } => assert_eq!(in_flight, 60),
        e => panic!("{e}"),
    }
    assert!(matches!(
        b.try_reserve(101),
        Err(AdmissionError::TooLarge { .. })
    ));
    drop(r1);
    assert_eq!(b.in_flight(), 0);
    let _r = b.try_reserve(100).unwrap();
    let s: Status = b.try_reserve(1).unwrap_err().into();
    assert_eq!(s.code(), tonic::Code::ResourceExhausted);
    let ms: u64 = s
        .metadata()
        .get("retry-after-ms")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        s.message().contains(&format!("retry after {ms} ms")),
        "{s:?}"
    );
    assert!(!s.message().contains("RetryInfo"), "{s:?}");
    let info = s.get_details_retry_info().expect("a RetryInfo detail");
    assert_eq!(info.retry_delay, Some(Duration::from_millis(ms)));
    let s: Status = b.try_reserve(101).unwrap_err().into();
    assert!(s.get_details_retry_info().is_none());
    assert!(s.metadata().get("retry-after-ms").is_none());
}

#[test]
fn a_reservation_follows_its_holders_use() {
    let b = Budget::piles(100);
    let mut r = b.try_reserve(80).unwrap();
    r.resize(10);
    assert_eq!(b.in_flight(), 10);
    let other = b.try_reserve(90).unwrap();
    // Growth is counted even past the maximum (the memory is in use).
    r.resize(30);
    assert_eq!(b.in_flight(), 120);
    assert!(b.try_reserve(1).is_err());
    assert!(b.try_reserve(1).map(|e| r.absorb(e)).is_err());
    assert_eq!(r.amount(), 30);
    drop(other);
    r.absorb(b.try_reserve(70).unwrap());
    assert_eq!(b.in_flight(), 100);
    r.resize(30);
    assert_eq!(r.amount(), 30);
    drop(r);
    assert_eq!(b.in_flight(), 0);
}

#[test]
fn grpc_timeouts_parse() {
    assert_eq!(parse_grpc_timeout("5S"), Some(Duration::from_secs(5)));
    assert_eq!(parse_grpc_timeout("250m"), Some(Duration::from_millis(250)));
    assert_eq!(parse_grpc_timeout("1H"), Some(Duration::from_secs(3600)));
    assert_eq!(parse_grpc_timeout("S"), None);
    assert_eq!(parse_grpc_timeout("123456789S"), None);
    assert_eq!(parse_grpc_timeout("1x"), None);
    assert_eq!(
        parse_grpc_timeout("99999999n"),
        Some(Duration::from_nanos(99_999_999))
    );
}

#[test]
fn grpc_timeout_ending_in_a_multibyte_character_is_refused() {
    // Panicked (a `str` split inside the character) before; found by
    // fuzz/fuzz_targets/grpc_timeout.rs.
    assert_eq!(parse_grpc_timeout("52\u{203}"), None);
    assert_eq!(parse_grpc_timeout("1é"), None);
    assert_eq!(parse_grpc_timeout("é"), None);
    assert_eq!(parse_grpc_timeout("12345678€"), None);
}

#[test]
fn an_rpc_stops_with_its_guard_the_server_or_its_deadline() {
    let server = CancellationToken::new();
    let rpc = Cancellation::new(&server, None);
    assert!(!rpc.is_cancelled());
    drop(rpc.token().clone().drop_guard());
    assert!(rpc.is_cancelled());
    assert_eq!(rpc.status("the check").message(), "the check was cancelled");
    assert!(!server.is_cancelled(), "a child never cancels its parent");

    let rpc = Cancellation::new(&server, None);
    server.cancel();
    assert!(rpc.is_cancelled());
    assert_eq!(rpc.status("the check").code(), Code::Cancelled);
    assert!(
        rpc.status("the check")
            .message()
            .contains("server shut down")
    );

    let past = Instant::now();
    let rpc = Cancellation::new(&CancellationToken::new(), Some(past));
    assert!(rpc.is_cancelled());
    assert_eq!(rpc.status("the check").code(), Code::DeadlineExceeded);
}

#[test]
fn cells() {
    assert_eq!(cells_of(1000, true), 499_500);
    assert_eq!(cells_of(1, true), 1);
    assert_eq!(cells_of(7, false), 7);
}
