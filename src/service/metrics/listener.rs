//! The `/metrics` listener: `GET /metrics` (and `HEAD`) answered with the
//! scrape's OpenMetrics text over HTTP/1.1 (hyper, which tonic already
//! brings; no web framework), until the server stops.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Bytes;
use hyper::http;
use tokio::net::TcpListener;

use super::CONTENT_TYPE;

/// Renders the scrape's text.
pub type Render = Arc<dyn Fn() -> String + Send + Sync>;

/// How long a scraper may take to send its request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `GET /metrics` (and `HEAD`) on `listener` with `render`'s text,
/// over HTTP/1.1; any other path is 404, another method 405. Runs until
/// dropped (the connections are dropped with it).
pub async fn serve_http(listener: TcpListener, render: Render) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: wait instead of
                // spinning.
                tracing::warn!(error = %e, "cannot accept a metrics connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        while connections.try_join_next().is_some() {}
        let render = Arc::clone(&render);
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let response = respond(&request, &render);
                async move { Ok::<_, Infallible>(response) }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                tracing::debug!(error = %e, "metrics connection failed");
            }
        });
    }
}

/// The answer to one HTTP request.
fn respond<B>(
    request: &http::Request<B>,
    render: &Render,
) -> http::Response<http_body_util::Full<Bytes>> {
    let response = |status: http::StatusCode, content_type: &'static str, body: Bytes| {
        let mut response = http::Response::new(http_body_util::Full::new(body));
        *response.status_mut() = status;
        let value = http::HeaderValue::from_static(content_type);
        response
            .headers_mut()
            .insert(http::header::CONTENT_TYPE, value);
        response
    };
    let text = |status, body: &'static str| {
        response(status, "text/plain; charset=utf-8", Bytes::from(body))
    };
    if request.uri().path() != "/metrics" {
        return text(
            http::StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n",
        );
    }
    if request.method() != http::Method::GET && request.method() != http::Method::HEAD {
        let mut response = text(
            http::StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: GET /metrics\n",
        );
        response.headers_mut().insert(
            http::header::ALLOW,
            http::HeaderValue::from_static("GET, HEAD"),
        );
        return response;
    }
    response(http::StatusCode::OK, CONTENT_TYPE, Bytes::from(render()))
}
