//! TLS and mTLS on the gRPC listener (`tls.*`, docs/security.md).
//!
//! tonic's own `ServerTlsConfig` is fixed when the server starts; here the
//! server accepts TCP connections itself and runs each handshake with a
//! tokio-rustls acceptor built from the *current* [`ServerConfig`], which
//! [`Certificates`] swaps when the files change ([`crate::service::edge::reload`]).
//! Connections already open keep the session they negotiated; new ones get
//! the new certificate (and the new client CA). The handshakes run in their
//! own tasks with a timeout, so a slow or plaintext client delays no one;
//! a failed handshake is logged at WARN with the peer and the reason (at
//! most one line a second, [`crate::service::edge::tls_failure`]), counted by reason in
//! `stonegame_tls_handshake_failures_total{reason}` and closes that
//! connection only.
//!
//! The files are checked ([`TlsError`]) at start-up (an error stops the
//! server) and at each reload (an error keeps the old certificates).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;

use futures::Stream;

use crate::service::edge::tls_failure::FailureLog;
use crate::service::metrics::HandshakeFailure;
use rustls::RootCertStore;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::either::Either;
use tokio_util::task::AbortOnDropHandle;
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::service::config::TlsConfig;
use crate::service::edge::reload::{self, Contents};
use crate::service::edge::transport::Peer;
use crate::service::metrics::{Metrics, Reloaded};

/// How long a client may take to finish its TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the certificates cannot be used. Each names the file and the key
/// that set it.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file cannot be read.
    #[error("cannot read {key} {}: {source}", .path.display())]
    Read {
        key: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// A file is not PEM, or holds none of what it should.
    #[error("{key} {} {problem}", .path.display())]
    Pem {
        key: &'static str,
        path: PathBuf,
        problem: String,
    },
    /// The private key is not the certificate's.
    #[error(
        "tls.key_file {} does not match the certificate in tls.cert_file {}: {detail}",
        .key.display(), .cert.display()
    )]
    KeyMismatch {
        key: PathBuf,
        cert: PathBuf,
        detail: String,
    },
    /// A certificate is outside its validity period.
    #[error("the certificate in {key} {} {problem}", .path.display())]
    Validity {
        key: &'static str,
        path: PathBuf,
        problem: String,
    },
    /// rustls refused the configuration.
    #[error("cannot set up TLS with {key} {}: {detail}", .path.display())]
    Setup {
        key: &'static str,
        path: PathBuf,
        detail: String,
    },
}

/// The paths of the TLS files, from `tls.*`.
#[derive(Debug, Clone)]
struct Files {
    cert: PathBuf,
    key: PathBuf,
    client_ca: Option<PathBuf>,
}

impl Files {
    /// `None` while TLS is off.
    fn of(config: &TlsConfig) -> Option<Files> {
        Some(Files {
            cert: config.cert_file.clone()?,
            key: config.key_file.clone()?,
            client_ca: config.client_ca_file.clone(),
        })
    }

    fn paths(&self) -> Vec<PathBuf> {
        let mut paths = vec![self.cert.clone(), self.key.clone()];
        paths.extend(self.client_ca.clone());
        paths
    }

    fn read(&self) -> Result<Contents, TlsError> {
        reload::read_all(&self.paths()).map_err(|(path, source)| TlsError::Read {
            key: self.key_of(&path),
            path,
            source,
        })
    }

    fn key_of(&self, path: &Path) -> &'static str {
        if path == self.cert {
            "tls.cert_file"
        } else if path == self.key {
            "tls.key_file"
        } else {
            "tls.client_ca_file"
        }
    }

    /// The server configuration of `contents` (read from [`Files::paths`]).
    fn build(&self, contents: &Contents) -> Result<ServerConfig, TlsError> {
        let chain = certificates("tls.cert_file", &self.cert, &contents[0])?;
        check_validity("tls.cert_file", &self.cert, &chain[0])?;
        let key = PrivateKeyDer::from_pem_slice(&contents[1]).map_err(|e| TlsError::Pem {
            key: "tls.key_file",
            path: self.key.clone(),
            problem: match e {
                rustls::pki_types::pem::Error::NoItemsFound => {
                    "holds no PEM private key (PKCS#8, PKCS#1 or SEC1)".into()
                }
                e => format!("is not a readable PEM private key: {e}"),
            },
        })?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let setup = |key: &'static str, path: &Path, e: &dyn std::fmt::Display| TlsError::Setup {
            key,
            path: path.to_path_buf(),
            detail: e.to_string(),
        };
        let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| setup("tls.cert_file", &self.cert, &e))?;
        let builder = match (&self.client_ca, contents.get(2)) {
            (Some(path), Some(pem)) => {
                let cas = certificates("tls.client_ca_file", path, pem)?;
                let mut roots = RootCertStore::empty();
                for ca in cas {
                    check_validity("tls.client_ca_file", path, &ca)?;
                    roots
                        .add(ca)
                        .map_err(|e| setup("tls.client_ca_file", path, &e))?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .build()
                        .map_err(|e| setup("tls.client_ca_file", path, &e))?;
                builder.with_client_cert_verifier(verifier)
            }
            _ => builder.with_no_client_auth(),
        };
        let mut config = builder.with_single_cert(chain, key).map_err(|e| match e {
            rustls::Error::InconsistentKeys(_) => TlsError::KeyMismatch {
                key: self.key.clone(),
                cert: self.cert.clone(),
                detail: e.to_string(),
            },
            e => setup("tls.key_file", &self.key, &e),
        })?;
        // gRPC is HTTP/2 only; clients (grpcio among them) require ALPN h2,
        // which the server prefers. HTTP/1.1 for gRPC-Web, JSON and the page
        // (docs/web.md) from clients that offer only that.
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(config)
    }
}

/// The certificates of a PEM file (at least one).
fn certificates(
    key: &'static str,
    path: &Path,
    pem: &[u8],
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| TlsError::Pem {
            key,
            path: path.to_path_buf(),
            problem: format!("is not readable PEM: {e}"),
        })?;
    if certs.is_empty() {
        return Err(TlsError::Pem {
            key,
            path: path.to_path_buf(),
            problem: "holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
        });
    }
    Ok(certs)
}

/// Refuses a certificate that cannot be parsed, has expired or is not
/// valid yet.
fn check_validity(
    key: &'static str,
    path: &Path,
    der: &CertificateDer<'_>,
) -> Result<(), TlsError> {
    let problem = |problem: String| TlsError::Validity {
        key,
        path: path.to_path_buf(),
        problem,
    };
    let (_, cert) = x509_parser::parse_x509_certificate(der.as_ref())
        .map_err(|e| problem(format!("cannot be parsed: {e}")))?;
    let validity = cert.validity();
    let now = x509_parser::time::ASN1Time::now();
    if now > validity.not_after {
        return Err(problem(format!(
            "has expired (not valid after {})",
            validity.not_after
        )));
    }
    if now < validity.not_before {
        return Err(problem(format!(
            "is not valid yet (not valid before {})",
            validity.not_before
        )));
    }
    Ok(())
}

/// The server's current TLS configuration (the one new handshakes use),
/// swapped when the files change.
pub type Certificates = ArcSwap<ServerConfig>;

/// The TLS side of a server: the certificates and the task re-reading
/// them (aborted when this is dropped).
#[derive(Debug)]
pub struct Tls {
    /// The current certificates.
    pub certificates: Arc<Certificates>,
    _watcher: AbortOnDropHandle<()>,
}

/// Loads the certificates of `config` (an error names the file) and starts
/// re-reading them every `config.reload_interval`; `None` while TLS is off.
/// Must run on a tokio runtime.
pub fn load(config: &TlsConfig, metrics: &Arc<Metrics>) -> Result<Option<Tls>, TlsError> {
    let Some(files) = Files::of(config) else {
        return Ok(None);
    };
    let contents = files.read()?;
    let certificates = Arc::new(ArcSwap::from_pointee(files.build(&contents)?));
    let _watcher = reload::watch(
        Reloaded::Tls,
        files.paths(),
        config.reload_interval,
        contents,
        Arc::clone(metrics),
        Arc::clone(&certificates),
        move |contents| files.build(contents),
    );
    Ok(Some(Tls {
        certificates,
        _watcher,
    }))
}

/// A served connection: plaintext (no `tls.*`), or TLS over TCP after a
/// successful handshake (counted by the transport's guard,
/// `transport::Guarded`); tokio-util's `Either` forwards the I/O.
pub type Conn = Either<TcpStream, Box<TlsStream<TcpStream>>>;

impl Peer for Conn {
    fn peer(&self) -> TcpConnectInfo {
        match self {
            Either::Left(io) => io.connect_info(),
            Either::Right(io) => io.get_ref().0.connect_info(),
        }
    }
}

/// The connections of `listener` after their TLS handshake with the
/// current certificates. The accept loop stops when the stream is dropped.
pub fn incoming(
    listener: TcpListener,
    certificates: Arc<Certificates>,
    metrics: Arc<Metrics>,
) -> impl Stream<Item = Result<Conn, io::Error>> + Send + 'static {
    let (tx, rx) = mpsc::channel::<Result<Conn, io::Error>>(64);
    let failures = Arc::new(FailureLog::default());
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                () = tx.closed() => return,
                accepted = listener.accept() => accepted,
            };
            let tcp = match accepted {
                Ok((tcp, _)) => tcp,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little
                    // rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = tcp.set_nodelay(true);
            let peer = tcp.peer_addr().ok();
            let acceptor = TlsAcceptor::from(certificates.load_full());
            let tx = tx.clone();
            let metrics = Arc::clone(&metrics);
            let failures = Arc::clone(&failures);
            tokio::spawn(async move {
                match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                    Ok(Ok(tls)) => {
                        let _ = tx.send(Ok(Either::Right(Box::new(tls)))).await;
                    }
                    Ok(Err(e)) => {
                        let reason = HandshakeFailure::of(&e);
                        metrics.tls_handshake_failed(reason);
                        failures.warn(peer, reason, &e.to_string());
                    }
                    Err(_) => {
                        metrics.tls_handshake_failed(HandshakeFailure::Timeout);
                        failures.warn(peer, HandshakeFailure::Timeout, "no handshake in time");
                    }
                }
            });
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}
