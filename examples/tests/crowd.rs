//! The crowd at a size CI affords: `v12 --dedicated` and 24 light bots driven by this one
//! process, each on its own real UDP socket on 127.0.0.1; every bot joins, receives ghosts,
//! and at the match's end holds exactly the ghost states the server says it sent. The
//! hundreds are a measurement (`cargo xtask demo crowd --clients 256`, docs/PERFORMANCE.md).

use v12_examples::game::crowd::{CrowdConfig, run};

#[test]
fn one_process_drives_two_dozen_bots_over_udp_and_their_ghosts_agree() {
    let report = crowd_of(0);
    assert_eq!(report.server_parallel_pumps, 0, "{}", report.render());
}

/// The same crowd with the server's packets built on two packet threads
/// (`-packet-threads 2`): the same checks, and the pumps were the parallel ones.
#[test]
fn with_packet_threads_the_ghosts_still_agree() {
    let report = crowd_of(2);
    assert!(report.server_parallel_pumps > 0, "the packet threads built the packets: {}", report.render());
}

/// One crowd at a time: each is a server and two dozen bots, on CI's two cores.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn crowd_of(packet_threads: usize) -> v12_examples::game::crowd::CrowdReport {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let cfg = CrowdConfig { clients: 24, seconds: 2, packet_threads, ..CrowdConfig::default() };
    let report = run(&cfg).expect("crowd ran");
    println!("{}", report.render());
    assert_eq!(report.accepted, 24, "{}", report.render());
    assert!(report.ghosts_received >= 24 * 20, "every bot sees the other players: {}", report.render());
    assert!(report.bytes_per_s_per_client > 0.0, "{}", report.render());
    assert_eq!(report.server_ghost_hashes.len(), 24, "{}", report.render());
    assert_eq!(report.ghost_states_agree(), 24, "{}", report.render());
    assert!(report.ok(), "{}", report.render());
    report
}
