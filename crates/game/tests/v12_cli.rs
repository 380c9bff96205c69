//! The `v12` program tells the truth about what it does (issue 17): its `--help` lists what
//! it takes and what is the default, and it honours `RUST_LOG` (on the tests' own probe mod,
//! `tests/mods/probe`).

#[path = "common/procs.rs"]
#[allow(dead_code, reason = "this file types into a child only")]
mod procs;

use std::process::{Command, Stdio};
use std::time::Duration;

fn help(bin: &str, flag: &str) -> String {
    let out = Command::new(bin).arg(flag).stdin(Stdio::null()).output().expect("runs");
    assert!(out.status.success(), "{bin} {flag}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn v12_honours_rust_log() {
    let run = |rust_log: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_v12"));
        c.args(["--dedicated", "--mod", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mods/probe")])
            .args(["--", "-port", "0", "-seconds", "1", "-master", "127.0.0.1:9"])
            .stdin(Stdio::null())
            .env_remove("RUST_LOG");
        if let Some(f) = rust_log {
            c.env("RUST_LOG", f);
        }
        let out = c.output().expect("v12 runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // startHeartbeat() logs at info level.
    assert!(run(Some("info")).contains("heart-beating to the master servers"));
    assert!(!run(None).contains("heart-beating to the master servers"), "warnings only by default");
}

#[test]
fn v12_help_lists_every_flag_and_has_a_short_form() {
    let h = help(env!("CARGO_BIN_EXE_v12"), "--help");
    for word in [
        "--dedicated",
        "--mod",
        "--connect",
        "--exec",
        "--link",
        "--latency",
        "--loss",
        "--seed",
        "--headless",
        "--screenshot",
        "--size",
        "--play-seconds",
        "--bots",
        "--window",
        "SCRIPT ARGS",
        "RUST_LOG",
    ] {
        assert!(h.contains(word), "v12 --help does not mention {word}:\n{h}");
    }
    assert!(help(env!("CARGO_BIN_EXE_v12"), "-h").contains("--dedicated"));
    let out = Command::new(env!("CARGO_BIN_EXE_v12")).args(["--size", "9x9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("out of range"));
}

/// A dedicated server reads console lines from standard input (V12's ConsoleEvent) while its
/// loop runs on: scheduled events fire with the input open and idle, lines are evaluated as
/// they arrive, a line over the console's limit is refused with a message, and the profiler
/// is driven from there (`profilerEnable`, `profilerDump`, `profilerDumpToFile` kept inside the
/// mod folder).
#[test]
fn dedicated_server_reads_console_lines_from_stdin() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("v12-stdin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("server")).unwrap();
    let probe = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mods/probe");
    for f in ["main.cs", "server/server.cs"] {
        std::fs::copy(format!("{probe}/{f}"), dir.join(f)).unwrap();
    }
    let (mut child, mut stdin, rx) = procs::spawn_piped(
        Command::new(env!("CARGO_BIN_EXE_v12"))
            .arg("--dedicated")
            .arg("--mod")
            .arg(&dir)
            .args(["--", "-port", "0", "-seconds", "60"]),
    );
    let mut seen = Vec::new();
    let mut wait = |what: &str| procs::wait_containing(&rx, what, &mut seen, Duration::from_secs(60));
    // The loop runs with standard input open and silent: the scheduled probeUp fires.
    wait("probe: server up");
    writeln!(stdin, "echo(\"stdin says \" @ 6 * 7);").unwrap();
    wait("stdin says 42");
    writeln!(stdin, "echo(\"{}\");", "x".repeat(2000)).unwrap();
    wait("over the limit");
    writeln!(stdin, "profilerEnable(1); schedule(200, 0, \"profilerDump\");").unwrap();
    let lines = wait("ServerProcess");
    assert!(lines.iter().any(|l| l.contains("Frame")), "{lines:?}");
    writeln!(
        stdin,
        "echo(\"written \" @ profilerDumpToFile(\"prof.txt\") @ profilerDumpToFile(\"../prof.txt\"));"
    )
    .unwrap();
    wait("written 10");
    assert!(std::fs::read_to_string(dir.join("prof.txt")).unwrap().contains("ServerNet"));
    writeln!(stdin, "quit();").unwrap();
    let status = child.wait().expect("v12 exits");
    assert!(status.success(), "{status:?}");
    let all: Vec<String> = rx.iter().collect();
    assert!(
        !all.iter().any(|l| l.contains("probe: over")),
        "quit came from stdin, not the probe's timer: {all:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The standard-input console goes through the journal: a dedicated server recording
/// (`--journal-record`) keeps the lines it read, the refusal of one over the limit included,
/// and its replay (`--journal-play`, standard input closed) evaluates and refuses the same.
#[test]
fn standard_input_lines_are_journaled_and_replayed() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("v12-stdin-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let journal = dir.join("stdin.jnl");
    let probe = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mods/probe");
    let run = |mode: &str, input: Option<String>| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_v12"))
            .args(["--dedicated", "--mod", probe, mode, journal.to_str().unwrap()])
            .args(["--", "-port", "0", "-seconds", "60"])
            .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("v12 starts");
        if let Some(text) = input {
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(text.as_bytes()).unwrap();
        }
        let out = child.wait_with_output().expect("v12 exits");
        assert!(out.status.success(), "{mode}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    };
    let input = format!("echo(\"stdin says \" @ 6 * 7);\necho(\"{}\");\nquit();\n", "x".repeat(2000));
    for (mode, input) in [("--journal-record", Some(input)), ("--journal-play", None)] {
        let out = run(mode, input);
        assert!(out.contains("stdin says 42"), "{mode}: {out}");
        assert!(out.contains("over the limit of 1024; refused"), "{mode}: {out}");
        assert!(!out.contains("probe: over"), "{mode}: quit came from standard input: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
