//! The HTTP/2 and TCP limits that keep hostile clients from exhausting the
//! server (the `[transport]` configuration table), applied in two places:
//!
//! * [`apply`] sets them on tonic's [`Server`] builder: streams per
//!   connection, header list size, reset-stream limits (rapid reset),
//!   HTTP/2 keepalive pings and an optional request timeout. tonic passes
//!   `None` for every option it is not given, which *overrides* hyper's own
//!   defaults (200 streams per connection, 1024 locally reset streams) with
//!   "unlimited"; so each is set here explicitly.
//! * [`Incoming`] wraps the accepted connections (tonic ignores its own TCP
//!   options with `serve_with_incoming`, so they are set on the
//!   [`TcpIncoming`] here): TCP keepalive and `TCP_NODELAY`, at most
//!   `max_connections` open at once (beyond it a new connection is closed
//!   at once), a pause instead of a busy loop when `accept` fails (out of
//!   file descriptors), and a deadline for the HTTP/2 preface
//!   ([`Guarded`]): neither hyper nor h2 time out a connection that never
//!   finishes its handshake, and keepalive pings only start after it.
//!   On HTTP/1.1 connections (gRPC-Web, JSON, the page) the same deadline
//!   bounds each request head, `max_header_list_size` its length, and
//!   `http1_keepalive_timeout` the wait for the next request
//!   ([`crate::service::edge::conn_watch`]).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;
use tonic::transport::Server;
use tonic::transport::server::{Connected, TcpConnectInfo, TcpIncoming};

use crate::service::config::TransportConfig;
pub use crate::service::edge::conn_watch::PREFACE_BYTES;
use crate::service::edge::conn_watch::{ConnWatch, Deadline, Limits as WatchLimits};
use crate::service::metrics::{ConnRefusal, Metrics};

/// A duration where 0 means off.
pub(super) fn nonzero(d: Duration) -> Option<Duration> {
    (!d.is_zero()).then_some(d)
}

/// Sets `config`'s HTTP/2 limits on a tonic server builder.
pub fn apply<L>(builder: Server<L>, config: &TransportConfig) -> Server<L> {
    let builder = builder
        .max_concurrent_streams(config.max_concurrent_streams.get())
        .http2_max_header_list_size(config.max_header_list_size.get())
        .http2_max_pending_accept_reset_streams(Some(config.max_pending_accept_reset_streams.get()))
        .http2_max_local_error_reset_streams(Some(config.max_local_error_reset_streams.get()))
        .http2_keepalive_interval(nonzero(config.http2_keepalive_interval))
        .http2_keepalive_timeout(Some(config.http2_keepalive_timeout));
    match nonzero(config.request_timeout) {
        Some(t) => builder.timeout(t),
        None => builder,
    }
}

/// Sets `config`'s TCP options on the accepted sockets of `incoming`.
pub fn tcp_options(incoming: TcpIncoming, config: &TransportConfig) -> TcpIncoming {
    incoming
        .with_nodelay(Some(config.tcp_nodelay))
        .with_keepalive(nonzero(config.tcp_keepalive))
}

/// The open connections and the limit, shared by [`Incoming`] and the
/// [`Guarded`] connections it yields.
#[derive(Debug)]
struct Gate {
    open: AtomicUsize,
    /// `stonegame_connections_accepted_total` and `_open`, counted here
    /// once for every connection served.
    metrics: Arc<Metrics>,
    max: usize,
    /// Connections open per client address, and the most one address may
    /// hold (`transport.max_connections_per_ip`; 0: no limit).
    per_ip: Mutex<HashMap<IpAddr, usize>>,
    max_per_ip: usize,
    /// Whether the last connection was refused (the warning is logged once
    /// per run of refusals, not per connection).
    refusing: AtomicBool,
}

/// The accepted connections of `S`, at most `max_connections` open at once,
/// each [`Guarded`] by the handshake deadline.
pub struct Incoming<S> {
    inner: S,
    gate: Arc<Gate>,
    watch: WatchLimits,
    backoff: Option<Pin<Box<Sleep>>>,
}

impl<S> Incoming<S> {
    /// Wraps the accepted connections of `inner`, counting the ones it
    /// serves in `metrics`.
    pub fn new(inner: S, config: &TransportConfig, metrics: Arc<Metrics>) -> Self {
        Incoming {
            inner,
            gate: Arc::new(Gate {
                open: AtomicUsize::new(0),
                metrics,
                max: config.max_connections.get(),
                per_ip: Mutex::new(HashMap::new()),
                max_per_ip: config.max_connections_per_ip,
                refusing: AtomicBool::new(false),
            }),
            watch: WatchLimits {
                handshake: nonzero(config.handshake_timeout),
                max_head_bytes: config.max_header_list_size.get() as usize,
                keepalive: nonzero(config.http1_keepalive_timeout),
            },
            backoff: None,
        }
    }
}

/// How long accepting pauses after it failed (e.g. EMFILE: out of file
/// descriptors), instead of retrying in a busy loop.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

impl Gate {
    /// Counts a connection from `ip` if that address holds fewer than
    /// `max_per_ip`; `false` (nothing counted) when it holds them all.
    fn admit_ip(&self, ip: IpAddr) -> bool {
        if self.max_per_ip == 0 {
            return true;
        }
        let mut per_ip = self.per_ip.lock().unwrap_or_else(|e| e.into_inner());
        let open = per_ip.entry(ip).or_insert(0);
        if *open >= self.max_per_ip {
            return false;
        }
        *open += 1;
        true
    }

    /// A connection from `ip` counted by [`Gate::admit_ip`] closed.
    fn release_ip(&self, ip: IpAddr) {
        let mut per_ip = self.per_ip.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(open) = per_ip.get_mut(&ip) {
            *open -= 1;
            if *open == 0 {
                per_ip.remove(&ip);
            }
        }
    }
}

impl<S, IO> Stream for Incoming<S>
where
    S: Stream<Item = io::Result<IO>> + Unpin,
    IO: Peer,
{
    type Item = io::Result<Guarded<IO>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(sleep) = &mut this.backoff {
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => this.backoff = None,
                    Poll::Pending => return Poll::Pending,
                }
            }
            let io = match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Ready(Some(Ok(io))) => io,
                Poll::Ready(Some(Err(e))) => {
                    tracing::warn!(error = %e, "accepting a connection failed; pausing accepts");
                    this.backoff = Some(Box::pin(tokio::time::sleep(ACCEPT_BACKOFF)));
                    continue;
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            };
            let gate = &this.gate;
            if gate.open.fetch_add(1, Ordering::AcqRel) >= gate.max {
                gate.open.fetch_sub(1, Ordering::AcqRel);
                gate.metrics.connection_refused(ConnRefusal::MaxConnections);
                if !gate.refusing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        max_connections = gate.max,
                        "too many connections: closing new ones at once"
                    );
                }
                drop(io);
                continue;
            }
            // One address may not take every slot (counted only when a
            // limit is set: behind a proxy every connection has its address).
            let ip = (gate.max_per_ip > 0)
                .then(|| io.peer().remote_addr().map(|a| a.ip()))
                .flatten();
            if let Some(ip) = ip
                && !gate.admit_ip(ip)
            {
                gate.open.fetch_sub(1, Ordering::AcqRel);
                gate.metrics
                    .connection_refused(ConnRefusal::MaxConnectionsPerIp);
                tracing::debug!(%ip, max_connections_per_ip = gate.max_per_ip, "too many connections from one address: closing a new one at once");
                drop(io);
                continue;
            }
            gate.refusing.store(false, Ordering::Relaxed);
            gate.metrics.connection_opened();
            let deadline = this
                .watch
                .handshake
                .map(|d| Box::pin(tokio::time::sleep(d)) as Pin<Box<Sleep>>);
            return Poll::Ready(Some(Ok(Guarded {
                io,
                ip,
                gate: Arc::clone(&this.gate),
                watch: Some(ConnWatch::new(this.watch)),
                deadline,
            })));
        }
    }
}

/// An accepted connection: counted against `max_connections` while open,
/// and closed (its reads fail) when it misses a deadline its
/// [`ConnWatch`] sets: the HTTP/2 preface, an HTTP/1.1 request head (in
/// time and not too long), the next HTTP/1.1 request after an answer.
pub struct Guarded<IO> {
    io: IO,
    /// The client's address when it is counted against
    /// `max_connections_per_ip`.
    ip: Option<IpAddr>,
    gate: Arc<Gate>,
    /// `None` once nothing is left to watch (HTTP/2 past its preface).
    watch: Option<ConnWatch>,
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<IO> Guarded<IO> {
    /// Applies what the watch said to the deadline; a new deadline is
    /// polled once so that it wakes this connection's task.
    fn apply(&mut self, deadline: Deadline, cx: &mut Context<'_>) {
        match deadline {
            Deadline::Keep => {}
            Deadline::Clear => self.deadline = None,
            Deadline::Set(d) => {
                let at = tokio::time::Instant::now() + d;
                match &mut self.deadline {
                    Some(sleep) => sleep.as_mut().reset(at),
                    None => self.deadline = Some(Box::pin(tokio::time::sleep_until(at))),
                }
                if let Some(sleep) = &mut self.deadline {
                    let _ = sleep.as_mut().poll(cx);
                }
            }
        }
        if self.watch.as_ref().is_some_and(ConnWatch::is_done) {
            self.watch = None;
        }
    }
}

impl<IO> Drop for Guarded<IO> {
    fn drop(&mut self) {
        self.gate.open.fetch_sub(1, Ordering::AcqRel);
        if let Some(ip) = self.ip {
            self.gate.release_ip(ip);
        }
        self.gate.metrics.connection_closed();
    }
}

/// What tonic learns of a served connection's peer (its `Connected`
/// info, e.g. for `Request::remote_addr`).
pub trait Peer {
    /// The TCP addresses of the connection.
    fn peer(&self) -> TcpConnectInfo;
}

impl<IO: Peer> Connected for Guarded<IO> {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.io.peer()
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Guarded<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        if let Some(watch) = &mut this.watch {
            match watch.read(&buf.filled()[before..]) {
                Ok(deadline) => this.apply(deadline, cx),
                Err(closed) => {
                    tracing::debug!(%closed, "closing the connection");
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, closed)));
                }
            }
        }
        if polled.is_pending()
            && let Some(deadline) = &mut this.deadline
            && deadline.as_mut().poll(cx).is_ready()
        {
            tracing::debug!(
                "no request in time (an HTTP/2 preface, an HTTP/1.1 head or the next request): closing the connection"
            );
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no HTTP/2 preface, HTTP/1.1 request head or next request by its deadline",
            )));
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Guarded<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.wrote(&polled, cx);
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.wrote(&polled, cx);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

impl<IO> Guarded<IO> {
    fn wrote(&mut self, polled: &Poll<io::Result<usize>>, cx: &mut Context<'_>) {
        if let (Poll::Ready(Ok(n)), Some(watch)) = (polled, &mut self.watch)
            && *n > 0
        {
            let deadline = watch.wrote();
            self.apply(deadline, cx);
        }
    }
}

#[cfg(test)]
mod tests;
