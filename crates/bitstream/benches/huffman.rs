//! Huffman string encode/decode speed, against writing and reading the same text as raw
//! bytes through the same stream (the cost Huffman adds over no compression).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use v12_bitstream::{BitReader, BitWriter};

const CHAT: &str = include_str!("../tests/data/chat.txt");
const NAMES: &str = include_str!("../tests/data/names.txt");

fn bench_corpus(c: &mut Criterion, name: &str, corpus: &str) {
    let lines: Vec<&str> = corpus.lines().collect();
    let total: usize = lines.iter().map(|l| l.len()).sum();
    let mut w = BitWriter::new();
    let mut raw = BitWriter::new();
    for l in &lines {
        w.write_string(l).unwrap();
        raw.write_flag(false);
        raw.write_int(l.len() as u32, 8);
        raw.write_bytes(l.as_bytes());
    }
    let encoded = w.as_bytes().to_vec();
    let raw_encoded = raw.as_bytes().to_vec();

    let mut g = c.benchmark_group(format!("huffman_encode_{name}"));
    g.throughput(Throughput::Bytes(total as u64));
    g.bench_function("v12_huffman", |b| {
        b.iter(|| {
            w.clear();
            for l in black_box(&lines) {
                w.write_string(l).unwrap();
            }
            w.bit_position()
        })
    });
    g.bench_function("baseline_raw_bytes", |b| {
        b.iter(|| {
            raw.clear();
            for l in black_box(&lines) {
                raw.write_flag(false);
                raw.write_int(l.len() as u32, 8);
                raw.write_bytes(l.as_bytes());
            }
            raw.bit_position()
        })
    });
    g.finish();

    let mut g = c.benchmark_group(format!("huffman_decode_{name}"));
    g.throughput(Throughput::Bytes(total as u64));
    g.bench_function("v12_huffman", |b| {
        b.iter(|| {
            let mut r = BitReader::new(black_box(&encoded));
            let mut n = 0;
            for _ in 0..lines.len() {
                n += r.read_string().unwrap().len();
            }
            n
        })
    });
    g.bench_function("baseline_raw_bytes", |b| {
        b.iter(|| {
            let mut r = BitReader::new(black_box(&raw_encoded));
            let mut n = 0;
            for _ in 0..lines.len() {
                n += r.read_string().unwrap().len();
            }
            n
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    bench_corpus(c, "chat", CHAT);
    bench_corpus(c, "names", NAMES);
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
