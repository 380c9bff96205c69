//! `cargo xtask demo`: the V12 demo. For now the platform-layer link check: a server and a client on
//! real loopback UDP through the link conditioner, printing what crossed.

use std::process::ExitCode;

use v12_examples::link_check::{self, LinkCheckConfig};
use v12_platform::{ConditionerConfig, LossModel};

const USAGE: &str = "\
usage: demo [--seconds S] [--rate N] [--size BYTES] [--preset good|average|poor|none]
            [--latency MS] [--jitter MS] [--loss PERCENT] [--duplicate PERCENT]
            [--reorder PERCENT] [--seed N]

A server and a client on real loopback UDP (127.0.0.1), each sending through the
link conditioner. The client sends probes at --rate per second for --seconds; the
server echoes them. Defaults: 3 s, 50 probes/s, 64 bytes, preset average
(100 ms one-way latency, 25 ms jitter, 2 % loss), 1 % duplication, 1 % reordering.";

fn parse() -> Result<LinkCheckConfig, lexopt::Error> {
    use lexopt::prelude::*;
    let mut config = LinkCheckConfig {
        seconds: 3.0,
        rate: 50,
        size: 64,
        link: ConditionerConfig {
            duplicate_chance: 0.01,
            reorder_chance: 0.01,
            reorder_delay_ms: 40,
            ..ConditionerConfig::average()
        },
        seed: 12,
    };
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        let link = &mut config.link;
        match arg {
            Long("seconds") => config.seconds = parser.value()?.parse()?,
            Long("rate") => config.rate = parser.value()?.parse()?,
            Long("size") => config.size = parser.value()?.parse()?,
            Long("seed") => config.seed = parser.value()?.parse()?,
            Long("latency") => link.latency_ms = parser.value()?.parse()?,
            Long("jitter") => link.jitter_ms = parser.value()?.parse()?,
            Long("loss") => link.loss = LossModel::Uniform(percent(parser.value()?.parse()?)?),
            Long("duplicate") => link.duplicate_chance = percent(parser.value()?.parse()?)?,
            Long("reorder") => link.reorder_chance = percent(parser.value()?.parse()?)?,
            Long("preset") => {
                let keep = (link.duplicate_chance, link.reorder_chance, link.reorder_delay_ms);
                *link = match parser.value()?.string()?.as_str() {
                    "good" => ConditionerConfig::good(),
                    "average" => ConditionerConfig::average(),
                    "poor" => ConditionerConfig::poor(),
                    "none" => ConditionerConfig::default(),
                    other => {
                        return Err(format!("unknown preset {other:?} (good, average, poor, none)").into());
                    }
                };
                (link.duplicate_chance, link.reorder_chance, link.reorder_delay_ms) = keep;
            }
            Short('h') | Long("help") => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(arg.unexpected()),
        }
    }
    if !(config.seconds > 0.0 && config.seconds <= 600.0) {
        return Err("--seconds must be in (0, 600]".into());
    }
    Ok(config)
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
    let config = match parse() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("demo: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    println!(
        "V12 link check: {} s of {} probes/s ({} bytes) over loopback UDP, each direction {:?}",
        config.seconds, config.rate, config.size, config.link
    );
    match link_check::run(&config) {
        Ok(report) => {
            println!("{}", report.render());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}
