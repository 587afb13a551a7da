//! The `[web]` table: the page and which origins' pages may call the
//! service from a browser (CORS), checked when the configuration loads.

use hyper::http;
use serde::{Deserialize, Serialize};

/// The `[web]` table: the page and the browsers' access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// Serve the page at `/` and its assets under `/assets/`.
    pub page: bool,
    /// Origins (`scheme://host[:port]`) whose pages may call the service
    /// from a browser (CORS); empty: the page's own origin only. `"*"`
    /// allows every origin and must be written alone. From the
    /// environment: one string, origins separated by commas.
    #[serde(deserialize_with = "origins")]
    pub cors_allowed_origins: Vec<String>,
}

impl WebConfig {
    /// Why an origin of `cors_allowed_origins` cannot be used, if one cannot.
    pub fn check(&self) -> Result<(), String> {
        let list = &self.cors_allowed_origins;
        if list.iter().any(|o| o == "*") && list.len() > 1 {
            return Err("\"*\" allows every origin and must be the only entry".into());
        }
        for origin in list.iter().filter(|o| *o != "*") {
            check_origin(origin).map_err(|why| format!("`{origin}` {why}"))?;
        }
        Ok(())
    }
}

/// An origin as browsers send it: `http://` or `https://`, a host, an
/// optional port, no path, no trailing slash.
fn check_origin(origin: &str) -> Result<(), &'static str> {
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .ok_or("is not an origin: it must start with http:// or https://")?;
    if rest.is_empty() {
        return Err("has no host");
    }
    if rest.contains(['/', '?', '#', ' ']) {
        return Err(
            "is not an origin: no path, query or trailing slash (e.g. https://example.org)",
        );
    }
    if http::HeaderValue::from_str(origin).is_err() {
        return Err("is not a valid header value");
    }
    Ok(())
}

/// `cors_allowed_origins` from a list (a config file) or from one string of
/// origins separated by commas (an environment variable).
fn origins<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ListOrText {
        List(Vec<String>),
        Text(String),
    }
    Ok(match ListOrText::deserialize(deserializer)? {
        ListOrText::List(list) => list,
        ListOrText::Text(text) => text
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .map(String::from)
            .collect(),
    })
}
