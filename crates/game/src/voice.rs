//! Voice chat as Tribes 2 had it, on `v12-audio`'s Opus codec.
//!
//! - **Capture** (client): push-to-talk with Tribes 2's script names, `alxCaptureStart()` and
//!   `alxCaptureStop()` (its `voiceCapStart` / `voiceCapStop` bind functions call them; the
//!   example game binds them to `v` in the MoveMap); `alxIsCapturing()`. The input is
//!   `v12 --audio-input FILE.wav` (a file spoken into the microphone: how tests speak), else
//!   the sound card's microphone with the `sound` feature. It is read and encoded as the
//!   client's sound advances, in simulated time. `alxCaptureStart(true)` is Tribes 2's local
//!   test: the client hears itself and sends nothing.
//! - **Network**: each 20 ms Opus packet goes to the server as an unguaranteed
//!   [`VoiceUp`]; the server relays it as an unguaranteed [`VoiceDown`] to every other client
//!   that listens to the speaker (`GameConnection::listenTo(who, bool)`, `listenToAll()`,
//!   `listenToNone()`, `canListenTo(who)`). With `$Pref::Audio::Voice3D` true on the server,
//!   the speaker is heard in 3D at its control object where the listener has it in scope;
//!   otherwise (Tribes 2's voice) in 2D on the chat channel.
//! - **Flood cap**: the server passes at most [`VOICE_CAP_BYTES_PER_S`] from each sender
//!   (a packet counts its bytes plus [`PACKET_OVERHEAD`]); past it packets are dropped, and a
//!   sender that keeps flooding ([`FLOOD_DROPS`] drops) is muted for [`MUTE_MS`] with a reason
//!   (a warning naming the client); the [`MUTES_BEFORE_DROP`]th mute drops the connection
//!   ("voice flood"). Nothing a peer sends can panic: bad packets are refused when unpacked
//!   (length) or decoded (the codec), each speaker's queue holds at most a second, and a
//!   client keeps decoders for at most [`MAX_SPEAKERS`].

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;

use v12_audio::{Description, Handle, MAX_PACKET_BYTES, VoiceCapture, VoiceDecoder, channel};
use v12_console_vm::ObjectId;
use v12_netobject::ConnectionId;

/// Voice bytes a second the server passes from one sender (the codec sends ~2 KB/s).
pub const VOICE_CAP_BYTES_PER_S: u32 = 4_000;
/// What a packet costs against the cap besides its bytes (so tiny packets cannot flood).
pub const PACKET_OVERHEAD: u32 = 20;
/// Dropped packets in a row (within the cap's second) that make a sender muted.
pub const FLOOD_DROPS: u32 = 25;
/// How long a flooding sender is muted.
pub const MUTE_MS: u64 = 10_000;
/// The mute that drops the connection instead.
pub const MUTES_BEFORE_DROP: u32 = 3;
/// Speakers a client decodes at once (more are not heard until one falls silent).
pub const MAX_SPEAKERS: usize = 32;
/// A speaker silent this long is forgotten (its decoder and stream go).
const SPEAKER_IDLE_MS: u64 = 3_000;
/// Packets a client holds for the server at most (a second): older ones go.
const MAX_OUTGOING: usize = 50;
/// The follower slot of a speaker's 3D voice (past the script's sound slots and the engine's).
const VOICE_SLOT: u32 = 1_001;

fn pack_packet(w: &mut v12_bitstream::BitWriter, packet: &[u8]) {
    let n = packet.len().min(MAX_PACKET_BYTES);
    w.write_int(n as u32, 8);
    w.write_bytes(&packet[..n]);
}

fn unpack_packet(r: &mut v12_bitstream::BitReader<'_>) -> v12_netobject::Result<Vec<u8>> {
    let n = r.read_int(8)? as usize;
    if !(2..=MAX_PACKET_BYTES).contains(&n) {
        return Err(v12_netobject::NetError::BadEvent(format!("a voice packet of {n} bytes")));
    }
    let mut packet = vec![0; n];
    r.read_bytes(&mut packet)?;
    Ok(packet)
}

/// One voice packet from a client to the server (unguaranteed: a late one is worthless).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceUp {
    /// An Opus packet (20 ms).
    pub packet: Vec<u8>,
}

impl v12_netobject::NetEvent for VoiceUp {
    fn guarantee(&self) -> v12_netobject::Guarantee {
        v12_netobject::Guarantee::Unguaranteed
    }
    fn pack(&self, w: &mut v12_bitstream::BitWriter, _: &mut v12_netobject::PackContext<'_>) {
        pack_packet(w, &self.packet);
    }
}

impl v12_netobject::NetEventClass for VoiceUp {
    const NAME: &'static str = "VoiceUpEvent";
    const DIRECTION: v12_netobject::EventDirection = v12_netobject::EventDirection::ClientToServer;
    fn unpack(
        r: &mut v12_bitstream::BitReader<'_>,
        _: &mut v12_netobject::UnpackContext<'_>,
    ) -> v12_netobject::Result<Self> {
        Ok(VoiceUp { packet: unpack_packet(r)? })
    }
}

/// One speaker's voice packet relayed to a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceDown {
    /// The speaker (its client's id on the server: each speaker has its own decoder).
    pub speaker: u32,
    /// The speaker's control object's ghost on this connection, when heard in 3D.
    pub ghost: Option<u32>,
    /// An Opus packet (20 ms).
    pub packet: Vec<u8>,
}

impl v12_netobject::NetEvent for VoiceDown {
    fn guarantee(&self) -> v12_netobject::Guarantee {
        v12_netobject::Guarantee::Unguaranteed
    }
    fn pack(&self, w: &mut v12_bitstream::BitWriter, _: &mut v12_netobject::PackContext<'_>) {
        self.write(w);
    }
}

impl VoiceDown {
    /// Its bits (what `pack` writes).
    pub fn write(&self, w: &mut v12_bitstream::BitWriter) {
        w.write_int(self.speaker, 32);
        w.write_flag(self.ghost.is_some());
        if let Some(g) = self.ghost {
            w.write_int(g, 32);
        }
        pack_packet(w, &self.packet);
    }

    /// Reads what [`VoiceDown::write`] wrote; junk (a packet's length out of 2 to
    /// [`MAX_PACKET_BYTES`], too few bits) is an error.
    pub fn read(r: &mut v12_bitstream::BitReader<'_>) -> v12_netobject::Result<VoiceDown> {
        let speaker = r.read_int(32)?;
        let ghost = if r.read_flag()? { Some(r.read_int(32)?) } else { None };
        Ok(VoiceDown { speaker, ghost, packet: unpack_packet(r)? })
    }
}

impl v12_netobject::NetEventClass for VoiceDown {
    const NAME: &'static str = "VoiceDownEvent";
    const DIRECTION: v12_netobject::EventDirection = v12_netobject::EventDirection::ServerToClient;
    fn unpack(
        r: &mut v12_bitstream::BitReader<'_>,
        _: &mut v12_netobject::UnpackContext<'_>,
    ) -> v12_netobject::Result<Self> {
        VoiceDown::read(r)
    }
}

// ---- the server: relay, listening and the flood cap ----

/// One sender's standing against the cap.
#[derive(Debug, Clone, Default)]
struct Gate {
    /// Bytes it may still send (refilled at the cap, at most a second's worth).
    tokens: f64,
    last_ms: u64,
    dropped: u32,
    muted_until: u64,
    mutes: u32,
    started: bool,
}

/// What the server does with a voice packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Relay it.
    Pass,
    /// Over the cap: dropped.
    Drop,
    /// Over the cap for long: the sender is muted from now on for [`MUTE_MS`] (the reason).
    Mute(String),
    /// Muted again and again: drop the connection (the reason).
    Disconnect(String),
}

/// The server's voice state: each sender's gate and who does not listen to whom.
#[derive(Debug, Default)]
pub struct VoiceRelay {
    gates: BTreeMap<ConnectionId, Gate>,
    /// Listener client → the speakers it does not listen to.
    deaf_to: BTreeMap<u32, BTreeSet<u32>>,
    /// Packets relayed and dropped, for reports.
    pub relayed: u64,
    /// Packets dropped by the cap (muted senders' included).
    pub dropped: u64,
}

impl VoiceRelay {
    /// Weighs a packet of `bytes` from `from` at `now_ms` against its cap.
    pub fn admit(&mut self, from: ConnectionId, bytes: usize, now_ms: u64) -> Verdict {
        let cap = f64::from(VOICE_CAP_BYTES_PER_S);
        let g = self.gates.entry(from).or_default();
        if !g.started {
            g.started = true;
            g.tokens = cap;
            g.last_ms = now_ms;
        }
        g.tokens = (g.tokens + now_ms.saturating_sub(g.last_ms) as f64 * cap / 1000.0).min(cap);
        g.last_ms = now_ms;
        if now_ms < g.muted_until {
            self.dropped += 1;
            return Verdict::Drop;
        }
        let cost = bytes as f64 + f64::from(PACKET_OVERHEAD);
        if g.tokens >= cost {
            g.tokens -= cost;
            g.dropped = 0;
            self.relayed += 1;
            return Verdict::Pass;
        }
        self.dropped += 1;
        g.dropped += 1;
        if g.dropped < FLOOD_DROPS {
            return Verdict::Drop;
        }
        g.dropped = 0;
        g.mutes += 1;
        let why = format!("voice flood: over {VOICE_CAP_BYTES_PER_S} bytes/s");
        if g.mutes >= MUTES_BEFORE_DROP {
            return Verdict::Disconnect(why);
        }
        g.muted_until = now_ms + MUTE_MS;
        Verdict::Mute(format!("{why}; muted for {} s", MUTE_MS / 1000))
    }

    /// The connection went: its gate goes.
    pub fn forget(&mut self, conn: ConnectionId) {
        self.gates.remove(&conn);
    }

    /// True when `listener` hears `speaker` (`listenTo`).
    pub fn listens(&self, listener: u32, speaker: u32) -> bool {
        listener != speaker && !self.deaf_to.get(&listener).is_some_and(|s| s.contains(&speaker))
    }

    pub(crate) fn listen_to(&mut self, listener: u32, speaker: u32, on: bool) {
        let set = self.deaf_to.entry(listener).or_default();
        if on {
            set.remove(&speaker);
        } else {
            set.insert(speaker);
        }
    }
}

// ---- the client: capture, send, hear ----

/// One speaker heard by this client.
#[derive(Debug)]
struct Speaker {
    decoder: VoiceDecoder,
    stream: Option<Handle>,
    /// The ghost object it is heard at (3D), or None (2D).
    at: Option<ObjectId>,
    last_ms: u64,
}

/// A client's voice: the input and its capture, the packets waiting for the server and the
/// speakers it hears.
#[derive(Debug, Default)]
pub struct ClientVoice {
    /// `--audio-input FILE.wav`.
    input: Option<PathBuf>,
    capture: Option<VoiceCapture>,
    /// `alxCaptureStart(true)`: heard here, not sent.
    local: bool,
    outgoing: VecDeque<Vec<u8>>,
    speakers: BTreeMap<u32, Speaker>,
    pub(crate) elapsed_ms: u64,
    /// Packets captured (sent or heard locally), for reports and tests.
    pub captured: u64,
    /// Packets heard from the server, and of them the ones the decoder refused.
    pub heard: u64,
    /// Packets the decoder refused.
    pub refused: u64,
}

/// The speaker id of the local test (`alxCaptureStart(true)`).
const LOCAL_SPEAKER: u32 = u32::MAX;

fn voice_description(in_3d: bool) -> Description {
    Description {
        is_3d: in_3d,
        reference_distance: 8.0,
        max_distance: 150.0,
        channel: channel::CHAT,
        ..Description::default()
    }
}

impl ClientVoice {
    /// Speaks `path` when capturing (`--audio-input`).
    pub fn set_input(&mut self, path: Option<PathBuf>) {
        self.input = path;
        self.capture = None;
    }

    /// True while capturing.
    pub fn is_capturing(&self) -> bool {
        self.capture.as_ref().is_some_and(VoiceCapture::is_capturing)
    }

    fn open_input(&self) -> Result<VoiceCapture, String> {
        let input: Box<dyn v12_audio::AudioInput> = match &self.input {
            Some(p) => Box::new(v12_audio::WavInput::open(p).map_err(|e| e.to_string())?),
            None => open_microphone()?,
        };
        VoiceCapture::new(input).map_err(|e| e.to_string())
    }

    /// Starts capturing (`local`: heard here only). An input that does not open is an error.
    pub fn start(&mut self, local: bool) -> Result<(), String> {
        if self.capture.is_none() {
            let c = self.open_input()?;
            tracing::info!(input = c.input_name(), "voice input open");
            self.capture = Some(c);
        }
        self.local = local;
        if let Some(c) = &mut self.capture {
            c.start();
        }
        Ok(())
    }

    /// Stops capturing.
    pub fn stop(&mut self, mixer: &mut v12_audio::Mixer) {
        let last = self.capture.as_mut().and_then(VoiceCapture::stop);
        if let Some(p) = last {
            self.deliver(mixer, p);
        }
    }

    fn deliver(&mut self, mixer: &mut v12_audio::Mixer, packet: Vec<u8>) {
        self.captured += 1;
        if self.local {
            let now = self.elapsed_ms;
            self.hear(mixer, LOCAL_SPEAKER, None, &packet, now, &mut BTreeMap::new());
        } else {
            if self.outgoing.len() >= MAX_OUTGOING {
                self.outgoing.pop_front();
            }
            self.outgoing.push_back(packet);
        }
    }

    /// `ms` more: what the input heard becomes packets; silent speakers are forgotten.
    pub(crate) fn advance(
        &mut self,
        mixer: &mut v12_audio::Mixer,
        followers: &mut BTreeMap<(ObjectId, u32), Handle>,
        ms: u64,
    ) {
        self.elapsed_ms += ms;
        let packets = self.capture.as_mut().map(|c| c.advance(ms)).unwrap_or_default();
        for p in packets {
            self.deliver(mixer, p);
        }
        let now = self.elapsed_ms;
        let idle: Vec<u32> = self
            .speakers
            .iter()
            .filter(|(_, s)| now - s.last_ms.min(now) > SPEAKER_IDLE_MS)
            .map(|(&k, _)| k)
            .collect();
        for k in idle {
            if let Some(s) = self.speakers.remove(&k) {
                drop_stream(mixer, followers, &s);
            }
        }
    }

    /// Takes the packets waiting for the server.
    pub fn take_outgoing(&mut self) -> Vec<Vec<u8>> {
        self.outgoing.drain(..).collect()
    }

    /// Plays one packet from `speaker`, at ghost object `at` (3D) or in 2D.
    pub(crate) fn hear(
        &mut self,
        mixer: &mut v12_audio::Mixer,
        speaker: u32,
        at: Option<ObjectId>,
        packet: &[u8],
        now: u64,
        followers: &mut BTreeMap<(ObjectId, u32), Handle>,
    ) {
        self.heard += 1;
        if !self.speakers.contains_key(&speaker) {
            if self.speakers.len() >= MAX_SPEAKERS {
                tracing::debug!(speaker, "{MAX_SPEAKERS} speakers already: not heard");
                return;
            }
            let Ok(decoder) = VoiceDecoder::new() else { return };
            self.speakers.insert(speaker, Speaker { decoder, stream: None, at, last_ms: now });
        }
        let Some(s) = self.speakers.get_mut(&speaker) else { return };
        s.last_ms = now;
        let pcm = match s.decoder.decode(packet) {
            Ok(pcm) => pcm.to_vec(),
            Err(e) => {
                self.refused += 1;
                tracing::debug!(speaker, "{e}");
                return;
            }
        };
        let live = s.stream.is_some_and(|h| mixer.stream_queued(h).is_some());
        if !live || s.at != at {
            drop_stream(mixer, followers, s);
            s.at = at;
            s.stream = mixer.create_stream(&voice_description(at.is_some()), None);
            if let (Some(obj), Some(h)) = (at, s.stream) {
                followers.insert((obj, VOICE_SLOT), h);
            }
        }
        if let Some(h) = s.stream {
            mixer.push_stream(h, &pcm);
        }
    }
}

fn drop_stream(mixer: &mut v12_audio::Mixer, followers: &mut BTreeMap<(ObjectId, u32), Handle>, s: &Speaker) {
    if let Some(h) = s.stream {
        mixer.stop(h);
    }
    if let Some(obj) = s.at {
        followers.remove(&(obj, VOICE_SLOT));
    }
}

#[cfg(feature = "sound")]
fn open_microphone() -> Result<Box<dyn v12_audio::AudioInput>, String> {
    v12_audio::CpalInput::open()
        .map(|m| Box::new(m) as Box<dyn v12_audio::AudioInput>)
        .map_err(|e| e.to_string())
}

#[cfg(not(feature = "sound"))]
fn open_microphone() -> Result<Box<dyn v12_audio::AudioInput>, String> {
    Err("no voice input: give one with --audio-input FILE.wav (or build with --features sound for the microphone)"
        .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_passes_speech_and_mutes_then_drops_a_flood() {
        let mut r = VoiceRelay::default();
        let conn = ConnectionId(1);
        // 10 s of speech: 50 packets of 40 bytes a second.
        for i in 0..500u64 {
            assert_eq!(r.admit(conn, 40, i * 20), Verdict::Pass, "packet {i}");
        }
        // A flood: 160-byte packets every millisecond.
        let mut t = 10_000;
        let mut verdicts = Vec::new();
        while verdicts.len() < 3 && t < 100_000 {
            match r.admit(conn, 160, t) {
                Verdict::Pass | Verdict::Drop => {}
                v => verdicts.push((t, v)),
            }
            t += 1;
        }
        assert!(
            matches!(verdicts[0].1, Verdict::Mute(ref why) if why.contains("voice flood")),
            "{verdicts:?}"
        );
        assert!(matches!(verdicts[1].1, Verdict::Mute(_)));
        assert!(verdicts[1].0 >= verdicts[0].0 + MUTE_MS, "muted meanwhile");
        assert!(matches!(verdicts[2].1, Verdict::Disconnect(_)), "{verdicts:?}");
        // Over the whole flood, no more than the cap passed.
        assert!(r.relayed <= 500 + (t - 10_000) * u64::from(VOICE_CAP_BYTES_PER_S) / 1000 / 180 + 25);
    }

    #[test]
    fn junk_voice_events_are_refused() {
        let mut w = v12_bitstream::BitWriter::new();
        w.write_int(7, 32);
        w.write_flag(false);
        w.write_int(255, 8);
        let bytes = w.into_bytes();
        let mut r = v12_bitstream::BitReader::new(&bytes);
        assert!(VoiceDown::read(&mut r).is_err());
        let mut audio = v12_audio::Audio::open(&v12_audio::DeviceChoice::Null);
        let mut voice = ClientVoice::default();
        let mut followers = BTreeMap::new();
        for n in 2..MAX_PACKET_BYTES {
            let junk: Vec<u8> = (0..n).map(|i| (i * 37 + n) as u8).collect();
            voice.hear(audio.mixer_mut(), 1, None, &junk, 0, &mut followers);
        }
        // A flood of speakers: at most MAX_SPEAKERS decoders.
        for sp in 0..100 {
            voice.hear(audio.mixer_mut(), sp, None, &[0xfc, 0xff, 0xfe], 0, &mut followers);
        }
        assert!(voice.speakers.len() <= MAX_SPEAKERS);
        audio.advance(100);
    }

    #[test]
    fn listening_is_per_pair() {
        let mut r = VoiceRelay::default();
        assert!(r.listens(1, 2) && !r.listens(2, 2));
        r.listen_to(1, 2, false);
        assert!(!r.listens(1, 2) && r.listens(2, 1));
        r.listen_to(1, 2, true);
        assert!(r.listens(1, 2));
    }
}
