//! Water the server sees (issue 35): the mission's `WaterBlock`s with their cells seed-filled
//! over the terrain, each with its liquid's profile (V12's LiquidProfile physics).
//!
//! A leaf module (the water and what it does to a point or a shot); its users:
//!
//! - **Images** (`weapons.rs`): an image's `wet` input (`stateTransitionOnWet` /
//!   `...OnNotWet`) is whether its muzzle is under water ([`ServerWater::is_wet`]), set before
//!   each image step, the moves' too (the flag travels in the predicted state, so the client
//!   steps it alike).
//! - **Straight shots** (`projectiles.rs`, `FlightKind::Linear`): entering water a shot goes on at its
//!   datablock's `wetVelocity`, leaving it at `dryVelocity`; a negative `wetVelocity` (the
//!   default) ends the shot at the surface, where it explodes.
//! - **Grenades and bombs** under water sink at the gravity less the liquid's buoyancy
//!   (`density` against [`SHOT_DENSITY`]) and slow by its `viscosity`.
//! - **Lava** (`Lava`, `HotLava`; `damage.rs`) burns the players standing in it: a share of
//!   their `maxDamage` a second ([`LiquidProfile::burn`]), dealt with the tick's other damage.
//!
//! `host.rs` brings the water up to date with the mission ([`ServerWater::refresh`]) and burns
//! before each server tick.
//!
//! - **Players** wade, swim and float: [`ServerWater`] is sim's [`Liquids`], held by the
//!   walk's `Motion::liquid` (`v12_sim::liquid`: the lift of the liquid's density against the
//!   body's, the drag of its viscosity, the slower swim). Their walk is predicted, so the
//!   controlling client builds the same water from the ghosted blocks (their density and
//!   viscosity travel with them) over the same terrain (`client/session.rs`), and the two
//!   sides step the same bits.
//!
//! The cost of a tick without water is one test of an empty list (the walk is given no
//! water at all); with water, a point is first tested against the box around every block
//! ([`ServerWater::bounds`]), then against the boxes of the blocks, and only then against a
//! block's cells.

use glam::Vec3;
use v12_console_vm::ObjectId;
use v12_sim::liquid::{Immersion, Liquids};
use v12_world::{MissionWorld, WaterBlock, WaterCoverage};

/// Most water blocks the server keeps (the rest are ignored, with a warning).
pub const MAX_BLOCKS: usize = 64;
/// How dense a shot is against the liquid (water is 1): grenades sink at half the gravity
/// in water of density 1.
pub const SHOT_DENSITY: f32 = 2.0;
/// Per unit of `viscosity`, the share of its speed a body keeps losing a second (sim's, the
/// players' too).
pub use v12_sim::liquid::VISCOUS_DRAG;

/// What a liquid does to what is in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiquidProfile {
    /// Against water's 1: how strongly it lifts what is in it (0.1..=10).
    pub density: f32,
    /// How thick it is (0..=100; water 15): bodies in it slow by [`VISCOUS_DRAG`] times it a
    /// second.
    pub viscosity: f32,
    /// The share of a player's `maxDamage` it deals a second (lava).
    pub burn: f32,
}

impl LiquidProfile {
    /// The profile of a `liquidType` (Tribes 2's eight; unknown names are water), with the
    /// block's own `density` and `viscosity` when it sets them (`None`: the type's).
    pub fn of(liquid_type: &str, density: Option<f32>, viscosity: Option<f32>) -> LiquidProfile {
        let (d, v, burn) = match liquid_type.to_ascii_lowercase().as_str() {
            "lava" => (3.0, 40.0, 0.25),
            "hotlava" => (3.0, 40.0, 0.5),
            "crudeoil" => (0.9, 30.0, 0.0),
            "quicksand" => (1.8, 60.0, 0.0),
            _ => (1.0, 15.0, 0.0),
        };
        let ok = |x: Option<f32>, or: f32, lo: f32, hi: f32| {
            x.filter(|x| x.is_finite()).unwrap_or(or).clamp(lo, hi)
        };
        LiquidProfile { density: ok(density, d, 0.1, 10.0), viscosity: ok(viscosity, v, 0.0, 100.0), burn }
    }

    /// A velocity after `dt` seconds in the liquid.
    pub fn damp(&self, vel: Vec3, dt: f32) -> Vec3 {
        vel * (-self.viscosity * VISCOUS_DRAG * dt).exp()
    }

    /// The gravity (m/s², downward) left to a body of `body_density` in the liquid; negative
    /// when it floats up.
    pub fn sink(&self, gravity: f32, body_density: f32) -> f32 {
        gravity * (1.0 - self.density / body_density.max(0.01))
    }
}

/// One block as the server tests points against it.
#[derive(Debug, Clone)]
struct Pool {
    /// The block's box: its floor to its surface.
    lo: Vec3,
    hi: Vec3,
    cells: WaterCoverage,
    profile: LiquidProfile,
}

/// The water the server sees.
#[derive(Debug, Clone, Default)]
pub struct ServerWater {
    pools: Vec<Pool>,
    /// The box around every block (meaningless while there are none).
    lo: Vec3,
    hi: Vec3,
    /// What the pools were built from (ids, blocks and terrains), to rebuild on a change.
    built_from: Option<u64>,
}

impl ServerWater {
    /// Water from blocks and their profiles over ground `height(x, y)`; at most
    /// [`MAX_BLOCKS`]. Overlapping blocks answer in the order of their boxes (lowest corner
    /// first), not of their ids: a client's ids are not the server's, its answers must be.
    pub fn from_blocks(
        blocks: &[(WaterBlock, LiquidProfile)],
        height: impl Fn(f32, f32) -> f32,
    ) -> ServerWater {
        let mut w = ServerWater::default();
        for (b, profile) in blocks.iter().take(MAX_BLOCKS) {
            let b = b.clone().clamped();
            let (lo, hi) = (b.position, b.position + b.scale);
            w.pools.push(Pool { lo, hi, cells: b.coverage(&height), profile: *profile });
        }
        let key = |p: &Pool| {
            p.lo.to_array().into_iter().chain(p.hi.to_array()).map(f32::to_bits).collect::<Vec<_>>()
        };
        w.pools.sort_by_cached_key(key);
        w.lo = w.pools.iter().fold(Vec3::splat(f32::MAX), |a, p| a.min(p.lo));
        w.hi = w.pools.iter().fold(Vec3::splat(f32::MIN), |a, p| a.max(p.hi));
        w
    }

    /// No water at all.
    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
    }

    /// Whether some block's liquid burns (lava): without one, nobody's feet are looked at.
    pub fn burns(&self) -> bool {
        self.pools.iter().any(|p| p.profile.burn > 0.0)
    }

    /// The box around every block, when there is one.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        (!self.is_empty()).then_some((self.lo, self.hi))
    }

    /// How deep under the surface `p` is and the liquid it is in, if it is in water.
    pub fn at(&self, p: Vec3) -> Option<(f32, &LiquidProfile)> {
        if self.pools.is_empty() || p.cmplt(self.lo).any() || p.cmpgt(self.hi).any() {
            return None;
        }
        self.pools
            .iter()
            .filter(|b| p.cmpge(b.lo).all() && p.cmple(b.hi).all())
            .find_map(|b| b.cells.depth_at(p).map(|d| (d, &b.profile)))
    }

    /// Whether `p` is in water.
    pub fn is_wet(&self, p: Vec3) -> bool {
        self.at(p).is_some()
    }

    /// Rebuilds from the mission's blocks when they (or its terrains) changed since the last
    /// time, each with the profile of its liquid type and its own `density` and `viscosity`.
    /// A hash of a few numbers a block when nothing did. The server's world and a client's
    /// (built from the ghosts) give the same water.
    pub fn refresh(&mut self, world: &MissionWorld) {
        if world.waters.is_empty() {
            if !self.pools.is_empty() || self.built_from.is_some() {
                *self = ServerWater::default();
            }
            return;
        }
        let key = fingerprint(world);
        if self.built_from == Some(key) {
            return;
        }
        let mut ids: Vec<&ObjectId> = world.waters.keys().collect();
        ids.sort_unstable();
        if ids.len() > MAX_BLOCKS {
            tracing::warn!(blocks = ids.len(), "more water blocks than {MAX_BLOCKS}; the rest are dry");
        }
        let blocks: Vec<(WaterBlock, LiquidProfile)> = ids
            .iter()
            .map(|id| {
                let b = world.waters[id].clone();
                let p = LiquidProfile::of(&b.liquid_type, b.density, b.viscosity);
                (b, p)
            })
            .collect();
        *self = ServerWater::from_blocks(&blocks, |x, y| world.terrain_height(x, y).unwrap_or(0.0));
        self.built_from = Some(key);
        tracing::debug!(blocks = self.pools.len(), "the server's water rebuilt");
    }
}

/// Bodies in the water: the share of the box's height under the surface of the first block
/// whose cell holds the feet (x, y). A box outside the box around every block pays four
/// comparisons (none with no water).
impl Liquids for ServerWater {
    fn immersion(&self, feet: Vec3, half: Vec3) -> Option<Immersion> {
        let height = (2.0 * half.z).max(0.01);
        let near = |lo: Vec3, hi: Vec3| {
            feet.x >= lo.x
                && feet.y >= lo.y
                && feet.x <= hi.x
                && feet.y <= hi.y
                && feet.z < hi.z
                && feet.z + height > lo.z
        };
        if self.pools.is_empty() || !near(self.lo, self.hi) {
            return None;
        }
        self.pools.iter().find(|b| near(b.lo, b.hi) && b.cells.is_wet_at(feet.x, feet.y)).map(|b| Immersion {
            coverage: ((b.hi.z - feet.z) / height).clamp(0.0, 1.0),
            density: b.profile.density,
            viscosity: b.profile.viscosity,
        })
    }

    fn surface(&self, x: f32, y: f32) -> Option<f32> {
        let inside = |lo: Vec3, hi: Vec3| x >= lo.x && y >= lo.y && x <= hi.x && y <= hi.y;
        if self.pools.is_empty() || !inside(self.lo, self.hi) {
            return None;
        }
        self.pools.iter().find(|b| inside(b.lo, b.hi) && b.cells.is_wet_at(x, y)).map(|b| b.hi.z)
    }
}

/// A hash of the blocks (ids and the fields that shape them) and the terrain blocks' ids, in
/// any order (summed), with no allocation: what a tick pays to learn nothing changed.
fn fingerprint(world: &MissionWorld) -> u64 {
    use std::hash::{Hash, Hasher};
    let one = |f: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        f(&mut h);
        h.finish()
    };
    let mut key = (world.waters.len() as u64) << 32 | world.terrains.len() as u64;
    for (id, b) in &world.waters {
        key = key.wrapping_add(one(&|h| {
            id.hash(h);
            for v in b.position.to_array().into_iter().chain(b.scale.to_array()) {
                v.to_bits().hash(h);
            }
            b.seed_points.iter().for_each(|p| (p.x.to_bits(), p.y.to_bits()).hash(h));
            (b.flood_fill, &b.liquid_type).hash(h);
            (b.density.map(f32::to_bits), b.viscosity.map(f32::to_bits)).hash(h);
        }));
    }
    for id in world.terrains.keys() {
        key = key.wrapping_add(one(&|h| (id, "terrain").hash(h)));
    }
    key
}

/// What water does to a shot's move this tick, from `pos` at `vel` to `next`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ShotInWater {
    /// Nothing (dry, or no change).
    Dry,
    /// Its new velocity.
    Goes(Vec3),
    /// It ends where it met the surface.
    Ends(Vec3),
}

/// Water's effect on a straight shot (`wetVelocity`/`dryVelocity` crossing the surface) or
/// a falling one (buoyancy and viscosity under water).
pub(crate) fn shot(
    water: &ServerWater,
    linear: bool,
    speeds: (f32, f32),
    pos: Vec3,
    vel: Vec3,
    gravity: f32,
) -> ShotInWater {
    if water.is_empty() {
        return ShotInWater::Dry;
    }
    let dt = v12_sim::scene::TICK_SECONDS;
    let next = pos + vel * dt;
    let (was, is) = (water.at(pos), water.at(next));
    let (dry, wet) = speeds;
    if linear {
        return match (was.is_some(), is) {
            (false, Some((depth, _))) if wet < 0.0 => {
                // Back up the move to the surface.
                let k = if vel.z < -1e-6 { (depth / (-vel.z * dt)).clamp(0.0, 1.0) } else { 0.0 };
                ShotInWater::Ends(next - vel * dt * k)
            }
            (false, Some(_)) => ShotInWater::Goes(vel.normalize_or_zero() * wet),
            (true, None) if dry >= 0.0 => ShotInWater::Goes(vel.normalize_or_zero() * dry),
            _ => ShotInWater::Dry,
        };
    }
    match was {
        Some((_, liquid)) => {
            // Gravity was already applied in full this tick: give back the buoyant share.
            let mut v = vel;
            v.z += (gravity - liquid.sink(gravity, SHOT_DENSITY)) * dt;
            ShotInWater::Goes(liquid.damp(v, dt))
        }
        None => ShotInWater::Dry,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;
    use v12_console_vm::Console;

    /// The crater of `v12_world::water`'s tests: a bowl at 0 m inside a rim 20 m high at
    /// radius 16..24 around (50, 50), and ground at 10 m beyond, 0 m again past x = 80.
    fn crater(x: f32, y: f32) -> f32 {
        let r = Vec2::new(x - 50.0, y - 50.0).length();
        if r < 16.0 {
            0.0
        } else if r < 24.0 {
            20.0
        } else if x > 80.0 {
            0.0
        } else {
            10.0
        }
    }

    fn pond(liquid: &str) -> ServerWater {
        let block = WaterBlock {
            position: Vec3::new(0.0, 0.0, 0.0),
            scale: Vec3::new(100.0, 100.0, 5.0),
            seed_points: vec![Vec2::splat(0.5)],
            liquid_type: liquid.into(),
            ..WaterBlock::default()
        };
        ServerWater::from_blocks(&[(block.clone(), LiquidProfile::of(liquid, None, None))], crater)
    }

    #[test]
    fn points_in_the_crater_are_wet_and_outside_it_dry() {
        let w = pond("Water");
        assert_eq!(w.at(Vec3::new(50.0, 50.0, 1.0)).map(|(d, _)| d), Some(4.0));
        assert!(!w.is_wet(Vec3::new(50.0, 50.0, 6.0)), "above the surface");
        assert!(!w.is_wet(Vec3::new(90.0, 50.0, 1.0)), "past the rim, though the ground is low there");
        assert!(!w.is_wet(Vec3::new(500.0, 50.0, 1.0)), "outside every block's box");
        assert!(!w.is_wet(Vec3::splat(f32::NAN)));
        assert!(ServerWater::default().bounds().is_none());
        assert_eq!(w.bounds(), Some((Vec3::ZERO, Vec3::new(100.0, 100.0, 5.0))));
    }

    #[test]
    fn liquid_profiles_by_type_and_fields() {
        let water = LiquidProfile::of("Water", None, None);
        let lava = LiquidProfile::of("HotLava", None, None);
        assert!(water.burn == 0.0 && lava.burn > 0.0);
        let thick = LiquidProfile::of("RiverWater", Some(2.0), Some(f32::NAN));
        assert_eq!((thick.density, thick.viscosity), (2.0, 15.0), "junk keeps the type's");
        assert_eq!(LiquidProfile::of("x", Some(1e9), Some(-3.0)).density, 10.0);
        // A shot twice as dense as water sinks at half the gravity; slower in lava than water.
        assert_eq!(water.sink(20.0, SHOT_DENSITY), 10.0);
        let v = Vec3::new(10.0, 0.0, 0.0);
        assert!(lava.damp(v, 0.1).x < water.damp(v, 0.1).x && water.damp(v, 0.1).x < 10.0);
    }

    #[test]
    fn straight_shots_change_speed_or_end_at_the_surface() {
        let w = pond("Water");
        let down = Vec3::new(0.0, 0.0, -40.0);
        let above = Vec3::new(50.0, 50.0, 5.5);
        // wetVelocity 10: it goes on at 10 m/s into the water.
        assert_eq!(
            shot(&w, true, (40.0, 10.0), above, down, 0.0),
            ShotInWater::Goes(Vec3::new(0.0, 0.0, -10.0))
        );
        // wetVelocity -1: it ends at the surface (5 m).
        let ShotInWater::Ends(at) = shot(&w, true, (40.0, -1.0), above, down, 0.0) else { panic!() };
        assert!((at.z - 5.0).abs() < 1e-4, "{at}");
        // Leaving the water: dryVelocity.
        let up = Vec3::new(0.0, 0.0, 40.0);
        let under = Vec3::new(50.0, 50.0, 4.9);
        assert_eq!(shot(&w, true, (40.0, 10.0), under, up / 4.0, 0.0), ShotInWater::Goes(up));
        // In the air, or with no water at all: nothing.
        assert_eq!(shot(&w, true, (40.0, 10.0), Vec3::new(50.0, 50.0, 30.0), up, 0.0), ShotInWater::Dry);
        assert_eq!(shot(&ServerWater::default(), true, (40.0, -1.0), above, down, 0.0), ShotInWater::Dry);
    }

    #[test]
    fn grenades_float_and_slow_under_water() {
        let w = pond("Water");
        let v = Vec3::new(5.0, 0.0, -2.0);
        let ShotInWater::Goes(after) = shot(&w, false, (0.0, 0.0), Vec3::new(50.0, 50.0, 2.0), v, 20.0)
        else {
            panic!()
        };
        assert!(after.x < 5.0 && after.z > -2.0, "{after}");
    }

    #[test]
    fn the_server_sees_the_missions_water_and_rebuilds_only_on_a_change() {
        let mut con = Console::new();
        con.set_output(Box::new(v12_console_vm::BufferSink::new()));
        let container =
            std::rc::Rc::new(std::cell::RefCell::new(v12_sim::container::ScriptContainer::default()));
        let world = MissionWorld::new(std::rc::Rc::new(v12_resource::ResourceManager::new()), container);
        v12_world::register_mission_classes(&mut con, world.clone());
        let mut w = ServerWater::default();
        w.refresh(&world.borrow());
        assert!(w.is_empty());
        con.eval(
            "new WaterBlock(Hot) { position = \"0 0 0\"; scale = \"10 10 2\"; floodFill = false; \
             liquidType = \"Lava\"; viscosity = 5; };",
        )
        .unwrap();
        w.refresh(&world.borrow());
        let (depth, lava) = w.at(Vec3::new(5.0, 5.0, 0.5)).expect("in the lava");
        assert_eq!((depth, lava.viscosity, lava.burn > 0.0), (1.5, 5.0, true));
        let before = w.built_from;
        w.refresh(&world.borrow());
        assert_eq!(w.built_from, before);
        con.eval("Hot.delete();").unwrap();
        w.refresh(&world.borrow());
        assert!(w.is_empty() && w.built_from.is_none());
    }

    /// The example game's pond (examples/game, `missions/arena.mis`): its `LightMale`
    /// walking east from the crater's west side climbs the rim, wades in, slows to its swimming
    /// speed and floats off the crater's floor; the client's water, built from the ghosts of
    /// the server's world over its own copy of the files, is the server's, so the client's
    /// prediction steps the same bits as the server every tick (no correction).
    #[test]
    fn a_player_walking_into_the_example_pond_slows_and_floats_alike_on_both_sides() {
        use std::cell::RefCell;
        use std::rc::Rc;
        use v12_sim::moves::{Move, NULL_MOVE};
        use v12_sim::scene::ControlState;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/game");
        let mut con = Console::new();
        con.set_output(Box::new(v12_console_vm::BufferSink::new()));
        let res = crate::mod_files::install(&mut con, &dir, &[]).unwrap();
        crate::objects::register(&mut con, &Rc::default());
        let world = crate::mission::install(&mut con, res.clone());
        con.exec_file("missions/arena.mis").unwrap();
        let game = std::fs::read_to_string(dir.join("server/game.cs")).unwrap();
        let start = game.find("datablock PlayerData(LightMale)").unwrap();
        let end = start + game[start..].find("};").unwrap() + 2;
        con.eval(&game[start..end]).unwrap();
        let tuning = crate::PlayerTuning::of_datablock(&con, con.find_object_str("LightMale").unwrap());
        assert!(tuning.density < 0.6, "the example's players float: {}", tuning.density);
        // The client's world, from the server's ghosts, under its own ids.
        let client =
            MissionWorld::new(res, Rc::new(RefCell::new(v12_sim::container::ScriptContainer::default())));
        for (i, g) in crate::mission::world_ghosts(&world).iter().enumerate() {
            client.borrow_mut().add_from_ghost(u32::MAX - i as u32, g).unwrap();
        }
        let side = |w: &v12_world::MissionHandle| {
            let mut water = ServerWater::default();
            water.refresh(&w.borrow());
            assert!(!water.is_empty());
            crate::with_water(crate::motion(Some(MissionWorld::ground(w)), tuning), &Rc::new(water))
        };
        let (on_server, on_client) = (side(&world), side(&client));
        // From (6, 22), heading east (+x) towards the pond's middle (28, 22).
        let mut s = ControlState {
            pos: Vec3::new(6.0, 22.0, 0.0),
            yaw: -std::f32::consts::FRAC_PI_2,
            ..ControlState::default()
        };
        let mut c = s;
        let east = Move::from_input(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, [false; 6]);
        let (mut on_land, mut in_pond, mut ticks) = (0f32, 0f32, 0);
        while s.pos.x < 27.0 && ticks < 300 {
            s.apply_move(&east, &on_server);
            c.apply_move(&east, &on_client);
            assert_eq!(s, c, "tick {ticks}: the client's prediction left the server's");
            let speed = s.vel.truncate().length();
            if s.pos.x < 12.0 {
                on_land = on_land.max(speed);
            } else if s.pos.x > 25.0 {
                in_pond = in_pond.max(speed);
            }
            ticks += 1;
        }
        assert!(s.pos.x >= 27.0, "it reached the pond's middle: {}", s.pos);
        assert!(on_land > 7.5, "it runs on land: {on_land}");
        assert!(in_pond < 0.7 * on_land, "and swims slower in the pond: {in_pond} against {on_land}");
        // Standing still, it floats: off the floor, its head out, at rest.
        for t in 0..200 {
            s.apply_move(&NULL_MOVE, &on_server);
            c.apply_move(&NULL_MOVE, &on_client);
            assert_eq!(s, c, "tick {t} afloat: the client's prediction left the server's");
        }
        let floor = world.borrow().terrain_height(s.pos.x, s.pos.y).unwrap();
        assert!(s.pos.z > floor + 0.15 && s.pos.z < 1.2, "afloat at {} over the floor at {floor}", s.pos.z);
        assert!(s.vel.z.abs() < 0.2, "and at rest: {}", s.vel);
        // A dry walk far from the water is untouched: the same bits as with no water at all.
        let dry = crate::motion(Some(MissionWorld::ground(&world)), tuning);
        let (mut a, mut b) = (
            ControlState { pos: Vec3::new(-20.0, -30.0, 0.0), ..ControlState::default() },
            ControlState::default(),
        );
        b.pos = a.pos;
        for _ in 0..60 {
            a.apply_move(&east, &on_server);
            b.apply_move(&east, &dry);
        }
        assert_eq!(a, b);
    }
}
