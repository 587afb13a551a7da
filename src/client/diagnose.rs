//! Why a connection failed, in words a person can act on: the causes under
//! tonic's "transport error", and for the failures people meet first a
//! hint of what to do (start the server, use `http://` or `https://`, give
//! a client certificate).

use std::error::Error;
use std::io;

/// What went wrong connecting to `url`: the chain of causes below
/// `error`, led by a hint when the failure is a known one.
pub fn connect_failure(url: &str, error: &(dyn Error + 'static)) -> String {
    let chain = causes(error);
    let address = url.split("://").nth(1).unwrap_or(url).trim_end_matches('/');
    with_hint(hint(&chain, error, url, address), &chain)
}

fn with_hint(hint: String, chain: &[String]) -> String {
    format!("{hint} ({})", chain.join(": "))
}

/// A call's error status in words: what the server said, or — when the
/// status carries a transport error below it, so no server answered — why
/// the connection failed.
pub fn status(status: &tonic::Status) -> String {
    match status.source() {
        Some(transport) => {
            let chain = status_chain(status);
            let hint = hint(&chain, transport, "", "");
            format!("the connection failed: {}", with_hint(hint, &chain))
        }
        None => format!("the server says {:?}: {}", status.code(), status.message()),
    }
}

/// A status's message (when it has one) and the causes below it, each
/// once: the text of a failed call.
pub fn status_chain(status: &tonic::Status) -> Vec<String> {
    let mut chain: Vec<String> = Vec::new();
    if !status.message().is_empty() {
        chain.push(status.message().to_string());
    }
    if let Some(source) = status.source() {
        for line in causes(source) {
            if !chain.iter().any(|seen| seen.contains(&line)) {
                chain.push(line);
            }
        }
    }
    chain
}

/// `error` and its sources.
fn chain<'a>(error: &'a (dyn Error + 'static)) -> impl Iterator<Item = &'a (dyn Error + 'static)> {
    std::iter::successors(Some(error), |&e| e.source())
}

/// The messages of `error` and its sources, repeated ones once.
fn causes(error: &(dyn Error + 'static)) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in chain(error).map(|e| e.to_string()) {
        if !out.iter().any(|seen| seen.contains(&line)) {
            out.push(line);
        }
    }
    out
}

/// The first `io::Error` in the chain of `error`.
fn io_kind(error: &(dyn Error + 'static)) -> Option<io::ErrorKind> {
    chain(error).find_map(|e| Some(e.downcast_ref::<io::Error>()?.kind()))
}

fn hint(chain: &[String], error: &(dyn Error + 'static), url: &str, address: &str) -> String {
    let text = chain.join(": ").to_lowercase();
    let tls = url.starts_with("https://");
    if io_kind(error) == Some(io::ErrorKind::ConnectionRefused)
        || text.contains("connection refused")
    {
        return format!("connection refused at {address}: is `stonegame serve` running?");
    }
    if tls && (text.contains("invalidcontenttype") || text.contains("corrupt message")) {
        return format!("TLS to a plaintext port: {address} does not speak TLS (use http://)");
    }
    // A TLS alert read as an HTTP/2 frame (the client spoke plaintext).
    if !tls && text.contains("frame with invalid size") {
        return "plaintext to a TLS port (use https://)".to_string();
    }
    if text.contains("certificaterequired") || text.contains("certificate required") {
        return "the server requires a client certificate (--tls-cert/--tls-key)".to_string();
    }
    if tls
        && (text.contains("unknownca")
            || text.contains("bad certificate")
            || text.contains("badcertificate"))
    {
        return format!(
            "the server refused this client certificate: {}",
            chain.last().map_or("", String::as_str)
        );
    }
    // TLS 1.3: a client that writes before it reads the server's alert
    // sees the connection closed (broken pipe, reset, or closed) instead
    // of the alert.
    if text.contains("broken pipe")
        || text.contains("connection reset")
        || text.contains("connection closed")
    {
        return "the server closed the connection right after it opened: a TLS server does this \
             to a plaintext client (use https://) and when the client certificate is missing \
             or not trusted (--tls-cert/--tls-key)"
            .to_string();
    }
    // Anything else below a transport error (a form of the above this code
    // has not met yet, or a network failure): the checks that fix most.
    "no answer from the server: check the address, its scheme (http://, or https:// for TLS) \
     and, for a server that requires a client certificate, --tls-cert/--tls-key"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("transport error")]
    struct Outer(#[source] io::Error);

    #[test]
    fn a_refused_connection_says_to_start_the_server() {
        let e = Outer(io::Error::from(io::ErrorKind::ConnectionRefused));
        let text = connect_failure("http://127.0.0.1:50051", &e);
        assert!(
            text.starts_with(
                "connection refused at 127.0.0.1:50051: is `stonegame serve` running? (transport error: "
            ),
            "{text}"
        );
        let e = Outer(io::Error::other("something else"));
        let text = connect_failure("http://h:1", &e);
        assert!(text.starts_with("no answer from the server: "), "{text}");
        assert!(
            text.ends_with(" (transport error: something else)"),
            "{text}"
        );
    }
}
