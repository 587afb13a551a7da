//! The tower layer in front of the `StoneGame` RPCs ([`CallLayer`], added
//! with tonic's `LayerExt::named_layer`; health and reflection pass beside
//! it, uncounted). For each call it
//!
//! * reads the `grpc-timeout` header once and hands the handlers the call's
//!   deadline (and method) as a [`CallInfo`] request extension
//!   ([`super::limits::deadline`] reads it);
//! * counts the call once in `stonegame_rpc_requests_total{rpc,code,protocol}`
//!   and times it in `stonegame_rpc_duration_seconds`, when it *ends*: when
//!   its trailers leave (for streams: when the stream ends), or when it is
//!   dropped unfinished (`DEADLINE_EXCEEDED` past the client's deadline,
//!   else `CANCELLED`).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::{Bytes, Frame, SizeHint};
use hyper::http;
use tonic::body::Body;
use tonic::{Code, Status};
use tower::{Layer, Service};

use super::limits::{CallInfo, deadline_in};
use super::metrics::{Metrics, Rpc};
use super::web::Protocol;

/// The `grpc-status` in a header map, if any.
fn status_in(headers: &http::HeaderMap) -> Option<Code> {
    headers
        .get("grpc-status")
        .map(|v| Code::from_bytes(v.as_bytes()))
}

/// The layer: add it with tonic's `LayerExt::named_layer`, so the service
/// it makes answers to the inner one's name in the router.
#[derive(Debug, Clone)]
pub struct CallLayer {
    metrics: Arc<Metrics>,
}

impl CallLayer {
    /// Counts the calls in `metrics`.
    pub fn new(metrics: Arc<Metrics>) -> CallLayer {
        CallLayer { metrics }
    }
}

impl<S> Layer<S> for CallLayer {
    type Service = CountRpcs<S>;

    fn layer(&self, inner: S) -> CountRpcs<S> {
        CountRpcs {
            inner,
            metrics: Arc::clone(&self.metrics),
        }
    }
}

/// The service [`CallLayer`] makes.
#[derive(Debug, Clone)]
pub struct CountRpcs<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

impl<S, B, R> Service<http::Request<B>> for CountRpcs<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>, Error = Infallible>,
    S::Future: Send + 'static,
    R: hyper::body::Body<Data = Bytes> + Send + 'static,
    R::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let rpc = Rpc::of_path(request.uri().path());
        // The one reading of the call's grpc-timeout: the handlers take it
        // from the request's extensions (`limits::deadline`).
        let deadline = deadline_in(request.headers());
        request.extensions_mut().insert(CallInfo {
            rpc: rpc.label(),
            deadline,
        });
        let mut call = Call {
            metrics: Arc::clone(&self.metrics),
            rpc,
            protocol: request
                .extensions()
                .get::<Protocol>()
                .copied()
                .unwrap_or(Protocol::Grpc),
            started: Instant::now(),
            deadline,
            done: false,
        };
        let response = self.inner.call(request);
        Box::pin(async move {
            let (parts, body) = response.await?.into_parts();
            // An error returned by the handler is a trailers-only response:
            // its status is in the headers.
            if let Some(code) = status_in(&parts.headers) {
                call.finish(code);
            }
            let body = Body::new(CountedBody {
                inner: Body::new(body),
                call,
            });
            Ok(http::Response::from_parts(parts, body))
        })
    }
}

/// One RPC being counted; counts it once, when it ends or is dropped.
#[derive(Debug)]
struct Call {
    metrics: Arc<Metrics>,
    rpc: Rpc,
    protocol: Protocol,
    started: Instant,
    deadline: Option<Instant>,
    done: bool,
}

impl Call {
    fn finish(&mut self, code: Code) {
        if !self.done {
            self.done = true;
            self.metrics
                .rpc_ended(self.rpc, code, self.protocol, self.started.elapsed());
        }
    }
}

/// How close to its deadline a dropped call counts as `DEADLINE_EXCEEDED`.
/// tonic starts its deadline timer before this wrapper sees the call (the
/// router calls it on the call's first poll, once the stream's task runs),
/// and tokio's timers fire on millisecond ticks: a call that tonic ended at
/// its deadline is often dropped a little before the deadline reckoned
/// here, and was counted as `CANCELLED` (issue #22 saw 95 of 100 GetTables
/// calls with a 1 ms deadline counted; without this allowance, 59 of the 60
/// of `every_get_tables_call_is_counted_once_however_it_ends` in one run).
/// A client's own deadline timer (its cancel arrives about when the
/// deadline passes) is counted the same way.
const DEADLINE_SLACK: Duration = Duration::from_millis(5);

impl Drop for Call {
    /// Dropped unfinished: tonic dropped the handler at the client's
    /// deadline (`DEADLINE_EXCEEDED`: the deadline has passed, give or take
    /// [`DEADLINE_SLACK`]), or the client cancelled or went away
    /// (`CANCELLED`). Every call is counted once: here, or when its status
    /// went out ([`Call::finish`] counts only the first time).
    fn drop(&mut self) {
        let code = match self.deadline {
            Some(d) if Instant::now() + DEADLINE_SLACK >= d => Code::DeadlineExceeded,
            _ => Code::Cancelled,
        };
        self.finish(code);
    }
}

/// A response body that counts its RPC when its trailers (and so its
/// status) go out.
#[derive(Debug)]
struct CountedBody {
    inner: Body,
    call: Call,
}

impl hyper::body::Body for CountedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(code) = frame.trailers_ref().and_then(status_in) {
                    this.call.finish(code);
                }
            }
            Poll::Ready(Some(Err(status))) => this.call.finish(status.code()),
            Poll::Ready(None) => this.call.finish(Code::Unknown),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::metrics::InFlight;

    /// A service answering every call with `respond()` after `wait`.
    #[derive(Clone)]
    struct Fake {
        respond: fn() -> http::Response<Body>,
        wait: bool,
    }

    impl tonic::codegen::Service<http::Request<()>> for Fake {
        type Response = http::Response<Body>;
        type Error = Infallible;
        type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: http::Request<()>) -> Self::Future {
            let (respond, wait) = (self.respond, self.wait);
            Box::pin(async move {
                if wait {
                    std::future::pending::<()>().await;
                }
                Ok(respond())
            })
        }
    }

    fn request(method: &str, timeout: Option<&'static str>) -> http::Request<()> {
        let mut r = http::Request::new(());
        *r.uri_mut() = format!("/stonegame.v1.StoneGame/{method}").parse().unwrap();
        if let Some(t) = timeout {
            r.headers_mut()
                .insert("grpc-timeout", http::HeaderValue::from_static(t));
        }
        r
    }

    fn count(m: &Metrics, rpc: &str, code: &str) -> bool {
        m.encode(InFlight::default()).contains(&format!(
            "stonegame_rpc_requests_total{{rpc=\"{rpc}\",code=\"{code}\",protocol=\"grpc\"}} 1\n"
        ))
    }

    #[tokio::test]
    async fn rpcs_count_once_when_they_end() {
        use http_body_util::BodyExt;
        let m = Arc::new(Metrics::default());
        let never = Fake {
            respond: || unreachable!(),
            wait: true,
        };
        // Dropped unfinished: past its deadline, or not.
        let call = CallLayer::new(Arc::clone(&m))
            .layer(never.clone())
            .call(request("Check", Some("1m")));
        tokio::time::sleep(Duration::from_millis(5)).await;
        drop(call);
        assert!(count(&m, "Check", "DEADLINE_EXCEEDED"));
        drop(
            CallLayer::new(Arc::clone(&m))
                .layer(never)
                .call(request("Check", Some("1H"))),
        );
        assert!(count(&m, "Check", "CANCELLED"));

        // A trailers-only error: counted when the response leaves.
        let refused = Fake {
            respond: || Status::resource_exhausted("no").into_http(),
            wait: false,
        };
        let response = CallLayer::new(Arc::clone(&m))
            .layer(refused)
            .call(request("SuggestMove", None))
            .await
            .unwrap();
        assert!(count(&m, "SuggestMove", "RESOURCE_EXHAUSTED"));
        drop(response);

        // A stream: counted when its trailers leave, once.
        let streamed = Fake {
            respond: || {
                let mut trailers = http::HeaderMap::new();
                trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
                let frames = futures::stream::iter([
                    Ok::<_, Status>(Frame::data(Bytes::from_static(b"x"))),
                    Ok(Frame::trailers(trailers)),
                ]);
                http::Response::new(Body::new(http_body_util::StreamBody::new(frames)))
            },
            wait: false,
        };
        let mut body = CallLayer::new(Arc::clone(&m))
            .layer(streamed)
            .call(request("Generate", None))
            .await
            .unwrap()
            .into_body();
        assert!(body.frame().await.unwrap().unwrap().is_data());
        assert!(!count(&m, "Generate", "OK"));
        assert!(body.frame().await.unwrap().unwrap().is_trailers());
        assert!(count(&m, "Generate", "OK"));
        drop(body);
        assert!(!count(&m, "Generate", "CANCELLED"));
        let text = m.encode(InFlight::default());
        assert!(text.contains("stonegame_rpc_duration_seconds_count{rpc=\"Check\"} 2\n"));
    }

    /// Issue #22: every call counted once however it is dropped. A call
    /// dropped within [`DEADLINE_SLACK`] of its deadline was ended by it
    /// (tonic's timer started first); one dropped well before, by its
    /// client; a stream dropped after its headers and before its trailers
    /// (a client cancelling a GetTables it has started reading), by its
    /// client.
    #[tokio::test]
    async fn dropped_calls_count_once_with_their_cause() {
        use futures::StreamExt;
        use http_body_util::BodyExt;
        let m = Arc::new(Metrics::default());
        let never = Fake {
            respond: || unreachable!(),
            wait: true,
        };
        drop(
            CallLayer::new(Arc::clone(&m))
                .layer(never.clone())
                .call(request("Solve", Some("3m"))),
        );
        assert!(count(&m, "Solve", "DEADLINE_EXCEEDED"));
        drop(
            CallLayer::new(Arc::clone(&m))
                .layer(never)
                .call(request("Solve", Some("200m"))),
        );
        assert!(count(&m, "Solve", "CANCELLED"));
        let endless = Fake {
            respond: || {
                let frames =
                    futures::stream::iter([Ok::<_, Status>(Frame::data(Bytes::from_static(b"x")))])
                        .chain(futures::stream::pending());
                http::Response::new(Body::new(http_body_util::StreamBody::new(frames)))
            },
            wait: false,
        };
        let mut body = CallLayer::new(Arc::clone(&m))
            .layer(endless)
            .call(request("GetTables", Some("1H")))
            .await
            .unwrap()
            .into_body();
        assert!(body.frame().await.unwrap().unwrap().is_data());
        assert!(!count(&m, "GetTables", "CANCELLED"));
        assert!(
            !m.encode(InFlight::default())
                .contains("stonegame_rpc_duration_seconds_count{rpc=\"GetTables\"} 1\n")
        );
        drop(body);
        assert!(count(&m, "GetTables", "CANCELLED"));
        let text = m.encode(InFlight::default());
        assert!(text.contains("stonegame_rpc_duration_seconds_count{rpc=\"GetTables\"} 1\n"));
        assert!(text.contains("stonegame_rpc_duration_seconds_count{rpc=\"Solve\"} 2\n"));
    }
}
