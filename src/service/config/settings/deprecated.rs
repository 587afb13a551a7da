//! The durations configured in milliseconds before they were durations
//! (`shutdown_grace_ms = 10000`, now `shutdown_grace = "10s"`): still read,
//! with a warning. Each old key is renamed to its new one (the same name
//! without `_ms`) as its source is collected, so the layers keep their
//! order and an error still names the file or variable it came from.

use config::{Map, Source, Value, ValueKind};

/// The old keys, dotted; the new key is the same without `_ms`.
pub const MS_KEYS: [&str; 12] = [
    "shutdown_grace_ms",
    "max_connection_age_ms",
    "max_connection_age_grace_ms",
    "tls.reload_interval_ms",
    "auth.reload_interval_ms",
    "limits.play_move_timeout_ms",
    "transport.http2_keepalive_interval_ms",
    "transport.http2_keepalive_timeout_ms",
    "transport.tcp_keepalive_ms",
    "transport.handshake_timeout_ms",
    "transport.http1_keepalive_timeout_ms",
    "transport.request_timeout_ms",
];

/// The key that replaces `old` (dotted), if `old` is deprecated.
pub fn replacement(old: &str) -> Option<&'static str> {
    MS_KEYS
        .iter()
        .find(|k| **k == old)
        .map(|k| k.strip_suffix("_ms").expect("every old key ends in _ms"))
}

/// A configuration source whose deprecated keys are renamed, their
/// milliseconds written as a duration (`10000` as `"10000ms"`).
#[derive(Debug, Clone)]
pub struct Renamed<S>(pub S);

impl<S: Source + Clone + Send + Sync + 'static> Source for Renamed<S> {
    fn clone_into_box(&self) -> Box<dyn Source + Send + Sync> {
        Box::new(self.clone())
    }

    fn collect(&self) -> Result<Map<String, Value>, config::ConfigError> {
        let mut map = self.0.collect()?;
        for old in MS_KEYS {
            rename(&mut map, old, old)?;
        }
        Ok(map)
    }
}

/// Renames `path` (what is left of the dotted key `old` below `map`): a
/// file's keys are nested tables, the environment's are dotted keys.
fn rename(map: &mut Map<String, Value>, path: &str, old: &str) -> Result<(), config::ConfigError> {
    if let Some(value) = map.remove(path) {
        let new = path.strip_suffix("_ms").expect("every old key ends in _ms");
        map.insert(new.to_owned(), as_duration(old, value)?);
    } else if let Some((section, rest)) = path.split_once('.')
        && let Some(Value {
            kind: ValueKind::Table(inner),
            ..
        }) = map.get_mut(section)
    {
        rename(inner, rest, old)?;
    }
    Ok(())
}

/// A number of milliseconds (a TOML integer, or the environment's digits)
/// as the duration text the new key reads.
fn as_duration(old: &str, value: Value) -> Result<Value, config::ConfigError> {
    let origin = value.origin().map(str::to_owned);
    let ms = match &value.kind {
        ValueKind::I64(n) => u64::try_from(*n).ok(),
        ValueKind::U64(n) => Some(*n),
        ValueKind::I128(n) => u64::try_from(*n).ok(),
        ValueKind::U128(n) => u64::try_from(*n).ok(),
        ValueKind::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    let Some(ms) = ms else {
        let new = replacement(old).expect("an old key");
        let from = origin
            .as_deref()
            .map_or(String::new(), |o| format!(" in {o}"));
        return Err(config::ConfigError::Message(format!(
            "key `{old}`{from} must be a whole number of milliseconds (it is deprecated: \
             write `{new}` as a duration instead, e.g. \"10s\" or \"250ms\")"
        )));
    };
    Ok(Value::new(
        origin.as_ref(),
        ValueKind::String(format!("{ms}ms")),
    ))
}
