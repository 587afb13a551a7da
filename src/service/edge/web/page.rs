//! The page to play the bot (docs/web.md): `GET /` and its assets under
//! `/assets/`, served from the bundle built into the binary (`web/dist`,
//! built from `web/` and checked by `web/check`), so `stonegame serve`
//! needs no files beside it. Every answer carries a strict
//! Content-Security-Policy: the page loads only its own script and style
//! and talks only to its own origin. Other requests go on to the services.

use hyper::http;
use hyper::http::header::{self, HeaderValue};
use hyper::http::{Method, StatusCode};
use tonic::body::Body;

use super::answer::{Answer, Answerer};

/// The policy sent with the page: its own script, style and origin only,
/// no inline code, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// One file of the bundle.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

/// The bundle, as `web/build` writes it.
const ASSETS: [Asset; 3] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../../../../web/dist/index.html"),
    },
    Asset {
        path: "/assets/app.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../../web/dist/assets/app.js"),
    },
    Asset {
        path: "/assets/app.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../../../../web/dist/assets/app.css"),
    },
];

/// The asset at `path` (`/index.html` is `/`), with its validator.
fn asset(path: &str) -> Option<(&'static Asset, &'static str)> {
    let path = if path == "/index.html" { "/" } else { path };
    let i = ASSETS.iter().position(|a| a.path == path)?;
    Some((&ASSETS[i], ETAGS[i].as_str()))
}

/// A strong validator of an asset's bytes.
fn etag(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let digest = digest.as_ref();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// The assets' validators, in [`ASSETS`] order, hashed once.
static ETAGS: std::sync::LazyLock<Vec<String>> =
    std::sync::LazyLock::new(|| ASSETS.iter().map(|a| etag(a.bytes)).collect());

/// The answer to a GET or HEAD of `path`: the asset, 304 when the client
/// has it (`If-None-Match`), 404 for another path under `/assets/`;
/// `None` for anything else (it goes on to the services).
fn answer(request: &http::Request<Body>) -> Option<http::Response<Body>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return None;
    }
    let path = request.uri().path();
    let Some((asset, tag)) = asset(path) else {
        if path.starts_with("/assets/") || path == "/favicon.ico" {
            return Some(plain(StatusCode::NOT_FOUND, "not found\n"));
        }
        return None;
    };
    let fresh = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag));
    let (status, body) = if fresh {
        (StatusCode::NOT_MODIFIED, Body::empty())
    } else if request.method() == Method::HEAD {
        (StatusCode::OK, Body::empty())
    } else {
        (StatusCode::OK, static_body(asset.bytes))
    };
    let mut response = super::answer::response(status, asset.content_type, body);
    let headers = response.headers_mut();
    if status == StatusCode::OK {
        headers.insert(header::CONTENT_LENGTH, asset.bytes.len().into());
    }
    if let Ok(tag) = HeaderValue::from_str(tag) {
        headers.insert(header::ETAG, tag);
    }
    // Revalidated on every load (cheap: a 304), so a new server version's
    // page is never mixed with an old cached script.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    secure(headers);
    Some(response)
}

/// The headers every page answer carries.
fn secure(headers: &mut http::HeaderMap) {
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// A body of static bytes (an asset, a short text).
fn static_body(bytes: &'static [u8]) -> Body {
    Body::new(http_body_util::Full::new(hyper::body::Bytes::from_static(
        bytes,
    )))
}

fn plain(status: StatusCode, text: &'static str) -> http::Response<Body> {
    let mut response = super::answer::response(
        status,
        "text/plain; charset=utf-8",
        static_body(text.as_bytes()),
    );
    secure(response.headers_mut());
    response
}

/// The layer serving the page; `None` (`web.page = false`): no layer.
pub fn layer<S>(
    enabled: bool,
) -> Option<impl tower::Layer<S, Service = Answer<S, impl Answerer>> + Clone> {
    enabled.then(|| super::answer::layer(|request: &mut http::Request<Body>| answer(request)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_is_small_and_self_contained() {
        let total: usize = ASSETS.iter().map(|a| a.bytes.len()).sum();
        assert!(total < 200 * 1024, "the bundle is {total} bytes");
        let html = std::str::from_utf8(ASSETS[0].bytes).expect("UTF-8");
        assert!(html.contains("assets/app.js") && html.contains("assets/app.css"));
        for asset in &ASSETS {
            let text = String::from_utf8_lossy(asset.bytes);
            // Nothing loaded from another origin (the policy would block it).
            for scheme in ["http://", "https://"] {
                for attr in ["src=\"", "href=\"", "url(", "@import"] {
                    assert!(
                        !text.contains(&format!("{attr}{scheme}")),
                        "{} loads from elsewhere",
                        asset.path
                    );
                }
            }
        }
    }
}
