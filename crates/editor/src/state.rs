//! The World Editor's state: its camera, the mission objects as it last read them, the
//! selection, the mode and brush, the drag in progress, the undo stack, the clipboard and the
//! terrain being edited.

use crate::undo::{Snapshot, TerrainData, UndoStack};
use glam::{Vec2, Vec3};
use std::collections::HashMap;
use std::rc::Rc;
use v12_console_vm::ObjectId;
use v12_render_gl::{Camera, RectI};
use v12_resource::ResourceManager;
use v12_world::{TerrainBlock, WorldMaterial};

/// What a drag in the view does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Move,
    Rotate,
    Scale,
    /// The terrain brushes.
    Terrain,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s.to_ascii_lowercase().as_str() {
            "move" => Mode::Move,
            "rotate" => Mode::Rotate,
            "scale" => Mode::Scale,
            "terrain" => Mode::Terrain,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Move => "move",
            Mode::Rotate => "rotate",
            Mode::Scale => "scale",
            Mode::Terrain => "terrain",
        }
    }
}

/// The terrain brushes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrushKind {
    Raise,
    Lower,
    Smooth,
    /// Towards the height where the stroke began.
    Flatten,
    /// Sets the squares' material.
    Paint,
}

impl BrushKind {
    pub fn parse(s: &str) -> Option<BrushKind> {
        Some(match s.to_ascii_lowercase().as_str() {
            "raise" => BrushKind::Raise,
            "lower" => BrushKind::Lower,
            "smooth" => BrushKind::Smooth,
            "flatten" => BrushKind::Flatten,
            "paint" => BrushKind::Paint,
            _ => return None,
        })
    }
}

/// A brush: its kind, radius (metres), strength (metres a step at the centre) and the
/// material it paints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Brush {
    pub kind: BrushKind,
    pub radius: f32,
    pub strength: f32,
    pub material: u8,
}

/// The free-flying editor camera: where it is and where it looks (yaw 0 looks down +Y).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EditorCamera {
    pub eye: Vec3,
    pub yaw: f32,
    pub pitch: f32,
}

impl EditorCamera {
    pub fn forward(&self) -> Vec3 {
        let (c, s) = (self.pitch.cos(), self.pitch.sin());
        Vec3::new(self.yaw.sin() * c, self.yaw.cos() * c, s)
    }

    pub fn camera(&self) -> Camera {
        Camera::look_at(self.eye, self.eye + self.forward(), 1.2, 0.5, 2000.0)
    }
}

/// One mission object as the editor draws and picks it.
#[derive(Clone, Debug, PartialEq)]
pub struct EditObject {
    pub id: ObjectId,
    pub class: String,
    /// Its `position` (the feet of most objects).
    pub pos: Vec3,
    /// Its turn about +Z (radians), from `rotation`.
    pub yaw: f32,
    /// The box it fills: centre and half size.
    pub center: Vec3,
    pub half: Vec3,
}

/// The mission's terrain as the brushes edit it.
#[derive(Clone, Debug)]
pub struct EditTerrain {
    /// The TerrainBlock object and its `terrainFile`.
    pub object: ObjectId,
    pub file: String,
    pub block: Rc<TerrainBlock>,
    pub materials: Rc<[WorldMaterial]>,
    /// Changed since it was loaded or saved.
    pub dirty: bool,
}

impl EditTerrain {
    pub fn data(&self) -> TerrainData {
        TerrainData { heights: self.block.heights().to_vec(), materials: self.block.materials().to_vec() }
    }
}

/// A drag under way and what it changes.
#[derive(Clone, Debug, PartialEq)]
pub enum DragKind {
    /// Along a gizmo axis: the screen vector of the whole handle (`len` metres long).
    Axis { axis: Vec3, start: Vec2, handle: Vec2, len: f32, from: Vec<(ObjectId, Vec3)> },
    /// Over the terrain: each object's offset from the grabbed one's position.
    Ground { grabbed: ObjectId, offsets: Vec<(ObjectId, Vec3)> },
    /// About +Z: each object's turn (degrees) at the start.
    Rotate { start: Vec2, from: Vec<(ObjectId, f32)> },
    /// Uniform scale: each object's scale at the start.
    Scale { start: Vec2, from: Vec<(ObjectId, Vec3)> },
    /// A brush stroke: the terrain before it, and the height flatten aims at.
    Brush { before: TerrainData, level: f32 },
}

/// A drag and the objects' fields before it (for undo).
#[derive(Clone, Debug, PartialEq)]
pub struct Drag {
    pub kind: DragKind,
    pub before: Vec<Snapshot>,
}

/// Everything the World Editor knows between events.
#[derive(Debug)]
pub struct WorldEditor {
    pub resources: Rc<ResourceManager>,
    /// Shown (the canvas's content is the editor's GUI).
    pub open: bool,
    pub camera: EditorCamera,
    /// The 3D view's size at the last event or frame, in pixels.
    pub view: RectI,
    pub objects: Vec<EditObject>,
    pub selection: Vec<ObjectId>,
    pub mode: Mode,
    pub brush: Brush,
    pub drag: Option<Drag>,
    pub undo: UndoStack,
    /// Copied objects as `save` writes them.
    pub clipboard: Vec<String>,
    pub terrain: Option<EditTerrain>,
    /// Each interior file's box (interior space), once read.
    pub interior_boxes: HashMap<String, (Vec3, Vec3)>,
    /// The terrain point under the cursor in terrain mode (the brush's ring).
    pub cursor: Option<Vec3>,
    /// The palette's entries: an object class and the datablock it gets (or none).
    pub palette: Vec<(String, String)>,
}

impl WorldEditor {
    pub fn new(resources: Rc<ResourceManager>) -> Self {
        WorldEditor {
            resources,
            open: false,
            camera: EditorCamera { eye: Vec3::new(0.0, -60.0, 40.0), yaw: 0.0, pitch: -0.5 },
            view: RectI::new(0, 0, 640, 480),
            objects: Vec::new(),
            selection: Vec::new(),
            mode: Mode::Move,
            brush: Brush { kind: BrushKind::Raise, radius: 12.0, strength: 1.0, material: 0 },
            drag: None,
            undo: UndoStack::default(),
            clipboard: Vec::new(),
            terrain: None,
            interior_boxes: HashMap::new(),
            cursor: None,
            palette: Vec::new(),
        }
    }

    pub fn object(&self, id: ObjectId) -> Option<&EditObject> {
        self.objects.iter().find(|o| o.id == id)
    }

    /// Where the gizmo sits: the middle of the selected objects' boxes.
    pub fn gizmo_origin(&self) -> Option<Vec3> {
        let sel: Vec<Vec3> =
            self.selection.iter().filter_map(|&s| self.object(s)).map(|o| o.center).collect();
        (!sel.is_empty()).then(|| sel.iter().copied().sum::<Vec3>() / sel.len() as f32)
    }
}

/// `v` rounded to `grid` (no grid at 0 or below).
pub fn snap(v: f32, grid: f32) -> f32 {
    if grid > 0.0 { (v / grid).round() * grid } else { v }
}

/// A number as the mission file writes it: at most three decimals, no trailing zeros.
pub fn num(v: f32) -> String {
    let r = (v * 1000.0).round() / 1000.0;
    if r == 0.0 { "0".into() } else { format!("{r}") }
}

/// "x y z".
pub fn vec_text(v: Vec3) -> String {
    format!("{} {} {}", num(v.x), num(v.y), num(v.z))
}
