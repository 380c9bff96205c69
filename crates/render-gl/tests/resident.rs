//! Geometry that lives on the GPU: a resident mesh draws what the same triangles streamed
//! draw, is uploaded once (a steady frame uploads none of its bytes), again when its version
//! changes; a posed mesh draws what the CPU-posed triangles draw, sending only its matrix;
//! an instanced shape draws what its copies posed one by one draw, in one call a mesh.

mod common;

use common::Harness;
use std::sync::Arc;
use v12_render_gl::glam::{Mat4, Quat, Vec3};
use v12_render_gl::{
    Camera, InstancedPart, InstancedShape, MeshKey, PosedMesh, PosedVertex, RectI, ResidentMesh, Scene,
    Shape, ShapeInstance, TexVertex3, Vertex3, affine_rows,
};

fn quad(z: f32, color: [u8; 4]) -> Vec<TexVertex3> {
    let v = |x: f32, y: f32| TexVertex3 { pos: [x, y, z], color, ..TexVertex3::default() };
    vec![v(-4.0, 2.0), v(4.0, 2.0), v(4.0, 10.0), v(-4.0, 2.0), v(4.0, 10.0), v(-4.0, 10.0)]
}

fn camera() -> Camera {
    Camera::look_at(Vec3::new(0.0, -6.0, 5.0), Vec3::new(0.0, 6.0, 0.0), 1.2, 0.5, 100.0)
}

fn scene(shapes: Vec<Shape>) -> Scene {
    Scene { shapes, ..Scene::default() }
}

#[test]
fn a_resident_mesh_draws_as_streamed_and_uploads_once() {
    let mut h = Harness::new(96, 72);
    let vp = RectI::new(0, 0, 96, 72);
    let tris = Arc::new(quad(0.0, [200, 120, 60, 255]));
    let glass = Arc::new(quad(1.0, [60, 120, 220, 128]));
    let streamed = scene(vec![
        Shape::Textured { layers: Vec::new().into(), triangles: tris.clone(), translucent: false },
        Shape::Textured { layers: Vec::new().into(), triangles: glass.clone(), translucent: true },
    ]);
    let key = MeshKey::unique();
    let resident = |version: u64| {
        scene(vec![
            Shape::Resident(ResidentMesh {
                key: key.derive(&[0]),
                version,
                layers: Vec::new().into(),
                triangles: tris.clone(),
                translucent: false,
            }),
            Shape::Resident(ResidentMesh {
                key: key.derive(&[1]),
                version,
                layers: Vec::new().into(),
                triangles: glass.clone(),
                translucent: true,
            }),
        ])
    };
    let cam = camera();
    let want = h.frame(|r| r.draw_scene(vp, &cam, &streamed));
    let mut stats = Vec::new();
    let mut images = Vec::new();
    for version in [1, 1, 1, 2] {
        let s = resident(version);
        images.push(h.frame(|r| r.draw_scene(vp, &cam, &s)));
        stats.push(h.renderer.stats());
    }
    let bytes = (tris.len() + glass.len()) as u64 * 32;
    assert_eq!(stats[0].resident_bytes_uploaded, bytes, "the first frame uploads both");
    assert_eq!(stats[1].resident_bytes_uploaded, 0, "a steady frame uploads nothing");
    assert_eq!(stats[2].bytes_uploaded, 0, "nor anything else (no sky, no 2D)");
    assert_eq!(stats[3].resident_bytes_uploaded, bytes, "a new version is uploaded again");
    assert_eq!(stats[1].resident_draws, 2);
    assert_eq!(h.renderer.resident_meshes(), (2, bytes as usize));
    for img in &images {
        assert!(want.compare(img, 0).is_some_and(|d| d.pixels_over_tolerance == 0), "same pixels");
    }
}

/// A unit cube's triangles (node space) and their normals.
fn cube() -> Vec<PosedVertex> {
    let mut out = Vec::new();
    let faces = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];
    for n in faces {
        let (u, v) = (n.any_orthonormal_vector(), n.cross(n.any_orthonormal_vector()));
        let c = |a: f32, b: f32| PosedVertex { pos: (n + u * a + v * b).to_array(), normal: n.to_array() };
        out.extend([c(-1.0, -1.0), c(1.0, -1.0), c(1.0, 1.0), c(-1.0, -1.0), c(1.0, 1.0), c(-1.0, 1.0)]);
    }
    out
}

#[test]
fn a_posed_mesh_draws_as_the_cpu_posed_one_sending_only_its_pose() {
    let mut h = Harness::new(96, 72);
    let vp = RectI::new(0, 0, 96, 72);
    let verts = Arc::new(cube());
    let key = MeshKey::unique();
    let posed = |turn: f32| PosedMesh {
        key,
        version: 0,
        vertices: verts.clone(),
        model: Mat4::from_scale_rotation_translation(
            Vec3::splat(1.5),
            Quat::from_rotation_z(turn),
            Vec3::new(0.0, 6.0, 1.5),
        ),
        color: [90, 200, 120, 255],
    };
    let base = Scene::default();
    let to_light = -base.light_dir.normalize();
    let cam = camera();
    for turn in [0.3, 1.1] {
        let p = posed(turn);
        let mut cpu: Vec<Vertex3> = Vec::new();
        p.lit_triangles(to_light, base.ambient, &mut cpu);
        let want = scene(vec![Shape::Mesh { triangles: Arc::new(cpu) }]);
        let want = h.frame(|r| r.draw_scene(vp, &cam, &want));
        let got = scene(vec![Shape::Posed(p)]);
        let img = h.frame(|r| r.draw_scene(vp, &cam, &got));
        let stats = h.renderer.stats();
        let d = want.compare(&img, 2).expect("same size");
        assert_eq!(d.pixels_over_tolerance, 0, "turn {turn}: max delta {}", d.max_delta);
        assert_eq!(stats.pose_bytes, 80);
        let at = cam.point_to_screen(Vec3::new(0.0, 6.0, 1.5), vp).expect("in view");
        let p = img.get(at.x as u32, at.y as u32).expect("inside");
        assert!(p[1] > p[0] && p[1] > p[2], "the green cube is drawn where it is: {p:?}");
    }
    assert_eq!(h.renderer.stats().resident_bytes_uploaded, 0, "the second pose uploaded no vertex");
}

/// Three copies of a two-node shape (a cube on each node), two sharing a pose and one hidden
/// node in the third's, drawn instanced against the same meshes posed one by one; a green
/// part translucent is drawn on the CPU in the sorted pass as posed meshes are.
#[test]
fn an_instanced_shape_draws_as_its_copies_posed_one_by_one() {
    let mut h = Harness::new(96, 72);
    let vp = RectI::new(0, 0, 96, 72);
    let verts = Arc::new(cube());
    let key = MeshKey::unique();
    let part = |node: u32, color: [u8; 4]| InstancedPart {
        key: key.derive(&[u64::from(node)]),
        version: 0,
        vertices: verts.clone(),
        node,
        color,
    };
    let node_pose = |turn: f32, lift: f32| {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(0.5),
            Quat::from_rotation_z(turn),
            Vec3::new(0.0, 0.0, lift),
        )
    };
    // Pose 0: both nodes; pose 1: node 1 hidden (all zeros).
    let poses = vec![
        affine_rows(&node_pose(0.2, 0.5)),
        affine_rows(&node_pose(0.9, 1.8)),
        affine_rows(&node_pose(0.6, 0.5)),
        [[0.0; 4]; 3],
    ];
    let place = |x: f32, pose: f32| ShapeInstance {
        rows: affine_rows(&Mat4::from_rotation_translation(Quat::from_rotation_z(x), Vec3::new(x, 6.0, 0.0))),
        pose,
    };
    let cam = camera();
    for glass in [255u8, 128] {
        let shape = InstancedShape {
            parts: vec![part(0, [90, 200, 120, 255]), part(1, [200, 90, 60, glass])],
            nodes: 2,
            poses: poses.clone(),
            instances: vec![place(-2.5, 0.0), place(0.0, 0.0), place(2.5, 1.0)],
        };
        let one_by_one: Vec<Shape> = shape
            .parts
            .iter()
            .flat_map(|p| {
                shape.instances.iter().map(|i| {
                    Shape::Posed(PosedMesh {
                        key: p.key,
                        version: 0,
                        vertices: p.vertices.clone(),
                        model: shape.model(p, i).expect("in the palette"),
                        color: p.color,
                    })
                })
            })
            .collect();
        let want = h.frame(|r| r.draw_scene(vp, &cam, &scene(one_by_one)));
        let img =
            h.frame(|r| r.draw_scene(vp, &cam, &scene(vec![Shape::Instanced(Arc::new(shape.clone()))])));
        let stats = h.renderer.stats();
        let d = want.compare(&img, 2).expect("same size");
        assert_eq!(d.pixels_over_tolerance, 0, "glass {glass}: max delta {}", d.max_delta);
        // The palette (4 matrices of 48 bytes) and three 52-byte instances.
        assert_eq!(stats.pose_bytes, 4 * 48 + 3 * 52);
        assert_eq!(stats.draw_calls, 2, "one instanced call a part (or the glass's sorted run)");
    }
    // A pose index outside the palette, a NaN one: no panic, nothing drawn for them.
    let bad = InstancedShape {
        parts: vec![part(0, [90, 200, 120, 255])],
        nodes: 2,
        poses: poses.clone(),
        instances: vec![ShapeInstance { rows: [[0.0; 4]; 3], pose: f32::NAN }, place(0.0, 9.0)],
    };
    assert!(bad.model(&bad.parts[0], &bad.instances[0]).is_none());
    assert!(bad.model(&bad.parts[0], &bad.instances[1]).is_none());
    h.frame(|r| r.draw_scene(vp, &cam, &scene(vec![Shape::Instanced(Arc::new(bad))])));
}
