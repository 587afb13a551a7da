//! Shared helpers of the service tests: an in-process server on
//! 127.0.0.1:0 and a generated tonic client connected to it.

#![allow(dead_code)]

use std::future::Future;
use std::time::Duration;

use stonegame::service::config::Config;
use stonegame::service::pb;
use stonegame::service::pb::stone_game_client::StoneGameClient;
use stonegame::service::{RunningServer, start};
use tonic::transport::Channel;

/// The default configuration on an ephemeral loopback port, two workers,
/// adjusted by `f`.
pub fn config(f: impl FnOnce(&mut Config)) -> Config {
    let mut c = Config::defaults().expect("embedded defaults load");
    c.listen = "127.0.0.1:0".into();
    c.workers = 2;
    c.shutdown_grace_ms = 2_000;
    f(&mut c);
    c
}

/// Starts a server with `config(f)`.
pub async fn server(f: impl FnOnce(&mut Config)) -> RunningServer {
    start(&config(f)).await.expect("server starts")
}

/// A generated client connected to `server`.
pub async fn client(server: &RunningServer) -> StoneGameClient<Channel> {
    let channel = channel(server).await;
    StoneGameClient::new(channel).max_decoding_message_size(64 << 20)
}

/// A fresh connection to `server`.
pub async fn channel(server: &RunningServer) -> Channel {
    tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .expect("valid url")
        .connect()
        .await
        .expect("connects")
}

/// One case.
pub fn case(id: impl Into<String>, piles: Vec<u64>, variant: pb::Variant) -> pb::Case {
    pb::Case {
        id: id.into(),
        piles,
        variant: variant as i32,
    }
}

/// Polls `cond` until it holds. Not a timing assertion: the bound only keeps
/// a broken build from hanging CI forever.
pub async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..12_000 {
        if cond() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}

/// Like [`eventually`] with an async condition.
pub async fn eventually_async<F, Fut>(what: &str, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    for _ in 0..12_000 {
        if cond().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}
