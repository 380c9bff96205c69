//! The client's ghosts on the client [`ProcessList`] (V12's GameBase on the client side):
//! every 32 ms tick a ghost dead-reckons the last update's velocity and works off any
//! correction; every frame `interpolateTick` places it between its last two tick positions
//! and `advanceTime` ages its animation threads. So a ghost glides between the server's
//! updates and between ticks instead of stepping at 31 Hz.
//!
//! A correction (an update that disagrees with where the ghost was shown) is a *warp*: the
//! offset is worked off linearly over [`WARP_TICKS`] ticks, so a remote ghost never snaps,
//! however far the server moved it (a `setTransform` is one warp). Only a ghost's first
//! update, or one further than [`SNAP_DISTANCE`] (a respawn across the map), places it
//! at once.
//!
//! The predicted control object is not a ghost here: its client's moves drive it (see
//! [`crate::game_connection`]).

use crate::moves::Move;
use crate::process::{ProcessId, ProcessList, ProcessWorld, TICK_MS};
use crate::scene::ClientScene;
use glam::Vec3;
use std::collections::BTreeMap;
use v12_netobject::ghost::ObjectId;

/// Ticks over which a correction is worked off (about 130 ms).
pub const WARP_TICKS: u32 = 4;

/// A correction this far (m) or more is a placement, not a warp.
pub const SNAP_DISTANCE: f32 = 100.0;

/// One ghost's path through the ticks.
#[derive(Debug, Clone, Copy, Default)]
struct GhostPath {
    /// The ghost's update counter when last looked at: a change is a new update.
    seen_updates: u32,
    /// Where the last update, dead-reckoned to this tick, says the ghost is.
    target: Vec3,
    /// Shown position at the end of the previous tick.
    prev: Vec3,
    /// Shown position at the end of this tick.
    cur: Vec3,
    /// The correction still to work off (shown minus target at the update).
    warp: Vec3,
    /// Ticks of the warp left.
    warp_left: u32,
}

impl GhostPath {
    fn at(pos: Vec3, updates: u32) -> Self {
        Self { seen_updates: updates, target: pos, prev: pos, cur: pos, ..Self::default() }
    }
}

/// The client's ghosts in a client [`ProcessList`].
#[derive(Debug, Clone)]
pub struct GhostProcess {
    list: ProcessList,
    paths: BTreeMap<ProcessId, GhostPath>,
    /// Corrections worked off as warps so far.
    pub warps: u64,
    /// Corrections that placed a ghost at once (further than [`SNAP_DISTANCE`]).
    pub snaps: u64,
}

impl Default for GhostProcess {
    fn default() -> Self {
        Self::new()
    }
}

impl GhostProcess {
    /// No ghosts yet.
    pub fn new() -> Self {
        Self { list: ProcessList::client(), paths: BTreeMap::new(), warps: 0, snaps: 0 }
    }

    /// Ticks run so far.
    pub fn ticks(&self) -> u64 {
        self.list.ticks()
    }

    /// The interpolation delta of the last frame (0..1 of a tick back from the tick's end).
    pub fn last_delta(&self) -> f32 {
        self.list.last_delta()
    }

    /// The process list (its order: `process_after` puts a rider after its mount).
    pub fn list_mut(&mut self) -> &mut ProcessList {
        &mut self.list
    }

    /// Advances the ghosts by one frame of `dt_ms`: the ticks now due, then interpolation
    /// back to the present and `advance_time`. `skip` (the predicted control object) is
    /// left alone. Returns the ticks run.
    pub fn advance(&mut self, scene: &mut ClientScene, dt_ms: u32, skip: Option<ObjectId>) -> u64 {
        self.sync(scene, skip);
        let mut world = World { scene, paths: &mut self.paths, warps: 0, snaps: 0 };
        let n = self.list.advance_client_time(dt_ms, &mut world);
        let (warps, snaps) = (world.warps, world.snaps);
        self.warps += warps;
        self.snaps += snaps;
        n
    }

    /// Ghosts that appeared join the list (placed where their first update says); ghosts
    /// that went, or became the control object, leave it.
    fn sync(&mut self, scene: &ClientScene, skip: Option<ObjectId>) {
        let skip = skip.map(|s| s.0);
        let list = &mut self.list;
        self.paths.retain(|&id, _| {
            let keep = Some(id) != skip && scene.get(ObjectId(id)).is_some();
            if !keep {
                list.remove(id);
            }
            keep
        });
        for (id, g) in scene.iter() {
            if Some(id.0) == skip || self.paths.contains_key(&id.0) {
                continue;
            }
            self.paths.insert(id.0, GhostPath::at(g.state.pos, g.updates));
            self.list.add(id.0);
        }
    }
}

struct World<'a> {
    scene: &'a mut ClientScene,
    paths: &'a mut BTreeMap<ProcessId, GhostPath>,
    warps: u64,
    snaps: u64,
}

impl ProcessWorld for World<'_> {
    fn process_tick(&mut self, id: ProcessId, _mv: Option<&Move>) {
        let (Some(g), Some(p)) = (self.scene.get_mut(ObjectId(id)), self.paths.get_mut(&id)) else {
            return;
        };
        let dt = TICK_MS as f32 / 1000.0;
        if g.updates != p.seen_updates {
            // A new update: the target jumps to it; what the ghost was shown at becomes the
            // warp to work off (a ghost whose id was reused starts over).
            let first = g.updates < p.seen_updates || p.seen_updates == 0;
            p.seen_updates = g.updates;
            p.target = g.state.pos;
            let offset = p.cur - p.target;
            if first || offset.length() >= SNAP_DISTANCE {
                if !first {
                    self.snaps += 1;
                }
                *p = GhostPath::at(p.target, g.updates);
            } else if offset.length_squared() > 1e-8 {
                self.warps += 1;
                p.warp = offset;
                p.warp_left = WARP_TICKS;
            }
        }
        p.prev = p.cur;
        p.target += g.state.vel * dt;
        p.warp_left = p.warp_left.saturating_sub(1);
        p.cur = p.target + p.warp * (p.warp_left as f32 / WARP_TICKS as f32);
        if p.warp_left == 0 {
            p.warp = Vec3::ZERO;
        }
        g.since_update_ms = g.since_update_ms.saturating_add(TICK_MS);
    }

    fn interpolate_tick(&mut self, id: ProcessId, delta: f32) {
        if let (Some(g), Some(p)) = (self.scene.get_mut(ObjectId(id)), self.paths.get(&id)) {
            g.render_pos = p.cur.lerp(p.prev, delta.clamp(0.0, 1.0));
        }
    }

    fn advance_time(&mut self, id: ProcessId, dt: f32) {
        let Some(g) = self.scene.get_mut(ObjectId(id)) else { return };
        let ms = (dt * 1000.0).round() as u32;
        for (age, t) in g.thread_age_ms.iter_mut().zip(&g.threads) {
            if t.as_ref().is_some_and(|t| t.playing) {
                *age = age.saturating_add(ms);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{ControlState, SceneObject};
    use v12_netobject::ghost::{GhostClientWorld, pack_state, unpack_state};

    /// The server's object `o` reaches the client's ghost `id` (or a new ghost).
    fn update(scene: &mut ClientScene, id: Option<ObjectId>, o: &SceneObject) -> ObjectId {
        let bytes = pack_state(o);
        match id {
            Some(id) => {
                unpack_state(scene.ghost_mut(id).unwrap(), &bytes).unwrap();
                id
            }
            None => {
                let mut g = SceneObject::default();
                unpack_state(&mut g, &bytes).unwrap();
                scene.add_ghost(Box::new(g))
            }
        }
    }

    fn moving(pos: Vec3, vel: Vec3) -> SceneObject {
        let mut o = SceneObject::new(1, pos);
        o.set_state(ControlState { pos, vel, yaw: 0.0, ..ControlState::default() });
        o
    }

    /// Frames of odd lengths between ticks: every shown position lies on the segment between
    /// the ghost's last two tick positions, at the fraction of the tick that has passed, and
    /// the ghost moves at its speed, not in 32 ms steps.
    #[test]
    fn positions_between_ticks_lie_on_the_interpolated_path() {
        let mut scene = ClientScene::new();
        let mut gp = GhostProcess::new();
        let vel = Vec3::new(10.0, -4.0, 0.0);
        let id = update(&mut scene, None, &moving(Vec3::new(5.0, 5.0, 0.0), vel));
        let mut last = scene.get(id).unwrap().render_pos;
        let mut moved_between_ticks = 0;
        for frame in 0..400u32 {
            let dt = [7, 11, 3, 16, 5][frame as usize % 5];
            let ticks = gp.advance(&mut scene, dt, None);
            let p = gp.paths[&id.0];
            let shown = scene.get(id).unwrap().render_pos;
            let delta = gp.last_delta();
            assert!((0.0..1.0).contains(&delta) || delta == 0.0, "delta {delta}");
            let want = p.cur.lerp(p.prev, delta);
            assert!((shown - want).length() < 1e-4, "frame {frame}: {shown} not on the path at {want}");
            // On the segment: collinear with it and between its ends.
            let seg = p.cur - p.prev;
            let t = (shown - p.prev).dot(seg) / seg.length_squared().max(1e-12);
            assert!((-1e-4..=1.0 + 1e-4).contains(&t), "frame {frame}: t {t}");
            // The step of a frame is the distance travelled in it (no 32 ms stepping).
            let step = (shown - last).length();
            assert!(step <= vel.length() * (dt as f32 / 1000.0) + 1e-3, "frame {frame}: step {step}");
            if ticks == 0 && step > 0.0 {
                moved_between_ticks += 1;
            }
            last = shown;
        }
        assert!(
            moved_between_ticks > 100,
            "the ghost stood still between ticks ({moved_between_ticks} frames moved)"
        );
        assert_eq!(gp.warps, 0);
    }

    /// A server `setTransform` 6 m away: the ghost gets there in [`WARP_TICKS`] ticks, no
    /// frame moves it more than a tick's share of the warp, and it is one warp.
    #[test]
    fn a_correction_warps_over_a_few_ticks_and_never_snaps_a_remote_ghost() {
        let mut scene = ClientScene::new();
        let mut gp = GhostProcess::new();
        let id = update(&mut scene, None, &moving(Vec3::ZERO, Vec3::ZERO));
        for _ in 0..10 {
            gp.advance(&mut scene, 10, None);
        }
        assert_eq!(scene.get(id).unwrap().render_pos, Vec3::ZERO);
        let to = Vec3::new(6.0, 0.0, 0.0);
        update(&mut scene, Some(id), &moving(to, Vec3::ZERO));
        let mut last = Vec3::ZERO;
        let mut frames = 0;
        // (The test's update is an initial one, which places `render_pos`; the next frame
        // shows the path again.)
        loop {
            gp.advance(&mut scene, 10, None);
            let shown = scene.get(id).unwrap().render_pos;
            if (shown - to).length() < 1e-5 {
                break;
            }
            let step = (shown - last).length();
            assert!(step <= 6.0 / WARP_TICKS as f32 + 1e-4, "a frame moved the ghost {step} m");
            assert!(shown.x >= last.x - 1e-5 && shown.x <= to.x + 1e-5, "overshoot or back: {shown}");
            last = shown;
            frames += 1;
            assert!(frames < 100, "the warp never ended");
        }
        // Four ticks of 32 ms, in 10 ms frames, plus the tick that saw the update.
        assert!(frames * 10 <= (WARP_TICKS + 1) * TICK_MS + 10, "{frames} frames");
        assert!(frames * 10 >= (WARP_TICKS - 1) * TICK_MS, "{frames} frames: too quick to be a warp");
        assert_eq!((gp.warps, gp.snaps), (1, 0));
    }

    /// A respawn across the map is a placement; the control object is left alone; a ghost
    /// that goes leaves the list.
    #[test]
    fn far_moves_place_and_the_control_object_is_not_a_ghost_here() {
        let mut scene = ClientScene::new();
        let mut gp = GhostProcess::new();
        let a = update(&mut scene, None, &moving(Vec3::ZERO, Vec3::ZERO));
        let me = update(&mut scene, None, &moving(Vec3::ONE, Vec3::X));
        gp.advance(&mut scene, 40, Some(me));
        assert_eq!(gp.list.len(), 1);
        scene.get_mut(me).unwrap().render_pos = Vec3::splat(9.0);
        update(&mut scene, Some(a), &moving(Vec3::new(500.0, 0.0, 0.0), Vec3::ZERO));
        gp.advance(&mut scene, 40, Some(me));
        assert_eq!(scene.get(a).unwrap().render_pos, Vec3::new(500.0, 0.0, 0.0));
        assert_eq!(scene.get(me).unwrap().render_pos, Vec3::splat(9.0), "the control object was moved");
        assert_eq!((gp.warps, gp.snaps), (0, 1));
        scene.remove_ghost(a);
        gp.advance(&mut scene, 40, Some(me));
        assert!(gp.list.is_empty());
    }
}
