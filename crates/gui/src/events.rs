//! What each control does with mouse and key events (Torque's onMouseDown, onKeyDown, ...).
//!
//! Handlers change only the control's own [`ControlData`] and return [`Effect`]s: script
//! evaluation, variable writes, field writes, mouse lock and focus changes. The canvas applies
//! the effects after the handler is done, so script callbacks always see consistent state
//! (e.g. `%this.getValue()` inside `onAction`).

use crate::control::{
    ControlData, ControlFields, Drag, EditDrag, Kind, children, edit_grid, edit_handle_rect, edit_hit,
    edit_root, edit_snap, global_pos, global_rect, point_text,
};
use crate::fonts::Fonts;
use crate::geom::{format_point, offset};
use crate::keys::*;
use crate::layout::*;
use crate::profile::Profile;
use v12_console_vm::{Console, ObjectId, Value};
use v12_render_gl::{Point2I, RectI};

/// A deferred consequence of an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Evaluate the control's `command` (with `$ThisControl` set).
    Command(ObjectId),
    /// Evaluate the control's `altCommand`.
    AltCommand(ObjectId),
    /// Call a script callback on the control (its name's namespace first, then its class).
    Callback(ObjectId, &'static str, Vec<Value>),
    /// Write the control's `variable` global, if it has one.
    SetVariable(ObjectId, Value),
    SetField(ObjectId, &'static str, Value),
    Lock(ObjectId),
    Unlock,
    Focus(ObjectId),
    /// Turn off the radio buttons of `group` under `parent`, except one.
    RadioOff {
        parent: Option<ObjectId>,
        group: i32,
        except: ObjectId,
    },
    /// Draw the control above its siblings (a clicked window).
    BringToFront(ObjectId),
    OpenOverlay(ObjectId),
    CloseOverlay,
    /// Echo and evaluate a console line.
    Eval(String),
    /// Play the AudioProfile the control's profile names in this field (`soundButtonDown`,
    /// `soundButtonOver`) through the console's `alxPlay`, when there is one (the GUI knows
    /// no sound device).
    Sound(ObjectId, &'static str),
    /// Delete an object (the GUI Editor's Delete key).
    DeleteObject(ObjectId),
}

/// The action of a button, accelerator or list: `command`, then the `onAction` callback.
pub fn action(fx: &mut Vec<Effect>, id: ObjectId) {
    fx.push(Effect::Command(id));
    fx.push(Effect::Callback(id, "onAction", Vec::new()));
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MouseKind {
    Down,
    Up,
    Move,
    Dragged,
    Enter,
    Leave,
    RightDown,
    RightUp,
    /// Wheel movement; positive scrolls up.
    Wheel(f32),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MouseEv {
    pub kind: MouseKind,
    /// Screen coordinates.
    pub pt: Point2I,
    /// 1 for a click, 2 for a double click, ...
    pub clicks: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyEv {
    pub key: u16,
    /// The character typed, if any.
    pub ch: Option<char>,
    pub mods: ModSet,
    /// Make (or repeat) rather than break.
    pub make: bool,
}

/// What a handler may read besides its own data.
#[derive(Debug)]
pub struct EventContext<'a> {
    pub con: &'a Console,
    pub fonts: &'a mut Fonts,
    pub profile: &'a Profile,
    pub ctl: ControlFields,
    /// Screen rect of the control.
    pub rect: RectI,
    pub canvas_size: Point2I,
    /// The modifier keys held with the event.
    pub mods: ModSet,
    pub fx: Vec<Effect>,
}

/// Modifier keys as the editors' callbacks receive them ("ctrl shift alt", those held).
pub fn mods_text(m: ModSet) -> String {
    let all = [(m.ctrl, "ctrl"), (m.shift, "shift"), (m.alt, "alt")];
    all.iter().filter(|x| x.0).map(|x| x.1).collect::<Vec<_>>().join(" ")
}

fn text(h: &EventContext<'_>) -> String {
    h.con.get_field(h.ctl.id, "text").to_string()
}

pub fn on_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    match ev.kind {
        MouseKind::Enter => {
            d.mouse_over = true;
            if d.mouse_down {
                d.depressed = true;
            }
            if matches!(d.kind, Kind::Button | Kind::CheckBox | Kind::Radio) && h.ctl.active {
                h.fx.push(Effect::Sound(id, "soundButtonOver"));
            }
            return true;
        }
        MouseKind::Leave => {
            d.mouse_over = false;
            d.depressed = false;
            if d.kind == Kind::Popup && d.popup_open {
                d.hover_row = None;
            }
            return true;
        }
        _ => {}
    }
    match d.kind {
        Kind::Button | Kind::CheckBox | Kind::Radio => button_mouse(h, d, ev),
        Kind::TextEdit => edit_mouse(h, d, ev),
        Kind::Slider => slider_mouse(h, d, ev),
        Kind::Scroll => scroll_mouse(h, d, ev),
        Kind::Window => window_mouse(h, d, ev),
        Kind::TextList => list_mouse(h, d, ev),
        Kind::Popup => popup_mouse(h, d, ev),
        Kind::Edit => gui_edit_mouse(h, d, ev),
        Kind::EditTs => edit_ts_mouse(h, ev),
        Kind::Console => {
            if ev.kind == MouseKind::Down {
                h.fx.push(Effect::Focus(id));
                return true;
            }
            if let MouseKind::Wheel(v) = ev.kind {
                d.log_back = if v > 0.0 { d.log_back + 3 } else { d.log_back.saturating_sub(3) };
                return true;
            }
            false
        }
        Kind::Plain | Kind::Text | Kind::Bitmap | Kind::Progress | Kind::Ts | Kind::Swatch => false,
    }
}

fn button_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    match ev.kind {
        MouseKind::Down => {
            if !h.ctl.active {
                return true;
            }
            if h.profile.can_key_focus {
                h.fx.push(Effect::Focus(id));
            }
            h.fx.push(Effect::Sound(id, "soundButtonDown"));
            d.mouse_down = true;
            d.depressed = true;
            h.fx.push(Effect::Lock(id));
        }
        MouseKind::Dragged | MouseKind::Move if d.mouse_down => d.depressed = h.rect.contains(ev.pt),
        MouseKind::Up => {
            h.fx.push(Effect::Unlock);
            let click = d.mouse_down && h.rect.contains(ev.pt) && h.ctl.active;
            d.mouse_down = false;
            d.depressed = false;
            if click {
                click_button(h, d);
            }
        }
        _ => return false,
    }
    true
}

/// A button press from the mouse, the keyboard or an accelerator.
pub fn click_button(h: &mut EventContext<'_>, d: &mut ControlData) {
    let id = h.ctl.id;
    match d.kind {
        Kind::CheckBox => {
            d.state_on = !d.state_on;
            h.fx.push(Effect::SetVariable(id, Value::from(d.state_on)));
        }
        Kind::Radio => {
            d.state_on = true;
            h.fx.push(Effect::SetVariable(id, Value::from(true)));
            let group = h.con.get_field(id, "groupNum").to_i32();
            let parent = crate::control::parent(h.con, id);
            h.fx.push(Effect::RadioOff { parent, group, except: id });
        }
        _ => {}
    }
    action(&mut h.fx, id);
}

fn edit_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    let local_x = ev.pt.x - h.rect.x - 3 + d.text_scroll;
    match ev.kind {
        MouseKind::Down => {
            h.fx.push(Effect::Focus(id));
            h.fx.push(Effect::Lock(id));
            d.mouse_down = true;
            if ev.clicks >= 2 {
                d.edit.select_all();
            } else {
                let i = h.fonts.index_at(h.profile.font_size, &d.edit.text(), local_x);
                d.edit.move_to(i, false);
            }
        }
        MouseKind::Dragged if d.mouse_down => {
            let i = h.fonts.index_at(h.profile.font_size, &d.edit.text(), local_x);
            d.edit.move_to(i, true);
        }
        MouseKind::Up => {
            d.mouse_down = false;
            h.fx.push(Effect::Unlock);
        }
        _ => return false,
    }
    true
}

fn slider_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    let set = |h: &mut EventContext<'_>| {
        let range = slider_range(h.con, id);
        let ticks = h.con.get_field(id, "ticks").to_i32();
        let v = slider_value_at(ev.pt.x - h.rect.x, h.rect.w, range, ticks);
        h.fx.push(Effect::SetField(id, "value", Value::from(f64::from(v))));
        h.fx.push(Effect::SetVariable(id, Value::from(f64::from(v))));
    };
    match ev.kind {
        MouseKind::Down if h.ctl.active => {
            if h.profile.can_key_focus {
                h.fx.push(Effect::Focus(id));
            }
            h.fx.push(Effect::Lock(id));
            d.mouse_down = true;
            d.drag = Some(Drag::SliderThumb);
            set(h);
        }
        MouseKind::Dragged if d.drag == Some(Drag::SliderThumb) => set(h),
        MouseKind::Up if d.mouse_down => {
            d.mouse_down = false;
            d.drag = None;
            h.fx.push(Effect::Unlock);
            h.fx.push(Effect::Command(id));
        }
        _ => return false,
    }
    true
}

/// Scrolls a scroll control to `to` (clamped) by moving its content.
pub fn scroll_to(h: &mut EventContext<'_>, d: &mut ControlData, to: Point2I) {
    let lay = scroll_layout(h.con, &h.ctl, h.profile, d.scroll);
    d.scroll = Point2I::new(to.x.clamp(0, lay.max.x), to.y.clamp(0, lay.max.y));
    if let Some(c) = lay.content {
        let p = Point2I::new(lay.view.x - d.scroll.x, lay.view.y - d.scroll.y);
        h.fx.push(Effect::SetField(c, "position", Value::from(format_point(p))));
    }
}

fn scroll_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let lay = scroll_layout(h.con, &h.ctl, h.profile, d.scroll);
    let local = Point2I::new(ev.pt.x - h.rect.x, ev.pt.y - h.rect.y);
    match ev.kind {
        MouseKind::Wheel(v) => {
            if lay.max.y == 0 && lay.max.x == 0 {
                return false;
            }
            let step = if v > 0.0 { -WHEEL_STEP } else { WHEEL_STEP };
            let to = if lay.max.y > 0 {
                Point2I::new(d.scroll.x, d.scroll.y + step)
            } else {
                Point2I::new(d.scroll.x + step, d.scroll.y)
            };
            scroll_to(h, d, to);
        }
        MouseKind::Down => {
            h.fx.push(Effect::Lock(h.ctl.id));
            d.mouse_down = true;
            if let (Some(bar), Some(th)) = (lay.vbar, lay.vthumb)
                && bar.contains(local)
            {
                if th.contains(local) {
                    d.drag = Some(Drag::ScrollThumb { vertical: true, grab: local.y - th.y });
                } else {
                    let page = if local.y < th.y { -lay.view.h } else { lay.view.h };
                    scroll_to(h, d, Point2I::new(d.scroll.x, d.scroll.y + page));
                }
            } else if let (Some(bar), Some(th)) = (lay.hbar, lay.hthumb)
                && bar.contains(local)
            {
                if th.contains(local) {
                    d.drag = Some(Drag::ScrollThumb { vertical: false, grab: local.x - th.x });
                } else {
                    let page = if local.x < th.x { -lay.view.w } else { lay.view.w };
                    scroll_to(h, d, Point2I::new(d.scroll.x + page, d.scroll.y));
                }
            }
        }
        MouseKind::Dragged => {
            if let Some(Drag::ScrollThumb { vertical, grab }) = d.drag {
                let (bar, th, max, cur) = if vertical {
                    (lay.vbar, lay.vthumb, lay.max.y, local.y)
                } else {
                    (lay.hbar, lay.hthumb, lay.max.x, local.x)
                };
                if let (Some(bar), Some(th)) = (bar, th) {
                    let (start, track, len) =
                        if vertical { (bar.y, bar.h, th.h) } else { (bar.x, bar.w, th.w) };
                    let room = (track - len).max(1);
                    let off = ((i64::from(cur - grab - start) * i64::from(max)) / i64::from(room)) as i32;
                    let to =
                        if vertical { Point2I::new(d.scroll.x, off) } else { Point2I::new(off, d.scroll.y) };
                    scroll_to(h, d, to);
                }
            }
        }
        MouseKind::Up => {
            d.mouse_down = false;
            d.drag = None;
            h.fx.push(Effect::Unlock);
        }
        _ => return false,
    }
    true
}

fn window_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    match ev.kind {
        MouseKind::Down => {
            h.fx.push(Effect::BringToFront(id));
            let local_y = ev.pt.y - h.rect.y;
            if local_y < TITLE_H && h.con.get_field(id, "canMove").truthy() {
                d.drag = Some(Drag::Title(Point2I::new(ev.pt.x - h.rect.x, ev.pt.y - h.rect.y)));
                d.mouse_down = true;
                h.fx.push(Effect::Lock(id));
            }
        }
        MouseKind::Dragged => {
            if let Some(Drag::Title(grab)) = d.drag {
                // Screen position wanted, back to the parent's coordinates, kept inside it.
                let parent_origin = match crate::control::parent(h.con, id) {
                    Some(p) => global_pos(h.con, p),
                    None => Point2I::default(),
                };
                let parent_ext = match crate::control::parent(h.con, id) {
                    Some(p) => ControlFields::read(h.con, p).ext,
                    None => h.canvas_size,
                };
                let mut x = ev.pt.x - grab.x - parent_origin.x;
                let mut y = ev.pt.y - grab.y - parent_origin.y;
                x = x.min(parent_ext.x - h.ctl.ext.x).max(0);
                y = y.min(parent_ext.y - h.ctl.ext.y).max(0);
                h.fx.push(Effect::SetField(id, "position", Value::from(format_point(Point2I::new(x, y)))));
            }
        }
        MouseKind::Up => {
            if d.drag.take().is_some() {
                h.fx.push(Effect::Unlock);
            }
            d.mouse_down = false;
        }
        _ => return false,
    }
    true
}

fn select_row(h: &mut EventContext<'_>, d: &mut ControlData, row: usize) {
    let Some((rid, txt)) = d.rows.get(row).cloned() else { return };
    d.selected = Some(row);
    let id = h.ctl.id;
    h.fx.push(Effect::Callback(id, "onSelect", vec![Value::from(rid), Value::from(txt)]));
    h.fx.push(Effect::Command(id));
}

fn list_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    if ev.kind != MouseKind::Down {
        return matches!(ev.kind, MouseKind::Up);
    }
    if h.profile.can_key_focus {
        h.fx.push(Effect::Focus(h.ctl.id));
    }
    let row = (ev.pt.y - h.rect.y) / row_height(h.profile).max(1);
    if row >= 0 && (row as usize) < d.rows.len() && h.ctl.active {
        select_row(h, d, row as usize);
        if ev.clicks >= 2 {
            h.fx.push(Effect::AltCommand(h.ctl.id));
        }
    }
    true
}

fn popup_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    let list = popup_list_rect(h.rect, d.rows.len(), h.profile, h.canvas_size);
    let row_at = |pt: Point2I| -> Option<usize> {
        if !list.contains(pt) {
            return None;
        }
        let r = ((pt.y - list.y - 1) / row_height(h.profile).max(1)).max(0) as usize;
        (r < d.rows.len()).then_some(r)
    };
    if !d.popup_open {
        if ev.kind == MouseKind::Down && h.ctl.active && !d.rows.is_empty() {
            d.popup_open = true;
            d.hover_row = d.selected;
            h.fx.push(Effect::Lock(id));
            h.fx.push(Effect::OpenOverlay(id));
            return true;
        }
        return ev.kind == MouseKind::Down;
    }
    match ev.kind {
        MouseKind::Move | MouseKind::Dragged => d.hover_row = row_at(ev.pt),
        MouseKind::Down => {
            let hit = row_at(ev.pt);
            d.popup_open = false;
            d.hover_row = None;
            h.fx.push(Effect::Unlock);
            h.fx.push(Effect::CloseOverlay);
            if let Some(r) = hit {
                let t = d.rows[r].1.clone();
                h.fx.push(Effect::SetField(id, "text", Value::from(t)));
                select_row(h, d, r);
            }
        }
        _ => {}
    }
    true
}

/// Returns whether the key was used.
pub fn on_key(h: &mut EventContext<'_>, d: &mut ControlData, ev: KeyEv) -> bool {
    if !ev.make || !h.ctl.active {
        return false;
    }
    let id = h.ctl.id;
    match d.kind {
        Kind::Edit => gui_edit_key(h, d, ev),
        Kind::EditTs => {
            let args = vec![Value::Int(i64::from(ev.key)), Value::from(mods_text(ev.mods))];
            h.fx.push(Effect::Callback(id, "onKeyDown", args));
            true
        }
        Kind::Button | Kind::CheckBox | Kind::Radio if ev.key == KEY_RETURN || ev.key == KEY_SPACE => {
            click_button(h, d);
            true
        }
        Kind::TextEdit => {
            if ev.key == KEY_RETURN {
                h.fx.push(Effect::AltCommand(id));
                h.fx.push(Effect::Callback(id, "onReturn", Vec::new()));
                return true;
            }
            if edit_key(d, ev) {
                let t = d.edit.text();
                if t != text(h) {
                    h.fx.push(Effect::SetField(id, "text", Value::from(t.clone())));
                    h.fx.push(Effect::SetVariable(id, Value::from(t)));
                    h.fx.push(Effect::Command(id));
                }
                return true;
            }
            false
        }
        Kind::Console => console_key(h, d, ev),
        Kind::Slider if ev.key == KEY_LEFT || ev.key == KEY_RIGHT => {
            let range = slider_range(h.con, id);
            let ticks = h.con.get_field(id, "ticks").to_i32();
            let step =
                if ticks > 0 { (range.1 - range.0) / (ticks + 1) as f32 } else { (range.1 - range.0) / 10.0 };
            let cur = h.con.get_field(id, "value").to_f64() as f32;
            let v = snap(if ev.key == KEY_LEFT { cur - step } else { cur + step }, range, ticks);
            h.fx.push(Effect::SetField(id, "value", Value::from(f64::from(v))));
            h.fx.push(Effect::SetVariable(id, Value::from(f64::from(v))));
            h.fx.push(Effect::Command(id));
            true
        }
        Kind::TextList if ev.key == KEY_UP || ev.key == KEY_DOWN => {
            if d.rows.is_empty() {
                return true;
            }
            let row = match (d.selected, ev.key == KEY_UP) {
                (None, _) => 0,
                (Some(s), true) => s.saturating_sub(1),
                (Some(s), false) => (s + 1).min(d.rows.len() - 1),
            };
            if Some(row) != d.selected {
                select_row(h, d, row);
            }
            true
        }
        _ => false,
    }
}

/// Cursor, selection and typing keys shared by the text edit and the console entry line.
fn edit_key(d: &mut ControlData, ev: KeyEv) -> bool {
    let shift = ev.mods.shift;
    let b = &mut d.edit;
    match ev.key {
        KEY_LEFT => b.left(shift),
        KEY_RIGHT => b.right(shift),
        KEY_HOME => b.home(shift),
        KEY_END => b.end(shift),
        KEY_BACKSPACE => {
            b.backspace();
        }
        KEY_DELETE => {
            b.delete();
        }
        k if ev.mods.ctrl && k == KEY_A => b.select_all(),
        _ => match ev.ch {
            Some(c) if !c.is_control() && !ev.mods.ctrl => {
                b.insert(c);
            }
            _ => return false,
        },
    }
    true
}

fn console_key(h: &mut EventContext<'_>, d: &mut ControlData, ev: KeyEv) -> bool {
    match ev.key {
        KEY_RETURN => {
            let line = d.edit.text();
            d.edit.set_text("");
            d.log_back = 0;
            if !line.trim().is_empty() {
                d.history.push(line.clone());
                h.fx.push(Effect::Eval(line));
            }
            d.history_pos = d.history.len();
            true
        }
        KEY_UP | KEY_DOWN => {
            if d.history.is_empty() {
                return true;
            }
            d.history_pos = if ev.key == KEY_UP {
                d.history_pos.saturating_sub(1)
            } else {
                (d.history_pos + 1).min(d.history.len())
            };
            let t = d.history.get(d.history_pos).cloned().unwrap_or_default();
            d.edit.set_text(&t);
            true
        }
        KEY_PAGE_UP => {
            d.log_back += 5;
            true
        }
        KEY_PAGE_DOWN => {
            d.log_back = d.log_back.saturating_sub(5);
            true
        }
        _ => edit_key(d, ev),
    }
}

/// The screen rect a scroll control shows its content in (children are clipped to it).
pub fn scroll_view_screen(
    con: &Console,
    ctl: &ControlFields,
    profile: &Profile,
    d: &ControlData,
    rect: RectI,
) -> RectI {
    let lay = scroll_layout(con, ctl, profile, d.scroll);
    offset(lay.view, Point2I::new(rect.x, rect.y))
}

/// Whether `id` has children (scroll content present).
pub fn has_children(con: &Console, id: ObjectId) -> bool {
    !children(con, id).is_empty()
}

/// An EditTSCtrl's mouse (V12's EditTSCtrl, the World Editor's base): each event becomes a
/// script callback with the point in the control and the modifier keys held
/// (`onMouseDown(%this, "x y", "shift")`, ...); a press
/// takes the focus and the mouse lock, so the drag and the release come back to it.
fn edit_ts_mouse(h: &mut EventContext<'_>, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    let name = match ev.kind {
        MouseKind::Down => {
            h.fx.push(Effect::Focus(id));
            h.fx.push(Effect::Lock(id));
            "onMouseDown"
        }
        MouseKind::Up => {
            h.fx.push(Effect::Unlock);
            "onMouseUp"
        }
        MouseKind::Dragged => "onMouseDragged",
        MouseKind::Move => "onMouseMove",
        MouseKind::RightDown => "onRightMouseDown",
        MouseKind::RightUp => "onRightMouseUp",
        MouseKind::Wheel(v) => {
            h.fx.push(Effect::Callback(id, "onMouseWheel", vec![Value::from(f64::from(v))]));
            return true;
        }
        MouseKind::Enter | MouseKind::Leave => return true,
    };
    let local = Point2I::new(ev.pt.x - h.rect.x, ev.pt.y - h.rect.y);
    let args = vec![Value::from(point_text(local)), Value::from(mods_text(h.mods))];
    h.fx.push(Effect::Callback(id, name, args));
    true
}

/// The GUI Editor overlay's mouse: select, move, resize.
pub fn gui_edit_mouse(h: &mut EventContext<'_>, d: &mut ControlData, ev: MouseEv) -> bool {
    let id = h.ctl.id;
    let g = edit_grid(h.con, id);
    match ev.kind {
        MouseKind::Down => {
            h.fx.push(Effect::Focus(id));
            let Some(r) = edit_root(h.con, id) else { return true };
            let sel = d.edit_sel.filter(|&s| h.con.object(s).is_some());
            if let Some(s) = sel
                && edit_handle_rect(global_rect(h.con, s)).contains(ev.pt)
            {
                let ext = ControlFields::read(h.con, s).ext;
                d.edit_drag = Some(EditDrag::Resize { start: ev.pt, orig: ext });
            } else if let Some(hit) = edit_hit(h.con, r, ev.pt, 0) {
                if sel != Some(hit) {
                    d.edit_sel = Some(hit);
                    h.fx.push(Effect::Callback(id, "onSelect", vec![Value::Int(i64::from(hit))]));
                }
                let pos = ControlFields::read(h.con, hit).pos;
                d.edit_drag = (hit != r).then_some(EditDrag::Move { start: ev.pt, orig: pos });
            }
            h.fx.push(Effect::Lock(id));
            true
        }
        MouseKind::Dragged => {
            let Some(s) = d.edit_sel.filter(|&s| h.con.object(s).is_some()) else { return true };
            match d.edit_drag {
                Some(EditDrag::Move { start, orig }) => {
                    let p = Point2I::new(
                        edit_snap(orig.x + ev.pt.x - start.x, g),
                        edit_snap(orig.y + ev.pt.y - start.y, g),
                    );
                    h.fx.push(Effect::SetField(s, "position", Value::from(point_text(p))));
                }
                Some(EditDrag::Resize { start, orig }) => {
                    let min = g.max(4);
                    let e = Point2I::new(
                        edit_snap(orig.x + ev.pt.x - start.x, g).max(min),
                        edit_snap(orig.y + ev.pt.y - start.y, g).max(min),
                    );
                    h.fx.push(Effect::SetField(s, "extent", Value::from(point_text(e))));
                }
                None => {}
            }
            true
        }
        MouseKind::Up => {
            if d.edit_drag.take().is_some() {
                h.fx.push(Effect::Callback(id, "onEdited", Vec::new()));
            }
            h.fx.push(Effect::Unlock);
            true
        }
        _ => true,
    }
}

/// The GUI Editor overlay's keys: Delete removes the selection, the arrows nudge it.
pub fn gui_edit_key(h: &mut EventContext<'_>, d: &mut ControlData, ev: KeyEv) -> bool {
    if !ev.make {
        return false;
    }
    let id = h.ctl.id;
    let Some(s) = d.edit_sel.filter(|&s| h.con.object(s).is_some()) else { return false };
    let is_root = edit_root(h.con, id) == Some(s);
    let nudge = match ev.key {
        KEY_LEFT => Point2I::new(-1, 0),
        KEY_RIGHT => Point2I::new(1, 0),
        KEY_UP => Point2I::new(0, -1),
        KEY_DOWN => Point2I::new(0, 1),
        KEY_DELETE | KEY_BACKSPACE if !is_root => {
            d.edit_sel = None;
            h.fx.push(Effect::DeleteObject(s));
            h.fx.push(Effect::Callback(id, "onSelect", vec![Value::Int(0)]));
            return true;
        }
        _ => return false,
    };
    if is_root {
        return false;
    }
    let p = ControlFields::read(h.con, s).pos;
    h.fx.push(Effect::SetField(
        s,
        "position",
        Value::from(point_text(Point2I::new(p.x + nudge.x, p.y + nudge.y))),
    ));
    h.fx.push(Effect::Callback(id, "onEdited", Vec::new()));
    true
}
