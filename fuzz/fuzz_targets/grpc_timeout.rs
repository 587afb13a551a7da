//! The `grpc-timeout` request header: `service::limits::parse_grpc_timeout`
//! on arbitrary text and `service::limits::deadline_in` on arbitrary header
//! bytes (what a client sends with every call; the server's call layer
//! reads it once and hands the deadline to the handlers).
//!
//! Input: the header value's bytes.
//!
//! Holds: no panic; a value is accepted exactly when it is 1 to 8 ASCII
//! digits and one of the units `H M S m u n` (the gRPC spec), and then
//! means exactly that duration; `deadline_in` finds a deadline exactly when
//! the header holds such a value.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use stonegame::service::state::limits::{deadline_in, parse_grpc_timeout};
use tonic::codegen::http::{HeaderMap, HeaderValue};

/// The spec's reading, independently of the server's (which works on
/// bytes, folds the digits and picks a `Duration` constructor per unit):
/// text split at its last character, the digits parsed by the standard
/// library, the unit as nanoseconds, the product in 128 bits.
fn reference(text: &[u8]) -> Option<Duration> {
    let text = std::str::from_utf8(text).ok()?;
    let unit = text.chars().next_back()?;
    let digits = &text[..text.len() - unit.len_utf8()];
    // `u64::from_str` also takes a leading `+`; the spec only digits.
    if !(1..=8).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: u128 = digits.parse().ok()?;
    let nanos_per_unit: u128 = match unit {
        'H' => 3_600 * 1_000_000_000,
        'M' => 60 * 1_000_000_000,
        'S' => 1_000_000_000,
        'm' => 1_000_000,
        'u' => 1_000,
        'n' => 1,
        _ => return None,
    };
    let nanos = value * nanos_per_unit;
    Some(Duration::new(
        u64::try_from(nanos / 1_000_000_000).ok()?,
        (nanos % 1_000_000_000) as u32,
    ))
}

fuzz_target!(|data: &[u8]| {
    let want = reference(data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(parse_grpc_timeout(text), want, "{text:?}");
    }
    if let Ok(value) = HeaderValue::from_bytes(data) {
        let mut headers = HeaderMap::new();
        headers.insert("grpc-timeout", value);
        assert_eq!(deadline_in(&headers).is_some(), want.is_some(), "{data:?}");
    }
});
