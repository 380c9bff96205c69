//! The server session: the network, the scene, one GameConnection per client, and the
//! game's Rust half (players moved by their clients' moves, projectiles, pickups), run in
//! whole 32 ms ticks by the host. Scripts see it through the functions the host registers
//! (`spawnSceneObject`, `setControlObject`, ...), which act on [`Shared`].

use crate::{HIDDEN, Port, motion, rate_from_prefs};
use glam::Vec3;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use v12_console_vm::{Console, Value};
use v12_netobject::ghost::{GhostArena, ObjectId};
use v12_netobject::{ConnectionId, InterfaceEvent};
use v12_sim::NetDriver;
use v12_sim::container::StaticGeometry;
use v12_sim::datablock::{is_datablocks_ack, send_datablocks};
use v12_sim::game_connection::{self as gc, ServerGameConnection};
use v12_sim::remote_command::RemoteCommands;
use v12_sim::scene::{ControlState, SceneObject, SceneWorld, TICK_SECONDS, settled_state_hash};
use v12_world::mission::WorldObjectGhost;

/// The server: network, scene, per-client GameConnections, and the game's Rust half.
pub(crate) struct Server {
    pub(crate) driver: NetDriver<Port>,
    pub(crate) clients: BTreeMap<ConnectionId, ServerGameConnection>,
    projectiles: BTreeMap<u32, Projectile>,
    cooldown: BTreeMap<u32, u32>,
    pub(crate) tick_us_total: u128,
    pub(crate) ticks: u64,
    pub(crate) time_ms: u64,
    /// Where ghosts sent to the server would go: it is sent none.
    pub(crate) no_ghosts: GhostArena,
    /// The mission's terrain and building as ghosts (refreshed when the mission changes).
    pub(crate) world_ghosts: Vec<WorldObjectGhost>,
    /// The ground players move on (the mission's world).
    pub(crate) ground: Rc<dyn StaticGeometry>,
}

impl Server {
    /// A server on `driver` whose players move on `ground`, its clock at `now`.
    pub(crate) fn new(driver: NetDriver<Port>, now: u64, ground: Rc<dyn StaticGeometry>) -> Self {
        Server {
            driver,
            clients: BTreeMap::new(),
            projectiles: BTreeMap::new(),
            cooldown: BTreeMap::new(),
            tick_us_total: 0,
            ticks: 0,
            time_ms: now,
            no_ghosts: GhostArena::new(),
            world_ghosts: Vec::new(),
            ground,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Projectile {
    owner: ConnectionId,
    ticks_left: u32,
}

/// Shared between script functions and the loop.
#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) world: Option<SceneWorld>,
    /// Scene object → the connection controlling it (set by `spawnPlayer`).
    pub(crate) control: BTreeMap<u32, u32>,
    /// Control objects the script moved (their client needs the full state).
    pub(crate) moved: Vec<u32>,
    /// The match is over and the world settled (`freezeWorld()`).
    pub(crate) frozen: bool,
    /// `ghostCheck()` waits for every client to hold the settled world, until this time.
    pub(crate) ghost_check_by: Option<u64>,
    /// Since when no ghost change has been in flight (while a check waits).
    pub(crate) ghost_settled_since: Option<u64>,
    /// The mission's ground (set with the server), where `spawnSceneObject` places objects.
    pub(crate) ground: Option<Rc<dyn StaticGeometry>>,
}

/// Longest wait of `ghostCheck()` for the ghost traffic to settle (ms).
pub(crate) const GHOST_CHECK_WAIT_MS: u64 = 4000;
/// How long the ghost traffic must have been quiet before the check (ms): over a round trip.
pub(crate) const GHOST_QUIET_MS: u64 = 600;

/// What the Rust half of a server tick reports to scripts.
#[derive(Debug)]
pub(crate) enum GameEvent {
    Pickup { client: u32, item: u32 },
    Hit { shooter: u32, victim: u32 },
}

/// The match is over: projectiles go, every object settles on the grid (their clients'
/// predictions get the full state), and from now on moves move nothing.
pub(crate) fn freeze_world(s: &mut Server, sh: &mut Shared) {
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
pub(crate) fn ghosts_settled(s: &Server, sh: &Shared) -> bool {
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
pub(crate) fn server_ghost_check(
    con: &Console,
    remote: &RemoteCommands,
    s: &Server,
    sh: &Shared,
) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(world) = sh.world.as_ref() else { return lines };
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
        lines.push(format!("GHOSTHASH name={name} hash={hash:016x} ghosts={n}"));
    }
    lines
}

pub(crate) fn server_tick(s: &mut Server, sh: &mut Shared) -> Vec<GameEvent> {
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

pub(crate) fn run_game_events(con: &mut Console, events: &[GameEvent]) {
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

pub(crate) fn server_net_event(
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

/// The scene functions of the server's scripts: `spawnSceneObject`, `setControlObject`,
/// `setObjectPosition`, `setHealth`, `getHealth`, `setHidden`, `isHidden`.
pub(crate) fn register_scene_functions(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
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
