//! Running the engine's `v12` program on the example game in a test: start one, read its
//! stdout lines, wait for a line, collect the rest until it exits. The program is v12-game's
//! binary, found beside the test ([`v12_examples::game::bot_match::v12_program`]).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Starts `v12` on the example game with `args`; its stdout lines arrive on the channel.
pub fn start(args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let v12 = v12_examples::game::bot_match::v12_program().expect("the v12 program");
    let mut child = Command::new(v12)
        .arg("--mod")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/game"))
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
