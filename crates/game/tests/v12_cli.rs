//! The `v12` program tells the truth about what it does (issue 17): its `--help` lists what
//! it takes and what is the default, and it honours `RUST_LOG` (on the tests' own probe mod,
//! `tests/mods/probe`).

use std::process::{Command, Stdio};

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
