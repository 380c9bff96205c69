//! Players on the mission's world (`ControlState::apply_move` with `Motion::ground`): they
//! fall onto terrain and stand still there to the bit, walk over hills, stop at interior
//! walls and pass through doors; two sides with the same world and the same moves never
//! disagree (prediction needs no correction).

use std::cell::RefCell;
use std::rc::Rc;

use glam::{Quat, Vec3};
use v12_resource::ResourceManager;
use v12_sim::container::ScriptContainer;
use v12_sim::moves::Move;
use v12_sim::scene::{ControlState, Motion, SKIN};
use v12_world::{Interior, InteriorInstance, MissionHandle, MissionWorld, TerrainBlock};

/// Rolling hills (0–25 m) with the two-room building on a flat pad at 5 m, its floor's top at
/// 5.5 m (the map's floor slab is 0.5 m).
fn world() -> MissionHandle {
    let mut t = TerrainBlock::flat(4.0, 5.0);
    for j in 0..256i64 {
        for i in 0..256i64 {
            let (x, y) = (i as f32 * 4.0, j as f32 * 4.0);
            let pad = (x - 110.0).abs() < 40.0 && (y - 100.0).abs() < 30.0;
            if !pad {
                t.set_height(i, j, 5.0 + 10.0 * (1.0 + (x * 0.02).sin() * (y * 0.015).cos()));
            }
        }
    }
    let w =
        MissionWorld::new(Rc::new(ResourceManager::new()), Rc::new(RefCell::new(ScriptContainer::default())));
    let interior =
        std::sync::Arc::new(Interior::from_map_text(include_str!("../data/two_rooms.map")).unwrap());
    {
        let mut m = w.borrow_mut();
        m.terrains.insert(1, Rc::new(t));
        m.interiors.insert(
            2,
            std::sync::Arc::new(InteriorInstance::new(interior, Vec3::new(100.0, 96.0, 5.0), Quat::IDENTITY)),
        );
    }
    w
}

fn motion(w: &MissionHandle) -> Motion {
    Motion { gravity: 20.0, arena_half: 5000.0, ground: Some(MissionWorld::ground(w)), ..Motion::default() }
}

fn run(s: &mut ControlState, m: &Motion, ticks: u32, mv: Move) {
    for _ in 0..ticks {
        s.apply_move(&mv, m);
    }
}

fn forward(speed: f32) -> Move {
    Move::from_input(0.0, speed, 0.0, 0.0, 0.0, 0.0, [false; 6])
}

#[test]
fn a_player_falls_onto_the_terrain_and_then_stays_put_to_the_bit() {
    let w = world();
    let m = motion(&w);
    let ground = w.borrow().terrain_height(300.0, 300.0).unwrap();
    let mut s = ControlState { pos: Vec3::new(300.0, 300.0, ground + 30.0), ..ControlState::default() };
    run(&mut s, &m, 200, v12_sim::moves::NULL_MOVE);
    assert!(s.pos.z >= ground - 1e-3 && s.pos.z < ground + 0.1, "landed at {} on ground {ground}", s.pos.z);
    assert_eq!(s.vel, Vec3::ZERO);
    let rest = s;
    run(&mut s, &m, 10 * 31, v12_sim::moves::NULL_MOVE);
    assert_eq!(s, rest, "standing still for 10 s moved nothing");
}

#[test]
fn a_player_walks_over_the_hills_without_sinking_into_them() {
    let w = world();
    let m = motion(&w);
    let height = |p: Vec3| w.borrow().terrain_height(p.x, p.y).unwrap();
    let start = Vec3::new(300.0, 400.0, 0.0);
    let mut s = ControlState { pos: start + Vec3::Z * (height(start) + 1.0), ..ControlState::default() };
    let mut highest_above = 0.0f32;
    for _ in 0..20 * 31 {
        s.apply_move(&forward(1.0), &m);
        let h = height(s.pos);
        assert!(s.pos.z >= h - 0.05, "below the ground at {}: {} < {h}", s.pos, s.pos.z);
        highest_above = highest_above.max(s.pos.z - h);
    }
    assert!(s.pos.distance(start) > 150.0, "walked {}", s.pos.distance(start));
    assert!(highest_above < 3.0, "bounced {highest_above} m above the hills");
}

#[test]
fn interior_walls_stop_a_player_and_doors_let_them_through() {
    let w = world();
    let m = motion(&w);
    // Room 1's middle, on its floor (top at 5.5 m).
    let mut s = ControlState { pos: Vec3::new(105.0, 100.0, 6.0), ..ControlState::default() };
    run(&mut s, &m, 40, v12_sim::moves::NULL_MOVE);
    assert!((s.pos.z - 5.5).abs() < 2.0 * SKIN, "on the floor: {}", s.pos);
    // Facing -y (yaw π): into the wall at world y = 96.5.
    let mut facing_wall = s;
    facing_wall.yaw = std::f32::consts::PI;
    run(&mut facing_wall, &m, 60, forward(1.0));
    let edge = facing_wall.pos.y - m.half_extents.y;
    assert!(edge > 96.5 - 1e-3 && edge < 96.5 + 0.05, "stopped at the wall: {}", facing_wall.pos);
    // Facing +x (yaw -π/2) on the doors' line (y = 100): through both doors and out.
    let mut walker = s;
    walker.yaw = -std::f32::consts::FRAC_PI_2;
    run(&mut walker, &m, 120, forward(1.0));
    assert!(walker.pos.x > 121.0, "walked out through both doors: {}", walker.pos);
    // Off the door line (y = 98.5): stopped by the wall between the rooms at x = 109.5.
    let mut blocked = ControlState {
        pos: Vec3::new(105.0, 98.5, 5.51),
        yaw: -std::f32::consts::FRAC_PI_2,
        ..ControlState::default()
    };
    run(&mut blocked, &m, 120, forward(1.0));
    assert!(
        (blocked.pos.x + m.half_extents.x - 109.5).abs() < 0.05,
        "stopped at the middle wall: {}",
        blocked.pos
    );
}

#[test]
fn two_sides_with_the_same_world_and_moves_never_disagree() {
    let (server_world, client_world) = (world(), world());
    let (sm, cm) = (motion(&server_world), motion(&client_world));
    let mut a = ControlState { pos: Vec3::new(105.0, 100.0, 6.0), ..ControlState::default() };
    let mut b = a;
    let mut x = 0x1234_5678u32;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x % 2001) as f32 / 1000.0 - 1.0
    };
    for tick in 0..3000 {
        let mv = Move::from_input(rnd(), rnd(), 0.0, rnd() * 0.2, 0.0, 0.0, [false; 6]);
        a.apply_move(&mv, &sm);
        b.apply_move(&mv, &cm);
        assert_eq!(a.checksum(), b.checksum(), "tick {tick}");
    }
    assert_eq!(a, b);
}

/// Trigger 2 jumps (V12's jump button) with `Motion::jump_speed`: only from the ground, up
/// and back down onto it; in the air a held button does nothing; without a jump speed it
/// never leaves the ground.
#[test]
fn a_player_jumps_from_the_ground_only_and_lands_again() {
    let w = world();
    let m = Motion { jump_speed: 8.0, ..motion(&w) };
    let ground = w.borrow().terrain_height(300.0, 300.0).unwrap();
    let mut s = ControlState { pos: Vec3::new(300.0, 300.0, ground + 1.0), ..ControlState::default() };
    run(&mut s, &m, 100, v12_sim::moves::NULL_MOVE);
    let standing = s.pos.z;
    let mut jump = [false; 6];
    jump[2] = true;
    let jump = Move::from_input(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, jump);
    let mut top = standing;
    for _ in 0..10 {
        s.apply_move(&jump, &m);
        top = top.max(s.pos.z);
    }
    // v²/2g = 1.6 m, less a tick's worth of discretisation; held in the air: no second jump.
    assert!(top > standing + 1.2 && top < standing + 1.7, "top {top} from {standing}");
    run(&mut s, &m, 100, v12_sim::moves::NULL_MOVE);
    assert!((s.pos.z - standing).abs() < 0.05, "landed at {} (stood at {standing})", s.pos.z);
    let mut flat = ControlState { pos: s.pos, ..ControlState::default() };
    run(&mut flat, &motion(&w), 10, jump);
    assert!((flat.pos.z - standing).abs() < 0.05, "no jump speed, no jump");
}
