//! Ghosting rules one at a time: dependency order, scope hysteresis, priority starvation,
//! id width growth, hostile sections, and the resend rule against a reference model.

mod ghost_support;

use ghost_support::*;
use proptest::prelude::*;
use std::collections::VecDeque;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::*;

const CLEAN: Loss = Loss { rate: 0.0, burst: false };

fn camera_world(size: f32, view: f32) -> (SimWorld, ObjectId) {
    let mut world = SimWorld::new(size, 50.0);
    let mut cam = Mover::new(0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]);
    cam.view_distance = view;
    let cam = world.add(cam);
    (world, cam)
}

#[test]
fn rider_is_not_created_before_its_horse_exists_on_the_client() {
    let (mut world, cam) = camera_world(200.0, 100.0);
    let horse = world.add(Mover::new(0, [60.0, 0.0, 0.0], [0.0; 3]));
    let mut rider = Mover::new(0, [1.0, 0.0, 0.0], [0.0; 3]);
    rider.depends_on = Some(horse);
    let rider = world.add(rider);
    let mut link = Link::new(GhostConfig::default(), cam, 400, 2, 1);
    // The first two packets are lost: the horse's create must be resent, the rider waits.
    link.step(&world, Loss { rate: 1.0, burst: false }).unwrap();
    link.step(&world, Loss { rate: 1.0, burst: false }).unwrap();
    for _ in 0..12 {
        link.step(&world, CLEAN).unwrap();
        let on_client_rider = link.client_mover(rider).is_some();
        if on_client_rider {
            assert!(link.client_mover(horse).is_some(), "rider arrived before the horse");
        }
    }
    let r = link.client_mover(rider).expect("rider ghosted");
    assert!(r.created_with_link, "the rider's first update resolved its horse");
    let h = link.client_mover(horse).unwrap();
    let horse_ghost_obj =
        link.arena.iter().find(|(_, g)| g.downcast_ref::<Mover>().is_some_and(|m| m.ident == h.ident));
    assert_eq!(r.link, horse_ghost_obj.map(|(id, _)| id));
    assert!(link.server.has_been_transmitted(horse));
}

#[test]
fn dependency_out_of_view_is_scoped_with_its_dependant() {
    let (mut world, cam) = camera_world(2000.0, 100.0);
    let horse = world.add(Mover::new(0, [1500.0, 0.0, 0.0], [0.0; 3]));
    let mut rider = Mover::new(0, [10.0, 0.0, 0.0], [0.0; 3]);
    rider.depends_on = Some(horse);
    let rider = world.add(rider);
    let mut link = Link::new(GhostConfig::default(), cam, 400, 1, 1);
    for _ in 0..6 {
        link.step(&world, CLEAN).unwrap();
    }
    assert!(link.client_mover(horse).is_some() && link.client_mover(rider).is_some());
}

/// A dependency this client can never hold (not ghostable) does not keep its dependant
/// from being created: the rider arrives with no link.
#[test]
fn a_dependency_that_is_never_ghosted_does_not_block_its_dependant() {
    let (mut world, cam) = camera_world(200.0, 100.0);
    let mut horse = Mover::new(0, [20.0, 0.0, 0.0], [0.0; 3]);
    horse.flags = NetFlags::NONE;
    let horse = world.add(horse);
    let mut rider = Mover::new(0, [10.0, 0.0, 0.0], [0.0; 3]);
    rider.depends_on = Some(horse);
    let rider = world.add(rider);
    let mut link = Link::new(GhostConfig::default(), cam, 400, 1, 1);
    for _ in 0..6 {
        link.step(&world, CLEAN).unwrap();
    }
    assert!(link.client_mover(horse).is_none());
    let r = link.client_mover(rider).expect("rider ghosted without its horse");
    assert_eq!(r.link, None);
}

fn flaps(hysteresis: f32) -> u64 {
    let (mut world, cam) = camera_world(400.0, 100.0);
    let edge = world.add(Mover::new(0, [99.0, 0.0, 0.0], [0.0; 3]));
    let config = GhostConfig { scope_hysteresis: hysteresis, ..GhostConfig::default() };
    let mut link = Link::new(config, cam, 400, 2, 3);
    for t in 0..200 {
        // Oscillates between 98 m and 106 m: across the 100 m edge, inside 110 m.
        let x = 102.0 + 4.0 * (t as f32 * 0.3).sin();
        let m = world.mover_mut(edge).unwrap();
        m.pos[0] = x;
        m.mask.set_mask_bits(MOVE);
        link.step(&world, CLEAN).unwrap();
    }
    link.server.stats().kills_sent
}

#[test]
fn hysteresis_stops_an_edge_object_from_flapping() {
    assert_eq!(flaps(0.1), 0, "with 10 % hysteresis the ghost stays");
    assert!(flaps(0.0) > 5, "without hysteresis it flaps (the test can fail)");
}

#[test]
fn starved_object_eventually_gets_its_update() {
    let (mut world, cam) = camera_world(400.0, 200.0);
    world.mover_mut(cam).unwrap().vel = [0.0, 1e-3, 0.0];
    // Thirty near objects in view, always dirty; one far object behind the camera.
    let mut near = Vec::new();
    for i in 0..30 {
        near.push(world.add(Mover::new(0, [i as f32 * 0.5, 5.0, 0.0], [15.0, 0.0, 0.0])));
    }
    let far = world.add(Mover::new(0, [0.0, -190.0, 0.0], [0.0, 0.0, 0.0]));
    // Big packets first so every ghost exists, then packets that hold ~4 updates.
    let mut link = Link::new(GhostConfig::default(), cam, 2000, 1, 4);
    for _ in 0..5 {
        link.step(&world, CLEAN).unwrap();
    }
    assert!(link.client_mover(far).is_some());
    link.budget_bytes = 50;
    let mut far_updates = Vec::new();
    for t in 0..60 {
        for &id in &near {
            world.mover_mut(id).unwrap().mask.set_mask_bits(MOVE);
        }
        let m = world.mover_mut(far).unwrap();
        m.tag = t;
        m.mask.set_mask_bits(TAG);
        link.step(&world, CLEAN).unwrap();
        if link.client_mover(far).unwrap().tag == t {
            far_updates.push(t);
        }
    }
    assert!(far_updates.len() >= 3, "far object updated only at {far_updates:?}");
    let gaps: Vec<u32> = far_updates.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g <= 20), "starved too long: {far_updates:?}");
}

#[test]
fn id_width_grows_and_shrinks_with_the_ghost_count() {
    let (mut world, cam) = camera_world(4000.0, 10_000.0);
    let mut link = Link::new(GhostConfig::default(), cam, 100_000, 1, 5);
    assert_eq!(link.server.id_bits(), 1);
    link.step(&world, CLEAN).unwrap();
    assert_eq!(link.server.id_bits(), 1);
    for i in 0..299 {
        world.add(Mover::new(0, [(i % 50) as f32 * 10.0, (i / 50) as f32 * 10.0, 0.0], [0.0; 3]));
    }
    link.step(&world, CLEAN).unwrap();
    assert_eq!(link.server.ghost_count(), 300);
    assert_eq!(link.server.id_bits(), 9);
    for _ in 0..3 {
        link.step(&world, CLEAN).unwrap();
    }
    assert_eq!(link.client.len(), 300);
    // Delete all but the first few: their kills are acknowledged and the top ids freed.
    for i in 3..300 {
        world.delete(ObjectId(i));
    }
    for _ in 0..4 {
        link.step(&world, CLEAN).unwrap();
    }
    assert_eq!(link.client.len(), 3);
    assert_eq!(link.server.id_bits(), 2);
}

#[test]
fn moving_object_update_fits_a_torque_player_update() {
    let (mut world, cam) = camera_world(400.0, 300.0);
    let mut ids = Vec::new();
    for i in 0..200 {
        ids.push(world.add(Mover::new(0, [i as f32, 100.0, 3.0], [7.0, -3.0, 0.5])));
    }
    let mut link = Link::new(GhostConfig::default(), cam, 100_000, 1, 6);
    for _ in 0..3 {
        link.step(&world, CLEAN).unwrap();
    }
    world.step(0.1);
    let before = link.server.stats();
    let bits_before = link.bits;
    link.step(&world, CLEAN).unwrap();
    let updates = link.server.stats().updates_sent - before.updates_sent;
    assert_eq!(updates, 200);
    let header = 1 + 1 + 1 + 5 + 96 + 1;
    let per = (link.bits - bits_before - header) as f64 / updates as f64;
    assert!(per <= 90.0, "{per} bits per moving-object update");
    link.deliver_notifies(true);
    for &id in &ids {
        assert_mover_eq(world.mover(id).unwrap(), link.client_mover(id).unwrap());
    }
}

fn section(build: impl FnOnce(&mut BitWriter)) -> Vec<u8> {
    let mut w = BitWriter::new();
    build(&mut w);
    w.into_bytes().to_vec()
}

#[test]
fn hostile_sections_are_errors() {
    let classes = classes();
    let read = |bytes: &[u8]| {
        let mut rx = GhostReceiver::new(classes.clone());
        rx.read_packet(&mut GhostArena::new(), &mut BitReader::new(bytes))
    };
    let header = |w: &mut BitWriter, id_bits: u32| {
        w.write_flag(true);
        w.write_flag(false);
        w.write_flag(true);
        w.write_ranged(id_bits, 1, MAX_GHOST_ID_BITS);
        for _ in 0..3 {
            w.write_f32(0.0);
        }
    };
    // Update for a ghost never created.
    let b = section(|w| {
        header(w, 4);
        w.write_flag(true);
        w.write_int(3, 4);
        w.write_flag(false);
    });
    assert_eq!(read(&b), Err(GhostError::UnknownGhost(3)));
    // Kill for a ghost never created.
    let b = section(|w| {
        header(w, 4);
        w.write_flag(true);
        w.write_int(2, 4);
        w.write_flag(true);
        w.write_flag(true);
    });
    assert_eq!(read(&b), Err(GhostError::UnknownGhost(2)));
    // Unknown class (2 classes registered: 1 bit of class id, both valid) -> make a
    // registry with three classes' worth of bits is not possible here, so test id width.
    let b = section(|w| {
        w.write_flag(true);
        w.write_flag(false);
        w.write_flag(true);
        w.write_int(31, 5); // id width 32: out of range
    });
    assert!(matches!(read(&b), Err(GhostError::Malformed(_))));
    // Truncated create.
    let b = section(|w| {
        header(w, 4);
        w.write_flag(true);
        w.write_int(1, 4);
        w.write_flag(true);
        w.write_flag(false);
        w.write_int(0, 1);
    });
    assert!(matches!(read(&b), Err(GhostError::Malformed(_))));
    // The same ghost id created twice.
    let mut rx = GhostReceiver::new(classes.clone());
    let mut arena = GhostArena::new();
    let create = |w: &mut BitWriter| {
        w.write_flag(true);
        w.write_int(1, 4);
        w.write_flag(true);
        w.write_flag(false);
        w.write_int(0, 1); // Mover
        w.write_int(7, 32);
        w.write_flag(false);
        w.write_flag(false);
        w.write_flag(false);
    };
    let b = section(|w| {
        header(w, 4);
        create(w);
        create(w);
        w.write_flag(false);
    });
    assert_eq!(rx.read_packet(&mut arena, &mut BitReader::new(&b)), Err(GhostError::GhostExists(1)));
    let e: v12_netobject::NetError = GhostError::UnknownGhost(1).into();
    assert!(e.to_string().contains("ghost id 1"));
}

#[test]
fn unknown_class_is_an_error() {
    struct Only;
    impl NetObject for Only {
        fn state_mask(&self) -> &StateMask {
            unreachable!("never packed")
        }
        fn pack_update(&self, _: &mut GhostPackContext<'_>, _: u32, _: &mut BitWriter) -> u32 {
            0
        }
        fn unpack_update(
            &mut self,
            _: &mut GhostUnpackContext<'_>,
            _: &mut BitReader<'_>,
        ) -> Result<(), GhostError> {
            Ok(())
        }
    }
    impl NetObjectClass for Only {
        const NAME: &'static str = "Only";
        fn create_ghost() -> Self {
            Only
        }
    }
    let classes = std::sync::Arc::new(
        GhostClassRegistryBuilder::new()
            .register::<Mover>()
            .register::<SimpleNetObject>()
            .register::<Only>()
            .build()
            .unwrap(),
    );
    assert_eq!(classes.id_bits(), 2);
    let b = section(|w| {
        w.write_flag(true);
        w.write_flag(false);
        w.write_flag(true);
        w.write_ranged(1, 1, MAX_GHOST_ID_BITS);
        for _ in 0..3 {
            w.write_f32(0.0);
        }
        w.write_flag(true);
        w.write_int(0, 1);
        w.write_flag(true);
        w.write_flag(false);
        w.write_int(3, 2);
    });
    let mut rx = GhostReceiver::new(classes);
    assert_eq!(
        rx.read_packet(&mut GhostArena::new(), &mut BitReader::new(&b)),
        Err(GhostError::UnknownClass(3))
    );
}

// ---- the resend rule against a reference model ---------------------------------------

#[derive(Clone, Debug)]
enum Op {
    /// Object `obj` changes the state groups in `bits`.
    Change { obj: usize, bits: u32 },
    /// A packet is written with this budget and delivered or dropped later.
    Send { budget: usize, lost: bool },
    /// The oldest outstanding packet is notified.
    Notify,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0usize..6, 1u32..8).prop_map(|(obj, bits)| Op::Change { obj, bits }),
        3 => (6usize..80, proptest::bool::weighted(0.4)).prop_map(|(budget, lost)| Op::Send { budget, lost }),
        2 => Just(Op::Notify),
    ]
}

/// The reference: per object and bit, the newest packet that carried the bit. A dropped
/// packet puts a bit back only if it was that newest carrier.
#[derive(Default, Clone)]
struct Model {
    dirty: u32,
    last_carrier: [Option<u64>; 3],
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn resend_rule_matches_reference(ops in proptest::collection::vec(op(), 1..120)) {
        let (mut world, cam) = camera_world(100.0, 1000.0);
        let mut ids = Vec::new();
        for i in 0..6 {
            let mut m = Mover::new(0, [i as f32, 1.0, 0.0], [0.0; 3]);
            m.flags = NetFlags::GHOSTABLE | NetFlags::SCOPE_ALWAYS;
            ids.push(world.add(m));
        }
        ids.push(cam);
        // Warm-up on a clean link: every ghost exists and nothing is dirty.
        let mut link = Link::new(GhostConfig::default(), cam, 2000, 0, 1);
        for _ in 0..3 {
            link.step(&world, CLEAN).unwrap();
        }
        link.deliver_notifies(true);
        let mut model: Vec<Model> = vec![Model::default(); ids.len()];
        let mut pending = vec![0u32; ids.len()];
        let mut outstanding: VecDeque<(GhostRecord, bool, u64)> = VecDeque::new();
        let mut packet = 0u64;
        for op in ops {
            match op {
                Op::Change { obj, bits } => {
                    let m = world.mover_mut(ids[obj]).unwrap();
                    if bits & TAG != 0 {
                        m.tag = m.tag.wrapping_add(1) & 0xffff;
                    }
                    if bits & MOVE != 0 {
                        m.pos[2] += 0.25;
                    }
                    m.mask.set_mask_bits(bits);
                    pending[obj] |= bits;
                }
                Op::Send { budget, lost } => {
                    for (i, &id) in ids.iter().enumerate() {
                        model[i].dirty |= std::mem::take(&mut pending[i]);
                        world.mover(id).unwrap().packed.set(0);
                    }
                    let mut w = BitWriter::with_budget_bytes(budget);
                    let rec = link.server.write_packet(&world, &mut w);
                    prop_assert!(w.bit_position() <= budget * 8);
                    let bytes = w.into_bytes();
                    if !lost {
                        link.client.read_packet(&mut link.arena, &mut BitReader::new(&bytes)).unwrap();
                    }
                    for (i, &id) in ids.iter().enumerate() {
                        let asked = world.mover(id).unwrap().packed.get();
                        prop_assert_eq!(asked & !model[i].dirty, 0, "asked to pack bits that were not dirty");
                        let ghost = link.server.assigned_ghost_id(id).unwrap();
                        let packed = rec
                            .entries()
                            .iter()
                            .filter(|e| e.ghost == ghost && e.kind == GhostEntryKind::Update)
                            .fold(0, |a, e| a | e.mask);
                        prop_assert_eq!(packed & !asked, 0);
                        model[i].dirty &= !packed;
                        for b in 0..3 {
                            if packed & (1 << b) != 0 {
                                model[i].last_carrier[b] = Some(packet);
                            }
                        }
                    }
                    outstanding.push_back((rec, lost, packet));
                    packet += 1;
                }
                Op::Notify => {
                    if let Some((rec, lost, p)) = outstanding.pop_front() {
                        if lost {
                            link.server.packet_dropped(rec);
                            for m in model.iter_mut() {
                                for b in 0..3 {
                                    if m.last_carrier[b] == Some(p) {
                                        m.dirty |= 1 << b;
                                    }
                                }
                            }
                        } else {
                            link.server.packet_delivered(rec);
                        }
                    }
                }
            }
            for (i, &id) in ids.iter().enumerate() {
                prop_assert_eq!(link.server.dirty_mask(id), Some(model[i].dirty), "object {}", i);
            }
        }
        // Drain: every outstanding notify, then a clean link until idle: the client
        // must equal the server exactly.
        while let Some((rec, lost, _)) = outstanding.pop_front() {
            if lost { link.server.packet_dropped(rec) } else { link.server.packet_delivered(rec) }
        }
        for _ in 0..10 {
            link.step(&world, CLEAN).unwrap();
        }
        link.deliver_notifies(true);
        for &id in &ids {
            let g = link.client_mover(id).unwrap();
            assert_mover_eq(world.mover(id).unwrap(), g);
        }
    }
}
