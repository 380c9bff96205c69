//! `cargo xtask shapes`: writes the example game's shapes (`examples/game/shapes/*.glb`), made
//! here from boxes so they are licence-clean and reproducible: a player figure with `idle`,
//! `run` and `jump` sequences and two detail levels, a flag that waves, and an item that spins
//! and blinks. Shapes are authored Z up and +Y forward, as the engine's world.
//!
//! The conventions the engine reads (render3d's `shape` module): a mesh node whose name ends
//! in a number belongs to the detail level of that size in pixels; an animated scale of zero
//! hides a node; an animation's `extras` `{"cyclic": false}` makes it play once.

use serde_json::{Value, json};
use std::path::Path;

/// One node: name, translation, children, mesh.
struct Node {
    name: String,
    translation: [f32; 3],
    children: Vec<usize>,
    mesh: Option<usize>,
}

/// A glTF document being written, with its binary chunk.
#[derive(Default)]
struct Gltf {
    nodes: Vec<Node>,
    meshes: Vec<Value>,
    materials: Vec<Value>,
    accessors: Vec<Value>,
    views: Vec<Value>,
    animations: Vec<Value>,
    bin: Vec<u8>,
}

impl Gltf {
    /// Appends raw bytes as a buffer view (4-byte aligned) and returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    /// An accessor of f32 items with `n` components each.
    fn floats(&mut self, data: &[f32], n: usize, target: Option<u32>, bounds: bool) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let kind = ["SCALAR", "VEC2", "VEC3", "VEC4"][n - 1];
        let mut a = json!({"bufferView": view, "componentType": 5126, "count": data.len() / n, "type": kind});
        if bounds {
            let col = |k: usize| data.iter().skip(k).step_by(n).copied();
            let min: Vec<f32> = (0..n).map(|k| col(k).fold(f32::MAX, f32::min)).collect();
            let max: Vec<f32> = (0..n).map(|k| col(k).fold(f32::MIN, f32::max)).collect();
            a["min"] = json!(min);
            a["max"] = json!(max);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    fn material(&mut self, name: &str, color: [f32; 4]) -> usize {
        let pbr = json!({"baseColorFactor": color, "metallicFactor": 0.0});
        self.materials.push(json!({"name": name, "pbrMetallicRoughness": pbr}));
        self.materials.len() - 1
    }

    /// A mesh of triangles given as (positions, normals), one normal per corner.
    fn mesh(&mut self, tris: &[([f32; 3], [f32; 3])], material: (&str, [f32; 4])) -> usize {
        let pos: Vec<f32> = tris.iter().flat_map(|(p, _)| *p).collect();
        let nor: Vec<f32> = tris.iter().flat_map(|(_, n)| *n).collect();
        let p = self.floats(&pos, 3, Some(34962), true);
        let n = self.floats(&nor, 3, Some(34962), false);
        let material = self.material(material.0, material.1);
        self.meshes.push(
            json!({"primitives": [{"attributes": {"POSITION": p, "NORMAL": n}, "material": material}]}),
        );
        self.meshes.len() - 1
    }

    fn node(&mut self, name: &str, translation: [f32; 3], mesh: Option<usize>) -> usize {
        self.nodes.push(Node { name: name.into(), translation, children: Vec::new(), mesh });
        self.nodes.len() - 1
    }

    fn child(&mut self, parent: usize, name: &str, translation: [f32; 3], mesh: Option<usize>) -> usize {
        let n = self.node(name, translation, mesh);
        self.nodes[parent].children.push(n);
        n
    }

    /// A mesh node hung on `bone` at the bone's origin.
    fn part(&mut self, bone: usize, name: &str, tris: &[([f32; 3], [f32; 3])], material: (&str, [f32; 4])) {
        let mesh = self.mesh(tris, material);
        self.child(bone, name, [0.0; 3], Some(mesh));
    }

    /// An animation: channels of (node, "rotation" | "translation" | "scale", times, values).
    fn animation(&mut self, name: &str, cyclic: bool, channels: &[(usize, &str, Vec<f32>, Vec<f32>)]) {
        let mut samplers = Vec::new();
        let mut chans = Vec::new();
        for (node, path, times, values) in channels {
            let input = self.floats(times, 1, None, true);
            let width = if *path == "rotation" { 4 } else { 3 };
            let output = self.floats(values, width, None, false);
            samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
            chans.push(json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}));
        }
        let mut a = json!({"name": name, "samplers": samplers, "channels": chans});
        if !cyclic {
            a["extras"] = json!({"cyclic": false});
        }
        self.animations.push(a);
    }

    /// The `.glb` bytes: header, JSON chunk, binary chunk.
    fn glb(&self, root: usize) -> Vec<u8> {
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|n| {
                let mut v = json!({"name": n.name, "translation": n.translation});
                if !n.children.is_empty() {
                    v["children"] = json!(n.children);
                }
                if let Some(m) = n.mesh {
                    v["mesh"] = json!(m);
                }
                v
            })
            .collect();
        let doc = json!({
            "asset": {"version": "2.0", "generator": "v12 cargo xtask shapes"},
            "scene": 0,
            "scenes": [{"nodes": [root]}],
            "nodes": nodes,
            "meshes": self.meshes,
            "materials": self.materials,
            "accessors": self.accessors,
            "bufferViews": self.views,
            "buffers": [{"byteLength": self.bin.len()}],
            "animations": self.animations,
        });
        let mut text = serde_json::to_vec(&doc).expect("JSON of plain values");
        while !text.len().is_multiple_of(4) {
            text.push(b' ');
        }
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + text.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&text);
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
        out
    }
}

/// The 12 triangles of a box: `center` and half extents `h`.
fn cuboid(center: [f32; 3], h: [f32; 3]) -> Vec<([f32; 3], [f32; 3])> {
    let mut out = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let mut n = [0.0; 3];
            n[axis] = sign;
            let corner = |a: f32, b: f32| {
                let mut p = center;
                p[axis] += sign * h[axis];
                p[u] += a * h[u];
                p[v] += b * h[v];
                p
            };
            // Counter-clockwise seen from outside.
            let quad = if sign > 0.0 {
                [corner(-1., -1.), corner(1., -1.), corner(1., 1.), corner(-1., 1.)]
            } else {
                [corner(-1., -1.), corner(-1., 1.), corner(1., 1.), corner(1., -1.)]
            };
            for k in [0, 1, 2, 0, 2, 3] {
                out.push((quad[k], n));
            }
        }
    }
    out
}

/// An octahedron (a gem) of radius `r` around `center`, flat-shaded.
fn gem(center: [f32; 3], r: f32) -> Vec<([f32; 3], [f32; 3])> {
    let at = |x: f32, y: f32, z: f32| [center[0] + x * r, center[1] + y * r, center[2] + z * r * 1.4];
    let ring = [at(1., 0., 0.), at(0., 1., 0.), at(-1., 0., 0.), at(0., -1., 0.)];
    let (top, bottom) = (at(0., 0., 1.), at(0., 0., -1.));
    let mut out = Vec::new();
    for i in 0..4 {
        let (a, b) = (ring[i], ring[(i + 1) % 4]);
        for tri in [[a, b, top], [b, a, bottom]] {
            let e1 = [tri[1][0] - tri[0][0], tri[1][1] - tri[0][1], tri[1][2] - tri[0][2]];
            let e2 = [tri[2][0] - tri[0][0], tri[2][1] - tri[0][1], tri[2][2] - tri[0][2]];
            let c =
                [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
            let l = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
            let n = [c[0] / l, c[1] / l, c[2] / l];
            out.extend(tri.map(|p| (p, n)));
        }
    }
    out
}

/// A rotation about an axis as a glTF quaternion (x, y, z, w).
fn turn(axis: [f32; 3], degrees: f32) -> [f32; 4] {
    let (s, c) = (degrees.to_radians() / 2.0).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// Keyframes of rotations about one axis: (time, degrees) pairs.
fn swing(axis: [f32; 3], keys: &[(f32, f32)]) -> (Vec<f32>, Vec<f32>) {
    (keys.iter().map(|k| k.0).collect(), keys.iter().flat_map(|k| turn(axis, k.1)).collect())
}

const X: [f32; 3] = [1.0, 0.0, 0.0];
const Z: [f32; 3] = [0.0, 0.0, 1.0];

/// The player: a box figure 1.8 m tall, feet at the origin; detail 32 (pixels) with every limb,
/// detail 8 one box. Sequences: `idle` (breathing), `run` (legs and arms swing), `jump` (once).
pub fn player() -> Vec<u8> {
    let mut g = Gltf::default();
    // "team" is the material a game paints in the player's team colour.
    let shirt = ("team", [0.75, 0.22, 0.18, 1.0]);
    let skin = ("skin", [0.92, 0.76, 0.6, 1.0]);
    let trousers = ("trousers", [0.2, 0.28, 0.62, 1.0]);
    let root = g.node("Player", [0.0; 3], None);
    let pelvis = g.child(root, "pelvis", [0.0, 0.0, 0.9], None);
    let torso = g.child(pelvis, "torso", [0.0, 0.0, 0.05], None);
    g.part(torso, "torsoMesh32", &cuboid([0.0, 0.0, 0.3], [0.22, 0.12, 0.3]), shirt);
    let head = g.child(torso, "head", [0.0, 0.0, 0.62], None);
    g.part(head, "headMesh32", &cuboid([0.0, 0.0, 0.13], [0.12, 0.12, 0.13]), skin);
    let arm_l = g.child(torso, "armL", [-0.3, 0.0, 0.56], None);
    g.part(arm_l, "armLMesh32", &cuboid([0.0, 0.0, -0.28], [0.06, 0.06, 0.28]), skin);
    let arm_r = g.child(torso, "armR", [0.3, 0.0, 0.56], None);
    g.part(arm_r, "armRMesh32", &cuboid([0.0, 0.0, -0.28], [0.06, 0.06, 0.28]), skin);
    let leg_l = g.child(pelvis, "legL", [-0.11, 0.0, 0.0], None);
    g.part(leg_l, "legLMesh32", &cuboid([0.0, 0.0, -0.45], [0.08, 0.08, 0.45]), trousers);
    let leg_r = g.child(pelvis, "legR", [0.11, 0.0, 0.0], None);
    g.part(leg_r, "legRMesh32", &cuboid([0.0, 0.0, -0.45], [0.08, 0.08, 0.45]), trousers);
    g.part(root, "bodyMesh8", &cuboid([0.0, 0.0, 0.9], [0.24, 0.14, 0.9]), shirt);
    let (t, v) = swing(X, &[(0.0, 0.0), (1.0, 4.0), (2.0, 0.0)]);
    let (ht, hv) = swing(Z, &[(0.0, 0.0), (1.0, 12.0), (2.0, 0.0)]);
    g.animation("idle", true, &[(torso, "rotation", t, v), (head, "rotation", ht, hv)]);
    let stride = |phase: f32| swing(X, &[(0.0, 35.0 * phase), (0.3, -35.0 * phase), (0.6, 35.0 * phase)]);
    let (lt, lv) = stride(1.0);
    let (rt, rv) = stride(-1.0);
    let bob = (
        vec![0.0, 0.15, 0.3, 0.45, 0.6],
        [0.9, 0.96, 0.9, 0.96, 0.9].iter().flat_map(|z| [0.0, 0.0, *z]).collect(),
    );
    g.animation(
        "run",
        true,
        &[
            (leg_l, "rotation", lt.clone(), lv.clone()),
            (leg_r, "rotation", rt.clone(), rv.clone()),
            (arm_l, "rotation", rt, rv),
            (arm_r, "rotation", lt, lv),
            (pelvis, "translation", bob.0, bob.1),
        ],
    );
    let tuck = || swing(X, &[(0.0, 0.0), (0.25, -70.0), (0.5, -20.0)]);
    let reach = || swing(X, &[(0.0, 0.0), (0.25, 160.0), (0.5, 120.0)]);
    let (a, b) = tuck();
    let (c, d) = tuck();
    let (e, f) = reach();
    let (h, i) = reach();
    g.animation(
        "jump",
        false,
        &[
            (leg_l, "rotation", a, b),
            (leg_r, "rotation", c, d),
            (arm_l, "rotation", e, f),
            (arm_r, "rotation", h, i),
        ],
    );
    // `fire`: the right arm swings forward and back (the weapon's fire state plays it).
    let (ft, fv) = swing(X, &[(0.0, 0.0), (0.1, 95.0), (0.45, 0.0)]);
    g.animation("fire", false, &[(arm_r, "rotation", ft, fv)]);
    g.glb(root)
}

/// A flag on a 3 m pole; `wave` swings the cloth.
pub fn flag() -> Vec<u8> {
    let mut g = Gltf::default();
    let root = g.node("Flag", [0.0; 3], None);
    g.part(root, "pole", &cuboid([0.0, 0.0, 1.5], [0.03, 0.03, 1.5]), ("pole", [0.8, 0.8, 0.78, 1.0]));
    let cloth = g.child(root, "cloth", [0.0, 0.0, 2.7], None);
    g.part(cloth, "clothMesh", &cuboid([0.4, 0.0, 0.0], [0.4, 0.01, 0.25]), ("team", [0.85, 0.1, 0.1, 1.0]));
    let (t, v) = swing(Z, &[(0.0, 0.0), (0.3, 20.0), (0.6, 0.0), (0.9, -20.0), (1.2, 0.0)]);
    g.animation("wave", true, &[(cloth, "rotation", t, v)]);
    g.glb(root)
}

/// A gem floating over the ground: `spin` turns it, `blink` shows and hides its spark (a
/// visibility track).
pub fn item() -> Vec<u8> {
    let mut g = Gltf::default();
    let root = g.node("Item", [0.0; 3], None);
    let body = g.child(root, "gem", [0.0, 0.0, 0.6], None);
    g.part(body, "gemMesh", &gem([0.0; 3], 0.3), ("gem", [0.2, 0.8, 0.35, 1.0]));
    let spark = g.child(body, "spark", [0.0, 0.0, 0.55], None);
    g.part(spark, "sparkMesh", &cuboid([0.0; 3], [0.06, 0.06, 0.06]), ("spark", [1.0, 0.95, 0.3, 1.0]));
    let quarter: Vec<(f32, f32)> = (0..=4).map(|k| (k as f32 * 0.5, k as f32 * 90.0)).collect();
    let (t, v) = swing(Z, &quarter);
    g.animation("spin", true, &[(body, "rotation", t, v)]);
    let on = [1.0f32, 1.0, 1.0];
    let off = [0.0f32, 0.0, 0.0];
    let scales: Vec<f32> = [on, on, off, off, on].concat();
    g.animation("blink", true, &[(spark, "scale", vec![0.0, 0.49, 0.5, 0.99, 1.0], scales)]);
    g.glb(root)
}

/// Writes the three shapes into `dir`.
pub fn write_all(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, bytes) in [("player.glb", player()), ("flag.glb", flag()), ("item.glb", item())] {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The committed `.glb` files are exactly what `cargo xtask shapes` writes.
    #[test]
    fn committed_shapes_are_the_generated_ones() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/game/shapes");
        for (name, bytes) in
            [("player.glb", super::player()), ("flag.glb", super::flag()), ("item.glb", super::item())]
        {
            let committed = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(committed == bytes, "{name} differs from its definition: run `cargo xtask shapes`");
        }
    }
}
