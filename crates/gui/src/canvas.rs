//! GuiCanvas: the layer stack, input routing (first responder, Tab, accelerators, mouse
//! enter/leave, lock and click counts), effects, and the frame (pre-render, render with
//! child clipping, dirty rects).
//!
//! The canvas is the console object `Canvas` (class GuiCanvas) so script can call
//! `Canvas.setContent(...)`; its layer stack, focus and mouse state are a [`CanvasState`]
//! attached to that object. [`GuiCanvas`] is the host's handle: it adds what only Rust holds
//! (fonts, the game view, the global binds, the previous frame for dirty tracking).

use crate::control::{
    self, ControlData, ControlFields, Kind, children, ensure, global_pos, global_rect, is_control,
};
use crate::dirty::DirtyRects;
use crate::events::{self, Effect, EventContext, KeyEv, MouseEv, MouseKind, action};
use crate::fonts::Fonts;
use crate::geom::{format_point, union};
use crate::keys::{KEY_TAB, KeyChord, ModSet};
use crate::log::ConsoleLog;
use crate::profile::ProfileCache;
use crate::render::{self, GameView, RenderContext};
use std::collections::HashMap;
use std::ops::Range;
use v12_console_vm::{Console, ObjectId, Value};
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, MouseMoveEvent};
use v12_render_gl::{DrawList, Point2I, RectI};

/// Two clicks on the same control within this time (and 3 pixels) make a double click.
pub const DOUBLE_CLICK_MS: u64 = 500;

/// Canvas state kept on the `Canvas` console object.
#[derive(Debug, Clone, Default)]
pub struct CanvasState {
    pub size: Point2I,
    /// Bottom (the content) to top (the newest dialog).
    pub layers: Vec<ObjectId>,
    pub first_responder: Option<ObjectId>,
    pub mouse_lock: Option<ObjectId>,
    pub mouse_over: Option<ObjectId>,
    pub cursor: Point2I,
    pub left_down: bool,
    /// (control, time, point, count) of the last mouse down.
    pub last_click: Option<(ObjectId, u64, Point2I, u32)>,
    pub time_ms: u64,
    /// An open popup list drawn over everything.
    pub overlay: Option<ObjectId>,
    /// Screen rects script or Rust asked to repaint (setUpdate).
    pub updates: Vec<RectI>,
    /// V12: mouse events go to the GUI only while the cursor is on.
    pub cursor_off: bool,
}

/// Who consumed an input event (V12's InputModel order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consumer {
    GlobalMap,
    Canvas,
    GameMaps,
    Nobody,
}

/// An input layer around the canvas (the sim's global action map, or its action map stack).
pub trait InputHandler {
    /// True when the event was used.
    fn handle_input(&mut self, con: &mut Console, ev: &InputEvent) -> bool;
}

/// What one frame produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameInfo {
    /// Union of what changed since this buffer was last drawn (empty: nothing).
    pub dirty: RectI,
    /// Controls drawn.
    pub controls: usize,
}

pub fn state(con: &Console, canvas: ObjectId) -> Option<&CanvasState> {
    con.object_data::<CanvasState>(canvas)
}

pub fn state_mut(con: &mut Console, canvas: ObjectId) -> Option<&mut CanvasState> {
    con.object_data_mut::<CanvasState>(canvas)
}

/// The host's canvas.
pub struct GuiCanvas {
    id: ObjectId,
    fonts: Fonts,
    profiles: ProfileCache,
    game_view: Option<Box<dyn GameView>>,
    global_binds: Vec<(KeyChord, String)>,
    dirty: DirtyRects,
    prev_list: DrawList,
    prev_ranges: HashMap<ObjectId, (Range<usize>, RectI)>,
    log: ConsoleLog,
    /// The modifier keys of the last input event (handlers see them in their context).
    mods: ModSet,
}

impl std::fmt::Debug for GuiCanvas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuiCanvas").field("id", &self.id).field("binds", &self.global_binds).finish()
    }
}

impl GuiCanvas {
    /// The `Canvas` object of the given size, the GUI classes being registered already
    /// ([`GuiCanvas::new`] in `script.rs` does both).
    pub(crate) fn with_object(
        con: &mut Console,
        width: i32,
        height: i32,
        log: ConsoleLog,
    ) -> Result<Self, crate::GuiError> {
        let id = match con.find_object_str("Canvas") {
            Some(id) if con.object_data::<CanvasState>(id).is_some() => id,
            _ => con
                .create_object("GuiCanvas", Some("Canvas"))
                .map_err(|e| crate::GuiError::Console(e.to_string()))?,
        };
        let st = CanvasState { size: Point2I::new(width.max(0), height.max(0)), ..Default::default() };
        con.set_object_data(id, Box::new(st));
        Ok(GuiCanvas {
            id,
            fonts: Fonts::new(),
            profiles: ProfileCache::default(),
            game_view: None,
            global_binds: Vec::new(),
            dirty: DirtyRects::new(1),
            prev_list: DrawList::new(),
            prev_ranges: HashMap::new(),
            log,
            mods: ModSet::default(),
        })
    }

    /// The `Canvas` console object.
    pub fn id(&self) -> ObjectId {
        self.id
    }

    pub fn log(&self) -> &ConsoleLog {
        &self.log
    }

    /// How many buffers the host flips between (1..=3); see [`DirtyRects`].
    pub fn set_buffer_count(&mut self, n: usize) {
        self.dirty = DirtyRects::new(n);
    }

    /// Lays text out in `face` (give the renderer the same face, `Renderer::set_font_face`).
    pub fn set_font_face(&mut self, face: v12_render_gl::FontFace) {
        self.fonts.set_face(face);
    }

    pub fn set_game_view(&mut self, view: Option<Box<dyn GameView>>) {
        self.game_view = view;
    }

    /// Binds a key on the canvas's own global map, checked before any control (V12's
    /// GlobalActionMap until the sim's action maps take over): on make, `script` is evaluated
    /// with `%make` replaced by 1 (and on break by 0, if the script mentions `%make`).
    pub fn bind_global(&mut self, chord: KeyChord, script: &str) {
        self.global_binds.retain(|(c, _)| *c != chord);
        self.global_binds.push((chord, script.to_owned()));
    }

    /// Binds `~` to `toggleConsole(1);` (V12 example: default.bind.cs).
    pub fn bind_console_toggle(&mut self) {
        let chord = KeyChord { key: crate::keys::KEY_TILDE, mods: ModSet::default() };
        self.bind_global(chord, "toggleConsole(%make);");
    }

    /// Binds F10 to `toggleGuiEditor(1);` (the GUI Editor, V12's default binding).
    pub fn bind_gui_editor_toggle(&mut self) {
        let chord = KeyChord { key: crate::keys::KEY_F10, mods: ModSet::default() };
        self.bind_global(chord, "toggleGuiEditor(%make);");
    }

    pub fn state<'a>(&self, con: &'a Console) -> Option<&'a CanvasState> {
        state(con, self.id)
    }

    pub fn size(&self, con: &Console) -> Point2I {
        self.state(con).map(|s| s.size).unwrap_or_default()
    }

    /// The host's clock for double clicks and the cursor blink.
    pub fn set_time(&mut self, con: &mut Console, ms: u64) {
        if let Some(s) = state_mut(con, self.id) {
            s.time_ms = ms;
        }
    }

    /// Resizes the canvas and every layer root (their children follow their sizing rules).
    pub fn set_size(&mut self, con: &mut Console, width: i32, height: i32) {
        let size = Point2I::new(width.max(0), height.max(0));
        let layers = match state_mut(con, self.id) {
            Some(s) => {
                s.size = size;
                s.layers.clone()
            }
            None => return,
        };
        for l in layers {
            control::resize(con, l, Point2I::default(), size);
        }
        self.dirty.add(RectI::new(0, 0, size.x, size.y));
    }

    pub fn set_content(&mut self, con: &mut Console, ctrl: ObjectId) {
        set_content(con, self.id, ctrl);
    }

    pub fn push_dialog(&mut self, con: &mut Console, ctrl: ObjectId) {
        push_dialog(con, self.id, ctrl);
    }

    pub fn pop_dialog(&mut self, con: &mut Console, ctrl: Option<ObjectId>) {
        pop_dialog(con, self.id, ctrl);
    }

    pub fn first_responder(&self, con: &Console) -> Option<ObjectId> {
        self.state(con).and_then(|s| s.first_responder)
    }

    pub fn set_first_responder(&mut self, con: &mut Console, ctrl: Option<ObjectId>) {
        set_first_responder(con, self.id, ctrl);
    }

    pub fn mouse_lock(&self, con: &Console) -> Option<ObjectId> {
        self.state(con).and_then(|s| s.mouse_lock)
    }

    /// Marks a screen rect for repaint (V12's setUpdate).
    pub fn set_update(&mut self, r: RectI) {
        self.dirty.add(r);
    }

    /// V12's order: the global action map, then the canvas, then the game's action maps.
    pub fn process_event(
        &mut self,
        con: &mut Console,
        ev: &InputEvent,
        global: Option<&mut dyn InputHandler>,
        game: Option<&mut dyn InputHandler>,
    ) -> Consumer {
        if let Some(g) = global
            && g.handle_input(con, ev)
        {
            return Consumer::GlobalMap;
        }
        if self.process_input(con, ev) {
            return Consumer::Canvas;
        }
        if let Some(g) = game
            && g.handle_input(con, ev)
        {
            return Consumer::GameMaps;
        }
        Consumer::Nobody
    }

    /// GuiCanvas::processInputEvent: the canvas's global binds, then keys through the first
    /// responder chain, Tab / Shift-Tab and accelerators, mouse buttons and the wheel to the
    /// control under the cursor (or the one holding the mouse lock). False: not consumed, so
    /// the game's action maps should see it.
    pub fn process_input(&mut self, con: &mut Console, ev: &InputEvent) -> bool {
        self.profiles.clear();
        self.mods = ModSet::of(ev.modifiers);
        if ev.device_type == InputDeviceType::Keyboard && ev.object_type == InputObjectType::Key {
            let chord = KeyChord { key: ev.object_inst, mods: ModSet::of(ev.modifiers) };
            if let Some((_, script)) = self.global_binds.iter().find(|(c, _)| *c == chord) {
                let make = ev.action != InputAction::Break;
                if make || script.contains("%make") {
                    let s = script.replace("%make", if make { "1" } else { "0" });
                    let _ = con.eval(&s);
                }
                return true;
            }
            let key = KeyEv {
                key: ev.object_inst,
                ch: char::from_u32(u32::from(ev.ascii)).filter(|c| *c != '\0'),
                mods: chord.mods,
                make: ev.action != InputAction::Break,
            };
            return self.process_key(con, key);
        }
        if ev.device_type == InputDeviceType::Mouse {
            let Some(st) = self.state(con).filter(|s| !s.cursor_off) else { return false };
            let pt = st.cursor;
            return match (ev.object_type, ev.action) {
                (InputObjectType::Button, a) => {
                    let down = a != InputAction::Break;
                    match ev.object_inst {
                        0 if down => self.mouse_down(con, pt),
                        0 => self.mouse_up(con, pt),
                        1 => {
                            let k = if down { MouseKind::RightDown } else { MouseKind::RightUp };
                            self.mouse_to_hit(con, pt, k)
                        }
                        _ => false,
                    }
                }
                (InputObjectType::ZAxis, _) if ev.value != 0.0 => self.mouse_wheel(con, pt, ev.value),
                _ => false,
            };
        }
        false
    }

    /// Cursor movement: enter/leave, then move (or drag) to the control under the cursor or
    /// the one holding the lock.
    pub fn process_mouse_move(&mut self, con: &mut Console, ev: &MouseMoveEvent) -> bool {
        self.profiles.clear();
        self.mods = ModSet::of(ev.modifiers);
        let pt = Point2I::new(ev.x_pos, ev.y_pos);
        let Some(st) = state_mut(con, self.id) else { return false };
        st.cursor = pt;
        if st.cursor_off {
            return false;
        }
        let (lock, over, left_down) = (st.mouse_lock, st.mouse_over, st.left_down);
        let kind = if left_down { MouseKind::Dragged } else { MouseKind::Move };
        if let Some(l) = lock {
            let inside = global_rect(con, l).contains(pt);
            if inside != (over == Some(l)) {
                let k = if inside { MouseKind::Enter } else { MouseKind::Leave };
                self.send_mouse(con, l, MouseEv { kind: k, pt, clicks: 0 });
                if let Some(s) = state_mut(con, self.id) {
                    s.mouse_over = inside.then_some(l);
                }
            }
            self.send_mouse(con, l, MouseEv { kind, pt, clicks: 0 });
            return true;
        }
        let hit = self.find_hit(con, pt);
        self.set_mouse_over(con, hit, pt);
        match hit {
            Some(h) => {
                self.send_mouse(con, h, MouseEv { kind, pt, clicks: 0 });
                true
            }
            None => false,
        }
    }

    fn set_mouse_over(&mut self, con: &mut Console, hit: Option<ObjectId>, pt: Point2I) {
        let over = self.state(con).and_then(|s| s.mouse_over);
        if over == hit {
            return;
        }
        if let Some(o) = over {
            self.send_mouse(con, o, MouseEv { kind: MouseKind::Leave, pt, clicks: 0 });
            con.call_method_if_exists(o, "onMouseLeave", &[]);
        }
        if let Some(s) = state_mut(con, self.id) {
            s.mouse_over = hit;
        }
        if let Some(h) = hit {
            self.send_mouse(con, h, MouseEv { kind: MouseKind::Enter, pt, clicks: 0 });
            con.call_method_if_exists(h, "onMouseEnter", &[]);
        }
    }

    fn mouse_down(&mut self, con: &mut Console, pt: Point2I) -> bool {
        let lock = self.mouse_lock(con);
        let target = match lock {
            Some(l) => Some(l),
            None => self.find_hit(con, pt),
        };
        let Some(st) = state_mut(con, self.id) else { return false };
        st.left_down = true;
        let Some(t) = target else { return false };
        let now = st.time_ms;
        let clicks = match st.last_click {
            Some((c, when, p, n))
                if c == t
                    && now.saturating_sub(when) <= DOUBLE_CLICK_MS
                    && (p.x - pt.x).abs() <= 3
                    && (p.y - pt.y).abs() <= 3 =>
            {
                n + 1
            }
            _ => 1,
        };
        st.last_click = Some((t, now, pt, clicks));
        self.send_mouse(con, t, MouseEv { kind: MouseKind::Down, pt, clicks });
        true
    }

    /// A left click (press and release) at the current cursor position.
    pub fn click(&mut self, con: &mut Console) -> bool {
        let Some(pt) = self.state(con).filter(|s| !s.cursor_off).map(|s| s.cursor) else { return false };
        let a = self.mouse_down(con, pt);
        let b = self.mouse_up(con, pt);
        a || b
    }

    /// V12's cursorOn / cursorOff: with the cursor off the mouse goes to the game.
    pub fn set_cursor_on(&mut self, con: &mut Console, on: bool) {
        if let Some(s) = state_mut(con, self.id) {
            s.cursor_off = !on;
        }
    }

    fn mouse_up(&mut self, con: &mut Console, pt: Point2I) -> bool {
        let Some(st) = state_mut(con, self.id) else { return false };
        st.left_down = false;
        let clicks = st.last_click.map_or(1, |c| c.3);
        let target = match st.mouse_lock {
            Some(l) => Some(l),
            None => self.find_hit(con, pt),
        };
        match target {
            Some(t) => {
                self.send_mouse(con, t, MouseEv { kind: MouseKind::Up, pt, clicks });
                true
            }
            None => false,
        }
    }

    fn mouse_to_hit(&mut self, con: &mut Console, pt: Point2I, kind: MouseKind) -> bool {
        let target = self.mouse_lock(con).or_else(|| self.find_hit(con, pt));
        match target {
            Some(t) => {
                self.send_mouse(con, t, MouseEv { kind, pt, clicks: 1 });
                true
            }
            None => false,
        }
    }

    /// The wheel goes to the control under the cursor and up its parents until one uses it.
    fn mouse_wheel(&mut self, con: &mut Console, pt: Point2I, v: f32) -> bool {
        let mut cur = self.mouse_lock(con).or_else(|| self.find_hit(con, pt));
        let any = cur.is_some();
        while let Some(c) = cur {
            if self.send_mouse(con, c, MouseEv { kind: MouseKind::Wheel(v), pt, clicks: 0 }) {
                return true;
            }
            cur = control::parent(con, c);
        }
        any
    }

    /// The control the mouse is over: layers from the top; a non-modal control is transparent
    /// (its parent, or a lower layer, gets the mouse), so a modal dialog root blocks all below.
    pub fn find_hit(&mut self, con: &mut Console, pt: Point2I) -> Option<ObjectId> {
        let st = self.state(con)?;
        let size = st.size;
        let layers = st.layers.clone();
        for &l in layers.iter().rev() {
            if !is_control(con, l) || !ControlFields::read(con, l).visible {
                continue;
            }
            if RectI::new(0, 0, size.x, size.y).contains(pt) {
                let hit = self.hit_in(con, l, pt);
                if self.profiles.of_control(con, hit).modal {
                    return Some(hit);
                }
            }
        }
        None
    }

    fn hit_in(&mut self, con: &Console, id: ObjectId, pt: Point2I) -> ObjectId {
        for c in children(con, id).into_iter().rev() {
            let ctl = ControlFields::read(con, c);
            if ctl.visible && ctl.bounds().contains(pt) {
                let hit = self.hit_in(con, c, Point2I::new(pt.x - ctl.pos.x, pt.y - ctl.pos.y));
                if self.profiles.of_control(con, hit).modal {
                    return hit;
                }
            }
        }
        id
    }

    /// Runs a control's mouse handler and applies its effects. True when it used the event.
    fn send_mouse(&mut self, con: &mut Console, id: ObjectId, ev: MouseEv) -> bool {
        self.send(con, id, |h, d| events::on_mouse(h, d, ev))
    }

    /// Runs a control's key handler and applies its effects. True when it used the event.
    fn send_key(&mut self, con: &mut Console, id: ObjectId, ev: KeyEv) -> bool {
        self.send(con, id, |h, d| events::on_key(h, d, ev))
    }

    /// Gives `handler` the control's state and context, then puts the state back and applies
    /// the effects the handler queued (script runs only after the handler has finished).
    fn send(
        &mut self,
        con: &mut Console,
        id: ObjectId,
        handler: impl FnOnce(&mut EventContext<'_>, &mut ControlData) -> bool,
    ) -> bool {
        if !ensure(con, id) {
            return false;
        }
        let profile = self.profiles.of_control(con, id);
        let size = self.size(con);
        let Some(mut d) = take_data(con, id) else { return false };
        let mut h = EventContext {
            con,
            fonts: &mut self.fonts,
            profile: &profile,
            ctl: ControlFields::read(con, id),
            rect: global_rect(con, id),
            canvas_size: size,
            mods: self.mods,
            fx: Vec::new(),
        };
        let used = handler(&mut h, &mut d);
        let fx = std::mem::take(&mut h.fx);
        con.set_object_data(id, d);
        self.apply(con, fx);
        used
    }

    fn process_key(&mut self, con: &mut Console, ev: KeyEv) -> bool {
        // The first responder chain: the focused control, then its parents.
        let mut cur = self.first_responder(con);
        while let Some(c) = cur {
            if self.send_key(con, c, ev) {
                return true;
            }
            cur = control::parent(con, c);
        }
        if !ev.make {
            return false;
        }
        if ev.key == KEY_TAB && !ev.mods.ctrl && !ev.mods.alt {
            return self.tab(con, !ev.mods.shift);
        }
        // Accelerators of awake, visible, active controls, top layer first; a modal layer
        // hides the ones below it.
        let chord = KeyChord { key: ev.key, mods: ev.mods };
        let layers = self.state(con).map(|s| s.layers.clone()).unwrap_or_default();
        for &l in layers.iter().rev() {
            let mut all = Vec::new();
            control::walk(con, l, &mut all);
            for c in all {
                let acc = con.get_field(c, "accelerator").to_string();
                if acc.is_empty() || KeyChord::parse(&acc) != Some(chord) || !usable(con, c) {
                    continue;
                }
                let profile = self.profiles.of_control(con, c);
                let size = self.size(con);
                let Some(mut d) = take_data(con, c) else { continue };
                let mut h = EventContext {
                    con,
                    fonts: &mut self.fonts,
                    profile: &profile,
                    ctl: ControlFields::read(con, c),
                    rect: global_rect(con, c),
                    canvas_size: size,
                    mods: self.mods,
                    fx: Vec::new(),
                };
                match d.kind {
                    Kind::Button | Kind::CheckBox | Kind::Radio => events::click_button(&mut h, &mut d),
                    _ => action(&mut h.fx, c),
                }
                let fx = std::mem::take(&mut h.fx);
                con.set_object_data(c, d);
                self.apply(con, fx);
                return true;
            }
            if self.profiles.of_control(con, l).modal {
                break;
            }
        }
        false
    }

    /// Tab / Shift-Tab through the top layer's controls whose profile has `tab` and
    /// `canKeyFocus`, in tree order, wrapping.
    fn tab(&mut self, con: &mut Console, forward: bool) -> bool {
        let Some(&top) = self.state(con).and_then(|s| s.layers.last()) else { return false };
        let mut all = Vec::new();
        control::walk(con, top, &mut all);
        let list: Vec<ObjectId> = all
            .into_iter()
            .filter(|&c| {
                let p = self.profiles.of_control(con, c);
                p.tab && p.can_key_focus && usable(con, c)
            })
            .collect();
        if list.is_empty() {
            return false;
        }
        let cur = self.first_responder(con).and_then(|f| list.iter().position(|&c| c == f));
        let next = match (cur, forward) {
            (None, true) => 0,
            (None, false) => list.len() - 1,
            (Some(i), true) => (i + 1) % list.len(),
            (Some(i), false) => (i + list.len() - 1) % list.len(),
        };
        set_first_responder(con, self.id, Some(list[next]));
        true
    }

    /// Applies handler effects in order (script runs here, after all state is put back).
    fn apply(&mut self, con: &mut Console, fx: Vec<Effect>) {
        for e in fx {
            match e {
                Effect::Command(id) => eval_field(con, id, "command"),
                Effect::AltCommand(id) => eval_field(con, id, "altCommand"),
                Effect::Callback(id, name, args) => callback(con, id, name, &args),
                Effect::SetVariable(id, v) => {
                    let var = con.get_field(id, "variable").to_string();
                    if !var.is_empty() {
                        con.set_global(&var, v);
                    }
                }
                Effect::SetField(id, f, v) => con.set_field(id, f, v),
                Effect::Lock(id) => {
                    if let Some(s) = state_mut(con, self.id) {
                        s.mouse_lock = Some(id);
                    }
                }
                Effect::Unlock => {
                    if let Some(s) = state_mut(con, self.id) {
                        s.mouse_lock = None;
                    }
                }
                Effect::Focus(id) => set_first_responder(con, self.id, Some(id)),
                Effect::RadioOff { parent, group, except } => {
                    let sibs = parent.map(|p| children(con, p)).unwrap_or_default();
                    for s in sibs {
                        if s != except
                            && control::kind_of(con, s) == Some(Kind::Radio)
                            && con.get_field(s, "groupNum").to_i32() == group
                            && let Some(d) = control::data_mut(con, s)
                            && d.state_on
                        {
                            d.state_on = false;
                            let var = con.get_field(s, "variable").to_string();
                            if !var.is_empty() {
                                con.set_global(&var, 0);
                            }
                        }
                    }
                }
                Effect::BringToFront(id) => {
                    if let Some(p) = con.object(id).and_then(|o| o.group) {
                        con.set_remove(p, id);
                        con.set_add(p, id);
                    }
                }
                Effect::OpenOverlay(id) => {
                    if let Some(s) = state_mut(con, self.id) {
                        s.overlay = Some(id);
                    }
                }
                Effect::CloseOverlay => {
                    if let Some(s) = state_mut(con, self.id) {
                        s.overlay = None;
                    }
                }
                Effect::DeleteObject(id) => {
                    con.delete_object(id);
                }
                Effect::Eval(line) => {
                    con.echo(&format!("==>{line}"));
                    let _ = con.eval(&line);
                }
                Effect::Sound(id, field) => {
                    let profile = con.get_field(id, "profile");
                    let sound = con.find_object(&profile).map(|p| con.get_field(p, field).to_string());
                    if let Some(sound) = sound.filter(|s| !s.trim().is_empty())
                        && con.is_function("alxPlay")
                    {
                        con.call_function("alxPlay", &[Value::from(sound)]);
                    }
                }
            }
        }
    }

    /// onPreRender for every awake control: `variable` bindings pulled from their globals,
    /// text fields reloaded into edit buffers, text edit scrolling.
    fn pre_render(&mut self, con: &mut Console, layers: &[ObjectId]) {
        let mut all = Vec::new();
        for &l in layers {
            control::walk(con, l, &mut all);
        }
        for id in all {
            if !ensure(con, id) {
                continue;
            }
            let var = con.get_field(id, "variable").to_string();
            let var_val = (!var.is_empty()).then(|| con.get_global(&var));
            let text = con.get_field(id, "text").to_string();
            let kind = control::data(con, id).map(|d| d.kind);
            let focused = self.first_responder(con) == Some(id);
            match kind {
                Some(Kind::CheckBox | Kind::Radio) => {
                    if let (Some(v), Some(d)) = (var_val, control::data_mut(con, id)) {
                        d.state_on = v.truthy();
                    }
                }
                Some(Kind::Slider | Kind::Progress) => {
                    if let Some(v) = var_val
                        && !v.is_empty()
                    {
                        let cur = con.get_field(id, "value").to_f64();
                        if cur != v.to_f64() {
                            con.set_field(id, "value", v.to_f64());
                        }
                    }
                }
                Some(Kind::Text) => {
                    if let Some(v) = var_val {
                        let s = v.to_string();
                        if s != text {
                            con.set_field(id, "text", Value::from(s));
                        }
                    }
                }
                Some(Kind::TextEdit) => {
                    let want = match var_val {
                        Some(v) if !focused => v.to_string(),
                        _ => text,
                    };
                    let size = self.profiles.of_control(con, id).font_size;
                    let w = ControlFields::read(con, id).ext.x;
                    if con.get_field(id, "text").as_text() != want {
                        con.set_field(id, "text", Value::from(want.clone()));
                    }
                    if let Some(mut d) = take_data(con, id) {
                        if d.edit.text() != want {
                            d.edit.set_text(&want);
                        }
                        d.text_scroll = render::edit_scroll_for(&mut self.fonts, size, &d, w);
                        con.set_object_data(id, d);
                    }
                }
                _ => {}
            }
        }
    }

    /// Builds the frame's draw list (appended to `list`) and updates the dirty rects.
    pub fn render(&mut self, con: &mut Console, list: &mut DrawList) -> FrameInfo {
        self.profiles.clear();
        let (size, layers) = match state_mut(con, self.id) {
            Some(s) => (s.size, s.layers.clone()),
            None => return FrameInfo::default(),
        };
        let layers: Vec<ObjectId> = layers.into_iter().filter(|&l| is_control(con, l)).collect();
        if let Some(s) = state_mut(con, self.id) {
            s.layers.clone_from(&layers);
        }
        self.pre_render(con, &layers);
        let start = list.len();
        let mut ranges = HashMap::new();
        let screen = RectI::new(0, 0, size.x, size.y);
        for &l in &layers {
            self.render_control(con, l, Point2I::default(), screen, list, &mut ranges);
        }
        if let Some(o) = self.state(con).and_then(|s| s.overlay)
            && let Some(d) = control::data(con, o).cloned()
        {
            let profile = self.profiles.of_control(con, o);
            let os = list.len();
            let time_ms = self.state(con).map_or(0, |s| s.time_ms);
            let mut rx = RenderContext {
                con,
                fonts: &mut self.fonts,
                profile: &profile,
                ctl: ControlFields::read(con, o),
                rect: global_rect(con, o),
                focused: false,
                time_ms,
                log: &self.log,
                canvas_size: size,
            };
            render::render_popup_list(&mut rx, &d, list);
            let lr = crate::layout::popup_list_rect(rx.rect, d.rows.len(), &profile, size);
            ranges.insert(u32::MAX, (os..list.len(), lr));
        }
        // Dirty rects: every control whose own commands changed, appeared or vanished.
        let rebase = |r: &Range<usize>| (r.start - start)..(r.end - start);
        let frame = DrawList { commands: list.commands[start..].to_vec() };
        for (id, (r, vis)) in &ranges {
            let rr = rebase(r);
            match self.prev_ranges.get(id) {
                Some((pr, pvis)) if self.prev_list.commands.get(pr.clone()) == frame.commands.get(rr) => {
                    if pvis != vis {
                        self.dirty.add(union(*pvis, *vis));
                    }
                }
                Some((_, pvis)) => self.dirty.add(union(*pvis, *vis)),
                None => self.dirty.add(*vis),
            }
        }
        for (id, (_, pvis)) in &self.prev_ranges {
            if !ranges.contains_key(id) {
                self.dirty.add(*pvis);
            }
        }
        if let Some(s) = state_mut(con, self.id) {
            for r in s.updates.drain(..) {
                self.dirty.add(r);
            }
        }
        let controls = ranges.len();
        self.prev_ranges = ranges.into_iter().map(|(k, (r, v))| (k, (rebase(&r), v))).collect();
        self.prev_list = frame;
        FrameInfo { dirty: self.dirty.present(), controls }
    }

    fn render_control(
        &mut self,
        con: &mut Console,
        id: ObjectId,
        at: Point2I,
        clip: RectI,
        list: &mut DrawList,
        ranges: &mut HashMap<ObjectId, (Range<usize>, RectI)>,
    ) {
        let ctl = ControlFields::read(con, id);
        if !ctl.visible || !ensure(con, id) {
            return;
        }
        let rect = RectI::new(at.x, at.y, ctl.ext.x, ctl.ext.y);
        let vis = rect.intersect(&clip);
        if vis.is_empty() {
            return;
        }
        let profile = self.profiles.of_control(con, id);
        let (time_ms, focused) =
            self.state(con).map(|s| (s.time_ms, s.first_responder == Some(id))).unwrap_or_default();
        let size = self.size(con);
        let Some(d) = take_data(con, id) else { return };
        let start = list.len();
        list.push_clip(vis);
        let mut rx = RenderContext {
            con,
            fonts: &mut self.fonts,
            profile: &profile,
            ctl,
            rect,
            focused,
            time_ms,
            log: &self.log,
            canvas_size: size,
        };
        render::render(&mut rx, &d, list, self.game_view.as_deref());
        let child_clip = if d.kind == Kind::Scroll {
            events::scroll_view_screen(con, &ctl, &profile, &d, rect).intersect(&vis)
        } else {
            vis
        };
        con.set_object_data(id, d);
        ranges.insert(id, (start..list.len(), vis));
        if !child_clip.is_empty() {
            for c in children(con, id) {
                let cp = ControlFields::read(con, c).pos;
                self.render_control(con, c, Point2I::new(at.x + cp.x, at.y + cp.y), child_clip, list, ranges);
            }
        }
        list.pop_clip();
    }
}

fn take_data(con: &mut Console, id: ObjectId) -> Option<Box<ControlData>> {
    let user = con.object_mut(id)?.user.take()?;
    match user.downcast::<ControlData>() {
        Ok(d) => Some(d),
        Err(other) => {
            if let Some(o) = con.object_mut(id) {
                o.user = Some(other);
            }
            None
        }
    }
}

/// Awake, visible up to its layer root, and active.
fn usable(con: &Console, id: ObjectId) -> bool {
    let awake = control::data(con, id).is_some_and(|d| d.awake);
    let mut cur = Some(id);
    while let Some(c) = cur {
        if !ControlFields::read(con, c).visible {
            return false;
        }
        cur = control::parent(con, c);
    }
    awake && ControlFields::read(con, id).active
}

fn eval_field(con: &mut Console, id: ObjectId, field: &str) {
    let cmd = con.get_field(id, field).to_string();
    if cmd.is_empty() {
        return;
    }
    con.set_global("ThisControl", id);
    if let Err(e) = con.eval(&cmd) {
        tracing::debug!("{field} of control {id} failed: {e}");
    }
}

/// A callback on a control: `Name::method` when the control is named and that exists, else
/// the method through the object's class namespaces (silently nothing if undefined).
pub fn callback(con: &mut Console, id: ObjectId, method: &str, args: &[Value]) {
    let name = con.object_name(id);
    if !name.is_empty() {
        let full = format!("{name}::{method}");
        if con.is_function(&full) {
            let mut all = Vec::with_capacity(args.len() + 1);
            all.push(Value::from(id));
            all.extend_from_slice(args);
            con.call_function(&full, &all);
            return;
        }
    }
    con.call_method_if_exists(id, method, args);
}

fn wake_tree(con: &mut Console, root: ObjectId, awake: bool) {
    let mut all = Vec::new();
    control::walk(con, root, &mut all);
    let mut changed = Vec::new();
    for &c in &all {
        if let Some(d) = control::data_mut(con, c)
            && d.awake != awake
        {
            d.awake = awake;
            if !awake {
                d.mouse_over = false;
                d.mouse_down = false;
                d.depressed = false;
                d.popup_open = false;
            }
            changed.push(c);
        }
    }
    // Children before parents, as GuiControl::awaken / sleep.
    for &c in changed.iter().rev() {
        callback(con, c, if awake { "onWake" } else { "onSleep" }, &[]);
    }
}

fn layer_added(con: &mut Console, canvas: ObjectId, ctrl: ObjectId) {
    let size = state(con, canvas).map(|s| s.size).unwrap_or_default();
    control::resize(con, ctrl, Point2I::default(), size);
    wake_tree(con, ctrl, true);
}

fn layer_removed(con: &mut Console, canvas: ObjectId, ctrl: ObjectId) {
    let mut all = Vec::new();
    control::walk(con, ctrl, &mut all);
    if let Some(s) = state_mut(con, canvas) {
        let gone = |x: Option<ObjectId>| x.is_some_and(|c| all.contains(&c));
        if gone(s.first_responder) {
            s.first_responder = None;
        }
        if gone(s.mouse_lock) {
            s.mouse_lock = None;
        }
        if gone(s.mouse_over) {
            s.mouse_over = None;
        }
        if gone(s.overlay) {
            s.overlay = None;
        }
    }
    wake_tree(con, ctrl, false);
}

/// Canvas.setContent: replaces the whole layer stack with one content control.
pub fn set_content(con: &mut Console, canvas: ObjectId, ctrl: ObjectId) {
    if !ensure(con, ctrl) {
        return;
    }
    let old = state_mut(con, canvas).map(|s| std::mem::take(&mut s.layers)).unwrap_or_default();
    for l in old.into_iter().rev() {
        if l != ctrl {
            layer_removed(con, canvas, l);
        }
    }
    if let Some(s) = state_mut(con, canvas) {
        s.layers.push(ctrl);
        s.updates.push(RectI::new(0, 0, s.size.x, s.size.y));
    }
    layer_added(con, canvas, ctrl);
}

/// Canvas.pushDialog: a layer on top (moved there if already open).
pub fn push_dialog(con: &mut Console, canvas: ObjectId, ctrl: ObjectId) {
    if !ensure(con, ctrl) {
        return;
    }
    let Some(s) = state_mut(con, canvas) else { return };
    let was = s.layers.contains(&ctrl);
    s.layers.retain(|&l| l != ctrl);
    s.layers.push(ctrl);
    s.updates.push(RectI::new(0, 0, s.size.x, s.size.y));
    if !was {
        layer_added(con, canvas, ctrl);
    }
    // A modal dialog takes the keyboard from the layers below it.
    let modal = ProfileCache::default().of_control(con, ctrl).modal;
    let focus = state(con, canvas).and_then(|s| s.first_responder);
    if modal && let Some(f) = focus {
        let mut inside = Vec::new();
        control::walk(con, ctrl, &mut inside);
        if !inside.contains(&f) {
            set_first_responder(con, canvas, None);
        }
    }
}

/// Canvas.popDialog: removes that dialog, or the top one (never the content) when `None`.
pub fn pop_dialog(con: &mut Console, canvas: ObjectId, ctrl: Option<ObjectId>) {
    let Some(s) = state_mut(con, canvas) else { return };
    let target = match ctrl {
        Some(c) => s.layers.iter().position(|&l| l == c),
        None if s.layers.len() > 1 => Some(s.layers.len() - 1),
        None => None,
    };
    let Some(i) = target else { return };
    let c = s.layers.remove(i);
    s.updates.push(RectI::new(0, 0, s.size.x, s.size.y));
    layer_removed(con, canvas, c);
}

pub fn set_first_responder(con: &mut Console, canvas: ObjectId, ctrl: Option<ObjectId>) {
    let old = state(con, canvas).and_then(|s| s.first_responder);
    if old == ctrl {
        return;
    }
    if let Some(s) = state_mut(con, canvas) {
        s.first_responder = ctrl;
    }
    if let Some(o) = old {
        callback(con, o, "onLoseFirstResponder", &[]);
    }
    if let Some(n) = ctrl {
        callback(con, n, "onGainFirstResponder", &[]);
    }
}

/// Screen rect of a control (for tests and hosts).
pub fn screen_rect(con: &Console, id: ObjectId) -> RectI {
    global_rect(con, id)
}

/// Position of a control relative to the screen, as text (for script `getGlobalPosition`).
pub fn global_position_text(con: &Console, id: ObjectId) -> String {
    format_point(global_pos(con, id))
}
