//! Interiors drawn by zone: the two-room building seen from outside through its open door
//! (both rooms drawn), then with that door closed (neither room, the door instead), counted
//! and compared with goldens on llvmpipe.

mod common;

use common::golden;
use std::sync::Arc;

use glam::{Quat, Vec3};
use v12_render_gl::{Camera, ColorI, RectI, Scene, Shape};
use v12_render3d::{InteriorDrawStats, InteriorMesh, InteriorMeshes, build_interior_mesh};
use v12_world::{Interior, InteriorInstance, SceneGraph, WorldMaterial, ZoneRef};

const BUILDING: u32 = 7;

/// `world/data/two_rooms.map`: room 1 at x 0..10, room 2 at x 10..20, doors at y 3..5
/// between them and from room 2 out to +x.
fn building() -> (SceneGraph, Arc<InteriorInstance>) {
    building_from(include_str!("../../world/data/two_rooms.map"))
}

fn building_from(map: &str) -> (SceneGraph, Arc<InteriorInstance>) {
    let inst = Arc::new(InteriorInstance::new(
        Arc::new(Interior::from_map_text(map).unwrap()),
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
) -> (InteriorDrawStats, InteriorMesh, Vec<ZoneRef>) {
    let visible = g.visible_zones(eye);
    let mut tris = InteriorMesh::default();
    let stats = build_interior_mesh(g, BUILDING, inst, &visible, Vec3::new(-0.4, 0.6, -1.0), 0.35, &mut tris);
    (stats, tris, visible)
}

/// The interior's triangles on a patch of ground, each material with its texture (named as
/// the material; plain colours around the hue of each) and the doors in colour.
fn render(inst: &InteriorInstance, mesh: InteriorMesh, camera: &Camera) -> v12_render_gl::Image {
    render_with(inst, mesh, camera, Vec::new())
}

/// [`render`] with more shapes; a material named `WINDOW` is see-through glass.
fn render_with(
    inst: &InteriorInstance,
    mesh: InteriorMesh,
    camera: &Camera,
    more: Vec<Shape>,
) -> v12_render_gl::Image {
    render_shapes(inst, |m| mesh.into_shapes(m), camera, more)
}

/// [`render_with`] with the interior's shapes made by `interior` from its materials.
fn render_shapes(
    inst: &InteriorInstance,
    interior: impl FnOnce(&[WorldMaterial]) -> Vec<Shape>,
    camera: &Camera,
    more: Vec<Shape>,
) -> v12_render_gl::Image {
    let ground = Shape::Box {
        center: Vec3::new(10.0, 4.0, -0.5),
        half_extents: Vec3::new(40.0, 40.0, 0.5),
        rotation_z: 0.0,
        color: ColorI::rgb(70, 100, 60),
    };
    let mut shapes = vec![ground];
    shapes.extend(more);
    let hues = [[200, 190, 170, 255], [150, 120, 90, 255], [220, 220, 210, 255], [120, 130, 140, 255]];
    let names = &inst.interior.materials;
    let materials: Vec<WorldMaterial> = names
        .iter()
        .map(|n| WorldMaterial {
            name: n.clone(),
            texture: n.clone(),
            found: true,
            translucent: n == "WINDOW",
        })
        .collect();
    shapes.extend(interior(&materials));
    let glass = [170, 210, 230, 96];
    let textures: Vec<(&str, v12_render_gl::Image)> = names
        .iter()
        .zip(hues.iter().cycle())
        .map(|(n, &c)| (n.as_str(), common::speckled(if n == "WINDOW" { glass } else { c })))
        .collect();
    common::render_textured(&Scene { shapes, ..Scene::default() }, camera, 160, 120, &textures)
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
    let open_img = render(&inst, tris, &camera);
    golden("interior_open_door", &open_img);
    // Close the outer door (the portal to the outside).
    let outer = inst.interior.portals.iter().position(|p| p.zones.0 == 0).expect("a door to the outside");
    assert!(g.set_portal_open(BUILDING, outer, false));
    assert!(!g.set_portal_open(BUILDING, 99, false), "no such portal");
    let (closed, tris, visible) = draw(&g, &inst, eye);
    assert_eq!(visible, vec![ZoneRef::OUTSIDE]);
    assert_eq!((closed.zones, closed.doors), (0, 1));
    assert!(closed.faces < open.faces, "{} faces against {}", closed.faces, open.faces);
    let closed_img = render(&inst, tris, &camera);
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

/// The building with a window (`world/data/two_rooms_window.map`) seen from the south: room 1
/// is drawn through the glass, and a red figure standing in it shows through the pane, which
/// is drawn after it (tinted, not hidden).
#[test]
fn a_window_is_drawn_after_what_stands_behind_it() {
    let (g, inst) = building_from(include_str!("../../world/data/two_rooms_window.map"));
    let eye = Vec3::new(5.0, -7.0, 2.2);
    let camera = Camera::look_at(eye, Vec3::new(5.0, 4.0, 1.9), 1.2, 0.1, 200.0);
    let (stats, mesh, visible) = draw(&g, &inst, eye);
    assert!(
        visible.contains(&ZoneRef { owner: Some(BUILDING), zone: 1 }),
        "room 1 through the window: {visible:?}"
    );
    assert_eq!(stats.zones, 1);
    let figure = Shape::Box {
        center: Vec3::new(5.0, 3.0, 1.5),
        half_extents: Vec3::new(0.4, 0.4, 1.0),
        rotation_z: 0.0,
        color: ColorI::rgb(230, 30, 30),
    };
    let img = render_with(&inst, mesh, &camera, vec![figure]);
    golden("interior_window", &img);
    let vp = RectI::new(0, 0, 160, 120);
    let p = camera.point_to_screen(Vec3::new(5.0, 2.6, 2.0), vp).unwrap();
    let seen = img.get(p.x as u32, p.y as u32).unwrap();
    assert!(seen[0] > seen[1] + 30 && seen[0] > seen[2] + 20, "the red figure through the glass: {seen:?}");
    assert!(seen[2] > 40, "tinted by the glass drawn over it: {seen:?}");
}

/// The interior drawn from meshes that live on the GPU (each zone's faces a material, each
/// door) matches the same goldens: open door, closed door; and the window's glass sorted
/// with the figure behind it, the rooms lit by their lightmaps (their own golden); a steady
/// frame builds nothing.
#[test]
fn resident_interior_meshes_match_the_same_goldens() {
    let light = Vec3::new(-0.4, 0.6, -1.0);
    let resident = |g: &SceneGraph, eye: Vec3, cache: &mut InteriorMeshes, m: &[WorldMaterial]| {
        let mut out = Vec::new();
        let stats = cache.shapes(g, &g.visible_zones(eye), (light, 0.35), |_| m, |_, _| true, &mut out);
        (stats, out)
    };
    let (mut g, inst) = building();
    let eye = Vec3::new(26.0, 4.0, 1.6);
    let camera = Camera::look_at(eye, Vec3::new(0.0, 4.0, 1.4), 1.3, 0.1, 200.0);
    let mut cache = InteriorMeshes::new();
    let img = render_shapes(
        &inst,
        |m| {
            let (stats, out) = resident(&g, eye, &mut cache, m);
            assert_eq!((stats.zones, stats.doors), (2, 0));
            out
        },
        &camera,
        Vec::new(),
    );
    golden("interior_open_door", &img);
    let outer = inst.interior.portals.iter().position(|p| p.zones.0 == 0).expect("a door to the outside");
    g.set_portal_open(BUILDING, outer, false);
    let img = render_shapes(&inst, |m| resident(&g, eye, &mut cache, m).1, &camera, Vec::new());
    golden("interior_closed_door", &img);
    assert_eq!(cache.interiors_built, 1, "built once, drawn twice");
    let (g, inst) = building_from(include_str!("../../world/data/two_rooms_window.map"));
    let eye = Vec3::new(5.0, -7.0, 2.2);
    let camera = Camera::look_at(eye, Vec3::new(5.0, 4.0, 1.9), 1.2, 0.1, 200.0);
    let figure = Shape::Box {
        center: Vec3::new(5.0, 3.0, 1.5),
        half_extents: Vec3::new(0.4, 0.4, 1.0),
        rotation_z: 0.0,
        color: ColorI::rgb(230, 30, 30),
    };
    let mut cache = InteriorMeshes::new();
    let img = render_shapes(&inst, |m| resident(&g, eye, &mut cache, m).1, &camera, vec![figure]);
    // The resident path bakes the map's two lights into lightmaps (the meshes above do not):
    // room 1 lit by its own light, seen through the glass.
    assert!(inst.interior.lightmaps.is_some() && inst.interior.lights.len() == 2);
    golden("interior_window_lit", &img);
}

/// A box brush `lo..hi` (map units) in the `.map` syntax, every face `texture`.
fn box_brush(lo: [i32; 3], hi: [i32; 3], texture: &str) -> String {
    let ([lx, ly, lz], [hx, hy, hz]) = (lo, hi);
    format!(
        "{{\n( {hx} 32 0 ) ( {hx} 0 0 ) ( {hx} 0 32 ) {texture} 0 0 0 1 1\n\
         ( {lx} 0 32 ) ( {lx} 0 0 ) ( {lx} 32 0 ) {texture} 0 0 0 1 1\n\
         ( 0 {hy} 32 ) ( 0 {hy} 0 ) ( 32 {hy} 0 ) {texture} 0 0 0 1 1\n\
         ( 32 {ly} 0 ) ( 0 {ly} 0 ) ( 0 {ly} 32 ) {texture} 0 0 0 1 1\n\
         ( 32 0 {hz} ) ( 0 0 {hz} ) ( 0 32 {hz} ) {texture} 0 0 0 1 1\n\
         ( 0 32 {lz} ) ( 0 0 {lz} ) ( 32 0 {lz} ) {texture} 0 0 0 1 1\n}}\n"
    )
}

/// The two-room building with a light in room 1 (at (3, 4, 3) m) and a pillar beside it
/// (x 4.5..5.5, y 3.5..4.5): the light baked into lightmaps with the pillar's shadow.
fn lit_building() -> (SceneGraph, Arc<InteriorInstance>) {
    let mut map = include_str!("../../world/data/two_rooms.map").to_string();
    map.push_str("{\n\"classname\" \"func_group\"\n");
    map.push_str(&box_brush([144, 112, 16], [176, 144, 112], "WALL"));
    map.push_str("}\n{\n\"classname\" \"light\"\n\"origin\" \"96 128 96\"\n\"light\" \"420\"\n\"_color\" \"255 220 170\"\n}\n");
    building_from(&map)
}

/// A lit interior (golden): room 1 seen from its corner, dim but for its light, the floor
/// behind the pillar in the pillar's shadow; drawn from resident meshes with the lightmap
/// (uploaded once, shared by every instance of the interior).
#[test]
fn a_lit_interior_shows_its_lightmaps_shadows_golden() {
    let (g, inst) = lit_building();
    let maps = inst.interior.lightmaps.as_ref().expect("a map with a light has lightmaps");
    assert!(inst.interior.problems.is_empty(), "{:?}", inst.interior.problems);
    assert!(maps.faces.iter().filter(|f| f.is_some()).count() > 20);
    let eye = Vec3::new(1.0, 1.0, 3.0);
    let camera = Camera::look_at(eye, Vec3::new(7.5, 5.0, 0.5), 1.4, 0.05, 100.0);
    let visible = g.visible_zones(eye);
    let mut cache = InteriorMeshes::new();
    let light = (Vec3::new(-0.4, 0.6, -1.0), 0.2);
    let img = render_shapes(
        &inst,
        |m| {
            let mut out = Vec::new();
            cache.shapes(&g, &visible, light, |_| m, |_, _| true, &mut out);
            assert!(out.iter().any(|s| matches!(s, Shape::Lit { .. })));
            out
        },
        &camera,
        Vec::new(),
    );
    golden("interior_lightmap", &img);
    let vp = RectI::new(0, 0, 160, 120);
    let px = |p: Vec3| {
        let at = camera.point_to_screen(p, vp).unwrap();
        let c = img.get(at.x as u32, at.y as u32).unwrap();
        u32::from(c[0]) + u32::from(c[1]) + u32::from(c[2])
    };
    // Two floor points about as far from the light: one behind the pillar, one in the open.
    let (shadow, open) = (px(Vec3::new(7.0, 4.0, 0.5)), px(Vec3::new(6.0, 1.8, 0.5)));
    assert!(open > shadow + 60, "the pillar's shadow: {shadow} against {open} in the open");
    // Another instance of the same interior shares its lightmaps.
    let other = InteriorInstance::new(inst.interior.clone(), Vec3::new(50.0, 0.0, 0.0), Quat::IDENTITY);
    assert!(std::sync::Arc::ptr_eq(maps, other.interior.lightmaps.as_ref().unwrap()));
}

/// Bad lightmaps are drawn around, never a panic: coordinates missing for most vertices,
/// and a light entity with junk fields (a problem of the interior, the defaults used).
#[test]
fn broken_lightmaps_and_lights_are_drawn_around() {
    let (g, _inst) = lit_building();
    let eye = Vec3::new(1.0, 1.0, 3.0);
    let camera = Camera::look_at(eye, Vec3::new(7.5, 5.0, 0.5), 1.4, 0.05, 100.0);
    let visible = g.visible_zones(eye);
    let mut out = Vec::new();
    InteriorMeshes::new().shapes(&g, &visible, (Vec3::NEG_Z, 0.2), |_| &[], |_, _| true, &mut out);
    for s in &mut out {
        if let Shape::Lit { lightmap, .. } = s {
            lightmap.uvs = std::sync::Arc::new(vec![[f32::NAN, 2.0]; 4]);
        }
    }
    let img = common::render(&Scene { shapes: out, ..Scene::default() }, &camera, 64, 48);
    assert_eq!(img.width(), 64);
    let mut map = include_str!("../../world/data/two_rooms.map").to_string();
    map.push_str("{\n\"classname\" \"light\"\n\"origin\" \"a b c\"\n\"light\" \"-1\"\n\"_color\" \"x\"\n}\n");
    let broken = Interior::from_map_text(&map).unwrap();
    assert_eq!(broken.lights.len(), 1);
    assert_eq!(broken.problems.iter().filter(|p| p.contains("light")).count(), 3, "{:?}", broken.problems);
    assert!(broken.lightmaps.is_some());
}
