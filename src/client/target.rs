//! What `--server` names: one URL, a list of URLs, or a DNS name whose
//! addresses are all used.
//!
//! * `http://HOST:PORT` (or a bare `HOST:PORT`): one server, one HTTP/2
//!   connection (tonic resolves HOST when it connects);
//! * `dns:///HOST:PORT`: every address HOST resolves to, re-resolved
//!   periodically and after a failure (a Kubernetes headless Service:
//!   `dns:///stonegame-headless.NAMESPACE.svc.cluster.local:50051`);
//! * `URL,URL,…`: several servers (each entry one of the two forms above).
//!
//! Parsing is pure: it never resolves a name ([`super::resolve`] does).

use std::fmt;

use tonic::codegen::http::Uri;

/// A parsed `--server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One server, one connection (`http://HOST:PORT`), as the URL to
    /// connect to.
    Single(String),
    /// Several servers, balanced: a list, or a `dns:///` name.
    Balanced(Vec<Source>),
}

/// One entry of a balanced target.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// A server's URL (`http://HOST:PORT`).
    Url(String),
    /// All the addresses of a DNS name.
    Dns {
        /// The name (or an IP literal; IPv6 without brackets).
        host: String,
        /// The port.
        port: u16,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Url(url) => f.write_str(url),
            Source::Dns { host, port } if host.contains(':') => write!(f, "dns:///[{host}]:{port}"),
            Source::Dns { host, port } => write!(f, "dns:///{host}:{port}"),
        }
    }
}

/// Why a `--server` value is unusable: the whole value, the entry at fault
/// (when it is a list) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid server address {input:?}: {}{problem}", entry_prefix(.entry))]
pub struct TargetError {
    /// The whole value.
    pub input: String,
    /// The 1-based entry of a list and its text, when the value is a list.
    pub entry: Option<(usize, String)>,
    /// What is wrong.
    pub problem: String,
}

fn entry_prefix(entry: &Option<(usize, String)>) -> String {
    entry
        .as_ref()
        .map_or(String::new(), |(i, text)| format!("entry {i} ({text:?}): "))
}

/// What the forms look like, for error messages.
const FORMS: &str = "expected http://HOST:PORT, https://HOST:PORT, dns:///HOST:PORT or a comma-separated list of them";

impl Target {
    /// Parses a `--server` value.
    pub fn parse(input: &str) -> Result<Target, TargetError> {
        let error = |entry, problem: String| TargetError {
            input: input.to_string(),
            entry,
            problem,
        };
        let text = input.trim();
        if text.is_empty() {
            return Err(error(None, format!("it is empty ({FORMS})")));
        }
        if !text.contains(',') {
            return match parse_source(text).map_err(|p| error(None, p))? {
                Source::Url(url) => Ok(Target::Single(url)),
                dns => Ok(Target::Balanced(vec![dns])),
            };
        }
        let mut sources: Vec<Source> = Vec::new();
        for (i, entry) in text.split(',').map(str::trim).enumerate() {
            let at = || Some((i + 1, entry.to_string()));
            if entry.is_empty() {
                return Err(error(at(), "it is empty (a stray comma?)".into()));
            }
            let source = parse_source(entry).map_err(|p| error(at(), p))?;
            if let Some(j) = sources.iter().position(|s| *s == source) {
                return Err(error(
                    at(),
                    format!("it repeats entry {} (each server once)", j + 1),
                ));
            }
            sources.push(source);
        }
        Ok(Target::Balanced(sources))
    }

    /// Whether requests are balanced over several connections.
    pub fn is_balanced(&self) -> bool {
        matches!(self, Target::Balanced(_))
    }

    /// Whether some entry is an `https://` URL (TLS for every entry).
    pub fn wants_tls(&self) -> bool {
        let https = |url: &str| url.starts_with("https://");
        match self {
            Target::Single(url) => https(url),
            Target::Balanced(sources) => sources
                .iter()
                .any(|s| matches!(s, Source::Url(url) if https(url))),
        }
    }

    /// The host of the `dns:///` entries when every entry names that one:
    /// the name their resolved addresses are verified against over TLS.
    pub fn dns_host(&self) -> Option<&str> {
        let Target::Balanced(sources) = self else {
            return None;
        };
        // A URL entry is `None`: never the same host as the others.
        let mut hosts = sources.iter().map(|s| match s {
            Source::Dns { host, .. } => Some(host.as_str()),
            Source::Url(_) => None,
        });
        let first = hosts.next()??;
        hosts.all(|h| h == Some(first)).then_some(first)
    }

    /// Whether some entry is a DNS name (re-resolved periodically).
    pub fn has_dns(&self) -> bool {
        match self {
            Target::Single(_) => false,
            Target::Balanced(sources) => sources.iter().any(|s| matches!(s, Source::Dns { .. })),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Single(url) => f.write_str(url),
            Target::Balanced(sources) => {
                let entries: Vec<String> = sources.iter().map(Source::to_string).collect();
                f.write_str(&entries.join(","))
            }
        }
    }
}

/// One entry: a `dns:` name or a URL (a bare `HOST:PORT` gets `http://`).
fn parse_source(text: &str) -> Result<Source, String> {
    if let Some(rest) = strip_prefix_ignore_case(text, "dns:") {
        return parse_dns(rest);
    }
    let url = if text.contains("://") {
        text.to_string()
    } else {
        format!("http://{text}")
    };
    let uri = check_url(&url)?;
    // The canonical form: the scheme, the authority, nothing else.
    let authority = uri.authority().map(|a| a.as_str()).unwrap_or_default();
    let scheme = if uri
        .scheme_str()
        .is_some_and(|s| s.eq_ignore_ascii_case("https"))
    {
        "https"
    } else {
        "http"
    };
    Ok(Source::Url(format!("{scheme}://{authority}")))
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// The part after `dns:`: `///HOST:PORT` (gRPC's naming; `//AUTHORITY/`
/// would name a DNS server, which is not supported).
fn parse_dns(rest: &str) -> Result<Source, String> {
    let Some(hostport) = rest.strip_prefix("//") else {
        return Err("write the DNS form as dns:///HOST:PORT (three slashes)".into());
    };
    let Some(hostport) = hostport.strip_prefix('/') else {
        let authority = hostport.split('/').next().unwrap_or_default();
        return Err(format!(
            "dns://{authority}/ names a DNS server, which is not supported: write dns:///HOST:PORT \
             (the system resolver is used)"
        ));
    };
    if hostport.is_empty() {
        return Err("the host and port are missing (dns:///HOST:PORT)".into());
    }
    // IPv6 literals come in brackets: dns:///[::1]:50051.
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        match v6.split_once(']') {
            Some((host, rest)) => match rest.strip_prefix(':') {
                Some(port) => (host, Some(port)),
                None if rest.is_empty() => (host, None),
                None => return Err(format!("unexpected {rest:?} after the IPv6 address")),
            },
            None => return Err("an IPv6 address opened with '[' is not closed with ']'".into()),
        }
    } else {
        match hostport.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (hostport, None),
        }
    };
    if host.is_empty() {
        return Err("the host is missing (dns:///HOST:PORT)".into());
    }
    let Some(port) = port else {
        return Err(format!("the port is missing (dns:///{hostport}:PORT)"));
    };
    let port = parse_port(port)?;
    // The host must be one a URL can carry (no spaces, slashes, …).
    let probe = if host.contains(':') {
        format!("http://[{host}]:{port}")
    } else {
        format!("http://{host}:{port}")
    };
    check_url(&probe).map_err(|e| format!("the host {host:?} is malformed: {e}"))?;
    Ok(Source::Dns {
        host: host.to_string(),
        port,
    })
}

fn parse_port(port: &str) -> Result<u16, String> {
    match port.parse::<u16>() {
        Ok(p) if p > 0 && port.bytes().all(|b| b.is_ascii_digit()) => Ok(p),
        _ => Err(format!("the port {port:?} is not a number from 1 to 65535")),
    }
}

/// Checks an `http://` URL: a host, maybe a port, no path or query.
fn check_url(url: &str) -> Result<Uri, String> {
    let uri: Uri = url
        .parse()
        .map_err(|e| format!("it is not a URL ({e}; {FORMS})"))?;
    match uri.scheme_str() {
        Some(s) if s.eq_ignore_ascii_case("http") => {}
        Some(s) if s.eq_ignore_ascii_case("https") => {}
        Some(s) => return Err(format!("the scheme {s}:// is not supported ({FORMS})")),
        None => return Err(format!("the scheme is missing ({FORMS})")),
    }
    let Some(authority) = uri.authority() else {
        return Err(format!("the host is missing ({FORMS})"));
    };
    if uri.host().is_none_or(|h| h.is_empty() || h == "[]") {
        return Err(format!("the host is missing ({FORMS})"));
    }
    if authority.as_str().contains('@') {
        return Err("user information (USER@HOST) is not supported".into());
    }
    if let Some((_, port)) = authority.as_str().rsplit_once(':')
        && !authority.as_str().ends_with(']')
    {
        parse_port(port)?;
    }
    if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return Err(format!(
            "a server address has no path or query (got {:?})",
            uri.path_and_query().map(|p| p.as_str()).unwrap_or_default()
        ));
    }
    Ok(uri)
}

#[cfg(test)]
mod tests;
