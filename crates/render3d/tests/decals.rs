//! A decal on terrain (golden): two scorch marks draped over a hillside, the near one fresh,
//! the far one fading at the end of its life, on llvmpipe.

mod common;

use glam::{Vec2, Vec3};
use std::sync::Arc;
use v12_render_gl::{Camera, ColorI, RectI, Scene};
use v12_render3d::{DecalDesc, DecalManager, TerrainDrawConfig, build_terrain_mesh};
use v12_world::{BLOCK_SIZE, TerrainBlock};

#[test]
fn a_decal_on_terrain_golden() {
    let mut t = TerrainBlock::flat(4.0, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            t.set_height(i, j, 3.0 * (i as f32 * 0.35).sin() + 2.0 * (j as f32 * 0.25).cos());
        }
    }
    let eye = Vec3::new(40.0, 20.0, 14.0);
    let (mesh, _) =
        build_terrain_mesh(&t, eye, &TerrainDrawConfig { visible_distance: 120.0, ..Default::default() });
    let mut shapes = mesh.into_shapes(&[]);
    let scorch = Arc::new(DecalDesc { size: Vec2::splat(6.0), texture: None, life_ms: 4000 });
    let mut decals = DecalManager::new(16);
    decals.add(scorch.clone(), Vec3::new(40.0, 40.0, 0.0), 0.3, 3000);
    decals.add(scorch, Vec3::new(52.0, 56.0, 0.0), 0.0, 0);
    decals.shapes(&t, 3500, &mut shapes);
    let scene = Scene { shapes, clear_color: Some(ColorI::rgb(120, 160, 210)), ..Scene::default() };
    let camera = Camera::look_at(eye, Vec3::new(44.0, 44.0, 0.0), 1.2, 0.5, 300.0);
    let img = common::render(&scene, &camera, 160, 120);
    common::golden("decal_on_terrain", &img);
    let vp = RectI::new(0, 0, 160, 120);
    let at = camera.point_to_screen(Vec3::new(40.0, 40.0, t.height(40.0, 40.0)), vp).unwrap();
    let p = img.get(at.x as u32, at.y as u32).unwrap();
    assert!(p[0] < 150, "a dark scorch on the light ground: {p:?}");
}
