//! Seeds: derive many from one, and replay a failing run from its seed.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

/// The environment variable that replays one seed: `V12_NETSIM_SEED=1234 cargo test ...`.
pub const SEED_ENV: &str = "V12_NETSIM_SEED";

/// A well-mixed seed for stream `n` of a run seeded with `seed` (SplitMix64's finaliser), so
/// neighbouring streams are unrelated.
pub fn mix_seed(seed: u64, n: u64) -> u64 {
    let mut z = seed.wrapping_add(n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Runs `body` once per seed (or only for the seed in `V12_NETSIM_SEED` when it is set). When a
/// run panics, the panic is raised again with the seed named first, so the failing case can be
/// replayed exactly.
pub fn for_each_seed(seeds: impl IntoIterator<Item = u64>, mut body: impl FnMut(u64)) {
    let only = std::env::var(SEED_ENV).ok().and_then(|s| s.trim().parse::<u64>().ok());
    let seeds: Vec<u64> = match only {
        Some(s) => vec![s],
        None => seeds.into_iter().collect(),
    };
    for seed in seeds {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| body(seed))) {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(non-text panic)");
            if msg.starts_with("netsim seed ") {
                resume_unwind(payload);
            }
            panic!("netsim seed {seed} failed (replay with {SEED_ENV}={seed}): {msg}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_seeds_differ() {
        assert_ne!(mix_seed(1, 0), mix_seed(1, 1));
        assert_ne!(mix_seed(1, 0), mix_seed(2, 0));
        assert_eq!(mix_seed(5, 3), mix_seed(5, 3));
    }

    #[test]
    fn a_failing_seed_is_named() {
        if std::env::var(SEED_ENV).is_ok() {
            return; // the environment pins the seed list; nothing to check here
        }
        let err = catch_unwind(|| for_each_seed([1, 2, 3], |s| assert_ne!(s, 2, "boom")))
            .expect_err("seed 2 fails");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.starts_with("netsim seed 2 failed (replay with V12_NETSIM_SEED=2)"), "{msg}");
    }
}
