//! The scene graph on a known floor plan (`data/two_rooms.map`: room 1 at x 0..10, room 2 at
//! x 10..20, a door between them at y 3..5 and one from room 2 to the outside at x = 20):
//! finding zones, rezoning boxes, and which zones a camera sees through the portals.

use std::sync::Arc;

use glam::{Quat, Vec3};
use v12_world::{Interior, InteriorInstance, SceneGraph, ZoneRef};

const BUILDING: u32 = 40;

fn scene(position: Vec3, rotation: Quat) -> (SceneGraph, ZoneRef, ZoneRef) {
    let interior = Arc::new(Interior::from_map_text(include_str!("../data/two_rooms.map")).unwrap());
    let mut g = SceneGraph::new();
    let inst = InteriorInstance::new(interior, position, rotation);
    let room1 = ZoneRef {
        owner: Some(BUILDING),
        zone: inst.interior.find_zone(glam::DVec3::new(5.0, 4.0, 2.0)).unwrap(),
    };
    let room2 = ZoneRef {
        owner: Some(BUILDING),
        zone: inst.interior.find_zone(glam::DVec3::new(15.0, 4.0, 2.0)).unwrap(),
    };
    g.add_interior(BUILDING, Arc::new(inst));
    (g, room1, room2)
}

fn sorted(mut v: Vec<ZoneRef>) -> Vec<ZoneRef> {
    v.sort_unstable();
    v
}

#[test]
fn zones_are_found_and_boxes_rezoned() {
    let (g, room1, room2) = scene(Vec3::ZERO, Quat::IDENTITY);
    assert_eq!(g.find_zone(Vec3::new(5.0, 4.0, 2.0)), Some(room1));
    assert_eq!(g.find_zone(Vec3::new(15.0, 4.0, 2.0)), Some(room2));
    assert_eq!(g.find_zone(Vec3::new(50.0, 4.0, 2.0)), Some(ZoneRef::OUTSIDE));
    assert_eq!(g.find_zone(Vec3::new(5.0, 0.25, 2.0)), None, "inside a wall");
    assert_eq!(
        g.zones_of_box(Vec3::new(9.0, 3.5, 1.0), Vec3::new(11.0, 4.5, 2.0)),
        sorted(vec![room1, room2])
    );
    assert_eq!(
        g.zones_of_box(Vec3::new(19.0, 3.5, 1.0), Vec3::new(21.0, 4.5, 2.0)),
        sorted(vec![room2, ZoneRef::OUTSIDE])
    );
    assert_eq!(
        g.zones_of_box(Vec3::new(-5.0, -5.0, -1.0), Vec3::new(25.0, 13.0, 6.0)),
        sorted(vec![room1, room2, ZoneRef::OUTSIDE])
    );
    assert_eq!(g.zones_of_box(Vec3::new(40.0, 0.0, 0.0), Vec3::new(41.0, 1.0, 1.0)), vec![ZoneRef::OUTSIDE]);
}

#[test]
fn a_camera_sees_through_the_doors_that_line_up() {
    let (g, room1, room2) = scene(Vec3::ZERO, Quat::IDENTITY);
    let all = sorted(vec![room1, room2, ZoneRef::OUTSIDE]);
    // In room 1, on the line through both doors: the next room and, through its door, outside.
    assert_eq!(g.visible_zones(Vec3::new(5.0, 4.0, 1.5)), all);
    // In room 1's far corner: room 2 through the first door, but the second door is not in
    // line with it.
    assert_eq!(g.visible_zones(Vec3::new(1.0, 7.0, 3.3)), sorted(vec![room1, room2]));
    // Outside, facing the outer door: both rooms.
    assert_eq!(g.visible_zones(Vec3::new(30.0, 4.0, 1.5)), all);
    // Outside behind the building (no door on that side): the outside only.
    assert_eq!(g.visible_zones(Vec3::new(-10.0, 4.0, 1.5)), vec![ZoneRef::OUTSIDE]);
    // Outside facing the door but looking away (a view toward +x: the plane's normal +x).
    assert_eq!(g.visible_zones_in_view(Vec3::new(30.0, 4.0, 1.5), &[Vec3::X]), vec![ZoneRef::OUTSIDE]);
    // Standing in the doorway between the rooms (inside the portal brush): both rooms.
    let v = g.visible_zones(Vec3::new(10.0, 4.0, 1.5));
    assert!(v.contains(&room1) && v.contains(&room2), "{v:?}");
}

#[test]
fn a_turned_and_moved_building_is_walked_in_world_space() {
    let (g, room1, room2) = scene(Vec3::new(500.0, -40.0, 12.0), Quat::from_rotation_z(std::f32::consts::PI));
    // Turned half round: room 1's (5, 4) is at world (495, -44); the outer door faces -x.
    assert_eq!(g.find_zone(Vec3::new(495.0, -44.0, 14.0)), Some(room1));
    assert_eq!(g.visible_zones(Vec3::new(470.0, -44.0, 13.5)), sorted(vec![room1, room2, ZoneRef::OUTSIDE]));
    assert_eq!(g.visible_zones(Vec3::new(530.0, -44.0, 13.5)), vec![ZoneRef::OUTSIDE]);
}

/// `data/two_rooms_window.map`: the same rooms with a glass window in room 1's south wall
/// (x 3..7): a portal one sees through, closed like any other.
#[test]
fn a_window_shows_the_room_behind_it_and_a_shuttered_one_does_not() {
    let interior = Arc::new(Interior::from_map_text(include_str!("../data/two_rooms_window.map")).unwrap());
    let room1 =
        ZoneRef { owner: Some(BUILDING), zone: interior.find_zone(glam::DVec3::new(5.0, 4.0, 2.0)).unwrap() };
    let room2 = ZoneRef {
        owner: Some(BUILDING),
        zone: interior.find_zone(glam::DVec3::new(15.0, 4.0, 2.0)).unwrap(),
    };
    let window =
        interior.portals.iter().position(|p| p.zones == (0, room1.zone)).expect("the window's portal");
    let mut g = SceneGraph::new();
    g.add_interior(BUILDING, Arc::new(InteriorInstance::new(interior, Vec3::ZERO, Quat::IDENTITY)));
    // Outside, south of the window: room 1 through it (the door to room 2 is not in line).
    assert_eq!(g.visible_zones(Vec3::new(5.0, -6.0, 2.0)), sorted(vec![room1, ZoneRef::OUTSIDE]));
    // From room 1's far corner: the outside through the window as well as room 2.
    assert_eq!(g.visible_zones(Vec3::new(1.0, 7.0, 3.3)), sorted(vec![room1, room2, ZoneRef::OUTSIDE]));
    // Behind the building (west): not through the window seen edge on from behind its plane.
    assert_eq!(g.visible_zones(Vec3::new(-10.0, 4.0, 1.5)), vec![ZoneRef::OUTSIDE]);
    // Shuttered: the outside sees nothing of room 1.
    assert!(g.set_portal_open(BUILDING, window, false));
    assert_eq!(g.visible_zones(Vec3::new(5.0, -6.0, 2.0)), vec![ZoneRef::OUTSIDE]);
}

/// A server's packet threads scope their connections through one graph at once: it is
/// `Send` and `Sync` (its interiors behind `Arc`s), and each thread gets the answers one
/// thread gets.
#[test]
fn packet_threads_share_the_graph_and_get_the_same_zones() {
    fn shared<T: Send + Sync>(_: &T) {}
    let (g, _, _) = scene(Vec3::new(3.0, -2.0, 0.0), Quat::from_rotation_z(0.3));
    shared(&g);
    let eyes: Vec<Vec3> =
        (0..16).map(|k| Vec3::new(-20.0 + 4.0 * k as f32, 2.0 + (k % 3) as f32, 1.5)).collect();
    let answers = |e: &Vec3| (g.visible_zones(*e), g.zones_of_box(*e - Vec3::ONE, *e + Vec3::ONE));
    let serial: Vec<_> = eyes.iter().map(answers).collect();
    let threaded: Vec<_> = std::thread::scope(|s| {
        let (a, b) = eyes.split_at(eyes.len() / 2);
        let first = s.spawn(|| a.iter().map(answers).collect::<Vec<_>>());
        let mut out: Vec<_> = b.iter().map(answers).collect();
        let mut all = first.join().unwrap_or_default();
        all.append(&mut out);
        all
    });
    assert_eq!(serial, threaded);
    assert!(serial.iter().any(|(v, _)| v.len() > 1), "some camera sees into the building");
}
