//! `cargo xtask profiler-cost`: what the profiler costs while it is off (issue 36), on the
//! match's server tick.
//!
//! Wall-clock timings on the shared 2-core machine swing by ±15 % from run to run, so the
//! figure that decides is an instruction count. The steps:
//!
//! 1. Build `v12` twice in release: as shipped (the zones compiled in, the profiler off), and
//!    with v12-console-vm's measurement feature `profiler-off` (every zone test a constant
//!    `false`, compiled away); both binaries are copied to `target/profcost/`.
//! 2. Record one match: a dedicated server (`--journal-record`) and `--clients` bots for
//!    `--seconds`, as `demo match` starts them (example game, link preset `average`,
//!    encryption required).
//! 3. Replay the server's journal (`--journal-play`: the same datagrams, clock readings and
//!    keys, as fast as it can) with each binary under `valgrind --tool=callgrind`, and print
//!    the instructions of the whole replay and of the server's ticks ([`TICK_FNS`] inclusive:
//!    every tick and its script callbacks). The zone tests around each tick sit in the main
//!    loop, outside those functions, so the report also charges the whole replay's difference
//!    to the ticks: an upper bound on the off cost per tick.
//! 4. Replay `--runs` more times with each binary alternately, without valgrind, and print
//!    each run's mean server tick (`STATUS tick_us`) and wall time, and their ratios.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What to measure.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Bots in the recorded match.
    pub clients: u32,
    /// Match length (s).
    pub seconds: u32,
    /// Alternated wall-clock replays of each binary.
    pub runs: u32,
    /// Skip valgrind (wall clock only).
    pub no_callgrind: bool,
    /// Reuse the binaries and journal already in `target/profcost/`.
    pub reuse: bool,
}

/// The functions whose inclusive instructions are the server's tick (what `STATUS tick_us`
/// times: the tick, then the script callbacks of its game events).
const TICK_FNS: [&str; 2] = ["v12_game::server::server_tick", "v12_game::server::run_game_events"];

pub(crate) fn run(root: &Path, o: &Options) -> Result<(), String> {
    let dir = crate::target_dir(root).join("profcost");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let today = dir.join("v12-today");
    let off = dir.join("v12-zones-off");
    let journal = dir.join("match.journal");
    if !o.reuse || !today.is_file() || !off.is_file() {
        build(root, None, &today)?;
        build(root, Some("v12-console-vm/profiler-off"), &off)?;
    }
    let mod_dir = root.join("examples/game");
    if !o.reuse || !journal.is_file() {
        record(&today, &mod_dir, &journal, o)?;
    }
    let replay_args = replay_args(&mod_dir, &journal, o.seconds);
    if !o.no_callgrind {
        instructions(&dir, [&today, &off], &replay_args)?;
    }
    let mut pairs = Vec::new();
    for i in 0..o.runs {
        // Alternate which goes first, so a load change hits both alike.
        let order = if i % 2 == 0 { [&today, &off] } else { [&off, &today] };
        let mut got = [(0.0, 0.0); 2];
        for bin in order {
            let r = replay(bin, &replay_args)?;
            got[usize::from(bin == &off)] = r;
        }
        println!(
            "run {}: tick {:.0} / {:.0} us (ratio {:.3}), wall {:.2} / {:.2} s (ratio {:.3}), load {}",
            i + 1,
            got[0].0,
            got[1].0,
            got[0].0 / got[1].0.max(1e-9),
            got[0].1,
            got[1].1,
            got[0].1 / got[1].1.max(1e-9),
            load()
        );
        pairs.push(got);
    }
    if !pairs.is_empty() {
        let tick_means = mean(pairs.iter().map(|p| p[0].0)) / mean(pairs.iter().map(|p| p[1].0)).max(1e-9);
        let wall_means = mean(pairs.iter().map(|p| p[0].1)) / mean(pairs.iter().map(|p| p[1].1)).max(1e-9);
        println!(
            "{} alternated pairs, today / zones compiled out: tick {tick_means:.3}x (means), {:.3}x (median \
             pair); wall {wall_means:.3}x (means), {:.3}x (median pair)",
            pairs.len(),
            median(pairs.iter().map(|p| p[0].0 / p[1].0.max(1e-9))),
            median(pairs.iter().map(|p| p[0].1 / p[1].1.max(1e-9))),
        );
    }
    Ok(())
}

/// The mean of some figures (0 for none).
fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = v.fold((0.0, 0u32), |(s, n), x| (s + x, n + 1));
    if n == 0 { 0.0 } else { sum / f64::from(n) }
}

/// The median of some figures (0 for none).
fn median(v: impl Iterator<Item = f64>) -> f64 {
    let mut r: Vec<f64> = v.collect();
    r.sort_by(f64::total_cmp);
    r.get(r.len() / 2).copied().unwrap_or(0.0)
}

/// Each binary's replay under callgrind twice, alternately (the same binary's two counts
/// show the noise: hash seeds and allocation addresses differ between runs), then the ratios
/// of the means.
fn instructions(dir: &Path, [today, off]: [&PathBuf; 2], args: &[String]) -> Result<(), String> {
    let mut counts = [[(0u64, 0u64); 2]; 2];
    for round in [0, 1] {
        for (k, bin) in [today, off].into_iter().enumerate() {
            let name = bin.file_name().and_then(|n| n.to_str()).unwrap_or("v12");
            let out = dir.join(format!("callgrind.{name}.{round}"));
            let (total, tick) = callgrind(bin, args, &out)?;
            println!(
                "{name:>14} round {}: {total:>13} instructions in the replay, {tick:>13} in the ticks",
                round + 1
            );
            counts[k][round] = (total, tick);
        }
    }
    let mean = |k: usize, f: fn((u64, u64)) -> u64| (f(counts[k][0]) + f(counts[k][1])) as f64 / 2.0;
    let (total_today, tick_today) = (mean(0, |c| c.0), mean(0, |c| c.1));
    let (total_off, tick_off) = (mean(1, |c| c.0), mean(1, |c| c.1));
    let spread = |k: usize| counts[k][0].1.abs_diff(counts[k][1].1) as f64 / mean(k, |c| c.1).max(1.0);
    println!(
        "callgrind, today / zones compiled out (means): replay {:.5}x, ticks {:.5}x; the whole replay's \
         difference charged to the ticks {:.5}x; same-binary spread of the ticks {:.3} % / {:.3} %",
        total_today / total_off.max(1.0),
        tick_today / tick_off.max(1.0),
        (tick_off + (total_today - total_off).max(tick_today - tick_off).max(0.0)) / tick_off.max(1.0),
        spread(0) * 100.0,
        spread(1) * 100.0
    );
    Ok(())
}

/// `cargo build --release -p v12-game --bin v12` (with `feature`), the binary copied to `to`.
fn build(root: &Path, feature: Option<&str>, to: &Path) -> Result<(), String> {
    let mut cmd = Command::new(crate::cargo());
    cmd.args(["build", "--release", "--locked", "-p", "v12-game", "--bin", "v12"]).current_dir(root);
    if let Some(f) = feature {
        cmd.args(["--features", f]);
    }
    crate::run(&mut cmd)?;
    let built = crate::target_dir(root).join("release").join(format!("v12{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(&built, to).map_err(|e| format!("copy {} to {}: {e}", built.display(), to.display()))?;
    Ok(())
}

/// The arguments every process of the match has (as `demo match` gives them).
fn common(mod_dir: &Path) -> Vec<String> {
    vec!["--mod".into(), mod_dir.display().to_string(), "--link".into(), "average".into()]
}

/// The server's script arguments (after `--`).
fn server_script_args(seconds: u32) -> Vec<String> {
    ["-port", "0", "-seconds", &seconds.to_string(), "-encryption", "required"].map(String::from).to_vec()
}

fn replay_args(mod_dir: &Path, journal: &Path, seconds: u32) -> Vec<String> {
    let mut a = common(mod_dir);
    a.extend(["--dedicated".into(), "--journal-play".into(), journal.display().to_string(), "--".into()]);
    a.extend(server_script_args(seconds));
    a
}

/// Kills its child when dropped (an early error leaves no bot running).
struct Reap(std::process::Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Records the match's server into `journal`: the server, then the bots; waits for the
/// server to end the match.
fn record(v12: &Path, mod_dir: &Path, journal: &Path, o: &Options) -> Result<(), String> {
    let mut server = Command::new(v12);
    server.args(common(mod_dir)).arg("--dedicated").arg("--journal-record").arg(journal).arg("--");
    server
        .args(server_script_args(o.seconds))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut server = Reap(server.spawn().map_err(|e| format!("cannot start {}: {e}", v12.display()))?);
    let mut lines = BufReader::new(server.0.stdout.take().ok_or("no server stdout")?).lines();
    let addr = loop {
        match lines.next() {
            Some(Ok(l)) => {
                if let Some(a) = l.strip_prefix("LISTENING ") {
                    break a.trim().to_string();
                }
            }
            _ => return Err("the server ended before it listened".into()),
        }
    };
    let mut bots = Vec::new();
    for i in 0..o.clients {
        let mut bot = Command::new(v12);
        bot.args(common(mod_dir)).args(["--connect", &addr, "--seed", &(i + 1).to_string(), "--"]);
        bot.args(["-bot", "-name", &format!("Bot{i:02}"), "-encryption", "required"]);
        bot.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        bots.push(Reap(bot.spawn().map_err(|e| format!("cannot start a bot: {e}"))?));
    }
    println!("recording a {} s match with {} bots into {}", o.seconds, o.clients, journal.display());
    for _ in lines.by_ref() {}
    let status = server.0.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("the recorded server ended with {status}"));
    }
    Ok(())
}

/// One replay: the last `STATUS` line's mean server tick (µs) and the wall time (s).
fn replay(v12: &Path, args: &[String]) -> Result<(f64, f64), String> {
    let t0 = Instant::now();
    let out = Command::new(v12)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", v12.display()))?;
    let wall = t0.elapsed();
    if !out.status.success() {
        return Err(format!("the replay by {} ended with {}", v12.display(), out.status));
    }
    let tick = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("STATUS "))
        .filter_map(|l| l.split_whitespace().find_map(|w| w.strip_prefix("tick_us=")?.parse::<f64>().ok()))
        .next_back()
        .ok_or("the replay printed no STATUS line")?;
    Ok((tick, wall.max(Duration::from_micros(1)).as_secs_f64()))
}

/// The replay under callgrind: the instructions of the whole run and of [`TICK_FNS`]
/// (inclusive, summed, from `callgrind_annotate`).
fn callgrind(v12: &Path, args: &[String], out: &PathBuf) -> Result<(u64, u64), String> {
    crate::run(
        Command::new("valgrind")
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg(v12)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )?;
    let annotate = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(out)
        .output()
        .map_err(|e| format!("cannot start callgrind_annotate: {e}"))?;
    let text = String::from_utf8_lossy(&annotate.stdout);
    let number = |l: &str| l.split_whitespace().next().and_then(|n| n.replace(',', "").parse::<u64>().ok());
    let total = text
        .lines()
        .find(|l| l.contains("PROGRAM TOTALS"))
        .and_then(number)
        .ok_or("callgrind_annotate printed no program total")?;
    let mut tick = 0;
    for f in TICK_FNS {
        tick += text
            .lines()
            .find(|l| l.contains(&format!(":{f} [")) || l.ends_with(&format!(":{f}")))
            .and_then(number)
            .ok_or_else(|| format!("{f} is not in the profile (inlined?)"))?;
    }
    Ok((total, tick))
}

/// The load average (Linux), for the report.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}
