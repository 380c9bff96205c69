//! Packet-level behaviour: rejections, control packets, window, timeout, hostile input.

use bytes::Bytes;
use proptest::prelude::*;
use v12_bitstream::{BitReader, BitWriter};
use v12_notify_protocol::{
    AckMask, ConnectionProtocol, Notify, PacketKind, ProtocolConfig, ProtocolError, Received, SEQ_BITS,
    WINDOW, WireHeader,
};

fn pair(config: ProtocolConfig) -> (ConnectionProtocol, ConnectionProtocol) {
    let peer = config.mirrored();
    (ConnectionProtocol::new(config, 0), ConnectionProtocol::new(peer, 0))
}

fn data(p: &mut ConnectionProtocol, now: u64) -> (u32, Bytes) {
    let mut w = BitWriter::new();
    let seq = p.begin_data_packet(now, &mut w);
    w.write_int(0xC0FFEE, 24);
    (seq, w.into_bytes())
}

fn recv(p: &mut ConnectionProtocol, now: u64, bytes: &[u8]) -> Result<Received, ProtocolError> {
    let mut r = BitReader::new(bytes);
    let got = p.handle_packet(now, &mut r);
    if let Ok(Received::Data { .. }) = got {
        assert_eq!(r.read_int(24).unwrap(), 0xC0FFEE, "reader left at the payload");
    }
    got
}

/// Handles a hand-made packet that carries no payload.
fn recv_raw(p: &mut ConnectionProtocol, bytes: &[u8]) -> Result<Received, ProtocolError> {
    p.handle_packet(0, &mut BitReader::new(bytes))
}

fn notifies(p: &mut ConnectionProtocol) -> Vec<Notify> {
    std::iter::from_fn(|| p.poll_notify()).collect()
}

fn raw(kind: PacketKind, seq: u32, ack: u32) -> Bytes {
    let mut w = BitWriter::new();
    WireHeader { kind, seq, ack, acks: AckMask::AllReceived, delay: 0 }.write(&mut w);
    w.into_bytes()
}

#[test]
fn duplicate_and_stale_data_are_rejected_without_changing_state() {
    let (mut a, mut b) = pair(ProtocolConfig::default());
    let (s1, p1) = data(&mut a, 0);
    let (s2, p2) = data(&mut a, 10);
    assert_eq!(recv(&mut b, 20, &p2), Ok(Received::Data { seq: s2 }));
    assert_eq!(recv(&mut b, 21, &p2), Err(ProtocolError::Duplicate { seq: s2 }));
    assert_eq!(recv(&mut b, 22, &p1), Err(ProtocolError::Stale { seq: s1 }));
    assert_eq!(b.stats().data_received, 1);
    assert_eq!(b.stats().rejected, 2);
    // b's next packet reports s1 dropped and s2 delivered, in that order.
    let (_, back) = data(&mut b, 30);
    recv(&mut a, 40, &back).unwrap();
    assert_eq!(
        notifies(&mut a),
        vec![Notify { seq: s1, delivered: false }, Notify { seq: s2, delivered: true }]
    );
}

#[test]
fn too_far_ahead_bad_ack_and_prefix_are_rejected() {
    let (_, mut b) = pair(ProtocolConfig::default());
    let far = raw(PacketKind::Data, WINDOW + 1, 0);
    assert_eq!(recv_raw(&mut b, &far), Err(ProtocolError::TooFarAhead { delta: WINDOW + 1 }));
    // b never sent anything, so an ack of sequence 3 is bogus.
    assert_eq!(recv_raw(&mut b, &raw(PacketKind::Data, 1, 3)), Err(ProtocolError::BadAck));
    assert_eq!(recv_raw(&mut b, &raw(PacketKind::Data, WINDOW, 0)), Ok(Received::Data { seq: WINDOW }));
    // Behind by less than half the wire space reads as stale.
    let behind = raw(PacketKind::Ping, WINDOW.wrapping_sub(100), 0);
    assert!(matches!(recv_raw(&mut b, &behind), Err(ProtocolError::Stale { .. })));

    let config = ProtocolConfig { prefix: (1, 1), ..ProtocolConfig::default() };
    let (mut a, mut b) = pair(config);
    let (_, p) = data(&mut a, 0);
    assert_eq!(p[0] & 1, 1, "prefix bit first");
    assert!(recv(&mut b, 0, &p).is_ok());
    let mut w = BitWriter::new();
    w.write_flag(false);
    WireHeader { kind: PacketKind::Ping, seq: 1, ack: 0, acks: AckMask::AllReceived, delay: 0 }.write(&mut w);
    assert_eq!(recv_raw(&mut b, w.as_bytes()), Err(ProtocolError::WrongPrefix { found: 0 }));
    assert!(matches!(recv_raw(&mut b, &[]), Err(ProtocolError::Malformed(_))));
    assert!(matches!(recv_raw(&mut b, &[1, 0]), Err(ProtocolError::Malformed(_))));
}

#[test]
fn a_ping_is_answered_with_an_ack_that_settles_notifies() {
    let (mut a, mut b) = pair(ProtocolConfig::default());
    let (s1, p1) = data(&mut a, 0);
    recv(&mut b, 5, &p1).unwrap();
    assert!(b.poll_transmit(5).is_none(), "one packet does not call for an ack");
    // a hears nothing for a ping interval and pings.
    assert_eq!(a.poll_timeout(), Some(1000));
    a.handle_timeout(1000);
    let ping = a.poll_transmit(1000).expect("ping");
    assert!(a.poll_transmit(1000).is_none());
    assert_eq!(recv(&mut b, 1010, &ping), Ok(Received::Ping));
    let ack = b.poll_transmit(1010).expect("ack answer");
    assert!(b.poll_transmit(1010).is_none());
    assert_eq!(recv(&mut a, 1020, &ack), Ok(Received::Ack));
    assert_eq!(notifies(&mut a), vec![Notify { seq: s1, delivered: true }]);
    assert_eq!(a.in_flight(), 0);
    assert_eq!(a.stats().pings_sent, 1);
    assert_eq!(b.stats().acks_sent, 1);
}

#[test]
fn a_ping_ahead_of_a_lost_data_packet_nacks_it() {
    let (mut a, mut b) = pair(ProtocolConfig::default());
    let (s1, _lost) = data(&mut a, 0);
    a.handle_timeout(1000);
    let ping = a.poll_transmit(1000).unwrap();
    recv(&mut b, 1010, &ping).unwrap();
    recv(&mut a, 1020, &b.poll_transmit(1010).unwrap()).unwrap();
    assert_eq!(notifies(&mut a), vec![Notify { seq: s1, delivered: false }]);
    // The late data packet can no longer be accepted: the nack stays true.
    assert_eq!(recv(&mut b, 1030, &_lost), Err(ProtocolError::Stale { seq: s1 }));
}

#[test]
fn many_unacknowledged_packets_trigger_an_ack_only_packet() {
    let config = ProtocolConfig { ack_after_received: 4, ..ProtocolConfig::default() };
    let (mut a, mut b) = pair(config);
    for i in 0..3 {
        recv(&mut b, i, &data(&mut a, i).1).unwrap();
        assert!(b.poll_transmit(i).is_none());
    }
    recv(&mut b, 3, &data(&mut a, 3).1).unwrap();
    let ack = b.poll_transmit(3).expect("ack after 4");
    recv(&mut a, 4, &ack).unwrap();
    assert_eq!(notifies(&mut a).len(), 4);
}

#[test]
fn window_fills_at_max_in_flight_and_refuses_past_the_hard_limit() {
    let (mut a, _) = pair(ProtocolConfig::default());
    for _ in 0..30 {
        assert!(!a.window_full());
        data(&mut a, 0);
    }
    assert!(a.window_full());
    data(&mut a, 0);
    data(&mut a, 0);
    assert_eq!(a.in_flight(), WINDOW);
    assert_eq!(a.try_begin_data_packet(0, &mut BitWriter::new()), Err(ProtocolError::WindowFull));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| data(&mut a, 0)));
    assert!(r.is_err(), "begin_data_packet past the hard window panics");
}

#[test]
fn a_full_window_of_acks_fits_the_mask() {
    // 32 in flight, the peer received every other one: all 32 are decided correctly.
    let (mut a, mut b) = pair(ProtocolConfig::default());
    let mut expect = Vec::new();
    for i in 0..WINDOW {
        let (seq, p) = data(&mut a, u64::from(i));
        let keep = i % 2 == 1 || i == WINDOW - 1;
        if keep {
            recv(&mut b, u64::from(i), &p).unwrap();
        }
        expect.push(Notify { seq, delivered: keep });
    }
    let (_, back) = data(&mut b, 100);
    recv(&mut a, 110, &back).unwrap();
    assert_eq!(notifies(&mut a), expect);
}

#[test]
fn sequences_cross_the_wire_width_and_u32_max() {
    const START: u32 = u32::MAX - 1500;
    let config = ProtocolConfig { initial_send_seq: START, ..ProtocolConfig::default() };
    let (mut a, mut b) = pair(config);
    let mut now = 0;
    let mut last = a.last_send_seq();
    for i in 0..3000u32 {
        now += 32;
        let (seq, p) = data(&mut a, now);
        assert_eq!(seq, last.wrapping_add(1));
        last = seq;
        // Lose every seventh packet.
        let got = if i % 7 == 3 { None } else { Some(recv(&mut b, now + 20, &p).unwrap()) };
        if let Some(got) = got {
            assert_eq!(got, Received::Data { seq });
        }
        let (_, back) = data(&mut b, now + 20);
        recv(&mut a, now + 40, &back).unwrap();
        for n in notifies(&mut a) {
            let idx = n.seq.wrapping_sub(START).wrapping_sub(1);
            assert_eq!(n.delivered, idx % 7 != 3, "seq {} (#{idx})", n.seq);
        }
        notifies(&mut b);
    }
    assert!(a.last_send_seq() < 2000, "wrapped past u32::MAX");
    assert!(a.stats().data_sent > 2 << SEQ_BITS, "wrapped the wire field twice");
}

#[test]
fn timeout_flushes_outstanding_packets_and_refuses_more_input() {
    let (mut a, mut b) = pair(ProtocolConfig::default());
    let (s1, p1) = data(&mut a, 0);
    let (s2, _) = data(&mut a, 10);
    let mut now = 0;
    while let Some(t) = a.poll_timeout() {
        now = t;
        a.handle_timeout(now);
        while a.poll_transmit(now).is_some() {}
    }
    assert_eq!(now, 5000);
    assert!(a.is_timed_out());
    assert_eq!(
        notifies(&mut a),
        vec![Notify { seq: s1, delivered: false }, Notify { seq: s2, delivered: false }]
    );
    recv(&mut b, 1, &p1).unwrap();
    let (_, back) = data(&mut b, 2);
    assert_eq!(recv(&mut a, 5001, &back), Err(ProtocolError::TimedOut));
    let (s3, _) = data(&mut a, 5002);
    assert_eq!(notifies(&mut a), vec![Notify { seq: s3, delivered: false }]);
    assert!(a.poll_transmit(5003).is_none());
}

#[test]
fn rtt_is_corrected_by_the_send_delay() {
    let (mut a, mut b) = pair(ProtocolConfig::default());
    // 30 ms each way; b holds every packet 40 ms before answering.
    let mut now = 0;
    for _ in 0..50 {
        let (_, p) = data(&mut a, now);
        recv(&mut b, now + 30, &p).unwrap();
        let (_, back) = data(&mut b, now + 70);
        recv(&mut a, now + 100, &back).unwrap();
        now += 100;
    }
    let rtt = a.rtt_ms();
    assert!((rtt - 60.0).abs() < 2.5, "rtt {rtt}, not 100");
}

proptest! {
    /// Arbitrary datagrams, mixed into a live conversation, never panic, and whatever they do the
    /// notify stream stays one-per-packet and in order.
    #[test]
    fn arbitrary_bytes_never_panic(
        junk in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..16), 1..40),
        prefix_bits in 0u32..3,
        start in any::<u32>(),
    ) {
        let config = ProtocolConfig {
            prefix: (1, prefix_bits),
            initial_send_seq: start,
            initial_recv_seq: start.wrapping_mul(3),
            ..ProtocolConfig::default()
        };
        let (mut a, mut b) = pair(config);
        let mut sent = Vec::new();
        let mut seen = Vec::new();
        for (i, bytes) in junk.iter().enumerate() {
            let now = i as u64 * 16;
            if !a.window_full() {
                let (seq, p) = data(&mut a, now);
                sent.push(seq);
                let _ = recv(&mut b, now, &p);
            }
            let _ = a.handle_packet(now, &mut BitReader::new(bytes));
            let _ = b.handle_packet(now, &mut BitReader::new(bytes));
            if i % 3 == 0 {
                let (_, back) = data(&mut b, now);
                let _ = recv(&mut a, now, &back);
            }
            a.handle_timeout(now);
            while a.poll_transmit(now).is_some() {}
            while b.poll_transmit(now).is_some() {}
            seen.extend(notifies(&mut a).into_iter().map(|n| n.seq));
            notifies(&mut b);
            prop_assert!(a.in_flight() <= WINDOW && b.in_flight() <= WINDOW);
        }
        prop_assert_eq!(&seen[..], &sent[..seen.len()]);
    }
}
