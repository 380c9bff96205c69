//! What the client shows, as plain data: the visible world and the HUD's figures. The
//! session makes them every frame without GL; the `render` feature draws them.

use glam::Vec3;
use std::rc::Rc;

/// What an object is, from its datablock's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Player,
    Item,
    Projectile,
    /// A camera: not drawn, but the view follows it when it is the client's.
    Camera,
    /// A static shape or turret: a box of its size.
    Shape,
    /// A vehicle: a box of its size with a cockpit.
    Vehicle,
    /// A force field: a translucent wall.
    ForceField,
}

/// One object as the client sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewObject {
    pub id: u32,
    pub kind: ObjectKind,
    pub pos: Vec3,
    pub yaw: f32,
    /// Velocity (m/s): players animate by it (run, jump, idle).
    pub vel: Vec3,
    /// The shape its datablock's `shapeFile` names, if any.
    pub shape_file: Option<Rc<str>>,
    /// An item whose datablock says `rotate = true` turns in place.
    pub rotate: bool,
    /// The threads the server's scripts play on it (`playThread`), with the seconds each has
    /// played here; they replace the motion's sequences.
    pub threads: Vec<(v12_sim::scene::ScriptThread, f32)>,
    /// Display team (0 or 1). The game has no teams; the client splits players by id so
    /// the view can tell sides apart.
    pub team: u32,
    /// The object this client controls.
    pub is_me: bool,
    /// Shapes, vehicles and force fields: the box they fill (half extents, feet at `pos`).
    pub half_extents: Vec3,
}

/// The visible world at one instant plus the animation time (ms) for spinning items.
#[derive(Debug, Clone)]
pub struct WorldView {
    pub objects: Vec<ViewObject>,
    /// The mission's buildings as boxes (each solid brush: centre, half size), for a view
    /// without the scene graph below.
    pub walls: Vec<(Vec3, Vec3)>,
    /// The mission's interiors with their zones and portals: drawn by zone, only the rooms
    /// the camera sees through open portals.
    pub interiors: Option<v12_world::SceneGraph>,
    /// The mission's terrain, drawn with level of detail around the camera.
    pub terrain: Option<Rc<v12_world::TerrainBlock>>,
    /// The terrain's material textures, blended by its squares' materials.
    pub terrain_materials: Rc<[v12_world::WorldMaterial]>,
    /// Each interior's materials, by its id in `interiors`.
    pub interior_materials: std::collections::HashMap<u32, Rc<[v12_world::WorldMaterial]>>,
    /// The mission's sky (visible distance, fog), once it arrived.
    pub sky: Option<v12_world::SkyParams>,
    /// The mission's water blocks, by id (in id order).
    pub waters: Vec<(u32, v12_world::WaterBlock)>,
    /// The view from the control object's eye (`$firstPerson`) instead of behind it.
    pub first_person: bool,
    /// A fixed view (eye, target) instead of the control object's: the README screenshot's
    /// framing (`client::screenshot::framing`).
    pub overview: Option<(Vec3, Vec3)>,
    pub time_ms: u64,
}

impl Default for WorldView {
    fn default() -> Self {
        WorldView {
            objects: Vec::new(),
            walls: Vec::new(),
            interiors: None,
            terrain: None,
            terrain_materials: Rc::from(Vec::new()),
            interior_materials: Default::default(),
            sky: None,
            waters: Vec::new(),
            first_person: false,
            overview: None,
            time_ms: 0,
        }
    }
}

/// Everything the HUD shows besides the world.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HudState {
    pub score: i32,
    pub health: u32,
    pub max_health: u32,
    /// The control object's energy (predicted with its moves) and the most it holds (0: it
    /// has none).
    pub energy: f32,
    pub max_energy: f32,
    /// Round-trip time (ms).
    pub ping_ms: f32,
    /// Fraction of data packets lost, 0..=1.
    pub packet_loss: f32,
    /// Incoming rate (kbit/s).
    pub kbps_in: f32,
}

/// The direction a yaw faces (the game's convention: yaw 0 looks down +Y).
pub fn facing(yaw: f32) -> Vec3 {
    let (s, c) = yaw.sin_cos();
    Vec3::new(-s, c, 0.0)
}

impl WorldView {
    /// The controlled object, if the client has one.
    pub fn me(&self) -> Option<&ViewObject> {
        self.objects.iter().find(|o| o.is_me)
    }
}
