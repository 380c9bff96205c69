//! The headless match: a dedicated `v12` server and N bot clients, each its own process,
//! on loopback UDP through the link conditioner, with a live status line and a summary
//! (every client's scoreboard must equal the server's).

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What to run.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// Bot clients (separate processes).
    pub clients: usize,
    /// Match length in seconds.
    pub seconds: u64,
    /// Loss override for the "average" link preset (0..1).
    pub loss: Option<f64>,
    /// One-way latency override (ms).
    pub latency: Option<u32>,
    /// The `v12` binary; `None`: next to the current executable.
    pub v12: Option<PathBuf>,
    /// The mod folder (default `examples/game`).
    pub mod_dir: PathBuf,
    /// Mods over it (`v12 --add-mod`), e.g. `examples/ctf`: their scripts and files win.
    pub mods: Vec<PathBuf>,
    /// Print the live status line to stderr.
    pub live: bool,
    /// Also open a human-playable window client (`v12 --connect ADDR --window`) in the match;
    /// needs a display. The demo waits for the window to close after the summary.
    pub window: bool,
    /// Hostile clients (the soak): each a `v12` client playing as a bot that also runs this
    /// script (a path in the mod folder, e.g. `soak/chatflood.cs`). They are not in the
    /// scoreboard check; the report samples the server's memory while they play.
    pub hostile: Vec<String>,
    /// `$Pref::Net::Encryption` of every process (`off`, `on`, `required`); `None`: the
    /// game's default (on).
    pub encryption: Option<String>,
}

impl Default for MatchConfig {
    fn default() -> Self {
        Self {
            clients: 16,
            seconds: 20,
            loss: None,
            latency: None,
            v12: None,
            mod_dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/game")),
            mods: Vec::new(),
            live: true,
            window: false,
            hostile: Vec::new(),
            encryption: None,
        }
    }
}

/// What happened.
#[derive(Debug, Clone, Default)]
pub struct MatchReport {
    /// Clients started.
    pub clients: usize,
    /// Match length (s).
    pub seconds: u64,
    /// The server's final scoreboard (`name=score ...`).
    pub server_scoreboard: String,
    /// Each client's final scoreboard (empty when it printed none).
    pub client_scoreboards: Vec<String>,
    /// Largest player players seen on the server at once.
    pub max_players: usize,
    /// Mean server tick cost (µs), last report.
    pub server_tick_us: f64,
    /// Server send rate per client (kbit/s), mean of the reports.
    pub kbps_per_client: f64,
    /// Mean client RTT (ms) at the end.
    pub rtt_ms: f64,
    /// Prediction corrections per minute, mean over clients.
    pub corrections_per_min: f64,
    /// Worst time a visible player ghost went without an update on any client (ms).
    pub worst_staleness_ms: u32,
    /// Of the server packets a client received, the share that updated each of its nearest
    /// visible players (percent; the lowest client).
    pub nearby_updated_pct: f64,
    /// The same, mean over clients.
    pub nearby_updated_mean_pct: f64,
    /// Status lines printed during the run.
    pub status_lines: Vec<String>,
    /// Hostile clients started (the soak).
    pub hostile: usize,
    /// The server's resident memory, sampled once a second (MB; Linux `/proc`, else empty).
    pub server_rss_mb: Vec<f64>,
    /// Largest server tick cost any status line reported (µs).
    pub server_tick_us_max: f64,
    /// The ghost-state check after the world froze: per player name, the server's hash of
    /// the objects ghosted to that client and how many (`GHOSTHASH` lines).
    pub server_ghost_hashes: BTreeMap<String, String>,
    /// Each bot's hash of the ghosts it holds (`None`: it printed none).
    pub client_ghost_hashes: Vec<Option<String>>,
    /// Each hostile client's script, how many times its connection ended before the match
    /// did (it joins again each time), and the first reason.
    pub hostile_endings: Vec<(String, u32, Option<String>)>,
    /// Times a player boarded a vehicle (the server's "boards" lines).
    pub vehicle_boardings: usize,
    /// Each bot's first line saying its connection failed or ended (why a bot that holds
    /// nothing holds nothing).
    pub bot_endings: Vec<Option<String>>,
}

impl MatchReport {
    /// The soak's memory line: first sample after the start-up, the largest, the last.
    pub fn memory(&self) -> Option<(f64, f64, f64)> {
        let first = *self.server_rss_mb.get(5.min(self.server_rss_mb.len().saturating_sub(1)))?;
        let max = self.server_rss_mb.iter().copied().fold(0.0, f64::max);
        Some((first, max, *self.server_rss_mb.last()?))
    }
}

impl MatchReport {
    /// Every client printed a scoreboard equal to the server's (and there was a server one),
    /// and every client's ghosts hash as the server's objects do.
    pub fn ok(&self) -> bool {
        !self.server_scoreboard.is_empty()
            && self.client_scoreboards.len() == self.clients
            && self.client_scoreboards.iter().all(|s| *s == self.server_scoreboard)
            && self.ghost_states_agree() == self.clients
    }

    /// Bots whose ghost-state hash (and ghost count) equals the server's for them.
    pub fn ghost_states_agree(&self) -> usize {
        self.client_ghost_hashes
            .iter()
            .enumerate()
            .filter(|(i, h)| {
                h.as_ref().is_some_and(|h| self.server_ghost_hashes.get(&bot_name(*i)) == Some(h))
            })
            .count()
    }

    /// A human summary.
    pub fn render(&self) -> String {
        let agree = self.client_scoreboards.iter().filter(|s| **s == self.server_scoreboard).count();
        let boards_ok = agree == self.clients && !self.server_scoreboard.is_empty();
        format!(
            "match: {} clients, {} s\n  server scoreboard: {}\n  scoreboards agree: {agree}/{} {}\n  \
             ghost states agree (hash of every ghost's settled state, client vs server): {}/{}\n  \
             server tick {:.0} µs, {:.1} kbit/s per client ({:.2} KB/s), RTT {:.0} ms, {:.1} corrections/min\n  \
             worst ghost staleness {} ms, nearest players updated in {:.1} % of packets (lowest client; mean {:.1} %)\n  \
             vehicle boardings: {}\n",
            self.clients,
            self.seconds,
            self.server_scoreboard,
            self.clients,
            if boards_ok { "OK" } else { "MISMATCH" },
            self.ghost_states_agree(),
            self.clients,
            self.server_tick_us,
            self.kbps_per_client,
            self.kbps_per_client / 8.0,
            self.rtt_ms,
            self.corrections_per_min,
            self.worst_staleness_ms,
            self.nearby_updated_pct,
            self.nearby_updated_mean_pct,
            self.vehicle_boardings,
        ) + &self.ghost_mismatches()
            + &self.soak_line()
    }

    /// One line per bot whose ghost-state hash differs from the server's (hash/ghost count).
    fn ghost_mismatches(&self) -> String {
        let mut out = String::new();
        for (i, h) in self.client_ghost_hashes.iter().enumerate() {
            let server = self.server_ghost_hashes.get(&bot_name(i));
            if h.is_none() || h.as_ref() != server {
                out += &format!(
                    "  ghost state mismatch: {} holds {}, the server has {}{}\n",
                    bot_name(i),
                    h.as_deref().unwrap_or("nothing"),
                    server.map_or("nothing", String::as_str),
                    self.bot_endings
                        .get(i)
                        .and_then(Option::as_deref)
                        .map_or(String::new(), |e| format!(" ({e})"))
                );
            }
        }
        out
    }

    /// The soak's summary (empty without hostile clients).
    fn soak_line(&self) -> String {
        if self.hostile == 0 {
            return String::new();
        }
        let mem = self.memory().map_or("server memory not measured (no /proc)".to_string(), |(a, m, z)| {
            format!("server memory {a:.1} MB after start-up, {m:.1} MB at most, {z:.1} MB at the end")
        });
        let mut out = format!(
            "  soak: {} hostile clients; {mem}; server tick at most {:.0} µs; bots' scoreboards {}\n",
            self.hostile,
            self.server_tick_us_max,
            if self.ok() { "all agree (none dropped)" } else { "DO NOT all agree" }
        );
        for (script, ends, first) in &self.hostile_endings {
            out += &match first {
                None => format!("  hostile {script}: played to the end\n"),
                Some(why) => format!(
                    "  hostile {script}: its connection ended {ends} times and it joined again (first: {why})\n"
                ),
            };
        }
        out
    }

    /// One JSON object.
    pub fn to_json(&self) -> String {
        // Floats rounded as the text report shows them; a NaN (nothing measured) is null.
        let r = |v: f64, places: i32| {
            let k = 10f64.powi(places);
            (v * k).round() / k
        };
        serde_json::json!({
            "clients": self.clients,
            "seconds": self.seconds,
            "ok": self.ok(),
            "server_scoreboard": self.server_scoreboard,
            "client_scoreboards": self.client_scoreboards,
            "max_players": self.max_players,
            "server_tick_us": r(self.server_tick_us, 1),
            "kbps_per_client": r(self.kbps_per_client, 2),
            "rtt_ms": r(self.rtt_ms, 1),
            "corrections_per_min": r(self.corrections_per_min, 2),
            "worst_staleness_ms": self.worst_staleness_ms,
            "ghost_states_agree": self.ghost_states_agree(),
            "nearby_updated_pct": r(self.nearby_updated_pct, 1),
            "nearby_updated_mean_pct": r(self.nearby_updated_mean_pct, 1),
            "vehicle_boardings": self.vehicle_boardings,
        })
        .to_string()
    }
}

fn v12_path(cfg: &MatchConfig) -> io::Result<PathBuf> {
    match &cfg.v12 {
        Some(p) => Ok(p.clone()),
        None => v12_program(),
    }
}

/// The engine's `v12` program (v12-game's binary) built beside the running one: in its
/// folder (the `demo` program), or one folder up from a test's `deps/` folder. `cargo test
/// --workspace` and `cargo xtask demo` build it; alone, `cargo build -p v12-game --bin v12`.
pub fn v12_program() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let mut dir = exe.parent().ok_or_else(|| io::Error::other("no executable folder"))?;
    if dir.ends_with("deps") {
        dir = dir.parent().unwrap_or(dir);
    }
    let path = dir.join(format!("v12{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Ok(path)
    } else {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} is not built (cargo build -p v12-game --bin v12)", path.display()),
        ))
    }
}

fn spawn(
    path: &Path,
    cfg: &MatchConfig,
    args: &[String],
    who: usize,
    tx: &mpsc::Sender<(usize, String)>,
) -> io::Result<Child> {
    let mut cmd = Command::new(path);
    cmd.arg("--mod").arg(&cfg.mod_dir).arg("--link").arg("average");
    for m in &cfg.mods {
        cmd.arg("--add-mod").arg(m);
    }
    if let Some(l) = cfg.latency {
        cmd.arg("--latency").arg(l.to_string());
    }
    if let Some(l) = cfg.loss {
        cmd.arg("--loss").arg(l.to_string());
    }
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::null()).stdin(Stdio::null());
    let mut child = cmd.spawn()?;
    let out = child.stdout.take().ok_or_else(|| io::Error::other("no stdout"))?;
    let tx = tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send((who, line)).is_err() {
                break;
            }
        }
    });
    Ok(child)
}

/// A process's resident memory in MB (Linux `/proc`; `None` elsewhere or once it is gone).
fn rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: f64 =
        status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.split_whitespace().next()?.parse().ok()?;
    Some(kb / 1024.0)
}

/// The name bot `i` plays under.
fn bot_name(i: usize) -> String {
    format!("Bot{i:02}")
}

/// A `key=value` word of a line, as text.
fn text_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
}

fn field(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace().find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('='))?.parse().ok())
}

/// The dedicated server (child 0), then the bots and the hostile clients; returns the
/// server's address. Every child's stdout lines arrive on `tx`, tagged with its index.
fn start_processes(
    path: &Path,
    cfg: &MatchConfig,
    seconds: u64,
    children: &mut Vec<Child>,
    tx: &mpsc::Sender<(usize, String)>,
    rx: &mpsc::Receiver<(usize, String)>,
) -> io::Result<String> {
    let security: Vec<String> =
        cfg.encryption.iter().flat_map(|e| ["-encryption".to_string(), e.clone()]).collect();
    let server_args: Vec<String> = ["--dedicated", "--", "-port", "0", "-seconds"]
        .iter()
        .map(|s| s.to_string())
        .chain([seconds.to_string()])
        .chain(security.iter().cloned())
        .collect();
    children.push(spawn(path, cfg, &server_args, 0, tx)?);
    let addr = loop {
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok((0, line)) => {
                if let Some(a) = line.strip_prefix("LISTENING ") {
                    break a.trim().to_string();
                }
            }
            Ok(_) => {}
            Err(_) => return Err(io::Error::other("server did not start")),
        }
    };
    for i in 0..cfg.clients {
        let args: Vec<String> = vec![
            "--connect".into(),
            addr.clone(),
            "--seed".into(),
            (i as u64 + 1).to_string(),
            "--".into(),
            "-bot".into(),
            "-name".into(),
            bot_name(i),
        ]
        .into_iter()
        .chain(security.iter().cloned())
        .collect();
        children.push(spawn(path, cfg, &args, i + 1, tx)?);
    }
    for (k, script) in cfg.hostile.iter().enumerate() {
        let args: Vec<String> = vec![
            "--connect".into(),
            addr.clone(),
            "--exec".into(),
            script.clone(),
            "--seed".into(),
            (1000 + k as u64).to_string(),
            "--".into(),
            "-bot".into(),
            "-name".into(),
            format!("Hostile{k:02}"),
        ]
        .into_iter()
        .chain(security.iter().cloned())
        .collect();
        children.push(spawn(path, cfg, &args, cfg.clients + 1 + k, tx)?);
    }
    Ok(addr)
}

/// What the processes' lines say, gathered as they come.
struct Tally {
    boards: Vec<Option<String>>,
    rtt: Vec<f64>,
    cpm: Vec<f64>,
    stale: Vec<u32>,
    nearby: Vec<Option<f64>>,
    kbps_sum: f64,
    kbps_n: u32,
}

impl Tally {
    fn new(clients: usize) -> Self {
        Tally {
            boards: vec![None; clients],
            rtt: vec![0.0; clients],
            cpm: vec![0.0; clients],
            stale: vec![0; clients],
            nearby: vec![None; clients],
            kbps_sum: 0.0,
            kbps_n: 0,
        }
    }

    fn kbps(&self) -> f64 {
        if self.kbps_n > 0 { self.kbps_sum / f64::from(self.kbps_n) } else { 0.0 }
    }

    /// One line of process `who` (0 the server, then the bots, then the hostile clients).
    fn line(&mut self, cfg: &MatchConfig, report: &mut MatchReport, who: usize, line: String) {
        if who > cfg.clients {
            if line.starts_with("client: connection")
                && !line.contains("accepted")
                && let Some((_, ends, first)) = report.hostile_endings.get_mut(who - cfg.clients - 1)
            {
                *ends += 1;
                first.get_or_insert(line.trim_start_matches("client: ").to_string());
            }
            return;
        }
        if who > 0
            && line.starts_with("client: connection")
            && !line.contains("accepted")
            && let Some(first) = report.bot_endings.get_mut(who - 1)
        {
            first.get_or_insert(line.trim_start_matches("client: ").to_string());
        }
        if who == 0 && line.starts_with("server: ") && line.contains(" boards ") {
            report.vehicle_boardings += 1;
        }
        if let Some(b) = line.strip_prefix("SCOREBOARD ") {
            if who == 0 {
                report.server_scoreboard = b.trim().to_string();
            } else {
                self.boards[who - 1] = Some(b.trim().to_string());
            }
        } else if line.starts_with("STATUS ") && who == 0 {
            report.max_players = report.max_players.max(field(&line, "players").unwrap_or(0.0) as usize);
            report.server_tick_us = field(&line, "tick_us").unwrap_or(0.0);
            report.server_tick_us_max = report.server_tick_us_max.max(report.server_tick_us);
            let k = field(&line, "kbps_per_client").unwrap_or(0.0);
            if field(&line, "players").unwrap_or(0.0) as usize >= cfg.clients {
                self.kbps_sum += k;
                self.kbps_n += 1;
            }
            report.status_lines.push(line);
        } else if line.starts_with("GHOSTHASH ") {
            let hash = text_field(&line, "hash").unwrap_or("").to_string()
                + "/"
                + text_field(&line, "ghosts").unwrap_or("");
            if who == 0 {
                let name = text_field(&line, "name").unwrap_or("").to_string();
                report.server_ghost_hashes.insert(name, hash);
            } else {
                report.client_ghost_hashes[who - 1] = Some(hash);
            }
        } else if line.starts_with("CLIENT ") && who > 0 {
            self.rtt[who - 1] = field(&line, "rtt_ms").unwrap_or(0.0);
            self.cpm[who - 1] = field(&line, "corrections_per_min").unwrap_or(0.0);
            let st = field(&line, "staleness_ms").unwrap_or(0.0) as u32;
            self.stale[who - 1] = self.stale[who - 1].max(st);
            self.nearby[who - 1] = field(&line, "nearby_updated_pct").or(self.nearby[who - 1]);
        }
    }

    /// The live status line.
    fn status(&self, report: &MatchReport, start: Instant, clients: usize) -> String {
        let n = clients.max(1) as f64;
        format!(
            "[{:>3} s] players {:>3}  tick {:>5.0} µs  {:>5.1} kbit/s/client  RTT {:>4.0} ms  {:>5.1} corr/min",
            start.elapsed().as_secs(),
            report.max_players,
            report.server_tick_us,
            self.kbps(),
            self.rtt.iter().sum::<f64>() / n,
            self.cpm.iter().sum::<f64>() / n,
        )
    }

    /// The match's figures into the report.
    fn finish(self, report: &mut MatchReport, clients: usize) {
        let n = clients.max(1) as f64;
        report.kbps_per_client = self.kbps();
        report.client_scoreboards = self.boards.into_iter().flatten().collect();
        report.rtt_ms = self.rtt.iter().sum::<f64>() / n;
        report.corrections_per_min = self.cpm.iter().sum::<f64>() / n;
        report.worst_staleness_ms = self.stale.into_iter().max().unwrap_or(0);
        let nearby: Vec<f64> = self.nearby.into_iter().flatten().collect();
        report.nearby_updated_pct = nearby.iter().copied().fold(100.0, f64::min);
        report.nearby_updated_mean_pct =
            if nearby.is_empty() { 100.0 } else { nearby.iter().sum::<f64>() / nearby.len() as f64 };
    }
}

/// Runs the match and returns the report (process failures are errors; a scoreboard
/// mismatch is in [`MatchReport::ok`]).
pub fn run(cfg: &MatchConfig) -> io::Result<MatchReport> {
    let path = v12_path(cfg)?;
    let (tx, rx) = mpsc::channel::<(usize, String)>();
    let seconds = cfg.seconds.max(1);
    let mut children: Vec<Child> = Vec::new();
    let start = Instant::now();
    let addr = match start_processes(&path, cfg, seconds, &mut children, &tx, &rx) {
        Ok(a) => a,
        Err(e) => {
            for c in &mut children {
                let _ = c.kill();
            }
            return Err(e);
        }
    };
    let server_pid = children[0].id();
    let mut last_sample = Instant::now();
    let mut window = None;
    if cfg.window {
        let child = Command::new(&path)
            .args(["--connect", &addr, "--window", "--mod"])
            .arg(&cfg.mod_dir)
            .spawn()
            .map_err(|e| io::Error::other(format!("cannot open the window client: {e}")))?;
        window = Some(child);
    }
    drop(tx);
    let mut report = MatchReport {
        clients: cfg.clients,
        seconds,
        hostile: cfg.hostile.len(),
        client_ghost_hashes: vec![None; cfg.clients],
        hostile_endings: cfg.hostile.iter().map(|h| (h.clone(), 0, None)).collect(),
        vehicle_boardings: 0,
        bot_endings: vec![None; cfg.clients],
        ..MatchReport::default()
    };
    let mut tally = Tally::new(cfg.clients);
    let deadline = start + Duration::from_secs(seconds + 30);
    let mut last_live = Instant::now();
    let on_terminal = std::io::IsTerminal::is_terminal(&io::stderr());
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok((who, line)) => tally.line(cfg, &mut report, who, line),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if last_sample.elapsed() >= Duration::from_secs(1) {
            last_sample = Instant::now();
            if let Some(mb) = rss_mb(server_pid) {
                report.server_rss_mb.push(mb);
            }
        }
        // On a terminal the status line redraws itself twice a second; into a file or a
        // pipe it is a plain line every 5 s (no carriage returns in logs).
        let every = if on_terminal { 500 } else { 5_000 };
        if cfg.live && last_live.elapsed() >= Duration::from_millis(every) {
            last_live = Instant::now();
            let status = tally.status(&report, start, cfg.clients);
            if on_terminal {
                eprint!("\r{status}   ");
            } else {
                eprintln!("{status}");
            }
            let _ = io::stderr().flush();
        }
        if Instant::now() > deadline {
            for c in &mut children {
                let _ = c.kill();
            }
            break;
        }
    }
    for c in &mut children {
        let _ = c.wait();
    }
    if cfg.live && on_terminal {
        eprintln!();
    }
    tally.finish(&mut report, cfg.clients);
    if let Some(mut w) = window {
        eprintln!("match over: close the window client to finish");
        let _ = w.wait();
    }
    Ok(report)
}
