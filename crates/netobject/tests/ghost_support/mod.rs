//! Shared by the ghost tests and benches: a moving object class, a V12-style message
//! object, a server world with a spatial grid, and a lossy in-order packet pipe between
//! one GhostManager and one GhostReceiver (the notify protocol's guarantee: each packet is
//! delivered in order or dropped, and the sender learns which after a delay).
#![allow(dead_code)]

use rand_core::Rng;
use rand_pcg::Pcg32;
use std::cell::Cell;
use std::collections::VecDeque;
use std::f32::consts::TAU;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::*;
use v12_netobject::{read_str, write_str};

pub const MOVE: u32 = 1 << 0;
pub const TAG: u32 = 1 << 1;
pub const LINK: u32 = 1 << 2;
pub const MAX_SPEED: f32 = 40.0;
pub const SPEED_BITS: u32 = 7;
pub const DIR_BITS: u32 = 5;
pub const HEADING_BITS: u32 = 7;

/// A moving object: position (compressed point), velocity (magnitude + direction),
/// heading, a tag, and an optional object it depends on (a rider's horse).
#[derive(Debug, Default)]
pub struct Mover {
    pub mask: StateMask,
    pub ident: u32,
    pub pos: Point3,
    pub vel: Point3,
    pub heading: f32,
    pub tag: u32,
    pub flags: NetFlags,
    pub depends_on: Option<ObjectId>,
    /// Client side: the ghost the link resolved to.
    pub link: Option<ObjectId>,
    /// Scoping object: the camera's visible distance.
    pub view_distance: f32,
    /// Test probe: every mask this object was asked to pack (reset by the test).
    pub packed: Cell<u32>,
    /// Client side: the create found its dependency already present.
    pub created_with_link: bool,
}

impl Mover {
    pub fn new(ident: u32, pos: Point3, vel: Point3) -> Self {
        Self { ident, pos, vel, flags: NetFlags::GHOSTABLE, ..Self::default() }
    }
}

pub fn quantize_heading(h: f32) -> u32 {
    let steps = (1u32 << HEADING_BITS) as f32;
    ((h.rem_euclid(TAU) / TAU) * steps).round() as u32 % (1 << HEADING_BITS)
}

impl NetObject for Mover {
    fn net_flags(&self) -> NetFlags {
        self.flags
    }
    fn state_mask(&self) -> &StateMask {
        &self.mask
    }
    fn pack_update(&self, ctx: &mut GhostPackContext<'_>, mask: u32, w: &mut BitWriter) -> u32 {
        self.packed.set(self.packed.get() | mask);
        if ctx.is_initial() {
            w.write_int(self.ident, 32);
        }
        if w.write_flag(mask & MOVE != 0) {
            w.write_compressed_point(self.pos.into(), ctx.compression_point());
            w.write_vector(self.vel.into(), MAX_SPEED, SPEED_BITS, DIR_BITS);
            w.write_int(quantize_heading(self.heading), HEADING_BITS);
        }
        if w.write_flag(mask & TAG != 0) {
            w.write_int(self.tag, 16);
        }
        if w.write_flag(mask & LINK != 0 && self.depends_on.is_some()) {
            let ghost = self.depends_on.and_then(|d| ctx.ghost_id_of(d));
            if w.write_flag(ghost.is_some()) {
                w.write_int(ghost.unwrap_or(0), ctx.ghost_id_bits());
            }
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
            self.vel = r.read_vector(MAX_SPEED, SPEED_BITS, DIR_BITS)?.to_array();
            self.heading = r.read_int(HEADING_BITS)? as f32 * TAU / (1u32 << HEADING_BITS) as f32;
        }
        if r.read_flag()? {
            self.tag = r.read_int(16)?;
        }
        if r.read_flag()? {
            if r.read_flag()? {
                let g = r.read_int(ctx.ghost_id_bits())?;
                let obj = ctx.object_of(g).ok_or(GhostError::UnknownGhost(g))?;
                self.link = Some(obj);
                if ctx.is_initial() {
                    self.created_with_link = true;
                }
            } else {
                self.link = None;
            }
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
        if self.view_distance > 0.0 {
            query.visible_distance = self.view_distance;
        }
        let len = (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1]).sqrt();
        if len > 0.0 {
            query.view_dir = [self.vel[0] / len, self.vel[1] / len, 0.0];
        }
    }
    fn dependencies(&self, out: &mut Vec<ObjectId>) {
        out.extend(self.depends_on);
    }
}

impl NetObjectClass for Mover {
    const NAME: &'static str = "Mover";
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
        self.mask.set_mask_bits(Self::MESSAGE1);
        self.message1 = m.into();
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
        if r.read_flag()? {
            self.message1 = read_str(r, 255).map_err(|e| GhostError::BadUpdate(e.to_string()))?;
        }
        if r.read_flag()? {
            self.message2 = read_str(r, 255).map_err(|e| GhostError::BadUpdate(e.to_string()))?;
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

pub fn classes() -> Arc<GhostClassRegistry> {
    Arc::new(
        GhostClassRegistryBuilder::new().register::<Mover>().register::<SimpleNetObject>().build().unwrap(),
    )
}

/// A uniform grid over a square world, so a scoping pass visits only nearby cells.
#[derive(Debug)]
pub struct Grid {
    pub cell: f32,
    pub dim: usize,
    pub cells: Vec<Vec<u32>>,
}

impl Grid {
    pub fn new(size: f32, cell: f32) -> Self {
        let dim = (size / cell).ceil().max(1.0) as usize;
        Self { cell, dim, cells: vec![Vec::new(); dim * dim] }
    }
    pub fn cell_of(&self, p: Point3) -> usize {
        let cx = ((p[0] / self.cell) as isize).clamp(0, self.dim as isize - 1) as usize;
        let cy = ((p[1] / self.cell) as isize).clamp(0, self.dim as isize - 1) as usize;
        cy * self.dim + cx
    }
    pub fn insert(&mut self, id: u32, p: Point3) {
        let c = self.cell_of(p);
        self.cells[c].push(id);
    }
    pub fn moved(&mut self, id: u32, from: Point3, to: Point3) {
        let (a, b) = (self.cell_of(from), self.cell_of(to));
        if a != b {
            if let Some(i) = self.cells[a].iter().position(|&x| x == id) {
                self.cells[a].swap_remove(i);
            }
            self.cells[b].push(id);
        }
    }
    pub fn remove(&mut self, id: u32, p: Point3) {
        let a = self.cell_of(p);
        if let Some(i) = self.cells[a].iter().position(|&x| x == id) {
            self.cells[a].swap_remove(i);
        }
    }
}

/// The server's world: movers and message objects in one arena, addressed by index.
#[derive(Debug)]
pub struct SimWorld {
    pub movers: Vec<Option<Mover>>,
    pub messages: Vec<(ObjectId, SimpleNetObject)>,
    pub grid: Grid,
    pub size: f32,
}

pub const MESSAGE_BASE: u32 = 1 << 30;

pub fn dist(a: Point3, b: Point3) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

impl SimWorld {
    pub fn new(size: f32, cell: f32) -> Self {
        Self { movers: Vec::new(), messages: Vec::new(), grid: Grid::new(size, cell), size }
    }
    /// Random movers spread over the world, speeds up to `speed`.
    pub fn populate(&mut self, rng: &mut Pcg32, n: usize, speed: f32) {
        for _ in 0..n {
            let pos = [unit(rng) * self.size, unit(rng) * self.size, unit(rng) * 10.0];
            let a = unit(rng) * TAU;
            let s = unit(rng) * speed;
            self.add(Mover::new(0, pos, [a.cos() * s, a.sin() * s, 0.0]));
        }
    }
    pub fn add(&mut self, mut m: Mover) -> ObjectId {
        let id = self.movers.len() as u32;
        m.ident = id;
        m.heading = m.vel[1].atan2(m.vel[0]);
        self.grid.insert(id, m.pos);
        self.movers.push(Some(m));
        ObjectId(id)
    }
    pub fn add_message(&mut self, o: SimpleNetObject) -> ObjectId {
        let id = ObjectId(MESSAGE_BASE + self.messages.len() as u32);
        self.messages.push((id, o));
        id
    }
    pub fn mover(&self, id: ObjectId) -> Option<&Mover> {
        self.movers.get(id.0 as usize)?.as_ref()
    }
    pub fn mover_mut(&mut self, id: ObjectId) -> Option<&mut Mover> {
        self.movers.get_mut(id.0 as usize)?.as_mut()
    }
    pub fn delete(&mut self, id: ObjectId) {
        if let Some(slot) = self.movers.get_mut(id.0 as usize)
            && let Some(m) = slot.take()
        {
            self.grid.remove(id.0, m.pos);
        }
    }
    /// Moves every mover by `dt` seconds, bouncing off the edges.
    pub fn step(&mut self, dt: f32) {
        let size = self.size;
        for (i, slot) in self.movers.iter_mut().enumerate() {
            let Some(m) = slot else { continue };
            if m.vel == [0.0; 3] {
                continue;
            }
            let from = m.pos;
            for k in 0..2 {
                m.pos[k] += m.vel[k] * dt;
                if m.pos[k] < 0.0 || m.pos[k] > size {
                    m.vel[k] = -m.vel[k];
                    m.pos[k] = m.pos[k].clamp(0.0, size);
                }
            }
            m.heading = m.vel[1].atan2(m.vel[0]);
            m.mask.set_mask_bits(MOVE);
            self.grid.moved(i as u32, from, m.pos);
        }
    }
}

impl GhostWorld for SimWorld {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        if id.0 >= MESSAGE_BASE {
            return self.messages.get((id.0 - MESSAGE_BASE) as usize).map(|(_, o)| o as &dyn NetObject);
        }
        self.mover(id).map(|m| m as &dyn NetObject)
    }
    fn for_each_scope_always(&self, f: &mut dyn FnMut(ObjectId)) {
        for (id, _) in &self.messages {
            f(*id);
        }
        for (i, m) in self.movers.iter().enumerate() {
            if let Some(m) = m
                && m.flags.contains(NetFlags::SCOPE_ALWAYS)
            {
                f(ObjectId(i as u32));
            }
        }
    }
    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        let g = &self.grid;
        let lo = |v: f32| (((v - radius) / g.cell).floor().max(0.0) as usize).min(g.dim - 1);
        let hi = |v: f32| (((v + radius) / g.cell).floor().max(0.0) as usize).min(g.dim - 1);
        for cy in lo(center[1])..=hi(center[1]) {
            for cx in lo(center[0])..=hi(center[0]) {
                for &id in &g.cells[cy * g.dim + cx] {
                    if let Some(Some(m)) = self.movers.get(id as usize) {
                        let d = dist(m.pos, center);
                        if d <= radius {
                            f(ObjectId(id), d);
                        }
                    }
                }
            }
        }
    }
}

pub fn unit(rng: &mut Pcg32) -> f32 {
    (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32
}

/// Loss on the simulated link: independent, or bursts (Gilbert-Elliott).
#[derive(Clone, Copy, Debug)]
pub struct Loss {
    pub rate: f64,
    pub burst: bool,
}

impl Loss {
    /// As the one network emulator's loss model. Bursts: the bad state loses 80 % and lasts
    /// 1 / 0.3 packets on average, entered often enough that the mean loss is `rate`.
    pub fn to_netsim(self) -> v12_netsim::LossModel {
        if self.rate <= 0.0 {
            return v12_netsim::LossModel::None;
        }
        if !self.burst {
            return v12_netsim::LossModel::Uniform(self.rate);
        }
        let stay_bad = 0.7;
        let enter_bad = (self.rate / 0.8) * (1.0 - stay_bad) / (1.0 - self.rate / 0.8).max(0.05);
        v12_netsim::LossModel::GilbertElliott(v12_netsim::GilbertElliott {
            p_good_to_bad: enter_bad,
            p_bad_to_good: 1.0 - stay_bad,
            loss_in_good: 0.0,
            loss_in_bad: 0.8,
        })
    }
}

/// One server connection's ghosting wired to one client through a lossy in-order pipe.
pub struct Link {
    pub server: GhostManager,
    pub client: GhostReceiver,
    pub arena: GhostArena,
    pub scope_object: ObjectId,
    pub budget_bytes: usize,
    pub notify_delay: u64,
    pub notifies: VecDeque<(u64, GhostRecord, bool)>,
    pub tick: u64,
    /// The pipe: `v12-netsim`'s link, loss only (delivery is in order, within the tick).
    net: v12_netsim::Link<()>,
    pub sent: u64,
    pub dropped: u64,
    pub bits: u64,
    /// Resets the test asked the server for (the client may hold old ghosts until then).
    pub resets_requested: u64,
}

impl Link {
    pub fn new(
        config: GhostConfig,
        scope_object: ObjectId,
        budget_bytes: usize,
        notify_delay: u64,
        seed: u64,
    ) -> Self {
        let classes = classes();
        let mut server = GhostManager::new(config, classes.clone());
        server.start_ghosting();
        Self {
            server,
            client: GhostReceiver::new(classes),
            arena: GhostArena::new(),
            scope_object,
            budget_bytes,
            notify_delay,
            notifies: VecDeque::new(),
            tick: 0,
            net: v12_netsim::Link::new(v12_netsim::LinkConfig::default(), seed),
            sent: 0,
            dropped: 0,
            bits: 0,
            resets_requested: 0,
        }
    }

    fn lose(&mut self, loss: Loss) -> bool {
        let config = v12_netsim::LinkConfig { loss: loss.to_netsim(), ..v12_netsim::LinkConfig::default() };
        if *self.net.config() != config {
            self.net.set_config(config);
        }
        self.net.send(self.tick, (), &[]);
        self.net.pop_due(self.tick).is_none()
    }

    /// Notifies due by now, in send order.
    pub fn deliver_notifies(&mut self, all: bool) {
        while let Some((due, _, _)) = self.notifies.front() {
            if !all && *due > self.tick {
                break;
            }
            let (_, rec, ok) = self.notifies.pop_front().expect("front exists");
            if ok {
                self.server.packet_delivered(rec);
            } else {
                self.server.packet_dropped(rec);
            }
        }
    }

    /// One packet interval: notifies, scoping, write, maybe deliver.
    pub fn step(&mut self, world: &SimWorld, loss: Loss) -> Result<(), GhostError> {
        self.deliver_notifies(false);
        self.server.update_scope(world, self.scope_object);
        let mut w = BitWriter::with_budget_bytes(self.budget_bytes);
        let rec = self.server.write_packet(world, &mut w);
        assert!(w.bit_position() <= self.budget_bytes * 8, "ghost section over the packet budget");
        self.bits += w.bit_position() as u64;
        let bytes = w.into_bytes();
        let lost = self.lose(loss);
        self.sent += 1;
        if lost {
            self.dropped += 1;
        } else {
            self.client.read_packet(&mut self.arena, &mut BitReader::new(&bytes))?;
        }
        self.notifies.push_back((self.tick + self.notify_delay, rec, !lost));
        self.tick += 1;
        self.check_no_reuse();
        Ok(())
    }

    /// No ghost id the client holds belongs to another object on the server.
    pub fn check_no_reuse(&self) {
        for (ghost, obj) in self.client.iter() {
            let g = self.arena.get(obj).expect("table points into the arena");
            let server_obj = self.server.object_of(ghost);
            if server_obj.is_none() && self.client.stats().resets < self.resets_requested {
                continue; // the server forgot every ghost; the reset is on its way
            }
            if let Some(m) = g.downcast_ref::<Mover>() {
                assert_eq!(
                    server_obj,
                    Some(ObjectId(m.ident)),
                    "ghost id {ghost} reused while the client holds it"
                );
            } else {
                assert!(server_obj.is_some_and(|o| o.0 >= MESSAGE_BASE), "ghost id {ghost} reused");
            }
        }
    }

    pub fn client_mover(&self, server_id: ObjectId) -> Option<&Mover> {
        self.arena.iter().filter_map(|(_, g)| g.downcast_ref::<Mover>()).find(|m| m.ident == server_id.0)
    }

    /// Every ghost equals its server object; in-scope objects are ghosted and objects
    /// beyond the hysteresis distance are not.
    pub fn assert_converged(&self, world: &SimWorld, hysteresis: f32) {
        let scope = world.mover(self.scope_object).expect("scope object");
        let center = scope.pos;
        let vis = scope.view_distance;
        for (i, m) in world.movers.iter().enumerate() {
            let Some(m) = m else { continue };
            let d = dist(m.pos, center);
            let ghost = self.client_mover(ObjectId(i as u32));
            if d <= vis || m.flags.contains(NetFlags::SCOPE_ALWAYS) {
                let g = ghost.unwrap_or_else(|| panic!("object {i} at {d:.1} m is in scope but not ghosted"));
                assert_mover_eq(m, g);
            } else if d > vis * (1.0 + hysteresis) {
                assert!(ghost.is_none(), "object {i} at {d:.1} m is out of scope but still ghosted");
            } else if let Some(g) = ghost {
                assert_mover_eq(m, g);
            }
        }
        let movers_ghosted = self.arena.iter().filter(|(_, g)| g.downcast_ref::<Mover>().is_some()).count();
        let live_server = world.movers.iter().flatten().count();
        assert!(movers_ghosted <= live_server);
        for (id, o) in &world.messages {
            let g = self
                .arena
                .iter()
                .filter_map(|(_, g)| g.downcast_ref::<SimpleNetObject>())
                .find(|g| g.message2 == o.message2)
                .unwrap_or_else(|| panic!("message object {id} not ghosted"));
            assert_eq!(g.message1, o.message1);
        }
    }
}

pub fn assert_mover_eq(server: &Mover, ghost: &Mover) {
    assert!(dist(server.pos, ghost.pos) < 0.02, "position {:?} vs ghost {:?}", server.pos, ghost.pos);
    let sv = dist(server.vel, [0.0; 3]);
    let err = dist(server.vel, ghost.vel);
    assert!(err <= 0.5 + sv * 0.1, "velocity {:?} vs ghost {:?}", server.vel, ghost.vel);
    assert_eq!(quantize_heading(server.heading), quantize_heading(ghost.heading), "heading");
    assert_eq!(server.tag, ghost.tag, "tag");
}
