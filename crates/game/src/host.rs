//! The `v12` program's host: one console, an optional server and an optional client, run
//! in V12's ControlFlow order until a script calls `quit()`.
//!
//! Scripts drive (connection callbacks, scoring, respawns, the scoreboard live in the mod's
//! `.cs` files); Rust executes (networking, moves, physics of players and projectiles,
//! collision tests, the bot's input). Script functions are closures that queue requests
//! (`Request`) which the loop applies after the script returns, so no Rust borrow is
//! held while a script runs.

use crate::client::bot;
use crate::client::demo::DemoPlayback;
use crate::client::session::{ClientSession, ConnectOptions};
use crate::journal::SessionJournal;
use crate::mission::ServerObjects;
use crate::server::listen::ListenPort;
use crate::server::{
    GHOST_CHECK_WAIT_MS, GHOST_QUIET_MS, Server, freeze_world, ghosts_settled, run_game_events,
    server_ghost_check, server_net_event, server_tick,
};
use crate::state::Shared;
use crate::{Port, pref_u32};
use std::cell::RefCell;
use std::io;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};
use v12_console_vm::{Console, Value};
use v12_netobject::ghost::GhostWorld;
use v12_netobject::ghost::NoObjects;
use v12_netobject::{InterfaceConfig, NetInterface};
use v12_platform::{
    Clock, ConditionerConfig, LinkConditioner, LossModel, NetAddress, SystemClock, Transport, UdpTransport,
};
use v12_services::{NetDriver, WallClock};
use v12_sim::game_connection as gc;
use v12_sim::process::TICK_MS;
use v12_sim::remote_command::RemoteCommands;
use v12_sim::scene::SceneWorld;
use v12_world::MissionWorld;
use v12_world::mission::WorldGhosts;

/// Command line of the `v12` program.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// No client side at all.
    pub dedicated: bool,
    /// Folder holding `main.cs`.
    pub mod_dir: PathBuf,
    /// Mod folders over it, in order (a later one overrides).
    pub mods: Vec<PathBuf>,
    /// Connect to this server after `main.cs` ran.
    pub connect: Option<String>,
    /// Extra scripts to run after `main.cs`.
    pub exec: Vec<String>,
    /// Arguments after `--`, as `$Game::argv[i]` / `$Game::argc`.
    pub script_args: Vec<String>,
    /// Link conditioner on this process's socket (None: a clean link).
    pub link: Option<ConditionerConfig>,
    /// Seed of the conditioner and the bot.
    pub seed: u64,
    /// Play this demo (`--play-demo FILE`) and quit at its end.
    pub play_demo: Option<PathBuf>,
    /// Record the session into a journal, or replay one (`--journal-record`, `--journal-play`).
    pub journal: Option<crate::journal::SessionJournal>,
    /// `--audio-capture FILE.wav`: the client's sound mixed into a 16-bit stereo 44.1 kHz WAV
    /// file. The host then runs on simulated time ([`SIM_STEP_MS`] a frame, paced to the wall
    /// clock), so a scripted match captures the same bytes in every run.
    /// file instead of the sound card.
    pub audio_capture: Option<PathBuf>,
    /// `--audio-input FILE.wav`: the file voice chat speaks when push-to-talk is held (else
    /// the microphone, with the `sound` feature).
    pub audio_input: Option<PathBuf>,
    /// Where the program's result lines go (`LISTENING`, `STATUS`, `CLIENT`, `GHOSTHASH`,
    /// `SCOREBOARD`, `FINAL`): the `v12` binary prints them on stdout for the demo to read.
    pub report: fn(&str),
}

/// A [`HostConfig::report`] that drops the lines.
pub fn no_report(_line: &str) {}

/// What scripts asked the host to do.
#[derive(Debug, Clone)]
pub(crate) enum Request {
    CreateServer(u16),
    DestroyServer,
    Connect(String, Vec<String>),
    Disconnect,
    /// `freezeWorld()`: the match is over; every object settles for the ghost-state check.
    FreezeWorld,
    /// `ghostCheck()`: print the server's ghost-state hash for each client.
    ServerGhostCheck,
    /// `clientGhostCheck()`: print this client's hash of the ghosts it received.
    ClientGhostCheck,
    /// `recordDemo(file)`: the client starts recording a demo into `file` (in the mod folder).
    RecordDemo(String),
    /// `stopDemo()`: the recording is written.
    StopDemo,
    /// `playDemo(file)`, or `v12 --play-demo FILE` (the path as given; quit at the end).
    PlayDemo(PathBuf, bool),
}

/// The requests scripts queued since the loop last looked.
type Requests = Rc<RefCell<Vec<Request>>>;

fn register_script_functions(
    con: &mut Console,
    requests: &Requests,
    wall_s: &crate::net_security::WallSeconds,
) {
    crate::net_security::register(con, wall_s);
    let sh = requests.clone();
    con.register_function("createServer", 2, 2, "createServer(port)", move |_c, a| {
        sh.borrow_mut().push(Request::CreateServer(a.f64(0).clamp(0.0, 65535.0) as u16));
        Value::Empty
    });
    let sh = requests.clone();
    con.register_function("destroyServer", 1, 1, "destroyServer()", move |_c, _a| {
        sh.borrow_mut().push(Request::DestroyServer);
        Value::Empty
    });
    let sh = requests.clone();
    con.register_function("connect", 2, 0, "connect(address, args...)", move |_c, a| {
        let args = a.argv.iter().skip(1).map(|v| v.as_text().into_owned()).collect();
        sh.borrow_mut().push(Request::Connect(a.str(0).into_owned(), args));
        Value::Empty
    });
    let sh = requests.clone();
    con.register_function("disconnect", 1, 1, "disconnect()", move |_c, _a| {
        sh.borrow_mut().push(Request::Disconnect);
        Value::Empty
    });
    for (name, req, usage) in [
        (
            "freezeWorld",
            0,
            "freezeWorld() - the match is over: every object settles for the ghost-state check",
        ),
        ("ghostCheck", 1, "ghostCheck() - print the server's ghost-state hash for each client"),
        ("clientGhostCheck", 2, "clientGhostCheck() - print this client's hash of the ghosts it received"),
        ("stopDemo", 3, "stopDemo() - write the demo recordDemo began"),
    ] {
        let sh = requests.clone();
        con.register_function(name, 1, 1, usage, move |_c, _a| {
            sh.borrow_mut().push(match req {
                0 => Request::FreezeWorld,
                1 => Request::ServerGhostCheck,
                2 => Request::ClientGhostCheck,
                _ => Request::StopDemo,
            });
            Value::Empty
        });
    }
}

/// `recordDemo(file)` and `playDemo(file)`: files in the mod folder.
fn register_demo_functions(con: &mut Console, requests: &Requests) {
    let sh = requests.clone();
    con.register_function(
        "recordDemo",
        2,
        2,
        "recordDemo(file) - record what this client receives",
        move |_c, a| {
            sh.borrow_mut().push(Request::RecordDemo(a.str(0).into_owned()));
            Value::Empty
        },
    );
    let sh = requests.clone();
    con.register_function("playDemo", 2, 2, "playDemo(file) - play a recorded demo", move |c, a| {
        match c.resolve_path(&a.str(0)) {
            Some(p) => sh.borrow_mut().push(Request::PlayDemo(p, false)),
            None => c.error(&format!("playDemo: {} is outside the mod folder", a.str(0))),
        }
        Value::Empty
    });
}

/// A dedicated server reads console lines from standard input, unless it replays a journal.
fn stdin_console(cfg: &HostConfig) -> io::Result<Option<crate::stdin_console::StdinConsole>> {
    if !cfg.dedicated || cfg.journal.as_ref().is_some_and(SessionJournal::is_playing) {
        return Ok(None);
    }
    crate::stdin_console::StdinConsole::spawn().map(Some)
}

/// The address a server binds: Torque's `$Pref::Net::BindAddress` (`0.0.0.0` for every
/// interface, as a server in a container needs), loopback when unset.
fn server_bind_ip(con: &mut Console) -> std::net::IpAddr {
    let text = con.get_global("Pref::Net::BindAddress").as_text().into_owned();
    match text.trim() {
        "" => std::net::Ipv4Addr::LOCALHOST.into(),
        t => t.parse().unwrap_or_else(|_| {
            con.warn(&format!("$Pref::Net::BindAddress {t:?} is not an IP address; binding loopback"));
            std::net::Ipv4Addr::LOCALHOST.into()
        }),
    }
}

/// Milliseconds of simulated time a frame with `--audio-capture` (a quarter of a tick).
pub const SIM_STEP_MS: u64 = 8;

/// Runs the program; returns the process exit code.
pub fn run(cfg: &HostConfig) -> io::Result<i32> {
    let Some(mut host) = Host::new(cfg)? else { return Ok(1) };
    loop {
        host.step_sim_clock();
        host.apply_requests()?;
        if host.con.quit_requested() {
            break;
        }
        // Each phase is a profiler zone (`profilerEnable`); one flag test each when off.
        host.con.profiler_enter("Frame");
        let (now, dt) = host.frame_time();
        // 1. Server process: whole ticks only.
        host.con.profiler_enter("ServerProcess");
        host.server_process(now);
        host.con.profiler_exit();
        // 2. Server net.
        host.con.profiler_enter("ServerNet");
        host.server_net(now)?;
        host.con.profiler_exit();
        host.con.profiler_enter("Services");
        host.services(now);
        host.con.profiler_exit();
        // 3. Sim::advanceTime: scheduled script events.
        host.con.profiler_enter("AdvanceTime");
        host.con.advance_time(dt);
        crate::audio::advance(&mut host.con, dt);
        host.con.profiler_exit();
        // 4. Client process and 5. client net.
        host.con.profiler_enter("ClientProcess");
        host.client_process(now)?;
        host.con.profiler_exit();
        let demo_over = host.demo_playback(now);
        host.con.profiler_exit();
        if demo_over {
            break;
        }
        // 6. Render: nothing here (headless). 7. Timeouts ran inside each driver's pump.
        host.report_status(now);
        if cfg.journal.as_ref().is_some_and(|j| j.stopped()) {
            break;
        }
        if !host.playing && host.sim_clock.is_none() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    host.finish()
}

/// `main.cs` with the script arguments, the `--exec` scripts, then the requests the
/// command line makes (`--connect`, `--play-demo`). False when `main.cs` failed.
fn run_scripts(cfg: &HostConfig, con: &mut Console, requests: &Requests) -> bool {
    con.set_global("Game::argc", cfg.script_args.len() as i64);
    for (i, a) in cfg.script_args.iter().enumerate() {
        con.set_global(&format!("Game::argv{i}"), a.as_str());
    }
    con.set_global("Game::dedicated", cfg.dedicated);
    if let Err(e) = con.exec_file("main.cs") {
        con.error(&format!("v12: {e}"));
        return false;
    }
    for f in &cfg.exec {
        if let Err(e) = con.exec_file(f) {
            con.error(&format!("v12: {e}"));
        }
    }
    if let Some(addr) = &cfg.connect {
        // The server named on the command line, for scripts that join again.
        con.set_global("Game::ServerAddress", addr.as_str());
        let name = con.get_global("Pref::Player::Name").as_text().into_owned();
        requests.borrow_mut().push(Request::Connect(addr.clone(), vec![name]));
    }
    if let Some(p) = &cfg.play_demo {
        requests.borrow_mut().push(Request::PlayDemo(p.clone(), true));
    }
    true
}

/// The program between frames: one console, an optional server and an optional client, the
/// host's services (telnet, TCP objects, the browser and the master directory) and the frame
/// clock. [`run`] calls a method per phase of V12's ControlFlow.
struct Host<'a> {
    cfg: &'a HostConfig,
    con: Console,
    resources: Rc<v12_resource::ResourceManager>,
    mission: v12_world::mission::MissionHandle,
    remote: RemoteCommands,
    shared: Rc<RefCell<Shared>>,
    requests: Requests,
    telnet: v12_services::telnet::TelnetServer,
    tcp_objects: v12_services::tcp_object::TcpObjects,
    audio: crate::audio::SharedAudio,
    directory: crate::browser::ServerDirectory,
    browser: crate::browser::ServerBrowser,
    reg: std::sync::Arc<v12_netobject::NetClassRegistry>,
    ghosts: std::sync::Arc<v12_netobject::ghost::GhostClassRegistry>,
    /// The clock when there is no journal (every reading goes through the journal if there is).
    system_clock: SystemClock,
    /// Where the wall clock comes from (the system's, or the journal's zero plus `now`).
    wall: WallClock,
    /// The wall clock at this frame, as the scripts' `issueConnectToken` reads it.
    wall_s: crate::net_security::WallSeconds,
    /// A journal replay runs as fast as it can.
    playing: bool,
    /// With `--audio-capture`: simulated time (now, and where it and the wall clock began).
    sim_clock: Option<(std::cell::Cell<u64>, u64, u64)>,
    server: Option<Server>,
    client: Option<ClientSession>,
    bot: bot::Bot,
    /// `recordDemo`'s file while it records.
    recording: Option<PathBuf>,
    /// A demo playing; `--play-demo` quits at its end.
    playback: Option<DemoPlayback>,
    quit_after_demo: bool,
    exit_code: i32,
    last_frame: u64,
    last_status: u64,
    /// Connections stay alive while a script is stopped in the debugger.
    debug_pause: crate::debug_pause::DebugPause,
    /// Bytes sent by the server and received by the client at the last status line.
    bytes_at_status: (u64, u64),
    /// A dedicated server's console on standard input (none when replaying a journal: its
    /// lines come from there).
    stdin: Option<crate::stdin_console::StdinConsole>,
}

impl<'a> Host<'a> {
    /// The console with every class, function and service the game's scripts use, after
    /// `main.cs` ran; `None` when it failed.
    fn new(cfg: &'a HostConfig) -> io::Result<Option<Self>> {
        let mut con = Console::new();
        // Writes (save, fileWrite) go to the mod folder; reads through the resource manager,
        // which serves its volumes too.
        con.set_file_root(&cfg.mod_dir);
        let resources = crate::mod_files::install(&mut con, &cfg.mod_dir, &cfg.mods)?;
        // The mission's classes: the server's world (`missions/arena.mis`, run by the server's
        // scripts) is built here.
        let mission = crate::mission::install(&mut con, resources.clone());
        // No server yet: a client's queries ask its own container (`createServer` turns it).
        v12_sim::container::prefer_client_container(&con, true);
        let remote = RemoteCommands::register(&mut con);
        let shared = Rc::new(RefCell::new(Shared::default()));
        // The game objects live in the world's container beside its terrain and interiors.
        shared.borrow_mut().container = Some(mission.borrow().container.clone());
        let requests: Requests = Rc::default();
        // The wall clock (connect tokens expire by Unix time) follows the session's clock:
        // with a journal its zero is a journaled note, so a replay reads the same one.
        let wall = cfg.journal.as_ref().map_or(WallClock::System, SessionJournal::wall_clock);
        let wall_s: crate::net_security::WallSeconds = Rc::new(std::cell::Cell::new(wall.unix_s(0)));
        register_script_functions(&mut con, &requests, &wall_s);
        register_demo_functions(&mut con, &requests);
        // The game object classes (`new Player()`, `new Item()`, ...) and their datablocks.
        crate::objects::register(&mut con, &shared);
        // The GUI's classes (profiles, cursors, controls, MessageVector, GuiInspector) and
        // ActionMap in every mode, as V12's one executable had them: a dedicated server reads
        // scripts that declare them, and the inspector's script API works there too.
        if let Err(e) = v12_gui::register_classes(&mut con) {
            tracing::warn!("GUI classes: {e}");
        }
        if let Err(e) = v12_sim::action_map::register_action_maps(&mut con) {
            tracing::warn!("ActionMap: {e}");
        }
        // Gamepads and joysticks as scripts see them (V12's joystick functions, hot-plug).
        crate::input_devices::install(&mut con);
        // Sound: the classes and `alx*` functions; a client mode opens the card or the capture.
        let audio = crate::audio::install(&mut con, &resources);
        if !cfg.dedicated {
            audio.borrow_mut().open(&crate::audio::device_choice(cfg.audio_capture.as_ref()));
            audio.borrow_mut().voice.set_input(cfg.audio_input.clone());
        }
        // The telnet console's and TCPObjects' connections go through the journal too.
        let tcp = || -> Box<dyn v12_platform::TcpIo> {
            let live = Box::new(v12_platform::TcpNet::new());
            match &cfg.journal {
                Some(j) => j.tcp(live),
                None => live,
            }
        };
        let telnet = v12_services::telnet::TelnetServer::register_with(&mut con, tcp());
        let tcp_objects = v12_services::tcp_object::TcpObjects::register_with(&mut con, tcp());
        let directory = crate::browser::ServerDirectory::register(&mut con);
        // The server browser's queries: their port, clock readings and nonces are journaled too.
        let browser = crate::browser::ServerBrowser::register_with(
            &mut con,
            crate::browser::query_io(cfg.journal.as_ref()),
        );
        if !run_scripts(cfg, &mut con, &requests) {
            return Ok(None);
        }
        let (reg, ghosts) = crate::registries();
        let system_clock = SystemClock::new();
        let now = match &cfg.journal {
            Some(j) => j.now_ms(),
            None => system_clock.now_ms(),
        };
        // Connections stay alive while a script is stopped in the debugger.
        let debug_pause = crate::debug_pause::DebugPause::install(&mut con, now);
        Ok(Some(Host {
            cfg,
            con,
            resources,
            mission,
            remote,
            shared,
            requests,
            telnet,
            tcp_objects,
            audio,
            directory,
            browser,
            reg,
            ghosts,
            system_clock,
            wall,
            wall_s,
            playing: cfg.journal.as_ref().is_some_and(|j| j.is_playing()),
            sim_clock: cfg
                .audio_capture
                .is_some()
                .then(|| (std::cell::Cell::new(now), now, system_clock.now_ms())),
            server: None,
            client: None,
            bot: bot::Bot::new(),
            recording: None,
            playback: None,
            quit_after_demo: false,
            exit_code: 0,
            last_frame: now,
            last_status: now,
            debug_pause,
            bytes_at_status: (0, 0),
            stdin: stdin_console(cfg)?,
        }))
    }

    /// The clock: the journal's when there is one (every reading recorded or replayed).
    fn now(&self) -> u64 {
        if let Some((sim, _, _)) = &self.sim_clock {
            return sim.get();
        }
        match &self.cfg.journal {
            Some(j) => j.now_ms(),
            None => self.system_clock.now_ms(),
        }
    }

    /// Key material for a `NetInterface` (journaled, so a replay gets the same).
    fn keys(&self, who: u64) -> [u8; 32] {
        let live = crate::entropy(self.cfg.seed, who);
        self.cfg.journal.as_ref().map_or(live, |j| j.keys(live))
    }

    /// A port whose datagrams go through the journal when there is one.
    fn journaled(&self, port: Port) -> Port {
        match &self.cfg.journal {
            Some(j) => j.port(port),
            None => port,
        }
    }

    /// Simulated time (with `--audio-capture`): one more [`SIM_STEP_MS`], and a sleep until
    /// the wall clock has caught up (a journal replay does not wait), so peers see real time
    /// while everything in this process happens at the same simulated moments in every run.
    fn step_sim_clock(&mut self) {
        let Some((sim, sim_zero, wall_zero)) = &self.sim_clock else { return };
        let next = sim.get() + SIM_STEP_MS;
        sim.set(next);
        if self.playing {
            return;
        }
        let due = wall_zero + (next - sim_zero);
        let wall = self.system_clock.now_ms();
        if due > wall {
            std::thread::sleep(Duration::from_millis(due - wall));
        }
    }

    /// Now, and the milliseconds since the last frame; time stopped at a script breakpoint
    /// is skipped, not caught up on.
    fn frame_time(&mut self) -> (u64, u64) {
        let now = self.now();
        self.wall_s.set(self.wall.unix_s(now));
        let stopped = self.debug_pause.frame(&self.con, now);
        if stopped > 0 {
            self.last_frame += stopped;
            if let Some(s) = &mut self.server {
                s.time_ms += stopped;
            }
            if let Some(c) = &mut self.client {
                c.skip_time(stopped);
            }
        }
        let dt = now.saturating_sub(self.last_frame);
        self.last_frame = now;
        (now, dt)
    }

    /// Applies what scripts asked for, in order.
    fn apply_requests(&mut self) -> io::Result<()> {
        let reqs = std::mem::take(&mut *self.requests.borrow_mut());
        for r in reqs {
            let now = self.now();
            match r {
                Request::CreateServer(port) => self.create_server(port, now)?,
                Request::DestroyServer => self.destroy_server(now),
                Request::Connect(addr, args) => self.connect(addr, args, now),
                Request::Disconnect => {
                    if let Some(mut c) = self.client.take() {
                        c.disconnect(&mut self.con, now);
                    }
                }
                Request::FreezeWorld => {
                    if self.server.is_some() {
                        let gone = freeze_world(&mut self.shared.borrow_mut());
                        for p in gone {
                            self.con.delete_object(p);
                        }
                    }
                }
                Request::ServerGhostCheck => {
                    self.shared.borrow_mut().ghost_check_by = Some(now + GHOST_CHECK_WAIT_MS);
                }
                Request::ClientGhostCheck => {
                    if let Some(c) = &self.client {
                        let (hash, n) = c.ghost_hash();
                        (self.cfg.report)(&format!("GHOSTHASH hash={hash:016x} ghosts={n}"));
                    }
                }
                Request::RecordDemo(file) => self.record_demo(&file),
                Request::StopDemo => self.stop_demo(),
                Request::PlayDemo(path, from_command_line) => self.play_demo(&path, from_command_line, now),
            }
        }
        Ok(())
    }

    /// `createServer(port)`: UDP for remote players and the short-circuit link for our own
    /// client, with the encryption and connect tokens the prefs ask for.
    fn create_server(&mut self, port: u16, now: u64) -> io::Result<()> {
        let con = &mut self.con;
        let security = crate::net_security::encryption(con)
            .and_then(|e| Ok((e, crate::net_security::connect_token_key(con)?)));
        let (encryption, connect_token_key) = match security {
            Ok(s) => s,
            Err(e) => {
                con.error(&format!("createServer: {e}"));
                return Ok(());
            }
        };
        let config = InterfaceConfig {
            accept_connections: true,
            max_connections: 2048,
            // Bots and tests run many clients from one host; a public server lowers it in its
            // prefs.
            max_connections_per_ip: pref_u32(con, "Pref::Server::MaxConnectionsPerIP", 256, 1, 2048) as usize,
            max_pending_per_ip: pref_u32(con, "Pref::Server::MaxPendingPerIP", 32, 1, 2048) as usize,
            encryption,
            connect_token_key,
            ..Default::default()
        };
        // Packet threads (`$Pref::Server::PacketThreads`; 0 or 1: none): the connections'
        // packets built in parallel from one read-only view of the world, interiors' portals
        // and all (`ServerObjects::as_sync`): the same datagrams as on one thread.
        // `$Pref::Server::PinPacketThreads`
        // binds each to a core of its own, for a server that has its cores to itself.
        let threads = pref_u32(con, "Pref::Server::PacketThreads", 0, 0, 64) as usize;
        let pinned = con.get_global("Pref::Server::PinPacketThreads").truthy();
        let mut iface = NetInterface::new(config, self.reg.clone(), self.keys(0));
        match (threads, pinned) {
            (0 | 1, _) => {}
            (n, false) => iface.set_transmit_threads(n),
            (n, true) => iface.set_transmit_threads_pinned(n),
        }
        if threads > 1 {
            tracing::info!(threads, pinned, "server packet threads");
        }
        iface.set_ghost_classes(self.ghosts.clone());
        let link = self.cfg.link.unwrap_or_default();
        let ip = server_bind_ip(&mut self.con);
        let udp = LinkConditioner::new(UdpTransport::bind(NetAddress::new(ip, port))?, link, self.cfg.seed);
        let (listen_port, local_link) = ListenPort::new(udp);
        let local_peer = listen_port.local_peer();
        let mut driver = NetDriver::new(iface, self.journaled(Box::new(listen_port)));
        // Connect tokens expire by the session's wall clock (journaled, so a replay admits the
        // same tokens).
        driver.set_wall_clock(self.wall);
        let addr = driver.transport.local_addr();
        (self.cfg.report)(&format!("LISTENING {}", addr.socket_addr()));
        // The port actually bound (`createServer(0)` picks a free one), for a listen server's
        // own `connect`; and `ClientGroup` before anyone joins.
        let con = &mut self.con;
        con.set_global("Server::Port", i64::from(addr.socket_addr().port()));
        if con.find_object_str("ClientGroup").is_none() {
            let _ = con.create_object("SimGroup", Some("ClientGroup"));
        }
        self.shared.borrow_mut().world = Some(SceneWorld::new(60.0));
        let mut s = Server::new(Rc::new(RefCell::new(driver)), now, MissionWorld::ground(&self.mission));
        self.debug_pause.watch(&s.driver);
        self.shared.borrow_mut().driver = Some(s.driver.clone());
        s.local_link = Some(local_link);
        s.local_peer = Some(local_peer);
        self.server = Some(s);
        v12_sim::container::prefer_client_container(&self.con, false);
        self.directory.server_started(&self.con);
        self.con.call_function("onServerCreated", &[]);
        Ok(())
    }

    /// `destroyServer()`: every client told, the master told, the world emptied.
    fn destroy_server(&mut self, now: u64) {
        if let Some(mut s) = self.server.take() {
            self.directory.shutdown(&mut s.driver.borrow_mut().interface);
            let ids = s.driver.borrow().interface.connection_ids();
            for id in ids {
                s.driver.borrow_mut().interface.disconnect(id, "server shut down");
                gc::server_connection_dropped(&mut self.con, &self.remote, id, "server shut down");
            }
            let _ = s.driver.borrow_mut().pump(now, &NoObjects, &mut s.no_ghosts);
        }
        // Scripts' container queries go to the client's ghosts now (if it still runs).
        v12_sim::container::prefer_client_container(&self.con, true);
        let mut sh = self.shared.borrow_mut();
        crate::placement::clear(&mut sh);
        sh.driver = None;
        sh.world = None;
    }

    /// `connect(addr, args...)`: our own server through memory (the short-circuit link, once),
    /// any other over UDP.
    fn connect(&mut self, addr: String, args: Vec<String>, now: u64) {
        let mut opts = ConnectOptions {
            addr,
            args,
            seed: self.cfg.seed,
            link: self.cfg.link,
            rate: crate::rate_from_prefs(&self.con, false),
            keys: Some(self.keys(0x55)),
        };
        let local =
            self.server.as_mut().filter(|s| s.is_own_address(&opts.addr)).and_then(|s| s.local_link.take());
        let port = match local {
            Some(link) => {
                opts.addr = link.server_addr.socket_addr().to_string();
                opts.rate = v12_netobject::RateConfig::LOCAL;
                Ok(Box::new(link.client) as Port)
            }
            None => ClientSession::bind_port(&opts),
        };
        let joined = port.and_then(|p| {
            let p = self.journaled(p);
            ClientSession::connect_via(
                &mut self.con,
                self.remote.clone(),
                self.resources.clone(),
                &opts,
                now,
                p,
            )
        });
        match joined {
            Ok(c) => {
                self.debug_pause.watch(c.driver());
                self.client = Some(c);
            }
            Err(e) => self.con.warn(&format!("connect: {e}")),
        }
    }

    /// `recordDemo(file)`: the client starts recording what it receives.
    fn record_demo(&mut self, file: &str) {
        let started = match (&mut self.client, self.con.resolve_path(file)) {
            (_, None) => Err(format!("{file} is outside the mod folder")),
            (None, _) => Err("not connected".to_string()),
            (Some(c), Some(path)) => c.start_demo(&self.con).map(|()| path),
        };
        match started {
            Ok(path) => self.recording = Some(path),
            Err(e) => self.con.error(&format!("recordDemo: {e}")),
        }
    }

    /// `stopDemo()`: the recording is written, and its ghosts' hash reported.
    fn stop_demo(&mut self) {
        let (Some(c), Some(path)) = (&mut self.client, self.recording.take()) else {
            self.con.warn("stopDemo: no demo is being recorded");
            return;
        };
        let Some((file, hash)) = c.stop_demo() else { return };
        let bytes = file.encode();
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, &bytes));
        match written {
            Ok(()) => {
                self.con.print(
                    v12_console_vm::Level::Normal,
                    &format!("demo: wrote {} ({} bytes)", path.display(), bytes.len()),
                );
                (self.cfg.report)(&format!("DEMOHASH {hash:016x}"));
            }
            Err(e) => self.con.error(&format!("stopDemo: {}: {e}", path.display())),
        }
    }

    /// `playDemo(file)`, or `--play-demo FILE` (which quits at its end, or at once with exit
    /// code 1 when the file cannot be played).
    fn play_demo(&mut self, path: &std::path::Path, from_command_line: bool, now: u64) {
        let world = WorldGhosts::new(MissionWorld::new(
            self.resources.clone(),
            Rc::new(RefCell::new(v12_sim::container::ScriptContainer::default())),
        ));
        let opened = std::fs::read(path).map_err(|e| e.to_string()).and_then(|data| {
            DemoPlayback::open(&mut self.con, &data, crate::registries(), world, now)
                .map_err(|e| e.to_string())
        });
        match opened {
            Ok(p) => {
                self.playback = Some(p);
                self.quit_after_demo = from_command_line;
            }
            Err(e) => {
                self.con.error(&format!("playDemo: {}: {e}", path.display()));
                if from_command_line {
                    self.exit_code = 1;
                    self.con.eval("quit();").ok();
                }
            }
        }
    }

    /// Server process (phase 1): the whole ticks due, the ghost-state check once the ghosts
    /// settle, and what scripts changed about control objects.
    fn server_process(&mut self, now: u64) {
        let Some(s) = &mut self.server else { return };
        let (con, shared) = (&mut self.con, &self.shared);
        while s.time_ms + u64::from(TICK_MS) <= now {
            s.time_ms += u64::from(TICK_MS);
            let t0 = Instant::now();
            con.profiler_enter("ServerTick");
            {
                // The water as the mission has it now, and lava's burn (`crate::liquid`).
                let mut sh = shared.borrow_mut();
                std::rc::Rc::make_mut(&mut sh.water).refresh(&self.mission.borrow());
                crate::damage::burn_in_lava(&mut sh);
            }
            let events = server_tick(s, &mut shared.borrow_mut());
            // The tick's cost includes the script callbacks it makes.
            con.profiler_enter("GameEvents");
            run_game_events(con, shared, &events);
            con.profiler_exit();
            con.profiler_exit();
            s.tick_us_total += t0.elapsed().as_micros();
            s.ticks += 1;
        }
        // The ghost-state check, once no ghost change is in flight to anyone. Settled means
        // settled for longer than a round trip, so no update is still in flight (a lost one
        // would be marked dirty again on its notify).
        let due = shared.borrow().ghost_check_by;
        if due.is_some() {
            let settled = ghosts_settled(s, &shared.borrow());
            let since = &mut shared.borrow_mut().ghost_settled_since;
            *since = if settled { Some(since.unwrap_or(now)) } else { None };
        }
        let quiet = shared.borrow().ghost_settled_since.is_some_and(|t| now >= t + GHOST_QUIET_MS);
        if let Some(by) = due
            && (now >= by || quiet)
        {
            let mut sh = shared.borrow_mut();
            sh.ghost_check_by = None;
            sh.ghost_settled_since = None;
            drop(sh);
            for line in server_ghost_check(con, &self.remote, s, &shared.borrow()) {
                (self.cfg.report)(&line);
            }
            con.call_function("onGhostCheck", &[]);
        }
        // `setControlObject` and removals: each connection drives what its client controls.
        if std::mem::take(&mut shared.borrow_mut().control_dirty) {
            crate::server::sync_control(s, &self.remote, &shared.borrow());
        }
        // Script-moved control objects: their clients get the full state.
        let moved = std::mem::take(&mut shared.borrow_mut().moved);
        for id in moved {
            for g in s.clients.values_mut() {
                if g.control_object() == Some(id) {
                    g.force_state();
                }
            }
        }
    }

    /// Server net (phase 2): commands and control objects out, the driver pumped (ghosts,
    /// timeouts), what arrived handed to the scripts, info queries and master heartbeats.
    fn server_net(&mut self, now: u64) -> io::Result<()> {
        let Some(s) = &mut self.server else { return Ok(()) };
        self.remote.flush_to_clients(&mut s.driver.borrow_mut().interface);
        {
            let sh = self.shared.borrow();
            if let Some(w) = sh.world.as_ref() {
                for g in s.clients.values_mut() {
                    let _ = g.post_control(now, &mut s.driver.borrow_mut().interface, w);
                }
                if s.world_ghosts.len() != crate::mission::ghost_count(&self.mission) {
                    s.world_ghosts = crate::mission::world_ghosts(&self.mission);
                }
                let world = self.mission.borrow();
                let objects = ServerObjects::new(w, &s.world_ghosts, Some(&world.scene));
                if objects.as_sync().is_some() && s.driver.borrow().interface.packet_threads().is_some() {
                    s.parallel_pumps += 1;
                }
                self.con.profiler_enter("NetPump");
                let pumped = s.driver.borrow_mut().pump(now, &objects, &mut s.no_ghosts);
                self.con.profiler_exit();
                pumped?;
            }
        }
        let mut evs = Vec::new();
        while let Some(ev) = s.driver.borrow_mut().interface.poll_event() {
            evs.push(ev);
        }
        self.con.profiler_enter("NetEvents");
        for ev in evs {
            server_net_event(&mut self.con, &self.remote, s, &self.shared, ev);
        }
        self.con.profiler_exit();
        // Info queries on the game port, and heartbeats to the masters.
        self.directory.pump(&self.con, &mut s.driver.borrow_mut().interface, now, s.clients.len());
        Ok(())
    }

    /// The host's services: the server browser's queries, the remote console
    /// (`telnetSetParameters`; its lines run between the frame's steps) and TCPObject /
    /// HTTPObject connections (their callbacks run here).
    fn services(&mut self, now: u64) {
        self.browser.pump(&mut self.con);
        self.telnet.pump(&mut self.con, now);
        self.tcp_objects.pump(&mut self.con);
        self.stdin_lines();
    }

    /// A dedicated server's standard-input lines that arrived (through the journal when
    /// there is one), evaluated; never waits.
    fn stdin_lines(&mut self) {
        use crate::stdin_console::{from_journal, run_lines, to_journal};
        if !self.cfg.dedicated {
            return;
        }
        let live = self.stdin.as_mut().map(|s| s.take()).unwrap_or_default();
        let lines = match &self.cfg.journal {
            Some(j) => {
                let kept = j.stdin_lines(live.iter().map(to_journal).collect());
                kept.into_iter().map(from_journal).collect()
            }
            None => live,
        };
        if !lines.is_empty() {
            run_lines(&mut self.con, &lines);
        }
    }

    /// Client process and client net (phases 4 and 5): the bot's or the idle move, the
    /// session pumped.
    fn client_process(&mut self, now: u64) -> io::Result<()> {
        let Some(c) = &mut self.client else { return Ok(()) };
        let con = &mut self.con;
        let bot = con.get_global("Game::bot").truthy() && !con.get_global("Game::frozen").truthy();
        let the_bot = &mut self.bot;
        c.advance(con, now, |c| if bot { the_bot.next_move(c) } else { bot::idle() })?;
        if c.ended() {
            self.client = None;
        }
        Ok(())
    }

    /// A demo playing: its packets at their recorded pace, its commands to the scripts. True
    /// when the program should stop (`--play-demo` at the demo's end).
    fn demo_playback(&mut self, now: u64) -> bool {
        let Some(p) = &mut self.playback else { return false };
        let finished = match p.advance(&mut self.con, &self.remote, now) {
            Ok(done) => done,
            Err(e) => {
                self.con.error(&format!("playDemo: {e}"));
                self.exit_code = 1;
                true
            }
        };
        if !finished {
            return false;
        }
        (self.cfg.report)(&format!("DEMOHASH {:016x}", p.ghost_hash()));
        self.con.print(v12_console_vm::Level::Normal, &format!("demo: played {} packets", p.packets()));
        self.playback = None;
        self.con.call_callback("onDemoPlayDone", &[]);
        self.quit_after_demo
    }

    /// Once a second: the server's `STATUS` line and the client's `CLIENT` line.
    fn report_status(&mut self, now: u64) {
        if now.saturating_sub(self.last_status) < 1000 {
            return;
        }
        let secs = (now - self.last_status) as f64 / 1000.0;
        self.last_status = now;
        if let Some(s) = &self.server {
            let n = s.clients.len().max(1) as f64;
            let st = s.driver.borrow().stats();
            let kbps = (st.bytes_out - self.bytes_at_status.0) as f64 * 8.0 / 1000.0 / secs / n;
            self.bytes_at_status.0 = st.bytes_out;
            let tick_us = if s.ticks > 0 { s.tick_us_total as f64 / s.ticks as f64 } else { 0.0 };
            // Ghost updates that wanted a packet and did not fit (all connections, so far).
            let (mut skips, mut updates) = (0u64, 0u64);
            let driver = s.driver.borrow();
            for id in driver.interface.connection_ids() {
                if let Some(g) = driver.interface.ghost_manager(id) {
                    skips += g.stats().skips;
                    updates += g.stats().updates_sent;
                }
            }
            (self.cfg.report)(&format!(
                "STATUS players={} tick_us={tick_us:.0} kbps_per_client={kbps:.1} ghost_updates={updates} \
                 ghost_skips={skips} parallel_pumps={}",
                s.clients.len(),
                s.parallel_pumps
            ));
        }
        // Once the match is over the world stands still for the ghost check: the play figures
        // (staleness, coverage, corrections) stop where the play stopped.
        if let Some(c) = self.client.as_ref().filter(|_| !self.con.get_global("Game::frozen").truthy()) {
            let r = c.report();
            let kbps = r.bytes_in.saturating_sub(self.bytes_at_status.1) as f64 * 8.0 / 1000.0 / secs;
            self.bytes_at_status.1 = r.bytes_in;
            let mins = now.saturating_sub(r.started_ms) as f64 / 60_000.0;
            let cpm = if mins > 0.0 { r.corrections as f64 / mins } else { 0.0 };
            (self.cfg.report)(&format!(
                "CLIENT rtt_ms={:.0} kbps_in={kbps:.1} corrections_per_min={cpm:.1} staleness_ms={} ghosts={} \
                 nearby_updated_pct={:.1}",
                r.rtt_ms,
                r.staleness_ms,
                r.ghosts,
                r.coverage * 100.0
            ));
        }
    }

    /// The end: the master told, the result lines, the journal closed; the exit code.
    fn finish(mut self) -> io::Result<i32> {
        if self.server.is_some() {
            let now = self.now();
            if let Some(s) = &mut self.server {
                self.directory.shutdown(&mut s.driver.borrow_mut().interface);
                let _ = s.driver.borrow_mut().pump(now, &NoObjects, &mut s.no_ghosts);
            }
        }
        self.audio.borrow_mut().finish();
        let report = self.cfg.report;
        report(&format!("SCOREBOARD {}", self.con.get_global("Scoreboard").as_text()));
        if let Some(j) = &self.cfg.journal {
            // A recording and its replay print the same hash of the simulation's state.
            let hash = crate::server::state_hash(
                &self.shared.borrow(),
                &self.con.get_global("Scoreboard").as_text(),
            );
            report(&format!("STATEHASH {hash:016x}"));
            if let Err(e) = j.finish() {
                self.con.error(&e.to_string());
                return Ok(1);
            }
            if let Some(e) = j.take_error() {
                self.con.error(&e.to_string());
                return Ok(1);
            }
        }
        if let Some(c) = &self.client {
            let r = c.report();
            report(&format!("FINAL corrections={} staleness_ms={}", r.corrections, r.staleness_ms));
        }
        Ok(self.exit_code)
    }
}

/// The "average" link preset with optional overrides (`--latency`, `--loss`).
pub fn link_preset(name: &str, latency: Option<u32>, loss: Option<f64>) -> Option<ConditionerConfig> {
    let mut c = match name {
        "none" => return None,
        "good" => ConditionerConfig::good(),
        "poor" => ConditionerConfig::poor(),
        _ => ConditionerConfig::average(),
    };
    if let Some(l) = latency {
        c.latency_ms = l;
    }
    if let Some(p) = loss {
        c.loss = LossModel::Uniform(p.clamp(0.0, 1.0));
    }
    Some(c)
}
