//! The fixed Huffman code of string bytes (the V12 engine's `HuffmanProcessor`).
//!
//! One code over all 256 byte values, built once (in a `OnceLock`) from a built-in table
//! of byte frequencies for English chat text and player names. Both ends build the same
//! code from the same table, so nothing about the code is ever sent. Every byte has a
//! code, so any UTF-8 text can be encoded; bytes that are rare in English cost more bits.
//!
//! Bit order: the first bit of a code is written first (LSB-first stream), so a decoder
//! peeks [`PRIMARY_BITS`] bits and looks the symbol up in one table for common bytes,
//! falling back to canonical decoding for long codes.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

use crate::core::{BitReader, BitWriter};
use crate::error::{BitStreamError, Result};

/// Longest code allowed; the frequency table is flattened until the code fits.
pub(crate) const MAX_CODE_LEN: u32 = 24;
/// Lookahead of the one-step decoding table.
const PRIMARY_BITS: u32 = 11;

/// Relative frequency of each byte value in chat and names (any positive scale).
///
/// Letters follow English letter frequencies, capitals are rarer (but common in names),
/// then digits and chat punctuation; UTF-8 lead and continuation bytes are cheap enough
/// that accented names and CJK text stay close to raw size.
fn byte_weights() -> [u32; 256] {
    const LOWER: [u32; 26] = [
        600, 110, 200, 300, 900, 150, 160, 400, 520, 15, 80, 310, 190, 510, 580, 140, 8, 440, 480, 650, 220,
        80, 170, 15, 170, 10,
    ];
    let mut w = [1u32; 256];
    w[usize::from(b' ')] = 1700;
    for (i, &f) in LOWER.iter().enumerate() {
        w[usize::from(b'a') + i] = f;
        w[usize::from(b'A') + i] = f / 8 + 6;
    }
    for d in b'0'..=b'9' {
        w[usize::from(d)] = 25;
    }
    w[usize::from(b'0')] = 40;
    w[usize::from(b'1')] = 45;
    w[usize::from(b'2')] = 35;
    let punct: [(u8, u32); 32] = [
        (b'.', 90),
        (b',', 70),
        (b'!', 30),
        (b'?', 30),
        (b'\'', 30),
        (b'-', 20),
        (b'_', 15),
        (b':', 15),
        (b')', 12),
        (b'(', 10),
        (b'"', 10),
        (b'[', 8),
        (b']', 8),
        (b'/', 8),
        (b'*', 5),
        (b';', 5),
        (b'=', 4),
        (b'+', 3),
        (b'&', 3),
        (b'#', 3),
        (b'@', 3),
        (b'<', 3),
        (b'>', 3),
        (b'|', 3),
        (b'%', 2),
        (b'$', 2),
        (b'^', 2),
        (b'~', 2),
        (b'\n', 5),
        (b'{', 1),
        (b'}', 1),
        (b'\t', 1),
    ];
    for (b, f) in punct {
        w[usize::from(b)] = f;
    }
    for (b, slot) in w.iter_mut().enumerate().skip(0x80) {
        *slot = match b {
            0x80..=0xBF => 4, // continuation bytes
            0xC3 | 0xE2 => 6, // Latin-1 letters, typographic punctuation
            0xC2..=0xF4 => 3, // other lead bytes
            _ => 1,           // never in UTF-8
        };
    }
    w
}

/// Huffman code lengths for `weights`, flattening the weights until no code is longer
/// than [`MAX_CODE_LEN`]. Ties break on the symbol, so the code is the same everywhere.
fn code_lengths(weights: &[u32; 256]) -> [u8; 256] {
    let mut weights = *weights;
    loop {
        let mut parent = vec![usize::MAX; 511];
        let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
            weights.iter().enumerate().map(|(i, &w)| Reverse((u64::from(w.max(1)), i))).collect();
        let mut next = 256;
        while let (Some(Reverse((wa, a))), Some(Reverse((wb, b)))) = (heap.pop(), heap.pop()) {
            parent[a] = next;
            parent[b] = next;
            heap.push(Reverse((wa + wb, next)));
            next += 1;
        }
        let mut lens = [0u8; 256];
        for (sym, len) in lens.iter_mut().enumerate() {
            let mut node = sym;
            while parent[node] != usize::MAX {
                node = parent[node];
                *len += 1;
            }
        }
        if lens.iter().all(|&l| u32::from(l) <= MAX_CODE_LEN) {
            return lens;
        }
        for w in &mut weights {
            *w = w.div_ceil(2);
        }
    }
}

/// The canonical code, its encoder arrays and its decoding tables.
#[derive(Debug)]
pub(crate) struct HuffmanCode {
    /// Code of each byte with its first bit in bit 0.
    codes: [u32; 256],
    lens: [u8; 256],
    /// Number of codes of each length, for canonical decoding.
    counts: [u16; MAX_CODE_LEN as usize + 1],
    /// Bytes sorted by (code length, value): canonical order.
    sorted: [u8; 256],
    /// For each `PRIMARY_BITS` lookahead: `len << 8 | byte`, or 0 for a longer code.
    table: Box<[u16]>,
    min_len: u32,
}

impl HuffmanCode {
    /// The one code, built on first use.
    pub(crate) fn get() -> &'static Self {
        static CODE: OnceLock<HuffmanCode> = OnceLock::new();
        CODE.get_or_init(|| Self::from_lengths(&code_lengths(&byte_weights())))
    }

    fn from_lengths(lens: &[u8; 256]) -> Self {
        let mut counts = [0u16; MAX_CODE_LEN as usize + 1];
        for &l in lens {
            counts[usize::from(l)] += 1;
        }
        let mut order: Vec<u8> = (0..=255).collect();
        order.sort_by_key(|&b| (lens[usize::from(b)], b));
        let mut sorted = [0u8; 256];
        sorted.copy_from_slice(&order);

        // Canonical codes, first bit most significant (as in DEFLATE).
        let mut next_code = [0u32; MAX_CODE_LEN as usize + 2];
        let mut code = 0u32;
        for len in 1..=MAX_CODE_LEN as usize {
            code = (code + u32::from(counts[len - 1])) << 1;
            next_code[len] = code;
        }
        let mut codes = [0u32; 256];
        for &b in &sorted {
            let len = u32::from(lens[usize::from(b)]);
            let c = next_code[len as usize];
            next_code[len as usize] += 1;
            // Stored reversed: the first bit of the code goes out first in an LSB-first stream.
            codes[usize::from(b)] = c.reverse_bits() >> (32 - len);
        }

        let mut table = vec![0u16; 1 << PRIMARY_BITS].into_boxed_slice();
        for b in 0..256 {
            let len = u32::from(lens[b]);
            if len <= PRIMARY_BITS {
                for fill in 0..1u32 << (PRIMARY_BITS - len) {
                    table[(codes[b] | (fill << len)) as usize] = ((len << 8) | b as u32) as u16;
                }
            }
        }
        let min_len = lens.iter().map(|&l| u32::from(l)).min().unwrap_or(1);
        Self { codes, lens: *lens, counts, sorted, table, min_len }
    }

    /// Bits the Huffman code of `bytes` takes.
    #[inline]
    pub(crate) fn encoded_bits(&self, bytes: &[u8]) -> usize {
        bytes.iter().map(|&b| usize::from(self.lens[usize::from(b)])).sum()
    }

    /// Length in bits of the code of `byte`.
    #[cfg(test)]
    pub(crate) fn code_len(&self, byte: u8) -> u32 {
        u32::from(self.lens[usize::from(byte)])
    }

    /// The shortest code length: a lower bound on the bits a decoded byte costs.
    pub(crate) fn min_len(&self) -> u32 {
        self.min_len
    }

    /// Appends the codes of `bytes`, packing several codes into one word store.
    #[inline]
    pub(crate) fn encode(&self, w: &mut BitWriter, bytes: &[u8]) {
        let mut acc = 0u64;
        let mut n = 0u32;
        for &b in bytes {
            let len = u32::from(self.lens[usize::from(b)]);
            if n + len > 56 {
                w.write_bits(acc, n);
                acc = 0;
                n = 0;
            }
            acc |= u64::from(self.codes[usize::from(b)]) << n;
            n += len;
        }
        w.write_bits(acc, n);
    }

    /// Decodes `count` bytes into `out`.
    pub(crate) fn decode(&self, r: &mut BitReader<'_>, count: usize, out: &mut Vec<u8>) -> Result<()> {
        out.reserve(count);
        for _ in 0..count {
            let peek = r.peek_bits_padded(MAX_CODE_LEN);
            let entry = self.table[(peek & ((1 << PRIMARY_BITS) - 1)) as usize];
            let (byte, len) = if entry != 0 {
                (entry as u8, u32::from(entry >> 8))
            } else {
                self.decode_long(peek).ok_or(BitStreamError::BadHuffman { at: r.bit_position() })?
            };
            // Past the end the lookahead was zero padding: the code must fit in real bits.
            r.skip_bits(len as usize)?;
            out.push(byte);
        }
        Ok(())
    }

    /// Canonical decoding one bit at a time (the zlib `puff` loop), for codes longer
    /// than the table. `None` when no code matches (impossible for a complete code,
    /// but the check keeps a bad table from ever reading out of bounds).
    #[cold]
    fn decode_long(&self, peek: u64) -> Option<(u8, u32)> {
        let (mut code, mut first, mut index) = (0i64, 0i64, 0i64);
        for len in 1..=MAX_CODE_LEN {
            code |= ((peek >> (len - 1)) & 1) as i64;
            let count = i64::from(self.counts[len as usize]);
            if code - first < count {
                return self.sorted.get((index + code - first) as usize).map(|&b| (b, len));
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        None
    }
}

/// Bits the Huffman code of `text` takes (without the string's flag and length).
pub fn huffman_bits(text: &[u8]) -> usize {
    HuffmanCode::get().encoded_bits(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_complete_prefix_free_and_short() {
        let code = HuffmanCode::get();
        let max = code.lens.iter().copied().max().unwrap();
        assert!(u32::from(max) <= MAX_CODE_LEN);
        // Kraft sum exactly 1: every bit pattern decodes.
        let kraft: u64 = code.lens.iter().map(|&l| 1u64 << (MAX_CODE_LEN - u32::from(l))).sum();
        assert_eq!(kraft, 1 << MAX_CODE_LEN);
        // Frequent bytes get short codes.
        assert!(code.code_len(b' ') <= 3);
        assert!(code.code_len(b'e') < code.code_len(b'q'));
        assert!(code.code_len(b'q') < code.code_len(0));
    }

    #[test]
    fn every_byte_round_trips_through_both_decoders() {
        let code = HuffmanCode::get();
        let all: Vec<u8> = (0..=255).collect();
        let mut w = BitWriter::new();
        code.encode(&mut w, &all);
        assert_eq!(w.bit_position(), code.encoded_bits(&all));
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        let mut out = Vec::new();
        code.decode(&mut r, 256, &mut out).unwrap();
        assert_eq!(out, all);
        assert!(code.lens.iter().any(|&l| u32::from(l) > PRIMARY_BITS), "slow path is exercised");
    }

    #[test]
    fn flattening_bounds_code_length() {
        // Fibonacci weights make the deepest possible tree; it must be cut to MAX_CODE_LEN.
        let mut w = [1u32; 256];
        let (mut a, mut b) = (1u32, 1u32);
        for slot in w.iter_mut().take(40) {
            *slot = a;
            (a, b) = (b, a.saturating_add(b));
        }
        let lens = code_lengths(&w);
        assert!(lens.iter().all(|&l| u32::from(l) <= MAX_CODE_LEN));
        let kraft: u64 = lens.iter().map(|&l| 1u64 << (MAX_CODE_LEN - u32::from(l))).sum();
        assert_eq!(kraft, 1 << MAX_CODE_LEN);
    }
}
