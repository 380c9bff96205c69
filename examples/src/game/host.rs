//! The `v12` program's host: one console, an optional server and an optional client, run
//! in the seed's ControlFlow order until a script calls `quit()`.
//!
//! Scripts drive (connection callbacks, scoring, respawns, the scoreboard live in the mod's
//! `.cs` files); Rust executes (networking, moves, physics of players and projectiles,
//! collision tests, the bot's input). Script functions are closures that queue requests
//! ([`Request`]) which the loop applies after the script returns, so no Rust borrow is
//! held while a script runs.

use crate::mission::{ClientGhosts, ServerObjects};
use glam::Vec3;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use v12_console_vm::{Console, Value};
use v12_netobject::ghost::{GhostArena, GhostClassRegistry, GhostClassRegistryBuilder, NoObjects, ObjectId};
use v12_netobject::{
    ConnectionId, InterfaceConfig, InterfaceEvent, NetClassRegistry, NetClassRegistryBuilder, NetInterface,
    RateConfig,
};
use v12_platform::{
    Clock, ConditionerConfig, LinkConditioner, LossModel, NetAddress, SystemClock, Transport, UdpTransport,
};
use v12_sim::NetDriver;
use v12_sim::container::StaticGeometry;
use v12_sim::datablock::{
    ClientDataBlocks, DataBlockEvent, DataBlockProgress, DataBlocksAckEvent, DataBlocksDoneEvent,
    is_datablocks_ack, send_datablocks,
};
use v12_sim::game_connection::{
    self as gc, ClientGameConnection, ConnectAcceptedEvent, ServerGameConnection,
};
use v12_sim::moves::Move;
use v12_sim::process::TICK_MS;
use v12_sim::remote_command::{RemoteCommandEvent, RemoteCommands};
use v12_sim::scene::{
    ClientScene, ControlState, Motion, SceneObject, SceneWorld, TICK_SECONDS, UpdateCoverage,
    settled_state_hash,
};
use v12_world::mission::{WorldGhosts, WorldObjectGhost};
use v12_world::{MissionHandle, MissionWorld};

/// Flag bit: the object is hidden (dead player, taken item).
pub const HIDDEN: u8 = 1;

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
}

/// What scripts asked the host to do.
#[derive(Debug, Clone)]
enum Request {
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
}

type Port = LinkConditioner<UdpTransport>;

/// The server: network, scene, per-client GameConnections, and the game's Rust half.
struct Server {
    driver: NetDriver<Port>,
    clients: BTreeMap<ConnectionId, ServerGameConnection>,
    projectiles: BTreeMap<u32, Projectile>,
    cooldown: BTreeMap<u32, u32>,
    tick_us_total: u128,
    ticks: u64,
    time_ms: u64,
    /// Where ghosts sent to the server would go: it is sent none.
    no_ghosts: GhostArena,
    /// The mission's terrain and building as ghosts (refreshed when the mission changes).
    world_ghosts: Vec<WorldObjectGhost>,
    /// The ground players move on (the mission's world).
    ground: Rc<dyn StaticGeometry>,
}

#[derive(Debug, Clone, Copy)]
struct Projectile {
    owner: ConnectionId,
    ticks_left: u32,
}

/// The client: network, ghosts, prediction, datablocks.
struct Client {
    driver: NetDriver<Port>,
    server: ConnectionId,
    scene: ClientScene,
    gcon: ClientGameConnection,
    blocks: ClientDataBlocks,
    block_class: BTreeMap<u32, String>,
    connected: bool,
    accepted: bool,
    time_ms: u64,
    tick: u64,
    started_ms: u64,
    /// Are the nearest players updated in every server packet?
    coverage: UpdateCoverage,
    /// Server data packets received so far (for [`Self::coverage`]).
    data_seen: u64,
    /// The world the server's terrain and building ghosts build here.
    world: MissionHandle,
    world_ghosts: WorldGhosts,
    ground: Rc<dyn StaticGeometry>,
}

impl Client {
    /// The movement rules with the world received so far.
    fn motion(&self) -> Motion {
        motion(crate::mission::loaded_ground(&self.world, &self.ground))
    }
}

/// How many of the nearest players the coverage figure watches.
pub const NEAREST_PLAYERS: usize = 8;
/// Coverage is counted from this long after `connect` (ms).
pub const COVERAGE_WARMUP_MS: u64 = 3000;

/// Shared between script functions and the loop.
#[derive(Default)]
struct Shared {
    requests: Vec<Request>,
    world: Option<SceneWorld>,
    /// Scene object → the connection controlling it (set by `spawnPlayer`).
    control: BTreeMap<u32, u32>,
    /// Control objects the script moved (their client needs the full state).
    moved: Vec<u32>,
    /// The match is over and the world settled (`freezeWorld()`).
    frozen: bool,
    /// `ghostCheck()` waits for every client to hold the settled world, until this time.
    ghost_check_by: Option<u64>,
    /// Since when no ghost change has been in flight (while a check waits).
    ghost_settled_since: Option<u64>,
    /// The mission's ground (set with the server), where `spawnSceneObject` places objects.
    ground: Option<Rc<dyn StaticGeometry>>,
}

/// Longest wait of `ghostCheck()` for the ghost traffic to settle (ms).
const GHOST_CHECK_WAIT_MS: u64 = 4000;
/// How long the ghost traffic must have been quiet before the check (ms): over a round trip.
const GHOST_QUIET_MS: u64 = 600;

/// The game's movement rules, shared by the server, the bots' prediction and the window client:
/// on the mission's ground with gravity once there is one (`None` before a client has the
/// world: the flat arena).
pub fn motion(ground: Option<Rc<dyn StaticGeometry>>) -> Motion {
    let gravity = if ground.is_some() { 20.0 } else { 0.0 };
    Motion { max_speed: 8.0, damping: 0.8, arena_half: 50.0, gravity, ground, ..Motion::default() }
}

/// The game's event and ghost classes, in the order every endpoint must register them.
pub fn registries() -> (Arc<NetClassRegistry>, Arc<GhostClassRegistry>) {
    let mut b = NetClassRegistryBuilder::new();
    gc::register_events(&mut b);
    b.register::<DataBlockEvent>()
        .register::<DataBlocksDoneEvent>()
        .register::<DataBlocksAckEvent>()
        .register::<RemoteCommandEvent>();
    let reg = Arc::new(b.build().expect("game event registry"));
    let ghosts = Arc::new(
        GhostClassRegistryBuilder::new()
            .register::<SceneObject>()
            .register::<v12_world::mission::WorldObjectGhost>()
            .build()
            .expect("ghost classes"),
    );
    (reg, ghosts)
}

fn pref_u32(con: &Console, name: &str, default: u32, min: u32, max: u32) -> u32 {
    let v = con.get_global(name);
    if v.is_empty() { default } else { (v.to_f64().max(0.0) as u32).clamp(min, max) }
}

/// `$Pref::Net::PacketRateToClient` (packets/s), `$Pref::Net::PacketRateToServer`,
/// `$Pref::Net::PacketSize` (bytes).
fn rate_from_prefs(con: &Console, to_client: bool) -> RateConfig {
    let to_c = pref_u32(con, "Pref::Net::PacketRateToClient", 10, 1, 128);
    let to_s = pref_u32(con, "Pref::Net::PacketRateToServer", 32, 1, 128);
    let size = pref_u32(con, "Pref::Net::PacketSize", 508, 100, 1400);
    let (send, recv) = if to_client { (to_c, to_s) } else { (to_s, to_c) };
    RateConfig { send_period_ms: 1000 / send, send_size: size, recv_period_ms: 1000 / recv, recv_size: size }
}

fn register_script_functions(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    crate::net_security::register(con);
    let sh = shared.clone();
    con.register_function("createServer", 2, 2, "createServer(port)", move |_c, a| {
        sh.borrow_mut().requests.push(Request::CreateServer(a.f64(0).clamp(0.0, 65535.0) as u16));
        Value::Empty
    });
    let sh = shared.clone();
    con.register_function("destroyServer", 1, 1, "destroyServer()", move |_c, _a| {
        sh.borrow_mut().requests.push(Request::DestroyServer);
        Value::Empty
    });
    let sh = shared.clone();
    con.register_function("connect", 2, 0, "connect(address, args...)", move |_c, a| {
        let args = a.argv.iter().skip(1).map(|v| v.as_text().into_owned()).collect();
        sh.borrow_mut().requests.push(Request::Connect(a.str(0).into_owned(), args));
        Value::Empty
    });
    let sh = shared.clone();
    con.register_function("disconnect", 1, 1, "disconnect()", move |_c, _a| {
        sh.borrow_mut().requests.push(Request::Disconnect);
        Value::Empty
    });
    // Scene functions for the server's scripts.
    let sh = shared.clone();
    con.register_function("spawnSceneObject", 4, 4, "spawnSceneObject(datablock, x, y)", move |c, a| {
        let Some(db) = c.find_object(&a.get(0)) else { return Value::from(-1) };
        let mut s = sh.borrow_mut();
        let (x, y) = (a.f64(1) as f32, a.f64(2) as f32);
        let z = crate::mission::ground_height(s.ground.as_ref(), x, y);
        let Some(w) = s.world.as_mut() else { return Value::from(-1) };
        let mut o = SceneObject::new(db, Vec3::new(x, y, z));
        o.health = 100;
        Value::from(w.add(o))
    });
    for (name, req, usage) in [
        (
            "freezeWorld",
            0,
            "freezeWorld() - the match is over: every object settles for the ghost-state check",
        ),
        ("ghostCheck", 1, "ghostCheck() - print the server's ghost-state hash for each client"),
        ("clientGhostCheck", 2, "clientGhostCheck() - print this client's hash of the ghosts it received"),
    ] {
        let sh = shared.clone();
        con.register_function(name, 1, 1, usage, move |_c, _a| {
            sh.borrow_mut().requests.push(match req {
                0 => Request::FreezeWorld,
                1 => Request::ServerGhostCheck,
                _ => Request::ClientGhostCheck,
            });
            Value::Empty
        });
    }
    let sh = shared.clone();
    con.register_function("setControlObject", 3, 3, "setControlObject(client, sceneObject)", move |c, a| {
        let Some(client) = c.find_object(&a.get(0)) else { return false };
        let obj = a.f64(1) as u32;
        sh.borrow_mut().control.insert(obj, client);
        true
    });
    let sh = shared.clone();
    con.register_function("setObjectPosition", 4, 4, "setObjectPosition(obj, x, y)", move |_c, a| {
        let id = a.f64(0) as u32;
        let mut s = sh.borrow_mut();
        let frozen = s.frozen;
        let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(id)) else { return false };
        let st = ControlState { pos: Vec3::new(a.f64(1) as f32, a.f64(2) as f32, 0.0), ..o.state };
        o.set_state(st);
        if frozen {
            // A respawn after the match: onto the grid like everything else.
            o.settle();
        }
        s.moved.push(id);
        true
    });
    let sh = shared.clone();
    con.register_function("setHealth", 3, 3, "setHealth(obj, health)", move |_c, a| {
        let mut s = sh.borrow_mut();
        let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(a.f64(0) as u32)) else { return false };
        let f = o.flags;
        o.set_health_flags(a.f64(1).clamp(0.0, 255.0) as u8, f);
        true
    });
    let sh = shared.clone();
    con.register_function("getHealth", 2, 2, "getHealth(obj)", move |_c, a| {
        let s = sh.borrow();
        s.world
            .as_ref()
            .and_then(|w| w.get(a.f64(0) as u32))
            .map_or(Value::from(0), |o| Value::from(u32::from(o.health)))
    });
    let sh = shared.clone();
    con.register_function("setHidden", 3, 3, "setHidden(obj, bool)", move |_c, a| {
        let mut s = sh.borrow_mut();
        let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(a.f64(0) as u32)) else { return false };
        let flags = if a.bool(1) { o.flags | HIDDEN } else { o.flags & !HIDDEN };
        let h = o.health;
        o.set_health_flags(h, flags);
        true
    });
    let sh = shared.clone();
    con.register_function("isHidden", 2, 2, "isHidden(obj)", move |_c, a| {
        let s = sh.borrow();
        s.world.as_ref().and_then(|w| w.get(a.f64(0) as u32)).is_some_and(|o| o.flags & HIDDEN != 0)
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

/// The address a client binds to reach `server`.
fn client_bind_ip(server: SocketAddr) -> std::net::IpAddr {
    match server.ip() {
        ip if ip.is_loopback() => ip,
        std::net::IpAddr::V4(_) => std::net::Ipv4Addr::UNSPECIFIED.into(),
        std::net::IpAddr::V6(_) => std::net::Ipv6Addr::UNSPECIFIED.into(),
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
    register_script_functions(&mut con, &shared);
    let mut telnet = v12_sim::telnet::TelnetServer::register(&mut con);
    let mut tcp_objects = v12_sim::tcp_object::TcpObjects::register(&mut con);
    let directory = crate::browser::ServerDirectory::register(&mut con);
    let browser = crate::browser::ServerBrowser::register(&mut con);
    if cfg.dedicated || cfg.connect.is_none() {
        // The game's Rust datablock classes; a pure client learns them from the server.
        let _ = con.register_class("PlayerData", "SimDataBlock");
        let _ = con.register_class("ItemData", "SimDataBlock");
    }
    con.set_global("Game::argc", cfg.script_args.len() as i64);
    for (i, a) in cfg.script_args.iter().enumerate() {
        con.set_global(&format!("Game::argv{i}"), a.as_str());
    }
    con.set_global("Game::dedicated", cfg.dedicated);
    if let Err(e) = con.exec_file("main.cs") {
        eprintln!("v12: {e}");
        return Ok(1);
    }
    for f in &cfg.exec {
        if let Err(e) = con.exec_file(f) {
            eprintln!("v12: {e}");
        }
    }
    if let Some(addr) = &cfg.connect {
        // The server named on the command line, for scripts that join again.
        con.set_global("Game::ServerAddress", addr.as_str());
        let name = con.get_global("Pref::Player::Name").as_text().into_owned();
        shared.borrow_mut().requests.push(Request::Connect(addr.clone(), vec![name]));
    }
    let (reg, ghosts) = registries();
    let clock = SystemClock::new();
    let mut server: Option<Server> = None;
    let mut client: Option<Client> = None;
    let mut last_frame = clock.now_ms();
    let mut last_status = last_frame;
    let mut bytes_at_status = (0u64, 0u64);
    let bind_port = |seed: u64, ip: std::net::IpAddr, port: u16| -> io::Result<Port> {
        let link = cfg.link.unwrap_or_default();
        Ok(LinkConditioner::new(UdpTransport::bind(NetAddress::new(ip, port))?, link, seed))
    };

    loop {
        // Apply what scripts asked for, in order.
        let reqs = std::mem::take(&mut shared.borrow_mut().requests);
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
                        crate::net_loop::entropy(cfg.seed, 0),
                    );
                    iface.set_ghost_classes(ghosts.clone());
                    let driver = NetDriver::new(iface, bind_port(cfg.seed, server_bind_ip(&mut con), port)?);
                    let addr = driver.transport.local_addr();
                    println!("LISTENING {}", addr.socket_addr());
                    // The port actually bound (`createServer(0)` picks a free one), for a
                    // listen server's own `connect`; and `ClientGroup` before anyone joins.
                    con.set_global("Server::Port", i64::from(addr.socket_addr().port()));
                    if con.find_object_str("ClientGroup").is_none() {
                        let _ = con.create_object("SimGroup", Some("ClientGroup"));
                    }
                    shared.borrow_mut().world = Some(SceneWorld::new(60.0));
                    shared.borrow_mut().ground = Some(MissionWorld::ground(&mission));
                    server = Some(Server {
                        driver,
                        clients: BTreeMap::new(),
                        projectiles: BTreeMap::new(),
                        cooldown: BTreeMap::new(),
                        tick_us_total: 0,
                        ticks: 0,
                        time_ms: now,
                        no_ghosts: GhostArena::new(),
                        world_ghosts: Vec::new(),
                        ground: MissionWorld::ground(&mission),
                    });
                    directory.server_started(&con);
                    con.call_function("onServerCreated", &[]);
                }
                Request::DestroyServer => {
                    if let Some(mut s) = server.take() {
                        directory.shutdown(&mut s.driver.interface);
                        for id in s.driver.interface.connection_ids() {
                            s.driver.interface.disconnect(id, "server shut down");
                            gc::server_connection_dropped(&mut con, &remote, id, "server shut down");
                        }
                        let _ = s.driver.pump(now, &NoObjects, &mut s.no_ghosts);
                    }
                    shared.borrow_mut().world = None;
                }
                Request::Connect(addr, args) => {
                    let Ok(sock) = addr.parse::<SocketAddr>() else {
                        con.warn(&format!("connect: bad address {addr}"));
                        continue;
                    };
                    let security = crate::net_security::encryption(&con)
                        .and_then(|e| Ok((e, crate::net_security::client_token(&con)?)));
                    let (encryption, token) = match security {
                        Ok(s) => s,
                        Err(e) => {
                            con.error(&format!("connect: {e}"));
                            continue;
                        }
                    };
                    gc::client_create_server_connection(&mut con).map_err(io::Error::other)?;
                    let mut iface = NetInterface::new(
                        InterfaceConfig {
                            client_rate: rate_from_prefs(&con, false),
                            encryption,
                            ..Default::default()
                        },
                        reg.clone(),
                        crate::net_loop::entropy(cfg.seed, 0x55),
                    );
                    iface.set_ghost_classes(ghosts.clone());
                    let data = gc::encode_connect_args(&args).into();
                    let to = match token {
                        Some(t) => iface.connect_with_token(now, sock, data, t),
                        None => iface.connect(now, sock, data),
                    };
                    // The client's own world, built from the server's world ghosts and this
                    // game's files (one instance of each with a listen server's).
                    let client_world = MissionWorld::new(
                        resources.clone(),
                        Rc::new(RefCell::new(v12_sim::container::ScriptContainer::default())),
                    );
                    client = Some(Client {
                        // Loopback for a server on this machine; any interface otherwise.
                        driver: NetDriver::new(iface, bind_port(cfg.seed ^ 0x77, client_bind_ip(sock), 0)?),
                        server: to,
                        scene: ClientScene::new(),
                        gcon: ClientGameConnection::new(),
                        blocks: ClientDataBlocks::new(),
                        block_class: BTreeMap::new(),
                        connected: false,
                        accepted: false,
                        time_ms: now,
                        tick: 0,
                        started_ms: now,
                        coverage: UpdateCoverage::new(),
                        data_seen: 0,
                        world: client_world.clone(),
                        world_ghosts: WorldGhosts::new(client_world.clone()),
                        ground: MissionWorld::ground(&client_world),
                    });
                }
                Request::Disconnect => {
                    if let Some(mut c) = client.take() {
                        c.driver.interface.disconnect(c.server, "disconnected");
                        let _ = c.driver.pump(
                            now,
                            &NoObjects,
                            &mut ClientGhosts { scene: &mut c.scene, world: &mut c.world_ghosts },
                        );
                    }
                }
                Request::FreezeWorld => {
                    if let Some(s) = &mut server {
                        freeze_world(s, &mut shared.borrow_mut());
                    }
                }
                Request::ServerGhostCheck => {
                    shared.borrow_mut().ghost_check_by = Some(now + GHOST_CHECK_WAIT_MS);
                }
                Request::ClientGhostCheck => {
                    if let Some(c) = &client {
                        let skip = control_local(c);
                        let (hash, n) = settled_state_hash(
                            c.scene.iter().filter(|(id, _)| Some(*id) != skip).map(|(_, g)| g),
                        );
                        println!("GHOSTHASH hash={hash:016x} ghosts={n}");
                    }
                }
            }
        }
        if con.quit_requested() {
            break;
        }

        let now = clock.now_ms();
        let dt = now.saturating_sub(last_frame);
        last_frame = now;

        // 1. Server process: whole ticks only.
        if let Some(s) = &mut server {
            while s.time_ms + u64::from(TICK_MS) <= now {
                s.time_ms += u64::from(TICK_MS);
                let t0 = Instant::now();
                let events = server_tick(s, &mut shared.borrow_mut());
                s.tick_us_total += t0.elapsed().as_micros();
                s.ticks += 1;
                run_game_events(&mut con, &events);
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
                server_ghost_check(&con, &remote, s, &shared.borrow());
                con.call_function("onGhostCheck", &[]);
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
            remote.flush_to_clients(&mut s.driver.interface);
            {
                let sh = shared.borrow();
                if let Some(w) = sh.world.as_ref() {
                    for g in s.clients.values_mut() {
                        let _ = g.post_control(now, &mut s.driver.interface, w);
                    }
                    if s.world_ghosts.len() != crate::mission::object_count(&mission) {
                        s.world_ghosts = crate::mission::world_ghosts(&mission);
                    }
                    let world = mission.borrow();
                    let objects =
                        ServerObjects { scene: w, world: &s.world_ghosts, zones: Some(&world.scene) };
                    s.driver.pump(now, &objects, &mut s.no_ghosts)?;
                }
            }
            let mut evs = Vec::new();
            while let Some(ev) = s.driver.interface.poll_event() {
                evs.push(ev);
            }
            for ev in evs {
                server_net_event(&mut con, &remote, s, &shared, ev);
            }
            // Info queries on the game port, and heartbeats to the masters.
            directory.pump(&con, &mut s.driver.interface, now, s.clients.len());
        }
        browser.pump(&mut con);
        // The remote console (telnetSetParameters): its lines run between the frame's steps.
        telnet.pump(&mut con, now);
        // TCPObject / HTTPObject connections: their callbacks run here.
        tcp_objects.pump(&mut con);

        // 3. Sim::advanceTime: scheduled script events.
        con.advance_time(dt);

        // 4. Client process and 5. client net.
        if let Some(c) = &mut client {
            let m = c.motion();
            while c.time_ms + u64::from(TICK_MS) <= now {
                c.time_ms += u64::from(TICK_MS);
                c.tick += 1;
                let input =
                    if con.get_global("Game::bot").truthy() && !con.get_global("Game::frozen").truthy() {
                        bot_input(c)
                    } else {
                        Move::from_input(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false; 6])
                    };
                c.gcon.process_tick(input, &m);
                if c.connected {
                    let _ = c.gcon.post_moves(&mut c.driver.interface, c.server);
                }
                let skip = control_local(c);
                c.scene.interpolate(TICK_MS, skip);
            }
            if c.connected {
                let _ = remote.flush_to_server(&mut c.driver.interface, c.server);
            }
            c.driver.pump(
                now,
                &NoObjects,
                &mut ClientGhosts { scene: &mut c.scene, world: &mut c.world_ghosts },
            )?;
            // Past the joining burst (datablocks, every ghost's create), count coverage.
            observe_coverage(c, now >= c.started_ms + COVERAGE_WARMUP_MS);
            let mut evs = Vec::new();
            while let Some(ev) = c.driver.interface.poll_event() {
                evs.push(ev);
            }
            let mut ended = false;
            for ev in evs {
                ended |= client_net_event(&mut con, &remote, c, ev);
            }
            if ended {
                client = None;
            }
        }
        // 6. Render: nothing here (headless). 7. Timeouts ran inside each driver's pump.

        if now.saturating_sub(last_status) >= 1000 {
            let secs = (now - last_status) as f64 / 1000.0;
            last_status = now;
            if let Some(s) = &server {
                let n = s.clients.len().max(1) as f64;
                let st = s.driver.stats();
                let kbps = (st.bytes_out - bytes_at_status.0) as f64 * 8.0 / 1000.0 / secs / n;
                bytes_at_status.0 = st.bytes_out;
                let tick_us = if s.ticks > 0 { s.tick_us_total as f64 / s.ticks as f64 } else { 0.0 };
                // Ghost updates that wanted a packet and did not fit (all connections, so far).
                let (mut skips, mut updates) = (0u64, 0u64);
                for id in s.driver.interface.connection_ids() {
                    if let Some(g) = s.driver.interface.ghost_manager(id) {
                        skips += g.stats().skips;
                        updates += g.stats().updates_sent;
                    }
                }
                println!(
                    "STATUS players={} tick_us={tick_us:.0} kbps_per_client={kbps:.1} ghost_updates={updates} \
                     ghost_skips={skips}",
                    s.clients.len()
                );
            }
            // Once the match is over the world stands still for the ghost check: the play
            // figures (staleness, coverage, corrections) stop where the play stopped.
            if let Some(c) = client.as_ref().filter(|_| !con.get_global("Game::frozen").truthy()) {
                let st = c.driver.stats();
                let kbps = (st.bytes_in - bytes_at_status.1) as f64 * 8.0 / 1000.0 / secs;
                bytes_at_status.1 = st.bytes_in;
                let rtt = c.driver.interface.connection(c.server).map_or(0.0, |k| k.rtt_ms());
                let mins = (now - c.started_ms) as f64 / 60_000.0;
                let cpm = if mins > 0.0 { c.gcon.stats.corrections as f64 / mins } else { 0.0 };
                println!(
                    "CLIENT rtt_ms={rtt:.0} kbps_in={kbps:.1} corrections_per_min={cpm:.1} staleness_ms={} ghosts={} \
                     nearby_updated_pct={:.1}",
                    worst_player_staleness(c),
                    c.scene.len(),
                    c.coverage.ratio() * 100.0
                );
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    if let Some(s) = &mut server {
        directory.shutdown(&mut s.driver.interface);
        let _ = s.driver.pump(clock.now_ms(), &NoObjects, &mut s.no_ghosts);
    }
    println!("SCOREBOARD {}", con.get_global("Scoreboard").as_text());
    if let Some(c) = &client {
        println!("FINAL corrections={} staleness_ms={}", c.gcon.stats.corrections, worst_player_staleness(c));
    }
    Ok(0)
}

fn control_local(c: &Client) -> Option<ObjectId> {
    let g = c.gcon.control_ghost()?;
    c.driver.interface.ghost_receiver(c.server)?.object_of(g)
}

/// Counts, for the nearest visible players, the server packets that updated them.
fn observe_coverage(c: &mut Client, counting: bool) {
    let Some(k) = c.driver.interface.connection(c.server) else { return };
    let data = k.protocol().stats().data_received;
    let fresh = if counting { data.saturating_sub(c.data_seen) } else { 0 };
    c.data_seen = data;
    let Some(me) = c.gcon.predicted().map(|s| s.pos) else { return };
    let skip = control_local(c);
    let blocks = &c.block_class;
    c.coverage.observe(&c.scene, me, NEAREST_PLAYERS, fresh, |id, g| {
        Some(id) != skip
            && g.flags & HIDDEN == 0
            && blocks.get(&g.datablock).is_some_and(|k| k == "PlayerData")
    });
}

fn worst_player_staleness(c: &Client) -> u32 {
    let skip = control_local(c);
    c.scene
        .iter()
        .filter(|(id, g)| {
            Some(*id) != skip && c.block_class.get(&g.datablock).is_some_and(|k| k == "PlayerData")
        })
        .map(|(_, g)| g.since_update_ms)
        .max()
        .unwrap_or(0)
}

/// What the Rust half of a server tick reports to scripts.
#[derive(Debug)]
enum GameEvent {
    Pickup { client: u32, item: u32 },
    Hit { shooter: u32, victim: u32 },
}

/// The match is over: projectiles go, every object settles on the grid (their clients'
/// predictions get the full state), and from now on moves move nothing.
fn freeze_world(s: &mut Server, sh: &mut Shared) {
    sh.frozen = true;
    let Some(world) = sh.world.as_mut() else { return };
    for id in std::mem::take(&mut s.projectiles).into_keys() {
        world.remove(id);
    }
    for (_, o) in world.iter_mut() {
        o.settle();
    }
    sh.moved.extend(sh.control.keys().copied());
}

/// True when every client holds every object in its scope as it is now: nothing dirty,
/// no create, update or kill waiting for its acknowledgement.
fn ghosts_settled(s: &Server, sh: &Shared) -> bool {
    let Some(world) = sh.world.as_ref() else { return true };
    s.clients.keys().all(|conn| {
        let Some(gm) = s.driver.interface.ghost_manager(*conn) else { return true };
        let known = world.iter().filter(|(id, _)| gm.has_been_transmitted(ObjectId(*id))).count()
            + (0..s.world_ghosts.len())
                .filter(|i| gm.has_been_transmitted(ObjectId(crate::mission::WORLD_ID_BASE + *i as u32)))
                .count();
        !gm.has_data_to_send()
            && known == gm.ghost_count()
            && world.iter().all(|(id, _)| gm.dirty_mask(ObjectId(id)).is_none_or(|d| d == 0))
    })
}

/// Prints, for each client, the hash of the settled states of the objects ghosted to it
/// (its own control object aside: the client predicts that one).
fn server_ghost_check(con: &Console, remote: &RemoteCommands, s: &Server, sh: &Shared) {
    let Some(world) = sh.world.as_ref() else { return };
    for (conn, g) in &s.clients {
        let Some(gm) = s.driver.interface.ghost_manager(*conn) else { continue };
        let own = g.control_object();
        let (hash, n) = settled_state_hash(
            world
                .iter()
                .filter(|(id, _)| Some(*id) != own && gm.has_been_transmitted(ObjectId(*id)))
                .map(|(_, o)| o),
        );
        let name = remote
            .client_object(*conn)
            .map(|o| con.get_field(o, "name").as_text().into_owned())
            .unwrap_or_default();
        println!("GHOSTHASH name={name} hash={hash:016x} ghosts={n}");
    }
}

fn server_tick(s: &mut Server, sh: &mut Shared) -> Vec<GameEvent> {
    let m = motion(Some(s.ground.clone()));
    let mut out = Vec::new();
    let control = sh.control.clone();
    let Some(world) = sh.world.as_mut() else { return out };
    // Control objects: apply the clients' moves; trigger 0 throws a projectile.
    let mut throws = Vec::new();
    let frozen = sh.frozen;
    for (conn, g) in &mut s.clients {
        if frozen {
            // The moves are taken (acknowledged) but change nothing.
            let held = g.control_object().and_then(|p| world.get(p).map(|o| (p, o.state)));
            let _ = g.process_tick(world, &m);
            if let Some((p, st)) = held
                && let Some(o) = world.get_mut(p)
            {
                o.set_state(st);
            }
            continue;
        }
        let moves = g.process_tick(world, &m);
        if let Some(p) = g.control_object() {
            let cd = s.cooldown.entry(p).or_insert(0);
            *cd = cd.saturating_sub(1);
            if moves.iter().any(|mv| mv.triggers[0]) && *cd == 0 {
                *cd = 15;
                throws.push((*conn, p));
            }
        }
    }
    for (conn, p) in throws {
        let Some(o) = world.get(p) else { continue };
        if o.flags & HIDDEN != 0 {
            continue;
        }
        let (sn, cs) = o.state.yaw.sin_cos();
        let dir = Vec3::new(-sn, cs, 0.0);
        let mut proj = SceneObject::new(0, o.state.pos + dir * 1.2);
        proj.state.vel = dir * 25.0;
        proj.state.yaw = o.state.yaw;
        let id = world.add(proj);
        s.projectiles.insert(id, Projectile { owner: conn, ticks_left: 40 });
    }
    // Projectiles fly, hit players, and stop at walls.
    let players: Vec<(u32, u32, Vec3)> = control
        .iter()
        .filter_map(|(obj, client)| {
            world.get(*obj).filter(|o| o.flags & HIDDEN == 0).map(|o| (*obj, *client, o.state.pos))
        })
        .collect();
    let ids: Vec<u32> = s.projectiles.keys().copied().collect();
    for id in ids {
        let Some(p) = s.projectiles.get_mut(&id) else { continue };
        p.ticks_left = p.ticks_left.saturating_sub(1);
        let owner = p.owner;
        let expired = p.ticks_left == 0;
        let Some(o) = world.get_mut(id) else { continue };
        // Straight flight: clients extrapolate it from the create, so it is not re-sent.
        let before = o.state.pos;
        o.advance_unsent(TICK_SECONDS);
        let st = o.state;
        // A wall or the ground in the way stops it (the mission's building, its terrain).
        let blocked = s.ground.cast_ray(before, st.pos).is_some();
        let owner_obj = s.clients.get(&owner).and_then(|g| g.control_object());
        let hit = players.iter().find(|(obj, _, pos)| Some(*obj) != owner_obj && pos.distance(st.pos) < 1.2);
        if let Some((obj, victim, _)) = hit {
            let shooter = owner_obj.and_then(|ob| control.get(&ob).copied()).unwrap_or(0);
            out.push(GameEvent::Hit { shooter, victim: *victim });
            let _ = obj;
        }
        if hit.is_some() || blocked || expired || st.pos.x.abs() > 60.0 || st.pos.y.abs() > 60.0 {
            s.projectiles.remove(&id);
            world.remove(id);
        }
    }
    // Pickups: items are objects with a datablock that nobody controls and that are not projectiles.
    let items: Vec<(u32, Vec3)> = world
        .iter()
        .filter(|(id, o)| {
            o.flags & HIDDEN == 0
                && !control.contains_key(id)
                && !s.projectiles.contains_key(id)
                && o.datablock != 0
        })
        .map(|(id, o)| (id, o.state.pos))
        .collect();
    for (_, client, pos) in &players {
        for (item, ipos) in &items {
            if pos.distance(*ipos) < 1.5 {
                out.push(GameEvent::Pickup { client: *client, item: *item });
            }
        }
    }
    out
}

fn run_game_events(con: &mut Console, events: &[GameEvent]) {
    for e in events {
        match e {
            GameEvent::Pickup { client, item } => {
                con.call_callback("onItemPickup", &[Value::from(*client), Value::from(*item)]);
            }
            GameEvent::Hit { shooter, victim } => {
                con.call_callback("onProjectileHit", &[Value::from(*shooter), Value::from(*victim)]);
            }
        }
    }
}

fn server_net_event(
    con: &mut Console,
    remote: &RemoteCommands,
    s: &mut Server,
    shared: &Rc<RefCell<Shared>>,
    ev: InterfaceEvent,
) {
    match ev {
        InterfaceEvent::Connected { connection, addr, connect_data, .. } => {
            let _ = s.driver.interface.set_rate(connection, rate_from_prefs(con, true));
            let args = gc::decode_connect_args(&connect_data);
            match gc::server_connection_arrived(
                con,
                remote,
                &mut s.driver.interface,
                connection,
                &addr.to_string(),
                &args,
            ) {
                Ok(Some(client)) => {
                    // What scripts may ask of the connection's security.
                    if let Some(c) = s.driver.interface.connection(connection) {
                        con.set_field(client, "encrypted", i64::from(c.is_encrypted()));
                        if let Some(t) = c.connect_token() {
                            con.set_field(client, "connectTokenId", t.client_id.to_string());
                            let data = String::from_utf8_lossy(&t.user_data).into_owned();
                            con.set_field(client, "connectTokenData", data);
                        }
                    }
                    let mut g = ServerGameConnection::new(connection);
                    let ctl = shared.borrow().control.iter().find(|(_, c)| **c == client).map(|(o, _)| *o);
                    g.set_control_object(ctl);
                    s.clients.insert(connection, g);
                    let _ = send_datablocks(con, &mut s.driver.interface, connection);
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(%e, "connection refused"),
            }
        }
        InterfaceEvent::Disconnected { connection, reason, .. } => {
            if let Some(client) = remote.client_object(connection) {
                let mut sh = shared.borrow_mut();
                let objs: Vec<u32> =
                    sh.control.iter().filter(|(_, c)| **c == client).map(|(o, _)| *o).collect();
                for o in objs {
                    sh.control.remove(&o);
                    if let Some(w) = sh.world.as_mut() {
                        w.remove(o);
                    }
                }
            }
            s.clients.remove(&connection);
            gc::server_connection_dropped(con, remote, connection, &reason);
        }
        InterfaceEvent::ConnectFailed { .. } => {}
        InterfaceEvent::EventReceived { connection, event } => {
            if is_datablocks_ack(&*event) {
                // Once per connection; a repeat (or an ack from no game connection) is a
                // protocol error for that connection only.
                let step = match s.clients.get_mut(&connection) {
                    Some(g) => g.accept_datablocks_ack(),
                    None => Err("protocol error: datablocks ack before the game connection"),
                };
                if let Err(reason) = step {
                    tracing::warn!(%connection, reason, "dropping a client");
                    s.driver.interface.disconnect(connection, reason);
                    return;
                }
                let _ = s.driver.interface.start_ghosting(connection);
                if let Some(client) = remote.client_object(connection) {
                    con.call_method_if_exists(client, "onDataBlocksDone", &[]);
                }
                // The script may have spawned the player now.
                let client = remote.client_object(connection);
                let ctl = shared.borrow().control.iter().find(|(_, c)| Some(**c) == client).map(|(o, _)| *o);
                if let Some(g) = s.clients.get_mut(&connection) {
                    g.set_control_object(ctl);
                }
            } else if let Some(g) = s.clients.get_mut(&connection)
                && g.handle_event(&*event)
            {
            } else {
                remote.handle_server_event(con, connection, &*event);
            }
        }
    }
}

/// Returns true when the connection ended.
fn client_net_event(con: &mut Console, remote: &RemoteCommands, c: &mut Client, ev: InterfaceEvent) -> bool {
    match ev {
        InterfaceEvent::Connected { .. } => {
            c.connected = true;
            false
        }
        InterfaceEvent::ConnectFailed { reason, .. } => {
            gc::client_connection_ended(con, &reason, false);
            true
        }
        InterfaceEvent::Disconnected { reason, .. } => {
            gc::client_connection_ended(con, &reason, c.accepted);
            true
        }
        InterfaceEvent::EventReceived { event, .. } => {
            if c.gcon.handle_event(&*event, &c.motion()) {
                return false;
            }
            if event.downcast_ref::<ConnectAcceptedEvent>().is_some() {
                c.accepted = true;
                gc::client_connection_accepted(con);
                return false;
            }
            if remote.handle_client_event(con, &*event) {
                return false;
            }
            match c.blocks.handle_event(con, &mut c.driver.interface, c.server, &*event) {
                Ok(DataBlockProgress::Built { server_id, local_id }) => {
                    c.scene.known_datablocks.insert(server_id);
                    c.block_class.insert(server_id, con.class_name_of(local_id));
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(%e, "bad datablock"),
            }
            false
        }
    }
}

/// The bot: head for the nearest visible item, turn towards players near the heading and
/// throw at them.
fn bot_input(c: &Client) -> Move {
    let Some(me) = c.gcon.predicted().copied() else {
        return Move::from_input(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false; 6]);
    };
    let skip = control_local(c);
    let class_of = |db: u32| c.block_class.get(&db).map_or("", String::as_str);
    let mut best_item: Option<(f32, Vec3)> = None;
    let mut best_player: Option<(f32, Vec3)> = None;
    for (id, g) in c.scene.iter() {
        if Some(id) == skip || g.flags & HIDDEN != 0 {
            continue;
        }
        let d = g.render_pos.distance(me.pos);
        let slot = match class_of(g.datablock) {
            "ItemData" => &mut best_item,
            "PlayerData" => &mut best_player,
            _ => continue,
        };
        if slot.is_none_or(|(bd, _)| d < bd) {
            *slot = Some((d, g.render_pos));
        }
    }
    let target = match (best_item, best_player) {
        (_, Some((d, p))) if d < 12.0 => Some(p),
        (Some((_, p)), _) => Some(p),
        (None, Some((_, p))) => Some(p),
        _ => None,
    };
    let Some(t) = target else {
        return Move::from_input(0.0, 1.0, 0.0, 0.05, 0.0, 0.0, [false; 6]);
    };
    let d = t - me.pos;
    let want = (-d.x).atan2(d.y);
    let mut turn = want - me.yaw;
    while turn > std::f32::consts::PI {
        turn -= std::f32::consts::TAU;
    }
    while turn < -std::f32::consts::PI {
        turn += std::f32::consts::TAU;
    }
    let turn = turn.clamp(-0.2, 0.2);
    let fire =
        best_player.is_some_and(|(dist, _)| dist < 15.0) && turn.abs() < 0.15 && c.tick.is_multiple_of(8);
    let mut trig = [false; 6];
    trig[0] = fire;
    Move::from_input(0.0, 1.0, 0.0, turn, 0.0, 0.0, trig)
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
