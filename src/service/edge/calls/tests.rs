//! Unit tests of `calls`, in their own file beside it.

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
    let call = layer(Arc::clone(&m))
        .layer(never.clone())
        .call(request("Check", Some("1m")));
    tokio::time::sleep(Duration::from_millis(5)).await;
    drop(call);
    assert!(count(&m, "Check", "DEADLINE_EXCEEDED"));
    drop(
        layer(Arc::clone(&m))
            .layer(never)
            .call(request("Check", Some("1H"))),
    );
    assert!(count(&m, "Check", "CANCELLED"));

    // A trailers-only error: counted when the response leaves.
    let refused = Fake {
        respond: || Status::resource_exhausted("no").into_http(),
        wait: false,
    };
    let response = layer(Arc::clone(&m))
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
    let mut body = layer(Arc::clone(&m))
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
        layer(Arc::clone(&m))
            .layer(never.clone())
            .call(request("Solve", Some("3m"))),
    );
    assert!(count(&m, "Solve", "DEADLINE_EXCEEDED"));
    drop(
        layer(Arc::clone(&m))
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
    let mut body = layer(Arc::clone(&m))
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
