//! The ghost-update mix shared by `benches/bitstream.rs` and `examples/ghost_cycles.rs`:
//! the same fields written with v12-bitstream and with plain `bitstream_io` calls
//! (LSB-first, the same quantisation math).

#![allow(dead_code)]

use std::f32::consts::{FRAC_PI_2, PI};

use bitstream_io::{BitRead, BitWrite, LittleEndian};
use glam::Vec3;
use v12_bitstream::{BitReader, BitWriter, CompressionPoint};

pub const UPDATES: usize = 1000;
const NORMAL_BITS: u32 = 10;

/// One ghost update, shaped like a player's: a mask of three states and their fields.
#[derive(Clone, Copy)]
pub struct Update {
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

pub fn updates() -> Vec<Update> {
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
pub fn field_count(us: &[Update]) -> usize {
    us.iter()
        .map(|u| 5 + if u.moved { 4 } else { 0 } + if u.damaged { 2 } else { 0 } + usize::from(u.powered))
        .sum()
}

pub fn write_v12(w: &mut BitWriter, us: &[Update], cp: &CompressionPoint) {
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

pub fn read_v12(bytes: &[u8], n: usize, cp: &CompressionPoint) -> f32 {
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

pub type IoWriter = bitstream_io::BitWriter<Vec<u8>, LittleEndian>;

pub fn round_half_up(x: f64) -> i64 {
    let t = x + 0.5;
    let i = t as i64;
    if (i as f64) > t { i - 1 } else { i }
}

pub fn q_signed(f: f32, bits: u32) -> u32 {
    let steps = ((1u64 << (bits - 1)) - 1) as f64;
    let f = if f.is_nan() { 0.0 } else { f64::from(f).clamp(-1.0, 1.0) };
    (round_half_up(f * steps) as u32) & ((1u32 << bits) - 1)
}

pub fn dq_signed(raw: u32, bits: u32) -> f32 {
    let steps = ((1u64 << (bits - 1)) - 1) as f64;
    let shift = 32 - bits;
    let v = ((raw << shift) as i32 >> shift) as f64;
    (v.max(-steps) / steps) as f32
}

pub fn io_write_point(w: &mut IoWriter, p: Vec3, cp: &CompressionPoint) {
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

pub fn io_read_point(r: &mut IoReader<'_>, cp: &CompressionPoint) -> Vec3 {
    let code: u32 = r.read_var(2).unwrap();
    assert_eq!(code, 0);
    let o = cp.origin();
    let s = f64::from(cp.scale());
    let mut axis = |o: f32| (f64::from(o) + f64::from(r.read_signed_var::<i32>(16).unwrap()) * s) as f32;
    Vec3::new(axis(o.x), axis(o.y), axis(o.z))
}

pub fn io_write_normal(w: &mut IoWriter, v: Vec3, bits: u32) {
    let phi = v.x.atan2(v.y) / PI;
    let theta = v.z.atan2((v.x * v.x + v.y * v.y).sqrt()) / FRAC_PI_2;
    w.write_var(bits + 1, q_signed(phi, bits + 1)).unwrap();
    w.write_var(bits, q_signed(theta, bits)).unwrap();
}

pub fn io_read_normal(r: &mut IoReader<'_>, bits: u32) -> Vec3 {
    let phi = dq_signed(r.read_var(bits + 1).unwrap(), bits + 1) * PI;
    let theta = dq_signed(r.read_var(bits).unwrap(), bits) * FRAC_PI_2;
    let (sp, cp) = phi.sin_cos();
    let (st, ct) = theta.sin_cos();
    Vec3::new(sp * ct, cp * ct, st)
}

pub fn write_io(us: &[Update], cp: &CompressionPoint, buf: Vec<u8>) -> Vec<u8> {
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

pub type IoReader<'a> = bitstream_io::BitReader<&'a [u8], LittleEndian>;

pub fn read_io(bytes: &[u8], n: usize, cp: &CompressionPoint) -> f32 {
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

/// Flags and 5..=20-bit ints only: the bit core without the float math.
pub fn write_ints_v12(w: &mut BitWriter, n: u32) {
    for i in 0..n {
        w.write_int(i.wrapping_mul(2_654_435_761), 5 + (i % 16));
        w.write_flag(i & 1 == 0);
    }
}

pub fn read_ints_v12(bytes: &[u8], n: u32) -> u32 {
    let mut r = BitReader::new(bytes);
    let mut acc = 0;
    for i in 0..n {
        acc ^= r.read_int(5 + (i % 16)).unwrap();
        acc ^= u32::from(r.read_flag().unwrap());
    }
    acc
}

pub fn write_ints_io(n: u32, buf: Vec<u8>) -> Vec<u8> {
    let mut w = IoWriter::new(buf);
    for i in 0..n {
        let bits = 5 + (i % 16);
        w.write_var(bits, i.wrapping_mul(2_654_435_761) & ((1 << bits) - 1)).unwrap();
        w.write_bit(i & 1 == 0).unwrap();
    }
    w.byte_align().unwrap();
    w.into_writer()
}

pub fn read_ints_io(bytes: &[u8], n: u32) -> u32 {
    let mut r = IoReader::new(bytes);
    let mut acc = 0;
    for i in 0..n {
        acc ^= r.read_var::<u32>(5 + (i % 16)).unwrap();
        acc ^= u32::from(r.read_bit().unwrap());
    }
    acc
}
