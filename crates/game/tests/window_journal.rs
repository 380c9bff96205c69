//! The window client's journal: the client's engine side (`ClientFront`, what the window
//! drives) records a session against a real server while it is fed platform events as the
//! window feeds them (Enter on the main menu joins, W runs, space jumps, the mouse moves, the
//! window is resized, then closed); `v12 --window --journal-play FILE` replays it with no
//! window, no display and no network, prints the same console output and ends in the same
//! state (the same STATEHASH).

#[path = "common/procs.rs"]
mod procs;

use procs::{collect, listening, start};
use std::sync::Mutex;
use std::time::Duration;
use v12_game::client::front::{ClientFront, WindowConfig};
use v12_game::journal::SessionJournal;
use v12_platform::{
    ConsoleEvent, Event, InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent,
};

const MOD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game");

/// What the recording front reported.
static REPORTED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn report(line: &str) {
    REPORTED.lock().unwrap().push(line.to_string());
}

fn key(name: &str, make: bool) -> Event {
    Event::Input(InputEvent {
        device_type: InputDeviceType::Keyboard,
        device_inst: 0,
        object_type: InputObjectType::Key,
        object_inst: v12_platform::key_code(name).expect("a key"),
        action: if make { InputAction::Make } else { InputAction::Break },
        modifiers: Modifiers::NONE,
        ascii: 0,
        value: if make { 1.0 } else { 0.0 },
    })
}

#[test]
fn a_recorded_window_session_replays_headless_to_the_same_state() {
    let dir = procs::Scratch::new("window-journal");
    let file = dir.join("window.jnl");
    let (mut server, server_rx) =
        start(&["--dedicated", "--seed", "9", "--", "-port", "0", "-seconds", "30"]);
    let addr = listening(&server_rx);
    let cfg = WindowConfig {
        connect: Some(addr.clone()),
        mod_dir: MOD.into(),
        mods: Vec::new(),
        exec: Vec::new(),
        v12: procs::V12.into(),
        name: "Player".into(),
        journal: Some(SessionJournal::record(&file).expect("a journal file")),
        report,
        audio_capture: None,
    };
    let mut front = ClientFront::new(cfg).expect("the client starts");
    // The session's console output from here on (the replay prints it to stdout).
    let sink = v12_console_vm::BufferSink::new();
    front.con.set_output(Box::new(sink.clone()));
    // Frame by frame, what a player at the window does: a resize and Enter (join) first, then,
    // counted from the first frame it controls a player (joining takes as long as the
    // datablocks and ghosts take to arrive), a run forward with a jump and a look.
    let joining: Vec<(u32, Vec<Event>)> = vec![
        (1, vec![Event::Console(ConsoleEvent { line: "resize 1024 700".into() })]),
        (2, vec![key("enter", true), key("enter", false)]),
    ];
    let playing: Vec<(u32, Vec<Event>)> = vec![
        (0, vec![key("w", true)]),
        (30, vec![key("space", true)]),
        (
            35,
            vec![
                key("space", false),
                Event::MouseMove(MouseMoveEvent { x_pos: 300, y_pos: 200, modifiers: Modifiers::NONE }),
            ],
        ),
        (90, vec![key("w", false)]),
        (140, vec![Event::Quit]),
    ];
    let mine = |front: &ClientFront| {
        let s = front.session()?;
        s.world_view(0).objects.into_iter().find(|o| o.is_me).map(|o| o.pos)
    };
    let (mut before, mut after, mut joined) = (None, None, None::<u32>);
    for frame in 0..=900u32 {
        if joined.is_none() && frame > 2 && mine(&front).is_some() {
            joined = Some(frame);
            before = mine(&front);
        }
        let since = joined.map(|j| frame - j);
        if since == Some(90) {
            after = mine(&front);
        }
        let due = joining.iter().filter(|(at, _)| *at == frame);
        let due = due.chain(playing.iter().filter(|(at, _)| Some(*at) == since));
        for (_, events) in due {
            for e in events {
                front.post(e.clone());
            }
        }
        front.frame().expect("a frame");
        front.render();
        if front.should_exit() {
            break;
        }
        std::thread::sleep(Duration::from_millis(16));
    }
    assert!(front.should_exit(), "the close ends the session");
    // Enter joined, W ran the player forward.
    let (a, b) = (before.expect("joined, controlling a player"), after.expect("still playing"));
    assert!(a.distance(b) > 3.0, "ran from {a} to {b}");
    assert_eq!(front.finish().expect("the recording ends"), 0);
    let recorded = REPORTED.lock().unwrap().clone();
    let hash = recorded.iter().find(|l| l.starts_with("STATEHASH ")).expect("a STATEHASH line").clone();
    let _ = server.kill();
    let _ = collect(&mut server, &server_rx, Duration::from_secs(5));
    let _ = server.wait();

    // The replay: the real program, the same flags, the server gone.
    let f = file.to_str().unwrap();
    let (mut replay, rx) = start(&["--window", "--journal-play", f, "--connect", &addr]);
    let lines = collect(&mut replay, &rx, Duration::from_secs(60));
    assert!(replay.wait().expect("the replay exits").success(), "{lines:?}");
    assert!(lines.contains(&hash), "the replay ends where the recording did: {hash} in {lines:?}");
    // The same console output: the replay's echo lines end with the recording's.
    let recorded_out: Vec<String> = sink
        .lines()
        .into_iter()
        .filter(|(l, _)| *l == v12_console_vm::Level::Normal)
        .map(|(_, t)| t)
        .collect();
    let replayed_out: Vec<String> = lines.iter().filter(|l| !l.starts_with("STATEHASH ")).cloned().collect();
    assert!(!recorded_out.is_empty(), "the session printed something");
    assert!(replayed_out.ends_with(&recorded_out), "recorded {recorded_out:?}\nreplayed {replayed_out:?}");

    // A journal cut short stops the replay with the reason, not a panic.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let out = std::process::Command::new(procs::V12)
        .args(["--mod", MOD, "--window", "--journal-play", f, "--connect", &addr])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stderr} {stdout}");
    assert!(format!("{stdout}{stderr}").contains("journal"), "{stderr} {stdout}");
}
