//! The headless client's bot (`$Game::bot`): the input a [`ClientSession`] ticks with when no
//! one is at the keyboard.

use crate::HIDDEN;
use crate::client::session::ClientSession;
use glam::Vec3;
use v12_sim::moves::Move;

/// Standing still.
pub fn idle() -> Move {
    Move::from_input(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false; 6])
}

/// Head for the nearest visible item, turn towards players near the heading and throw at
/// them.
pub fn bot_move(s: &ClientSession) -> Move {
    let Some(me) = s.predicted() else { return idle() };
    let mut best_item: Option<(f32, Vec3)> = None;
    let mut best_player: Option<(f32, Vec3)> = None;
    for (_, g) in s.other_ghosts() {
        if g.flags & HIDDEN != 0 {
            continue;
        }
        let d = g.render_pos.distance(me.pos);
        let slot = match s.datablock_class(g.datablock) {
            "ItemData" => &mut best_item,
            "PlayerData" => &mut best_player,
            _ => continue,
        };
        if slot.is_none_or(|(bd, _)| d < bd) {
            *slot = Some((d, g.render_pos));
        }
    }
    let target = match (best_item, best_player) {
        (_, Some((d, p))) if d < 12.0 => Some(p),
        (Some((_, p)), _) => Some(p),
        (None, Some((_, p))) => Some(p),
        _ => None,
    };
    let Some(t) = target else {
        return Move::from_input(0.0, 1.0, 0.0, 0.05, 0.0, 0.0, [false; 6]);
    };
    let d = t - me.pos;
    let want = (-d.x).atan2(d.y);
    let mut turn = want - me.yaw;
    while turn > std::f32::consts::PI {
        turn -= std::f32::consts::TAU;
    }
    while turn < -std::f32::consts::PI {
        turn += std::f32::consts::TAU;
    }
    let turn = turn.clamp(-0.2, 0.2);
    let fire =
        best_player.is_some_and(|(dist, _)| dist < 15.0) && turn.abs() < 0.15 && s.tick().is_multiple_of(8);
    let mut trig = [false; 6];
    trig[0] = fire;
    Move::from_input(0.0, 1.0, 0.0, turn, 0.0, 0.0, trig)
}
