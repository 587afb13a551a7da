//! Browsers and plain HTTP on the gRPC port (docs/web.md): the `[web]`
//! configuration and the HTTP layers in front of the gRPC services.
//!
//! From the outside in, a request meets:
//!
//! 1. CORS ([`tower_http::cors`]), only when `web.cors_allowed_origins` lists
//!    origins: preflights answered, `grpc-status`, `grpc-message` and
//!    `retry-after-ms` exposed to the listed origins;
//! 2. the page ([`page`]): `GET /` and `/assets/…` answered from the bundle
//!    built into the binary, unless `web.page = false`;
//! 3. the Connect protocol's unary JSON form ([`connect`]), turned into a
//!    gRPC call of the same method and back;
//! 4. [`protocol::layer`]: which protocol the call came in
//!    ([`Protocol`], the `protocol` label of the RPC metrics), and a clear
//!    UNIMPLEMENTED for streams gRPC-Web cannot carry;
//! 5. gRPC-Web ([`tonic_web`]), translated to gRPC;
//!
//! and then the gRPC router, where the StoneGame service counts, checks
//! tokens and admits every call the same way whichever protocol it came in.

pub mod answer;
pub mod connect;
pub mod page;
pub mod protocol;

use hyper::http;
use serde::{Deserialize, Serialize};
use tonic::body::Body;

pub use protocol::Protocol;

/// An answer of `status` whose `body` is of `content_type` (the page's,
/// a Connect call's).
fn response(
    status: http::StatusCode,
    content_type: &'static str,
    body: Body,
) -> http::Response<Body> {
    let mut response = http::Response::new(body);
    *response.status_mut() = status;
    let value = http::HeaderValue::from_static(content_type);
    response
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, value);
    response
}

/// The `[web]` table: the page and the browsers' access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// Serve the page at `/` and its assets under `/assets/`.
    pub page: bool,
    /// Origins (`scheme://host[:port]`) whose pages may call the service
    /// from a browser (CORS); empty: the page's own origin only. `"*"`
    /// allows every origin and must be written alone. From the
    /// environment: one string, origins separated by commas.
    #[serde(deserialize_with = "origins")]
    pub cors_allowed_origins: Vec<String>,
}

impl WebConfig {
    /// Why an origin of `cors_allowed_origins` cannot be used, if one cannot.
    pub fn check(&self) -> Result<(), String> {
        let list = &self.cors_allowed_origins;
        if list.iter().any(|o| o == "*") && list.len() > 1 {
            return Err("\"*\" allows every origin and must be the only entry".into());
        }
        for origin in list.iter().filter(|o| *o != "*") {
            check_origin(origin).map_err(|why| format!("`{origin}` {why}"))?;
        }
        Ok(())
    }
}

/// An origin as browsers send it: `http://` or `https://`, a host, an
/// optional port, no path, no trailing slash.
fn check_origin(origin: &str) -> Result<(), &'static str> {
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .ok_or("is not an origin: it must start with http:// or https://")?;
    if rest.is_empty() {
        return Err("has no host");
    }
    if rest.contains(['/', '?', '#', ' ']) {
        return Err(
            "is not an origin: no path, query or trailing slash (e.g. https://example.org)",
        );
    }
    if http::HeaderValue::from_str(origin).is_err() {
        return Err("is not a valid header value");
    }
    Ok(())
}

/// `cors_allowed_origins` from a list (a config file) or from one string of
/// origins separated by commas (an environment variable).
fn origins<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ListOrText {
        List(Vec<String>),
        Text(String),
    }
    Ok(match ListOrText::deserialize(deserializer)? {
        ListOrText::List(list) => list,
        ListOrText::Text(text) => text
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .map(String::from)
            .collect(),
    })
}

/// The CORS layer of `config`: `None` when no origin is listed (browsers
/// then allow only the page's own origin).
pub fn cors(config: &WebConfig) -> Option<tower_http::cors::CorsLayer> {
    use http::{HeaderName, HeaderValue, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let list = &config.cors_allowed_origins;
    if list.is_empty() {
        return None;
    }
    let origin = if list.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(
            list.iter()
                .filter_map(|o| HeaderValue::from_str(o).ok())
                .collect::<Vec<_>>(),
        )
    };
    let header = HeaderName::from_static;
    Some(
        CorsLayer::new()
            .allow_origin(origin)
            .allow_methods([Method::POST, Method::GET, Method::OPTIONS])
            .allow_headers([
                header("content-type"),
                header("authorization"),
                header("x-grpc-web"),
                header("x-user-agent"),
                header("grpc-timeout"),
                header("connect-protocol-version"),
                header("connect-timeout-ms"),
            ])
            .expose_headers([
                header("grpc-status"),
                header("grpc-message"),
                header("grpc-status-details-bin"),
                header("retry-after-ms"),
            ])
            .max_age(std::time::Duration::from_secs(600)),
    )
}
