//! The crowd at a size CI affords: `v12 --dedicated` and 24 light bots driven by this one
//! process, each on its own real UDP socket on 127.0.0.1; every bot joins, receives ghosts,
//! and at the match's end holds exactly the ghost states the server says it sent. The
//! hundreds are a measurement (`cargo xtask demo crowd --clients 256`, docs/PERFORMANCE.md).

use v12_examples::game::crowd::{CrowdConfig, run};

#[test]
fn one_process_drives_two_dozen_bots_over_udp_and_their_ghosts_agree() {
    let cfg = CrowdConfig { clients: 24, seconds: 2, ..CrowdConfig::default() };
    let report = run(&cfg).expect("crowd ran");
    println!("{}", report.render());
    assert_eq!(report.accepted, 24, "{}", report.render());
    assert!(report.ghosts_received >= 24 * 20, "every bot sees the other players: {}", report.render());
    assert!(report.bytes_per_s_per_client > 0.0, "{}", report.render());
    assert_eq!(report.server_ghost_hashes.len(), 24, "{}", report.render());
    assert_eq!(report.ghost_states_agree(), 24, "{}", report.render());
    assert!(report.ok(), "{}", report.render());
}
