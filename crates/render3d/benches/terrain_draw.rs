//! Drawing the terrain on llvmpipe at 1280×720 (issue 15): the level-of-detail path against
//! the same terrain at full detail (`no_lod`, the baseline), in the same run. Each iteration
//! builds the mesh around the camera, draws it (its three materials blended on the GPU, the
//! example game's bitmaps) and waits for the frame.

mod common;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use v12_render_gl::{Camera, ColorI, HeadlessContext, OffscreenTarget, RectI, Renderer, Scene};
use v12_render3d::{TerrainDrawConfig, build_terrain_mesh};
use v12_world::{BLOCK_SIZE, TerrainBlock};

fn hills() -> TerrainBlock {
    let mut t = TerrainBlock::flat(8.0, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let (x, y) = (i as f32, j as f32);
            t.set_height(
                i,
                j,
                40.0 + 25.0 * (x * 0.09).sin() * (y * 0.07).cos() + 12.0 * ((x + y) * 0.21).sin(),
            );
        }
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut t = hills();
    let res = common::example_resources();
    let materials = common::paint(&mut t, &res, 42.0, 58.0);
    let ctx = HeadlessContext::new().expect("headless EGL context");
    let gl = ctx.gl();
    let (w, h) = (1280, 720);
    let target = OffscreenTarget::new(&gl, w, h).unwrap();
    let mut renderer = Renderer::new(gl).unwrap();
    renderer.set_resources(res);
    let eye = Vec3::new(300.0, 100.0, 110.0);
    let camera = Camera::look_at(eye, Vec3::new(420.0, 400.0, 40.0), 1.4, 0.5, 2000.0);
    let mut g = c.benchmark_group("terrain_frame_1280x720");
    g.sample_size(10);
    for (name, no_lod) in [("lod", false), ("baseline_full_detail", true)] {
        let cfg = TerrainDrawConfig { no_lod, ..TerrainDrawConfig::default() };
        let (_, stats) = build_terrain_mesh(&t, eye, &cfg);
        println!("{name}: {} patches, {} triangles", stats.patches, stats.triangles);
        g.bench_function(name, |b| {
            b.iter(|| {
                let (mesh, _) = build_terrain_mesh(&t, eye, &cfg);
                let scene = Scene {
                    shapes: mesh.into_shapes(&materials),
                    clear_color: Some(ColorI::rgb(120, 160, 210)),
                    ..Scene::default()
                };
                target.bind(renderer.gl());
                renderer.begin_frame(w, h);
                renderer.draw_scene(RectI::new(0, 0, w as i32, h as i32), &camera, &scene);
                black_box(renderer.end_frame());
                renderer.finish();
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
