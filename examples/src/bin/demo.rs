//! `cargo xtask demo`: the V12 demo. Modes:
//! - `match` (default): the game — a dedicated `v12` server and N bot clients as separate
//!   processes on loopback UDP through the link conditioner.
//! - `chat`: a server and N clients on real loopback UDP through the link conditioner,
//!   chatting with guaranteed-ordered SimpleMessageEvents and streaming unguaranteed voice frames.
//! - `ghosts`: a server with thousands of moving objects ghosted to N clients, scoped by distance.
//! - `--lockstep relay|p2p`: deterministic lockstep (the RTS with bot players), server-relayed or
//!   peer-to-peer, on loopback UDP; `--inject-desync` shows desync detection.
//! - `link`: the platform-layer check (probes echoed over loopback UDP, counting what crossed).

use std::process::ExitCode;

use v12_examples::chat::{self, ChatConfig};
use v12_examples::game::demo::{self as match_demo, MatchConfig};
use v12_examples::ghosts::{self, GhostDemoConfig};
use v12_examples::link_check::{self, LinkCheckConfig};
use v12_examples::lockstep_demo::{self, LockstepDemoConfig, LockstepMode};
use v12_platform::{ConditionerConfig, LossModel};

const USAGE: &str = "\
usage: demo [match|chat|ghosts|link] [--clients N] [--objects N] [--seconds S] [--lines N] [--voice-ms MS]
            [--preset good|average|poor|none] [--latency MS] [--jitter MS]
            [--loss PERCENT] [--duplicate PERCENT] [--reorder PERCENT] [--seed N]

chat (default): a server and --clients clients (default 8) on real loopback UDP
  (127.0.0.1), every endpoint sending through the link conditioner (default preset
  average: 100 ms one-way latency, 25 ms jitter, 2 % loss). For --seconds (default 5)
  each client sends --lines chat lines (default 20) as guaranteed-ordered events, which
  the server relays to every client, and a voice frame every --voice-ms (default 40) as
  unguaranteed events. Prints per connection RTT, loss, kbit/s and events
  sent/acknowledged/resent, then checks every chat line arrived exactly once, in order.
ghosts: a server with --objects moving objects (default 3000) in a 2 km square ghosted
  to --clients clients (default 4) over loopback UDP through the conditioner, scoped by
  distance (150 m); for --seconds (default 8) then 2 s on a clean link; prints per client
  ghosts in scope, updates/s, bytes/s (against a full-state-every-packet baseline measured
  in the same run) and mean staleness, then the convergence check.
--lockstep relay|p2p: the small RTS with --clients bot players (default 4), server-relayed
  (game frames and network frames, seed 002) or peer-to-peer with a master peer (turns,
  seed 004), on loopback UDP through the conditioner for --seconds (default 10); prints
  turns/s, time in the delay state, command latency and the final checksum agreement.
  --inject-desync changes one unit on one player halfway and shows what happens.
  Each player's replay, and on a desync a readable report (the diverging frame and players,
  every checksum, the commands before it, the state dumps), go to --log-dir (default
  target/lockstep-logs).
link: a client sends probes at 50/s for --seconds (default 3), the server echoes them;
  prints sent, received, lost, duplicated, reordered, bytes and RTT.";

#[derive(Debug)]
enum Mode {
    Match,
    Chat,
    Ghosts,
    Link,
    Lockstep(LockstepMode),
}

#[derive(Debug)]
struct Args {
    mode: Mode,
    clients: Option<u32>,
    objects: u32,
    seconds: Option<f64>,
    lines: u32,
    voice_ms: u64,
    link: ConditionerConfig,
    seed: u64,
    inject_desync: bool,
    log_dir: std::path::PathBuf,
    json: bool,
    window: bool,
    /// --loss / --latency as given, for the match (which starts from its own preset).
    loss_override: Option<f64>,
    latency_override: Option<u32>,
}

fn parse() -> Result<Args, lexopt::Error> {
    use lexopt::prelude::*;
    let mut args = Args {
        mode: Mode::Match,
        clients: None,
        objects: 3000,
        seconds: None,
        lines: 20,
        voice_ms: 40,
        link: ConditionerConfig::average(),
        seed: 12,
        inject_desync: false,
        log_dir: std::path::PathBuf::from("target/lockstep-logs"),
        json: false,
        window: false,
        loss_override: None,
        latency_override: None,
    };
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        let link = &mut args.link;
        match arg {
            Value(v) => {
                args.mode = match v.string()?.as_str() {
                    "match" => Mode::Match,
                    "chat" => Mode::Chat,
                    "ghosts" => Mode::Ghosts,
                    "link" => Mode::Link,
                    other => return Err(format!("unknown mode {other:?} (match, chat, ghosts, link)").into()),
                }
            }
            Long("clients") => args.clients = Some(parser.value()?.parse()?),
            Long("objects") => args.objects = parser.value()?.parse()?,
            Long("seconds") => args.seconds = Some(parser.value()?.parse()?),
            Long("lines") => args.lines = parser.value()?.parse()?,
            Long("voice-ms") => args.voice_ms = parser.value()?.parse()?,
            Long("seed") => args.seed = parser.value()?.parse()?,
            Long("inject-desync") => args.inject_desync = true,
            Long("log-dir") => args.log_dir = parser.value()?.into(),
            Long("lockstep") => {
                args.mode = match parser.value()?.string()?.as_str() {
                    "relay" => Mode::Lockstep(LockstepMode::Relay),
                    "p2p" => Mode::Lockstep(LockstepMode::P2p),
                    other => return Err(format!("unknown lockstep mode {other:?} (relay, p2p)").into()),
                }
            }
            Long("latency") => {
                link.latency_ms = parser.value()?.parse()?;
                args.latency_override = Some(link.latency_ms);
            }
            Long("jitter") => link.jitter_ms = parser.value()?.parse()?,
            Long("loss") => {
                let p = percent(parser.value()?.parse()?)?;
                link.loss = LossModel::Uniform(p);
                args.loss_override = Some(p);
            }
            Long("json") => args.json = true,
            Long("window") => args.window = true,
            Long("duplicate") => link.duplicate_chance = percent(parser.value()?.parse()?)?,
            Long("reorder") => {
                link.reorder_chance = percent(parser.value()?.parse()?)?;
                link.reorder_delay_ms = link.reorder_delay_ms.max(40);
            }
            Long("preset") => {
                *link = match parser.value()?.string()?.as_str() {
                    "good" => ConditionerConfig::good(),
                    "average" => ConditionerConfig::average(),
                    "poor" => ConditionerConfig::poor(),
                    "none" => ConditionerConfig::default(),
                    other => {
                        return Err(format!("unknown preset {other:?} (good, average, poor, none)").into());
                    }
                }
            }
            Short('h') | Long("help") => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(arg.unexpected()),
        }
    }
    if let Some(s) = args.seconds {
        if !(s > 0.0 && s <= 600.0) {
            return Err("--seconds must be in (0, 600]".into());
        }
    }
    if args.clients.is_some_and(|c| !(1..=255).contains(&c)) {
        return Err("--clients must be 1 to 255".into());
    }
    if args.window && !matches!(args.mode, Mode::Match) {
        return Err("--window belongs to the match mode".into());
    }
    if args.inject_desync && !matches!(args.mode, Mode::Lockstep(_)) {
        return Err("--inject-desync needs --lockstep relay|p2p".into());
    }
    if args.lines > 65_535 {
        return Err("--lines must be at most 65535".into());
    }
    Ok(args)
}

fn percent(p: f64) -> Result<f64, lexopt::Error> {
    if (0.0..=100.0).contains(&p) { Ok(p / 100.0) } else { Err(format!("{p} is not a percentage").into()) }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("demo: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let outcome = match args.mode {
        Mode::Match => {
            let config = MatchConfig {
                clients: args.clients.unwrap_or(16) as usize,
                // A human in the window needs longer than the bots' default 15 s.
                seconds: args.seconds.unwrap_or(if args.window { 180.0 } else { 15.0 }).ceil() as u64,
                loss: args.loss_override,
                latency: args.latency_override,
                live: !args.json,
                window: args.window,
                ..MatchConfig::default()
            };
            if !args.json {
                println!(
                    "V12 match: a dedicated server and {} bot clients (separate processes) on loopback UDP for {} s",
                    config.clients, config.seconds
                );
            }
            match_demo::run(&config).map(|r| {
                println!("{}", if args.json { r.to_json() } else { r.render() });
                r.ok()
            })
        }
        Mode::Chat => {
            let config = ChatConfig {
                clients: args.clients.unwrap_or(8),
                seconds: args.seconds.unwrap_or(5.0),
                lines_per_client: args.lines,
                voice_period_ms: args.voice_ms,
                link: args.link,
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
        Mode::Ghosts => {
            let config = GhostDemoConfig {
                clients: args.clients.unwrap_or(4),
                objects: args.objects,
                seconds: args.seconds.unwrap_or(8.0),
                link: args.link,
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
        Mode::Lockstep(mode) => {
            let config = LockstepDemoConfig {
                mode,
                players: args.clients.unwrap_or(4) as usize,
                seconds: args.seconds.unwrap_or(10.0),
                inject_desync: args.inject_desync,
                link: args.link,
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
        Mode::Link => {
            let config = LinkCheckConfig {
                seconds: args.seconds.unwrap_or(3.0),
                rate: 50,
                size: 64,
                link: args.link,
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
