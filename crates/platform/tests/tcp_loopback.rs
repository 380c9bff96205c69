//! TCP through `TcpNet` on loopback: accept, connect, both directions, close.

use std::time::Duration;

use v12_platform::{ConnectState, ConnectedNotifyEvent, ConnectionTag, Event, NetAddress, TcpNet};

/// Process both sides until `done` says so; sleeps a millisecond between
/// rounds (no spinning), gives up after a few seconds.
fn pump(nets: &mut [&mut TcpNet], log: &mut [Vec<Event>], done: impl Fn(&[Vec<Event>]) -> bool) {
    for _ in 0..5_000 {
        for (net, log) in nets.iter_mut().zip(log.iter_mut()) {
            net.process(log);
        }
        if done(log) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("tcp pump gave up; events so far: {log:?}");
}

fn received(log: &[Event], tag: ConnectionTag) -> Vec<u8> {
    log.iter()
        .filter_map(|e| match e {
            Event::ConnectedReceive(r) if r.tag == tag => Some(r.data.to_vec()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn has_notify(log: &[Event], tag: ConnectionTag, state: ConnectState) -> bool {
    log.contains(&Event::ConnectedNotify(ConnectedNotifyEvent { tag, state }))
}

#[test]
fn connect_accept_send_both_ways_and_disconnect() {
    let mut server = TcpNet::new();
    let mut client = TcpNet::new();
    let port = server.listen(NetAddress::localhost(0)).unwrap();
    let addr = server.local_addr(port).unwrap();
    let c = client.connect(addr);
    let mut logs = vec![Vec::new(), Vec::new()];
    pump(&mut [&mut server, &mut client], &mut logs, |l| {
        has_notify(&l[1], c, ConnectState::Connected)
            && l[0].iter().any(|e| matches!(e, Event::ConnectedAccept(_)))
    });
    let Some(Event::ConnectedAccept(accept)) =
        logs[0].iter().find(|e| matches!(e, Event::ConnectedAccept(_)))
    else {
        unreachable!()
    };
    assert_eq!(accept.port_tag, port);
    assert_eq!(accept.address, client.local_addr(c).unwrap());
    let s = accept.tag;

    // 200 KB client → server in several writes; a short reply back.
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
    for chunk in big.chunks(30_000) {
        client.send(c, chunk).unwrap();
    }
    server.send(s, b"welcome").unwrap();
    pump(&mut [&mut server, &mut client], &mut logs, |l| {
        received(&l[0], s).len() == big.len() && received(&l[1], c).len() == 7
    });
    assert_eq!(received(&logs[0], s), big);
    assert_eq!(received(&logs[1], c), b"welcome");

    client.close(c);
    pump(&mut [&mut server, &mut client], &mut logs, |l| has_notify(&l[0], s, ConnectState::Disconnected));
    assert_eq!(server.connection_count(), 0);
    assert!(server.send(s, b"late").is_err());
}

#[test]
fn connecting_to_a_closed_port_fails() {
    // Bind and drop a listener to get a port nobody listens on.
    let addr = {
        let mut probe = TcpNet::new();
        let tag = probe.listen(NetAddress::localhost(0)).unwrap();
        probe.local_addr(tag).unwrap()
    };
    let mut client = TcpNet::new();
    let c = client.connect(addr);
    let mut logs = vec![Vec::new()];
    pump(&mut [&mut client], &mut logs, |l| has_notify(&l[0], c, ConnectState::ConnectFailed));
    assert_eq!(client.connection_count(), 0);
}

#[test]
fn connect_host_with_localhost_needs_no_dns() {
    let mut server = TcpNet::new();
    let port = server.listen(NetAddress::localhost(0)).unwrap();
    let text = format!("localhost:{}", server.local_addr(port).unwrap().port());
    let mut client = TcpNet::new();
    let c = client.connect_host(&text);
    let mut logs = vec![Vec::new(), Vec::new()];
    pump(&mut [&mut server, &mut client], &mut logs, |l| has_notify(&l[1], c, ConnectState::Connected));
    assert!(!has_notify(&logs[1], c, ConnectState::DnsResolved));
}
