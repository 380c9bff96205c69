//! The relay server's per-NWF work for an 8-player game: take eight command messages,
//! compare checksums, build and encode the NWF-done message. Throughput in NWFs; the
//! baseline is decoding and re-encoding the same eight messages with no relay logic.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use v12_lockstep::toy::{ToyCommand, ToyGame};
use v12_lockstep::*;

fn batch(i: u32) -> Vec<u8> {
    let cmds: Vec<ToyCommand> =
        (0..(i % 3)).map(|k| ToyCommand { token: (i * 3 + k) as u16, x: i as i16, y: -(k as i16) }).collect();
    encode_batch::<ToyGame>(&cmds)
}

fn relay_nwf(c: &mut Criterion) {
    let mut g = c.benchmark_group("relay_nwf_8_players");
    g.measurement_time(Duration::from_secs(3)).sample_size(30).throughput(Throughput::Elements(1));
    let msgs: Vec<Vec<Vec<u8>>> = (0..256u32)
        .map(|nwf| {
            (0..8u32)
                .map(|p| {
                    ClientMessage::Commands { nwf: nwf + 2, checksum: Some(0xABCD), batch: batch(nwf + p) }
                        .encode()
                })
                .collect()
        })
        .collect();
    g.bench_function("baseline_decode_encode_only", |b| {
        b.iter(|| {
            let mut n = 0;
            for m in &msgs[0] {
                if let Ok(ClientMessage::Commands { batch, .. }) = ClientMessage::decode(m) {
                    n += ClientMessage::Commands { nwf: 0, checksum: None, batch }.encode().len();
                }
            }
            black_box(n)
        })
    });
    g.bench_function("relay_server_nwf", |b| {
        b.iter_custom(|iters| {
            let mut server = RelayServer::new(RelayConfig::default(), 1);
            for p in 0..8 {
                server.add_player(&format!("p{p}"));
            }
            server.start(0);
            for p in 1..=8u8 {
                for nwf in 0..2 {
                    server.handle_message(
                        0,
                        p,
                        ClientMessage::Commands { nwf, checksum: None, batch: vec![0] },
                    );
                }
            }
            while server.poll_transmit().is_some() {}
            let start = std::time::Instant::now();
            for i in 0..iters {
                let set = &msgs[(i % 256) as usize];
                let nwf = i as u32 + 2;
                for (p, m) in set.iter().enumerate() {
                    // Re-stamp the NWF so the stream keeps going.
                    let Ok(ClientMessage::Commands { checksum, batch, .. }) = ClientMessage::decode(m) else {
                        continue;
                    };
                    server.handle_message(i, p as u8 + 1, ClientMessage::Commands { nwf, checksum, batch });
                }
                while let Some((to, msg)) = server.poll_transmit() {
                    black_box((to, msg.encode()));
                }
            }
            start.elapsed()
        })
    });
    g.finish();
}

criterion_group!(benches, relay_nwf);
criterion_main!(benches);
