//! TCPObject and HTTPObject against local servers over loopback: a client connects, sends and
//! gets lines back; a listening object accepts a connection and reads its lines; HTTPObject
//! fetches a page; garbage closes only its own connection.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use v12_console_vm::{BufferSink, Console};
use v12_services::tcp_object::TcpObjects;

fn rig() -> (Console, TcpObjects) {
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    let tcp = TcpObjects::register(&mut con);
    (con, tcp)
}

/// Pumps until `done` holds (10 s at most).
fn pump_until(con: &mut Console, tcp: &mut TcpObjects, mut done: impl FnMut(&Console) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done(con) {
        assert!(Instant::now() < deadline, "timed out");
        tcp.pump(con);
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_tcp_object_connects_sends_and_reads_lines() {
    // An echo server on a thread.
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut s, _) = server.accept().unwrap();
        let mut buf = [0u8; 256];
        let n = s.read(&mut buf).unwrap();
        s.write_all(&buf[..n]).unwrap();
        s.write_all(b"second line\r\n").unwrap();
    });
    let (mut con, mut tcp) = rig();
    con.eval(&format!(
        r#"
        new TCPObject(Echo);
        function Echo::onConnected(%this) {{ $connected = 1; %this.send("hello there\r\n"); }}
        function Echo::onLine(%this, %line) {{ $lines = $lines @ "[" @ %line @ "]"; }}
        function Echo::onDisconnect(%this) {{ $closed = 1; }}
        Echo.connect("127.0.0.1:{port}");
        "#
    ))
    .unwrap();
    pump_until(&mut con, &mut tcp, |c| c.get_global("closed").as_text() == "1");
    assert_eq!(con.get_global("connected").as_text(), "1");
    assert_eq!(con.get_global("lines").as_text(), "[hello there][second line]");

    // Nobody listening: onConnectFailed.
    let dead = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    con.eval(&format!(
        "new TCPObject(Nobody); function Nobody::onConnectFailed(%this) {{ $failed = 1; }} Nobody.connect(\"IP:127.0.0.1:{dead}\");"
    ))
    .unwrap();
    pump_until(&mut con, &mut tcp, |c| c.get_global("failed").as_text() == "1");
}

#[test]
fn a_listening_tcp_object_accepts_and_garbage_closes_only_its_sender() {
    let (mut con, mut tcp) = rig();
    con.eval(
        r#"
        new TCPObject(Door);
        function Door::onConnectRequest(%this, %address, %client) {
           $requests++;
           $lastAddress = %address;
        }
        // The clients of Door use its namespace; %this is the client.
        function Door::onLine(%this, %line) { if (%this.listener == Door.getId()) $heard = $heard @ %line @ ";"; }
        function Door::onDisconnect(%this) { $left++; }
        Door.listen(0);
        "#,
    )
    .unwrap();
    tcp.pump(&mut con);
    let port: u16 = con.eval("return Door.port;").unwrap().as_text().parse().unwrap();
    assert!(port > 0);
    let mut good = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    good.write_all(b"one\r\ntwo\n").unwrap();
    pump_until(&mut con, &mut tcp, |c| c.get_global("heard").as_text() == "one;two;");
    assert!(con.get_global("lastAddress").as_text().starts_with("IP:127.0.0.1:"));

    // A line without end, over the limit: that connection closes; the good one stays.
    let mut bad = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let junk = vec![b'x'; v12_services::tcp_object::MAX_LINE + 10];
    let _ = bad.write_all(&junk);
    pump_until(&mut con, &mut tcp, |c| c.get_global("left").as_text() == "1");
    good.write_all(b"three\n").unwrap();
    pump_until(&mut con, &mut tcp, |c| c.get_global("heard").as_text() == "one;two;three;");
    assert_eq!(con.get_global("requests").as_text(), "2");
}

#[test]
fn an_http_object_gets_a_page() {
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    let seen = std::thread::spawn(move || {
        let (mut s, _) = server.accept().unwrap();
        let mut req = Vec::new();
        let mut buf = [0u8; 512];
        while !req.ends_with(b"\r\n\r\n") {
            let n = s.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            req.extend_from_slice(&buf[..n]);
        }
        s.write_all(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nscores: 3\nlast line without end")
            .unwrap();
        String::from_utf8(req).unwrap()
    });
    let (mut con, mut tcp) = rig();
    con.eval(&format!(
        r#"
        new HTTPObject(Page);
        function Page::onLine(%this, %line) {{ $page = $page @ %line @ "|"; }}
        function Page::onDisconnect(%this) {{ $done = 1; }}
        Page.get("127.0.0.1:{port}", "/board", "team=red");
        "#
    ))
    .unwrap();
    pump_until(&mut con, &mut tcp, |c| c.get_global("done").as_text() == "1");
    let request = seen.join().unwrap();
    assert!(request.starts_with("GET /board?team=red HTTP/1.0\r\nHost: 127.0.0.1\r\n"), "{request}");
    assert_eq!(
        con.get_global("page").as_text(),
        "HTTP/1.0 200 OK|Content-Type: text/plain||scores: 3|last line without end|"
    );
}
