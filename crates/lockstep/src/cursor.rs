//! A little-endian byte reader for the saved states games write (`LockstepGame::save`).

use crate::error::{LockstepError, Result};

/// A little-endian byte reader for saved states.
#[derive(Debug)]
pub struct Cursor<'a>(pub &'a [u8]);

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let (head, rest) =
            self.0.split_first_chunk::<N>().ok_or(LockstepError::Invalid("state too short"))?;
        self.0 = rest;
        Ok(*head)
    }
    /// One byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }
    /// A u32.
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    /// An i32.
    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.take()?))
    }
    /// A u64.
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take()?))
    }
}
