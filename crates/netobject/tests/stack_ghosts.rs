//! Ghosting through the whole stack: handshake (with the ghost class digest), events and
//! ghost sections in the same data packets, notifies from the real notify protocol, over
//! the seeded lossy link of the deterministic harness.

mod common;
mod ghost_support;

use common::*;
use ghost_support::*;
use rand_core::SeedableRng;
use rand_pcg::Pcg32;
use std::sync::Arc;
use v12_netobject::demo::*;
use v12_netobject::ghost::*;
use v12_netobject::*;

const TICK_MS: u64 = 50;

struct Scene {
    /// The server ghosts a SimWorld; each client's ghosts land in its endpoint's arena.
    net: World<SimWorld>,
    /// Client index (1-based) -> the scope mover of that client.
    cams: Vec<ObjectId>,
    next_tick: u64,
    moving: bool,
}

impl Scene {
    fn new(clients: usize, link: LinkParams, seed: u64) -> Self {
        let mut sim = SimWorld::new(400.0, 40.0);
        let mut rng = Pcg32::seed_from_u64(seed);
        sim.populate(&mut rng, 300, 15.0);
        let mut msg = SimpleNetObject::default();
        msg.set_message1("Hello World!");
        msg.message2 = "always in scope".into();
        sim.add_message(msg);
        let cams = (0..clients)
            .map(|i| {
                let mut cam = Mover::new(0, [100.0 + 60.0 * i as f32, 200.0, 0.0], [3.0, -2.0, 0.0]);
                cam.view_distance = 90.0;
                sim.add(cam)
            })
            .collect();
        let mut net = World::serving(sim, clients, link, seed, registry());
        for i in 0..=clients {
            net.node_mut(i).set_ghost_classes(classes());
        }
        Self { net, cams, next_tick: TICK_MS, moving: true }
    }

    /// Connects every client; the server starts ghosting to each with its camera.
    fn connect(&mut self) {
        self.net.connect_all();
        let n = self.net.len() - 1;
        let up = |w: &World<SimWorld>| {
            w.seen(0).connected.len() == n && (1..=n).all(|i| w.client_conn(i).is_some())
        };
        assert!(self.net.run_until_cond(10_000, up), "all connected");
        for id in self.net.seen(0).connected.clone() {
            let data = self.net.node(0).connection(id).unwrap().connect_data().clone();
            let i: usize = std::str::from_utf8(&data).unwrap()["client".len()..].parse().unwrap();
            self.net.node_mut(0).start_ghosting(id).unwrap();
            self.net.node_mut(0).set_scope_object(id, Some(self.cams[i - 1])).unwrap();
        }
    }

    fn run_until(&mut self, t: u64) {
        while self.net.now() < t {
            let until = self.next_tick.min(t);
            self.net.step(until);
            if self.net.now() >= self.next_tick {
                if self.moving {
                    self.net.objects_mut().step(TICK_MS as f32 / 1000.0);
                }
                self.next_tick += TICK_MS;
            }
        }
    }

    fn assert_converged(&self) {
        let sim = self.net.objects();
        for i in 0..self.cams.len() {
            let arena = self.net.arena(i + 1);
            let cam = sim.mover(self.cams[i]).unwrap();
            let mut in_scope = 0;
            for (k, m) in sim.movers.iter().enumerate() {
                let Some(m) = m else { continue };
                let d = dist(m.pos, cam.pos);
                let ghost =
                    arena.iter().filter_map(|(_, g)| g.downcast_ref::<Mover>()).find(|g| g.ident == k as u32);
                if d <= cam.view_distance {
                    in_scope += 1;
                    let g = ghost.unwrap_or_else(|| panic!("client {i}: object {k} at {d:.1} m not ghosted"));
                    assert_mover_eq(m, g);
                } else if d > cam.view_distance * 1.1 {
                    assert!(ghost.is_none(), "client {i}: object {k} at {d:.1} m still ghosted");
                } else if let Some(g) = ghost {
                    assert_mover_eq(m, g);
                }
            }
            assert!(in_scope > 10, "the scene puts objects in scope ({in_scope})");
            let msg = arena.iter().filter_map(|(_, g)| g.downcast_ref::<SimpleNetObject>()).next();
            assert_eq!(msg.map(|m| m.message1.as_str()), Some("Hello World!"));
        }
    }
}

#[test]
fn ghosts_converge_through_the_full_stack_under_loss() {
    for (seed, loss) in [(1, 0.0), (2, 0.2), (3, 0.5)] {
        let link = LinkParams { loss, burst_chance: 0.02, burst_len: 4, jitter_ms: 15, ..LinkParams::CLEAN };
        let mut s = Scene::new(3, LinkParams::CLEAN, seed);
        s.connect();
        s.net.set_link(link);
        // Events and ghosts share packets: post ordered events during the run.
        let conns = s.net.seen(0).connected.clone();
        for (k, &id) in conns.iter().enumerate() {
            s.net.node_mut(0).post_event(id, Msg::<2>::new(0, k as u32, None)).unwrap();
        }
        let t = s.net.now();
        s.run_until(t + 4_000);
        s.moving = false;
        s.net.set_link(LinkParams::CLEAN);
        let t = s.net.now();
        s.run_until(t + 1_500);
        s.assert_converged();
        for i in 1..=3 {
            assert!(s.net.seen(i).disconnected.is_empty(), "seed {seed}: {:?}", s.net.seen(i).disconnected);
            assert_eq!(s.net.seen(i).events.len(), 1, "the ordered event arrived next to the ghosts");
            let c = s.net.client_conn(i).unwrap();
            let rx = s.net.node(i).ghost_receiver(c).unwrap();
            assert_eq!(rx.len(), s.net.arena(i).len());
        }
        let stats = s.net.node(0).ghost_manager(conns[0]).unwrap().stats();
        assert!(stats.creates_acked > 0 && stats.updates_sent > 0);
        if loss > 0.0 {
            let dropped = s.net.node(0).connection(conns[0]).unwrap().stats().data_dropped;
            assert!(dropped > 0, "the loss reached the ghost packets");
        }
    }
}

#[test]
fn mission_change_and_disconnect_clear_the_client_ghosts() {
    let mut s = Scene::new(2, LinkParams::lossy(0.1), 9);
    s.connect();
    s.run_until(s.net.now() + 2_000);
    assert!((1..s.net.len()).all(|i| s.net.arena(i).len() > 10));
    let conns = s.net.seen(0).connected.clone();
    // Mission change on client 1's connection: the client drops everything, then gets it back.
    s.net.node_mut(0).reset_ghosting(conns[0]).unwrap();
    let resets_before = {
        let c = s.net.client_conn(1).unwrap();
        s.net.node(1).ghost_receiver(c).unwrap().stats().resets
    };
    s.run_until(s.net.now() + 2_000);
    let c = s.net.client_conn(1).unwrap();
    assert!(s.net.node(1).ghost_receiver(c).unwrap().stats().resets > resets_before);
    s.moving = false;
    s.net.set_link(LinkParams::CLEAN);
    s.run_until(s.net.now() + 1_500);
    s.assert_converged();
    // The server drops client 2: its ghosts leave its world.
    s.net.node_mut(0).disconnect(conns[1], "kicked");
    s.run_until(s.net.now() + 500);
    assert_eq!(s.net.seen(2).disconnected.len(), 1);
    assert!(s.net.arena(2).is_empty(), "ghosts of a closed connection are removed");
}

#[test]
fn ghost_class_mismatch_is_refused_with_a_reason() {
    let mut net = World::new(1, InterfaceConfig::default(), InterfaceConfig::default(), LinkParams::CLEAN, 4);
    net.node_mut(0).set_ghost_classes(classes());
    net.connect_all();
    net.run_until(12_000);
    assert!(net.seen(0).connected.is_empty());
    assert!(
        net.seen(1).failed.iter().any(|r| r.contains("ghost class mismatch")),
        "{:?}",
        net.seen(1).failed
    );
}

/// One route in: every datagram goes through `handle_datagram` with a world, so a client
/// always takes its ghosts (here into the harness's own arena) and is never dropped for
/// having called the wrong function (before, a plain `handle_datagram` dropped it).
#[test]
fn every_client_takes_its_ghosts_through_the_one_route() {
    let mut s = Scene::new(1, LinkParams::CLEAN, 5);
    s.connect();
    let t = s.net.now() + 2_000;
    while s.net.now() < t {
        s.net.step(t);
    }
    assert!(s.net.seen(1).disconnected.is_empty(), "{:?}", s.net.seen(1).disconnected);
    assert!(!s.net.arena(1).is_empty(), "the ghosts arrived");
}

/// Every ghost's state, bit for bit, sorted by server identity.
fn exact_view(a: &GhostArena) -> Vec<(u32, [u32; 7], u32, String)> {
    let mut v: Vec<_> = a
        .iter()
        .map(|(_, g)| {
            if let Some(m) = g.downcast_ref::<Mover>() {
                let f = |x: f32| x.to_bits();
                let bits = [
                    f(m.pos[0]),
                    f(m.pos[1]),
                    f(m.pos[2]),
                    f(m.vel[0]),
                    f(m.vel[1]),
                    f(m.vel[2]),
                    f(m.heading),
                ];
                (m.ident, bits, m.tag, String::new())
            } else if let Some(s) = g.downcast_ref::<SimpleNetObject>() {
                (u32::MAX, [0; 7], 0, format!("{}|{}", s.message1, s.message2))
            } else {
                (u32::MAX - 1, [0; 7], 0, String::new())
            }
        })
        .collect();
    v.sort();
    v
}

fn record_scene(objects_scale: bool, start_after_ms: u64, seconds: u64) -> (Scene, Vec<u8>) {
    let mut s = Scene::new(1, LinkParams::lossy(0.15), 21);
    if !objects_scale {
        let sim = s.net.objects_mut();
        sim.movers.truncate(20);
        let cams = s.cams.clone();
        assert!(cams.iter().all(|c| (c.0 as usize) >= 20), "scene layout");
        // The camera was appended after the movers; put it back at the end.
        *sim = {
            let mut w = SimWorld::new(400.0, 40.0);
            for m in sim.movers.drain(..).flatten() {
                w.add(m);
            }
            let mut cam = Mover::new(0, [150.0, 150.0, 0.0], [3.0, -2.0, 0.0]);
            cam.view_distance = 300.0;
            s.cams = vec![w.add(cam)];
            let mut msg = SimpleNetObject::default();
            msg.set_message1("Hello World!");
            w.add_message(msg);
            w
        };
    }
    s.connect();
    let c = s.net.client_conn(1).unwrap();
    s.run_until(s.net.now() + start_after_ms);
    let client = s.net.endpoint_mut(1);
    client.iface.start_recording(c, &mut client.arena).unwrap();
    s.run_until(s.net.now() + seconds * 1000);
    let demo = s.net.node_mut(1).stop_recording(c).unwrap();
    (s, demo)
}

#[test]
fn a_demo_played_back_reproduces_the_recorded_ghost_states_exactly() {
    let (s, demo) = record_scene(true, 0, 3);
    let live = exact_view(s.net.arena(1));
    assert!(live.len() > 10);
    let mut arena = GhostArena::new();
    let mut player =
        DemoPlayer::open(demo.clone(), s.net.node(1).registry().clone(), classes(), &mut arena).unwrap();
    assert!(player.len() > 20);
    let played = player.play_to_end(&mut arena).unwrap();
    assert_eq!(played, player.len());
    assert_eq!(exact_view(&arena), live, "playback reaches the recorded ghost states exactly");
    // Played twice from the same file: the same again (no hidden state).
    let mut again = GhostArena::new();
    let mut p2 = DemoPlayer::open(demo, s.net.node(1).registry().clone(), classes(), &mut again).unwrap();
    p2.play_to_end(&mut again).unwrap();
    assert_eq!(exact_view(&again), live);
}

#[test]
fn a_demo_started_mid_game_restores_the_ghosts_from_its_start_block() {
    let (s, demo) = record_scene(true, 2_000, 2);
    let mut arena = GhostArena::new();
    let mut player = DemoPlayer::open(demo, s.net.node(1).registry().clone(), classes(), &mut arena).unwrap();
    assert!(arena.len() > 10, "start block holds the ghosts held when recording began");
    player.play_to_end(&mut arena).unwrap();
    // Every mover moved since the start, so every field was overwritten by real updates.
    assert_eq!(exact_view(&arena), exact_view(s.net.arena(1)));
}

#[test]
fn a_truncated_or_corrupt_demo_is_a_clear_error_at_every_point() {
    let (s, demo) = record_scene(false, 0, 2);
    let reg = s.net.node(1).registry().clone();
    assert!(demo.len() > 200, "{} bytes", demo.len());
    for cut in 0..demo.len() {
        let mut arena = GhostArena::new();
        let err = DemoPlayer::open(demo[..cut].to_vec(), reg.clone(), classes(), &mut arena).unwrap_err();
        assert!(matches!(err, DemoError::Truncated { .. } | DemoError::BadMagic), "cut at {cut}: {err}");
        assert!(arena.is_empty(), "nothing applied from a broken demo");
        assert!(!err.to_string().is_empty());
    }
    for i in (8..demo.len()).step_by(7) {
        let mut bad = demo.clone();
        bad[i] ^= 0x5A;
        let mut arena = GhostArena::new();
        let err = DemoPlayer::open(bad, reg.clone(), classes(), &mut arena).unwrap_err();
        assert!(arena.is_empty(), "byte {i}: {err}");
    }
    let mut arena = GhostArena::new();
    let other = Arc::new(GhostClassRegistryBuilder::new().register::<Mover>().build().unwrap());
    assert_eq!(DemoPlayer::open(demo, reg, other, &mut arena).unwrap_err(), DemoError::ClassMismatch);
}
