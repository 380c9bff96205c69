//! Terrain level of detail: the triangles drawn around a camera for several view and
//! level-of-detail distances, against every patch in view at full detail.
//!
//! `cargo run -p v12-render3d --example terrain_lod`

use glam::Vec3;
use v12_render3d::{TerrainDrawConfig, build_terrain_mesh};
use v12_world::TerrainBlock;

fn main() {
    let mut terrain = TerrainBlock::flat(8.0, 0.0);
    for i in 0..256 {
        terrain.set_height(i, 128, 30.0); // a ridge across the block
    }
    let camera = Vec3::new(1024.0, 1024.0, 40.0);
    for visible_distance in [300.0_f32, 600.0] {
        for lod_distance in [24.0_f32, 48.0, 96.0] {
            let lod = TerrainDrawConfig { visible_distance, lod_distance, ..TerrainDrawConfig::default() };
            let full = TerrainDrawConfig { no_lod: true, ..lod };
            let (_, with) = build_terrain_mesh(&terrain, camera, &lod);
            let (_, without) = build_terrain_mesh(&terrain, camera, &full);
            println!(
                "view {visible_distance:>3} m, a level every {lod_distance:>2} m x 2^l: {} patches, {:>6} triangles \
                 (patches per level {:?}); full detail {:>6} ({:.1}x)",
                with.patches,
                with.triangles,
                with.per_level,
                without.triangles,
                f64::from(without.triangles) / f64::from(with.triangles.max(1)),
            );
        }
    }
}
