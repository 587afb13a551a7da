//! What a load test sends and what it measured ([`LoadSpec`],
//! [`LoadReport`]), the protocol it speaks ([`WebProtocol`]), and the rows
//! it sends: shared by the request-by-request tests ([`super::load`]) and
//! the Play tests ([`super::playload`]).

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::core::named_enum;

named_enum! {
    /// Which protocol a load test speaks (also `client loadtest --protocol`;
    /// its name is the one used there and in reports).
    #[derive(Default)]
    #[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
    pub enum WebProtocol: fn name {
        /// gRPC over HTTP/2.
        #[default]
        Grpc => "grpc",
        /// gRPC-Web over HTTP/1.1.
        GrpcWeb => "grpc-web",
        /// Connect's unary JSON over HTTP/1.1.
        Json => "json",
    }
}

/// Which RPC a load test sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadRpc {
    /// SuggestMove on a random row.
    Suggest,
    /// grpc.health.v1 Check: the floor.
    Health,
    /// Whole games on Play streams, one per client, the client playing
    /// random legal moves: a "request" is one bot reply.
    Play,
}

/// What a load test sends, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadSpec {
    /// The RPC.
    pub rpc: LoadRpc,
    /// Closed loop: the number of clients, each with one request
    /// outstanding. Open loop: the most requests outstanding at once.
    pub concurrency: usize,
    /// HTTP/2 connections the requests are spread over, round-robin; 0 (or
    /// more than `concurrency`) means one per client.
    pub connections: usize,
    /// Requests in all.
    pub requests: u64,
    /// Piles of each SuggestMove or Play row (random, 1..=`max_pile`
    /// stones).
    pub piles: usize,
    /// The largest pile of a random row (1000 unless set).
    pub max_pile: u64,
    /// Play: the bot's strength (`None`: the server's default, 1).
    pub strength: Option<f64>,
    /// Open loop at this many requests per second; `None`: closed loop.
    pub rate: Option<f64>,
    /// The protocol of SuggestMove (gRPC-Web and JSON: over HTTP/1.1, one
    /// connection per request in flight, `connections` ignored).
    pub protocol: WebProtocol,
}

/// Why a load test cannot start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadSpecError {
    /// The rate is not a positive number.
    #[error("rate: {0} is not a positive number of requests per second")]
    Rate(f64),
    /// No requests.
    #[error("requests: a load test needs at least one request")]
    NoRequests,
    /// Play is measured in closed loop only.
    #[error("rate: Play is measured in closed loop only (games answer move by move)")]
    PlayOpenLoop,
    /// The largest pile is 0.
    #[error("max pile: a pile needs at least 1 stone")]
    MaxPile,
    /// Play rows need two piles (so that every game has a bot reply).
    #[error("piles: Play rows need at least 2 piles (every game then has a bot reply)")]
    PlayPiles,
    /// gRPC-Web and JSON are measured on SuggestMove.
    #[error("protocol: {0} is measured on SuggestMove only (--rpc suggest)")]
    WebProtocolRpc(&'static str),
}

impl LoadSpec {
    /// A closed-loop test.
    pub fn closed(rpc: LoadRpc, concurrency: usize, requests: u64, piles: usize) -> LoadSpec {
        LoadSpec {
            rpc,
            concurrency,
            connections: 0,
            requests,
            piles,
            max_pile: 1000,
            strength: None,
            rate: None,
            protocol: WebProtocol::Grpc,
        }
    }

    /// Checks the spec.
    pub fn validate(&self) -> Result<(), LoadSpecError> {
        if let Some(rate) = self.rate
            && !(rate.is_finite() && rate > 0.0)
        {
            return Err(LoadSpecError::Rate(rate));
        }
        if self.requests == 0 {
            return Err(LoadSpecError::NoRequests);
        }
        if self.rpc == LoadRpc::Play && self.rate.is_some() {
            return Err(LoadSpecError::PlayOpenLoop);
        }
        if self.rpc == LoadRpc::Play && self.piles < 2 {
            return Err(LoadSpecError::PlayPiles);
        }
        if self.max_pile == 0 {
            return Err(LoadSpecError::MaxPile);
        }
        if self.protocol != WebProtocol::Grpc && self.rpc != LoadRpc::Suggest {
            return Err(LoadSpecError::WebProtocolRpc(self.protocol.name()));
        }
        Ok(())
    }

    /// The number of connections actually opened.
    pub fn connection_count(&self) -> usize {
        let clients = self.concurrency.max(1);
        match self.connections {
            0 => clients,
            n => n.min(clients),
        }
    }
}

/// Results of a load test. Latencies are from the request's start (open
/// loop: its scheduled start) to its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    /// Requests answered (Play: bot replies).
    pub requests: u64,
    /// Play: games started (0 for the other RPCs).
    pub games: u64,
    /// Wall time from the first request's start to the last answer.
    pub elapsed: Duration,
    /// Median latency.
    pub p50: Duration,
    /// 90th percentile latency.
    pub p90: Duration,
    /// 99th percentile latency.
    pub p99: Duration,
    /// 99.9th percentile latency.
    pub p999: Duration,
    /// Largest latency.
    pub max: Duration,
    /// Open loop: the most a request left after its scheduled time (the
    /// load generator's own delay, included in the latencies).
    pub max_send_lag: Option<Duration>,
}

impl LoadReport {
    /// Requests per second.
    pub fn qps(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// The report of these latencies (nearest-rank percentiles).
    pub fn from_latencies(
        mut latencies: Vec<Duration>,
        elapsed: Duration,
        max_send_lag: Option<Duration>,
    ) -> LoadReport {
        latencies.sort_unstable();
        let pct = |p: f64| {
            let rank = (latencies.len() as f64 * p).ceil() as usize;
            latencies
                .get(rank.clamp(1, latencies.len().max(1)) - 1)
                .copied()
                .unwrap_or_default()
        };
        LoadReport {
            requests: latencies.len() as u64,
            games: 0,
            elapsed,
            p50: pct(0.50),
            p90: pct(0.90),
            p99: pct(0.99),
            p999: pct(0.999),
            max: latencies.last().copied().unwrap_or_default(),
            max_send_lag,
        }
    }
}

/// The row of request `k` (the same for every run): `piles` piles of
/// 1..=`max_pile` stones.
pub(super) fn row(k: u64, piles: usize, max_pile: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(k);
    (0..piles.max(1))
        .map(|_| rng.random_range(1..=max_pile.max(1)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let ms = |v: u64| Duration::from_millis(v);
        let r = LoadReport::from_latencies((1..=1000).rev().map(ms).collect(), ms(1), None);
        assert_eq!(r.requests, 1000);
        assert_eq!(
            (r.p50, r.p90, r.p99, r.p999, r.max),
            (ms(500), ms(900), ms(990), ms(999), ms(1000))
        );
        let one = LoadReport::from_latencies(vec![ms(7)], ms(1), None);
        assert_eq!((one.p50, one.p99, one.max), (ms(7), ms(7), ms(7)));
        let none = LoadReport::from_latencies(vec![], ms(1), None);
        assert_eq!((none.requests, none.p99), (0, Duration::ZERO));
    }

    #[test]
    fn specs_are_checked() {
        let mut spec = LoadSpec::closed(LoadRpc::Health, 32, 10, 100);
        assert_eq!(spec.validate(), Ok(()));
        assert_eq!(spec.connection_count(), 32);
        spec.connections = 4;
        assert_eq!(spec.connection_count(), 4);
        spec.connections = 99;
        assert_eq!(spec.connection_count(), 32);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            spec.rate = Some(bad);
            assert!(
                matches!(spec.validate(), Err(LoadSpecError::Rate(_))),
                "{bad}"
            );
        }
        spec.rate = Some(1000.0);
        assert_eq!(spec.validate(), Ok(()));
        spec.rpc = LoadRpc::Play;
        assert_eq!(spec.validate(), Err(LoadSpecError::PlayOpenLoop));
        spec.rate = None;
        spec.piles = 1;
        assert_eq!(spec.validate(), Err(LoadSpecError::PlayPiles));
        spec.piles = 100;
        spec.rate = None;
        assert_eq!(spec.validate(), Ok(()));
        spec.max_pile = 0;
        assert_eq!(spec.validate(), Err(LoadSpecError::MaxPile));
        spec.requests = 0;
        assert_eq!(spec.validate(), Err(LoadSpecError::NoRequests));
    }

    #[test]
    fn rows_are_reproducible() {
        assert_eq!(row(5, 100, 1000), row(5, 100, 1000));
        assert_ne!(row(5, 100, 1000), row(6, 100, 1000));
        assert!(row(1, 100, 1000).iter().all(|&a| (1..=1000).contains(&a)));
        assert!(row(1, 100, 3).iter().all(|&a| (1..=3).contains(&a)));
        assert_eq!(row(1, 0, 1000).len(), 1);
    }
}
