//! Arbitrary datagrams into the header reader and into a live connection: never a panic, and
//! the notify stream stays one per packet, in order.
#![no_main]

use libfuzzer_sys::fuzz_target;
use v12_bitstream::{BitReader, BitWriter};
use v12_notify_protocol::{ConnectionProtocol, ProtocolConfig, WINDOW, WireHeader};

fuzz_target!(|data: &[u8]| {
    let _ = WireHeader::read(&mut BitReader::new(data));

    // A connection with a few packets in flight, then the fuzz input split into datagrams.
    let config = ProtocolConfig { initial_send_seq: 1020, initial_recv_seq: 1000, ..Default::default() };
    let mut conn = ConnectionProtocol::new(config, 0);
    let mut sent = Vec::new();
    for now in 0..5 {
        let mut w = BitWriter::new();
        sent.push(conn.begin_data_packet(now, &mut w));
    }
    let mut next = 0;
    for (i, datagram) in data.split(|&b| b == 0xA5).enumerate() {
        let now = 10 + i as u64 * 7;
        let _ = conn.handle_packet(now, &mut BitReader::new(datagram));
        conn.handle_timeout(now);
        while conn.poll_transmit(now).is_some() {}
        while let Some(n) = conn.poll_notify() {
            assert_eq!(n.seq, sent[next], "notify out of order");
            next += 1;
        }
        assert!(conn.in_flight() <= WINDOW);
    }
});
