//! The `[log]` table and the check of its filter: the settings that the
//! configuration validates when it loads and that [`super::telemetry`]
//! sets up logging with.

use serde::{Deserialize, Serialize};
use tracing_subscriber::EnvFilter;

/// Logging configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// `tracing_subscriber::EnvFilter` directives; `RUST_LOG` overrides them.
    /// Checked when the configuration loads: directives that do not parse
    /// are an error naming `log.filter`.
    pub filter: String,
    /// Human-readable lines or JSON objects.
    pub format: LogFormat,
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One human-readable line per event.
    Human,
    /// One JSON object per event.
    Json,
}

/// `directives` as an [`EnvFilter`], or why they do not parse (the
/// directive at fault and what is wrong with it).
pub fn parse_filter(directives: &str) -> Result<EnvFilter, String> {
    EnvFilter::builder()
        .parse(directives)
        .map_err(|e| format!("`{directives}` is not a valid filter: {e}"))
}
