//! The programs tell the truth about what they do (issue 17): their `--help` lists what they
//! take and what is the default, and
//! the match demo's live status line writes no carriage returns when its output is not a
//! terminal.

use std::process::{Command, Stdio};

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

fn help(bin: &str, flag: &str) -> String {
    let out = Command::new(bin).arg(flag).stdin(Stdio::null()).output().expect("runs");
    assert!(out.status.success(), "{bin} {flag}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn demo_help_tells_the_truth() {
    let h = help(env!("CARGO_BIN_EXE_demo"), "--help");
    // `match` is the default mode, and every mode and flag is documented.
    assert!(h.contains("[default: match]"), "{h}");
    for word in [
        "match",
        "chat",
        "ghosts",
        "link",
        "--lockstep",
        "--json",
        "--window",
        "--preset",
        "--seconds",
        "--clients",
        "--inject-desync",
        "--log-dir",
        "--seed",
    ] {
        assert!(h.contains(word), "demo --help does not mention {word}:\n{h}");
    }
    assert_eq!(help(env!("CARGO_BIN_EXE_demo"), "-h").lines().next(), h.lines().next());
}

#[test]
fn demo_refuses_bad_arguments_with_a_reason() {
    for (args, says) in [
        (&["--clients", "0"][..], "--clients"),
        (&["--loss", "140"], "percentage"),
        (&["chat", "--window"], "--window belongs to the match mode"),
        (&["--inject-desync"], "--lockstep"),
        (&["--preset", "awful"], "awful"),
        (&["bogus"], "bogus"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_demo")).args(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "demo {args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "demo {args:?} said {err}");
    }
}
