#![doc = include_str!("../README.md")]

pub mod interior;
pub mod lightmap;
pub mod map_file;
pub mod materials;
pub mod mission;
pub mod scene;
pub mod terrain;
pub mod terrain_file;
pub mod water;

pub use interior::{Interior, InteriorHit};
pub use materials::WorldMaterial;
pub use mission::{FogVolume, MissionHandle, MissionWorld, SkyParams, register_mission_classes};
pub use scene::{SceneGraph, ZoneRef};
pub use terrain::{BLOCK_SIZE, TerrainBlock, TerrainHit};
pub use water::{WaterBlock, WaterCoverage};

use std::rc::Rc;
use std::sync::Arc;
use v12_resource::ResourceManager;
use v12_sim::container::{Container, ContainerId, StaticGeometry, type_masks};

impl StaticGeometry for TerrainBlock {
    fn cast_ray(&self, start: glam::Vec3, end: glam::Vec3) -> Option<(f32, glam::Vec3)> {
        TerrainBlock::cast_ray(self, start, end).map(|h| (h.t, h.normal))
    }
    fn sweep_box(
        &self,
        center: glam::Vec3,
        half: glam::Vec3,
        delta: glam::Vec3,
    ) -> Option<(f32, glam::Vec3)> {
        TerrainBlock::sweep_box(self, center, half, delta)
    }
}

/// Registers the world's loaders: [`TerrainBlock`] from `.ter` files, [`Interior`] from
/// `.map` brush files.
pub fn register_loaders(res: &mut ResourceManager) {
    res.register_loader::<TerrainBlock>("ter", |bytes, _| terrain_file::read(bytes));
    res.register_loader::<Interior>("map", |bytes, _| {
        Interior::from_map_text(&String::from_utf8_lossy(bytes))
    });
}

/// An interior placed in the world (V12's InteriorInstance): one shared [`Interior`]
/// under a position and a rotation. `Send` and `Sync` (the interior behind an `Arc`): the
/// scene graph's portal test reads it from a server's packet threads.
#[derive(Debug, Clone)]
pub struct InteriorInstance {
    pub interior: Arc<Interior>,
    to_world: glam::Affine3A,
    to_local: glam::Affine3A,
    /// The world-space box around it, computed once (zoning asks for it per object per tick).
    bounds: v12_sim::container::Aabb,
}

impl InteriorInstance {
    /// `interior` at `position`, turned by `rotation`.
    pub fn new(interior: Arc<Interior>, position: glam::Vec3, rotation: glam::Quat) -> Self {
        let to_world = glam::Affine3A::from_rotation_translation(rotation.normalize(), position);
        let bounds = world_box(&interior, &to_world);
        InteriorInstance { interior, to_world, to_local: to_world.inverse(), bounds }
    }

    /// World space to the interior's own.
    pub fn to_local(&self, p: glam::Vec3) -> glam::Vec3 {
        self.to_local.transform_point3(p)
    }

    /// The placement (interior space to world space).
    pub fn transform(&self) -> glam::Affine3A {
        self.to_world
    }

    /// The interior's space to the world's.
    pub fn to_world_point(&self, p: glam::Vec3) -> glam::Vec3 {
        self.to_world.transform_point3(p)
    }

    /// The nearest solid brush the world-space segment enters; the normal in world space.
    pub fn cast_ray(&self, start: glam::Vec3, end: glam::Vec3) -> Option<InteriorHit> {
        let mut hit = self.interior.cast_ray(self.to_local(start), self.to_local(end))?;
        hit.normal = self.to_world.transform_vector3(hit.normal);
        Some(hit)
    }

    /// How far (0..=1) an axis-aligned world box moves by `delta` before it meets a solid
    /// brush. The box is turned into the interior's frame and boxed again there (exact for
    /// turns about z by multiples of 90°, a little larger otherwise); the normal is the world's.
    pub fn sweep_box(&self, center: glam::Vec3, half: glam::Vec3, delta: glam::Vec3) -> Option<InteriorHit> {
        let m = glam::Mat3::from(self.to_local.matrix3).abs();
        let local_half = m * half;
        let c = self.to_local(center);
        let d = self.to_local.transform_vector3(delta);
        let mut hit = self.interior.sweep_box(c, local_half, d)?;
        hit.normal = self.to_world.transform_vector3(hit.normal);
        Some(hit)
    }

    /// The zone at a world-space point (0 outside, `None` inside a brush).
    pub fn find_zone(&self, p: glam::Vec3) -> Option<u16> {
        self.interior.find_zone(self.to_local(p).as_dvec3())
    }

    /// The world-space box around the interior.
    pub fn world_bounds(&self) -> v12_sim::container::Aabb {
        self.bounds
    }
}

/// The world-space box around `interior` placed by `to_world`.
fn world_box(interior: &Interior, to_world: &glam::Affine3A) -> v12_sim::container::Aabb {
    let (lo, hi) = interior.bounds();
    let corners = (0..8).map(|i| {
        let pick = |bit: usize, a: f64, b: f64| if i & bit == 0 { a } else { b } as f32;
        to_world.transform_point3(glam::Vec3::new(
            pick(1, lo.x, hi.x),
            pick(2, lo.y, hi.y),
            pick(4, lo.z, hi.z),
        ))
    });
    let (mut a, mut b) = (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN));
    for c in corners {
        a = a.min(c);
        b = b.max(c);
    }
    v12_sim::container::Aabb::new(a, b)
}

impl StaticGeometry for InteriorInstance {
    fn cast_ray(&self, start: glam::Vec3, end: glam::Vec3) -> Option<(f32, glam::Vec3)> {
        InteriorInstance::cast_ray(self, start, end).map(|h| (h.t, h.normal))
    }
    fn sweep_box(
        &self,
        center: glam::Vec3,
        half: glam::Vec3,
        delta: glam::Vec3,
    ) -> Option<(f32, glam::Vec3)> {
        InteriorInstance::sweep_box(self, center, half, delta).map(|h| (h.t, h.normal))
    }
}

/// Puts an interior instance into a container under `id`, so ray casts with
/// `$TypeMasks::InteriorObjectType` hit it.
pub fn add_interior_to_container(container: &mut Container, id: ContainerId, instance: Rc<InteriorInstance>) {
    container.insert_static(id, type_masks::INTERIOR, instance);
}

/// Puts a terrain block into a container under `id`, so ray casts with
/// `$TypeMasks::TerrainObjectType` hit it.
pub fn add_terrain_to_container(container: &mut Container, id: ContainerId, terrain: Rc<TerrainBlock>) {
    container.insert_static(id, type_masks::TERRAIN, terrain);
}
