//! Any bytes into any reader never panic: random data read with every read function in a
//! random order, with random parameters. Each read is `Ok` or `Err`, the position never
//! passes the end, a failed read never moves the reader past the data, and decoded
//! directions and rotations are always unit length.

use glam::Vec3;
use proptest::prelude::*;
use v12_bitstream::{BitReader, CompressionPoint};

#[derive(Clone, Debug)]
enum Op {
    Bits(u32),
    Int(u32),
    Flag,
    Bytes(usize),
    Signed(u32),
    Ranged(u32, u32),
    F32,
    F64,
    Float(u32),
    SignedFloat(u32),
    Point(f32),
    Normal(u32),
    Quat(u32),
    Vector(f32, u32, u32),
    Vec3,
    QuatRaw,
    Slice,
    Str,
    LongStr,
    StrOrTag,
    Marker,
    Sentinel,
    Seek(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..100).prop_map(Op::Bits),
        (0u32..100).prop_map(Op::Int),
        Just(Op::Flag),
        (0usize..64).prop_map(Op::Bytes),
        (0u32..100).prop_map(Op::Signed),
        (any::<u32>(), any::<u32>()).prop_map(|(a, b)| Op::Ranged(a, b)),
        Just(Op::F32),
        Just(Op::F64),
        (0u32..100).prop_map(Op::Float),
        (0u32..100).prop_map(Op::SignedFloat),
        prop_oneof![Just(0.01f32), Just(f32::NAN), Just(-3.0), Just(1e30)].prop_map(Op::Point),
        (0u32..100).prop_map(Op::Normal),
        (0u32..100).prop_map(Op::Quat),
        (prop_oneof![Just(50.0f32), Just(0.0), Just(f32::NAN)], 0u32..40, 0u32..40)
            .prop_map(|(m, a, b)| Op::Vector(m, a, b)),
        Just(Op::Vec3),
        Just(Op::QuatRaw),
        Just(Op::Slice),
        Just(Op::Str),
        Just(Op::LongStr),
        Just(Op::StrOrTag),
        Just(Op::Marker),
        Just(Op::Sentinel),
        any::<usize>().prop_map(Op::Seek),
    ]
}

fn run(r: &mut BitReader<'_>, op: &Op) -> Result<(), TestCaseError> {
    let unit = |v: Vec3| v.is_finite() && (v.length() - 1.0).abs() < 1e-4;
    match op {
        Op::Bits(b) => drop(r.read_bits(*b)),
        Op::Int(b) => drop(r.read_int(*b)),
        Op::Flag => drop(r.read_flag()),
        Op::Bytes(n) => drop(r.read_bytes(&mut vec![0; *n])),
        Op::Signed(b) => drop(r.read_signed_int(*b)),
        Op::Ranged(a, b) => {
            if let Ok(v) = r.read_ranged(*a, *b) {
                prop_assert!(v >= *a && v <= (*b).max(*a));
            }
        }
        Op::F32 => drop(r.read_f32()),
        Op::F64 => drop(r.read_f64()),
        Op::Float(b) => {
            if let Ok(v) = r.read_float(*b) {
                prop_assert!((0.0..=1.0).contains(&v));
            }
        }
        Op::SignedFloat(b) => {
            if let Ok(v) = r.read_signed_float(*b) {
                prop_assert!((-1.0..=1.0).contains(&v));
            }
        }
        Op::Point(s) => drop(r.read_compressed_point(&CompressionPoint::with_scale(Vec3::ONE, *s))),
        Op::Normal(b) => {
            if let Ok(v) = r.read_normal(*b) {
                prop_assert!(unit(v), "normal {v}");
            }
        }
        Op::Quat(b) => {
            if let Ok(q) = r.read_quat(*b) {
                prop_assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-4, "quat {q}");
            }
        }
        Op::Vector(m, a, b) => drop(r.read_vector(*m, *a, *b)),
        Op::Vec3 => drop(r.read_vec3()),
        Op::QuatRaw => drop(r.read_quat_raw()),
        Op::Slice => drop(r.read_byte_slice()),
        Op::Str => drop(r.read_string()),
        Op::LongStr => drop(r.read_long_string()),
        Op::StrOrTag => drop(r.read_string_or_tag()),
        Op::Marker => drop(r.read_marker("fuzz")),
        Op::Sentinel => drop(r.read_sentinel("fuzz")),
        Op::Seek(p) => r.set_bit_position(*p),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_into_any_reader(data in prop::collection::vec(any::<u8>(), 0..300), ops in prop::collection::vec(op(), 1..60)) {
        let mut r = BitReader::new(&data);
        for op in &ops {
            run(&mut r, op)?;
            prop_assert!(r.bit_position() <= data.len() * 8);
            prop_assert_eq!(r.bits_left(), data.len() * 8 - r.bit_position());
        }
    }

    /// Strings are the richest decoder: aim random bytes straight at it, after a valid header.
    #[test]
    fn random_huffman_payloads(huffman in any::<bool>(), len in any::<u8>(), payload in prop::collection::vec(any::<u8>(), 0..300)) {
        let mut w = v12_bitstream::BitWriter::new();
        w.write_flag(huffman);
        w.write_int(u32::from(len), 8);
        w.write_bytes(&payload);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        if let Ok(s) = r.read_string() {
            prop_assert_eq!(s.len(), usize::from(len));
        }
    }
}
