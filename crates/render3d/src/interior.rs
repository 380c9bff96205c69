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

/// How an interior's polygons are lit and placed.
struct Lighter<'a> {
    inst: &'a InteriorInstance,
    to_light: Vec3,
    ambient: f32,
}

impl Lighter<'_> {
    fn new(inst: &InteriorInstance, light_dir: Vec3, ambient: f32) -> Lighter<'_> {
        Lighter {
            inst,
            to_light: -light_dir.try_normalize().unwrap_or(Vec3::NEG_Z),
            ambient: ambient.clamp(0.0, 1.0),
        }
    }

    /// A convex polygon as a fan: local points (for the texture), its local normal (turned
    /// to world for the light), a tint and the weights (one layer, or none for a door's
    /// colour). Returns the triangles added.
    fn polygon(
        &self,
        local: &[DVec3],
        local_n: DVec3,
        rgb: [u8; 3],
        weights: [u8; MAX_LAYERS],
        out: &mut Vec<TexVertex3>,
    ) -> usize {
        self.polygon_lit(local, local_n, rgb, weights, false, out)
    }

    /// [`Self::polygon`]; `indoors`: lit by the ambient light alone (a room's face under a
    /// lightmap, which brings the room's own lights; the sun does not reach in).
    fn polygon_lit(
        &self,
        local: &[DVec3],
        local_n: DVec3,
        rgb: [u8; 3],
        weights: [u8; MAX_LAYERS],
        indoors: bool,
        out: &mut Vec<TexVertex3>,
    ) -> usize {
        let normal = self.inst.transform().transform_vector3(local_n.as_vec3()).normalize_or_zero();
        let sun = if indoors { 0.0 } else { normal.dot(self.to_light).max(0.0) };
        let k = self.ambient + (1.0 - self.ambient) * sun;
        let shade = |v: u8| (f32::from(v) * k).round().clamp(0.0, 255.0) as u8;
        let color = [shade(rgb[0]), shade(rgb[1]), shade(rgb[2]), 255];
        let vertex = |p: DVec3| TexVertex3 {
            pos: self.inst.to_world_point(p.as_vec3()).to_array(),
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
    }

    /// The faces of the zones `seen` accepts, by material; returns (faces, triangles).
    fn faces(&self, seen: impl Fn(u16) -> bool, by_material: &mut Vec<Vec<TexVertex3>>) -> (usize, usize) {
        self.faces_lightmapped(seen, by_material, None)
    }

    /// [`Self::faces`], and with `lightmap_uvs` (when the interior has lightmaps) each
    /// vertex's lightmap coordinate by material, the rooms' faces lit indoors.
    fn faces_lightmapped(
        &self,
        seen: impl Fn(u16) -> bool,
        by_material: &mut Vec<Vec<TexVertex3>>,
        mut lightmap_uvs: Option<&mut Vec<Vec<[f32; 2]>>>,
    ) -> (usize, usize) {
        let mut one = [0u8; MAX_LAYERS];
        one[0] = 255;
        let maps = self.inst.interior.lightmaps.as_deref().filter(|_| lightmap_uvs.is_some());
        let (mut faces, mut triangles) = (0, 0);
        for (i, (face, zone)) in
            self.inst.interior.faces.iter().zip(&self.inst.interior.face_zones).enumerate()
        {
            let Some(zone) = *zone else { continue };
            if face.points.len() < 3 || !seen(zone) {
                continue;
            }
            let m = usize::from(face.material);
            if by_material.len() <= m {
                by_material.resize_with(m + 1, Vec::new);
            }
            let indoors = maps.is_some() && zone != 0;
            let n = self.polygon_lit(&face.points, face.normal, [255; 3], one, indoors, &mut by_material[m]);
            if let (Some(uvs), Some(maps)) = (lightmap_uvs.as_deref_mut(), maps) {
                if uvs.len() <= m {
                    uvs.resize_with(m + 1, Vec::new);
                }
                let uv = |p: DVec3| maps.uv(i, p).unwrap_or([0.0; 2]);
                let p = &face.points;
                for k in 1..p.len() - 1 {
                    uvs[m].extend([uv(p[0]), uv(p[k]), uv(p[k + 1])]);
                }
                debug_assert_eq!(uvs[m].len(), by_material[m].len());
            }
            triangles += n;
            faces += 1;
        }
        (faces, triangles)
    }

    /// Closed portal `k` as a door (nothing when it has no polygon).
    fn door(&self, k: usize, out: &mut Vec<TexVertex3>) -> usize {
        match self.inst.interior.portals.get(k) {
            Some(p) if p.polygon.len() >= 3 => {
                self.polygon(&p.polygon, p.plane.normal, DOOR, [0; MAX_LAYERS], out)
            }
            _ => 0,
        }
    }
}

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
    let lighter = Lighter::new(inst, light_dir, ambient);
    (stats.faces, stats.triangles) = lighter.faces(seen, &mut out.by_material);
    for (k, portal) in inst.interior.portals.iter().enumerate() {
        if graph.is_portal_open(id, k) || portal.polygon.len() < 3 {
            continue;
        }
        let (a, b) = portal.zones;
        if !seen(a) && !seen(b) {
            continue;
        }
        stats.triangles += lighter.door(k, &mut out.doors);
        stats.doors += 1;
    }
    stats
}

/// One interior's meshes as built once: each zone's faces by material, each portal's door.
#[derive(Debug)]
struct BuiltInterior {
    /// Held so its address (the cache's name for it) cannot be reused while cached.
    inst: Arc<InteriorInstance>,
    /// Each zone's meshes (resident, or resident and lightmapped) and their triangles.
    zones: Vec<Vec<(Shape, usize)>>,
    doors: Vec<Option<v12_render_gl::ResidentMesh>>,
}

/// The interiors as meshes that live on the GPU: each zone's faces (one mesh a material)
/// and each portal's door are built once, lit, and drawn as resident meshes; a frame only
/// picks the zones seen and the closed portals beside them, so a steady frame builds and
/// uploads nothing. An interior is built again when its instance or the light changes.
#[derive(Debug)]
pub struct InteriorMeshes {
    base: v12_render_gl::MeshKey,
    light: [u32; 4],
    built: std::collections::HashMap<u32, BuiltInterior>,
    /// Interiors built (not found in the cache) over the cache's life.
    pub interiors_built: u64,
}

impl Default for InteriorMeshes {
    fn default() -> Self {
        Self::new()
    }
}

impl InteriorMeshes {
    pub fn new() -> Self {
        InteriorMeshes {
            base: v12_render_gl::MeshKey::unique(),
            light: [0; 4],
            built: std::collections::HashMap::new(),
            interiors_built: 0,
        }
    }

    /// The meshes of every interior of `graph` in the zones `visible` lists, and the doors
    /// of its closed portals beside them, appended to `out`, lit by `light` (the direction
    /// the light travels and the ambient share). `materials(id)` names the
    /// interior's textures; `keep` filters triangles once at build (the client leaves roofs
    /// off); a material whose bitmap is translucent is drawn as glass.
    pub fn shapes<'m>(
        &mut self,
        graph: &SceneGraph,
        visible: &[ZoneRef],
        (light_dir, ambient): (Vec3, f32),
        materials: impl Fn(u32) -> &'m [WorldMaterial],
        keep: impl Fn(&InteriorInstance, &[TexVertex3]) -> bool,
        out: &mut Vec<Shape>,
    ) -> InteriorDrawStats {
        let light = [light_dir.x, light_dir.y, light_dir.z, ambient].map(f32::to_bits);
        if light != self.light {
            self.built.clear();
            self.light = light;
            self.base = v12_render_gl::MeshKey::unique();
        }
        let current: std::collections::HashMap<u32, &Arc<InteriorInstance>> = graph.interiors().collect();
        self.built.retain(|id, b| current.get(id).is_some_and(|i| Arc::ptr_eq(i, &b.inst)));
        let mut stats = InteriorDrawStats::default();
        for (id, inst) in graph.interiors() {
            let built = match self.built.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    self.interiors_built += 1;
                    let base = self.base.derive(&[u64::from(id), self.interiors_built]);
                    e.insert(build_resident(base, inst.clone(), light_dir, ambient, materials(id), &keep))
                }
            };
            for (zone, meshes) in built.zones.iter().enumerate() {
                let z =
                    if zone == 0 { ZoneRef::OUTSIDE } else { ZoneRef { owner: Some(id), zone: zone as u16 } };
                if !visible.contains(&z) {
                    continue;
                }
                stats.zones += usize::from(zone > 0);
                for (shape, triangles) in meshes {
                    stats.triangles += triangles;
                    out.push(shape.clone());
                }
            }
            for (k, door) in built.doors.iter().enumerate() {
                let Some(door) = door else { continue };
                let Some(portal) = inst.interior.portals.get(k) else { continue };
                let side = |z: u16| {
                    visible.contains(&if z == 0 {
                        ZoneRef::OUTSIDE
                    } else {
                        ZoneRef { owner: Some(id), zone: z }
                    })
                };
                if graph.is_portal_open(id, k) || !(side(portal.zones.0) || side(portal.zones.1)) {
                    continue;
                }
                stats.doors += 1;
                stats.triangles += door.triangles.len() / 3;
                out.push(Shape::Resident(door.clone()));
            }
        }
        stats
    }
}

/// An interior's lightmap atlas as an image, named after its contents (a hash of its size
/// and texels), so every instance of one interior names one texture, uploaded once.
fn lightmap_image(maps: &v12_world::lightmap::Lightmaps) -> (Arc<str>, Arc<v12_render_gl::Image>) {
    let mut img = v12_render_gl::Image::new(maps.width as u32, maps.height as u32, [0, 0, 0, 255]);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ ((maps.width as u64) << 32 | maps.height as u64);
    for (i, t) in maps.texels.iter().enumerate() {
        img.put((i % maps.width) as u32, (i / maps.width) as u32, *t);
        for b in t {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    (Arc::from(format!("$lightmap:{h:016x}")), Arc::new(img))
}

/// Builds one interior's resident meshes (see [`InteriorMeshes`]).
fn build_resident(
    base: v12_render_gl::MeshKey,
    inst: Arc<InteriorInstance>,
    light_dir: Vec3,
    ambient: f32,
    materials: &[WorldMaterial],
    keep: &impl Fn(&InteriorInstance, &[TexVertex3]) -> bool,
) -> BuiltInterior {
    let lighter = Lighter::new(&inst, light_dir, ambient);
    let filter = |tris: Vec<TexVertex3>| -> Vec<TexVertex3> {
        tris.chunks_exact(3).filter(|t| keep(&inst, t)).flatten().copied().collect()
    };
    let image = inst.interior.lightmaps.as_ref().map(|maps| lightmap_image(maps));
    let mut zones = Vec::new();
    for zone in 0..=inst.interior.zone_count {
        let (mut by_material, mut uvs) = (Vec::new(), Vec::new());
        lighter.faces_lightmapped(|z| z == zone, &mut by_material, image.as_ref().map(|_| &mut uvs));
        let mut meshes = Vec::new();
        for (m, tris) in by_material.into_iter().enumerate() {
            // The triangles kept, and their lightmap coordinates with them.
            let uv = uvs.get(m);
            let kept: Vec<usize> =
                (0..tris.len() / 3).filter(|&t| keep(&inst, &tris[3 * t..3 * t + 3])).collect();
            let tris: Vec<TexVertex3> =
                kept.iter().flat_map(|&t| tris[3 * t..3 * t + 3].iter().copied()).collect();
            if tris.is_empty() {
                continue;
            }
            let material = materials.get(m);
            let mesh = v12_render_gl::ResidentMesh {
                key: base.derive(&[0, u64::from(zone), m as u64]),
                version: 0,
                layers: vec![Arc::from(material.map_or("", |m| m.texture.as_str()))].into(),
                triangles: Arc::new(tris),
                translucent: material.is_some_and(|m| m.translucent),
            };
            let n = mesh.triangles.len() / 3;
            let shape = match (&image, uv) {
                (Some((name, image)), Some(uv)) if !mesh.translucent => {
                    let uvs: Vec<[f32; 2]> = kept
                        .iter()
                        .flat_map(|&t| uv.get(3 * t..3 * t + 3).unwrap_or(&[[0.0; 2]; 3]).iter().copied())
                        .collect();
                    Shape::Lit {
                        mesh,
                        lightmap: v12_render_gl::Lightmap {
                            name: name.clone(),
                            image: image.clone(),
                            uvs: Arc::new(uvs),
                        },
                    }
                }
                _ => Shape::Resident(mesh),
            };
            meshes.push((shape, n));
        }
        zones.push(meshes);
    }
    let doors = (0..inst.interior.portals.len())
        .map(|k| {
            let mut tris = Vec::new();
            lighter.door(k, &mut tris);
            let tris = filter(tris);
            (!tris.is_empty()).then(|| v12_render_gl::ResidentMesh {
                key: base.derive(&[1, k as u64]),
                version: 0,
                layers: Vec::new().into(),
                triangles: Arc::new(tris),
                translucent: false,
            })
        })
        .collect();
    BuiltInterior { inst, zones, doors }
}
