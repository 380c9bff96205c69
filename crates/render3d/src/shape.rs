//! 3Space-style shapes (V12's TSShape, TSShapeInstance and TSThread), read from glTF 2.0.
//!
//! A [`TsShape`] is the shared resource: a node hierarchy, meshes hung on nodes, detail levels
//! and animation sequences. Many [`TsShapeInstance`]s share one shape; each has its own node
//! transforms and threads. A thread plays one sequence at a position in `0..=1` that
//! [`TsShapeInstance::advance_time`] moves at the thread's time scale (negative plays it
//! backwards), wrapping when the sequence is cyclic and stopping at an end when it is not;
//! [`TsShapeInstance::transition_to_sequence`] blends from where the thread was to a new
//! sequence over a given time. Later threads override earlier ones on the nodes they animate.
//!
//! The glTF conventions, since glTF has no words for these 3Space ideas:
//! - **Detail levels**: a mesh node whose name ends in a number (`torso128`, `body16`, the DTS
//!   exporters' convention) belongs to the detail level of that size in pixels; a mesh without
//!   one is in every level. [`TsShape::select_detail`] takes the finest level whose size is at
//!   most the shape's projected size.
//! - **Visibility tracks**: an animated node scale of zero hides the node's meshes (glTF's way
//!   of animating visibility); [`TsShapeInstance::is_node_visible`] reads it.
//! - **Cyclic sequences**: every animation loops unless its `extras` say `"cyclic": false`.

use std::collections::BTreeMap;
use std::fmt;

use glam::{Affine3A, Quat, Vec3};
use v12_render_gl::Vertex3;

/// Limits on what one shape file may hold, so a hostile file cannot exhaust memory.
pub const MAX_NODES: usize = 1024;
/// Vertices over every mesh of a shape.
pub const MAX_VERTICES: usize = 1 << 20;
/// Keyframes over every track of a shape.
pub const MAX_KEYS: usize = 1 << 20;

/// Why a shape file was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeError {
    /// Not glTF the `gltf` crate could read.
    Gltf(String),
    /// A buffer outside the file (shapes carry their data in a `.glb`'s binary chunk).
    ExternalBuffer,
    /// Over one of the limits above.
    TooLarge(&'static str),
    /// Data the shape cannot use (a node in a cycle, a mesh without positions, ...).
    Invalid(String),
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::Gltf(e) => write!(f, "not a readable glTF file: {e}"),
            ShapeError::ExternalBuffer => write!(f, "the shape's data must be inside the .glb file"),
            ShapeError::TooLarge(what) => write!(f, "too many {what}"),
            ShapeError::Invalid(why) => write!(f, "unusable shape: {why}"),
        }
    }
}

impl std::error::Error for ShapeError {}

/// A node's local transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Transform { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE }
    }
}

impl Transform {
    fn matrix(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// `self` moved towards `other` by `t` (0 = self, 1 = other).
    fn blend(&self, other: &Transform, t: f32) -> Transform {
        Transform {
            translation: self.translation.lerp(other.translation, t),
            rotation: self.rotation.slerp(other.rotation, t),
            scale: self.scale.lerp(other.scale, t),
        }
    }
}

/// A node of the hierarchy; parents come before their children.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeNode {
    pub name: String,
    pub parent: Option<usize>,
    /// The pose with no sequence playing.
    pub rest: Transform,
}

/// Triangles hung on a node, in the node's space.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeMesh {
    pub node: usize,
    /// The detail level's size in pixels, or `None` for every level.
    pub detail: Option<u32>,
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// Three per triangle.
    pub indices: Vec<u32>,
    /// The material's base colour.
    pub color: [u8; 4],
    /// The material's name: an instance may paint a material another colour (a team's).
    pub material: String,
    /// Texture coordinates, one a position (empty when the mesh has none or no texture).
    pub uvs: Vec<[f32; 2]>,
    /// The material's base colour texture (read from the file; `None` when it has none or
    /// it could not be read: a warning, and the mesh is drawn in its colour).
    pub texture: Option<std::sync::Arc<v12_render_gl::Image>>,
    /// The material blends by its alpha (glTF's `alphaMode` `BLEND`).
    pub blend: bool,
}

/// Keyframes of one value: times in seconds, increasing.
#[derive(Debug, Clone, PartialEq)]
pub struct Keys<T> {
    pub times: Vec<f32>,
    pub values: Vec<T>,
}

impl<T: Copy> Keys<T> {
    /// The value at `t` seconds, interpolated with `mix` between the keys around it.
    fn sample(&self, t: f32, mix: impl Fn(T, T, f32) -> T) -> Option<T> {
        let (first, last) = (*self.values.first()?, *self.values.last()?);
        let i = self.times.partition_point(|&k| k <= t);
        if i == 0 {
            return Some(first);
        }
        if i >= self.times.len() {
            return Some(last);
        }
        let (t0, t1) = (self.times[i - 1], self.times[i]);
        let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        Some(mix(self.values[i - 1], self.values[i], f))
    }
}

/// What one sequence does to one node.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeTrack {
    pub node: usize,
    pub translation: Option<Keys<Vec3>>,
    pub rotation: Option<Keys<Quat>>,
    pub scale: Option<Keys<Vec3>>,
}

/// An animation (V12's sequence).
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    pub name: String,
    /// Seconds.
    pub duration: f32,
    pub cyclic: bool,
    pub tracks: Vec<NodeTrack>,
}

impl Sequence {
    /// The local transform of the tracked node `track` at position `pos` (0..=1), starting
    /// from `rest` for the parts the track does not animate.
    fn pose(&self, track: &NodeTrack, pos: f32, rest: Transform) -> Transform {
        let t = pos.clamp(0.0, 1.0) * self.duration;
        Transform {
            translation: track
                .translation
                .as_ref()
                .and_then(|k| k.sample(t, Vec3::lerp))
                .unwrap_or(rest.translation),
            rotation: track.rotation.as_ref().and_then(|k| k.sample(t, Quat::slerp)).unwrap_or(rest.rotation),
            scale: track.scale.as_ref().and_then(|k| k.sample(t, Vec3::lerp)).unwrap_or(rest.scale),
        }
    }
}

/// The shared shape resource (V12's TSShape).
#[derive(Debug, Clone, PartialEq)]
pub struct TsShape {
    pub nodes: Vec<ShapeNode>,
    pub meshes: Vec<ShapeMesh>,
    /// Detail sizes in pixels, finest (largest) first.
    pub details: Vec<u32>,
    pub sequences: Vec<Sequence>,
    /// A sphere around every mesh at rest, for the projected size.
    pub center: Vec3,
    pub radius: f32,
    /// Each mesh as GPU vertices (three a triangle, in its node's space), built at load,
    /// and the key its buffers live under (see [`TsShapeInstance::posed_meshes`]).
    pub gpu: ShapeGpu,
}

/// A shape's meshes as they live on the GPU.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShapeGpu {
    pub key: v12_render_gl::MeshKey,
    /// One a mesh of [`TsShape::meshes`], in order.
    pub meshes: Vec<std::sync::Arc<Vec<v12_render_gl::PosedVertex>>>,
}

impl ShapeGpu {
    /// The GPU vertices of `meshes` under a new key.
    pub fn build(meshes: &[ShapeMesh]) -> ShapeGpu {
        let meshes = meshes
            .iter()
            .map(|m| {
                let v = m
                    .indices
                    .iter()
                    .filter_map(|&k| {
                        let (p, n) = (m.positions.get(k as usize)?, m.normals.get(k as usize)?);
                        Some(v12_render_gl::PosedVertex { pos: p.to_array(), normal: n.to_array() })
                    })
                    .collect();
                std::sync::Arc::new(v)
            })
            .collect();
        ShapeGpu { key: v12_render_gl::MeshKey::unique(), meshes }
    }
}

impl TsShape {
    /// The sequence called `name` (any case).
    pub fn find_sequence(&self, name: &str) -> Option<usize> {
        self.sequences.iter().position(|s| s.name.eq_ignore_ascii_case(name))
    }

    /// The node called `name` (any case).
    pub fn find_node(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name.eq_ignore_ascii_case(name))
    }

    /// The detail level to draw when the shape covers `pixels` on screen: the finest whose
    /// size is at most that, the coarsest when it is smaller than all, `None` under 1 pixel.
    pub fn select_detail(&self, pixels: f32) -> Option<u32> {
        if pixels.is_nan() || pixels < 1.0 {
            return None;
        }
        self.details
            .iter()
            .copied()
            .find(|&d| d as f32 <= pixels)
            .or(self.details.last().copied())
            .or(Some(0))
    }

    /// Triangles in a detail level (for the draw statistics).
    pub fn triangles_at(&self, detail: Option<u32>) -> usize {
        self.meshes
            .iter()
            .filter(|m| m.detail.is_none() || m.detail == detail)
            .map(|m| m.indices.len() / 3)
            .sum()
    }

    /// The name the renderer knows mesh `k`'s texture by (see [`Self::textures`]).
    pub fn texture_name(&self, k: usize) -> String {
        format!("$shape/{:016x}/{k}", self.gpu.key.0)
    }

    /// The meshes' textures under their names, for the renderer
    /// (`Renderer::insert_texture`) before drawing [`TsShapeInstance::textured_meshes`].
    pub fn textures(&self) -> Vec<(String, std::sync::Arc<v12_render_gl::Image>)> {
        self.meshes
            .iter()
            .enumerate()
            .filter_map(|(k, m)| Some((self.texture_name(k), m.texture.clone()?)))
            .collect()
    }

    /// The node transforms of `sequence` (`None`: the rest pose) at position `pos` (0..=1),
    /// as palette rows, one a node appended to `out` (a node scaled to nothing, or under one,
    /// all zeros): what [`TsShapeInstance::animate`] makes of one thread at that position.
    pub(crate) fn pose_rows(&self, sequence: Option<usize>, pos: f32, out: &mut Vec<[[f32; 4]; 3]>) {
        let mut local: Vec<Transform> = self.nodes.iter().map(|n| n.rest).collect();
        if let Some(seq) = sequence.and_then(|s| self.sequences.get(s)) {
            for tr in &seq.tracks {
                if let Some(l) = local.get_mut(tr.node) {
                    *l = seq.pose(tr, pos, self.nodes[tr.node].rest);
                }
            }
        }
        let mut world: Vec<Affine3A> = Vec::with_capacity(self.nodes.len());
        let mut hidden: Vec<bool> = Vec::with_capacity(self.nodes.len());
        for (n, l) in self.nodes.iter().zip(&local) {
            let m = l.matrix();
            let parent = n.parent.filter(|&p| p < world.len());
            world.push(parent.map_or(m, |p| world[p] * m));
            hidden.push(l.scale.max_element() <= 1e-4 || parent.is_some_and(|p| hidden[p]));
        }
        for (w, h) in world.iter().zip(hidden) {
            out.push(if h { [[0.0; 4]; 3] } else { v12_render_gl::affine_rows(&glam::Mat4::from(*w)) });
        }
    }

    /// Reads a binary glTF (`.glb`) file.
    ///
    /// The `gltf` crate's accessors unwrap some values its validation lets through (a
    /// misspelt animation target, say), so the reading runs under `catch_unwind` and such a
    /// file is an error like any other (reading touches no shared state).
    pub fn from_glb(bytes: &[u8]) -> Result<TsShape, ShapeError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| Self::read_glb(bytes)))
            .unwrap_or_else(|_| Err(ShapeError::Invalid("the glTF reader failed on malformed data".into())))
    }

    fn read_glb(bytes: &[u8]) -> Result<TsShape, ShapeError> {
        let gltf = gltf::Gltf::from_slice(bytes).map_err(|e| ShapeError::Gltf(e.to_string()))?;
        let blob = gltf.blob.as_deref();
        for b in gltf.document.buffers() {
            if !matches!(b.source(), gltf::buffer::Source::Bin) {
                return Err(ShapeError::ExternalBuffer);
            }
        }
        let data = |b: gltf::Buffer<'_>| -> Option<&[u8]> {
            matches!(b.source(), gltf::buffer::Source::Bin).then_some(blob).flatten()
        };
        let doc = &gltf.document;
        if doc.nodes().len() > MAX_NODES {
            return Err(ShapeError::TooLarge("nodes"));
        }
        // Parents first: walk the default scene (or every root) depth first.
        let mut parent_of: BTreeMap<usize, usize> = BTreeMap::new();
        for n in doc.nodes() {
            for c in n.children() {
                if parent_of.insert(c.index(), n.index()).is_some() {
                    return Err(ShapeError::Invalid(format!("node {} has two parents", c.index())));
                }
            }
        }
        let mut order = Vec::new();
        let mut todo: Vec<usize> =
            doc.nodes().map(|n| n.index()).filter(|i| !parent_of.contains_key(i)).collect();
        todo.reverse();
        while let Some(i) = todo.pop() {
            order.push(i);
            if order.len() > doc.nodes().len() {
                return Err(ShapeError::Invalid("the node hierarchy has a cycle".into()));
            }
            let node = doc.nodes().nth(i).ok_or_else(|| ShapeError::Invalid(format!("no node {i}")))?;
            todo.extend(node.children().map(|c| c.index()).collect::<Vec<_>>().into_iter().rev());
        }
        if order.len() != doc.nodes().len() {
            return Err(ShapeError::Invalid("the node hierarchy has a cycle".into()));
        }
        let slot: BTreeMap<usize, usize> = order.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let gnodes: Vec<gltf::Node<'_>> = doc.nodes().collect();
        let mut nodes = Vec::with_capacity(order.len());
        let mut meshes = Vec::new();
        let mut vertices = 0usize;
        for &i in &order {
            let n = &gnodes[i];
            let (t, r, s) = n.transform().decomposed();
            let name = n.name().unwrap_or("").to_string();
            nodes.push(ShapeNode {
                name: name.clone(),
                parent: parent_of.get(&i).map(|p| slot[p]),
                rest: Transform {
                    translation: Vec3::from(t),
                    rotation: Quat::from_array(r).normalize(),
                    scale: Vec3::from(s),
                },
            });
            let Some(mesh) = n.mesh() else { continue };
            let detail = trailing_number(&name);
            for p in mesh.primitives() {
                if p.mode() != gltf::mesh::Mode::Triangles {
                    continue;
                }
                let reader = p.reader(data);
                let positions: Vec<Vec3> = reader
                    .read_positions()
                    .ok_or_else(|| ShapeError::Invalid(format!("mesh of node {name:?} has no positions")))?
                    .map(Vec3::from)
                    .collect();
                vertices += positions.len();
                if vertices > MAX_VERTICES {
                    return Err(ShapeError::TooLarge("vertices"));
                }
                let indices: Vec<u32> = match reader.read_indices() {
                    Some(ix) => ix.into_u32().collect(),
                    None => (0..positions.len() as u32).collect(),
                };
                if !indices.len().is_multiple_of(3) || indices.iter().any(|&k| k as usize >= positions.len())
                {
                    return Err(ShapeError::Invalid(format!("mesh of node {name:?} has bad indices")));
                }
                let normals: Vec<Vec3> = match reader.read_normals() {
                    Some(ns) => ns.map(Vec3::from).collect(),
                    None => flat_normals(&positions, &indices),
                };
                if normals.len() != positions.len() {
                    return Err(ShapeError::Invalid(format!(
                        "mesh of node {name:?}: normals and positions differ"
                    )));
                }
                let uvs = reader.read_tex_coords(0).map(|t| t.into_f32().collect::<Vec<_>>());
                let look = MeshLook::read(&p.material(), uvs, positions.len(), blob, &name);
                meshes.push(ShapeMesh {
                    node: slot[&i],
                    detail,
                    positions,
                    normals,
                    indices,
                    color: look.color,
                    material: look.material,
                    uvs: look.uvs,
                    texture: look.texture,
                    blend: look.blend,
                });
            }
        }
        let mut details: Vec<u32> = meshes.iter().filter_map(|m| m.detail).collect();
        details.sort_unstable_by(|a, b| b.cmp(a));
        details.dedup();
        let mut sequences = Vec::new();
        let mut keys = 0usize;
        for a in doc.animations() {
            let mut tracks: BTreeMap<usize, NodeTrack> = BTreeMap::new();
            let mut duration = 0.0f32;
            for ch in a.channels() {
                let node = slot[&ch.target().node().index()];
                let reader = ch.reader(data);
                let Some(times) = reader.read_inputs() else { continue };
                let times: Vec<f32> = times.collect();
                keys += times.len();
                if keys > MAX_KEYS {
                    return Err(ShapeError::TooLarge("keyframes"));
                }
                if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) {
                    return Err(ShapeError::Invalid(format!(
                        "animation {:?}: times not increasing",
                        a.name()
                    )));
                }
                duration = duration.max(times.last().copied().unwrap_or(0.0));
                // Cubic splines carry (in-tangent, value, out-tangent): keep the values.
                let cubic = ch.sampler().interpolation() == gltf::animation::Interpolation::CubicSpline;
                let track = tracks.entry(node).or_insert_with(|| NodeTrack { node, ..NodeTrack::default() });
                use gltf::animation::util::ReadOutputs;
                match reader.read_outputs() {
                    Some(ReadOutputs::Translations(v)) => {
                        track.translation =
                            Some(keyed(times, spline_values(v.map(Vec3::from).collect(), cubic))?);
                    }
                    Some(ReadOutputs::Rotations(v)) => {
                        let q = v.into_f32().map(|q| Quat::from_array(q).normalize()).collect();
                        track.rotation = Some(keyed(times, spline_values(q, cubic))?);
                    }
                    Some(ReadOutputs::Scales(v)) => {
                        track.scale = Some(keyed(times, spline_values(v.map(Vec3::from).collect(), cubic))?);
                    }
                    _ => {}
                }
            }
            let cyclic = a
                .extras()
                .as_ref()
                .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
                .and_then(|v| v.get("cyclic").and_then(serde_json::Value::as_bool))
                .unwrap_or(true);
            sequences.push(Sequence {
                name: a.name().unwrap_or("").to_string(),
                duration: duration.max(1e-3),
                cyclic,
                tracks: tracks.into_values().collect(),
            });
        }
        Ok(Self::assemble(nodes, meshes, details, sequences))
    }

    /// A shape of these parts with its bounds and GPU copy computed.
    fn assemble(
        nodes: Vec<ShapeNode>,
        meshes: Vec<ShapeMesh>,
        details: Vec<u32>,
        sequences: Vec<Sequence>,
    ) -> TsShape {
        let gpu = ShapeGpu::default();
        let mut shape = TsShape { nodes, meshes, details, sequences, center: Vec3::ZERO, radius: 0.0, gpu };
        shape.compute_bounds();
        shape
    }

    /// The sphere around every mesh vertex in the rest pose, and the meshes' GPU copy.
    fn compute_bounds(&mut self) {
        self.gpu = ShapeGpu::build(&self.meshes);
        let world = rest_world(&self.nodes);
        let points = || {
            self.meshes.iter().flat_map(|m| {
                let w = world[m.node];
                m.positions.iter().map(move |p| w.transform_point3(*p))
            })
        };
        let (lo, hi) = points()
            .fold((Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |(lo, hi), p| (lo.min(p), hi.max(p)));
        if lo.x > hi.x {
            return;
        }
        self.center = (lo + hi) * 0.5;
        self.radius = points().map(|p| p.distance(self.center)).fold(0.0, f32::max);
    }
}

/// The number a name ends in (`torso128` → 128).
fn trailing_number(name: &str) -> Option<u32> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0).then(|| name[name.len() - digits..].parse().ok()).flatten()
}

/// A cubic spline's outputs are (in-tangent, value, out-tangent) triples: the values, played
/// linearly; other outputs as they are.
fn spline_values<T>(v: Vec<T>, cubic: bool) -> Vec<T> {
    if cubic { v.into_iter().skip(1).step_by(3).collect() } else { v }
}

fn keyed<T>(times: Vec<f32>, values: Vec<T>) -> Result<Keys<T>, ShapeError> {
    if times.len() != values.len() {
        return Err(ShapeError::Invalid("an animation channel has as many times as values".into()));
    }
    Ok(Keys { times, values })
}

/// One normal per triangle corner, for meshes that carry none (flat shading).
fn flat_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut n = vec![Vec3::Z; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|k| positions[k as usize]);
        let f = (b - a).cross(c - a).try_normalize().unwrap_or(Vec3::Z);
        for &k in t {
            n[k as usize] = f;
        }
    }
    n
}

/// A mesh's material as read from the file.
struct MeshLook {
    color: [u8; 4],
    material: String,
    blend: bool,
    uvs: Vec<[f32; 2]>,
    texture: Option<std::sync::Arc<v12_render_gl::Image>>,
}

impl MeshLook {
    /// The material's colour, name, blending and texture, with the mesh's texture
    /// coordinates (`uvs`, kept only with a texture and one a position, all finite).
    fn read(
        material: &gltf::Material<'_>,
        uvs: Option<Vec<[f32; 2]>>,
        positions: usize,
        blob: Option<&[u8]>,
        node: &str,
    ) -> MeshLook {
        let c = material.pbr_metallic_roughness().base_color_factor();
        let color = c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8);
        let name = material.name().unwrap_or("").to_string();
        let blend = material.alpha_mode() == gltf::material::AlphaMode::Blend;
        let texture = base_color_texture(material, blob, node);
        let uvs = uvs.filter(|u| u.len() == positions && u.iter().flatten().all(|v| v.is_finite()));
        let (uvs, texture) = match (uvs, texture) {
            (Some(u), Some(t)) => (u, Some(t)),
            (None, Some(_)) => {
                tracing::warn!(node, "a textured mesh without good texture coordinates; drawn in its colour");
                (Vec::new(), None)
            }
            _ => (Vec::new(), None),
        };
        MeshLook { color, material: name, blend, uvs, texture }
    }
}

/// The decoded base colour texture of a material, when it has one embedded in the file as a
/// PNG; anything else is a warning and `None` (the mesh is drawn in its colour).
fn base_color_texture(
    material: &gltf::Material<'_>,
    blob: Option<&[u8]>,
    node: &str,
) -> Option<std::sync::Arc<v12_render_gl::Image>> {
    let info = material.pbr_metallic_roughness().base_color_texture()?;
    let gltf::image::Source::View { view, mime_type } = info.texture().source().source() else {
        tracing::warn!(node, "a shape's texture in an outside file is not read; drawn in its colour");
        return None;
    };
    let bytes = blob.and_then(|b| b.get(view.offset()..view.offset().checked_add(view.length())?));
    let Some(bytes) = bytes.filter(|_| mime_type.eq_ignore_ascii_case("image/png")) else {
        tracing::warn!(node, mime_type, "a shape's texture is not an embedded PNG; drawn in its colour");
        return None;
    };
    match v12_render_gl::Image::decode_png(bytes) {
        Ok(img) => Some(std::sync::Arc::new(img)),
        Err(e) => {
            tracing::warn!(node, error = %e, "a shape's texture could not be read; drawn in its colour");
            None
        }
    }
}

/// Every node's rest transform in shape space.
fn rest_world(nodes: &[ShapeNode]) -> Vec<Affine3A> {
    let mut world: Vec<Affine3A> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let local = n.rest.matrix();
        world.push(n.parent.map_or(local, |p| world[p] * local));
    }
    world
}

/// A thread's handle on an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ThreadId(pub usize);

/// One sequence playing on an instance (V12's TSThread).
#[derive(Debug, Clone, PartialEq)]
pub struct TsThread {
    pub sequence: usize,
    /// Position in the sequence, 0..=1.
    pub pos: f32,
    /// Multiplies time: 1 plays at speed, negative backwards, 0 holds.
    pub time_scale: f32,
    /// A non-cyclic sequence that reached its end stops there.
    pub at_end: bool,
    transition: Option<Transition>,
}

/// A blend from a frozen pose to the thread's sequence.
#[derive(Debug, Clone, PartialEq)]
struct Transition {
    from: Vec<(usize, Transform)>,
    elapsed: f32,
    duration: f32,
}

/// One placed copy of a shape (V12's TSShapeInstance): its node transforms and threads.
#[derive(Debug, Clone)]
pub struct TsShapeInstance {
    shape: std::rc::Rc<TsShape>,
    threads: Vec<Option<TsThread>>,
    /// Node transforms in shape space, after [`TsShapeInstance::animate`].
    world: Vec<Affine3A>,
    local: Vec<Transform>,
    /// Materials painted another colour on this instance.
    colors: Vec<(String, [u8; 4])>,
}

impl TsShapeInstance {
    pub fn new(shape: std::rc::Rc<TsShape>) -> Self {
        let local: Vec<Transform> = shape.nodes.iter().map(|n| n.rest).collect();
        let world = rest_world(&shape.nodes);
        TsShapeInstance { shape, threads: Vec::new(), world, local, colors: Vec::new() }
    }

    /// Paints the meshes of `material` (by name, any case) in `color` on this instance.
    pub fn set_material_color(&mut self, material: &str, color: [u8; 4]) {
        match self.colors.iter_mut().find(|(m, _)| m.eq_ignore_ascii_case(material)) {
            Some((_, c)) => *c = color,
            None => self.colors.push((material.to_string(), color)),
        }
    }

    pub fn shape(&self) -> &std::rc::Rc<TsShape> {
        &self.shape
    }

    /// A new thread with nothing playing yet (sequence 0 at the start, held).
    pub fn add_thread(&mut self) -> ThreadId {
        let t = TsThread { sequence: 0, pos: 0.0, time_scale: 1.0, at_end: false, transition: None };
        if let Some(i) = self.threads.iter().position(Option::is_none) {
            self.threads[i] = Some(t);
            return ThreadId(i);
        }
        self.threads.push(Some(t));
        ThreadId(self.threads.len() - 1)
    }

    /// Stops and forgets a thread (its nodes go back to rest at the next `animate`).
    pub fn destroy_thread(&mut self, id: ThreadId) {
        if let Some(t) = self.threads.get_mut(id.0) {
            *t = None;
        }
    }

    pub fn thread(&self, id: ThreadId) -> Option<&TsThread> {
        self.threads.get(id.0)?.as_ref()
    }

    fn thread_mut(&mut self, id: ThreadId) -> Option<&mut TsThread> {
        self.threads.get_mut(id.0)?.as_mut()
    }

    /// Plays `sequence` on the thread from `pos` (0..=1), at once.
    pub fn set_sequence(&mut self, id: ThreadId, sequence: usize, pos: f32) -> bool {
        if sequence >= self.shape.sequences.len() {
            return false;
        }
        let Some(t) = self.thread_mut(id) else { return false };
        t.sequence = sequence;
        t.pos = pos.clamp(0.0, 1.0);
        t.at_end = false;
        t.transition = None;
        true
    }

    /// Sets how fast the thread plays (negative: backwards).
    pub fn set_time_scale(&mut self, id: ThreadId, scale: f32) {
        if let Some(t) = self.thread_mut(id) {
            t.time_scale = if scale.is_finite() { scale } else { 0.0 };
            t.at_end = false;
        }
    }

    /// Moves to `sequence` at `pos`, blending from the thread's current pose over `duration`
    /// seconds. With `continue_playing` false the new sequence holds at `pos` until the blend
    /// is over.
    pub fn transition_to_sequence(
        &mut self,
        id: ThreadId,
        sequence: usize,
        pos: f32,
        duration: f32,
        continue_playing: bool,
    ) -> bool {
        if sequence >= self.shape.sequences.len() || self.thread(id).is_none() {
            return false;
        }
        let from = self.thread_pose(id);
        let Some(t) = self.thread_mut(id) else { return false };
        t.sequence = sequence;
        t.pos = pos.clamp(0.0, 1.0);
        t.at_end = false;
        t.transition = Some(Transition { from, elapsed: 0.0, duration: duration.max(0.0) });
        if !continue_playing {
            t.time_scale = 0.0;
        }
        true
    }

    /// The local transforms the thread puts on the nodes it animates, now (blend included).
    fn thread_pose(&self, id: ThreadId) -> Vec<(usize, Transform)> {
        let Some(t) = self.thread(id) else { return Vec::new() };
        let Some(seq) = self.shape.sequences.get(t.sequence) else { return Vec::new() };
        let mut pose: Vec<(usize, Transform)> = seq
            .tracks
            .iter()
            .map(|tr| (tr.node, seq.pose(tr, t.pos, self.shape.nodes[tr.node].rest)))
            .collect();
        if let Some(tr) = &t.transition
            && tr.duration > 0.0
        {
            let k = (tr.elapsed / tr.duration).clamp(0.0, 1.0);
            for (node, from) in &tr.from {
                match pose.iter_mut().find(|(n, _)| n == node) {
                    Some((_, to)) => *to = from.blend(to, k),
                    None => pose.push((*node, from.blend(&self.shape.nodes[*node].rest, k))),
                }
            }
        }
        pose
    }

    /// Moves every thread on by `dt` seconds.
    pub fn advance_time(&mut self, dt: f32) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        let shape = &self.shape;
        for t in self.threads.iter_mut().flatten() {
            if let Some(tr) = &mut t.transition {
                tr.elapsed += dt;
                if tr.elapsed >= tr.duration {
                    t.transition = None;
                }
            }
            // A thread on a shape with no sequences holds.
            let Some(seq) = shape.sequences.get(t.sequence) else { continue };
            let step = dt * t.time_scale / seq.duration;
            if step == 0.0 || t.at_end {
                continue;
            }
            let p = t.pos + step;
            if seq.cyclic {
                // Wrapped into 0..1; the common case (a step past the end) without a
                // library call.
                t.pos = if (0.0..2.0).contains(&p) {
                    if p >= 1.0 { p - 1.0 } else { p }
                } else {
                    p.rem_euclid(1.0)
                };
            } else {
                t.pos = p.clamp(0.0, 1.0);
                t.at_end = p <= 0.0 || p >= 1.0;
            }
        }
    }

    /// Computes every node's transform from the rest pose and the threads (later threads
    /// win on the nodes they share).
    pub fn animate(&mut self) {
        for (l, n) in self.local.iter_mut().zip(&self.shape.nodes) {
            *l = n.rest;
        }
        for id in (0..self.threads.len()).map(ThreadId) {
            for (node, tf) in self.thread_pose(id) {
                self.local[node] = tf;
            }
        }
        for (i, n) in self.shape.nodes.iter().enumerate() {
            let m = self.local[i].matrix();
            self.world[i] = n.parent.map_or(m, |p| self.world[p] * m);
        }
    }

    /// A node's transform in shape space (after [`TsShapeInstance::animate`]).
    pub fn node_transform(&self, node: usize) -> Option<Affine3A> {
        self.world.get(node).copied()
    }

    /// False when the node, or a node above it, is scaled to nothing (a visibility track).
    pub fn is_node_visible(&self, node: usize) -> bool {
        let mut at = Some(node);
        while let Some(i) = at {
            if self.local[i].scale.max_element() <= 1e-4 {
                return false;
            }
            at = self.shape.nodes[i].parent;
        }
        true
    }

    /// Materials painted another colour on this instance.
    pub(crate) fn colors(&self) -> &[(String, [u8; 4])] {
        &self.colors
    }

    /// When this instance's pose depends only on one sequence and a position in it (no more
    /// than one thread, no transition blending), that sequence (`None`: the rest pose) and
    /// position.
    pub(crate) fn single_sequence(&self) -> Option<(Option<usize>, f32)> {
        let mut live = self.threads.iter().flatten();
        match (live.next(), live.next()) {
            (None, _) => Some((None, 0.0)),
            (Some(t), None) if t.transition.is_none() && t.sequence < self.shape.sequences.len() => {
                Some((Some(t.sequence), t.pos))
            }
            _ => None,
        }
    }

    /// This instance's node transforms (after [`Self::animate`]) as palette rows, `nodes` of
    /// them appended to `out` (a hidden node all zeros).
    pub(crate) fn pose_rows(&self, out: &mut Vec<[[f32; 4]; 3]>) {
        for (i, w) in self.world.iter().enumerate() {
            let visible = self.is_node_visible(i);
            out.push(if visible { v12_render_gl::affine_rows(&glam::Mat4::from(*w)) } else { [[0.0; 4]; 3] });
        }
    }

    /// The meshes of detail level `detail` placed at `placement` as [`v12_render_gl::Shape::Posed`],
    /// appended to `out`: each mesh's vertices live on the GPU under the shape's key, and
    /// only its matrix (placement × node transform) and colour go to GL a frame. Drawn as
    /// [`Self::build_mesh`] builds them on the CPU.
    pub fn posed_meshes(
        &self,
        placement: Affine3A,
        detail: Option<u32>,
        out: &mut Vec<v12_render_gl::Shape>,
    ) {
        for (k, m) in self.shape.meshes.iter().enumerate() {
            if m.detail.is_some() && m.detail != detail || !self.is_node_visible(m.node) {
                continue;
            }
            let Some(vertices) = self.shape.gpu.meshes.get(k) else { continue };
            let color = self
                .colors
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&m.material))
                .map_or(m.color, |p| p.1);
            out.push(v12_render_gl::Shape::Posed(v12_render_gl::PosedMesh {
                key: self.shape.gpu.key.derive(&[k as u64]),
                version: 0,
                vertices: vertices.clone(),
                model: glam::Mat4::from(placement * self.world[m.node]),
                color,
            }));
        }
    }

    /// The meshes of detail level `detail` placed at `placement` with their materials: a
    /// textured mesh as [`v12_render_gl::Shape::Textured`] (its texture under
    /// [`TsShape::texture_name`], the lit colour times the texel; translucent when its
    /// material blends or its colour's alpha is under 255), the others lit as
    /// [`Self::build_mesh`] builds them. Posed on the CPU.
    pub fn textured_meshes(
        &self,
        placement: Affine3A,
        detail: Option<u32>,
        light_dir: Vec3,
        ambient: f32,
        out: &mut Vec<v12_render_gl::Shape>,
    ) {
        let to_light = -light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
        let ambient = ambient.clamp(0.0, 1.0);
        let mut plain = Vec::new();
        for (k, m) in self.shape.meshes.iter().enumerate() {
            if m.detail.is_some() && m.detail != detail || !self.is_node_visible(m.node) {
                continue;
            }
            let w = placement * self.world[m.node];
            let c = self
                .colors
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&m.material))
                .map_or(m.color, |p| p.1);
            let textured = m.texture.is_some() && m.uvs.len() == m.positions.len();
            let mut tris = Vec::new();
            for &i in &m.indices {
                let i = i as usize;
                let (Some(&p), Some(&n)) = (m.positions.get(i), m.normals.get(i)) else { continue };
                let n = w.transform_vector3(n).try_normalize().unwrap_or(Vec3::Z);
                let lit = ambient + (1.0 - ambient) * n.dot(to_light).max(0.0);
                let shade = |v: u8| (f32::from(v) * lit).round().clamp(0.0, 255.0) as u8;
                let color = [shade(c[0]), shade(c[1]), shade(c[2]), c[3]];
                let pos = w.transform_point3(p).to_array();
                if textured {
                    let mut weights = [0; v12_render_gl::MAX_LAYERS];
                    weights[0] = 255;
                    tris.push(v12_render_gl::TexVertex3 { pos, uv: m.uvs[i], color, weights });
                } else {
                    plain.push(Vertex3 { pos, color });
                }
            }
            if textured && !tris.is_empty() {
                let name: std::sync::Arc<str> = self.shape.texture_name(k).into();
                out.push(v12_render_gl::Shape::Textured {
                    layers: std::sync::Arc::from(vec![name]),
                    triangles: std::sync::Arc::new(tris),
                    translucent: m.blend || c[3] < 255,
                });
            }
        }
        if !plain.is_empty() {
            out.push(v12_render_gl::Shape::Mesh { triangles: std::sync::Arc::new(plain) });
        }
    }

    /// The lit triangles of detail level `detail` placed at `placement`, appended to `out`.
    /// Lighting as render-gl's scenes: `ambient` plus the rest from the light by the normal.
    pub fn build_mesh(
        &self,
        placement: Affine3A,
        detail: Option<u32>,
        light_dir: Vec3,
        ambient: f32,
        out: &mut Vec<Vertex3>,
    ) {
        let to_light = -light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
        let ambient = ambient.clamp(0.0, 1.0);
        for m in &self.shape.meshes {
            if m.detail.is_some() && m.detail != detail || !self.is_node_visible(m.node) {
                continue;
            }
            let w = placement * self.world[m.node];
            for &k in &m.indices {
                let k = k as usize;
                let p = w.transform_point3(m.positions[k]);
                let n = w.transform_vector3(m.normals[k]).try_normalize().unwrap_or(Vec3::Z);
                let lit = ambient + (1.0 - ambient) * n.dot(to_light).max(0.0);
                let c = self
                    .colors
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(&m.material))
                    .map_or(m.color, |p| p.1);
                let shade = |v: u8| (f32::from(v) * lit).round().clamp(0.0, 255.0) as u8;
                out.push(Vertex3 { pos: p.to_array(), color: [shade(c[0]), shade(c[1]), shade(c[2]), c[3]] });
            }
        }
    }
}
