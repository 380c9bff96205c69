//! The session journal (V12: "by journaling the stream of events from the platform layer,
//! the game portion of the simulation session can be deterministically replayed"):
//! `v12 --journal-record FILE` writes everything that enters the engine from outside (each
//! clock reading, each batch of datagrams a port received, the handshake key material, and
//! for the window client each frame's platform events: keys, mouse, resizes, the close), and
//! `v12 --journal-play FILE` feeds the same values back in the same order, so the session
//! reaches the same state and prints the same console output with no network at all.
//!
//! The file is the platform's journal format (`v12_platform::JournalWriter`): a clock reading
//! is a `Time` event, a datagram a `PacketReceive`, the end of a port's batch and the key
//! material are `Console` events (`batch`, `keys <hex>`). A replay that asks for something
//! other than what comes next stops with [`JournalError::Diverged`], naming both.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufReader, BufWriter};
use std::path::Path;
use std::rc::Rc;
use v12_platform::{
    Clock, ConnectionTag, ConsoleEvent, Datagram, Event, JournalReader, JournalWriter, Millis, NetAddress,
    PacketReceiveEvent, SystemClock, TcpIo, TimeEvent, Transport,
};

/// Why the journal stopped.
#[derive(Debug)]
pub enum JournalError {
    /// The file could not be written or read.
    File(v12_platform::JournalError),
    /// The replay asked for one thing and the journal holds another (the program or its
    /// scripts changed since the recording, or the file is not this session's).
    Diverged { wanted: &'static str, found: String },
    /// The journal ended while the replay still ran.
    Ended,
}

impl std::fmt::Display for JournalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(e) => write!(f, "journal: {e}"),
            Self::Diverged { wanted, found } => {
                write!(f, "journal: replay diverged: wanted {wanted}, found {found}")
            }
            Self::Ended => write!(f, "journal: ended before the session did"),
        }
    }
}

impl std::error::Error for JournalError {}

enum Mode {
    Record(JournalWriter<BufWriter<File>>),
    Play(JournalReader<BufReader<File>>),
    /// A replay that ran out or diverged: time stands still and nothing arrives, so the
    /// program can stop cleanly.
    Stopped,
}

/// One session's journal, shared by the clock and every port (clones share it).
#[derive(Clone)]
pub struct SessionJournal {
    mode: Rc<RefCell<Mode>>,
    error: Rc<RefCell<Option<JournalError>>>,
    live: SystemClock,
    /// The last time handed out (a stopped replay keeps returning it).
    last: Rc<RefCell<Millis>>,
    /// An event read ahead by [`Self::stdin_lines`] and not taken.
    peeked: Rc<RefCell<Option<Event>>>,
}

impl std::fmt::Debug for SessionJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionJournal").field("playing", &self.is_playing()).finish_non_exhaustive()
    }
}

fn describe(e: &Event) -> String {
    match e {
        Event::Time(t) => format!("a clock reading ({} ms)", t.elapsed_ms),
        Event::PacketReceive(p) => format!("a datagram from {}", p.source),
        Event::Console(c) => format!("\"{}\"", c.line.chars().take(40).collect::<String>()),
        other => format!("{other:?}").chars().take(60).collect(),
    }
}

impl SessionJournal {
    /// Records a new session into `path`.
    pub fn record(path: &Path) -> Result<Self, JournalError> {
        let w = JournalWriter::create(path).map_err(JournalError::File)?;
        Ok(Self::with(Mode::Record(w)))
    }

    /// Replays the session recorded in `path`.
    pub fn play(path: &Path) -> Result<Self, JournalError> {
        let r = JournalReader::open(path).map_err(JournalError::File)?;
        Ok(Self::with(Mode::Play(r)))
    }

    fn with(mode: Mode) -> Self {
        SessionJournal {
            mode: Rc::new(RefCell::new(mode)),
            error: Rc::default(),
            live: SystemClock::new(),
            last: Rc::default(),
            peeked: Rc::default(),
        }
    }

    /// Replaying (not recording)?
    pub fn is_playing(&self) -> bool {
        !matches!(*self.mode.borrow(), Mode::Record(_))
    }

    /// A replay that ran out or diverged; the host stops.
    pub fn stopped(&self) -> bool {
        matches!(*self.mode.borrow(), Mode::Stopped)
    }

    /// The first error, if the journal stopped for one.
    pub fn take_error(&self) -> Option<JournalError> {
        self.error.borrow_mut().take()
    }

    fn fail(&self, e: JournalError) {
        tracing::warn!(%e, "journal stopped");
        self.error.borrow_mut().get_or_insert(e);
        *self.mode.borrow_mut() = Mode::Stopped;
    }

    fn write(&self, e: &Event) {
        let res = match &mut *self.mode.borrow_mut() {
            Mode::Record(w) => w.record(e),
            _ => Ok(()),
        };
        if let Err(err) = res {
            self.fail(JournalError::File(err));
        }
    }

    /// The next recorded event, which must be what `wanted` names.
    fn read(&self, wanted: &'static str, ok: impl Fn(&Event) -> bool) -> Option<Event> {
        let next = match (&mut *self.mode.borrow_mut(), self.peeked.borrow_mut().take()) {
            (Mode::Play(_), Some(e)) => Ok(Some(e)),
            (Mode::Play(r), None) => r.next_event(),
            _ => return None,
        };
        match next {
            Ok(Some(e)) if ok(&e) => Some(e),
            Ok(Some(e)) => {
                self.fail(JournalError::Diverged { wanted, found: describe(&e) });
                None
            }
            Ok(None) => {
                self.fail(JournalError::Ended);
                None
            }
            Err(e) => {
                self.fail(JournalError::File(e));
                None
            }
        }
    }

    /// The handshake key material: `live` when recording (written down), the recorded
    /// bytes when replaying.
    pub fn keys(&self, live: [u8; 32]) -> [u8; 32] {
        if !self.is_playing() {
            self.write(&Event::Console(ConsoleEvent {
                line: format!("keys {}", crate::net_security::to_hex(&live)),
            }));
            return live;
        }
        let Some(Event::Console(c)) =
            self.read("key material", |e| matches!(e, Event::Console(c) if c.line.starts_with("keys ")))
        else {
            return live;
        };
        match crate::net_security::key_from_hex(&c.line[5..]) {
            Some(k) => k,
            None => {
                self.fail(JournalError::Diverged {
                    wanted: "32 bytes of key material",
                    found: describe(&Event::Console(c)),
                });
                live
            }
        }
    }

    /// Wraps a port so what it receives is recorded or replayed.
    pub fn port(&self, inner: Box<dyn Transport>) -> Box<dyn Transport> {
        Box::new(JournalPort { inner, journal: self.clone() })
    }

    /// Wraps the TCP connections (telnet console, `TCPObject`s) so what they receive, and
    /// what the sockets answered, is recorded or replayed.
    pub fn tcp(&self, inner: Box<dyn TcpIo>) -> Box<dyn TcpIo> {
        Box::new(JournalTcp { inner, journal: self.clone() })
    }

    /// A note: written when recording, read back (and checked to be one) when replaying.
    fn note(&self, wanted: &'static str, prefix: &str, live: impl FnOnce() -> String) -> Option<String> {
        if !self.is_playing() {
            let line = format!("{prefix} {}", live());
            self.write(&Event::Console(ConsoleEvent { line: line.clone() }));
            return Some(line[prefix.len() + 1..].to_string());
        }
        let starts = |e: &Event| matches!(e, Event::Console(c) if c.line.starts_with(prefix));
        match self.read(wanted, starts) {
            Some(Event::Console(c)) => Some(c.line[prefix.len()..].trim_start().to_string()),
            _ => None,
        }
    }

    /// The platform events of one frame (the window client's input, gamepads included, mouse
    /// moves, input devices connected or gone, a close, and resizes as `Console` events
    /// `resize W H`): `live` when recording (written, then a
    /// `frame` note), the recorded ones when replaying.
    pub fn frame_events(&self, live: Vec<Event>) -> Vec<Event> {
        if !self.is_playing() {
            for e in &live {
                self.write(e);
            }
            self.write(&Event::Console(ConsoleEvent { line: "frame".into() }));
            return live;
        }
        let mut out = Vec::new();
        let platform = |e: &Event| match e {
            Event::Input(_) | Event::MouseMove(_) | Event::Quit | Event::DeviceChange(_) => true,
            Event::Console(c) => c.line == "frame" || c.line.starts_with("resize "),
            _ => false,
        };
        while let Some(e) = self.read("a frame's platform events", platform) {
            match e {
                Event::Console(c) if c.line == "frame" => break,
                e => out.push(e),
            }
        }
        out
    }

    /// The dedicated server's standard-input lines taken this frame: `live` when recording
    /// (each written as a `stdin LINE` note), when replaying the notes recorded at this point
    /// (read ahead: none there means none this frame).
    pub fn stdin_lines(&self, live: Vec<String>) -> Vec<String> {
        if !self.is_playing() {
            for l in &live {
                self.write(&Event::Console(ConsoleEvent { line: format!("stdin {l}") }));
            }
            return live;
        }
        let mut out = Vec::new();
        loop {
            let next = match (&mut *self.mode.borrow_mut(), self.peeked.borrow_mut().take()) {
                (Mode::Play(_), Some(e)) => Ok(Some(e)),
                (Mode::Play(r), None) => r.next_event(),
                _ => Ok(None),
            };
            let next = next.unwrap_or_else(|e| {
                self.fail(JournalError::File(e));
                None
            });
            match next {
                Some(Event::Console(c)) if c.line.starts_with("stdin ") => out.push(c.line[6..].to_string()),
                Some(e) => {
                    *self.peeked.borrow_mut() = Some(e);
                    break;
                }
                None => break,
            }
        }
        out
    }

    /// The session's wall clock (Unix seconds, for connect tokens), derived from its journaled
    /// clock: the Unix time at the clock's zero is a `wall-clock` note, recorded once, so a
    /// replay at any later date reads the same wall clock at every frame.
    pub fn wall_clock(&self) -> v12_services::WallClock {
        let live = v12_platform::time::unix_now_s().saturating_sub(self.live.now_ms() / 1000);
        let at_zero = self.remember("wall-clock", || live.to_string()).and_then(|t| t.parse().ok());
        v12_services::WallClock::From(at_zero.unwrap_or(live))
    }

    /// A note the session writes when recording and reads back when replaying, such as the
    /// address of a local match the client joined: `live()` when recording.
    pub fn remember(&self, what: &'static str, live: impl FnOnce() -> String) -> Option<String> {
        self.note(what, what, live)
    }

    /// Ends the recording (the end record and a flush); nothing for a replay.
    pub fn finish(&self) -> Result<(), JournalError> {
        let mode = std::mem::replace(&mut *self.mode.borrow_mut(), Mode::Stopped);
        match mode {
            Mode::Record(w) => w.finish().map(|_| ()).map_err(JournalError::File),
            _ => Ok(()),
        }
    }
}

impl Clock for SessionJournal {
    fn now_ms(&self) -> Millis {
        if !self.is_playing() {
            let t = self.live.now_ms();
            self.write(&Event::Time(TimeEvent { elapsed_ms: u32::try_from(t).unwrap_or(u32::MAX) }));
            return t;
        }
        if let Some(Event::Time(t)) = self.read("a clock reading", |e| matches!(e, Event::Time(_))) {
            *self.last.borrow_mut() = u64::from(t.elapsed_ms);
        }
        *self.last.borrow()
    }
}

/// A port whose received datagrams go through the journal. Replaying, it sends nothing
/// and receives only what the journal holds.
struct JournalPort {
    inner: Box<dyn Transport>,
    journal: SessionJournal,
}

impl Transport for JournalPort {
    fn local_addr(&self) -> NetAddress {
        self.inner.local_addr()
    }

    fn send_to(&mut self, now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        if self.journal.is_playing() { Ok(()) } else { self.inner.send_to(now, to, data) }
    }

    fn recv_batch(&mut self, now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize> {
        if !self.journal.is_playing() {
            let start = out.len();
            let n = self.inner.recv_batch(now, out)?;
            for d in &out[start..] {
                self.journal.write(&Event::PacketReceive(PacketReceiveEvent {
                    source: d.from,
                    data: d.data.clone(),
                }));
            }
            self.journal.write(&Event::Console(ConsoleEvent { line: "batch".into() }));
            return Ok(n);
        }
        let mut n = 0;
        loop {
            let is_batch_part = |e: &Event| {
                matches!(e, Event::PacketReceive(_)) || matches!(e, Event::Console(c) if c.line == "batch")
            };
            match self.journal.read("a received datagram or the end of a batch", is_batch_part) {
                Some(Event::PacketReceive(p)) => {
                    out.push(Datagram { from: p.source, data: p.data });
                    n += 1;
                }
                _ => return Ok(n),
            }
        }
    }

    fn poll(&mut self, now: Millis) -> io::Result<()> {
        if self.journal.is_playing() { Ok(()) } else { self.inner.poll(now) }
    }

    fn next_wakeup(&self) -> Option<Millis> {
        self.inner.next_wakeup()
    }
}

/// TCP connections through the journal. Recording, each call goes to the sockets and what
/// they answered (the tags handed out, listen results, addresses, refused sends, and each
/// `process` batch of events) is written down; replaying, the same calls get the same
/// answers from the journal and no socket is touched.
#[derive(Debug)]
struct JournalTcp {
    inner: Box<dyn TcpIo>,
    journal: SessionJournal,
}

fn tag_text(t: ConnectionTag) -> String {
    t.0.to_string()
}

fn parse_tag(s: Option<String>) -> ConnectionTag {
    ConnectionTag(s.and_then(|s| s.trim().parse().ok()).unwrap_or(u32::MAX))
}

fn addr_text(a: Option<NetAddress>) -> String {
    a.map_or_else(|| "none".to_string(), |a| a.to_string())
}

impl TcpIo for JournalTcp {
    fn listen(&mut self, addr: NetAddress) -> io::Result<ConnectionTag> {
        let mut live = None;
        let got = self.journal.note("a TCP listen", "tcp listen", || {
            let r = self.inner.listen(addr);
            let text = match &r {
                Ok(t) => format!("ok {}", tag_text(*t)),
                Err(e) => format!("err {e}"),
            };
            live = Some(r);
            text
        });
        if let Some(r) = live {
            return r;
        }
        match got.as_deref().and_then(|g| g.strip_prefix("ok ")) {
            Some(t) => Ok(parse_tag(Some(t.to_string()))),
            None => Err(io::Error::other(got.unwrap_or_default().trim_start_matches("err ").to_string())),
        }
    }

    fn connect(&mut self, addr: NetAddress) -> ConnectionTag {
        parse_tag(self.journal.note("a TCP connect", "tcp connect", || tag_text(self.inner.connect(addr))))
    }

    fn connect_host(&mut self, text: &str) -> ConnectionTag {
        parse_tag(
            self.journal.note("a TCP connect", "tcp connect", || tag_text(self.inner.connect_host(text))),
        )
    }

    fn send(&mut self, tag: ConnectionTag, data: &[u8]) -> io::Result<()> {
        // A refused send drops the client, so whether it was taken is part of the session.
        let mut live = None;
        let got = self.journal.note("a TCP send", "tcp send", || {
            let r = self.inner.send(tag, data);
            let text = if r.is_ok() { "ok".to_string() } else { "refused".to_string() };
            live = Some(r);
            text
        });
        match (live, got.as_deref()) {
            (Some(r), _) => r,
            (None, Some("ok")) => Ok(()),
            _ => Err(io::Error::other("send refused (journal)")),
        }
    }

    fn close(&mut self, tag: ConnectionTag) {
        if !self.journal.is_playing() {
            self.inner.close(tag);
        }
    }

    fn local_addr(&self, tag: ConnectionTag) -> Option<NetAddress> {
        let a = self.journal.note("a TCP address", "tcp addr", || addr_text(self.inner.local_addr(tag)))?;
        a.parse().ok()
    }

    fn peer_addr(&self, tag: ConnectionTag) -> Option<NetAddress> {
        let a = self.journal.note("a TCP address", "tcp addr", || addr_text(self.inner.peer_addr(tag)))?;
        a.parse().ok()
    }

    fn process(&mut self, out: &mut Vec<Event>) {
        if !self.journal.is_playing() {
            let start = out.len();
            self.inner.process(out);
            for e in &out[start..] {
                self.journal.write(e);
            }
            self.journal.write(&Event::Console(ConsoleEvent { line: "tcpbatch".into() }));
            return;
        }
        let part = |e: &Event| {
            matches!(e, Event::ConnectedAccept(_) | Event::ConnectedNotify(_) | Event::ConnectedReceive(_))
                || matches!(e, Event::Console(c) if c.line == "tcpbatch")
        };
        while let Some(e) = self.journal.read("a TCP event or the end of a batch", part) {
            if matches!(&e, Event::Console(_)) {
                break;
            }
            out.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_returns_what_was_recorded_and_stops_on_divergence() {
        let path = std::env::temp_dir().join(format!("v12-journal-unit-{}", std::process::id()));
        let rec = SessionJournal::record(&path).unwrap();
        let t0 = rec.now_ms();
        let keys = rec.keys([7; 32]);
        let mut a = v12_platform::LoopbackTransport::pair();
        let from = a.1.local_addr();
        let mut port = rec.port(Box::new(a.0));
        a.1.send_to(0, port.local_addr(), b"hello").unwrap();
        let mut got = Vec::new();
        port.recv_batch(0, &mut got).unwrap();
        assert_eq!(got.len(), 1);
        let t1 = rec.now_ms();
        rec.finish().unwrap();

        let play = SessionJournal::play(&path).unwrap();
        assert_eq!(play.now_ms(), t0);
        assert_eq!(play.keys([0; 32]), keys);
        let (x, _y) = v12_platform::LoopbackTransport::pair();
        let mut port = play.port(Box::new(x));
        let mut again = Vec::new();
        assert_eq!(port.recv_batch(0, &mut again).unwrap(), 1);
        assert_eq!((&again[0].data[..], again[0].from), (&b"hello"[..], from));
        // Asking for keys where a clock reading was recorded: diverged, stopped, time stands.
        assert_eq!(play.keys([1; 32]), [1; 32]);
        assert!(play.stopped());
        assert!(matches!(play.take_error(), Some(JournalError::Diverged { .. })));
        assert_eq!(play.now_ms(), t0, "a stopped replay's clock stands still");
        let _ = t1;
        let _ = std::fs::remove_file(&path);
    }

    /// A frame's gamepad events (a device plugged in, a stick moved) replay as recorded.
    #[test]
    fn a_frames_gamepad_events_replay() {
        use v12_platform::{PadAxis, PadInput, PadSlots};
        let path = std::env::temp_dir().join(format!("v12-journal-pads-{}", std::process::id()));
        let mut slots = PadSlots::new();
        let live: Vec<Event> = [
            slots.translate(4, PadInput::Connected { name: "Pad".into(), gamepad: true }),
            slots.translate(4, PadInput::Axis(PadAxis::LeftStickX, 0.5)),
            slots.translate(4, PadInput::Disconnected),
        ]
        .into_iter()
        .flatten()
        .collect();
        assert_eq!(live.len(), 3);
        let rec = SessionJournal::record(&path).unwrap();
        assert_eq!(rec.frame_events(live.clone()), live);
        assert_eq!(rec.frame_events(Vec::new()), Vec::new());
        rec.finish().unwrap();
        let play = SessionJournal::play(&path).unwrap();
        assert_eq!(play.frame_events(Vec::new()), live);
        assert_eq!(play.frame_events(Vec::new()), Vec::new());
        assert!(!play.stopped());
        let _ = std::fs::remove_file(&path);
    }
}
