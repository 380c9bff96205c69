//! Deterministic lockstep, server-relayed: two players on a lossy link in the simulated-time
//! harness, one command issued, the same frames run on both machines.
//!
//! `cargo run -p v12-lockstep --features test-support --example relay`

use v12_lockstep::harness::{LinkConfig, RelayWorld};
use v12_lockstep::toy::{ToyCommand, ToyGame};
use v12_lockstep::*;

fn main() {
    let link = LinkConfig { latency_ms: 40, jitter_ms: 20, loss: 0.1, duplicate: 0.0 };
    let mut world =
        RelayWorld::<ToyGame>::new(RelayConfig::default(), RelayClientConfig::default(), 2, link, 7);
    world.start();
    world.run_for(3_000, &mut |now, _, c: &mut RelayClient<ToyGame>| {
        if now == 500 && c.player() == Some(1) {
            c.issue(now, ToyCommand { token: 0, x: 9, y: 9 });
        }
    });
    for i in 0..2 {
        let replay = world.client(i).replay().expect("started");
        let last = replay.frames.last().expect("frames ran");
        println!(
            "player {}: {} frames, at GF {} the state checksum is {:#010x}; replay verifies: {}",
            i + 1,
            replay.frames.len(),
            last.gf,
            last.checksum,
            replay.verify::<ToyGame>().is_ok()
        );
    }
    println!("bytes each endpoint sent (server first): {:?}", world.sent_bytes());
}
