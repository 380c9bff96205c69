//! The programs tell the truth about what they do (issue 17): `v12` honours `RUST_LOG`, and
//! the match demo's live status line writes no carriage returns when its output is not a
//! terminal.

use std::process::{Command, Stdio};

#[test]
fn v12_honours_rust_log() {
    let run = |rust_log: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_v12"));
        c.args(["--dedicated", "--mod", concat!(env!("CARGO_MANIFEST_DIR"), "/game")])
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
fn the_match_status_line_is_plain_lines_into_a_pipe() {
    let out = Command::new(env!("CARGO_BIN_EXE_demo"))
        .args(["match", "--clients", "2", "--seconds", "6"])
        .stdin(Stdio::null())
        .output()
        .expect("demo runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}\n{err}", String::from_utf8_lossy(&out.stdout));
    assert!(!err.contains('\r'), "carriage returns in a log: {err:?}");
    assert!(err.lines().any(|l| l.contains("players") && l.contains("kbit/s/client")), "{err}");
}
