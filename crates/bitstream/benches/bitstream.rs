//! Write + read of a ghost-update mix: v12-bitstream against the same fields written with
//! plain `bitstream_io` calls (LSB-first, the same quantisation math) in the same run.

mod ghost_mix;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ghost_mix::{
    UPDATES, field_count, read_ints_io, read_ints_v12, read_io, read_v12, updates, write_ints_io,
    write_ints_v12, write_io, write_v12,
};
use glam::Vec3;
use v12_bitstream::{BitWriter, CompressionPoint};

fn bench(c: &mut Criterion) {
    let us = updates();
    let cp = CompressionPoint::new(Vec3::new(10.0, -20.0, 5.0));
    let mut w = BitWriter::new();
    write_v12(&mut w, &us, &cp);
    let packed_bits = w.bit_position();
    let v12_bytes = w.as_bytes().to_vec();
    let io_bytes = write_io(&us, &cp, Vec::new());
    // Same fields, same bits: the two writers must agree byte for byte.
    assert_eq!(v12_bytes, io_bytes, "v12 and bitstream-io encodings differ");
    let fields = field_count(&us);
    eprintln!(
        "ghost mix: {UPDATES} updates, {fields} fields, {packed_bits} bits ({:.1} bits/field)",
        packed_bits as f64 / fields as f64
    );

    let mut g = c.benchmark_group("ghost_updates_write_read");
    g.throughput(Throughput::Bytes(v12_bytes.len() as u64));
    g.bench_function("v12_bitstream", |b| {
        b.iter(|| {
            w.clear();
            write_v12(&mut w, black_box(&us), &cp);
            read_v12(black_box(w.as_bytes()), UPDATES, &cp)
        })
    });
    let mut io_buf = Vec::with_capacity(io_bytes.len());
    g.bench_function("baseline_bitstream_io", |b| {
        b.iter(|| {
            io_buf.clear();
            io_buf = write_io(black_box(&us), &cp, std::mem::take(&mut io_buf));
            read_io(black_box(&io_buf), UPDATES, &cp)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("ghost_updates_write");
    g.throughput(Throughput::Bytes(v12_bytes.len() as u64));
    g.bench_function("v12_bitstream", |b| {
        b.iter(|| {
            w.clear();
            write_v12(&mut w, black_box(&us), &cp);
            w.bit_position()
        })
    });
    g.bench_function("baseline_bitstream_io", |b| {
        b.iter(|| {
            io_buf.clear();
            io_buf = write_io(black_box(&us), &cp, std::mem::take(&mut io_buf));
            io_buf.len()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("ghost_updates_read");
    g.throughput(Throughput::Bytes(v12_bytes.len() as u64));
    g.bench_function("v12_bitstream", |b| b.iter(|| read_v12(black_box(&v12_bytes), UPDATES, &cp)));
    g.bench_function("baseline_bitstream_io", |b| b.iter(|| read_io(black_box(&io_bytes), UPDATES, &cp)));
    g.finish();

    // The bit core alone: 2000 fields (flags and 5..=20-bit ints), write + read.
    const INTS: u32 = 1000;
    w.clear();
    write_ints_v12(&mut w, INTS);
    assert_eq!(w.as_bytes(), write_ints_io(INTS, Vec::new()).as_slice());
    let mut g = c.benchmark_group("int_fields_write_read");
    g.throughput(Throughput::Bytes(w.as_bytes().len() as u64));
    g.bench_function("v12_bitstream", |b| {
        b.iter(|| {
            w.clear();
            write_ints_v12(&mut w, black_box(INTS));
            read_ints_v12(black_box(w.as_bytes()), INTS)
        })
    });
    g.bench_function("baseline_bitstream_io", |b| {
        b.iter(|| {
            io_buf.clear();
            io_buf = write_ints_io(black_box(INTS), std::mem::take(&mut io_buf));
            read_ints_io(black_box(&io_buf), INTS)
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
