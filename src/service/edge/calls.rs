//! The tower layer in front of the `StoneGame` RPCs ([`layer`], added
//! with tonic's `LayerExt::named_layer`; health and reflection pass beside
//! it, uncounted). For each call it
//!
//! * reads the `grpc-timeout` header once and hands the handlers the call's
//!   deadline (and method) as a [`CallInfo`] request extension
//!   ([`crate::service::state::limits::deadline`] reads it);
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

use crate::service::metrics::Protocol;
use crate::service::metrics::{Metrics, Rpc};
use crate::service::state::limits::{CallInfo, deadline_in};

/// The `grpc-status` in a header map, if any.
fn status_in(headers: &http::HeaderMap) -> Option<Code> {
    headers
        .get("grpc-status")
        .map(|v| Code::from_bytes(v.as_bytes()))
}

/// The layer making [`CountRpcs`]: add it with tonic's
/// `LayerExt::named_layer`, so the service it makes answers to the inner
/// one's name in the router.
pub fn layer<S>(metrics: Arc<Metrics>) -> impl Layer<S, Service = CountRpcs<S>> + Clone {
    tower::layer::layer_fn(move |inner| CountRpcs {
        inner,
        metrics: Arc::clone(&metrics),
    })
}

/// Counts and times each call, and hands it its deadline.
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
mod tests;
