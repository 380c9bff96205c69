//! Every log line about a connection carries its `connection{id, peer, side}` span (issue 17),
//! so a server's log can be read one client at a time.

use bytes::Bytes;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use v12_netobject::LocalEnd;
use v12_netobject::ghost::{GhostArena, NoObjects};
use v12_netobject::*;

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_disconnect_is_logged_inside_the_connections_span() {
    let buf = Buffer::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let registry = Arc::new(NetClassRegistryBuilder::new().build().unwrap());
        let server_addr: SocketAddr = "127.0.0.1:28000".parse().unwrap();
        let client_addr: SocketAddr = "127.0.0.1:50000".parse().unwrap();
        let config = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
        let mut server = NetInterface::new(config, registry.clone(), [1; 32]);
        let mut client = NetInterface::new(InterfaceConfig::default(), registry, [2; 32]);
        let c = client.connect(0, server_addr, Bytes::new());
        for now in (0..500).step_by(16) {
            pump_local(
                now,
                LocalEnd::new(&mut client, client_addr, &NoObjects, &mut GhostArena::new()),
                LocalEnd::new(&mut server, server_addr, &NoObjects, &mut GhostArena::new()),
            );
        }
        assert_eq!(server.connection_count(), 1);
        client.disconnect(c, "bye");
        pump_local(
            600,
            LocalEnd::new(&mut client, client_addr, &NoObjects, &mut GhostArena::new()),
            LocalEnd::new(&mut server, server_addr, &NoObjects, &mut GhostArena::new()),
        );
        assert_eq!(server.connection_count(), 0);
    });
    let log = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|l| l.contains("disconnected") && l.contains("side=\"server\""))
        .unwrap_or_else(|| panic!("no server-side disconnect line in:\n{log}"));
    assert!(line.contains("connection{id="), "{line}");
    assert!(line.contains("peer=127.0.0.1:50000"), "{line}");
    assert!(line.contains("by_peer=true"), "{line}");
}

/// The third probe's sixth finding: one address churning connections wrote a join and a
/// leave line for each. Now an address writes at most `JOIN_LOG_LINES` of them each 10 s,
/// and a later line (or the summary when the window closes) says how many were left out.
#[test]
fn join_and_leave_lines_of_one_address_are_limited_with_a_count() {
    let buf = Buffer::default();
    let writer = buf.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let churned = tracing::subscriber::with_default(subscriber, || {
        let registry = Arc::new(NetClassRegistryBuilder::new().build().unwrap());
        let server_addr: SocketAddr = "127.0.0.1:28000".parse().unwrap();
        let config = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
        let mut server = NetInterface::new(config, registry.clone(), [1; 32]);
        let mut churned = 0;
        let mut now = 0;
        for port in 0..200u16 {
            let client_addr = SocketAddr::from(([127, 0, 0, 1], 40_000 + port));
            let mut client = NetInterface::new(InterfaceConfig::default(), registry.clone(), [2; 32]);
            let c = client.connect(now, server_addr, Bytes::new());
            for _ in 0..4 {
                now += 16;
                pump_local(
                    now,
                    LocalEnd::new(&mut client, client_addr, &NoObjects, &mut GhostArena::new()),
                    LocalEnd::new(&mut server, server_addr, &NoObjects, &mut GhostArena::new()),
                );
            }
            if client.connection(c).is_some() {
                churned += 1;
            }
            client.disconnect(c, "churn");
            now += 16;
            pump_local(
                now,
                LocalEnd::new(&mut client, client_addr, &NoObjects, &mut GhostArena::new()),
                LocalEnd::new(&mut server, server_addr, &NoObjects, &mut GhostArena::new()),
            );
        }
        server.handle_timeout(now + 20_000);
        churned
    });
    let log = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
    let joins = log.lines().filter(|l| l.contains("client connected")).count();
    let leaves = log.lines().filter(|l| l.contains("disconnected") && l.contains("side=server")).count();
    assert!(churned >= 60, "the churn connected {churned} times");
    // 200 joins and 200 leaves in about 16 s: two windows of 20 lines.
    assert!(joins + leaves <= 2 * JOIN_LOG_LINES as usize, "{joins} joins, {leaves} leaves:\n{log}");
    assert!(log.contains("suppressed="), "a count of what was left out:\n{log}");
    let summary = log.lines().find(|l| l.contains("join and leave lines suppressed")).expect("a summary");
    assert!(summary.contains("127.0.0.1"), "{summary}");
}
