//! Process-level: `v12 --dedicated` and two bot clients (separate processes) on loopback UDP
//! through the "average" link conditioner; every client's final scoreboard equals the
//! server's, the report says so, and prediction corrections stay rare; the 16-bot run also
//! bounds ghost coverage and staleness.

use v12_examples::game::bot_match::{MatchConfig, run};

#[test]
fn dedicated_server_and_two_bots_agree_on_the_scoreboard() {
    let cfg = MatchConfig { clients: 2, seconds: 5, v12: None, live: false, ..MatchConfig::default() };
    let report = run(&cfg).expect("match ran");
    println!("{}", report.render());
    assert!(report.ok(), "{}", report.render());
    assert_eq!(report.client_scoreboards.len(), 2);
    // What the clients hold, not only what the server told them: every ghost's settled
    // state hashes on each client as the server's objects do.
    assert_eq!(report.ghost_states_agree(), 2, "{}", report.render());
    assert!(report.to_json().contains("\"ghost_states_agree\":2"));
    assert!(report.server_scoreboard.contains("Bot00=") && report.server_scoreboard.contains("Bot01="));
    assert_eq!(report.max_players, 2, "{}", report.render());
    assert!(report.rtt_ms > 100.0, "the average link (100 ms each way) was not applied: {}", report.render());
    assert!(report.to_json().contains("\"ok\":true"));
    // The client's prediction agrees with the server: few corrections (2 % loss and 200 ms
    // round trips; typical runs: 0). Coverage and staleness need players in view, which two
    // bots in 5 s do not always have: the 16-bot test below bounds them.
    assert!(report.corrections_per_min <= 60.0, "{}", report.render());
}

/// Bots use the vehicle: a free skimmer near a bot draws it, it boards by walking into the
/// hull (the game's `onCollision`) and drives; the scoreboards and ghost states still agree.
#[test]
fn bots_walk_to_the_skimmer_and_board_it() {
    let cfg = MatchConfig { clients: 2, seconds: 20, v12: None, live: false, ..MatchConfig::default() };
    let report = run(&cfg).expect("match ran");
    println!("{}", report.render());
    assert!(report.ok(), "{}", report.render());
    assert_eq!(report.ghost_states_agree(), 2, "{}", report.render());
    assert!(report.vehicle_boardings >= 1, "{}", report.render());
}

/// The full demo size; a measurement run (16 debug processes are slow on small machines).
#[test]
#[ignore = "16 processes; run with --ignored --nocapture"]
fn sixteen_bots_match() {
    let cfg = MatchConfig { clients: 16, seconds: 10, v12: None, live: false, ..MatchConfig::default() };
    let report = run(&cfg).expect("match ran");
    println!("{}", report.render());
    println!("{}", report.to_json());
    assert!(report.ok(), "{}", report.render());
    // What the clients see stays close to the server: few corrections, the nearest players
    // updated in most packets, no visible player stale for long (typical runs: 2 corrections
    // a minute, 99.7 % on the lowest client, 600 ms worst).
    assert!(report.corrections_per_min <= 30.0, "{}", report.render());
    assert!(report.nearby_updated_pct >= 80.0, "{}", report.render());
    assert!(report.worst_staleness_ms <= 2_000, "{}", report.render());
}
