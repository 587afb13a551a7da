//! [`ClientError`]: why a client call failed, from connecting (an
//! unusable address, TLS option or token) to the calls themselves (an
//! error status, a broken protocol, replicas that all failed), and the
//! load tests' and local files' own failures. It imports only the modules
//! whose parts it carries (diagnose, loadspec, schedule, target), and
//! those import nothing of the client's.

use std::io;

use tonic::Status;

use super::diagnose;
use super::loadspec::LoadSpecError;
use super::schedule::ReplicaStats;
use super::target::TargetError;

/// Why a client call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server address is unusable or unreachable.
    #[error("cannot connect to {url}: {}", diagnose::connect_failure(.url, .source))]
    Connect {
        url: String,
        source: tonic::transport::Error,
    },
    /// The `--server` value is malformed.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A `dns:///` name could not be resolved (or has no address).
    #[error("cannot resolve {name}: {source}")]
    Resolve { name: String, source: io::Error },
    /// Every replica failed too often (or left the resolved set) while
    /// batches were left.
    #[error(
        "no replica left to send to: tried {}; {answered} cases were answered",
        tried_list(.tried)
    )]
    NoReplicaLeft {
        /// Every replica, with its last error.
        tried: Vec<ReplicaStats>,
        /// Cases answered (and returned in order) before.
        answered: u64,
    },
    /// A batch failed on too many streams.
    #[error(
        "batch {} failed on {attempts} streams (last: {last_error}); {answered} cases were answered",
        .batch + 1
    )]
    BatchGaveUp {
        /// Its 0-based index.
        batch: u64,
        /// Streams that failed with it in flight.
        attempts: u32,
        /// The last error, with its replica.
        last_error: String,
        /// Cases answered (and returned in order) before.
        answered: u64,
    },
    /// The server answered with an error status (or the connection
    /// failed under the call: [`diagnose::status`] tells which).
    #[error("{}", diagnose::status(.0))]
    Status(#[from] Status),
    /// The server broke the protocol's promises.
    #[error("unexpected answer from the server: {0}")]
    Protocol(String),
    /// A URL the gRPC-Web or JSON client cannot use.
    #[error("{url}: {reason}")]
    WebUrl { url: String, reason: String },
    /// A load test's parameters are unusable.
    #[error(transparent)]
    LoadSpec(#[from] LoadSpecError),
    /// A local file could not be read.
    #[error("cannot read the {what}: {source}")]
    Read {
        what: &'static str,
        source: io::Error,
    },
    /// A client TLS file or option is unusable.
    #[error("TLS: {0}")]
    Tls(String),
    /// The bearer token is unusable (it is never shown).
    #[error("the bearer token {0}")]
    Token(String),
}

/// The replicas of a [`ClientError::NoReplicaLeft`], each with its record.
fn tried_list(tried: &[ReplicaStats]) -> String {
    let list: Vec<String> = tried
        .iter()
        .map(|r| {
            let mut s = format!(
                "{} ({} batches answered, {} failures",
                r.replica, r.batches, r.failures
            );
            if let Some(e) = &r.last_error {
                s.push_str(&format!(", last: {e}"));
            }
            if r.removed {
                s.push_str(", left the resolved set");
            }
            s.push(')');
            s
        })
        .collect();
    list.join(", ")
}
