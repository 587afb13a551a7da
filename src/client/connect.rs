//! How connections to the servers are made: the endpoint of a server URL
//! (`EndpointSettings`: timeouts, keepalive, TLS), the client side of TLS
//! ([`TlsOptions`]), the bearer token ([`read_token_file`], [`AddToken`],
//! the interceptor adding it to every call) and the generated client over
//! such a channel ([`Transport`]).

use std::time::Duration;

use tonic::Status;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

use super::error::ClientError;
use crate::wire::MAX_FRAME_SIZE;
use crate::wire::pb::stone_game_client::StoneGameClient;

/// Largest response message the client accepts.
const MAX_MESSAGE: usize = 64 << 20;

/// How connections to the servers are made.
#[derive(Debug, Clone)]
pub(crate) struct EndpointSettings {
    pub(super) connect_timeout: Option<Duration>,
    pub(super) keepalive: Option<Duration>,
    /// TLS for every connection (`https://`).
    pub(super) tls: Option<ClientTlsConfig>,
    /// The bearer token every StoneGame call carries.
    pub(crate) token: AddToken,
}

impl EndpointSettings {
    /// The endpoint of one server URL (over TLS: as `https://`).
    pub(crate) fn endpoint(&self, url: &str) -> Result<Endpoint, ClientError> {
        let url = match (&self.tls, url.strip_prefix("http://")) {
            (Some(_), Some(rest)) => format!("https://{rest}"),
            _ => url.to_string(),
        };
        let failed = |source| ClientError::Connect {
            url: url.clone(),
            source,
        };
        let mut endpoint = Endpoint::from_shared(url.clone())
            .map_err(failed)?
            .tcp_nodelay(true)
            .max_frame_size(MAX_FRAME_SIZE);
        if let Some(tls) = &self.tls {
            endpoint = endpoint.tls_config(tls.clone()).map_err(failed)?;
        }
        if let Some(timeout) = self.connect_timeout {
            endpoint = endpoint.connect_timeout(timeout);
        }
        if let Some(interval) = self.keepalive {
            // Pings only while streams are open: a replica whose machine
            // vanished (no RST) is noticed within two intervals.
            endpoint = endpoint
                .http2_keep_alive_interval(interval)
                .keep_alive_timeout(interval)
                .keep_alive_while_idle(false);
        }
        Ok(endpoint)
    }
}

/// The client side of TLS (docs/security.md). TLS is used when the server
/// address has an `https://` URL or any option here is set; then every
/// connection (every entry of a list, every address of a `dns:///` name)
/// uses it.
#[derive(Debug, Clone, Default)]
pub struct TlsOptions {
    /// Use TLS even with `http://` (or bare `HOST:PORT`) addresses.
    pub enabled: bool,
    /// PEM CA certificates the server's certificate must chain to; `None`:
    /// the system's roots.
    pub ca_pem: Option<Vec<u8>>,
    /// PEM certificate chain and private key presented to a server that
    /// asks for one (mTLS).
    pub identity: Option<(Vec<u8>, Vec<u8>)>,
    /// The name the server's certificate must carry; `None`: the URL's
    /// host, or for `dns:///HOST:PORT` (every entry the same HOST) that
    /// HOST.
    pub server_name: Option<String>,
}

impl TlsOptions {
    /// Options from files (`--tls-ca`, `--tls-cert`, `--tls-key`); a
    /// certificate needs its key and the other way round.
    pub fn from_files(
        ca: Option<&std::path::Path>,
        cert: Option<&std::path::Path>,
        key: Option<&std::path::Path>,
        server_name: Option<String>,
    ) -> Result<TlsOptions, ClientError> {
        let read = |what: &str, path: &std::path::Path| {
            std::fs::read(path).map_err(|e| {
                ClientError::Tls(format!("cannot read the {what} {}: {e}", path.display()))
            })
        };
        let ca_pem = ca.map(|p| read("CA file (--tls-ca)", p)).transpose()?;
        let identity = match (cert, key) {
            (Some(c), Some(k)) => Some((
                read("client certificate (--tls-cert)", c)?,
                read("client key (--tls-key)", k)?,
            )),
            (None, None) => None,
            _ => {
                return Err(ClientError::Tls(
                    "--tls-cert and --tls-key go together (the certificate and its key)".into(),
                ));
            }
        };
        Ok(TlsOptions {
            enabled: false,
            ca_pem,
            identity,
            server_name,
        })
    }

    pub(super) fn wanted(&self) -> bool {
        self.enabled
            || self.ca_pem.is_some()
            || self.identity.is_some()
            || self.server_name.is_some()
    }
}

/// The first token of a tokens file (`--token-file`): the first line that
/// is neither blank nor a `#` comment, trimmed.
pub fn read_token_file(path: &std::path::Path) -> Result<String, ClientError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ClientError::Token(format!("file {} cannot be read: {e}", path.display())))?;
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())
        .map(str::to_string)
        .ok_or_else(|| ClientError::Token(format!("file {} holds no token", path.display())))
}

/// Adds `authorization: Bearer TOKEN` to every call (when there is a
/// token); the value is marked sensitive (never indexed by HPACK).
#[derive(Clone, Default)]
pub struct AddToken(Option<MetadataValue<Ascii>>);

impl std::fmt::Debug for AddToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.write_str(if self.0.is_some() {
            "AddToken(set)"
        } else {
            "AddToken(none)"
        })
    }
}

impl AddToken {
    /// The interceptor of `token` (`None`: adds nothing). A token must be
    /// printable ASCII without spaces.
    pub fn new(token: Option<&str>) -> Result<AddToken, ClientError> {
        let Some(token) = token else {
            return Ok(AddToken(None));
        };
        let token = token.trim();
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ClientError::Token(
                "must be printable ASCII without spaces, and not empty".into(),
            ));
        }
        let mut value: MetadataValue<Ascii> = format!("Bearer {token}")
            .parse()
            .map_err(|_| ClientError::Token("is not valid metadata".into()))?;
        value.set_sensitive(true);
        Ok(AddToken(Some(value)))
    }
}

impl Interceptor for AddToken {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// The transport of the StoneGame calls: a channel adding the token.
pub type Transport = InterceptedService<Channel, AddToken>;

/// The generated client over a [`Transport`].
pub(crate) fn stonegame_client(channel: Channel, token: &AddToken) -> StoneGameClient<Transport> {
    StoneGameClient::with_interceptor(channel, token.clone())
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE)
}
