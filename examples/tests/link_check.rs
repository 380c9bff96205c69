//! The demo's link check on real loopback UDP: the counts must add up.

use v12_examples::link_check::{LinkCheckConfig, run};
use v12_platform::{ConditionerConfig, LossModel};

#[test]
fn counts_add_up_over_real_udp() {
    let config = LinkCheckConfig {
        seconds: 0.4,
        rate: 200,
        size: 32,
        link: ConditionerConfig {
            loss: LossModel::Uniform(0.2),
            duplicate_chance: 0.2,
            latency_ms: 5,
            jitter_ms: 3,
            ..ConditionerConfig::default()
        },
        seed: 7,
    };
    let r = run(&config).expect("loopback UDP works");
    assert!(r.sent > 0);
    assert_eq!(r.received, r.unique + r.duplicates);
    assert_eq!(r.unique + r.lost(), r.sent);
    assert_eq!(r.rtt_ms.len() as u64, r.unique);
    assert!(r.unique > 0, "some probes must come back: {r:?}");
    // The conditioner's books balance once its queue is empty.
    let c = r.client_link;
    assert_eq!(c.sent + c.duplicated, c.dropped_loss + c.dropped_mtu + c.delivered);
    assert!(c.dropped_loss > 0 && c.duplicated > 0, "20 % loss and duplication must show: {c:?}");
    assert!(r.render().contains("probes sent"));
}
