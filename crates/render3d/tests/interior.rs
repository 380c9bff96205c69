//! Interiors drawn by zone: the two-room building seen from outside through its open door
//! (both rooms drawn), then with that door closed (neither room, the door instead), counted
//! and compared with goldens on llvmpipe.

mod common;

use common::golden;
use std::rc::Rc;

use glam::{Quat, Vec3};
use v12_render_gl::{Camera, ColorI, RectI, Scene, Shape, Vertex3};
use v12_render3d::{InteriorDrawStats, build_interior_mesh};
use v12_world::{Interior, InteriorInstance, SceneGraph, ZoneRef};

const BUILDING: u32 = 7;

/// `world/data/two_rooms.map`: room 1 at x 0..10, room 2 at x 10..20, doors at y 3..5
/// between them and from room 2 out to +x.
fn building() -> (SceneGraph, Rc<InteriorInstance>) {
    let map = include_str!("../../world/data/two_rooms.map");
    let inst = Rc::new(InteriorInstance::new(
        Rc::new(Interior::from_map_text(map).unwrap()),
        Vec3::ZERO,
        Quat::IDENTITY,
    ));
    let mut g = SceneGraph::new();
    g.add_interior(BUILDING, inst.clone());
    (g, inst)
}

fn draw(
    g: &SceneGraph,
    inst: &InteriorInstance,
    eye: Vec3,
) -> (InteriorDrawStats, Vec<Vertex3>, Vec<ZoneRef>) {
    let visible = g.visible_zones(eye);
    let mut tris = Vec::new();
    let stats = build_interior_mesh(g, BUILDING, inst, &visible, Vec3::new(-0.4, 0.6, -1.0), 0.35, &mut tris);
    (stats, tris, visible)
}

/// The interior's triangles on a patch of ground.
fn render(tris: Vec<Vertex3>, camera: &Camera) -> v12_render_gl::Image {
    let ground = Shape::Box {
        center: Vec3::new(10.0, 4.0, -0.5),
        half_extents: Vec3::new(40.0, 40.0, 0.5),
        rotation_z: 0.0,
        color: ColorI::rgb(70, 100, 60),
    };
    let scene = Scene {
        shapes: vec![ground, Shape::Mesh { triangles: std::sync::Arc::new(tris) }],
        ..Scene::default()
    };
    common::render(&scene, camera, 160, 120)
}

#[test]
fn an_open_door_shows_the_rooms_and_a_closed_one_hides_them() {
    let (mut g, inst) = building();
    let eye = Vec3::new(26.0, 4.0, 1.6);
    let camera = Camera::look_at(eye, Vec3::new(0.0, 4.0, 1.4), 1.3, 0.1, 200.0);
    // Open: both rooms are seen through the door in line.
    let (open, tris, visible) = draw(&g, &inst, eye);
    assert_eq!(visible.len(), 3, "{visible:?}");
    assert_eq!((open.zones, open.doors), (2, 0));
    let open_img = render(tris, &camera);
    golden("interior_open_door", &open_img);
    // Close the outer door (the portal to the outside).
    let outer = inst.interior.portals.iter().position(|p| p.zones.0 == 0).expect("a door to the outside");
    assert!(g.set_portal_open(BUILDING, outer, false));
    assert!(!g.set_portal_open(BUILDING, 99, false), "no such portal");
    let (closed, tris, visible) = draw(&g, &inst, eye);
    assert_eq!(visible, vec![ZoneRef::OUTSIDE]);
    assert_eq!((closed.zones, closed.doors), (0, 1));
    assert!(closed.faces < open.faces, "{} faces against {}", closed.faces, open.faces);
    let closed_img = render(tris, &camera);
    golden("interior_closed_door", &closed_img);
    // The doorway: the far room's wall through it when open, the door's brown when closed.
    let p = camera.point_to_screen(Vec3::new(20.0, 4.0, 1.2), RectI::new(0, 0, 160, 120)).unwrap();
    let (a, b) =
        (open_img.get(p.x as u32, p.y as u32).unwrap(), closed_img.get(p.x as u32, p.y as u32).unwrap());
    assert_ne!(a, b, "the doorway changes");
    assert!(b[0] > b[2] + 20, "a brown door: {b:?}");
    // Reopened: the rooms again.
    g.set_portal_open(BUILDING, outer, true);
    assert_eq!(draw(&g, &inst, eye).0, open);
}
