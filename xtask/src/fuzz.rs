//! `cargo xtask fuzz [--seconds N] [TARGET...]`: runs the cargo-fuzz targets in
//! `fuzz/cargo-fuzz` (nightly, libFuzzer) for N seconds each (default 60), starting from the
//! code's own seeds (written to `target/fuzz-corpus/<target>`) and the committed regression
//! inputs in `fuzz/corpus/<target>`. A crash is left in `fuzz/cargo-fuzz/artifacts/<target>/`:
//! fix it, then copy the input into `fuzz/corpus/<target>/` so `cargo test` keeps checking it.

use std::path::Path;
use std::process::Command;

/// The targets, from the cargo-fuzz project's `fuzz_targets/` folder.
fn targets(root: &Path) -> Result<Vec<String>, String> {
    let dir = root.join("fuzz/cargo-fuzz/fuzz_targets");
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    v.sort();
    Ok(v)
}

pub fn run(root: &Path, seconds: u32, only: &[String]) -> Result<(), String> {
    let all = targets(root)?;
    if let Some(bad) = only.iter().find(|t| !all.contains(t)) {
        return Err(format!("unknown fuzz target {bad:?} (targets: {})", all.join(", ")));
    }
    let chosen = if only.is_empty() { all } else { only.to_vec() };
    let probe = Command::new("cargo").args(["+nightly", "fuzz", "--version"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return Err("cargo-fuzz on a nightly toolchain is needed: rustup toolchain install nightly \
                    && cargo install cargo-fuzz"
            .into());
    }
    let work = crate::target_dir(root).join("fuzz-corpus");
    crate::run(
        Command::new(crate::cargo())
            .args(["run", "--quiet", "-p", "v12-fuzz", "--bin", "fuzz-seeds", "--"])
            .arg(&work)
            .current_dir(root),
    )?;
    for t in &chosen {
        let kept = root.join("fuzz/corpus").join(t);
        std::fs::create_dir_all(&kept).map_err(|e| format!("{}: {e}", kept.display()))?;
        println!("== fuzz {t} for {seconds} s");
        crate::run(
            Command::new("cargo")
                .args(["+nightly", "fuzz", "run", "--fuzz-dir", "fuzz/cargo-fuzz", t])
                .arg(work.join(t))
                .arg(&kept)
                .arg("--")
                .arg(format!("-max_total_time={seconds}"))
                .current_dir(root),
        )?;
    }
    Ok(())
}
