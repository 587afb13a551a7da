//! The browsers' protocols from Rust, for the load tester: SuggestMove over
//! gRPC-Web (tonic's generated client under tonic-web's client layer, on
//! hyper's HTTP/1.1 client) and as Connect JSON (the proto3 JSON mapping of
//! the generated types, POSTed as `application/json`). docs/web.md has
//! the protocols; docs/benchmarks.md what they cost beside gRPC. Which
//! protocol a load test speaks ([`WebProtocol`]) is one of its parameters
//! ([`super::loadspec`]).

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::http;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tonic_web::{GrpcWebCall, GrpcWebClientService};

use super::error::ClientError;
use crate::wire::pb;
use crate::wire::pb::stone_game_client::StoneGameClient;

// Defined beside the rest of a load test's parameters (loadspec imports
// nothing from here); its path here is kept.
pub use super::loadspec::WebProtocol;

type WebTransport = GrpcWebClientService<HttpClient<HttpConnector, GrpcWebCall<tonic::body::Body>>>;

/// A client of one of the browsers' protocols (cheap to clone: the
/// connection pool is shared, one HTTP/1.1 connection per request in
/// flight).
#[derive(Debug, Clone)]
pub enum WebClient {
    /// gRPC-Web.
    GrpcWeb(StoneGameClient<WebTransport>),
    /// Connect JSON: the pool and the SuggestMove URL.
    Json(HttpClient<HttpConnector, Full<Bytes>>, http::Uri),
}

impl WebClient {
    /// A client of `protocol` (not [`WebProtocol::Grpc`]) for the server at
    /// `url` (`http://HOST:PORT`: the browsers' protocols are measured in
    /// plaintext).
    pub fn new(protocol: WebProtocol, url: &str) -> Result<WebClient, ClientError> {
        let bad = |reason: String| ClientError::WebUrl {
            url: url.to_string(),
            reason,
        };
        let base = url.trim_end_matches('/');
        let origin: http::Uri = base.parse().map_err(|e| bad(format!("{e}")))?;
        if origin.scheme_str() != Some("http") {
            return Err(bad(
                "gRPC-Web and JSON load tests take one http://HOST:PORT URL".into(),
            ));
        }
        match protocol {
            WebProtocol::GrpcWeb => {
                let http = HttpClient::builder(TokioExecutor::new()).build_http();
                Ok(WebClient::GrpcWeb(StoneGameClient::with_origin(
                    GrpcWebClientService::new(http),
                    origin,
                )))
            }
            WebProtocol::Grpc => Err(bad(
                "gRPC goes through the gRPC client, not a web one".into()
            )),
            WebProtocol::Json => {
                let uri = format!("{base}/stonegame.v1.StoneGame/SuggestMove")
                    .parse()
                    .map_err(|e| bad(format!("{e}")))?;
                Ok(WebClient::Json(
                    HttpClient::builder(TokioExecutor::new()).build_http(),
                    uri,
                ))
            }
        }
    }

    /// One SuggestMove.
    pub async fn suggest(
        &mut self,
        request: pb::SuggestMoveRequest,
    ) -> Result<pb::SuggestMoveResponse, ClientError> {
        match self {
            WebClient::GrpcWeb(client) => Ok(client
                .suggest_move(request)
                .await
                .map_err(ClientError::from)?
                .into_inner()),
            WebClient::Json(http, uri) => {
                let body = serde_json::to_vec(&request)
                    .map_err(|e| ClientError::Protocol(format!("JSON: {e}")))?;
                let post = http::Request::post(uri.clone())
                    .header(http::header::CONTENT_TYPE, "application/json")
                    .body(Full::new(Bytes::from(body)))
                    .map_err(|e| ClientError::Protocol(format!("the request: {e}")))?;
                let response = http
                    .request(post)
                    .await
                    .map_err(|e| ClientError::Protocol(format!("JSON call: {e}")))?;
                let status = response.status();
                let bytes = response
                    .into_body()
                    .collect()
                    .await
                    .map_err(|e| ClientError::Protocol(format!("JSON answer: {e}")))?
                    .to_bytes();
                if !status.is_success() {
                    return Err(ClientError::Protocol(format!(
                        "JSON call: HTTP {status}: {}",
                        String::from_utf8_lossy(&bytes)
                    )));
                }
                serde_json::from_slice(&bytes)
                    .map_err(|e| ClientError::Protocol(format!("JSON answer: {e}")))
            }
        }
    }
}
