//! `Net::process` from V12: one call a frame that turns what arrived on
//! the unreliable port and the TCP sockets into platform events.

use std::io;

use crate::event::Event;
use crate::tcp::TcpNet;
use crate::time::Millis;
use crate::transport::{Datagram, Transport};

/// The platform's network: one unreliable port (any [`Transport`]: real UDP,
/// the loopback, or either behind a link conditioner) and the TCP sockets.
#[derive(Debug)]
pub struct Net<T: Transport> {
    pub port: T,
    pub tcp: TcpNet,
    inbox: Vec<Datagram>,
}

impl<T: Transport> Net<T> {
    /// A network around `port`, with no TCP sockets yet.
    pub fn new(port: T) -> Self {
        Net { port, tcp: TcpNet::new(), inbox: Vec::with_capacity(64) }
    }

    /// Do the port's timed work, then append a `PacketReceive` event per
    /// datagram and the TCP events to `out`. Returns how many events were added.
    pub fn process(&mut self, now: Millis, out: &mut Vec<Event>) -> io::Result<usize> {
        let before = out.len();
        self.port.poll(now)?;
        self.inbox.clear();
        self.port.recv_batch(now, &mut self.inbox)?;
        out.extend(self.inbox.drain(..).map(Event::from));
        self.tcp.process(out);
        Ok(out.len() - before)
    }

    /// Send one unreliable datagram (V12: `Net::sendto`).
    pub fn send_to(&mut self, now: Millis, to: crate::NetAddress, data: &[u8]) -> io::Result<()> {
        self.port.send_to(now, to, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::PacketReceiveEvent;
    use crate::memory::LoopbackTransport;

    #[test]
    fn process_turns_datagrams_into_packet_events() {
        let (a, b) = LoopbackTransport::pair();
        let (mut client, mut server) = (Net::new(a), Net::new(b));
        let to = server.port.local_addr();
        client.send_to(0, to, b"ping").unwrap();
        let mut events = Vec::new();
        assert_eq!(server.process(0, &mut events).unwrap(), 1);
        assert_eq!(
            events,
            vec![Event::PacketReceive(PacketReceiveEvent {
                source: client.port.local_addr(),
                data: bytes::Bytes::from_static(b"ping"),
            })]
        );
        assert_eq!(server.process(0, &mut events).unwrap(), 0);
    }
}
