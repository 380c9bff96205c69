//! Per-address caps on the IPv6 loopback (the third probe): real UDP sockets on `::1`, a
//! server allowing two connections per address, four clients: the third and fourth are
//! refused with the reason. (The loopback has one IPv6 address; that distinct addresses of
//! one /64 share the cap is tested sans-IO in netobject, `ipv6_addresses_are_limited_per_64`.)

use bytes::Bytes;
use std::sync::Arc;
use std::time::Duration;
use v12_netobject::ghost::{GhostArena, NoObjects};
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface};
use v12_platform::{NetAddress, Transport, UdpTransport};
use v12_services::NetDriver;

#[test]
fn the_ipv6_loopback_is_one_address_for_the_per_address_caps() {
    let Ok(server_port) = UdpTransport::bind(NetAddress::localhost_v6(0)) else {
        eprintln!("no IPv6 loopback here: skipped");
        return;
    };
    let reg = Arc::new(NetClassRegistryBuilder::new().build().unwrap());
    let config =
        InterfaceConfig { accept_connections: true, max_connections_per_ip: 2, ..Default::default() };
    let server_addr = server_port.local_addr();
    let mut server = NetDriver::new(NetInterface::new(config, reg.clone(), [7; 32]), server_port);
    let mut clients: Vec<NetDriver<UdpTransport>> = (0..4u8)
        .map(|i| {
            let port = UdpTransport::bind(NetAddress::localhost_v6(0)).expect("a second IPv6 socket");
            NetDriver::new(NetInterface::new(InterfaceConfig::default(), reg.clone(), [i + 1; 32]), port)
        })
        .collect();
    for (i, c) in clients.iter_mut().enumerate() {
        // One after another, so which two get in is known.
        c.interface.connect(i as u64 * 200, server_addr.socket_addr(), Bytes::from(format!("client{i}")));
    }
    let mut outcome: Vec<Option<Result<(), String>>> = vec![None; 4];
    let arena = &mut GhostArena::new();
    for step in 0..2_000u64 {
        let now = step * 5;
        server.pump(now, &NoObjects, arena).unwrap();
        for (i, c) in clients.iter_mut().enumerate() {
            c.pump(now, &NoObjects, arena).unwrap();
            while let Some(ev) = c.interface.poll_event() {
                match ev {
                    InterfaceEvent::Connected { .. } => outcome[i] = Some(Ok(())),
                    InterfaceEvent::ConnectFailed { reason, .. } => outcome[i] = Some(Err(reason)),
                    _ => {}
                }
            }
        }
        while server.interface.poll_event().is_some() {}
        if outcome.iter().all(Option::is_some) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let refused = Err("too many connections from your address".to_string());
    assert_eq!(outcome, vec![Some(Ok(())), Some(Ok(())), Some(refused.clone()), Some(refused)]);
    assert_eq!(server.interface.connection_count(), 2);
}
