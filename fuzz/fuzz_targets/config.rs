//! The configuration loader (`service::Config::load`): a TOML file of
//! arbitrary text over the embedded defaults, then `STONEGAME_*`
//! environment pairs of arbitrary text.
//!
//! Input: the TOML text, then NUL-separated environment names and values
//! (name, NUL, value, NUL, …).
//!
//! Holds: no panic; an accepted configuration keeps the bounds the server
//! relies on (limits ≥ 1 by their types, `max_piles` ≤ the core's limit,
//! `max_table_piles` fits 32 bits);
//! a refused one says `invalid configuration:` and names where: the TOML
//! line and column, the key, or the environment variable.
#![no_main]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use stonegame::service::config::Overrides;
use stonegame::service::{Config, ConfigError};

/// One file per fuzzing process, rewritten for every input.
fn file() -> &'static PathBuf {
    static FILE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &FILE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("fuzz.toml");
            (dir, path)
        })
        .1
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0);
    let toml = parts.next().unwrap_or_default();
    let mut env = HashMap::new();
    while let (Some(k), Some(v)) = (parts.next(), parts.next()) {
        let (Ok(k), Ok(v)) = (std::str::from_utf8(k), std::str::from_utf8(v)) else {
            return;
        };
        env.insert(k.to_string(), v.to_string());
    }
    std::fs::write(file(), toml).unwrap();
    match Config::load(Some(file()), Some(env.clone()), &Overrides::default()) {
        Ok(cfg) => {
            assert!(cfg.limits.max_piles.get() <= stonegame::core::MAX_PILES);
            assert!(cfg.limits.max_table_piles.get() <= u32::MAX as usize);
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with("invalid configuration: "), "{message}");
            let named = match &e {
                ConfigError::Value { key, .. } => message.contains(key),
                ConfigError::Syntax { .. } => {
                    message.contains("line ") && message.contains("column ")
                }
                // The source (file path or variable), the key and its section.
                ConfigError::Unknown {
                    origin,
                    key,
                    section,
                    ..
                } => message.contains(origin) && message.contains(key) && message.contains(section),
                ConfigError::Load(_) => {
                    message.contains("line")
                        || message.contains("key")
                        || message.contains("field")
                        || message.contains("STONEGAME")
                        || env.keys().any(|k| message.contains(&k.to_lowercase()))
                }
            };
            assert!(named, "the error names no place: {message}");
        }
    }
});
