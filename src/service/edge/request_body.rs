//! What a request's body may do before the RPC under it gives up on it:
//!
//! * send nothing for at most `transport.request_body_timeout` (a client
//!   cannot hold an RPC slot and its reservations by sending a head and
//!   never the body), [`timeout_layer`];
//! * carry messages no larger than its method can use, counted in the
//!   memory budget before they are held, [`limit_layer`]: a SuggestMove,
//!   PlayStep or Play message at most the bytes of `limits.max_piles`
//!   piles, a GetTables one of `limits.max_table_piles`, a Generate one
//!   64 KiB, Solve and Check chunks `limits.max_message_bytes`. Each
//!   message's gRPC length prefix is read as it arrives: a message longer
//!   than its method takes is refused (RESOURCE_EXHAUSTED; past
//!   `max_message_bytes`, tonic's OUT_OF_RANGE) before its bytes come, and
//!   one that fits is reserved in `limits.max_memory_bytes` as it arrives:
//!   its bytes at its prefix and, for rows, 8 bytes for each varint seen
//!   (what its decoding may take) before the bytes are passed on, or
//!   refused with the budget's RESOURCE_EXHAUSTED and retry hint. A
//!   SuggestMove message is also refused as it arrives once it holds more
//!   values than a row of `limits.max_piles` piles (two a pile, for a
//!   client that does not pack the row), so that a message of one-byte
//!   piles costs no decoding. A unary call's body ends for tonic with its one message
//!   (tonic would otherwise wait for the body's end, holding the message);
//!   more data after it is refused at once (INVALID_ARGUMENT).
//!
//! A unary message's reservation is held until tonic drops the body, as
//! the handler starts (it then admits its own work); a Solve message's is
//! handed to the handler ([`HeldMessages`]), which takes it into its
//! batch's; a Check or Play message's covers its bytes while they arrive.
//!
//! The wait is tower-http's [`TimeoutBody`], which times out when the
//! body is polled and no frame comes within the time (it starts anew after
//! each frame). A body nobody polls, because its handler is busy, never
//! times out. The timeout becomes DEADLINE_EXCEEDED naming the setting; tonic
//! answers the call with it, h2 then resets the stream, and hyper closes an
//! HTTP/1.1 connection whose body was not read to its end.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use hyper::body::{Bytes, Frame};
use hyper::http;
use tonic::Status;
use tonic::body::Body;
use tower_http::timeout::{TimeoutBody, TimeoutError};

use crate::service::config::Limits;
use crate::service::state::State;
use crate::service::state::limits::{HeldMessages, Reservation, piles_of_bytes};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The layer that puts every request's body under `timeout`; `None`: the
/// bodies pass as they are.
pub fn timeout_layer(
    timeout: Option<Duration>,
) -> tower::util::MapRequestLayer<impl FnMut(http::Request<Body>) -> http::Request<Body> + Clone> {
    tower::util::MapRequestLayer::new(move |request: http::Request<Body>| match timeout {
        Some(timeout) => request.map(|body| with_timeout(body, timeout)),
        None => request,
    })
}

/// `body`, ended with DEADLINE_EXCEEDED once it has sent nothing for
/// `timeout` while being read.
fn with_timeout(body: Body, timeout: Duration) -> Body {
    use http_body_util::BodyExt;
    Body::new(
        TimeoutBody::new(timeout, body).map_err(move |e: BoxError| -> BoxError {
            if e.is::<TimeoutError>() {
                Box::new(stalled(timeout))
            } else {
                e
            }
        }),
    )
}

/// The status of a body that sent nothing for `timeout`.
pub fn stalled(timeout: Duration) -> Status {
    Status::deadline_exceeded(format!(
        "the request body sent nothing for {} (transport.request_body_timeout)",
        humantime_serde::re::humantime::format_duration(timeout)
    ))
}

/// How a method's request messages are read and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One message; its body ends with it; its reservation is held until
    /// the body is dropped.
    Unary,
    /// A Solve stream: each message's reservation is handed to the handler.
    Solve,
    /// Check and Play streams: each message's bytes while they arrive.
    Stream,
}

/// What one method's request body may carry.
#[derive(Debug, Clone, Copy)]
struct MethodLimit {
    method: &'static str,
    kind: Kind,
    max_message: u64,
    /// Which setting bounds it, for the message.
    bound: &'static str,
    /// SuggestMove: the most values a message may hold (its varints, each
    /// ending with a byte below 0x80), so that a message of a million
    /// one-byte piles is refused as it arrives, not decoded first; `None`
    /// for messages with a `bytes` field (`piles_le`), whose bytes are not
    /// values.
    max_values: Option<u64>,
}

/// The most values (varints) a message with a row of `piles` piles holds:
/// two for each pile (a pile and its tag, should a client not pack the
/// row) and 4,096 for the other fields.
fn row_message_values(piles: usize) -> u64 {
    (piles as u64).saturating_mul(2).saturating_add(4096)
}

/// The bytes of a message carrying a row of `piles` piles and a few small
/// fields: at most 10 bytes a pile (a varint of a pile below 2^63 takes 9;
/// `piles_le` takes 8) and 4 KiB for the rest (a state token, options).
fn row_message_bytes(piles: usize) -> u64 {
    (piles as u64).saturating_mul(10).saturating_add(4096)
}

/// The limit of the StoneGame method at `path`, if it is one.
fn method_limit(path: &str, limits: &Limits) -> Option<MethodLimit> {
    let method = path.strip_prefix("/stonegame.v1.StoneGame/")?;
    let max_message_bytes = limits.max_message_bytes.get() as u64;
    let row = row_message_bytes(limits.max_piles.get()).min(max_message_bytes);
    let (method, kind, max_message, bound) = match method {
        "SuggestMove" => ("SuggestMove", Kind::Unary, row, "limits.max_piles"),
        "PlayStep" => ("PlayStep", Kind::Unary, row, "limits.max_piles"),
        "GetTables" => (
            "GetTables",
            Kind::Unary,
            row_message_bytes(limits.max_table_piles.get()).min(max_message_bytes),
            "limits.max_table_piles",
        ),
        "Generate" => (
            "Generate",
            Kind::Unary,
            64 << 10,
            "a Generate request's fields",
        ),
        "Play" => ("Play", Kind::Stream, row, "limits.max_piles"),
        "Solve" => (
            "Solve",
            Kind::Solve,
            max_message_bytes,
            "limits.max_message_bytes",
        ),
        "Check" => (
            "Check",
            Kind::Stream,
            max_message_bytes,
            "limits.max_message_bytes",
        ),
        _ => return None,
    };
    let max_values = (method == "SuggestMove").then(|| row_message_values(limits.max_piles.get()));
    Some(MethodLimit {
        method,
        kind,
        max_message,
        bound,
        max_values,
    })
}

/// The layer that meters the StoneGame methods' request bodies (see the
/// module's doc) against `state`'s limits and memory budget.
pub fn limit_layer(
    state: Arc<State>,
) -> tower::util::MapRequestLayer<impl FnMut(http::Request<Body>) -> http::Request<Body> + Clone> {
    tower::util::MapRequestLayer::new(move |mut request: http::Request<Body>| {
        let Some(limit) = method_limit(request.uri().path(), &state.limits) else {
            return request;
        };
        let held = (limit.kind == Kind::Solve).then(|| {
            let held = HeldMessages::default();
            request.extensions_mut().insert(held.clone());
            held
        });
        let state = Arc::clone(&state);
        request.map(|inner| {
            Body::new(Metered {
                inner,
                limit,
                state,
                held,
                header: [0; 5],
                header_bytes: 0,
                remaining: None,
                reservation: None,
                message_len: 0,
                decoded: 0,
                values: 0,
                done: false,
            })
        })
    })
}

/// A request body read through its gRPC framing (see the module's doc).
struct Metered {
    inner: Body,
    limit: MethodLimit,
    state: Arc<State>,
    /// Solve: where each message's reservation goes.
    held: Option<HeldMessages>,
    /// The length prefix being read.
    header: [u8; 5],
    header_bytes: usize,
    /// Bytes of the current message still to come (`None`: between
    /// messages).
    remaining: Option<u64>,
    /// The current message's reservation (a unary one: until dropped).
    reservation: Option<Reservation>,
    /// The current message's length and the bytes its decoding may take
    /// so far (8 for each varint's last byte seen).
    message_len: u64,
    decoded: u64,
    /// The current message's values (varints) so far.
    values: u64,
    /// A unary call's message is complete: the body ends here for tonic.
    done: bool,
}

impl Metered {
    /// Follows the framing through `data`: refuses a message too long for
    /// its method, reserves each message's memory, ends a unary one.
    fn scan(&mut self, mut data: &[u8]) -> Result<(), Status> {
        while !data.is_empty() {
            match self.remaining {
                None => {
                    if self.done {
                        return Err(Status::invalid_argument(format!(
                            "{}: a unary call carries one message; more data came after it",
                            self.limit.method
                        )));
                    }
                    let n = (5 - self.header_bytes).min(data.len());
                    self.header[self.header_bytes..self.header_bytes + n]
                        .copy_from_slice(&data[..n]);
                    self.header_bytes += n;
                    data = &data[n..];
                    if self.header_bytes == 5 {
                        self.header_bytes = 0;
                        let len = u64::from(u32::from_be_bytes([
                            self.header[1],
                            self.header[2],
                            self.header[3],
                            self.header[4],
                        ]));
                        self.begin(len)?;
                        if len == 0 {
                            self.end_message();
                        }
                    }
                }
                Some(left) => {
                    let n = left.min(data.len() as u64);
                    self.arrived(&data[..n as usize])?;
                    data = &data[n as usize..];
                    if n == left {
                        self.end_message();
                    } else {
                        self.remaining = Some(left - n);
                    }
                }
            }
        }
        Ok(())
    }

    /// A message of `len` bytes begins: within its method's limit, and its
    /// bytes reserved before they are held.
    fn begin(&mut self, len: u64) -> Result<(), Status> {
        let limit = &self.limit;
        let max_message_bytes = self.state.limits.max_message_bytes.get() as u64;
        if len > max_message_bytes {
            // tonic's own refusal, before any of it is read.
            return Err(Status::out_of_range(format!(
                "Error, decoded message length too large: found {len} bytes, the limit is: \
                 {max_message_bytes} bytes"
            )));
        }
        if len > limit.max_message {
            return Err(Status::resource_exhausted(format!(
                "{}: a request message of {len} bytes, more than the {} bytes this method \
                 takes ({})",
                limit.method, limit.max_message, limit.bound
            )));
        }
        let reservation = self
            .state
            .reserve_memory(piles_of_bytes(len))
            .map_err(|e| self.state.refused(e))?;
        self.reservation = Some(reservation);
        self.message_len = len;
        self.decoded = 0;
        self.values = 0;
        self.remaining = Some(len);
        Ok(())
    }

    /// `payload` of the current message arrived: what its decoding may take
    /// is reserved before it is decoded. A row's piles decode to 8 bytes
    /// each, one per varint, and a varint ends with the one byte below
    /// 0x80 it has: 8 bytes for each such byte, at most 8 a byte in all.
    /// Check and Play messages decode to about their bytes: nothing more.
    fn arrived(&mut self, payload: &[u8]) -> Result<(), Status> {
        if self.limit.kind == Kind::Stream {
            return Ok(());
        }
        let ends = payload.iter().filter(|&&b| b < 0x80).count() as u64;
        self.values += ends;
        if let Some(max) = self.limit.max_values
            && self.values > max
        {
            return Err(Status::resource_exhausted(format!(
                "{}: a request message of at least {} values, more than a row of {} piles \
                 takes ({})",
                self.limit.method, self.values, self.state.limits.max_piles, self.limit.bound
            )));
        }
        self.decoded = (self.decoded + 8 * ends).min(8 * self.message_len);
        let needed = piles_of_bytes(self.message_len) + piles_of_bytes(self.decoded);
        let Some(held) = self.reservation.as_mut() else {
            return Ok(());
        };
        if needed > held.amount() {
            let more = self
                .state
                .reserve_memory(needed - held.amount())
                .map_err(|e| self.state.refused(e))?;
            held.absorb(more);
        }
        Ok(())
    }

    /// The current message is complete.
    fn end_message(&mut self) {
        self.remaining = None;
        match self.limit.kind {
            Kind::Unary => self.done = true,
            Kind::Solve => {
                if let (Some(held), Some(r)) = (&self.held, self.reservation.take()) {
                    held.0
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push_back(r);
                }
            }
            Kind::Stream => self.reservation = None,
        }
    }
}

impl hyper::body::Body for Metered {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        if this.done && this.remaining.is_none() && this.header_bytes == 0 {
            // A unary call's one message is in: its body ends here.
            return Poll::Ready(None);
        }
        let frame = match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => return Poll::Ready(Some(Err(e.into()))),
            None => return Poll::Ready(None),
        };
        if let Some(data) = frame.data_ref()
            && let Err(status) = this.scan(data)
        {
            return Poll::Ready(Some(Err(Box::new(status))));
        }
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        (self.done && self.remaining.is_none()) || self.inner.is_end_stream()
    }
}
