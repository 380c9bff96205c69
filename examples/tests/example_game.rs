//! The example game's own tests: what its scripts choose (the encryption default that
//! docs/SECURITY.md names) and the capture-the-flag mod (`examples/ctf`), played by `v12`
//! processes on loopback. The engine's process tests live in `crates/game/tests`.

#[path = "common/procs.rs"]
mod procs;

use procs::{collect, listening, start};
use std::time::Duration;

fn scoreboard(lines: &[String]) -> Option<String> {
    lines.iter().rev().find_map(|l| l.strip_prefix("SCOREBOARD ").map(|s| s.trim().to_string()))
}

/// The example game's encryption default (`$Pref::Net::Encryption` in `main.cs`) is what
/// docs/SECURITY.md says, `required`: a dedicated server started without `-encryption`
/// refuses a client that will not encrypt, with the reason, and admits it once the operator
/// asks for `-encryption on`.
#[test]
fn the_example_game_requires_encryption_by_default_as_the_docs_say() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let main = std::fs::read_to_string(root.join("game/main.cs")).unwrap();
    let default = main
        .lines()
        .find_map(|l| l.trim().strip_prefix("$Pref::Net::Encryption = \"")?.strip_suffix("\";"))
        .expect("main.cs sets $Pref::Net::Encryption");
    let security = std::fs::read_to_string(root.join("../docs/SECURITY.md")).unwrap();
    assert_eq!(default, "required");
    assert!(security.contains("`required` in the example game"), "docs/SECURITY.md names another default");

    for (server_flags, admitted) in [(&[][..], false), (&["-encryption", "on"][..], true)] {
        let mut args = vec!["--dedicated", "--", "-port", "0", "-seconds", "3"];
        args.extend_from_slice(server_flags);
        let (mut server, server_rx) = start(&args);
        let addr = listening(&server_rx);
        let (mut plain, plain_rx) =
            start(&["--connect", &addr, "--", "-bot", "-name", "Plain", "-encryption", "off"]);
        let server_lines = collect(&mut server, &server_rx, Duration::from_secs(60)).join("\n");
        let plain_lines = collect(&mut plain, &plain_rx, Duration::from_secs(30)).join("\n");
        let _ = server.wait();
        let _ = plain.wait();
        if admitted {
            assert!(server_lines.contains("server: Plain joined"), "{server_lines}");
            assert!(!server_lines.contains("Plain is on an encrypted connection"), "{server_lines}");
        } else {
            assert!(
                plain_lines
                    .contains("client: connection rejected: this server requires an encrypted connection"),
                "{plain_lines}"
            );
            assert!(!server_lines.contains("Plain joined"), "{server_lines}");
        }
    }
}

/// Capture the flag (`examples/ctf`, a mod written only in script) on a dedicated server: a
/// probe script (one more mod) walks the one client's player onto the enemy flag and back
/// into its own stand; the server takes, captures and scores it, and the client's final
/// scoreboard agrees.
#[test]
fn capture_the_flag_mod_takes_and_captures_a_flag() {
    let probe = procs::Scratch::new("ctf-probe");
    std::fs::write(
        probe.join("ctf_probe.cs"),
        "function probeTake()\n\
         {\n\
            %cl = ClientGroup.getCount() > 0 ? ClientGroup.getObject(0) : 0;\n\
            if (!isObject(%cl) || !isObject(%cl.player)) { schedule(200, 0, probeTake); return; }\n\
            %cl.player.setTransform(Game.flag[1 - %cl.team].home);\n\
            schedule(500, 0, probeBringHome, %cl);\n\
         }\n\
         function probeBringHome(%cl) { %cl.player.setTransform(Game.flag[%cl.team].home); }\n\
         schedule(500, 0, probeTake);\n",
    )
    .unwrap();
    let ctf = concat!(env!("CARGO_MANIFEST_DIR"), "/ctf");
    let (mut server, server_rx) = start(&[
        "--dedicated",
        "--add-mod",
        ctf,
        "--add-mod",
        probe.to_str().unwrap(),
        "--exec",
        "ctf_probe.cs",
        "--",
        "-port",
        "0",
        "-seconds",
        "5",
    ]);
    let addr = listening(&server_rx);
    let (mut client, client_rx) = start(&["--connect", &addr, "--", "-name", "Runner"]);
    let server_lines = collect(&mut server, &server_rx, Duration::from_secs(60));
    let client_lines = collect(&mut client, &client_rx, Duration::from_secs(30));
    let _ = (server.wait(), client.wait());
    let all = server_lines.join("\n");
    assert!(all.contains("server: CTF match of 5 s"), "{all}");
    assert!(all.contains("ctf: Runner joins red"), "{all}");
    assert!(all.contains("ctf: Runner took the blue flag"), "{all}");
    assert!(all.contains("ctf: Runner captured the blue flag"), "{all}");
    // A take (1) and a capture (5); the red team's capture leads the scoreboard.
    let board = scoreboard(&server_lines).expect("server scoreboard");
    assert_eq!(board, "Red=1 Blue=0 Runner=6", "{all}");
    assert_eq!(scoreboard(&client_lines).as_deref(), Some(board.as_str()));
}
