//! Packets per second one core handles for 1,000 connections, each side sending every 32 ms:
//! header write + header read + notify, sans-IO. One iteration is one 32 ms tick of all 1,000
//! connections (2,000 packets). The baseline writes and reads only a bare 32-bit sequence number
//! through the same bitstream, i.e. the cost of a packet with no protocol at all.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use v12_bitstream::{BitReader, BitWriter};
use v12_notify_protocol::{ConnectionProtocol, ProtocolConfig, Received};

const CONNECTIONS: usize = 1_000;
const TICK_MS: u64 = 32;

struct Pair {
    client: ConnectionProtocol,
    server: ConnectionProtocol,
}

struct World {
    pairs: Vec<Pair>,
    now: u64,
    w: BitWriter,
    /// Drop one packet in `lose_every`, chosen by a xorshift generator (0: none).
    lose_every: u64,
    rng: u64,
    notifies: u64,
}

impl World {
    fn new(lose_every: u64) -> Self {
        let config = ProtocolConfig::default();
        let pairs = (0..CONNECTIONS)
            .map(|_| Pair {
                client: ConnectionProtocol::new(config.clone(), 0),
                server: ConnectionProtocol::new(config.mirrored(), 0),
            })
            .collect();
        Self {
            pairs,
            now: 0,
            w: BitWriter::with_budget_bytes(508),
            lose_every,
            rng: 0x2545_F491_4F6C_DD1D,
            notifies: 0,
        }
    }

    fn send(
        w: &mut BitWriter,
        from: &mut ConnectionProtocol,
        to: &mut ConnectionProtocol,
        now: u64,
        lose: bool,
    ) {
        if from.window_full() {
            return;
        }
        w.set_bit_position(0);
        let seq = from.begin_data_packet(now, w);
        w.write_int(seq, 32);
        if !lose {
            let mut r = BitReader::new(w.as_bytes());
            if let Ok(Received::Data { seq }) = to.handle_packet(now, &mut r) {
                black_box(r.read_int(32).ok() == Some(seq));
            }
        }
    }

    fn lose(&mut self) -> bool {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.lose_every != 0 && self.rng.is_multiple_of(self.lose_every)
    }

    /// One 32 ms tick: every client and every server sends one packet to the other.
    fn tick(&mut self) {
        self.now += TICK_MS;
        let now = self.now;
        for i in 0..self.pairs.len() {
            let (up, down) = (self.lose(), self.lose());
            let p = &mut self.pairs[i];
            Self::send(&mut self.w, &mut p.client, &mut p.server, now, up);
            Self::send(&mut self.w, &mut p.server, &mut p.client, now, down);
            while p.client.poll_notify().is_some() {
                self.notifies += 1;
            }
            while p.server.poll_notify().is_some() {
                self.notifies += 1;
            }
        }
    }
}

fn bare_tick(w: &mut BitWriter, seqs: &mut [u32]) {
    for seq in seqs.iter_mut() {
        for _ in 0..2 {
            *seq = seq.wrapping_add(1);
            w.set_bit_position(0);
            w.write_int(*seq, 32);
            let mut r = BitReader::new(w.as_bytes());
            black_box(r.read_int(32).ok());
        }
    }
}

fn protocol(c: &mut Criterion) {
    let mut g = c.benchmark_group("notify_1000_connections_tick");
    g.measurement_time(Duration::from_secs(3)).sample_size(30);
    g.throughput(Throughput::Elements(2 * CONNECTIONS as u64));
    g.bench_function("baseline_bare_seq_bitstream", |b| {
        let mut w = BitWriter::with_budget_bytes(508);
        let mut seqs = vec![0u32; CONNECTIONS];
        b.iter(|| bare_tick(&mut w, &mut seqs));
    });
    g.bench_function("notify_protocol_lossless", |b| {
        let mut world = World::new(0);
        b.iter(|| world.tick());
        assert!(world.notifies > 0);
    });
    g.bench_function("notify_protocol_5pct_loss", |b| {
        let mut world = World::new(20);
        b.iter(|| world.tick());
        assert!(world.notifies > 0);
    });
    g.finish();
}

criterion_group!(benches, protocol);
criterion_main!(benches);
