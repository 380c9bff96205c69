//! `cargo xtask <task>`: the project's automation, in Rust so it runs wherever cargo does
//! (`cargo xtask --help`).
//!
//! - `demo [ARGS]`   build and run the main demo (`v12-examples`, bin `demo`, beside v12-game's `v12`), passing ARGS on
//! - `soak`          the attack soak: bots and hostile clients, the server's memory and tick
//! - `ci`            run exactly what `.ci/run` runs
//! - `layers`        check the layer graph (each crate depends only on the crates it allows)
//! - `deps`          check deny.toml's licences, sources and duplicate versions, offline
//! - `fuzz`          run the cargo-fuzz targets time-boxed (`--seconds N`, default 60)
//! - `bench [ARGS]`  run the criterion benchmarks and print each one's ratio to its baseline
//! - `proptest`      the property tests with fresh random seeds, many rounds (`--rounds N`)
//! - `manifests`     check deploy/*.yaml against the Kubernetes and Agones schemas kept in the repo
//! - `profiler-cost` the profiler's cost when off on the match's server tick: instructions
//!   (callgrind) and alternated wall-clock replays against a build with the zones compiled out

mod bench;
#[cfg(test)]
mod circles;
mod deps;
mod files;
mod fuzz;
mod layers;
mod manifests;
mod profcost;
mod proptests;
mod shapes;
mod textures;
#[cfg(test)]
mod tidy;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The project's automation (`cargo xtask <task>`).
#[derive(Debug, Parser)]
#[command(name = "xtask", bin_name = "cargo xtask", version)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Build every example binary in release and run the V12 demo (`cargo xtask demo --help`
    /// prints the demo's own flags).
    #[command(disable_help_flag = true)]
    Demo {
        /// Passed on to the demo.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The attack soak (not in CI): the match with bots and hostile clients for --seconds,
    /// printing the server's memory and tick cost (`demo soak`).
    Soak {
        /// How long (s).
        #[arg(long, default_value_t = 180)]
        seconds: u32,
    },
    /// Run exactly what .ci/run runs.
    Ci,
    /// Check that each crate depends only on the crates the layer graph allows.
    Layers,
    /// Check the dependency policy of deny.toml offline (licences, sources, duplicate
    /// versions, wildcards), from `cargo metadata`.
    Deps,
    /// Fuzz the readers of outside data with cargo-fuzz (nightly), time-boxed, from the seeds
    /// and the committed corpus in fuzz/corpus.
    Fuzz {
        /// Seconds per target.
        #[arg(long, default_value_t = 60)]
        seconds: u32,
        /// Targets to run (default: every one).
        targets: Vec<String>,
    },
    /// The property tests with fresh random seeds (CI runs the fixed seed of
    /// .cargo/config.toml): --rounds rounds, each a new seed, printed.
    Proptest {
        /// Rounds, each with a new random seed.
        #[arg(long, default_value_t = 16)]
        rounds: u32,
        /// Cases per property (PROPTEST_CASES; default: each test's own count).
        #[arg(long)]
        cases: Option<u32>,
        /// Replay one seed (one round).
        #[arg(long)]
        seed: Option<u64>,
        /// Build the tests optimised (faster for many cases).
        #[arg(long)]
        release: bool,
    },
    /// Check the Kubernetes manifests in deploy/ against the Kubernetes and Agones schemas
    /// kept in deploy/schemas (offline; deploy/schemas/README.md says what they cover).
    Manifests,
    /// Write the example game's shapes (`examples/game/shapes/*.glb`: a player, a flag and
    /// an item, made from boxes) from their definitions in `xtask/src/shapes.rs`.
    Shapes,
    /// Write the example game's material bitmaps (`examples/game/terrains/*.png` and
    /// `examples/game/interiors/*.png`, seeded noise) from `xtask/src/textures.rs`.
    Textures,
    /// The profiler's cost while off (issue 36): records one match's server in a journal,
    /// replays it with `v12` as shipped and with the zones compiled out (v12-console-vm's
    /// `profiler-off` feature), under callgrind (instructions) and alternately on the clock.
    ProfilerCost {
        /// Bots in the recorded match.
        #[arg(long, default_value_t = 16)]
        clients: u32,
        /// Match length (s).
        #[arg(long, default_value_t = 20)]
        seconds: u32,
        /// Alternated wall-clock replays of each binary.
        #[arg(long, default_value_t = 20)]
        runs: u32,
        /// Skip valgrind (wall clock only).
        #[arg(long)]
        no_callgrind: bool,
        /// Reuse the binaries and journal already in target/profcost/.
        #[arg(long)]
        reuse: bool,
    },
    /// Run the criterion benchmarks and print each one's ratio to its baseline
    /// (`--report-only` reads the last results; other arguments go to `cargo bench`).
    Bench {
        /// `--report-only`, or arguments for `cargo bench` (e.g. `-p v12-bitstream`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = project_root();
    let (name, result) = match &cli.task {
        Task::Demo { args } => ("demo", demo(&root, args)),
        Task::Soak { seconds } => {
            ("soak", demo(&root, &["soak".into(), "--seconds".into(), seconds.to_string()]))
        }
        Task::Ci => ("ci", run(Command::new("bash").arg(root.join(".ci/run")).current_dir(&root))),
        Task::Layers => ("layers", layers::check(&root)),
        Task::Deps => ("deps", deps::check(&root)),
        Task::Fuzz { seconds, targets } => ("fuzz", fuzz::run(&root, *seconds, targets)),
        Task::Bench { args } => ("bench", bench::run(&root, args)),
        Task::ProfilerCost { clients, seconds, runs, no_callgrind, reuse } => (
            "profiler-cost",
            profcost::run(
                &root,
                &profcost::Options {
                    clients: *clients,
                    seconds: *seconds,
                    runs: *runs,
                    no_callgrind: *no_callgrind,
                    reuse: *reuse,
                },
            ),
        ),
        Task::Proptest { rounds, cases, seed, release } => (
            "proptest",
            proptests::run_rounds(
                &root,
                &proptests::Options { rounds: *rounds, cases: *cases, seed: *seed, release: *release },
            ),
        ),
        Task::Manifests => ("manifests", manifests::check(&root)),
        Task::Shapes => ("shapes", shapes::write_all(&root.join("examples/game/shapes"))),
        Task::Textures => ("textures", textures::write_all(&root.join("examples/game"))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("xtask {name}: {msg}");
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

/// Builds every example binary and the engine's `v12` program (the match demo starts `v12`
/// processes next to `demo`), then runs `demo` with the given arguments.
fn demo(root: &Path, args: &[String]) -> Result<(), String> {
    run(Command::new(cargo())
        .args(["build", "--release", "--package", "v12-examples", "--package", "v12-game", "--bins"])
        .current_dir(root))?;
    run(Command::new(target_dir(root).join("release").join(format!("demo{}", std::env::consts::EXE_SUFFIX)))
        .args(args)
        .current_dir(root))
}

/// Where cargo builds (`CARGO_TARGET_DIR` or `target/`).
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"))
}

pub(crate) fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

pub(crate) fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd.status().map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{cmd:?} failed: {status}")) }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::{CommandFactory, Parser};

    #[test]
    fn the_help_lists_every_task() {
        Cli::command().debug_assert();
        let help = Cli::command().render_long_help().to_string();
        for task in [
            "demo",
            "soak",
            "ci",
            "layers",
            "deps",
            "fuzz",
            "bench",
            "proptest",
            "manifests",
            "profiler-cost",
        ] {
            assert!(help.contains(task), "cargo xtask --help omits {task}:\n{help}");
        }
    }

    #[test]
    fn demo_help_is_the_demos_own() {
        let cli = Cli::try_parse_from(["xtask", "demo", "--help"]).unwrap();
        assert!(matches!(cli.task, super::Task::Demo { args } if args == ["--help"]));
    }

    #[test]
    fn demo_arguments_pass_through_untouched() {
        let cli = Cli::try_parse_from(["xtask", "demo", "--lockstep", "p2p", "--seed", "3"]).unwrap();
        match cli.task {
            super::Task::Demo { args } => assert_eq!(args, ["--lockstep", "p2p", "--seed", "3"]),
            other => panic!("{other:?}"),
        }
    }
}
