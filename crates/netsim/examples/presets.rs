//! What netsim's link presets do to 10,000 datagrams sent 10 ms apart: how many arrive, how
//! late, how many twice or out of order.
//!
//! `cargo run -p v12-netsim --example presets`

use v12_netsim::{Link, LinkConfig, Millis};

const EVERY_MS: Millis = 10;

/// Hands out everything due by `upto`, each at its own release time; returns the delays.
fn drain(link: &mut Link<()>, upto: Millis, delays: &mut Vec<Millis>) {
    while let Some(t) = link.next_release().filter(|&t| t <= upto) {
        let Some(((), data)) = link.pop_due(t) else { break };
        let n = u64::from_le_bytes(data.try_into().expect("8 bytes"));
        delays.push(t - n * EVERY_MS);
    }
}

fn main() {
    for name in ["clean", "good", "average", "poor"] {
        let mut link = Link::new(LinkConfig::named(name).expect("a preset"), 1);
        let mut delays = Vec::new();
        for n in 0..10_000u64 {
            drain(&mut link, n * EVERY_MS, &mut delays);
            link.send(n * EVERY_MS, (), &n.to_le_bytes());
        }
        drain(&mut link, Millis::MAX, &mut delays);
        let st = link.stats();
        let mean = delays.iter().sum::<Millis>() as f64 / delays.len().max(1) as f64;
        println!(
            "{name:>8}: {} of {} arrived ({} lost, {} twice, {} out of order), one-way delay {}..{} ms, mean {mean:.1}",
            st.delivered,
            st.sent,
            st.dropped(),
            st.duplicated,
            st.reordered,
            delays.iter().min().unwrap_or(&0),
            delays.iter().max().unwrap_or(&0),
        );
    }
}
