//! String-or-tag: a string sent in full, or the id of an entry in the connection's string
//! table (V12's NetStringTable: a tagged string crosses a connection once, then only
//! its id does). This crate only encodes the choice; the table lives in netobject.

use crate::core::{BitReader, BitWriter};
use crate::error::{BitStreamError, Result};

/// Bits of a string tag id on the wire: 10, a table of 1024 entries (as TNL).
pub const STRING_TAG_BITS: u32 = 10;

/// The id of a string in a connection's string table, `0..=StringTag::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringTag(pub u32);

impl StringTag {
    /// The largest id that fits [`STRING_TAG_BITS`] bits.
    pub const MAX: u32 = (1 << STRING_TAG_BITS) - 1;
}

/// A string sent in full, or a tag standing for one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StringOrTag {
    /// The text itself, as a [`BitWriter::write_string`] (at most 255 bytes).
    Text(String),
    /// A string-table id.
    Tag(StringTag),
}

impl BitWriter {
    /// Writes a flag (1 = tag), then [`STRING_TAG_BITS`] bits of tag id or a string.
    ///
    /// Errors (and nothing written): a tag above [`StringTag::MAX`] is
    /// [`BitStreamError::OutOfRange`], a string over 255 bytes is [`BitStreamError::TooLong`].
    pub fn write_string_or_tag(&mut self, value: &StringOrTag) -> Result<()> {
        match value {
            StringOrTag::Tag(StringTag(id)) => {
                if *id > StringTag::MAX {
                    return Err(BitStreamError::OutOfRange {
                        at: self.bit_position(),
                        value: u64::from(*id),
                        max: u64::from(StringTag::MAX),
                    });
                }
                self.write_flag(true);
                self.write_bits(u64::from(*id), STRING_TAG_BITS);
                Ok(())
            }
            StringOrTag::Text(text) => {
                let start = self.bit_position();
                self.write_flag(false);
                self.write_string(text).inspect_err(|_| self.set_bit_position(start))
            }
        }
    }
}

impl BitReader<'_> {
    /// Reads a value written by [`BitWriter::write_string_or_tag`].
    pub fn read_string_or_tag(&mut self) -> Result<StringOrTag> {
        if self.read_flag()? {
            Ok(StringOrTag::Tag(StringTag(self.read_bits(STRING_TAG_BITS)? as u32)))
        } else {
            Ok(StringOrTag::Text(self.read_string()?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_texts_and_errors() {
        let mut w = BitWriter::new();
        w.write_string_or_tag(&StringOrTag::Tag(StringTag(StringTag::MAX))).unwrap();
        assert_eq!(w.bit_position(), 11);
        w.write_string_or_tag(&StringOrTag::Text("Got Milk?".into())).unwrap();
        let at = w.bit_position();
        assert!(w.write_string_or_tag(&StringOrTag::Tag(StringTag(1024))).is_err());
        assert!(w.write_string_or_tag(&StringOrTag::Text("z".repeat(300))).is_err());
        assert_eq!(w.bit_position(), at, "failed writes leave nothing behind");
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read_string_or_tag().unwrap(), StringOrTag::Tag(StringTag(1023)));
        assert_eq!(r.read_string_or_tag().unwrap(), StringOrTag::Text("Got Milk?".into()));
    }
}
