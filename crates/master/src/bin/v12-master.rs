//! `v12-master`: the master server as a program. Game servers register and heartbeat;
//! browsers query. Logs through `tracing` (`RUST_LOG`, default `info`).

use clap::Parser;
use std::net::UdpSocket;
use std::sync::atomic::AtomicBool;
use tracing_subscriber::EnvFilter;
use v12_master::rate::RateConfig;
use v12_master::token::TokenMinter;
use v12_master::{DEFAULT_MASTER_PORT, MasterConfig, MasterServer};

/// The V12 master server: a directory of game servers for the server browser.
#[derive(Debug, Parser)]
#[command(name = "v12-master", version)]
struct Args {
    /// Address and port to listen on.
    #[arg(long, default_value_t = format!("0.0.0.0:{DEFAULT_MASTER_PORT}"))]
    bind: String,
    /// Heartbeat period asked of game servers, in seconds.
    #[arg(long, default_value_t = 30)]
    period: u64,
    /// Seconds without a heartbeat before a server is dropped from the list.
    #[arg(long, default_value_t = 95)]
    expire: u64,
    /// Most servers listed.
    #[arg(long, default_value_t = 100_000)]
    max_servers: usize,
    /// Most servers listed from one IP address.
    #[arg(long, default_value_t = 64)]
    max_per_ip: usize,
    /// Datagrams per second one source address may send on average.
    #[arg(long, default_value_t = 20)]
    rate: u32,
    /// Datagrams one source address may send in a burst.
    #[arg(long, default_value_t = 40)]
    burst: u32,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")))
        .with_writer(std::io::stderr)
        .init();
    let socket = match UdpSocket::bind(&args.bind) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("v12-master: cannot bind {}: {e}", args.bind);
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
    let config = MasterConfig {
        heartbeat_period_ms: args.period.max(1) * 1000,
        expire_after_ms: args.expire.max(1) * 1000,
        max_servers: args.max_servers,
        max_servers_per_ip: args.max_per_ip,
        rate: RateConfig { burst: args.burst.max(1), per_second: args.rate.max(1), ..RateConfig::default() },
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
