#![doc = include_str!("../README.md")]

pub mod terrain;
pub mod terrain_file;

pub use terrain::{BLOCK_SIZE, TerrainBlock, TerrainHit};

use std::rc::Rc;
use v12_resource::ResourceManager;
use v12_sim::container::{Container, ContainerId, StaticGeometry, type_masks};

impl StaticGeometry for TerrainBlock {
    fn cast_ray(&self, start: glam::Vec3, end: glam::Vec3) -> Option<(f32, glam::Vec3)> {
        TerrainBlock::cast_ray(self, start, end).map(|h| (h.t, h.normal))
    }
}

/// Registers the world's loaders: [`TerrainBlock`] from `.ter` files.
pub fn register_loaders(res: &mut ResourceManager) {
    res.register_loader::<TerrainBlock>("ter", |bytes, _| terrain_file::read(bytes));
}

/// Puts a terrain block into a container under `id`, so ray casts with
/// `$TypeMasks::TerrainObjectType` hit it.
pub fn add_terrain_to_container(container: &mut Container, id: ContainerId, terrain: Rc<TerrainBlock>) {
    container.insert_static(id, type_masks::TERRAIN, terrain);
}
