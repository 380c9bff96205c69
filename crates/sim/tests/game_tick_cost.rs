//! Server tick cost with N simulated clients in-process (sans-IO over the in-memory
//! loopback): moves in, control objects ticked, control events and ghost packets out.
//! Also the server's bytes and data packets per client, and whether the players nearest a
//! client are updated in every packet it receives.
//!
//! `small_match_honours_the_server_rate` runs by default (a check); the measurement is
//! ignored by default; run it with
//! `cargo test --release -p v12-sim --test game_tick_cost -- --ignored --nocapture`
//! (`CLIENTS=64,256` picks the counts, `ARENA=crowded|spread` one of the two scenes,
//! `THREADS=1,2` the packet threads, `SECONDS=12` a longer match than the 6 s default,
//! `AWAKE=16` the packet threads held awake over each tick, yielding their cores every 16
//! rounds; by default, and with `AWAKE=0`, they sleep between the passes of a tick;
//! `PHASES=1` prints the wall clock of each phase of the server's tick after the summary;
//! `PIN=0` leaves the packet threads unbound, where by default each is bound to a core of its
//! own).
//!
//! The tick's cost is the process's CPU time over the server's part of the tick (on Unix;
//! the wall clock elsewhere): what share of a core the server needs, which the wall clock
//! of a machine busy with other work would overstate.
//!
//! A counting allocator counts the allocations made in the server's part of the measured
//! ticks (all its threads; not the in-memory network's copy of each datagram, which on UDP
//! is the kernel's) and the heap the server holds per client (see
//! [`Figures::server_bytes_per_client`]).

#![allow(unsafe_code)] // the counting allocator

use glam::Vec3;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use v12_netobject::ghost::{GhostClassRegistryBuilder, GhostWorld, ObjectId};
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface, RateConfig};
use v12_platform::{MemoryNetwork, NetAddress, Transport, UdpTransport};
use v12_services::NetDriver;
use v12_sim::game_connection::{ClientGameConnection, ServerGameConnection, register_events};
use v12_sim::moves::Move;
use v12_sim::scene::{
    ClientScene, ControlState, Motion, SceneObject, SceneObjects, SceneWorld, UpdateCoverage,
};

/// Allocations (reallocations included) since the start, and live heap bytes.
static ALLOCS: AtomicU64 = AtomicU64::new(0);
/// Of those, the in-memory network's (its copy of each datagram sent, which on UDP is the
/// kernel's): not the server's.
static NETWORK_ALLOCS: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicIsize = AtomicIsize::new(0);

struct Counting;

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's layout contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator with `layout`; the contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The allocations so far, less the network's. Other tests of this binary allocate on their
/// own threads meanwhile (a send's count can take in theirs), so the figure is a measure, not
/// a ledger: it never goes below zero and a later read may be lower than an earlier one.
fn allocs() -> u64 {
    ALLOCS.load(Ordering::Relaxed).saturating_sub(NETWORK_ALLOCS.load(Ordering::Relaxed))
}

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// Held by each test of this binary for its whole run, so that no other test allocates on
/// another thread while one counts (the counters are the process's).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The scene of one measurement.
#[derive(Clone, Copy, Debug)]
struct Arena {
    clients: usize,
    /// Half the side of the square arena (m).
    half: f32,
    /// Scope radius (m).
    scope: f32,
    /// Simulated seconds (the second half is measured).
    seconds: u64,
    /// Threads the server builds its packets on (1: one after another).
    threads: usize,
    /// Hash every datagram the server sends.
    hash_sent: bool,
    /// After the run, seconds with every object settled (stopped on the hash grid) before
    /// each client's ghosts are compared with the server's objects (0: no check).
    settle_seconds: u64,
}

#[derive(Debug)]
struct Figures {
    /// CPU time of the server's part of a tick (all its threads).
    tick_us: f64,
    /// Wall-clock time of the same.
    wall_us: f64,
    /// The measured ticks' wall clock at the median, the 90th percentile and the most: the
    /// crowd's packets fall due together (its clients joined at once), so about every third
    /// tick builds most of them and the others few.
    wall_spread_us: [f64; 3],
    /// CPU time of the work outside the passes over the connections: the calling thread's
    /// over the same, and with packet threads the pumps' (the serial part of the tick; see
    /// [`server_tick`]).
    serial_us: f64,
    /// Every datagram the server sent, hashed in order.
    sent_hash: u64,
    /// Datagrams the server read on its packet threads.
    read_in_parallel: u64,
    /// Every client's ghosts ([`SceneObject::exact_hash`] summed over all clients).
    ghost_hash: u64,
    /// After the settle period: clients whose ghosts show what the server's objects show.
    ghosts_agree: Option<usize>,
    bytes_per_client: f64,
    packets_per_client: f64,
    /// Mean player ghosts on the observed clients.
    visible_players: f64,
    /// Nearest-8-players coverage over the observed clients.
    coverage: f64,
    /// Allocations in the server's part of a measured tick (all its threads).
    allocs_per_tick: f64,
    /// The heap the server side holds per client at the end of the run: live bytes once
    /// the clients are dropped, less those before the first client, over the client count
    /// (connections, ghost managers, the players' objects, the ghost frame).
    server_bytes_per_client: f64,
}

/// The server's rate to each client: the 5 KB/s as 10 packets a second of at most
/// 500 bytes (Torque3D's default is 508 bytes, 5,080 B/s), so a client gets at most 5,000
/// B/s whether "KB" means 1,000 or 1,024 bytes.
const CROWD_RATE: RateConfig = RateConfig { send_size: 500, ..RateConfig::SERVER };

/// With `PHASES=1`: the wall clock (ns) of each phase of the measured ticks: the game's
/// pass, setting the states, the four pumps; and the ticks counted.
static PHASES: Mutex<[u128; 7]> = Mutex::new([0; 7]);

/// `HASH=1`: hash every datagram the server sends and print it after the summary line, so
/// two builds can be shown to send the same bytes (the hashing is not the server's work, but
/// it runs inside the measured tick: leave it off when timing).
fn hash_on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("HASH").is_ok_and(|v| v != "0"))
}

fn phases_on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("PHASES").is_ok_and(|v| v != "0"))
}

/// Adds a tick's phase ends (`marks[0]` its start) to [`PHASES`].
fn add_phases(marks: &[Instant; 7]) {
    let mut p = PHASES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for i in 0..6 {
        p[i] += (marks[i + 1] - marks[i]).as_nanos();
    }
    p[6] += 1;
}

/// The phases' means since the last call, as a line (and starts them again).
fn take_phases() -> String {
    let mut p = PHASES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let n = p[6].max(1) as f64;
    let us = |i: usize| p[i] as f64 / n / 1000.0;
    let line = format!(
        "        phases (wall µs a tick): game's pass {:.0}, states {:.0}, pumps {:.0}, {:.0}, {:.0}, {:.0}",
        us(0),
        us(1),
        us(2),
        us(3),
        us(4),
        us(5)
    );
    *p = [0; 7];
    line
}

/// Clients whose ghosts are examined (spread over the list).
const OBSERVED: usize = 4;
const NEAREST: usize = 8;
const PLAYER_BLOCK: u32 = 1;
const ITEM_BLOCK: u32 = 2;

/// `CLOCK=wall`: every clock is the wall clock. For runs under valgrind (callgrind counts
/// the server's instructions: `--toggle-collect='*server_tick*'`), where rustix's set-up of
/// the CPU clocks reads a vDSO valgrind does not map, and dies.
fn wall_clock_only() -> bool {
    static WALL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WALL.get_or_init(|| std::env::var("CLOCK").is_ok_and(|v| v == "wall"))
}
/// CPU time of this process in ns (the wall clock where there is no process clock).
#[cfg(unix)]
fn cpu_ns() -> u128 {
    if wall_clock_only() {
        return wall_ns();
    }
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}
/// CPU time of the calling thread in ns (the process's where there is no thread clock).
#[cfg(unix)]
fn thread_cpu_ns() -> u128 {
    if wall_clock_only() {
        return wall_ns();
    }
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}
#[cfg(not(unix))]
fn thread_cpu_ns() -> u128 {
    cpu_ns()
}
#[cfg(not(unix))]
fn cpu_ns() -> u128 {
    wall_ns()
}
/// The wall clock in ns since its first reading.
fn wall_ns() -> u128 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_nanos()
}

/// One simulated client.
struct Bot<T: Transport> {
    driver: NetDriver<T>,
    scene: ClientScene,
    gcon: ClientGameConnection,
    server: v12_netobject::ConnectionId,
    connected: bool,
    coverage: UpdateCoverage,
    data_seen: u64,
}

/// The measurement over the in-memory loopback.
fn measure(a: Arena) -> Figures {
    let net = MemoryNetwork::new();
    measure_on(a, &mut |port| net.bind(NetAddress::localhost(port)).unwrap())
}

/// The measurement over transports from `bind` (given a port number a memory network can
/// use; a UDP socket may take any).
fn measure_on<T: Transport + Send>(a: Arena, bind: &mut dyn FnMut(u16) -> T) -> Figures {
    let n = a.clients;
    let mut b = NetClassRegistryBuilder::new();
    register_events(&mut b);
    let reg = Arc::new(b.build().unwrap());
    let classes = Arc::new(GhostClassRegistryBuilder::new().register::<SceneObject>().build().unwrap());
    let st = bind(1);
    let saddr = st.local_addr().socket_addr();
    let mut siface = NetInterface::new(
        InterfaceConfig {
            accept_connections: true,
            max_connections: 4096,
            max_connections_per_ip: 4096,
            max_pending: 4096,
            max_pending_per_ip: 4096,
            connect_burst_per_ip: 4096,
            server_rate: CROWD_RATE,
            ..Default::default()
        },
        reg.clone(),
        [3; 32],
    );
    siface.set_ghost_classes(classes.clone());
    if pin_threads() {
        siface.set_transmit_threads_pinned(a.threads);
    } else {
        siface.set_transmit_threads(a.threads);
    }
    // Each client's moves stay with its connection, read in its turn of the game's pass.
    siface.set_events_by_connection(true);
    let mut server = NetDriver::new(siface, Recorder { inner: st, on: a.hash_sent, hash: 0 });
    let server_live0 = live();
    let mut clients: Vec<Bot<T>> = (0..n)
        .map(|i| {
            let t = bind(1000 + i as u16);
            let mut ci = NetInterface::new(InterfaceConfig::default(), reg.clone(), [i as u8; 32]);
            ci.set_ghost_classes(classes.clone());
            let server = ci.connect(0, saddr, bytes::Bytes::new());
            Bot {
                driver: NetDriver::new(ci, t),
                scene: ClientScene::new(),
                gcon: ClientGameConnection::new(),
                server,
                connected: false,
                coverage: UpdateCoverage::new(),
                data_seen: 0,
            }
        })
        .collect();
    let mut world = SceneWorld::new(a.scope);
    let spread = 2.0 * a.half * 0.9;
    for i in 0..12 {
        let x = (i as f32 / 12.0 - 0.5) * spread;
        world.add(SceneObject::new(ITEM_BLOCK, Vec3::new(x, 0.2 * a.half, 0.0)));
    }
    let motion = Motion { max_speed: 8.0, damping: 0.8, arena_half: a.half, ..Motion::default() };
    // `Motion` may hold shared geometry (`Rc`: one thread); this arena's is plain numbers,
    // which the game's pass takes into each connection's turn on the packet threads.
    let (max_speed, damping, arena_half) = (motion.max_speed, motion.damping, motion.arena_half);
    let mut conns: Vec<Mutex<Player>> = Vec::new();
    // The game connection of each network connection, by its id (they are numbered from 1).
    let mut conn_index: Vec<usize> = Vec::new();
    let mut cost_ns: u128 = 0;
    let mut server_allocs = 0u64;
    let mut wall_ns: u128 = 0;
    let mut serial_ns: u128 = 0;
    let mut ticks = 0u64;
    let (mut bytes0, mut packets0) = (0, 0);
    let total_ticks = a.seconds * 1000 / 32;
    // Each measured tick's wall clock (room made before the first: nothing allocated in
    // the measured ticks).
    let mut tick_walls: Vec<u128> = Vec::with_capacity(total_ticks as usize);
    let measure_from = total_ticks / 2;
    let data_out = |s: &NetDriver<Recorder<T>>| -> u64 {
        s.interface
            .connection_ids()
            .into_iter()
            .filter_map(|id| s.interface.connection(id).map(|c| c.protocol().stats().data_sent))
            .sum()
    };
    for tick in 0..total_ticks {
        let now = tick * 32;
        let measuring = tick >= measure_from;
        if tick == measure_from {
            bytes0 = server.stats().bytes_out;
            packets0 = data_out(&server);
        }
        let t0 = cpu_ns();
        let s0 = thread_cpu_ns();
        let w0 = Instant::now();
        let a0 = allocs();
        let game = (&mut world, &mut conns, &mut conn_index);
        let pool_serial_ns =
            server_tick(&mut server, game, (max_speed, damping, arena_half), (n, spread), now, measuring);
        if measuring {
            server_allocs += allocs().saturating_sub(a0);
            cost_ns += cpu_ns() - t0;
            serial_ns += thread_cpu_ns() - s0 + pool_serial_ns;
            let w = w0.elapsed().as_nanos();
            wall_ns += w;
            tick_walls.push(w);
            ticks += 1;
        }
        for (i, c) in clients.iter_mut().enumerate() {
            client_tick(c, i, n, tick, measuring, &motion);
        }
    }
    assert_eq!(conns.len(), n, "every client connected");
    let secs = (total_ticks - measure_from) as f64 * 0.032;
    let observed: Vec<&Bot<T>> = clients.iter().step_by((n / OBSERVED).max(1)).collect();
    let packets: u64 = observed.iter().map(|c| c.coverage.packets).sum();
    let updated: u64 = observed.iter().map(|c| c.coverage.updated).sum();
    let visible = observed
        .iter()
        .map(|c| c.scene.iter().filter(|(_, g)| g.datablock == PLAYER_BLOCK).count())
        .sum::<usize>() as f64
        / observed.len() as f64;
    let ghost_hash =
        clients.iter().flat_map(|c| c.scene.iter()).fold(0u64, |h, (_, g)| h.wrapping_add(g.exact_hash()));
    let bytes_per_client = (server.stats().bytes_out - bytes0) as f64 / secs / n as f64;
    let packets_per_client = (data_out(&server) - packets0) as f64 / secs / n as f64;
    // After the figures: the settle period's traffic is not the match's.
    let ghosts_agree = (a.settle_seconds > 0)
        .then(|| settle_and_compare(a, total_ticks, &mut server, &mut world, &mut clients));
    let sent_hash = server.transport.hash;
    let read_in_parallel = server.interface.stats().datagrams_in_parallel;
    // The clients' share of the heap goes with them; what is left (beyond what was there
    // before the first client) is the server's.
    drop(clients);
    let server_bytes_per_client = (live() - server_live0).max(0) as f64 / n as f64;
    Figures {
        tick_us: cost_ns as f64 / ticks as f64 / 1000.0,
        wall_us: wall_ns as f64 / ticks as f64 / 1000.0,
        wall_spread_us: {
            tick_walls.sort_unstable();
            let at =
                |q: usize| tick_walls.get(tick_walls.len() * q / 100).map_or(0.0, |&w| w as f64 / 1000.0);
            [at(50), at(90), tick_walls.last().map_or(0.0, |&w| w as f64 / 1000.0)]
        },
        serial_us: serial_ns as f64 / ticks as f64 / 1000.0,
        sent_hash,
        read_in_parallel,
        ghosts_agree,
        ghost_hash,
        bytes_per_client,
        packets_per_client,
        visible_players: visible,
        coverage: if packets == 0 { 0.0 } else { updated as f64 / packets as f64 },
        allocs_per_tick: server_allocs as f64 / ticks as f64,
        server_bytes_per_client,
    }
}

/// Whether the server's packet threads are held awake over its tick, yielding their cores
/// every how many rounds ([`v12_netobject::PacketThreads::run_awake_yielding`]): `AWAKE=n`
/// holds them (every `n`); unset or `AWAKE=0` leaves them to sleep between the passes. Not
/// held by default: holding them measured no faster, here or on idle cores (PERFORMANCE.md,
/// issue 33's seventh and tenth passes), and it spends a second core's time waiting.
fn hold_awake() -> Option<u32> {
    static HOLD: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *HOLD.get_or_init(|| std::env::var("AWAKE").ok().and_then(|v| v.parse::<u32>().ok()).filter(|&n| n > 0))
}

/// Whether the server's packet threads are bound to cores of their own
/// ([`NetInterface::set_transmit_threads_pinned`]): yes by default, `PIN=0` leaves them
/// unbound. In this VM a pass's woken threads were often queued behind the thread that woke
/// them, on its core, and the pass ran on one thread (PERFORMANCE.md, issue 33's thirteenth
/// pass).
fn pin_threads() -> bool {
    static PIN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PIN.get_or_init(|| !std::env::var("PIN").is_ok_and(|v| v == "0"))
}

/// A client's game on the server: its connection's half of the game, and what its turn of
/// the game's pass leaves for the world.
struct Player {
    game: ServerGameConnection,
    /// The control object's state after this tick's moves (its id and state), set on the
    /// world after the pass.
    next: Option<(u32, ControlState)>,
    applied: Vec<Move>,
}

/// The server's part of a tick: the game's pass, four pumps (the real loop polls the network
/// every few ms, so a packet leaves as soon as the 100 ms period allows; pumping only on
/// ticks would stretch it to 128 ms), and a player for each client that connected, placed on
/// a golden-angle spiral over the arena (`n` clients over `spread` metres: even density).
/// Returns the CPU time the pumps took outside their passes on a packet thread (0 without
/// packet threads: the calling thread's clock counts it).
fn server_tick<T: Transport + Send>(
    server: &mut NetDriver<Recorder<T>>,
    (world, conns, conn_index): (&mut SceneWorld, &mut Vec<Mutex<Player>>, &mut Vec<usize>),
    moves: (f32, f32, f32),
    (n, spread): (usize, f32),
    now: u64,
    measuring: bool,
) -> u128 {
    let timed = measuring && phases_on();
    let mut marks = [Instant::now(); 7];
    let mut mark = |i: usize| {
        if timed {
            marks[i] = Instant::now();
        }
    };
    let pumps =
        |server: &mut NetDriver<Recorder<T>>, objects: &dyn GhostWorld, mark: &mut dyn FnMut(usize)| {
            for sub in 0..4 {
                server.pump(now + sub * 8, objects, &mut v12_netobject::ghost::GhostArena::new()).unwrap();
                mark(3 + sub as usize);
            }
        };
    // With packet threads the whole tick runs on one of them: each pass (the game's, then
    // each pump's) starts at once on that thread, which takes its share, where from this
    // thread the pass would wait for a pool thread to start, and this one would sleep
    // through it and be woken after (ARCHITECTURE: "A crowd"). The world goes as its
    // objects alone (`SceneWorld::objects_mut`: the container grid stays here).
    let pool_serial_ns = match server.interface.packet_threads() {
        Some(threads) => {
            let mut objects = world.objects_mut();
            let others = threads.count().saturating_sub(1).max(1) as u128;
            let tick = || {
                let (mine0, all0) = (thread_cpu_ns(), cpu_ns());
                mark(0);
                game_pass(&mut server.interface, objects.objects(), conns, conn_index, moves, now);
                mark(1);
                objects.set_states(next_states(conns));
                mark(2);
                pumps(server, objects.ghost_world(), &mut mark);
                // The tick's serial part: this thread's CPU beyond each other pool thread's
                // mean (the process's less this one's, over the others; the calling thread
                // sleeps meanwhile), the passes' shares being even (their ends are a few µs
                // apart). It reads low by the other threads' spinning for work between the
                // passes, all the more with the threads held awake (`AWAKE=n`; not held by
                // default).
                let (mine, all) = (thread_cpu_ns() - mine0, cpu_ns() - all0);
                mine.saturating_sub(all.saturating_sub(mine) / others)
            };
            // Held awake (`AWAKE=n`), the other packet threads wait for each pass looking
            // for work instead of sleeping through the serial work between two passes, and
            // let go when the tick ends.
            match hold_awake() {
                Some(every) => threads.run_awake_yielding(every, tick),
                None => threads.run(tick),
            }
        }
        None => {
            mark(0);
            game_pass(&mut server.interface, world.objects(), conns, conn_index, moves, now);
            mark(1);
            world.set_states(next_states(conns));
            mark(2);
            pumps(server, &*world, &mut mark);
            0
        }
    };
    if timed {
        add_phases(&marks);
    }
    // (The clients' moves stay with their connections: the game's pass reads them.)
    while let Some(ev) = server.interface.poll_event() {
        if let InterfaceEvent::Connected { connection, .. } = ev {
            let k = conns.len() as f32;
            let r = (k + 0.5).sqrt() / (n as f32).sqrt() * spread * 0.5;
            let t = k * 2.399_963;
            let p = world.add(SceneObject::new(PLAYER_BLOCK, Vec3::new(r * t.cos(), r * t.sin(), 0.0)));
            let mut game = ServerGameConnection::new(connection);
            game.set_control_object(Some(p));
            server.interface.start_ghosting(connection).unwrap();
            let at = connection.0 as usize;
            if conn_index.len() <= at {
                conn_index.resize(at + 1, usize::MAX);
            }
            conn_index[at] = conns.len();
            conns.push(Mutex::new(Player { game, next: None, applied: Vec::new() }));
        }
    }
    pool_serial_ns
}

/// The game's tick for every client, one connection's turn at a time (on the packet threads
/// when the server has them): its moves read, applied to its control object's state, the
/// control event posted. The states are set on the world afterwards ([`next_states`]).
fn game_pass(
    iface: &mut NetInterface,
    objects: SceneObjects<'_>,
    conns: &[Mutex<Player>],
    conn_index: &[usize],
    (max_speed, damping, arena_half): (f32, f32, f32),
    now: u64,
) {
    iface.for_each_connection(|turn| {
        let motion = &Motion { max_speed, damping, arena_half, ..Motion::default() };
        let Some(p) = conn_index.get(turn.id().0 as usize).and_then(|&i| conns.get(i)) else { return };
        let mut p = p.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let p = &mut *p;
        // Its box is read into again (the moves of a steady client allocate nothing).
        while let Some(ev) = turn.poll_event() {
            p.game.handle_event(&*ev);
            turn.recycle_event(ev);
        }
        p.applied.clear();
        let control = p.game.control_object();
        let planned = p.game.plan_tick(objects, motion, &mut p.applied);
        let current = planned.or_else(|| control.and_then(|id| objects.get(id)).map(|o| o.state));
        p.next = control.zip(planned);
        p.game.post_control_in_turn(now, turn, current).unwrap();
    });
}

/// The control objects' states the game's pass left, in the players' order, to set on the
/// world.
fn next_states(conns: &mut [Mutex<Player>]) -> impl Iterator<Item = (u32, ControlState)> + '_ {
    conns
        .iter_mut()
        .filter_map(|p| p.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).next.take())
}

/// One bot's tick: its move, its network, and (for the observed ones) what it saw update.
fn client_tick<T: Transport>(
    c: &mut Bot<T>,
    i: usize,
    n: usize,
    tick: u64,
    measuring: bool,
    motion: &Motion,
) {
    let now = tick * 32;
    let turn = if (tick + i as u64) % 40 < 20 { 0.05 } else { -0.05 };
    c.gcon.process_tick(Move::from_input(0.0, 1.0, 0.0, turn, 0.0, 0.0, [false; 6]), motion);
    if c.connected {
        c.gcon.post_moves(&mut c.driver.interface, c.server).unwrap();
    }
    c.driver.pump(now, &v12_netobject::ghost::NoObjects, &mut c.scene).unwrap();
    while let Some(ev) = c.driver.interface.poll_event() {
        match ev {
            InterfaceEvent::Connected { .. } => c.connected = true,
            InterfaceEvent::EventReceived { event, connection } => {
                c.gcon.handle_event(&*event, motion);
                c.driver.interface.recycle_event(connection, event);
            }
            _ => {}
        }
    }
    if i.is_multiple_of((n / OBSERVED).max(1)) {
        let data = c.driver.interface.connection(c.server).map_or(0, |k| k.protocol().stats().data_received);
        let fresh = data - c.data_seen;
        c.data_seen = data;
        let own =
            c.gcon.control_ghost().and_then(|g| c.driver.interface.ghost_receiver(c.server)?.object_of(g));
        if let Some(me) = c.gcon.predicted().map(|s| s.pos) {
            let packets = if measuring { fresh } else { 0 };
            c.coverage.observe(&c.scene, me, NEAREST, packets, |id: ObjectId, g: &SceneObject| {
                Some(id) != own && g.datablock == PLAYER_BLOCK
            });
        }
    }
}

/// The ghost-state check: every object settles and stops, the network runs on for
/// `a.settle_seconds`, and each client's ghosts are compared with the objects the server
/// knows it holds ([`SceneObject::settled_hash`], which the network's quantisation keeps).
/// Returns how many clients agree.
fn settle_and_compare<T: Transport>(
    a: Arena,
    from_tick: u64,
    server: &mut NetDriver<Recorder<T>>,
    world: &mut SceneWorld,
    clients: &mut [Bot<T>],
) -> usize {
    for (_, o) in world.iter_mut() {
        o.settle();
    }
    for tick in from_tick..from_tick + a.settle_seconds * 1000 / 32 {
        let now = tick * 32;
        for sub in 0..4 {
            server.pump(now + sub * 8, &*world, &mut v12_netobject::ghost::GhostArena::new()).unwrap();
        }
        while server.interface.poll_event().is_some() {}
        for c in clients.iter_mut() {
            c.driver.pump(now, &v12_netobject::ghost::NoObjects, &mut c.scene).unwrap();
            while c.driver.interface.poll_event().is_some() {}
        }
    }
    let by_addr: std::collections::HashMap<_, _> = server
        .interface
        .connection_ids()
        .into_iter()
        .filter_map(|id| Some((server.interface.connection(id)?.remote_addr(), id)))
        .collect();
    clients
        .iter()
        .filter(|c| {
            let Some(gm) = by_addr
                .get(&c.driver.transport.local_addr().socket_addr())
                .and_then(|&id| server.interface.ghost_manager(id))
            else {
                return false;
            };
            let mut held: Vec<u64> = world
                .iter()
                .filter(|(id, _)| gm.ghost_id_of(ObjectId(*id)).is_some())
                .map(|(_, o)| o.settled_hash())
                .collect();
            let mut shown: Vec<u64> = c.scene.iter().map(|(_, g)| g.settled_hash()).collect();
            held.sort_unstable();
            shown.sort_unstable();
            !held.is_empty() && held == shown
        })
        .count()
}

/// The server's transport, hashing every datagram it sends (address and bytes, in order).
struct Recorder<T> {
    inner: T,
    /// Hashing is on (off while measuring: it is not the server's work).
    on: bool,
    hash: u64,
}

impl<T: Transport> Transport for Recorder<T> {
    fn local_addr(&self) -> NetAddress {
        self.inner.local_addr()
    }
    fn send_to(&mut self, now: v12_platform::Millis, to: NetAddress, data: &[u8]) -> std::io::Result<()> {
        if self.on {
            let mix = v12_sim::scene::mix_words;
            self.hash = mix(&[self.hash, u64::from(to.socket_addr().port()), data.len() as u64]);
            for c in data.chunks(8) {
                self.hash = mix(&[self.hash, c.iter().fold(0u64, |w, &b| w << 8 | u64::from(b))]);
            }
        }
        let a0 = ALLOCS.load(Ordering::Relaxed);
        let sent = self.inner.send_to(now, to, data);
        NETWORK_ALLOCS.fetch_add(ALLOCS.load(Ordering::Relaxed) - a0, Ordering::Relaxed);
        sent
    }
    fn recv_batch(
        &mut self,
        now: v12_platform::Millis,
        out: &mut Vec<v12_platform::Datagram>,
    ) -> std::io::Result<usize> {
        self.inner.recv_batch(now, out)
    }
    fn poll(&mut self, now: v12_platform::Millis) -> std::io::Result<()> {
        self.inner.poll(now)
    }
    fn next_wakeup(&self) -> Option<v12_platform::Millis> {
        self.inner.next_wakeup()
    }
}

/// Packets built, and the clients' datagrams read, on several threads are the packets built
/// and read on one: the same datagrams in the same order, and every client ends with the
/// same ghosts.
#[test]
fn parallel_packets_are_the_same_packets() {
    let _alone = one_at_a_time();
    let a = Arena {
        clients: 48,
        half: 30.0,
        scope: 60.0,
        seconds: 4,
        threads: 1,
        hash_sent: true,
        settle_seconds: 3,
    };
    let one = measure(a);
    let three = measure(Arena { threads: 3, ..a });
    assert_eq!(one.read_in_parallel, 0);
    assert!(three.read_in_parallel > 0, "the clients' datagrams were read on the packet threads");
    assert_eq!(one.sent_hash, three.sent_hash);
    assert_eq!(one.ghost_hash, three.ghost_hash);
    assert_eq!(one.bytes_per_client, three.bytes_per_client);
    assert!(one.visible_players >= 40.0, "{one:?}");
    assert_eq!(one.ghosts_agree, Some(48), "ghost states agree");
    assert_eq!(three.ghosts_agree, Some(48), "ghost states agree with the parallel path on");
}

/// The server sends each client at most 10 data packets a second of at most 500 bytes
/// ([`CROWD_RATE`]), so at most 5,000 B/s however many players are visible; and the
/// nearest players are in every packet.
#[test]
fn small_match_honours_the_server_rate() {
    let _alone = one_at_a_time();
    let f = measure(Arena {
        clients: 40,
        half: 50.0,
        scope: 60.0,
        seconds: 8,
        threads: 1,
        hash_sent: false,
        settle_seconds: 0,
    });
    eprintln!("{f:?}");
    assert!(f.packets_per_client <= 10.0 + 1e-9, "{f:?}");
    assert!(f.packets_per_client >= 9.0, "{f:?}");
    assert!(f.bytes_per_client <= 5_000.0, "{f:?}");
    assert!(f.visible_players >= 32.0, "{f:?}");
    assert!(f.coverage >= 0.99, "{f:?}");
}

/// A steady crowd's server tick allocates nothing: moves in (events read into recycled
/// boxes), control objects ticked, control events posted into recycled boxes, scoping from
/// the ghost frame, packets written and sent, notifies; in a crowded arena where each
/// connection holds a ghost of every object and players keep moving in and out of one
/// another's near rings. Counted over every allocation the server's part of a tick makes
/// (one thread: the packet threads' pool adds its own scheduling, see PERFORMANCE.md).
#[test]
fn steady_crowd_allocates_nothing() {
    let _alone = one_at_a_time();
    let f = measure(Arena {
        clients: 48,
        half: 30.0,
        scope: 60.0,
        seconds: 10,
        threads: 1,
        hash_sent: false,
        settle_seconds: 0,
    });
    assert!(f.visible_players >= 40.0, "{f:?}");
    assert_eq!(f.allocs_per_tick, 0.0, "{f:?}");
}

/// The summary line (the checkers read it: keep its format).
fn summary(label: &str, a: Arena, f: &Figures) {
    println!(
        "{label} clients {:>5}, arena {:>4.0} m, scope {:>3.0} m: server tick {:>9.0} µs ({:>5.1} % of a 32 ms tick), \
         {:.0} B/s and {:.2} packets/s per client, {:.0} players visible, nearest {NEAREST} updated in {:.1} % of packets",
        a.clients,
        2.0 * a.half,
        a.scope,
        f.tick_us,
        f.tick_us / 320.0,
        f.bytes_per_client,
        f.packets_per_client,
        f.visible_players,
        f.coverage * 100.0
    );
}

/// The end-to-end run on real sockets: one process drives `CLIENTS` (default 256) bots, each
/// on its own loopback UDP socket, against a server on another, in the crowded arena; then
/// the ghost-state check (every client's ghosts show what the server's objects show).
/// `THREADS=2` builds the server's packets on two threads.
#[test]
#[ignore = "real loopback UDP, hundreds of sockets; run in release with --ignored --nocapture"]
fn crowd_over_real_udp() {
    let _alone = one_at_a_time();
    let first = |var: &str, default: usize| {
        std::env::var(var).ok().and_then(|v| v.split(',').next()?.parse().ok()).unwrap_or(default)
    };
    let a = Arena {
        clients: first("CLIENTS", 256),
        half: 50.0,
        scope: 60.0,
        seconds: 6,
        threads: first("THREADS", 1),
        hash_sent: false,
        settle_seconds: 5,
    };
    let f = measure_on(a, &mut |_| UdpTransport::bind(NetAddress::localhost(0)).unwrap());
    summary("udp    ", a, &f);
    println!("        ghost states agree on {} of {} clients", f.ghosts_agree.unwrap_or(0), a.clients);
    assert_eq!(f.ghosts_agree, Some(a.clients));
}

#[test]
#[ignore = "measurement; run in release with --ignored --nocapture"]
fn server_tick_cost_by_client_count() {
    let _alone = one_at_a_time();
    let counts: Vec<usize> = std::env::var("CLIENTS")
        .map_or(vec![64, 256, 1024], |v| v.split(',').filter_map(|x| x.parse().ok()).collect());
    // `THREADS=1,2`: each arena once per thread count, with the wall-clock speed-up over the
    // first count (the summary line's figure is CPU time, all threads together).
    let threads: Vec<usize> = std::env::var("THREADS")
        .map_or(vec![1], |v| v.split(',').filter_map(|x| x.parse().ok()).filter(|&t| t > 0).collect());
    let run = |label: &str, a: Arena| {
        let mut first: Option<(usize, f64)> = None;
        for &t in &threads {
            let a = Arena { threads: t, ..a };
            let f = measure(Arena { hash_sent: hash_on(), ..a });
            summary(label, a, &f);
            if hash_on() {
                println!("        sent hash {:016x}, ghost hash {:016x}", f.sent_hash, f.ghost_hash);
            }
            println!(
                "        server: {:.1} allocations per tick, {:.1} KB of heap per client",
                f.allocs_per_tick,
                f.server_bytes_per_client / 1024.0
            );
            if phases_on() {
                println!("{}", take_phases());
                let [median, p90, most] = f.wall_spread_us;
                println!(
                    "        ticks (wall µs): median {median:.0}, 90th percentile {p90:.0}, most {most:.0}"
                );
            }
            if threads.len() > 1 {
                let (t0, w0) = *first.get_or_insert((t, f.wall_us));
                // Amdahl from CPU times, which a busy machine inflates less than the wall
                // clock: the serial part runs on this thread, the rest on the pool's.
                let serial = f.serial_us / f.tick_us;
                println!(
                    "        {t} thread(s): wall {:.0} µs per tick, {:.2}x the speed of {t0} thread(s); \
                     serial part {:.0} % of the server's CPU, so at most {:.2}x on {t} idle cores",
                    f.wall_us,
                    w0 / f.wall_us,
                    serial * 100.0,
                    1.0 / (serial + (1.0 - serial) / t as f64)
                );
            }
        }
    };
    let only = std::env::var("ARENA").unwrap_or_default();
    // `SECONDS=12`: a longer match (the second half is measured), for tables to settle.
    let seconds = std::env::var("SECONDS").ok().and_then(|v| v.parse().ok()).filter(|&s| s >= 2).unwrap_or(6);
    for &n in counts.iter().filter(|_| only != "spread") {
        run(
            "crowded",
            Arena {
                clients: n,
                half: 50.0,
                scope: 60.0,
                seconds,
                threads: 1,
                hash_sent: false,
                settle_seconds: 0,
            },
        );
    }
    // A realistic arena: the map grows with the player count so that about 32 players are
    // within the 60 m scope of each (not everyone sees everyone).
    for &n in counts.iter().filter(|_| only != "crowded") {
        let density = 32.0 / (std::f32::consts::PI * 60.0 * 60.0);
        let half = (0.5 * (n as f32 / density).sqrt()).max(50.0);
        run(
            "spread ",
            Arena { clients: n, half, scope: 60.0, seconds, threads: 1, hash_sent: false, settle_seconds: 0 },
        );
    }
}
