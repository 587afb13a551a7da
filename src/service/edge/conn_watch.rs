//! What a connection's guard ([`crate::service::edge::transport::Guarded`]) watches in the
//! bytes that pass: a pure state machine, no I/O and no clock. It tells
//! HTTP/2 from HTTP/1.1 by the first bytes and then says which deadline
//! applies:
//!
//! * HTTP/2: the connection preface and the next frame header
//!   ([`PREFACE_BYTES`]) within the handshake deadline; after that, h2's
//!   own limits (streams, header list size, keepalive pings).
//! * HTTP/1.1 (gRPC-Web, JSON, the page): each request head (request line
//!   and headers, up to the empty line) within the handshake deadline from
//!   its first byte, and at most `max_head_bytes` long (slow or huge
//!   headers: hyper has no deadline and buffers up to 400 KiB); and after
//!   each answer the next request within the keep-alive timeout (an idle
//!   connection otherwise holds its slot of `max_connections` forever).
//!
//! A request's body and its handling have no deadline here (the RPC's own
//! deadline and limits apply). A new head is told from the rest of a body
//! by its start, a method in capitals and a space: no gRPC frame, JSON
//! text or base64 (`grpc-web-text`) begins that way. The head's deadline
//! and size count from the first byte after an answer, however the client
//! splits its bytes (a lone `G`, then the rest, is a head like any other).

use std::time::Duration;

/// The HTTP/2 client connection preface.
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The preface (24 bytes) and the frame header of the SETTINGS frame that
/// must follow it (9): what an HTTP/2 client must send in time.
pub const PREFACE_BYTES: u64 = 24 + 9;

/// What the guard does with its deadline after some bytes passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadline {
    /// Leave it as it is.
    Keep,
    /// A new deadline this long from now.
    Set(Duration),
    /// No deadline.
    Clear,
}

/// Why the guard closes a connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Closed {
    /// An HTTP/1.1 request head longer than the limit.
    #[error("an HTTP/1.1 request head of more than {max} bytes (transport.max_header_list_size)")]
    HeadTooLarge { max: usize },
}

/// The limits a [`ConnWatch`] applies.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The HTTP/2 preface, and each HTTP/1.1 request head, within this;
    /// `None`: no deadline.
    pub handshake: Option<Duration>,
    /// Longest HTTP/1.1 request head, in bytes.
    pub max_head_bytes: usize,
    /// The next HTTP/1.1 request within this of an answer; `None`: no limit.
    pub keepalive: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The first bytes, while they may still be the HTTP/2 preface.
    Opening { seen: usize },
    /// HTTP/2 after the preface, until the next frame header is in.
    Preface { seen: u64 },
    /// HTTP/2 in full: nothing more to watch.
    Http2,
    /// HTTP/1.1: a request head being read (`bytes` so far, `eol`: where
    /// the scan for the empty line is).
    Head { bytes: usize, eol: Eol },
    /// HTTP/1.1: after an answer, the first bytes (`len` capitals so far)
    /// of what may be the next request's method.
    Method { len: usize },
    /// HTTP/1.1: a body being read or a request being handled.
    Busy,
    /// HTTP/1.1: answered; waiting for the next request.
    Idle,
}

/// The scan for the empty line ending a head (`\r\n\r\n`, or `\n\n` as
/// hyper also accepts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eol {
    /// In a line.
    Text,
    /// Just after a line feed.
    Lf,
    /// After a line feed and a carriage return.
    LfCr,
}

/// The state of one connection.
#[derive(Debug, Clone)]
pub struct ConnWatch {
    limits: Limits,
    phase: Phase,
}

impl ConnWatch {
    /// A connection just accepted (its handshake deadline already runs).
    pub fn new(limits: Limits) -> ConnWatch {
        ConnWatch {
            limits,
            phase: Phase::Opening { seen: 0 },
        }
    }

    /// Is this an HTTP/2 connection past its preface (nothing left to
    /// watch)?
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Http2
    }

    /// `bytes` were read.
    pub fn read(&mut self, bytes: &[u8]) -> Result<Deadline, Closed> {
        let mut deadline = Deadline::Keep;
        let mut rest = bytes;
        while !rest.is_empty() {
            match self.phase {
                Phase::Opening { seen } => {
                    let n = rest.len().min(PREFACE.len() - seen);
                    if rest[..n] == PREFACE[seen..seen + n] {
                        self.phase = if seen + n == PREFACE.len() {
                            Phase::Preface {
                                seen: PREFACE.len() as u64,
                            }
                        } else {
                            Phase::Opening { seen: seen + n }
                        };
                        rest = &rest[n..];
                    } else {
                        // Not HTTP/2: a head that began with the
                        // connection (its deadline is the handshake's);
                        // the bytes that matched the preface count too.
                        self.phase = Phase::Head {
                            bytes: seen,
                            eol: Eol::Text,
                        };
                    }
                }
                Phase::Preface { seen } => {
                    let n = (rest.len() as u64).min(PREFACE_BYTES - seen);
                    rest = &rest[n as usize..];
                    if seen + n == PREFACE_BYTES {
                        self.phase = Phase::Http2;
                        deadline = Deadline::Clear;
                    } else {
                        self.phase = Phase::Preface { seen: seen + n };
                    }
                }
                Phase::Http2 | Phase::Busy => return Ok(deadline),
                Phase::Idle => {
                    // Any byte may begin the next head, however the
                    // client splits it: its deadline runs from here.
                    self.phase = Phase::Method { len: 0 };
                    deadline = self.limits.handshake.map_or(Deadline::Clear, Deadline::Set);
                }
                Phase::Method { len } => {
                    let caps = rest.iter().take_while(|b| b.is_ascii_uppercase()).count();
                    let len = len + caps;
                    if len > MAX_METHOD {
                        self.phase = Phase::Busy;
                        return Ok(Deadline::Clear);
                    }
                    if caps == rest.len() {
                        // Still the method, or a body's first capitals.
                        self.phase = Phase::Method { len };
                        return Ok(deadline);
                    }
                    if len == 0 || rest[caps] != b' ' {
                        // Not a request line: the rest of a body.
                        self.phase = Phase::Busy;
                        return Ok(Deadline::Clear);
                    }
                    // A head, its method counted in its length.
                    self.phase = Phase::Head {
                        bytes: len,
                        eol: Eol::Text,
                    };
                    rest = &rest[caps..];
                }
                Phase::Head { bytes, mut eol } => {
                    let mut used = 0;
                    let mut ended = false;
                    for &b in rest {
                        used += 1;
                        eol = match (eol, b) {
                            (Eol::Lf | Eol::LfCr, b'\n') => {
                                ended = true;
                                break;
                            }
                            (_, b'\n') => Eol::Lf,
                            (Eol::Lf, b'\r') => Eol::LfCr,
                            _ => Eol::Text,
                        };
                    }
                    let bytes = bytes + used;
                    if bytes > self.limits.max_head_bytes {
                        return Err(Closed::HeadTooLarge {
                            max: self.limits.max_head_bytes,
                        });
                    }
                    if ended {
                        // The body and the handling: no deadline here.
                        self.phase = Phase::Busy;
                        return Ok(Deadline::Clear);
                    }
                    self.phase = Phase::Head { bytes, eol };
                    return Ok(deadline);
                }
            }
        }
        Ok(deadline)
    }

    /// The server wrote (an answer, or part of one).
    pub fn wrote(&mut self) -> Deadline {
        match self.phase {
            Phase::Busy | Phase::Idle => {
                self.phase = Phase::Idle;
                self.limits.keepalive.map_or(Deadline::Clear, Deadline::Set)
            }
            _ => Deadline::Keep,
        }
    }
}

/// The longest method a request line may begin with.
const MAX_METHOD: usize = 16;

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        handshake: Some(Duration::from_secs(10)),
        max_head_bytes: 64,
        keepalive: Some(Duration::from_secs(60)),
    };

    #[test]
    fn http2_is_watched_until_its_preface_and_a_frame_header() {
        let mut w = ConnWatch::new(LIMITS);
        assert_eq!(w.read(&PREFACE[..10]), Ok(Deadline::Keep));
        assert_eq!(w.read(&PREFACE[10..]), Ok(Deadline::Keep));
        assert!(!w.is_done());
        assert_eq!(w.read(&[0; 8]), Ok(Deadline::Keep));
        assert_eq!(w.read(&[0; 100]), Ok(Deadline::Clear));
        assert!(w.is_done());
        // Writes and huge frames change nothing.
        assert_eq!(w.wrote(), Deadline::Keep);
        assert_eq!(w.read(&[b'\n'; 1000]), Ok(Deadline::Keep));
    }

    #[test]
    fn http1_heads_bodies_answers_and_keepalive() {
        let mut w = ConnWatch::new(LIMITS);
        // A head in pieces, "PRI" looking like the preface at first.
        assert_eq!(w.read(b"P"), Ok(Deadline::Keep));
        assert_eq!(w.read(b"OST / HTTP/1.1\r\nA: b\r"), Ok(Deadline::Keep));
        assert_eq!(w.read(b"\n\r\n{\"piles\""), Ok(Deadline::Clear));
        // The body, then the answer: the keep-alive deadline.
        assert_eq!(w.read(b": [1]}"), Ok(Deadline::Keep));
        assert_eq!(w.wrote(), Deadline::Set(Duration::from_secs(60)));
        assert_eq!(w.wrote(), Deadline::Set(Duration::from_secs(60)));
        // The next head: the handshake deadline from its first byte.
        assert_eq!(
            w.read(b"GET / HTTP/1.1\n"),
            Ok(Deadline::Set(Duration::from_secs(10)))
        );
        assert_eq!(w.read(b"\n"), Ok(Deadline::Clear));
        assert_eq!(w.wrote(), Deadline::Set(Duration::from_secs(60)));
        // After an answer, bytes that are no request line (the rest of a
        // body after `100 Continue`): a body, no deadline.
        for body in [&b"\x00\x00\x00\x00\x05"[..], b"{\"a\": 1}", b"AAAAAAUKx"] {
            let mut w2 = w.clone();
            assert_eq!(w2.read(body), Ok(Deadline::Clear), "{body:?}");
            assert_eq!(w2.read(&[b'x'; 1000]), Ok(Deadline::Keep));
        }
        // Capitals alone may still be a method: the head's deadline runs
        // until a byte that is neither a capital nor the space after one.
        let mut w2 = w.clone();
        assert_eq!(
            w2.read(b"AAAAAAUK"),
            Ok(Deadline::Set(Duration::from_secs(10)))
        );
        assert_eq!(w2.read(b"x"), Ok(Deadline::Clear));
    }

    #[test]
    fn a_head_longer_than_the_limit_closes() {
        let mut w = ConnWatch::new(LIMITS);
        assert_eq!(w.read(b"GET / HTTP/1.1\r\n"), Ok(Deadline::Keep));
        let big = [b'a'; 64];
        assert_eq!(
            w.read(&big),
            Err(Closed::HeadTooLarge { max: 64 }),
            "80 bytes"
        );
        // Exactly the limit, empty line included, passes.
        let mut w = ConnWatch::new(LIMITS);
        let mut head = b"GET / HTTP/1.1\r\nX: ".to_vec();
        head.resize(60, b'y');
        head.extend_from_slice(b"\r\n\r\n");
        assert_eq!(head.len(), 64);
        assert_eq!(w.read(&head), Ok(Deadline::Clear));
    }

    #[test]
    fn a_next_head_split_anywhere_has_the_first_ones_deadline_and_limit() {
        let answered = || {
            let mut w = ConnWatch::new(LIMITS);
            assert_eq!(w.read(b"GET / HTTP/1.1\r\n\r\n"), Ok(Deadline::Clear));
            assert_eq!(w.wrote(), Deadline::Set(Duration::from_secs(60)));
            w
        };
        // A lone `G`, then the rest a byte at a time: the deadline from
        // the `G`, kept until the empty line.
        let mut w = answered();
        assert_eq!(w.read(b"G"), Ok(Deadline::Set(Duration::from_secs(10))));
        for b in b"ET / HTTP/1.1\r\nA: b\r\n\r" {
            assert_eq!(w.read(&[*b]), Ok(Deadline::Keep));
        }
        assert_eq!(w.read(b"\n"), Ok(Deadline::Clear));
        // Split after the method or its space, the same.
        for (first, rest) in [
            (&b"POST"[..], &b" /x HTTP/1.1\r\n"[..]),
            (b"OPTIONS ", b"* HTTP/1.1\r\n"),
        ] {
            let mut w = answered();
            assert_eq!(w.read(first), Ok(Deadline::Set(Duration::from_secs(10))));
            assert_eq!(w.read(rest), Ok(Deadline::Keep));
        }
        // The size counts from the `G` too: 64 bytes in all pass the limit.
        let mut w = answered();
        assert_eq!(w.read(b"G"), Ok(Deadline::Set(Duration::from_secs(10))));
        assert_eq!(w.read(b"ET /"), Ok(Deadline::Keep));
        assert_eq!(w.read(&[b'a'; 59]), Ok(Deadline::Keep));
        assert_eq!(w.read(b"a"), Err(Closed::HeadTooLarge { max: 64 }));
        // Seventeen capitals are no method: a body.
        let mut w = answered();
        assert_eq!(
            w.read(b"ABCDEFGH"),
            Ok(Deadline::Set(Duration::from_secs(10)))
        );
        assert_eq!(w.read(b"IJKLMNOPQ "), Ok(Deadline::Clear));
    }
}
