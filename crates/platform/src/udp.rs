//! The real unreliable port: one UDP socket, set up through socket2
//! (buffer sizes, non-blocking) and read in batches into one reusable slab.
//!
//! Received datagrams are split off the slab as [`Bytes`](bytes::Bytes), so a batch costs
//! one allocation per slab rather than one per datagram, and the data is never
//! copied after the kernel writes it.

use std::io;
use std::net::UdpSocket;
use std::time::Duration;

use bytes::BytesMut;
use socket2::{Domain, Protocol, Socket, Type};

use crate::address::NetAddress;
use crate::time::Millis;
use crate::transport::{Datagram, Transport};

/// How a [`UdpTransport`] is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpConfig {
    /// Address to bind; port 0 lets the system choose.
    pub bind: NetAddress,
    /// SO_RCVBUF request (the kernel may cap it).
    pub recv_buffer: usize,
    /// SO_SNDBUF request (the kernel may cap it).
    pub send_buffer: usize,
    /// Larger datagrams are dropped on receipt (and counted).
    pub max_datagram: usize,
    /// At most this many datagrams per `recv_batch` call, so one busy port
    /// cannot starve the rest of the frame.
    pub max_batch: usize,
}

impl UdpConfig {
    /// Defaults for `bind`: 1 MiB buffers, 1500-byte datagrams, batches of 256.
    pub fn new(bind: NetAddress) -> Self {
        UdpConfig { bind, recv_buffer: 1 << 20, send_buffer: 1 << 20, max_datagram: 1500, max_batch: 256 }
    }
}

/// Bytes per receive slab; refilled when less than one datagram's room is left.
const SLAB_BYTES: usize = 64 * 1024;

/// One non-blocking UDP port.
#[derive(Debug)]
pub struct UdpTransport {
    socket: UdpSocket,
    local: NetAddress,
    slab: BytesMut,
    max_datagram: usize,
    max_batch: usize,
    oversize_dropped: u64,
}

impl UdpTransport {
    /// Open a port at `addr` with [`UdpConfig::new`] defaults.
    pub fn bind(addr: NetAddress) -> io::Result<Self> {
        Self::with_config(UdpConfig::new(addr))
    }

    /// Open a port as `config` says.
    pub fn with_config(config: UdpConfig) -> io::Result<Self> {
        let addr = config.bind.socket_addr();
        let socket = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
        if addr.is_ipv6() {
            socket.set_only_v6(true)?;
        }
        socket.set_recv_buffer_size(config.recv_buffer)?;
        socket.set_send_buffer_size(config.send_buffer)?;
        socket.set_nonblocking(true)?;
        socket.bind(&addr.into())?;
        // std's UdpSocket reads into initialised `&mut [u8]`, which keeps this crate free of `unsafe`.
        let socket: UdpSocket = socket.into();
        let local = NetAddress::from(socket.local_addr()?);
        tracing::debug!(%local, "udp port open");
        let max_datagram = config.max_datagram.clamp(1, 65_535);
        Ok(UdpTransport {
            socket,
            local,
            slab: BytesMut::new(),
            max_datagram,
            max_batch: config.max_batch.max(1),
            oversize_dropped: 0,
        })
    }

    /// The std socket, for options this type does not wrap.
    pub fn socket(&self) -> &UdpSocket {
        &self.socket
    }

    /// Datagrams dropped because they were larger than `max_datagram`.
    pub fn oversize_dropped(&self) -> u64 {
        self.oversize_dropped
    }

    /// Block until a datagram is ready or `timeout` passes; `true` if one is
    /// ready. This is how an event loop sleeps without busy-waiting: the
    /// socket is switched to blocking with SO_RCVTIMEO for one `peek`, then
    /// back to non-blocking.
    pub fn wait_readable(&self, timeout: Duration) -> io::Result<bool> {
        let mut probe = [0u8; 1];
        if timeout.is_zero() {
            return peek_ready(self.socket.peek_from(&mut probe));
        }
        self.socket.set_read_timeout(Some(timeout))?;
        self.socket.set_nonblocking(false)?;
        let ready = peek_ready(self.socket.peek_from(&mut probe));
        let restored = self.socket.set_nonblocking(true);
        let ready = ready?;
        restored?;
        Ok(ready)
    }

    /// Make sure the slab has room for one maximum datagram plus the byte
    /// that tells an oversize one apart.
    fn ensure_slab(&mut self) {
        let need = self.max_datagram + 1;
        if self.slab.len() < need {
            let size = SLAB_BYTES.max(need * 4);
            self.slab.clear();
            // Reuses the old allocation when every datagram split off it is gone.
            self.slab.reserve(size);
            self.slab.resize(size, 0);
        }
    }
}

fn peek_ready(r: io::Result<(usize, std::net::SocketAddr)>) -> io::Result<bool> {
    match r {
        Ok(_) => Ok(true),
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => Ok(false),
        // A datagram larger than the probe is still a datagram (Windows reports it as an error).
        Err(e) if e.raw_os_error() == Some(10040) => Ok(true),
        // A queued ICMP error (Windows reports these on unconnected sockets): let
        // `recv_batch` consume it rather than report it here forever.
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => Ok(true),
        Err(e) => Err(e),
    }
}

impl Transport for UdpTransport {
    fn local_addr(&self) -> NetAddress {
        self.local
    }

    fn send_to(&mut self, _now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        self.socket.send_to(data, to.socket_addr())?;
        Ok(())
    }

    fn recv_batch(&mut self, _now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize> {
        let mut n = 0;
        while n < self.max_batch {
            self.ensure_slab();
            let window = self.max_datagram + 1;
            match self.socket.recv_from(&mut self.slab[..window]) {
                Ok((len, from)) if len > self.max_datagram => {
                    self.oversize_dropped += 1;
                    tracing::debug!(%from, "dropped datagram over {} bytes", self.max_datagram);
                }
                Ok((len, from)) => {
                    let data = self.slab.split_to(len).freeze();
                    out.push(Datagram { from: NetAddress::from(from), data });
                    n += 1;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // ICMP port-unreachable from an earlier send surfaces here on some
                // systems; it says nothing about the datagrams still queued.
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversize_datagrams_are_dropped_and_counted() {
        let mut cfg = UdpConfig::new(NetAddress::localhost(0));
        cfg.max_datagram = 100;
        let mut rx = UdpTransport::with_config(cfg).unwrap();
        let mut tx = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
        tx.send_to(0, rx.local_addr(), &[1u8; 101]).unwrap();
        tx.send_to(0, rx.local_addr(), &[2u8; 100]).unwrap();
        let mut got = Vec::new();
        while got.is_empty() {
            assert!(rx.wait_readable(Duration::from_secs(5)).unwrap());
            rx.recv_batch(0, &mut got).unwrap();
        }
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data.len(), 100);
        assert_eq!(rx.oversize_dropped(), 1);
    }

    #[test]
    fn wait_readable_times_out_when_idle() {
        let rx = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
        assert!(!rx.wait_readable(Duration::from_millis(1)).unwrap());
        assert!(!rx.wait_readable(Duration::ZERO).unwrap());
    }
}
