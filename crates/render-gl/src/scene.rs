//! Simple 3D shapes (boxes, spheres, lines, a ground grid) and their flat-lit meshes.
//!
//! Lighting is baked into vertex colours here on the CPU, one normal per triangle, so the GL
//! side is a single colour-per-vertex shader and this part stays testable without a context.

use crate::resident::{MeshKey, PosedVertex};
use crate::types::ColorI;
use glam::{Mat4, Quat, Vec2, Vec3};
use std::sync::Arc;

/// One thing to draw in a 3D view.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A box with the given centre, half extents and rotation about +Z (radians).
    Box { center: Vec3, half_extents: Vec3, rotation_z: f32, color: ColorI },
    /// A sphere (tessellated as 12 rings of 16 segments).
    Sphere { center: Vec3, radius: f32, color: ColorI },
    /// A one-pixel line between two world points (unlit).
    Line { from: Vec3, to: Vec3, color: ColorI },
    /// A square grid of lines on the plane z = `center.z` (unlit), `cells` squares a side.
    Grid { center: Vec3, cell_size: f32, cells: u32, color: ColorI },
    /// Triangles already lit (three vertices each), drawn as they are: a shape's meshes,
    /// built by a layer that knows the shape.
    Mesh { triangles: std::sync::Arc<Vec<Vertex3>> },
    /// Textured triangles already lit: a terrain's patches or an interior's faces. Each
    /// vertex's [`TexVertex3::weights`] blend the `layers` (texture names, at most
    /// [`MAX_LAYERS`]) on the GPU; a layer whose texture cannot be loaded samples white.
    /// Translucent batches are drawn after the opaque world, back to front with the rest.
    Textured { layers: Layers, triangles: std::sync::Arc<Vec<TexVertex3>>, translucent: bool },
    /// Textured triangles kept on the GPU under a key, uploaded only when new or changed
    /// (see [`crate::resident`]).
    Resident(ResidentMesh),
    /// A shape's mesh kept on the GPU in its node's space, posed and lit there.
    Posed(PosedMesh),
    /// Many copies of a shape's meshes drawn instanced: node poses shared among the copies
    /// in a palette, each copy a placement and a pose (see [`InstancedShape`]).
    Instanced(Arc<InstancedShape>),
    /// A resident mesh lit by a lightmap as well (an interior's faces under its map's
    /// lights): drawn with the opaque world (a translucent one is drawn as plain glass).
    Lit { mesh: ResidentMesh, lightmap: Lightmap },
    /// A reflecting surface (V12's MirrorSubObject): world-space triangles on one plane
    /// (three points a triangle), where the scene is drawn again from the camera mirrored in
    /// that plane, then the surface over it in `tint` (its alpha: how much of the tint
    /// shows). Seen from behind, it is drawn as its tint alone. Things behind the plane are
    /// not clipped from the reflection. A reflection does not show mirrors.
    Mirror { triangles: Arc<Vec<Vec3>>, tint: ColorI },
    /// Particles' camera-facing quads (built each frame), drawn in the translucent pass
    /// sorted back to front with the rest: textured by `texture` (its first weight), or
    /// with no texture a soft round spot ([`PARTICLE_SPOT`]); `additive` adds them to what
    /// is behind instead of blending by alpha.
    Particles {
        texture: Option<std::sync::Arc<str>>,
        triangles: std::sync::Arc<Vec<TexVertex3>>,
        additive: bool,
    },
}

/// A lightmap: an image (uploaded once under its name, linear filtered) and each vertex's
/// coordinate in it (as many as the mesh has vertices; a mesh's extra vertices read 0, 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Lightmap {
    pub name: Arc<str>,
    pub image: Arc<crate::Image>,
    pub uvs: Arc<Vec<[f32; 2]>>,
}

/// The texture name of the renderer's built-in soft round spot, for particles that name none.
pub const PARTICLE_SPOT: &str = "$particle";

/// The texture names a textured batch blends, in weight order.
pub type Layers = std::sync::Arc<[std::sync::Arc<str>]>;

/// Most textures one batch blends (V12's terrain held 8 materials).
pub const MAX_LAYERS: usize = 8;

/// A vertex of the textured meshes: world position, texture coordinate (repeating), lit
/// colour (multiplies the blended texels) and the weight of each layer (0..=255; they
/// should sum to 255, all zero draws the colour alone).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct TexVertex3 {
    pub pos: [f32; 3],
    pub uv: [f32; 2],
    pub color: [u8; 4],
    pub weights: [u8; MAX_LAYERS],
}

impl TexVertex3 {
    /// A vertex that draws only its colour (no texture): how coloured translucent triangles
    /// join the textured ones in one back-to-front order.
    pub fn colored(v: &Vertex3) -> Self {
        TexVertex3 { pos: v.pos, color: v.color, ..TexVertex3::default() }
    }
}

/// Everything a 3D view region shows: shapes, a sky colour and one directional light.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub shapes: Vec<Shape>,
    /// Cleared behind the scene inside its viewport; `None` keeps what is there.
    pub clear_color: Option<ColorI>,
    /// Direction the light travels (towards the ground for sunlight).
    pub light_dir: Vec3,
    /// Brightness of faces turned away from the light, 0..=1.
    pub ambient: f32,
    /// The mission's sky: fog, the dome's colours and clouds (`None`: the clear colour).
    pub sky: Option<Sky>,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            shapes: Vec::new(),
            clear_color: Some(ColorI::rgb(40, 60, 90)),
            light_dir: Vec3::new(-0.4, 0.6, -1.0),
            ambient: 0.35,
            sky: None,
        }
    }
}

/// V12's Sky: how far one sees, where fog starts, its colour, the sky's colour overhead
/// and an optional cloud layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Sky {
    /// The sky's colour straight up; it fades to `fog_color` at the horizon.
    pub zenith: ColorI,
    /// The horizon's colour, the colour everything fades to with distance.
    pub fog_color: ColorI,
    /// Fog starts this far from the eye (m)...
    pub fog_distance: f32,
    /// ...and hides everything at this distance, which is also the far plane.
    pub visible_distance: f32,
    pub clouds: Option<CloudLayer>,
    /// Vertical fog layers (V12's fog volumes), at most [`MAX_FOG_LAYERS`] are drawn.
    pub fog_layers: Vec<FogLayer>,
}

/// Most fog layers a sky draws (V12's Sky had three fog volumes).
pub const MAX_FOG_LAYERS: usize = 3;

/// A vertical fog layer (V12's Sky fog volume: `fogVolumeN = "visibleDistance bottom top"`):
/// fog between two heights, thick enough that `visible_distance` metres of sight inside it
/// hide everything. What a line of sight gathers is the share of its length inside the band,
/// so a valley's fog hides the far side of the valley from a hilltop while the sky above
/// stays clear.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FogLayer {
    /// Height of the layer's floor and ceiling (m, world z).
    pub bottom: f32,
    pub top: f32,
    /// Metres of sight inside the layer that turn everything to its colour (0: no layer).
    pub visible_distance: f32,
    pub color: ColorI,
}

impl FogLayer {
    /// The layer's share of the colour of a point `p` seen from `eye`, 0 (clear) to 1.
    pub fn amount(&self, eye: Vec3, p: Vec3) -> f32 {
        let on = self.visible_distance > 0.0 && self.top > self.bottom;
        if !on {
            return 0.0;
        }
        let d = eye.distance(p);
        let (lo, hi) = (eye.z.min(p.z), eye.z.max(p.z));
        let inside = if hi - lo < 1e-3 {
            if lo >= self.bottom && lo <= self.top { d } else { 0.0 }
        } else {
            d * (self.top.min(hi) - self.bottom.max(lo)).max(0.0) / (hi - lo)
        };
        (inside / self.visible_distance).clamp(0.0, 1.0)
    }
}

/// A layer of clouds: translucent puffs on a plane above the eye.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudLayer {
    /// Height above the eye (m).
    pub height: f32,
    /// Colour; its alpha is the puffs' opacity at their centres.
    pub color: ColorI,
    /// How far the wind has moved the layer (m): the puffs drift with it.
    pub drift: Vec2,
}

impl Sky {
    /// The fog's share of a point `d` metres from the eye, 0 (clear) to 1 (only fog).
    pub fn fog_amount(&self, d: f32) -> f32 {
        let span = (self.visible_distance - self.fog_distance).max(1e-3);
        ((d - self.fog_distance) / span).clamp(0.0, 1.0)
    }

    /// The fog over a point `p` seen from `eye`: its colour (0..=1 channels) and its share,
    /// the distance fog and each fog layer together (each hides what the others let through;
    /// the colour is theirs weighted by their amounts). The shaders compute the same.
    pub fn fog_at(&self, eye: Vec3, p: Vec3) -> ([f32; 3], f32) {
        let base = self.fog_color.to_f32();
        let a = self.fog_amount(eye.distance(p));
        let mut acc = Vec3::new(base[0], base[1], base[2]) * a;
        let (mut w, mut clear) = (a, 1.0 - a);
        for l in self.fog_layers.iter().take(MAX_FOG_LAYERS) {
            let k = l.amount(eye, p);
            let c = l.color.to_f32();
            acc += Vec3::new(c[0], c[1], c[2]) * k;
            w += k;
            clear *= 1.0 - k;
        }
        let rgb = if w > 0.0 { (acc / w).to_array() } else { [base[0], base[1], base[2]] };
        (rgb, 1.0 - clear)
    }

    /// The fog layers as the shaders' uniforms: per layer (bottom, top, 1 / visible distance
    /// or 0 for none, 0) and its colour.
    pub(crate) fn layer_uniforms(&self) -> ([f32; 4 * MAX_FOG_LAYERS], [f32; 3 * MAX_FOG_LAYERS]) {
        let (mut l, mut c) = ([0.0; 4 * MAX_FOG_LAYERS], [0.0; 3 * MAX_FOG_LAYERS]);
        for (i, f) in self.fog_layers.iter().take(MAX_FOG_LAYERS).enumerate() {
            let on =
                f.visible_distance > 0.0 && f.top > f.bottom && f.bottom.is_finite() && f.top.is_finite();
            let inv = if on { 1.0 / f.visible_distance } else { 0.0 };
            l[4 * i..4 * i + 4].copy_from_slice(&[f.bottom, f.top, inv, 0.0]);
            let rgb = f.color.to_f32();
            c[3 * i..3 * i + 3].copy_from_slice(&rgb[..3]);
        }
        (l, c)
    }
}

/// A vertex of the 3D meshes: world position and lit colour.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct Vertex3 {
    pub pos: [f32; 3],
    pub color: [u8; 4],
}

/// Triangles (lit) and line segments (unlit) ready to upload, and the textured batches.
#[derive(Debug, Default, Clone)]
pub struct SceneMesh {
    pub triangles: Vec<Vertex3>,
    pub lines: Vec<Vertex3>,
    pub textured: Vec<TexturedBatch>,
}

/// Textured triangles and the layers their weights blend.
#[derive(Debug, Clone, PartialEq)]
pub struct TexturedBatch {
    pub layers: Layers,
    pub triangles: std::sync::Arc<Vec<TexVertex3>>,
    pub translucent: bool,
}

/// World-space textured triangles kept on the GPU (see the module's notes).
#[derive(Debug, Clone, PartialEq)]
pub struct ResidentMesh {
    pub key: MeshKey,
    /// Bumped by the builder when `triangles` change: the renderer uploads again.
    pub version: u64,
    /// The texture names the vertices' weights blend (at most [`crate::MAX_LAYERS`]).
    pub layers: Layers,
    pub triangles: Arc<Vec<TexVertex3>>,
    /// Drawn after the opaque world, back to front with the other translucent things.
    pub translucent: bool,
}

impl ResidentMesh {
    /// The centre of its vertices' bounds (how translucent meshes are sorted).
    pub fn center(&self) -> Vec3 {
        let (lo, hi) =
            self.triangles.iter().fold((Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |(lo, hi), v| {
                let p = Vec3::from_array(v.pos);
                (lo.min(p), hi.max(p))
            });
        if lo.x > hi.x { Vec3::ZERO } else { (lo + hi) * 0.5 }
    }
}

/// One of a shape's meshes posed by a model matrix on the GPU (see the module's notes).
#[derive(Debug, Clone, PartialEq)]
pub struct PosedMesh {
    pub key: MeshKey,
    pub version: u64,
    /// Three a triangle, in the node's space.
    pub vertices: Arc<Vec<PosedVertex>>,
    /// Node space to world: the placement times the node's transform this frame.
    pub model: Mat4,
    /// The material's colour (alpha under 255: drawn translucent, built on the CPU).
    pub color: [u8; 4],
}

impl PosedMesh {
    /// Its triangles posed and lit on the CPU, as the CPU path draws them (used for a
    /// translucent posed mesh, which joins the per-triangle back-to-front order).
    pub fn lit_triangles(&self, to_light: Vec3, ambient: f32, out: &mut Vec<Vertex3>) {
        let c = self.color;
        for v in self.vertices.iter() {
            let p = self.model.transform_point3(Vec3::from_array(v.pos));
            let n =
                self.model.transform_vector3(Vec3::from_array(v.normal)).try_normalize().unwrap_or(Vec3::Z);
            let lit = ambient + (1.0 - ambient) * n.dot(to_light).max(0.0);
            let shade = |x: u8| (f32::from(x) * lit).round().clamp(0.0, 255.0) as u8;
            out.push(Vertex3 { pos: p.to_array(), color: [shade(c[0]), shade(c[1]), shade(c[2]), c[3]] });
        }
    }
}

/// One of an instanced shape's meshes: its vertices on the GPU (in its node's space), the
/// node that carries it and its material's colour.
#[derive(Debug, Clone, PartialEq)]
pub struct InstancedPart {
    pub key: MeshKey,
    pub version: u64,
    /// Three a triangle, in the node's space.
    pub vertices: Arc<Vec<PosedVertex>>,
    /// The node, an index into each pose of [`InstancedShape::poses`].
    pub node: u32,
    /// The material's colour (alpha under 255: drawn translucent, built on the CPU).
    pub color: [u8; 4],
}

/// One copy of an instanced shape: where it stands and which pose it takes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct ShapeInstance {
    /// Shape space to world, the first three rows of the matrix.
    pub rows: [[f32; 4]; 3],
    /// The pose: an index of a block of [`InstancedShape::nodes`] matrices in the palette.
    pub pose: f32,
}

/// Most matrices an instanced shape's palette holds (the rest of its instances are not
/// drawn, with a warning): the palette is a float texture 1,024 texels wide, three a matrix.
pub const MAX_PALETTE_MATRICES: usize = 1024 * 1024 / 3;

/// A shape drawn many times in one call a mesh (V12 draws a shape instance at a time; here
/// the copies that share a shape, a detail level and their colours are one batch). The
/// palette holds node transforms in the shape's space, `nodes` of them a pose, each as the
/// first three rows of its matrix (a node hidden in a pose is all zeros there); instances
/// that play the same sequence at the same time share a pose. A frame sends GL only the
/// palette and the instances (counted in [`crate::FrameStats::pose_bytes`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InstancedShape {
    pub parts: Vec<InstancedPart>,
    pub nodes: u32,
    pub poses: Vec<[[f32; 4]; 3]>,
    pub instances: Vec<ShapeInstance>,
}

/// The plane `(normal, d)` (`normal · p = d`) of a mirror's triangles, from the first
/// triangle with an area; `None` when none has one or a point is not finite.
pub fn mirror_plane(triangles: &[Vec3]) -> Option<(Vec3, f32)> {
    if !triangles.iter().all(|p| p.is_finite()) {
        return None;
    }
    triangles.chunks_exact(3).find_map(|t| {
        let n = (t[1] - t[0]).cross(t[2] - t[0]).try_normalize()?;
        Some((n, n.dot(t[0])))
    })
}

/// A matrix's first three rows.
pub fn affine_rows(m: &Mat4) -> [[f32; 4]; 3] {
    [m.row(0).to_array(), m.row(1).to_array(), m.row(2).to_array()]
}

fn rows_matrix(r: &[[f32; 4]; 3]) -> Mat4 {
    Mat4::from_cols_array_2d(&[r[0], r[1], r[2], [0.0, 0.0, 0.0, 1.0]]).transpose()
}

impl InstancedShape {
    /// The model matrix of `part` on instance `inst` (placement times the node's pose), or
    /// `None` where the pose or node is out of the palette.
    pub fn model(&self, part: &InstancedPart, inst: &ShapeInstance) -> Option<Mat4> {
        let pose = inst.pose as usize;
        if !(inst.pose >= 0.0 && (inst.pose as u32) < u32::MAX) || part.node >= self.nodes {
            return None;
        }
        let node = self.poses.get(pose.checked_mul(self.nodes as usize)?.checked_add(part.node as usize)?)?;
        Some(rows_matrix(&inst.rows) * rows_matrix(node))
    }

    /// Instances the renderer draws: those whose pose is in the palette, when the palette
    /// holds at most [`MAX_PALETTE_MATRICES`] (none past it).
    pub fn drawable_instances(&self) -> std::borrow::Cow<'_, [ShapeInstance]> {
        let n = self.nodes as usize;
        let ok = |i: &ShapeInstance| {
            i.pose >= 0.0
                && i.pose < 16_777_216.0
                && (i.pose as usize + 1).saturating_mul(n) <= self.poses.len()
        };
        if self.poses.len() > MAX_PALETTE_MATRICES || n == 0 {
            std::borrow::Cow::Borrowed(&[])
        } else if self.instances.iter().all(ok) {
            std::borrow::Cow::Borrowed(&self.instances)
        } else {
            std::borrow::Cow::Owned(self.instances.iter().copied().filter(ok).collect())
        }
    }

    /// Each translucent part of each instance as a [`PosedMesh`] (drawn on the CPU in the
    /// back-to-front order, as posed meshes are).
    pub fn translucent_meshes(&self) -> impl Iterator<Item = PosedMesh> + '_ {
        self.parts.iter().filter(|p| p.color[3] < 255).flat_map(move |p| {
            self.instances.iter().filter_map(move |i| {
                Some(PosedMesh {
                    key: p.key,
                    version: p.version,
                    vertices: p.vertices.clone(),
                    model: self.model(p, i)?,
                    color: p.color,
                })
            })
        })
    }
}

const SPHERE_RINGS: u32 = 12;
const SPHERE_SEGMENTS: u32 = 16;
/// Grids bigger than this are clamped so a script cannot ask for billions of lines.
pub const MAX_GRID_CELLS: u32 = 1024;

impl Scene {
    /// Builds the flat-lit mesh of every shape.
    pub fn build_mesh(&self) -> SceneMesh {
        let mut m = SceneMesh::default();
        let to_light = -self.light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
        let ambient = self.ambient.clamp(0.0, 1.0);
        let mut tri = |a: Vec3, b: Vec3, c: Vec3, color: ColorI| {
            let n = (b - a).cross(c - a).try_normalize().unwrap_or(Vec3::Z);
            let k = ambient + (1.0 - ambient) * n.dot(to_light).max(0.0);
            let lit = |v: u8| ((f32::from(v) * k).round().clamp(0.0, 255.0)) as u8;
            let col = [lit(color.r), lit(color.g), lit(color.b), color.a];
            for p in [a, b, c] {
                m.triangles.push(Vertex3 { pos: p.to_array(), color: col });
            }
        };
        let mut lines = Vec::new();
        let mut meshes = Vec::new();
        let mut textured = Vec::new();
        for shape in &self.shapes {
            match *shape {
                Shape::Box { center, half_extents, rotation_z, color } => {
                    let rot = Quat::from_rotation_z(rotation_z);
                    let h = half_extents.abs();
                    let corner = |sx: f32, sy: f32, sz: f32| center + rot * (h * Vec3::new(sx, sy, sz));
                    // Each face as (origin corner, edge u, edge v) with u × v pointing outward.
                    let faces = [
                        ([1., -1., -1.], [1., 1., -1.], [1., 1., 1.], [1., -1., 1.]), // +X
                        ([-1., 1., -1.], [-1., -1., -1.], [-1., -1., 1.], [-1., 1., 1.]), // -X
                        ([1., 1., -1.], [-1., 1., -1.], [-1., 1., 1.], [1., 1., 1.]), // +Y
                        ([-1., -1., -1.], [1., -1., -1.], [1., -1., 1.], [-1., -1., 1.]), // -Y
                        ([-1., -1., 1.], [1., -1., 1.], [1., 1., 1.], [-1., 1., 1.]), // +Z
                        ([-1., 1., -1.], [1., 1., -1.], [1., -1., -1.], [-1., -1., -1.]), // -Z
                    ];
                    for (a, b, c, d) in faces {
                        let [a, b, c, d] = [a, b, c, d].map(|v: [f32; 3]| corner(v[0], v[1], v[2]));
                        tri(a, b, c, color);
                        tri(a, c, d, color);
                    }
                }
                Shape::Sphere { center, radius, color } => {
                    let r = radius.abs();
                    let at = |ring: u32, seg: u32| {
                        let theta = std::f32::consts::PI * ring as f32 / SPHERE_RINGS as f32;
                        let phi = std::f32::consts::TAU * seg as f32 / SPHERE_SEGMENTS as f32;
                        center + r * Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
                    };
                    for ring in 0..SPHERE_RINGS {
                        for seg in 0..SPHERE_SEGMENTS {
                            let (a, b) = (at(ring, seg), at(ring, seg + 1));
                            let (c, d) = (at(ring + 1, seg + 1), at(ring + 1, seg));
                            // Counter-clockwise seen from outside; skip the degenerate pole halves.
                            if ring != 0 {
                                tri(a, d, b, color);
                            }
                            if ring != SPHERE_RINGS - 1 {
                                tri(b, d, c, color);
                            }
                        }
                    }
                }
                Shape::Line { from, to, color } => lines.push((from, to, color)),
                Shape::Mesh { ref triangles } => meshes.push(triangles.clone()),
                Shape::Textured { ref layers, ref triangles, translucent } => {
                    let layers: Layers = layers.iter().take(MAX_LAYERS).cloned().collect();
                    textured.push(TexturedBatch { layers, triangles: triangles.clone(), translucent });
                }
                // Drawn from their GPU buffers by the frame (`Scene::build_frame`).
                Shape::Resident(_)
                | Shape::Posed(_)
                | Shape::Instanced(_)
                | Shape::Mirror { .. }
                | Shape::Particles { .. }
                | Shape::Lit { .. } => {}
                Shape::Grid { center, cell_size, cells, color } => {
                    let cells = cells.min(MAX_GRID_CELLS);
                    let half = cell_size * cells as f32 * 0.5;
                    for i in 0..=cells {
                        let o = -half + cell_size * i as f32;
                        lines.push((
                            center + Vec3::new(o, -half, 0.0),
                            center + Vec3::new(o, half, 0.0),
                            color,
                        ));
                        lines.push((
                            center + Vec3::new(-half, o, 0.0),
                            center + Vec3::new(half, o, 0.0),
                            color,
                        ));
                    }
                }
            }
        }
        m.textured = textured;
        for (a, b, c) in lines {
            m.lines.push(Vertex3 { pos: a.to_array(), color: c.to_array() });
            m.lines.push(Vertex3 { pos: b.to_array(), color: c.to_array() });
        }
        for mesh in meshes {
            let whole = mesh.len() / 3 * 3;
            m.triangles.extend_from_slice(&mesh[..whole]);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(t: &[Vertex3]) -> Vec3 {
        let [a, b, c] = [0, 1, 2].map(|i| Vec3::from_array(t[i].pos));
        (b - a).cross(c - a).normalize()
    }

    #[test]
    fn box_faces_point_outward_and_are_lit_by_facing() {
        let scene = Scene {
            shapes: vec![Shape::Box {
                center: Vec3::new(1.0, 2.0, 3.0),
                half_extents: Vec3::ONE,
                rotation_z: 0.0,
                color: ColorI::rgb(200, 200, 200),
            }],
            light_dir: Vec3::NEG_Z,
            ambient: 0.25,
            ..Scene::default()
        };
        let m = scene.build_mesh();
        assert_eq!(m.triangles.len(), 36);
        for t in m.triangles.chunks(3) {
            let centroid = t.iter().map(|v| Vec3::from_array(v.pos)).sum::<Vec3>() / 3.0;
            assert!(normal(t).dot(centroid - Vec3::new(1.0, 2.0, 3.0)) > 0.0, "outward");
            let n = normal(t);
            // Top face fully lit, sides and bottom at ambient.
            let want = if n.z > 0.9 { 200 } else { 50 };
            assert_eq!(t[0].color[0], want, "normal {n}");
        }
    }

    #[test]
    fn sphere_and_grid_counts() {
        let scene = Scene {
            shapes: vec![
                Shape::Sphere { center: Vec3::ZERO, radius: 2.0, color: ColorI::WHITE },
                Shape::Grid { center: Vec3::ZERO, cell_size: 1.0, cells: 4, color: ColorI::WHITE },
                Shape::Line { from: Vec3::ZERO, to: Vec3::ONE, color: ColorI::WHITE },
            ],
            ..Scene::default()
        };
        let m = scene.build_mesh();
        assert_eq!(
            m.triangles.len(),
            3 * (2 * SPHERE_RINGS * SPHERE_SEGMENTS - 2 * SPHERE_SEGMENTS) as usize
        );
        for t in m.triangles.chunks(3) {
            let c = t.iter().map(|v| Vec3::from_array(v.pos)).sum::<Vec3>() / 3.0;
            assert!(normal(t).dot(c) > 0.0);
        }
        assert_eq!(m.lines.len(), 2 * (2 * 5 + 1));
        let huge = Scene {
            shapes: vec![Shape::Grid {
                center: Vec3::ZERO,
                cell_size: 1.0,
                cells: u32::MAX,
                color: ColorI::WHITE,
            }],
            ..Scene::default()
        };
        assert_eq!(huge.build_mesh().lines.len(), 4 * (MAX_GRID_CELLS as usize + 1));
    }
}
