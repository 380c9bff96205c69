//! The frame of a 3D scene as render images (V12's SceneState): the sky first, then the
//! opaque triangles and lines, then the translucent triangles sorted back to front; with
//! V12's Sky object, fog fades everything to the fog colour by the visible distance.
//!
//! All of it is CPU work on the built mesh, so it is testable without a context: fog is a
//! per-vertex blend towards the fog colour by distance from the eye (for coloured opaque
//! triangles here; textured and translucent ones get the same blend in the shader, which
//! knows the texel), the sky a dome of coloured triangles around the eye, the cloud layer
//! translucent quads above it.
//!
//! Translucent triangles of every kind (coloured ones, clouds, an interior's windows) are
//! sorted together, so a window is drawn after the objects behind it and before those in
//! front, and drawn in runs of the same layers.

use crate::scene::{
    CloudLayer, Layers, PosedMesh, ResidentMesh, Scene, SceneMesh, Shape, Sky, TexVertex3, Vertex3,
};
use crate::types::ColorI;
use glam::{Vec2, Vec3};
use std::sync::Arc;

/// What one frame of a scene draws, in order.
#[derive(Debug, Default, Clone)]
pub struct FrameMesh {
    /// The sky dome, drawn first, behind everything (no depth).
    pub sky: Vec<Vertex3>,
    /// Opaque triangles, lines and textured batches (depth tested and written).
    pub opaque: SceneMesh,
    /// Translucent triangles, back to front (depth tested, not written); coloured ones have
    /// all weights zero.
    pub translucent: Vec<TexVertex3>,
    /// The translucent triangles in draw order as runs sharing their layers.
    pub translucent_runs: Vec<TranslucentRun>,
    /// Opaque meshes drawn from their GPU buffers, after the opaque textured batches.
    pub resident: Vec<ResidentMesh>,
    /// Opaque shape meshes posed on the GPU.
    pub posed: Vec<PosedMesh>,
    /// Instanced shapes (their opaque parts; translucent parts joined the sorted triangles).
    pub instanced: Vec<Arc<crate::scene::InstancedShape>>,
    /// Opaque resident meshes lit by a lightmap too.
    pub lit: Vec<(ResidentMesh, crate::scene::Lightmap)>,
}

/// Consecutive translucent vertices drawn with the same layers (none: colour only), or one
/// translucent resident mesh drawn whole from its GPU buffer (then `len` is 0).
#[derive(Debug, Clone, PartialEq)]
pub struct TranslucentRun {
    pub layers: Option<Layers>,
    /// First vertex in [`FrameMesh::translucent`] and the vertex count.
    pub start: usize,
    pub len: usize,
    pub resident: Option<ResidentMesh>,
    /// Added to what is behind (particles with additive blending), not blended by alpha.
    pub additive: bool,
}

/// What a translucent item of the back-to-front order is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Colored,
    Batch(usize),
    Resident(usize),
    Particles(usize),
}

/// Rings and segments of the sky dome.
const DOME_RINGS: u32 = 8;
const DOME_SEGMENTS: u32 = 24;
/// Cloud puffs on a side of the layer's grid, and the grid's spacing (m).
const CLOUD_GRID: i32 = 12;
const CLOUD_SPACING: f32 = 60.0;

fn mix(a: ColorI, b: ColorI, t: f32) -> [u8; 4] {
    let m = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round().clamp(0.0, 255.0) as u8;
    [m(a.r, b.r), m(a.g, b.g), m(a.b, b.b), m(a.a, b.a)]
}

impl FrameMesh {
    /// Vertices drawn from resident buffers (instanced ones once a copy).
    pub fn resident_vertices(&self) -> usize {
        self.resident.iter().map(|m| m.triangles.len()).sum::<usize>()
            + self.lit.iter().map(|(m, _)| m.triangles.len()).sum::<usize>()
            + self.posed.iter().map(|m| m.vertices.len()).sum::<usize>()
            + self
                .instanced
                .iter()
                .map(|s| {
                    let opaque = s.parts.iter().filter(|p| p.color[3] == 255);
                    opaque.map(|p| p.vertices.len()).sum::<usize>() * s.drawable_instances().len()
                })
                .sum::<usize>()
            + self
                .translucent_runs
                .iter()
                .filter_map(|r| r.resident.as_ref())
                .map(|m| m.triangles.len())
                .sum::<usize>()
    }
}

impl Scene {
    /// The frame's render images as seen from `eye`: the mesh of every shape split into
    /// opaque and translucent (alpha under 255), the translucent ones sorted back to front by
    /// their centres; with a sky, the dome, the clouds and fog on every vertex.
    pub fn build_frame(&self, eye: Vec3) -> FrameMesh {
        let mut mesh = self.build_mesh();
        let mut translucent = Vec::new();
        let (mut resident, mut glass_meshes, mut posed) = (Vec::new(), Vec::new(), Vec::new());
        let mut particles = Vec::new();
        let mut lit = Vec::new();
        let mut instanced = Vec::new();
        let to_light = -self.light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
        for shape in &self.shapes {
            match shape {
                Shape::Resident(m) if m.translucent => glass_meshes.push(m.clone()),
                Shape::Resident(m) => resident.push(m.clone()),
                Shape::Lit { mesh, .. } if mesh.translucent => glass_meshes.push(mesh.clone()),
                Shape::Lit { mesh, lightmap } => lit.push((mesh.clone(), lightmap.clone())),
                Shape::Posed(p) if p.color[3] < 255 => {
                    p.lit_triangles(to_light, self.ambient.clamp(0.0, 1.0), &mut translucent)
                }
                Shape::Posed(p) => posed.push(p.clone()),
                Shape::Instanced(s) => {
                    for p in s.translucent_meshes() {
                        p.lit_triangles(to_light, self.ambient.clamp(0.0, 1.0), &mut translucent);
                    }
                    instanced.push(s.clone());
                }
                Shape::Particles { texture, triangles, additive } => {
                    let name = texture.clone().unwrap_or_else(|| Arc::from(crate::scene::PARTICLE_SPOT));
                    particles.push((Layers::from(vec![name]), triangles.clone(), *additive));
                }
                _ => {}
            }
        }
        let mut opaque = Vec::with_capacity(mesh.triangles.len());
        for t in mesh.triangles.chunks_exact(3) {
            if t.iter().any(|v| v.color[3] < 255) {
                translucent.extend_from_slice(t);
            } else {
                opaque.extend_from_slice(t);
            }
        }
        mesh.triangles = opaque;
        let mut sky_tris = Vec::new();
        if let Some(sky) = &self.sky {
            sky_tris = dome(sky, eye);
            if let Some(c) = &sky.clouds {
                translucent.extend(clouds(c, sky, eye));
            }
            let fog = |v: &mut Vertex3| {
                let (rgb, k) = sky.fog_at(eye, Vec3::from_array(v.pos));
                if k > 0.0 {
                    let c = ColorI::rgba(v.color[0], v.color[1], v.color[2], v.color[3]);
                    let u = |x: f32| (x * 255.0).round().clamp(0.0, 255.0) as u8;
                    let f = ColorI::rgba(u(rgb[0]), u(rgb[1]), u(rgb[2]), v.color[3]);
                    v.color = mix(c, f, k);
                }
            };
            mesh.triangles.iter_mut().for_each(fog);
            mesh.lines.iter_mut().for_each(fog);
        }
        let (glass, solid): (Vec<_>, Vec<_>) = mesh.textured.drain(..).partition(|b| b.translucent);
        mesh.textured = solid;
        let mut keyed = Vec::new();
        for t in translucent.chunks_exact(3) {
            keyed.push(keyed_triangle(
                Item::Colored,
                [t[0], t[1], t[2]].map(|v| TexVertex3::colored(&v)),
                eye,
            ));
        }
        for (k, b) in glass.iter().enumerate() {
            for t in b.triangles.chunks_exact(3) {
                keyed.push(keyed_triangle(Item::Batch(k), [t[0], t[1], t[2]], eye));
            }
        }
        for (k, (_, tris, _)) in particles.iter().enumerate() {
            for t in tris.chunks_exact(3) {
                keyed.push(keyed_triangle(Item::Particles(k), [t[0], t[1], t[2]], eye));
            }
        }
        for (k, m) in glass_meshes.iter().enumerate() {
            keyed.push((m.center().distance_squared(eye), Item::Resident(k), [TexVertex3::default(); 3]));
        }
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut runs: Vec<TranslucentRun> = Vec::new();
        let mut verts = Vec::with_capacity(keyed.len() * 3);
        let mut last = None;
        for (_, key, tri) in keyed {
            if let Item::Resident(k) = key {
                let m = &glass_meshes[k];
                runs.push(TranslucentRun {
                    layers: Some(m.layers.clone()),
                    start: verts.len(),
                    len: 0,
                    resident: Some(m.clone()),
                    additive: false,
                });
                last = None;
                continue;
            }
            match runs.last_mut() {
                Some(r) if last == Some(key) => r.len += 3,
                _ => runs.push(TranslucentRun {
                    layers: match key {
                        Item::Batch(k) => Some(glass[k].layers.clone()),
                        Item::Particles(k) => Some(particles[k].0.clone()),
                        _ => None,
                    },
                    start: verts.len(),
                    len: 3,
                    resident: None,
                    additive: matches!(key, Item::Particles(k) if particles[k].2),
                }),
            }
            last = Some(key);
            verts.extend(tri);
        }
        FrameMesh {
            sky: sky_tris,
            opaque: mesh,
            translucent: verts,
            translucent_runs: runs,
            resident,
            posed,
            instanced,
            lit,
        }
    }
}

/// A triangle with its squared distance from `eye` (by its centre) and its batch.
fn keyed_triangle(key: Item, t: [TexVertex3; 3], eye: Vec3) -> (f32, Item, [TexVertex3; 3]) {
    let c = t.iter().map(|v| Vec3::from_array(v.pos)).sum::<Vec3>() / 3.0;
    (c.distance_squared(eye), key, t)
}

/// The dome: rings from a little under the horizon (fog colour) to the zenith, around `eye`
/// and inside the far plane.
fn dome(sky: &Sky, eye: Vec3) -> Vec<Vertex3> {
    let r = sky.visible_distance.max(1.0) * 0.9;
    let mut out = Vec::new();
    let elevation = |ring: u32| -0.2 + (std::f32::consts::FRAC_PI_2 + 0.2) * ring as f32 / DOME_RINGS as f32;
    let point = |ring: u32, seg: u32| {
        let (e, a) = (elevation(ring), std::f32::consts::TAU * seg as f32 / DOME_SEGMENTS as f32);
        let colour = mix(sky.fog_color, sky.zenith, (e.max(0.0) / std::f32::consts::FRAC_PI_2).powf(0.6));
        Vertex3 {
            pos: (eye + r * Vec3::new(e.cos() * a.cos(), e.cos() * a.sin(), e.sin())).to_array(),
            color: colour,
        }
    };
    for ring in 0..DOME_RINGS {
        for seg in 0..DOME_SEGMENTS {
            let [a, b, c, d] =
                [point(ring, seg), point(ring, seg + 1), point(ring + 1, seg + 1), point(ring + 1, seg)];
            out.extend([a, b, c, a, c, d]);
        }
    }
    out
}

/// The cloud layer: a grid of puffs (a bright centre fading to clear at the rim) above the
/// eye, moved by the drift and wrapped so the grid always covers the sky overhead.
fn clouds(c: &CloudLayer, sky: &Sky, eye: Vec3) -> Vec<Vertex3> {
    let mut out = Vec::new();
    let span = CLOUD_SPACING * CLOUD_GRID as f32;
    let z = eye.z + c.height;
    for gx in 0..CLOUD_GRID {
        for gy in 0..CLOUD_GRID {
            // A fixed pseudo-random size and offset per puff.
            let h = (gx as u32).wrapping_mul(73_856_093) ^ (gy as u32).wrapping_mul(19_349_663);
            let size = CLOUD_SPACING * (0.35 + (h % 100) as f32 / 250.0);
            let jitter = Vec2::new(((h >> 8) % 31) as f32, ((h >> 16) % 31) as f32) - 15.0;
            let base = Vec2::new(gx as f32, gy as f32) * CLOUD_SPACING + jitter + c.drift;
            // Wrapped into the square of side `span` centred on the eye.
            let rel = (base - eye.truncate() + span / 2.0).rem_euclid(Vec2::splat(span)) - span / 2.0;
            let center = Vec3::new(eye.x + rel.x, eye.y + rel.y, z);
            if center.distance(eye) > sky.visible_distance * 0.9 {
                continue;
            }
            let rim = [c.color.r, c.color.g, c.color.b, 0];
            let mid = Vertex3 { pos: center.to_array(), color: c.color.to_array() };
            for k in 0..8 {
                let a0 = std::f32::consts::TAU * k as f32 / 8.0;
                let a1 = std::f32::consts::TAU * (k + 1) as f32 / 8.0;
                let at = |a: f32| center + Vec3::new(a.cos(), a.sin(), 0.0) * size;
                out.extend([
                    mid,
                    Vertex3 { pos: at(a0).to_array(), color: rim },
                    Vertex3 { pos: at(a1).to_array(), color: rim },
                ]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Shape;

    fn sky() -> Sky {
        Sky {
            zenith: ColorI::rgb(40, 80, 160),
            fog_color: ColorI::rgb(200, 210, 220),
            fog_distance: 100.0,
            visible_distance: 300.0,
            clouds: None,
            fog_layers: Vec::new(),
        }
    }

    #[test]
    fn fog_grows_from_the_fog_distance_to_the_visible_distance() {
        let s = sky();
        assert_eq!(s.fog_amount(50.0), 0.0);
        assert_eq!(s.fog_amount(200.0), 0.5);
        assert_eq!(s.fog_amount(400.0), 1.0);
        let far_box = |y: f32| Shape::Box {
            center: Vec3::new(0.0, y, 0.0),
            half_extents: Vec3::splat(0.5),
            rotation_z: 0.0,
            color: ColorI::rgb(0, 0, 0),
        };
        let scene = Scene { shapes: vec![far_box(10.0), far_box(299.0)], sky: Some(s), ..Scene::default() };
        let f = scene.build_frame(Vec3::ZERO);
        let (near, far) = f.opaque.triangles.split_at(36);
        assert!(near.iter().all(|v| v.color[0] == 0), "inside the fog distance: untouched");
        assert!(far.iter().all(|v| v.color[0] > 190), "at the visible distance: fog");
        assert!(!f.sky.is_empty() && f.translucent.is_empty());
    }

    #[test]
    fn translucent_triangles_are_drawn_after_and_back_to_front() {
        let glass = |y: f32, a: u8| Shape::Box {
            center: Vec3::new(0.0, y, 0.0),
            half_extents: Vec3::splat(0.5),
            rotation_z: 0.0,
            color: ColorI::rgba(100, 150, 200, a),
        };
        let scene =
            Scene { shapes: vec![glass(5.0, 128), glass(20.0, 128), glass(10.0, 255)], ..Scene::default() };
        let f = scene.build_frame(Vec3::ZERO);
        assert_eq!(f.opaque.triangles.len(), 36);
        assert_eq!(f.translucent.len(), 72);
        let dist =
            |t: &[TexVertex3]| (t.iter().map(|v| Vec3::from_array(v.pos)).sum::<Vec3>() / 3.0).length();
        let d: Vec<f32> = f.translucent.chunks(3).map(dist).collect();
        assert!(d.windows(2).all(|w| w[0] >= w[1]), "farthest first");
        assert!(d[0] > 19.0 && *d.last().unwrap() < 6.0);
        assert!(f.sky.is_empty(), "no sky without a Sky");
    }

    #[test]
    fn clouds_cover_the_sky_overhead_and_drift() {
        let s = Sky {
            clouds: Some(CloudLayer {
                height: 120.0,
                color: ColorI::rgba(255, 255, 255, 180),
                drift: Vec2::ZERO,
            }),
            ..sky()
        };
        let a = Scene { sky: Some(s.clone()), ..Scene::default() }.build_frame(Vec3::ZERO);
        assert!(!a.translucent.is_empty());
        assert!(a.translucent.iter().all(|v| (v.pos[2] - 120.0).abs() < 1e-3));
        let mut moved = s;
        if let Some(c) = &mut moved.clouds {
            c.drift = Vec2::new(25.0, 0.0);
        }
        let b = Scene { sky: Some(moved), ..Scene::default() }.build_frame(Vec3::ZERO);
        assert_ne!(a.translucent, b.translucent, "the wind moves them");
    }
}
