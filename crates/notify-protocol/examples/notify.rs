//! The notify guarantee over a lossy link: two `ConnectionProtocol`s send a data packet every
//! 32 ms for a minute over netsim's "average" link (100 ms ± 25, 2 % loss), and every packet
//! each side sent is reported delivered or dropped, in send order.
//!
//! `cargo run -p v12-notify-protocol --example notify`

use v12_bitstream::{BitReader, BitWriter};
use v12_netsim::{Endpoint, Harness, LinkConfig};
use v12_notify_protocol::{ConnectionProtocol, ProtocolConfig, Received};

struct Side {
    id: u8,
    proto: ConnectionProtocol,
    next_send: u64,
    out: Vec<Vec<u8>>,
    sent: u32,
    delivered: u32,
    dropped: u32,
}

impl Side {
    fn new(id: u8, config: ProtocolConfig) -> Self {
        Side {
            id,
            proto: ConnectionProtocol::new(config, 0),
            next_send: 0,
            out: Vec::new(),
            sent: 0,
            delivered: 0,
            dropped: 0,
        }
    }

    /// Notifies out, control packets (acks, pings) queued.
    fn drain(&mut self, now: u64) {
        while let Some(n) = self.proto.poll_notify() {
            if n.delivered { self.delivered += 1 } else { self.dropped += 1 }
        }
        while let Some(p) = self.proto.poll_transmit(now) {
            self.out.push(p.to_vec());
        }
    }
}

impl Endpoint for Side {
    type Addr = u8;
    fn addr(&self) -> u8 {
        self.id
    }
    fn handle_datagram(&mut self, now: u64, _from: u8, data: &[u8]) {
        if let Ok(Received::Data { .. }) = self.proto.handle_packet(now, &mut BitReader::new(data)) {
            // The payload would be read here, after the header.
        }
        self.drain(now);
    }
    fn poll_transmit(&mut self, _now: u64) -> Option<(u8, Vec<u8>)> {
        self.out.pop().map(|p| (1 - self.id, p))
    }
    fn poll_timeout(&self) -> Option<u64> {
        Some(self.proto.poll_timeout().map_or(self.next_send, |t| t.min(self.next_send)))
    }
    fn handle_timeout(&mut self, now: u64) {
        self.proto.handle_timeout(now);
        if now >= self.next_send {
            self.next_send = now + 32;
            if !self.proto.window_full() {
                let mut w = BitWriter::with_budget_bytes(508);
                self.proto.begin_data_packet(now, &mut w);
                w.write_int(self.sent, 32); // the payload
                self.out.push(w.into_bytes().to_vec());
                self.sent += 1;
            }
        }
        self.drain(now);
    }
}

fn main() {
    let config = ProtocolConfig::default();
    let sides = vec![Side::new(0, config.mirrored()), Side::new(1, config)];
    let mut h = Harness::new(sides, LinkConfig::average(), 42);
    h.run_until(60_000);
    for s in h.nodes() {
        let pending = s.sent - s.delivered - s.dropped;
        println!(
            "side {}: sent {} data packets: {} delivered, {} dropped, {pending} still in flight; rtt {:.0} ms",
            s.id,
            s.sent,
            s.delivered,
            s.dropped,
            s.proto.rtt_ms()
        );
    }
    let st = h.network().total_stats();
    println!(
        "the link lost {} datagrams and reordered {} (data, acks and pings together): a data packet is \
         dropped when lost or when it arrives after a later one, as the protocol keeps only in-order packets",
        st.dropped_loss, st.reordered
    );
}
