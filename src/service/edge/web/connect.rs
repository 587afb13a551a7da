//! The Connect protocol's unary JSON form (docs/web.md), for curl and any
//! language with an HTTP client: `POST /stonegame.v1.StoneGame/SuggestMove`
//! with `Content-Type: application/json` and the proto3 JSON mapping of the
//! request (the serde impls pbjson generates for the prost types); the
//! answer is the response as JSON, or a Connect error
//! `{"code": "...", "message": "..."}` with the HTTP status Connect maps
//! the code to.
//!
//! A JSON call is turned into the gRPC call of the same method (the same
//! headers, `connect-timeout-ms` as `grpc-timeout`, and kept here: tonic
//! reads `grpc-timeout` before these layers) and sent on to the
//! gRPC router, so bearer tokens, admission, deadlines and metrics are the
//! ones every other call meets; only the encoding differs.
//!
//! The body is bounded before it is parsed, so that a JSON call costs what
//! the same call in binary costs:
//!
//! * its size: at most [`json_body_limit`] — 64 bytes for each of
//!   `limits.max_piles` piles (a pile and its comma take at most 22 bytes in
//!   JSON, a quoted 19-digit number; the rest leaves room for any
//!   pretty-printer's indentation) and 64 KiB for the other fields, and never
//!   more than `limits.max_message_bytes`; a `content-length` above it is
//!   refused before the body is read;
//! * its row: [`pile_count`](super::pile_count) counts the elements of
//!   `piles` in each chunk as it arrives and refuses the call at the first
//!   pile past
//!   `limits.max_piles`, with the code and the message form of the RPC's own
//!   refusal (RESOURCE_EXHAUSTED, `piles: the row has at least N piles, more
//!   than the limit of M`), counted in the RPC metrics as that refusal was.
//!
//! A scan of the bytes rather than serde's streaming with a counting seed:
//! serde_json parses from a slice or a blocking `Read`, so counting while
//! parsing would mean buffering the body first (the cost this avoids) or a
//! blocking thread per call; the scan runs on each chunk as it arrives, stops
//! at max_piles + 1 elements (about 400 KB of `1,`), and serde_json then
//! parses only bodies within both bounds. Like a body over the size limit,
//! a row over the pile limit is refused here, before the bearer token is
//! checked.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::http;
use hyper::http::header::{self, HeaderValue};
use hyper::http::{Method, StatusCode};
use prost::Message;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::body::Body;
use tonic::{Code, Status};

use super::pile_count::PileCounter;
use crate::service::config::Limits;
use crate::service::metrics::{Metrics, Protocol, Rpc};
use crate::service::{metrics, pb};

/// The service whose methods are served as Connect JSON.
const SERVICE_PATH: &str = "/stonegame.v1.StoneGame/";

/// The unary methods (Connect's unary form carries only these).
const UNARY: [&str; 1] = ["SuggestMove"];

/// What the JSON of one pile may take, its comma and whitespace included
/// (a quoted 19-digit number and a comma are 22 bytes).
const JSON_BYTES_PER_PILE: usize = 64;

/// What the JSON of a request may take besides its piles.
const JSON_BYTES_BESIDE_PILES: usize = 64 * 1024;

/// Text of the client's echoed back in an error (a JSON key or value, a
/// header) is cut to this many bytes.
pub const ECHO_BYTES: usize = 256;

/// The largest JSON body of a request of at most `max_piles` piles:
/// [`JSON_BYTES_PER_PILE`] a pile and [`JSON_BYTES_BESIDE_PILES`], at most
/// `max_message_bytes`.
pub fn json_body_limit(max_piles: usize, max_message_bytes: usize) -> usize {
    max_piles
        .saturating_mul(JSON_BYTES_PER_PILE)
        .saturating_add(JSON_BYTES_BESIDE_PILES)
        .min(max_message_bytes)
}

/// The limits of a JSON call, from `[limits]`.
#[derive(Debug, Clone, Copy)]
struct JsonLimits {
    /// [`json_body_limit`].
    body_bytes: usize,
    /// `limits.max_piles`.
    max_piles: usize,
    /// `limits.max_message_bytes`.
    max_message_bytes: usize,
}

/// The layer of [`Connect`]: JSON request bodies within `limits`
/// ([`json_body_limit`], `limits.max_piles`); the rows refused for their
/// length are counted in `metrics`.
pub fn layer<S>(
    limits: &Limits,
    metrics: Arc<Metrics>,
) -> impl tower::Layer<S, Service = Connect<S>> + Clone + use<S> {
    let (max_piles, max_message_bytes) = (limits.max_piles.get(), limits.max_message_bytes.get());
    let limits = JsonLimits {
        body_bytes: json_body_limit(max_piles, max_message_bytes),
        max_piles,
        max_message_bytes,
    };
    tower::layer::layer_fn(move |inner| Connect {
        inner,
        limits,
        metrics: Arc::clone(&metrics),
    })
}

/// Serves the unary StoneGame methods as Connect JSON, passes every other
/// request on.
#[derive(Debug, Clone)]
pub struct Connect<S> {
    inner: S,
    limits: JsonLimits,
    metrics: Arc<Metrics>,
}

/// Is this a Connect JSON request (a POST of `application/json`)?
fn is_json_post(request: &http::Request<Body>) -> bool {
    request.method() == Method::POST
        && request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// Why a StoneGame method other than the unary ones is not served as JSON,
/// and what to use instead.
fn not_unary(method: &str) -> String {
    let served = UNARY.join(", ");
    match method {
        "Solve" => "Solve is a bidirectional stream, which neither Connect's unary JSON nor \
                    gRPC-Web can carry: call it over native gRPC (HTTP/2, application/grpc), or \
                    ask SuggestMove per position (docs/web.md)"
            .into(),
        "Check" => "Check is a client stream, which neither Connect's unary JSON nor gRPC-Web \
                    can carry: call it over native gRPC (HTTP/2, application/grpc), or run \
                    `stonegame check` (docs/web.md)"
            .into(),
        "Play" => "Play is a bidirectional stream, which neither Connect's unary JSON nor \
                   gRPC-Web can carry: play one call per turn with PlayStep over gRPC-Web or \
                   gRPC (docs/web.md)"
            .into(),
        "GetTables" | "Generate" | "PlayStep" => format!(
            "{method} is a server stream: Connect JSON serves the unary methods ({served}); \
             call {method} over gRPC-Web or gRPC (docs/web.md)"
        ),
        other => format!(
            "`{}` is not a method of stonegame.v1.StoneGame (Connect JSON serves {served})",
            cut(other, ECHO_BYTES)
        ),
    }
}

impl<S> tower::Service<http::Request<Body>> for Connect<S>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let path = request.uri().path();
        let Some(method) = path.strip_prefix(SERVICE_PATH) else {
            return Box::pin(self.inner.call(request));
        };
        if !is_json_post(&request) {
            return Box::pin(self.inner.call(request));
        }
        // The ready service answers this call; a clone waits for the next
        // (tower's contract for services called from a spawned future).
        let inner = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, inner);
        let limits = self.limits;
        let metrics = Arc::clone(&self.metrics);
        match method {
            "SuggestMove" => Box::pin(async move {
                let answered = unary::<S, pb::SuggestMoveRequest, pb::SuggestMoveResponse>(
                    inner,
                    request,
                    limits,
                    (Rpc::SuggestMove, &metrics),
                );
                Ok(answered
                    .await
                    .unwrap_or_else(|status| error_response(&status, None)))
            }),
            other => {
                let status = Status::unimplemented(not_unary(other));
                Box::pin(async move { Ok(error_response(&status, None)) })
            }
        }
    }
}

/// The body of a JSON call, received within `limits`: refused at a
/// `content-length` or a received size past [`JsonLimits::body_bytes`], or
/// at the first pile past `limits.max_piles` (counted in `metrics` as the
/// RPC's refusal).
async fn receive(
    headers: &http::HeaderMap,
    mut body: Body,
    limits: JsonLimits,
    (rpc, metrics): (Rpc, &Metrics),
) -> Result<Vec<u8>, Status> {
    let started = Instant::now();
    let too_large = || {
        Status::resource_exhausted(format!(
            "the request body is larger than the limit of {} bytes (for JSON: {} bytes for each \
             of limits.max_piles = {} piles and {} for the other fields, at most \
             limits.max_message_bytes = {})",
            limits.body_bytes,
            JSON_BYTES_PER_PILE,
            limits.max_piles,
            JSON_BYTES_BESIDE_PILES,
            limits.max_message_bytes
        ))
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limits.body_bytes as u64) {
        return Err(too_large());
    }
    let mut received = Vec::with_capacity(declared.unwrap_or(0) as usize);
    let mut piles = PileCounter::new(limits.max_piles);
    while let Some(frame) = body.frame().await {
        let frame = frame
            .map_err(|e| Status::cancelled(format!("the request body was not received: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if received.len() + data.len() > limits.body_bytes {
            return Err(too_large());
        }
        if let Err(e) = piles.feed(&data) {
            metrics.rpc_ended(
                rpc,
                Code::ResourceExhausted,
                Protocol::Connect,
                started.elapsed(),
            );
            return Err(Status::resource_exhausted(e.to_string()));
        }
        received.extend_from_slice(&data);
    }
    Ok(received)
}

/// serde_json's error, with the text it quotes from the request cut to
/// [`ECHO_BYTES`] and where it is (line and column) kept.
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&at) {
        Some(message) => format!("{}{at}", cut(message, ECHO_BYTES)),
        None => cut(&text, ECHO_BYTES).into_owned(),
    }
}

/// `text` cut to at most `max` bytes at a char boundary, "…" marking the cut.
pub fn cut(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end]).into()
}

/// One unary call: JSON in, the gRPC call, JSON out. `Err`: the call
/// failed here, to be answered as a Connect error.
async fn unary<S, Req, Res>(
    mut inner: S,
    request: http::Request<Body>,
    limits: JsonLimits,
    counted: (Rpc, &Metrics),
) -> Result<http::Response<Body>, Status>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
    Req: Message + DeserializeOwned + Default,
    Res: Message + Serialize + Default,
{
    let (parts, body) = request.into_parts();
    let timeout = connect_timeout(&parts.headers)?;
    let received = receive(&parts.headers, body, limits, counted).await?;
    let message: Req = serde_json::from_slice(&received).map_err(|e| {
        Status::invalid_argument(format!(
            "the request is not the JSON of a {}: {}",
            std::any::type_name::<Req>()
                .rsplit("::")
                .next()
                .unwrap_or("message"),
            json_error(&e)
        ))
    })?;
    drop(received);
    let grpc = grpc_request(parts, &message, timeout);
    // tonic reads `grpc-timeout` before these layers run, so a Connect
    // deadline is kept here: past it, the call is dropped (which cancels
    // its work) and answered `deadline_exceeded`.
    let call = async {
        let response = match inner.call(grpc).await {
            Ok(response) => response,
            Err(never) => match never {},
        };
        let (parts, body) = response.into_parts();
        body.collect().await.map(|collected| (parts, collected))
    };
    let answered = match timeout {
        Some(t) => tokio::time::timeout(t, call).await.map_err(|_| {
            Status::deadline_exceeded(format!(
                "no answer within connect-timeout-ms ({} ms)",
                t.as_millis()
            ))
        })?,
        None => call.await,
    };
    let (parts, collected) =
        answered.map_err(|e| Status::internal(format!("the response was cut: {e}")))?;
    let trailers = collected.trailers().cloned();
    let data = collected.to_bytes();
    // A trailers-only answer (an error before any message) has its status
    // in the headers.
    let status = Status::from_header_map(&parts.headers)
        .or_else(|| trailers.as_ref().and_then(Status::from_header_map))
        .unwrap_or_else(|| Status::unknown("the call ended without a grpc-status"));
    if status.code() != Code::Ok {
        let metadata = trailers.as_ref().unwrap_or(&parts.headers);
        return Ok(error_response(&status, Some(metadata)));
    }
    let message = data
        .get(5..)
        .filter(|_| data.first() == Some(&0))
        .and_then(|m| Res::decode(m).ok())
        .ok_or_else(|| Status::internal("the gRPC answer was not one uncompressed message"))?;
    let json = serde_json::to_vec(&message)
        .map_err(|e| Status::internal(format!("the answer could not be written as JSON: {e}")))?;
    Ok(json_response(StatusCode::OK, json))
}

/// The gRPC request of a Connect call: its headers (tokens and all), the
/// message framed, the deadline of `connect-timeout-ms` as `grpc-timeout`.
fn grpc_request<M: Message>(
    mut parts: http::request::Parts,
    message: &M,
    timeout: Option<Duration>,
) -> http::Request<Body> {
    let encoded = message.encode_to_vec();
    let mut framed = Vec::with_capacity(5 + encoded.len());
    framed.push(0);
    framed.extend_from_slice(&(encoded.len() as u32).to_be_bytes());
    framed.extend_from_slice(&encoded);
    let headers = &mut parts.headers;
    // The handlers see the deadline as gRPC's (their work stops with it).
    if let Some(t) = timeout
        && let Ok(value) = HeaderValue::from_str(&format!("{}m", t.as_millis().min(99_999_999)))
    {
        headers.insert("grpc-timeout", value);
    }
    headers.remove("connect-timeout-ms");
    headers.remove(header::CONTENT_LENGTH);
    headers.remove("connect-protocol-version");
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/grpc"),
    );
    headers.insert(header::TE, HeaderValue::from_static("trailers"));
    parts.version = http::Version::HTTP_2;
    parts.extensions.insert(Protocol::Connect);
    http::Request::from_parts(parts, Body::new(Full::new(Bytes::from(framed))))
}

/// The call's deadline, `connect-timeout-ms`: 1 to 10 digits (the Connect
/// protocol's `1*10 DIGIT`), milliseconds; anything else is
/// `invalid_argument` naming the header.
fn connect_timeout(headers: &http::HeaderMap) -> Result<Option<Duration>, Status> {
    let Some(value) = headers.get("connect-timeout-ms") else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(value.as_bytes());
    let digits = text.trim();
    if (1..=10).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(ms) = digits.parse::<u64>()
    {
        return Ok(Some(Duration::from_millis(ms)));
    }
    Err(Status::invalid_argument(format!(
        "connect-timeout-ms: `{}` is not a deadline in milliseconds (1 to 10 digits)",
        cut(&text, ECHO_BYTES)
    )))
}

/// The HTTP status Connect maps a code to.
fn http_status(code: Code) -> StatusCode {
    match code {
        Code::Ok => StatusCode::OK,
        Code::Cancelled => StatusCode::from_u16(499).unwrap_or(StatusCode::BAD_REQUEST),
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => {
            StatusCode::BAD_REQUEST
        }
        Code::DeadlineExceeded => StatusCode::GATEWAY_TIMEOUT,
        Code::NotFound => StatusCode::NOT_FOUND,
        Code::AlreadyExists | Code::Aborted => StatusCode::CONFLICT,
        Code::PermissionDenied => StatusCode::FORBIDDEN,
        Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        Code::Unimplemented => StatusCode::NOT_IMPLEMENTED,
        Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        Code::Unknown | Code::Internal | Code::DataLoss => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The Connect name of a code: gRPC's in lower case (`invalid_argument`),
/// but `canceled` spelt as Connect spells it.
fn code_name(code: Code) -> String {
    match code {
        Code::Cancelled => "canceled".into(),
        code => metrics::code_name(code).to_ascii_lowercase(),
    }
}

/// The error body of Connect.
#[derive(Serialize)]
struct ConnectError<'a> {
    code: String,
    message: &'a str,
}

/// A Connect error answer; `retry-after-ms` of the call's metadata, when
/// it has one, is sent as a header too.
fn error_response(status: &Status, metadata: Option<&http::HeaderMap>) -> http::Response<Body> {
    let body = ConnectError {
        code: code_name(status.code()),
        message: status.message(),
    };
    let json = serde_json::to_vec(&body).unwrap_or_else(|_| b"{\"code\":\"internal\"}".to_vec());
    let mut response = json_response(http_status(status.code()), json);
    if let Some(retry) = metadata.and_then(|m| m.get("retry-after-ms")) {
        response
            .headers_mut()
            .insert("retry-after-ms", retry.clone());
    }
    response
}

fn json_response(status: StatusCode, json: Vec<u8>) -> http::Response<Body> {
    let body = Body::new(Full::new(Bytes::from(json)));
    super::answer::response(status, "application/json", body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code maps to the status the Connect protocol lists.
    #[test]
    fn codes_map_as_connect_says() {
        let table = [
            (Code::Cancelled, 499, "canceled"),
            (Code::Unknown, 500, "unknown"),
            (Code::InvalidArgument, 400, "invalid_argument"),
            (Code::DeadlineExceeded, 504, "deadline_exceeded"),
            (Code::NotFound, 404, "not_found"),
            (Code::AlreadyExists, 409, "already_exists"),
            (Code::PermissionDenied, 403, "permission_denied"),
            (Code::ResourceExhausted, 429, "resource_exhausted"),
            (Code::FailedPrecondition, 400, "failed_precondition"),
            (Code::Aborted, 409, "aborted"),
            (Code::OutOfRange, 400, "out_of_range"),
            (Code::Unimplemented, 501, "unimplemented"),
            (Code::Internal, 500, "internal"),
            (Code::Unavailable, 503, "unavailable"),
            (Code::DataLoss, 500, "data_loss"),
            (Code::Unauthenticated, 401, "unauthenticated"),
        ];
        for (code, http, name) in table {
            assert_eq!(http_status(code).as_u16(), http, "{code:?}");
            assert_eq!(code_name(code), name);
        }
    }

    /// Echoed text is cut at a char boundary, marked; where stays.
    #[test]
    fn echoes_are_cut() {
        assert_eq!(cut("short", 8), "short");
        assert_eq!(cut("ééé", 3), "é…");
        let key = "k".repeat(1 << 20);
        let e = serde_json::from_str::<pb::SuggestMoveRequest>(&format!("{{\"{key}\": 1}}"))
            .expect_err("unknown field");
        let message = json_error(&e);
        assert!(message.len() < ECHO_BYTES + 64, "{message}");
        assert!(message.starts_with("unknown field `kkk"), "{message}");
        assert!(message.contains("… at line 1 column 10485"), "{message}");
    }

    /// `connect-timeout-ms` is 1 to 10 digits or refused by name.
    #[test]
    fn connect_timeout_is_digits_or_refused() {
        let of = |v: &str| {
            let mut headers = http::HeaderMap::new();
            headers.insert("connect-timeout-ms", HeaderValue::from_str(v).unwrap());
            connect_timeout(&headers)
        };
        assert_eq!(connect_timeout(&http::HeaderMap::new()).unwrap(), None);
        assert_eq!(of("250").unwrap(), Some(Duration::from_millis(250)));
        assert_eq!(
            of("9999999999").unwrap(),
            Some(Duration::from_millis(9_999_999_999))
        );
        for bad in ["", "soon", "-1", "1.5", "12345678901", "1e3"] {
            let e = of(bad).expect_err(bad);
            assert_eq!(e.code(), Code::InvalidArgument, "{bad}");
            assert!(e.message().starts_with("connect-timeout-ms: "), "{e}");
        }
        let e = of(&"9".repeat(4000)).expect_err("long");
        assert!(e.message().len() < ECHO_BYTES + 100, "{}", e.message());
    }

    /// The body limit follows max_piles, never above max_message_bytes.
    #[test]
    fn the_body_limit() {
        assert_eq!(json_body_limit(200_000, 16 << 20), 200_000 * 64 + 65_536);
        assert_eq!(json_body_limit(1_000_000, 16 << 20), 16 << 20);
        assert_eq!(json_body_limit(usize::MAX, 16 << 20), 16 << 20);
        // A pretty-printed row of the largest piles fits.
        let piles = vec![i64::MAX.to_string(); 1000];
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "piles": piles,
            "variant": "VARIANT_LEFTMOST",
            "strength": 0.123456789,
            "seed": u64::MAX.to_string(),
        }))
        .unwrap();
        assert!(text.len() <= json_body_limit(1000, 16 << 20));
    }

    /// The advice for each method JSON does not serve.
    #[test]
    fn advice_for_the_streams() {
        assert!(not_unary("Solve").contains("native gRPC"));
        assert!(not_unary("Check").contains("native gRPC"));
        assert!(not_unary("Play").contains("PlayStep"));
        for m in ["Solve", "Check", "Play"] {
            assert!(!not_unary(m).contains("over gRPC-Web or gRPC)"), "{m}");
        }
        assert!(not_unary("GetTables").contains("over gRPC-Web or gRPC"));
        assert!(not_unary(&"X".repeat(10_000)).len() < ECHO_BYTES + 100);
    }

    /// 64-bit integers are read from JSON strings and numbers, written as
    /// strings; enums by name; field names in lowerCamelCase.
    #[test]
    fn the_proto3_json_mapping() {
        let a: pb::SuggestMoveRequest = serde_json::from_str(
            r#"{"piles":["3",1,"18446744073709551615"],"variant":"VARIANT_LEFTMOST","seed":"7"}"#,
        )
        .expect("JSON");
        assert_eq!(a.piles, [3, 1, u64::MAX]);
        assert_eq!(a.variant, pb::Variant::Leftmost as i32);
        assert_eq!(a.seed, 7);
        let out = serde_json::to_string(&pb::SuggestMoveResponse {
            mover_wins: true,
            chosen: Some(pb::Move {
                side: pb::Side::Left as i32,
                take: 3,
                remaining: 0,
                remoteness_after: None,
            }),
            winning_moves: vec![],
            explanation: String::new(),
            ..Default::default()
        })
        .expect("JSON");
        assert_eq!(
            out,
            r#"{"moverWins":true,"chosen":{"side":"SIDE_LEFT","take":"3"}}"#
        );
        // A remoteness is a decimal string of plies, exact past 2^64 − 1;
        // a slope a number (sint64: a string).
        let out = serde_json::to_string(&pb::SuggestMoveResponse {
            remoteness: Some(pb::Remoteness::from(u128::from(u64::MAX) + 2)),
            move_ranges: vec![pb::MoveRange {
                side: pb::Side::Right as i32,
                left_min: 1,
                left_max: 5,
                mover_wins: false,
                remoteness_at_min: Some(pb::Remoteness::from(3)),
                slope: 2,
            }],
            ..Default::default()
        })
        .expect("JSON");
        assert_eq!(
            out,
            concat!(
                r#"{"remoteness":{"plies":"18446744073709551617"},"moveRanges":[{"side":"SIDE_RIGHT","#,
                r#""leftMin":"1","leftMax":"5","remotenessAtMin":{"plies":"3"},"slope":"2"}]}"#
            )
        );
        let e = serde_json::from_str::<pb::SuggestMoveRequest>("{\"piles\": [1,\n \"x\"]}")
            .expect_err("not a number");
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
