//! The send rate holds when the host polls only on its ticks: a 100 ms period polled every
//! 32 ms must give 10 packets a second, not 1000 / 128 (issue 17: `next_send_at = now +
//! period` dropped the lateness of each send).

mod common;

use common::*;
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetInterface};

#[test]
fn a_100_ms_period_polled_on_32_ms_ticks_sends_10_packets_a_second() {
    let reg = registry();
    let mut server = NetInterface::new(
        InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() },
        reg.clone(),
        entropy(1),
    );
    let mut client = NetInterface::new(InterfaceConfig::default(), reg, entropy(2));
    let (sa, ca) = (addr(0), addr(1));
    client.connect(0, sa, bytes::Bytes::new());
    let mut conn = None;
    let (mut counting, mut counted) = (false, 0u32);
    let mut t = 0u64;
    while t <= 13_000 {
        // One host tick: timers, the server's game posts an event, then everything the two
        // send is delivered at once (a zero-latency link).
        for _ in 0..4 {
            server.handle_timeout(t);
            client.handle_timeout(t);
            if let Some(c) = conn {
                let _ = server.post_event(c, Unreliable::new(0, (t / 32) as u32, None));
            }
            while let Some((_, d)) = client.poll_transmit(t) {
                server.handle_datagram(t, ca, &d);
            }
            while let Some((_, d)) = server.poll_transmit(t) {
                if counting {
                    counted += 1;
                }
                client.handle_datagram(t, sa, &d);
            }
            while let Some(ev) = server.poll_event() {
                if let InterfaceEvent::Connected { connection, .. } = ev {
                    conn = Some(connection);
                }
            }
            while client.poll_event().is_some() {}
        }
        t += 32;
        counting = (3_000..13_000).contains(&t);
    }
    assert!(conn.is_some(), "connected");
    // 10 s at the default 100 ms server period.
    assert!((98..=102).contains(&counted), "{counted} server packets in 10 s");
}
