//! `cargo xtask <task>`: the project's automation, in Rust so it runs wherever cargo does.
//!
//! - `demo [ARGS]`   build and run the main demo (`v12-examples`, bin `demo`), passing ARGS on
//! - `ci`            run exactly what `.ci/run` runs
//! - `layers`        check the layer graph (each crate depends only on the crates it allows)
//! - `bench [ARGS]`  run the criterion benchmarks and print each one's ratio to its baseline

mod bench;
mod layers;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let task = args.next().unwrap_or_default();
    let rest: Vec<String> = args.collect();
    let root = project_root();
    let result = match task.as_str() {
        "demo" => demo(&root, &rest),
        "ci" => run(Command::new("bash").arg(root.join(".ci/run")).current_dir(&root)),
        "layers" => layers::check(&root),
        "bench" => bench::run(&root, &rest),
        _ => {
            eprintln!(
                "usage: cargo xtask <demo [ARGS] | ci | layers | bench [ARGS]>\n\
                 \n  demo    run the V12 demo (pass --help after it for its flags)\
                 \n  ci      run exactly what .ci/run runs\
                 \n  layers  check that each crate depends only on the crates the layer graph allows\
                 \n  bench   run the benchmarks and print their ratios to the baselines"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask {task}: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one folder below the workspace root")
        .to_path_buf()
}

/// Builds every example binary (the match demo starts `v12` processes next to `demo`), then runs
/// `demo` with the given arguments.
fn demo(root: &Path, args: &[String]) -> Result<(), String> {
    run(Command::new(cargo())
        .args(["build", "--release", "--package", "v12-examples", "--bins"])
        .current_dir(root))?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"));
    run(Command::new(target.join("release").join(format!("demo{}", std::env::consts::EXE_SUFFIX)))
        .args(args)
        .current_dir(root))
}

pub(crate) fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

pub(crate) fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{cmd:?} failed: {status}")) }
}
