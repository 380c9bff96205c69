//! `cargo xtask proptest`: the property tests with fresh random seeds, many rounds.
//!
//! A plain `cargo test` (and CI) runs every proptest from the fixed seed in
//! `.cargo/config.toml` (`PROPTEST_RNG_SEED`, which an environment variable of the same name
//! overrides), so a test run never depends on luck. This task is where luck is sought: each
//! round draws a new seed, prints it, and runs every test target that holds a `proptest!`
//! block with it. A failure names its seed (replay with `PROPTEST_RNG_SEED=<seed> cargo test
//! ...`) and proptest writes the shrunk case into the target's `.proptest-regressions` file:
//! commit that file, and CI runs the case from then on.

use crate::{cargo, run};
use std::collections::BTreeSet;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;
use std::process::Command;

/// Options of one `cargo xtask proptest` run.
pub(crate) struct Options {
    pub rounds: u32,
    pub cases: Option<u32>,
    pub seed: Option<u64>,
    pub release: bool,
}

/// The features a `[[test]]` target named `name` requires (`required-features`).
fn required_features(manifest: &toml::Table, name: &str) -> Vec<String> {
    let tests = manifest.get("test").and_then(|t| t.as_array()).map(Vec::as_slice).unwrap_or_default();
    tests
        .iter()
        .filter(|t| t.get("name").and_then(|n| n.as_str()) == Some(name))
        .filter_map(|t| t.get("required-features").and_then(|f| f.as_array()))
        .flatten()
        .filter_map(|f| f.as_str().map(str::to_string))
        .collect()
}

/// `(package, target)` for every test target holding a `proptest!` block: `--lib` for one in
/// `src/`, `--test NAME` for `tests/NAME.rs` (and `--features=..` for the features it needs).
pub(crate) fn targets(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut out = BTreeSet::new();
    let crates = std::fs::read_dir(root.join("crates")).map_err(|e| format!("crates/: {e}"))?;
    for dir in crates.flatten().map(|e| e.path()).filter(|p| p.join("Cargo.toml").is_file()) {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).map_err(|e| e.to_string())?;
        let manifest: toml::Table = manifest.parse().map_err(|e| format!("{}: {e}", dir.display()))?;
        let Some(package) = manifest.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str())
        else {
            continue;
        };
        for file in crate::files::rust_files(&dir) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            if !text.contains("proptest! {") {
                continue;
            }
            let rel = file.strip_prefix(&dir).unwrap_or(&file);
            let target = match rel.components().next().and_then(|c| c.as_os_str().to_str()) {
                Some("src") => "--lib".to_string(),
                Some("tests") if rel.components().count() == 2 => {
                    let stem = rel.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
                    let features = required_features(&manifest, stem);
                    if !features.is_empty() {
                        out.insert((package.to_string(), format!("--features={}", features.join(","))));
                    }
                    format!("--test={stem}")
                }
                _ => continue,
            };
            out.insert((package.to_string(), target));
        }
    }
    Ok(out.into_iter().collect())
}

/// A seed nobody chose: the standard library's per-process hash keys and the clock.
fn fresh_seed(round: u32) -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(round);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    h.write_u128(now.as_nanos());
    h.finish()
}

pub(crate) fn run_rounds(root: &Path, opts: &Options) -> Result<(), String> {
    let targets = targets(root)?;
    if targets.is_empty() {
        return Err("no proptest! blocks found under crates/".into());
    }
    // One cargo run per package (`--lib` names the library of every package a run selects).
    let mut runs: Vec<Vec<String>> = Vec::new();
    for (package, target) in &targets {
        if runs.last().is_none_or(|r| r[3] != *package) {
            runs.push(vec!["test".into(), "--locked".into(), "-p".into(), package.clone()]);
            if opts.release {
                runs.last_mut().into_iter().for_each(|r| r.push("--release".into()));
            }
        }
        runs.last_mut().into_iter().for_each(|r| r.push(target.clone()));
    }
    let rounds = if opts.seed.is_some() { 1 } else { opts.rounds.max(1) };
    for round in 0..rounds {
        let seed = opts.seed.unwrap_or_else(|| fresh_seed(round));
        let cases = opts.cases.map_or_else(|| "as configured".to_string(), |c| c.to_string());
        eprintln!("== proptest round {}/{rounds}: PROPTEST_RNG_SEED={seed} (cases: {cases})", round + 1);
        for args in &runs {
            let mut cmd = Command::new(cargo());
            cmd.args(args).env("PROPTEST_RNG_SEED", seed.to_string()).current_dir(root);
            if let Some(c) = opts.cases {
                cmd.env("PROPTEST_CASES", c.to_string());
            }
            run(&mut cmd).map_err(|e| format!("round {} (PROPTEST_RNG_SEED={seed}): {e}", round + 1))?;
        }
    }
    eprintln!("== proptest: {rounds} rounds over {} targets passed", targets.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_proptest_file_is_a_target() {
        let root = crate::project_root();
        let targets = super::targets(&root).unwrap();
        for want in [("v12-netobject", "--test=delivery"), ("v12-notify-protocol", "--lib")] {
            assert!(
                targets.iter().any(|(p, t)| p == want.0 && t == want.1),
                "{want:?} missing from {targets:?}"
            );
        }
    }

    #[test]
    fn ci_and_plain_test_runs_use_the_fixed_seed() {
        let root = crate::project_root();
        let config = std::fs::read_to_string(root.join(".cargo/config.toml")).unwrap();
        let config: toml::Table = config.parse().unwrap();
        let seed = config["env"]["PROPTEST_RNG_SEED"].as_str().expect("a fixed PROPTEST_RNG_SEED in [env]");
        assert!(seed.parse::<u64>().is_ok(), "{seed}");
        let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
        assert!(ci.contains("PROPTEST_RNG_SEED"), ".ci/run prints the seed it runs");
    }
}
