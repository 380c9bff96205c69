//! Write + read of a ghost-update mix: v12-bitstream against the same fields written with
//! plain `bitstream_io` calls (LSB-first, the same quantisation math) in the same run.

use std::f32::consts::{FRAC_PI_2, PI};
use std::hint::black_box;
use std::time::Duration;

use bitstream_io::{BitRead, BitWrite, LittleEndian};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use v12_bitstream::{BitReader, BitWriter, CompressionPoint};

const UPDATES: usize = 1000;
const NORMAL_BITS: u32 = 10;

/// One ghost update, shaped like a player's: a mask of three states and their fields.
#[derive(Clone, Copy)]
struct Update {
    ghost: u32,
    moved: bool,
    pos: Vec3,
    vel_dir: Vec3,
    speed: u32,
    yaw: u32,
    damaged: bool,
    damage: u32,
    state: u32,
    powered: bool,
    energy: u32,
    time: u32,
}

/// Deterministic xorshift: the same updates every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 32) as u32
    }
    fn unit(&mut self) -> f32 {
        self.next() as f32 / u32::MAX as f32 * 2.0 - 1.0
    }
}

fn updates() -> Vec<Update> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..UPDATES)
        .map(|_| Update {
            ghost: rng.next() & 0x3FF,
            moved: rng.next() % 10 < 9,
            pos: Vec3::new(rng.unit() * 300.0, rng.unit() * 300.0, rng.unit() * 50.0),
            vel_dir: Vec3::new(rng.unit(), rng.unit(), rng.unit()),
            speed: rng.next() & 0x1FFF,
            yaw: rng.next() & 0x7F,
            damaged: rng.next() % 10 < 3,
            damage: rng.next() & 0xFF,
            state: rng.next() & 0x1F,
            powered: rng.next() % 10 < 5,
            energy: rng.next() & 0xFFF,
            time: rng.next() & 0xF_FFFF,
        })
        .collect()
}

/// Fields per update as written (for ns per field).
fn field_count(us: &[Update]) -> usize {
    us.iter()
        .map(|u| 5 + if u.moved { 4 } else { 0 } + if u.damaged { 2 } else { 0 } + usize::from(u.powered))
        .sum()
}

fn write_v12(w: &mut BitWriter, us: &[Update], cp: &CompressionPoint) {
    for u in us {
        w.write_int(u.ghost, 10);
        if w.write_flag(u.moved) {
            w.write_compressed_point(u.pos, cp);
            w.write_normal(u.vel_dir, NORMAL_BITS);
            w.write_int(u.speed, 13);
            w.write_int(u.yaw, 7);
        }
        if w.write_flag(u.damaged) {
            w.write_int(u.damage, 8);
            w.write_int(u.state, 5);
        }
        if w.write_flag(u.powered) {
            w.write_int(u.energy, 12);
        }
        w.write_int(u.time, 20);
    }
}

fn read_v12(bytes: &[u8], n: usize, cp: &CompressionPoint) -> f32 {
    let mut r = BitReader::new(bytes);
    let mut acc = 0.0f32;
    let mut iacc = 0u32;
    for _ in 0..n {
        iacc ^= r.read_int(10).unwrap();
        if r.read_flag().unwrap() {
            acc += r.read_compressed_point(cp).unwrap().x;
            acc += r.read_normal(NORMAL_BITS).unwrap().y;
            iacc ^= r.read_int(13).unwrap();
            iacc ^= r.read_int(7).unwrap();
        }
        if r.read_flag().unwrap() {
            iacc ^= r.read_int(8).unwrap();
            iacc ^= r.read_int(5).unwrap();
        }
        if r.read_flag().unwrap() {
            iacc ^= r.read_int(12).unwrap();
        }
        iacc ^= r.read_int(20).unwrap();
    }
    acc + iacc as f32
}

// ---- The baseline: the same fields and the same math through bitstream-io. ----

type IoWriter = bitstream_io::BitWriter<Vec<u8>, LittleEndian>;

fn round_half_up(x: f64) -> i64 {
    let t = x + 0.5;
    let i = t as i64;
    if (i as f64) > t { i - 1 } else { i }
}

fn q_signed(f: f32, bits: u32) -> u32 {
    let steps = ((1u64 << (bits - 1)) - 1) as f64;
    let f = if f.is_nan() { 0.0 } else { f64::from(f).clamp(-1.0, 1.0) };
    (round_half_up(f * steps) as u32) & ((1u32 << bits) - 1)
}

fn dq_signed(raw: u32, bits: u32) -> f32 {
    let steps = ((1u64 << (bits - 1)) - 1) as f64;
    let shift = 32 - bits;
    let v = ((raw << shift) as i32 >> shift) as f64;
    (v.max(-steps) / steps) as f32
}

fn io_write_point(w: &mut IoWriter, p: Vec3, cp: &CompressionPoint) {
    let o = cp.origin();
    let inv = 1.0 / f64::from(cp.scale());
    let d = [(p.x, o.x), (p.y, o.y), (p.z, o.z)].map(|(v, o)| (f64::from(v) - f64::from(o)) * inv);
    let q = d.map(round_half_up);
    let m = q.iter().map(|&v| v.max(-v - 1)).max().unwrap_or(0);
    // The mix stays within 16 bits, as the v12 writer chooses for it.
    assert!(m < 1 << 15);
    w.write_var::<u32>(2, 0).unwrap();
    for v in q {
        w.write_signed_var::<i32>(16, v as i32).unwrap();
    }
}

fn io_read_point(r: &mut IoReader<'_>, cp: &CompressionPoint) -> Vec3 {
    let code: u32 = r.read_var(2).unwrap();
    assert_eq!(code, 0);
    let o = cp.origin();
    let s = f64::from(cp.scale());
    let mut axis = |o: f32| (f64::from(o) + f64::from(r.read_signed_var::<i32>(16).unwrap()) * s) as f32;
    Vec3::new(axis(o.x), axis(o.y), axis(o.z))
}

fn io_write_normal(w: &mut IoWriter, v: Vec3, bits: u32) {
    let phi = v.x.atan2(v.y) / PI;
    let theta = v.z.atan2((v.x * v.x + v.y * v.y).sqrt()) / FRAC_PI_2;
    w.write_var(bits + 1, q_signed(phi, bits + 1)).unwrap();
    w.write_var(bits, q_signed(theta, bits)).unwrap();
}

fn io_read_normal(r: &mut IoReader<'_>, bits: u32) -> Vec3 {
    let phi = dq_signed(r.read_var(bits + 1).unwrap(), bits + 1) * PI;
    let theta = dq_signed(r.read_var(bits).unwrap(), bits) * FRAC_PI_2;
    let (sp, cp) = phi.sin_cos();
    let (st, ct) = theta.sin_cos();
    Vec3::new(sp * ct, cp * ct, st)
}

fn write_io(us: &[Update], cp: &CompressionPoint, buf: Vec<u8>) -> Vec<u8> {
    let mut w = IoWriter::new(buf);
    for u in us {
        w.write_var(10, u.ghost).unwrap();
        w.write_bit(u.moved).unwrap();
        if u.moved {
            io_write_point(&mut w, u.pos, cp);
            io_write_normal(&mut w, u.vel_dir, NORMAL_BITS);
            w.write_var(13, u.speed).unwrap();
            w.write_var(7, u.yaw).unwrap();
        }
        w.write_bit(u.damaged).unwrap();
        if u.damaged {
            w.write_var(8, u.damage).unwrap();
            w.write_var(5, u.state).unwrap();
        }
        w.write_bit(u.powered).unwrap();
        if u.powered {
            w.write_var(12, u.energy).unwrap();
        }
        w.write_var(20, u.time).unwrap();
    }
    w.byte_align().unwrap();
    w.into_writer()
}

type IoReader<'a> = bitstream_io::BitReader<&'a [u8], LittleEndian>;

fn read_io(bytes: &[u8], n: usize, cp: &CompressionPoint) -> f32 {
    let mut r = IoReader::new(bytes);
    let mut acc = 0.0f32;
    let mut iacc = 0u32;
    for _ in 0..n {
        iacc ^= r.read_var::<u32>(10).unwrap();
        if r.read_bit().unwrap() {
            acc += io_read_point(&mut r, cp).x;
            acc += io_read_normal(&mut r, NORMAL_BITS).y;
            iacc ^= r.read_var::<u32>(13).unwrap();
            iacc ^= r.read_var::<u32>(7).unwrap();
        }
        if r.read_bit().unwrap() {
            iacc ^= r.read_var::<u32>(8).unwrap();
            iacc ^= r.read_var::<u32>(5).unwrap();
        }
        if r.read_bit().unwrap() {
            iacc ^= r.read_var::<u32>(12).unwrap();
        }
        iacc ^= r.read_var::<u32>(20).unwrap();
    }
    acc + iacc as f32
}

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
