//! The event journal: every platform event written to a file, and read back
//! so a session replays deterministically (V12: "By journaling the stream of
//! events from the platform layer, the game portion of the simulation session
//! can deterministically replayed").
//!
//! Format (little endian, integers as LEB128 varints):
//!
//! ```text
//! header  = "V12J" version:u8
//! record  = len:varint payload[len] crc32(payload):u32
//! payload = kind:u8 fields...          (kind 0 = end of journal)
//! ```
//!
//! Each record carries a CRC-32 so that any single corrupt byte is found, and
//! a journal ends with an explicit end record so that a file cut at a record
//! boundary is reported as truncated rather than silently shorter.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::address::NetAddress;
use crate::event::{
    ConnectState, ConnectedAcceptEvent, ConnectedNotifyEvent, ConnectedReceiveEvent, ConnectionTag,
    ConsoleEvent, DeviceChangeEvent, Event, GameInterface, InputAction, InputDeviceType, InputEvent,
    InputObjectType, Modifiers, MouseMoveEvent, PacketReceiveEvent, TimeEvent,
};

/// The first bytes of every journal.
pub const JOURNAL_MAGIC: [u8; 4] = *b"V12J";
/// The format version this build writes and reads.
pub const JOURNAL_VERSION: u8 = 1;
/// The largest record accepted, so a corrupt length cannot ask for gigabytes.
pub const MAX_RECORD_LEN: u64 = 16 << 20;

const KIND_END: u8 = 0;
const KIND_INPUT: u8 = 1;
const KIND_MOUSE_MOVE: u8 = 2;
const KIND_PACKET_RECEIVE: u8 = 3;
const KIND_TIME: u8 = 4;
const KIND_QUIT: u8 = 5;
const KIND_CONSOLE: u8 = 6;
const KIND_CONNECTED_RECEIVE: u8 = 7;
const KIND_CONNECTED_ACCEPT: u8 = 8;
const KIND_CONNECTED_NOTIFY: u8 = 9;
const KIND_DEVICE_CHANGE: u8 = 10;

/// Why a journal could not be written or read. Offsets are bytes from the
/// start of the journal.
#[derive(Debug)]
pub enum JournalError {
    /// The underlying file or writer failed.
    Io(io::Error),
    /// The file does not start with [`JOURNAL_MAGIC`].
    BadMagic,
    /// Written by a format version this build does not read.
    UnsupportedVersion(u8),
    /// The journal ends before its end record.
    Truncated { offset: u64 },
    /// A record's checksum does not match its bytes.
    Checksum { offset: u64 },
    /// A record's length is over [`MAX_RECORD_LEN`].
    RecordTooLong { offset: u64, len: u64 },
    /// A record's contents do not decode.
    Corrupt { offset: u64, reason: &'static str },
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Io(e) => write!(f, "journal I/O error: {e}"),
            JournalError::BadMagic => write!(f, "not a V12 journal (bad magic)"),
            JournalError::UnsupportedVersion(v) => {
                write!(f, "journal version {v} is not supported (this build reads {JOURNAL_VERSION})")
            }
            JournalError::Truncated { offset } => write!(f, "journal truncated at byte {offset}"),
            JournalError::Checksum { offset } => {
                write!(f, "journal record at byte {offset}: checksum mismatch")
            }
            JournalError::RecordTooLong { offset, len } => {
                write!(f, "journal record at byte {offset}: length {len} over the {MAX_RECORD_LEN} limit")
            }
            JournalError::Corrupt { offset, reason } => {
                write!(f, "journal corrupt at byte {offset}: {reason}")
            }
        }
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JournalError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for JournalError {
    fn from(e: io::Error) -> Self {
        JournalError::Io(e)
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i32) -> u64 {
    u64::from(((v << 1) ^ (v >> 31)) as u32)
}

fn unzigzag(v: u32) -> i32 {
    ((v >> 1) as i32) ^ -((v & 1) as i32)
}

fn put_bytes(out: &mut Vec<u8>, data: &[u8]) {
    put_varint(out, data.len() as u64);
    out.extend_from_slice(data);
}

fn put_address(out: &mut Vec<u8>, addr: NetAddress) {
    match addr.socket_addr() {
        SocketAddr::V4(a) => {
            out.push(4);
            out.extend_from_slice(&a.ip().octets());
            out.extend_from_slice(&a.port().to_le_bytes());
        }
        SocketAddr::V6(a) => {
            out.push(6);
            out.extend_from_slice(&a.ip().octets());
            out.extend_from_slice(&a.port().to_le_bytes());
            put_varint(out, u64::from(a.flowinfo()));
            put_varint(out, u64::from(a.scope_id()));
        }
    }
}

/// Append the payload (kind and fields) of one event.
fn encode_event(out: &mut Vec<u8>, event: &Event) {
    match event {
        Event::Input(e) => {
            out.push(KIND_INPUT);
            out.extend_from_slice(&[e.device_type as u8, e.device_inst, e.object_type as u8]);
            put_varint(out, u64::from(e.object_inst));
            out.extend_from_slice(&[e.action as u8, e.modifiers.0]);
            put_varint(out, u64::from(e.ascii));
            out.extend_from_slice(&e.value.to_bits().to_le_bytes());
        }
        Event::MouseMove(e) => {
            out.push(KIND_MOUSE_MOVE);
            put_varint(out, zigzag(e.x_pos));
            put_varint(out, zigzag(e.y_pos));
            out.push(e.modifiers.0);
        }
        Event::PacketReceive(e) => {
            out.push(KIND_PACKET_RECEIVE);
            put_address(out, e.source);
            put_bytes(out, &e.data);
        }
        Event::Time(e) => {
            out.push(KIND_TIME);
            put_varint(out, u64::from(e.elapsed_ms));
        }
        Event::Quit => out.push(KIND_QUIT),
        Event::Console(e) => {
            out.push(KIND_CONSOLE);
            put_bytes(out, e.line.as_bytes());
        }
        Event::ConnectedReceive(e) => {
            out.push(KIND_CONNECTED_RECEIVE);
            put_varint(out, u64::from(e.tag.0));
            put_bytes(out, &e.data);
        }
        Event::ConnectedAccept(e) => {
            out.push(KIND_CONNECTED_ACCEPT);
            put_varint(out, u64::from(e.port_tag.0));
            put_varint(out, u64::from(e.tag.0));
            put_address(out, e.address);
        }
        Event::ConnectedNotify(e) => {
            out.push(KIND_CONNECTED_NOTIFY);
            put_varint(out, u64::from(e.tag.0));
            out.push(e.state as u8);
        }
        Event::DeviceChange(e) => {
            out.push(KIND_DEVICE_CHANGE);
            out.extend_from_slice(&[e.device_type as u8, e.device_inst, u8::from(e.connected)]);
            put_bytes(out, e.name.as_bytes());
        }
    }
}

/// Bounds-checked reading of one record's payload; every failure names its offset.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    fn corrupt(&self, reason: &'static str) -> JournalError {
        JournalError::Corrupt { offset: self.base + self.pos as u64, reason }
    }

    fn u8(&mut self) -> Result<u8, JournalError> {
        let b = *self.data.get(self.pos).ok_or_else(|| self.corrupt("record ends inside a field"))?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], JournalError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| self.corrupt("field longer than its record"))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], JournalError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn varint(&mut self) -> Result<u64, JournalError> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.u8()?;
            if i == 9 && b > 1 {
                return Err(self.corrupt("varint overflows 64 bits"));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.corrupt("varint longer than 10 bytes"))
    }

    fn varint_u32(&mut self) -> Result<u32, JournalError> {
        u32::try_from(self.varint()?).map_err(|_| self.corrupt("value over 32 bits"))
    }

    fn varint_u16(&mut self) -> Result<u16, JournalError> {
        u16::try_from(self.varint()?).map_err(|_| self.corrupt("value over 16 bits"))
    }

    fn bytes(&mut self) -> Result<&'a [u8], JournalError> {
        let len = self.varint()?;
        let len = usize::try_from(len).map_err(|_| self.corrupt("length too large"))?;
        self.take(len)
    }

    fn address(&mut self) -> Result<NetAddress, JournalError> {
        match self.u8()? {
            4 => {
                let ip = Ipv4Addr::from(self.array::<4>()?);
                let port = u16::from_le_bytes(self.array()?);
                Ok(SocketAddr::V4(SocketAddrV4::new(ip, port)).into())
            }
            6 => {
                let ip = Ipv6Addr::from(self.array::<16>()?);
                let port = u16::from_le_bytes(self.array()?);
                let flow = self.varint_u32()?;
                let scope = self.varint_u32()?;
                Ok(SocketAddr::V6(SocketAddrV6::new(ip, port, flow, scope)).into())
            }
            _ => Err(self.corrupt("unknown address family")),
        }
    }

    fn tag(&mut self) -> Result<ConnectionTag, JournalError> {
        Ok(ConnectionTag(self.varint_u32()?))
    }
}

fn device_type(v: u8) -> Option<InputDeviceType> {
    use InputDeviceType::*;
    [Keyboard, Mouse, Joystick, Gamepad].into_iter().find(|d| *d as u8 == v)
}

fn object_type(v: u8) -> Option<InputObjectType> {
    use InputObjectType::*;
    [Key, Button, XAxis, YAxis, ZAxis, RxAxis, RyAxis, RzAxis, Slider, Pov]
        .into_iter()
        .find(|d| *d as u8 == v)
}

fn action(v: u8) -> Option<InputAction> {
    use InputAction::*;
    [Make, Break, Move].into_iter().find(|d| *d as u8 == v)
}

fn connect_state(v: u8) -> Option<ConnectState> {
    use ConnectState::*;
    [DnsResolved, DnsFailed, Connected, ConnectFailed, Disconnected].into_iter().find(|d| *d as u8 == v)
}

/// Decode one payload; `None` means the end record.
fn decode_event(c: &mut Cursor<'_>) -> Result<Option<Event>, JournalError> {
    let event = match c.u8()? {
        KIND_END => return Ok(None),
        KIND_INPUT => {
            let device_type = device_type(c.u8()?).ok_or_else(|| c.corrupt("unknown input device type"))?;
            let device_inst = c.u8()?;
            let object_type = object_type(c.u8()?).ok_or_else(|| c.corrupt("unknown input object type"))?;
            let object_inst = c.varint_u16()?;
            let action = action(c.u8()?).ok_or_else(|| c.corrupt("unknown input action"))?;
            let modifiers = Modifiers(c.u8()?);
            let ascii = c.varint_u16()?;
            let value = f32::from_bits(u32::from_le_bytes(c.array()?));
            Event::Input(InputEvent {
                device_type,
                device_inst,
                object_type,
                object_inst,
                action,
                modifiers,
                ascii,
                value,
            })
        }
        KIND_MOUSE_MOVE => {
            let x_pos = unzigzag(c.varint_u32()?);
            let y_pos = unzigzag(c.varint_u32()?);
            Event::MouseMove(MouseMoveEvent { x_pos, y_pos, modifiers: Modifiers(c.u8()?) })
        }
        KIND_PACKET_RECEIVE => {
            let source = c.address()?;
            let data = Bytes::copy_from_slice(c.bytes()?);
            Event::PacketReceive(PacketReceiveEvent { source, data })
        }
        KIND_TIME => Event::Time(TimeEvent { elapsed_ms: c.varint_u32()? }),
        KIND_QUIT => Event::Quit,
        KIND_CONSOLE => {
            let line = std::str::from_utf8(c.bytes()?).map_err(|_| c.corrupt("console line is not UTF-8"))?;
            Event::Console(ConsoleEvent { line: line.to_string() })
        }
        KIND_CONNECTED_RECEIVE => {
            let tag = c.tag()?;
            let data = Bytes::copy_from_slice(c.bytes()?);
            Event::ConnectedReceive(ConnectedReceiveEvent { tag, data })
        }
        KIND_CONNECTED_ACCEPT => {
            let port_tag = c.tag()?;
            let tag = c.tag()?;
            let address = c.address()?;
            Event::ConnectedAccept(ConnectedAcceptEvent { port_tag, tag, address })
        }
        KIND_CONNECTED_NOTIFY => {
            let tag = c.tag()?;
            let state = connect_state(c.u8()?).ok_or_else(|| c.corrupt("unknown connection state"))?;
            Event::ConnectedNotify(ConnectedNotifyEvent { tag, state })
        }
        KIND_DEVICE_CHANGE => {
            let device_type = device_type(c.u8()?).ok_or_else(|| c.corrupt("unknown input device type"))?;
            let device_inst = c.u8()?;
            let connected = c.u8()? != 0;
            let name = std::str::from_utf8(c.bytes()?).map_err(|_| c.corrupt("device name is not UTF-8"))?;
            Event::DeviceChange(DeviceChangeEvent {
                device_type,
                device_inst,
                connected,
                name: name.to_string(),
            })
        }
        _ => return Err(c.corrupt("unknown event kind")),
    };
    Ok(Some(event))
}

/// Writes a journal to any [`Write`]. Call [`finish`](JournalWriter::finish)
/// at the end: a journal without its end record reads as truncated.
#[derive(Debug)]
pub struct JournalWriter<W: Write> {
    out: W,
    payload: Vec<u8>,
    frame: Vec<u8>,
    records: u64,
}

impl JournalWriter<BufWriter<File>> {
    /// Create (or replace) a journal file.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, JournalError> {
        JournalWriter::new(BufWriter::new(File::create(path)?))
    }
}

impl<W: Write> JournalWriter<W> {
    /// Start a journal on `out` (writes the header).
    pub fn new(mut out: W) -> Result<Self, JournalError> {
        out.write_all(&JOURNAL_MAGIC)?;
        out.write_all(&[JOURNAL_VERSION])?;
        Ok(JournalWriter {
            out,
            payload: Vec::with_capacity(256),
            frame: Vec::with_capacity(256),
            records: 0,
        })
    }

    /// Append one event.
    pub fn record(&mut self, event: &Event) -> Result<(), JournalError> {
        self.payload.clear();
        encode_event(&mut self.payload, event);
        self.write_frame()?;
        self.records += 1;
        Ok(())
    }

    /// Events recorded so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    fn write_frame(&mut self) -> Result<(), JournalError> {
        self.frame.clear();
        put_varint(&mut self.frame, self.payload.len() as u64);
        self.frame.extend_from_slice(&self.payload);
        self.frame.extend_from_slice(&crc32fast::hash(&self.payload).to_le_bytes());
        self.out.write_all(&self.frame)?;
        Ok(())
    }

    /// Write the end record, flush, and give back the writer.
    pub fn finish(mut self) -> Result<W, JournalError> {
        self.payload.clear();
        self.payload.push(KIND_END);
        self.write_frame()?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads a journal back, one event at a time; also an iterator of
/// `Result<Event, JournalError>` that stops after the first error.
#[derive(Debug)]
pub struct JournalReader<R: Read> {
    input: R,
    offset: u64,
    payload: Vec<u8>,
    done: bool,
}

impl JournalReader<BufReader<File>> {
    /// Open a journal file and check its header.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, JournalError> {
        JournalReader::new(BufReader::new(File::open(path)?))
    }
}

impl<R: Read> JournalReader<R> {
    /// Read and check the header from `input`.
    pub fn new(input: R) -> Result<Self, JournalError> {
        let mut r = JournalReader { input, offset: 0, payload: Vec::new(), done: false };
        let mut header = [0u8; 5];
        r.read_exact(&mut header)?;
        if header[..4] != JOURNAL_MAGIC {
            return Err(JournalError::BadMagic);
        }
        if header[4] != JOURNAL_VERSION {
            return Err(JournalError::UnsupportedVersion(header[4]));
        }
        Ok(r)
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// `read_exact` that reports running out as truncation at the current offset.
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), JournalError> {
        let mut filled = 0;
        while filled < buf.len() {
            match self.input.read(&mut buf[filled..]) {
                Ok(0) => return Err(JournalError::Truncated { offset: self.offset + filled as u64 }),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(JournalError::Io(e)),
            }
        }
        self.offset += buf.len() as u64;
        Ok(())
    }

    fn read_len(&mut self) -> Result<u64, JournalError> {
        let start = self.offset;
        let mut v = 0u64;
        for i in 0..10 {
            let mut b = [0u8; 1];
            self.read_exact(&mut b)?;
            if i == 9 && b[0] > 1 {
                break;
            }
            v |= u64::from(b[0] & 0x7f) << (7 * i);
            if b[0] & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(JournalError::Corrupt { offset: start, reason: "record length varint too long" })
    }

    /// The next event, `Ok(None)` after the end record.
    pub fn next_event(&mut self) -> Result<Option<Event>, JournalError> {
        if self.done {
            return Ok(None);
        }
        let result = self.read_record();
        if !matches!(result, Ok(Some(_))) {
            self.done = true;
        }
        result
    }

    fn read_record(&mut self) -> Result<Option<Event>, JournalError> {
        let frame_start = self.offset;
        let len = self.read_len()?;
        if len > MAX_RECORD_LEN {
            return Err(JournalError::RecordTooLong { offset: frame_start, len });
        }
        let payload_start = self.offset;
        // Grow with the data actually present, so a corrupt length cannot allocate much.
        self.payload.clear();
        let got = (&mut self.input).take(len).read_to_end(&mut self.payload)?;
        self.offset += got as u64;
        if (got as u64) < len {
            return Err(JournalError::Truncated { offset: self.offset });
        }
        let mut crc = [0u8; 4];
        self.read_exact(&mut crc)?;
        if crc32fast::hash(&self.payload) != u32::from_le_bytes(crc) {
            return Err(JournalError::Checksum { offset: frame_start });
        }
        let mut c = Cursor { data: &self.payload, pos: 0, base: payload_start };
        let event = decode_event(&mut c)?;
        if c.pos != self.payload.len() {
            return Err(c.corrupt("extra bytes at the end of a record"));
        }
        if event.is_none() {
            let mut extra = [0u8; 1];
            if self.input.read(&mut extra)? != 0 {
                return Err(JournalError::Corrupt {
                    offset: self.offset,
                    reason: "data after the end record",
                });
            }
        }
        Ok(event)
    }
}

impl<R: Read> Iterator for JournalReader<R> {
    type Item = Result<Event, JournalError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event().transpose()
    }
}

/// How an event loop uses the journal: not at all, recording the live
/// events to a file, or ignoring live events and playing a file instead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Journal {
    #[default]
    Off,
    Record(PathBuf),
    Play(PathBuf),
}

impl Journal {
    /// Open the file the mode names.
    pub fn open(self) -> Result<JournalSession, JournalError> {
        Ok(match self {
            Journal::Off => JournalSession::Off,
            Journal::Record(path) => JournalSession::Recording(JournalWriter::create(path)?),
            Journal::Play(path) => JournalSession::Playing(JournalReader::open(path)?),
        })
    }
}

/// An open [`Journal`]: V12's GameInterface journaling, as a value the
/// event loop owns. Live events go through [`dispatch`](JournalSession::dispatch);
/// in play mode the loop calls [`play_next`](JournalSession::play_next) instead.
#[derive(Debug)]
pub enum JournalSession {
    Off,
    Recording(JournalWriter<BufWriter<File>>),
    Playing(JournalReader<BufReader<File>>),
}

impl JournalSession {
    /// True when events come from the journal rather than the platform.
    pub fn is_playing(&self) -> bool {
        matches!(self, JournalSession::Playing(_))
    }

    /// Hand a live platform event to the game, recording it first when
    /// recording. While playing, live events are dropped: the journal is the
    /// only source, or the replay would not be deterministic.
    pub fn dispatch<G: GameInterface + ?Sized>(
        &mut self,
        game: &mut G,
        event: Event,
    ) -> Result<(), JournalError> {
        match self {
            JournalSession::Off => game.process_event(event),
            JournalSession::Recording(w) => {
                w.record(&event)?;
                game.process_event(event);
            }
            JournalSession::Playing(_) => {}
        }
        Ok(())
    }

    /// Play one journaled event into the game; `false` at the end of the journal
    /// (or when not playing).
    pub fn play_next<G: GameInterface + ?Sized>(&mut self, game: &mut G) -> Result<bool, JournalError> {
        let JournalSession::Playing(r) = self else { return Ok(false) };
        match r.next_event()? {
            Some(event) => {
                game.process_event(event);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Play every remaining event; returns how many.
    pub fn play_to_end<G: GameInterface + ?Sized>(&mut self, game: &mut G) -> Result<u64, JournalError> {
        let mut n = 0;
        while self.play_next(game)? {
            n += 1;
        }
        Ok(n)
    }

    /// Close the journal; when recording, writes the end record.
    pub fn finish(self) -> Result<(), JournalError> {
        if let JournalSession::Recording(w) = self {
            w.finish()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Event> {
        vec![
            Event::Time(TimeEvent { elapsed_ms: 32 }),
            Event::Input(InputEvent {
                device_type: InputDeviceType::Keyboard,
                device_inst: 0,
                object_type: InputObjectType::Key,
                object_inst: 0x41,
                action: InputAction::Make,
                modifiers: Modifiers::LSHIFT,
                ascii: u16::from(b'A'),
                value: 1.0,
            }),
            Event::MouseMove(MouseMoveEvent { x_pos: -5, y_pos: i32::MAX, modifiers: Modifiers::NONE }),
            Event::PacketReceive(PacketReceiveEvent {
                source: NetAddress::localhost(28000),
                data: Bytes::from_static(b"hello"),
            }),
            Event::PacketReceive(PacketReceiveEvent {
                source: NetAddress::localhost_v6(1),
                data: Bytes::new(),
            }),
            Event::Console(ConsoleEvent { line: "echo(\"hi ✓\");".into() }),
            Event::ConnectedAccept(ConnectedAcceptEvent {
                port_tag: ConnectionTag(1),
                tag: ConnectionTag(2),
                address: NetAddress::localhost(5000),
            }),
            Event::ConnectedNotify(ConnectedNotifyEvent {
                tag: ConnectionTag(2),
                state: ConnectState::Connected,
            }),
            Event::ConnectedReceive(ConnectedReceiveEvent {
                tag: ConnectionTag(u32::MAX),
                data: Bytes::from_static(&[0, 1, 2, 255]),
            }),
            Event::DeviceChange(DeviceChangeEvent {
                device_type: InputDeviceType::Joystick,
                device_inst: 2,
                connected: true,
                name: "Stick ✓".into(),
            }),
            Event::Quit,
        ]
    }

    fn write(events: &[Event]) -> Vec<u8> {
        let mut w = JournalWriter::new(Vec::new()).unwrap();
        for e in events {
            w.record(e).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn round_trips_every_kind() {
        let events = sample();
        let bytes = write(&events);
        let back: Vec<Event> = JournalReader::new(&bytes[..]).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(back, events);
    }

    #[test]
    fn is_compact() {
        let bytes = write(&[Event::Time(TimeEvent { elapsed_ms: 32 })]);
        // header 5 + (len 1 + kind 1 + varint 1 + crc 4) + end (1 + 1 + 4)
        assert_eq!(bytes.len(), 5 + 7 + 6);
    }

    #[test]
    fn every_truncation_is_an_error_with_its_offset() {
        let bytes = write(&sample());
        for cut in 0..bytes.len() {
            let result: Result<Vec<Event>, JournalError> =
                JournalReader::new(&bytes[..cut]).and_then(|r| r.collect());
            match result {
                Err(JournalError::Truncated { offset }) => assert_eq!(offset, cut as u64, "cut at {cut}"),
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
    }

    #[test]
    fn every_single_byte_corruption_is_an_error() {
        let bytes = write(&sample());
        for at in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[at] ^= flip;
                let result: Result<Vec<Event>, JournalError> =
                    JournalReader::new(&bad[..]).and_then(|r| r.collect());
                assert!(result.is_err(), "flip {flip:#x} at {at} was accepted");
            }
        }
    }

    #[test]
    fn header_errors_are_named() {
        assert!(matches!(JournalReader::new(&b"XXXX\x01"[..]), Err(JournalError::BadMagic)));
        assert!(matches!(JournalReader::new(&b"V12J\x09"[..]), Err(JournalError::UnsupportedVersion(9))));
        let mut long = b"V12J\x01".to_vec();
        long.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x7f]);
        let e = JournalReader::new(&long[..]).unwrap().next_event().unwrap_err();
        assert!(matches!(e, JournalError::RecordTooLong { offset: 5, .. }), "{e}");
    }

    #[test]
    fn trailing_data_is_corrupt() {
        let mut bytes = write(&[Event::Quit]);
        bytes.push(0);
        let result: Result<Vec<Event>, _> = JournalReader::new(&bytes[..]).unwrap().collect();
        assert!(matches!(result, Err(JournalError::Corrupt { .. })));
    }

    #[test]
    fn zigzag_round_trips_extremes() {
        for v in [0, 1, -1, i32::MAX, i32::MIN, 12345, -98765] {
            assert_eq!(unzigzag(zigzag(v) as u32), v);
        }
    }
}
