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

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::http;
use hyper::http::header::{self, HeaderValue};
use hyper::http::{Method, StatusCode};
use prost::Message;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::body::Body;
use tonic::{Code, Status};

use crate::service::metrics::Protocol;
use crate::service::{metrics, pb};

/// The service whose methods are served as Connect JSON.
const SERVICE_PATH: &str = "/stonegame.v1.StoneGame/";

/// The unary methods (Connect's unary form carries only these).
const UNARY: [&str; 1] = ["SuggestMove"];

/// The layer of [`Connect`]: JSON request bodies of at most
/// `max_request_bytes` (as `limits.max_message_bytes` bounds a gRPC
/// message).
pub fn layer<S>(max_request_bytes: usize) -> impl tower::Layer<S, Service = Connect<S>> + Clone {
    tower::layer::layer_fn(move |inner| Connect {
        inner,
        max_request_bytes,
    })
}

/// Serves the unary StoneGame methods as Connect JSON, passes every other
/// request on.
#[derive(Debug, Clone)]
pub struct Connect<S> {
    inner: S,
    max_request_bytes: usize,
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
        let limit = self.max_request_bytes;
        match method {
            "SuggestMove" => Box::pin(async move {
                let answered = unary::<S, pb::SuggestMoveRequest, pb::SuggestMoveResponse>(
                    inner, request, limit,
                );
                Ok(answered
                    .await
                    .unwrap_or_else(|status| error_response(&status, None)))
            }),
            other => {
                let status = Status::unimplemented(format!(
                    "{other}: Connect JSON serves the unary methods ({}); call {other} over gRPC \
                     or gRPC-Web (docs/web.md)",
                    UNARY.join(", ")
                ));
                Box::pin(async move { Ok(error_response(&status, None)) })
            }
        }
    }
}

/// One unary call: JSON in, the gRPC call, JSON out. `Err`: the call
/// failed here, to be answered as a Connect error.
async fn unary<S, Req, Res>(
    mut inner: S,
    request: http::Request<Body>,
    limit: usize,
) -> Result<http::Response<Body>, Status>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
    Req: Message + DeserializeOwned + Default,
    Res: Message + Serialize + Default,
{
    let (parts, body) = request.into_parts();
    let collected = Limited::new(body, limit).collect().await.map_err(|e| {
        if e.is::<http_body_util::LengthLimitError>() {
            Status::resource_exhausted(format!(
                "the request body is larger than the limit of {limit} bytes \
                 (limits.max_message_bytes)"
            ))
        } else {
            Status::cancelled(format!("the request body was not received: {e}"))
        }
    })?;
    let message: Req = serde_json::from_slice(&collected.to_bytes()).map_err(|e| {
        Status::invalid_argument(format!(
            "the request is not the JSON of a {}: {e}",
            std::any::type_name::<Req>()
                .rsplit("::")
                .next()
                .unwrap_or("message")
        ))
    })?;
    let timeout = connect_timeout(&parts.headers);
    let grpc = grpc_request(parts, &message);
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
/// message framed, `connect-timeout-ms` as `grpc-timeout`.
fn grpc_request<M: Message>(mut parts: http::request::Parts, message: &M) -> http::Request<Body> {
    let encoded = message.encode_to_vec();
    let mut framed = Vec::with_capacity(5 + encoded.len());
    framed.push(0);
    framed.extend_from_slice(&(encoded.len() as u32).to_be_bytes());
    framed.extend_from_slice(&encoded);
    let headers = &mut parts.headers;
    // The handlers see the deadline as gRPC's (their work stops with it).
    if let Some(t) = connect_timeout(headers)
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

/// The call's deadline, `connect-timeout-ms`.
fn connect_timeout(headers: &http::HeaderMap) -> Option<std::time::Duration> {
    let ms = headers.get("connect-timeout-ms")?.to_str().ok()?;
    ms.trim().parse().ok().map(std::time::Duration::from_millis)
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
            }),
            winning_moves: vec![],
            explanation: String::new(),
        })
        .expect("JSON");
        assert_eq!(
            out,
            r#"{"moverWins":true,"chosen":{"side":"SIDE_LEFT","take":"3"}}"#
        );
        let e = serde_json::from_str::<pb::SuggestMoveRequest>("{\"piles\": [1,\n \"x\"]}")
            .expect_err("not a number");
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
