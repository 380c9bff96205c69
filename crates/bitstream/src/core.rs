//! The bit core: an LSB-first bit writer and reader (V12's BitStream bit order).
//!
//! Our own core rather than `bitstream_io`'s writer because the network layers need to
//! rewind a writer ("the event that does not fit goes in the next packet") and to ask for
//! bits left against a packet budget; `docs/PERFORMANCE.md` compares both in one run.
//!
//! The writer keeps the 64-bit word being filled in a register-sized accumulator and
//! stores it (and the word after it) on every field, never loading the buffer back: a
//! field costs two shifts and two aligned stores however it straddles bytes, with no
//! store-to-load forwarding stall between consecutive fields. The reader loads one
//! unaligned 64-bit little-endian word per field.

use crate::error::{BitStreamError, Result};
use bytes::Bytes;

/// Zero bytes kept from the current word on: the word being filled and the next one.
const SLACK: usize = 16;

/// A growable bit writer with an optional budget in bits.
///
/// Writing past the budget is allowed (so a caller can measure a field) but
/// [`BitWriter::is_over_budget`] then reports it; the caller rewinds with
/// [`BitWriter::set_bit_position`].
#[derive(Clone, Debug)]
pub struct BitWriter {
    /// Always holds every bit written (the accumulator is stored on each write), then zeros.
    buf: Vec<u8>,
    pos: usize,
    budget: usize,
    /// The bits of the 64-bit word `pos / 64`, as also stored in `buf`.
    acc: u64,
}

impl Default for BitWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl BitWriter {
    /// An empty writer with no budget.
    pub fn new() -> Self {
        Self::with_budget_bits(usize::MAX)
    }

    /// An empty writer for a packet of at most `bytes` bytes.
    pub fn with_budget_bytes(bytes: usize) -> Self {
        let mut w = Self::with_budget_bits(bytes.saturating_mul(8));
        w.buf.reserve(bytes + SLACK);
        w
    }

    /// An empty writer whose budget is `bits` bits.
    pub fn with_budget_bits(bits: usize) -> Self {
        Self { buf: vec![0; SLACK], pos: 0, budget: bits, acc: 0 }
    }

    /// Bits written so far.
    #[inline]
    pub fn bit_position(&self) -> usize {
        self.pos
    }

    /// Bits still inside the budget (0 when over it).
    #[inline]
    pub fn bits_left(&self) -> usize {
        self.budget.saturating_sub(self.pos)
    }

    /// The budget in bits (`usize::MAX` when unlimited).
    pub fn budget_bits(&self) -> usize {
        self.budget
    }

    /// Changes the budget; existing bits are kept.
    pub fn set_budget_bits(&mut self, bits: usize) {
        self.budget = bits;
    }

    /// True once more bits were written than the budget allows.
    #[inline]
    pub fn is_over_budget(&self) -> bool {
        self.pos > self.budget
    }

    /// Rewinds to an earlier position, forgetting every bit written after it.
    /// A position past the end is clamped to the end.
    pub fn set_bit_position(&mut self, pos: usize) {
        let pos = pos.min(self.pos);
        let first_byte = pos / 8;
        let used = self.pos.div_ceil(8);
        if first_byte < used {
            // Keep the low `pos % 8` bits of the partial byte, zero the rest.
            let keep = (pos % 8) as u32;
            self.buf[first_byte] &= ((1u16 << keep) - 1) as u8;
            self.buf[first_byte + 1..used].fill(0);
        }
        self.pos = pos;
        // Reload the accumulator: the bytes after `pos` are now zero.
        let word = (pos >> 6) * 8;
        self.acc =
            self.buf.get(word..).and_then(<[u8]>::first_chunk::<8>).map_or(0, |w| u64::from_le_bytes(*w));
    }

    /// Writes the low `bits` bits of `value` (0..=64 bits; more is treated as 64).
    #[inline]
    pub fn write_bits(&mut self, value: u64, bits: u32) {
        let bits = bits.min(64);
        let value = value & u64::MAX.checked_shr(64 - bits).unwrap_or(0);
        let used = (self.pos & 63) as u32;
        let word = (self.pos >> 6) * 8;
        // One bounds check on the hot path; the slack makes the miss rare.
        let Some(words) = self.buf.get_mut(word..).and_then(<[u8]>::first_chunk_mut::<16>) else {
            self.grow(word + SLACK);
            return self.write_bits(value, bits);
        };
        let lo = self.acc | (value << used);
        // The bits that spill into the next word (zero when the field fits in this one,
        // and the next word is zero too, so storing it unconditionally is harmless).
        let hi = value.checked_shr(64 - used).unwrap_or(0);
        words[..8].copy_from_slice(&lo.to_le_bytes());
        words[8..].copy_from_slice(&hi.to_le_bytes());
        self.acc = if used + bits >= 64 { hi } else { lo };
        self.pos += bits as usize;
    }

    /// Grows the zeroed buffer to at least `min_len` bytes (doubling).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, min_len: usize) {
        let want = min_len.max(self.buf.len() * 2);
        self.buf.resize(want, 0);
    }

    /// Writes an unsigned integer in `bits` bits (0..=32).
    #[inline]
    pub fn write_int(&mut self, value: u32, bits: u32) {
        self.write_bits(u64::from(value), bits.min(32));
    }

    /// Writes one bit and returns it, so `if w.write_flag(mask & A != 0) { ... }` reads like V12.
    #[inline]
    pub fn write_flag(&mut self, flag: bool) -> bool {
        self.write_bits(u64::from(flag), 1);
        flag
    }

    /// Writes whole bytes (not aligned: they follow the current bit).
    pub fn write_bytes(&mut self, data: &[u8]) {
        let mut chunks = data.chunks_exact(8);
        for c in &mut chunks {
            self.write_bits(u64::from_le_bytes(c.try_into().expect("chunks of 8")), 64);
        }
        for &b in chunks.remainder() {
            self.write_bits(u64::from(b), 8);
        }
    }

    /// The bytes written so far (the last byte zero-padded).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.pos.div_ceil(8)]
    }

    /// Finishes the packet.
    pub fn into_bytes(mut self) -> Bytes {
        self.buf.truncate(self.pos.div_ceil(8));
        Bytes::from(self.buf)
    }

    /// Clears the writer for reuse, keeping its allocation and budget.
    pub fn clear(&mut self) {
        self.set_bit_position(0);
    }
}

/// A bit reader over a byte slice. Every read is bounds-checked and returns an error past the end.
#[derive(Clone, Debug)]
pub struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    len: usize,
}

impl<'a> BitReader<'a> {
    /// A reader over all bits of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0, len: data.len().saturating_mul(8) }
    }

    /// Bits read so far.
    #[inline]
    pub fn bit_position(&self) -> usize {
        self.pos
    }

    /// Bits not yet read (including the padding of the last byte).
    #[inline]
    pub fn bits_left(&self) -> usize {
        self.len - self.pos
    }

    /// Moves to an absolute bit position (at most the end).
    pub fn set_bit_position(&mut self, pos: usize) {
        self.pos = pos.min(self.len);
    }

    /// The error for wanting `wanted` bits here.
    fn end(&self, wanted: usize) -> BitStreamError {
        BitStreamError::EndOfStream { at: self.pos, wanted }
    }

    /// Reads `bits` bits (0..=64; more is treated as 64) as the low bits of a u64.
    #[inline]
    pub fn read_bits(&mut self, bits: u32) -> Result<u64> {
        if bits > 56 {
            return self.read_wide(bits);
        }
        if bits as usize > self.bits_left() {
            return Err(self.end(bits as usize));
        }
        let word = self.load_word(self.pos >> 3);
        let shift = (self.pos & 7) as u32;
        self.pos += bits as usize;
        Ok((word >> shift) & ((1u64 << bits) - 1))
    }

    /// A field of 57..=64 bits, as two reads.
    #[cold]
    fn read_wide(&mut self, bits: u32) -> Result<u64> {
        let bits = bits.min(64);
        if bits as usize > self.bits_left() {
            return Err(self.end(bits as usize));
        }
        let lo = self.read_bits(32)?;
        let hi = self.read_bits(bits - 32)?;
        Ok(lo | (hi << 32))
    }

    /// The 8 bytes from `byte` as a little-endian word, zeros past the end of the data.
    #[inline]
    fn load_word(&self, byte: usize) -> u64 {
        match self.data.get(byte..).and_then(<[u8]>::first_chunk::<8>) {
            Some(w) => u64::from_le_bytes(*w),
            None => self.load_tail(byte),
        }
    }

    #[cold]
    fn load_tail(&self, byte: usize) -> u64 {
        let mut tmp = [0u8; 8];
        let tail = self.data.get(byte..).unwrap_or(&[]);
        tmp[..tail.len()].copy_from_slice(tail);
        u64::from_le_bytes(tmp)
    }

    /// Reads an unsigned integer of `bits` bits (0..=32).
    #[inline]
    pub fn read_int(&mut self, bits: u32) -> Result<u32> {
        Ok(self.read_bits(bits.min(32))? as u32)
    }

    /// Reads one bit.
    #[inline]
    pub fn read_flag(&mut self) -> Result<bool> {
        Ok(self.read_bits(1)? == 1)
    }

    /// Reads `out.len()` bytes.
    pub fn read_bytes(&mut self, out: &mut [u8]) -> Result<()> {
        if out.len().saturating_mul(8) > self.bits_left() {
            return Err(self.end(out.len().saturating_mul(8)));
        }
        // Seven bytes per word load: the whole field is known to be inside the data.
        let mut chunks = out.chunks_exact_mut(7);
        for c in &mut chunks {
            let v = self.read_bits(56)?.to_le_bytes();
            c.copy_from_slice(&v[..7]);
        }
        for b in chunks.into_remainder() {
            *b = self.read_bits(8)? as u8;
        }
        Ok(())
    }

    /// Up to 57 bits from the current position without moving, zeros past the end of the data.
    /// For decoders (Huffman) that must look ahead before they know a field's length.
    #[inline]
    pub(crate) fn peek_bits_padded(&self, bits: u32) -> u64 {
        debug_assert!(bits <= 57);
        let word = self.load_word(self.pos >> 3);
        (word >> (self.pos & 7)) & ((1u64 << bits.min(57)) - 1)
    }

    /// Moves forward `bits` bits, or fails without moving if fewer are left.
    #[inline]
    pub(crate) fn skip_bits(&mut self, bits: usize) -> Result<()> {
        if bits > self.bits_left() {
            return Err(self.end(bits));
        }
        self.pos += bits;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_across_byte_edges() {
        let mut w = BitWriter::new();
        w.write_flag(true);
        w.write_int(0x1ABC, 13);
        w.write_bits(u64::MAX, 64);
        w.write_bits(0x5A_5A5A_5A5A_5A5A, 58);
        w.write_int(3, 2);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert!(r.read_flag().unwrap());
        assert_eq!(r.read_int(13).unwrap(), 0x1ABC);
        assert_eq!(r.read_bits(64).unwrap(), u64::MAX);
        assert_eq!(r.read_bits(58).unwrap(), 0x5A_5A5A_5A5A_5A5A);
        assert_eq!(r.read_int(2).unwrap(), 3);
        assert!(r.bits_left() < 8);
        assert!(matches!(r.read_int(9), Err(BitStreamError::EndOfStream { .. })));
    }

    #[test]
    fn rewind_forgets_later_bits() {
        let mut w = BitWriter::with_budget_bits(20);
        w.write_int(0b101, 3);
        let mark = w.bit_position();
        w.write_int(u32::MAX, 32);
        assert!(w.is_over_budget());
        w.set_bit_position(mark);
        assert!(!w.is_over_budget());
        w.write_int(0, 5);
        assert_eq!(w.as_bytes(), &[0b101]);
    }

    #[test]
    fn reads_past_end_are_errors() {
        let mut r = BitReader::new(&[0xFF]);
        assert_eq!(r.read_int(8).unwrap(), 0xFF);
        assert_eq!(r.read_flag(), Err(BitStreamError::EndOfStream { at: 8, wanted: 1 }));
        let mut buf = [0u8; 2];
        assert!(BitReader::new(&[1]).read_bytes(&mut buf).is_err());
    }
}
