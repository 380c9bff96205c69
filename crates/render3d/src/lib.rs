#![doc = include_str!("../README.md")]

pub mod terrain;

pub use terrain::{TerrainDrawConfig, TerrainDrawStats, build_terrain_mesh, level_for_distance};
