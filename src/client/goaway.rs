//! Requests that raced a server's GOAWAY and never reached it.
//!
//! A server that closes a connection gracefully (`max_connection_age_ms`,
//! a drain) sends HTTP/2 GOAWAY naming the last stream it will process. A
//! request the client started on that connection before the GOAWAY arrived
//! fails without the server ever handling it, and tonic 0.14's `Channel`
//! reports it in one of two ways:
//!
//! * CANCELLED with a transport error below it (hyper's "connection
//!   closed" before the request was written);
//! * INTERNAL "h2 protocol error" whose source is a remote GOAWAY with
//!   `NO_ERROR` (the request was written, on a stream above the server's
//!   last one: refused unprocessed, RFC 9113 §6.8).
//!
//! Either is safe to resend, even for a call that is not idempotent; a
//! GOAWAY with an error code, or any other INTERNAL, is not recognised here.

use std::error::Error;

use tonic::{Code, Status};

/// Whether `status` is a request that raced the server's graceful GOAWAY
/// and was never processed by it (so resending it is safe).
pub fn never_reached_server(status: &Status) -> bool {
    match status.code() {
        Code::Cancelled => causes(status).any(|e| e.is::<tonic::transport::Error>()),
        Code::Internal => causes(status).any(|e| {
            e.downcast_ref::<h2::Error>().is_some_and(|e| {
                e.is_go_away() && e.is_remote() && e.reason() == Some(h2::Reason::NO_ERROR)
            })
        }),
        _ => false,
    }
}

/// The status's source and every cause below it.
fn causes(status: &Status) -> impl Iterator<Item = &(dyn Error + 'static)> {
    std::iter::successors(status.source(), |&e| e.source())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_statuses_are_not_races() {
        for code in [Code::Cancelled, Code::Internal, Code::Unavailable] {
            assert!(!never_reached_server(&Status::new(
                code,
                "h2 protocol error: http2 error"
            )));
        }
    }
}
