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
use crate::listen::ListenPort;
use crate::mission::ServerObjects;
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
use v12_netobject::ghost::NoObjects;
use v12_netobject::{InterfaceConfig, NetInterface};
use v12_platform::{
    Clock, ConditionerConfig, LinkConditioner, LossModel, NetAddress, SystemClock, Transport, UdpTransport,
};
use v12_sim::NetDriver;
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
    /// file instead of the sound card.
    pub audio_capture: Option<PathBuf>,
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

fn register_script_functions(con: &mut Console, requests: &Requests) {
    crate::net_security::register(con);
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

/// Runs the program; returns the process exit code.
pub fn run(cfg: &HostConfig) -> io::Result<i32> {
    let mut con = Console::new();
    // Writes (save, fileWrite) go to the mod folder; reads through the resource manager,
    // which serves its volumes too.
    con.set_file_root(&cfg.mod_dir);
    let resources = crate::mod_files::install(&mut con, &cfg.mod_dir, &cfg.mods)?;
    // The mission's classes: the server's world (`missions/arena.mis`, run by the server's
    // scripts) is built here.
    let mission = crate::mission::install(&mut con, resources.clone());
    let remote = RemoteCommands::register(&mut con);
    let shared = Rc::new(RefCell::new(Shared::default()));
    // The game objects live in the world's container beside its terrain and interiors.
    shared.borrow_mut().container = Some(mission.borrow().container.clone());
    let requests: Requests = Rc::default();
    register_script_functions(&mut con, &requests);
    register_demo_functions(&mut con, &requests);
    // The game object classes (`new Player()`, `new Item()`, ...) and their datablocks.
    crate::objects::register(&mut con, &shared);
    // Sound: the classes and `alx*` functions; a client mode opens the card or the capture.
    let audio = crate::audio::install(&mut con, &resources);
    if !cfg.dedicated {
        audio.borrow_mut().open(&crate::audio::device_choice(cfg.audio_capture.as_ref()));
    }
    // The telnet console's and TCPObjects' connections go through the journal too.
    let tcp = || -> Box<dyn v12_platform::TcpIo> {
        let live = Box::new(v12_platform::TcpNet::new());
        match &cfg.journal {
            Some(j) => j.tcp(live),
            None => live,
        }
    };
    let mut telnet = v12_sim::telnet::TelnetServer::register_with(&mut con, tcp());
    let mut tcp_objects = v12_sim::tcp_object::TcpObjects::register_with(&mut con, tcp());
    let directory = crate::browser::ServerDirectory::register(&mut con);
    // The server browser's queries: their port, clock readings and nonces are journaled too.
    let browser = crate::browser::ServerBrowser::register_with(
        &mut con,
        crate::browser::query_io(cfg.journal.as_ref()),
    );
    con.set_global("Game::argc", cfg.script_args.len() as i64);
    for (i, a) in cfg.script_args.iter().enumerate() {
        con.set_global(&format!("Game::argv{i}"), a.as_str());
    }
    con.set_global("Game::dedicated", cfg.dedicated);
    if let Err(e) = con.exec_file("main.cs") {
        con.error(&format!("v12: {e}"));
        return Ok(1);
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
    let (reg, ghosts) = crate::registries();
    // Every clock reading, received datagram and key goes through the journal when there is
    // one; a replay runs as fast as it can.
    let system_clock = SystemClock::new();
    let clock: &dyn Clock = match &cfg.journal {
        Some(j) => j,
        None => &system_clock,
    };
    let keys = |who: u64| {
        let live = crate::entropy(cfg.seed, who);
        cfg.journal.as_ref().map_or(live, |j| j.keys(live))
    };
    let journaled = |port: Port| match &cfg.journal {
        Some(j) => j.port(port),
        None => port,
    };
    let playing = cfg.journal.as_ref().is_some_and(|j| j.is_playing());
    let mut server: Option<Server> = None;
    let mut client: Option<ClientSession> = None;
    let mut the_bot = bot::Bot::new();
    // `recordDemo`'s file while it records; a demo playing; `--play-demo` quits at its end.
    let mut recording: Option<PathBuf> = None;
    let mut playback: Option<DemoPlayback> = None;
    let mut quit_after_demo = false;
    let mut exit_code = 0;
    if let Some(p) = &cfg.play_demo {
        requests.borrow_mut().push(Request::PlayDemo(p.clone(), true));
    }
    let mut last_frame = clock.now_ms();
    let mut last_status = last_frame;
    // Connections stay alive while a script is stopped in the debugger.
    let mut debug_pause = crate::debug_pause::DebugPause::install(&mut con, last_frame);
    let mut bytes_at_status = (0u64, 0u64);
    let bind_port =
        |seed: u64, ip: std::net::IpAddr, port: u16| -> io::Result<LinkConditioner<UdpTransport>> {
            let link = cfg.link.unwrap_or_default();
            Ok(LinkConditioner::new(UdpTransport::bind(NetAddress::new(ip, port))?, link, seed))
        };

    loop {
        // Apply what scripts asked for, in order.
        let reqs = std::mem::take(&mut *requests.borrow_mut());
        for r in reqs {
            let now = clock.now_ms();
            match r {
                Request::CreateServer(port) => {
                    let security = crate::net_security::encryption(&con)
                        .and_then(|e| Ok((e, crate::net_security::connect_token_key(&con)?)));
                    let (encryption, connect_token_key) = match security {
                        Ok(s) => s,
                        Err(e) => {
                            con.error(&format!("createServer: {e}"));
                            continue;
                        }
                    };
                    let mut iface = NetInterface::new(
                        InterfaceConfig {
                            accept_connections: true,
                            max_connections: 2048,
                            // Bots and tests run many clients from one host; a public
                            // server lowers it in its prefs.
                            max_connections_per_ip: pref_u32(
                                &con,
                                "Pref::Server::MaxConnectionsPerIP",
                                256,
                                1,
                                2048,
                            ) as usize,
                            max_pending_per_ip: pref_u32(&con, "Pref::Server::MaxPendingPerIP", 32, 1, 2048)
                                as usize,
                            encryption,
                            connect_token_key,
                            ..Default::default()
                        },
                        reg.clone(),
                        keys(0),
                    );
                    iface.set_ghost_classes(ghosts.clone());
                    // UDP for remote players, and the short-circuit link for our own client.
                    let udp = bind_port(cfg.seed, server_bind_ip(&mut con), port)?;
                    let (listen_port, local_link) = ListenPort::new(udp);
                    let local_peer = listen_port.local_peer();
                    let driver = NetDriver::new(iface, journaled(Box::new(listen_port)));
                    let addr = driver.transport.local_addr();
                    (cfg.report)(&format!("LISTENING {}", addr.socket_addr()));
                    // The port actually bound (`createServer(0)` picks a free one), for a
                    // listen server's own `connect`; and `ClientGroup` before anyone joins.
                    con.set_global("Server::Port", i64::from(addr.socket_addr().port()));
                    if con.find_object_str("ClientGroup").is_none() {
                        let _ = con.create_object("SimGroup", Some("ClientGroup"));
                    }
                    shared.borrow_mut().world = Some(SceneWorld::new(60.0));
                    let mut s =
                        Server::new(Rc::new(RefCell::new(driver)), now, MissionWorld::ground(&mission));
                    debug_pause.watch(&s.driver);
                    shared.borrow_mut().driver = Some(s.driver.clone());
                    s.local_link = Some(local_link);
                    s.local_peer = Some(local_peer);
                    server = Some(s);
                    directory.server_started(&con);
                    con.call_function("onServerCreated", &[]);
                }
                Request::DestroyServer => {
                    if let Some(mut s) = server.take() {
                        directory.shutdown(&mut s.driver.borrow_mut().interface);
                        let ids = s.driver.borrow().interface.connection_ids();
                        for id in ids {
                            s.driver.borrow_mut().interface.disconnect(id, "server shut down");
                            gc::server_connection_dropped(&mut con, &remote, id, "server shut down");
                        }
                        let _ = s.driver.borrow_mut().pump(now, &NoObjects, &mut s.no_ghosts);
                    }
                    crate::placement::clear(&mut shared.borrow_mut());
                    shared.borrow_mut().driver = None;
                    shared.borrow_mut().world = None;
                }
                Request::Connect(addr, args) => {
                    let mut opts = ConnectOptions {
                        addr,
                        args,
                        seed: cfg.seed,
                        link: cfg.link,
                        rate: crate::rate_from_prefs(&con, false),
                        keys: None,
                    };
                    // Our own server: join through memory (the short-circuit link), once.
                    let local = server
                        .as_mut()
                        .filter(|s| s.is_own_address(&opts.addr))
                        .and_then(|s| s.local_link.take());
                    opts.keys = Some(keys(0x55));
                    let port = match local {
                        Some(link) => {
                            opts.addr = link.server_addr.socket_addr().to_string();
                            opts.rate = v12_netobject::RateConfig::LOCAL;
                            Ok(Box::new(link.client) as Port)
                        }
                        None => ClientSession::bind_port(&opts),
                    };
                    let joined = port.and_then(|p| {
                        ClientSession::connect_via(
                            &mut con,
                            remote.clone(),
                            resources.clone(),
                            &opts,
                            now,
                            journaled(p),
                        )
                    });
                    match joined {
                        Ok(c) => {
                            debug_pause.watch(c.driver());
                            client = Some(c);
                        }
                        Err(e) => con.warn(&format!("connect: {e}")),
                    }
                }
                Request::Disconnect => {
                    if let Some(mut c) = client.take() {
                        c.disconnect(&mut con, now);
                    }
                }
                Request::FreezeWorld => {
                    if server.is_some() {
                        let gone = freeze_world(&mut shared.borrow_mut());
                        for p in gone {
                            con.delete_object(p);
                        }
                    }
                }
                Request::ServerGhostCheck => {
                    shared.borrow_mut().ghost_check_by = Some(now + GHOST_CHECK_WAIT_MS);
                }
                Request::ClientGhostCheck => {
                    if let Some(c) = &client {
                        let (hash, n) = c.ghost_hash();
                        (cfg.report)(&format!("GHOSTHASH hash={hash:016x} ghosts={n}"));
                    }
                }
                Request::RecordDemo(file) => {
                    let started = match (&mut client, con.resolve_path(&file)) {
                        (_, None) => Err(format!("{file} is outside the mod folder")),
                        (None, _) => Err("not connected".to_string()),
                        (Some(c), Some(path)) => c.start_demo(&con).map(|()| path),
                    };
                    match started {
                        Ok(path) => recording = Some(path),
                        Err(e) => con.error(&format!("recordDemo: {e}")),
                    }
                }
                Request::StopDemo => {
                    let (Some(c), Some(path)) = (&mut client, recording.take()) else {
                        con.warn("stopDemo: no demo is being recorded");
                        continue;
                    };
                    let Some((file, hash)) = c.stop_demo() else { continue };
                    let bytes = file.encode();
                    let written = path
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|()| std::fs::write(&path, &bytes));
                    match written {
                        Ok(()) => {
                            con.print(
                                v12_console_vm::Level::Normal,
                                &format!("demo: wrote {} ({} bytes)", path.display(), bytes.len()),
                            );
                            (cfg.report)(&format!("DEMOHASH {hash:016x}"));
                        }
                        Err(e) => con.error(&format!("stopDemo: {}: {e}", path.display())),
                    }
                }
                Request::PlayDemo(path, from_command_line) => {
                    let world = WorldGhosts::new(MissionWorld::new(
                        resources.clone(),
                        Rc::new(RefCell::new(v12_sim::container::ScriptContainer::default())),
                    ));
                    let opened = std::fs::read(&path).map_err(|e| e.to_string()).and_then(|data| {
                        DemoPlayback::open(&mut con, &data, crate::registries(), world, now)
                            .map_err(|e| e.to_string())
                    });
                    match opened {
                        Ok(p) => {
                            playback = Some(p);
                            quit_after_demo = from_command_line;
                        }
                        Err(e) => {
                            con.error(&format!("playDemo: {}: {e}", path.display()));
                            if from_command_line {
                                exit_code = 1;
                                con.eval("quit();").ok();
                            }
                        }
                    }
                }
            }
        }
        if con.quit_requested() {
            break;
        }

        let now = clock.now_ms();
        // Time stopped at a script breakpoint is skipped, not caught up on.
        let stopped = debug_pause.frame(&con, now);
        if stopped > 0 {
            last_frame += stopped;
            if let Some(s) = &mut server {
                s.time_ms += stopped;
            }
            if let Some(c) = &mut client {
                c.skip_time(stopped);
            }
        }
        let dt = now.saturating_sub(last_frame);
        last_frame = now;

        // 1. Server process: whole ticks only.
        if let Some(s) = &mut server {
            while s.time_ms + u64::from(TICK_MS) <= now {
                s.time_ms += u64::from(TICK_MS);
                let t0 = Instant::now();
                let events = server_tick(s, &mut shared.borrow_mut());
                // The tick's cost includes the script callbacks it makes.
                run_game_events(&mut con, &shared, &events);
                s.tick_us_total += t0.elapsed().as_micros();
                s.ticks += 1;
            }
            // The ghost-state check, once no ghost change is in flight to anyone.
            // Settled means settled for longer than a round trip, so no update is still in
            // flight (a lost one would be marked dirty again on its notify).
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
                for line in server_ghost_check(&con, &remote, s, &shared.borrow()) {
                    (cfg.report)(&line);
                }
                con.call_function("onGhostCheck", &[]);
            }
            // `setControlObject` and removals: each connection drives what its client controls.
            if std::mem::take(&mut shared.borrow_mut().control_dirty) {
                crate::server::sync_control(s, &remote, &shared.borrow());
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
            // 2. Server net.
            remote.flush_to_clients(&mut s.driver.borrow_mut().interface);
            {
                let sh = shared.borrow();
                if let Some(w) = sh.world.as_ref() {
                    for g in s.clients.values_mut() {
                        let _ = g.post_control(now, &mut s.driver.borrow_mut().interface, w);
                    }
                    if s.world_ghosts.len() != crate::mission::ghost_count(&mission) {
                        s.world_ghosts = crate::mission::world_ghosts(&mission);
                    }
                    let world = mission.borrow();
                    let objects =
                        ServerObjects { scene: w, world: &s.world_ghosts, zones: Some(&world.scene) };
                    s.driver.borrow_mut().pump(now, &objects, &mut s.no_ghosts)?;
                }
            }
            let mut evs = Vec::new();
            while let Some(ev) = s.driver.borrow_mut().interface.poll_event() {
                evs.push(ev);
            }
            for ev in evs {
                server_net_event(&mut con, &remote, s, &shared, ev);
            }
            // Info queries on the game port, and heartbeats to the masters.
            directory.pump(&con, &mut s.driver.borrow_mut().interface, now, s.clients.len());
        }
        browser.pump(&mut con);
        // The remote console (telnetSetParameters): its lines run between the frame's steps.
        telnet.pump(&mut con, now);
        // TCPObject / HTTPObject connections: their callbacks run here.
        tcp_objects.pump(&mut con);

        // 3. Sim::advanceTime: scheduled script events.
        con.advance_time(dt);
        crate::audio::advance(&mut con, dt);

        // 4. Client process and 5. client net.
        if let Some(c) = &mut client {
            let bot = con.get_global("Game::bot").truthy() && !con.get_global("Game::frozen").truthy();
            c.advance(&mut con, now, |c| if bot { the_bot.next_move(c) } else { bot::idle() })?;
            if c.ended() {
                client = None;
            }
        }
        // A demo playing: its packets at their recorded pace, its commands to the scripts.
        if let Some(p) = &mut playback {
            let finished = match p.advance(&mut con, &remote, now) {
                Ok(done) => done,
                Err(e) => {
                    con.error(&format!("playDemo: {e}"));
                    exit_code = 1;
                    true
                }
            };
            if finished {
                (cfg.report)(&format!("DEMOHASH {:016x}", p.ghost_hash()));
                con.print(v12_console_vm::Level::Normal, &format!("demo: played {} packets", p.packets()));
                playback = None;
                con.call_callback("onDemoPlayDone", &[]);
                if quit_after_demo {
                    break;
                }
            }
        }
        // 6. Render: nothing here (headless). 7. Timeouts ran inside each driver's pump.

        if now.saturating_sub(last_status) >= 1000 {
            let secs = (now - last_status) as f64 / 1000.0;
            last_status = now;
            if let Some(s) = &server {
                let n = s.clients.len().max(1) as f64;
                let st = s.driver.borrow().stats();
                let kbps = (st.bytes_out - bytes_at_status.0) as f64 * 8.0 / 1000.0 / secs / n;
                bytes_at_status.0 = st.bytes_out;
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
                (cfg.report)(&format!(
                    "STATUS players={} tick_us={tick_us:.0} kbps_per_client={kbps:.1} ghost_updates={updates} \
                     ghost_skips={skips}",
                    s.clients.len()
                ));
            }
            // Once the match is over the world stands still for the ghost check: the play
            // figures (staleness, coverage, corrections) stop where the play stopped.
            if let Some(c) = client.as_ref().filter(|_| !con.get_global("Game::frozen").truthy()) {
                let r = c.report();
                let kbps = r.bytes_in.saturating_sub(bytes_at_status.1) as f64 * 8.0 / 1000.0 / secs;
                bytes_at_status.1 = r.bytes_in;
                let mins = now.saturating_sub(r.started_ms) as f64 / 60_000.0;
                let cpm = if mins > 0.0 { r.corrections as f64 / mins } else { 0.0 };
                (cfg.report)(&format!(
                    "CLIENT rtt_ms={:.0} kbps_in={kbps:.1} corrections_per_min={cpm:.1} staleness_ms={} ghosts={} \
                     nearby_updated_pct={:.1}",
                    r.rtt_ms,
                    r.staleness_ms,
                    r.ghosts,
                    r.coverage * 100.0
                ));
            }
        }
        if cfg.journal.as_ref().is_some_and(|j| j.stopped()) {
            break;
        }
        if !playing {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    if let Some(s) = &mut server {
        directory.shutdown(&mut s.driver.borrow_mut().interface);
        let _ = s.driver.borrow_mut().pump(clock.now_ms(), &NoObjects, &mut s.no_ghosts);
    }
    audio.borrow_mut().finish();
    (cfg.report)(&format!("SCOREBOARD {}", con.get_global("Scoreboard").as_text()));
    if let Some(j) = &cfg.journal {
        // A recording and its replay print the same hash of the simulation's state.
        let hash = crate::server::state_hash(&shared.borrow(), &con.get_global("Scoreboard").as_text());
        (cfg.report)(&format!("STATEHASH {hash:016x}"));
        if let Err(e) = j.finish() {
            con.error(&e.to_string());
            return Ok(1);
        }
        if let Some(e) = j.take_error() {
            con.error(&e.to_string());
            return Ok(1);
        }
    }
    if let Some(c) = &client {
        let r = c.report();
        (cfg.report)(&format!("FINAL corrections={} staleness_ms={}", r.corrections, r.staleness_ms));
    }
    Ok(exit_code)
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
