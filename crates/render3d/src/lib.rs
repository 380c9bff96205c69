#![doc = include_str!("../README.md")]

pub mod cull;
pub mod decals;
pub mod instanced;
pub mod interior;
pub mod particles;
pub mod shape;
pub mod terrain;
pub mod water;

pub use decals::{DecalDesc, DecalManager};
pub use instanced::{BatchStats, ShapeBatches};
pub use interior::{InteriorDrawStats, InteriorMesh, InteriorMeshes, build_interior_mesh};
pub use particles::{EmitterDesc, EmitterId, ParticleDesc, ParticleSystem, billboard};
pub use shape::{ShapeError, ThreadId, TsShape, TsShapeInstance, TsThread};
pub use terrain::{
    TerrainBatch, TerrainDrawConfig, TerrainDrawStats, TerrainMesh, TerrainPatches, build_terrain_mesh,
    level_for_distance,
};
pub use water::{WaterDrawStats, WaterSurface};
