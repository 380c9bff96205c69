//! The headless client's bot (`$Game::bot`): the input a [`ClientSession`] ticks with when no
//! one is at the keyboard. It walks to a free vehicle nearby to board it (and drives it where
//! it would walk), else goes for the nearest item it has not just reached; it turns towards
//! players near its heading and fires at them; it lights its jets (trigger 3) to climb to a
//! target above it while its energy lasts.

use crate::HIDDEN;
use crate::client::session::ClientSession;
use glam::Vec3;
use std::collections::BTreeMap;
use v12_netobject::ghost::ObjectId;
use v12_sim::moves::Move;

/// Within this distance (m) an item counts as reached (inside the 1.5 m a pickup needs).
const REACHED: f32 = 1.0;
/// A reached item is left alone for this many ticks (10 s), so a bot standing on an item that
/// stays (its own flag) moves on.
const FORGET_TICKS: u64 = 312;

/// Standing still.
pub fn idle() -> Move {
    Move::from_input(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false; 6])
}

/// A target this much higher (m) is jetted to.
const CLIMB_METRES: f32 = 2.0;
/// Energy a bot keeps in reserve: it lets go of the jets below it.
const JET_RESERVE: f32 = 8.0;

/// A free vehicle this near (m) is worth the walk.
const VEHICLE_SEEK: f32 = 60.0;
/// After a ride, or after walking to a vehicle this long without boarding it, a bot leaves
/// vehicles alone for a while (ticks: 20 s).
const VEHICLE_REST_TICKS: u64 = 625;
/// How long (ticks: 15 s) a bot walks to a vehicle before it gives up.
const VEHICLE_WALK_TICKS: u64 = 470;

/// The turn (radians, at most 0.2 a tick either way) from heading `yaw` towards a target
/// `d` away: the bot's and the screenshot's autopilot's steering.
pub(crate) fn steer(yaw: f32, d: Vec3) -> f32 {
    let turn = (-d.x).atan2(d.y) - yaw;
    let turn = (turn + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
    turn.clamp(-0.2, 0.2)
}

/// A bot's memory: the items it reached and when (tick), and its dealings with vehicles.
#[derive(Debug, Default, Clone)]
pub struct Bot {
    reached: BTreeMap<ObjectId, u64>,
    /// Since when (tick) it has walked to a vehicle.
    walking_to_vehicle: Option<u64>,
    /// Until when (tick) it leaves vehicles alone.
    vehicles_rest_until: u64,
}

impl Bot {
    /// A bot that has been nowhere.
    pub fn new() -> Self {
        Self::default()
    }

    /// This tick's move.
    pub fn next_move(&mut self, s: &ClientSession) -> Move {
        let Some(me) = s.predicted() else { return idle() };
        let tick = s.tick();
        self.reached.retain(|_, at| tick.saturating_sub(*at) < FORGET_TICKS);
        let mut best_item: Option<(f32, Vec3)> = None;
        let mut best_player: Option<(f32, Vec3)> = None;
        let vehicle = self.vehicle_to_board(s, me.pos, tick);
        for (id, g) in s.other_ghosts() {
            if g.flags & HIDDEN != 0 {
                continue;
            }
            let d = g.render_pos.distance(me.pos);
            let slot = match s.datablock_class(g.datablock) {
                "ItemData" if d < REACHED => {
                    self.reached.insert(id, tick);
                    continue;
                }
                "ItemData" if self.reached.contains_key(&id) => continue,
                "ItemData" => &mut best_item,
                "PlayerData" => &mut best_player,
                _ => continue,
            };
            if slot.is_none_or(|(bd, _)| d < bd) {
                *slot = Some((d, g.render_pos));
            }
        }
        let target = match (best_item, best_player, vehicle) {
            (_, Some((d, p)), _) if d < 12.0 => Some(p),
            (_, _, Some(v)) => Some(v),
            (Some((_, p)), _, _) => Some(p),
            (None, Some((_, p)), _) => Some(p),
            _ => None,
        };
        let Some(t) = target else {
            return Move::from_input(0.0, 1.0, 0.0, 0.05, 0.0, 0.0, [false; 6]);
        };
        let d = t - me.pos;
        let turn = steer(me.yaw, d);
        let fire =
            best_player.is_some_and(|(dist, _)| dist < 15.0) && turn.abs() < 0.15 && tick.is_multiple_of(8);
        let mut trig = [false; 6];
        trig[0] = fire;
        trig[v12_sim::scene::JET_TRIGGER] = Self::jets(d.z, me.energy);
        Move::from_input(0.0, 1.0, 0.0, turn, 0.0, 0.0, trig)
    }

    /// Where the free vehicle it walks to is, if it wants one: on foot, rested from its last
    /// ride, and the vehicle within [`VEHICLE_SEEK`] with no one aboard. Boarding happens
    /// when it touches the hull (the game's `onCollision`); a ride, or a walk that takes too
    /// long, rests it.
    fn vehicle_to_board(&mut self, s: &ClientSession, me: Vec3, tick: u64) -> Option<Vec3> {
        if s.riding().is_some() {
            self.walking_to_vehicle = None;
            self.vehicles_rest_until = tick + VEHICLE_REST_TICKS;
            return None;
        }
        if tick < self.vehicles_rest_until {
            return None;
        }
        let ridden: Vec<ObjectId> =
            s.other_ghosts().filter_map(|(_, g)| g.mount().map(|m| m.object)).collect();
        let free = s
            .other_ghosts()
            .filter(|(id, g)| {
                g.flags & HIDDEN == 0
                    && s.datablock_class(g.datablock) == "VehicleData"
                    && !ridden.contains(id)
            })
            .map(|(_, g)| g.render_pos)
            .filter(|p| p.distance(me) < VEHICLE_SEEK)
            .min_by(|a, b| a.distance(me).total_cmp(&b.distance(me)));
        let Some(at) = free else {
            self.walking_to_vehicle = None;
            return None;
        };
        let since = *self.walking_to_vehicle.get_or_insert(tick);
        if tick.saturating_sub(since) > VEHICLE_WALK_TICKS {
            self.walking_to_vehicle = None;
            self.vehicles_rest_until = tick + VEHICLE_REST_TICKS;
            return None;
        }
        Some(at)
    }

    /// Whether to hold the jets this tick: climbing to a target `rise` metres above, with
    /// more than the reserve of energy. (A bot does not jet just because it is stuck: pressed
    /// against a wall, its jets would only scrape it.)
    fn jets(rise: f32, energy: f32) -> bool {
        energy > JET_RESERVE && rise > CLIMB_METRES
    }
}
