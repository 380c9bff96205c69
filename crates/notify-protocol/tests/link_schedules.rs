//! proptest over random link schedules: loss 0–50 %, bursts, duplication, reordering, jitter,
//! rates and initial sequences. The harness checks on every event that each data packet gets
//! exactly one notify, in send order, that "delivered" means the peer really accepted it, and
//! that no packet is accepted twice; after the loss stops, every notify must catch up.

mod common;

use common::{LinkParams, Sim};
use proptest::prelude::*;
use v12_notify_protocol::ProtocolConfig;

fn link() -> impl Strategy<Value = LinkParams> {
    (
        (5u64..150, 0u64..60, 0.0f64..0.5),
        (0.0f64..0.1, 0.05f64..0.5, 0.5f64..1.0),
        (0.0f64..0.2, 0.0f64..0.3, 0u64..300),
    )
        .prop_map(
            |((latency_ms, jitter_ms, loss), (burst_enter, burst_exit, burst_loss), (dup, re, extra))| {
                LinkParams {
                    latency_ms,
                    jitter_ms,
                    loss,
                    burst_enter,
                    burst_exit,
                    burst_loss,
                    duplicate: dup,
                    reorder: re,
                    reorder_extra_ms: extra,
                }
            },
        )
}

fn interval() -> impl Strategy<Value = u64> {
    prop_oneof![Just(16u64), Just(32), Just(100), 10u64..200]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_packet_is_notified_once_in_order_and_truthfully(
        params in link(),
        a in interval(),
        b in interval(),
        seed in any::<u64>(),
        start_a in any::<u32>(),
        start_b in any::<u32>(),
    ) {
        let config = ProtocolConfig {
            initial_send_seq: start_a,
            initial_recv_seq: start_b,
            ..ProtocolConfig::default()
        };
        let mut sim = Sim::new(config, params, [a, b], seed);
        sim.run_until(21_000);
        // Loss stops; keep sending a while, then stop and let the acks settle.
        sim.heal();
        sim.run_until(26_000);
        sim.quiesce(3_000);
        if sim.eps().iter().any(|e| e.proto.is_timed_out()) {
            // A long enough burst may legitimately end the connection (5 s of silence). Then the
            // other side must time out too, and both flush every outstanding packet as dropped.
            sim.run_until(sim.now() + 6_000);
            prop_assert!(sim.eps().iter().all(|e| e.proto.is_timed_out()));
        }
        sim.check_drops_were_real();
        sim.assert_all_notified();
        for ep in sim.eps() {
            prop_assert!(!ep.sent.is_empty());
        }
    }
}
