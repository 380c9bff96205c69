//! Shapes and threads: the example game's glTF shapes loaded, threads advanced, transitions
//! blended, detail levels chosen, visibility tracks read, and (headless EGL on llvmpipe) an
//! animated player and item drawn at fixed times against a golden image.

mod common;

use glam::{Affine3A, Quat, Vec3};
use std::rc::Rc;
use v12_render_gl::{Camera, ColorI, RectI, Scene, Shape};
use v12_render3d::ShapeBatches;
use v12_render3d::shape::{ShapeError, TsShape, TsShapeInstance};

fn load(name: &str) -> Rc<TsShape> {
    let path = format!("{}/../../examples/game/shapes/{name}.glb", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Rc::new(TsShape::from_glb(&bytes).unwrap_or_else(|e| panic!("{path}: {e}")))
}

#[test]
fn the_player_has_its_skeleton_details_and_sequences() {
    let p = load("player");
    for n in ["Player", "pelvis", "torso", "head", "armL", "armR", "legL", "legR"] {
        assert!(p.find_node(n).is_some(), "node {n}");
    }
    // Parents come before their children.
    for (i, n) in p.nodes.iter().enumerate() {
        assert!(n.parent.is_none_or(|q| q < i), "{} after its parent", n.name);
    }
    assert_eq!(p.details, vec![32, 8]);
    assert_eq!(p.triangles_at(Some(32)), 6 * 12);
    assert_eq!(p.triangles_at(Some(8)), 12);
    let names: Vec<&str> = p.sequences.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["idle", "run", "jump", "fire"]);
    assert!(p.sequences[0].cyclic && p.sequences[1].cyclic && !p.sequences[2].cyclic);
    assert!(!p.sequences[3].cyclic, "the fire sequence plays once");
    assert!((p.sequences[1].duration - 0.6).abs() < 1e-5);
    assert!(p.radius > 0.8 && p.radius < 1.2, "radius {}", p.radius);
}

#[test]
fn detail_levels_go_by_projected_size() {
    let p = load("player");
    assert_eq!(p.select_detail(300.0), Some(32));
    assert_eq!(p.select_detail(32.0), Some(32));
    assert_eq!(p.select_detail(31.0), Some(8));
    assert_eq!(p.select_detail(4.0), Some(8), "smaller than every level: the coarsest");
    assert_eq!(p.select_detail(0.5), None, "under a pixel: nothing");
    assert_eq!(p.select_detail(f32::NAN), None);
}

#[test]
fn a_thread_plays_wraps_stops_and_reverses() {
    let p = load("player");
    let mut i = TsShapeInstance::new(p.clone());
    let t = i.add_thread();
    let run = p.find_sequence("RUN").unwrap();
    assert!(i.set_sequence(t, run, 0.0));
    i.advance_time(0.15);
    assert!((i.thread(t).unwrap().pos - 0.25).abs() < 1e-5);
    i.advance_time(0.6); // one whole cycle later: the same place
    assert!((i.thread(t).unwrap().pos - 0.25).abs() < 1e-4);
    i.set_time_scale(t, -2.0); // backwards, twice as fast
    i.advance_time(0.15);
    assert!((i.thread(t).unwrap().pos - 0.75).abs() < 1e-4, "wrapped below 0");
    // A sequence that plays once stops at its end.
    let jump = p.find_sequence("jump").unwrap();
    i.set_sequence(t, jump, 0.0);
    i.set_time_scale(t, 1.0);
    i.advance_time(10.0);
    let th = i.thread(t).unwrap();
    assert_eq!((th.pos, th.at_end), (1.0, true));
    // Bad input changes nothing and panics nowhere.
    assert!(!i.set_sequence(t, 99, 0.0));
    i.advance_time(f32::NAN);
    i.set_time_scale(t, f32::INFINITY);
    i.advance_time(1.0);
    assert_eq!(i.thread(t).unwrap().pos, 1.0);
}

/// The left leg's rotation about X in degrees (sign by the axis).
fn leg_angle(i: &TsShapeInstance, leg: usize) -> f32 {
    let m = i.node_transform(leg).unwrap();
    let (_, r, _) = m.to_scale_rotation_translation();
    let (axis, angle) = r.to_axis_angle();
    angle.to_degrees() * axis.x.signum()
}

#[test]
fn sequences_move_nodes_and_transitions_blend() {
    let p = load("player");
    let leg = p.find_node("legL").unwrap();
    let mut i = TsShapeInstance::new(p.clone());
    let t = i.add_thread();
    i.set_sequence(t, p.find_sequence("run").unwrap(), 0.0);
    i.animate();
    assert!((leg_angle(&i, leg) - 35.0).abs() < 0.1, "{}", leg_angle(&i, leg));
    i.advance_time(0.15); // halfway from +35 to -35
    i.animate();
    assert!(leg_angle(&i, leg).abs() < 0.1, "{}", leg_angle(&i, leg));
    // From the run's start pose (+35) to idle (the leg at rest) over 0.2 s.
    i.set_sequence(t, p.find_sequence("run").unwrap(), 0.0);
    i.transition_to_sequence(t, p.find_sequence("idle").unwrap(), 0.0, 0.2, true);
    i.animate();
    assert!((leg_angle(&i, leg) - 35.0).abs() < 0.1, "the blend starts where the thread was");
    i.advance_time(0.1);
    i.animate();
    assert!((leg_angle(&i, leg) - 17.5).abs() < 0.2, "halfway: {}", leg_angle(&i, leg));
    i.advance_time(0.1);
    i.animate();
    assert!(leg_angle(&i, leg).abs() < 0.1, "at rest once the blend is over");
    // A later thread wins on the nodes it animates.
    let t2 = i.add_thread();
    i.set_sequence(t2, p.find_sequence("jump").unwrap(), 0.5);
    i.animate();
    assert!((leg_angle(&i, leg) + 70.0).abs() < 0.1, "{}", leg_angle(&i, leg));
    i.destroy_thread(t2);
    i.animate();
    assert!(leg_angle(&i, leg).abs() < 0.1);
}

#[test]
fn a_visibility_track_hides_the_items_spark() {
    let item = load("item");
    let spark = item.find_node("sparkMesh").unwrap();
    let mut i = TsShapeInstance::new(item.clone());
    let t = i.add_thread();
    i.set_sequence(t, item.find_sequence("blink").unwrap(), 0.25);
    i.animate();
    assert!(i.is_node_visible(spark));
    i.advance_time(0.5);
    i.animate();
    assert!(!i.is_node_visible(spark), "scaled to nothing: hidden");
    let mut tris = Vec::new();
    i.build_mesh(Affine3A::IDENTITY, item.select_detail(100.0), Vec3::NEG_Z, 0.4, &mut tris);
    assert_eq!(tris.len(), 8 * 3, "the gem only");
}

#[test]
fn broken_files_are_errors() {
    assert!(matches!(TsShape::from_glb(b"not a shape"), Err(ShapeError::Gltf(_))));
    let good =
        std::fs::read(format!("{}/../../examples/game/shapes/item.glb", env!("CARGO_MANIFEST_DIR"))).unwrap();
    for cut in [12, 20, good.len() / 2, good.len() - 1] {
        assert!(TsShape::from_glb(&good[..cut]).is_err(), "cut at {cut}");
    }
    // Thousands of single-byte corruptions: each reads or is an error, none panics.
    let mut x = 0x9E37_79B9u32;
    for _ in 0..4000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let mut bad = good.clone();
        let at = x as usize % bad.len();
        bad[at] ^= (x >> 24) as u8 | 1;
        if let Ok(shape) = TsShape::from_glb(&bad) {
            let mut i = TsShapeInstance::new(Rc::new(shape));
            let t = i.add_thread();
            i.set_sequence(t, 0, 0.5);
            i.advance_time(0.1);
            i.animate();
            i.build_mesh(Affine3A::IDENTITY, Some(32), Vec3::NEG_Z, 0.3, &mut Vec::new());
        }
    }
}

/// The player running (0.15 s in), the player in the air (0.25 s into the jump), the item spun
/// a quarter turn and the flag mid-wave, drawn on llvmpipe.
#[test]
fn animated_shapes_golden() {
    shapes_golden(Path::Cpu);
}

/// The same shapes posed on the GPU (their meshes resident, each frame only matrices) match
/// the same golden.
#[test]
fn animated_shapes_posed_on_the_gpu_match_the_same_golden() {
    shapes_golden(Path::Posed);
}

/// The same shapes instanced (`ShapeBatches`, poses at their exact positions: the palette
/// and placements on the GPU) match the same golden.
#[test]
fn animated_shapes_instanced_match_the_same_golden() {
    shapes_golden(Path::Instanced);
}

#[derive(Clone, Copy, PartialEq)]
enum Path {
    Cpu,
    Posed,
    Instanced,
}

fn shapes_golden(path: Path) {
    let (player, item, flag) = (load("player"), load("item"), load("flag"));
    let mut meshes = Vec::new();
    let mut batches = ShapeBatches::new(0.0);
    let mut add = |shape: &Rc<TsShape>, seq: &str, time: f32, at: Vec3| {
        let mut i = TsShapeInstance::new(shape.clone());
        let t = i.add_thread();
        i.set_sequence(t, shape.find_sequence(seq).unwrap(), 0.0);
        i.advance_time(time);
        i.animate();
        let mut tris = Vec::new();
        let place = Affine3A::from_rotation_translation(Quat::from_rotation_z(0.5), at);
        match path {
            Path::Posed => i.posed_meshes(place, Some(32), &mut meshes),
            Path::Instanced => batches.add(&mut i, place, Some(32)),
            Path::Cpu => {
                i.build_mesh(place, Some(32), Vec3::new(-0.4, 0.6, -1.0), 0.35, &mut tris);
                meshes.push(Shape::Mesh { triangles: std::sync::Arc::new(tris) });
            }
        }
    };
    add(&player, "run", 0.15, Vec3::new(-1.2, 0.0, 0.0));
    add(&player, "jump", 0.25, Vec3::new(0.4, 0.0, 0.3));
    add(&item, "spin", 0.5, Vec3::new(1.6, -0.5, 0.0));
    add(&flag, "wave", 0.3, Vec3::new(2.4, 1.5, 0.0));
    batches.shapes(&mut meshes);
    let scene = Scene { shapes: meshes, clear_color: Some(ColorI::rgb(40, 60, 90)), ..Scene::default() };
    let camera = Camera::look_at(Vec3::new(0.5, -6.0, 2.2), Vec3::new(0.5, 0.0, 1.0), 1.0, 0.1, 100.0);
    let img = common::render(&scene, &camera, 160, 120);
    common::golden("animated_shapes", &img);
    // The item's gem is drawn where its centre projects, in green.
    let gem = camera.point_to_screen(Vec3::new(1.6, -0.5, 0.6), RectI::new(0, 0, 160, 120)).unwrap();
    let px = img.get(gem.x as u32, gem.y as u32).unwrap();
    assert!(px[1] > px[0] && px[1] > px[2], "green gem at {gem}: {px:?}");
}

/// A crowd of 100 players running at their own phases shares the run's poses (at 30 a
/// second of the 0.6 s sequence, at most 19 of them), in one batch a detail level; a player
/// with two threads takes a pose of its own, a painted one is a batch of its own; the
/// palette holds what `animate` makes of the pose.
#[test]
fn a_crowd_shares_poses_in_batches() {
    let p = load("player");
    let run = p.find_sequence("run").unwrap();
    let mut batches = ShapeBatches::default();
    let mut crowd: Vec<TsShapeInstance> = (0..100)
        .map(|k| {
            let mut i = TsShapeInstance::new(p.clone());
            let t = i.add_thread();
            i.set_sequence(t, run, (k as f32 * 0.137).fract());
            i
        })
        .collect();
    for (k, i) in crowd.iter_mut().enumerate() {
        batches.add(i, Affine3A::from_translation(Vec3::new(k as f32, 0.0, 0.0)), Some(32));
    }
    let s = batches.stats();
    assert_eq!((s.batches, s.instances), (1, 100));
    assert!(s.poses <= 19 && s.poses > 5, "{} poses", s.poses);
    // Two threads: its own pose; painted: its own batch.
    let mut two = TsShapeInstance::new(p.clone());
    let (a, b) = (two.add_thread(), two.add_thread());
    two.set_sequence(a, run, 0.3);
    two.set_sequence(b, p.find_sequence("fire").unwrap(), 0.5);
    batches.add(&mut two, Affine3A::IDENTITY, Some(32));
    let mut red = TsShapeInstance::new(p.clone());
    red.set_material_color("team", [255, 0, 0, 255]);
    batches.add(&mut red, Affine3A::IDENTITY, Some(32));
    batches.add(&mut crowd[0], Affine3A::IDENTITY, Some(8));
    let after = batches.stats();
    assert_eq!(after.poses, s.poses + 3, "own pose, the painted batch's rest pose, the far level's pose");
    assert_eq!(after.batches, 3);
    let mut out = Vec::new();
    batches.shapes(&mut out);
    assert_eq!(out.len(), 3);
    assert_eq!(batches.stats().instances, 0, "the next frame starts empty");
    // The shared pose is what animate makes at the rounded position.
    let Shape::Instanced(first) = &out[0] else { panic!("instanced") };
    let mut exact = TsShapeInstance::new(p.clone());
    let t = exact.add_thread();
    exact.set_sequence(t, run, 0.0);
    exact.animate();
    let pose = first.instances[0].pose as usize * p.nodes.len();
    for n in 0..p.nodes.len() {
        let want = v12_render_gl::affine_rows(&glam::Mat4::from(exact.node_transform(n).unwrap()));
        for (w, g) in want.iter().flatten().zip(first.poses[pose + n].iter().flatten()) {
            assert!((w - g).abs() < 1e-4, "node {n}: {want:?} against {:?}", first.poses[pose + n]);
        }
    }
}

/// A glTF binary with one node `board` of two textured quads facing -Y: a 2 × 2 m opaque
/// one (material `checker`: an 8 × 8 red and white checker PNG) and in front of it a
/// smaller one whose material blends (`glass`: the same texture tinted light blue at half
/// alpha). `png` replaces the image's bytes.
fn textured_glb(png: Option<Vec<u8>>) -> Vec<u8> {
    let mut checker = v12_render_gl::Image::new(8, 8, [0; 4]);
    for y in 0..8 {
        for x in 0..8 {
            checker.put(x, y, if (x + y) % 2 == 0 { [220, 40, 40, 255] } else { [240, 240, 240, 255] });
        }
    }
    let png = png.unwrap_or_else(|| checker.encode_png().unwrap());
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut push = |bytes: &[u8], bin: &mut Vec<u8>| {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        views.push(format!(r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#, bin.len(), bytes.len()));
        bin.extend_from_slice(bytes);
        views.len() - 1
    };
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut accessors = Vec::new();
    let mut prims = Vec::new();
    let quads = [((-1.0f32, 1.0f32), (0.0f32, 2.0f32), 0.0f32), ((0.0, 1.2), (0.3, 1.5), -0.5)];
    for (m, ((x0, x1), (z0, z1), y)) in quads.into_iter().enumerate() {
        let pos = [x0, y, z0, x1, y, z0, x1, y, z1, x0, y, z1];
        let nrm = [0.0, -1.0, 0.0].repeat(4);
        let uv = [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
        let idx: Vec<u8> = [0u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()).collect();
        let (vp, vn, vu, vi) = (
            push(&f32s(&pos), &mut bin),
            push(&f32s(&nrm), &mut bin),
            push(&f32s(&uv), &mut bin),
            push(&idx, &mut bin),
        );
        let a = accessors.len();
        accessors.push(format!(
            r#"{{"bufferView":{vp},"componentType":5126,"count":4,"type":"VEC3","min":[{x0},{y},{z0}],"max":[{x1},{y},{z1}]}}"#
        ));
        accessors.push(format!(r#"{{"bufferView":{vn},"componentType":5126,"count":4,"type":"VEC3"}}"#));
        accessors.push(format!(r#"{{"bufferView":{vu},"componentType":5126,"count":4,"type":"VEC2"}}"#));
        accessors.push(format!(r#"{{"bufferView":{vi},"componentType":5123,"count":6,"type":"SCALAR"}}"#));
        prims.push(format!(
            r#"{{"attributes":{{"POSITION":{a},"NORMAL":{},"TEXCOORD_0":{}}},"indices":{},"material":{m}}}"#,
            a + 1,
            a + 2,
            a + 3
        ));
    }
    let image_view = push(&png, &mut bin);
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"name":"board","mesh":0}}],"meshes":[{{"primitives":[{}]}}],"materials":[{{"name":"checker","pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}},{{"name":"glass","alphaMode":"BLEND","pbrMetallicRoughness":{{"baseColorFactor":[0.6,0.8,1.0,0.5],"baseColorTexture":{{"index":0}}}}}}],"textures":[{{"source":0}}],"images":[{{"bufferView":{image_view},"mimeType":"image/png"}}],"accessors":[{}],"bufferViews":[{}],"buffers":[{{"byteLength":{}}}]}}"#,
        prims.join(","),
        accessors.join(","),
        views.join(","),
        bin.len()
    );
    let mut json = json.into_bytes();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut glb = Vec::new();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&((12 + 8 + json.len() + 8 + bin.len()) as u32).to_le_bytes());
    glb.extend_from_slice(&(json.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json);
    glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    glb
}

/// A textured glTF shape: its base colour texture read from the file and drawn (the checker
/// on the opaque quad), the blending material translucent over it (tinted, half seen
/// through), against a golden.
#[test]
fn a_textured_gltf_shape_golden() {
    let shape = Rc::new(TsShape::from_glb(&textured_glb(None)).expect("the textured shape"));
    assert!(shape.meshes.iter().all(|m| m.texture.is_some() && m.uvs.len() == 4));
    assert_eq!(shape.meshes.iter().map(|m| m.blend).collect::<Vec<_>>(), [false, true]);
    let textures = shape.textures();
    assert_eq!(textures.len(), 2);
    let mut i = TsShapeInstance::new(shape.clone());
    i.animate();
    let mut shapes = Vec::new();
    let place = Affine3A::from_rotation_z(0.2);
    i.textured_meshes(place, None, Vec3::new(-0.4, 0.6, -1.0), 0.35, &mut shapes);
    assert_eq!(shapes.len(), 2);
    assert!(matches!(&shapes[1], Shape::Textured { translucent: true, .. }));
    let scene = Scene { shapes, clear_color: Some(ColorI::rgb(40, 60, 90)), ..Scene::default() };
    let camera = Camera::look_at(Vec3::new(0.6, -4.0, 1.6), Vec3::new(0.2, 0.0, 1.0), 1.0, 0.1, 100.0);
    let named: Vec<(&str, v12_render_gl::Image)> =
        textures.iter().map(|(n, img)| (n.as_str(), (**img).clone())).collect();
    let img = common::render_textured(&scene, &camera, 160, 120, &named);
    common::golden("textured_gltf_shape", &img);
    // The checker shows both its colours on the opaque quad (left, outside the glass).
    let vp = RectI::new(0, 0, 160, 120);
    let (mut reds, mut whites) = (0, 0);
    for z in 0..8 {
        for x in 0..8 {
            let p = place.transform_point3(Vec3::new(-0.9 + 0.1 * x as f32, 0.0, 0.3 + 0.2 * z as f32));
            let s = camera.point_to_screen(p, vp).unwrap();
            let px = img.get(s.x as u32, s.y as u32).unwrap();
            reds += usize::from(px[0] > px[1] + 60);
            whites += usize::from(px[1] > 120 && px[0].abs_diff(px[1]) < 40);
        }
    }
    assert!(reds > 4 && whites > 4, "the checker: {reds} red, {whites} white");
}

/// A shape whose texture is not a PNG it can read loads with a warning and draws its meshes
/// in their colours.
#[test]
fn a_corrupt_shape_texture_is_a_warning_and_the_colour() {
    let shape =
        TsShape::from_glb(&textured_glb(Some(b"\x89PNG\r\n\x1a\nnot really".to_vec()))).expect("loads");
    assert!(shape.meshes.iter().all(|m| m.texture.is_none() && m.uvs.is_empty()));
    assert!(shape.textures().is_empty());
    let mut i = TsShapeInstance::new(Rc::new(shape));
    i.animate();
    let mut shapes = Vec::new();
    i.textured_meshes(Affine3A::IDENTITY, None, Vec3::NEG_Z, 0.3, &mut shapes);
    assert!(matches!(shapes.as_slice(), [Shape::Mesh { .. }]));
}
