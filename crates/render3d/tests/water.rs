//! Water and fog layers (goldens, llvmpipe): a WaterBlock seed-filled from the middle of a
//! crater fills the crater and not the low ground outside its rim; a Sky's vertical fog
//! layer fills a valley and leaves the hilltops and the sky above clear.

mod common;

use glam::{Vec2, Vec3};
use v12_render_gl::{Camera, ColorI, FogLayer, RectI, Scene, Sky};
use v12_render3d::{TerrainDrawConfig, WaterSurface, build_terrain_mesh};
use v12_world::{BLOCK_SIZE, TerrainBlock, WaterBlock};

/// A crater on a plain at 18 m: its rim a ring 14 m high around (64, 64), its bowl down to
/// 6 m, and a trench at 8 m beyond the rim along x > 100.
fn crater_terrain() -> TerrainBlock {
    let mut t = TerrainBlock::flat(2.0, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let (x, y) = (i as f32 * 2.0, j as f32 * 2.0);
            let r = Vec2::new(x - 64.0, y - 64.0).length();
            let rim = 14.0 * (-((r - 22.0) / 6.0).powi(2)).exp();
            let bowl = if r < 22.0 { -6.0 * (1.0 - (r / 22.0).powi(2)) } else { 6.0 };
            let trench = if x > 100.0 && x < 112.0 && r > 30.0 { -10.0 } else { 0.0 };
            t.set_height(i, j, 12.0 + bowl + rim + trench);
        }
    }
    t
}

fn crater_water(t: &TerrainBlock) -> WaterSurface {
    let block = WaterBlock {
        position: Vec3::new(16.0, 16.0, 2.0),
        scale: Vec3::new(112.0, 112.0, 12.0),
        seed_points: vec![Vec2::splat(0.43)],
        color: Vec3::new(0.1, 0.35, 0.6),
        surface_opacity: 0.8,
        ..WaterBlock::default()
    };
    WaterSurface::new(block, |x, y| t.height(x, y))
}

#[test]
fn water_fills_a_crater_and_not_outside_it_golden() {
    let t = crater_terrain();
    let eye = Vec3::new(70.0, 4.0, 84.0);
    let (mesh, _) =
        build_terrain_mesh(&t, eye, &TerrainDrawConfig { visible_distance: 200.0, ..Default::default() });
    let mut shapes = mesh.into_shapes(&[]);
    let mut water = crater_water(&t);
    assert!(!water.coverage.is_wet_at(106.0, 64.0), "the trench outside the rim is dry");
    assert!(t.height(106.0, 64.0) < water.coverage.surface_z, "though it is below the surface");
    let stats = water.shapes(eye, 0.0, 200.0, &mut shapes);
    assert!(stats.tiles > 0);
    let scene = Scene { shapes, clear_color: Some(ColorI::rgb(150, 180, 210)), ..Scene::default() };
    let camera = Camera::look_at(eye, Vec3::new(74.0, 62.0, 12.0), 1.2, 0.5, 300.0);
    let img = common::render(&scene, &camera, 160, 120);
    common::golden("water_in_crater", &img);
    let vp = RectI::new(0, 0, 160, 120);
    let px = |p: Vec3| {
        let at = camera.point_to_screen(p, vp).unwrap();
        img.get(at.x as u32, at.y as u32).unwrap()
    };
    let inside = px(Vec3::new(64.0, 64.0, 14.0));
    assert!(i32::from(inside[2]) > i32::from(inside[0]) + 40, "blue water in the crater: {inside:?}");
    let trench = px(Vec3::new(106.0, 40.0, t.height(106.0, 40.0)));
    assert!(i32::from(trench[2]) < i32::from(trench[0]) + 40, "the trench shows its ground: {trench:?}");
}

#[test]
fn a_fog_layer_fills_a_valley_golden() {
    // Two ridges along y with a valley between them, the valley floor at 0 m.
    let mut t = TerrainBlock::flat(4.0, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let x = i as f32 * 4.0 - 64.0;
            t.set_height(i, j, 30.0 * (1.0 - (-(x * x) / 900.0).exp()));
        }
    }
    let eye = Vec3::new(64.0, 0.0, 22.0);
    let (mesh, _) =
        build_terrain_mesh(&t, eye, &TerrainDrawConfig { visible_distance: 400.0, ..Default::default() });
    let mut shapes = mesh.into_shapes(&[]);
    // A red box down in the valley: whitened by the fog. One on the ridge: clear.
    let valley = Vec3::new(64.0, 80.0, 2.0);
    let ridge = Vec3::new(112.0, 80.0, t.height(112.0, 80.0) + 2.0);
    for (c, color) in [(valley, ColorI::rgb(250, 40, 40)), (ridge, ColorI::rgb(250, 40, 40))] {
        shapes.push(v12_render_gl::Shape::Box {
            center: c,
            half_extents: Vec3::splat(3.0),
            rotation_z: 0.0,
            color,
        });
    }
    let sky = Sky {
        zenith: ColorI::rgb(40, 90, 170),
        fog_color: ColorI::rgb(170, 190, 215),
        fog_distance: 300.0,
        visible_distance: 400.0,
        clouds: None,
        fog_layers: vec![FogLayer {
            bottom: -5.0,
            top: 12.0,
            visible_distance: 60.0,
            color: ColorI::rgb(235, 235, 235),
        }],
    };
    let scene = Scene { shapes, sky: Some(sky.clone()), ..Scene::default() };
    let camera = Camera::look_at(eye, Vec3::new(72.0, 80.0, 4.0), 1.2, 0.5, 400.0);
    let img = common::render(&scene, &camera, 160, 120);
    common::golden("fog_layer_valley", &img);
    let vp = RectI::new(0, 0, 160, 120);
    let px = |p: Vec3| {
        let at = camera.point_to_screen(p, vp).unwrap();
        img.get(at.x as u32, at.y as u32).unwrap()
    };
    let (v, r) = (px(valley), px(ridge));
    assert!(v[1] > 150 && v[2] > 150, "the box in the valley is fogged white: {v:?}");
    assert!(i32::from(r[0]) > i32::from(r[1]) + 60, "the box on the ridge is clear red: {r:?}");
    // The CPU's fog (coloured triangles) agrees with the layer's geometry.
    let (_, k) = sky.fog_at(eye, valley);
    assert!(k > 0.5);
    let (_, above) = sky.fog_at(eye, eye + Vec3::new(0.0, 100.0, 60.0));
    assert!(above < 0.15, "looking up, little of the layer is crossed: {above}");
}
