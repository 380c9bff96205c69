//! A frame of the world on llvmpipe at 1280×720 (issue 15): the terrain, an interior and 100
//! animated players, drawn the engine's way (terrain level of detail, players outside the
//! view frustum skipped, each player's detail level by its projected size) against the same
//! scene with no culling and no level of detail (every terrain patch at full detail, every
//! player at its finest level, every room of the interior), in the same run. Each iteration
//! animates the players, builds the meshes around the camera, draws and waits for the frame.
//! The terrain blends its three materials and the interior is textured (its window's glass
//! translucent), with the example game's bitmaps read through the resource manager.
//!
//! A third variant, `resident_gpu` (issue 35), culls and picks levels as the engine's path
//! but draws geometry that lives on the GPU: terrain patches and interior zones built once
//! and uploaded once (`TerrainPatches`, `InteriorMeshes`), the players' meshes resident and
//! posed by a matrix a mesh. Each variant prints the bytes it uploads to GL in a steady frame.
//! The group `world_frame_cpu_build` times the scene's building alone (the engine's CPU work
//! before the draw), and there also the resident path with 20 live particle emitters, and
//! with them a water block (still: its tiles resident) filling the hills' hollows.
//!
//! The group `crowd_cpu_build` (issue 35) times the resident path's building with 100 and
//! with 1,000 animated players in view (a grid in front of the camera, 4 m apart), for the
//! ratio of the two: `players_N` poses each player on the CPU and draws each of its meshes
//! (`posed_meshes`), `instanced_N` batches them (`ShapeBatches`: poses shared among players
//! in the same frame of the same sequence, one instanced draw a mesh). The group
//! `crowd_frame` draws the same crowds both ways (build, draw and wait).

mod common;

use std::hint::black_box;
use std::rc::Rc;
use std::sync::Arc;

use common::EXAMPLE;
use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec4;
use glam::{Affine3A, Quat, Vec3};
use v12_render_gl::{
    Camera, ColorI, HeadlessContext, OffscreenTarget, RectI, Renderer, Scene, Shape, Vertex3,
};
use v12_render3d::cull::ViewCull;
use v12_render3d::{
    EmitterDesc, InteriorMesh, InteriorMeshes, ParticleDesc, ParticleSystem, ShapeBatches, TerrainDrawConfig,
    TerrainPatches, TsShape, TsShapeInstance, build_interior_mesh, build_terrain_mesh,
};
use v12_world::{BLOCK_SIZE, Interior, InteriorInstance, SceneGraph, TerrainBlock, WorldMaterial, ZoneRef};

const BUILDING: u32 = 1;

fn hills() -> TerrainBlock {
    let mut t = TerrainBlock::flat(8.0, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let (x, y) = (i as f32, j as f32);
            t.set_height(i, j, 20.0 + 8.0 * (x * 0.09).sin() * (y * 0.07).cos());
        }
    }
    t
}

/// The world's materials: the terrain's, then the interior's.
struct Materials {
    terrain: std::rc::Rc<[WorldMaterial]>,
    interior: std::rc::Rc<[WorldMaterial]>,
}

/// A 10 × 10 grid of players 30 m apart around (1024, 1024), each running at its own phase.
fn players(shape: &Rc<TsShape>, t: &TerrainBlock) -> Vec<(TsShapeInstance, Affine3A)> {
    let run = shape.find_sequence("run").expect("a run sequence");
    (0..100)
        .map(|k| {
            let (x, y) = (1024.0 + 30.0 * (k % 10) as f32 - 135.0, 1024.0 + 30.0 * (k / 10) as f32 - 135.0);
            let mut i = TsShapeInstance::new(shape.clone());
            let th = i.add_thread();
            i.set_sequence(th, run, (k as f32 * 0.137).fract());
            let at = Vec3::new(x, y, t.height(x, y));
            (i, Affine3A::from_rotation_translation(Quat::from_rotation_z(k as f32), at))
        })
        .collect()
}

#[derive(Default)]
struct Drawn {
    players: usize,
}

/// How a variant draws.
#[derive(Clone, Copy, PartialEq)]
enum Path {
    /// Today's path: culled, levels of detail, every mesh built on the CPU and streamed.
    Engine,
    /// No culling, no level of detail (streamed).
    Baseline,
    /// As `Engine`, from geometry that lives on the GPU.
    Resident,
    /// As `Resident`, with 20 particle emitters alive (advanced 16 ms a frame, drawn as
    /// billboards).
    ResidentEmitters,
    /// As `ResidentEmitters`, with a water block over the hollows of the hills.
    ResidentEmittersWater,
    /// As `Resident`, the players instanced with shared poses (`ShapeBatches`).
    Instanced,
}

/// The resident variant's caches.
struct Resident {
    terrain: TerrainPatches,
    interiors: InteriorMeshes,
    particles: ParticleSystem,
    water: Option<v12_render3d::WaterSurface>,
    batches: ShapeBatches,
}

impl Default for Resident {
    /// The caches, and 20 smoke emitters among the players (each a particle every 20 ms
    /// living a second: about 50 alive each).
    fn default() -> Self {
        let smoke = Arc::new(ParticleDesc {
            lifetime_ms: 1000,
            drag: 0.5,
            gravity: -0.2,
            colors: [Vec4::new(0.6, 0.6, 0.6, 0.8), Vec4::new(0.4, 0.4, 0.4, 0.0), Vec4::ZERO, Vec4::ZERO],
            sizes: [1.0, 3.0, 0.0, 0.0],
            additive: false,
            ..ParticleDesc::default()
        });
        let emitter =
            Arc::new(EmitterDesc { period_ms: 20, particles: vec![smoke], ..EmitterDesc::default() });
        let mut particles = ParticleSystem::new(35);
        for k in 0..20 {
            let at = Vec3::new(900.0 + 12.0 * k as f32, 900.0 + 9.0 * k as f32, 30.0);
            particles.add_emitter(emitter.clone(), at, Vec3::Z, None);
        }
        particles.advance(1000);
        Resident {
            terrain: TerrainPatches::new(),
            interiors: InteriorMeshes::new(),
            particles,
            water: None,
            batches: ShapeBatches::default(),
        }
    }
}

/// One frame's meshes: `engine` culls and picks levels, otherwise everything at full detail.
#[allow(clippy::too_many_arguments)]
fn build(
    path: Path,
    resident: &mut Resident,
    t: &TerrainBlock,
    graph: &SceneGraph,
    materials: &Materials,
    crowd: &mut [(TsShapeInstance, Affine3A)],
    camera: &Camera,
    vp: RectI,
    drawn: &mut Drawn,
) -> Scene {
    let engine = path != Path::Baseline;
    let cfg = TerrainDrawConfig { no_lod: !engine, visible_distance: 900.0, ..TerrainDrawConfig::default() };
    let mut shapes = Vec::new();
    *drawn = Drawn::default();
    let resident_path = matches!(
        path,
        Path::Resident | Path::ResidentEmitters | Path::ResidentEmittersWater | Path::Instanced
    );
    if matches!(path, Path::ResidentEmitters | Path::ResidentEmittersWater) {
        resident.particles.advance(16);
        resident.particles.billboards(camera, &mut shapes);
    }
    if path == Path::ResidentEmittersWater {
        let water = resident.water.get_or_insert_with(|| {
            let block = v12_world::WaterBlock {
                position: Vec3::new(800.0, 800.0, 10.0),
                scale: Vec3::new(400.0, 400.0, 10.0),
                flood_fill: false,
                ..v12_world::WaterBlock::default()
            };
            v12_render3d::WaterSurface::new(block, |x, y| t.height(x, y))
        });
        water.shapes(camera.position(), 0.0, 900.0, &mut shapes);
    }
    if resident_path {
        resident.terrain.shapes(t, camera.position(), &cfg, &materials.terrain, &mut shapes);
    } else {
        let (terrain, _) = build_terrain_mesh(t, camera.position(), &cfg);
        shapes = terrain.into_shapes(&materials.terrain);
    }
    let view = ViewCull::new(camera, vp);
    let mut meshes: Vec<Vertex3> = Vec::new();
    for (inst, place) in crowd.iter_mut() {
        let shape = inst.shape();
        let center = place.transform_point3(shape.center);
        let detail = if engine {
            let Some(px) = view.diameter(center, shape.radius) else { continue };
            shape.select_detail(px)
        } else {
            shape.details.first().copied()
        };
        inst.advance_time(1.0 / 60.0);
        drawn.players += 1;
        if path == Path::Instanced {
            resident.batches.add(inst, *place, detail);
            continue;
        }
        inst.animate();
        if resident_path {
            inst.posed_meshes(*place, detail, &mut shapes);
            continue;
        }
        inst.build_mesh(*place, detail, Vec3::new(-0.4, 0.6, -1.0), 0.35, &mut meshes);
    }
    resident.batches.shapes(&mut shapes);
    // The interior's rooms seen through its portals, or every room.
    let (_, inst) = graph.interiors().next().expect("the building");
    let visible = if engine {
        graph.visible_zones(camera.position())
    } else {
        let rooms = (1..=inst.interior.zone_count).map(|zone| ZoneRef { owner: Some(BUILDING), zone });
        std::iter::once(ZoneRef::OUTSIDE).chain(rooms).collect()
    };
    let light = Vec3::new(-0.4, 0.6, -1.0);
    if resident_path {
        let m = &materials.interior;
        resident.interiors.shapes(graph, &visible, (light, 0.35), |_| m, |_, _| true, &mut shapes);
    } else {
        let mut interior = InteriorMesh::default();
        build_interior_mesh(graph, BUILDING, inst, &visible, light, 0.35, &mut interior);
        shapes.push(Shape::Mesh { triangles: Arc::new(meshes) });
        shapes.extend(interior.into_shapes(&materials.interior));
    }
    Scene { shapes, clear_color: Some(ColorI::rgb(120, 160, 210)), ..Scene::default() }
}

fn bench(c: &mut Criterion) {
    let mut t = hills();
    let res = common::example_resources();
    let terrain_materials = common::paint(&mut t, &res, 16.0, 25.0);
    let player =
        Rc::new(TsShape::from_glb(&std::fs::read(format!("{EXAMPLE}/shapes/player.glb")).unwrap()).unwrap());
    let map = std::fs::read_to_string(format!("{EXAMPLE}/interiors/two_rooms.map")).unwrap();
    let interior = std::sync::Arc::new(Interior::from_map_text(&map).unwrap());
    let materials = Materials {
        terrain: terrain_materials,
        interior: v12_world::materials::find_materials(&res, &interior.materials, "interiors/two_rooms.map"),
    };
    let building =
        InteriorInstance::new(interior, Vec3::new(1000.0, 1080.0, t.height(1000.0, 1080.0)), Quat::IDENTITY);
    let mut graph = SceneGraph::new();
    graph.add_interior(BUILDING, std::sync::Arc::new(building));
    let ctx = HeadlessContext::new().expect("headless EGL context");
    let gl = ctx.gl();
    let (w, h) = (1280, 720);
    let vp = RectI::new(0, 0, w as i32, h as i32);
    let target = OffscreenTarget::new(&gl, w, h).unwrap();
    let mut renderer = Renderer::new(gl).unwrap();
    renderer.set_resources(res.clone());
    // Behind the crowd's south-west corner, looking north-east across it.
    let eye = Vec3::new(880.0, 860.0, 45.0);
    let camera = Camera::look_at(eye, Vec3::new(1000.0, 1000.0, 22.0), 1.2, 0.5, 900.0);
    let mut g = c.benchmark_group("world_frame_1280x720");
    g.sample_size(10);
    let variants = [
        ("culled_lod", Path::Engine),
        ("resident_gpu", Path::Resident),
        ("baseline_no_cull_no_lod", Path::Baseline),
    ];
    for (name, path) in variants {
        let mut crowd = players(&player, &t);
        let mut drawn = Drawn::default();
        let mut resident = Resident::default();
        let mut stats = v12_render_gl::FrameStats::default();
        // Two frames: the first uploads what lives on the GPU, the second is steady.
        for _ in 0..2 {
            let scene =
                build(path, &mut resident, &t, &graph, &materials, &mut crowd, &camera, vp, &mut drawn);
            target.bind(renderer.gl());
            renderer.begin_frame(w, h);
            renderer.draw_scene(vp, &camera, &scene);
            stats = renderer.end_frame();
        }
        println!(
            "{name}: {} players drawn, {} triangles, {} draw calls, {} textures missing; steady frame: \
             {} bytes uploaded ({} of resident meshes), {} bytes of poses",
            drawn.players,
            stats.triangles,
            stats.draw_calls,
            stats.missing_textures,
            stats.bytes_uploaded,
            stats.resident_bytes_uploaded,
            stats.pose_bytes
        );
        g.bench_function(name, |b| {
            b.iter(|| {
                let scene =
                    build(path, &mut resident, &t, &graph, &materials, &mut crowd, &camera, vp, &mut drawn);
                target.bind(renderer.gl());
                renderer.begin_frame(w, h);
                renderer.draw_scene(vp, &camera, &scene);
                black_box(renderer.end_frame());
                renderer.finish();
            })
        });
    }
    g.finish();
    // The engine's CPU time up to the draw submission: building the frame's scene alone
    // (animating the players, choosing levels and zones, and building or picking meshes).
    let mut g = c.benchmark_group("world_frame_cpu_build");
    g.sample_size(20);
    let with_emitters = [
        ("resident_gpu_20_emitters", Path::ResidentEmitters),
        ("resident_gpu_20_emitters_water", Path::ResidentEmittersWater),
    ];
    for (name, path) in variants.into_iter().chain(with_emitters) {
        let mut crowd = players(&player, &t);
        let mut drawn = Drawn::default();
        let mut resident = Resident::default();
        build(path, &mut resident, &t, &graph, &materials, &mut crowd, &camera, vp, &mut drawn);
        g.bench_function(name, |b| {
            b.iter(|| {
                black_box(build(
                    path,
                    &mut resident,
                    &t,
                    &graph,
                    &materials,
                    &mut crowd,
                    &camera,
                    vp,
                    &mut drawn,
                ))
            })
        });
    }
    g.finish();
    crowd_bench(c, &player, &t, &graph, &materials, &camera, vp, (&mut renderer, &target));
}

/// `n` players on a grid 4 m apart in front of the camera (all in view), running.
fn crowd(shape: &Rc<TsShape>, t: &TerrainBlock, n: usize) -> Vec<(TsShapeInstance, Affine3A)> {
    let run = shape.find_sequence("run").expect("a run sequence");
    let side = (n as f32).sqrt().ceil() as usize;
    (0..n)
        .map(|k| {
            let (x, y) = (930.0 + 4.0 * (k % side) as f32, 930.0 + 4.0 * (k / side) as f32);
            let mut i = TsShapeInstance::new(shape.clone());
            let th = i.add_thread();
            i.set_sequence(th, run, (k as f32 * 0.137).fract());
            let at = Vec3::new(x, y, t.height(x, y));
            (i, Affine3A::from_rotation_translation(Quat::from_rotation_z(k as f32), at))
        })
        .collect()
}

/// The resident path's CPU build with 100 and 1,000 players in view, and their frames.
#[allow(clippy::too_many_arguments)]
fn crowd_bench(
    c: &mut Criterion,
    player: &Rc<TsShape>,
    t: &TerrainBlock,
    graph: &SceneGraph,
    materials: &Materials,
    camera: &Camera,
    vp: RectI,
    (renderer, target): (&mut Renderer, &OffscreenTarget),
) {
    let mut g = c.benchmark_group("crowd_cpu_build");
    g.sample_size(20);
    for (name, path) in [("players", Path::Resident), ("instanced", Path::Instanced)] {
        for n in [100, 1000] {
            let mut crowd = crowd(player, t, n);
            let mut drawn = Drawn::default();
            let mut resident = Resident::default();
            build(path, &mut resident, t, graph, materials, &mut crowd, camera, vp, &mut drawn);
            println!("crowd_cpu_build {name}_{n}: {} players drawn", drawn.players);
            g.bench_function(format!("{name}_{n}"), |b| {
                b.iter(|| {
                    black_box(build(
                        path,
                        &mut resident,
                        t,
                        graph,
                        materials,
                        &mut crowd,
                        camera,
                        vp,
                        &mut drawn,
                    ))
                })
            });
        }
    }
    g.finish();
    // The same crowds built, drawn and waited for, with the draw's statistics.
    let (w, h) = (vp.w as u32, vp.h as u32);
    let mut g = c.benchmark_group("crowd_frame");
    g.sample_size(10);
    for (name, path) in [("players", Path::Resident), ("instanced", Path::Instanced)] {
        for n in [100, 1000] {
            let mut crowd = crowd(player, t, n);
            let mut drawn = Drawn::default();
            let mut resident = Resident::default();
            let mut stats = v12_render_gl::FrameStats::default();
            for _ in 0..2 {
                let scene =
                    build(path, &mut resident, t, graph, materials, &mut crowd, camera, vp, &mut drawn);
                target.bind(renderer.gl());
                renderer.begin_frame(w, h);
                renderer.draw_scene(vp, camera, &scene);
                stats = renderer.end_frame();
            }
            println!(
                "crowd_frame {name}_{n}: {} triangles, {} draw calls, {} bytes of poses, {} resident bytes uploaded",
                stats.triangles, stats.draw_calls, stats.pose_bytes, stats.resident_bytes_uploaded
            );
            g.bench_function(format!("{name}_{n}"), |b| {
                b.iter(|| {
                    let scene =
                        build(path, &mut resident, t, graph, materials, &mut crowd, camera, vp, &mut drawn);
                    target.bind(renderer.gl());
                    renderer.begin_frame(w, h);
                    renderer.draw_scene(vp, camera, &scene);
                    black_box(renderer.end_frame());
                    renderer.finish();
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
