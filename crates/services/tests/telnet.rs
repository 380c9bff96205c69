//! The remote console over real loopback TCP: wrong passwords refused and the connection
//! closed, the console password evaluates lines and sees their output, the listen password
//! sees output but evaluates nothing, and garbage ends only the sender's connection.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use v12_console_vm::Console;
use v12_services::telnet::TelnetServer;

struct Rig {
    con: Console,
    telnet: TelnetServer,
    start: Instant,
}

impl Rig {
    fn new() -> (Self, u16) {
        // A free port (the OS picks it; telnetSetParameters(0, ...) would close the console).
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut con = Console::new();
        let telnet = TelnetServer::register(&mut con);
        con.eval(&format!("telnetSetParameters({port}, \"secret\", \"peek\");")).unwrap();
        let mut rig = Self { con, telnet, start: Instant::now() };
        rig.pump();
        assert_eq!(rig.telnet.port(), Some(port));
        (rig, port)
    }

    fn pump(&mut self) {
        let now = self.start.elapsed().as_millis() as u64;
        self.telnet.pump(&mut self.con, now);
    }

    fn connect(&mut self, port: u16) -> TcpStream {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_nonblocking(true).unwrap();
        s
    }

    /// Pumps until `want` arrived on `s` (text so far returned) or the peer closed.
    fn read_until(&mut self, s: &mut TcpStream, want: &str) -> (String, bool) {
        let mut got = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut buf = [0u8; 4096];
        while Instant::now() < deadline {
            self.pump();
            match s.read(&mut buf) {
                Ok(0) => return (String::from_utf8_lossy(&got).into_owned(), true),
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(_) => return (String::from_utf8_lossy(&got).into_owned(), true),
            }
            if String::from_utf8_lossy(&got).contains(want) {
                return (String::from_utf8_lossy(&got).into_owned(), false);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("timed out waiting for {want:?}; got {:?}", String::from_utf8_lossy(&got));
    }
}

#[test]
fn the_remote_console_checks_passwords_and_runs_lines() {
    let (mut rig, port) = Rig::new();

    // Three wrong passwords: refused, then the connection is closed.
    let mut intruder = rig.connect(port);
    rig.read_until(&mut intruder, "Enter Password:");
    for guess in ["admin", "root", "1234"] {
        intruder.write_all(format!("{guess}\r\n").as_bytes()).unwrap();
    }
    let (text, _) = rig.read_until(&mut intruder, "Goodbye");
    assert_eq!(text.matches("Wrong password").count(), 3, "{text}");
    let (_, closed) = rig.read_until(&mut intruder, "never sent");
    assert!(closed);

    // The console password: lines run, their output comes back. The intruder shared the
    // administrator's address (loopback), which now waits a second before its next password:
    // until then a connection is refused with the time left.
    let mut tries = 0;
    let mut admin = loop {
        tries += 1;
        assert!(tries < 200, "the administrator's address was refused for 20 s");
        let mut s = rig.connect(port);
        let (text, closed) = rig.read_until(&mut s, "Enter Password:");
        if !closed {
            break s;
        }
        assert!(text.contains("Too many wrong passwords from your address"), "{text}");
        std::thread::sleep(Duration::from_millis(100));
    };
    admin.write_all(b"secret\r\n").unwrap();
    rig.read_until(&mut admin, "full access");
    admin.write_all(b"$Remote::Set = 42; echo(\"telnet says \" @ $Remote::Set);\r\n").unwrap();
    rig.read_until(&mut admin, "telnet says 42");

    // The listen password: sees the output, runs nothing.
    let mut watcher = rig.connect(port);
    rig.read_until(&mut watcher, "Enter Password:");
    watcher.write_all(b"peek\n").unwrap();
    rig.read_until(&mut watcher, "listen only");
    admin.write_all(b"echo(\"for everyone\");\n").unwrap();
    rig.read_until(&mut watcher, "for everyone");
    watcher.write_all(b"$Remote::Set = 0; quit();\n").unwrap();
    rig.read_until(&mut watcher, "not evaluated");
    assert_eq!(rig.con.get_global("Remote::Set").as_text(), "42");
    assert!(!rig.con.quit_requested());

    // A script error comes back with the console's message.
    admin.write_all(b"echo(\"unclosed);\n").unwrap();
    let (err, _) = rig.read_until(&mut admin, "unterminated string");
    assert_eq!(err.matches("unterminated string").count(), 1, "{err}");

    // Garbage (a line over the limit) ends only that connection.
    let mut garbage = rig.connect(port);
    rig.read_until(&mut garbage, "Enter Password:");
    let _ = garbage.write_all(&[b'x'; 5000]);
    let (_, closed) = rig.read_until(&mut garbage, "never sent");
    assert!(closed);
    admin.write_all(b"echo(\"still here\");\n").unwrap();
    rig.read_until(&mut admin, "still here");

    // Port 0 closes the console.
    rig.con.eval("telnetSetParameters(0, \"\", \"\");").unwrap();
    rig.pump();
    assert_eq!(rig.telnet.port(), None);
}
