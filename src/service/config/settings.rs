//! Configuration of `stonegame serve`, in layers (later ones win):
//!
//! 1. the embedded defaults, `src/service/config/default_config.toml`;
//! 2. an optional TOML file (`--config FILE`);
//! 3. environment variables `STONEGAME_<KEY>`, with `__` between nested keys:
//!    `STONEGAME_LISTEN`, `STONEGAME_WORKERS`, `STONEGAME_IO_THREADS`,
//!    `STONEGAME_LOG__FORMAT`, `STONEGAME_LIMITS__MAX_PILES`,
//!    `STONEGAME_METRICS__LISTEN`, …;
//! 4. command-line flags (`--listen ADDR`, `--metrics-listen ADDR`).
//!
//! Unknown keys are errors in every layer, so a typo never goes unnoticed;
//! the error names the section and the source (the file's path, or the
//! environment variable). Environment values are strings: each is read as
//! the type its key has (a number, a boolean, a duration such as `"10s"`),
//! and `play.token_key` stays the exact text given, digits and all.
//! Optional settings (`tls.cert_file`, `auth.tokens_file`, `metrics.listen`,
//! `play.token_key`, …) are `Option`s: absent, or `""`, leaves them unset.
//! The keys that were milliseconds before durations were durations
//! (`shutdown_grace_ms`, …) still work, with a warning ([`deprecated`]).

use std::collections::HashMap;
use std::num::{NonZeroU32, NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{LogConfig, TransportConfig, WebConfig};

pub mod deprecated;
mod fields;
mod keys;

pub(super) use fields::positive as positive_duration;

/// The shortest `play.token_key` accepted.
pub const MIN_KEY_BYTES: usize = 32;

/// The embedded default configuration (TOML).
pub const DEFAULT_CONFIG: &str = include_str!("default_config.toml");

/// Prefix of the environment variables read.
pub const ENV_PREFIX: &str = "STONEGAME";
/// Separator between nested keys in environment variable names.
pub const ENV_SEPARATOR: &str = "__";

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Address to listen on (port 0: any free port).
    pub listen: String,
    /// CPU threads for solving; 0 = one per core.
    pub workers: usize,
    /// Async (tokio) threads of `stonegame serve` handling connections and
    /// small requests; 0 = one per core.
    pub io_threads: usize,
    /// Requests (a SuggestMove row, a Solve batch) of at most this many
    /// cell updates are solved on the async thread that
    /// received them instead of on the worker pool; 0 = always the pool.
    pub inline_max_cells: u64,
    /// Grace period for in-flight RPCs after a shutdown signal.
    #[serde(with = "humantime_serde")]
    pub shutdown_grace: Duration,
    /// A connection older than this is closed gracefully (HTTP/2 GOAWAY:
    /// its RPCs finish, the client reconnects); 0 = never.
    #[serde(with = "humantime_serde")]
    pub max_connection_age: Duration,
    /// How long the RPCs of a connection closed for its age may still run;
    /// after that the connection is cut. 0 = as long as they take.
    #[serde(with = "humantime_serde")]
    pub max_connection_age_grace: Duration,
    /// Logging.
    pub log: LogConfig,
    /// The Prometheus endpoint.
    pub metrics: MetricsConfig,
    /// HTTP/2 and TCP limits against hostile clients.
    pub transport: TransportConfig,
    /// Request and resource limits.
    pub limits: Limits,
    /// The Play RPC.
    pub play: PlayConfig,
    /// TLS on the gRPC port (docs/security.md).
    pub tls: TlsConfig,
    /// Bearer tokens for the StoneGame RPCs (docs/security.md).
    pub auth: AuthConfig,
    /// The page and browsers' access (docs/web.md).
    pub web: WebConfig,
    /// What the sources said that still works but should change (a
    /// deprecated key), for the server to log once logging is set up.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// TLS of the gRPC listener: off while `cert_file` and `key_file` are
/// unset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// PEM certificate chain (the server's certificate first).
    #[serde(default, deserialize_with = "fields::optional_path")]
    pub cert_file: Option<PathBuf>,
    /// PEM private key of the certificate (PKCS#8, PKCS#1 or SEC1).
    #[serde(default, deserialize_with = "fields::optional_path")]
    pub key_file: Option<PathBuf>,
    /// PEM CA certificates; when set, clients must present a certificate
    /// signed by one of them (mTLS).
    #[serde(default, deserialize_with = "fields::optional_path")]
    pub client_ca_file: Option<PathBuf>,
    /// How often the files are checked for changes (at least 100 ms).
    #[serde(
        serialize_with = "humantime_serde::serialize",
        deserialize_with = "fields::reload_interval"
    )]
    pub reload_interval: Duration,
}

impl TlsConfig {
    /// Whether the gRPC port speaks TLS.
    pub fn enabled(&self) -> bool {
        self.cert_file.is_some()
    }
}

/// Bearer-token authentication of the StoneGame RPCs: off while
/// `tokens_file` is unset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// The accepted tokens, one a line (`#` comments, blank lines ignored).
    #[serde(default, deserialize_with = "fields::optional_path")]
    pub tokens_file: Option<PathBuf>,
    /// How often the file is checked for changes (at least 100 ms).
    #[serde(
        serialize_with = "humantime_serde::serialize",
        deserialize_with = "fields::reload_interval"
    )]
    pub reload_interval: Duration,
}

/// The Play RPC's settings (its limits are in [`Limits`]).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayConfig {
    /// The key of the state tokens' HMAC-SHA256: its UTF-8 bytes, at least
    /// 32 (e.g. the 64 characters of `openssl rand -hex 32`). Replicas with
    /// the same key resume each other's games. Unset: a random key per
    /// process. Always text: a TOML number here is refused, and the
    /// environment's value is taken as written.
    #[serde(default, deserialize_with = "fields::secret_text")]
    pub token_key: Option<String>,
    /// Bytes of prepared rows (their kept layers) the row cache keeps for
    /// later games on the same row; 0 = no cache (rows still shared by the
    /// games running on them).
    pub row_cache_bytes: u64,
}

impl std::fmt::Debug for PlayConfig {
    /// Never prints the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlayConfig")
            .field(
                "token_key",
                &if self.token_key.is_some() {
                    "(set)"
                } else {
                    "(unset: random per process)"
                },
            )
            .field("row_cache_bytes", &self.row_cache_bytes)
            .finish()
    }
}

/// The Prometheus endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Address of the HTTP listener serving `/metrics` (port 0: any free
    /// port); unset (`""`): no listener.
    #[serde(default, deserialize_with = "fields::optional_text")]
    pub listen: Option<String>,
}

/// Request and resource limits; breaching one is a clear gRPC status. Every
/// limit is at least 1 (a 0 would refuse every request): the configuration
/// refuses 0 when it is loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Piles in one case.
    pub max_piles: NonZeroUsize,
    /// Cases in one `SolveRequest`.
    pub max_cases_per_batch: NonZeroUsize,
    /// Largest decoded request message, in bytes.
    pub max_message_bytes: NonZeroUsize,
    /// RPCs served at once over all connections.
    pub max_concurrent_rpcs: NonZeroUsize,
    /// Batches of one Solve stream solved at once.
    pub max_batches_in_flight_per_stream: NonZeroUsize,
    /// Cell updates admitted at once, server-wide.
    pub max_cells_in_flight: NonZeroU64,
    /// What the remoteness of a two-ends row costs in admission, as a
    /// multiple of its verdict's cell updates (SuggestMove and Solve with
    /// `want_remoteness`).
    pub remoteness_cell_factor: NonZeroU64,
    /// Piles held by admitted requests, server-wide.
    pub max_piles_in_flight: NonZeroU64,
    /// Bytes requests may make the server hold, server-wide (the memory
    /// budget, with `max_piles_in_flight` at 8 bytes a pile); 0: half of
    /// the container's or the machine's memory.
    pub max_memory_bytes: u64,
    /// Piles of a `GetTables` row.
    pub max_table_piles: NonZeroUsize,
    /// Default and largest rows per `TablesChunk`.
    pub max_chunk_rows: NonZeroU32,
    /// Bytes of one `Check` stream buffered at once (the side sent ahead of
    /// the other); beyond it the stream fails with `RESOURCE_EXHAUSTED`.
    pub max_check_bytes: NonZeroUsize,
    /// Cases of one `Generate` request (for `exhaustive`: the rows it
    /// holds).
    pub max_generate_cases: NonZeroU64,
    /// Cases × max_n of one `Generate` request: bounds its output size.
    pub max_generate_piles: NonZeroU64,
    /// Play streams (games) open at once, server-wide.
    pub max_play_sessions: NonZeroUsize,
    /// Play streams one client (bearer token, else connection) holds at once.
    pub max_play_sessions_per_client: NonZeroUsize,
    /// RPCs one client (bearer token, else connection) runs at once.
    pub max_rpcs_per_client: NonZeroUsize,
    /// Illegal moves a seat may make in one game; one more loses it
    /// (END_REASON_TOO_MANY_ILLEGAL_MOVES).
    pub play_max_illegal_moves: NonZeroU32,
    /// The default and largest move timeout of a Play game (more than 0,
    /// less than 2^32 ms).
    #[serde(
        serialize_with = "humantime_serde::serialize",
        deserialize_with = "fields::positive_u32_ms"
    )]
    pub play_move_timeout: Duration,
    /// Plies the bots play in a row in one Play or PlayStep call (a
    /// bot-against-bot game) before the call stops at a state whose token
    /// goes on.
    pub max_bot_plies_per_call: NonZeroU32,
    /// Positions of a game with analysis of at most this many live piles
    /// carry their remoteness (`GameState.remoteness`,
    /// `PlayedMove.remoteness_before`, `Move.remoteness_after`); 0: none.
    pub analysis_remoteness_max_piles: usize,
}

impl Limits {
    /// `play_move_timeout` in the Play protocol's milliseconds (it fits:
    /// the configuration refuses 2^32 ms and more).
    pub fn play_move_timeout_ms(&self) -> u32 {
        u32::try_from(self.play_move_timeout.as_millis()).unwrap_or(u32::MAX)
    }
}

/// Why the configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A source could not be read or does not match the schema.
    #[error("invalid configuration: {0}")]
    Load(#[from] config::ConfigError),
    /// The file is not TOML; `message` gives the line and column.
    #[error("invalid configuration: {path}: {message}")]
    Syntax { path: String, message: String },
    /// A value is out of its range.
    #[error("invalid configuration: {key} {problem}")]
    Value { key: &'static str, problem: String },
    /// A key the configuration does not have, in the file or the
    /// environment (`origin` names which: the path, or the variable).
    #[error("invalid configuration: {origin}: unknown key `{key}` in {section}; {hint}")]
    Unknown {
        /// The file's path, or `environment variable STONEGAME_…`.
        origin: String,
        /// The key, as written (lowercase for an environment variable).
        key: String,
        /// `section [limits]`, or `the top level`.
        section: String,
        /// The keys the section has, or why it has none.
        hint: String,
    },
}

/// Overrides given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--listen ADDR`.
    pub listen: Option<String>,
    /// `--metrics-listen ADDR`.
    pub metrics_listen: Option<String>,
}

/// Parses the file as TOML alone, so that a syntax error names its line
/// and column: the config crate reports some (an integer such as `1_x`)
/// without them. A file that cannot be read is left to the config crate,
/// whose error names it (`None`).
fn check_toml_syntax(path: &Path) -> Result<Option<toml::Table>, ConfigError> {
    let Ok(bytes) = std::fs::read(path) else {
        return Ok(None);
    };
    let syntax = |message: String| ConfigError::Syntax {
        path: path.display().to_string(),
        message,
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let before = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = before.len() - line_start + 1;
        syntax(format!(
            "not UTF-8 at line {line}, column {column} (byte {})",
            before.len() + 1
        ))
    })?;
    toml::from_str::<toml::Table>(&text)
        .map(Some)
        .map_err(|e| syntax(e.to_string().trim_end().to_string()))
}

impl Config {
    /// The embedded defaults alone.
    pub fn defaults() -> Result<Config, ConfigError> {
        Config::load(None, Some(HashMap::new()), &Overrides::default())
    }

    /// Loads the layers. `env` = `None` reads the process environment;
    /// `Some(map)` uses that map instead (for tests).
    pub fn load(
        file: Option<&Path>,
        env: Option<HashMap<String, String>>,
        overrides: &Overrides,
    ) -> Result<Config, ConfigError> {
        use config::{Environment, File, FileFormat};
        use deprecated::Renamed;
        let schema = keys::schema();
        let mut warnings = Vec::new();
        let mut builder =
            config::Config::builder().add_source(File::from_str(DEFAULT_CONFIG, FileFormat::Toml));
        // Whether a layer sets `metrics.listen` (else an ephemeral gRPC
        // port makes the metrics port ephemeral too: `ephemeral_metrics`).
        let mut metrics_set = overrides.metrics_listen.is_some();
        if let Some(path) = file {
            if let Some(table) = check_toml_syntax(path)? {
                metrics_set |= table
                    .get("metrics")
                    .and_then(|m| m.as_table())
                    .is_some_and(|m| m.contains_key("listen"));
                let origin = path.display().to_string();
                keys::check_file(&origin, &table, &schema, &mut Vec::new(), &mut warnings)?;
            }
            builder = builder.add_source(Renamed(File::from(path).format(FileFormat::Toml)));
        }
        // Unknown variables first, each named (serde would only name the
        // key, not the variable); in a fixed order.
        let mut names: Vec<String> = match &env {
            Some(map) => map.keys().cloned().collect(),
            None => std::env::vars_os()
                .filter_map(|(name, _)| name.into_string().ok())
                .collect(),
        };
        names.sort();
        let metrics_var = format!("{ENV_PREFIX}_METRICS{ENV_SEPARATOR}LISTEN");
        metrics_set |= names.iter().any(|n| n.eq_ignore_ascii_case(&metrics_var));
        keys::check_env(names.iter().map(String::as_str), &schema, &mut warnings)?;
        // No `try_parsing`: it would turn a value of digits into a number
        // (`play.token_key` = 000123… into 123…, or into a float past
        // 2^63) and a `true` into a boolean before the schema is known.
        // Strings are read as each key's type by the config crate instead
        // (`"4"` as 4 for `workers`, `"false"` for `tcp_nodelay`).
        builder = builder.add_source(Renamed(
            Environment::with_prefix(ENV_PREFIX)
                .prefix_separator("_")
                .separator(ENV_SEPARATOR)
                .try_parsing(false)
                .source(env),
        ));
        builder = builder.set_override_option("listen", overrides.listen.clone())?;
        builder =
            builder.set_override_option("metrics.listen", overrides.metrics_listen.clone())?;
        let mut cfg: Config = builder.build()?.try_deserialize()?;
        if !metrics_set {
            cfg.ephemeral_metrics();
        }
        cfg.check()?;
        cfg.warnings = warnings;
        Ok(cfg)
    }

    /// With `listen` on port 0 and `metrics.listen` left at its default,
    /// the metrics listener takes any free port on its host too, so that
    /// servers started side by side on port 0 do not fight over the
    /// default metrics port. Both addresses are printed at start-up.
    fn ephemeral_metrics(&mut self) {
        let port_zero = |addr: &str| addr.rsplit_once(':').is_some_and(|(_, p)| p == "0");
        if !port_zero(&self.listen) {
            return;
        }
        if let Some(metrics) = &mut self.metrics.listen
            && let Some((host, _)) = metrics.rsplit_once(':')
        {
            *metrics = format!("{host}:0");
        }
    }

    /// The bounds the types do not hold (zero limits are refused by their
    /// `NonZero*` types while loading).
    fn check(&self) -> Result<(), ConfigError> {
        use crate::core::MAX_PILES;
        let fail = |key, problem: String| Err(ConfigError::Value { key, problem });
        let max_piles = self.limits.max_piles.get();
        if max_piles > MAX_PILES {
            return fail(
                "limits.max_piles",
                format!("is {max_piles}, more than the core's limit of {MAX_PILES}"),
            );
        }
        if u32::try_from(self.limits.max_table_piles.get()).is_err() {
            return fail("limits.max_table_piles", "must fit in 32 bits".into());
        }
        let bound = self.limits.analysis_remoteness_max_piles;
        let factor = self.limits.remoteness_cell_factor.get();
        let max_cells = self.limits.max_cells_in_flight.get();
        // The remoteness of a two-ends position of n piles, as a game with
        // analysis charges it.
        let cost = |n: u64| super::costs::remoteness_cells_of(n as usize, true, factor);
        if cost(bound as u64) > max_cells {
            let fits = super::costs::largest_fitting(max_cells, cost);
            return fail(
                "limits.analysis_remoteness_max_piles",
                format!(
                    "is {bound}: the remoteness of a position of {bound} piles costs {} cell \
                     updates (limits.remoteness_cell_factor = {factor}), more than the whole \
                     budget limits.max_cells_in_flight = {max_cells}; at most {fits} fits",
                    cost(bound as u64)
                ),
            );
        }
        if let Err(e) = super::log::parse_filter(&self.log.filter) {
            return fail(
                "log.filter",
                format!(
                    "{e} (tracing-subscriber EnvFilter directives, e.g. `info` or \
                     `stonegame=debug,warn`)"
                ),
            );
        }
        if let Some(key) = &self.play.token_key
            && key.len() < MIN_KEY_BYTES
        {
            return fail(
                "play.token_key",
                format!(
                    "is {} bytes long; it needs at least {MIN_KEY_BYTES} (e.g. `openssl rand -hex \
                     32`), or leave it unset for a random key per process",
                    key.len()
                ),
            );
        }
        if let Err(problem) = self.web.check() {
            return fail("web.cors_allowed_origins", problem);
        }
        let both = "(set both, or neither)";
        match (
            &self.tls.cert_file,
            &self.tls.key_file,
            &self.tls.client_ca_file,
        ) {
            (Some(_), None, _) => fail(
                "tls.key_file",
                format!("is unset while tls.cert_file is set {both}"),
            ),
            (None, Some(_), _) => fail(
                "tls.cert_file",
                format!("is unset while tls.key_file is set {both}"),
            ),
            (None, None, Some(_)) => fail(
                "tls.client_ca_file",
                "is set without tls.cert_file and tls.key_file (mTLS needs TLS)".into(),
            ),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
