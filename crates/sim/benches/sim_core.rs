//! Benches of the simulation core: move packing, process-list ticks, container queries.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use v12_bitstream::BitWriter;
use v12_sim::moves::{ClientMoveList, Move};

fn moves(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim_moves");
    g.measurement_time(Duration::from_secs(2));
    g.bench_function("pack_30_moves", |b| {
        let mut list = ClientMoveList::new();
        list.max_resend = 0;
        for i in 0..30 {
            list.collect(Move::from_input(1.0, (i % 3) as f32 - 1.0, 0.0, 0.01 * i as f32, 0.0, 0.0, [false; 6]));
        }
        b.iter(|| {
            let mut w = BitWriter::new();
            black_box(list.write_moves(&mut w));
            black_box(w.bit_position())
        })
    });
    g.finish();
}

criterion_group!(benches, moves);
criterion_main!(benches);
