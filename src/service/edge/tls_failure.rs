//! Why a TLS handshake failed, for operators: the reason (the `reason`
//! label of `stonegame_tls_handshake_failures_total`) read from rustls'
//! error, and a WARN line with the peer and the reason, at most one a
//! second (a flood of failing handshakes cannot fill the log; the lines
//! left out are counted in the next one).

use std::io;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustls::{CertificateError, Error as TlsError, InvalidMessage};

use crate::service::metrics::labels::HandshakeFailure;

impl HandshakeFailure {
    /// The reason of a failed `accept` (rustls' error inside the I/O
    /// error).
    pub fn of(error: &io::Error) -> HandshakeFailure {
        let Some(tls) = error.get_ref().and_then(|e| e.downcast_ref::<TlsError>()) else {
            return HandshakeFailure::Other;
        };
        match tls {
            TlsError::NoCertificatesPresented => HandshakeFailure::NoClientCertificate,
            TlsError::InvalidCertificate(e) => match e {
                CertificateError::UnknownIssuer => HandshakeFailure::UnknownCa,
                CertificateError::Expired
                | CertificateError::ExpiredContext { .. }
                | CertificateError::NotValidYet
                | CertificateError::NotValidYetContext { .. } => HandshakeFailure::Expired,
                _ => HandshakeFailure::BadCertificate,
            },
            TlsError::InvalidMessage(InvalidMessage::InvalidContentType)
            | TlsError::InvalidMessage(InvalidMessage::UnknownProtocolVersion) => {
                HandshakeFailure::Plaintext
            }
            _ => HandshakeFailure::Other,
        }
    }
}

/// One WARN line a second at most.
#[derive(Debug, Default)]
pub struct FailureLog {
    /// When the last line was written, and the failures since.
    state: Mutex<(Option<Instant>, u64)>,
}

/// The shortest time between two WARN lines.
const EVERY: Duration = Duration::from_secs(1);

impl FailureLog {
    /// Logs the failure of `peer`'s handshake, unless a line was written
    /// less than a second ago (then it is counted for the next line).
    pub fn warn(&self, peer: Option<SocketAddr>, reason: HandshakeFailure, detail: &str) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = Instant::now();
        let (last, suppressed) = &mut *state;
        if last.is_some_and(|t| now.duration_since(t) < EVERY) {
            *suppressed += 1;
            return;
        }
        let left_out = std::mem::take(suppressed);
        *last = Some(now);
        drop(state);
        let peer = peer.map_or_else(|| "unknown".to_string(), |p| p.to_string());
        tracing::warn!(
            %peer,
            reason = reason.label(),
            error = detail,
            failures_not_logged = left_out,
            "TLS handshake refused"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(e: TlsError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, e)
    }

    #[test]
    fn reasons_from_rustls_errors() {
        let cases = [
            (TlsError::NoCertificatesPresented, "no_client_certificate"),
            (
                TlsError::InvalidCertificate(CertificateError::UnknownIssuer),
                "unknown_ca",
            ),
            (
                TlsError::InvalidCertificate(CertificateError::Expired),
                "expired",
            ),
            (
                TlsError::InvalidCertificate(CertificateError::BadEncoding),
                "bad_certificate",
            ),
            (
                TlsError::InvalidMessage(InvalidMessage::InvalidContentType),
                "plaintext",
            ),
            (TlsError::HandshakeNotComplete, "other"),
        ];
        for (e, label) in cases {
            assert_eq!(HandshakeFailure::of(&io(e)).label(), label);
        }
        let plain = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert_eq!(HandshakeFailure::of(&plain), HandshakeFailure::Other);
    }

    #[test]
    fn one_line_a_second() {
        let log = FailureLog::default();
        for _ in 0..100 {
            log.warn(None, HandshakeFailure::Plaintext, "x");
        }
        let state = log.state.lock().unwrap();
        assert_eq!(state.1, 99, "one written, 99 counted for the next line");
    }
}
