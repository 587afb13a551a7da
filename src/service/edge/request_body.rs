//! What a request's body may do before the RPC under it gives up on it:
//! send nothing for at most `transport.request_body_timeout` (a client
//! cannot hold an RPC slot and its reservations by sending a head and
//! never the body).
//!
//! The wait is tower-http's [`TimeoutBody`], which times out when the
//! body is polled and no frame comes within the time (it starts anew after
//! each frame). A body nobody polls, because its handler is busy, never
//! times out. The timeout becomes DEADLINE_EXCEEDED naming the setting; tonic
//! answers the call with it, h2 then resets the stream, and hyper closes an
//! HTTP/1.1 connection whose body was not read to its end.

use std::time::Duration;

use hyper::http;
use tonic::Status;
use tonic::body::Body;
use tower_http::timeout::{TimeoutBody, TimeoutError};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The layer that puts every request's body under `timeout`; `None`: the
/// bodies pass as they are.
pub fn timeout_layer(
    timeout: Option<Duration>,
) -> tower::util::MapRequestLayer<impl FnMut(http::Request<Body>) -> http::Request<Body> + Clone> {
    tower::util::MapRequestLayer::new(move |request: http::Request<Body>| match timeout {
        Some(timeout) => request.map(|body| with_timeout(body, timeout)),
        None => request,
    })
}

/// `body`, ended with DEADLINE_EXCEEDED once it has sent nothing for
/// `timeout` while being read.
fn with_timeout(body: Body, timeout: Duration) -> Body {
    use http_body_util::BodyExt;
    Body::new(
        TimeoutBody::new(timeout, body).map_err(move |e: BoxError| -> BoxError {
            if e.is::<TimeoutError>() {
                Box::new(stalled(timeout))
            } else {
                e
            }
        }),
    )
}

/// The status of a body that sent nothing for `timeout`.
pub fn stalled(timeout: Duration) -> Status {
    Status::deadline_exceeded(format!(
        "the request body sent nothing for {} (transport.request_body_timeout)",
        humantime_serde::re::humantime::format_duration(timeout)
    ))
}
