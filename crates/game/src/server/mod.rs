//! The server session: the network, the scene, one GameConnection per client, and the
//! game's Rust half (players moved by their clients' moves, projectiles, pickups), run in
//! whole 32 ms ticks by the host. Scripts see it through the game objects they create
//! (`crate::objects`), which act on `Shared`.

pub mod listen;

use crate::state::{GameClass, Shared};
use crate::{HIDDEN, motion, rate_from_prefs};
use glam::Vec3;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use v12_console_vm::{Console, Value};
use v12_netobject::ghost::{GhostArena, ObjectId};
use v12_netobject::{ConnectionId, InterfaceEvent};
use v12_sim::container::{Obstacles, StaticGeometry};
use v12_sim::datablock::{is_datablocks_ack, send_datablocks};
use v12_sim::game_connection::{self as gc, ServerGameConnection};
use v12_sim::remote_command::RemoteCommands;
use v12_sim::scene::{ControlState, Motion, settled_state_hash};
use v12_world::mission::WorldObjectGhost;

/// The server: network, scene, per-client GameConnections, and the game's Rust half.
pub(crate) struct Server {
    pub(crate) driver: crate::SharedDriver,
    pub(crate) clients: BTreeMap<ConnectionId, ServerGameConnection>,
    /// The trigger buttons each control object's last move held (for `onTrigger` edges).
    held: BTreeMap<u32, [bool; 6]>,
    pub(crate) tick_us_total: u128,
    pub(crate) ticks: u64,
    /// Network pumps whose packets were built on the packet threads
    /// (`$Pref::Server::PacketThreads`, a world they may share).
    pub(crate) parallel_pumps: u64,
    pub(crate) time_ms: u64,
    /// Where ghosts sent to the server would go: it is sent none.
    pub(crate) no_ghosts: GhostArena,
    /// The mission's terrain and building as ghosts (refreshed when the mission changes).
    pub(crate) world_ghosts: Vec<WorldObjectGhost>,
    /// The ground players move on (the mission's world).
    pub(crate) ground: Rc<dyn StaticGeometry>,
    /// What players walk into, refilled each tick (see `tick_obstacles`).
    obstacles: Option<Rc<Obstacles>>,
    /// The short-circuit link's client end, until our own client takes it.
    pub(crate) local_link: Option<listen::LocalLink>,
    /// Where the local client's datagrams come from (its connection is the local one).
    pub(crate) local_peer: Option<v12_platform::NetAddress>,
}

impl Server {
    /// A server on `driver` whose players move on `ground`, its clock at `now`.
    pub(crate) fn new(driver: crate::SharedDriver, now: u64, ground: Rc<dyn StaticGeometry>) -> Self {
        Server {
            driver,
            clients: BTreeMap::new(),
            held: BTreeMap::new(),
            tick_us_total: 0,
            ticks: 0,
            parallel_pumps: 0,
            time_ms: now,
            no_ghosts: GhostArena::new(),
            world_ghosts: Vec::new(),
            ground,
            obstacles: None,
            local_link: None,
            local_peer: None,
        }
    }

    /// Is `addr` this server (`host:port` of its UDP port, on loopback or its bound IP)?
    pub(crate) fn is_own_address(&self, addr: &str) -> bool {
        let Ok(a) = addr.parse::<std::net::SocketAddr>() else { return false };
        let me = self.driver.borrow().transport.local_addr().socket_addr();
        a.port() == me.port() && (a.ip() == me.ip() || a.ip().is_loopback() || me.ip().is_unspecified())
    }
}

/// Longest wait of `ghostCheck()` for the ghost traffic to settle (ms).
pub(crate) const GHOST_CHECK_WAIT_MS: u64 = 4000;
/// How long the ghost traffic must have been quiet before the check (ms): over a round trip.
pub(crate) const GHOST_QUIET_MS: u64 = 600;

/// What the Rust half of a server tick reports to scripts (ids are scene ids unless named
/// otherwise; the callbacks go to the datablocks' namespaces).
#[derive(Debug)]
pub(crate) enum GameEvent {
    /// A control object's move pressed or released a trigger: `%data.onTrigger(%obj, %slot, %down)`.
    Trigger { obj: u32, slot: u8, down: bool },
    /// A player touched an item: `%data.onCollision(%obj, %col)`.
    Collision { obj: u32, col: u32 },
    /// A projectile hit something (`col`, a console id: a shape, the terrain, an interior) or
    /// expired: `%data.onCollision(%proj, %col, %fade, %pos, %normal)` for a hit, then
    /// `%data.onExplode(%proj, %pos, %fade)`; then it is deleted.
    Explode { proj: u32, col: Option<u32>, pos: Vec3, normal: Vec3 },
    /// A beam took (`on`) or lost its target (console id): `%data.zapTarget(%proj, %target,
    /// %source)` / `unzapTarget`.
    Zap { proj: u32, target: u32, on: bool },
    /// What an image's state asked for (`crate::weapons`).
    Image(crate::weapons::ImageEffect),
    /// A shape hit something hard (`crate::impacts`).
    Impact(crate::impacts::Impact),
    /// A repair or a beam changed a damage level: (scene id, new level).
    Damage { obj: u32, level: f32 },
    /// Console ids: `%data.onEnterTrigger(%trigger, %obj)`.
    EnterTrigger { trigger: u32, obj: u32 },
    /// Console ids: `%data.onLeaveTrigger(%trigger, %obj)`.
    LeaveTrigger { trigger: u32, obj: u32 },
    /// Console id: `%data.onTickTrigger(%trigger)`, every `tickPeriodMS` while occupied.
    TickTrigger { trigger: u32 },
}

/// The match is over: every object settles on the grid (their clients'
/// predictions get the full state), and from now on moves move nothing.
pub(crate) fn freeze_world(sh: &mut Shared) -> Vec<u32> {
    sh.frozen = true;
    let Some(world) = sh.world.as_mut() else { return Vec::new() };
    for (_, o) in world.iter_mut() {
        o.settle();
    }
    sh.moved.extend(sh.control.keys().copied());
    // Projectiles in flight go (the host deletes their console objects).
    sh.objects
        .values_mut()
        .filter(|g| g.class == GameClass::Projectile)
        .map(|g| {
            g.exploded = true;
            g.console
        })
        .collect()
}

/// True when every client holds every object in its scope as it is now: nothing dirty,
/// no create, update or kill waiting for its acknowledgement.
pub(crate) fn ghosts_settled(s: &Server, sh: &Shared) -> bool {
    let Some(world) = sh.world.as_ref() else { return true };
    let driver = s.driver.borrow();
    s.clients.keys().all(|conn| {
        let Some(gm) = driver.interface.ghost_manager(*conn) else { return true };
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
pub(crate) fn server_ghost_check(
    con: &Console,
    remote: &RemoteCommands,
    s: &Server,
    sh: &Shared,
) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(world) = sh.world.as_ref() else { return lines };
    let driver = s.driver.borrow();
    for (conn, g) in &s.clients {
        let Some(gm) = driver.interface.ghost_manager(*conn) else { continue };
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
        lines.push(format!("GHOSTHASH name={name} hash={hash:016x} ghosts={n}"));
    }
    lines
}

/// A fresh set of what players walk into (see [`fill_obstacles`]), for tests.
#[cfg(test)]
pub(crate) fn player_obstacles(sh: &Shared, ground: &Rc<dyn StaticGeometry>, players: bool) -> Rc<Obstacles> {
    let mut o = Obstacles::new(Some(ground.clone()));
    fill_obstacles(sh, &mut o, players);
    Rc::new(o)
}

/// Refills `o` with what players walk into this tick over the mission's ground: every
/// visible StaticShape and, with `players`, every visible player where it stands (V12's Player
/// collides with other players and shapes through the container), players' boxes as such
/// (see [`Obstacles::set_players`]).
fn fill_obstacles(sh: &Shared, o: &mut Obstacles, players: bool) {
    o.clear_boxes();
    let Some(world) = sh.world.as_ref() else { return };
    let player_half = Motion::default().half_extents;
    for (id, g, obj) in joined(&sh.objects, world).filter(|(_, _, obj)| obj.flags & HIDDEN == 0) {
        match g.class {
            GameClass::StaticShape | GameClass::Turret | GameClass::Vehicle => {
                o.add_box(id, obj.state.pos, g.half_extents)
            }
            // A force field stops everyone it does not let through (no teams here: its
            // `otherPermiable` decides for players with none).
            GameClass::ForceField if !g.permeable.1 => o.add_box(id, obj.state.pos, g.half_extents),
            GameClass::Player if players && g.mount.is_none() => {
                o.add_player_box(id, obj.state.pos, player_half)
            }
            _ => {}
        }
    }
}

/// This tick's obstacles in the server's set, which keeps its allocation from tick to tick
/// (copied first when something still holds last tick's).
fn tick_obstacles(s: &mut Server, sh: &Shared, players: bool) -> Rc<Obstacles> {
    let ground = &s.ground;
    let set = s.obstacles.get_or_insert_with(|| Rc::new(Obstacles::new(Some(ground.clone()))));
    fill_obstacles(sh, Rc::make_mut(set), players);
    set.clone()
}

/// The game objects beside their scene objects, in id order: both are sorted by id, so this
/// is a merge, with no lookup per object (a tick walks them several times).
fn joined<'a>(
    objects: &'a BTreeMap<u32, crate::state::GameObject>,
    world: &'a v12_sim::scene::SceneWorld,
) -> impl Iterator<Item = (u32, &'a crate::state::GameObject, &'a v12_sim::scene::SceneObject)> {
    let mut scene = world.iter().peekable();
    objects.iter().filter_map(move |(&id, g)| {
        while scene.next_if(|(sid, _)| *sid < id).is_some() {}
        scene.next_if(|(sid, _)| *sid == id).map(|(_, o)| (id, g, o))
    })
}

/// A client's control object's tuning and whether it flies (a Camera); the defaults with none.
fn controlled(
    g: &ServerGameConnection,
    objects: &BTreeMap<u32, crate::state::GameObject>,
) -> (crate::PlayerTuning, bool) {
    match g.control_object().and_then(|p| objects.get(&p)) {
        Some(o) => (o.tuning, o.class == GameClass::Camera),
        None => (crate::PlayerTuning::default(), false),
    }
}

pub(crate) fn server_tick(s: &mut Server, sh: &mut Shared) -> Vec<GameEvent> {
    // The static shapes' boxes, and the other players' only when some player walks into them.
    let collide = s.clients.values().any(|g| controlled(g, &sh.objects).0.collide);
    let shapes = sh.objects.values().any(|g| {
        matches!(
            g.class,
            GameClass::StaticShape | GameClass::Turret | GameClass::Vehicle | GameClass::ForceField
        )
    });
    // One set serves every player: other players' boxes count for those that collide.
    let obstacles = (collide || shapes).then(|| tick_obstacles(s, sh, collide));
    let camera = crate::camera_motion();
    let mut out = Vec::new();
    sh.images_by_moves.clear();
    if sh.world.is_none() {
        return out;
    }
    // Control objects: apply the clients' moves; a trigger pressed or released is an event.
    let frozen = sh.frozen;
    // Control objects that do not move under their moves: riders (their seat moves them) and
    // frozen vehicles.
    for g in s.clients.values_mut() {
        let (tuning, flying) = controlled(g, &sh.objects);
        // Each player walks at its datablock's speeds (into everyone else, if it collides).
        let walk_on: Rc<dyn StaticGeometry> = match &obstacles {
            Some(o) => {
                o.set_players(tuning.collide);
                o.set_exempt(g.control_object());
                o.clone()
            }
            None => s.ground.clone(),
        };
        // Players wade, swim and float in the mission's water (`crate::liquid`).
        let m = crate::with_water(motion(Some(walk_on), tuning), &sh.water);
        let still =
            |p| sh.objects.get(&p).is_some_and(|o: &crate::state::GameObject| o.mount.is_some() || o.frozen);
        if frozen || g.control_object().is_some_and(still) {
            let Some(world) = sh.world.as_mut() else { return out };
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
        // A player's energy and its first images are part of its predicted state while its
        // moves drive it: the server's (scripts and other images change them between ticks)
        // go in, and what the moves left (jets, jumps, recharge, shots) comes back out.
        let p = g.control_object().filter(|p| sh.objects.contains_key(p));
        let m = match p {
            Some(p) if !flying => Motion { images: crate::weapons::predicted_models(sh, p), ..m },
            _ => m,
        };
        if let Some(p) = p {
            crate::weapons::hand_in(sh, p);
        }
        let Some(world) = sh.world.as_mut() else { return out };
        // A Camera flies; everything else walks on the mission's ground.
        let moves = g.process_tick(world, if flying { &camera } else { &m });
        if let Some(p) = p {
            crate::weapons::take_out(sh, p);
            out.extend(g.image_effects.drain(..).map(|(slot, effect)| {
                GameEvent::Image(crate::weapons::ImageEffect { obj: p, slot, effect, predicted: true })
            }));
        }
        if let Some(p) = g.control_object() {
            let held = s.held.entry(p).or_insert([false; 6]);
            for mv in &moves {
                for (slot, (now, was)) in mv.triggers.iter().zip(held.iter_mut()).enumerate() {
                    if *now != *was {
                        *was = *now;
                        out.push(GameEvent::Trigger { obj: p, slot: slot as u8, down: *now });
                    }
                }
            }
        }
    }
    world_tick(sh, &s.ground, &mut out);
    out
}

pub(crate) fn run_game_events(con: &mut Console, shared: &Rc<RefCell<Shared>>, events: &[GameEvent]) {
    // (datablock, console id) of a game object by scene id, and of a trigger by console id.
    let obj = |scene: u32| shared.borrow().objects.get(&scene).map(|g| (g.datablock, g.console));
    let trig = |id: u32| shared.borrow().triggers.get(&id).map(|t| t.datablock);
    let cached = shared.borrow().names;
    let names = cached.unwrap_or_else(|| crate::state::CallbackNames::new(con));
    for e in events {
        match *e {
            GameEvent::Trigger { obj: o, slot, down } => {
                if let Some((data, o)) = obj(o) {
                    let args = [Value::from(o), Value::from(u32::from(slot)), Value::from(down)];
                    con.call_method_name_if_exists(data, names.on_trigger, &args);
                }
            }
            GameEvent::Collision { obj: o, col } => {
                // V12 calls the moving object's datablock.
                if let (Some((data, o)), Some((_, c))) = (obj(o), obj(col)) {
                    con.call_method_name_if_exists(
                        data,
                        names.on_collision,
                        &[Value::from(o), Value::from(c)],
                    );
                }
            }
            GameEvent::Explode { proj, col, pos, normal } => {
                let Some((data, p)) = obj(proj) else { continue };
                crate::audio::check_explosion_sound(con, shared, proj);
                let at = Value::from(format!("{} {} {}", pos.x, pos.y, pos.z));
                if let Some(c) = col.filter(|c| con.object(*c).is_some()) {
                    let n = Value::from(format!("{} {} {}", normal.x, normal.y, normal.z));
                    let args = [Value::from(p), Value::from(c), Value::from(1), at.clone(), n];
                    con.call_method_name_if_exists(data, names.on_collision, &args);
                }
                if con.object(p).is_some() {
                    con.call_method_name_if_exists(
                        data,
                        names.on_explode,
                        &[Value::from(p), at, Value::from(1)],
                    );
                    con.delete_object(p);
                }
            }
            GameEvent::Zap { proj, target, on } => {
                let Some((data, p)) = obj(proj) else { continue };
                if con.object(target).is_none() {
                    continue;
                }
                let source = shared
                    .borrow()
                    .objects
                    .get(&proj)
                    .and_then(|g| g.source)
                    .and_then(obj)
                    .map_or(0, |(_, c)| c);
                let callback = if on { "zapTarget" } else { "unzapTarget" };
                con.call_method_if_exists(
                    data,
                    callback,
                    &[Value::from(p), Value::from(target), Value::from(source)],
                );
            }
            GameEvent::Image(ref e) => {
                let e = crate::weapons::ImageEffect { effect: e.effect.clone(), ..*e };
                crate::weapons::run_effects(con, shared, vec![e]);
            }
            GameEvent::Impact(i) => crate::impacts::run(con, shared, &[i]),
            GameEvent::Damage { obj: o, level } => crate::damage::set_damage(con, shared, o, level),
            GameEvent::EnterTrigger { trigger, obj: o } | GameEvent::LeaveTrigger { trigger, obj: o } => {
                let Some(data) = trig(trigger) else { continue };
                if con.object(o).is_none() {
                    continue; // deleted while inside
                }
                let name = if matches!(e, GameEvent::EnterTrigger { .. }) {
                    names.on_enter_trigger
                } else {
                    names.on_leave_trigger
                };
                con.call_method_name_if_exists(data, name, &[Value::from(trigger), Value::from(o)]);
            }
            GameEvent::TickTrigger { trigger } => {
                if let Some(data) = trig(trigger) {
                    con.call_method_name_if_exists(data, names.on_tick_trigger, &[Value::from(trigger)]);
                }
            }
        }
    }
}

/// How near (m) a player on foot must come to a vehicle's box to touch it: the walk stops at
/// the hull, so contact is counted a little outside it.
const VEHICLE_REACH: f32 = 0.3;

/// The world's half of a tick, the same with or without clients: every game object's tick in
/// the process list's order (items fall, projectiles fly and hit, riders follow their mounts,
/// repairs, recharges, turrets and images), then players touch items and vehicles and
/// triggers see what enters and leaves. Events go to `out`.
pub(crate) fn world_tick(sh: &mut Shared, ground: &Rc<dyn StaticGeometry>, out: &mut Vec<GameEvent>) {
    let mut scratch = std::mem::take(&mut sh.tick_scratch);
    world_tick_with(sh, ground, out, &mut scratch);
    sh.tick_scratch = scratch;
}

/// [`world_tick`] with its lists in `t` (emptied first).
fn world_tick_with(
    sh: &mut Shared,
    ground: &Rc<dyn StaticGeometry>,
    out: &mut Vec<GameEvent>,
    t: &mut crate::state::TickScratch,
) {
    let Some(world) = sh.world.as_mut() else { return };
    // The players that shots hit and items are picked up by, and the items they touch
    // (with who may not touch them yet, `setCollisionTimeout`): every one not hidden (neither
    // moves in the rest of the tick). The boxes of the players on foot and of the vehicles,
    // for the players' contacts.
    let crate::state::TickScratch { players, items, walkers, vehicles, inside: now } = t;
    players.clear();
    items.clear();
    walkers.clear();
    vehicles.clear();
    for (id, g, o) in joined(&sh.objects, world).filter(|(_, _, o)| o.flags & HIDDEN == 0) {
        match g.class {
            GameClass::Player => {
                players.push((id, o.state.pos));
                if g.mount.is_none() {
                    walkers.push((id, crate::placement::world_box(g, o.state.pos)));
                }
            }
            GameClass::Item => items.push((id, o.state.pos, g.collision_timeout)),
            GameClass::Vehicle => vehicles.push((id, crate::placement::world_box(g, o.state.pos))),
            _ => {}
        }
    }
    // Every object's box where it stands now (what shots fly through), then the objects'
    // ticks. No script runs inside the pass (its events run after the tick), so the list
    // cannot change under it.
    crate::placement::place_all(sh);
    let mut list = std::mem::take(&mut sh.process);
    // How an item that is not `static` falls (one for the whole tick).
    let fall = Motion {
        gravity: crate::WORLD_GRAVITY,
        arena_half: 2048.0,
        half_extents: Vec3::new(0.35, 0.35, 0.35),
        ground: Some(ground.clone()),
        ..Motion::default()
    };
    list.0.advance_server_time(v12_sim::process::TICK_MS, &mut ObjectTicks { sh, ground, fall: &fall, out });
    sh.process = list;
    if !sh.frozen {
        for (obj, amount) in std::mem::take(&mut sh.pending_damage) {
            if let Some(g) = sh.objects.get(&obj) {
                out.push(GameEvent::Damage { obj, level: g.damage + amount });
            }
        }
        out.extend(crate::impacts::find(sh).into_iter().map(GameEvent::Impact));
    }
    crate::placement::place_all(sh);
    let tick = sh.process.0.ticks();
    crate::sensors::sweep(sh, tick);
    let Some(world) = sh.world.as_ref() else { return };
    // Players touching items.
    for (player, pos) in players.iter() {
        for (item, ipos, timeout) in items.iter() {
            let waiting = timeout.is_some_and(|(who, until)| who == *player && tick < until);
            if pos.distance(*ipos) < 1.5 && !waiting {
                out.push(GameEvent::Collision { obj: *player, col: *item });
            }
        }
    }
    // Players on foot against vehicles (within a hand's reach of the hull): V12's player
    // collision list, where Tribes 2's `Armor::onCollision` seats a player in a vehicle.
    for (player, b) in walkers.iter() {
        let reach = v12_sim::container::Aabb::new(
            b.min - Vec3::splat(VEHICLE_REACH),
            b.max + Vec3::splat(VEHICLE_REACH),
        );
        for (vehicle, vb) in vehicles.iter() {
            if reach.overlaps(vb) {
                out.push(GameEvent::Collision { obj: *player, col: *vehicle });
            }
        }
    }
    // Trigger volumes: what entered, what left, and the tick while something is inside.
    for (&trigger, t) in sh.triggers.iter_mut() {
        now.clear();
        now.extend(
            joined(&sh.objects, world)
                .filter(|(_, g, o)| {
                    g.class != GameClass::Projectile && o.flags & HIDDEN == 0 && t.contains(o.state.pos)
                })
                .map(|(_, g, _)| g.console),
        );
        now.sort_unstable();
        // Most ticks nothing enters or leaves: no set is built then.
        if !now.iter().eq(t.inside.iter()) {
            let now: BTreeSet<u32> = now.iter().copied().collect();
            for &obj in now.difference(&t.inside) {
                out.push(GameEvent::EnterTrigger { trigger, obj });
            }
            for &obj in t.inside.difference(&now) {
                out.push(GameEvent::LeaveTrigger { trigger, obj });
            }
            t.inside = now;
        }
        if t.inside.is_empty() {
            t.since_tick_ms = 0;
        } else {
            t.since_tick_ms += v12_sim::process::TICK_MS;
            if t.since_tick_ms >= t.tick_period_ms {
                t.since_tick_ms = 0;
                out.push(GameEvent::TickTrigger { trigger });
            }
        }
    }
}

/// The game objects on the server's process list: one object's tick (V12's
/// `GameBase::processTick` of each class). Once the match is over and the world frozen for the
/// ghost check, only falling items and flying shots still move.
struct ObjectTicks<'a> {
    sh: &'a mut Shared,
    ground: &'a Rc<dyn StaticGeometry>,
    fall: &'a Motion,
    out: &'a mut Vec<GameEvent>,
}

impl v12_sim::process::ProcessWorld for ObjectTicks<'_> {
    fn process_tick(&mut self, id: u32, _mv: Option<&v12_sim::moves::Move>) {
        let sh = &mut *self.sh;
        let Some(g) = sh.objects.get(&id) else { return };
        match g.class {
            GameClass::Item if g.falls => fall(sh, self.fall, id),
            GameClass::Projectile if !g.exploded => fly(sh, self.ground, id, self.out),
            GameClass::Camera if g.orbit.is_some() => orbit(sh, id),
            _ => {}
        }
        // A shot is a GameBase, not a ShapeBase: nothing rides it, it has no images, energy or
        // repair, so the rest (and its cache misses: shots are most of the objects) is skipped.
        if sh.frozen || sh.objects.get(&id).is_none_or(|g| g.class == GameClass::Projectile) {
            return;
        }
        crate::mount::follow_one(sh, id);
        if let Some(level) = crate::damage::tick_one(sh, id) {
            self.out.push(GameEvent::Damage { obj: id, level });
        }
        if sh.objects.get(&id).is_some_and(|g| g.class == GameClass::Turret) {
            crate::turrets::think(sh, id);
        }
        self.out.extend(crate::weapons::tick_one(sh, id).into_iter().map(GameEvent::Image));
    }
    fn interpolate_tick(&mut self, _id: u32, _delta: f32) {}
    fn advance_time(&mut self, _id: u32, _dt: f32) {}
}

/// An item that is not `static` falls onto the ground and rests there (to the bit, so a
/// resting item sends nothing).
fn fall(sh: &mut Shared, fall: &Motion, id: u32) {
    let Some(o) = sh.world.as_mut().and_then(|w| w.get_mut(id)) else { return };
    let mut st = o.state;
    st.apply_move(&v12_sim::moves::NULL_MOVE, fall);
    if st != o.state {
        o.set_state(st);
    }
}

/// A shot flies through the container (`crate::projectiles`) and explodes where it hits, at
/// the end of its life or far outside the world.
fn fly(sh: &mut Shared, ground: &Rc<dyn StaticGeometry>, id: u32, out: &mut Vec<GameEvent>) {
    for (proj, outcome) in crate::projectiles::step_one(sh, ground.as_ref(), id) {
        match outcome {
            crate::projectiles::Outcome::Explode { col, pos, normal } => {
                if let Some(g) = sh.objects.get_mut(&proj) {
                    g.exploded = true;
                }
                out.push(GameEvent::Explode { proj, col, pos, normal });
            }
            crate::projectiles::Outcome::Zap { target, on } => out.push(GameEvent::Zap { proj, target, on }),
        }
    }
    let Some(g) = sh.objects.get_mut(&id).filter(|g| !g.exploded) else { return };
    let Some(pos) = sh.world.as_ref().and_then(|w| w.get(id)).map(|o| o.state.pos) else { return };
    if g.ticks_left == 0 || pos.x.abs() > 4096.0 || pos.y.abs() > 4096.0 || pos.z.abs() > 4096.0 {
        g.exploded = true;
        out.push(GameEvent::Explode { proj: id, col: None, pos, normal: Vec3::Z });
    }
}

/// A camera in orbit mode circles its object at its distance, facing it; its client gets the
/// full state (the placement is the server's, not the moves').
fn orbit(sh: &mut Shared, id: u32) {
    let Some((target, dist)) = sh.objects.get(&id).and_then(|g| g.orbit) else { return };
    let Some(world) = sh.world.as_mut() else { return };
    let Some(center) = world.get(target).map(|o| o.state.pos + Vec3::Z * 1.5) else { return };
    let Some(o) = world.get_mut(id) else { return };
    let (s, c) = o.state.yaw.sin_cos();
    let pos = center - Vec3::new(-s, c, 0.0) * dist;
    if o.state.pos != pos || o.state.vel != Vec3::ZERO {
        o.set_state(ControlState { pos, vel: Vec3::ZERO, ..o.state });
        sh.moved.push(id);
    }
}

/// Hands each connection the object its client controls now (after `setControlObject` or a
/// removal).
pub(crate) fn sync_control(s: &mut Server, remote: &RemoteCommands, sh: &Shared) {
    // A shape that drives another (a pilot its vehicle) hands its client's moves to it.
    let drives = |o: u32| {
        sh.objects.get(&o).and_then(|g| g.drives).filter(|v| sh.objects.contains_key(v)).unwrap_or(o)
    };
    let by_client: BTreeMap<u32, u32> = sh.control.iter().map(|(o, c)| (*c, drives(*o))).collect();
    for (conn, g) in &mut s.clients {
        let want = remote.client_object(*conn).and_then(|c| by_client.get(&c).copied());
        if g.control_object() != want {
            g.set_control_object(want);
        }
    }
}

pub(crate) fn server_net_event(
    con: &mut Console,
    remote: &RemoteCommands,
    s: &mut Server,
    shared: &Rc<RefCell<Shared>>,
    ev: InterfaceEvent,
) {
    match ev {
        InterfaceEvent::Connected { connection, addr, connect_data, .. } => {
            let local = s.local_peer.is_some_and(|p| p.socket_addr() == addr);
            let rate = if local { v12_netobject::RateConfig::LOCAL } else { rate_from_prefs(con, true) };
            let _ = s.driver.borrow_mut().interface.set_rate(connection, rate);
            if local {
                // The listen server's own client: SCOPE_LOCAL objects reach it alone.
                let _ = s.driver.borrow_mut().interface.set_local_connection(connection);
            }
            let args = gc::decode_connect_args(&connect_data);
            let arrived = gc::server_connection_arrived(
                con,
                remote,
                &mut s.driver.borrow_mut().interface,
                connection,
                // V12's address of the local connection.
                &if local { "local".to_string() } else { addr.to_string() },
                &args,
            );
            match arrived {
                Ok(Some(client)) => {
                    if local {
                        // V12's name for the server side of its own client.
                        con.set_object_name(client, "LocalClientConnection");
                    }
                    // What scripts may ask of the connection's security.
                    if let Some(c) = s.driver.borrow().interface.connection(connection) {
                        con.set_field(client, "encrypted", i64::from(c.is_encrypted()));
                        if let Some(t) = c.connect_token() {
                            con.set_field(client, "connectTokenId", t.client_id.to_string());
                            let data = String::from_utf8_lossy(&t.user_data).into_owned();
                            con.set_field(client, "connectTokenData", data);
                        }
                    }
                    shared.borrow_mut().client_conns.insert(client, connection);
                    let mut g = ServerGameConnection::new(connection);
                    let ctl = shared.borrow().control.iter().find(|(_, c)| **c == client).map(|(o, _)| *o);
                    g.set_control_object(ctl);
                    s.clients.insert(connection, g);
                    let _ = send_datablocks(con, &mut s.driver.borrow_mut().interface, connection);
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(%e, "connection refused"),
            }
        }
        InterfaceEvent::Disconnected { connection, reason, .. } => {
            // The client controls nothing now; its player stays until the script's `onDrop`
            // deletes it, as in V12.
            if let Some(client) = remote.client_object(connection) {
                shared.borrow_mut().control.retain(|_, c| *c != client);
            }
            s.clients.remove(&connection);
            shared.borrow_mut().voice.forget(connection);
            crate::owners::client_left(shared, connection);
            gc::server_connection_dropped(con, remote, connection, &reason);
        }
        InterfaceEvent::ConnectFailed { .. } => {}
        InterfaceEvent::EventReceived { connection, event } => {
            if crate::owners::is_owned_event(&*event) {
                let client = remote.client_object(connection);
                crate::owners::server_event(con, client, &s.driver, shared, connection, &*event);
            } else if is_datablocks_ack(&*event) {
                // Once per connection; a repeat (or an ack from no game connection) is a
                // protocol error for that connection only.
                let step = match s.clients.get_mut(&connection) {
                    Some(g) => g.accept_datablocks_ack(),
                    None => Err("protocol error: datablocks ack before the game connection"),
                };
                if let Err(reason) = step {
                    tracing::warn!(%connection, reason, "dropping a client");
                    s.driver.borrow_mut().interface.disconnect(connection, reason);
                    return;
                }
                let _ = s.driver.borrow_mut().interface.start_ghosting(connection);
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
            } else if crate::audio::voice_server_event(
                con,
                remote.client_object(connection),
                shared,
                &s.driver,
                connection,
                s.time_ms,
                &*event,
            ) {
            } else {
                remote.handle_server_event(con, connection, &*event);
            }
        }
    }
}

/// A hash of the server's simulation state, exact to the bit: every scene object's id and
/// [`SceneObject::exact_hash`](v12_sim::scene::SceneObject::exact_hash), and the scoreboard.
/// A journal's recording and its replay print the same one.
pub(crate) fn state_hash(sh: &Shared, scoreboard: &str) -> u64 {
    let mut words: Vec<u64> = Vec::new();
    for (id, o) in sh.world.iter().flat_map(|w| w.iter()) {
        words.extend([u64::from(id), o.exact_hash()]);
    }
    words.extend(scoreboard.bytes().map(u64::from));
    v12_sim::scene::mix_words(&words)
}
