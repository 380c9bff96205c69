//! The ghosting demo on real loopback UDP: a server with a few thousand moving objects
//! ghosted to N clients, each scoped by distance around its own camera, through the link
//! conditioner. Also V12's SimpleNetObject (two messages, two mask bits), always in
//! scope, replicated to every client.
//!
//! The world update is deterministic (seeded start, fixed 50 ms ticks). Each update carries
//! the server time of the change, so a client can measure staleness: the time between the
//! change on the server and the client showing it. After the moving phase the world stops
//! and the link turns clean; at the end every client's ghosts are compared with the server
//! objects in its scope (the convergence check).

use crate::net_loop::{Port, entropy, wait};
use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::*;
use v12_netobject::{
    ConnectionId, InterfaceConfig, InterfaceEvent, NetClassRegistry, NetClassRegistryBuilder, NetInterface,
    read_str, write_str,
};
use v12_platform::{
    Clock, ConditionerConfig, LinkConditioner, Millis, NetAddress, SystemClock, Transport, UdpTransport,
};
use v12_services::NetDriver;

/// Server tick.
pub const TICK_MS: u64 = 50;
/// Positions agree within this after crossing the wire (compressed points).
pub const POSITION_TOLERANCE: f32 = 0.05;

/// A moving object. The update is one state group: position (compressed against the
/// camera) and the server time of the change.
#[derive(Debug, Default)]
pub struct Movable {
    pub mask: StateMask,
    pub ident: u32,
    pub pos: Point3,
    pub vel: Point3,
    /// Server clock (ms) when `pos` last changed.
    pub stamp: u32,
    /// Camera: visible distance for scoping (0 for plain objects).
    pub view_distance: f32,
}

impl Movable {
    pub const MOVE: u32 = 1;
}

impl NetObject for Movable {
    fn state_mask(&self) -> &StateMask {
        &self.mask
    }
    fn pack_update(&self, ctx: &mut GhostPackContext<'_>, mask: u32, w: &mut BitWriter) -> u32 {
        if ctx.is_initial() {
            w.write_int(self.ident, 32);
        }
        if w.write_flag(mask & Self::MOVE != 0) {
            w.write_compressed_point(self.pos.into(), ctx.compression_point());
            w.write_int(self.stamp, 32);
        }
        0
    }
    fn unpack_update(
        &mut self,
        ctx: &mut GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        if ctx.is_initial() {
            self.ident = r.read_int(32)?;
        }
        if r.read_flag()? {
            self.pos = r.read_compressed_point(ctx.compression_point())?.to_array();
            self.stamp = r.read_int(32)?;
        }
        Ok(())
    }
    fn scope_position(&self) -> Option<Point3> {
        Some(self.pos)
    }
    fn scope_velocity(&self) -> Option<Point3> {
        Some(self.vel)
    }
    fn on_camera_scope_query(&self, query: &mut CameraScopeQuery) {
        query.position = self.pos;
        query.view_dir = [0.0; 3];
        query.visible_distance = self.view_distance;
    }
}

impl NetObjectClass for Movable {
    const NAME: &'static str = "Movable";
    fn create_ghost() -> Self {
        Self::default()
    }
}

/// V12's SimpleNetObject: two messages, two mask bits, always in scope.
#[derive(Debug, Default)]
pub struct SimpleNetObject {
    pub mask: StateMask,
    pub message1: String,
    pub message2: String,
}

impl SimpleNetObject {
    pub const MESSAGE1: u32 = 1 << 0;
    pub const MESSAGE2: u32 = 1 << 1;
    pub fn set_message1(&mut self, m: &str) {
        self.message1 = m.into();
        self.mask.set_mask_bits(Self::MESSAGE1);
    }
    pub fn set_message2(&mut self, m: &str) {
        self.message2 = m.into();
        self.mask.set_mask_bits(Self::MESSAGE2);
    }
}

impl NetObject for SimpleNetObject {
    fn net_flags(&self) -> NetFlags {
        NetFlags::GHOSTABLE | NetFlags::SCOPE_ALWAYS
    }
    fn state_mask(&self) -> &StateMask {
        &self.mask
    }
    fn pack_update(&self, _: &mut GhostPackContext<'_>, mask: u32, w: &mut BitWriter) -> u32 {
        if w.write_flag(mask & Self::MESSAGE1 != 0) {
            write_str(w, &self.message1);
        }
        if w.write_flag(mask & Self::MESSAGE2 != 0) {
            write_str(w, &self.message2);
        }
        0
    }
    fn unpack_update(
        &mut self,
        _: &mut GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        let bad = |e: v12_netobject::NetError| GhostError::BadUpdate(e.to_string());
        if r.read_flag()? {
            self.message1 = read_str(r, 255).map_err(bad)?;
        }
        if r.read_flag()? {
            self.message2 = read_str(r, 255).map_err(bad)?;
        }
        Ok(())
    }
}

impl NetObjectClass for SimpleNetObject {
    const NAME: &'static str = "SimpleNetObject";
    fn create_ghost() -> Self {
        Self::default()
    }
}

/// The ghost classes of the demo (both ends).
pub fn ghost_classes() -> Arc<GhostClassRegistry> {
    Arc::new(
        GhostClassRegistryBuilder::new()
            .register::<Movable>()
            .register::<SimpleNetObject>()
            .build()
            .expect("distinct class names"),
    )
}

fn event_registry() -> Arc<NetClassRegistry> {
    Arc::new(NetClassRegistryBuilder::new().build().expect("empty registry"))
}

/// The server's world: movers in a uniform grid, cameras, one SimpleNetObject.
#[derive(Debug)]
pub struct DemoWorld {
    pub objects: Vec<Movable>,
    pub message: SimpleNetObject,
    pub size: f32,
    cell: f32,
    dim: usize,
    grid: Vec<Vec<u32>>,
    /// Objects `0..movers` move; the rest are cameras.
    movers: usize,
}

const MESSAGE_ID: u32 = u32::MAX;

impl DemoWorld {
    /// `movers` objects at seeded places and speeds, plus one camera per client.
    pub fn new(movers: usize, cameras: usize, size: f32, view: f32, seed: u64) -> Self {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut unit = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut objects = Vec::with_capacity(movers + cameras);
        for i in 0..movers {
            let a = unit() * std::f32::consts::TAU;
            let speed = 2.0 + unit() * 18.0;
            objects.push(Movable {
                ident: i as u32,
                pos: [unit() * size, unit() * size, 0.0],
                vel: [a.cos() * speed, a.sin() * speed, 0.0],
                ..Movable::default()
            });
        }
        for c in 0..cameras {
            let t = (c as f32 + 0.5) / cameras.max(1) as f32;
            objects.push(Movable {
                ident: (movers + c) as u32,
                pos: [size * t, size * (1.0 - t) * 0.5 + size * 0.25, 0.0],
                view_distance: view,
                ..Movable::default()
            });
        }
        let cell = (view / 2.0).max(8.0);
        let dim = ((size / cell).ceil() as usize).max(1);
        let mut w = Self {
            objects,
            message: SimpleNetObject::default(),
            size,
            cell,
            dim,
            grid: vec![Vec::new(); dim * dim],
            movers,
        };
        w.message.set_message1("Hello World!");
        w.message.set_message2("tick 0");
        w.rebuild_grid();
        w
    }

    /// The camera object of client `index`.
    pub fn camera(&self, index: usize) -> ObjectId {
        ObjectId((self.movers + index) as u32)
    }

    fn cell_of(&self, p: Point3) -> usize {
        let c = |v: f32| ((v / self.cell).floor().max(0.0) as usize).min(self.dim - 1);
        c(p[1]) * self.dim + c(p[0])
    }

    fn rebuild_grid(&mut self) {
        for c in &mut self.grid {
            c.clear();
        }
        for (i, o) in self.objects.iter().enumerate() {
            let c = self.cell_of(o.pos);
            self.grid[c].push(i as u32);
        }
    }

    /// One deterministic tick at server time `now_ms`.
    pub fn step(&mut self, dt: f32, now_ms: u32, tick: u64) {
        let size = self.size;
        for o in &mut self.objects[..self.movers] {
            for k in 0..2 {
                o.pos[k] += o.vel[k] * dt;
                if o.pos[k] < 0.0 || o.pos[k] > size {
                    o.vel[k] = -o.vel[k];
                    o.pos[k] = o.pos[k].clamp(0.0, size);
                }
            }
            o.stamp = now_ms;
            o.mask.set_mask_bits(Movable::MOVE);
        }
        if tick.is_multiple_of(20) {
            self.message.set_message2(&format!("tick {tick}"));
        }
        self.rebuild_grid();
    }

    /// The objects a client whose camera is `cam` must hold (within the visible distance).
    pub fn in_scope(&self, cam: ObjectId, extra: f32) -> Vec<u32> {
        let Some(c) = self.objects.get(cam.0 as usize) else { return Vec::new() };
        let r = c.view_distance * (1.0 + extra);
        let mut v: Vec<u32> =
            self.objects.iter().filter(|o| dist(o.pos, c.pos) <= r).map(|o| o.ident).collect();
        v.sort_unstable();
        v
    }

    /// Bytes a packet holding the full state of every in-scope object would take (the
    /// baseline: id, position, velocity and stamp as raw 32-bit fields, no deltas).
    pub fn full_state_bytes(&self, cam: ObjectId) -> usize {
        let mut w = BitWriter::new();
        for id in self.in_scope(cam, 0.0) {
            let o = &self.objects[id as usize];
            w.write_int(o.ident, 32);
            for v in o.pos.iter().chain(o.vel.iter()) {
                w.write_f32(*v);
            }
            w.write_int(o.stamp, 32);
        }
        w.write_flag(false);
        w.into_bytes().len()
    }
}

fn dist(a: Point3, b: Point3) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

impl GhostWorld for DemoWorld {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        if id.0 == MESSAGE_ID {
            return Some(&self.message);
        }
        self.objects.get(id.0 as usize).map(|o| o as &dyn NetObject)
    }
    fn for_each_scope_always(&self, f: &mut dyn FnMut(ObjectId)) {
        f(ObjectId(MESSAGE_ID));
    }
    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        let lo = |v: f32| (((v - radius) / self.cell).floor().max(0.0) as usize).min(self.dim - 1);
        let hi = |v: f32| (((v + radius) / self.cell).floor().max(0.0) as usize).min(self.dim - 1);
        for cy in lo(center[1])..=hi(center[1]) {
            for cx in lo(center[0])..=hi(center[0]) {
                for &id in &self.grid[cy * self.dim + cx] {
                    let d = dist(self.objects[id as usize].pos, center);
                    if d <= radius {
                        f(ObjectId(id), d);
                    }
                }
            }
        }
    }
}

/// A client's arena that notes which ghosts were just updated (for staleness).
#[derive(Debug, Default)]
struct StampingArena {
    arena: GhostArena,
    touched: Vec<ObjectId>,
}

impl GhostClientWorld for StampingArena {
    fn add_ghost(&mut self, ghost: Box<dyn NetObject>) -> ObjectId {
        self.arena.add_ghost(ghost)
    }
    fn ghost_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject> {
        self.touched.push(id);
        self.arena.ghost_mut(id)
    }
    fn remove_ghost(&mut self, id: ObjectId) {
        self.arena.remove_ghost(id);
    }
}

/// What the ghost demo runs.
#[derive(Clone, Debug)]
pub struct GhostDemoConfig {
    pub clients: u32,
    /// Moving objects on the server.
    pub objects: u32,
    /// Side of the square world (m).
    pub world_size: f32,
    /// Each client's visible distance (m).
    pub view_distance: f32,
    /// How long the objects move.
    pub seconds: f64,
    /// Then: no movement and a clean link for this long before the convergence check.
    pub settle_seconds: f64,
    /// Conditions on every datagram during the moving phase.
    pub link: ConditionerConfig,
    pub seed: u64,
}

impl Default for GhostDemoConfig {
    fn default() -> Self {
        Self {
            clients: 4,
            objects: 3000,
            world_size: 2000.0,
            view_distance: 150.0,
            seconds: 10.0,
            settle_seconds: 2.0,
            link: ConditionerConfig::default(),
            seed: 1,
        }
    }
}

/// One client's figures.
#[derive(Clone, Debug, Default)]
pub struct GhostClientReport {
    pub index: u32,
    pub failure: Option<String>,
    /// Movable ghosts held at the end.
    pub ghosts: usize,
    pub updates_per_s: f64,
    /// Bytes per second the client received (all datagrams).
    pub bytes_per_s: f64,
    /// Bytes per second a full-state-every-packet baseline would have sent it (same run).
    pub baseline_bytes_per_s: f64,
    pub mean_staleness_ms: f64,
    /// Server objects in scope the client had no (or a different) ghost of.
    pub missing_or_wrong: usize,
    /// Ghosts of objects beyond the hysteresis distance.
    pub extra: usize,
    pub message: (String, String),
}

/// Everything the demo prints.
#[derive(Clone, Debug, Default)]
pub struct GhostReport {
    pub clients: Vec<GhostClientReport>,
    pub server_objects: usize,
    /// The server's message object at the end.
    pub message: (String, String),
}

impl GhostReport {
    /// Every client's ghosts equal the server objects in its scope, none beyond it, and the
    /// SimpleNetObject matches.
    pub fn converged(&self) -> bool {
        !self.clients.is_empty()
            && self.clients.iter().all(|c| {
                c.failure.is_none() && c.missing_or_wrong == 0 && c.extra == 0 && c.message == self.message
            })
    }

    pub fn render(&self) -> String {
        let mut out = format!(
            "server: {} moving objects\nclient | ghosts | updates/s | bytes/s | baseline bytes/s | ratio | staleness ms | missing/extra\n",
            self.server_objects
        );
        for c in &self.clients {
            let ratio = if c.bytes_per_s > 0.0 { c.baseline_bytes_per_s / c.bytes_per_s } else { 0.0 };
            out.push_str(&format!(
                "{:>6} | {:>6} | {:>9.0} | {:>7.0} | {:>16.0} | {:>4.1}x | {:>12.1} | {}/{}{}\n",
                c.index,
                c.ghosts,
                c.updates_per_s,
                c.bytes_per_s,
                c.baseline_bytes_per_s,
                ratio,
                c.mean_staleness_ms,
                c.missing_or_wrong,
                c.extra,
                c.failure.as_ref().map(|f| format!("  FAILED: {f}")).unwrap_or_default()
            ));
        }
        out.push_str(&format!(
            "check: every client's ghosts equal the server's objects in its scope: {}",
            if self.converged() { "yes" } else { "NO" }
        ));
        out
    }
}

fn clean(link: &ConditionerConfig) -> ConditionerConfig {
    ConditionerConfig { latency_ms: link.latency_ms, ..ConditionerConfig::default() }
}

/// Objects within a client's visible distance (ident, position), and the idents within
/// the hysteresis band (a ghost there may or may not be held).
type ClientScope = (Vec<(u32, Point3)>, Vec<u32>);

/// The server's final state, shared with the checker.
#[derive(Debug, Default)]
struct Final {
    /// Per client index: (ident, position) of every object within the visible distance,
    /// and the idents within the hysteresis band.
    scope: BTreeMap<u32, ClientScope>,
    baseline_bytes: BTreeMap<u32, u64>,
    message: (String, String),
}

/// Runs the demo: a server thread and one thread per client on 127.0.0.1.
pub fn run(config: &GhostDemoConfig) -> io::Result<GhostReport> {
    let classes = ghost_classes();
    let clock = SystemClock::new();
    let start = clock.now_ms();
    let move_until = start + (config.seconds * 1000.0) as Millis;
    let check_at = move_until + (config.settle_seconds * 1000.0) as Millis;
    let server_port =
        LinkConditioner::new(UdpTransport::bind(NetAddress::localhost(0))?, config.link, config.seed);
    let server_addr = server_port.local_addr();
    let server_cfg = InterfaceConfig {
        accept_connections: true,
        max_connections: config.clients as usize,
        // Every demo client runs on this machine.
        max_connections_per_ip: config.clients as usize,
        max_pending_per_ip: config.clients as usize,
        max_pending: config.clients as usize,
        connect_burst_per_ip: config.clients,
        ..InterfaceConfig::default()
    };
    let mut iface = NetInterface::new(server_cfg, event_registry(), entropy(config.seed, 0));
    iface.set_ghost_classes(classes.clone());
    let server = NetDriver::new(iface, server_port);
    let world = DemoWorld::new(
        config.objects as usize,
        config.clients as usize,
        config.world_size,
        config.view_distance,
        config.seed,
    );
    let stop = Arc::new(AtomicBool::new(false));
    let fin = Arc::new(Mutex::new(Final::default()));
    let (s_stop, s_fin) = (stop.clone(), fin.clone());
    let cfg = config.clone();
    let server_thread = std::thread::spawn(move || {
        run_server(server, world, &cfg, clock, (start, move_until, check_at), &s_stop, &s_fin)
    });
    let mut threads = Vec::new();
    for index in 0..config.clients {
        let port = LinkConditioner::new(
            UdpTransport::bind(NetAddress::localhost(0))?,
            config.link,
            config.seed.wrapping_add(u64::from(index) + 1),
        );
        // Quick handshake retries: a lost connect request must not eat the short demo.
        let client_cfg =
            InterfaceConfig { connect_retry_ms: 250, connect_tries: 20, ..InterfaceConfig::default() };
        let mut iface =
            NetInterface::new(client_cfg, event_registry(), entropy(config.seed, 1 + u64::from(index)));
        iface.set_ghost_classes(classes.clone());
        let driver = NetDriver::new(iface, port);
        let link = config.link;
        threads.push(std::thread::spawn(move || {
            run_client(driver, index, server_addr, link, clock, (move_until, check_at))
        }));
    }
    let mut client_results = Vec::new();
    for t in threads {
        client_results.push(t.join().map_err(|_| io::Error::other("a client thread panicked"))??);
    }
    stop.store(true, Ordering::Relaxed);
    server_thread.join().map_err(|_| io::Error::other("the server thread panicked"))??;
    let fin = fin.lock().map_err(|_| io::Error::other("poisoned"))?;
    let mut report = GhostReport {
        clients: Vec::new(),
        server_objects: config.objects as usize,
        message: fin.message.clone(),
    };
    let seconds = config.seconds + config.settle_seconds;
    for (mut c, held) in client_results {
        let (must, band) = fin.scope.get(&c.index).cloned().unwrap_or_default();
        c.missing_or_wrong = must
            .iter()
            .filter(|(id, p)| held.get(id).is_none_or(|g| dist(*g, *p) > POSITION_TOLERANCE))
            .count();
        let allowed: std::collections::BTreeSet<u32> =
            must.iter().map(|(id, _)| *id).chain(band.iter().copied()).collect();
        c.extra = held.keys().filter(|id| !allowed.contains(id)).count();
        c.baseline_bytes_per_s = fin.baseline_bytes.get(&c.index).copied().unwrap_or(0) as f64 / seconds;
        report.clients.push(c);
    }
    Ok(report)
}

fn run_server(
    mut driver: NetDriver<Port>,
    mut world: DemoWorld,
    config: &GhostDemoConfig,
    clock: SystemClock,
    (start, move_until, check_at): (Millis, Millis, Millis),
    stop: &AtomicBool,
    fin: &Mutex<Final>,
) -> io::Result<()> {
    // The server receives no ghosts.
    let mut no_ghosts = GhostArena::new();
    let mut index_of: BTreeMap<ConnectionId, u32> = BTreeMap::new();
    let mut next_tick = start + TICK_MS;
    let mut tick = 0u64;
    let mut next_baseline = start;
    let mut baseline: BTreeMap<u32, u64> = BTreeMap::new();
    let mut settled = false;
    let mut checked = false;
    let period = u64::from(v12_netobject::RateConfig::SERVER.send_period_ms);
    while !stop.load(Ordering::Relaxed) {
        let now = clock.now_ms();
        // Fixed ticks, caught up one by one: the same world whatever the thread timing.
        while now >= next_tick && next_tick <= move_until {
            tick += 1;
            world.step(TICK_MS as f32 / 1000.0, next_tick as u32, tick);
            next_tick += TICK_MS;
        }
        if now >= move_until && !settled {
            settled = true;
            driver.transport.set_config(clean(&config.link));
        }
        if now >= next_baseline && now < check_at {
            next_baseline += period;
            for &index in index_of.values() {
                *baseline.entry(index).or_default() +=
                    world.full_state_bytes(world.camera(index as usize)) as u64;
            }
        }
        if now >= check_at && !checked {
            checked = true;
            let mut f = fin.lock().map_err(|_| io::Error::other("poisoned"))?;
            for index in 0..config.clients {
                let cam = world.camera(index as usize);
                let must: Vec<(u32, Point3)> = world
                    .in_scope(cam, 0.0)
                    .into_iter()
                    .map(|id| (id, world.objects[id as usize].pos))
                    .collect();
                let band = world.in_scope(cam, 0.1);
                f.scope.insert(index, (must, band));
            }
            f.baseline_bytes = baseline.clone();
            f.message = (world.message.message1.clone(), world.message.message2.clone());
        }
        driver.pump(now, &world, &mut no_ghosts)?;
        while let Some(event) = driver.interface.poll_event() {
            if let InterfaceEvent::Connected { connection, connect_data, .. } = event {
                let index = connect_data.first().copied().map_or(u32::MAX, u32::from);
                index_of.insert(connection, index);
                let net = &mut driver.interface;
                if let Err(e) = net
                    .set_scope_object(connection, Some(world.camera(index as usize)))
                    .and_then(|()| net.start_ghosting(connection))
                {
                    tracing::warn!(error = %e, "cannot ghost to a new client");
                }
            }
        }
        wait(&driver, &clock)?;
    }
    Ok(())
}

type Held = BTreeMap<u32, Point3>;

fn run_client(
    mut driver: NetDriver<Port>,
    index: u32,
    server: NetAddress,
    link: ConditionerConfig,
    clock: SystemClock,
    (move_until, check_at): (Millis, Millis),
) -> io::Result<(GhostClientReport, Held)> {
    let mut report = GhostClientReport { index, ..GhostClientReport::default() };
    let start = clock.now_ms();
    let id =
        driver.interface.connect(start, server.socket_addr(), bytes::Bytes::copy_from_slice(&[index as u8]));
    let mut world = StampingArena::default();
    let (mut stale_sum, mut stale_n) = (0.0, 0u64);
    let mut settled = false;
    // Wait a little after the server's check time so its final updates have arrived.
    let end = check_at + 50;
    while clock.now_ms() < end {
        let now = clock.now_ms();
        if now >= move_until && !settled {
            settled = true;
            driver.transport.set_config(clean(&link));
        }
        world.touched.clear();
        driver.pump(now, &NoObjects, &mut world)?;
        for g in world.touched.drain(..) {
            if let Some(m) = world.arena.get(g).and_then(|o| o.downcast_ref::<Movable>())
                && m.stamp != 0
                && now < move_until
            {
                stale_sum += now.saturating_sub(u64::from(m.stamp)) as f64;
                stale_n += 1;
            }
        }
        while let Some(event) = driver.interface.poll_event() {
            if let InterfaceEvent::ConnectFailed { reason, .. }
            | InterfaceEvent::Disconnected { reason, .. } = event
            {
                report.failure = Some(reason);
            }
        }
        if report.failure.is_some() {
            break;
        }
        wait(&driver, &clock)?;
    }
    let seconds = (clock.now_ms().saturating_sub(start)) as f64 / 1000.0;
    if let Some(c) = driver.interface.connection(id) {
        report.bytes_per_s = c.stats().bytes_received as f64 / seconds.max(1e-3);
    }
    if let Some(rx) = driver.interface.ghost_receiver(id) {
        report.updates_per_s = rx.stats().updates as f64 / seconds.max(1e-3);
    }
    report.mean_staleness_ms = if stale_n > 0 { stale_sum / stale_n as f64 } else { 0.0 };
    let mut held = Held::new();
    for (_, g) in world.arena.iter() {
        if let Some(m) = g.downcast_ref::<Movable>() {
            held.insert(m.ident, m.pos);
        } else if let Some(s) = g.downcast_ref::<SimpleNetObject>() {
            report.message = (s.message1.clone(), s.message2.clone());
        }
    }
    report.ghosts = held.len();
    driver.interface.disconnect(id, "demo finished");
    let leave_until = clock.now_ms() + 60;
    while clock.now_ms() < leave_until {
        driver.pump(clock.now_ms(), &NoObjects, &mut world)?;
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok((report, held))
}
