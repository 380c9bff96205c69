//! The server session: the network, the scene, one GameConnection per client, and the
//! game's Rust half (players moved by their clients' moves, projectiles, pickups), run in
//! whole 32 ms ticks by the host. Scripts see it through the game objects they create
//! (`crate::objects`), which act on [`Shared`].

use crate::state::{GameClass, Shared};
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
use v12_sim::scene::{SceneObject, TICK_SECONDS, settled_state_hash};
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

/// Longest wait of `ghostCheck()` for the ghost traffic to settle (ms).
pub(crate) const GHOST_CHECK_WAIT_MS: u64 = 4000;
/// How long the ghost traffic must have been quiet before the check (ms): over a round trip.
pub(crate) const GHOST_QUIET_MS: u64 = 600;

/// What the Rust half of a server tick reports to scripts.
#[derive(Debug)]
pub(crate) enum GameEvent {
    /// A player (scene id) touched an item (scene id).
    Collision { obj: u32, col: u32 },
    /// A projectile thrown by `shooter`'s player hit `victim`'s (clients' console ids).
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
    // Players touching items: the script-created Items that are not hidden.
    let items: Vec<(u32, Vec3)> = world
        .iter()
        .filter(|(id, o)| {
            o.flags & HIDDEN == 0 && sh.objects.get(id).is_some_and(|g| g.class == GameClass::Item)
        })
        .map(|(id, o)| (id, o.state.pos))
        .collect();
    for (player, _, pos) in &players {
        for (item, ipos) in &items {
            if pos.distance(*ipos) < 1.5 {
                out.push(GameEvent::Collision { obj: *player, col: *item });
            }
        }
    }
    out
}

pub(crate) fn run_game_events(con: &mut Console, shared: &Rc<RefCell<Shared>>, events: &[GameEvent]) {
    for e in events {
        match e {
            GameEvent::Collision { obj, col } => {
                // V12 calls the moving object's datablock: `%data.onCollision(%obj, %col)`.
                let found = {
                    let sh = shared.borrow();
                    sh.objects
                        .get(obj)
                        .zip(sh.objects.get(col))
                        .map(|(o, c)| (o.datablock, o.console, c.console))
                };
                if let Some((data, o, c)) = found {
                    con.call_method_if_exists(data, "onCollision", &[Value::from(o), Value::from(c)]);
                }
            }
            GameEvent::Hit { shooter, victim } => {
                con.call_callback("onProjectileHit", &[Value::from(*shooter), Value::from(*victim)]);
            }
        }
    }
}

/// Hands each connection the object its client controls now (after `setControlObject` or a
/// removal).
pub(crate) fn sync_control(s: &mut Server, remote: &RemoteCommands, sh: &Shared) {
    let by_client: BTreeMap<u32, u32> = sh.control.iter().map(|(o, c)| (*c, *o)).collect();
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
            // The client controls nothing now; its player stays until the script's `onDrop`
            // deletes it, as in V12.
            if let Some(client) = remote.client_object(connection) {
                shared.borrow_mut().control.retain(|_, c| *c != client);
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
