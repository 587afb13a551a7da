//! Bearer-token authentication of the `stonegame.v1.StoneGame` RPCs
//! (`auth.tokens_file`, docs/security.md).
//!
//! [`Authenticate`], a tonic interceptor, wraps the StoneGame service only
//! (health and reflection stay open for probes): a call without `authorization: Bearer TOKEN`
//! naming a token of the file is answered UNAUTHENTICATED before it reaches
//! a handler. The message says whether the token was missing, malformed or
//! unknown, never what it was; `stonegame_auth_rejected_total{reason}`
//! counts each reason. Nothing here logs a token.
//!
//! Only the SHA-256 digests of the tokens are kept; a presented token is
//! hashed and compared with every digest in constant time (`subtle`), so
//! the time taken tells nothing about how much of a token matched. The file
//! is re-read when it changes ([`crate::service::edge::reload`]): a rotation adds the new
//! token, moves the clients, then removes the old one, without a restart.
//! An empty or unreadable file refuses to start; a later bad version is
//! logged and the old tokens stay.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;

use hyper::http;
use subtle::ConstantTimeEq;
use tokio_util::task::AbortOnDropHandle;
use tonic::Status;
use tonic::service::Interceptor;

use crate::service::edge::reload;
use crate::service::metrics::{AuthReason, Metrics, Reloaded};
use crate::service::state::clients::TokenDigest;
use crate::service::state::limits::CallInfo;

/// Why the tokens file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The file cannot be read.
    #[error("cannot read auth.tokens_file {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file holds no token (an empty file never means "no auth").
    #[error(
        "auth.tokens_file {} holds no token (one a line; `#` starts a comment); \
         leave auth.tokens_file empty for no authentication",
        .path.display()
    )]
    Empty { path: PathBuf },
    /// A line is not a usable token (the token itself is not shown).
    #[error(
        "auth.tokens_file {} line {line}: a token must be printable ASCII without spaces",
        .path.display()
    )]
    Invalid { path: PathBuf, line: usize },
}

/// The tokens of a file's text, one a line: blank lines and `#` comments
/// (whole lines, or after a token) are skipped, surrounding space trimmed.
/// `Err(line)` names the first line holding an unusable token.
pub fn parse_tokens(text: &str) -> Result<Vec<&str>, usize> {
    let mut tokens = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if !line.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(i + 1);
        }
        tokens.push(line);
    }
    Ok(tokens)
}

fn digest(token: &[u8]) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, token);
    digest.as_ref().try_into().expect("a SHA-256 is 32 bytes")
}

/// The digests of the tokens of `bytes` (the file at `path`).
fn digests(path: &Path, bytes: &[u8]) -> Result<Vec<[u8; 32]>, AuthError> {
    let text = String::from_utf8_lossy(bytes);
    let tokens = parse_tokens(&text).map_err(|line| AuthError::Invalid {
        path: path.to_path_buf(),
        line,
    })?;
    if tokens.is_empty() {
        return Err(AuthError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(tokens.iter().map(|t| digest(t.as_bytes())).collect())
}

/// The status a call refused for `reason` is answered with (the token is
/// never echoed).
pub fn rejection_status(reason: AuthReason) -> Status {
    Status::unauthenticated(match reason {
        AuthReason::Missing => {
            "missing bearer token: send the metadata `authorization: Bearer TOKEN`"
        }
        AuthReason::Malformed => {
            "malformed authorization metadata: expected `Bearer TOKEN` (one token of printable ASCII)"
        }
        AuthReason::Unknown => "unknown bearer token",
    })
}

/// The accepted tokens (their digests), swapped when the file changes.
#[derive(Debug)]
pub struct Tokens {
    digests: Arc<ArcSwap<Vec<[u8; 32]>>>,
}

impl Tokens {
    /// Checks an `authorization` value (`None`: absent); the accepted
    /// token's digest, which names the client for the per-client shares,
    /// or why the call is refused.
    pub fn check(&self, authorization: Option<&[u8]>) -> Result<TokenDigest, AuthReason> {
        let value = authorization.ok_or(AuthReason::Missing)?;
        let token = bearer(value).ok_or(AuthReason::Malformed)?;
        let presented = digest(token);
        // Every digest is compared (no early exit).
        let mut found = subtle::Choice::from(0);
        for d in self.digests.load().iter() {
            found |= d.ct_eq(&presented);
        }
        if bool::from(found) {
            Ok(TokenDigest(presented))
        } else {
            Err(AuthReason::Unknown)
        }
    }
}

/// The token of `Bearer TOKEN` (the scheme case-insensitive, RFC 6750).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, token) = value.split_at_checked(7)?;
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return None;
    }
    let token = token.trim_ascii();
    (!token.is_empty() && token.iter().all(u8::is_ascii_graphic)).then_some(token)
}

/// The tokens of a server and the task re-reading them (aborted when this
/// is dropped).
#[derive(Debug)]
pub struct Auth {
    /// The accepted tokens.
    pub tokens: Arc<Tokens>,
    _watcher: AbortOnDropHandle<()>,
}

/// Loads `auth.tokens_file` (an error names it) and starts re-reading it
/// every `reload_interval`. Must run on a tokio runtime.
pub fn load(
    tokens_file: &Path,
    reload_interval: Duration,
    metrics: &Arc<Metrics>,
) -> Result<Auth, AuthError> {
    let path = tokens_file.to_path_buf();
    let bytes = std::fs::read(&path).map_err(|source| AuthError::Read {
        path: path.clone(),
        source,
    })?;
    let current = Arc::new(ArcSwap::from_pointee(digests(&path, &bytes)?));
    let watched = path.clone();
    let _watcher = reload::watch(
        Reloaded::Auth,
        vec![path],
        reload_interval,
        vec![bytes],
        Arc::clone(metrics),
        Arc::clone(&current),
        move |contents| digests(&watched, &contents[0]),
    );
    Ok(Auth {
        tokens: Arc::new(Tokens { digests: current }),
        _watcher,
    })
}

/// The bearer-token check, a tonic interceptor: the StoneGame service is
/// wrapped in an `InterceptedService` with it.
#[derive(Debug, Clone)]
pub struct Authenticate {
    tokens: Option<Arc<Tokens>>,
    metrics: Arc<Metrics>,
}

impl Authenticate {
    /// Lets only calls with a token of `tokens` through (`None`: every
    /// call).
    pub fn new(tokens: Option<Arc<Tokens>>, metrics: Arc<Metrics>) -> Authenticate {
        Authenticate { tokens, metrics }
    }
}

impl Interceptor for Authenticate {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, Status> {
        let Some(tokens) = &self.tokens else {
            return Ok(request);
        };
        let authorization = request
            .metadata()
            .get(http::header::AUTHORIZATION.as_str())
            .map(|v| v.as_bytes());
        match tokens.check(authorization) {
            Ok(client) => {
                request.extensions_mut().insert(client);
                Ok(request)
            }
            Err(reason) => {
                self.metrics.auth_rejected(reason);
                let rpc = request.extensions().get::<CallInfo>().map(|c| c.rpc);
                tracing::debug!(
                    rpc,
                    reason = reason.label(),
                    "call refused: UNAUTHENTICATED"
                );
                Err(rejection_status(reason))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_file_format() {
        assert_eq!(
            parse_tokens("# c\n\n  a1 \nb2 # note\n#x\n").unwrap(),
            vec!["a1", "b2"]
        );
        assert_eq!(parse_tokens("a\nb c\n"), Err(2));
        assert!(parse_tokens("# only\n\n").unwrap().is_empty());
    }

    #[test]
    fn bearer_values() {
        let tokens = Tokens {
            digests: Arc::new(ArcSwap::from_pointee(vec![digest(b"s3cret")])),
        };
        assert_eq!(tokens.check(None), Err(AuthReason::Missing));
        assert_eq!(tokens.check(Some(b"s3cret")), Err(AuthReason::Malformed));
        assert_eq!(
            tokens.check(Some(b"Basic s3cret")),
            Err(AuthReason::Malformed)
        );
        assert_eq!(tokens.check(Some(b"Bearer ")), Err(AuthReason::Malformed));
        assert_eq!(
            tokens.check(Some(b"Bearer a b")),
            Err(AuthReason::Malformed)
        );
        assert_eq!(tokens.check(Some(b"Bearer nope")), Err(AuthReason::Unknown));
        assert!(tokens.check(Some(b"Bearer s3cret")).is_ok());
        assert!(tokens.check(Some(b"bearer s3cret")).is_ok());
    }
}
