//! Writes every target's seeds into `DIR/<target>/seed-N` (what `cargo xtask fuzz` starts
//! libFuzzer from). `cargo run -p v12-fuzz --bin fuzz-seeds -- DIR`

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz-seeds DIR");
        return ExitCode::from(2);
    };
    for target in v12_fuzz::TARGETS {
        let d = dir.join(target);
        if let Err(e) = std::fs::create_dir_all(&d) {
            eprintln!("fuzz-seeds: {}: {e}", d.display());
            return ExitCode::FAILURE;
        }
        for (i, seed) in v12_fuzz::seeds(target).iter().enumerate() {
            if let Err(e) = std::fs::write(d.join(format!("seed-{i}")), seed) {
                eprintln!("fuzz-seeds: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!("seeds written under {}", dir.display());
    ExitCode::SUCCESS
}
