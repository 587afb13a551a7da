//! The CORS layer ([`tower_http::cors`]) of `web.cors_allowed_origins`:
//! preflights answered, `grpc-status`, `grpc-message` and `retry-after-ms`
//! exposed to the listed origins.

use hyper::http;

use crate::service::config::WebConfig;

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
