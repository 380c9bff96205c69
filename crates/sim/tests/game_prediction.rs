//! GameConnection over a simulated 200 ms RTT, 5 % loss link (seeded conditioner, simulated
//! clock): prediction needs no correction while only the client's moves act on its control
//! object, converges within a few ticks after a server-only impulse, and datablocks reach
//! the client before any ghost that uses them.

use glam::Vec3;
use std::sync::Arc;
use v12_console_vm::{BufferSink, Console};
use v12_netobject::ghost::{GhostClassRegistryBuilder, ObjectId};
use v12_netobject::{ConnectionId, InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface};
use v12_platform::{ConditionerConfig, LinkConditioner, LoopbackTransport, LossModel, Transport};
use v12_services::NetDriver;
use v12_sim::datablock::{
    ClientDataBlocks, DataBlockEvent, DataBlockProgress, DataBlocksAckEvent, DataBlocksDoneEvent,
    is_datablocks_ack, send_datablocks,
};
use v12_sim::game_connection::{
    ClientGameConnection, ClientGameStats, ServerGameConnection, ServerGameStats, register_events,
};
use v12_sim::moves::Move;
use v12_sim::scene::{ClientScene, Motion, SceneObject, SceneWorld};

type Port = LinkConditioner<LoopbackTransport>;

struct Harness {
    server: NetDriver<Port>,
    client: NetDriver<Port>,
    scon: Console,
    ccon: Console,
    world: SceneWorld,
    scene: ClientScene,
    blocks: ClientDataBlocks,
    sgc: Option<ServerGameConnection>,
    cgc: ClientGameConnection,
    to_server: ConnectionId,
    player: u32,
    motion: Motion,
    now: u64,
    ghost_before_datablocks: bool,
    /// Tick at which the client last saw a correction.
    last_correction_tick: Option<u64>,
    connected: bool,
    /// The input holds the jets (trigger 3) in bursts and jumps now and then.
    jets: bool,
    /// The input holds the fire trigger (0) in bursts.
    fire: bool,
    /// The image effects the client predicted (slot, effect), with the tick.
    predicted_effects: Vec<(u64, usize, v12_sim::image_machine::Effect)>,
}

fn link() -> ConditionerConfig {
    ConditionerConfig {
        latency_ms: 100,
        jitter_ms: 0,
        loss: LossModel::Uniform(0.05),
        ..ConditionerConfig::default()
    }
}

impl Harness {
    fn new(seed: u64, ghost_before_datablocks: bool) -> Self {
        let mut b = NetClassRegistryBuilder::new();
        register_events(&mut b);
        b.register::<DataBlockEvent>().register::<DataBlocksDoneEvent>().register::<DataBlocksAckEvent>();
        let reg = Arc::new(b.build().unwrap());
        let classes = Arc::new(GhostClassRegistryBuilder::new().register::<SceneObject>().build().unwrap());
        let (a, c) = LoopbackTransport::pair();
        let server_addr = a.local_addr().socket_addr();
        let mut siface = NetInterface::new(
            InterfaceConfig { accept_connections: true, ..Default::default() },
            reg.clone(),
            [7; 32],
        );
        siface.set_ghost_classes(classes.clone());
        let mut ciface = NetInterface::new(InterfaceConfig::default(), reg, [9; 32]);
        ciface.set_ghost_classes(classes);
        let to_server = ciface.connect(0, server_addr, bytes::Bytes::new());
        let mut scon = Console::new();
        scon.set_output(Box::new(BufferSink::new()));
        scon.register_class("PlayerData", "SimDataBlock").unwrap();
        scon.eval("datablock PlayerData(Runner) { maxSpeed = 10; };").unwrap();
        let db = v12_sim::datablock::datablock_ids(&scon)[0];
        let mut ccon = Console::new();
        ccon.set_output(Box::new(BufferSink::new()));
        let mut world = SceneWorld::new(300.0);
        let player = world.add(SceneObject::new(db, Vec3::ZERO));
        Self {
            server: NetDriver::new(siface, LinkConditioner::new(a, link(), seed)),
            client: NetDriver::new(ciface, LinkConditioner::new(c, link(), seed ^ 0xABCD)),
            scon,
            ccon,
            world,
            scene: ClientScene::new(),
            blocks: ClientDataBlocks::new(),
            sgc: None,
            cgc: ClientGameConnection::new(),
            to_server,
            player,
            motion: Motion { arena_half: 1000.0, ..Motion::default() },
            now: 0,
            ghost_before_datablocks,
            last_correction_tick: None,
            connected: false,
            jets: false,
            fire: false,
            predicted_effects: Vec::new(),
        }
    }

    fn input(tick: u64) -> Move {
        // Walk forward, strafe a little, turn in a wide circle; change pattern now and then.
        let phase = (tick / 50) % 3;
        let x = [0.0, 0.5, -0.25][phase as usize];
        Move::from_input(x, 1.0, 0.0, 0.03, 0.0, 0.0, [false; 6])
    }

    /// Runs `ms` of simulated time in 4 ms steps; server ticks at 0 mod 32, client at 16 mod 32.
    fn run(&mut self, ms: u64) {
        let end = self.now + ms;
        while self.now < end {
            self.now += 4;
            let now = self.now;
            if now.is_multiple_of(32)
                && let Some(g) = &mut self.sgc
            {
                g.process_tick(&mut self.world, &self.motion);
            }
            if let Some(g) = &mut self.sgc {
                g.post_control(now, &mut self.server.interface, &self.world).unwrap();
            }
            self.server.pump(now, &self.world, &mut v12_netobject::ghost::GhostArena::new()).unwrap();
            while let Some(ev) = self.server.interface.poll_event() {
                match ev {
                    InterfaceEvent::Connected { connection, .. } => {
                        send_datablocks(&self.scon, &mut self.server.interface, connection).unwrap();
                        let mut g = ServerGameConnection::new(connection);
                        g.set_control_object(Some(self.player));
                        self.sgc = Some(g);
                        if self.ghost_before_datablocks {
                            self.server.interface.start_ghosting(connection).unwrap();
                        }
                    }
                    InterfaceEvent::EventReceived { connection, event } => {
                        if is_datablocks_ack(&*event) {
                            self.server.interface.start_ghosting(connection).unwrap();
                        } else if let Some(g) = &mut self.sgc {
                            assert!(g.handle_event(&*event));
                        }
                    }
                    other => panic!("server: {other:?}"),
                }
            }
            if now % 32 == 16 {
                let tick = now / 32;
                let mut mv = Self::input(tick);
                if self.jets {
                    mv.triggers[v12_sim::scene::JET_TRIGGER] = tick % 60 < 25;
                    mv.triggers[v12_sim::scene::JUMP_TRIGGER] = tick % 97 == 50;
                }
                if self.fire {
                    mv.triggers[0] = tick % 45 < 20;
                }
                self.cgc.process_tick(mv, &self.motion);
                let effects = self.cgc.image_effects.drain(..).map(|(slot, e)| (tick, slot, e));
                self.predicted_effects.extend(effects);
                if self.connected {
                    self.cgc.post_moves(&mut self.client.interface, self.to_server).unwrap();
                }
                let skip = self.control_local();
                self.scene.interpolate(32, skip);
            }
            self.client.pump(now, &v12_netobject::ghost::NoObjects, &mut self.scene).unwrap();
            while let Some(ev) = self.client.interface.poll_event() {
                match ev {
                    InterfaceEvent::Connected { .. } => self.connected = true,
                    InterfaceEvent::EventReceived { event, .. } => {
                        let before = self.cgc.stats.corrections;
                        if self.cgc.handle_event(&*event, &self.motion) {
                            if self.cgc.stats.corrections != before {
                                self.last_correction_tick = Some(now / 32);
                            }
                            continue;
                        }
                        match self
                            .blocks
                            .handle_event(&mut self.ccon, &mut self.client.interface, self.to_server, &*event)
                            .unwrap()
                        {
                            DataBlockProgress::Built { server_id, .. } => {
                                self.scene.known_datablocks.insert(server_id);
                            }
                            DataBlockProgress::Done { .. } => {}
                            DataBlockProgress::NotMine => panic!("unexpected event"),
                        }
                    }
                    other => panic!("client: {other:?}"),
                }
            }
        }
    }

    fn control_local(&self) -> Option<ObjectId> {
        let g = self.cgc.control_ghost()?;
        self.client.interface.ghost_receiver(self.to_server)?.object_of(g)
    }

    fn server_stats(&self) -> v12_sim::game_connection::ServerGameStats {
        self.sgc.as_ref().unwrap().stats
    }

    /// Both sides' counters now, for [`Self::assert_clean_since`].
    fn counters(&self) -> (ServerGameStats, ClientGameStats) {
        (self.server_stats(), self.cgc.stats)
    }

    /// Since `(s0, c0)` were read: more than `moves` moves processed, and not one checksum
    /// mismatch or correction on either side (`what` names the case in the messages).
    fn assert_clean_since(&self, (s0, c0): (ServerGameStats, ClientGameStats), moves: u64, what: &str) {
        let s1 = self.server_stats();
        assert!(s1.moves_processed > s0.moves_processed + moves, "{what}: moves not flowing");
        assert_eq!(s1.mismatches, s0.mismatches, "{what}: checksum mismatches");
        assert_eq!(s1.corrections_sent, s0.corrections_sent, "{what}: corrections");
        assert_eq!(self.cgc.stats.corrections, c0.corrections, "{what}");
    }
}

#[test]
fn no_correction_without_external_force_then_quick_convergence_after_impulse() {
    for seed in [1u64, 2, 3, 4, 5, 6] {
        let mut h = Harness::new(seed, false);
        // Warm-up: connect, datablocks, first state.
        h.run(8_000);
        assert!(h.cgc.predicted().is_some(), "seed {seed}: no control state after 8 s");
        let s0 = h.server_stats();
        let c0 = h.cgc.stats;
        h.run(10_000);
        let s1 = h.server_stats();
        assert!(s1.moves_processed > s0.moves_processed + 250, "seed {seed}: moves not flowing: {s1:?}");
        assert_eq!(s1.mismatches, s0.mismatches, "seed {seed}: checksum mismatches with no external force");
        assert_eq!(
            s1.corrections_sent, s0.corrections_sent,
            "seed {seed}: corrections with no external force"
        );
        assert_eq!(h.cgc.stats.corrections, c0.corrections, "seed {seed}");
        assert!(h.client.transport.stats().dropped_loss > 0, "seed {seed}: the link lost nothing");

        // A server-only impulse.
        let impulse_tick = h.now / 32;
        let obj = h.world.get_mut(h.player).unwrap();
        let mut st = obj.state;
        st.vel += Vec3::new(25.0, 0.0, 0.0);
        obj.set_state(st);
        h.run(5_000);
        let s2 = h.server_stats();
        assert!(s2.corrections_sent > s1.corrections_sent, "seed {seed}: impulse not corrected");
        assert!(h.cgc.stats.corrections > c0.corrections, "seed {seed}");
        assert!(h.cgc.stats.max_error > 0.3, "seed {seed}: impulse too small to see");
        let last = h.last_correction_tick.unwrap();
        // Corrections stop within RTT (200 ms ≈ 7 ticks) plus a few ticks of the impulse.
        assert!(
            last - impulse_tick <= 20,
            "seed {seed}: corrections went on for {} ticks",
            last - impulse_tick
        );
        // And then stay stopped: no mismatch in the last 4 s.
        let before = h.server_stats();
        h.run(4_000);
        assert_eq!(h.server_stats().mismatches, before.mismatches, "seed {seed}: still out of sync");
        assert_eq!(h.server_stats().corrections_sent, before.corrections_sent, "seed {seed}");
        // The eased offset is gone: shown position = prediction.
        let shown = h.cgc.render_position().unwrap();
        assert!((shown - h.cgc.predicted().unwrap().pos).length() < 1e-3, "seed {seed}");
        // Interpolated ghost of the control object exists on the client.
        assert!(h.scene.len() == 1, "seed {seed}: {} ghosts", h.scene.len());
    }
}

#[test]
fn datablocks_reach_the_client_before_any_ghost_that_uses_them() {
    let mut h = Harness::new(5, false);
    h.run(4_000);
    assert!(h.blocks.is_done());
    assert!(h.scene.ghosts_added >= 1);
    assert_eq!(h.scene.datablock_misses, 0);
    // The check is real: ghosting before the datablocks arrive is caught.
    let mut bad = Harness::new(5, true);
    bad.run(4_000);
    assert!(bad.scene.ghosts_added >= 1);
    assert!(bad.scene.datablock_misses >= 1, "ghost before datablocks went unnoticed");
}

/// Flat ground at z = 0 and walls, for prediction under gravity.
#[derive(Debug)]
struct GroundAndWalls {
    walls: Vec<v12_sim::container::Aabb>,
}

impl v12_sim::container::StaticGeometry for GroundAndWalls {
    fn cast_ray(&self, _start: Vec3, _end: Vec3) -> Option<(f32, Vec3)> {
        None
    }
    fn sweep_box(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<(f32, Vec3)> {
        let mut best: Option<(f32, Vec3)> = None;
        let bottom = center.z - half.z;
        if delta.z < 0.0 && bottom >= -1e-3 {
            let t = (-bottom / delta.z).max(0.0);
            if t <= 1.0 {
                best = Some((t, Vec3::Z));
            }
        }
        for wall in &self.walls {
            let grown = v12_sim::container::Aabb::new(wall.min - half, wall.max + half);
            if let Some((t, n)) = grown.intersect_segment_normal(center, center + delta)
                && best.is_none_or(|b| t < b.0)
            {
                best = Some((t, n));
            }
        }
        best
    }
}

#[test]
fn prediction_under_gravity_sliding_along_walls_needs_no_correction() {
    for seed in [11u64, 12, 13] {
        let mut h = Harness::new(seed, false);
        // A pen (inside x -4..2, y -3..3) smaller than the circles the player walks, so it
        // slides along its walls all the time.
        let wall = |a: [f32; 2], b: [f32; 2]| {
            v12_sim::container::Aabb::new(Vec3::new(a[0], a[1], 0.0), Vec3::new(b[0], b[1], 3.0))
        };
        let walls = vec![
            wall([-5.0, -4.0], [-4.0, 4.0]),
            wall([2.0, -4.0], [3.0, 4.0]),
            wall([-5.0, -4.0], [3.0, -3.0]),
            wall([-5.0, 3.0], [3.0, 4.0]),
        ];
        h.motion = Motion {
            gravity: 20.0,
            arena_half: 1000.0,
            ground: Some(std::rc::Rc::new(GroundAndWalls { walls })),
            ..Motion::default()
        };
        // Runs `ms`; the leftmost x the player reached meanwhile.
        let run = |h: &mut Harness, ms: u64| {
            (0..ms / 100).fold(f32::MAX, |left, _| {
                h.run(100);
                left.min(h.world.get(h.player).unwrap().state.pos.x)
            })
        };
        run(&mut h, 8_000);
        assert!(h.cgc.predicted().is_some(), "seed {seed}: no control state after 8 s");
        let (s0, c0) = h.counters();
        let leftmost = run(&mut h, 10_000);
        assert!(
            (leftmost - (-4.0 + 0.4)).abs() < 0.05,
            "seed {seed}: the walk reached the wall and stopped there: {leftmost}"
        );
        h.assert_clean_since((s0, c0), 250, &format!("seed {seed}"));
        let p = h.world.get(h.player).unwrap().state.pos;
        assert!(p.z.abs() < 0.05, "seed {seed}: the player stands on the ground: {p}");
        assert!(
            p.x > -4.0 + 0.39 && p.x < 2.0 - 0.39 && p.y.abs() < 3.0 - 0.39,
            "seed {seed}: inside the pen: {p}"
        );
    }
}

/// A server `setTransform` of the control object (a teleport, a respawn) reaches its client as
/// one warp: one correction, not one for each move the client had in flight (the server
/// counts no mismatch on moves the client predicted before it saw the warp).
/// Jets and jumps spend energy and recharge it, as PlayerData declares: the server and the
/// predicting client spend the same energy on the same moves, so flying on jets needs no
/// correction, and the energy the client shows (its HUD) is the server's.
#[test]
fn jets_and_energy_are_predicted_without_corrections() {
    for seed in [21u64, 22] {
        let mut h = Harness::new(seed, false);
        h.jets = true;
        h.motion = Motion {
            gravity: 20.0,
            arena_half: 1000.0,
            jump_speed: 8.0,
            ground: Some(std::rc::Rc::new(GroundAndWalls { walls: Vec::new() })),
            energy: Some(v12_sim::scene::EnergyUse {
                max_energy: 60.0,
                recharge: 0.25,
                jump_drain: 5.0,
                jet_accel: 40.0,
                jet_drain: 1.0,
                min_jet_energy: 3.0,
                max_jet_horizontal: 0.5,
            }),
            ..Motion::default()
        };
        h.run(8_000);
        assert!(h.cgc.predicted().is_some(), "seed {seed}: no control state after 8 s");
        let (s0, c0) = h.counters();
        let (mut top, mut low_energy, mut high_energy) = (0f32, f32::MAX, 0f32);
        for _ in 0..100 {
            h.run(100);
            let st = h.world.get(h.player).unwrap().state;
            top = top.max(st.pos.z);
            low_energy = low_energy.min(st.energy);
            high_energy = high_energy.max(st.energy);
        }
        assert!(top > 2.0, "seed {seed}: the jets never lifted the player: {top}");
        // The jets drain faster than the recharge: the energy swings, down to minJetEnergy.
        assert!(
            high_energy - low_energy > 5.0 && low_energy < 4.0,
            "seed {seed}: energy {low_energy}..{high_energy}"
        );
        h.assert_clean_since((s0, c0), 250, &format!("seed {seed}"));
        // The client's predicted energy is the server's, some moves ahead of it: within what
        // those moves spend.
        let (server, client) =
            (h.world.get(h.player).unwrap().state.energy, h.cgc.predicted().unwrap().energy);
        assert!((server - client).abs() <= 15.0, "seed {seed}: server {server}, client {client}");
    }
}

/// Each of the three vehicle models, driven by its pilot's moves over the lossy link: the
/// client predicts it (springs, grip, lift and all) without a correction.
#[test]
fn vehicles_are_predicted_without_corrections() {
    use v12_sim::vehicle_motion::{VehicleDynamics, VehicleKind};
    for (seed, kind) in [(31u64, VehicleKind::Wheeled), (32, VehicleKind::Hover), (33, VehicleKind::Flying)] {
        let mut h = Harness::new(seed, false);
        h.jets = true;
        h.motion = Motion {
            gravity: 20.0,
            arena_half: 1000.0,
            half_extents: Vec3::new(1.5, 2.5, 0.8),
            ground: Some(std::rc::Rc::new(GroundAndWalls { walls: Vec::new() })),
            vehicle: Some(std::rc::Rc::new(VehicleDynamics {
                jet_accel: 10.0,
                ..VehicleDynamics::new(kind)
            })),
            ..Motion::default()
        };
        h.run(8_000);
        assert!(h.cgc.predicted().is_some(), "{kind:?}: no control state after 8 s");
        let (s0, c0) = h.counters();
        let start = h.world.get(h.player).unwrap().state.pos;
        h.run(8_000);
        let end = h.world.get(h.player).unwrap().state.pos;
        assert!((end - start).length() > 20.0, "{kind:?}: the vehicle hardly moved: {start} -> {end}");
        h.assert_clean_since((s0, c0), 200, &format!("{kind:?}"));
    }
}

/// An energy weapon in image slot 0 (V12's fire trigger 0 holds it): the server and the
/// predicting client step its state machine on the same moves, so the client's weapon
/// fires on the tick its button goes down (its fire sequence and shot counted then, a round
/// trip before the server's), spends the same energy, and needs no correction.
#[test]
fn the_controlling_client_predicts_its_own_weapon() {
    use v12_sim::image_machine::{Effect, ImageRun, ImageState, ImageStates, PredictedImage};
    let state = ImageState::new;
    // Ready -trigger-> Fire (0.2 s, a shot) -> Reload (0.3 s) -> Ready; NoAmmo below minEnergy.
    let mut ready = state("Ready");
    ready.on_ammo[0] = Some(3);
    ready.on_trigger[1] = Some(1);
    let mut fire = state("Fire");
    (fire.fire, fire.timeout, fire.on_timeout, fire.sequence) = (true, 0.2, Some(2), Some("fire".into()));
    let mut reload = state("Reload");
    (reload.timeout, reload.on_timeout, reload.energy_drain) = (0.3, Some(0), 2.0);
    let mut dry = state("NoAmmo");
    dry.on_ammo[1] = Some(0);
    let states = std::rc::Rc::new(ImageStates { states: vec![ready, fire, reload, dry] });
    let image = std::rc::Rc::new(PredictedImage::new(states, true, 6.0, 5.0));
    for seed in [41u64, 42] {
        let mut h = Harness::new(seed, false);
        h.motion = Motion {
            arena_half: 1000.0,
            energy: Some(v12_sim::scene::EnergyUse { max_energy: 50.0, recharge: 0.1, ..Default::default() }),
            images: [Some(image.clone()), None],
            ..Motion::default()
        };
        // Mounted on the server before the client joins: it enters its first state there.
        let obj = h.world.get_mut(h.player).unwrap();
        let mut st = obj.state;
        st.energy = 50.0;
        st.images[0] = ImageRun::new(true);
        st.images[0].enter(&image.states, 0, &mut Vec::new());
        obj.set_state(st);
        h.run(8_000);
        assert!(h.cgc.predicted().is_some(), "seed {seed}: no control state after 8 s");
        let (s0, c0) = h.counters();
        let shots0 = h.world.get(h.player).unwrap().state.images[0].fire_count;
        h.predicted_effects.clear();
        h.fire = true;
        let (mut low, mut high) = (f32::MAX, 0f32);
        for _ in 0..80 {
            h.run(100);
            let e = h.world.get(h.player).unwrap().state.energy;
            (low, high) = (low.min(e), high.max(e));
        }
        let shots = h.world.get(h.player).unwrap().state.images[0].fire_count - shots0;
        assert!(shots >= 8, "seed {seed}: the server's weapon fired {shots} times in 8 s");
        assert!(high - low > 10.0 && low < 30.0, "seed {seed}: energy {low}..{high}: shots cost nothing?");
        h.assert_clean_since((s0, c0), 200, &format!("seed {seed}"));
        // Each predicted shot on the tick its trigger went down (or its reload ended under a
        // held trigger), with its fire sequence; none twice (replays add no effects).
        let fired: Vec<u64> = h
            .predicted_effects
            .iter()
            .filter(|(_, _, e)| matches!(e, Effect::Fire { .. }))
            .map(|(t, _, _)| *t)
            .collect();
        assert!(
            fired.len() as u32 >= shots.saturating_sub(4),
            "seed {seed}: {} predicted, {shots} served",
            fired.len()
        );
        assert!(
            fired.iter().any(|t| t % 45 == 0),
            "seed {seed}: no shot on a trigger's first tick: {fired:?}"
        );
        assert!(
            fired.windows(2).all(|w| w[1] - w[0] >= 15),
            "seed {seed}: shots closer than fire + reload: {fired:?}"
        );
        let seqs = h
            .predicted_effects
            .iter()
            .filter(|(_, _, e)| *e == Effect::Sequence(Some("fire".into())))
            .count();
        assert_eq!(seqs, fired.len(), "seed {seed}: a fire sequence per shot");
    }
}

#[test]
fn a_server_teleport_is_one_warp_on_the_client() {
    for seed in [1u64, 2, 3, 4] {
        let mut h = Harness::new(seed, false);
        h.run(8_000);
        let c0 = h.cgc.stats;
        let s0 = h.server_stats();
        let obj = h.world.get_mut(h.player).unwrap();
        let mut st = obj.state;
        st.pos += Vec3::new(40.0, 0.0, 0.0);
        obj.set_state(st);
        h.sgc.as_mut().unwrap().force_state();
        h.run(1_600);
        let warps = h.cgc.stats.corrections - c0.corrections;
        let sent = h.server_stats().corrections_sent - s0.corrections_sent;
        assert!(warps >= 1, "seed {seed}: the teleport never reached the client");
        // A lost correction is sent again, so two may arrive; never one per move in flight.
        assert!(warps <= 2, "seed {seed}: {warps} corrections for one teleport ({sent} sent)");
        assert!(sent <= 3, "seed {seed}: {sent} corrections sent for one teleport");
        // The prediction runs a round trip of moves ahead of the server: within a few metres
        // of it, not 40 m behind.
        let shown = h.cgc.predicted().unwrap().pos;
        assert!((shown - h.world.get(h.player).unwrap().state.pos).length() < 5.0, "seed {seed}");
    }
}

/// Stripes of water 12 m wide with dry stripes between them (x mod 24 under 12 is wet), the
/// surface 3 m over the ground: deeper than a player is tall.
#[derive(Debug)]
struct Stripes;

impl v12_sim::liquid::Liquids for Stripes {
    fn immersion(&self, feet: Vec3, half: Vec3) -> Option<v12_sim::liquid::Immersion> {
        let coverage = ((3.0 - feet.z) / (2.0 * half.z)).clamp(0.0, 1.0);
        (feet.x.rem_euclid(24.0) < 12.0 && coverage > 0.0).then_some(v12_sim::liquid::Immersion {
            coverage,
            density: 1.0,
            viscosity: 15.0,
        })
    }
    fn surface(&self, x: f32, _: f32) -> Option<f32> {
        (x.rem_euclid(24.0) < 12.0).then_some(3.0)
    }
}

/// A player lighter than water walks in circles in and out of water: it floats up off the
/// ground in the water and swims slower than it runs, and the predicting client, with the
/// same water, needs no correction.
#[test]
fn swimming_and_floating_are_predicted_without_corrections() {
    for seed in [51u64, 52] {
        let mut h = Harness::new(seed, false);
        h.motion = Motion {
            gravity: 20.0,
            arena_half: 1000.0,
            run_accel: 40.0,
            density: 0.5,
            swim_speed: 4.0,
            ground: Some(std::rc::Rc::new(GroundAndWalls { walls: Vec::new() })),
            liquid: Some(std::rc::Rc::new(Stripes)),
            ..Motion::default()
        };
        h.run(8_000);
        assert!(h.cgc.predicted().is_some(), "seed {seed}: no control state after 8 s");
        let (s0, c0) = h.counters();
        let (mut highest, mut fast_wet, mut fast_dry) = (0f32, 0f32, 0f32);
        for _ in 0..150 {
            h.run(100);
            let st = h.world.get(h.player).unwrap().state;
            let speed = st.vel.truncate().length();
            // Well inside a wet stripe, or on the ground of a dry one.
            let x = st.pos.x.rem_euclid(24.0);
            if x > 2.0 && x < 10.0 {
                highest = highest.max(st.pos.z);
                fast_wet = fast_wet.max(speed);
            } else if x > 14.0 && x < 22.0 && st.pos.z < 0.05 {
                fast_dry = fast_dry.max(speed);
            }
        }
        assert!(highest > 1.0, "seed {seed}: it never floated up: {highest}");
        // Swimming at 4 m/s (a strafe adds to either), running at 10.
        assert!(
            fast_wet < 0.6 * fast_dry && fast_dry > 9.0,
            "seed {seed}: swims at {fast_wet}, runs at {fast_dry}"
        );
        h.assert_clean_since((s0, c0), 300, &format!("seed {seed}"));
    }
}
