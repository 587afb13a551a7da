//! Which keys the configuration has, checked in each source before the
//! layers merge (after merging, no error could say where a key came from):
//! an unknown key in a file or a `STONEGAME_*` variable is an error naming
//! the file or the variable, the section and the keys it has; a deprecated
//! key is a warning naming its replacement. The schema is the embedded
//! defaults' tables plus the optional keys they leave unset.

use std::collections::BTreeSet;

use super::deprecated;
use super::{ConfigError, DEFAULT_CONFIG, ENV_PREFIX, ENV_SEPARATOR};

/// The optional keys, unset in the embedded defaults.
pub const OPTIONAL: [&str; 5] = [
    "tls.cert_file",
    "tls.key_file",
    "tls.client_ca_file",
    "auth.tokens_file",
    "play.token_key",
];

/// Every key: the defaults' tables, with the optional keys added.
pub fn schema() -> toml::Table {
    let mut schema: toml::Table =
        toml::from_str(DEFAULT_CONFIG).expect("the embedded defaults are TOML");
    for dotted in OPTIONAL {
        let (section, key) = dotted.split_once('.').expect("a key in a section");
        let Some(toml::Value::Table(table)) = schema.get_mut(section) else {
            unreachable!("the defaults have a [{section}] table");
        };
        table.insert(key.to_owned(), toml::Value::String(String::new()));
    }
    schema
}

/// Where an unknown key is: its section and the keys there.
fn unknown_key(origin: String, path: &[&str], schema: &toml::Table) -> ConfigError {
    let (key, sections) = path.split_last().expect("a key");
    let section = if sections.is_empty() {
        "the top level".to_string()
    } else {
        format!("section [{}]", sections.join("."))
    };
    let keys: Vec<&str> = schema.keys().map(String::as_str).collect();
    ConfigError::Unknown {
        origin,
        key: key.to_string(),
        section,
        hint: format!("its keys are {}", keys.join(", ")),
    }
}

/// A deprecated key given beside its replacement in one source.
fn given_twice(origin: &str, old: &str, new: &'static str) -> ConfigError {
    ConfigError::Value {
        key: new,
        problem: format!(
            "is given twice in {origin}: as `{new}` and as the deprecated `{old}`; keep `{new}`"
        ),
    }
}

/// The warning for a deprecated key (`instead`: what to write now).
fn deprecation(origin: &str, old: &str, instead: &str) -> String {
    format!(
        "{origin}: `{old}` (milliseconds) is deprecated; write {instead} as a duration \
         (\"10s\", \"250ms\", \"5m\")"
    )
}

/// Checks the keys of `table` (a file's, under the section `path`): the
/// first one the schema has not is an error; each deprecated one adds a
/// warning. A value of the wrong type (a table for a number) is left to
/// serde, whose error names the key.
pub fn check_file(
    origin: &str,
    table: &toml::Table,
    schema: &toml::Table,
    path: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    for (key, value) in table {
        path.push(key.clone());
        let dotted = path.join(".");
        if let Some(new) = deprecated::replacement(&dotted) {
            let leaf = new.rsplit('.').next().expect("a key");
            if table.contains_key(leaf) {
                return Err(given_twice(origin, &dotted, new));
            }
            warnings.push(deprecation(origin, &dotted, &format!("`{new}`")));
            path.pop();
            continue;
        }
        match (schema.get(key), value) {
            (None, _) => {
                let path: Vec<&str> = path.iter().map(String::as_str).collect();
                return Err(unknown_key(origin.to_string(), &path, schema));
            }
            (Some(toml::Value::Table(inner)), toml::Value::Table(value)) => {
                check_file(origin, value, inner, path, warnings)?;
            }
            _ => {}
        }
        path.pop();
    }
    Ok(())
}

/// Checks the `STONEGAME_*` variables of `names` (in order), read as the
/// config crate reads them: lowercased, the prefix `stonegame_` removed,
/// `__` between a section and its key. The first naming no key is an
/// error; each deprecated one adds a warning.
pub fn check_env<'a>(
    names: impl IntoIterator<Item = &'a str>,
    schema: &toml::Table,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let prefix = format!("{}_", ENV_PREFIX.to_lowercase());
    let variable = |dotted: &str| {
        format!(
            "{ENV_PREFIX}_{}",
            dotted.replace('.', ENV_SEPARATOR).to_uppercase()
        )
    };
    let keys: Vec<(&str, String)> = names
        .into_iter()
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let dotted = lower.strip_prefix(&prefix)?.replace(ENV_SEPARATOR, ".");
            Some((name, dotted))
        })
        .collect();
    let given: BTreeSet<&str> = keys.iter().map(|(_, dotted)| dotted.as_str()).collect();
    for (name, dotted) in &keys {
        let origin = || format!("environment variable {name}");
        if let Some(new) = deprecated::replacement(dotted) {
            if given.contains(new) {
                return Err(given_twice(&origin(), dotted, new));
            }
            warnings.push(deprecation(&origin(), dotted, &variable(new)));
            continue;
        }
        let path: Vec<&str> = dotted.split('.').collect();
        let mut table = schema;
        for (depth, part) in path.iter().enumerate() {
            match table.get(*part) {
                None => return Err(unknown_key(origin(), &path[..=depth], table)),
                Some(toml::Value::Table(inner)) => table = inner,
                Some(_) if depth + 1 < path.len() => {
                    let value = path[..=depth].join(".");
                    return Err(ConfigError::Unknown {
                        origin: origin(),
                        key: path[depth + 1].to_string(),
                        section: format!("`{value}`"),
                        hint: format!("`{value}` is a value, not a section"),
                    });
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}
