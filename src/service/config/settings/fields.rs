//! Deserializers of single configuration values that serde's derive and
//! humantime-serde do not have: a duration that must not be zero, an
//! optional setting that an empty string leaves unset (how an environment
//! variable or a flag unsets one), and a secret that must be text.

use std::path::PathBuf;
use std::time::Duration;

use humantime_serde::re::humantime;
use serde::Deserialize;
use serde::de::{Deserializer, Error};

/// A duration (`"20s"`) that is more than zero.
pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let value: Duration = humantime_serde::deserialize(d)?;
    if value.is_zero() {
        return Err(D::Error::custom("must be more than 0 (e.g. \"20s\")"));
    }
    Ok(value)
}

/// A file-reload interval: at least 100 ms (`"5s"`).
pub fn reload_interval<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let value: Duration = humantime_serde::deserialize(d)?;
    if value < Duration::from_millis(100) {
        return Err(D::Error::custom(format!(
            "is {}, less than 100ms",
            humantime::format_duration(value)
        )));
    }
    Ok(value)
}

/// A duration that must fit in 32 bits of milliseconds (the Play
/// protocol's `move_timeout_ms`), and be more than zero.
pub fn positive_u32_ms<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let value = positive(d)?;
    if value.as_millis() > u128::from(u32::MAX) {
        return Err(D::Error::custom(format!(
            "is {}, more than {} (2^32 - 1 ms)",
            humantime::format_duration(value),
            humantime::format_duration(Duration::from_millis(u32::MAX.into()))
        )));
    }
    Ok(value)
}

/// An optional path: absent or `""` = unset.
pub fn optional_path<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    Ok(optional_text(d)?.map(PathBuf::from))
}

/// An optional text: absent or `""` = unset.
pub fn optional_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = Option::<String>::deserialize(d)?;
    Ok(text.filter(|t| !t.is_empty()))
}

/// What [`secret_text`] says of a value that is not a string (never the
/// value itself: it may be a secret).
const NOT_A_STRING: &str = "must be a string: quote it (token_key = \"…\" in TOML), so that \
                            every source reads the same text (a number would lose its leading \
                            zeros or its digits past 2^63)";

/// An optional secret that must be a string (absent or `""` = unset),
/// refusing every other type without echoing the value: the key of the
/// Play tokens must be the same text from a TOML file as from the
/// environment.
pub fn secret_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Secret {
        Text(String),
        Other(serde::de::IgnoredAny),
    }
    match Secret::deserialize(d)? {
        Secret::Text(text) => Ok((!text.is_empty()).then_some(text)),
        Secret::Other(_) => Err(D::Error::custom(NOT_A_STRING)),
    }
}
