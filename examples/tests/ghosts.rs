//! The ghost demo on real loopback UDP, small and short: every client converges.

use v12_examples::ghosts::{GhostDemoConfig, run};
use v12_platform::{ConditionerConfig, LossModel};

#[test]
fn ghost_demo_converges_on_loopback_under_loss() {
    let config = GhostDemoConfig {
        clients: 3,
        objects: 400,
        world_size: 500.0,
        view_distance: 100.0,
        seconds: 2.0,
        settle_seconds: 2.0,
        link: ConditionerConfig {
            latency_ms: 20,
            loss: LossModel::Uniform(0.1),
            ..ConditionerConfig::default()
        },
        seed: 7,
    };
    let report = run(&config).expect("demo runs");
    let text = report.render();
    assert!(report.converged(), "{text}");
    assert_eq!(report.clients.len(), 3);
    for c in &report.clients {
        assert!(c.ghosts > 5, "{text}");
        assert!(c.updates_per_s > 0.0 && c.bytes_per_s > 0.0, "{text}");
        assert_eq!(c.message.0, "Hello World!", "the SimpleNetObject reached client {}", c.index);
    }
}

/// The demo scene at full size (for the performance notes): `cargo test -p v12-examples
/// --release --test ghosts -- --ignored --nocapture`.
#[test]
#[ignore = "ten-second demo run for the performance figures"]
fn ghost_demo_full_scene_figures() {
    let config = GhostDemoConfig {
        link: ConditionerConfig {
            latency_ms: 50,
            loss: LossModel::Uniform(0.02),
            ..ConditionerConfig::default()
        },
        ..GhostDemoConfig::default()
    };
    let report = run(&config).expect("demo runs");
    println!("{}", report.render());
    assert!(report.converged());
}

#[test]
fn l3_demo_syncs_then_control_messages_converge() {
    let report = v12_examples::owned::run(3, 4).expect("l3 demo runs");
    assert!(report.converged(), "{:#?}", report);
    // The server object took every sync; each client's object moved by its control messages.
    assert!(report.server.contains(&(0, 4, 0)), "{:?}", report.server);
    for i in 0..3 {
        assert!(report.server.contains(&(1 + i, 4, 4 * (i as i32 + 1))), "{:?}", report.server);
    }
}
