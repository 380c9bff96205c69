//! Missions (V12: the `.mis` files of the world): scripts that create the world's objects,
//! as Tribes 2's did:
//!
//! ```text
//! new SimGroup(MissionGroup) {
//!    new TerrainBlock(Terrain) { terrainFile = "terrains/hills.ter"; squareSize = 8; };
//!    new InteriorInstance(Base) { interiorFile = "interiors/base.map"; position = "40 40 20"; };
//!    new Sky(Sky) { materialList = "skies/sunset.dml"; visibleDistance = 800; };
//! };
//! ```
//!
//! [`register_mission_classes`] gives the console the classes. A `TerrainBlock` or an
//! `InteriorInstance` loads its file through the resource manager when it is added, so a
//! listen server's server and client share one instance, and enters the [`MissionWorld`]: the
//! container (ray casts with `$TypeMasks::TerrainObjectType` / `InteriorObjectType`) and the
//! scene graph. Deleting it takes it out again. A file that does not load is a console error
//! naming the object and the file; the object stays, with nothing in the world.
//!
//! `position` is "x y z" and `rotation` is "ax ay az degrees" (an axis and an angle), as in
//! V12. A `Sky` (`visibleDistance`, `fogDistance`, `fogColor`) is ghosted to clients, whose
//! view draws its dome and fog; `Sun` and `MissionArea` are objects with fields only here.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use glam::{Quat, Vec3};
use v12_bitstream::{BitReader, BitWriter};
use v12_console_vm::{Console, FieldType, ObjectId, Value};
use v12_netobject::ghost::{
    GhostClientWorld, GhostError, GhostPackContext, GhostUnpackContext, NetFlags, NetObject, NetObjectClass,
    StateMask,
};
use v12_resource::ResourceManager;
use v12_sim::container::ContainerHandle;

use crate::materials::{WorldMaterial, find_materials};
use crate::{InteriorInstance, SceneGraph, TerrainBlock};

/// The world a mission builds: what its terrain blocks and interiors put in the container and
/// the scene graph, by object id.
#[derive(Debug)]
pub struct MissionWorld {
    pub resources: Rc<ResourceManager>,
    pub container: ContainerHandle,
    pub scene: SceneGraph,
    pub terrains: HashMap<ObjectId, Rc<TerrainBlock>>,
    pub interiors: HashMap<ObjectId, Arc<InteriorInstance>>,
    /// The mission's `Sky` objects: how far one sees and the fog.
    pub skies: HashMap<ObjectId, SkyParams>,
    /// The mission's `WaterBlock`s.
    pub waters: HashMap<ObjectId, crate::WaterBlock>,
    /// The file each object came from (what its ghost names).
    files: HashMap<ObjectId, String>,
    /// Each terrain's and interior's materials, found once when it is added.
    materials: HashMap<ObjectId, Rc<[WorldMaterial]>>,
}

/// The shared handle the console methods hold.
pub type MissionHandle = Rc<RefCell<MissionWorld>>;

impl MissionWorld {
    /// An empty world over these resources and this container.
    pub fn new(resources: Rc<ResourceManager>, container: ContainerHandle) -> MissionHandle {
        Rc::new(RefCell::new(MissionWorld {
            resources,
            container,
            scene: SceneGraph::new(),
            terrains: HashMap::new(),
            interiors: HashMap::new(),
            skies: HashMap::new(),
            waters: HashMap::new(),
            files: HashMap::new(),
            materials: HashMap::new(),
        }))
    }

    /// The world as ground for moving objects (`Motion::ground`): its terrain blocks and
    /// interiors, as they are when asked (a mission loaded later counts).
    pub fn ground(handle: &MissionHandle) -> Rc<dyn v12_sim::container::StaticGeometry> {
        Rc::new(WorldGround(handle.clone()))
    }

    /// The terrain height at (x, y): the first terrain block's, if there is one.
    pub fn terrain_height(&self, x: f32, y: f32) -> Option<f32> {
        let mut ids: Vec<&ObjectId> = self.terrains.keys().collect();
        ids.sort_unstable();
        ids.first().map(|id| self.terrains[id].height(x, y))
    }

    /// The sky the world is seen under: the first `Sky` (by id), if any.
    pub fn sky(&self) -> Option<SkyParams> {
        self.skies.keys().min().map(|id| self.skies[id])
    }

    /// What a client needs to build the same object: its ghost, for a terrain block, an
    /// interior or a sky of this world (`None` for other ids).
    pub fn ghost_of(&self, id: ObjectId) -> Option<WorldObjectGhost> {
        if let Some(w) = self.waters.get(&id) {
            let mut g =
                WorldObjectGhost::new(WorldClass::Water, String::new(), 0.0, Vec3::ZERO, Quat::IDENTITY);
            g.water = w.clone();
            return Some(g);
        }
        if let Some(s) = self.skies.get(&id) {
            let mut g =
                WorldObjectGhost::new(WorldClass::Sky, String::new(), 0.0, Vec3::ZERO, Quat::IDENTITY);
            g.sky = *s;
            return Some(g);
        }
        if let Some(t) = self.terrains.get(&id) {
            let file = self.files.get(&id).cloned().unwrap_or_default();
            return Some(WorldObjectGhost::new(
                WorldClass::Terrain,
                file,
                t.square_size(),
                Vec3::ZERO,
                Quat::IDENTITY,
            ));
        }
        let inst = self.interiors.get(&id)?;
        let file = self.files.get(&id).cloned().unwrap_or_default();
        let (_, rotation, position) = inst.transform().to_scale_rotation_translation();
        Some(WorldObjectGhost::new(WorldClass::Interior, file, 0.0, position, rotation))
    }

    /// Builds what a ghost describes, under `id` (a client's own id for it): its file through
    /// the resource manager, then the container and the scene graph.
    pub fn add_from_ghost(&mut self, id: ObjectId, ghost: &WorldObjectGhost) -> Result<(), String> {
        match ghost.class {
            WorldClass::Terrain => {
                let block =
                    self.resources.load::<TerrainBlock>(&ghost.file).map_err(|e| e.to_string())?.to_rc();
                let block = if (block.square_size() - ghost.square_size).abs() > 1e-6 {
                    Rc::new(TerrainBlock::from_parts(
                        ghost.square_size,
                        block.heights().to_vec(),
                        block.materials().to_vec(),
                        block.material_names.clone(),
                    )?)
                } else {
                    block
                };
                self.add_terrain(id, block, &ghost.file);
            }
            WorldClass::Sky => {
                self.skies.insert(id, ghost.sky);
            }
            WorldClass::Water => {
                self.waters.insert(id, ghost.water.clone());
            }
            WorldClass::Interior => {
                let interior =
                    self.resources.load_shared::<crate::Interior>(&ghost.file).map_err(|e| e.to_string())?;
                self.add_interior(
                    id,
                    Arc::new(InteriorInstance::new(interior, ghost.position, ghost.rotation)),
                    &ghost.file,
                );
            }
        }
        Ok(())
    }

    fn add_terrain(&mut self, id: ObjectId, block: Rc<TerrainBlock>, file: &str) {
        crate::add_terrain_to_container(&mut self.container.borrow_mut().container, id, block.clone());
        let materials = find_materials(&self.resources, &block.material_names, file);
        self.materials.insert(id, materials);
        self.terrains.insert(id, block);
        self.files.insert(id, file.to_string());
    }

    fn add_interior(&mut self, id: ObjectId, instance: Arc<InteriorInstance>, file: &str) {
        // The container's copy of the placement (its geometry is an `Rc`), the same interior.
        let placed = Rc::new(InteriorInstance::clone(&instance));
        crate::add_interior_to_container(&mut self.container.borrow_mut().container, id, placed);
        self.scene.add_interior(id, instance.clone());
        let materials = find_materials(&self.resources, &instance.interior.materials, file);
        self.materials.insert(id, materials);
        self.interiors.insert(id, instance);
        self.files.insert(id, file.to_string());
    }

    /// The materials of terrain or interior `id` (empty for anything else), in the order its
    /// squares' or faces' material indices refer to.
    pub fn materials(&self, id: ObjectId) -> Rc<[WorldMaterial]> {
        self.materials.get(&id).cloned().unwrap_or_else(|| Rc::from(Vec::new()))
    }

    /// Takes object `id` out of the world (its terrain or interior, if any).
    pub fn remove(&mut self, id: ObjectId) {
        self.files.remove(&id);
        self.materials.remove(&id);
        self.skies.remove(&id);
        self.waters.remove(&id);
        let was_terrain = self.terrains.remove(&id).is_some();
        let was_interior = self.interiors.remove(&id).is_some();
        if was_terrain || was_interior {
            self.container.borrow_mut().container.remove_static(id);
        }
        if was_interior {
            self.scene.remove_interior(id);
        }
    }
}

/// "x y z" as V12 reads it (`atof` per word: junk and missing words are 0).
pub fn vec3(s: &str) -> Vec3 {
    let mut it = s.split_whitespace().map(|w| v12_console_vm::value::atof(w) as f32);
    Vec3::new(it.next().unwrap_or(0.0), it.next().unwrap_or(0.0), it.next().unwrap_or(0.0))
}

/// "ax ay az degrees" as a rotation (no axis: none).
pub fn rotation(s: &str) -> Quat {
    let v: Vec<f32> = s.split_whitespace().map(|w| v12_console_vm::value::atof(w) as f32).collect();
    match v.as_slice() {
        [x, y, z, deg, ..] => {
            let axis = Vec3::new(*x, *y, *z);
            if axis.length_squared() > 1e-12 && deg.is_finite() {
                Quat::from_axis_angle(axis.normalize(), deg.to_radians())
            } else {
                Quat::IDENTITY
            }
        }
        _ => Quat::IDENTITY,
    }
}

/// Registers `TerrainBlock`, `InteriorInstance`, `Sky`, `Sun` and `MissionArea` with their
/// fields, and the `onAdd` / `onRemove` that put terrain blocks and interiors into `world`.
pub fn register_mission_classes(con: &mut Console, world: MissionHandle) {
    // A scene object's placement is typed (a point, a rotation, a scale), so an inspector
    // edit of junk is refused with a message and the old value kept; a script's write still
    // stores its text as before. Subclasses copy their parent's fields when registered, so
    // these come first.
    let _ = con.register_class("SceneObject", "SimObject");
    con.add_field("SceneObject", "position", FieldType::Point, Value::Empty);
    con.add_field("SceneObject", "rotation", FieldType::Rotation, Value::Empty);
    con.add_field("SceneObject", "scale", FieldType::Point, Value::Empty);
    for (class, parent) in [
        ("TerrainBlock", "SceneObject"),
        ("InteriorInstance", "SceneObject"),
        ("Sky", "SceneObject"),
        ("Sun", "SceneObject"),
        ("WaterBlock", "SceneObject"),
        ("MissionArea", "SimObject"),
    ] {
        let _ = con.register_class(class, parent);
    }
    con.add_field("TerrainBlock", "terrainFile", FieldType::String, Value::Empty);
    con.add_field("TerrainBlock", "squareSize", FieldType::Float, Value::Float(8.0));
    con.add_field("InteriorInstance", "interiorFile", FieldType::String, Value::Empty);
    for field in SKY_FIELDS {
        con.add_field("Sky", field, FieldType::String, Value::Empty);
    }
    for field in WATER_FIELDS {
        con.add_field("WaterBlock", field, FieldType::String, Value::Empty);
    }
    for field in ["direction", "color", "ambient"] {
        con.add_field("Sun", field, FieldType::String, Value::Empty);
    }
    con.add_field("MissionArea", "area", FieldType::String, Value::Empty);
    con.add_field("MissionArea", "flightCeiling", FieldType::Float, Value::Float(300.0));

    let w = world.clone();
    con.register_method("TerrainBlock", "onAdd", 2, 2, "onAdd()", move |c, a| {
        let Some(id) = a.this else { return Value::Empty };
        let file = c.get_field(id, "terrainFile").to_string();
        let square = c.get_field(id, "squareSize").to_f64() as f32;
        let loaded = w.borrow().resources.load::<TerrainBlock>(&file);
        match loaded {
            Ok(block) => {
                let block: Rc<TerrainBlock> = if (block.square_size() - square).abs() > 1e-6 && square > 0.0 {
                    match TerrainBlock::from_parts(
                        square,
                        block.heights().to_vec(),
                        block.materials().to_vec(),
                        block.material_names.clone(),
                    ) {
                        Ok(b) => Rc::new(b),
                        Err(e) => {
                            c.error(&format!("TerrainBlock {id}: squareSize {square}: {e}"));
                            return Value::Empty;
                        }
                    }
                } else {
                    block.to_rc()
                };
                w.borrow_mut().add_terrain(id, block, &file);
            }
            Err(e) => c.error(&format!("TerrainBlock {id}: unable to load terrain file: {e}")),
        }
        Value::Empty
    });
    let w = world.clone();
    con.register_method("InteriorInstance", "onAdd", 2, 2, "onAdd()", move |c, a| {
        let Some(id) = a.this else { return Value::Empty };
        let file = c.get_field(id, "interiorFile").to_string();
        let position = vec3(&c.get_field(id, "position").to_string());
        let turn = rotation(&c.get_field(id, "rotation").to_string());
        let loaded = w.borrow().resources.load_shared::<crate::Interior>(&file);
        match loaded {
            Ok(interior) => {
                let instance = Arc::new(InteriorInstance::new(interior, position, turn));
                w.borrow_mut().add_interior(id, instance, &file);
            }
            Err(e) => c.error(&format!("InteriorInstance {id}: unable to load interior file: {e}")),
        }
        Value::Empty
    });
    let w = world.clone();
    con.register_method("Sky", "onAdd", 2, 2, "onAdd()", move |c, a| {
        if let Some(id) = a.this {
            let field = |name: &str| c.get_field(id, name).as_text().into_owned();
            let (visible, fog, color) = (field("visibleDistance"), field("fogDistance"), field("fogColor"));
            let layers: Vec<(String, String)> = (1..=3)
                .map(|k| (field(&format!("fogVolume{k}")), field(&format!("fogVolumeColor{k}"))))
                .collect();
            // Junk keeps the default, with a word about it.
            let number = |s: &str| s.trim().is_empty() || s.trim().parse::<f32>().is_ok_and(f32::is_finite);
            let finite = |w: &str| w.parse::<f32>().is_ok_and(f32::is_finite);
            let colour = color.trim().is_empty()
                || color.split_whitespace().take(3).filter(|w| finite(w)).count() == 3;
            for (name, ok) in
                [("visibleDistance", number(&visible)), ("fogDistance", number(&fog)), ("fogColor", colour)]
            {
                if !ok {
                    c.warn(&format!("Sky {id}: {name} is not a number (or \"r g b\"); the default is kept"));
                }
            }
            let mut sky = SkyParams::from_fields(&visible, &fog, &color);
            let fog_color = sky.fog_color;
            for (k, (v, (volume, colour))) in sky.fog_volumes.iter_mut().zip(&layers).enumerate() {
                match FogVolume::from_fields(volume, colour, fog_color) {
                    Ok(f) => *v = f,
                    Err(why) => c.warn(&format!("Sky {id}: fogVolume{} {why}; the layer is off", k + 1)),
                }
            }
            w.borrow_mut().skies.insert(id, sky);
        }
        Value::Empty
    });
    let w = world.clone();
    con.register_method("WaterBlock", "onAdd", 2, 2, "onAdd()", move |c, a| {
        if let Some(id) = a.this {
            let field = |name: &str| c.get_field(id, name).as_text().into_owned();
            let (block, problems) = water_from_fields(&field);
            for p in problems {
                c.warn(&format!("WaterBlock {id}: {p}; the default is kept"));
            }
            w.borrow_mut().waters.insert(id, block);
        }
        Value::Empty
    });
    for class in ["TerrainBlock", "InteriorInstance", "Sky", "WaterBlock"] {
        let w = world.clone();
        con.register_method(class, "onRemove", 2, 2, "onRemove()", move |_c, a| {
            if let Some(id) = a.this {
                w.borrow_mut().remove(id);
            }
            Value::Empty
        });
    }
}

/// Which world object a ghost is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorldClass {
    #[default]
    Terrain,
    Interior,
    Sky,
    Water,
}

/// V12's Sky fields: how far one sees (the far plane), where fog starts, its colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkyParams {
    /// Metres; 50 to 5,000.
    pub visible_distance: f32,
    /// Metres; 0 to the visible distance.
    pub fog_distance: f32,
    /// "r g b", each 0..=1.
    pub fog_color: Vec3,
    /// The vertical fog layers (`fogVolume1..3`); a layer with no visible distance is off.
    pub fog_volumes: [FogVolume; 3],
}

/// One of the Sky's vertical fog layers: `fogVolumeN = "visibleDistance bottom top"` and
/// `fogVolumeColorN = "r g b a"` (0..=1 or, as Tribes 2's missions wrote it, 0..=255; an
/// alpha of 0, as most missions left it, means the sky's fog colour).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FogVolume {
    /// Metres of sight inside the layer that hide everything (0: no layer).
    pub visible_distance: f32,
    pub bottom: f32,
    pub top: f32,
    pub color: Vec3,
}

impl FogVolume {
    /// From the two fields; empty or all-zero is no layer (`Ok` with distance 0), junk or
    /// a layer upside down is `Err` with why.
    pub fn from_fields(volume: &str, color: &str, fog_color: Vec3) -> Result<FogVolume, String> {
        let words: Vec<&str> = volume.split_whitespace().collect();
        if words.is_empty() {
            return Ok(FogVolume::default());
        }
        let nums: Vec<f32> =
            words.iter().filter_map(|w| w.parse::<f32>().ok()).filter(|v| v.is_finite()).collect();
        let [visible_distance, bottom, top] = nums[..] else {
            return Err(format!("\"{volume}\" is not \"visibleDistance bottom top\""));
        };
        if visible_distance <= 0.0 {
            return Ok(FogVolume::default());
        }
        if top <= bottom {
            return Err(format!("\"{volume}\": its top is not above its bottom"));
        }
        let c: Vec<f32> = color.split_whitespace().filter_map(|w| w.parse::<f32>().ok()).collect();
        let color = match c[..] {
            [r, g, b, a, ..] if a > 0.0 && [r, g, b].iter().all(|v| v.is_finite()) => {
                let scale = if r.max(g).max(b) > 1.0 { 255.0 } else { 1.0 };
                (Vec3::new(r, g, b) / scale).clamp(Vec3::ZERO, Vec3::ONE)
            }
            _ => fog_color,
        };
        Ok(FogVolume { visible_distance: visible_distance.min(100_000.0), bottom, top, color })
    }
}

/// The Sky fields V12 reads (Tribes 2's missions set more: they stay dynamic fields).
const SKY_FIELDS: &[&str] = &[
    "materialList",
    "visibleDistance",
    "fogDistance",
    "fogColor",
    "fogVolume1",
    "fogVolume2",
    "fogVolume3",
    "fogVolumeColor1",
    "fogVolumeColor2",
    "fogVolumeColor3",
];

/// The WaterBlock fields Tribes 2's missions set (the ones read are listed in
/// [`water_from_fields`]; the rest are kept as text).
const WATER_FIELDS: &[&str] = &[
    "liquidType",
    "density",
    "viscosity",
    "waveMagnitude",
    "surfaceTexture",
    "surfaceOpacity",
    "envMapTexture",
    "envMapIntensity",
    "removeWetEdges",
    "AudioEnvironment",
    "floodFill",
    "seedPoints",
    "extent",
    "textureSize",
    "useDepthMask",
    "tile",
    "specularMaskTex",
    "specularColor",
    "specularPower",
    "params0",
    "params1",
    "params2",
    "params3",
];

/// The colour of a liquid type (Tribes 2's eight), as its surface's tint and the fog under it.
pub fn liquid_color(liquid_type: &str) -> Vec3 {
    match liquid_type.to_ascii_lowercase().as_str() {
        "oceanwater" => Vec3::new(0.1, 0.25, 0.42),
        "riverwater" => Vec3::new(0.2, 0.35, 0.45),
        "stagnantwater" => Vec3::new(0.25, 0.3, 0.15),
        "lava" | "hotlava" => Vec3::new(0.95, 0.35, 0.05),
        "crudeoil" => Vec3::new(0.06, 0.05, 0.04),
        "quicksand" => Vec3::new(0.6, 0.5, 0.3),
        _ => Vec3::new(0.15, 0.3, 0.45),
    }
}

/// A WaterBlock from its fields (`field(name)` reads one): `position`, `scale`, `liquidType`,
/// `density`, `viscosity`, `surfaceTexture`, `surfaceOpacity`, `floodFill`, `seedPoints`,
/// `waveMagnitude`. Junk keeps
/// the default; the second value says which fields were junk.
pub fn water_from_fields(field: &impl Fn(&str) -> String) -> (crate::WaterBlock, Vec<String>) {
    let d = crate::WaterBlock::default();
    let mut problems = Vec::new();
    let mut num = |name: &str, or: f32| {
        let s = field(name);
        if s.trim().is_empty() {
            return or;
        }
        match s.trim().parse::<f32>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                problems.push(format!("{name} = \"{s}\" is not a number"));
                or
            }
        }
    };
    let opacity = num("surfaceOpacity", d.surface_opacity);
    let density = (!field("density").trim().is_empty()).then(|| num("density", f32::NAN));
    let viscosity = (!field("viscosity").trim().is_empty()).then(|| num("viscosity", f32::NAN));
    let waves = num("waveMagnitude", d.wave_magnitude);
    let text = |name: &str| field(name).trim().to_string();
    let liquid = if text("liquidType").is_empty() { d.liquid_type.clone() } else { text("liquidType") };
    let position = if text("position").is_empty() { d.position } else { vec3(&field("position")) };
    let scale = if text("scale").is_empty() { d.scale } else { vec3(&field("scale")) };
    let seeds = field("seedPoints");
    let seed_points =
        if seeds.trim().is_empty() { d.seed_points.clone() } else { crate::water::parse_seed_points(&seeds) };
    let flood = text("floodFill");
    let block = crate::WaterBlock {
        position,
        scale,
        flood_fill: if flood.is_empty() {
            d.flood_fill
        } else {
            v12_console_vm::value::atof(&flood) != 0.0 || flood.eq_ignore_ascii_case("true")
        },
        seed_points,
        surface_texture: text("surfaceTexture").chars().take(MAX_FILE_LEN).collect(),
        surface_opacity: opacity,
        color: liquid_color(&liquid),
        wave_magnitude: waves,
        liquid_type: liquid.chars().take(64).collect(),
        density,
        viscosity,
    }
    .clamped();
    (block, problems)
}

impl Default for SkyParams {
    fn default() -> Self {
        SkyParams {
            visible_distance: 500.0,
            fog_distance: 300.0,
            fog_color: Vec3::new(0.6, 0.7, 0.8),
            fog_volumes: [FogVolume::default(); 3],
        }
    }
}

impl SkyParams {
    /// From the `Sky` object's fields as a mission sets them; missing or junk fields keep the
    /// defaults, and the values are kept in range.
    pub fn from_fields(visible: &str, fog: &str, color: &str) -> SkyParams {
        let d = SkyParams::default();
        let num = |s: &str, or: f32| s.trim().parse::<f32>().ok().filter(|v| v.is_finite()).unwrap_or(or);
        let words: Vec<f32> = color.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        let fog_color = match words[..] {
            [r, g, b, ..] if [r, g, b].iter().all(|v: &f32| v.is_finite()) => Vec3::new(r, g, b),
            _ => d.fog_color,
        };
        SkyParams {
            visible_distance: num(visible, d.visible_distance),
            fog_distance: num(fog, d.fog_distance),
            fog_color,
            fog_volumes: d.fog_volumes,
        }
        .clamped()
    }

    fn clamped(self) -> SkyParams {
        let visible_distance = self.visible_distance.clamp(50.0, 5000.0);
        SkyParams {
            visible_distance,
            fog_distance: self.fog_distance.clamp(0.0, visible_distance),
            fog_color: self.fog_color.clamp(Vec3::ZERO, Vec3::ONE),
            fog_volumes: self.fog_volumes.map(|f| {
                let ok = [f.visible_distance, f.bottom, f.top].iter().all(|v| v.is_finite())
                    && f.color.is_finite()
                    && f.visible_distance > 0.0
                    && f.top > f.bottom;
                if ok {
                    FogVolume {
                        visible_distance: f.visible_distance.min(100_000.0),
                        color: f.color.clamp(Vec3::ZERO, Vec3::ONE),
                        ..f
                    }
                } else {
                    FogVolume::default()
                }
            }),
        }
    }
}

/// Longest file name a ghost carries.
const MAX_FILE_LEN: usize = 255;

/// A terrain block or an interior on the network: the file and the placement, sent once
/// (always in scope, as V12 ghosted them); the client loads the same file as a resource.
#[derive(Debug, Default, Clone)]
pub struct WorldObjectGhost {
    pub class: WorldClass,
    pub file: String,
    pub square_size: f32,
    pub position: Vec3,
    pub rotation: Quat,
    /// A sky's fields (sent only for `WorldClass::Sky`).
    pub sky: SkyParams,
    /// A water block's fields (sent only for `WorldClass::Water`).
    pub water: crate::WaterBlock,
    mask: StateMask,
}

impl WorldObjectGhost {
    const ALL: u32 = 1;

    pub fn new(class: WorldClass, file: String, square_size: f32, position: Vec3, rotation: Quat) -> Self {
        let mut mask = StateMask::new();
        mask.set_mask_bits(Self::ALL);
        WorldObjectGhost {
            class,
            file,
            square_size,
            position,
            rotation,
            sky: SkyParams::default(),
            water: crate::WaterBlock::default(),
            mask,
        }
    }
}

impl NetObject for WorldObjectGhost {
    fn net_flags(&self) -> NetFlags {
        NetFlags::GHOSTABLE | NetFlags::SCOPE_ALWAYS
    }
    fn state_mask(&self) -> &StateMask {
        &self.mask
    }
    fn pack_update(&self, _: &mut GhostPackContext<'_>, _mask: u32, w: &mut BitWriter) -> u32 {
        let class = match self.class {
            WorldClass::Terrain => 0,
            WorldClass::Interior => 1,
            WorldClass::Sky => 2,
            WorldClass::Water => 3,
        };
        w.write_int(class, 2);
        if self.class == WorldClass::Sky {
            let s = self.sky;
            for v in [s.visible_distance, s.fog_distance, s.fog_color.x, s.fog_color.y, s.fog_color.z] {
                w.write_f32(v);
            }
            for f in s.fog_volumes {
                for v in [f.visible_distance, f.bottom, f.top, f.color.x, f.color.y, f.color.z] {
                    w.write_f32(v);
                }
            }
            return 0;
        }
        if self.class == WorldClass::Water {
            pack_water(&self.water, w);
            return 0;
        }
        let file: String = self.file.chars().take(MAX_FILE_LEN).collect();
        if w.write_string(&file).is_err() {
            let _ = w.write_string("");
        }
        w.write_f32(self.square_size);
        for v in self.position.to_array().into_iter().chain(self.rotation.to_array()) {
            w.write_f32(v);
        }
        0
    }
    fn unpack_update(
        &mut self,
        _: &mut GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        self.class = match r.read_int(2)? {
            0 => WorldClass::Terrain,
            1 => WorldClass::Interior,
            2 => WorldClass::Sky,
            3 => WorldClass::Water,
            other => return Err(GhostError::BadUpdate(format!("world object class {other}"))),
        };
        if self.class == WorldClass::Sky {
            let mut v = [0.0f32; 5 + 18];
            for x in &mut v {
                *x = r.read_f32()?;
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(GhostError::BadUpdate("a sky's fields are not finite".into()));
            }
            let volume = |k: usize| {
                let f = &v[5 + 6 * k..11 + 6 * k];
                FogVolume {
                    visible_distance: f[0],
                    bottom: f[1],
                    top: f[2],
                    color: Vec3::new(f[3], f[4], f[5]),
                }
            };
            let s = SkyParams {
                visible_distance: v[0],
                fog_distance: v[1],
                fog_color: Vec3::new(v[2], v[3], v[4]),
                fog_volumes: [volume(0), volume(1), volume(2)],
            };
            self.sky = s.clamped();
            return Ok(());
        }
        if self.class == WorldClass::Water {
            self.water = unpack_water(r)?;
            return Ok(());
        }
        self.file = r.read_string()?;
        let mut f = || -> Result<f32, GhostError> {
            let v = r.read_f32()?;
            if v.is_finite() {
                Ok(v)
            } else {
                Err(GhostError::BadUpdate("a world object's placement is not finite".into()))
            }
        };
        self.square_size = f()?;
        self.position = Vec3::new(f()?, f()?, f()?);
        let q = Quat::from_xyzw(f()?, f()?, f()?, f()?);
        self.rotation = if q.length_squared() > 1e-6 { q.normalize() } else { Quat::IDENTITY };
        Ok(())
    }
}

/// A water block on the wire: its box, its surface, its liquid, its seeds (at most
/// [`crate::water::MAX_SEEDS`]), and its liquid's own density and viscosity (each a flag and,
/// when set, the number).
fn pack_water(b: &crate::WaterBlock, w: &mut BitWriter) {
    for v in b.position.to_array().into_iter().chain(b.scale.to_array()).chain(b.color.to_array()) {
        w.write_f32(v);
    }
    w.write_f32(b.surface_opacity);
    w.write_f32(b.wave_magnitude);
    w.write_flag(b.flood_fill);
    for s in [&b.surface_texture, &b.liquid_type] {
        let s: String = s.chars().take(MAX_FILE_LEN).collect();
        if w.write_string(&s).is_err() {
            let _ = w.write_string("");
        }
    }
    let seeds = &b.seed_points[..b.seed_points.len().min(crate::water::MAX_SEEDS)];
    w.write_int(seeds.len() as u32, 5);
    for p in seeds {
        w.write_f32(p.x);
        w.write_f32(p.y);
    }
    for v in [b.density, b.viscosity] {
        w.write_flag(v.is_some());
        if let Some(v) = v {
            w.write_f32(v);
        }
    }
}

fn unpack_water(r: &mut BitReader<'_>) -> Result<crate::WaterBlock, GhostError> {
    let mut f = || -> Result<f32, GhostError> {
        let v = r.read_f32()?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(GhostError::BadUpdate("a water block's field is not finite".into()))
        }
    };
    let position = Vec3::new(f()?, f()?, f()?);
    let scale = Vec3::new(f()?, f()?, f()?);
    let color = Vec3::new(f()?, f()?, f()?);
    let surface_opacity = f()?;
    let wave_magnitude = f()?;
    let flood_fill = r.read_flag()?;
    let surface_texture = r.read_string()?;
    let liquid_type = r.read_string()?;
    let n = r.read_int(5)? as usize;
    if n > crate::water::MAX_SEEDS {
        return Err(GhostError::BadUpdate(format!("{n} water seed points")));
    }
    let mut seed_points = Vec::with_capacity(n);
    for _ in 0..n {
        let x = r.read_f32()?;
        let y = r.read_f32()?;
        seed_points.push(glam::Vec2::new(x, y));
    }
    // The liquid's own density and viscosity (non-finite: unset, by `clamped`).
    let mut own =
        || -> Result<Option<f32>, GhostError> { Ok(if r.read_flag()? { Some(r.read_f32()?) } else { None }) };
    let (density, viscosity) = (own()?, own()?);
    Ok(crate::WaterBlock {
        position,
        scale,
        flood_fill,
        seed_points,
        surface_texture,
        surface_opacity,
        color,
        wave_magnitude,
        liquid_type,
        density,
        viscosity,
    }
    .clamped())
}

impl NetObjectClass for WorldObjectGhost {
    const NAME: &'static str = "WorldObject";
    fn create_ghost() -> Self {
        WorldObjectGhost::default()
    }
}

/// A client's ghost arena for world objects: each ghost that arrives is built into the
/// client's [`MissionWorld`] (a file that does not load is logged and the ghost kept inert).
pub struct WorldGhosts {
    world: MissionHandle,
    next: u32,
    ghosts: HashMap<v12_netobject::ghost::ObjectId, Box<dyn NetObject>>,
    /// Files that did not load, with why.
    pub problems: Vec<String>,
}

impl WorldGhosts {
    /// Ghost ids here count down from the top of the id space, away from console objects.
    pub fn new(world: MissionHandle) -> Self {
        WorldGhosts { world, next: u32::MAX, ghosts: HashMap::new(), problems: Vec::new() }
    }
}

impl std::fmt::Debug for WorldGhosts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorldGhosts")
            .field("ghosts", &self.ghosts.len())
            .field("problems", &self.problems)
            .finish()
    }
}

impl GhostClientWorld for WorldGhosts {
    fn add_ghost(&mut self, ghost: Box<dyn NetObject>) -> v12_netobject::ghost::ObjectId {
        let id = self.next;
        self.next = self.next.saturating_sub(1);
        if let Some(g) = ghost.downcast_ref::<WorldObjectGhost>()
            && let Err(e) = self.world.borrow_mut().add_from_ghost(id, g)
        {
            tracing::warn!(file = %g.file, error = %e, "world object ghost not built");
            self.problems.push(format!("{}: {e}", g.file));
        }
        let oid = v12_netobject::ghost::ObjectId(id);
        self.ghosts.insert(oid, ghost);
        oid
    }
    fn ghost_mut(&mut self, id: v12_netobject::ghost::ObjectId) -> Option<&mut dyn NetObject> {
        self.ghosts.get_mut(&id).map(|b| b.as_mut())
    }
    fn remove_ghost(&mut self, id: v12_netobject::ghost::ObjectId) {
        self.ghosts.remove(&id);
        self.world.borrow_mut().remove(id.0);
    }
}

/// A mission's terrain and interiors as one piece of geometry.
#[derive(Debug)]
struct WorldGround(MissionHandle);

impl WorldGround {
    fn nearest(
        &self,
        mut each: impl FnMut(&dyn v12_sim::container::StaticGeometry) -> Option<(f32, Vec3)>,
    ) -> Option<(f32, Vec3)> {
        let w = self.0.borrow();
        // In id order, so ties go the same way on every machine (taken from the maps as they
        // are walked: no lookups).
        let mut all: Vec<(ObjectId, &dyn v12_sim::container::StaticGeometry)> =
            Vec::with_capacity(w.terrains.len() + w.interiors.len());
        all.extend(
            w.terrains.iter().map(|(id, t)| (*id, t.as_ref() as &dyn v12_sim::container::StaticGeometry)),
        );
        all.extend(
            w.interiors.iter().map(|(id, i)| (*id, i.as_ref() as &dyn v12_sim::container::StaticGeometry)),
        );
        all.sort_unstable_by_key(|(id, _)| *id);
        let mut best: Option<(f32, Vec3)> = None;
        for (_, g) in all {
            if let Some(h) = each(g)
                && best.is_none_or(|b| h.0 < b.0)
            {
                best = Some(h);
            }
        }
        best
    }
}

impl v12_sim::container::StaticGeometry for WorldGround {
    fn cast_ray(&self, start: Vec3, end: Vec3) -> Option<(f32, Vec3)> {
        self.nearest(|g| g.cast_ray(start, end))
    }
    fn sweep_box(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<(f32, Vec3)> {
        self.nearest(|g| g.sweep_box(center, half, delta))
    }
}
