//! `cargo xtask demo`: the V12 demo. Modes:
//! - `match` (default): the game — a dedicated `v12` server and N bot clients as separate
//!   processes on loopback UDP through the link conditioner.
//! - `chat`: a server and N clients on real loopback UDP through the link conditioner,
//!   chatting with guaranteed-ordered SimpleMessageEvents and streaming unguaranteed voice frames.
//! - `ghosts`: a server with thousands of moving objects ghosted to N clients, scoped by distance.
//! - `--lockstep relay|p2p`: deterministic lockstep (the RTS with bot players), server-relayed or
//!   peer-to-peer, on loopback UDP; `--inject-desync` shows desync detection.
//! - `crowd`: one process drives N light bots (default 256), each on its own real UDP socket on
//!   loopback, against a dedicated `v12` server; the ghost-state check and a summary.
//! - `link`: the platform-layer check (probes echoed over loopback UDP, counting what crossed).

use std::process::ExitCode;

use v12_examples::chat::{self, ChatConfig};
use v12_examples::game::bot_match::{self, MatchConfig};
use v12_examples::game::crowd::{self, CrowdConfig};
use v12_examples::ghosts::{self, GhostDemoConfig};
use v12_examples::link_check::{self, LinkCheckConfig};
use v12_examples::lockstep_demo::{self, LockstepDemoConfig, LockstepMode};
use v12_platform::{ConditionerConfig, LossModel};

use clap::{Parser, ValueEnum};
use std::path::PathBuf;

/// What the demo runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    /// The game: a dedicated `v12` server and --clients bot clients (default 16) as separate
    /// processes on loopback UDP for --seconds (default 15; 180 with --window); prints a live
    /// status line, then the match report and its checks.
    Match,
    /// A server and --clients clients (default 8) chatting with guaranteed-ordered events
    /// (--lines each) and streaming unguaranteed voice frames (every --voice-ms) for --seconds
    /// (default 5); checks every line arrived exactly once, in order.
    Chat,
    /// A server with --objects moving objects ghosted to --clients clients (default 4), scoped
    /// by distance, for --seconds (default 8) then 2 s on a clean link; checks convergence.
    Ghosts,
    /// The platform-layer check: probes at 50/s echoed for --seconds (default 3).
    Link,
    /// The crowd: a dedicated `v12` server and --clients light bots (default 256, up to
    /// 1024) driven by this one process, each on its own UDP socket on 127.0.0.1 (a clean
    /// link), playing for --seconds (default 10) after they all joined; prints the summary
    /// (joins, ghosts, bytes per client, the server's tick cost) and checks the ghost states.
    Crowd,
    /// The attack soak: the match with --clients bots (default 8) and three hostile clients
    /// (a tagged-string flood, a chat flood, a flood of unknown commands) for --seconds
    /// (default 180); prints the server's memory and tick cost, and checks no bot was hurt.
    Soak,
}

/// The link conditioner's presets (one way, every endpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Preset {
    /// 40 ms latency, 10 ms jitter, 0.2 % loss.
    Good,
    /// 100 ms latency, 25 ms jitter, 2 % loss.
    Average,
    /// 200 ms latency, 50 ms jitter, 6 % loss.
    Poor,
    /// A clean link.
    None,
}

/// `cargo xtask demo`: the V12 demo, on real loopback UDP (127.0.0.1) with every endpoint
/// sending through the link conditioner.
#[derive(Debug, Parser)]
#[command(
    name = "demo",
    version,
    after_help = "Examples:\n  demo                            the match: server and 16 bots for 15 s\n  demo match --window             play the match yourself in a window\n  demo --mod examples/ctf         capture the flag, a mod written only in script\n  demo --lockstep p2p --preset poor\n  demo ghosts --objects 5000 --json"
)]
struct Cli {
    /// What to run.
    #[arg(value_enum, default_value_t = Mode::Match)]
    mode: Mode,
    /// Deterministic lockstep instead of MODE: the small RTS with --clients bot players
    /// (default 4), server-relayed (relayed lockstep) or peer-to-peer with a master peer (Robo Cat
    /// RTS), for --seconds (default 10); prints turns/s, the delay state, command latency and the
    /// final checksum agreement.
    #[arg(long, value_name = "relay|p2p")]
    lockstep: Option<LockstepArg>,
    /// Clients or bot players (1 to 255, the crowd up to 1024; the default depends on the mode).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    clients: Option<u32>,
    /// How long to run, in seconds (0 to 600; the default depends on the mode).
    #[arg(long, value_parser = seconds)]
    seconds: Option<f64>,
    /// Moving objects (ghosts mode).
    #[arg(long, default_value_t = 3000)]
    objects: u32,
    /// Chat lines each client sends (chat mode).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=65_535))]
    lines: u32,
    /// Voice frame period in ms (chat mode).
    #[arg(long, default_value_t = 40)]
    voice_ms: u64,
    /// The link conditioner's preset; --latency, --jitter, --loss, --duplicate and
    /// --reorder change it.
    #[arg(long, value_enum, default_value_t = Preset::Average)]
    preset: Preset,
    /// One-way latency in ms.
    #[arg(long)]
    latency: Option<u32>,
    /// Jitter in ms.
    #[arg(long)]
    jitter: Option<u32>,
    /// Loss in percent.
    #[arg(long, value_parser = percent)]
    loss: Option<f64>,
    /// Duplicated datagrams in percent.
    #[arg(long, value_parser = percent)]
    duplicate: Option<f64>,
    /// Reordered datagrams in percent (held back at least 40 ms).
    #[arg(long, value_parser = percent)]
    reorder: Option<f64>,
    /// Seed of the conditioner and the bots.
    #[arg(long, default_value_t = 12)]
    seed: u64,
    /// Lockstep: change one unit on one player halfway and show the desync handling.
    #[arg(long, requires = "lockstep")]
    inject_desync: bool,
    /// Lockstep: where each player's replay and any desync report go.
    #[arg(long, default_value = "target/lockstep-logs")]
    log_dir: PathBuf,
    /// Match: print the report as JSON (and no live status line).
    #[arg(long)]
    json: bool,
    /// Match: also open a window client and play.
    #[arg(long)]
    window: bool,
    /// Soak: the hostile clients' scripts (in the mod folder), comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "soak/tagflood.cs,soak/chatflood.cs,soak/cmdflood.cs"
    )]
    hostile: Vec<String>,
    /// Match and soak: a mod over the example game (repeatable), as `v12 --add-mod`; e.g.
    /// `--mod examples/ctf`, capture the flag written only in script.
    #[arg(long = "mod", value_name = "DIR")]
    mods: Vec<PathBuf>,
    /// Match, soak and crowd: connection encryption of every process and bot ($Pref::Net::Encryption).
    #[arg(long, value_enum, default_value = "required")]
    encryption: EncryptionArg,
    /// Crowd: the dedicated server builds its clients' packets on this many threads
    /// ($Pref::Server::PacketThreads; 0 or 1: on its main thread).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=64))]
    packet_threads: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EncryptionArg {
    /// Plain packets.
    Off,
    /// Encrypted when both sides offer it (plain clients admitted too).
    On,
    /// Plain connections refused (the example game's default).
    Required,
}

impl EncryptionArg {
    fn pref(self) -> String {
        match self {
            Self::Off => "off",
            Self::On => "on",
            Self::Required => "required",
        }
        .into()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LockstepArg {
    Relay,
    P2p,
}

impl Cli {
    fn link(&self) -> ConditionerConfig {
        let mut link = match self.preset {
            Preset::Good => ConditionerConfig::good(),
            Preset::Average => ConditionerConfig::average(),
            Preset::Poor => ConditionerConfig::poor(),
            Preset::None => ConditionerConfig::default(),
        };
        if let Some(l) = self.latency {
            link.latency_ms = l;
        }
        if let Some(j) = self.jitter {
            link.jitter_ms = j;
        }
        if let Some(p) = self.loss {
            link.loss = LossModel::Uniform(p);
        }
        if let Some(p) = self.duplicate {
            link.duplicate_chance = p;
        }
        if let Some(p) = self.reorder {
            link.reorder_chance = p;
            link.reorder_delay_ms = link.reorder_delay_ms.max(40);
        }
        link
    }

    fn check(&self) -> Result<(), String> {
        if self.window && (self.mode != Mode::Match || self.lockstep.is_some()) {
            return Err("--window belongs to the match mode".into());
        }
        if self.json && (self.mode != Mode::Match || self.lockstep.is_some()) {
            return Err("--json belongs to the match mode".into());
        }
        if self.clients.is_some_and(|c| c > 255) && (self.mode != Mode::Crowd || self.lockstep.is_some()) {
            return Err("more than 255 --clients belong to the crowd mode".into());
        }
        Ok(())
    }
}

fn percent(s: &str) -> Result<f64, String> {
    let p: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=100.0).contains(&p) { Ok(p / 100.0) } else { Err(format!("{p} is not a percentage")) }
}

fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v > 0.0 && v <= 600.0 { Ok(v) } else { Err("must be in (0, 600]".into()) }
}

/// The crowd mode: the summary, and whether every bot joined and its ghosts agree.
fn run_crowd(args: &Cli) -> std::io::Result<bool> {
    let config = CrowdConfig {
        clients: args.clients.unwrap_or(256) as usize,
        seconds: args.seconds.unwrap_or(10.0).ceil() as u64,
        encryption: args.encryption.pref(),
        packet_threads: usize::from(args.packet_threads),
        ..CrowdConfig::default()
    };
    println!(
        "V12 crowd: a dedicated server and {} bots driven by this process, each on its own UDP socket on 127.0.0.1, {} s of play, {} packet thread(s)",
        config.clients,
        config.seconds,
        config.packet_threads.max(1)
    );
    crowd::run(&config).map(|r| {
        println!("{}", r.render());
        r.ok()
    })
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let args = Cli::parse();
    if let Err(e) = args.check() {
        eprintln!("demo: {e} (see demo --help)");
        return ExitCode::from(2);
    }
    let link = args.link();
    let mode = match args.lockstep {
        Some(LockstepArg::Relay) => Err(LockstepMode::Relay),
        Some(LockstepArg::P2p) => Err(LockstepMode::P2p),
        None => Ok(args.mode),
    };
    let outcome = match mode {
        Ok(Mode::Match) => {
            let config = MatchConfig {
                clients: args.clients.unwrap_or(16) as usize,
                // A human in the window needs longer than the bots' default 15 s.
                seconds: args.seconds.unwrap_or(if args.window { 180.0 } else { 15.0 }).ceil() as u64,
                loss: args.loss,
                latency: args.latency,
                live: !args.json,
                window: args.window,
                encryption: Some(args.encryption.pref()),
                mods: args.mods.clone(),
                ..MatchConfig::default()
            };
            if !args.json {
                println!(
                    "V12 match: a dedicated server and {} bot clients (separate processes) on loopback UDP for {} s",
                    config.clients, config.seconds
                );
            }
            bot_match::run(&config).map(|r| {
                println!("{}", if args.json { r.to_json() } else { r.render() });
                r.ok()
            })
        }
        Ok(Mode::Soak) => {
            let config = MatchConfig {
                clients: args.clients.unwrap_or(8) as usize,
                seconds: args.seconds.unwrap_or(180.0).ceil() as u64,
                live: !args.json,
                hostile: args.hostile.clone(),
                encryption: Some(args.encryption.pref()),
                mods: args.mods.clone(),
                ..MatchConfig::default()
            };
            println!(
                "V12 soak: a dedicated server, {} bots and {} hostile clients (separate processes) for {} s",
                config.clients,
                config.hostile.len(),
                config.seconds
            );
            bot_match::run(&config).map(|r| {
                println!("{}", r.render());
                r.ok()
            })
        }
        Ok(Mode::Crowd) => run_crowd(&args),
        Ok(Mode::Chat) => {
            let config = ChatConfig {
                clients: args.clients.unwrap_or(8),
                seconds: args.seconds.unwrap_or(5.0),
                lines_per_client: args.lines,
                voice_period_ms: args.voice_ms,
                link,
                seed: args.seed,
            };
            println!(
                "V12 chat: 1 server + {} clients on loopback UDP for {} s, every endpoint sending through {:?}",
                config.clients, config.seconds, config.link
            );
            chat::run(&config).map(|r| {
                println!("{}", r.render());
                r.ordered_delivery_ok() && r.voice_never_duplicated()
            })
        }
        Ok(Mode::Ghosts) => {
            let config = GhostDemoConfig {
                clients: args.clients.unwrap_or(4),
                objects: args.objects,
                seconds: args.seconds.unwrap_or(8.0),
                link,
                seed: args.seed,
                ..GhostDemoConfig::default()
            };
            println!(
                "V12 ghosting: {} moving objects, {} clients on loopback UDP for {} s (+{} s clean), links {:?}",
                config.objects, config.clients, config.seconds, config.settle_seconds, config.link
            );
            ghosts::run(&config).map(|r| {
                println!("{}", r.render());
                r.converged()
            })
        }
        Err(mode) => {
            let config = LockstepDemoConfig {
                mode,
                players: args.clients.unwrap_or(4) as usize,
                seconds: args.seconds.unwrap_or(10.0),
                inject_desync: args.inject_desync,
                link,
                seed: args.seed,
                log_dir: Some(args.log_dir.clone()),
            };
            println!(
                "V12 lockstep ({mode:?}): {} bot players on loopback UDP for {} s, links {:?}{}",
                config.players,
                config.seconds,
                config.link,
                if config.inject_desync { ", injecting a desync" } else { "" }
            );
            lockstep_demo::run(&config).map(|r| {
                println!("{}", r.render());
                // With an injected desync, success is that the odd player was found and dropped.
                r.agree
            })
        }
        Ok(Mode::Link) => {
            let config = LinkCheckConfig {
                seconds: args.seconds.unwrap_or(3.0),
                rate: 50,
                size: 64,
                link,
                seed: args.seed,
            };
            println!(
                "V12 link check: {} s over loopback UDP, each direction {:?}",
                config.seconds, config.link
            );
            link_check::run(&config).map(|r| {
                println!("{}", r.render());
                true
            })
        }
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("demo: a delivery check failed (see above)");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}
