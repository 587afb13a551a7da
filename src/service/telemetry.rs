//! Logging: tracing-subscriber with an env-filter (`RUST_LOG` overrides the
//! configured filter), human-readable or JSON lines on stderr. Every RPC runs
//! in a span: `Solve` (info; records batches, cases, elapsed time and
//! outcome), `GetTables` (info) and `SuggestMove` (debug: it is the high-QPS
//! call), each ending with an event carrying sizes and timings.

use tracing_subscriber::EnvFilter;

use super::config::{LogConfig, LogFormat};

/// Installs the global subscriber; does nothing if one is already set.
pub fn init(log: &LogConfig) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&log.filter))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let _ = match log.format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
