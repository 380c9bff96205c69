//! Process-level: the script debugger on a dedicated server with a client connected. A
//! debugger client (this test, speaking the Torque telnet debugger protocol) stops the
//! server's scripts for longer than the network timeout; the client stays connected
//! (keep-alives while stopped), the game resumes where it stopped and the match ends
//! normally on both sides.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const V12: &str = env!("CARGO_BIN_EXE_v12");

fn start(args: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(V12)
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

fn collect(child: &mut Child, rx: &mpsc::Receiver<String>, limit: Duration) -> Vec<String> {
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
fn wait_for(rx: &mpsc::Receiver<String>, prefix: &str, seen: &mut Vec<String>) -> String {
    loop {
        let line =
            rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no {prefix}: {seen:?}"));
        if line.starts_with(prefix) {
            return line;
        }
        seen.push(line);
    }
}

#[test]
fn a_server_stopped_at_a_breakpoint_keeps_its_client_and_resumes() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = std::env::temp_dir().join(format!("v12-debugger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("probe.cs"),
        format!("dbgSetParameters({port}, \"pw\");\necho(\"DEBUGGER open\");\n"),
    )
    .unwrap();
    let dir = dir.to_string_lossy().into_owned();
    let (mut server, server_rx) =
        start(&["--dedicated", "--add-mod", &dir, "--exec", "probe.cs", "--", "-port", "0", "-seconds", "6"]);
    let mut server_lines = Vec::new();
    wait_for(&server_rx, "DEBUGGER open", &mut server_lines);
    let addr = wait_for(&server_rx, "LISTENING ", &mut server_lines)["LISTENING ".len()..].trim().to_string();
    let (mut client, client_rx) = start(&["--connect", &addr, "--", "-bot", "-name", "Guest"]);
    let mut client_lines = Vec::new();
    wait_for(&client_rx, "client: connection accepted", &mut client_lines);

    let dbg = TcpStream::connect(("127.0.0.1", port)).expect("debugger port");
    dbg.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut w = dbg.try_clone().unwrap();
    let mut r = BufReader::new(dbg);
    let mut expect = |prefix: &str| -> String {
        loop {
            let mut line = String::new();
            assert!(r.read_line(&mut line).unwrap() > 0, "debugger closed waiting for {prefix}");
            if line.starts_with(prefix) {
                return line.trim_end().to_string();
            }
        }
    };
    w.write_all(b"pw\r\nBRKNEXT\r\n").unwrap();
    expect("PASS Connected.");
    // The next statement any script runs stops the whole server.
    let brk = expect("BREAK ");
    let stopped_at = Instant::now();
    w.write_all(b"EVAL 1 0 getSimTime() > 0\r\n").unwrap();
    assert_eq!(expect("EVALOUT 1 "), "EVALOUT 1 1");
    // Stopped well past the 5 s network timeout.
    std::thread::sleep(Duration::from_secs(7));
    w.write_all(b"CONTINUE\r\n").unwrap();
    expect("RUNNING");
    assert!(stopped_at.elapsed() >= Duration::from_secs(7));

    let server_lines =
        [server_lines, collect(&mut server, &server_rx, Duration::from_secs(60))].concat().join("\n");
    let client_lines =
        [client_lines, collect(&mut client, &client_rx, Duration::from_secs(30))].concat().join("\n");
    let _ = (server.wait(), client.wait());
    assert!(brk.split_whitespace().count() >= 4, "{brk}");
    assert!(!client_lines.contains("timed out") && !client_lines.contains("dropped"), "{client_lines}");
    assert!(!server_lines.contains("Guest left"), "{server_lines}");
    assert!(client_lines.contains("client: match over"), "{client_lines}");
    assert!(server_lines.contains("server: match over"), "{server_lines}");
}
