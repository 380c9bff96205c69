//! The one client session: a connection to a server with its ghosts, datablocks, remote
//! commands and prediction, ticked every 32 ms with the input of each tick supplied by the
//! caller (the keyboard and mouse of the window client, the bot of a headless client, the
//! autopilot of the screenshot). The `v12` host, the window client and the headless
//! screenshot all run this type, so there is one client loop.
//!
//! It turns what it knows into a [`WorldView`] and a [`HudState`] for drawing, and into a
//! [`ClientReport`] for the host's status lines.

use crate::client::demo::{DemoBlock, DemoFile, DemoGhost, ghost_state_hash};
use crate::client::ghost_container::GhostPlace;
use crate::client::snapshot::{HudState, ObjectKind, ViewObject, WorldView};
use crate::mission::ClientGhosts;
use crate::state::{ClientGhostIndex, GhostState};
use crate::{HIDDEN, Port, motion};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use v12_console_vm::Console;
use v12_netobject::ghost::{NoObjects, ObjectId};
use v12_netobject::{ConnectionId, InterfaceConfig, InterfaceEvent, NetInterface, RateConfig};
use v12_platform::{ConditionerConfig, LinkConditioner, NetAddress, UdpTransport};
use v12_resource::ResourceManager;
use v12_services::NetDriver;
use v12_sim::container::{Obstacles, ScriptContainer, StaticGeometry};
use v12_sim::datablock::{ClientDataBlocks, DataBlockProgress};
use v12_sim::game_connection::{self as gc, ClientGameConnection, ConnectAcceptedEvent};
use v12_sim::ghost_process::GhostProcess;
use v12_sim::moves::Move;
use v12_sim::process::TICK_MS;
use v12_sim::remote_command::RemoteCommands;
use v12_sim::scene::{ClientScene, Motion, SceneObject, UpdateCoverage, settled_state_hash};
use v12_world::MissionHandle;
use v12_world::MissionWorld;
use v12_world::mission::WorldGhosts;

/// How many of the nearest players the coverage figure watches.
pub const NEAREST_PLAYERS: usize = 8;
/// Coverage is counted from this long after `connect` (ms): past the joining burst
/// (datablocks, every ghost's create).
pub const COVERAGE_WARMUP_MS: u64 = 3000;

/// Where and how to connect.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// The server, `host:port`.
    pub addr: String,
    /// The connect arguments the server's `onConnect` receives (the player's name first).
    pub args: Vec<String>,
    /// Seeds the link conditioner (the handshake keys come from the OS).
    pub seed: u64,
    /// A link conditioner on the client's socket (`None`: a clean link).
    pub link: Option<ConditionerConfig>,
    /// Packet rate and size both ways.
    pub rate: RateConfig,
    /// The handshake key material (`None`: fresh from the OS; a journal passes its own).
    pub keys: Option<[u8; 32]>,
}

impl ConnectOptions {
    /// `name` joins `addr` over a clean link at the rates in the console's prefs.
    pub fn new(con: &Console, addr: &str, name: &str) -> Self {
        ConnectOptions {
            addr: addr.to_string(),
            args: vec![name.to_string()],
            seed: 0,
            link: None,
            rate: crate::rate_from_prefs(con, false),
            keys: None,
        }
    }
}

/// The figures of the host's `CLIENT` status line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientReport {
    pub rtt_ms: f32,
    pub bytes_in: u64,
    pub corrections: u64,
    /// The longest time (ms) since any other player's ghost was updated.
    pub staleness_ms: u32,
    pub ghosts: usize,
    /// Fraction of server packets that updated each of the nearest players.
    pub coverage: f64,
    /// When the session connected (ms).
    pub started_ms: u64,
}

/// A client connection to a `v12` server.
pub struct ClientSession {
    remote: RemoteCommands,
    driver: crate::SharedDriver,
    server: ConnectionId,
    scene: ClientScene,
    /// The ghosts on the client's process list: ticked, then interpolated every frame.
    ghosts: GhostProcess,
    /// When the ghosts last advanced (ms).
    ghost_ms: u64,
    gcon: ClientGameConnection,
    blocks: ClientDataBlocks,
    block_class: BTreeMap<u32, String>,
    /// How the control object's datablock makes it run and jump (read each frame).
    tuning: crate::PlayerTuning,
    /// The box of each StaticShape datablock (by server id), read from its fields once.
    shape_boxes: BTreeMap<u32, glam::Vec3>,
    /// Vehicle datablocks' boxes (half extents), for drawing them and their jets (not
    /// obstacles of the predicted walk).
    vehicle_boxes: BTreeMap<u32, glam::Vec3>,
    /// Each datablock's `shapeFile` (by server id), read once.
    shape_files: BTreeMap<u32, Option<std::rc::Rc<str>>>,
    /// The `TSShapeConstructor` datablocks' sequence names, read once the datablocks are in.
    constructors: Option<crate::client::shapes::ShapeConstructors>,
    /// Each item datablock's `rotate`, read once.
    rotates: BTreeMap<u32, bool>,
    /// `sendControlMessage` orders waiting to go to the server (the owned-object model's control
    /// messages).
    control_out: crate::owners::ControlQueue,
    connected: bool,
    accepted: bool,
    ended: bool,
    time_ms: u64,
    /// Ticks run so far.
    tick: u64,
    started_ms: u64,
    rate_window: (u64, u64),
    kbps_in: f32,
    /// Are the nearest players updated in every server packet?
    coverage: UpdateCoverage,
    /// Server data packets received so far (for [`Self::coverage`]).
    data_seen: u64,
    /// The world the server's terrain and building ghosts build here.
    world: MissionHandle,
    world_ghosts: WorldGhosts,
    ground: Rc<dyn StaticGeometry>,
    /// The console's `ServerConnection`.
    server_connection: u32,
    /// Each ghost's console object (in [`Self::ghost_group`]), so client scripts can find
    /// and query ghosts: local ghost id → console id.
    ghost_objects: BTreeMap<ObjectId, u32>,
    ghost_group: Option<u32>,
    /// Server datablock id → the client's copy (console id).
    block_local: BTreeMap<u32, u32>,
    /// A demo being recorded (`recordDemo`): its start state; the packets are netobject's.
    demo: Option<DemoFile>,
    /// The ghosts' console objects in the world's container (the client container).
    placed: crate::client::ghost_container::GhostContainer,
    /// The control object's images, predicted with its moves.
    own_images: crate::client::own_images::OwnImages,
    /// The last move this client made (its vehicle's jets fire from it).
    last_move: Move,
    /// The water the predicted walk wades and swims in: the server's, built from the ghosted
    /// blocks over the same terrain (`crate::liquid`).
    water: Rc<crate::liquid::ServerWater>,
}

impl std::fmt::Debug for ClientSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSession")
            .field("connected", &self.connected)
            .field("accepted", &self.accepted)
            .finish_non_exhaustive()
    }
}

/// The address a client binds to reach `server`: loopback for a server on this machine, any
/// interface otherwise.
fn client_bind_ip(server: SocketAddr) -> std::net::IpAddr {
    match server.ip() {
        ip if ip.is_loopback() => ip,
        std::net::IpAddr::V4(_) => std::net::Ipv4Addr::UNSPECIFIED.into(),
        std::net::IpAddr::V6(_) => std::net::Ipv6Addr::UNSPECIFIED.into(),
    }
}

impl ClientSession {
    /// Creates `ServerConnection` in the console and starts connecting. `remote` is the
    /// console's `RemoteCommands` (registered once per console; a listen server shares it);
    /// `resources` are the game's files, where the server's world is loaded from (one
    /// instance of each with a listen server's). The console's prefs choose encryption and
    /// the connect token.
    pub fn connect(
        con: &mut Console,
        remote: RemoteCommands,
        resources: Rc<ResourceManager>,
        opts: &ConnectOptions,
        now: u64,
    ) -> io::Result<Self> {
        let port = Self::bind_port(opts)?;
        Self::connect_via(con, remote, resources, opts, now, port)
    }

    /// The UDP port [`Self::connect`] uses for `opts`: bound where the server is reachable,
    /// behind the link conditioner.
    pub fn bind_port(opts: &ConnectOptions) -> io::Result<Port> {
        let sock: SocketAddr =
            opts.addr.parse().map_err(|_| io::Error::other(format!("bad address {}", opts.addr)))?;
        let udp = UdpTransport::bind(NetAddress::new(client_bind_ip(sock), 0))?;
        Ok(Box::new(LinkConditioner::new(udp, opts.link.unwrap_or_default(), opts.seed ^ 0x77)))
    }

    /// [`Self::connect`] through a given port: the short-circuit link of a listen server's
    /// own client, say.
    pub fn connect_via(
        con: &mut Console,
        remote: RemoteCommands,
        resources: Rc<ResourceManager>,
        opts: &ConnectOptions,
        now: u64,
        port: Port,
    ) -> io::Result<Self> {
        let sock: SocketAddr =
            opts.addr.parse().map_err(|_| io::Error::other(format!("bad address {}", opts.addr)))?;
        let encryption = crate::net_security::encryption(con).map_err(io::Error::other)?;
        let token = crate::net_security::client_token(con).map_err(io::Error::other)?;
        let server_connection = gc::client_create_server_connection(con).map_err(io::Error::other)?;
        con.set_object_data(server_connection, Box::new(ClientGhostIndex::default()));
        let (reg, ghosts) = crate::registries();
        let mut iface = NetInterface::new(
            InterfaceConfig { client_rate: opts.rate, encryption, ..Default::default() },
            reg,
            opts.keys.unwrap_or_else(|| crate::entropy(opts.seed, 0x55)),
        );
        iface.set_ghost_classes(ghosts);
        let data = gc::encode_connect_args(&opts.args).into();
        let server = match token {
            Some(t) => iface.connect_with_token(now, sock, data, t),
            None => iface.connect(now, sock, data),
        };
        let world = MissionWorld::new(resources, Rc::new(RefCell::new(ScriptContainer::default())));
        // The client container answers the scripts' `useClientContainer` queries.
        v12_sim::container::link_client_container(con, &world.borrow().container);
        let control_out = crate::owners::register_client(con);
        Ok(ClientSession {
            remote,
            driver: Rc::new(RefCell::new(NetDriver::new(iface, port))),
            server,
            scene: ClientScene::new(),
            ghosts: GhostProcess::new(),
            ghost_ms: now,
            gcon: ClientGameConnection::new(),
            blocks: ClientDataBlocks::new(),
            block_class: BTreeMap::new(),
            tuning: crate::PlayerTuning::default(),
            shape_boxes: BTreeMap::new(),
            vehicle_boxes: BTreeMap::new(),
            shape_files: BTreeMap::new(),
            constructors: None,
            rotates: BTreeMap::new(),
            control_out,
            connected: false,
            accepted: false,
            ended: false,
            time_ms: now,
            tick: 0,
            started_ms: now,
            rate_window: (now, 0),
            kbps_in: 0.0,
            coverage: UpdateCoverage::new(),
            data_seen: 0,
            world_ghosts: WorldGhosts::new(world.clone()),
            ground: MissionWorld::ground(&world),
            world,
            server_connection,
            ghost_objects: BTreeMap::new(),
            ghost_group: None,
            block_local: BTreeMap::new(),
            demo: None,
            own_images: Default::default(),
            last_move: v12_sim::moves::NULL_MOVE,
            water: Rc::default(),
            placed: Default::default(),
        })
    }

    /// The connection ended (rejected, dropped or timed out).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The server accepted us.
    pub fn accepted(&self) -> bool {
        self.accepted
    }

    /// Ticks run so far.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Runs the client's ticks up to `now`, each with the move `input` makes (it may look at
    /// the session, as the bot does), then its network turn: remote commands out, packets
    /// both ways, and the received events (connection callbacks, datablocks, commands).
    /// The network driver (the host keeps it alive while a script is stopped).
    pub(crate) fn driver(&self) -> &crate::SharedDriver {
        &self.driver
    }

    /// Skips `ms` of game time (spent stopped in the script debugger) instead of
    /// running a tick for each 32 ms of it.
    pub(crate) fn skip_time(&mut self, ms: u64) {
        self.time_ms += ms;
        self.ghost_ms += ms;
    }

    pub fn advance(
        &mut self,
        con: &mut Console,
        now: u64,
        mut input: impl FnMut(&ClientSession) -> Move,
    ) -> io::Result<()> {
        self.tuning = self
            .control_local()
            .and_then(|id| self.scene.get(id))
            .and_then(|g| self.block_local.get(&g.datablock).copied())
            .map_or_else(crate::PlayerTuning::default, |db| crate::PlayerTuning::of_datablock(con, db));
        if self.constructors.is_none() && self.blocks.is_done() {
            self.constructors = Some(crate::client::shapes::ShapeConstructors::from_console(con));
        }
        for (_, g) in self.scene.iter() {
            if !self.shape_files.contains_key(&g.datablock)
                && let Some(&db) = self.block_local.get(&g.datablock)
            {
                let file = con.get_field(db, "shapeFile").as_text().trim().to_string();
                // A Tribes 2 `.dts` name stands for the glTF of the same name.
                let file = crate::client::shapes::gltf_path(&file);
                self.shape_files.insert(g.datablock, (!file.is_empty()).then(|| file.into()));
                self.rotates.insert(g.datablock, con.get_field(db, "rotate").truthy());
            }
            let class = self.datablock_class(g.datablock).to_string();
            if !self.shape_boxes.contains_key(&g.datablock)
                && class == "StaticShapeData"
                && let Some(&db) = self.block_local.get(&g.datablock)
            {
                // The server reported junk already; the same default here.
                let half =
                    crate::shape_half_extents(con, db).ok().flatten().unwrap_or(glam::Vec3::splat(0.5));
                self.shape_boxes.insert(g.datablock, half);
            }
            if !self.vehicle_boxes.contains_key(&g.datablock)
                && class == "VehicleData"
                && let Some(&db) = self.block_local.get(&g.datablock)
            {
                // Drawn (and its jets placed) at its box, else its class's usual size.
                let half = crate::shape_half_extents(con, db)
                    .ok()
                    .flatten()
                    .unwrap_or(crate::vehicles::default_box(con, db));
                self.vehicle_boxes.insert(g.datablock, half);
            }
        }
        self.own_images.update(con, self.gcon.predicted(), &self.block_local);
        Rc::make_mut(&mut self.water).refresh(&self.world.borrow());
        let m = self.motion();
        while self.time_ms + u64::from(TICK_MS) <= now {
            self.time_ms += u64::from(TICK_MS);
            self.tick += 1;
            let mv = input(self);
            self.last_move = mv;
            self.gcon.process_tick(mv, &m);
            if let Some(p) = self.gcon.predicted().map(|p| p.pos)
                && !self.gcon.image_effects.is_empty()
            {
                self.own_images.play(con, &self.gcon.image_effects, p, self.time_ms);
            }
            if self.connected {
                let _ = self.gcon.post_moves(&mut self.driver.borrow_mut().interface, self.server);
            }
        }
        if self.connected {
            let _ = self.remote.flush_to_server(&mut self.driver.borrow_mut().interface, self.server);
            crate::owners::flush(&self.control_out, &self.driver, self.server);
            crate::audio::flush_voice(con, &self.driver, self.server);
        }
        self.driver.borrow_mut().pump(
            now,
            &NoObjects,
            &mut ClientGhosts { scene: &mut self.scene, world: &mut self.world_ghosts },
        )?;
        self.observe_coverage(now >= self.started_ms + COVERAGE_WARMUP_MS);
        loop {
            let Some(ev) = self.driver.borrow_mut().interface.poll_event() else { break };
            self.net_event(con, ev);
        }
        // The ghosts' ticks and the interpolation back to the present (at most a second of
        // them: a stalled frame does not run a burst of ticks).
        let dt = now.saturating_sub(self.ghost_ms).min(1000) as u32;
        self.ghost_ms = now;
        let skip = self.control_local();
        self.ghosts.advance(&mut self.scene, dt, skip);
        self.sync_ghost_objects(con);
        if let Some(p) = self.gcon.predicted() {
            crate::audio::listen_at(con, p.pos, p.yaw);
        }
        let secs = now.saturating_sub(self.rate_window.0);
        if secs >= 1000 {
            let bytes = self.driver.borrow().stats().bytes_in;
            self.kbps_in = (bytes - self.rate_window.1) as f32 * 8.0 / secs as f32;
            self.rate_window = (now, bytes);
        }
        Ok(())
    }

    /// The local id of the ghost this client controls.
    fn control_local(&self) -> Option<ObjectId> {
        let g = self.gcon.control_ghost()?;
        self.driver.borrow().interface.ghost_receiver(self.server)?.object_of(g)
    }

    fn net_event(&mut self, con: &mut Console, ev: InterfaceEvent) {
        match ev {
            InterfaceEvent::Connected { .. } => self.connected = true,
            InterfaceEvent::ConnectFailed { reason, .. } => {
                gc::client_connection_ended(con, &reason, false);
                self.ended = true;
            }
            InterfaceEvent::Disconnected { reason, .. } => {
                gc::client_connection_ended(con, &reason, self.accepted);
                self.ended = true;
            }
            InterfaceEvent::EventReceived { event, .. } => {
                if self.gcon.handle_event(&*event, &self.motion()) {
                    return;
                }
                if event.downcast_ref::<ConnectAcceptedEvent>().is_some() {
                    self.accepted = true;
                    gc::client_connection_accepted(con);
                    return;
                }
                if self.remote.handle_client_event(con, &*event) {
                    return;
                }
                if crate::audio::client_event(con, &*event, &self.block_local, self.server_connection)
                    || crate::audio::voice_client_event(con, &*event, self.server_connection)
                {
                    return;
                }
                let progress = self.blocks.handle_event(
                    con,
                    &mut self.driver.borrow_mut().interface,
                    self.server,
                    &*event,
                );
                match progress {
                    Ok(DataBlockProgress::Built { server_id, local_id }) => {
                        self.scene.known_datablocks.insert(server_id);
                        self.block_class
                            .insert(server_id, crate::classes::engine_datablock_class(con, local_id));
                        self.block_local.insert(server_id, local_id);
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(%e, "bad datablock"),
                }
            }
        }
    }

    /// Keeps one console object per ghost, of the engine class its datablock names (`Player`
    /// for a `PlayerData`, ...), with the ghost's state as host data; and the
    /// `ServerConnection`'s index of them. Once the connection ended they go.
    fn sync_ghost_objects(&mut self, con: &mut Console) {
        if self.ended {
            self.drop_ghost_objects(con);
            return;
        }
        let group = match self.ghost_group.filter(|g| con.object(*g).is_some()) {
            Some(g) => g,
            None => match con.create_object("SimGroup", None) {
                Ok(g) => {
                    self.ghost_group = Some(g);
                    g
                }
                Err(_) => return,
            },
        };
        let live: std::collections::BTreeSet<ObjectId> = self.scene.iter().map(|(id, _)| id).collect();
        let container = self.container();
        let placed = &mut self.placed;
        self.ghost_objects.retain(|local, obj| {
            let keep = live.contains(local);
            if !keep {
                placed.remove(&container, *obj);
                con.delete_object(*obj);
            }
            keep
        });
        let control = self.control_local();
        let predicted = self.gcon.predicted().copied();
        let driver = self.driver.clone();
        let driver = driver.borrow();
        let receiver = driver.interface.ghost_receiver(self.server);
        let mut index = ClientGhostIndex::default();
        for (local, g) in self.scene.iter() {
            let ghost_id = receiver.and_then(|r| r.ghost_id_of(local)).unwrap_or(u32::MAX);
            let (pos, vel, yaw) = match predicted.filter(|_| Some(local) == control) {
                Some(p) => (p.pos, p.vel, p.yaw),
                None => (g.render_pos, g.state.vel, g.state.yaw),
            };
            let state = GhostState {
                ghost_id,
                pos,
                vel,
                yaw,
                datablock: self.block_local.get(&g.datablock).copied().unwrap_or(0),
                health: g.health,
                hidden: g.flags & HIDDEN != 0,
            };
            let obj = match self.ghost_objects.get(&local).copied().filter(|o| con.object(*o).is_some()) {
                Some(o) => {
                    if let Some(d) = con.object_data_mut::<GhostState>(o) {
                        *d = state;
                    }
                    o
                }
                None => {
                    let class = match self.datablock_class(g.datablock) {
                        "PlayerData" => "Player",
                        "ItemData" => "Item",
                        "ProjectileData" => "Projectile",
                        "StaticShapeData" => "StaticShape",
                        "CameraData" => "Camera",
                        "VehicleData" => "Vehicle",
                        "ForceFieldBareData" => "ForceFieldBare",
                        _ => "GameBase",
                    };
                    let Ok(o) = con.create_object_with_data(class, None, Box::new(state)) else { continue };
                    con.set_add(group, o);
                    self.ghost_objects.insert(local, o);
                    o
                }
            };
            index.by_ghost.insert(ghost_id, obj);
            let place = GhostPlace {
                object: obj,
                datablock: g.datablock,
                local_datablock: self.block_local.get(&g.datablock).copied(),
                pos,
                alive: g.health > 0,
                hidden: g.flags & HIDDEN != 0,
            };
            self.placed.place(
                con,
                &container,
                place,
                self.block_class.get(&g.datablock).map_or("", String::as_str),
            );
        }
        index.control = control.and_then(|l| self.ghost_objects.get(&l).copied());
        if let Some(ix) = con.object_data_mut::<ClientGhostIndex>(self.server_connection) {
            *ix = index;
        }
    }

    /// `recordDemo`: starts recording what this connection receives, with the datablocks and
    /// the control ghost it holds now, so a demo begun mid-match plays on its own.
    pub fn start_demo(&mut self, con: &Console) -> Result<(), String> {
        if !self.accepted {
            return Err("not connected".into());
        }
        let mut target = ClientGhosts { scene: &mut self.scene, world: &mut self.world_ghosts };
        self.driver
            .borrow_mut()
            .interface
            .start_recording(self.server, &mut target)
            .map_err(|e| e.to_string())?;
        let datablocks = self
            .block_local
            .iter()
            .filter(|(_, local)| con.object(**local).is_some())
            .map(|(server_id, local)| DemoBlock {
                server_id: *server_id,
                class: con.class_name_of(*local),
                name: con.object_name(*local),
                fields: v12_sim::datablock::datablock_fields(con, *local),
            })
            .collect();
        let driver = self.driver.clone();
        let driver = driver.borrow();
        let rx = driver.interface.ghost_receiver(self.server);
        let ghosts = rx
            .into_iter()
            .flat_map(|r| r.iter())
            .filter_map(|(ghost, id)| {
                let o = self.scene.get(id)?;
                Some(DemoGhost { ghost, state: o.state, health: o.health, flags: o.flags })
            })
            .collect();
        self.demo =
            Some(DemoFile { datablocks, control_ghost: self.gcon.control_ghost(), ghosts, net: Vec::new() });
        Ok(())
    }

    /// `stopDemo`: the demo recorded so far, and the hash of the ghosts held now (its
    /// playback ends on the same hash).
    pub fn stop_demo(&mut self) -> Option<(DemoFile, u64)> {
        let mut file = self.demo.take()?;
        file.net = self.driver.borrow_mut().interface.stop_recording(self.server)?;
        let driver = self.driver.clone();
        let driver = driver.borrow();
        let rx = driver.interface.ghost_receiver(self.server);
        let hash =
            ghost_state_hash(rx.into_iter().flat_map(|r| r.iter()).map(|(g, id)| (g, self.scene.get(id))));
        Some((file, hash))
    }

    /// Deletes the ghosts' console objects (the connection ended or was left).
    fn drop_ghost_objects(&mut self, con: &mut Console) {
        let container = self.container();
        self.placed.clear(&container);
        v12_sim::container::unlink_client_container(con, &container);
        if let Some(g) = self.ghost_group.take() {
            con.delete_object(g);
        }
        self.ghost_objects.clear();
        if let Some(ix) = con.object_data_mut::<ClientGhostIndex>(self.server_connection) {
            *ix = ClientGhostIndex::default();
        }
    }

    /// The client container: the world's terrain and interiors and the ghosts' console
    /// objects, for the scripts' container queries (`useClientContainer`).
    pub fn container(&self) -> v12_sim::container::ContainerHandle {
        self.world.borrow().container.clone()
    }

    /// The class of a ghost's datablock (`PlayerData`, `ItemData`; empty when unknown).
    pub fn datablock_class(&self, datablock: u32) -> &str {
        self.block_class.get(&datablock).map_or("", String::as_str)
    }

    /// Every ghost but the one this client controls (the client predicts that one).
    pub fn other_ghosts(&self) -> impl Iterator<Item = (ObjectId, &SceneObject)> {
        let skip = self.control_local();
        self.scene.iter().filter(move |(id, _)| Some(*id) != skip)
    }

    /// The ghost the controlled object rides (a vehicle), if any.
    pub fn riding(&self) -> Option<ObjectId> {
        let me = self.scene.get(self.control_local()?)?;
        me.mount().map(|m| m.object)
    }

    /// The controlled object's predicted state.
    pub fn predicted(&self) -> Option<v12_sim::scene::ControlState> {
        self.gcon.predicted().copied()
    }

    fn is_player(&self, g: &SceneObject) -> bool {
        self.datablock_class(g.datablock) == "PlayerData"
    }

    /// Counts, for the nearest visible players, the server packets that updated them.
    fn observe_coverage(&mut self, counting: bool) {
        let driver = self.driver.clone();
        let driver = driver.borrow();
        let Some(k) = driver.interface.connection(self.server) else { return };
        let data = k.protocol().stats().data_received;
        let fresh = if counting { data.saturating_sub(self.data_seen) } else { 0 };
        self.data_seen = data;
        let Some(me) = self.gcon.predicted().map(|s| s.pos) else { return };
        let skip = self.control_local();
        let blocks = &self.block_class;
        self.coverage.observe(&self.scene, me, NEAREST_PLAYERS, fresh, |id, g| {
            Some(id) != skip
                && g.flags & HIDDEN == 0
                && blocks.get(&g.datablock).is_some_and(|k| k == "PlayerData")
        });
    }

    /// The longest time since another player's ghost was updated (ms).
    pub fn worst_player_staleness(&self) -> u32 {
        self.other_ghosts()
            .filter(|(_, g)| self.is_player(g))
            .map(|(_, g)| g.since_update_ms)
            .max()
            .unwrap_or(0)
    }

    /// The hash of the settled states of the ghosts received (the control object aside), and
    /// how many there are: the client's half of the ghost-state check.
    pub fn ghost_hash(&self) -> (u64, usize) {
        settled_state_hash(self.other_ghosts().map(|(_, g)| g))
    }

    /// The figures of the host's status line.
    pub fn report(&self) -> ClientReport {
        ClientReport {
            rtt_ms: self.driver.borrow().interface.connection(self.server).map_or(0.0, |k| k.rtt_ms()),
            bytes_in: self.driver.borrow().stats().bytes_in,
            corrections: self.gcon.stats.corrections,
            staleness_ms: self.worst_player_staleness(),
            ghosts: self.scene.len(),
            coverage: self.coverage.ratio(),
            started_ms: self.started_ms,
        }
    }

    /// The visible world: players, items and projectiles (hidden ones left out); the
    /// controlled player at its predicted position.
    pub fn world_view(&self, time_ms: u64) -> WorldView {
        let me = self.control_local();
        let predicted = self.gcon.predicted().copied();
        let mut objects = Vec::new();
        for (id, g) in self.scene.iter() {
            if g.flags & HIDDEN != 0 {
                continue;
            }
            let kind = match self.block_class.get(&g.datablock).map(String::as_str) {
                Some("PlayerData") => ObjectKind::Player,
                Some("ItemData") => ObjectKind::Item,
                Some("ProjectileData") => ObjectKind::Projectile,
                Some("CameraData") => ObjectKind::Camera,
                Some("StaticShapeData") => ObjectKind::Shape,
                Some("VehicleData") => ObjectKind::Vehicle,
                Some("ForceFieldBareData") => ObjectKind::ForceField,
                _ => continue,
            };
            let is_me = Some(id) == me;
            let (pos, yaw, vel) = match (is_me, predicted) {
                (true, Some(p)) => (p.pos, p.yaw, p.vel),
                _ => (g.render_pos, g.state.yaw, g.state.vel),
            };
            let shape_file = self.shape_files.get(&g.datablock).cloned().flatten();
            // The controlling client's own image thread is its prediction's, not the server's.
            let own = (is_me && self.own_images.predicts()).then(|| self.own_images.thread(time_ms));
            // A sequence a shape constructor declares plays its `.dsq`'s animation.
            let threads = g
                .threads
                .iter()
                .zip(g.thread_age_ms)
                .enumerate()
                .filter_map(|(slot, (t, age))| match &own {
                    Some(own) if slot == crate::images::IMAGE_THREAD => own.clone(),
                    _ => Some((t.clone()?, age as f32 / 1000.0)),
                })
                .map(|(mut t, age)| {
                    if let (Some(c), Some(file)) = (&self.constructors, &shape_file) {
                        t.sequence = c.animation(file, &t.sequence).to_string();
                    }
                    (t, age)
                })
                .collect();
            objects.push(ViewObject {
                id: id.0,
                kind,
                pos,
                yaw,
                vel,
                shape_file,
                rotate: self.rotates.get(&g.datablock).copied().unwrap_or(false),
                threads,
                team: id.0 % 2,
                is_me,
                half_extents: self.box_of(g.datablock),
            });
        }
        let terrain = crate::mission::first_terrain(&self.world);
        let mut materials = crate::mission::world_materials(&self.world);
        let first = self.world.borrow().terrains.keys().min().copied();
        let terrain_materials =
            first.and_then(|id| materials.remove(&id)).unwrap_or_else(|| Rc::from(Vec::new()));
        let sky = self.world.borrow().sky();
        let mut waters: Vec<(u32, v12_world::WaterBlock)> =
            self.world.borrow().waters.iter().map(|(id, w)| (*id, w.clone())).collect();
        waters.sort_by_key(|(id, _)| *id);
        WorldView {
            objects,
            walls: crate::mission::interior_boxes(&self.world),
            interiors: Some(self.world.borrow().scene.clone()),
            terrain,
            terrain_materials,
            interior_materials: materials,
            sky,
            waters,
            first_person: false,
            overview: None,
            time_ms,
        }
    }

    /// The projectile ghosts in view (hidden ones left out): ghost id, position, velocity and
    /// the client's copy of its datablock (what `client::effects` trails and explodes).
    pub fn projectiles(&self) -> Vec<(u32, glam::Vec3, glam::Vec3, v12_console_vm::ObjectId)> {
        self.scene
            .iter()
            .filter(|(_, g)| g.flags & HIDDEN == 0 && self.datablock_class(g.datablock) == "ProjectileData")
            .filter_map(|(id, g)| {
                Some((id.0, g.render_pos, g.state.vel, *self.block_local.get(&g.datablock)?))
            })
            .collect()
    }

    /// What may splash into the water this frame (`client::effects`): the players, vehicles
    /// and shots in view (the controlled one where it is predicted), with the water's surface
    /// over those under it; none while the world has no water.
    #[cfg(feature = "render")]
    pub fn dippers(&self) -> Vec<crate::client::effects::Dipper> {
        if self.water.is_empty() {
            return Vec::new();
        }
        let me = self.control_local();
        let predicted = self.gcon.predicted().copied();
        let mut out = Vec::new();
        for (id, g) in self.scene.iter().filter(|(_, g)| g.flags & HIDDEN == 0) {
            if !matches!(self.datablock_class(g.datablock), "PlayerData" | "VehicleData" | "ProjectileData") {
                continue;
            }
            let Some(&datablock) = self.block_local.get(&g.datablock) else { continue };
            let (pos, vel) = match (Some(id) == me, predicted) {
                (true, Some(p)) => (p.pos, p.vel),
                _ => (g.render_pos, g.state.vel),
            };
            let surface = self.water.at(pos).map(|(depth, _)| pos.z + depth);
            out.push(crate::client::effects::Dipper { id: id.0, pos, vel, surface, datablock });
        }
        out
    }

    /// A static shape's or vehicle's box (half extents) by its server datablock id; a half
    /// metre cube before its datablock arrived.
    fn box_of(&self, datablock: u32) -> glam::Vec3 {
        let known = self.shape_boxes.get(&datablock).or_else(|| self.vehicle_boxes.get(&datablock));
        known.copied().unwrap_or(glam::Vec3::splat(0.5))
    }

    /// The players and vehicles in view (hidden ones left out) as `client::movers` needs them,
    /// the controlled one where it is predicted; their feet's height over the ground.
    #[cfg(feature = "render")]
    pub fn movers(&self) -> Vec<crate::client::movers::Mover> {
        let me = self.control_local();
        let predicted = self.gcon.predicted().copied();
        let ground = crate::mission::loaded_ground(&self.world, &self.ground);
        let mut out = Vec::new();
        for (id, g) in self.scene.iter().filter(|(_, g)| g.flags & HIDDEN == 0) {
            let vehicle = match self.datablock_class(g.datablock) {
                "PlayerData" => false,
                "VehicleData" => true,
                _ => continue,
            };
            let Some(&datablock) = self.block_local.get(&g.datablock) else { continue };
            let (pos, vel, yaw) = match (Some(id) == me, predicted) {
                (true, Some(p)) => (p.pos, p.vel, p.yaw),
                _ => (g.render_pos, g.state.vel, g.state.yaw),
            };
            // Down from just above the feet (a roof over its head is not its ground).
            let (from, to) = (pos + glam::Vec3::Z * 0.5, pos - glam::Vec3::Z * 100.0);
            let above_ground =
                ground.as_ref().map_or(0.0, |g| g.cast_ray(from, to).map_or(100.0, |(t, _)| t * 100.5 - 0.5));
            let half_extents = self.box_of(g.datablock);
            // This client's moves drive the vehicle it controls.
            let thrust =
                (vehicle && Some(id) == me).then(|| crate::client::jets::Thrust::of_move(&self.last_move));
            out.push(crate::client::movers::Mover {
                id: id.0,
                vehicle,
                pos,
                vel,
                yaw,
                above_ground,
                datablock,
                half_extents,
                thrust,
            });
        }
        out
    }

    /// Health, ping, loss and rate; the score is read from `$Scoreboard` for `name`.
    pub fn hud(&self, con: &Console, name: &str) -> HudState {
        let health =
            self.control_local().and_then(|id| self.scene.get(id)).map_or(0, |o| u32::from(o.health));
        let (ping_ms, packet_loss) =
            self.driver.borrow().interface.connection(self.server).map_or((0.0, 0.0), |k| {
                let s = k.stats();
                let sent = s.data_delivered + s.data_dropped;
                (s.rtt_ms, if sent > 0 { s.data_dropped as f32 / sent as f32 } else { 0.0 })
            });
        HudState {
            score: score_of(&con.get_global("Scoreboard").as_text(), name),
            health,
            max_health: 100,
            energy: self.gcon.predicted().map_or(0.0, |p| p.energy),
            max_energy: self.tuning.energy.map_or(0.0, |e| e.max_energy),
            ping_ms,
            packet_loss,
            kbps_in: self.kbps_in,
        }
    }

    /// Leaves the server; the ghosts' console objects go.
    pub fn disconnect(&mut self, con: &mut Console, now: u64) {
        self.drop_ghost_objects(con);
        self.driver.borrow_mut().interface.disconnect(self.server, "disconnected");
        let _ = self.driver.borrow_mut().pump(
            now,
            &NoObjects,
            &mut ClientGhosts { scene: &mut self.scene, world: &mut self.world_ghosts },
        );
    }

    /// The movement rules with the world received so far, and the control object's images.
    fn motion(&self) -> Motion {
        Motion { images: self.own_images.slots.clone(), ..self.walking() }
    }

    /// The movement rules with the world received so far.
    fn walking(&self) -> Motion {
        let camera = self
            .control_local()
            .and_then(|id| self.scene.get(id))
            .is_some_and(|g| self.datablock_class(g.datablock) == "CameraData");
        if camera {
            return crate::camera_motion();
        }
        // Other players block the predicted walk where the server last put them. (Before the
        // world arrives: the flat arena, with nothing to walk into.)
        let Some(ground) = crate::mission::loaded_ground(&self.world, &self.ground) else {
            return motion(None, self.tuning);
        };
        // Static shapes block everyone; other players only a player that collides with them.
        let mut obstacles = Obstacles::new(Some(ground.clone()));
        let half = Motion::default().half_extents;
        for (id, g) in self.other_ghosts().filter(|(_, g)| g.flags & HIDDEN == 0) {
            if let Some(&shape) = self.shape_boxes.get(&g.datablock) {
                obstacles.add_box(id.0, g.state.pos, shape);
            } else if self.tuning.collide && self.datablock_class(g.datablock) == "PlayerData" {
                obstacles.add_box(id.0, g.state.pos, half);
            }
        }
        let walk_on: Rc<dyn StaticGeometry> = if obstacles.is_empty() { ground } else { Rc::new(obstacles) };
        crate::with_water(motion(Some(walk_on), self.tuning), &self.water)
    }
}

/// `name`'s score in a scoreboard line `a=1 b=2` (0 when absent or malformed).
pub fn score_of(scoreboard: &str, name: &str) -> i32 {
    scoreboard
        .split_whitespace()
        .filter_map(|w| w.rsplit_once('='))
        .find(|(n, _)| *n == name)
        .and_then(|(_, s)| s.parse().ok())
        .unwrap_or(0)
}
