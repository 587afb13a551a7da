//! The `--server` flags every `client` command takes ([`ServerArg`]): the
//! server or replicas, TLS and the bearer token (docs/security.md), turned
//! into a [`crate::client::ClientBuilder`].

use std::path::PathBuf;

use crate::client::{Client, ClientError};

/// The server to talk to.
#[derive(Debug, clap::Args)]
pub struct ServerArg {
    /// The server: a URL (http://127.0.0.1:50051: one connection), a
    /// comma-separated list of URLs, or dns:///HOST:PORT (every address of
    /// the name, re-resolved periodically and after failures); requests are
    /// balanced over the replicas.
    #[arg(long, default_value = "http://127.0.0.1:50051", value_name = "SERVER")]
    pub server: String,
    /// Verify the server's TLS certificate against these PEM CA
    /// certificates (TLS is used with an https:// server or any --tls-*
    /// flag; without --tls-ca, against the system's roots).
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// PEM client certificate for mTLS (with --tls-key).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// The name the server's certificate must carry (default: the host of
    /// the URL, or of the dns:/// name); needed for a server given by IP
    /// address whose certificate names a host.
    #[arg(long, value_name = "NAME")]
    pub tls_server_name: Option<String>,
    /// Send the first token of this file (blank and `#` lines skipped) as
    /// `authorization: Bearer TOKEN` with every call.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
}

/// The bearer token of `STONEGAME_TOKEN` (read only when --token-file is
/// not given; never a clap default, so `--help` never shows it).
pub const TOKEN_ENV: &str = "STONEGAME_TOKEN";

impl ServerArg {
    /// The client builder of these flags: the server, TLS and the token
    /// (`--token-file`, else `STONEGAME_TOKEN`).
    pub fn builder(&self) -> Result<crate::client::ClientBuilder, ClientError> {
        let tls = crate::client::TlsOptions::from_files(
            self.tls_ca.as_deref(),
            self.tls_cert.as_deref(),
            self.tls_key.as_deref(),
            self.tls_server_name.clone(),
        )?;
        let token = match &self.token_file {
            Some(path) => Some(crate::client::read_token_file(path)?),
            None => std::env::var(TOKEN_ENV)
                .ok()
                .filter(|t| !t.trim().is_empty()),
        };
        Client::builder(&self.server)
            .tls(tls)
            .token(token.as_deref())
    }

    /// Connects with [`ServerArg::builder`].
    pub async fn connect(&self) -> Result<Client, ClientError> {
        self.builder()?.connect().await
    }
}
