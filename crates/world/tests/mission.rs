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
    assert!(Rc::ptr_eq(&si.interior, &ci.interior), "one interior resource");
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
    let ids = [server.find_object_str("Terrain").unwrap(), server.find_object_str("Base").unwrap()];
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
}
