//! Process-level: a listen server (`v12 -- -listen`, not dedicated) hosts the match and
//! joins it itself over loopback, and a second `v12` process joins it as a remote bot. The
//! host's player gets ghosts and a control object, both see the same final scoreboard,
//! and both processes quit on their own when the match ends.

#[path = "common/procs.rs"]
mod procs;

use procs::{V12, collect, listening, start};
use std::process::Command;
use std::time::Duration;

fn scoreboard(lines: &[String]) -> Option<String> {
    lines.iter().rev().find_map(|l| l.strip_prefix("SCOREBOARD ").map(|s| s.trim().to_string()))
}

fn max_field(lines: &[String], prefix: &str, key: &str) -> f64 {
    lines
        .iter()
        .filter(|l| l.starts_with(prefix))
        .flat_map(|l| l.split_whitespace())
        .filter_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse::<f64>().ok())
        .fold(0.0, f64::max)
}

#[test]
fn listen_server_hosts_and_joins_itself_and_a_remote_bot() {
    // Port 0: the host binds a free port and joins itself on whatever it got.
    let (mut host, host_rx) =
        start(&["--", "-listen", "-bot", "-name", "Host", "-port", "0", "-seconds", "5"]);
    let addr = listening(&host_rx);
    let (mut guest, guest_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Guest"]);
    let host_lines = collect(&mut host, &host_rx, Duration::from_secs(60));
    let guest_lines = collect(&mut guest, &guest_rx, Duration::from_secs(30));
    let host_status = host.wait().expect("host exits");
    let guest_status = guest.wait().expect("guest exits");
    let all = host_lines.join("\n");
    assert!(host_status.success(), "host exit {host_status:?}\n{all}");
    assert!(guest_status.success(), "guest exit {guest_status:?}");
    // The host's own client joined through the short-circuit link; the guest over UDP.
    assert!(all.contains("server: Host joined (local)"), "{all}");
    assert!(all.contains("server: Guest joined\n"), "{all}");
    // Encryption is on by default ($Pref::Net::Encryption).
    assert!(all.contains("server: Guest is on an encrypted connection"), "{all}");
    assert!(all.contains("client: connection accepted"), "{all}");
    assert!(all.contains("client: match over"), "{all}");
    // The host's own client sees ghosts over its own connection; the server saw both players.
    assert!(max_field(&host_lines, "CLIENT ", "ghosts") >= 2.0, "{all}");
    assert_eq!(max_field(&host_lines, "STATUS ", "players"), 2.0, "{all}");
    let board = scoreboard(&host_lines).expect("host scoreboard");
    assert!(board.contains("Host=") && board.contains("Guest="), "{board}");
    assert_eq!(scoreboard(&guest_lines).as_deref(), Some(board.as_str()), "{all}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A dedicated server that requires connect tokens (`-token-key`) admits the bot whose
/// token a matchmaker sealed with that key, and refuses one without a token and one whose
/// token was sealed with another key, each with the reason.
#[test]
fn a_server_with_a_token_key_admits_only_clients_with_its_tokens() {
    use rand_core::SeedableRng;
    use v12_netobject::ConnectToken;
    let key = [0x5A; 32];
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let token = |key: &[u8; 32], id: u64| {
        let t = ConnectToken { client_id: id, expires_unix_s: now + 120, user_data: b"team=red".to_vec() };
        let issued = t.issue(key, &mut chacha20::ChaCha20Rng::seed_from_u64(id));
        format!("{} {}", hex(&issued.sealed), hex(&issued.key))
    };
    let (mut server, server_rx) =
        start(&["--dedicated", "--", "-port", "0", "-seconds", "4", "-token-key", &hex(&key)]);
    let addr = listening(&server_rx);
    let good = token(&key, 7);
    let forged = token(&[1; 32], 8);
    let (mut ok, ok_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Vouched", "-token", &good]);
    let (mut none, none_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Anon"]);
    let (mut bad, bad_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Forger", "-token", &forged]);
    let server_lines = collect(&mut server, &server_rx, Duration::from_secs(60)).join("\n");
    let ok_lines = collect(&mut ok, &ok_rx, Duration::from_secs(30)).join("\n");
    let none_lines = collect(&mut none, &none_rx, Duration::from_secs(30)).join("\n");
    let bad_lines = collect(&mut bad, &bad_rx, Duration::from_secs(30)).join("\n");
    for c in [&mut server, &mut ok, &mut none, &mut bad] {
        let _ = c.wait();
    }
    assert!(
        server_lines.contains("server: Vouched is on an encrypted connection (connect token 7, team=red)"),
        "{server_lines}"
    );
    assert!(ok_lines.contains("client: match over"), "{ok_lines}");
    assert!(none_lines.contains("client: connection rejected: connect token invalid"), "{none_lines}");
    assert!(bad_lines.contains("client: connection rejected: connect token invalid"), "{bad_lines}");
    assert!(
        !server_lines.contains("Anon joined") && !server_lines.contains("Forger joined"),
        "{server_lines}"
    );
}

/// StaticShapes block players, on the server and in the client's prediction alike: a probe
/// mod pens the bot's player in four walls (`StaticShapeData` with a `boundingBox`); after
/// three seconds of the bot running about it is still inside, and the client's predicted
/// walk agreed with the server's (few corrections).
#[test]
fn static_shapes_pen_a_player_in_on_server_and_client() {
    let probe = procs::Scratch::new("pen-probe");
    std::fs::write(
        probe.join("pen_probe.cs"),
        "datablock StaticShapeData(PenWall) { boundingBox = \"12 1 6\"; };\n\
         datablock StaticShapeData(PenSide) { boundingBox = \"1 12 6\"; };\n\
         function probePen()\n\
         {\n\
            %cl = ClientGroup.getCount() > 0 ? ClientGroup.getObject(0) : 0;\n\
            if (!isObject(%cl) || !isObject(%cl.player)) { schedule(200, 0, probePen); return; }\n\
            $penAt = %cl.player.getPosition();\n\
            %x = getWord($penAt, 0); %y = getWord($penAt, 1); %z = getWord($penAt, 2) - 1;\n\
            MissionCleanup.add(new StaticShape() { dataBlock = PenWall; position = %x SPC %y + 4 SPC %z; });\n\
            MissionCleanup.add(new StaticShape() { dataBlock = PenWall; position = %x SPC %y - 4 SPC %z; });\n\
            MissionCleanup.add(new StaticShape() { dataBlock = PenSide; position = %x + 4 SPC %y SPC %z; });\n\
            MissionCleanup.add(new StaticShape() { dataBlock = PenSide; position = %x - 4 SPC %y SPC %z; });\n\
            schedule(3000, 0, probeCheck, %cl);\n\
         }\n\
         function probeCheck(%cl)\n\
         {\n\
            %p = %cl.player.getPosition();\n\
            %dx = mAbs(getWord(%p, 0) - getWord($penAt, 0));\n\
            %dy = mAbs(getWord(%p, 1) - getWord($penAt, 1));\n\
            echo(\"PEN inside=\" @ (%dx < 3.5 && %dy < 3.5) @ \" moved=\" @ (%dx + %dy > 0.5));\n\
         }\n\
         schedule(500, 0, probePen);\n",
    )
    .unwrap();
    let probe_dir = probe.to_str().unwrap();
    let (mut server, server_rx) = start(&[
        "--dedicated",
        "--add-mod",
        probe_dir,
        "--exec",
        "pen_probe.cs",
        "--",
        "-port",
        "0",
        "-seconds",
        "5",
    ]);
    let addr = listening(&server_rx);
    let (mut client, client_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Penned"]);
    let server_lines = collect(&mut server, &server_rx, Duration::from_secs(60)).join("\n");
    let client_lines = collect(&mut client, &client_rx, Duration::from_secs(30));
    let _ = (server.wait(), client.wait());
    assert!(server_lines.contains("PEN inside=1 moved=1"), "{server_lines}");
    let corrections = max_field(&client_lines, "FINAL", "corrections");
    // A few are expected: the walls block on the server a round trip before their ghosts
    // reach the client, and a ghost's position is quantized, so a player pressed against a
    // wall can stand a millimetre apart on the two sides (3 or 4 on a quiet machine, 7 seen
    // on a loaded one).
    assert!(corrections <= 12.0, "prediction disagreed with the server {corrections} times");
}

/// On a client, ghosts are console objects too: `ServerConnection.getControlObject()` is the
/// client's player, which answers `getPosition`, `getDataBlock` and `getGhostID`, and
/// `resolveGhostID` finds it again; changing a ghost is a console error, not a crash; the
/// client's container queries see it.
#[test]
fn a_clients_ghosts_are_console_objects_its_scripts_can_query() {
    let probe = procs::Scratch::new("ghost-probe");
    std::fs::write(
        probe.join("ghost_probe.cs"),
        "function probeGhosts()\n\
         {\n\
            %p = ServerConnection.getControlObject();\n\
            if (!isObject(%p)) { schedule(200, 0, probeGhosts); return; }\n\
            echo(\"PROBE control=\" @ %p.getClassName() @ \" resolves=\" @\n\
               (ServerConnection.resolveGhostID(%p.getGhostID()) == %p) @ \" datablock=\" @\n\
               %p.getDataBlock().getName() @ \" words=\" @ getWordCount(%p.getPosition()));\n\
            echo(\"PROBE set=\" @ %p.setTransform(\"0 0 0\"));\n\
            %pos = %p.getPosition();\n\
            %top = VectorAdd(%pos, \"0 0 5\");\n\
            %low = VectorSub(%pos, \"0 0 1\");\n\
            %ray = containerRayCast(%top, %low, $TypeMasks::PlayerObjectType);\n\
            %own = containerRayCast(%top, %low, $TypeMasks::PlayerObjectType, 0, true);\n\
            %past = containerRayCast(%top, %low, $TypeMasks::PlayerObjectType, %p, true);\n\
            initContainerRadiusSearch(%pos, 30, $TypeMasks::PlayerObjectType);\n\
            while ((%o = containerSearchNext()) != 0) if (%o == %p) %found = 1;\n\
            echo(\"PROBE ray=\" @ (firstWord(%ray) == %p) @ \" own=\" @ (firstWord(%own) == %p) @\n\
               \" exempt=\" @ (firstWord(%past) != %p) @ \" found=\" @ (%found == 1) @\n\
               \" z=\" @ (getWord(%ray, 3) - getWord(%pos, 2) > 1));\n\
         }\n\
         schedule(500, 0, probeGhosts);\n",
    )
    .unwrap();
    let (mut server, server_rx) = start(&["--dedicated", "--", "-port", "0", "-seconds", "4"]);
    let addr = listening(&server_rx);
    let probe_dir = probe.to_str().unwrap();
    let (mut client, client_rx) = start(&[
        "--connect",
        &addr,
        "--add-mod",
        probe_dir,
        "--exec",
        "ghost_probe.cs",
        "--",
        "-name",
        "Asker",
    ]);
    let client_lines = collect(&mut client, &client_rx, Duration::from_secs(30)).join("\n");
    let _ = collect(&mut server, &server_rx, Duration::from_secs(30));
    let _ = (server.wait(), client.wait());
    assert!(
        client_lines.contains("PROBE control=Player resolves=1 datablock=LightMale words=3"),
        "{client_lines}"
    );
    assert!(client_lines.contains("PROBE set=0"), "{client_lines}");
    // The client container holds the ghosts where they are drawn: a ray down onto the
    // player's head finds its ghost object (a process without a server asks its client's
    // container), the exempt object is passed through, and a radius search finds it.
    assert!(client_lines.contains("PROBE ray=1 own=1 exempt=1 found=1 z=1"), "{client_lines}");
}

/// The journal on a real session: a dedicated server records (`--journal-record`) while a bot
/// plays against it; replaying the journal (`--journal-play`, no network) prints the same
/// console output and the same hash of the simulation's state. A cut journal is a clear
/// error, not a panic.
#[test]
fn a_journaled_server_replays_to_the_same_state_and_output() {
    let dir = procs::Scratch::new("journal");
    let journal = dir.join("server.jnl");
    let j = journal.to_str().unwrap();
    let (mut server, server_rx) =
        start(&["--dedicated", "--journal-record", j, "--seed", "5", "--", "-port", "0", "-seconds", "4"]);
    let addr = listening(&server_rx);
    let (mut bot, bot_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Journaled"]);
    let recorded = collect(&mut server, &server_rx, Duration::from_secs(60));
    let _ = collect(&mut bot, &bot_rx, Duration::from_secs(30));
    let _ = (server.wait(), bot.wait());
    let (mut replay, replay_rx) =
        start(&["--dedicated", "--journal-play", j, "--seed", "5", "--", "-port", "0", "-seconds", "4"]);
    let replayed = collect(&mut replay, &replay_rx, Duration::from_secs(60));
    assert!(replay.wait().expect("replay exits").success(), "{replayed:?}");
    // Console output and result lines, without the ones that measure wall time or ports.
    let same = |lines: &[String]| -> Vec<String> {
        lines.iter().filter(|l| !l.starts_with("STATUS ") && !l.starts_with("LISTENING ")).cloned().collect()
    };
    let (a, b) = (same(&recorded), same(&replayed));
    assert!(a.iter().any(|l| l == "server: Journaled joined"), "{a:?}");
    assert!(a.iter().any(|l| l.starts_with("STATEHASH ")), "{a:?}");
    assert_eq!(a, b, "the replay's output differs");
    // A journal cut short: the replay stops with the reason.
    let bytes = std::fs::read(&journal).unwrap();
    std::fs::write(&journal, &bytes[..bytes.len() / 2]).unwrap();
    let out = Command::new(V12)
        .args([
            "--mod",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game"),
            "--dedicated",
            "--journal-play",
            j,
        ])
        .args(["--seed", "5", "--", "-port", "0", "-seconds", "4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("journal"), "{stderr}");
}

/// A demo begun mid-match: a bot's script starts `recordDemo` two seconds into the match and
/// stops it a second and a half later; `v12 --play-demo` plays the file with no server and
/// ends holding the very ghost states the client held when it stopped. A corrupt demo is an
/// error with the reason.
#[test]
fn a_mid_match_demo_plays_back_to_the_same_ghost_states() {
    let name = format!("demos/test-{}.dem", std::process::id());
    let probe = procs::Scratch::new("demo-probe");
    std::fs::write(
        probe.join("demo_probe.cs"),
        format!(
            "schedule(2000, 0, recordDemo, \"{name}\");\n\
             schedule(3500, 0, stopDemo);\n"
        ),
    )
    .unwrap();
    let (mut server, server_rx) = start(&["--dedicated", "--", "-port", "0", "-seconds", "5"]);
    let addr = listening(&server_rx);
    let probe_dir = probe.to_str().unwrap();
    let (mut bot, bot_rx) = start(&[
        "--connect",
        &addr,
        "--add-mod",
        probe_dir,
        "--exec",
        "demo_probe.cs",
        "--",
        "-bot",
        "-name",
        "Rec",
    ]);
    let bot_lines = collect(&mut bot, &bot_rx, Duration::from_secs(30));
    let _ = collect(&mut server, &server_rx, Duration::from_secs(30));
    let _ = (server.wait(), bot.wait());
    let hash = |lines: &[String]| lines.iter().find_map(|l| l.strip_prefix("DEMOHASH ").map(str::to_string));
    let recorded =
        hash(&bot_lines).unwrap_or_else(|| panic!("no DEMOHASH from the recording: {bot_lines:?}"));
    let file = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game")).join(&name);
    let out = Command::new(V12)
        .args(["--mod", concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game"), "--play-demo"])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let played: Vec<String> = stdout.lines().map(str::to_string).collect();
    assert_eq!(hash(&played).as_deref(), Some(recorded.as_str()), "{stdout}");
    assert!(stdout.contains("demo: played "), "{stdout}");
    // One byte flipped: refused with the reason, exit 1.
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let out = Command::new(V12)
        .args(["--mod", concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game"), "--play-demo"])
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    if let Some(dir) = file.parent() {
        let _ = std::fs::remove_dir(dir); // only if no one else's demos are there
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("corrupt"), "{stderr}");
}

/// Owner objects (the owned-object model) in the game: each player is owned by its client, whose
/// bot waves with a control message the server's `LightMale::onControlMessage` takes; a client that
/// sends a control message for an object it does not own is dropped as a cheater, and the
/// other client plays on.
#[test]
fn owners_send_control_messages_and_others_are_dropped_as_cheaters() {
    let probe = procs::Scratch::new("owner-probe");
    std::fs::write(
        probe.join("cheat.cs"),
        "function cheat()\n\
         {\n\
            %own = ServerConnection.getControlObject();\n\
            if (!isObject(%own)) { schedule(300, 0, cheat); return; }\n\
            for (%i = 0; %i < 64; %i++)\n\
            {\n\
               %g = ServerConnection.resolveGhostID(%i);\n\
               if (%g != 0 && %g != %own) { echo(\"PROBE orders ghost \" @ %i); sendControlMessage(%g, \"wave\"); return; }\n\
            }\n\
            schedule(300, 0, cheat);\n\
         }\n\
         schedule(300, 0, cheat);\n",
    )
    .unwrap();
    let (mut server, server_rx) = start(&["--dedicated", "--", "-port", "0", "-seconds", "5"]);
    let addr = listening(&server_rx);
    let (mut honest, honest_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Honest"]);
    let probe_dir = probe.to_str().unwrap().to_string();
    let (mut cheater, cheater_rx) = start(&[
        "--connect",
        &addr,
        "--add-mod",
        &probe_dir,
        "--exec",
        "cheat.cs",
        "--",
        "-bot",
        "-name",
        "Cheater",
    ]);
    let server_lines = collect(&mut server, &server_rx, Duration::from_secs(60)).join("\n");
    let honest_lines = collect(&mut honest, &honest_rx, Duration::from_secs(30)).join("\n");
    let cheater_lines = collect(&mut cheater, &cheater_rx, Duration::from_secs(30)).join("\n");
    let _ = (server.wait(), honest.wait(), cheater.wait());
    assert!(server_lines.contains("server: Honest waves"), "{server_lines}");
    assert!(cheater_lines.contains("PROBE orders ghost"), "{cheater_lines}");
    assert!(
        cheater_lines.contains("client: connection dropped: cheater: control message for object"),
        "{cheater_lines}"
    );
    assert!(server_lines.contains("server: Cheater left (cheater"), "{server_lines}");
    assert!(honest_lines.contains("client: match over"), "{honest_lines}");
}

/// The journal covers the remote console too: a telnet client types a password and a line
/// into a journaled server; the replay, with no network, runs the same line and prints the
/// same output. (On the tests' probe mod: no game is needed.)
#[test]
fn a_journaled_server_replays_its_telnet_console() {
    use std::io::{Read, Write};
    let dir = procs::Scratch::new("journal-telnet");
    let journal = dir.join("server.jnl");
    let j = journal.to_str().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
    let args = |mode: &'static str| {
        vec![
            "--dedicated",
            mode,
            j,
            "--seed",
            "6",
            "--",
            "-port",
            "0",
            "-seconds",
            "3",
            "-telnet",
            &port,
            "pw",
            "peek",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let rec_args = args("--journal-record");
    let (mut server, server_rx) =
        procs::start_mod(procs::PROBE, &rec_args.iter().map(String::as_str).collect::<Vec<_>>());
    listening(&server_rx);
    let mut telnet = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())) {
            Ok(s) => break s,
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    telnet.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 512];
    let mut read_until = |t: &mut std::net::TcpStream, what: &str, seen: &mut String| {
        while !seen.contains(what) {
            let n = t.read(&mut buf).unwrap_or(0);
            assert!(n > 0, "telnet closed before {what:?}: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    };
    read_until(&mut telnet, "Password:", &mut seen);
    telnet.write_all(b"pw\r\necho(\"TELNET \" @ getWordCount(\"a b c\"));\r\n").unwrap();
    read_until(&mut telnet, "TELNET 3", &mut seen);
    drop(telnet);
    let recorded = collect(&mut server, &server_rx, Duration::from_secs(60));
    let _ = server.wait();
    let play_args = args("--journal-play");
    let (mut replay, replay_rx) =
        procs::start_mod(procs::PROBE, &play_args.iter().map(String::as_str).collect::<Vec<_>>());
    let replayed = collect(&mut replay, &replay_rx, Duration::from_secs(60));
    assert!(replay.wait().expect("replay exits").success(), "{replayed:?}");
    let same = |lines: &[String]| -> Vec<String> {
        lines.iter().filter(|l| !l.starts_with("STATUS ") && !l.starts_with("LISTENING ")).cloned().collect()
    };
    let (a, b) = (same(&recorded), same(&replayed));
    assert!(a.iter().any(|l| l == "TELNET 3"), "{a:?}");
    assert_eq!(a, b, "the replay's output differs");
}
