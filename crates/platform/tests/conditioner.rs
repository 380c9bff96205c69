//! The link conditioner's determinism and statistics, on the in-memory
//! network with a simulated clock.

use v12_platform::{
    ConditionerConfig, ConditionerStats, Datagram, GilbertElliott, LinkConditioner, LoopbackTransport,
    LossModel, Transport,
};

/// Send `n` numbered datagrams, one per `step_ms`, then drain; returns what the
/// receiver saw as (arrival time, payload) and the stats.
fn run(
    config: ConditionerConfig,
    seed: u64,
    n: u32,
    step_ms: u64,
) -> (Vec<(u64, Vec<u8>)>, ConditionerStats) {
    let (a, mut b) = LoopbackTransport::pair();
    let to = b.local_addr();
    let mut c = LinkConditioner::new(a, config, seed);
    let mut seen = Vec::new();
    let mut buf: Vec<Datagram> = Vec::new();
    let mut now = 0;
    let mut collect = |now: u64, b: &mut LoopbackTransport, seen: &mut Vec<(u64, Vec<u8>)>| {
        buf.clear();
        b.recv_batch(now, &mut buf).unwrap();
        seen.extend(buf.iter().map(|d| (now, d.data.to_vec())));
    };
    for i in 0..n {
        // Release what falls due between sends at its exact time.
        while let Some(t) = c.next_wakeup().filter(|&t| t < now) {
            c.poll(t).unwrap();
            collect(t, &mut b, &mut seen);
        }
        let len = 20 + (i % 200) as usize;
        let mut payload = i.to_le_bytes().to_vec();
        payload.resize(len, (i % 251) as u8);
        c.send_to(now, to, &payload).unwrap();
        collect(now, &mut b, &mut seen);
        now += step_ms;
    }
    while let Some(t) = c.next_wakeup() {
        now = t;
        c.poll(now).unwrap();
        collect(now, &mut b, &mut seen);
    }
    (seen, c.stats())
}

fn id(payload: &[u8]) -> u32 {
    u32::from_le_bytes(payload[..4].try_into().unwrap())
}

fn messy() -> ConditionerConfig {
    ConditionerConfig {
        mtu: Some(180),
        loss: LossModel::GilbertElliott(GilbertElliott::from_rate_and_burst(0.05, 3.0)),
        latency_ms: 80,
        jitter_ms: 30,
        duplicate_chance: 0.05,
        reorder_chance: 0.05,
        reorder_delay_ms: 40,
        retransmit_ms: None,
    }
}

#[test]
fn same_seed_same_schedule_same_output() {
    let (a, sa) = run(messy(), 7, 5_000, 5);
    let (b, sb) = run(messy(), 7, 5_000, 5);
    assert_eq!(a, b);
    assert_eq!(sa, sb);
    let (c, _) = run(messy(), 8, 5_000, 5);
    assert_ne!(a, c, "a different seed should give a different schedule");
}

#[test]
fn accounting_adds_up() {
    let (seen, s) = run(messy(), 3, 10_000, 5);
    assert_eq!(s.sent, 10_000);
    assert_eq!(s.sent + s.duplicated, s.dropped_loss + s.dropped_mtu + s.delivered);
    assert_eq!(seen.len() as u64, s.delivered);
    assert!(s.dropped_mtu > 0 && s.dropped_loss > 0 && s.duplicated > 0 && s.reordered > 0);
    // Every delivered datagram is intact and under the MTU.
    for (_, p) in &seen {
        let i = id(p);
        assert_eq!(p.len(), 20 + (i % 200) as usize);
        assert!(p.len() <= 180);
        assert!(p[4..].iter().all(|&x| x == (i % 251) as u8));
    }
}

#[test]
fn uniform_loss_rate_is_within_tolerance() {
    let cfg = ConditionerConfig { loss: LossModel::Uniform(0.02), ..Default::default() };
    let (seen, s) = run(cfg, 11, 100_000, 1);
    let rate = s.dropped_loss as f64 / s.sent as f64;
    // 100k Bernoulli(0.02) trials: sd ≈ 0.00044; allow ~5 sd.
    assert!((rate - 0.02).abs() < 0.0022, "loss rate {rate}");
    assert_eq!(seen.len() as u64, s.sent - s.dropped_loss);
}

#[test]
fn gilbert_elliott_rate_and_mean_burst_length() {
    let ge = GilbertElliott::from_rate_and_burst(0.05, 4.0);
    let cfg = ConditionerConfig { loss: LossModel::GilbertElliott(ge), ..Default::default() };
    let (seen, s) = run(cfg, 12, 100_000, 1);
    let rate = s.dropped_loss as f64 / s.sent as f64;
    assert!((rate - 0.05).abs() < 0.01, "loss rate {rate}");
    // Bursts: runs of consecutive missing ids.
    let mut got = vec![false; 100_000];
    for (_, p) in &seen {
        got[id(p) as usize] = true;
    }
    let (mut bursts, mut lost, mut in_burst) = (0u64, 0u64, false);
    for &g in &got {
        if !g {
            lost += 1;
            if !in_burst {
                bursts += 1;
            }
        }
        in_burst = !g;
    }
    let mean_burst = lost as f64 / bursts as f64;
    assert!((mean_burst - 4.0).abs() < 0.4, "mean burst {mean_burst}");
    // Uniform loss at the same rate has bursts of about 1/(1-p) ≈ 1.05.
    assert!(mean_burst > 3.0);
}

#[test]
fn mtu_drops_only_oversize() {
    let cfg = ConditionerConfig { mtu: Some(100), ..Default::default() };
    let (seen, s) = run(cfg, 1, 1_000, 1);
    // Lengths are 20 + i % 200, so 20..=100 pass: 81 of every 200.
    assert_eq!(s.dropped_mtu, 1_000 / 200 * 119);
    assert_eq!(seen.len(), 1_000 / 200 * 81);
    assert!(seen.iter().all(|(_, p)| p.len() <= 100));
}

#[test]
fn duplication_sends_two_copies_and_counts_them() {
    let cfg = ConditionerConfig { duplicate_chance: 0.1, ..Default::default() };
    let (seen, s) = run(cfg, 5, 20_000, 1);
    let rate = s.duplicated as f64 / s.sent as f64;
    assert!((rate - 0.1).abs() < 0.01, "dup rate {rate}");
    assert_eq!(seen.len() as u64, s.sent + s.duplicated);
    let mut count = vec![0u8; 20_000];
    for (_, p) in &seen {
        count[id(p) as usize] += 1;
    }
    assert_eq!(count.iter().filter(|&&c| c == 2).count() as u64, s.duplicated);
    assert!(count.iter().all(|&c| c == 1 || c == 2));
}

#[test]
fn reordering_is_counted_by_arrival_order() {
    let cfg = ConditionerConfig { reorder_chance: 0.1, reorder_delay_ms: 20, ..Default::default() };
    let (seen, s) = run(cfg, 9, 10_000, 5);
    // Count arrivals that come after a higher id.
    let mut max = None;
    let mut late = 0u64;
    for (_, p) in &seen {
        let i = id(p);
        match max {
            Some(m) if i < m => late += 1,
            _ => max = Some(i),
        }
    }
    assert_eq!(late, s.reordered);
    let rate = s.reordered as f64 / s.sent as f64;
    assert!((rate - 0.1).abs() < 0.015, "reorder rate {rate}");
}

#[test]
fn presets_delay_within_latency_plus_minus_jitter() {
    for (cfg, lat, jit, loss) in [
        (ConditionerConfig::good(), 40, 10, 0.002),
        (ConditionerConfig::average(), 100, 25, 0.02),
        (ConditionerConfig::poor(), 200, 50, 0.06),
    ] {
        let (seen, s) = run(cfg, 21, 20_000, 10);
        for (arrival, p) in &seen {
            let sent_at = u64::from(id(p)) * 10;
            let delay = arrival - sent_at;
            assert!(delay >= lat - jit && delay <= lat + jit, "delay {delay} for {lat}±{jit}");
        }
        let rate = s.dropped_loss as f64 / s.sent as f64;
        assert!((rate - loss).abs() < loss * 0.25 + 0.001, "loss {rate} for {loss}");
    }
}
