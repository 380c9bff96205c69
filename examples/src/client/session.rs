//! The client's network half, as the `v12` host runs it: a connection to a server, its
//! ghosts, datablocks, remote commands and prediction, ticked every 32 ms, with the input
//! of each tick supplied by the caller (the keyboard and mouse, or the bot rules in tests).
//! It turns what it knows into a [`WorldView`] and a [`HudState`] every frame.

use crate::client::ui::HudState;
use crate::client::view::{ObjectKind, ViewObject, WorldView};
pub use crate::game::host::{motion, registries};
use crate::mission::ClientGhosts;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::rc::Rc;
use v12_console_vm::Console;
use v12_netobject::ghost::NoObjects;
use v12_netobject::ghost::ObjectId;
use v12_netobject::{ConnectionId, InterfaceConfig, InterfaceEvent, NetInterface, RateConfig};
use v12_platform::{NetAddress, UdpTransport};
use v12_resource::ResourceManager;
use v12_sim::NetDriver;
use v12_sim::container::{ScriptContainer, StaticGeometry};
use v12_sim::datablock::{ClientDataBlocks, DataBlockProgress};
use v12_sim::game_connection::{self as gc, ClientGameConnection, ConnectAcceptedEvent};
use v12_sim::moves::Move;
use v12_sim::process::TICK_MS;
use v12_sim::remote_command::RemoteCommands;
use v12_sim::scene::ClientScene;
use v12_sim::scene::Motion;
use v12_world::MissionHandle;
use v12_world::MissionWorld;
use v12_world::mission::WorldGhosts;

/// Flag bit the game sets on dead players and taken items (`host::HIDDEN`).
const HIDDEN: u8 = 1;

/// A client connection to a `v12` server.
pub struct ClientSession {
    pub remote: RemoteCommands,
    driver: NetDriver<UdpTransport>,
    server: ConnectionId,
    scene: ClientScene,
    gcon: ClientGameConnection,
    blocks: ClientDataBlocks,
    block_class: BTreeMap<u32, String>,
    connected: bool,
    accepted: bool,
    ended: bool,
    time_ms: u64,
    rate_window: (u64, u64),
    kbps_in: f32,
    /// The world the server's terrain and building ghosts build here.
    world: MissionHandle,
    world_ghosts: WorldGhosts,
    ground: Rc<dyn StaticGeometry>,
}

impl std::fmt::Debug for ClientSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSession").field("connected", &self.connected).finish_non_exhaustive()
    }
}

impl ClientSession {
    /// Creates `ServerConnection` in the console and starts connecting to `addr` as `name`.
    /// `remote` must be the console's `RemoteCommands` (registered once per console);
    /// `resources` are the game's files, where the server's world is loaded from.
    pub fn connect(
        con: &mut Console,
        remote: RemoteCommands,
        resources: Rc<ResourceManager>,
        addr: &str,
        name: &str,
        now: u64,
        seed: u64,
    ) -> io::Result<Self> {
        let sock: SocketAddr = addr.parse().map_err(|_| io::Error::other(format!("bad address {addr}")))?;
        gc::client_create_server_connection(con).map_err(io::Error::other)?;
        let (reg, ghosts) = registries();
        let rate = RateConfig { send_period_ms: 32, send_size: 508, recv_period_ms: 100, recv_size: 508 };
        let encryption = crate::net_security::encryption(con).map_err(io::Error::other)?;
        let token = crate::net_security::client_token(con).map_err(io::Error::other)?;
        let mut iface = NetInterface::new(
            InterfaceConfig { client_rate: rate, encryption, ..Default::default() },
            reg,
            crate::net_loop::entropy(seed, 1),
        );
        iface.set_ghost_classes(ghosts);
        let data = gc::encode_connect_args(&[name.to_string()]).into();
        let server = match token {
            Some(t) => iface.connect_with_token(now, sock, data, t),
            None => iface.connect(now, sock, data),
        };
        let transport = UdpTransport::bind(NetAddress::localhost(0))?;
        let world = MissionWorld::new(resources, Rc::new(RefCell::new(ScriptContainer::default())));
        Ok(ClientSession {
            remote,
            driver: NetDriver::new(iface, transport),
            server,
            scene: ClientScene::new(),
            gcon: ClientGameConnection::new(),
            blocks: ClientDataBlocks::new(),
            block_class: BTreeMap::new(),
            connected: false,
            accepted: false,
            ended: false,
            time_ms: now,
            rate_window: (now, 0),
            kbps_in: 0.0,
            world_ghosts: WorldGhosts::new(world.clone()),
            ground: MissionWorld::ground(&world),
            world,
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

    /// Runs the client's ticks up to `now` (each with `input()`), then its network turn.
    pub fn advance(
        &mut self,
        con: &mut Console,
        now: u64,
        mut input: impl FnMut() -> Move,
    ) -> io::Result<()> {
        let m = self.motion();
        while self.time_ms + u64::from(TICK_MS) <= now {
            self.time_ms += u64::from(TICK_MS);
            self.gcon.process_tick(input(), &m);
            if self.connected {
                let _ = self.gcon.post_moves(&mut self.driver.interface, self.server);
            }
            let skip = self.control_local();
            self.scene.interpolate(TICK_MS, skip);
        }
        if self.connected {
            let _ = self.remote.flush_to_server(&mut self.driver.interface, self.server);
        }
        self.driver.pump(
            now,
            &NoObjects,
            &mut ClientGhosts { scene: &mut self.scene, world: &mut self.world_ghosts },
        )?;
        while let Some(ev) = self.driver.interface.poll_event() {
            self.net_event(con, ev);
        }
        let secs = now.saturating_sub(self.rate_window.0);
        if secs >= 1000 {
            let bytes = self.driver.stats().bytes_in;
            self.kbps_in = (bytes - self.rate_window.1) as f32 * 8.0 / secs as f32;
            self.rate_window = (now, bytes);
        }
        Ok(())
    }

    fn control_local(&self) -> Option<ObjectId> {
        let g = self.gcon.control_ghost()?;
        self.driver.interface.ghost_receiver(self.server)?.object_of(g)
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
                match self.blocks.handle_event(con, &mut self.driver.interface, self.server, &*event) {
                    Ok(DataBlockProgress::Built { server_id, local_id }) => {
                        self.scene.known_datablocks.insert(server_id);
                        self.block_class.insert(server_id, con.class_name_of(local_id));
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(%e, "bad datablock"),
                }
            }
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
                Some(_) => continue,
                None if g.datablock == 0 => ObjectKind::Projectile,
                None => continue,
            };
            let is_me = Some(id) == me;
            let (pos, yaw) = match (is_me, predicted) {
                (true, Some(p)) => (p.pos, p.yaw),
                _ => (g.render_pos, g.state.yaw),
            };
            objects.push(ViewObject { id: id.0, kind, pos, yaw, team: id.0 % 2, is_me });
        }
        let terrain = crate::mission::first_terrain(&self.world);
        WorldView { objects, walls: crate::mission::interior_boxes(&self.world), terrain, time_ms }
    }

    /// Health, ping, loss and rate; the score is read from `$Scoreboard` for `name`.
    pub fn hud(&self, con: &Console, name: &str) -> HudState {
        let health =
            self.control_local().and_then(|id| self.scene.get(id)).map_or(0, |o| u32::from(o.health));
        let (ping_ms, packet_loss) = self.driver.interface.connection(self.server).map_or((0.0, 0.0), |k| {
            let s = k.stats();
            let sent = s.data_delivered + s.data_dropped;
            (s.rtt_ms, if sent > 0 { s.data_dropped as f32 / sent as f32 } else { 0.0 })
        });
        HudState {
            score: score_of(&con.get_global("Scoreboard").as_text(), name),
            health,
            max_health: 100,
            ping_ms,
            packet_loss,
            kbps_in: self.kbps_in,
        }
    }

    /// Leaves the server.
    pub fn disconnect(&mut self, now: u64) {
        self.driver.interface.disconnect(self.server, "disconnected");
        let _ = self.driver.pump(
            now,
            &NoObjects,
            &mut ClientGhosts { scene: &mut self.scene, world: &mut self.world_ghosts },
        );
    }

    /// The movement rules with the world received so far.
    fn motion(&self) -> Motion {
        motion(crate::mission::loaded_ground(&self.world, &self.ground))
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
