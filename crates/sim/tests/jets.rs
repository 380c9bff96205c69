//! A player's energy in its moves (PlayerData's jets, jumps and recharge): what one move
//! does, without a network.

use glam::Vec3;
use v12_sim::moves::Move;
use v12_sim::scene::{ControlState, EnergyUse, JET_TRIGGER, Motion};

fn jetting(forward: f32) -> Move {
    let mut triggers = [false; 6];
    triggers[JET_TRIGGER] = true;
    Move::from_input(0.0, forward, 0.0, 0.0, 0.0, 0.0, triggers)
}

fn motion() -> Motion {
    Motion {
        gravity: 20.0,
        arena_half: 1000.0,
        energy: Some(EnergyUse {
            max_energy: 50.0,
            recharge: 0.5,
            jump_drain: 0.0,
            jet_accel: 40.0,
            jet_drain: 2.0,
            min_jet_energy: 10.0,
            max_jet_horizontal: 0.5,
        }),
        ..Motion::default()
    }
}

#[test]
fn jets_lift_while_the_energy_lasts_and_it_recharges() {
    let m = motion();
    let mut st = ControlState { energy: 50.0, ..ControlState::default() };
    st.apply_move(&jetting(0.0), &m);
    // Thrust 40 m/s² against gravity 20: up at 20 m/s² for one 32 ms tick.
    assert!((st.vel.z - 20.0 * 0.032).abs() < 1e-4, "{}", st.vel.z);
    assert_eq!(st.energy, 50.0 - 2.0 + 0.5);
    // Jetting until the energy is below minJetEnergy: then gravity wins.
    let mut ticks = 1;
    while st.energy >= 10.0 {
        st.apply_move(&jetting(0.0), &m);
        ticks += 1;
        assert!(ticks < 100);
    }
    assert_eq!(ticks, 27, "50 energy at 1.5 a tick down to under 10");
    let climbing = st.vel.z;
    st.apply_move(&jetting(0.0), &m);
    assert!(st.vel.z < climbing, "jets lit with {} energy", st.energy);
    // Not jetting: the energy comes back to the most it holds, no further.
    for _ in 0..200 {
        st.apply_move(&v12_sim::moves::NULL_MOVE, &m);
    }
    assert_eq!(st.energy, 50.0);
}

#[test]
fn jets_push_along_the_walk_by_the_share_the_datablock_allows() {
    let m = motion();
    let mut st = ControlState { energy: 50.0, ..ControlState::default() };
    st.apply_move(&jetting(1.0), &m);
    // Half the thrust along +Y (facing yaw 0), half up; the horizontal push is damped as
    // every external velocity is.
    let thrust = 40.0 * 0.032;
    assert!((st.vel.z - (thrust * 0.5 - 20.0 * 0.032)).abs() < 1e-4, "{}", st.vel);
    assert!((st.vel.y - thrust * 0.5 * m.damping).abs() < 1e-4, "{}", st.vel);
    assert!(st.vel.x.abs() < 1e-6);
    // Without energy in the motion, the jets and the energy are left alone.
    let mut plain = ControlState { energy: 7.0, ..ControlState::default() };
    plain.apply_move(&jetting(1.0), &Motion { gravity: 20.0, ..Motion::default() });
    assert_eq!(plain.energy, 7.0);
    assert!(plain.vel.z < 0.0);
    assert_eq!(Vec3::new(plain.vel.x, plain.vel.y, 0.0), Vec3::ZERO);
}

/// PlayerData's `runForce`: the running speed builds up by `runForce / mass` a second on
/// the ground (and slows the same way when the stick is let go), and keeps in the air.
#[test]
fn run_force_builds_the_running_speed_up_and_it_keeps_in_the_air() {
    let m = Motion { run_accel: 40.0, max_speed: 10.0, arena_half: 1000.0, ..Motion::default() };
    let forward = Move::from_input(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, [false; 6]);
    let mut st = ControlState::default();
    st.apply_move(&forward, &m);
    let first = st.vel.length();
    assert!((first - 40.0 * 0.032).abs() < 1e-3, "one tick of 40 m/s²: {first}");
    for _ in 0..7 {
        st.apply_move(&forward, &m);
    }
    assert!(st.vel.length() > 9.0 && st.vel.length() <= 10.0 + 1e-3, "{}", st.vel);
    for _ in 0..5 {
        st.apply_move(&forward, &m);
    }
    assert!((st.vel.length() - 10.0).abs() < 1e-3, "top speed is maxForwardSpeed: {}", st.vel);
    // Let go: it slows by the same force, not at once.
    st.apply_move(&v12_sim::moves::NULL_MOVE, &m);
    assert!((st.vel.length() - (10.0 - 40.0 * 0.032)).abs() < 1e-3, "{}", st.vel);
    // Without runForce the walk is the move's speed at once (today's example game's feel).
    let mut instant = ControlState::default();
    instant.apply_move(&forward, &Motion { arena_half: 1000.0, max_speed: 10.0, ..Motion::default() });
    assert!((instant.pos.y - 10.0 * 0.032).abs() < 1e-4, "{}", instant.pos);
    // In the air (nothing below) the running speed keeps, stick or none.
    let far = Motion {
        gravity: 20.0,
        ground: Some(std::rc::Rc::new(v12_sim::container::Obstacles::new(None))),
        ..m.clone()
    };
    let mut air = ControlState {
        pos: Vec3::new(0.0, 0.0, 50.0),
        vel: Vec3::new(0.0, 6.0, 0.0),
        ..ControlState::default()
    };
    for _ in 0..5 {
        air.apply_move(&v12_sim::moves::NULL_MOVE, &far);
    }
    assert!((air.vel.y - 6.0).abs() < 1e-4, "the air keeps the run: {}", air.vel);
}
