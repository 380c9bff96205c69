//! Guaranteed-ordered event delivery latency (simulated time) at 0, 2, 10 and 30 % loss.
//! Prints median and p99 and the ratio to the lossless link; asserts nothing.
//! Run: `cargo bench -p v12-netobject --bench latency`.

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use v12_netobject::*;

const EVENTS: u32 = 2000;
const EVERY_MS: u64 = 20;

/// Sends `EVENTS` ordered events client → server, one every `EVERY_MS`, over a 50 ms
/// one-way link with `loss` both ways; returns sorted latencies (ms).
fn run(loss: f64, seed: u64) -> Vec<u64> {
    let mut cfg = InterfaceConfig { connect_retry_ms: 300, connect_tries: 100, ..InterfaceConfig::default() };
    cfg.protocol.timeout_ms = 60_000;
    let link = LinkParams { latency_ms: 50, ..LinkParams::lossy(loss) };
    let mut w = World::new(1, cfg.clone(), cfg, link, seed);
    w.connect_all();
    assert!(w.run_until_cond(120_000, |w| w.client_conn(1).is_some()));
    let c = w.client_conn(1).expect("connected");
    let start = w.now() + 100;
    let mut posted = Vec::with_capacity(EVENTS as usize);
    for n in 0..EVENTS {
        w.run_until(start + u64::from(n) * EVERY_MS);
        posted.push(w.now());
        w.node_mut(1).post_event(c, Ordered::new(1, n, None)).expect("post");
    }
    assert!(w.run_until_cond(w.now() + 600_000, |w| w.seen(0).events.len() == EVENTS as usize));
    let mut lat: Vec<u64> =
        w.seen(0).events.iter().zip(&w.seen(0).times).map(|(e, t)| t - posted[e.3 as usize]).collect();
    lat.sort_unstable();
    lat
}

fn pct(v: &[u64], p: f64) -> u64 {
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!(
        "guaranteed-ordered latency, client -> server, 50 ms one-way, 32 ms client packets, 100 ms server packets"
    );
    println!("| loss | median ms | p99 ms | median / lossless | p99 / lossless |");
    println!("| --- | --- | --- | --- | --- |");
    let base = run(0.0, 1);
    let (bm, bp) = (pct(&base, 0.5), pct(&base, 0.99));
    for loss in [0.0, 0.02, 0.10, 0.30] {
        let v = if loss == 0.0 { base.clone() } else { run(loss, 1) };
        let (m, p) = (pct(&v, 0.5), pct(&v, 0.99));
        println!(
            "| {:>4.0} % | {m} | {p} | {:.2} | {:.2} |",
            loss * 100.0,
            m as f64 / bm as f64,
            p as f64 / bp as f64
        );
    }
}
