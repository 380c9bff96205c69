//! Many copies of a shape drawn instanced, their poses shared.
//!
//! V12 animates and draws every shape instance on its own. A crowd of players running the
//! same sequence does the same work many times over, so here the copies of a shape at one
//! detail level with the same colours are one batch ([`v12_render_gl::InstancedShape`]): one
//! draw call a mesh, a palette of node poses, and per copy only its placement and which pose
//! it takes. A copy that plays one sequence (one thread, no transition blend) takes the pose
//! of that sequence at its position rounded to the batcher's pose rate (30 a second of the
//! sequence by default): copies in the same frame of the same sequence share it, and the
//! poses computed are kept from frame to frame (a capped cache a shape), so a steady crowd
//! animates nothing. Other copies (several threads, blends) are animated on their own and
//! take a pose of their own.
//!
//! Per frame the CPU work a copy is its culling, its detail level, a look-up and a 52-byte
//! record; the GPU multiplies the placement by the node's pose for every vertex.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use glam::Affine3A;
use v12_render_gl::{InstancedPart, InstancedShape, MAX_PALETTE_MATRICES, Shape, ShapeInstance};

use crate::shape::{TsShape, TsShapeInstance};

/// Poses a second of a sequence that copies share by default.
pub const DEFAULT_POSE_RATE: f32 = 30.0;
/// Poses kept in a shape's cache from frame to frame; past it the cache starts again.
pub const MAX_CACHED_POSES: usize = 4096;
/// Frame slots a batch keeps for its shared poses (past it they are found by hashing).
pub const MAX_SLOTS: usize = 1 << 16;
/// Batches kept (shapes × detail levels × colourings); past it they start again.
pub const MAX_BATCHES: usize = 256;

/// A shared pose's name: the sequence (0: the rest pose, else its index + 1) and the
/// rounded position (a frame number at the pose rate, or the position's bits when the rate
/// or the sequence's duration gives no frames).
type PoseKey = (u32, u32);

/// An affine transform's three rows.
fn rows_of(a: &Affine3A) -> [[f32; 4]; 3] {
    let (m, t) = (a.matrix3, a.translation);
    [
        [m.x_axis.x, m.y_axis.x, m.z_axis.x, t.x],
        [m.x_axis.y, m.y_axis.y, m.z_axis.y, t.y],
        [m.x_axis.z, m.y_axis.z, m.z_axis.z, t.z],
    ]
}

/// A pose key's hash: the two numbers in one word, mixed by a multiply (SipHash took a
/// tenth of a crowd's frame; the keys are small numbers nobody chooses to collide).
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0.rotate_left(32) ^ u64::from(v)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type KeyMap<V> = HashMap<PoseKey, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// One shape at one detail level with one set of colours.
struct Batch {
    shape: Rc<TsShape>,
    detail: Option<u32>,
    colors: Vec<(String, [u8; 4])>,
    parts: Vec<InstancedPart>,
    /// Poses computed, by key, kept across frames.
    cache: KeyMap<Vec<[[f32; 4]; 3]>>,
    /// This frame's palette and the shared poses' places in it: by frame in `slots` (the
    /// rest pose at 0, then each sequence's frames from `offsets[sequence]`, `u32::MAX`
    /// where unused; `touched` lists the slots to clear), else (positions not rounded to
    /// frames) in `used`.
    poses: Vec<[[f32; 4]; 3]>,
    slots: Vec<u32>,
    offsets: Vec<u32>,
    touched: Vec<u32>,
    used: KeyMap<u32>,
    instances: Vec<ShapeInstance>,
}

/// What the batches hold this frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchStats {
    pub batches: usize,
    pub instances: usize,
    /// Poses in the palettes (shared and own).
    pub poses: usize,
    /// Copies not drawn because their batch's palette was full.
    pub dropped: usize,
}

/// Collects a frame's shape copies into instanced batches (see the module's notes). Keep
/// one across frames: its pose caches are what make a steady crowd cheap.
pub struct ShapeBatches {
    rate: f32,
    batches: Vec<Batch>,
    dropped: usize,
}

impl std::fmt::Debug for ShapeBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShapeBatches").field("rate", &self.rate).field("stats", &self.stats()).finish()
    }
}

impl Default for ShapeBatches {
    fn default() -> Self {
        ShapeBatches::new(DEFAULT_POSE_RATE)
    }
}

impl ShapeBatches {
    /// Batches sharing poses rounded to `pose_rate` a second of a sequence (0, negative or
    /// not finite: only copies at exactly the same position share).
    pub fn new(pose_rate: f32) -> Self {
        let rate = if pose_rate.is_finite() && pose_rate > 0.0 { pose_rate } else { 0.0 };
        ShapeBatches { rate, batches: Vec::new(), dropped: 0 }
    }

    fn batch(&mut self, inst: &TsShapeInstance, detail: Option<u32>) -> usize {
        let shape = inst.shape();
        let colors = inst.colors();
        if let Some(i) = self
            .batches
            .iter()
            .position(|b| b.detail == detail && Rc::ptr_eq(&b.shape, shape) && b.colors == colors)
        {
            return i;
        }
        if self.batches.len() >= MAX_BATCHES {
            tracing::debug!("too many shape batches; starting again");
            self.batches.retain(|b| !b.instances.is_empty());
        }
        let parts = shape
            .meshes
            .iter()
            .enumerate()
            .filter(|(_, m)| m.detail.is_none() || m.detail == detail)
            .filter_map(|(k, m)| {
                let vertices = shape.gpu.meshes.get(k)?.clone();
                let color =
                    colors.iter().find(|(n, _)| n.eq_ignore_ascii_case(&m.material)).map_or(m.color, |p| p.1);
                Some(InstancedPart {
                    key: shape.gpu.key.derive(&[k as u64]),
                    version: 0,
                    vertices,
                    node: u32::try_from(m.node).ok()?,
                    color,
                })
            })
            .collect();
        let (slots, offsets) = self.slot_table(shape);
        self.batches.push(Batch {
            shape: shape.clone(),
            detail,
            colors: colors.to_vec(),
            parts,
            cache: KeyMap::default(),
            poses: Vec::new(),
            slots,
            offsets,
            touched: Vec::new(),
            used: KeyMap::default(),
            instances: Vec::new(),
        });
        self.batches.len() - 1
    }

    /// A shape's table of frame slots: the rest pose, then each sequence's frames at the
    /// pose rate (none past [`MAX_SLOTS`]: those poses are found in the map).
    fn slot_table(&self, shape: &TsShape) -> (Vec<u32>, Vec<u32>) {
        let mut offsets = Vec::with_capacity(shape.sequences.len());
        let mut next = 1u32;
        for s in &shape.sequences {
            offsets.push(next);
            let frames = s.duration * self.rate;
            if (1.0..1e6).contains(&frames) {
                next = next.saturating_add(frames.round() as u32 + 1);
            }
        }
        let n = if (next as usize) <= MAX_SLOTS { next as usize } else { 1 };
        (vec![u32::MAX; n], offsets)
    }

    /// The shared pose's key and the rounded position it is computed at.
    fn key(&self, shape: &TsShape, sequence: Option<usize>, pos: f32) -> (PoseKey, f32) {
        let Some(seq) = sequence else { return ((0, 0), 0.0) };
        let id = u32::try_from(seq).unwrap_or(u32::MAX - 1) + 1;
        let frames = shape.sequences.get(seq).map_or(0.0, |s| s.duration) * self.rate;
        if (1.0..1e6).contains(&frames) {
            // Rounded half up (non-negative: a truncating cast, no library call).
            let frame = ((pos.clamp(0.0, 1.0) * frames + 0.5) as u32) as f32;
            ((id, frame as u32), (frame / frames).clamp(0.0, 1.0))
        } else {
            ((id, pos.to_bits()), pos)
        }
    }

    /// Adds a copy of `inst`'s shape at `placement`, at detail level `detail` (its meshes
    /// as [`TsShapeInstance::posed_meshes`] picks them). A copy that cannot share a pose is
    /// animated here.
    pub fn add(&mut self, inst: &mut TsShapeInstance, placement: Affine3A, detail: Option<u32>) {
        let b = self.batch(inst, detail);
        let nodes = inst.shape().nodes.len();
        let shared = inst.single_sequence().map(|(seq, pos)| self.key(inst.shape(), seq, pos));
        let batch = &mut self.batches[b];
        let slot = shared.and_then(|((seq, frame), _)| {
            let at = match seq {
                0 => 0,
                s => batch.offsets.get(s as usize - 1)?.checked_add(frame)?,
            };
            let next = batch.offsets.get(seq as usize).copied().unwrap_or(batch.slots.len() as u32);
            (seq == 0 || at < next).then_some(at as usize).filter(|&at| at < batch.slots.len())
        });
        let found = match (slot, shared) {
            (Some(at), _) => Some(batch.slots[at]).filter(|&p| p != u32::MAX),
            (None, Some((key, _))) => batch.used.get(&key).copied(),
            (None, None) => None,
        };
        let pose = match found {
            Some(p) => p,
            None => {
                if batch.poses.len() + nodes > MAX_PALETTE_MATRICES {
                    self.dropped += 1;
                    return;
                }
                let p = u32::try_from(batch.poses.len() / nodes.max(1)).unwrap_or(u32::MAX);
                match shared {
                    Some((key, pos)) => {
                        if batch.cache.len() >= MAX_CACHED_POSES {
                            batch.cache.clear();
                        }
                        let rows = batch.cache.entry(key).or_insert_with(|| {
                            let mut rows = Vec::with_capacity(nodes);
                            let seq = key.0.checked_sub(1).map(|s| s as usize);
                            batch.shape.pose_rows(seq, pos, &mut rows);
                            rows
                        });
                        batch.poses.extend_from_slice(rows);
                        match slot {
                            Some(at) => {
                                batch.slots[at] = p;
                                batch.touched.push(at as u32);
                            }
                            None => {
                                batch.used.insert(key, p);
                            }
                        }
                    }
                    None => {
                        inst.animate();
                        inst.pose_rows(&mut batch.poses);
                    }
                }
                p
            }
        };
        batch.instances.push(ShapeInstance { rows: rows_of(&placement), pose: pose as f32 });
    }

    /// What the batches hold now (before [`Self::shapes`] takes it).
    pub fn stats(&self) -> BatchStats {
        BatchStats {
            batches: self.batches.iter().filter(|b| !b.instances.is_empty()).count(),
            instances: self.batches.iter().map(|b| b.instances.len()).sum(),
            poses: self.batches.iter().map(|b| b.poses.len() / b.shape.nodes.len().max(1)).sum(),
            dropped: self.dropped,
        }
    }

    /// This frame's batches as [`Shape::Instanced`], appended to `out`; the batcher is empty
    /// for the next frame (its pose caches kept).
    pub fn shapes(&mut self, out: &mut Vec<Shape>) {
        self.dropped = 0;
        for b in &mut self.batches {
            b.used.clear();
            for at in b.touched.drain(..) {
                if let Some(s) = b.slots.get_mut(at as usize) {
                    *s = u32::MAX;
                }
            }
            if b.instances.is_empty() {
                b.poses.clear();
                continue;
            }
            let (poses, instances) = (b.poses.len(), b.instances.len());
            out.push(Shape::Instanced(Arc::new(InstancedShape {
                parts: b.parts.clone(),
                nodes: u32::try_from(b.shape.nodes.len()).unwrap_or(0),
                // The next frame's vectors sized as this one's (no growing copies).
                poses: std::mem::replace(&mut b.poses, Vec::with_capacity(poses)),
                instances: std::mem::replace(&mut b.instances, Vec::with_capacity(instances)),
            })));
        }
    }
}
