//! Interiors drawn by zone (V12: the interior's zones and portals): only the faces of the
//! zones the scene graph finds visible from the camera through open portals are built, and a
//! closed portal is drawn as a door that hides the room behind it.
//!
//! A face belongs to the zone in front of it (`Interior::face_zones`, found once at load):
//! a wall's outer face to the outside, its inner face to the room. Faces are gathered by
//! material (one textured batch each, its texture from the interior's material list) with
//! texture coordinates projected on the plane the face is most turned to (as the Quake-era
//! map tools did), and lit as the rest.

use glam::{DVec3, Vec3};
use std::sync::Arc;
use v12_render_gl::{MAX_LAYERS, Shape, TexVertex3};
use v12_world::{InteriorInstance, SceneGraph, WorldMaterial, ZoneRef};

/// Metres of wall one repeat of a material texture covers.
pub const TEXTURE_METRES: f64 = 2.0;

/// An interior's triangles as built: by material index, and closed portals as doors
/// (coloured, no texture: all weights zero).
#[derive(Debug, Default, Clone)]
pub struct InteriorMesh {
    pub by_material: Vec<Vec<TexVertex3>>,
    pub doors: Vec<TexVertex3>,
}

impl InteriorMesh {
    /// Keeps only the triangles `keep` accepts.
    pub fn retain_triangles(&mut self, keep: impl Fn(&[TexVertex3]) -> bool) {
        for tris in self.by_material.iter_mut().chain(std::iter::once(&mut self.doors)) {
            let mut kept = Vec::with_capacity(tris.len());
            for t in tris.chunks_exact(3) {
                if keep(t) {
                    kept.extend_from_slice(t);
                }
            }
            *tris = kept;
        }
    }
}

impl InteriorMesh {
    /// The batches to draw: one textured shape a material (its bitmap the layer, translucent
    /// when the bitmap is; a material past `materials` names nothing and draws white), and
    /// the doors in colour.
    pub fn into_shapes(self, materials: &[WorldMaterial]) -> Vec<Shape> {
        let mut out = Vec::new();
        for (m, tris) in self.by_material.into_iter().enumerate() {
            if tris.is_empty() {
                continue;
            }
            let material = materials.get(m);
            out.push(Shape::Textured {
                layers: vec![Arc::from(material.map_or("", |m| m.texture.as_str()))].into(),
                triangles: Arc::new(tris),
                translucent: material.is_some_and(|m| m.translucent),
            });
        }
        if !self.doors.is_empty() {
            out.push(Shape::Textured {
                layers: Vec::new().into(),
                triangles: Arc::new(self.doors),
                translucent: false,
            });
        }
        out
    }
}

/// Texture coordinates of local point `p` on a face with local normal `n`.
fn texgen(p: DVec3, n: DVec3) -> [f32; 2] {
    let a = n.abs();
    let (u, v) = if a.x >= a.y && a.x >= a.z {
        (p.y, p.z)
    } else if a.y >= a.z {
        (p.x, p.z)
    } else {
        (p.x, p.y)
    };
    [(u / TEXTURE_METRES) as f32, (-v / TEXTURE_METRES) as f32]
}

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

const DOOR: [u8; 3] = [110, 72, 44];

/// The faces of interior `id` (placed as `inst`) in the zones `visible` lists (from
/// [`SceneGraph::visible_zones`] for the camera), lit and textured, appended to `out` by
/// material; closed portals of `graph` are drawn as doors.
pub fn build_interior_mesh(
    graph: &SceneGraph,
    id: u32,
    inst: &InteriorInstance,
    visible: &[ZoneRef],
    light_dir: Vec3,
    ambient: f32,
    out: &mut InteriorMesh,
) -> InteriorDrawStats {
    let mut stats = InteriorDrawStats::default();
    let seen = |zone: u16| {
        let z = if zone == 0 { ZoneRef::OUTSIDE } else { ZoneRef { owner: Some(id), zone } };
        visible.contains(&z)
    };
    stats.zones = visible.iter().filter(|z| z.owner == Some(id)).count();
    let to_light = -light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
    let ambient = ambient.clamp(0.0, 1.0);
    // A convex polygon as a fan: local points (for the texture), the world normal (for the
    // light), a tint and the weights (one layer, or none for a door's colour).
    let polygon = |local: &[DVec3],
                   local_n: DVec3,
                   normal: Vec3,
                   rgb: [u8; 3],
                   weights: [u8; MAX_LAYERS],
                   out: &mut Vec<TexVertex3>|
     -> usize {
        let k = ambient + (1.0 - ambient) * normal.dot(to_light).max(0.0);
        let shade = |v: u8| (f32::from(v) * k).round().clamp(0.0, 255.0) as u8;
        let color = [shade(rgb[0]), shade(rgb[1]), shade(rgb[2]), 255];
        let vertex = |p: DVec3| TexVertex3 {
            pos: inst.to_world_point(p.as_vec3()).to_array(),
            uv: texgen(p, local_n),
            color,
            weights,
        };
        let mut n = 0;
        for i in 1..local.len().saturating_sub(1) {
            out.extend([vertex(local[0]), vertex(local[i]), vertex(local[i + 1])]);
            n += 1;
        }
        n
    };
    let mut one = [0u8; MAX_LAYERS];
    one[0] = 255;
    let normal_to_world = |n: DVec3| inst.transform().transform_vector3(n.as_vec3()).normalize_or_zero();
    for (face, zone) in inst.interior.faces.iter().zip(&inst.interior.face_zones) {
        let Some(zone) = *zone else { continue };
        if face.points.len() < 3 || !seen(zone) {
            continue;
        }
        let m = usize::from(face.material);
        if out.by_material.len() <= m {
            out.by_material.resize_with(m + 1, Vec::new);
        }
        let normal = normal_to_world(face.normal);
        stats.triangles += polygon(&face.points, face.normal, normal, [255; 3], one, &mut out.by_material[m]);
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
        let normal = normal_to_world(portal.plane.normal);
        stats.triangles +=
            polygon(&portal.polygon, portal.plane.normal, normal, DOOR, [0; MAX_LAYERS], &mut out.doors);
        stats.doors += 1;
    }
    stats
}
