//! Demo recording (NETWORK.md "Demo recording"): what a client connection receives, saved
//! so it can be played back later through the same reading code with no server.
//!
//! A recording is a start block (protocol version, the event and ghost class digests, the
//! next guaranteed-ordered event number, the tagged strings received so far, the ordered
//! events received early and still held for their predecessors (V12: "all as yet
//! unprocessed events are written"), and every ghost the client holds with its full
//! state), then each accepted data packet with its
//! receive time, then an end mark and a CRC-32 of everything before it. Playback checks
//! the whole structure and the checksum before it applies anything, so a truncated or
//! corrupt file is a [`DemoError`], never a panic or a half-played demo.
//!
//! File layout (little-endian): `"V12DEMO\0" version:u32 protocol:u32 event_digest:u64
//! ghost_digest:u64 ordered_next:u32 strings:u16 {slot:u16 len:u16 utf8}*
//! held:u16 {seq:u32 bits:u32 len:u16 event}* ghosts:u32
//! {ghost:u32 class:u16 len:u32 state}* {1:u8 time:u64 payload_bit:u16 len:u16 datagram}*
//! 0:u8 crc32:u32`.

use crate::error::NetError;
use crate::event::{ConnectionId, NetEvent};
use crate::event_manager::EventManager;
use crate::ghost::{GhostClassRegistry, GhostClientWorld, GhostReceiver};
use crate::rate::RateConfig;
use crate::registry::NetClassRegistry;
use crate::strings::StringReceiver;
use std::fmt;
use std::sync::Arc;
use v12_bitstream::BitReader;

/// First bytes of every demo file.
pub const DEMO_MAGIC: &[u8; 8] = b"V12DEMO\0";
/// Format version written by this build.
pub const DEMO_VERSION: u32 = 2;

/// Why a demo cannot be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DemoError {
    /// Not a demo file.
    BadMagic,
    /// A demo of another format version.
    UnsupportedVersion(u32),
    /// The file ends inside `what`, at byte `offset`.
    Truncated { what: &'static str, offset: usize },
    /// The checksum does not match: the file was damaged.
    Corrupt,
    /// A field holds an impossible value.
    Malformed { what: &'static str, offset: usize },
    /// Recorded with other network classes than this build has.
    ClassMismatch,
    /// The start block's ghost state could not be restored.
    StartState(String),
    /// Packet `index` could not be read (the recording holds what the client received; a
    /// packet that broke the live connection breaks playback at the same place).
    Packet { index: usize, error: NetError },
}

impl fmt::Display for DemoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadMagic => write!(f, "not a V12 demo file"),
            Self::UnsupportedVersion(v) => write!(f, "demo format version {v} is not supported"),
            Self::Truncated { what, offset } => write!(f, "demo truncated in {what} at byte {offset}"),
            Self::Corrupt => write!(f, "demo checksum mismatch: the file is corrupt"),
            Self::Malformed { what, offset } => write!(f, "demo has a bad {what} at byte {offset}"),
            Self::ClassMismatch => write!(f, "demo was recorded with different network classes"),
            Self::StartState(why) => write!(f, "demo start state: {why}"),
            Self::Packet { index, error } => write!(f, "demo packet {index}: {error}"),
        }
    }
}

impl std::error::Error for DemoError {}

/// Collects a recording; made by `NetInterface::start_recording`.
#[derive(Debug, Default)]
pub struct DemoRecorder {
    buf: Vec<u8>,
    packets: usize,
}

impl DemoRecorder {
    /// Starts a recording with the client connection's current state.
    pub(crate) fn start(
        protocol_version: u32,
        registry: &NetClassRegistry,
        classes: &GhostClassRegistry,
        events: &EventManager,
        strings: &StringReceiver,
        ghosts: Option<&GhostReceiver>,
        world: &mut dyn GhostClientWorld,
    ) -> Self {
        let mut b = Vec::with_capacity(4096);
        b.extend_from_slice(DEMO_MAGIC);
        b.extend_from_slice(&DEMO_VERSION.to_le_bytes());
        b.extend_from_slice(&protocol_version.to_le_bytes());
        b.extend_from_slice(&registry.digest().to_le_bytes());
        b.extend_from_slice(&classes.digest().to_le_bytes());
        b.extend_from_slice(&events.next_ordered_recv().to_le_bytes());
        let texts: Vec<_> = strings.entries().collect();
        b.extend_from_slice(&(texts.len() as u16).to_le_bytes());
        for (slot, text) in texts {
            b.extend_from_slice(&(slot as u16).to_le_bytes());
            b.extend_from_slice(&(text.len() as u16).to_le_bytes());
            b.extend_from_slice(text.as_bytes());
        }
        // At most the ordered window's worth, each a few hundred bytes at most.
        let held = events.held_events();
        let held: Vec<_> = held.iter().filter(|(_, e, _)| e.len() <= usize::from(u16::MAX)).collect();
        b.extend_from_slice(&(held.len() as u16).to_le_bytes());
        for (seq, event, bits) in held {
            b.extend_from_slice(&seq.to_le_bytes());
            b.extend_from_slice(&(*bits as u32).to_le_bytes());
            b.extend_from_slice(&(event.len() as u16).to_le_bytes());
            b.extend_from_slice(event);
        }
        let mut objects: Vec<(u32, crate::ghost::ObjectId)> =
            ghosts.map(|g| g.iter().collect()).unwrap_or_default();
        objects.sort_unstable();
        let mut entries = Vec::new();
        for (ghost, object) in objects {
            let Some(obj) = world.ghost_mut(object) else { continue };
            let Some(class) = classes.id_of(obj) else { continue };
            entries.push((ghost, class, crate::ghost::pack_state(obj)));
        }
        b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
        for (ghost, class, state) in entries {
            b.extend_from_slice(&ghost.to_le_bytes());
            b.extend_from_slice(&(class as u16).to_le_bytes());
            b.extend_from_slice(&(state.len() as u32).to_le_bytes());
            b.extend_from_slice(&state);
        }
        Self { buf: b, packets: 0 }
    }

    /// An accepted data packet: the whole datagram and where its payload starts.
    pub(crate) fn packet(&mut self, now: u64, data: &[u8], payload_bit: usize) {
        let Ok(len) = u16::try_from(data.len()) else { return };
        self.buf.push(1);
        self.buf.extend_from_slice(&now.to_le_bytes());
        self.buf.extend_from_slice(&(payload_bit as u16).to_le_bytes());
        self.buf.extend_from_slice(&len.to_le_bytes());
        self.buf.extend_from_slice(data);
        self.packets += 1;
    }

    /// Packets recorded so far.
    pub fn packets(&self) -> usize {
        self.packets
    }

    /// Ends the recording: the file's bytes (write them with `std::fs::write`).
    pub fn finish(mut self) -> Vec<u8> {
        self.buf.push(0);
        let crc = crc32fast::hash(&self.buf);
        self.buf.extend_from_slice(&crc.to_le_bytes());
        self.buf
    }
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DemoError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else { return Err(DemoError::Truncated { what, offset: self.data.len() }) };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, DemoError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, DemoError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, DemoError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, DemoError> {
        Ok(u64::from(self.u32(what)?) | (u64::from(self.u32(what)?) << 32))
    }
}

struct Packet {
    time: u64,
    payload_bit: usize,
    start: usize,
    len: usize,
}

/// Plays a recording back into a client world.
pub struct DemoPlayer {
    data: Vec<u8>,
    registry: Arc<NetClassRegistry>,
    events: EventManager,
    strings: StringReceiver,
    ghosts: GhostReceiver,
    packets: Vec<Packet>,
    next: usize,
}

impl fmt::Debug for DemoPlayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DemoPlayer").field("packets", &self.packets.len()).field("next", &self.next).finish()
    }
}

impl DemoPlayer {
    /// Checks a whole recording (structure, checksum, classes) and restores its start state
    /// into `world`. Nothing is applied unless the file is intact.
    pub fn open(
        data: Vec<u8>,
        registry: Arc<NetClassRegistry>,
        classes: Arc<GhostClassRegistry>,
        world: &mut dyn GhostClientWorld,
    ) -> Result<Self, DemoError> {
        let mut c = Cursor { data: &data, pos: 0 };
        if c.take(DEMO_MAGIC.len(), "magic")? != DEMO_MAGIC {
            return Err(DemoError::BadMagic);
        }
        let version = c.u32("version")?;
        if version != DEMO_VERSION {
            return Err(DemoError::UnsupportedVersion(version));
        }
        let _protocol = c.u32("start block")?;
        let event_digest = c.u64("start block")?;
        let ghost_digest = c.u64("start block")?;
        let ordered_next = c.u32("start block")?;
        let mut strings = Vec::new();
        for _ in 0..c.u16("string table")? {
            let slot = c.u16("string table")?;
            let len = c.u16("string table")? as usize;
            let at = c.pos;
            let text = std::str::from_utf8(c.take(len, "string table")?)
                .map_err(|_| DemoError::Malformed { what: "tagged string", offset: at })?;
            strings.push((u32::from(slot), Arc::<str>::from(text)));
        }
        let mut held = Vec::new();
        for _ in 0..c.u16("held events")? {
            let seq = c.u32("held events")?;
            let bits = c.u32("held events")? as usize;
            let len = c.u16("held events")? as usize;
            let at = c.pos;
            c.take(len, "held events")?;
            if bits > len * 8 {
                return Err(DemoError::Malformed { what: "held event length", offset: at });
            }
            held.push((seq, at, len, bits));
        }
        let mut ghosts = Vec::new();
        for _ in 0..c.u32("ghost state")? {
            let ghost = c.u32("ghost state")?;
            let class = c.u16("ghost state")?;
            let len = c.u32("ghost state")? as usize;
            let state = c.take(len, "ghost state")?;
            ghosts.push((ghost, u32::from(class), c.pos - state.len(), state.len()));
        }
        let mut packets = Vec::new();
        loop {
            match c.u8("packet list")? {
                0 => break,
                1 => {
                    let time = c.u64("packet header")?;
                    let payload_bit = c.u16("packet header")? as usize;
                    let len = c.u16("packet header")? as usize;
                    let start = c.pos;
                    c.take(len, "packet")?;
                    if payload_bit > len * 8 {
                        return Err(DemoError::Malformed { what: "payload offset", offset: start });
                    }
                    packets.push(Packet { time, payload_bit, start, len });
                }
                _ => return Err(DemoError::Malformed { what: "record tag", offset: c.pos - 1 }),
            }
        }
        let body_end = c.pos;
        let crc = c.u32("checksum")?;
        if c.pos != data.len() {
            return Err(DemoError::Malformed { what: "trailing data", offset: c.pos });
        }
        if crc32fast::hash(&data[..body_end]) != crc {
            return Err(DemoError::Corrupt);
        }
        if event_digest != registry.digest() || ghost_digest != classes.digest() {
            return Err(DemoError::ClassMismatch);
        }
        let mut events = EventManager::new(ConnectionId(0), false);
        events.set_next_ordered_recv(ordered_next);
        let mut rx_strings = StringReceiver::default();
        for (slot, text) in strings {
            if !rx_strings.set(slot, text) {
                return Err(DemoError::StartState(format!("string slot {slot} out of range")));
            }
        }
        for (seq, at, len, bits) in held {
            events
                .restore_held(seq, &data[at..at + len], bits, &registry, &mut rx_strings)
                .map_err(|e| DemoError::StartState(format!("held event {seq}: {e}")))?;
        }
        let mut receiver = GhostReceiver::new(classes);
        for (ghost, class, at, len) in ghosts {
            receiver
                .restore(world, ghost, class, &data[at..at + len])
                .map_err(|e| DemoError::StartState(e.to_string()))?;
        }
        Ok(Self { data, registry, events, strings: rx_strings, ghosts: receiver, packets, next: 0 })
    }

    /// Packets in the recording.
    pub fn len(&self) -> usize {
        self.packets.len()
    }
    /// True with no packets.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
    /// The ghost table as played so far.
    pub fn ghosts(&self) -> &GhostReceiver {
        &self.ghosts
    }

    /// The recorded receive time of the next packet, or `None` at the end.
    pub fn peek_time(&self) -> Option<u64> {
        self.packets.get(self.next).map(|p| p.time)
    }

    /// Plays the next packet into `world`; returns its recorded receive time, or `None` at
    /// the end. Events it carried are then ready in [`Self::poll_event`].
    pub fn play_next(&mut self, world: &mut dyn GhostClientWorld) -> Result<Option<u64>, DemoError> {
        let Some(p) = self.packets.get(self.next) else { return Ok(None) };
        let index = self.next;
        self.next += 1;
        let time = p.time;
        let bytes = &self.data[p.start..p.start + p.len];
        let mut r = BitReader::new(bytes);
        let wrap = |error: NetError| DemoError::Packet { index, error };
        let mut skip = p.payload_bit;
        while skip > 0 {
            let n = skip.min(32) as u32;
            r.read_bits(n).map_err(|e| wrap(e.into()))?;
            skip -= n as usize;
        }
        let result = (|| -> Result<(), NetError> {
            r.read_flag()?;
            if r.read_flag()? {
                RateConfig::read_offer(&mut r)?;
            }
            self.events.read_packet(&mut r, &self.registry, &mut self.strings)?;
            self.ghosts.read_packet(world, &mut r)?;
            Ok(())
        })();
        result.map_err(wrap)?;
        Ok(Some(time))
    }

    /// Plays every remaining packet; returns how many.
    pub fn play_to_end(&mut self, world: &mut dyn GhostClientWorld) -> Result<usize, DemoError> {
        let mut n = 0;
        while self.play_next(world)?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    /// The next event the played packets carried (ordered events in order).
    pub fn poll_event(&mut self) -> Option<Box<dyn NetEvent>> {
        self.events.pop_ready()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{NetEventClass, PackContext, UnpackContext};
    use crate::ghost::{GhostArena, GhostClassRegistryBuilder};
    use crate::registry::NetClassRegistryBuilder;
    use v12_bitstream::BitWriter;

    #[derive(Debug)]
    struct Note(u32);
    impl NetEvent for Note {
        fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
            w.write_int(self.0, 32);
        }
    }
    impl NetEventClass for Note {
        const NAME: &'static str = "Note";
        fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> crate::Result<Self> {
            Ok(Self(r.read_int(32)?))
        }
    }

    /// Held ordered events go through the file: the start block writes them, the player
    /// restores them held for their predecessor, and a damaged one is refused.
    #[test]
    fn held_events_round_trip_through_the_start_block() {
        let registry = Arc::new(NetClassRegistryBuilder::new().register::<Note>().build().unwrap());
        let classes = Arc::new(GhostClassRegistryBuilder::new().build().unwrap());
        // The bits a receiver held: the class id, then the event.
        let mut w = BitWriter::new();
        w.write_int(0, registry.id_bits());
        w.write_int(7, 32);
        let bits = w.bit_position();
        let event = w.into_bytes().to_vec();
        let record = |held: &[(u32, Vec<u8>, usize)]| {
            // A receiver expecting 10, holding `held` as `read_packet` keeps early events.
            let mut events = EventManager::new(ConnectionId(0), false);
            events.set_next_ordered_recv(10);
            for (seq, bytes, n) in held {
                events.recv_held_for_test(*seq, bytes, *n);
            }
            DemoRecorder::start(
                1,
                &registry,
                &classes,
                &events,
                &StringReceiver::default(),
                None,
                &mut GhostArena::new(),
            )
            .finish()
        };
        let file = record(&[(12, event.clone(), bits)]);
        let player =
            DemoPlayer::open(file, registry.clone(), classes.clone(), &mut GhostArena::new()).unwrap();
        assert_eq!(player.events.held_len(), 1);
        // Held at the next expected sequence is impossible (it would have been released).
        let file = record(&[(10, event.clone(), bits)]);
        let err =
            DemoPlayer::open(file, registry.clone(), classes.clone(), &mut GhostArena::new()).unwrap_err();
        assert!(matches!(err, DemoError::StartState(ref m) if m.contains("held event 10")), "{err}");
        // A bit count the event does not fill.
        let file = record(&[(12, event, bits + 3)]);
        assert!(DemoPlayer::open(file, registry, classes, &mut GhostArena::new()).is_err());
    }
}
