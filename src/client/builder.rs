//! [`ClientBuilder`]: how a [`Client`] connects
//! (`Client::builder(server)…connect()`): the server address parsed into a
//! [`Target`], TLS set up from [`TlsOptions`], then one connection or a
//! balanced channel over the resolved replicas. [`Client::connect`] and
//! [`Client::builder`] are defined here, beside the builder they start, so
//! that the client and its calls ([`super::calls`]) never import the
//! builder: the builder imports the client, not the other way round.

use std::time::Duration;

use tonic::transport::{Certificate, ClientTlsConfig, Identity};

use super::calls::Client;
use super::connect::{AddToken, EndpointSettings, TlsOptions};
use super::error::ClientError;
use super::replicated;
use super::resolve::{self, Replicas};
use super::target::Target;

/// How a [`Client`] connects: `Client::builder(server)…connect()`.
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    server: String,
    resolve_every: Duration,
    settings: EndpointSettings,
    tls: TlsOptions,
}

impl ClientBuilder {
    /// The server address as given (`--server`).
    pub fn server(&self) -> &str {
        &self.server
    }

    /// TLS options (see [`TlsOptions`]).
    pub fn tls(mut self, tls: TlsOptions) -> ClientBuilder {
        self.tls = tls;
        self
    }

    /// The bearer token sent with every StoneGame call (`None`: none).
    pub fn token(mut self, token: Option<&str>) -> Result<ClientBuilder, ClientError> {
        self.settings.token = AddToken::new(token)?;
        Ok(self)
    }

    /// How often `dns:///` names are resolved again (default 30 s; they
    /// are also resolved again soon after a connection fails).
    pub fn resolve_every(mut self, every: Duration) -> ClientBuilder {
        self.resolve_every = every.max(Duration::from_millis(100));
        self
    }

    /// The longest a TCP connection may take to open (default 5 s; `None`:
    /// the system's).
    pub fn connect_timeout(mut self, timeout: Option<Duration>) -> ClientBuilder {
        self.settings.connect_timeout = timeout;
        self
    }

    /// HTTP/2 keepalive: a ping this often while streams are open, the
    /// connection dropped when one is not answered within as long (default
    /// 10 s; `None`: off).
    pub fn keepalive(mut self, interval: Option<Duration>) -> ClientBuilder {
        self.settings.keepalive = interval;
        self
    }

    /// Parses the server address and connects: a single URL connects now
    /// (an unreachable server is an error here, as always); a list or a
    /// `dns:///` name is resolved now (an unresolvable name is an error
    /// here) and connects to each replica on first use.
    pub async fn connect(mut self) -> Result<Client, ClientError> {
        let target = Target::parse(&self.server)?;
        if target.wants_tls() || self.tls.wanted() {
            let mut tls = ClientTlsConfig::new();
            tls = match &self.tls.ca_pem {
                Some(pem) => tls.ca_certificate(Certificate::from_pem(pem)),
                None => tls.with_native_roots(),
            };
            if let Some((cert, key)) = &self.tls.identity {
                tls = tls.identity(Identity::from_pem(cert, key));
            }
            let name = self.tls.server_name.as_deref();
            if let Some(name) = name.or_else(|| target.dns_host()) {
                tls = tls.domain_name(name);
            }
            self.settings.tls = Some(tls);
        }
        match &target {
            Target::Single(url) => {
                let channel = self
                    .settings
                    .endpoint(url)?
                    .connect()
                    .await
                    .map_err(|source| ClientError::Connect {
                        url: url.clone(),
                        source,
                    })?;
                let replicas = Replicas::fixed(url);
                let token = self.settings.token.clone();
                Ok(Client::assemble(
                    channel.clone(),
                    target,
                    replicas,
                    replicated::Channels::Single(channel, token),
                ))
            }
            Target::Balanced(_) => {
                let (channel, replicas) =
                    resolve::start(&target, &self.settings, self.resolve_every).await?;
                Ok(Client::assemble(
                    channel,
                    target,
                    replicas,
                    replicated::Channels::PerReplica(self.settings),
                ))
            }
        }
    }
}

impl Client {
    /// Connects to `server` with the default settings: `http://HOST:PORT`
    /// (a bare `HOST:PORT` gets `http://`), `dns:///HOST:PORT` or a
    /// comma-separated list of those ([`Client::builder`]).
    pub async fn connect(server: &str) -> Result<Client, ClientError> {
        Client::builder(server).connect().await
    }

    /// A builder for `server` (see [`Client::connect`]).
    pub fn builder(server: &str) -> ClientBuilder {
        ClientBuilder {
            server: server.to_string(),
            resolve_every: Duration::from_secs(30),
            settings: EndpointSettings {
                connect_timeout: Some(Duration::from_secs(5)),
                keepalive: Some(Duration::from_secs(10)),
                tls: None,
                token: AddToken::default(),
            },
            tls: TlsOptions::default(),
        }
    }
}
