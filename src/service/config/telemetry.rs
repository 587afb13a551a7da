//! Logging: tracing-subscriber with an env-filter (`RUST_LOG` overrides the
//! configured filter), human-readable or JSON lines on stderr. Every RPC runs
//! in a span: `Solve` (info; records batches, cases, elapsed time and
//! outcome), `GetTables` (info) and `SuggestMove` (debug: it is the high-QPS
//! call), each ending with an event carrying sizes and timings.
//!
//! A filter that does not parse is refused, never replaced silently:
//! `log.filter` when the configuration loads
//! ([`Config::load`](super::Config::load) calls [`parse_filter`]),
//! `RUST_LOG` here.

use super::log::{LogConfig, LogFormat, parse_filter};

/// Installs the global subscriber; does nothing if one is already set.
/// `RUST_LOG`, when set, replaces `log.filter`; an invalid `RUST_LOG` is an
/// error naming it.
pub fn init(log: &LogConfig) -> Result<(), String> {
    let filter = match std::env::var_os("RUST_LOG") {
        Some(value) => {
            let value = value
                .into_string()
                .map_err(|v| format!("RUST_LOG: {v:?} is not UTF-8; unset it to use log.filter"))?;
            parse_filter(&value)
                .map_err(|e| format!("RUST_LOG: {e}; fix it, or unset it to use log.filter"))?
        }
        None => parse_filter(&log.filter).map_err(|e| format!("log.filter: {e}"))?,
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let _ = match log.format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_or_say_why() {
        for ok in ["info", "", "stonegame=debug,info", "warn,h2=off"] {
            parse_filter(ok).unwrap();
        }
        for bad in ["info,stonegame=loud", "stonegame=verbose"] {
            let e = parse_filter(bad).unwrap_err();
            assert!(
                e.starts_with(&format!("`{bad}` is not a valid filter: ")),
                "{e}"
            );
        }
    }
}
