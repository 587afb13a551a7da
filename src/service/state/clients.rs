//! Per-client shares of the server's limits, so that one client cannot hold
//! everything while others wait: at most `limits.max_rpcs_per_client` RPCs
//! at once and `limits.max_play_sessions_per_client` Play sessions.
//!
//! A client is its bearer token when auth is on (the authentication layer
//! puts the token's digest in the request's extensions, [`TokenDigest`]),
//! else its address (the peer's IP address, whatever its port: opening more
//! connections buys no more share). A request beyond its
//! client's share is refused with `RESOURCE_EXHAUSTED`, a retry hint, and a
//! message naming the limit.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tonic::Status;

/// The SHA-256 of the bearer token a request was authenticated with (a
/// request extension, set by [`crate::service::edge::auth`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenDigest(pub [u8; 32]);

/// Who a request comes from, for the per-client shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// Its bearer token (auth on).
    Token([u8; 32]),
    /// Its IP address (auth off).
    Address(IpAddr),
    /// Neither is known (an in-process call): not limited per client.
    Unknown,
}

impl ClientKey {
    /// The client of `request`.
    pub fn of<T>(request: &tonic::Request<T>) -> ClientKey {
        if let Some(TokenDigest(digest)) = request.extensions().get::<TokenDigest>() {
            return ClientKey::Token(*digest);
        }
        match request.remote_addr() {
            Some(addr) => ClientKey::Address(addr.ip()),
            None => ClientKey::Unknown,
        }
    }
}

/// One per-client limit: how many of something each client holds.
#[derive(Debug)]
pub struct ClientShares {
    /// The configuration key, for messages (`limits.max_rpcs_per_client`).
    key: &'static str,
    /// What is counted, for messages ("RPCs", "Play sessions").
    what: &'static str,
    max: u64,
    /// The retry hint.
    retry_after: Duration,
    held: Mutex<HashMap<ClientKey, u64>>,
}

/// One unit of a client's share; given back when dropped.
#[derive(Debug)]
pub struct SharePermit {
    shares: Arc<ClientShares>,
    client: ClientKey,
}

impl Drop for SharePermit {
    fn drop(&mut self) {
        let mut held = self.shares.lock();
        if let Some(n) = held.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.client);
            }
        }
    }
}

/// A client already holds its whole share.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "this client already holds {max} {what}, its share of the server \
     ({key}); retry after {retry_after_ms} ms, when one of them has ended"
)]
pub struct ShareExhausted {
    /// The configuration key of the limit.
    pub key: &'static str,
    /// What is counted.
    pub what: &'static str,
    /// The share.
    pub max: u64,
    /// The retry hint.
    pub retry_after_ms: u64,
}

impl From<ShareExhausted> for Status {
    fn from(e: ShareExhausted) -> Status {
        crate::service::state::limits::retry_status(e.to_string(), e.retry_after_ms)
    }
}

impl ClientShares {
    /// A share of `max` of `what` per client, configured by `key`.
    pub fn new(
        key: &'static str,
        what: &'static str,
        max: u64,
        retry_after: Duration,
    ) -> Arc<ClientShares> {
        Arc::new(ClientShares {
            key,
            what,
            max,
            retry_after,
            held: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ClientKey, u64>> {
        // Plain counters: a panic while holding the lock leaves them whole.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes one unit of `client`'s share, or says why not. Unknown clients
    /// are not limited.
    pub fn try_acquire(
        self: &Arc<Self>,
        client: ClientKey,
    ) -> Result<Option<SharePermit>, ShareExhausted> {
        if client == ClientKey::Unknown {
            return Ok(None);
        }
        let mut held = self.lock();
        let n = held.entry(client).or_insert(0);
        if *n >= self.max {
            return Err(ShareExhausted {
                key: self.key,
                what: self.what,
                max: self.max,
                retry_after_ms: self.retry_after.as_millis() as u64,
            });
        }
        *n += 1;
        Ok(Some(SharePermit {
            shares: Arc::clone(self),
            client,
        }))
    }

    /// Units `client` holds now.
    pub fn held_by(&self, client: ClientKey) -> u64 {
        self.lock().get(&client).copied().unwrap_or(0)
    }

    /// Clients holding at least one unit now.
    pub fn clients(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;
    use tonic::metadata::MetadataValue;

    #[test]
    fn each_client_holds_at_most_its_share() {
        let shares = ClientShares::new(
            "limits.max_play_sessions_per_client",
            "Play sessions",
            2,
            Duration::from_secs(1),
        );
        let a = ClientKey::Address("127.0.0.1".parse().unwrap());
        let b = ClientKey::Token([7; 32]);
        let a1 = shares.try_acquire(a).unwrap();
        let _a2 = shares.try_acquire(a).unwrap();
        let refused = shares.try_acquire(a).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("limits.max_play_sessions_per_client"),
            "{refused}"
        );
        let status = Status::from(refused);
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status.metadata().get("retry-after-ms").unwrap(),
            &MetadataValue::from(1000u64)
        );
        // Another client is not affected; a unit given back can be taken.
        let _b1 = shares.try_acquire(b).unwrap();
        drop(a1);
        assert_eq!(shares.held_by(a), 1);
        let _a3 = shares.try_acquire(a).unwrap();
        assert!(shares.try_acquire(ClientKey::Unknown).unwrap().is_none());
        drop((_a2, _a3, _b1));
        assert_eq!(shares.clients(), 0, "no entry is left behind");
    }
}
