//! Running `v12` processes in a test: start one on the example game, read its stdout lines,
//! wait for a line, collect the rest until it exits. Shared by the process-level tests
//! (`#[path = "common/procs.rs"] mod procs;`).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const V12: &str = env!("CARGO_BIN_EXE_v12");

/// The example game's scripts, for the tests that play a match.
pub const GAME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game");
/// The engine tests' own mod (`tests/mods/probe`): a dedicated server that says it is up and
/// quits, for tests that need no game.
#[allow(dead_code, reason = "not every test that shares this file runs the probe mod")]
pub const PROBE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mods/probe");

/// Starts `v12` on the example game with `args`; its stdout lines arrive on the channel.
pub fn start(args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    start_mod(GAME, args)
}

/// Starts `v12` on the mod folder `dir` with `args`; its stdout lines arrive on the channel.
pub fn start_mod(dir: &str, args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(V12)
        .arg("--mod")
        .arg(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()
        .expect("v12 starts");
    let out = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Spawns `cmd` with its standard streams piped: the child, its standard input, and its
/// stdout and stderr lines merged on one channel (for a test that types into a `v12`).
#[allow(dead_code, reason = "only the tests that type into a child use it")]
pub fn spawn_piped(cmd: &mut Command) -> (Child, std::process::ChildStdin, mpsc::Receiver<String>) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let stdin = child.stdin.take().expect("stdin piped");
    let (tx, rx) = mpsc::channel();
    for out in [
        Box::new(child.stdout.take().expect("stdout piped")) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().expect("stderr piped")),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
    }
    (child, stdin, rx)
}

/// Reads lines into `seen` until one contains `what` (a panic showing what was seen after
/// `limit` without one); every line seen so far.
#[allow(dead_code, reason = "only the tests that type into a child use it")]
pub fn wait_containing(
    rx: &mpsc::Receiver<String>,
    what: &str,
    seen: &mut Vec<String>,
    limit: Duration,
) -> Vec<String> {
    loop {
        let line = rx.recv_timeout(limit).unwrap_or_else(|_| panic!("no {what:?} in {seen:#?}"));
        let hit = line.contains(what);
        seen.push(line);
        if hit {
            return seen.clone();
        }
    }
}

/// Every line until the process closes its stdout (a hang guard kills it after `limit`).
pub fn collect(child: &mut Child, rx: &mpsc::Receiver<String>, limit: Duration) -> Vec<String> {
    let end = Instant::now() + limit;
    let mut lines = Vec::new();
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(l) => lines.push(l),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() > end => {
                let _ = child.kill();
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    lines
}

/// Lines until one starts with `prefix` (returned); the others are kept in `seen`.
pub fn wait_for(rx: &mpsc::Receiver<String>, prefix: &str, seen: &mut Vec<String>) -> String {
    loop {
        let line =
            rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no {prefix}: {seen:?}"));
        if line.starts_with(prefix) {
            return line;
        }
        seen.push(line);
    }
}

/// The address a starting server prints (`LISTENING addr`).
pub fn listening(rx: &mpsc::Receiver<String>) -> String {
    wait_for(rx, "LISTENING ", &mut Vec::new())["LISTENING ".len()..].trim().to_string()
}

/// A scratch folder for one test (a probe mod, a journal), removed when dropped.
pub struct Scratch(std::path::PathBuf);

impl Scratch {
    /// `v12-<name>-<pid>` under the system's temporary folder, created empty.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("v12-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
