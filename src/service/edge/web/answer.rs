//! A layer that answers some requests itself and passes the others on,
//! the shape of the page ([`super::page`]) and of the protocol mark
//! ([`super::protocol`]): each is an [`Answerer`], a function of the
//! request, and this is its one tower `Service`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::http;
use tonic::body::Body;

/// Answers a request here (`Some`), or lets it go on (`None`), possibly
/// after marking it (an extension).
pub trait Answerer:
    Fn(&mut http::Request<Body>) -> Option<http::Response<Body>> + Clone + Send + 'static
{
}

impl<F> Answerer for F where
    F: Fn(&mut http::Request<Body>) -> Option<http::Response<Body>> + Clone + Send + 'static
{
}

/// The layer of an [`Answerer`].
pub fn layer<S, A: Answerer>(answerer: A) -> impl tower::Layer<S, Service = Answer<S, A>> + Clone {
    tower::layer::layer_fn(move |inner| Answer {
        inner,
        answerer: answerer.clone(),
    })
}

/// The service of an [`Answerer`] in front of `S`.
#[derive(Debug, Clone)]
pub struct Answer<S, A> {
    inner: S,
    answerer: A,
}

impl<S, A> tower::Service<http::Request<Body>> for Answer<S, A>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
    S::Future: Send + 'static,
    A: Answerer,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        match (self.answerer)(&mut request) {
            Some(response) => Box::pin(async move { Ok(response) }),
            None => Box::pin(self.inner.call(request)),
        }
    }
}

/// An answer of `status` whose `body` is of `content_type` (the page's,
/// a Connect call's).
pub(super) fn response(
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
