//! Guaranteed (TCP) connections as V12's platform offers them:
//! `Net::openListenPort`, `Net::openConnectTo`, `Net::sendtoSocket` and
//! `Net::process`, which turns what happened on the sockets into
//! ConnectedAccept / ConnectedNotify / ConnectedReceive events.
//!
//! All sockets are non-blocking; nothing here waits. Call
//! [`TcpNet::process`] once a frame. Data is a byte stream: a receive event
//! carries whatever chunk arrived, not the sender's write boundaries.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};

use bytes::{Buf, Bytes, BytesMut};
use socket2::{Domain, Protocol, Socket, Type};

use crate::address::NetAddress;
use crate::event::{
    ConnectState, ConnectedAcceptEvent, ConnectedNotifyEvent, ConnectedReceiveEvent, ConnectionTag, Event,
};

/// Bytes a connection may have waiting to be written before `send` refuses more.
pub const TCP_SEND_LIMIT: usize = 4 << 20;
/// Read chunk size; also the most data one receive event carries.
const READ_CHUNK: usize = 16 * 1024;
/// Reads per connection per `process`, so one fast peer cannot stall the frame.
const READS_PER_PROCESS: usize = 16;

/// The "connect started" errno (`io::ErrorKind::InProgress` is not stable yet).
#[cfg(any(target_os = "linux", target_os = "android"))]
const EINPROGRESS: Option<i32> = Some(115);
#[cfg(any(target_vendor = "apple", target_os = "freebsd", target_os = "openbsd", target_os = "netbsd"))]
const EINPROGRESS: Option<i32> = Some(36);
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_vendor = "apple",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd"
)))]
const EINPROGRESS: Option<i32> = None;

#[derive(Debug)]
struct Conn {
    stream: TcpStream,
    connecting: bool,
    outgoing: BytesMut,
}

/// Every TCP listening port and connection of one program, by tag.
#[derive(Debug, Default)]
pub struct TcpNet {
    next_tag: u32,
    listeners: BTreeMap<ConnectionTag, TcpListener>,
    conns: BTreeMap<ConnectionTag, Conn>,
    /// Events decided outside `process` (DNS results, immediate failures),
    /// posted by the next `process` so every event arrives the same way.
    pending: Vec<Event>,
    read_buf: Vec<u8>,
}

fn notify(tag: ConnectionTag, state: ConnectState) -> Event {
    Event::ConnectedNotify(ConnectedNotifyEvent { tag, state })
}

fn new_socket(addr: NetAddress) -> io::Result<Socket> {
    let socket = Socket::new(Domain::for_address(addr.socket_addr()), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_nonblocking(true)?;
    Ok(socket)
}

impl TcpNet {
    pub fn new() -> Self {
        Self::default()
    }

    fn alloc_tag(&mut self) -> ConnectionTag {
        self.next_tag = self.next_tag.wrapping_add(1).max(1);
        ConnectionTag(self.next_tag)
    }

    /// Open a listening port; accepted connections arrive as
    /// `ConnectedAcceptEvent`s carrying this tag as `port_tag`.
    pub fn listen(&mut self, addr: NetAddress) -> io::Result<ConnectionTag> {
        let socket = new_socket(addr)?;
        socket.set_reuse_address(true)?;
        socket.bind(&addr.socket_addr().into())?;
        socket.listen(128)?;
        let tag = self.alloc_tag();
        tracing::debug!(%addr, ?tag, "tcp listen");
        self.listeners.insert(tag, socket.into());
        Ok(tag)
    }

    /// Start connecting to `addr`. The outcome arrives from `process` as a
    /// `Connected` or `ConnectFailed` notify event for the returned tag.
    pub fn connect(&mut self, addr: NetAddress) -> ConnectionTag {
        let tag = self.alloc_tag();
        self.start_connect(tag, addr);
        tag
    }

    /// Like [`connect`](TcpNet::connect) for text such as `host:port`. A host
    /// name is looked up first (blocking), posting `DnsResolved` or
    /// `DnsFailed`; IP literals and `localhost` skip the lookup.
    pub fn connect_host(&mut self, text: &str) -> ConnectionTag {
        let tag = self.alloc_tag();
        let literal = NetAddress::is_literal(text);
        match NetAddress::resolve(text) {
            Ok(addr) => {
                if !literal {
                    self.pending.push(notify(tag, ConnectState::DnsResolved));
                }
                self.start_connect(tag, addr);
            }
            Err(e) => {
                tracing::debug!(text, error = %e, "tcp connect: address lookup failed");
                self.pending.push(notify(tag, ConnectState::DnsFailed));
            }
        }
        tag
    }

    fn start_connect(&mut self, tag: ConnectionTag, addr: NetAddress) {
        let started = new_socket(addr).and_then(|s| match s.connect(&addr.socket_addr().into()) {
            Ok(()) => Ok(s),
            Err(e)
                if e.kind() == io::ErrorKind::WouldBlock
                    || (EINPROGRESS.is_some() && e.raw_os_error() == EINPROGRESS) =>
            {
                Ok(s)
            }
            Err(e) => Err(e),
        });
        match started {
            Ok(socket) => {
                let conn = Conn { stream: socket.into(), connecting: true, outgoing: BytesMut::new() };
                self.conns.insert(tag, conn);
            }
            Err(e) => {
                tracing::debug!(%addr, error = %e, "tcp connect failed at once");
                self.pending.push(notify(tag, ConnectState::ConnectFailed));
            }
        }
    }

    /// Queue `data` on a connection (it may still be connecting). Fails with
    /// `NotConnected` for an unknown tag and `WouldBlock` when more than
    /// [`TCP_SEND_LIMIT`] bytes are already waiting.
    pub fn send(&mut self, tag: ConnectionTag, data: &[u8]) -> io::Result<()> {
        let conn = self.conns.get_mut(&tag).ok_or(io::ErrorKind::NotConnected)?;
        if conn.outgoing.len() + data.len() > TCP_SEND_LIMIT {
            return Err(io::Error::new(io::ErrorKind::WouldBlock, "tcp send buffer full"));
        }
        conn.outgoing.extend_from_slice(data);
        if !conn.connecting {
            // Errors surface as a Disconnected event from the next `process`.
            let _ = flush(conn);
        }
        Ok(())
    }

    /// Close a listening port or connection; no event follows.
    pub fn close(&mut self, tag: ConnectionTag) {
        self.listeners.remove(&tag);
        if let Some(mut conn) = self.conns.remove(&tag) {
            if !conn.connecting {
                let _ = flush(&mut conn);
            }
            let _ = conn.stream.shutdown(std::net::Shutdown::Both);
        }
    }

    /// The local address of a listening port or connection.
    pub fn local_addr(&self, tag: ConnectionTag) -> Option<NetAddress> {
        match self.listeners.get(&tag) {
            Some(l) => l.local_addr().ok().map(NetAddress::from),
            None => self.conns.get(&tag)?.stream.local_addr().ok().map(NetAddress::from),
        }
    }

    /// The remote address of a connected connection.
    pub fn peer_addr(&self, tag: ConnectionTag) -> Option<NetAddress> {
        self.conns.get(&tag)?.stream.peer_addr().ok().map(NetAddress::from)
    }

    /// Open connections (not listening ports).
    pub fn connection_count(&self) -> usize {
        self.conns.len()
    }

    /// Accept, finish connects, write what is queued and read what arrived,
    /// appending the resulting events to `out` (in tag order).
    pub fn process(&mut self, out: &mut Vec<Event>) {
        out.append(&mut self.pending);
        self.accept_all(out);
        if self.read_buf.len() != READ_CHUNK {
            self.read_buf = vec![0; READ_CHUNK];
        }
        let mut closed = Vec::new();
        for (&tag, conn) in &mut self.conns {
            if conn.connecting {
                match connect_outcome(&conn.stream) {
                    None => continue,
                    Some(Ok(())) => {
                        conn.connecting = false;
                        out.push(notify(tag, ConnectState::Connected));
                    }
                    Some(Err(e)) => {
                        tracing::debug!(?tag, error = %e, "tcp connect failed");
                        out.push(notify(tag, ConnectState::ConnectFailed));
                        closed.push(tag);
                        continue;
                    }
                }
            }
            let alive = flush(conn).is_ok() && read_some(tag, conn, &mut self.read_buf, out);
            if !alive {
                out.push(notify(tag, ConnectState::Disconnected));
                closed.push(tag);
            }
        }
        for tag in closed {
            self.conns.remove(&tag);
        }
    }

    fn accept_all(&mut self, out: &mut Vec<Event>) {
        let mut accepted = Vec::new();
        for (&port_tag, listener) in &self.listeners {
            loop {
                match listener.accept() {
                    Ok((stream, from)) => accepted.push((port_tag, stream, from)),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        // E.g. the peer reset before we accepted, or out of descriptors;
                        // the listening port itself stays open.
                        tracing::debug!(?port_tag, error = %e, "tcp accept failed");
                        break;
                    }
                }
            }
        }
        for (port_tag, stream, from) in accepted {
            if let Err(e) = stream.set_nonblocking(true) {
                tracing::debug!(error = %e, "tcp accept: cannot make socket non-blocking");
                continue;
            }
            let _ = stream.set_nodelay(true);
            let tag = self.alloc_tag();
            self.conns.insert(tag, Conn { stream, connecting: false, outgoing: BytesMut::new() });
            out.push(Event::ConnectedAccept(ConnectedAcceptEvent { port_tag, tag, address: from.into() }));
        }
    }
}

/// `None` while a non-blocking connect is in flight, then its result.
fn connect_outcome(stream: &TcpStream) -> Option<io::Result<()>> {
    match stream.take_error() {
        Ok(Some(e)) | Err(e) => return Some(Err(e)),
        Ok(None) => {}
    }
    match stream.peer_addr() {
        Ok(_) => {
            let _ = stream.set_nodelay(true);
            Some(Ok(()))
        }
        Err(e) if e.kind() == io::ErrorKind::NotConnected => None,
        Err(e) => Some(Err(e)),
    }
}

/// Write as much queued data as the socket takes now.
fn flush(conn: &mut Conn) -> io::Result<()> {
    while !conn.outgoing.is_empty() {
        match conn.stream.write(&conn.outgoing) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => conn.outgoing.advance(n),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Read what has arrived into receive events; `false` when the connection ended.
fn read_some(tag: ConnectionTag, conn: &mut Conn, buf: &mut [u8], out: &mut Vec<Event>) -> bool {
    for _ in 0..READS_PER_PROCESS {
        match conn.stream.read(buf) {
            Ok(0) => return false,
            Ok(n) => out.push(Event::ConnectedReceive(ConnectedReceiveEvent {
                tag,
                data: Bytes::copy_from_slice(&buf[..n]),
            })),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                tracing::debug!(?tag, error = %e, "tcp read failed");
                return false;
            }
        }
    }
    true
}

/// What the engine does with guaranteed (TCP) connections: [`TcpNet`] on real sockets, or a
/// wrapper that journals them (records what arrives; on replay gives it back with no
/// network). The telnet console and `TCPObject` use it.
pub trait TcpIo: std::fmt::Debug {
    /// `Net::openListenPort`: listens at `addr`.
    fn listen(&mut self, addr: NetAddress) -> io::Result<ConnectionTag>;
    /// `Net::openConnectTo`: starts a connection to `addr`.
    fn connect(&mut self, addr: NetAddress) -> ConnectionTag;
    /// Starts a connection to `host:port` (resolved without blocking).
    fn connect_host(&mut self, text: &str) -> ConnectionTag;
    /// Queues bytes for a connection; refused past [`TCP_SEND_LIMIT`].
    fn send(&mut self, tag: ConnectionTag, data: &[u8]) -> io::Result<()>;
    /// Closes a connection or a listening port.
    fn close(&mut self, tag: ConnectionTag);
    /// The local address of a connection or listening port.
    fn local_addr(&self, tag: ConnectionTag) -> Option<NetAddress>;
    /// The peer's address of a connection.
    fn peer_addr(&self, tag: ConnectionTag) -> Option<NetAddress>;
    /// `Net::process`: what happened on the sockets, as events.
    fn process(&mut self, out: &mut Vec<Event>);
}

impl TcpIo for TcpNet {
    fn listen(&mut self, addr: NetAddress) -> io::Result<ConnectionTag> {
        TcpNet::listen(self, addr)
    }
    fn connect(&mut self, addr: NetAddress) -> ConnectionTag {
        TcpNet::connect(self, addr)
    }
    fn connect_host(&mut self, text: &str) -> ConnectionTag {
        TcpNet::connect_host(self, text)
    }
    fn send(&mut self, tag: ConnectionTag, data: &[u8]) -> io::Result<()> {
        TcpNet::send(self, tag, data)
    }
    fn close(&mut self, tag: ConnectionTag) {
        TcpNet::close(self, tag);
    }
    fn local_addr(&self, tag: ConnectionTag) -> Option<NetAddress> {
        TcpNet::local_addr(self, tag)
    }
    fn peer_addr(&self, tag: ConnectionTag) -> Option<NetAddress> {
        TcpNet::peer_addr(self, tag)
    }
    fn process(&mut self, out: &mut Vec<Event>) {
        TcpNet::process(self, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tag_is_not_connected() {
        let mut net = TcpNet::new();
        let e = net.send(ConnectionTag(99), b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotConnected);
    }

    #[test]
    fn unresolvable_text_posts_dns_failed() {
        let mut net = TcpNet::new();
        let tag = net.connect_host("no port here");
        let mut out = Vec::new();
        net.process(&mut out);
        assert_eq!(out, vec![notify(tag, ConnectState::DnsFailed)]);
    }
}
