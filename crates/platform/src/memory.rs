//! In-memory datagram transports: V12's short-circuit connection for a
//! client and server in one process, and a small hub of many endpoints for
//! N-endpoint tests. Delivery is immediate and in order; put a
//! [`LinkConditioner`](crate::LinkConditioner) in front for loss and delay.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;

use crate::address::NetAddress;
use crate::time::Millis;
use crate::transport::{Datagram, Transport};

/// How many datagrams an endpoint queues before new ones are dropped, like a
/// socket's receive buffer filling up.
pub const MEMORY_QUEUE_LIMIT: usize = 65_536;

#[derive(Debug, Default)]
struct Hub {
    inboxes: BTreeMap<NetAddress, VecDeque<Datagram>>,
    next_port: u16,
    /// Datagrams sent to an address nobody holds, or to a full inbox.
    dropped: u64,
}

/// A shared in-memory network. Endpoints bound to it reach each other by
/// [`NetAddress`]; datagrams to unbound addresses vanish, as on UDP.
#[derive(Clone, Debug, Default)]
pub struct MemoryNetwork {
    hub: Arc<Mutex<Hub>>,
}

fn lock(hub: &Mutex<Hub>) -> MutexGuard<'_, Hub> {
    // A panic elsewhere while holding the lock leaves the queues consistent
    // (every mutation is a single push or pop), so keep going.
    hub.lock().unwrap_or_else(|e| e.into_inner())
}

impl MemoryNetwork {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bind an endpoint at `addr`; port 0 picks a free port on that IP.
    /// Fails with `AddrInUse` if the address is taken.
    pub fn bind(&self, addr: NetAddress) -> io::Result<LoopbackTransport> {
        let mut hub = lock(&self.hub);
        let addr = if addr.port() == 0 {
            let mut found = None;
            for _ in 0..=u16::MAX {
                hub.next_port = hub.next_port.wrapping_add(1).max(1);
                let candidate = addr.with_port(hub.next_port);
                if !hub.inboxes.contains_key(&candidate) {
                    found = Some(candidate);
                    break;
                }
            }
            found.ok_or_else(|| io::Error::new(io::ErrorKind::AddrInUse, "no free port"))?
        } else {
            addr
        };
        if hub.inboxes.contains_key(&addr) {
            return Err(io::Error::new(io::ErrorKind::AddrInUse, format!("{addr} is already bound")));
        }
        hub.inboxes.insert(addr, VecDeque::new());
        Ok(LoopbackTransport { hub: Arc::clone(&self.hub), local: addr })
    }

    /// Bind an endpoint at `127.0.0.1` with a fresh port.
    pub fn bind_any(&self) -> io::Result<LoopbackTransport> {
        self.bind(NetAddress::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0))
    }

    /// Datagrams lost because their address was unbound or its queue full.
    pub fn dropped(&self) -> u64 {
        lock(&self.hub).dropped
    }
}

/// One endpoint on a [`MemoryNetwork`].
#[derive(Debug)]
pub struct LoopbackTransport {
    hub: Arc<Mutex<Hub>>,
    local: NetAddress,
}

impl LoopbackTransport {
    /// Two endpoints connected to each other on a private network: the
    /// short-circuit connection for a client and server in one process.
    pub fn pair() -> (LoopbackTransport, LoopbackTransport) {
        let net = MemoryNetwork::new();
        let a = net.bind(NetAddress::localhost(1));
        let b = net.bind(NetAddress::localhost(2));
        match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            // A fresh network has both addresses free.
            _ => unreachable!("fresh memory network refused a bind"),
        }
    }

    /// Datagrams waiting to be received.
    pub fn pending(&self) -> usize {
        lock(&self.hub).inboxes.get(&self.local).map_or(0, VecDeque::len)
    }
}

impl Drop for LoopbackTransport {
    fn drop(&mut self) {
        lock(&self.hub).inboxes.remove(&self.local);
    }
}

impl Transport for LoopbackTransport {
    fn local_addr(&self) -> NetAddress {
        self.local
    }

    fn send_to(&mut self, _now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        let mut hub = lock(&self.hub);
        match hub.inboxes.get_mut(&to) {
            Some(q) if q.len() < MEMORY_QUEUE_LIMIT => {
                q.push_back(Datagram { from: self.local, data: Bytes::copy_from_slice(data) })
            }
            _ => hub.dropped += 1,
        }
        Ok(())
    }

    fn recv_batch(&mut self, _now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize> {
        let mut hub = lock(&self.hub);
        let Some(q) = hub.inboxes.get_mut(&self.local) else { return Ok(0) };
        let n = q.len();
        out.extend(q.drain(..));
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_delivers_both_ways_in_order() {
        let (mut a, mut b) = LoopbackTransport::pair();
        a.send_to(0, b.local_addr(), b"one").unwrap();
        a.send_to(0, b.local_addr(), b"two").unwrap();
        b.send_to(0, a.local_addr(), b"back").unwrap();
        let mut got = Vec::new();
        assert_eq!(b.recv_batch(0, &mut got).unwrap(), 2);
        assert_eq!(got[0], Datagram { from: a.local_addr(), data: Bytes::from_static(b"one") });
        assert_eq!(got[1].data, Bytes::from_static(b"two"));
        got.clear();
        assert_eq!(a.recv_batch(0, &mut got).unwrap(), 1);
        assert_eq!(got[0].from, b.local_addr());
        assert_eq!(a.recv_batch(0, &mut got).unwrap(), 0);
    }

    #[test]
    fn hub_routes_between_many_and_drops_unbound() {
        let net = MemoryNetwork::new();
        let mut eps: Vec<_> = (0..5).map(|_| net.bind_any().unwrap()).collect();
        let addrs: Vec<_> = eps.iter().map(|e| e.local_addr()).collect();
        for (i, ep) in eps.iter_mut().enumerate() {
            for (j, to) in addrs.iter().enumerate() {
                if i != j {
                    ep.send_to(0, *to, &[i as u8, j as u8]).unwrap();
                }
            }
        }
        for (j, ep) in eps.iter_mut().enumerate() {
            let mut got = Vec::new();
            ep.recv_batch(0, &mut got).unwrap();
            assert_eq!(got.len(), 4);
            assert!(got.iter().all(|d| d.data[1] == j as u8 && addrs[usize::from(d.data[0])] == d.from));
        }
        let gone = addrs[0];
        eps.remove(0);
        eps[0].send_to(0, gone, b"x").unwrap();
        assert_eq!(net.dropped(), 1);
        assert!(net.bind(addrs[1]).is_err());
        assert!(net.bind(gone).is_ok());
    }
}
