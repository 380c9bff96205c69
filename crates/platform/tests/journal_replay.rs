//! Record a live session to a journal, play it back, and reach the same state.

use std::path::PathBuf;

use bytes::Bytes;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use v12_platform::{
    ConditionerConfig, ConsoleEvent, Datagram, Event, GameInterface, InputAction, InputDeviceType,
    InputEvent, InputObjectType, Journal, JournalError, JournalReader, LinkConditioner, LoopbackTransport,
    Modifiers, MouseMoveEvent, PacketReceiveEvent, TimeEvent, Transport,
};

/// A game whose whole state is a hash of what it was told, plus a few
/// derived numbers, so any difference in the event stream shows.
#[derive(Default, Debug, PartialEq)]
struct HashGame {
    hash: u64,
    time_ms: u64,
    packets: u64,
    packet_bytes: u64,
    keys_down: u32,
    quit: bool,
}

impl HashGame {
    fn mix(&mut self, v: u64) {
        // FNV-1a over the value's bytes.
        for b in v.to_le_bytes() {
            self.hash = (self.hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

impl GameInterface for HashGame {
    fn process_input_event(&mut self, e: InputEvent) {
        match e.action {
            InputAction::Make => self.keys_down += 1,
            InputAction::Break => self.keys_down = self.keys_down.saturating_sub(1),
            InputAction::Move => {}
        }
        self.mix(u64::from(e.object_inst) << 32 | u64::from(e.value.to_bits()));
    }
    fn process_mouse_move_event(&mut self, e: MouseMoveEvent) {
        self.mix((e.x_pos as u64) << 32 ^ e.y_pos as u64);
    }
    fn process_packet_receive_event(&mut self, e: PacketReceiveEvent) {
        self.packets += 1;
        self.packet_bytes += e.data.len() as u64;
        self.mix(u64::from(e.source.port()));
        for &b in e.data.iter() {
            self.mix(u64::from(b));
        }
    }
    fn process_time_event(&mut self, e: TimeEvent) {
        self.time_ms += u64::from(e.elapsed_ms);
        self.mix(self.time_ms);
    }
    fn process_quit_event(&mut self) {
        self.quit = true;
    }
    fn process_console_event(&mut self, e: ConsoleEvent) {
        for b in e.line.bytes() {
            self.mix(u64::from(b));
        }
    }
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("v12-platform-{}-{name}.v12j", std::process::id()))
}

/// The live session: a server port fed by a client through a poor link, key
/// presses and mouse moves from a seeded "player", a time event per 32 ms frame.
/// Every event goes through `dispatch`, which records it when recording.
fn live_session(journal: Journal) -> HashGame {
    let (client, mut server) = LoopbackTransport::pair();
    let server_addr = server.local_addr();
    let mut client = LinkConditioner::new(client, ConditionerConfig::poor(), 5);
    let mut player = Pcg32::seed_from_u64(77);
    let mut session = journal.open().unwrap();
    let mut game = HashGame::default();
    let mut inbox: Vec<Datagram> = Vec::new();
    for frame in 0..300u64 {
        let now = frame * 32;
        let len = 8 + (player.next_u32() % 100) as usize;
        let mut payload = vec![0u8; len];
        player.fill_bytes(&mut payload);
        client.send_to(now, server_addr, &payload).unwrap();
        client.poll(now).unwrap();
        inbox.clear();
        server.recv_batch(now, &mut inbox).unwrap();
        for d in inbox.drain(..) {
            session.dispatch(&mut game, d.into()).unwrap();
        }
        if player.next_u32() % 4 == 0 {
            let action = if player.next_u32() % 2 == 0 { InputAction::Make } else { InputAction::Break };
            let input = InputEvent {
                device_type: InputDeviceType::Keyboard,
                device_inst: 0,
                object_type: InputObjectType::Key,
                object_inst: (player.next_u32() % 128) as u16,
                action,
                modifiers: Modifiers(player.next_u32() as u8 & 0x3f),
                ascii: 0,
                value: if action == InputAction::Make { 1.0 } else { 0.0 },
            };
            session.dispatch(&mut game, Event::Input(input)).unwrap();
        }
        if frame % 10 == 0 {
            let mv = MouseMoveEvent {
                x_pos: player.next_u32() as i32 % 800,
                y_pos: -7,
                modifiers: Modifiers::NONE,
            };
            session.dispatch(&mut game, Event::MouseMove(mv)).unwrap();
        }
        if frame == 150 {
            session
                .dispatch(&mut game, Event::Console(ConsoleEvent { line: "$pref::x = 1;".into() }))
                .unwrap();
        }
        session.dispatch(&mut game, Event::Time(TimeEvent { elapsed_ms: 32 })).unwrap();
    }
    session.dispatch(&mut game, Event::Quit).unwrap();
    session.finish().unwrap();
    game
}

#[test]
fn playback_reaches_the_live_state() {
    let path = temp_path("replay");
    let live = live_session(Journal::Record(path.clone()));
    assert!(live.packets > 200 && live.quit && live.time_ms == 300 * 32, "{live:?}");
    assert_eq!(live, live_session(Journal::Off), "the live session itself is deterministic");

    let mut session = Journal::Play(path.clone()).open().unwrap();
    assert!(session.is_playing());
    let mut replayed = HashGame::default();
    // Live events offered during playback are ignored.
    session
        .dispatch(
            &mut replayed,
            Event::PacketReceive(PacketReceiveEvent {
                source: "1.2.3.4:5".parse().unwrap(),
                data: Bytes::from_static(b"noise"),
            }),
        )
        .unwrap();
    let played = session.play_to_end(&mut replayed).unwrap();
    assert!(played > 600);
    assert_eq!(replayed, live);

    // The same journal read as a plain iterator gives the same events.
    let events: Result<Vec<Event>, JournalError> = JournalReader::open(&path).unwrap().collect();
    assert_eq!(events.unwrap().len() as u64, played);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_truncated_file_stops_playback_with_an_error() {
    let path = temp_path("cut");
    live_session(Journal::Record(path.clone()));
    let full = std::fs::read(&path).unwrap();
    std::fs::write(&path, &full[..full.len() / 2]).unwrap();
    let mut session = Journal::Play(path.clone()).open().unwrap();
    let mut game = HashGame::default();
    let err = session.play_to_end(&mut game).unwrap_err();
    assert!(matches!(err, JournalError::Truncated { offset } if offset == (full.len() / 2) as u64), "{err}");
    assert!(err.to_string().contains("truncated at byte"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn missing_file_is_an_io_error() {
    let err = Journal::Play(temp_path("does-not-exist")).open().unwrap_err();
    assert!(matches!(err, JournalError::Io(_)));
}
