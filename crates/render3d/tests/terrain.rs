//! Terrain level of detail: levels by distance, what the LOD saves against full detail,
//! vertices on the surface, no patch beyond the visible distance, and a golden frame of the
//! hills from a fixed camera (headless llvmpipe; `V12_BLESS=1` rewrites the golden).

mod common;

use std::path::PathBuf;

use glam::Vec3;
use v12_render_gl::{
    Camera, ColorI, HeadlessContext, OffscreenTarget, RectI, Renderer, Scene, TextureFilter,
};
use v12_render3d::terrain::{LEVELS, PATCH_SQUARES, point_weights};
use v12_render3d::{TerrainDrawConfig, TerrainPatches, build_terrain_mesh, level_for_distance};
use v12_world::{BLOCK_SIZE, TerrainBlock, WorldMaterial};

/// Rolling hills, 0 to ~80 m, on 8 m squares: grass in the valleys, dirt on the slopes
/// between, rock on the tops.
fn hills() -> TerrainBlock {
    let mut t = TerrainBlock::flat(8.0, 0.0);
    t.material_names = vec!["Grass".into(), "Dirt".into(), "Rock".into()];
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
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let h = t.point_height(i, j);
            assert!(t.set_material(
                i,
                j,
                if h > 58.0 {
                    2
                } else if h > 42.0 {
                    1
                } else {
                    0
                }
            ));
        }
    }
    t
}

#[test]
fn a_grid_point_weighs_the_materials_of_its_four_squares() {
    let t = hills();
    for (i, j) in [(0, 0), (17, 40), (100, 3), (255, 255)] {
        let w = point_weights(&t, i, j);
        assert_eq!(w.iter().map(|&x| u32::from(x)).sum::<u32>(), 255, "{w:?}");
        let mut count = [0u32; 3];
        for (di, dj) in [(-1, -1), (0, -1), (-1, 0), (0, 0)] {
            count[usize::from(t.material(i + di, j + dj))] += 1;
        }
        for m in 0..3 {
            assert!((i32::from(w[m]) - (count[m] * 255 / 4) as i32).abs() <= 3, "{w:?} vs {count:?}");
        }
    }
    // Where all four squares agree, one material has it all.
    let mut flat = TerrainBlock::flat(8.0, 0.0);
    flat.material_names = vec!["A".into(), "B".into()];
    flat.set_material(5, 5, 1);
    assert_eq!(point_weights(&flat, 2, 2)[0], 255);
    assert_eq!(&point_weights(&flat, 5, 5)[..2], &[192, 63]);
}

#[test]
fn levels_double_with_distance_and_stop_at_the_coarsest() {
    assert_eq!(level_for_distance(0.0, 48.0), 0);
    assert_eq!(level_for_distance(47.9, 48.0), 0);
    assert_eq!(level_for_distance(48.0, 48.0), 1);
    assert_eq!(level_for_distance(95.9, 48.0), 1);
    assert_eq!(level_for_distance(96.0, 48.0), 2);
    assert_eq!(level_for_distance(192.0, 48.0), 3);
    assert_eq!(level_for_distance(1e9, 48.0), LEVELS - 1);
    assert_eq!(level_for_distance(500.0, 0.0), 0, "no LOD distance: full detail");
}

#[test]
fn the_lod_draws_far_fewer_triangles_and_nothing_beyond_the_view() {
    let t = hills();
    let camera = Vec3::new(300.0, 200.0, 90.0);
    let cfg = TerrainDrawConfig::default();
    let (mesh, lod) = build_terrain_mesh(&t, camera, &cfg);
    let (_, full) = build_terrain_mesh(&t, camera, &TerrainDrawConfig { no_lod: true, ..cfg });
    assert_eq!(mesh.vertices().count() as u32, lod.triangles * 3);
    assert_eq!(lod.patches, full.patches, "the same patches, at other levels");
    assert_eq!(lod.per_level.iter().sum::<u32>(), lod.patches);
    assert!(lod.per_level.iter().all(|&n| n > 0), "every level is used: {:?}", lod.per_level);
    assert!(full.triangles > 8 * lod.triangles, "LOD {} vs full {}", lod.triangles, full.triangles);
    // Patches are squares of 128 m; none wholly beyond the 600 m view.
    let patch = 8.0 * PATCH_SQUARES as f32;
    for v in mesh.vertices() {
        let d = Vec3::from(v.pos).truncate().distance(camera.truncate());
        assert!(d <= cfg.visible_distance + patch * std::f32::consts::SQRT_2, "{d}");
    }
}

#[test]
fn full_detail_vertices_lie_on_the_terrain_and_skirts_hang_below() {
    let t = hills();
    let cfg = TerrainDrawConfig { no_lod: true, visible_distance: 100.0, ..TerrainDrawConfig::default() };
    let (mesh, _) = build_terrain_mesh(&t, Vec3::new(64.0, 64.0, 50.0), &cfg);
    let (mut on, mut below) = (0, 0);
    for v in mesh.vertices() {
        let p = Vec3::from(v.pos);
        let h = t.height(p.x, p.y);
        if (p.z - h).abs() < 1e-3 {
            on += 1;
        } else {
            assert!((p.z - (h - 4.0)).abs() < 1e-3, "a vertex neither on the ground nor on a skirt: {p}");
            below += 1;
        }
    }
    assert!(on > 3 * below && below > 0, "{on} on the surface, {below} on skirts");
}

#[test]
fn the_hills_from_a_fixed_camera_match_the_golden() {
    hills_golden(false);
}

/// The same frame drawn from patches that live on the GPU matches the same golden; a second
/// frame builds no patch and uploads no byte of them, and the same patches are drawn.
#[test]
fn the_hills_from_resident_patches_match_the_same_golden_and_upload_once() {
    hills_golden(true);
}

fn hills_golden(resident: bool) {
    let t = hills();
    let ctx = HeadlessContext::new().expect("a headless EGL context is required for rendering tests");
    let gl = ctx.gl();
    let target = OffscreenTarget::new(&gl, 320, 200).unwrap();
    let mut renderer = Renderer::new(gl).unwrap();
    let textures: Vec<_> =
        [("t/Grass", [70, 120, 50, 255]), ("t/Dirt", [130, 100, 70, 255]), ("t/Rock", [140, 140, 150, 255])]
            .into_iter()
            .map(|(name, rgb)| {
                renderer.insert_texture(name, common::speckled(rgb), TextureFilter::Mipmapped).unwrap()
            })
            .collect();
    let camera_pos = Vec3::new(300.0, 100.0, 110.0);
    let (mesh, stats) = build_terrain_mesh(&t, camera_pos, &TerrainDrawConfig::default());
    assert!(stats.patches > 0);
    let names: Vec<WorldMaterial> = textures
        .iter()
        .map(|h| WorldMaterial {
            name: h.name().into(),
            texture: h.name().into(),
            found: true,
            translucent: false,
        })
        .collect();
    // Patches of one material sample one texture; where materials meet, those that meet.
    assert!(
        mesh.batches.iter().any(|b| b.materials.len() == 1)
            && mesh.batches.iter().any(|b| b.materials.len() > 1)
    );
    for b in &mesh.batches {
        assert!(b.triangles.iter().all(|v| v.weights[b.materials.len()..].iter().all(|&w| w == 0)));
    }
    let mut patches = TerrainPatches::new();
    let mut shapes = Vec::new();
    if resident {
        let cached = patches.shapes(&t, camera_pos, &TerrainDrawConfig::default(), &names, &mut shapes);
        assert_eq!(cached, stats, "the same patches at the same levels");
    } else {
        shapes = mesh.into_shapes(&names);
    }
    let scene = Scene { shapes, clear_color: Some(ColorI::rgb(120, 160, 210)), ..Scene::default() };
    let camera = Camera::look_at(camera_pos, Vec3::new(420.0, 400.0, 40.0), 1.4, 0.5, 2000.0);
    target.bind(renderer.gl());
    renderer.begin_frame(320, 200);
    renderer.draw_scene(RectI::new(0, 0, 320, 200), &camera, &scene);
    let drawn = renderer.end_frame();
    if resident {
        assert_eq!(drawn.resident_draws, stats.patches);
        assert!(drawn.resident_bytes_uploaded > 0);
        let built = patches.patches_built;
        let mut again = Vec::new();
        patches.shapes(&t, camera_pos, &TerrainDrawConfig::default(), &names, &mut again);
        assert_eq!(patches.patches_built, built, "a steady frame builds no patch");
        let scene = Scene { shapes: again, ..scene.clone() };
        renderer.begin_frame(320, 200);
        renderer.draw_scene(RectI::new(0, 0, 320, 200), &camera, &scene);
        let steady = renderer.end_frame();
        assert_eq!(
            (steady.resident_bytes_uploaded, steady.bytes_uploaded),
            (0, 0),
            "a steady frame uploads nothing"
        );
        assert_eq!(steady.triangles, drawn.triangles);
    }
    assert_eq!(drawn.missing_textures, 0);
    let img = target.read_pixels(renderer.gl()).unwrap();
    // Sky at the top, lit ground below.
    let sky = img.get(160, 5).unwrap();
    assert_eq!(&sky[..3], &[120, 160, 210]);
    let ground = img.get(160, 190).unwrap();
    assert!(ground != sky && ground[1] > ground[2], "green-ish ground: {ground:?}");
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/terrain_hills.png");
    let artefacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("render3d-golden");
    v12_render_gl::check_golden(&golden, &img, &artefacts).unwrap();
}
