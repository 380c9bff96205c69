//! The fuzz targets: one function per reader of outside data. Each takes any bytes and must
//! return without panicking, hanging or allocating without bound. cargo-fuzz runs them
//! (`fuzz/cargo-fuzz`, `cargo xtask fuzz`); `tests/corpora.rs` runs every corpus file and
//! the [`seeds`] (and seeded mutations of them) in `cargo test`.
//!
//! | target | what reads the bytes |
//! | --- | --- |
//! | `notify` | the notify protocol's packet header and a live `ConnectionProtocol` (notifies stay one per packet, in order) |
//! | `handshake` | a listening `NetInterface`, the datagram from an unknown address |
//! | `packet` | a connected `NetInterface` pair, the input split into datagrams from the peer, a stranger and the server |
//! | `journal` | `JournalReader`, to the end |
//! | `demo` | `DemoPlayer::open` and playback of a demo recording |
//! | `lockstep` | the relay and peer-to-peer message decoders and `Replay::decode` |
//! | `master` | the master server's datagram handler and `Message::decode` |
//! | `parse` | the TorqueScript parser: a tree or an error; a tree prints and parses back to itself |
//! | `script` | the console: parse, compile and run the text (under the instruction budget), then 10 s of scheduled events |
//! | `sound_wav` | `v12_audio::Sound::from_bytes` on WAV-like bytes, then 2 s of it mixed (looping, resampled, 3D) |
//! | `sound_ogg` | the same entry point on Ogg Vorbis-like bytes (the Ogg page reader, lewton's decoder, streaming) |
//! | `voice` | voice chat's decoders: length-prefixed Opus packets through one `VoiceDecoder` into a played voice stream; bytes that begin as a WAV or Ogg file through `WavInput::from_bytes` (`--audio-input`) and a capture of it |

use bytes::Bytes;
use std::net::SocketAddr;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::LocalEnd;
use v12_netobject::ghost::NoObjects;
use v12_netobject::ghost::{GhostArena, GhostClassRegistryBuilder};
use v12_netobject::*;

/// Every target's name, as cargo-fuzz and the corpus folders name it.
pub const TARGETS: &[&str] = &[
    "notify",
    "handshake",
    "packet",
    "journal",
    "demo",
    "lockstep",
    "master",
    "parse",
    "script",
    "sound_wav",
    "sound_ogg",
    "voice",
];

/// Runs target `name` on `data`; `false` for an unknown name.
pub fn run(name: &str, data: &[u8]) -> bool {
    match name {
        "notify" => notify(data),
        "handshake" => handshake(data),
        "packet" => packet(data),
        "journal" => journal(data),
        "demo" => demo(data),
        "lockstep" => lockstep(data),
        "master" => master(data),
        "parse" => parse(data),
        "script" => script(data),
        "sound_wav" => sound_wav(data),
        "sound_ogg" => sound_ogg(data),
        "voice" => voice(data),
        _ => return false,
    }
    true
}

/// A guaranteed-ordered text event, so packets carry event sections.
#[derive(Debug)]
struct Line(String);

impl NetEvent for Line {
    fn guarantee(&self) -> Guarantee {
        Guarantee::GuaranteedOrdered
    }
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        write_str(w, &self.0);
    }
}

impl NetEventClass for Line {
    const NAME: &'static str = "FuzzLineEvent";
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        Ok(Line(read_str(r, 1024)?))
    }
}

fn registry() -> Arc<NetClassRegistry> {
    Arc::new(NetClassRegistryBuilder::new().register::<Line>().build().expect("one class"))
}

const SERVER: &str = "127.0.0.1:28000";
const CLIENT: &str = "127.0.0.1:50000";

fn addr(s: &str) -> SocketAddr {
    s.parse().expect("a literal address")
}

/// A server and a client connected over the in-process link, with a few events exchanged.
fn connected_pair() -> (NetInterface, NetInterface, u64) {
    let server_config = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
    let mut server = NetInterface::new(server_config, registry(), [7; 32]);
    let mut client = NetInterface::new(InterfaceConfig::default(), registry(), [9; 32]);
    let c = client.connect(0, addr(SERVER), Bytes::from_static(b"fuzz"));
    let mut now = 0;
    while now < 600 {
        pump_local(
            now,
            LocalEnd::new(&mut client, addr(CLIENT), &NoObjects, &mut GhostArena::new()),
            LocalEnd::new(&mut server, addr(SERVER), &NoObjects, &mut GhostArena::new()),
        );
        while client.poll_event().is_some() {}
        while server.poll_event().is_some() {}
        if now == 300 {
            let _ = client.post_event(c, Box::new(Line("hello".into())));
        }
        now += 16;
    }
    (server, client, now)
}

/// Datagrams a real exchange produces (handshake and connected packets), for seeds.
fn real_datagrams() -> Vec<Vec<u8>> {
    let server_config = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
    let mut server = NetInterface::new(server_config, registry(), [7; 32]);
    let mut client = NetInterface::new(InterfaceConfig::default(), registry(), [9; 32]);
    let c = client.connect(0, addr(SERVER), Bytes::from_static(b"fuzz"));
    let mut out = Vec::new();
    for step in 0..40u64 {
        let now = step * 16;
        client.handle_timeout(now);
        server.handle_timeout(now);
        if step == 20 {
            let _ = client.post_event(c, Box::new(Line("seed".into())));
        }
        while let Some((_, d)) = client.poll_transmit(now, &v12_netobject::ghost::NoObjects) {
            server.handle_datagram(now, addr(CLIENT), &d, &mut v12_netobject::ghost::GhostArena::new());
            out.push(d.to_vec());
        }
        while let Some((_, d)) = server.poll_transmit(now, &v12_netobject::ghost::NoObjects) {
            client.handle_datagram(now, addr(SERVER), &d, &mut v12_netobject::ghost::GhostArena::new());
            out.push(d.to_vec());
        }
    }
    out
}

/// A datagram from an unknown address to a listening interface.
pub fn handshake(data: &[u8]) {
    let config = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
    let mut server = NetInterface::new(config, registry(), [7; 32]);
    server.handle_datagram(0, addr(CLIENT), data, &mut v12_netobject::ghost::GhostArena::new());
    server.handle_timeout(16);
    while server.poll_transmit(16, &v12_netobject::ghost::NoObjects).is_some() {}
    while server.poll_event().is_some() {}
}

/// The input, split into datagrams by its first byte, into a connected pair: to the server as
/// its client's, to the server from a stranger, and to the client as its server's.
pub fn packet(data: &[u8]) {
    let (mut server, mut client, now) = connected_pair();
    let stranger = addr("127.0.0.1:50001");
    let size = data.first().map_or(1, |&b| usize::from(b % 64) + 1);
    for (i, chunk) in data.chunks(size).take(64).enumerate() {
        let now = now + i as u64;
        match i % 3 {
            0 => {
                server.handle_datagram(now, addr(CLIENT), chunk, &mut v12_netobject::ghost::GhostArena::new())
            }
            1 => server.handle_datagram(now, stranger, chunk, &mut v12_netobject::ghost::GhostArena::new()),
            _ => {
                client.handle_datagram(now, addr(SERVER), chunk, &mut v12_netobject::ghost::GhostArena::new())
            }
        }
        pump_local(
            now,
            LocalEnd::new(&mut client, addr(CLIENT), &NoObjects, &mut GhostArena::new()),
            LocalEnd::new(&mut server, addr(SERVER), &NoObjects, &mut GhostArena::new()),
        );
        while server.poll_event().is_some() {}
        while client.poll_event().is_some() {}
    }
}

/// The notify protocol: the header reader, then a live connection with five packets in flight
/// given the input split into datagrams at each 0xA5. Notifies stay one per packet, in order.
pub fn notify(data: &[u8]) {
    use v12_notify_protocol::{ConnectionProtocol, ProtocolConfig, WINDOW, WireHeader};
    let _ = WireHeader::read(&mut BitReader::new(data));
    let config =
        ProtocolConfig { initial_send_seq: 1020, initial_recv_seq: 1000, ..ProtocolConfig::default() };
    let mut conn = ConnectionProtocol::new(config, 0);
    let mut sent = Vec::new();
    for now in 0..5 {
        let mut w = BitWriter::new();
        sent.push(conn.begin_data_packet(now, &mut w));
    }
    let mut next = 0;
    for (i, datagram) in data.split(|&b| b == 0xA5).take(256).enumerate() {
        let now = 10 + i as u64 * 7;
        let _ = conn.handle_packet(now, &mut BitReader::new(datagram));
        conn.handle_timeout(now);
        while conn.poll_transmit(now).is_some() {}
        while let Some(n) = conn.poll_notify() {
            assert_eq!(Some(&n.seq), sent.get(next), "notify out of order");
            next += 1;
        }
        assert!(conn.in_flight() <= WINDOW);
    }
}

/// A journal file, read to its end or its first error.
pub fn journal(data: &[u8]) {
    let Ok(mut r) = v12_platform::JournalReader::new(data) else { return };
    // Every record consumes bytes, so this ends; the cap only bounds a bug's cost.
    for _ in 0..100_000 {
        match r.next_event() {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return,
        }
    }
}

/// Voice chat's decoders: a file-like input read as `--audio-input` and captured for 2 s;
/// anything else as packets (a length byte, then that many bytes) from one speaker, decoded
/// and played on a voice stream.
pub fn voice(data: &[u8]) {
    if data.starts_with(b"RIFF") || data.starts_with(b"OggS") {
        let Ok(input) = v12_audio::WavInput::from_bytes(data, "fuzz.wav") else { return };
        let Ok(mut cap) = v12_audio::VoiceCapture::new(Box::new(input)) else { return };
        cap.start();
        for _ in 0..60 {
            let _ = cap.advance(33);
        }
        let _ = cap.stop();
        return;
    }
    let Ok(mut dec) = v12_audio::VoiceDecoder::new() else { return };
    let mut audio = v12_audio::Audio::open(&v12_audio::DeviceChoice::Null);
    let desc = v12_audio::Description { is_3d: true, ..Default::default() };
    let h = audio.mixer_mut().create_stream(&desc, Some([3.0, 1.0, 0.0]));
    let mut rest = data;
    while let Some((&n, tail)) = rest.split_first() {
        let n = usize::from(n).min(tail.len());
        if let (Ok(pcm), Some(h)) = (dec.decode(&tail[..n]), h) {
            let pcm = pcm.to_vec();
            audio.mixer_mut().push_stream(h, &pcm);
        }
        audio.advance(20);
        rest = &tail[n..];
    }
}

/// Reads `data` as a sound and, if it reads, mixes 2 s of it looping in 3D off to one side,
/// at a pitch that resamples: a corrupt file is an error or ends early, never a panic.
fn sound(data: &[u8], name: &str) {
    let Ok(s) = v12_audio::Sound::from_bytes(data, name) else { return };
    let mut audio = v12_audio::Audio::open(&v12_audio::DeviceChoice::Null);
    let desc = v12_audio::Description { looping: true, is_3d: true, ..Default::default() };
    let m = audio.mixer_mut();
    if let Some(h) = m.create_source(std::rc::Rc::new(s), &desc, Some([3.0, 1.0, 0.0])) {
        m.set_param(h, v12_audio::SourceParam::Pitch, 1.7);
        m.play(h);
    }
    for _ in 0..64 {
        audio.advance(32);
    }
}

/// The WAV decoder's entry point (its seeds are WAV files).
pub fn sound_wav(data: &[u8]) {
    sound(data, "fuzz.wav");
}

/// The Ogg Vorbis decoder's entry point (its seeds are Ogg Vorbis files).
pub fn sound_ogg(data: &[u8]) {
    sound(data, "fuzz.ogg");
}

/// A demo recording, opened and played to its end.
pub fn demo(data: &[u8]) {
    let classes = Arc::new(GhostClassRegistryBuilder::new().build().expect("no ghost classes"));
    let mut world = GhostArena::new();
    if let Ok(mut player) = demo::DemoPlayer::open(data.to_vec(), registry(), classes, &mut world) {
        let _ = player.play_to_end(&mut world);
        while player.poll_event().is_some() {}
    }
}

/// The lockstep decoders (relay client and server messages, peer messages, replays).
pub fn lockstep(data: &[u8]) {
    let _ = v12_lockstep::ClientMessage::decode(data);
    let _ = v12_lockstep::ServerMessage::decode(data);
    let _ = v12_lockstep::PeerMessage::decode(data);
    if let Ok(replay) = v12_lockstep::Replay::decode(data) {
        let _ = replay.encode();
    }
}

/// The master server's handler and the directory message decoder.
pub fn master(data: &[u8]) {
    let _ = v12_master::Message::decode(data);
    let minter = v12_master::token::TokenMinter::with_key([3; 16]);
    let mut m = v12_master::MasterServer::new(v12_master::MasterConfig::default(), minter);
    m.handle_datagram(0, addr(CLIENT), data);
    while m.poll_transmit().is_some() {}
}

/// Script text: parsed, compiled and run with a small instruction budget.
pub fn script(data: &[u8]) {
    let config = v12_console_vm::ConsoleConfig {
        instruction_budget: 200_000,
        callback_budget: 50_000,
        ..v12_console_vm::ConsoleConfig::default()
    };
    let mut con = v12_console_vm::Console::with_config(config);
    con.set_output(Box::new(v12_console_vm::BufferSink::new()));
    let _ = con.eval(&v12_console_vm::decode_source(data));
    con.advance_time(10_000);
}

/// Script text to the parser: a tree or a syntax error; a tree prints and parses back to
/// itself.
pub fn parse(data: &[u8]) {
    let src = v12_console_vm::decode_source(data);
    if let Ok(ast) = v12_console_vm::parse(&src, "fuzz.cs") {
        let text = v12_console_vm::ast::print_program(&ast);
        let back = v12_console_vm::parse(&text, "printed.cs").expect("a printed program parses");
        assert_eq!(back, ast, "print then parse changed the tree");
    }
}

/// Valid inputs for a target, made by the code itself (so they follow format changes):
/// what the corpus starts from and what the regression test mutates.
pub fn seeds(name: &str) -> Vec<Vec<u8>> {
    match name {
        "handshake" | "packet" => real_datagrams(),
        "notify" => {
            use v12_notify_protocol::{ConnectionProtocol, ProtocolConfig};
            // The peer of the fuzzed connection sends data packets acknowledging it.
            let config = ProtocolConfig {
                initial_send_seq: 1000,
                initial_recv_seq: 1020,
                ..ProtocolConfig::default()
            };
            let mut peer = ConnectionProtocol::new(config, 0);
            let mut joined = Vec::new();
            for now in 0..3 {
                let mut w = BitWriter::new();
                peer.begin_data_packet(now, &mut w);
                joined.extend_from_slice(&w.into_bytes());
                joined.push(0xA5);
            }
            vec![joined]
        }
        "sound_wav" => {
            let mut out = std::io::Cursor::new(Vec::new());
            let spec = hound::WavSpec {
                channels: 2,
                sample_rate: 22_050,
                bits_per_sample: 16,
                sample_format: hound::SampleFormat::Int,
            };
            if let Ok(mut w) = hound::WavWriter::new(&mut out, spec) {
                for i in 0..2_000i32 {
                    let _ = w.write_sample(((i * 97) % 20_000 - 10_000) as i16);
                }
                let _ = w.finalize();
            }
            vec![out.into_inner()]
        }
        "sound_ogg" => vec![include_bytes!("../../crates/audio/tests/data/tone.ogg").to_vec()],
        "voice" => {
            // Ten packets of a tone, each after its length byte; and the tone file as an input.
            let mut packets = Vec::new();
            if let Ok(mut enc) = v12_audio::VoiceEncoder::new() {
                for f in 0..10 {
                    let frame: Vec<f32> = (0..v12_audio::FRAME_SAMPLES)
                        .map(|i| ((f * v12_audio::FRAME_SAMPLES + i) as f32 * 0.17).sin() * 0.5)
                        .collect();
                    if let Ok(p) = enc.encode(&frame) {
                        packets.push(p.len() as u8);
                        packets.extend_from_slice(&p);
                    }
                }
            }
            vec![packets, include_bytes!("../../crates/audio/tests/data/tone.ogg").to_vec()]
        }
        "journal" => {
            use v12_platform::{ConsoleEvent, Event, JournalWriter, TimeEvent};
            let mut w = JournalWriter::new(Vec::new()).expect("a writer");
            let _ = w.record(&Event::Time(TimeEvent { elapsed_ms: 32 }));
            let _ = w.record(&Event::Console(ConsoleEvent { line: "echo(1);".into() }));
            let _ = w.record(&Event::Quit);
            vec![w.finish().unwrap_or_default()]
        }
        "demo" => {
            let (mut server, mut client, now) = connected_pair();
            let c = client.connection_ids()[0];
            let mut world = GhostArena::new();
            let _ = client.start_recording(c, &mut world);
            let s = server.connection_ids()[0];
            let _ = server.post_event(s, Box::new(Line("recorded".into())));
            for t in 0..20 {
                pump_local(
                    now + t * 16,
                    LocalEnd::new(&mut client, addr(CLIENT), &NoObjects, &mut GhostArena::new()),
                    LocalEnd::new(&mut server, addr(SERVER), &NoObjects, &mut GhostArena::new()),
                );
            }
            client.stop_recording(c).into_iter().collect()
        }
        "lockstep" => {
            use v12_lockstep::{ClientMessage, PeerMessage};
            vec![
                ClientMessage::Commands { nwf: 3, checksum: Some(7), batch: vec![1, 2, 3] }.encode(),
                ClientMessage::Waited { nwf: 4, ms: 60 }.encode(),
                PeerMessage::Ping { time: 1234 }.encode(),
                PeerMessage::Helo { name: "fuzz".into() }.encode(),
            ]
        }
        "master" => {
            let info = v12_master::ServerInfo::default();
            vec![
                v12_master::Message::Heartbeat { nonce: 1, token: 2, info }.encode(),
                v12_master::Message::Query {
                    nonce: 3,
                    token: 4,
                    filter: v12_master::Filter::default(),
                    page: 0,
                }
                .encode(),
            ]
        }
        "script" | "parse" => vec![
            b"function f(%a) { return %a * 2 @ \"x\"; } echo(f(3));".to_vec(),
            b"new ScriptObject(A) { class = B; }; function B::go(%this) { %this.n++; } A.go();".to_vec(),
            b"for (%i = 0; %i < 10; %i++) { $x[%i] = getWord(\"a b c\", %i % 3); }".to_vec(),
            b"switch$ (\"b\") { case \"a\": echo(1); case \"b\" or \"c\": echo(2); default: echo(3); }"
                .to_vec(),
        ],
        _ => Vec::new(),
    }
}

/// A seeded mutation of `data` (bit flips, truncation, a copied range, inserted bytes), so the
/// regression test explores near the seeds the way a fuzzer's first minutes would.
pub fn mutate(data: &[u8], seed: u64) -> Vec<u8> {
    use rand_core::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
    let mut v = data.to_vec();
    for _ in 0..1 + rng.next_u32() % 4 {
        let len = v.len().max(1);
        match rng.next_u32() % 5 {
            0 if !v.is_empty() => {
                let i = rng.next_u32() as usize % v.len();
                v[i] ^= 1 << (rng.next_u32() % 8);
            }
            1 => v.truncate(rng.next_u32() as usize % len),
            2 if v.len() > 1 => {
                let a = rng.next_u32() as usize % v.len();
                let b = a + rng.next_u32() as usize % (v.len() - a);
                let chunk = v[a..b].to_vec();
                let at = rng.next_u32() as usize % v.len();
                v.splice(at..at, chunk);
            }
            3 => {
                let at = rng.next_u32() as usize % len;
                let byte = rng.next_u32() as u8;
                v.insert(at.min(v.len()), byte);
            }
            _ if !v.is_empty() => {
                let i = rng.next_u32() as usize % v.len();
                v[i] = [0, 0xFF, 0x7F, 0x80][rng.next_u32() as usize % 4];
            }
            _ => v.push(rng.next_u32() as u8),
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_reach_past_the_first_checks() {
        // The pair really is connected, so `packet` reaches the connected-packet reader.
        let (server, client, _) = connected_pair();
        assert_eq!((server.connection_count(), client.connection_count()), (1, 1));
        // The demo seed is a whole recording, the journal seed a whole journal.
        let classes = Arc::new(GhostClassRegistryBuilder::new().build().unwrap());
        let demo_seed = &seeds("demo")[0];
        demo::DemoPlayer::open(demo_seed.clone(), registry(), classes, &mut GhostArena::new())
            .expect("a valid demo");
        let journal_seed = &seeds("journal")[0];
        let mut r = v12_platform::JournalReader::new(&journal_seed[..]).expect("a valid journal");
        let mut n = 0;
        while let Ok(Some(_)) = r.next_event() {
            n += 1;
        }
        assert_eq!(n, 3);
        assert!(v12_lockstep::PeerMessage::decode(&seeds("lockstep")[2]).is_ok());
        assert!(v12_master::Message::decode(&seeds("master")[0]).is_ok());
    }
}
