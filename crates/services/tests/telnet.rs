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

/// The two tests take turns: each floods or probes a console on loopback, and run side by
/// side the flood's connections were seen to stall behind the other's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn the_remote_console_checks_passwords_and_runs_lines() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
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

/// Log lines into a buffer (a `tracing` writer).
#[derive(Clone, Default)]
struct LogBuffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl LogBuffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// The third probe's finding 6: a flood of telnet connections and failed logins from one
/// address writes a few log lines, then one line with the count of those left out, not a
/// line per connection. The console's clock is the test's (`now`), not the wall's.
#[test]
fn a_login_flood_logs_a_few_lines_and_a_count() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let log = LogBuffer::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut con = Console::new();
        let mut telnet = TelnetServer::register(&mut con);
        con.eval(&format!("telnetSetParameters({port}, \"secret\", \"\");")).unwrap();
        telnet.pump(&mut con, 0);
        let logged = || {
            log.text()
                .lines()
                .filter(|l| l.contains("telnet client connected") || l.contains("telnet client disconnected"))
                .count()
        };
        // Forty connections, each typing a wrong password, all within one second (a connect
        // the kernel holds back gives up after half a second rather than stall the flood).
        let mut socks = Vec::new();
        let mut tries = 0;
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let guard = Instant::now() + Duration::from_secs(60);
        while tries < 40 || logged() < 10 {
            assert!(Instant::now() < guard, "the flood was not accepted: {}", log.text());
            if tries < 40 {
                tries += 1;
                if let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
                    let _ = s.write_all(b"guess\r\n");
                    socks.push(s);
                }
            }
            telnet.pump(&mut con, 500);
            std::thread::sleep(Duration::from_millis(1));
        }
        for _ in 0..200 {
            telnet.pump(&mut con, 500);
            std::thread::sleep(Duration::from_millis(1));
        }
        // Ten lines an address a minute (connections and disconnections together); a minute
        // on, the count of the rest.
        let n = logged();
        assert!(n <= 10, "{n} lines for one address: {}", log.text());
        // (The count comes as its own line, or on the first line of the next minute.)
        telnet.pump(&mut con, 61_000);
        let text = log.text();
        let left_out: u64 =
            text.split_whitespace().filter_map(|w| w.strip_prefix("suppressed=")?.parse::<u64>().ok()).sum();
        assert!(left_out > 0, "no count of the lines left out: {text}");
    });
}
