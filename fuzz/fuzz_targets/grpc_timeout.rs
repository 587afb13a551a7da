//! The `grpc-timeout` request header: `service::limits::parse_grpc_timeout`
//! on arbitrary text and `service::limits::deadline` on arbitrary header
//! bytes (what a client sends with every call; the server-streaming RPCs
//! read it themselves).
//!
//! Input: the header value's bytes.
//!
//! Holds: no panic; a value is accepted exactly when it is 1 to 8 ASCII
//! digits and one of the units `H M S m u n` (the gRPC spec), and then
//! means exactly that duration; `deadline` finds a deadline exactly when
//! the header holds such a value.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use stonegame::service::limits::{deadline, parse_grpc_timeout};
use tonic::metadata::{MetadataMap, MetadataValue};

/// The spec's reading, independently.
fn reference(text: &[u8]) -> Option<Duration> {
    let (&unit, digits) = text.split_last()?;
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = digits
        .iter()
        .fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'));
    Some(match unit {
        b'H' => Duration::from_secs(v * 3600),
        b'M' => Duration::from_secs(v * 60),
        b'S' => Duration::from_secs(v),
        b'm' => Duration::from_millis(v),
        b'u' => Duration::from_micros(v),
        b'n' => Duration::from_nanos(v),
        _ => return None,
    })
}

fuzz_target!(|data: &[u8]| {
    let want = reference(data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(parse_grpc_timeout(text), want, "{text:?}");
    }
    if let Ok(value) = MetadataValue::try_from(data) {
        let mut metadata = MetadataMap::new();
        metadata.insert("grpc-timeout", value);
        assert_eq!(deadline(&metadata).is_some(), want.is_some(), "{data:?}");
    }
});
