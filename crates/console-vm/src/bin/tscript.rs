//! `tscript [--check] [--lenient] [--trace] [--max-sim-ms N] [--dbg-port N [--dbg-password P]] FILE...`
//! and `tscript --dap`.
//!
//! Runs the files in one console (or with `--check` only parses them), then advances simulated
//! time firing scheduled events until none remain, `quit()` is called, or `--max-sim-ms` passes.
//! With `--dbg-port` the script debugger listens first and the files run once a debugger
//! client has connected and said `CONTINUE`. `--dap` is a Debug Adapter Protocol server on
//! stdin/stdout (see `v12_console_vm::dap`).

use std::process::ExitCode;
use v12_console_vm::{Console, ConsoleError, decode_source, parse};

const USAGE: &str = "usage: tscript [--check] [--lenient] [--trace] [--max-sim-ms N] [--dbg-port N [--dbg-password P]] FILE...\n       tscript --dap   (a Debug Adapter Protocol server on stdin/stdout)";

struct Args {
    dap: bool,
    dbg_port: Option<u16>,
    dbg_password: String,
    check: bool,
    lenient: bool,
    trace: bool,
    max_sim_ms: u64,
    files: Vec<String>,
}

fn parse_args() -> Result<Args, lexopt::Error> {
    use lexopt::prelude::*;
    let mut a = Args {
        dap: false,
        dbg_port: None,
        dbg_password: String::new(),
        check: false,
        lenient: false,
        trace: false,
        max_sim_ms: 60_000,
        files: Vec::new(),
    };
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next()? {
        match arg {
            Long("check") => a.check = true,
            Long("lenient") => a.lenient = true,
            Long("trace") => a.trace = true,
            Long("max-sim-ms") => a.max_sim_ms = p.value()?.parse()?,
            Long("dap") => a.dap = true,
            Long("dbg-port") => a.dbg_port = Some(p.value()?.parse()?),
            Long("dbg-password") => a.dbg_password = p.value()?.string()?,
            Long("help") | Short('h') => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            Value(v) => a.files.push(v.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tscript: {e}");
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.dap {
        let me = std::env::current_exe().unwrap_or_else(|_| "tscript".into());
        return match v12_console_vm::dap::run(std::io::stdin(), std::io::stdout(), &me) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("tscript --dap: {e}");
                ExitCode::from(1)
            }
        };
    }
    if args.files.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    if args.check {
        let mut bad = false;
        for f in &args.files {
            match std::fs::read(f) {
                Ok(bytes) => {
                    if let Err(e) = parse(&decode_source(&bytes), f) {
                        eprintln!("{e}");
                        bad = true;
                    }
                }
                Err(e) => {
                    eprintln!("{f}: {e}");
                    bad = true;
                }
            }
        }
        return if bad { ExitCode::from(1) } else { ExitCode::SUCCESS };
    }
    let mut con = Console::new();
    let root = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    con.set_file_root(root);
    con.set_lenient(args.lenient);
    con.set_trace(args.trace);
    if let Some(port) = args.dbg_port {
        match v12_console_vm::debugger::TcpDebugTransport::bind(port) {
            Ok(t) => {
                let bound = t.port();
                con.open_debugger(Box::new(t), bound, &args.dbg_password, true);
            }
            Err(e) => {
                eprintln!("tscript: cannot open the debugger port {port}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut failed = false;
    for f in &args.files {
        match con.exec_file(f) {
            Ok(_) => {}
            Err(ConsoleError::Syntax(_)) => failed = true,
            Err(ConsoleError::File(m)) => {
                // Through the console: on stderr, and to a debugger client as an error.
                con.error(&m);
                failed = true;
            }
            Err(ConsoleError::Aborted(_)) => failed = true,
        }
        if con.quit_requested() {
            break;
        }
    }
    let deadline = con.sim_time().saturating_add(args.max_sim_ms);
    while !con.quit_requested() {
        let Some(next) = con.next_event_time() else { break };
        // An event a frame scheduled at `schedule(0, ...)` is due at the frame's start, which
        // the clock has already passed: the clock, not the event, says when to stop.
        if next > deadline || con.sim_time() >= deadline {
            break;
        }
        // At least 1 ms a frame: a script that reschedules itself with `schedule(0, ...)` then
        // still reaches the deadline instead of spinning at one instant for ever.
        let step = next.saturating_sub(con.sim_time()).max(1);
        con.advance_time(step);
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
