//! The listen server's short-circuit link (V12's local NetConnection): its own client
//! joins through memory, not a socket. The server's port is UDP for everyone else plus one
//! end of an in-memory pair; the client takes the other end.

use std::io;
use v12_platform::{
    Datagram, LinkConditioner, LoopbackTransport, Millis, NetAddress, Transport, UdpTransport,
};

/// The server's port: datagrams to the local client's address go through memory, the rest
/// over UDP.
#[derive(Debug)]
pub struct ListenPort {
    udp: LinkConditioner<UdpTransport>,
    local: LoopbackTransport,
    /// The local client's address (its end of the pair).
    local_peer: NetAddress,
}

/// A listen server's port and the end its own client joins through.
#[derive(Debug)]
pub struct LocalLink {
    /// The client's end of the pair.
    pub client: LoopbackTransport,
    /// The server's address as the client knows it.
    pub server_addr: NetAddress,
}

impl ListenPort {
    /// `udp` for remote players, and an in-memory pair whose other end is returned for the
    /// server's own client.
    pub fn new(udp: LinkConditioner<UdpTransport>) -> (Self, LocalLink) {
        let (local, client) = LoopbackTransport::pair();
        let link = LocalLink { server_addr: local.local_addr(), client };
        let local_peer = link.client.local_addr();
        (ListenPort { udp, local, local_peer }, link)
    }

    /// The address the local client's datagrams come from.
    pub fn local_peer(&self) -> NetAddress {
        self.local_peer
    }
}

impl Transport for ListenPort {
    fn local_addr(&self) -> NetAddress {
        self.udp.local_addr()
    }

    fn send_to(&mut self, now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        if to == self.local_peer {
            self.local.send_to(now, to, data)
        } else {
            self.udp.send_to(now, to, data)
        }
    }

    fn recv_batch(&mut self, now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize> {
        let n = self.local.recv_batch(now, out)?;
        Ok(n + self.udp.recv_batch(now, out)?)
    }

    fn poll(&mut self, now: Millis) -> io::Result<()> {
        self.udp.poll(now)
    }

    fn next_wakeup(&self) -> Option<Millis> {
        self.udp.next_wakeup()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_client_goes_through_memory_and_everyone_else_over_udp() {
        let udp = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
        let (mut port, mut link) = ListenPort::new(LinkConditioner::new(udp, Default::default(), 1));
        let mut remote = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
        port.send_to(0, link.client.local_addr(), b"to the host's client").unwrap();
        port.send_to(0, remote.local_addr(), b"to a remote player").unwrap();
        let mut got = Vec::new();
        link.client.recv_batch(0, &mut got).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!((&got[0].data[..], got[0].from), (&b"to the host's client"[..], link.server_addr));
        link.client.send_to(0, link.server_addr, b"hello").unwrap();
        let mut got = Vec::new();
        port.recv_batch(0, &mut got).unwrap();
        assert_eq!((&got[0].data[..], got[0].from), (&b"hello"[..], port.local_peer()));
        let mut far = Vec::new();
        for _ in 0..100 {
            remote.recv_batch(0, &mut far).unwrap();
            if !far.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(&far[0].data[..], b"to a remote player");
    }
}
