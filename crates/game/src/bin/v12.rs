//! `v12`: the V12 engine's program — a listen server with a window, a dedicated server, a
//! client, or a headless screenshot, running the scripts of the mod folder `--mod` names. `v12 --help` lists the flags; arguments after them (or
//! after `--`) go to the scripts as Torque's `$Game::argv` (`-port`, `-master`, `-seconds`, ...).

use clap::Parser;
use std::path::PathBuf;
use v12_game::client::cli::ClientArgs;
use v12_game::journal::SessionJournal;
use v12_game::{HostConfig, link_preset, run};

/// The V12 engine's program: a game's scripts (a mod folder) on the V12 engine.
#[derive(Debug, Parser)]
#[command(
    name = "v12",
    version,
    after_help = "Script arguments (after the flags, or after --) go to main.cs, e.g.\n  v12 --dedicated -- -port 28000 -master 127.0.0.1:28002\n  v12 --dedicated -- -port 28000 -packet-threads 2   (the example game: its clients' packets built on 2 threads)\n  v12 --connect 127.0.0.1:28000\n  v12 --headless --screenshot shot.png --size 640x480\n\nRUST_LOG sets the log filter (default: warn), e.g. RUST_LOG=info or RUST_LOG=v12_netobject=debug."
)]
struct Cli {
    /// Run a dedicated server: no window, no local client.
    #[arg(long)]
    dedicated: bool,
    /// The mod folder whose main.cs runs (default: this checkout's example game, examples/game).
    #[arg(long = "mod", value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/game"))]
    mod_dir: PathBuf,
    /// A mod folder over --mod, as Tribes 2's -mod (repeatable: a later one overrides earlier
    /// ones; loose files and .vl2 volumes alike).
    #[arg(long = "add-mod", value_name = "DIR")]
    add_mod: Vec<PathBuf>,
    /// Connect to a server at ADDR (host:port) as a client.
    #[arg(long, value_name = "ADDR")]
    connect: Option<String>,
    /// Execute a script file after main.cs (repeatable).
    #[arg(long, value_name = "FILE")]
    exec: Vec<String>,
    /// Send through the link conditioner with this preset.
    #[arg(long, value_name = "PRESET", value_parser = ["none", "good", "average", "poor"], default_value = "none")]
    link: String,
    /// Conditioner one-way latency in ms (with --link).
    #[arg(long, value_name = "MS")]
    latency: Option<u32>,
    /// Conditioner loss as a fraction 0..1 (with --link).
    #[arg(long, value_name = "P")]
    loss: Option<f64>,
    /// Seed of the conditioner and the bots (default: the process id).
    #[arg(long)]
    seed: Option<u64>,
    /// Play a demo a client recorded (recordDemo/stopDemo) and quit at its end; prints the
    /// DEMOHASH of the ghosts it ends with.
    #[arg(long, value_name = "FILE")]
    play_demo: Option<PathBuf>,
    /// Record the session's journal into FILE: every clock reading, received datagram and
    /// key (with --window also every key, mouse and window event), so --journal-play
    /// reproduces it. At exit a STATEHASH line sums the state up.
    #[arg(long, value_name = "FILE", conflicts_with = "journal_play")]
    journal_record: Option<PathBuf>,
    /// Replay a journal recorded with --journal-record (same flags and scripts), with no
    /// network (and with --window, no window: the window session runs headless); it reaches
    /// the same state and prints the same STATEHASH.
    #[arg(long, value_name = "FILE")]
    journal_play: Option<PathBuf>,
    /// Mix the client's sound into FILE.wav (16-bit stereo, 44.1 kHz) instead of playing it
    /// on the sound card; in every client mode (window, --headless, --connect, a script's own
    /// createServer and connect).
    #[arg(long, value_name = "FILE.wav")]
    audio_capture: Option<PathBuf>,
    /// Voice chat's input: FILE.wav (or .ogg) is spoken while push-to-talk is held
    /// (alxCaptureStart / alxCaptureStop, bound to `v`), instead of the microphone.
    #[arg(long, value_name = "FILE.wav")]
    audio_input: Option<PathBuf>,
    #[command(flatten)]
    client: ClientArgs,
    /// Arguments for the scripts ($Game::argv).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "SCRIPT ARGS")]
    script_args: Vec<String>,
}

fn main() {
    // RUST_LOG as usual (e.g. `RUST_LOG=info`, `RUST_LOG=v12_netobject=debug`); warnings only
    // when unset.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).init();
    let cli = Cli::parse();
    let journal = match (&cli.journal_record, &cli.journal_play) {
        (Some(f), _) => Some(SessionJournal::record(f)),
        (None, Some(f)) => Some(SessionJournal::play(f)),
        (None, None) => None,
    };
    let journal = match journal.transpose() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("v12: {e}");
            std::process::exit(2);
        }
    };
    let cfg = HostConfig {
        dedicated: cli.dedicated,
        mod_dir: cli.mod_dir,
        mods: cli.add_mod,
        connect: cli.connect,
        exec: cli.exec,
        script_args: cli.script_args,
        link: link_preset(&cli.link, cli.latency, cli.loss),
        seed: cli.seed.unwrap_or_else(|| u64::from(std::process::id())),
        journal,
        play_demo: cli.play_demo,
        audio_capture: cli.audio_capture,
        audio_input: cli.audio_input,
        report: |line| println!("{line}"),
    };
    let res = match cli.client.run(&cfg) {
        Some(r) => r,
        None => run(&cfg).map_err(|e| e.to_string()),
    };
    match res {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("v12: {e}");
            std::process::exit(2);
        }
    }
}
