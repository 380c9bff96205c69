//! The example match's mission: `missions/arena.mis` loads through the game's files into a
//! terrain and a building, players stand and walk on it, and `terrains/arena.ter` is what its
//! README's formula makes.

use std::path::Path;

use glam::Vec3;
use v12_console_vm::{BufferSink, Console, Level};
use v12_sim::moves::Move;
use v12_sim::scene::ControlState;
use v12_world::terrain_file;

const MOD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/game");
/// The crater's middle (m), as terrains/README.md says.
const CRATER: (f64, f64) = (28.0, 22.0);

/// The README's formula: the height (m) and material of grid point / square (i, j).
fn arena(i: i64, j: i64) -> (f64, u8) {
    let (x, y) =
        ((if i < 128 { i } else { i - 256 }) as f64 * 8.0, (if j < 128 { j } else { j - 256 }) as f64 * 8.0);
    let d = x.abs().max(y.abs());
    let mut h = if d > 64.0 {
        ((d - 64.0) / 96.0).min(1.0) * (18.0 + 10.0 * (x * 0.013).sin() * (y * 0.011).cos())
    } else {
        0.0
    };
    // The crater: a rim 2 m high between 8 and 18.5 m from (28, 22).
    let r = (x - CRATER.0).hypot(y - CRATER.1);
    if (8.0..=18.5).contains(&r) {
        h = h.max(2.0);
    }
    let material = if d <= 48.0 {
        1
    } else if h > 22.0 {
        2
    } else {
        0
    };
    (h, material)
}

#[test]
fn the_arena_terrain_is_its_formula() {
    let path = Path::new(MOD).join("terrains/arena.ter");
    if std::env::var_os("V12_BLESS").is_some() {
        let (mut heights, mut materials) = (Vec::new(), Vec::new());
        for j in 0..256i64 {
            for i in 0..256i64 {
                let (h, m) = arena(i, j);
                heights.push((h * 32.0).round() as u16);
                materials.push(m);
            }
        }
        let names = vec!["Grass".to_string(), "Dirt".to_string(), "Rock".to_string()];
        let block = v12_world::TerrainBlock::from_parts(8.0, heights, materials, names).unwrap();
        std::fs::write(&path, terrain_file::write(&block)).unwrap();
    }
    let t = terrain_file::read(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(t.square_size(), 8.0);
    assert_eq!(t.material_names, ["Grass", "Dirt", "Rock"]);
    for j in 0..256i64 {
        for i in 0..256i64 {
            let (h, m) = arena(i, j);
            assert_eq!(t.raw_height(i, j), (h * 32.0).round() as u16, "grid point ({i}, {j})");
            assert_eq!(t.material(i, j), m, "square ({i}, {j})");
        }
    }
}

/// The example's building is the world crate's two rooms with a window, and every material
/// of the terrain and the building finds its bitmap beside the file; only the window's glass
/// is see-through.
#[test]
fn the_mission_materials_are_all_found() {
    let building = std::fs::read_to_string(Path::new(MOD).join("interiors/two_rooms.map")).unwrap();
    let data = include_str!("../../crates/world/data/two_rooms_window.map");
    let body = |s: &str| s.lines().filter(|l| !l.starts_with("//")).collect::<Vec<_>>().join("\n");
    assert_eq!(
        body(&building),
        body(data),
        "interiors/two_rooms.map is crates/world/data/two_rooms_window.map"
    );
    let mut con = Console::new();
    con.set_file_root(MOD);
    let resources = v12_game::mod_files::install(&mut con, Path::new(MOD), &[]).unwrap();
    let world = v12_game::mission::install(&mut con, resources);
    con.exec_file("missions/arena.mis").unwrap();
    let materials = v12_game::mission::world_materials(&world);
    assert_eq!(materials.len(), 2, "the terrain and the building");
    let mut names = Vec::new();
    for m in materials.values().flat_map(|m| m.iter()) {
        assert!(m.found, "{m:?}");
        assert_eq!(m.translucent, m.name == "WINDOW", "{m:?}");
        names.push(m.name.clone());
    }
    names.sort();
    assert_eq!(names, ["CEILING", "Dirt", "FLOOR", "Grass", "Rock", "WALL", "WINDOW"]);
}

#[test]
fn the_mission_loads_and_players_walk_on_it() {
    let mut con = Console::new();
    let sink = BufferSink::new();
    con.set_output(Box::new(sink.clone()));
    con.set_file_root(MOD);
    let resources = v12_game::mod_files::install(&mut con, Path::new(MOD), &[]).unwrap();
    let world = v12_game::mission::install(&mut con, resources);
    con.exec_file("missions/arena.mis").unwrap();
    let errors: Vec<String> =
        sink.lines().into_iter().filter(|(l, _)| *l == Level::Error).map(|(_, t)| t).collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(v12_game::mission::object_count(&world), 2);
    // The terrain, the building, the pond and the sky go to clients.
    assert_eq!(v12_game::mission::world_ghosts(&world).len(), 4);
    // The pond fills the crater and nothing past its rim, though the ground beyond is as
    // low as the crater's floor.
    let pond = world.borrow().waters.values().next().cloned().expect("the mission's WaterBlock");
    let cells = pond.coverage(|x, y| world.borrow().terrain_height(x, y).unwrap_or(0.0));
    assert!(cells.wet_cells() > 50, "{} wet cells", cells.wet_cells());
    assert!(cells.is_wet_at(CRATER.0 as f32, CRATER.1 as f32));
    for j in 0..cells.ny {
        for i in 0..cells.nx {
            let c = cells.cell_origin(i, j) + glam::Vec2::splat(cells.cell * 0.5);
            let r = c.distance(glam::Vec2::new(CRATER.0 as f32, CRATER.1 as f32));
            assert!(!cells.is_wet_cell(i, j) || r < 18.5, "cell ({i}, {j}) {r} m out is wet");
        }
    }
    assert!(!cells.is_wet_at(0.0, 0.0) && !cells.is_wet_at(CRATER.0 as f32 + 20.0, CRATER.1 as f32));
    let sky = world.borrow().sky().expect("the mission's Sky");
    assert_eq!((sky.visible_distance, sky.fog_distance), (500.0, 300.0));
    assert!(!v12_game::mission::interior_boxes(&world).is_empty());

    let ground = v12_world::MissionWorld::ground(&world);
    let m = v12_game::motion(
        v12_game::mission::loaded_ground(&world, &ground),
        v12_game::PlayerTuning::default(),
    );
    assert_eq!(m.gravity, 20.0);
    // Dropped in the arena: lands on the flat ground and stays.
    let mut s = ControlState { pos: Vec3::new(0.0, 0.0, 3.0), ..ControlState::default() };
    for _ in 0..60 {
        s.apply_move(&v12_sim::moves::NULL_MOVE, &m);
    }
    assert!(s.pos.z.abs() < 0.05, "{}", s.pos);
    // Walking north (yaw 0: +y) at x = 0 runs into the building's south wall (world y 42).
    let walk = Move::from_input(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, [false; 6]);
    for _ in 0..400 {
        s.apply_move(&walk, &m);
    }
    assert!((s.pos.y + m.half_extents.y - 42.0).abs() < 0.05, "stopped at the building: {}", s.pos);
    // A projectile's path (feet height, as the game throws them) stops at the wall too, and
    // one along the flat ground hits nothing.
    let hit = ground.cast_ray(Vec3::new(0.0, 30.0, 0.01), Vec3::new(0.0, 45.0, 0.01)).unwrap();
    assert!((30.0 + 15.0 * hit.0 - 42.0).abs() < 1e-3, "{hit:?}");
    assert!(ground.cast_ray(Vec3::new(-30.0, 0.0, 0.01), Vec3::new(30.0, 0.0, 0.01)).is_none());
    // Where objects are spawned: on the flat arena, on the hills beyond it, on the roof.
    use v12_game::mission::ground_height;
    assert_eq!(ground_height(Some(&ground), 10.0, -20.0), 0.0);
    assert!(ground_height(Some(&ground), 300.0, 300.0) > 5.0, "on a hill");
    assert!((ground_height(Some(&ground), 0.0, 46.0) - 3.5).abs() < 1e-3, "the roof's top at -0.5 + 4 m");
    assert_eq!(ground_height(None, 0.0, 46.0), 0.0);
}

/// The UI face is the game's `fonts/DejaVuSans.ttf` (the built-in default profile's
/// `fontType`), read through the resource manager; a default profile naming a face the game
/// does not ship keeps the built-in one.
#[test]
fn the_ui_font_comes_from_the_games_fonts_folder() {
    let (mut con, _remote, resources) =
        v12_game::client::screenshot::client_console(Path::new(MOD), "FontCheck").unwrap();
    let _ui = v12_game::client::ui::ClientUi::new(&mut con, 320, 240).unwrap();
    assert!(v12_game::mod_files::ui_font(&mut con, &resources).is_some());
    con.eval("new GuiControlProfile(GuiDefaultProfile) { fontType = \"NoSuchFace\"; };").unwrap();
    assert!(v12_game::mod_files::ui_font(&mut con, &resources).is_none(), "no file: the built-in face");
}
