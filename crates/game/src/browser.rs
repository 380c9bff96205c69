//! The directory in the game: the server browser's script functions (`queryMasterServer`,
//! `queryLanServers`, `querySingleServer`, `getServerCount`, `setServerInfo`,
//! `cancelServerQuery`) and the game server's presence (`startHeartbeat`, `stopHeartbeat`,
//! and answers to info queries on the game port), on top of `v12-master`'s sans-IO parts.
//!
//! Console variables, as Torque named them: `$Pref::Master0` .. `$Pref::Master7` (the
//! masters, `"addr:port"`, a Torque-style `"2:"` region prefix is allowed),
//! `$Pref::Server::Name`, `$Pref::Server::MaxPlayers`, `$Pref::Server::Password`,
//! `$Pref::Server::Region`, `$Server::MissionName`, `$Server::GameType`,
//! `$Pref::Agones::Address` (the Agones SDK sidecar, for a server in a fleet), and for the LAN
//! `$Pref::Net::LanBroadcast` (default `255.255.255.255`). The browser reports progress
//! through the script callback `onServerQueryStatus(status, message, count)` with
//! `status` one of `start`, `update`, `done`; `setServerInfo(i)` fills `$ServerInfo::*`.

use std::cell::RefCell;
use std::io::ErrorKind;
use std::net::{SocketAddr, ToSocketAddrs};
use std::rc::Rc;
use tracing::{info, warn};
use v12_console_vm::{Console, Value};
use v12_master::agones::{AgonesSdk, AgonesWorker, Call};
use v12_master::info::ANY_REGION;
use v12_master::token::random_nonce;
use v12_master::wire::answer_info_request;
use v12_master::{Filter, QueryConfig, Registrar, RegistrarConfig, ServerEntry, ServerInfo, ServerQuery};
use v12_netobject::NetInterface;
use v12_platform::{Clock, NetAddress, SystemClock, Transport, UdpTransport};

/// Protocol version the example game announces (browsers filter on it).
pub const GAME_VERSION: u32 = 1;
/// Most masters read from `$Pref::Master0..7`.
const MAX_MASTERS: usize = 8;

/// Parses `"addr:port"` or Torque's `"region:addr:port"` (only IP literals and `localhost`:
/// the engine does no blocking DNS in its frame).
pub fn parse_master(text: &str) -> Option<SocketAddr> {
    let t = text.trim();
    if let Ok(a) = t.parse() {
        return Some(a);
    }
    let rest = t.split_once(':').filter(|(r, _)| r.chars().all(|c| c.is_ascii_digit())).map(|(_, r)| r)?;
    rest.parse().ok().or_else(|| {
        rest.strip_prefix("localhost:")
            .and_then(|p| ("127.0.0.1", p.parse::<u16>().ok()?).to_socket_addrs().ok()?.next())
    })
}

/// The masters named in `$Pref::Master0..7`.
pub fn masters(con: &Console) -> Vec<SocketAddr> {
    (0..MAX_MASTERS)
        .filter_map(|i| {
            let t = con.get_global(&format!("Pref::Master{i}")).as_text().into_owned();
            if t.trim().is_empty() {
                return None;
            }
            let a = parse_master(&t);
            if a.is_none() {
                warn!(master = %t, "ignoring a master address that is not ip:port");
            }
            a
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The game server's side.

#[derive(Default)]
struct DirectoryState {
    registrar: Option<Registrar>,
    stop: bool,
    agones: Option<AgonesWorker>,
    allocated: bool,
}

/// How often a server in an Agones fleet tells the SDK it is healthy.
const AGONES_HEALTH_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The game server's presence in the directory: answers info queries that reach its game
/// port, and heart-beats to the masters once a script called `startHeartbeat()`.
#[derive(Clone, Default)]
pub struct ServerDirectory {
    state: Rc<RefCell<DirectoryState>>,
}

impl std::fmt::Debug for ServerDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerDirectory").finish_non_exhaustive()
    }
}

impl ServerDirectory {
    /// Registers `startHeartbeat()` and `stopHeartbeat()`.
    pub fn register(con: &mut Console) -> Self {
        let dir = Self::default();
        let d = dir.clone();
        con.register_function("startHeartbeat", 1, 1, "startHeartbeat()", move |c, _a| {
            let list = masters(c);
            if list.is_empty() {
                c.warn("startHeartbeat: no master server in $Pref::Master0");
                return Value::from(false);
            }
            info!(masters = ?list, "heart-beating to the master servers");
            let cfg = RegistrarConfig { masters: list, ..RegistrarConfig::default() };
            let mut s = d.state.borrow_mut();
            s.registrar = Some(Registrar::new(cfg, random_nonce()));
            s.stop = false;
            Value::from(true)
        });
        let d = dir.clone();
        con.register_function("stopHeartbeat", 1, 1, "stopHeartbeat()", move |_c, _a| {
            d.state.borrow_mut().stop = true;
            Value::Empty
        });
        dir
    }

    /// The server is up: in an Agones fleet (`$Pref::Agones::Address`, or the
    /// `AGONES_SDK_HTTP_PORT` the sidecar sets) tell the SDK it is ready, and keep it told
    /// it is healthy.
    pub fn server_started(&self, con: &Console) {
        let text = con.get_global("Pref::Agones::Address").as_text().into_owned();
        let sdk = if !text.is_empty() {
            match parse_master(&text) {
                Some(a) => Some(AgonesSdk::new(a)),
                None => {
                    warn!(address = %text, "ignoring $Pref::Agones::Address: not ip:port");
                    None
                }
            }
        } else {
            std::env::var_os(v12_master::agones::PORT_ENV).map(|_| AgonesSdk::from_env())
        };
        if let Some(sdk) = sdk {
            info!(sdk = %sdk.addr(), "agones: ready");
            let w = AgonesWorker::spawn(sdk, AGONES_HEALTH_EVERY);
            w.call(Call::Ready);
            let mut s = self.state.borrow_mut();
            s.agones = Some(w);
            s.allocated = false;
        }
    }

    /// What the server says about itself now.
    pub fn server_info(con: &Console, players: usize) -> ServerInfo {
        let text = |n: &str| con.get_global(n).as_text().into_owned();
        let name = text("Pref::Server::Name");
        let max = con.get_global("Pref::Server::MaxPlayers").to_i32();
        let region = con.get_global("Pref::Server::Region").to_i32();
        ServerInfo {
            name: if name.is_empty() { "V12 Server".into() } else { name },
            mission: text("Server::MissionName"),
            game_type: text("Server::GameType"),
            players: players.min(usize::from(u16::MAX)) as u16,
            max_players: if max > 0 { max.min(i32::from(u16::MAX)) as u16 } else { 64 },
            bots: con.get_global("Server::BotCount").to_i32().clamp(0, i32::from(u16::MAX)) as u16,
            version: GAME_VERSION,
            password: !text("Pref::Server::Password").is_empty(),
            dedicated: con.get_global("Game::dedicated").truthy(),
            region: region.clamp(0, 254) as u8,
        }
    }

    /// Answers the info packets the interface received, consumes the masters' answers, and
    /// queues heartbeats (all sent from the game socket at the next pump).
    pub fn pump(&self, con: &Console, iface: &mut NetInterface, now: u64, players: usize) {
        let packets: Vec<_> = std::iter::from_fn(|| iface.poll_info_packet()).collect();
        let mut s = self.state.borrow_mut();
        // The info reads a dozen globals: only when someone asks or a master is told.
        let info = if packets.is_empty() && s.registrar.is_none() {
            ServerInfo::default()
        } else {
            Self::server_info(con, players)
        };
        // The first player makes the match allocated (a fleet must not scale it down).
        if players > 0 && !s.allocated {
            s.allocated = true;
            if let Some(w) = &s.agones {
                w.call(Call::Allocate);
            }
        }
        for (from, data) in packets {
            if s.registrar.as_mut().is_some_and(|r| r.handle_datagram(now, from, &data)) {
                continue;
            }
            if let Some(reply) = answer_info_request(&data, &info) {
                iface.send_info_packet(from, reply.into());
            }
        }
        if s.stop {
            s.stop = false;
            if let Some(mut r) = s.registrar.take() {
                r.goodbye();
                while let Some((to, d)) = r.poll_transmit() {
                    iface.send_info_packet(to, d.into());
                }
            }
        }
        if let Some(r) = s.registrar.as_mut() {
            r.poll(now, &info);
            while let Some((to, d)) = r.poll_transmit() {
                iface.send_info_packet(to, d.into());
            }
        }
    }

    /// Says goodbye to the masters and, in a fleet, shutdown to Agones (the server is going away).
    pub fn shutdown(&self, iface: &mut NetInterface) {
        if let Some(w) = self.state.borrow_mut().agones.take() {
            w.shutdown();
        }
        if let Some(mut r) = self.state.borrow_mut().registrar.take() {
            r.goodbye();
            while let Some((to, d)) = r.poll_transmit() {
                iface.send_info_packet(to, d.into());
            }
        }
    }

    /// Is the server listed by every master it heart-beats to?
    pub fn is_registered(&self) -> bool {
        let s = self.state.borrow();
        s.registrar.as_ref().is_some_and(|r| r.masters().all(|m| r.is_registered(m)))
    }
}

// ---------------------------------------------------------------------------------------
// The browser's side.

/// What a query reaches the outside through: its UDP port, its clock and its nonces. The
/// host gives journaled ones (`--journal-record` / `--journal-play` cover the browser too).
pub struct QueryIo {
    /// Opens the query's port (bound to any address, broadcast allowed) when a query starts.
    pub open: Box<dyn Fn() -> std::io::Result<crate::Port>>,
    pub clock: Box<dyn Clock>,
    /// A fresh query nonce.
    pub nonce: Box<dyn FnMut() -> u64>,
}

impl std::fmt::Debug for QueryIo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryIo").finish_non_exhaustive()
    }
}

impl QueryIo {
    /// A real UDP port, the system clock and random nonces.
    pub fn live() -> Self {
        QueryIo {
            open: Box::new(|| open_query_port().map(|u| Box::new(u) as crate::Port)),
            clock: Box::new(SystemClock::new()),
            nonce: Box::new(random_nonce),
        }
    }
}

/// A UDP port on any address that may send to a broadcast address (LAN queries).
pub fn open_query_port() -> std::io::Result<UdpTransport> {
    let port = UdpTransport::bind(NetAddress::from(SocketAddr::from(([0, 0, 0, 0], 0))))?;
    port.socket().set_broadcast(true)?;
    Ok(port)
}

struct BrowserState {
    io: QueryIo,
    socket: Option<crate::Port>,
    query: Option<ServerQuery>,
    rows: Vec<ServerEntry>,
    last_status: String,
    reported_done: bool,
    started: bool,
}

/// The server browser of a client console.
#[derive(Clone)]
pub struct ServerBrowser {
    state: Rc<RefCell<BrowserState>>,
}

impl std::fmt::Debug for ServerBrowser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBrowser").finish_non_exhaustive()
    }
}

/// Torque's `filterFlags` bit for "no passworded servers" (and `Dedicated` is bit 0).
const FILTER_NO_PASSWORD: i32 = 1 << 1;

/// The filter of Torque's `queryMasterServer(lanPort, flags, gameType, missionType,
/// minPlayers, maxPlayers, maxBots, regionMask, maxPing, minCPU, filterFlags)` arguments.
fn filter_from_args(a: &v12_console_vm::CallArgs<'_>, first: usize) -> Filter {
    let game_type = a.str(first).into_owned();
    let region_mask = a.i32(first + 5);
    Filter {
        game_type: if game_type.eq_ignore_ascii_case("any") { String::new() } else { game_type },
        version: GAME_VERSION,
        // A mask naming one region filters on it; none or several: any.
        region: if region_mask > 0 && (region_mask & (region_mask - 1)) == 0 {
            region_mask.trailing_zeros() as u8
        } else {
            ANY_REGION
        },
        not_full: a.i32(first + 3) > 0 && a.len() > first + 3,
        not_empty: a.i32(first + 2) > 0,
        no_password: a.i32(first + 9) & FILTER_NO_PASSWORD != 0,
    }
}

impl ServerBrowser {
    /// Registers the browser's script functions; queries go out on a real UDP port.
    pub fn register(con: &mut Console) -> Self {
        Self::register_with(con, QueryIo::live())
    }

    /// Registers the browser's script functions; queries go through `io`.
    pub fn register_with(con: &mut Console, io: QueryIo) -> Self {
        let state = BrowserState {
            io,
            socket: None,
            query: None,
            rows: Vec::new(),
            last_status: String::new(),
            reported_done: false,
            started: false,
        };
        let b = Self { state: Rc::new(RefCell::new(state)) };
        let me = b.clone();
        con.register_function(
            "queryMasterServer",
            1,
            0,
            "queryMasterServer([lanPort, flags, gameType, missionType, minPlayers, maxPlayers, maxBots, regionMask, maxPing, minCPU, filterFlags])",
            move |c, a| {
                let masters = masters(c);
                if masters.is_empty() {
                    c.warn("queryMasterServer: no master server in $Pref::Master0");
                    return Value::from(false);
                }
                let filter = filter_from_args(a, 2);
                me.start(c, QueryConfig { masters, filter, ..QueryConfig::default() })
            },
        );
        let me = b.clone();
        con.register_function(
            "queryLanServers",
            2,
            0,
            "queryLanServers(port [, flags, gameType, ...])",
            move |c, a| {
                let port = a.f64(0).clamp(1.0, 65535.0) as u16;
                let bcast = c.get_global("Pref::Net::LanBroadcast").as_text().into_owned();
                let ip = if bcast.is_empty() { "255.255.255.255".to_string() } else { bcast };
                let Ok(to) = format!("{ip}:{port}").parse::<SocketAddr>() else {
                    c.warn(&format!("queryLanServers: bad $Pref::Net::LanBroadcast {ip}"));
                    return Value::from(false);
                };
                let mut filter = filter_from_args(a, 2);
                filter.version = GAME_VERSION;
                me.start(c, QueryConfig { direct: vec![to], filter, ..QueryConfig::default() })
            },
        );
        let me = b.clone();
        con.register_function("querySingleServer", 2, 2, "querySingleServer(address)", move |c, a| {
            let Some(to) = parse_master(&a.str(0)) else {
                c.warn(&format!("querySingleServer: bad address {}", a.str(0)));
                return Value::from(false);
            };
            me.start(c, QueryConfig { direct: vec![to], ..QueryConfig::default() })
        });
        let me = b.clone();
        con.register_function("cancelServerQuery", 1, 1, "cancelServerQuery()", move |_c, _a| {
            me.cancel();
            Value::Empty
        });
        let me = b.clone();
        con.register_function("stopServerQuery", 1, 1, "stopServerQuery()", move |_c, _a| {
            me.cancel();
            Value::Empty
        });
        let me = b.clone();
        con.register_function("getServerCount", 1, 1, "getServerCount()", move |_c, _a| {
            me.state.borrow().rows.len() as i64
        });
        let me = b.clone();
        con.register_function("setServerInfo", 2, 2, "setServerInfo(index)", move |c, a| {
            let s = me.state.borrow();
            let Some(e) = usize::try_from(a.i32(0)).ok().and_then(|i| s.rows.get(i)).cloned() else {
                return Value::from(false);
            };
            drop(s);
            set_server_info(c, &e);
            Value::from(true)
        });
        b
    }

    fn start(&self, con: &mut Console, config: QueryConfig) -> Value {
        let mut s = self.state.borrow_mut();
        if s.socket.is_none() {
            match (s.io.open)() {
                Ok(u) => s.socket = Some(u),
                Err(e) => {
                    drop(s);
                    con.warn(&format!("server query: cannot open a socket: {e}"));
                    return Value::from(false);
                }
            }
        }
        let now = s.io.clock.now_ms();
        let nonce = (s.io.nonce)();
        s.query = Some(ServerQuery::new(now, config, nonce));
        s.rows.clear();
        s.last_status.clear();
        s.reported_done = false;
        s.started = true;
        drop(s);
        con.call_function(
            "onServerQueryStatus",
            &[Value::from("start"), Value::from("Querying servers..."), Value::from(0)],
        );
        Value::from(true)
    }

    fn cancel(&self) {
        let mut s = self.state.borrow_mut();
        if let Some(q) = s.query.as_mut() {
            q.cancel();
        }
    }

    /// Is a query running?
    pub fn is_querying(&self) -> bool {
        let s = self.state.borrow();
        s.query.as_ref().is_some_and(|q| !q.is_done(s.io.clock.now_ms()))
    }

    /// Sends and receives the query's datagrams and tells the script how it goes. Call once
    /// a frame.
    pub fn pump(&self, con: &mut Console) {
        let mut s = self.state.borrow_mut();
        let BrowserState { io, socket: Some(sock), query: Some(q), .. } = &mut *s else { return };
        let now = io.clock.now_ms();
        let mut got = Vec::new();
        for _ in 0..512 {
            got.clear();
            match sock.recv_batch(now, &mut got) {
                Ok(0) => break,
                Ok(_) => got.iter().for_each(|d| {
                    q.handle_datagram(now, d.from.socket_addr(), &d.data);
                }),
                // ICMP port unreachable from a dead server, on some systems.
                Err(e) if e.kind() == ErrorKind::ConnectionReset => continue,
                Err(e) => {
                    warn!(error = %e, "server query: receive failed");
                    break;
                }
            }
        }
        q.poll(now);
        while let Some((to, d)) = q.poll_transmit() {
            if let Err(e) = sock.send_to(now, NetAddress::from(to), &d) {
                warn!(%to, error = %e, "server query: send failed");
            }
        }
        let rows: Vec<ServerEntry> = q.answered().into_iter().cloned().collect();
        let status = q.status(now);
        let done = q.is_done(now);
        let changed = status != s.last_status || rows.len() != s.rows.len();
        s.rows = rows;
        s.last_status = status.clone();
        let count = s.rows.len() as i64;
        let report_done = done && !s.reported_done;
        s.reported_done |= done;
        drop(s);
        if report_done {
            con.call_function(
                "onServerQueryStatus",
                &[Value::from("done"), Value::from(status), Value::from(count)],
            );
        } else if changed && !done {
            con.call_function(
                "onServerQueryStatus",
                &[Value::from("update"), Value::from(status), Value::from(count)],
            );
        }
    }
}

fn set_server_info(con: &mut Console, e: &ServerEntry) {
    let i = e.info.clone().unwrap_or_default();
    con.set_global("ServerInfo::Address", e.addr.to_string());
    con.set_global("ServerInfo::Name", i.name);
    con.set_global("ServerInfo::MissionName", i.mission);
    con.set_global("ServerInfo::GameType", i.game_type);
    con.set_global("ServerInfo::PlayerCount", i64::from(i.players));
    con.set_global("ServerInfo::MaxPlayers", i64::from(i.max_players));
    con.set_global("ServerInfo::BotCount", i64::from(i.bots));
    con.set_global("ServerInfo::Version", i64::from(i.version));
    con.set_global("ServerInfo::Password", i.password);
    con.set_global("ServerInfo::Dedicated", i.dedicated);
    con.set_global("ServerInfo::Region", i64::from(i.region));
    con.set_global("ServerInfo::Ping", e.ping_ms.map_or(-1, |p| p.min(i64::MAX as u64) as i64));
}

/// The server browser's outside world: live, or through the session's journal.
pub(crate) fn query_io(journal: Option<&crate::journal::SessionJournal>) -> QueryIo {
    let Some(j) = journal else { return QueryIo::live() };
    let (port_journal, nonce_journal) = (j.clone(), j.clone());
    QueryIo {
        open: Box::new(move || {
            let port: crate::Port = Box::new(open_query_port()?);
            Ok(port_journal.port(port))
        }),
        clock: Box::new(j.clone()),
        nonce: Box::new(move || {
            // The nonce is key material: recorded, and read back in a replay.
            let mut live = [0u8; 32];
            live[..8].copy_from_slice(&v12_master::token::random_nonce().to_le_bytes());
            let k = nonce_journal.keys(live);
            u64::from_le_bytes(k[..8].try_into().unwrap_or([0; 8]))
        }),
    }
}
