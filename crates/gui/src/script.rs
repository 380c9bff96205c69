//! The GUI's console surface: classes with their fields, control methods (`setValue`,
//! `addRow`, ...), the Canvas methods (`setContent`, `pushDialog`, `popDialog`) and
//! `toggleConsole`.

use crate::canvas::{self, CanvasState};
use crate::control::{self, ControlFields, Kind, data_mut, ensure};
use crate::geom::format_point;
use crate::profile::Profile;
use v12_console_vm::{CallArgs, Console, ObjectId, Value};
use v12_render_gl::Point2I;

/// The console dialog `toggleConsole` shows, created by `GuiCanvas::new` unless a script
/// already made one.
pub const CONSOLE_DLG: &str = r#"
new GuiControlProfile(GuiConsoleProfile) {
    fontSize = 14; fontColor = "220 220 220"; fontColorHL = "255 220 120";
    fillColor = "0 0 0 200"; borderColor = "120 120 120"; cursorColor = "255 255 255";
    opaque = 1; canKeyFocus = 1;
};
new GuiControl(ConsoleDlg) {
    profile = "GuiConsoleProfile"; modal = 1;
    horizSizing = "width"; vertSizing = "height"; position = "0 0"; extent = "640 480";
    new GuiConsoleCtrl(ConsoleCtrl) {
        profile = "GuiConsoleProfile";
        horizSizing = "width"; vertSizing = "bottom"; position = "0 0"; extent = "640 240";
    };
};
"#;

fn this(a: &CallArgs<'_>) -> ObjectId {
    a.this.unwrap_or(0)
}

fn obj_arg(con: &Console, a: &CallArgs<'_>, i: usize) -> Option<ObjectId> {
    con.find_object(&a.get(i))
}

impl crate::GuiCanvas {
    /// Registers the GUI classes and functions with the console and creates the `Canvas`
    /// object of the given size. `log` is what console controls show (give `log.sink()` to
    /// `Console::set_output`).
    pub fn new(
        con: &mut Console,
        width: i32,
        height: i32,
        log: crate::ConsoleLog,
    ) -> Result<Self, crate::GuiError> {
        register(con)?;
        Self::with_object(con, width, height, log)
    }
}

/// Registers everything (idempotent).
pub fn register(con: &mut Console) -> Result<(), crate::GuiError> {
    crate::classes::register_classes(con)?;
    if con.class_id("GuiCanvas").is_none() {
        con.register_class("GuiCanvas", "SimObject").map_err(|e| crate::GuiError::Console(e.to_string()))?;
    }
    register_control_methods(con);
    crate::gui_editor::register(con);
    register_canvas_methods(con);
    if con.find_object_str("ConsoleDlg").is_none() {
        con.eval_named(CONSOLE_DLG, "gui/consoleDlg.gui")
            .map_err(|e| crate::GuiError::Console(e.to_string()))?;
    }
    Ok(())
}

fn register_control_methods(con: &mut Console) {
    let g = "GuiControl";
    con.register_method(g, "setVisible", 3, 3, "(bool)", |c, a| {
        c.set_field(this(a), "visible", a.bool(1));
    });
    con.register_method(g, "isVisible", 2, 2, "()", |c, a| c.get_field(this(a), "visible").truthy());
    con.register_method(g, "setActive", 3, 3, "(bool)", |c, a| {
        c.set_field(this(a), "active", a.bool(1));
    });
    con.register_method(g, "isActive", 2, 2, "()", |c, a| c.get_field(this(a), "active").truthy());
    con.register_method(g, "isAwake", 2, 2, "()", |c, a| control::data(c, this(a)).is_some_and(|d| d.awake));
    con.register_method(g, "setProfile", 3, 3, "(profile)", |c, a| {
        c.set_field(this(a), "profile", a.get(1));
    });
    con.register_method(g, "resize", 6, 6, "(x, y, w, h)", |c, a| {
        control::resize(c, this(a), Point2I::new(a.i32(1), a.i32(2)), Point2I::new(a.i32(3), a.i32(4)));
    });
    con.register_method(g, "setPosition", 4, 4, "(x, y)", |c, a| {
        let ext = ControlFields::read(c, this(a)).ext;
        control::resize(c, this(a), Point2I::new(a.i32(1), a.i32(2)), ext);
    });
    con.register_method(g, "setExtent", 4, 4, "(w, h)", |c, a| {
        let pos = ControlFields::read(c, this(a)).pos;
        control::resize(c, this(a), pos, Point2I::new(a.i32(1), a.i32(2)));
    });
    con.register_method(g, "getPosition", 2, 2, "()", |c, a| {
        format_point(ControlFields::read(c, this(a)).pos)
    });
    con.register_method(g, "getExtent", 2, 2, "()", |c, a| format_point(ControlFields::read(c, this(a)).ext));
    con.register_method(g, "getGlobalPosition", 2, 2, "()", |c, a| canvas::global_position_text(c, this(a)));
    con.register_method(g, "setText", 3, 3, "(text)", |c, a| {
        let id = this(a);
        c.set_field(id, "text", a.get(1));
        if let Some(d) = data_mut(c, id)
            && matches!(d.kind, Kind::TextEdit | Kind::Console)
        {
            d.edit.set_text(&a.str(1));
        }
    });
    con.register_method(g, "getText", 2, 2, "()", |c, a| c.get_field(this(a), "text"));
    con.register_method(g, "setValue", 3, 3, "(value)", |c, a| set_value(c, this(a), a.get(1)));
    con.register_method(g, "getValue", 2, 2, "()", |c, a| get_value(c, this(a)));
    con.register_method(g, "makeFirstResponder", 3, 3, "(bool)", |c, a| {
        let Some(cv) = c.find_object_str("Canvas") else { return };
        let id = this(a);
        if a.bool(1) {
            canvas::set_first_responder(c, cv, Some(id));
        } else if canvas::state(c, cv).and_then(|s| s.first_responder) == Some(id) {
            canvas::set_first_responder(c, cv, None);
        }
    });
    con.register_method(g, "setUpdate", 2, 2, "()", |c, a| {
        let r = canvas::screen_rect(c, this(a));
        if let Some(cv) = c.find_object_str("Canvas")
            && let Some(s) = canvas::state_mut(c, cv)
        {
            s.updates.push(r);
        }
    });

    let tl = "GuiTextListCtrl";
    con.register_method(tl, "addRow", 4, 5, "(id, text [, index])", |c, a| {
        let id = this(a);
        let idx = if a.len() > 3 { Some(a.i32(3).max(0) as usize) } else { None };
        if let Some(d) = data_mut(c, id) {
            let row = (a.i32(1), a.str(2).into_owned());
            let at = idx.unwrap_or(d.rows.len()).min(d.rows.len());
            d.rows.insert(at, row);
            if let Some(s) = d.selected.filter(|&s| s >= at) {
                d.selected = Some(s + 1);
            }
        }
        fit_rows(c, id);
    });
    con.register_method(tl, "clear", 2, 2, "()", |c, a| {
        if let Some(d) = data_mut(c, this(a)) {
            d.rows.clear();
            d.selected = None;
        }
        fit_rows(c, this(a));
    });
    con.register_method(tl, "rowCount", 2, 2, "()", |c, a| {
        data_mut(c, this(a)).map_or(0, |d| d.rows.len() as i64)
    });
    con.register_method(tl, "getSelectedId", 2, 2, "()", |c, a| {
        data_mut(c, this(a)).and_then(|d| d.selected.and_then(|s| d.rows.get(s)).map(|r| r.0)).unwrap_or(-1)
    });
    con.register_method(tl, "getRowText", 3, 3, "(index)", |c, a| {
        let i = a.i32(1);
        data_mut(c, this(a))
            .and_then(|d| usize::try_from(i).ok().and_then(|i| d.rows.get(i)).map(|r| r.1.clone()))
            .unwrap_or_default()
    });
    con.register_method(tl, "getRowId", 3, 3, "(index)", |c, a| {
        let i = a.i32(1);
        data_mut(c, this(a))
            .and_then(|d| usize::try_from(i).ok().and_then(|i| d.rows.get(i)).map(|r| r.0))
            .unwrap_or(-1)
    });
    con.register_method(tl, "removeRowById", 3, 3, "(id)", |c, a| {
        let rid = a.i32(1);
        if let Some(d) = data_mut(c, this(a))
            && let Some(i) = d.rows.iter().position(|r| r.0 == rid)
        {
            d.rows.remove(i);
            d.selected = match d.selected {
                Some(s) if s == i => None,
                Some(s) if s > i => Some(s - 1),
                s => s,
            };
        }
        fit_rows(c, this(a));
    });
    con.register_method(tl, "setSelectedById", 3, 3, "(id)", |c, a| {
        let rid = a.i32(1);
        if let Some(d) = data_mut(c, this(a)) {
            d.selected = d.rows.iter().position(|r| r.0 == rid);
        }
    });
    con.register_method(tl, "setSelectedRow", 3, 3, "(index)", |c, a| {
        let i = a.i32(1);
        if let Some(d) = data_mut(c, this(a)) {
            d.selected = usize::try_from(i).ok().filter(|&i| i < d.rows.len());
        }
    });

    let pm = "GuiPopUpMenuCtrl";
    con.register_method(pm, "add", 4, 4, "(text, id)", |c, a| {
        if let Some(d) = data_mut(c, this(a)) {
            d.rows.push((a.i32(2), a.str(1).into_owned()));
        }
    });
    con.register_method(pm, "clear", 2, 2, "()", |c, a| {
        if let Some(d) = data_mut(c, this(a)) {
            d.rows.clear();
            d.selected = None;
        }
        c.set_field(this(a), "text", "");
    });
    con.register_method(pm, "size", 2, 2, "()", |c, a| {
        data_mut(c, this(a)).map_or(0, |d| d.rows.len() as i64)
    });
    con.register_method(pm, "setSelected", 3, 3, "(id)", |c, a| {
        let rid = a.i32(1);
        let id = this(a);
        let text = data_mut(c, id).and_then(|d| {
            d.selected = d.rows.iter().position(|r| r.0 == rid);
            d.selected.map(|s| d.rows[s].1.clone())
        });
        c.set_field(id, "text", text.unwrap_or_default());
    });
    con.register_method(pm, "getSelected", 2, 2, "()", |c, a| {
        data_mut(c, this(a)).and_then(|d| d.selected.map(|s| d.rows[s].0)).unwrap_or(-1)
    });

    let sc = "GuiScrollCtrl";
    con.register_method(sc, "scrollToTop", 2, 2, "()", |c, a| scroll_to(c, this(a), None, Some(0)));
    con.register_method(sc, "scrollToBottom", 2, 2, "()", |c, a| scroll_to(c, this(a), None, Some(i32::MAX)));
    con.register_method(sc, "setScrollPosition", 4, 4, "(x, y)", |c, a| {
        scroll_to(c, this(a), Some(a.i32(1)), Some(a.i32(2)));
    });
    con.register_method(sc, "getScrollPosition", 2, 2, "()", |c, a| {
        format_point(data_mut(c, this(a)).map(|d| d.scroll).unwrap_or_default())
    });
}

/// A text list's extent follows its rows (Torque sizes the list to its content).
fn fit_rows(con: &mut Console, id: ObjectId) {
    let n = control::data(con, id).map_or(0, |d| d.rows.len()) as i32;
    let mut cache = crate::profile::ProfileCache::default();
    let p: std::rc::Rc<Profile> = cache.of_control(con, id);
    let ctl = ControlFields::read(con, id);
    let h = n * crate::layout::row_height(&p);
    control::resize(con, id, ctl.pos, Point2I::new(ctl.ext.x, h));
}

fn scroll_to(con: &mut Console, id: ObjectId, x: Option<i32>, y: Option<i32>) {
    if !ensure(con, id) {
        return;
    }
    let mut cache = crate::profile::ProfileCache::default();
    let p = cache.of_control(con, id);
    let ctl = ControlFields::read(con, id);
    let Some(d) = control::data(con, id) else { return };
    let cur = d.scroll;
    let lay = crate::layout::scroll_layout(con, &ctl, &p, cur);
    let to = Point2I::new(x.unwrap_or(cur.x).clamp(0, lay.max.x), y.unwrap_or(cur.y).clamp(0, lay.max.y));
    if let Some(d) = data_mut(con, id) {
        d.scroll = to;
    }
    if let Some(c) = lay.content {
        con.set_field(c, "position", format_point(Point2I::new(lay.view.x - to.x, lay.view.y - to.y)));
    }
}

fn set_value(con: &mut Console, id: ObjectId, v: Value) {
    match control::kind_of(con, id) {
        Some(Kind::CheckBox | Kind::Radio) => {
            let on = v.truthy();
            if let Some(d) = data_mut(con, id) {
                d.state_on = on;
            }
            let var = con.get_field(id, "variable").to_string();
            if !var.is_empty() {
                con.set_global(&var, on);
            }
        }
        Some(Kind::Slider | Kind::Progress) => {
            let f = v.to_f64();
            let f = if f.is_finite() { f } else { 0.0 };
            con.set_field(id, "value", f);
            let var = con.get_field(id, "variable").to_string();
            if !var.is_empty() {
                con.set_global(&var, f);
            }
        }
        Some(Kind::TextEdit) => {
            con.set_field(id, "text", v.clone());
            if let Some(d) = data_mut(con, id) {
                d.edit.set_text(&v.as_text());
            }
            let var = con.get_field(id, "variable").to_string();
            if !var.is_empty() {
                con.set_global(&var, v);
            }
        }
        Some(_) => con.set_field(id, "text", v),
        None => {}
    }
}

fn get_value(con: &mut Console, id: ObjectId) -> Value {
    match control::kind_of(con, id) {
        Some(Kind::CheckBox | Kind::Radio) => Value::from(data_mut(con, id).is_some_and(|d| d.state_on)),
        Some(Kind::Slider | Kind::Progress) => con.get_field(id, "value"),
        Some(Kind::TextList | Kind::Popup) => Value::from(
            data_mut(con, id).and_then(|d| d.selected.and_then(|s| d.rows.get(s)).map(|r| r.0)).unwrap_or(-1),
        ),
        Some(_) => con.get_field(id, "text"),
        None => Value::Empty,
    }
}

fn register_canvas_methods(con: &mut Console) {
    let cv = "GuiCanvas";
    con.register_method(cv, "setContent", 3, 3, "(control)", |c, a| {
        if let Some(ctrl) = obj_arg(c, a, 1) {
            canvas::set_content(c, this(a), ctrl);
        }
    });
    con.register_method(cv, "getContent", 2, 2, "()", |c, a| {
        canvas::state(c, this(a)).and_then(|s| s.layers.first().copied()).map_or(-1, i64::from)
    });
    con.register_method(cv, "pushDialog", 3, 3, "(control)", |c, a| {
        if let Some(ctrl) = obj_arg(c, a, 1) {
            canvas::push_dialog(c, this(a), ctrl);
        }
    });
    con.register_method(cv, "popDialog", 2, 3, "([control])", |c, a| {
        let ctrl = if a.len() > 1 { obj_arg(c, a, 1) } else { None };
        if a.len() > 1 && ctrl.is_none() {
            return;
        }
        canvas::pop_dialog(c, this(a), ctrl);
    });
    con.register_method(cv, "isDialogOpen", 3, 3, "(control)", |c, a| match obj_arg(c, a, 1) {
        Some(ctrl) => canvas::state(c, this(a)).is_some_and(|s: &CanvasState| s.layers.contains(&ctrl)),
        None => false,
    });
    con.register_method(cv, "getExtent", 2, 2, "()", |c, a| {
        format_point(canvas::state(c, this(a)).map(|s| s.size).unwrap_or_default())
    });
    con.register_method(cv, "cursorOn", 2, 2, "()", |c, a| {
        if let Some(s) = canvas::state_mut(c, this(a)) {
            s.cursor_off = false;
        }
    });
    con.register_method(cv, "cursorOff", 2, 2, "()", |c, a| {
        if let Some(s) = canvas::state_mut(c, this(a)) {
            s.cursor_off = true;
        }
    });
    con.register_function("toggleConsole", 2, 2, "toggleConsole(make)", |c, a| {
        if !a.bool(0) {
            return;
        }
        let (Some(cv), Some(dlg)) = (c.find_object_str("Canvas"), c.find_object_str("ConsoleDlg")) else {
            return;
        };
        let open = canvas::state(c, cv).is_some_and(|s| s.layers.contains(&dlg));
        if open {
            canvas::pop_dialog(c, cv, Some(dlg));
        } else {
            canvas::push_dialog(c, cv, dlg);
            let mut all = Vec::new();
            control::walk(c, dlg, &mut all);
            if let Some(&entry) = all.iter().find(|&&x| control::kind_of(c, x) == Some(Kind::Console)) {
                canvas::set_first_responder(c, cv, Some(entry));
            }
        }
    });
}
