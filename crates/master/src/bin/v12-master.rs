//! `v12-master`: the master server as a program. Game servers register and heartbeat;
//! browsers query. Logs through `tracing` (`RUST_LOG`, default `info`).

use clap::{Arg, Command, value_parser};
use std::net::UdpSocket;
use std::sync::atomic::AtomicBool;
use tracing_subscriber::EnvFilter;
use v12_master::rate::RateConfig;
use v12_master::token::TokenMinter;
use v12_master::{DEFAULT_MASTER_PORT, MasterConfig, MasterServer};

/// The command line (clap's builder API: no proc-macro build for one small program).
fn command() -> Command {
    let num = |name: &'static str, default: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .value_name("N")
            .default_value(default)
            .value_parser(value_parser!(u64))
            .help(help)
    };
    Command::new("v12-master")
        .version(env!("CARGO_PKG_VERSION"))
        .about("The V12 master server: a directory of game servers for the server browser")
        .arg(
            Arg::new("bind")
                .long("bind")
                .value_name("ADDR:PORT")
                .default_value("0.0.0.0:28000")
                .help("Address and port to listen on"),
        )
        .arg(num("period", "30", "Heartbeat period asked of game servers, in seconds"))
        .arg(num("expire", "95", "Seconds without a heartbeat before a server leaves the list"))
        .arg(num("max-servers", "100000", "Most servers listed"))
        .arg(num("max-per-ip", "64", "Most servers listed from one IP address"))
        .arg(num("rate", "20", "Datagrams per second one source address may send on average"))
        .arg(num("burst", "40", "Datagrams one source address may send in a burst"))
}

fn main() -> std::process::ExitCode {
    let args = command().get_matches();
    let n = |name: &str| args.get_one::<u64>(name).copied().unwrap_or(1);
    let bind = args.get_one::<String>("bind").cloned().unwrap_or_default();
    debug_assert_eq!(DEFAULT_MASTER_PORT, 28000, "the --bind default names it");
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .init();
    let socket = match UdpSocket::bind(&bind) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("v12-master: cannot bind {bind}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let minter = match TokenMinter::from_os() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("v12-master: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    // The same limits for anonymous requests and for verified ones, in separate budgets.
    let rate = RateConfig {
        burst: n("burst").clamp(1, 1_000_000) as u32,
        per_second: n("rate").clamp(1, 1_000_000) as u32,
        ..RateConfig::default()
    };
    let config = MasterConfig {
        heartbeat_period_ms: n("period").clamp(1, 3600) * 1000,
        expire_after_ms: n("expire").clamp(1, 36_000) * 1000,
        max_servers: n("max-servers") as usize,
        max_servers_per_ip: n("max-per-ip") as usize,
        rate,
        verified_rate: rate,
        ..MasterConfig::default()
    };
    let mut master = MasterServer::new(config, minter);
    match socket.local_addr() {
        Ok(a) => println!("MASTER LISTENING {a}"),
        Err(e) => eprintln!("v12-master: {e}"),
    }
    let stop = AtomicBool::new(false);
    if let Err(e) = v12_master::udp::serve(&socket, &mut master, &stop) {
        eprintln!("v12-master: {e}");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
