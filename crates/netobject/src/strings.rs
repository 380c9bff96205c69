//! NetStringTable: tagged strings cross a connection once, then travel as small ids.
//!
//! The interface-wide [`NetStringTable`] hands out reference-counted [`StringHandle`]s.
//! Each connection keeps a sender map (handle → 10-bit slot) and a receiver map
//! (slot → text). A slot is written with its text until a packet carrying that text is
//! reported delivered; only then is the id sent alone. Packets are processed strictly in
//! order by the notify protocol, so reassigning a slot is safe.

use crate::error::{NetError, Result};
use crate::wire;
use hashbrown::HashMap;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};

/// Slots per connection (TNL uses a 10-bit table too).
pub const STRING_SLOTS: usize = 1024;
const SLOT_BITS: u32 = 10;
/// Longest tagged string accepted from a peer.
pub const MAX_TAGGED_STRING: usize = 1024;

/// A tagged string: an interface-wide id plus its text, so it can never dangle.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StringHandle {
    id: u32,
    text: Arc<str>,
}

impl StringHandle {
    /// The interface-wide id (never reused).
    pub fn id(&self) -> u32 {
        self.id
    }
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[derive(Debug)]
struct Entry {
    handle: StringHandle,
    refs: u32,
}

/// The interface-wide table of tagged strings with reference counts (`addTaggedString`).
#[derive(Debug, Default)]
pub struct NetStringTable {
    by_text: HashMap<Arc<str>, u32>,
    entries: HashMap<u32, Entry>,
    next_id: u32,
}

impl NetStringTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a reference to `text`, creating its entry if needed.
    pub fn add_tagged_string(&mut self, text: &str) -> StringHandle {
        if let Some(id) = self.by_text.get(text)
            && let Some(e) = self.entries.get_mut(id)
        {
            e.refs += 1;
            return e.handle.clone();
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let text: Arc<str> = Arc::from(text);
        let handle = StringHandle { id, text: text.clone() };
        self.by_text.insert(text, id);
        self.entries.insert(id, Entry { handle: handle.clone(), refs: 1 });
        handle
    }

    /// Drops one reference; the entry is freed at zero. Returns the references left.
    pub fn remove_tagged_string(&mut self, handle: &StringHandle) -> u32 {
        let Some(e) = self.entries.get_mut(&handle.id) else { return 0 };
        e.refs -= 1;
        let left = e.refs;
        if left == 0 {
            self.entries.remove(&handle.id);
            self.by_text.remove(&handle.text);
        }
        left
    }

    /// The handle of `text` if it is in the table.
    pub fn lookup(&self, text: &str) -> Option<StringHandle> {
        self.by_text.get(text).and_then(|id| self.entries.get(id)).map(|e| e.handle.clone())
    }

    /// References held on the entry with this id (0 when absent).
    pub fn ref_count(&self, handle: &StringHandle) -> u32 {
        self.entries.get(&handle.id).map_or(0, |e| e.refs)
    }

    /// Number of live entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[derive(Debug, Clone)]
struct SendSlot {
    handle: StringHandle,
    confirmed: bool,
    last_used: u64,
}

/// A string slot written into a packet, kept in that packet's notify record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentString {
    slot: u16,
    id: u32,
}

/// Per-connection sending side of the string table.
#[derive(Debug)]
pub struct StringSender {
    slots: Vec<Option<SendSlot>>,
    by_id: HashMap<u32, u16>,
    tick: u64,
    /// Texts written (not ids alone), for statistics.
    pub texts_sent: u64,
}

impl Default for StringSender {
    fn default() -> Self {
        Self { slots: Vec::new(), by_id: HashMap::new(), tick: 0, texts_sent: 0 }
    }
}

impl StringSender {
    /// Writes a tag: the id alone once confirmed, else the id and the text.
    /// The slot written is pushed to `record` so delivery can confirm it.
    pub fn write(&mut self, w: &mut BitWriter, handle: &StringHandle, record: &mut Vec<SentString>) {
        self.tick += 1;
        let slot = match self.by_id.get(&handle.id) {
            Some(&s) => s,
            None => self.assign(handle),
        };
        let entry = self.slots[slot as usize].as_mut().expect("assigned slot is filled");
        entry.last_used = self.tick;
        w.write_flag(entry.confirmed);
        w.write_int(u32::from(slot), SLOT_BITS);
        if !entry.confirmed {
            wire::write_str(w, &handle.text);
            self.texts_sent += 1;
            record.push(SentString { slot, id: handle.id });
        }
    }

    /// Picks a free slot, or evicts the least recently used one.
    fn assign(&mut self, handle: &StringHandle) -> u16 {
        // The table grows as strings are used (most connections use a few of its slots).
        let slot = match self.slots.iter().position(Option::is_none) {
            Some(i) => i,
            None if self.slots.len() < STRING_SLOTS => {
                self.slots.push(None);
                self.slots.len() - 1
            }
            None => {
                let (i, _) = self
                    .slots
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, s)| s.as_ref().map_or(0, |s| s.last_used))
                    .expect("slots not empty");
                if let Some(old) = self.slots[i].take() {
                    self.by_id.remove(&old.handle.id);
                }
                i
            }
        };
        self.slots[slot] = Some(SendSlot { handle: handle.clone(), confirmed: false, last_used: self.tick });
        self.by_id.insert(handle.id, slot as u16);
        slot as u16
    }

    /// The packet carrying these texts was delivered: their ids may now travel alone.
    pub fn delivered(&mut self, sent: &[SentString]) {
        for s in sent {
            if let Some(Some(slot)) = self.slots.get_mut(s.slot as usize)
                && slot.handle.id == s.id
            {
                slot.confirmed = true;
            }
        }
    }

    /// True once `handle`'s id is known to have reached the peer.
    pub fn is_confirmed(&self, handle: &StringHandle) -> bool {
        self.by_id.get(&handle.id).and_then(|&s| self.slots[s as usize].as_ref()).is_some_and(|s| s.confirmed)
    }
}

/// Per-connection receiving side: slot → text.
#[derive(Debug, Default)]
pub struct StringReceiver {
    slots: Vec<Option<Arc<str>>>,
}

impl StringReceiver {
    /// The strings received so far, as (slot, text), for a demo's start block.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u32, &Arc<str>)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| s.as_ref().map(|t| (i as u32, t)))
    }

    /// The slot `idx`, growing the table up to [`STRING_SLOTS`] (`None` past it).
    fn slot_mut(&mut self, idx: usize) -> Option<&mut Option<Arc<str>>> {
        if idx >= STRING_SLOTS {
            return None;
        }
        if idx >= self.slots.len() {
            self.slots.resize(idx + 1, None);
        }
        self.slots.get_mut(idx)
    }

    /// Restores a received string (demo playback).
    pub(crate) fn set(&mut self, slot: u32, text: Arc<str>) -> bool {
        match self.slot_mut(slot as usize) {
            Some(s) => {
                *s = Some(text);
                true
            }
            None => false,
        }
    }

    /// Reads a tag written by [`StringSender::write`] and returns its text.
    pub fn read(&mut self, r: &mut BitReader<'_>) -> Result<Arc<str>> {
        let known = r.read_flag()?;
        let slot = r.read_int(SLOT_BITS)?;
        let idx = slot as usize;
        if known {
            return self.slots.get(idx).and_then(Clone::clone).ok_or(NetError::UnknownStringTag(slot));
        }
        let text: Arc<str> = Arc::from(wire::read_str(r, MAX_TAGGED_STRING)?);
        if let Some(s) = self.slot_mut(idx) {
            *s = Some(text.clone());
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_counts_free_at_zero() {
        let mut t = NetStringTable::new();
        let a = t.add_tagged_string("Got Milk?");
        let b = t.add_tagged_string("Got Milk?");
        assert_eq!(a, b);
        assert_eq!(t.ref_count(&a), 2);
        assert_eq!(t.remove_tagged_string(&a), 1);
        assert_eq!(t.lookup("Got Milk?"), Some(a.clone()));
        assert_eq!(t.remove_tagged_string(&a), 0);
        assert!(t.lookup("Got Milk?").is_none());
        let c = t.add_tagged_string("Got Milk?");
        assert_ne!(c.id(), a.id(), "ids are never reused");
    }

    #[test]
    fn text_until_confirmed_then_id_alone() {
        let mut t = NetStringTable::new();
        let h = t.add_tagged_string("SuperDood");
        let mut tx = StringSender::default();
        let mut rx = StringReceiver::default();
        let mut rec = Vec::new();
        let mut w = BitWriter::new();
        tx.write(&mut w, &h, &mut rec);
        let first = w.bit_position();
        tx.write(&mut w, &h, &mut rec); // not yet confirmed: text again
        assert_eq!(rec.len(), 2);
        tx.delivered(&rec);
        let before = w.bit_position();
        tx.write(&mut w, &h, &mut rec);
        assert_eq!(w.bit_position() - before, 11, "id alone once delivered");
        assert!(first > 11);
        let b = w.into_bytes();
        let mut r = BitReader::new(&b);
        for _ in 0..3 {
            assert_eq!(&*rx.read(&mut r).unwrap(), "SuperDood");
        }
    }

    #[test]
    fn unknown_id_is_an_error() {
        let mut w = BitWriter::new();
        w.write_flag(true);
        w.write_int(7, SLOT_BITS);
        let b = w.into_bytes();
        let mut rx = StringReceiver::default();
        assert_eq!(rx.read(&mut BitReader::new(&b)), Err(NetError::UnknownStringTag(7)));
    }

    #[test]
    fn eviction_resends_text() {
        let mut t = NetStringTable::new();
        let mut tx = StringSender::default();
        let mut rx = StringReceiver::default();
        let mut w = BitWriter::new();
        let mut rec = Vec::new();
        let handles: Vec<_> = (0..STRING_SLOTS + 5).map(|i| t.add_tagged_string(&format!("s{i}"))).collect();
        for h in &handles {
            tx.write(&mut w, h, &mut rec);
        }
        tx.delivered(&rec);
        for h in &handles {
            tx.write(&mut w, h, &mut rec);
        }
        let b = w.into_bytes();
        let mut r = BitReader::new(&b);
        for h in handles.iter().chain(handles.iter()) {
            assert_eq!(&*rx.read(&mut r).unwrap(), h.text());
        }
    }
}
