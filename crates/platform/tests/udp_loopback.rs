//! Real UDP through `UdpTransport` on the loopback interface.

use std::time::Duration;

use v12_platform::{
    ConditionerConfig, Datagram, LinkConditioner, LossModel, NetAddress, Transport, UdpConfig, UdpTransport,
};

/// Receive until `want` datagrams arrived, waiting (not spinning) in between.
fn receive(rx: &mut UdpTransport, want: usize) -> Vec<Datagram> {
    let mut got = Vec::new();
    while got.len() < want {
        assert!(rx.wait_readable(Duration::from_secs(5)).unwrap(), "timed out after {}", got.len());
        rx.recv_batch(0, &mut got).unwrap();
    }
    got
}

#[test]
fn datagrams_cross_real_loopback_intact() {
    let mut a = UdpTransport::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let mut b = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
    assert_ne!(b.local_addr().port(), 0);
    let n = 300;
    for i in 0..n {
        let len = 1 + (i * 37) % 1400;
        let payload: Vec<u8> = (0..len).map(|j| (i + j) as u8).collect();
        a.send_to(0, b.local_addr(), &payload).unwrap();
    }
    let got = receive(&mut b, n);
    assert_eq!(got.len(), n);
    for (i, d) in got.iter().enumerate() {
        // Loopback keeps order within one socket pair.
        assert_eq!(d.from, a.local_addr());
        let len = 1 + (i * 37) % 1400;
        assert_eq!(d.data.len(), len);
        assert!(d.data.iter().enumerate().all(|(j, &x)| x == (i + j) as u8));
    }
    // And back the other way.
    b.send_to(0, a.local_addr(), b"pong").unwrap();
    let back = receive(&mut a, 1);
    assert_eq!(back[0].data.as_ref(), b"pong");
}

#[test]
fn batches_are_capped_by_max_batch() {
    let mut cfg = UdpConfig::new(NetAddress::localhost(0));
    cfg.max_batch = 8;
    let mut rx = UdpTransport::with_config(cfg).unwrap();
    let mut tx = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
    for i in 0..20u8 {
        tx.send_to(0, rx.local_addr(), &[i; 64]).unwrap();
    }
    let mut got = Vec::new();
    // Loopback queues a datagram before send returns, so all 20 are waiting.
    assert!(rx.wait_readable(Duration::from_secs(5)).unwrap());
    assert_eq!(rx.recv_batch(0, &mut got).unwrap(), 8);
    while got.len() < 20 {
        assert!(rx.wait_readable(Duration::from_secs(5)).unwrap());
        let n = rx.recv_batch(0, &mut got).unwrap();
        assert!(n <= 8, "batch of {n}");
    }
    assert_eq!(got.iter().map(|d| d.data[0]).collect::<Vec<_>>(), (0..20).collect::<Vec<u8>>());
}

#[test]
fn ipv6_loopback_when_available() {
    let Ok(mut a) = UdpTransport::bind("[::1]:0".parse().unwrap()) else {
        // A container without IPv6 cannot bind ::1; IPv4 is covered above.
        return;
    };
    let mut b = UdpTransport::bind(NetAddress::localhost_v6(0)).unwrap();
    a.send_to(0, b.local_addr(), b"six").unwrap();
    let got = receive(&mut b, 1);
    assert_eq!(got[0].from, a.local_addr());
    assert!(got[0].from.to_string().starts_with("[::1]:"));
}

#[test]
fn conditioner_over_real_udp_drops_what_it_says() {
    let a = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
    let mut b = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
    let cfg = ConditionerConfig { loss: LossModel::Uniform(0.3), ..Default::default() };
    let mut c = LinkConditioner::new(a, cfg, 99);
    for i in 0..200u32 {
        c.send_to(u64::from(i), b.local_addr(), &i.to_le_bytes()).unwrap();
    }
    let s = c.stats();
    let want = (s.sent - s.dropped_loss) as usize;
    let got = receive(&mut b, want);
    assert_eq!(got.len() as u64, s.delivered);
    assert!(s.dropped_loss > 30 && s.dropped_loss < 90, "{s:?}");
}
