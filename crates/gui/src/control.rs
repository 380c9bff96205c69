//! The GuiControl tree as console objects (V12 reference page GUI).
//!
//! **One owner of state.** A control is a console object of a registered GUI class (made by
//! `new GuiButtonCtrl(Name) { ... };` in a `.gui` script or from Rust). Its *fields* —
//! `position`, `extent`, `profile`, `visible`, `text`, `command`, `variable`, ... — live only
//! in the console object, so script reads and writes them directly and the GUI always reads
//! the current value. The tree is the console's group membership. What script cannot see
//! (hover, pressed, cursor and selection, scroll offset, list rows, drag state) is a
//! [`ControlData`] attached with `set_object_data`, created the first time the GUI touches the
//! control.

use crate::geom::{Sizing, format_point, parse_point};
use crate::textedit::TextBuffer;
use v12_console_vm::{Console, ObjectId};
use v12_render_gl::{Point2I, RectI};

pub use crate::classes::{Kind, is_control, kind_of};

/// A drag in progress (what the mouse grabbed and where).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drag {
    /// A window's title bar; the grab point relative to the window.
    Title(Point2I),
    SliderThumb,
    /// A scroll bar thumb: vertical?, grab offset along the bar.
    ScrollThumb {
        vertical: bool,
        grab: i32,
    },
}

/// Interaction state script does not see (see the module docs).
#[derive(Debug, Clone)]
pub struct ControlData {
    pub kind: Kind,
    pub awake: bool,
    pub mouse_over: bool,
    /// The mouse went down here and has not come up.
    pub mouse_down: bool,
    /// Button drawn pressed (mouse down and inside).
    pub depressed: bool,
    /// Checkbox / radio state.
    pub state_on: bool,
    /// Slider / progress value.
    pub value: f32,
    /// Text edit and console entry line.
    pub edit: TextBuffer,
    /// First pixel of the text shown in a text edit.
    pub text_scroll: i32,
    /// Text list / popup rows: (id, text).
    pub rows: Vec<(i32, String)>,
    pub selected: Option<usize>,
    pub popup_open: bool,
    pub hover_row: Option<usize>,
    /// Scroll offset of a scroll control's content.
    pub scroll: Point2I,
    pub drag: Option<Drag>,
    /// Console: entered lines, the history cursor, lines scrolled back from the end.
    pub history: Vec<String>,
    pub history_pos: usize,
    pub log_back: usize,
    /// The GUI Editor's selection and drag.
    pub edit_sel: Option<ObjectId>,
    pub edit_drag: Option<EditDrag>,
}

impl ControlData {
    pub fn new(kind: Kind) -> Self {
        ControlData {
            kind,
            awake: false,
            mouse_over: false,
            mouse_down: false,
            depressed: false,
            state_on: false,
            value: 0.0,
            edit: TextBuffer::default(),
            text_scroll: 0,
            rows: Vec::new(),
            selected: None,
            popup_open: false,
            hover_row: None,
            scroll: Point2I::default(),
            drag: None,
            history: Vec::new(),
            history_pos: 0,
            log_back: 0,
            edit_sel: None,
            edit_drag: None,
        }
    }
}

/// Makes sure a control has its [`ControlData`] (and a named control its namespace link).
/// False for objects that are not GUI controls.
pub fn ensure(con: &mut Console, id: ObjectId) -> bool {
    if con.object_data::<ControlData>(id).is_some() {
        return true;
    }
    let Some(kind) = kind_of(con, id) else { return false };
    let mut d = ControlData::new(kind);
    match kind {
        Kind::TextEdit | Kind::Console => {
            let max = con.get_field(id, "maxLength").to_i32().max(0) as usize;
            d.edit = TextBuffer::new(&con.get_field(id, "text").as_text(), max);
        }
        Kind::Slider | Kind::Progress => d.value = con.get_field(id, "value").to_f64() as f32,
        _ => {}
    }
    con.set_object_data(id, Box::new(d));
    // V12: a named control's name is a namespace whose parent is the control's class.
    let name = con.object_name(id);
    if !name.is_empty() {
        let class = con.class_name_of(id);
        con.link_namespaces(&class, &name);
    }
    true
}

pub fn data(con: &Console, id: ObjectId) -> Option<&ControlData> {
    con.object_data::<ControlData>(id)
}

pub fn data_mut(con: &mut Console, id: ObjectId) -> Option<&mut ControlData> {
    if !ensure(con, id) {
        return None;
    }
    con.object_data_mut::<ControlData>(id)
}

/// The fields every operation needs, read once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlFields {
    pub id: ObjectId,
    pub pos: Point2I,
    pub ext: Point2I,
    pub visible: bool,
    pub active: bool,
}

impl ControlFields {
    pub fn read(con: &Console, id: ObjectId) -> ControlFields {
        ControlFields {
            id,
            pos: parse_point(&con.get_field(id, "position").as_text()),
            ext: parse_point(&con.get_field(id, "extent").as_text()),
            visible: con.get_field(id, "visible").truthy(),
            active: con.get_field(id, "active").truthy(),
        }
    }

    /// Bounds in the parent's coordinates.
    pub fn bounds(&self) -> RectI {
        RectI::new(self.pos.x, self.pos.y, self.ext.x, self.ext.y)
    }
}

/// Child controls in drawing order (the console group's members that are controls).
pub fn children(con: &Console, id: ObjectId) -> Vec<ObjectId> {
    match con.object(id) {
        Some(o) => o.members.iter().copied().filter(|&c| is_control(con, c)).collect(),
        None => Vec::new(),
    }
}

/// The parent control, if the control's group is one.
pub fn parent(con: &Console, id: ObjectId) -> Option<ObjectId> {
    con.object(id)?.group.filter(|&g| is_control(con, g))
}

/// Top-left of the control in screen coordinates.
pub fn global_pos(con: &Console, id: ObjectId) -> Point2I {
    let mut p = Point2I::default();
    let mut cur = Some(id);
    let mut guard = 0;
    while let Some(c) = cur {
        let q = parse_point(&con.get_field(c, "position").as_text());
        p = Point2I::new(p.x + q.x, p.y + q.y);
        cur = parent(con, c);
        guard += 1;
        if guard > 4096 {
            break;
        }
    }
    p
}

pub fn global_rect(con: &Console, id: ObjectId) -> RectI {
    let p = global_pos(con, id);
    let e = parse_point(&con.get_field(id, "extent").as_text());
    RectI::new(p.x, p.y, e.x, e.y)
}

/// Every control in the tree under `root` (pre-order, root first).
pub fn walk(con: &Console, root: ObjectId, out: &mut Vec<ObjectId>) {
    if !is_control(con, root) {
        return;
    }
    out.push(root);
    for c in children(con, root) {
        walk(con, c, out);
    }
}

/// Moves and sizes a control (extent clamped to `minExtent`), then applies every child's
/// sizing rules for the parent's change (GuiControl::resize / parentResized).
pub fn resize(con: &mut Console, id: ObjectId, pos: Point2I, ext: Point2I) {
    let old = ControlFields::read(con, id);
    let min = parse_point(&con.get_field(id, "minExtent").as_text());
    let ext = Point2I::new(ext.x.max(min.x).max(0), ext.y.max(min.y).max(0));
    if old.pos != pos {
        con.set_field(id, "position", format_point(pos));
    }
    if old.ext != ext {
        con.set_field(id, "extent", format_point(ext));
        for c in children(con, id) {
            parent_resized(con, c, old.ext, ext);
        }
    }
}

fn parent_resized(con: &mut Console, id: ObjectId, old_parent: Point2I, new_parent: Point2I) {
    let c = ControlFields::read(con, id);
    let h = Sizing::parse_horiz(&con.get_field(id, "horizSizing").as_text());
    let v = Sizing::parse_vert(&con.get_field(id, "vertSizing").as_text());
    let (x, w) = h.apply(c.pos.x, c.ext.x, old_parent.x, new_parent.x);
    let (y, hh) = v.apply(c.pos.y, c.ext.y, old_parent.y, new_parent.y);
    resize(con, id, Point2I::new(x, y), Point2I::new(w, hh));
}

// ---- the GUI Editor's overlay (GuiEditCtrl): what its events, drawing and script share ----

/// Side of the GUI Editor's resize handle, in pixels.
pub const EDIT_HANDLE: i32 = 7;

/// What a drag in the editor does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditDrag {
    /// Moving the selection: where the mouse went down and the selection's position then.
    Move { start: Point2I, orig: Point2I },
    /// Resizing it: where the mouse went down and its extent then.
    Resize { start: Point2I, orig: Point2I },
}

/// The control the editor edits (its `contentControl`).
pub fn edit_root(con: &Console, ed: ObjectId) -> Option<ObjectId> {
    con.find_object(&con.get_field(ed, "contentControl")).filter(|&r| is_control(con, r))
}

pub fn edit_grid(con: &Console, ed: ObjectId) -> i32 {
    con.get_field(ed, "gridSize").to_i32().clamp(0, 256)
}

pub fn edit_snap(v: i32, g: i32) -> i32 {
    if g <= 1 { v } else { (v as f64 / f64::from(g)).round() as i32 * g }
}

pub fn point_text(p: Point2I) -> String {
    format!("{} {}", p.x, p.y)
}

/// The deepest visible control under the screen point `pt` in the tree under `id`.
pub fn edit_hit(con: &Console, id: ObjectId, pt: Point2I, depth: usize) -> Option<ObjectId> {
    let f = ControlFields::read(con, id);
    if !f.visible || !global_rect(con, id).contains(pt) || depth > 200 {
        return None;
    }
    for c in children(con, id).into_iter().rev() {
        if let Some(h) = edit_hit(con, c, pt, depth + 1) {
            return Some(h);
        }
    }
    Some(id)
}

pub fn edit_handle_rect(r: RectI) -> RectI {
    RectI::new(r.right() - EDIT_HANDLE, r.bottom() - EDIT_HANDLE, EDIT_HANDLE, EDIT_HANDLE)
}
