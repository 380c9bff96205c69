//! Geometry that lives on the GPU: meshes uploaded once into GL buffers and drawn from there
//! frame after frame, uploaded again only when their version changes.
//!
//! A scene names such a mesh by a [`MeshKey`] (chosen by the layer that builds it: a terrain
//! patch at a level, an interior zone's material, a shape's mesh) and a version (bumped when
//! its contents change), and carries the vertices as an `Arc` so the builder keeps one copy
//! and the scene stays plain data. The renderer keeps a GL buffer a key; a steady frame
//! uploads no vertex of a resident mesh ([`crate::FrameStats::resident_bytes_uploaded`]).
//!
//! Two kinds (defined with the other shapes in `scene`):
//! - [`crate::ResidentMesh`]: world-space textured triangles, lit on the CPU when built (terrain
//!   patches, interior faces); opaque ones are drawn with the opaque world, translucent ones
//!   (an interior's glass) take their place in the back-to-front order as whole meshes.
//! - [`crate::PosedMesh`]: a shape's mesh in its node's space (positions and normals) posed on the
//!   GPU by a model matrix (the placement times the node's animated transform) and lit there
//!   by the scene's light; per frame only the matrix and the colour go to GL.

use std::sync::atomic::{AtomicU64, Ordering};

/// A resident mesh's name. Keys made by [`MeshKey::unique`] never repeat in a process; keys
/// made by [`MeshKey::derive`] are a hash of their parts (a 64-bit FNV-1a), so different
/// parts under different unique bases do not meet in practice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MeshKey(pub u64);

static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

impl MeshKey {
    /// A key no other call returns (a base for a builder's own keys).
    pub fn unique() -> MeshKey {
        MeshKey(NEXT_KEY.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// The key of a part of `self`'s owner (a patch, a zone, a mesh index).
    pub fn derive(self, parts: &[u64]) -> MeshKey {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ self.0;
        for p in parts {
            for b in p.to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        MeshKey(h)
    }
}

/// A vertex of a posed mesh: position and normal in its node's space.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub struct PosedVertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_derived_keys_differ_by_part() {
        let (a, b) = (MeshKey::unique(), MeshKey::unique());
        assert_ne!(a, b);
        assert_eq!(a.derive(&[1, 2]), a.derive(&[1, 2]));
        assert_ne!(a.derive(&[1, 2]), a.derive(&[2, 1]));
        assert_ne!(a.derive(&[1, 2]), b.derive(&[1, 2]));
    }

    #[test]
    fn a_posed_vertex_is_24_bytes() {
        assert_eq!(std::mem::size_of::<PosedVertex>(), 24);
    }
}
