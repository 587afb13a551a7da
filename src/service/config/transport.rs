//! The `[transport]` table: the HTTP/2 and TCP limits against hostile
//! clients, which the edge's `transport` applies.

use std::num::{NonZeroU32, NonZeroUsize};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The `[transport]` table: HTTP/2 and TCP limits against hostile clients.
/// A duration of 0 turns the feature off where that is allowed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportConfig {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: streams open at once on one
    /// connection; the peer's streams beyond it are refused (RST_STREAM
    /// REFUSED_STREAM).
    pub max_concurrent_streams: NonZeroU32,
    /// SETTINGS_MAX_HEADER_LIST_SIZE: bytes of decoded request headers
    /// (metadata); a larger block is refused, not buffered.
    pub max_header_list_size: NonZeroU32,
    /// Streams a client may reset before the server accepted them
    /// (rapid reset, CVE-2023-44487); beyond: GOAWAY ENHANCE_YOUR_CALM.
    pub max_pending_accept_reset_streams: NonZeroUsize,
    /// Streams the server may reset because of the client's protocol
    /// errors (refused streams, bad frames, "MadeYouReset"); beyond:
    /// GOAWAY ENHANCE_YOUR_CALM.
    pub max_local_error_reset_streams: NonZeroUsize,
    /// Interval of the server's HTTP/2 PING on a connection it heard
    /// nothing from; 0 = no pings.
    #[serde(with = "humantime_serde")]
    pub http2_keepalive_interval: Duration,
    /// A PING not answered within this closes the connection (more than 0).
    #[serde(
        serialize_with = "humantime_serde::serialize",
        deserialize_with = "super::settings::positive_duration"
    )]
    pub http2_keepalive_timeout: Duration,
    /// TCP keepalive idle time of accepted sockets; 0 = off.
    #[serde(with = "humantime_serde")]
    pub tcp_keepalive: Duration,
    /// `TCP_NODELAY` on accepted sockets.
    pub tcp_nodelay: bool,
    /// A connection that has not sent the HTTP/2 preface and a frame
    /// header within this is closed, as is an HTTP/1.1 request head not
    /// complete this long after its first byte; 0 = no deadline.
    #[serde(with = "humantime_serde")]
    pub handshake_timeout: Duration,
    /// An HTTP/1.1 connection that sends no next request this long after
    /// an answer is closed (keep-alive idle); 0 = never.
    #[serde(with = "humantime_serde")]
    pub http1_keepalive_timeout: Duration,
    /// Client connections open at once; a connection accepted beyond it is
    /// closed at once.
    pub max_connections: NonZeroUsize,
    /// Client connections open at once from one IP address; one accepted
    /// beyond it is closed at once. 0 = no limit (behind a load balancer
    /// or ingress, where every connection comes from the proxy's address).
    pub max_connections_per_ip: usize,
    /// A request body that sends no byte for this long is ended: the call
    /// fails with DEADLINE_EXCEEDED, the HTTP/2 stream is reset, the
    /// HTTP/1.1 connection closed; 0 = no limit.
    #[serde(with = "humantime_serde")]
    pub request_body_timeout: Duration,
    /// A server stream whose client has taken no message for this long is
    /// cut (CANCELLED), its RPC slot and reservations freed; 0 = never.
    #[serde(with = "humantime_serde")]
    pub send_stall_timeout: Duration,
    /// Bytes of messages one server stream sends a second at most; 0 = no
    /// bound.
    pub max_stream_bytes_per_second: u64,
    /// tonic's per-request timeout: an RPC whose response headers are not
    /// ready within it ends with CANCELLED (for SuggestMove and Check this
    /// includes receiving the request); 0 = none (a client's `grpc-timeout`
    /// still applies).
    #[serde(with = "humantime_serde")]
    pub request_timeout: Duration,
}
