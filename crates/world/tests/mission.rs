//! Missions: a `.mis` script creates a terrain block and an interior, which load through the
//! resource manager and enter the container and the scene graph; a listen server's two
//! consoles share one instance of each; deleting the mission takes them out; a file that does
//! not load is a console error naming it.

use std::cell::RefCell;
use std::rc::Rc;

use v12_console_vm::{BufferSink, Console, Level};
use v12_resource::ResourceManager;
use v12_sim::container::{ScriptContainer, register_container_functions};
use v12_world::{MissionHandle, MissionWorld, TerrainBlock, ZoneRef, register_mission_classes, terrain_file};

const MISSION: &str = r#"
// A mission as Tribes 2 wrote them.
new SimGroup(MissionGroup) {
   new TerrainBlock(Terrain) {
      terrainFile = "terrains/hills.ter";
      squareSize = 8;
   };
   new InteriorInstance(Base) {
      interiorFile = "interiors/two_rooms.map";
      position = "100 100 20";
      rotation = "0 0 1 90";
   };
   new Sky(Sky) { materialList = "skies/sunset.dml"; visibleDistance = 800; };
   new MissionArea(MissionArea) { area = "-200 -200 400 400"; };
};
"#;

struct Mod(std::path::PathBuf);

impl Mod {
    /// A fresh mod folder (one per call: the tests run in parallel).
    fn new() -> Self {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("v12-world-mission-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("terrains")).unwrap();
        std::fs::create_dir_all(dir.join("interiors")).unwrap();
        let mut t = TerrainBlock::flat(8.0, 10.0);
        t.set_height(20, 20, 30.0);
        std::fs::write(dir.join("terrains/hills.ter"), terrain_file::write(&t)).unwrap();
        std::fs::write(dir.join("interiors/two_rooms.map"), include_str!("../data/two_rooms.map")).unwrap();
        Mod(dir)
    }
    fn resources(&self) -> Rc<ResourceManager> {
        let mut res = ResourceManager::new();
        res.add_mod(&self.0).unwrap();
        v12_world::register_loaders(&mut res);
        Rc::new(res)
    }
}

impl Drop for Mod {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn console(res: Rc<ResourceManager>) -> (Console, MissionHandle, BufferSink) {
    let mut con = Console::new();
    let sink = BufferSink::new();
    con.set_output(Box::new(sink.clone()));
    let container = Rc::new(RefCell::new(ScriptContainer::default()));
    register_container_functions(&mut con, container.clone());
    let world = MissionWorld::new(res, container);
    register_mission_classes(&mut con, world.clone());
    (con, world, sink)
}

#[test]
fn a_mission_builds_the_world_and_deleting_it_takes_it_down() {
    let m = Mod::new();
    let (mut con, world, sink) = console(m.resources());
    con.eval(MISSION).unwrap();
    let errors: Vec<String> =
        sink.lines().into_iter().filter(|(l, _)| *l == Level::Error).map(|(_, t)| t).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let terrain = con.find_object_str("Terrain").unwrap();
    let base = con.find_object_str("Base").unwrap();
    assert_eq!(con.eval("return MissionGroup.getCount();").unwrap().to_string(), "4");
    {
        let w = world.borrow();
        assert_eq!((w.terrains.len(), w.interiors.len()), (1, 1));
        assert_eq!(w.terrain_height(160.0, 160.0), Some(30.0), "the hill at grid point (20, 20)");
        // Turned 90° about z and moved to (100, 100, 20): room 1's (5, 4) is at (96, 105).
        assert_eq!(w.scene.find_zone(glam::Vec3::new(96.0, 105.0, 22.0)).map(|z| z.owner), Some(Some(base)));
        assert_eq!(w.scene.find_zone(glam::Vec3::new(0.0, 0.0, 15.0)), Some(ZoneRef::OUTSIDE));
    }
    let ground = con
        .eval("return containerRayCast(\"160 160 100\", \"160 160 0\", $TypeMasks::TerrainObjectType);")
        .unwrap()
        .to_string();
    assert_eq!(ground.split(' ').next(), Some(terrain.to_string().as_str()), "{ground}");
    assert_eq!(ground.split(' ').nth(3), Some("30"), "{ground}");
    let roof = con
        .eval("return containerRayCast(\"96 105 100\", \"96 105 0\", $TypeMasks::TerrainObjectType | $TypeMasks::InteriorObjectType);")
        .unwrap()
        .to_string();
    assert_eq!(
        roof.split(' ').next(),
        Some(base.to_string().as_str()),
        "the roof is hit before the ground: {roof}"
    );
    assert_eq!(roof.split(' ').nth(3), Some("24"), "the roof's top at 20 + 4 m: {roof}");

    con.eval("MissionGroup.delete();").unwrap();
    let w = world.borrow();
    assert!(w.terrains.is_empty() && w.interiors.is_empty());
    assert!(w.scene.find_zone(glam::Vec3::new(96.0, 105.0, 22.0)) == Some(ZoneRef::OUTSIDE));
    drop(w);
    assert_eq!(
        con.eval("return containerRayCast(\"160 160 100\", \"160 160 0\", -1);").unwrap().to_string(),
        "0"
    );
}

#[test]
fn a_listen_servers_two_sides_share_one_terrain_and_one_interior() {
    let m = Mod::new();
    let res = m.resources();
    let (mut server, server_world, _) = console(res.clone());
    let (mut client, client_world, _) = console(res);
    server.eval(MISSION).unwrap();
    client.eval(MISSION).unwrap();
    let (s, c) = (server_world.borrow(), client_world.borrow());
    let st = s.terrains.values().next().unwrap();
    let ct = c.terrains.values().next().unwrap();
    assert!(Rc::ptr_eq(st, ct), "one terrain instance");
    let si = s.interiors.values().next().unwrap();
    let ci = c.interiors.values().next().unwrap();
    assert!(std::sync::Arc::ptr_eq(&si.interior, &ci.interior), "one interior resource");
}

#[test]
fn files_that_do_not_load_are_console_errors_naming_them() {
    let m = Mod::new();
    let (mut con, world, sink) = console(m.resources());
    con.eval("new InteriorInstance(Bad) { interiorFile = \"interiors/nope.map\"; }; new TerrainBlock(T2) { terrainFile = \"terrains/missing.ter\"; };")
        .unwrap();
    let errors: Vec<String> =
        sink.lines().into_iter().filter(|(l, _)| *l == Level::Error).map(|(_, t)| t).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("interiors/nope.map") && errors[1].contains("terrains/missing.ter"),
        "{errors:?}"
    );
    assert!(con.find_object_str("Bad").is_some(), "the object stays, with nothing in the world");
    let w = world.borrow();
    assert!(w.terrains.is_empty() && w.interiors.is_empty());
}

/// A `Sky` enters the world with its fields, clamped; junk keeps the defaults with a warning.
#[test]
fn a_sky_takes_its_fields_and_junk_is_a_warning() {
    let m = Mod::new();
    let (mut con, world, sink) = console(m.resources());
    con.eval("new Sky(Good) { visibleDistance = 800; fogDistance = 9000; fogColor = \"0.2 0.3 2\"; };")
        .unwrap();
    let good = world.borrow().sky().expect("a sky");
    assert_eq!(
        (good.visible_distance, good.fog_distance),
        (800.0, 800.0),
        "fog clamped to the visible distance"
    );
    assert_eq!(good.fog_color, glam::Vec3::new(0.2, 0.3, 1.0));
    con.eval("Good.delete(); new Sky(Bad) { visibleDistance = \"far\"; fogColor = \"blue\"; };").unwrap();
    let bad = world.borrow().sky().expect("a sky");
    assert_eq!(bad, v12_world::SkyParams::default());
    let warnings: Vec<String> =
        sink.lines().into_iter().filter(|(l, _)| *l == Level::Warning).map(|(_, t)| t).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("visibleDistance") && warnings[1].contains("fogColor"), "{warnings:?}");
}

/// The server's world objects as the ghost manager sees them.
struct Ghosts(Vec<v12_world::mission::WorldObjectGhost>);

impl v12_netobject::ghost::GhostWorld for Ghosts {
    fn object(&self, id: v12_netobject::ghost::ObjectId) -> Option<&dyn v12_netobject::ghost::NetObject> {
        self.0.get(id.0 as usize).map(|g| g as &dyn v12_netobject::ghost::NetObject)
    }
}

#[test]
fn a_loaded_mission_ghosts_to_a_client_that_builds_the_same_world_from_its_own_files() {
    use v12_netobject::ghost::{
        CameraScopeQuery, GhostClassRegistryBuilder, GhostConfig, GhostManager, GhostReceiver, ObjectId,
    };
    use v12_world::mission::{WorldGhosts, WorldObjectGhost};
    let server_mod = Mod::new();
    let (mut server, server_world, _) = console(server_mod.resources());
    server.eval(MISSION).unwrap();
    server
        .eval(
            r#"new WaterBlock(Pond) { position = "10 10 0"; scale = "40 30 12"; liquidType = "Lava";
               seedPoints = "0.5 0.5"; waveMagnitude = "0.3"; surfaceTexture = "liquidTiles/lava";
               density = 2.5; viscosity = 7; };
               Sky.fogVolume1 = "120 0 40"; Sky.delete(); new Sky(Sky) { fogVolume1 = "120 0 40"; };"#,
        )
        .unwrap();
    let ids = [
        server.find_object_str("Terrain").unwrap(),
        server.find_object_str("Base").unwrap(),
        server.find_object_str("Pond").unwrap(),
        server.find_object_str("Sky").unwrap(),
    ];
    let ghosts = Ghosts(ids.iter().map(|&id| server_world.borrow().ghost_of(id).unwrap()).collect());
    assert_eq!(ghosts.0[1].file, "interiors/two_rooms.map");

    let classes =
        std::sync::Arc::new(GhostClassRegistryBuilder::new().register::<WorldObjectGhost>().build().unwrap());
    let mut manager = GhostManager::new(GhostConfig::default(), classes.clone());
    manager.start_ghosting();
    // A remote client: its own copy of the files, its own resource manager and world.
    let client_mod = Mod::new();
    let client_world =
        MissionWorld::new(client_mod.resources(), Rc::new(RefCell::new(ScriptContainer::default())));
    let mut arena = WorldGhosts::new(client_world.clone());
    let mut receiver = GhostReceiver::new(classes);
    for _ in 0..10 {
        manager.begin_scope(CameraScopeQuery::default());
        for i in 0..ghosts.0.len() {
            manager.object_in_scope(&ghosts, ObjectId(i as u32));
        }
        manager.end_scope();
        let mut w = v12_bitstream::BitWriter::with_budget_bytes(1400);
        let record = manager.write_packet(&ghosts, &mut w);
        let bytes = w.into_bytes();
        receiver.read_packet(&mut arena, &mut v12_bitstream::BitReader::new(&bytes)).unwrap();
        manager.packet_delivered(record);
    }
    assert!(arena.problems.is_empty(), "{:?}", arena.problems);
    let (s, c) = (server_world.borrow(), client_world.borrow());
    assert_eq!((c.terrains.len(), c.interiors.len()), (1, 1));
    for (x, y) in [(160.0, 160.0), (3.0, 700.0), (-55.5, 12.25)] {
        assert_eq!(s.terrain_height(x, y), c.terrain_height(x, y), "terrain at ({x}, {y})");
    }
    for p in [
        glam::Vec3::new(96.0, 105.0, 22.0),
        glam::Vec3::new(96.0, 115.0, 22.0),
        glam::Vec3::new(0.0, 0.0, 15.0),
    ] {
        assert_eq!(s.scene.find_zone(p).map(|z| z.zone), c.scene.find_zone(p).map(|z| z.zone), "zone at {p}");
    }
    let ray = |w: &MissionWorld| {
        w.container
            .borrow_mut()
            .container
            .cast_ray(glam::Vec3::new(96.0, 105.0, 100.0), glam::Vec3::new(96.0, 105.0, 0.0), !0, None)
            .map(|h| h.point)
    };
    assert_eq!(ray(&s), ray(&c), "the same roof on both sides");
    assert_eq!(c.waters.values().next(), s.waters.values().next(), "the same water block");
    let pond = c.waters.values().next().unwrap();
    assert_eq!((pond.density, pond.viscosity), (Some(2.5), Some(7.0)), "the liquid's own, on the wire");
    assert_eq!(c.sky().map(|k| k.fog_volumes), s.sky().map(|k| k.fog_volumes));
    assert_eq!(c.sky().unwrap().fog_volumes[0].top, 40.0);
}

/// Tribes 2's water and sky declarations as its missions wrote them: a WaterBlock with its
/// stock fields and a Sky with fog volumes instantiate; the water's seed fill, its liquid's
/// colour and the fog layers are read; junk is a warning and the default.
#[test]
fn tribes_2_water_blocks_and_sky_fog_volumes_instantiate() {
    let m = Mod::new();
    let (mut con, world, sink) = console(m.resources());
    con.eval(
        r#"
        new SimGroup(MissionGroup) {
           new TerrainBlock(Terrain) { terrainFile = "terrains/hills.ter"; squareSize = 8; };
           new WaterBlock(Lake) {
              position = "-1024 -1024 0"; rotation = "1 0 0 0"; scale = "2048 2048 35";
              liquidType = "OceanWater"; density = "1"; viscosity = "5"; waveMagnitude = "0";
              surfaceTexture = "LiquidTiles/BlueWater"; surfaceOpacity = "0.5";
              envMapTexture = "lush/skies/lushcloud3"; envMapIntensity = "0.15";
              removeWetEdges = "1"; AudioEnvironment = Underwater;
              submergeTexture[0] = "special/cloudflash"; submergeTexture[1] = "special/cloudflash4";
              floodFill = "1"; seedPoints = "0 0 1 0 1 1 0 1";
              params0 = "0.32 -0.67 0.066 0.5"; params1 = "0.63 -2.41 0.33 0.21";
              params2 = "0.39 0.39 0.2 0.133"; params3 = "1.21 -0.61 0.13 -0.33";
              extent = "100 100 10"; textureSize = "32 32"; useDepthMask = "1"; tile = "1";
              specularMaskTex = "TerrainTiles/seaspecular"; specularColor = "0.1 0.1 0.1 0.1";
              specularPower = "6"; locked = "true";
           };
           new WaterBlock(Lava) { position = "0 0 5"; scale = "64 64 10"; liquidType = "Lava";
              surfaceOpacity = "thick"; floodFill = "0"; };
           new Sky(Sky) {
              position = "-1216 -848 0"; cloudHeightPer[0] = "0.35"; cloudSpeed1 = "0.0001";
              visibleDistance = "500"; useSkyTextures = "0"; renderBottomTexture = "0";
              SkySolidColor = "0.39 0.39 0.39 0"; fogDistance = "300";
              fogColor = "0.6 0.6 0.6 1"; fogVolume1 = "150 0 80"; fogVolume2 = "0 0 0";
              fogVolume3 = "40 90 20"; materialList = "sky_ice_blue.dml"; windVelocity = "1 0 0";
              windEffectPrecipitation = "0";
              fogVolumeColor1 = "128.000000 128.000000 128.000000 0.000000";
              fogVolumeColor2 = "128 128 128 0"; fogVolumeColor3 = "255 0 0 255";
              high_visibleDistance = "-1"; high_fogDistance = "-1"; high_fogVolume1 = "-1 -1 -1";
              locked = "true";
           };
        };
        "#,
    )
    .unwrap();
    let lines: Vec<String> = sink.lines().into_iter().map(|(_, t)| t).collect();
    let all = lines.join("\n");
    assert!(!all.contains("Unable to instantiate"), "{all}");
    let lake = con.find_object_str("Lake").unwrap();
    let lava = con.find_object_str("Lava").unwrap();
    let w = world.borrow();
    let water = &w.waters[&lake];
    assert_eq!(water.surface_z(), 35.0);
    assert_eq!(water.seed_points.len(), 4);
    assert_eq!(water.surface_texture, "LiquidTiles/BlueWater");
    assert_eq!(water.surface_opacity, 0.5);
    // The terrain is at 10 m: the seed fill from the corners floods the block; a ground
    // above the surface keeps it dry.
    let cover = water.coverage(|x, y| w.terrain_height(x, y).unwrap_or(0.0));
    assert!(cover.is_wet_at(0.0, 0.0));
    assert_eq!(cover.wet_cells(), cover.nx * cover.ny);
    assert_eq!(water.coverage(|_, _| 40.0).wet_cells(), 0);
    let lava = &w.waters[&lava];
    assert!(!lava.flood_fill && lava.color.x > lava.color.z, "lava glows red");
    assert_eq!(lava.surface_opacity, 0.75, "junk keeps the default");
    assert!(all.contains("surfaceOpacity = \"thick\" is not a number"), "{all}");
    let sky = w.sky().unwrap();
    let [a, b, c] = sky.fog_volumes;
    assert_eq!((a.visible_distance, a.bottom, a.top), (150.0, 0.0, 80.0));
    assert_eq!(a.color, glam::Vec3::splat(0.6), "no alpha: the sky's fog colour");
    assert_eq!(b.visible_distance, 0.0, "\"0 0 0\" is no layer");
    assert_eq!(c.visible_distance, 0.0, "upside down: off");
    assert!(all.contains("fogVolume3"), "{all}");
}

#[test]
fn a_saved_mission_loads_back_to_the_same_world() {
    // Issue 36: the editors save missions with `SimObject::save`; the file builds the same
    // objects, fields and world again.
    let m = Mod::new();
    let (mut con, world, sink) = console(m.resources());
    con.set_file_root(&m.0);
    con.eval(MISSION).unwrap();
    let base = con.find_object_str("Base").unwrap();
    con.set_field_checked(base, "position", "110 100 20").unwrap();
    let first = con.save_object_text(con.find_object_str("MissionGroup").unwrap());
    assert!(
        con.eval("return MissionGroup.save(\"missions/saved.mis\");").unwrap().truthy(),
        "{:?}",
        sink.lines()
    );
    con.eval("MissionGroup.delete();").unwrap();
    assert!(world.borrow().interiors.is_empty());
    con.exec_file("missions/saved.mis").unwrap();
    let again = con.save_object_text(con.find_object_str("MissionGroup").unwrap());
    assert_eq!(first, again, "the same objects and fields");
    let w = world.borrow();
    assert_eq!((w.terrains.len(), w.interiors.len()), (1, 1));
    assert_eq!(w.terrain_height(160.0, 160.0), Some(30.0));
}
