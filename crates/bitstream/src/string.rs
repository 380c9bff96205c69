//! Strings: a flag (Huffman or raw), a byte length, then Huffman codes or raw bytes,
//! whichever is smaller (the V12 engine's `writeString`).
//!
//! | field | bits |
//! | --- | --- |
//! | Huffman flag | 1 |
//! | length in bytes | 8 ([`BitWriter::write_string`], at most 255) or 16 ([`BitWriter::write_long_string`], at most 65535) |
//! | payload | Huffman codes, or `8 * len` raw bits when Huffman is not smaller |

use crate::core::{BitReader, BitWriter};
use crate::error::{BitStreamError, Result};
use crate::huffman::HuffmanCode;

/// Bits of the length of a [`BitWriter::write_string`].
pub const STRING_LEN_BITS: u32 = 8;
/// Longest string [`BitWriter::write_string`] accepts, in UTF-8 bytes (V12's 256-byte buffers).
pub const MAX_STRING_LEN: usize = (1 << STRING_LEN_BITS) - 1;
/// Bits of the length of a [`BitWriter::write_long_string`].
pub const LONG_STRING_LEN_BITS: u32 = 16;
/// Longest string [`BitWriter::write_long_string`] accepts, in UTF-8 bytes.
pub const MAX_LONG_STRING_LEN: usize = (1 << LONG_STRING_LEN_BITS) - 1;

/// Bits `text` takes as a [`BitWriter::write_string`] (flag, length and payload), for budgets.
pub fn string_bits(text: &str) -> usize {
    1 + STRING_LEN_BITS as usize + payload_bits(text.as_bytes()).0
}

/// Payload bits and whether Huffman is used (only when strictly smaller than raw).
fn payload_bits(bytes: &[u8]) -> (usize, bool) {
    let huff = HuffmanCode::get().encoded_bits(bytes);
    let raw = bytes.len() * 8;
    if huff < raw { (huff, true) } else { (raw, false) }
}

impl BitWriter {
    /// Writes a string of at most [`MAX_STRING_LEN`] UTF-8 bytes (see the module table).
    /// A longer string is [`BitStreamError::TooLong`] and writes nothing.
    pub fn write_string(&mut self, text: &str) -> Result<()> {
        self.write_text(text.as_bytes(), STRING_LEN_BITS)
    }

    /// Writes a string of at most [`MAX_LONG_STRING_LEN`] UTF-8 bytes with a 16-bit length.
    pub fn write_long_string(&mut self, text: &str) -> Result<()> {
        self.write_text(text.as_bytes(), LONG_STRING_LEN_BITS)
    }

    fn write_text(&mut self, bytes: &[u8], len_bits: u32) -> Result<()> {
        let max = (1usize << len_bits) - 1;
        if bytes.len() > max {
            return Err(BitStreamError::TooLong { at: self.bit_position(), len: bytes.len(), max });
        }
        let (_, huffman) = payload_bits(bytes);
        self.write_flag(huffman);
        self.write_bits(bytes.len() as u64, len_bits);
        if huffman {
            HuffmanCode::get().encode(self, bytes);
        } else {
            self.write_bytes(bytes);
        }
        Ok(())
    }
}

impl BitReader<'_> {
    /// Reads a string written by [`BitWriter::write_string`].
    ///
    /// Errors: [`BitStreamError::EndOfStream`] when the data ends inside it (checked
    /// before allocating for the promised length), [`BitStreamError::InvalidUtf8`]
    /// (at the first payload bit) when the bytes are not UTF-8.
    pub fn read_string(&mut self) -> Result<String> {
        self.read_text(STRING_LEN_BITS)
    }

    /// Reads a string written by [`BitWriter::write_long_string`].
    pub fn read_long_string(&mut self) -> Result<String> {
        self.read_text(LONG_STRING_LEN_BITS)
    }

    fn read_text(&mut self, len_bits: u32) -> Result<String> {
        let huffman = self.read_flag()?;
        let len = self.read_bits(len_bits)? as usize;
        let at = self.bit_position();
        let code = HuffmanCode::get();
        let min_bits = len * if huffman { code.min_len() as usize } else { 8 };
        if min_bits > self.bits_left() {
            return Err(BitStreamError::EndOfStream { at, wanted: min_bits });
        }
        let mut bytes = Vec::with_capacity(len);
        if huffman {
            code.decode(self, len, &mut bytes)?;
        } else {
            bytes.resize(len, 0);
            self.read_bytes(&mut bytes)?;
        }
        String::from_utf8(bytes).map_err(|_| BitStreamError::InvalidUtf8 { at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huffman_for_english_raw_for_rare_bytes() {
        let mut w = BitWriter::new();
        w.write_string("hello there, how are you").unwrap();
        let english = w.bit_position();
        assert!(english < 9 + 24 * 8, "huffman used: {english}");
        assert_eq!(english, string_bits("hello there, how are you"));
        w.write_string("\u{1}\u{2}\u{3}").unwrap();
        assert_eq!(w.bit_position() - english, 9 + 24, "raw when Huffman is not smaller");
        w.write_string("").unwrap();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read_string().unwrap(), "hello there, how are you");
        assert_eq!(r.read_string().unwrap(), "\u{1}\u{2}\u{3}");
        assert_eq!(r.read_string().unwrap(), "");
    }

    #[test]
    fn length_limits() {
        let mut w = BitWriter::new();
        w.write_string(&"x".repeat(MAX_STRING_LEN)).unwrap();
        assert!(matches!(w.write_string(&"x".repeat(256)), Err(BitStreamError::TooLong { len: 256, .. })));
        w.write_long_string(&"y".repeat(1000)).unwrap();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read_string().unwrap().len(), MAX_STRING_LEN);
        assert_eq!(r.read_long_string().unwrap(), "y".repeat(1000));
    }

    #[test]
    fn bad_utf8_and_truncation_are_errors() {
        let mut w = BitWriter::new();
        w.write_flag(false);
        w.write_int(2, 8);
        w.write_bytes(&[0xC3, 0x28]);
        let bytes = w.into_bytes();
        assert_eq!(BitReader::new(&bytes).read_string(), Err(BitStreamError::InvalidUtf8 { at: 9 }));

        let mut w = BitWriter::new();
        w.write_string("a long enough sentence").unwrap();
        let bytes = w.into_bytes();
        let cut = &bytes[..bytes.len() - 2];
        assert!(matches!(BitReader::new(cut).read_string(), Err(BitStreamError::EndOfStream { .. })));
    }
}
