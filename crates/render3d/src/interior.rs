//! Interiors drawn by zone (seed: the interior's zones and portals): only the faces of the
//! zones the scene graph finds visible from the camera through open portals are built, and a
//! closed portal is drawn as a door that hides the room behind it.
//!
//! A face belongs to the zone in front of it (`Interior::face_zones`, found once at load):
//! a wall's outer face to the outside, its inner face to the room. Faces
//! are coloured by their material (a fixed palette; textures come later) and lit as the rest.

use glam::{DVec3, Vec3};
use v12_render_gl::Vertex3;
use v12_world::{InteriorInstance, SceneGraph, ZoneRef};

/// What one interior's drawing built.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct InteriorDrawStats {
    /// The interior's zones drawn (its rooms seen), not counting the outside.
    pub zones: usize,
    pub faces: usize,
    pub triangles: usize,
    /// Closed portals drawn as doors.
    pub doors: usize,
}

/// Face colours by material index (walls, floors, trims...).
const PALETTE: [[u8; 3]; 6] =
    [[168, 160, 146], [132, 120, 104], [186, 176, 150], [120, 128, 136], [150, 110, 90], [110, 140, 120]];
const DOOR: [u8; 3] = [110, 72, 44];

/// The faces of interior `id` (placed as `inst`) in the zones `visible` lists (from
/// [`SceneGraph::visible_zones`] for the camera), lit, appended to `out`; closed portals of
/// `graph` are drawn as doors.
pub fn build_interior_mesh(
    graph: &SceneGraph,
    id: u32,
    inst: &InteriorInstance,
    visible: &[ZoneRef],
    light_dir: Vec3,
    ambient: f32,
    out: &mut Vec<Vertex3>,
) -> InteriorDrawStats {
    let mut stats = InteriorDrawStats::default();
    let seen = |zone: u16| {
        let z = if zone == 0 { ZoneRef::OUTSIDE } else { ZoneRef { owner: Some(id), zone } };
        visible.contains(&z)
    };
    stats.zones = visible.iter().filter(|z| z.owner == Some(id)).count();
    let to_light = -light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
    let ambient = ambient.clamp(0.0, 1.0);
    let polygon = |points: &[Vec3], normal: Vec3, rgb: [u8; 3], out: &mut Vec<Vertex3>| -> usize {
        let k = ambient + (1.0 - ambient) * normal.dot(to_light).max(0.0);
        let shade = |v: u8| (f32::from(v) * k).round().clamp(0.0, 255.0) as u8;
        let color = [shade(rgb[0]), shade(rgb[1]), shade(rgb[2]), 255];
        let mut n = 0;
        for i in 1..points.len().saturating_sub(1) {
            for p in [points[0], points[i], points[i + 1]] {
                out.push(Vertex3 { pos: p.to_array(), color });
            }
            n += 1;
        }
        n
    };
    let normal_to_world = |n: DVec3| inst.transform().transform_vector3(n.as_vec3()).normalize_or_zero();
    for (face, zone) in inst.interior.faces.iter().zip(&inst.interior.face_zones) {
        let Some(zone) = *zone else { continue };
        if face.points.len() < 3 || !seen(zone) {
            continue;
        }
        let points: Vec<Vec3> = face.points.iter().map(|p| inst.to_world_point(p.as_vec3())).collect();
        let rgb = PALETTE[usize::from(face.material) % PALETTE.len()];
        stats.triangles += polygon(&points, normal_to_world(face.normal), rgb, out);
        stats.faces += 1;
    }
    for (k, portal) in inst.interior.portals.iter().enumerate() {
        if graph.is_portal_open(id, k) || portal.polygon.len() < 3 {
            continue;
        }
        let (a, b) = portal.zones;
        if !seen(a) && !seen(b) {
            continue;
        }
        let points: Vec<Vec3> = portal.polygon.iter().map(|p| inst.to_world_point(p.as_vec3())).collect();
        stats.triangles += polygon(&points, normal_to_world(portal.plane.normal), DOOR, out);
        stats.doors += 1;
    }
    stats
}
