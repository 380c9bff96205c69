//! The scene graph's zones (V12: SceneGraph, `findZone`, `rezoneObject`, `scopeScene`): the
//! outside zone plus the zones of every interior placed in the world, and the walk from the
//! camera's zone through portals that says which zones the camera can see.
//!
//! The walk starts in the camera's zone with a view (a set of planes through the camera; no
//! planes sees everywhere, as a server's scoping does). At each portal of the zone it clips
//! the portal's opening to the view; if anything is left, the zone behind is visible and the
//! walk continues there with the view narrowed to that opening (planes through the camera
//! and each edge). The outside connects to every interior's portals whose far side is the
//! outside, so a camera outside sees into a room only through its doors.

use std::sync::Arc;

use glam::Vec3;

use crate::InteriorInstance;

/// A zone in the world: the outside (`owner` `None`, `zone` 0), or zone `zone` (1..) of the
/// interior placed as object `owner`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ZoneRef {
    pub owner: Option<u32>,
    pub zone: u16,
}

impl ZoneRef {
    /// The outside.
    pub const OUTSIDE: ZoneRef = ZoneRef { owner: None, zone: 0 };
}

/// Portal chains longer than this are not followed (a view through 16 doors is nothing).
const MAX_DEPTH: usize = 16;

/// A plane through the camera: a point is in view when `normal · (p - camera) >= 0`.
#[derive(Clone, Copy, Debug)]
struct ViewPlane {
    normal: Vec3,
}

/// The interiors of a world and their zones. `Sync`: a server's packet threads scope their
/// connections through it at once (it is only read while they run).
#[derive(Debug, Default, Clone)]
pub struct SceneGraph {
    interiors: Vec<(u32, Arc<InteriorInstance>)>,
    /// Closed portals (a shut door), by interior and portal index: nothing is seen through.
    closed: std::collections::BTreeSet<(u32, usize)>,
}

impl SceneGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Places an interior (object `id`); a second add under an id replaces the first.
    pub fn add_interior(&mut self, id: u32, instance: Arc<InteriorInstance>) {
        self.interiors.retain(|(i, _)| *i != id);
        self.interiors.push((id, instance));
    }

    /// Removes interior `id`; false when there was none.
    pub fn remove_interior(&mut self, id: u32) -> bool {
        self.closed.retain(|(i, _)| *i != id);
        let before = self.interiors.len();
        self.interiors.retain(|(i, _)| *i != id);
        before != self.interiors.len()
    }

    /// Opens or closes portal `portal` of interior `id` (a door); false when there is no
    /// such portal. A closed portal is not seen through: what is behind it is not drawn,
    /// and not scoped to a client whose camera only sees it through that door.
    pub fn set_portal_open(&mut self, id: u32, portal: usize, open: bool) -> bool {
        let exists = self.interiors.iter().any(|(i, inst)| *i == id && portal < inst.interior.portals.len());
        if exists {
            if open {
                self.closed.remove(&(id, portal));
            } else {
                self.closed.insert((id, portal));
            }
        }
        exists
    }

    /// Whether portal `portal` of interior `id` is open (every portal is, until closed).
    pub fn is_portal_open(&self, id: u32, portal: usize) -> bool {
        !self.closed.contains(&(id, portal))
    }

    /// The interiors, with their ids.
    pub fn interiors(&self) -> impl Iterator<Item = (u32, &Arc<InteriorInstance>)> {
        self.interiors.iter().map(|(id, inst)| (*id, inst))
    }

    /// The zone holding `p` (and the interior that owns it); `None` inside a brush.
    pub fn find_zone(&self, p: Vec3) -> Option<ZoneRef> {
        for (id, inst) in &self.interiors {
            match inst.find_zone(p) {
                Some(0) => continue,
                Some(z) => return Some(ZoneRef { owner: Some(*id), zone: z }),
                None => return None,
            }
        }
        Some(ZoneRef::OUTSIDE)
    }

    /// Every zone a world box touches, sorted (V12's `rezoneObject`).
    pub fn zones_of_box(&self, lo: Vec3, hi: Vec3) -> Vec<ZoneRef> {
        let mut out = Vec::new();
        let mut outside = true;
        for (id, inst) in &self.interiors {
            let b = inst.world_bounds();
            if (b.min.cmpgt(hi)).any() || (b.max.cmplt(lo)).any() {
                continue;
            }
            // The box's corners in the interior's frame, boxed again.
            let (mut a, mut c) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
            for k in 0..8 {
                let corner = Vec3::new(
                    if k & 1 == 0 { lo.x } else { hi.x },
                    if k & 2 == 0 { lo.y } else { hi.y },
                    if k & 4 == 0 { lo.z } else { hi.z },
                );
                let l = inst.to_local(corner);
                a = a.min(l);
                c = c.max(l);
            }
            let zones = inst.interior.zones_touching(a.as_dvec3(), c.as_dvec3());
            outside &= zones.contains(&0);
            out.extend(zones.into_iter().filter(|&z| z != 0).map(|z| ZoneRef { owner: Some(*id), zone: z }));
        }
        if outside {
            out.push(ZoneRef::OUTSIDE);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The zones a camera at `camera` sees, looking everywhere (a server's scoping), sorted.
    pub fn visible_zones(&self, camera: Vec3) -> Vec<ZoneRef> {
        self.visible_zones_in_view(camera, &[])
    }

    /// The zones a camera sees through the view bounded by planes through it (each given by
    /// its inward normal), sorted. No planes sees everywhere.
    pub fn visible_zones_in_view(&self, camera: Vec3, view: &[Vec3]) -> Vec<ZoneRef> {
        let view: Vec<ViewPlane> = view.iter().map(|&normal| ViewPlane { normal }).collect();
        let start = match self.find_zone(camera) {
            Some(z) => vec![z],
            // In a doorway (inside the portal brush) or a wall: the zones of the smallest box
            // around it that reaches some.
            None => [0.1f32, 0.3, 0.6, 1.2, 2.4]
                .iter()
                .map(|&r| self.zones_of_box(camera - Vec3::splat(r), camera + Vec3::splat(r)))
                .find(|z| !z.is_empty())
                .unwrap_or_default(),
        };
        let mut visible = Vec::new();
        for z in &start {
            let mut path = vec![*z];
            self.walk(camera, *z, &view, &mut path, &mut visible);
        }
        visible.sort_unstable();
        visible.dedup();
        visible
    }

    fn walk(
        &self,
        camera: Vec3,
        zone: ZoneRef,
        view: &[ViewPlane],
        path: &mut Vec<ZoneRef>,
        visible: &mut Vec<ZoneRef>,
    ) {
        visible.push(zone);
        if path.len() > MAX_DEPTH {
            return;
        }
        for (id, inst) in &self.interiors {
            if zone.owner.is_some_and(|o| o != *id) {
                continue;
            }
            for (k, portal) in inst.interior.portals.iter().enumerate() {
                if self.closed.contains(&(*id, k)) {
                    continue;
                }
                let (a, b) = portal.zones;
                let here = match zone.owner {
                    None => 0,
                    Some(_) => zone.zone,
                };
                let other = if a == here {
                    b
                } else if b == here {
                    a
                } else {
                    continue;
                };
                let next =
                    if other == 0 { ZoneRef::OUTSIDE } else { ZoneRef { owner: Some(*id), zone: other } };
                if path.contains(&next) {
                    continue;
                }
                // Only from the near side: a portal is seen from the zone it leads out of.
                let camera_local = inst.to_local(camera).as_dvec3();
                let front = portal.plane.normal.dot(camera_local) - portal.plane.dist;
                let toward_second = other == b;
                if (toward_second && front > 1e-3) || (!toward_second && front < -1e-3) {
                    continue;
                }
                let opening: Vec<Vec3> =
                    portal.polygon.iter().map(|p| inst.to_world_point(p.as_vec3())).collect();
                let Some(seen) = clip_to_view(opening, camera, view) else { continue };
                let narrowed = planes_through(camera, &seen);
                path.push(next);
                // A camera in the opening's plane sees through it whole: keep the old view.
                self.walk(camera, next, narrowed.as_deref().unwrap_or(view), path, visible);
                path.pop();
            }
        }
    }
}

/// The part of a polygon inside the view; `None` when nothing is left.
fn clip_to_view(mut poly: Vec<Vec3>, camera: Vec3, view: &[ViewPlane]) -> Option<Vec<Vec3>> {
    for plane in view {
        let side = |p: Vec3| plane.normal.dot(p - camera);
        let mut out = Vec::with_capacity(poly.len() + 2);
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let (sa, sb) = (side(a), side(b));
            if sa >= 0.0 {
                out.push(a);
            }
            if (sa >= 0.0) != (sb >= 0.0) {
                out.push(a + (b - a) * (sa / (sa - sb)));
            }
        }
        poly = out;
        if poly.len() < 3 {
            return None;
        }
    }
    (poly.len() >= 3).then_some(poly)
}

/// The planes through the camera and each edge of a convex polygon, facing its inside;
/// `None` when the camera lies in the polygon's plane (every plane would be degenerate).
fn planes_through(camera: Vec3, poly: &[Vec3]) -> Option<Vec<ViewPlane>> {
    let centre = poly.iter().copied().sum::<Vec3>() / poly.len() as f32;
    let facing = (poly[1] - poly[0]).cross(poly[2] - poly[0]).normalize_or_zero();
    if facing.dot(camera - poly[0]).abs() < 1e-3 {
        return None;
    }
    let mut planes = Vec::with_capacity(poly.len());
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
        let n = (a - camera).cross(b - camera);
        if n.length_squared() < 1e-10 {
            continue;
        }
        let n = n.normalize();
        let n = if n.dot(centre - camera) >= 0.0 { n } else { -n };
        planes.push(ViewPlane { normal: n });
    }
    (planes.len() >= 3).then_some(planes)
}
