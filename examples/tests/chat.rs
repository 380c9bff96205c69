//! The chat demo on real loopback UDP with loss: every ordered line arrives once, in order.

use v12_examples::chat::{ChatConfig, run};
use v12_platform::{ConditionerConfig, LossModel};

#[test]
fn chat_lines_arrive_exactly_once_in_order_over_lossy_udp() {
    let config = ChatConfig {
        clients: 3,
        seconds: 0.6,
        lines_per_client: 12,
        voice_period_ms: 20,
        link: ConditionerConfig {
            loss: LossModel::Uniform(0.1),
            latency_ms: 10,
            jitter_ms: 4,
            duplicate_chance: 0.05,
            ..ConditionerConfig::default()
        },
        seed: 99,
    };
    let report = run(&config).expect("loopback UDP works");
    for c in &report.clients {
        assert!(c.connected && c.failure.is_none(), "client {} failed: {:?}", c.index, c.failure);
        assert_eq!(c.lines_sent, 12);
    }
    assert!(report.ordered_delivery_ok(), "{}", report.render());
    assert!(report.voice_never_duplicated());
    let voice: usize = report.server.voice_received.values().map(Vec::len).sum();
    assert!(voice > 0, "some voice frames get through 10 % loss");
    assert_eq!(report.server.voice_undecodable, 0, "every voice frame is an Opus packet");
}
