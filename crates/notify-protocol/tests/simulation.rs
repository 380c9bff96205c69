//! Whole-connection scenarios in the deterministic harness.

mod common;

use common::{LinkParams, Sim};
use v12_notify_protocol::{ProtocolConfig, SEQ_BITS};

fn lossy() -> LinkParams {
    LinkParams {
        latency_ms: 40,
        jitter_ms: 30,
        loss: 0.1,
        burst_enter: 0.02,
        burst_exit: 0.2,
        burst_loss: 0.8,
        duplicate: 0.05,
        reorder: 0.1,
        reorder_extra_ms: 120,
    }
}

#[test]
fn lossless_link_delivers_everything_and_measures_rtt() {
    let mut sim = Sim::new(ProtocolConfig::default(), LinkParams::clean(50), [32, 32], 1);
    sim.run_until(61_000);
    for ep in sim.eps() {
        assert!(ep.sent.len() > 1800);
        assert!(ep.notified.iter().all(|n| n.delivered));
        assert!(ep.rejected.is_empty(), "{:?}", ep.rejected);
        // 2 × 50 ms, within the 4 ms send-delay resolution.
        let rtt = ep.proto.rtt_ms();
        assert!((rtt - 100.0).abs() < 4.0, "rtt {rtt}");
        assert_eq!(ep.window_full_skips, 0);
    }
    sim.quiesce(3_000);
    sim.assert_all_notified();
}

#[test]
fn lossy_link_keeps_the_notify_guarantee_for_300_seconds() {
    let mut sim = Sim::new(ProtocolConfig::default(), lossy(), [32, 100], 7);
    sim.run_until(301_000);
    let dropped = sim.ep(0).notified.iter().filter(|n| !n.delivered).count();
    assert!(dropped > 500, "the link really lost packets ({dropped})");
    assert!(sim.eps().iter().all(|e| {
        e.rejected.iter().any(|r| matches!(r, v12_notify_protocol::ProtocolError::Duplicate { .. }))
    }));
    sim.quiesce(3_000);
    sim.check_drops_were_real();
    sim.assert_all_notified();
    assert!(!sim.ep(0).proto.is_timed_out() && !sim.ep(1).proto.is_timed_out());
}

#[test]
fn sequences_wrap_across_the_wire_width_and_u32() {
    let config = ProtocolConfig {
        initial_send_seq: u32::MAX - 700,
        initial_recv_seq: u32::MAX - 40,
        ..ProtocolConfig::default()
    };
    let mut sim = Sim::new(config, lossy(), [32, 32], 11);
    sim.run_until(61_000);
    sim.quiesce(3_000);
    sim.check_drops_were_real();
    sim.assert_all_notified();
    for ep in sim.eps() {
        let wire_wraps = ep.sent.len() as u32 >> SEQ_BITS;
        assert!(wire_wraps >= 1, "crossed 2^{SEQ_BITS} at least once");
        assert!(ep.sent.windows(2).any(|w| w[1] < w[0]), "crossed u32::MAX");
        assert!(ep.notified.iter().filter(|n| n.delivered).count() > ep.sent.len() / 2);
    }
}

#[test]
fn silent_peer_times_out_within_the_bound() {
    let config = ProtocolConfig { timeout_ms: 5_000, ping_interval_ms: 1_000, ..ProtocolConfig::default() };
    let mut sim = Sim::new(config, LinkParams::clean(30), [32, 32], 3);
    sim.run_until(11_000);
    // From here on the peer goes silent: nothing it sends arrives.
    let silent_from = sim.now();
    sim.cut(1, true);
    sim.ep_mut(1).sending = false;
    sim.run_until(silent_from + 4_900);
    assert!(!sim.ep(0).proto.is_timed_out(), "not before the timeout");
    sim.run_until(silent_from + 5_100);
    let ep = sim.ep(0);
    assert!(ep.proto.is_timed_out());
    let at = ep.timed_out_at.unwrap();
    // The last packet heard was sent at most one interval before the cut and spent 30 ms on the link.
    assert!(at >= silent_from + 5_000 - 32 && at <= silent_from + 30 + 5_000, "timed out at {at}");
    assert!(ep.proto.stats().pings_sent >= 3, "pinged while silent");
    assert_eq!(ep.notified.len(), ep.sent.len(), "outstanding packets flushed as dropped");
    assert!(ep.proto.poll_timeout().is_none());
}

#[test]
fn idle_connection_stays_alive_on_pings() {
    let mut sim = Sim::new(ProtocolConfig::default(), LinkParams::clean(80), [32, 32], 5);
    sim.ep_mut(0).sending = false;
    sim.ep_mut(1).sending = false;
    sim.run_until(121_000);
    for ep in sim.eps() {
        assert!(!ep.proto.is_timed_out());
        let pings = ep.proto.stats().pings_sent;
        assert!(pings > 50, "pings {pings}");
    }
}

#[test]
fn one_way_stream_is_acked_by_ack_only_packets() {
    let mut sim = Sim::new(ProtocolConfig::default(), LinkParams::clean(100), [32, 32], 9);
    sim.ep_mut(1).sending = false;
    sim.run_until(31_000);
    let sender = sim.ep(0);
    assert_eq!(sender.window_full_skips, 0, "acks kept the window open");
    assert!(sender.proto.in_flight() < 16);
    let acks = sim.ep(1).proto.stats().acks_sent;
    let data = sender.sent.len() as u64;
    assert!(acks > 0 && acks <= data / 8 + 1, "one ack per 8 packets: {acks} for {data}");
    sim.quiesce(3_000);
    sim.assert_all_notified();
}

#[test]
fn a_stalled_window_recovers_by_pinging() {
    // The peer's packets (with their acks) are all lost for a while: the window fills, the
    // sender holds back, and stall pings get acks through as soon as the link heals.
    let mut sim = Sim::new(ProtocolConfig::default(), LinkParams::clean(20), [32, 1_000_000], 13);
    sim.ep_mut(1).sending = false;
    sim.run_until(3_000);
    sim.cut(1, true);
    sim.run_until(4_500);
    assert!(sim.ep(0).proto.window_full());
    assert!(sim.ep(0).window_full_skips > 0);
    sim.cut(1, false);
    sim.run_until(4_900);
    assert!(!sim.ep(0).proto.window_full(), "stall ping got the acks back within 400 ms");
    sim.quiesce(3_000);
    sim.assert_all_notified();
    assert!(sim.ep(0).notified.iter().all(|n| n.delivered), "forward direction never lost anything");
}

/// Header overhead in a steady 32 ms two-way exchange; printed for docs/PERFORMANCE.md.
#[test]
fn header_overhead_is_below_tnl() {
    for (loss, seed) in [(0.0, 21), (0.05, 22)] {
        let params = LinkParams { latency_ms: 50, jitter_ms: 10, loss, ..LinkParams::default() };
        let mut sim = Sim::new(ProtocolConfig::default(), params, [32, 32], seed);
        sim.run_until(121_000);
        let mut ours = 0u64;
        let mut tnl = 0u64;
        let mut packets = 0u64;
        let mut control = 0u64;
        for ep in sim.eps() {
            for &(h, t) in &ep.header_bits {
                ours += u64::from(h);
                tnl += u64::from(t);
            }
            packets += ep.header_bits.len() as u64;
            control += ep.proto.stats().control_bytes_sent;
        }
        let ours_b = ours as f64 / packets as f64 / 8.0;
        let tnl_b = tnl as f64 / packets as f64 / 8.0;
        let all_b = (ours as f64 / 8.0 + control as f64) / packets as f64;
        println!(
            "loss {:.0}%: header {ours_b:.2} B/data packet (with ack-only/ping packets {all_b:.2}), \
             TNL-equivalent {tnl_b:.2} B, over {packets} packets",
            loss * 100.0
        );
        assert!(ours_b <= tnl_b, "ours {ours_b} vs TNL {tnl_b}");
        assert!(ours_b < 4.0);
    }
}
