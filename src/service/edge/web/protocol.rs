//! Which protocol a call came in (gRPC, gRPC-Web or Connect): a request
//! extension set here, before gRPC-Web is translated away, and read where
//! the RPCs are counted (the `protocol` label). Streams that gRPC-Web
//! cannot carry (client-streaming and bidirectional: Solve, Check, Play)
//! are answered here with UNIMPLEMENTED and what to use instead.

use std::sync::Arc;
use std::time::Duration;

use hyper::http;
use hyper::http::header::CONTENT_TYPE;
use tonic::body::Body;
use tonic::{Code, Status};

use super::answer::{Answer, Answerer};
use crate::service::metrics::{Metrics, Protocol, Rpc};

impl Protocol {
    /// The protocol a request names by its content type (a Connect call is
    /// marked by [`super::connect`] before it gets here).
    fn of(request: &http::Request<Body>) -> Protocol {
        if let Some(&marked) = request.extensions().get::<Protocol>() {
            return marked;
        }
        let grpc_web = request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("application/grpc-web"));
        if grpc_web {
            Protocol::GrpcWeb
        } else {
            Protocol::Grpc
        }
    }
}

/// The StoneGame methods a gRPC-Web client cannot call, and what to use.
fn web_refusal(rpc: Rpc) -> Option<&'static str> {
    match rpc {
        Rpc::Play => Some(
            "Play is a bidirectional stream, which gRPC-Web cannot carry: play one call per \
             turn with PlayStep (docs/web.md)",
        ),
        Rpc::Solve => Some(
            "Solve is a bidirectional stream, which gRPC-Web cannot carry: ask SuggestMove per \
             position, or call Solve over gRPC (docs/web.md)",
        ),
        Rpc::Check => Some(
            "Check is a client stream, which gRPC-Web cannot carry: call it over gRPC, or run \
             `stonegame check` (docs/web.md)",
        ),
        _ => None,
    }
}

/// The layer marking each request with its [`Protocol`] and refusing the
/// streams gRPC-Web cannot carry (counted in `metrics`).
pub fn layer<S>(
    metrics: Arc<Metrics>,
) -> impl tower::Layer<S, Service = Answer<S, impl Answerer>> + Clone {
    super::answer::layer(move |request: &mut http::Request<Body>| {
        let protocol = Protocol::of(request);
        request.extensions_mut().insert(protocol);
        let path = request.uri().path();
        if protocol != Protocol::GrpcWeb || !path.starts_with("/stonegame.v1.StoneGame/") {
            return None;
        }
        let rpc = Rpc::of_path(path);
        let why = web_refusal(rpc)?;
        metrics.rpc_ended(rpc, Code::Unimplemented, protocol, Duration::ZERO);
        let mut response = Status::unimplemented(why).into_http::<Body>();
        if let Some(content_type) = request.headers().get(CONTENT_TYPE) {
            response
                .headers_mut()
                .insert(CONTENT_TYPE, content_type.clone());
        }
        Some(response)
    })
}
