//! The replicas of a balanced [`Target`]: resolving it, keeping a tonic
//! balancing channel up to date, and publishing the current set for the
//! Solve dispatcher ([`super::replicated`]).
//!
//! One resolver task per connected [`super::calls::Client`] (its clones
//! share it): it resolves every `dns:///` entry with
//! `tokio::net::lookup_host` every `resolve_every` and soon after a failure
//! is reported ([`Replicas::report_failure`], at most once a second), and
//! turns the differences into `Change::Insert` / `Change::Remove` for the
//! channel. A resolution that fails keeps the previous addresses. The task
//! ends when the last client (and the last Solve run) holding the set is
//! dropped.

use std::collections::BTreeSet;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, mpsc, watch};
use tonic::transport::channel::Change;
use tonic::transport::{Channel, Endpoint};

use super::connect::EndpointSettings;
use super::error::ClientError;
use super::target::{Source, Target};

/// The least time between two resolutions triggered by failures.
const MIN_REFRESH: Duration = Duration::from_secs(1);

/// The replicas currently known, each by its URL (`http://IP:PORT` for a
/// resolved name, the entry's URL for a listed one), sorted.
pub type ReplicaSet = Arc<[String]>;

/// The replica set of a client, and how to ask for a fresh one.
#[derive(Debug, Clone)]
pub struct Replicas {
    set: watch::Receiver<ReplicaSet>,
    refresh: Arc<Notify>,
}

impl Replicas {
    /// A fixed set (one URL).
    pub(crate) fn fixed(url: &str) -> Replicas {
        let (_tx, set) = watch::channel(ReplicaSet::from(vec![url.to_string()]));
        Replicas {
            set,
            refresh: Arc::new(Notify::new()),
        }
    }

    /// The current set.
    pub fn current(&self) -> ReplicaSet {
        Arc::clone(&self.set.borrow())
    }

    /// A receiver of the set's updates.
    pub fn watch(&self) -> watch::Receiver<ReplicaSet> {
        self.set.clone()
    }

    /// Tells the resolver a connection failed: `dns:///` names are resolved
    /// again soon (at most once a second).
    pub fn report_failure(&self) {
        self.refresh.notify_one();
    }
}

/// Resolves every source once: the sorted, deduplicated URLs.
pub(crate) async fn resolve(sources: &[Source]) -> Result<Vec<String>, ClientError> {
    let mut urls = BTreeSet::new();
    for source in sources {
        match source {
            Source::Url(url) => {
                urls.insert(url.clone());
            }
            Source::Dns { host, port } => {
                let name = source.to_string();
                let addrs = tokio::net::lookup_host((host.as_str(), *port))
                    .await
                    .map_err(|source| ClientError::Resolve {
                        name: name.clone(),
                        source,
                    })?;
                let addrs: Vec<_> = addrs.collect();
                if addrs.is_empty() {
                    return Err(ClientError::Resolve {
                        name,
                        source: io::Error::new(io::ErrorKind::NotFound, "it has no address"),
                    });
                }
                urls.extend(addrs.into_iter().map(|a| format!("http://{a}")));
            }
        }
    }
    Ok(urls.into_iter().collect())
}

/// Starts the balancing channel and the resolver of a balanced target:
/// resolves it once (an error here is the caller's), then keeps it fresh.
pub(crate) async fn start(
    target: &Target,
    settings: &EndpointSettings,
    resolve_every: Duration,
) -> Result<(Channel, Replicas), ClientError> {
    let Target::Balanced(sources) = target else {
        return Err(ClientError::Protocol(format!(
            "{target} is a single server, not a balanced target"
        )));
    };
    let first = resolve(sources).await?;
    let endpoints = first
        .iter()
        .map(|url| Ok((url.clone(), settings.endpoint(url)?)))
        .collect::<Result<Vec<_>, ClientError>>()?;
    let (channel, changes) = Channel::balance_channel::<String>(64);
    for (url, endpoint) in endpoints {
        // The receiver is alive: the channel was just made.
        let _ = changes.send(Change::Insert(url, endpoint)).await;
    }
    let (set_tx, set_rx) = watch::channel(ReplicaSet::from(first));
    let refresh = Arc::new(Notify::new());
    let dynamic = target.has_dns();
    tokio::spawn(keep_fresh(
        sources.clone(),
        settings.clone(),
        resolve_every,
        dynamic,
        changes,
        set_tx,
        Arc::clone(&refresh),
    ));
    Ok((
        channel,
        Replicas {
            set: set_rx,
            refresh,
        },
    ))
}

/// The resolver task.
async fn keep_fresh(
    sources: Vec<Source>,
    settings: EndpointSettings,
    every: Duration,
    dynamic: bool,
    changes: mpsc::Sender<Change<String, Endpoint>>,
    set: watch::Sender<ReplicaSet>,
    refresh: Arc<Notify>,
) {
    if !dynamic {
        // A list of URLs never changes: wait for the last holder to go.
        set.closed().await;
        return;
    }
    let mut last = tokio::time::Instant::now();
    loop {
        tokio::select! {
            () = set.closed() => return,
            () = tokio::time::sleep_until(last + every) => {}
            () = refresh.notified() => {
                // Failures come in bursts: one resolution serves them all.
                tokio::time::sleep_until(last + MIN_REFRESH).await;
            }
        }
        last = tokio::time::Instant::now();
        let Ok(fresh) = resolve(&sources).await else {
            // A failed resolution keeps the addresses already known.
            continue;
        };
        let old = set.borrow().clone();
        if *old == *fresh {
            continue;
        }
        for url in old.iter().filter(|u| !fresh.contains(u)) {
            if changes.send(Change::Remove(url.clone())).await.is_err() {
                return;
            }
        }
        for url in fresh.iter().filter(|u| !old.contains(u)) {
            if let Ok(endpoint) = settings.endpoint(url)
                && changes
                    .send(Change::Insert(url.clone(), endpoint))
                    .await
                    .is_err()
            {
                return;
            }
        }
        set.send_replace(ReplicaSet::from(fresh));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn names_resolve_to_sorted_urls_and_failures_name_the_entry() {
        let sources = vec![
            Source::Url("http://b:1".into()),
            Source::Dns {
                host: "127.0.0.1".into(),
                port: 9,
            },
            Source::Url("http://a:1".into()),
        ];
        assert_eq!(
            resolve(&sources).await.unwrap(),
            ["http://127.0.0.1:9", "http://a:1", "http://b:1"]
        );
        // A label longer than 63 bytes: the resolver refuses it without
        // sending a query.
        let host = format!("{}.invalid", "x".repeat(70));
        let e = resolve(&[Source::Dns {
            host: host.clone(),
            port: 5,
        }])
        .await
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("cannot resolve dns:///{host}:5: ")),
            "{e}"
        );
    }
}
