//! `v12 [--dedicated] [--mod DIR] [--connect ADDR] [--exec FILE] [--link average|good|poor|none]
//! [--latency MS] [--loss P] [--seed N] [--headless --screenshot FILE.png] [-- script args]`:
//! the V12 example program.

use lexopt::prelude::*;
use std::path::PathBuf;
use v12_examples::client::cli::ClientArgs;
use v12_examples::game::host::{HostConfig, link_preset, run};

fn main() {
    // RUST_LOG as usual (e.g. `RUST_LOG=info`, `RUST_LOG=v12_netobject=debug`); warnings only
    // when unset.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).init();
    let mut client = ClientArgs::default();
    let res = parse(&mut client).and_then(|cfg| match client.run(&cfg) {
        Some(r) => r,
        None => run(&cfg).map_err(|e| e.to_string()),
    });
    match res {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("v12: {e}");
            std::process::exit(2);
        }
    }
}

fn parse(client: &mut ClientArgs) -> Result<HostConfig, String> {
    let mut cfg = HostConfig {
        dedicated: false,
        mod_dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/game")),
        connect: None,
        exec: Vec::new(),
        script_args: Vec::new(),
        link: None,
        seed: u64::from(std::process::id()),
    };
    let (mut link, mut latency, mut loss) = ("none".to_string(), None, None);
    let mut p = lexopt::Parser::from_env();
    let s = |v: std::ffi::OsString| v.into_string().map_err(|_| "argument is not UTF-8".to_string());
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("dedicated") => cfg.dedicated = true,
            Long("mod") => cfg.mod_dir = PathBuf::from(s(p.value().map_err(|e| e.to_string())?)?),
            Long("connect") => cfg.connect = Some(s(p.value().map_err(|e| e.to_string())?)?),
            Long("exec") => cfg.exec.push(s(p.value().map_err(|e| e.to_string())?)?),
            Long("link") => link = s(p.value().map_err(|e| e.to_string())?)?,
            Long("latency") => {
                latency =
                    Some(s(p.value().map_err(|e| e.to_string())?)?.parse().map_err(|_| "bad --latency")?)
            }
            Long("loss") => {
                loss = Some(s(p.value().map_err(|e| e.to_string())?)?.parse().map_err(|_| "bad --loss")?)
            }
            Long("seed") => {
                cfg.seed = s(p.value().map_err(|e| e.to_string())?)?.parse().map_err(|_| "bad --seed")?
            }
            Value(v) => cfg.script_args.push(s(v)?),
            Long("help") => {
                println!(
                    "v12 [--dedicated] [--mod DIR] [--connect ADDR] [--exec FILE] [--link average|good|poor|none] [--latency MS] [--loss P] [-- script args]"
                );
                std::process::exit(0);
            }
            Long(f) if ClientArgs::is_flag(f) => {
                let f = f.to_string();
                client.parse_flag(&f, &mut || s(p.value().map_err(|e| e.to_string())?))?;
            }
            _ => return Err(arg.unexpected().to_string()),
        }
    }
    cfg.link = link_preset(&link, latency, loss);
    Ok(cfg)
}
