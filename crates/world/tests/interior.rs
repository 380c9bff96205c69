//! Interiors from `.map` brushes: the parser, CSG on known shapes (a box room, an L-shaped
//! corridor, two rooms joined by a portal), zones and portals, ray casts and box sweeps,
//! instances in the world and the container, and hostile files.

use std::fmt::Write as _;
use std::rc::Rc;

use glam::{DVec3, Quat, Vec3};
use v12_sim::container::{Container, type_masks};
use v12_world::interior::BrushKind;
use v12_world::{Interior, InteriorInstance, map_file};

/// Map units a metre (map2dif's default `geometry_scale`).
const S: f64 = 32.0;

/// A box brush from `lo` to `hi` (metres), its faces wound as Quake editors write them
/// (`flip` writes the other winding).
fn brush(out: &mut String, lo: [f64; 3], hi: [f64; 3], texture: &str, flip: bool) {
    let (lo, hi) = (DVec3::from(lo) * S, DVec3::from(hi) * S);
    // For each outward normal: a point on the face and two edge directions u, v with
    // u × v = normal, so (a - b) × (c - b) = normal for a = b + u, c = b + v.
    let faces = [
        (DVec3::new(hi.x, lo.y, lo.z), DVec3::Y, DVec3::Z),
        (DVec3::new(lo.x, lo.y, lo.z), DVec3::Z, DVec3::Y),
        (DVec3::new(lo.x, hi.y, lo.z), DVec3::Z, DVec3::X),
        (DVec3::new(lo.x, lo.y, lo.z), DVec3::X, DVec3::Z),
        (DVec3::new(lo.x, lo.y, hi.z), DVec3::X, DVec3::Y),
        (DVec3::new(lo.x, lo.y, lo.z), DVec3::Y, DVec3::X),
    ];
    out.push_str("{\n");
    for (b, u, v) in faces {
        let (u, v) = if flip { (v, u) } else { (u, v) };
        let (a, c) = (b + u * S, b + v * S);
        let p = |p: DVec3| format!("( {} {} {} )", p.x, p.y, p.z);
        writeln!(out, "{} {} {} {texture} 0 0 0 1 1", p(a), p(b), p(c)).unwrap();
    }
    out.push_str("}\n");
}

/// A hollow room from `lo` to `hi` (outer faces), walls `t` thick, with optional door gaps
/// in its -x / +x walls: (y0, y1, height) in metres, and an optional window hole in its -y
/// wall: (x0, x1, z0, z1).
fn room(
    out: &mut String,
    lo: [f64; 3],
    hi: [f64; 3],
    t: f64,
    doors: &[(bool, f64, f64, f64)],
    window: Option<(f64, f64, f64, f64)>,
) {
    brush(out, lo, [hi[0], hi[1], lo[2] + t], "FLOOR", false);
    brush(out, [lo[0], lo[1], hi[2] - t], hi, "CEILING", false);
    match window {
        None => brush(out, [lo[0], lo[1], lo[2]], [hi[0], lo[1] + t, hi[2]], "WALL", false),
        Some((x0, x1, z0, z1)) => {
            brush(out, [lo[0], lo[1], lo[2]], [x0, lo[1] + t, hi[2]], "WALL", false);
            brush(out, [x1, lo[1], lo[2]], [hi[0], lo[1] + t, hi[2]], "WALL", false);
            brush(out, [x0, lo[1], lo[2]], [x1, lo[1] + t, z0], "WALL", false);
            brush(out, [x0, lo[1], z1], [x1, lo[1] + t, hi[2]], "WALL", false);
        }
    }
    brush(out, [lo[0], hi[1] - t, lo[2]], [hi[0], hi[1], hi[2]], "WALL", false);
    for plus_x in [false, true] {
        let (x0, x1) = if plus_x { (hi[0] - t, hi[0]) } else { (lo[0], lo[0] + t) };
        match doors.iter().find(|d| d.0 == plus_x) {
            None => brush(out, [x0, lo[1], lo[2]], [x1, hi[1], hi[2]], "WALL", false),
            Some(&(_, y0, y1, h)) => {
                brush(out, [x0, lo[1], lo[2]], [x1, y0, hi[2]], "WALL", false);
                brush(out, [x0, y1, lo[2]], [x1, hi[1], hi[2]], "WALL", false);
                brush(out, [x0, y0, lo[2] + t + h], [x1, y1, hi[2]], "WALL", false);
            }
        }
    }
}

fn map(body: &str) -> String {
    format!("// made by the test\n{{\n\"classname\" \"worldspawn\"\n\"geometry_scale\" \"32\"\n{body}}}\n")
}

/// No drawn face may have its middle inside another solid brush.
fn assert_no_face_inside_a_solid(i: &Interior) {
    for f in &i.faces {
        let mid = f.points.iter().copied().sum::<DVec3>() / f.points.len() as f64 - f.normal * 1e-3;
        let inside = i.brushes.iter().enumerate().any(|(k, b)| {
            k != f.brush && b.kind == BrushKind::Solid && b.contains(mid + f.normal * 2e-3, -1e-6)
        });
        assert!(!inside, "face of brush {} at {mid} is inside another solid", f.brush);
    }
}

fn area(i: &Interior) -> f64 {
    i.faces.iter().map(|f| f.area()).sum()
}

#[test]
fn a_single_box_has_six_faces_and_no_zone_inside() {
    let mut body = String::new();
    brush(&mut body, [0.0, 0.0, 0.0], [2.0, 3.0, 4.0], "STONE", false);
    let i = Interior::from_map_text(&map(&body)).unwrap();
    assert_eq!(i.faces.len(), 6);
    assert!((area(&i) - 2.0 * (6.0 + 8.0 + 12.0)).abs() < 1e-6, "{}", area(&i));
    assert_eq!(i.materials, vec!["STONE"]);
    assert_eq!(i.zone_count, 0);
    assert_eq!(i.find_zone(DVec3::new(1.0, 1.5, 2.0)), None, "inside the solid");
    assert_eq!(i.find_zone(DVec3::new(5.0, 5.0, 5.0)), Some(0), "outside");
    // The other winding imports the same.
    let mut flipped = String::new();
    brush(&mut flipped, [0.0, 0.0, 0.0], [2.0, 3.0, 4.0], "STONE", true);
    let j = Interior::from_map_text(&map(&flipped)).unwrap();
    assert!((area(&j) - area(&i)).abs() < 1e-9);
}

#[test]
fn a_box_room_keeps_inner_and_outer_faces_only_and_is_one_zone() {
    let mut body = String::new();
    room(&mut body, [0.0, 0.0, 0.0], [10.0, 8.0, 4.0], 0.5, &[], None);
    let i = Interior::from_map_text(&map(&body)).unwrap();
    assert_no_face_inside_a_solid(&i);
    // What is seen: the outside of a 10×8×4 box and the inside of a 9×7×3 one; the wall ends
    // pressed into each other are gone.
    let outer = 2.0 * (10.0 * 8.0 + 10.0 * 4.0 + 8.0 * 4.0);
    let inner = 2.0 * (9.0 * 7.0 + 9.0 * 3.0 + 7.0 * 3.0);
    assert!((area(&i) - (outer + inner)).abs() < 1e-6, "area {} want {}", area(&i), outer + inner);
    assert_eq!(i.zone_count, 1);
    assert_eq!(i.find_zone(DVec3::new(5.0, 4.0, 2.0)), Some(1));
    assert_eq!(i.find_zone(DVec3::new(-3.0, 4.0, 2.0)), Some(0));
    assert!(i.portals.is_empty() && i.problems.is_empty(), "{:?}", i.problems);
}

#[test]
fn an_l_shaped_corridor_is_one_zone_with_no_hidden_faces() {
    // Two arms, 2 m wide inside, joined at the corner, built from overlapping slabs.
    let mut body = String::new();
    brush(&mut body, [0.0, 0.0, 0.0], [12.0, 12.0, 0.5], "FLOOR", false);
    brush(&mut body, [0.0, 0.0, 3.5], [12.0, 12.0, 4.0], "CEILING", false);
    // Arm A along x (y 0..3), arm B along y (x 9..12); walls 0.5 m thick.
    brush(&mut body, [0.0, 0.0, 0.0], [12.0, 0.5, 4.0], "WALL", false); // A outer (south)
    brush(&mut body, [0.0, 0.0, 0.0], [0.5, 3.0, 4.0], "WALL", false); // A end (west)
    brush(&mut body, [0.0, 2.5, 0.0], [9.5, 12.0, 4.0], "WALL", false); // the block inside the L
    brush(&mut body, [11.5, 0.0, 0.0], [12.0, 12.0, 4.0], "WALL", false); // B outer (east)
    brush(&mut body, [9.0, 11.5, 0.0], [12.0, 12.0, 4.0], "WALL", false); // B end (north)
    let i = Interior::from_map_text(&map(&body)).unwrap();
    assert_no_face_inside_a_solid(&i);
    assert_eq!(i.zone_count, 1, "{:?}", i.problems);
    let a = i.find_zone(DVec3::new(2.0, 1.5, 2.0));
    let b = i.find_zone(DVec3::new(10.5, 10.0, 2.0));
    assert_eq!((a, b), (Some(1), Some(1)), "both arms are one zone");
    // The corridor's floor seen from inside: the L's area (2 m wide arms).
    let floor_inside: f64 = i
        .faces
        .iter()
        .filter(|f| f.normal.z > 0.9 && (f.points[0].z - 0.5).abs() < 1e-9)
        .map(|f| f.area())
        .sum();
    let want = 11.0 * 2.0 + 2.0 * 9.0; // arm A: x 0.5..11.5, y 0.5..2.5; arm B: y 2.5..11.5, x 9.5..11.5
    assert!((floor_inside - want).abs() < 1e-6, "floor {floor_inside} want {want}");
}

/// Two rooms side by side sharing the wall at x = 10, a door in it filled by a portal brush,
/// and a door from the second room to the outside filled by another.
fn two_rooms() -> String {
    two_rooms_with(false)
}

/// [`two_rooms`], with a glass window in the first room's south wall (x 3..7, z 1.3..2.8)
/// when `window`: a window brush, and a light in each room (the example game's building).
fn two_rooms_with(window: bool) -> String {
    let mut body = String::new();
    let hole = window.then_some((3.0, 7.0, 1.3, 2.8));
    room(&mut body, [0.0, 0.0, 0.0], [10.0, 8.0, 4.0], 0.5, &[(true, 3.0, 5.0, 2.5)], hole);
    room(
        &mut body,
        [10.0, 0.0, 0.0],
        [20.0, 8.0, 4.0],
        0.5,
        &[(false, 3.0, 5.0, 2.5), (true, 3.0, 5.0, 2.5)],
        None,
    );
    let mut portals = String::new();
    brush(&mut portals, [9.5, 3.0, 0.5], [10.5, 5.0, 3.0], "PORTAL", false);
    brush(&mut portals, [19.5, 3.0, 0.5], [20.0, 5.0, 3.0], "PORTAL", false);
    if window {
        brush(&mut portals, [3.0, 0.0, 1.3], [7.0, 0.5, 2.8], "WINDOW", false);
    }
    let mut out = format!("{}{{\n\"classname\" \"portal\"\n{portals}}}\n", map(&body));
    if window {
        // The example's building is lit inside: a warm light under room 1's ceiling and a
        // cooler one in room 2 (baked into its lightmaps at load).
        for (origin, color) in [("160 128 104", "255 214 160"), ("480 128 104", "190 210 255")] {
            out.push_str(&format!(
                "{{\n\"classname\" \"light\"\n\"origin\" \"{origin}\"\n\"light\" \"360\"\n\"_color\" \"{color}\"\n}}\n"
            ));
        }
    }
    out
}

#[test]
fn two_rooms_joined_by_a_portal_are_two_zones() {
    let i = Interior::from_map_text(&two_rooms()).unwrap();
    assert_no_face_inside_a_solid(&i);
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    assert_eq!(i.zone_count, 2);
    let z1 = i.find_zone(DVec3::new(5.0, 4.0, 2.0)).unwrap();
    let z2 = i.find_zone(DVec3::new(15.0, 4.0, 2.0)).unwrap();
    assert!(z1 != z2 && z1 > 0 && z2 > 0);
    let mut joins: Vec<(u16, u16)> = i.portals.iter().map(|p| p.zones).collect();
    joins.sort_unstable();
    assert_eq!(joins, vec![(0, z2), (z1.min(z2), z1.max(z2))]);
    for p in &i.portals {
        assert_eq!(i.brushes[p.brush].kind, BrushKind::Portal);
        assert!(
            (v12_world::interior::Face {
                points: p.polygon.clone(),
                normal: DVec3::X,
                material: 0,
                brush: 0
            }
            .area()
                - 2.5 * 2.0)
                .abs()
                < 1e-6
        );
    }
    // The portal is not drawn and not solid: a ray through the door passes.
    let through = i.cast_ray(Vec3::new(5.0, 4.0, 1.5), Vec3::new(15.0, 4.0, 1.5));
    assert!(through.is_none(), "{through:?}");
    let wall = i.cast_ray(Vec3::new(5.0, 1.5, 1.5), Vec3::new(15.0, 1.5, 1.5)).unwrap();
    assert!((wall.t - 4.5 / 10.0).abs() < 1e-5 && wall.normal == Vec3::NEG_X, "{wall:?}");
    let zones = i.zones_touching(DVec3::new(9.0, 3.5, 1.0), DVec3::new(11.0, 4.5, 2.0));
    assert_eq!(
        zones,
        {
            let mut v = vec![z1, z2];
            v.sort_unstable();
            v
        },
        "a box in the doorway is in both rooms"
    );
}

#[test]
fn a_window_is_a_portal_of_solid_glass_drawn_from_both_sides() {
    let i = Interior::from_map_text(&two_rooms_with(true)).unwrap();
    assert_no_face_inside_a_solid(&i);
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    assert_eq!(i.zone_count, 2);
    let z1 = i.find_zone(DVec3::new(5.0, 4.0, 2.0)).unwrap();
    assert_eq!(i.portals.len(), 3);
    // The window joins room 1 to the outside but is solid glass, drawn from both sides.
    let window = i.portals.iter().find(|p| i.brushes[p.brush].kind == BrushKind::Window).unwrap();
    assert_eq!(window.zones, (0, z1));
    let glass = i.cast_ray(Vec3::new(5.0, -2.0, 2.0), Vec3::new(5.0, 4.0, 2.0)).unwrap();
    assert!((glass.t - 2.0 / 6.0).abs() < 1e-5 && glass.normal == Vec3::NEG_Y, "{glass:?}");
    let pane = i.materials.iter().position(|m| m == "WINDOW").unwrap() as u16;
    let mut sides: Vec<Option<u16>> =
        i.faces.iter().zip(&i.face_zones).filter(|(f, _)| f.material == pane).map(|(_, z)| *z).collect();
    sides.sort_unstable();
    assert_eq!(sides, vec![Some(0), Some(z1)], "the outer pane seen from outside, the inner from the room");
    // The portal's plane faces into the room (a camera outside sees through it).
    assert_eq!(window.plane.normal, DVec3::Y);
}

#[test]
fn boxes_sweep_into_walls_and_stand_on_floors() {
    let i = Interior::from_map_text(&two_rooms()).unwrap();
    let half = Vec3::new(0.4, 0.4, 0.9);
    // Falling onto the floor (top at 0.5 m): stops with its bottom on it.
    let c = Vec3::new(5.0, 4.0, 2.5);
    let hit = i.sweep_box(c, half, Vec3::new(0.0, 0.0, -3.0)).unwrap();
    let bottom = c.z - 3.0 * hit.t - half.z;
    assert!((bottom - 0.5).abs() < 1e-4 && hit.normal == Vec3::Z, "{hit:?} bottom {bottom}");
    // Walking into the wall at y = 0.5.
    let c = Vec3::new(5.0, 4.0, 1.5);
    let hit = i.sweep_box(c, half, Vec3::new(0.0, -6.0, 0.0)).unwrap();
    let edge = c.y - 6.0 * hit.t - half.y;
    assert!((edge - 0.5).abs() < 1e-4 && hit.normal == Vec3::Y, "{hit:?}");
    // Through the door into the next room: nothing in the way.
    assert!(i.sweep_box(Vec3::new(5.0, 4.0, 1.5), half, Vec3::new(10.0, 0.0, 0.0)).is_none());
    // Too tall for the 2.5 m door: stopped by the lintel.
    let tall = Vec3::new(0.4, 0.4, 1.4);
    assert!(i.sweep_box(Vec3::new(5.0, 4.0, 1.95), tall, Vec3::new(10.0, 0.0, 0.0)).is_some());
}

#[test]
fn instances_place_one_interior_in_the_world_and_the_container_hits_them() {
    let interior = std::sync::Arc::new(Interior::from_map_text(&two_rooms()).unwrap());
    let turned = InteriorInstance::new(
        interior.clone(),
        Vec3::new(100.0, 50.0, 10.0),
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
    );
    let plain = InteriorInstance::new(interior.clone(), Vec3::new(-200.0, 0.0, 0.0), Quat::IDENTITY);
    assert!(std::sync::Arc::ptr_eq(&turned.interior, &plain.interior), "one InteriorResource, two instances");
    // Turned a quarter: the room's (5, 4) is at world (100 - 4, 50 + 5).
    assert_eq!(turned.find_zone(Vec3::new(96.0, 55.0, 12.0)), interior.find_zone(DVec3::new(5.0, 4.0, 2.0)));
    let hit = turned.cast_ray(Vec3::new(96.0, 55.0, 30.0), Vec3::new(96.0, 55.0, 0.0)).unwrap();
    assert!((30.0 - 30.0 * hit.t - 14.0).abs() < 1e-3, "the roof's top at 14 m: {hit:?}");
    assert!((hit.normal - Vec3::Z).length() < 1e-5);
    let b = turned.world_bounds();
    assert!(
        (b.min - Vec3::new(92.0, 50.0, 10.0)).length() < 1e-3
            && (b.max - Vec3::new(100.0, 70.0, 14.0)).length() < 1e-3,
        "{b:?}"
    );
    let mut c = Container::default();
    v12_world::add_interior_to_container(&mut c, 9, Rc::new(turned));
    let h = c
        .cast_ray(Vec3::new(96.0, 55.0, 30.0), Vec3::new(96.0, 55.0, 0.0), type_masks::INTERIOR, None)
        .unwrap();
    assert_eq!(h.id, 9);
    assert!(
        c.cast_ray(Vec3::new(96.0, 55.0, 30.0), Vec3::new(96.0, 55.0, 0.0), type_masks::TERRAIN, None)
            .is_none()
    );
}

#[test]
fn hostile_and_broken_maps_are_errors_that_name_the_line() {
    let e = Interior::from_map_text("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 1 1 1 )").unwrap_err();
    assert!(e.starts_with("line 4"), "{e}");
    assert!(Interior::from_map_text("").unwrap_err().contains("no brushes"));
    assert!(Interior::from_map_text("{ \"classname\" }").is_err());
    assert!(Interior::from_map_text("{ { ( 0 0 0 ) ( 1 0 0 ) ( 2 0 0 ) A ( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) A ( 1 0 0 ) ( 0 1 0 ) ( 0 0 1 ) A ( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) A } }")
        .unwrap_err()
        .contains("one line"));
    assert!(
        Interior::from_map_text("{ { ( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) A } }")
            .unwrap_err()
            .contains("at least 4 faces")
    );
    assert!(
        Interior::from_map_text("{ { ( 1e300 0 0 ) ( 1 0 0 ) ( 0 1 0 ) A } }")
            .unwrap_err()
            .contains("coordinate")
    );
    assert!(Interior::from_map_text("{ { ( nan 0 0 ) ( 1 0 0 ) ( 0 1 0 ) A } }").is_err());
    // Four planes that bound nothing (all facing one way).
    let open = "{ { ( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) A ( 0 0 1 ) ( 0 1 1 ) ( 1 0 1 ) A ( 0 0 2 ) ( 0 1 2 ) ( 1 0 2 ) A ( 0 0 3 ) ( 0 1 3 ) ( 1 0 3 ) A } }";
    assert!(Interior::from_map_text(open).is_err());
    let too_many = "{ ".repeat(3) + &"( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) A ".repeat(70);
    assert!(Interior::from_map_text(&too_many).is_err());
    let parsed = map_file::parse("{\n\"classname\" \"worldspawn\" // a comment\n}\n").unwrap();
    assert_eq!(parsed[0].get("CLASSNAME"), Some("worldspawn"));
}

#[test]
fn the_two_rooms_data_files_are_what_the_builder_makes() {
    for (name, window) in [("two_rooms.map", false), ("two_rooms_window.map", true)] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(name);
        let file = std::fs::read_to_string(&path).unwrap();
        let body: String =
            file.lines().skip_while(|l| l.starts_with("//")).map(|l| format!("{l}\n")).collect();
        let made: String = two_rooms_with(window).lines().skip(1).map(|l| format!("{l}\n")).collect();
        if std::env::var_os("V12_BLESS").is_some() && body != made {
            let comments: String =
                file.lines().take_while(|l| l.starts_with("//")).map(|l| format!("{l}\n")).collect();
            std::fs::write(&path, comments + &made).unwrap();
            continue;
        }
        assert_eq!(body, made, "{name}: run with V12_BLESS=1 to rewrite it");
    }
}
