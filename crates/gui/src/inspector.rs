//! GuiInspector (V12's inspector): "a GUI window that lists out the fields of an object and
//! allows those fields to be changed and saved". `inspect(obj)` fills the control with a row
//! per field — the registered ones grouped by the class that declared them, then the dynamic
//! ones — each a label and the editor its field type names (`v12_console_vm::Editor`): a text
//! edit, a number edit, a check box, a colour edit with a swatch, a menu of datablocks or of
//! an enum's values, a point's or a rotation's components. The editors are ordinary child
//! controls, so they are typed into and clicked through the canvas's input path like any
//! other. `apply([newName])` checks every changed value by its type: a bad one is refused
//! with a console error and its editor shows the old value again; then it calls the
//! object's `onPreApply`, changes the fields, and calls `onPostApply`.
//!
//! Nothing here draws, so the script API works on a dedicated server too (where the menus
//! get no rows: their `add` method belongs to the drawing side).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use v12_console_vm::{
    CallArgs, Console, DATABLOCK_GROUP_ID, Editor, FieldRow, ObjectId, ROOT_GROUP_ID, Value,
};

/// Height of a row.
pub const ROW_H: i32 = 20;
/// Most objects a datablock menu lists.
pub const MAX_MENU: usize = 256;

/// The inspector's own profiles, made by the first `inspect` unless a script made them
/// already.
pub const INSPECTOR_PROFILES: &str = r#"
if (!isObject(GuiInspectorGroupProfile)) new GuiControlProfile(GuiInspectorGroupProfile) {
    fontSize = 13; fontColor = "255 255 255 255"; fillColor = "70 80 110 255"; opaque = 1;
};
if (!isObject(GuiInspectorLabelProfile)) new GuiControlProfile(GuiInspectorLabelProfile) {
    fontSize = 12; fontColor = "20 20 20 255"; fillColor = "210 210 210 255"; opaque = 1;
};
if (!isObject(GuiInspectorEditProfile)) new GuiControlProfile(GuiInspectorEditProfile) {
    fontSize = 12; fontColor = "0 0 0 255"; fillColor = "255 255 255 255"; borderColor = "90 90 90 255";
    fontColorHL = "0 0 0 255"; opaque = 1; border = 1; canKeyFocus = 1; cursorColor = "0 0 0 255";
};
if (!isObject(GuiInspectorCheckProfile)) new GuiControlProfile(GuiInspectorCheckProfile) {
    fontSize = 12; fontColor = "0 0 0 255"; fillColor = "255 255 255 255"; borderColor = "90 90 90 255";
    opaque = 1; border = 1; canKeyFocus = 1;
};
if (!isObject(GuiInspectorSwatchProfile)) new GuiControlProfile(GuiInspectorSwatchProfile) {
    borderColor = "0 0 0 255"; border = 1;
};
"#;

/// One row: the field and its editor controls.
#[derive(Debug, Clone)]
struct Row {
    field: String,
    editor: Editor,
    /// The editor controls (a point has one per component).
    parts: Vec<ObjectId>,
    /// A check box's variable.
    var: Option<String>,
    /// The swatch beside a colour edit.
    swatch: Option<ObjectId>,
    /// A colour type whose components run from 0 to 1.
    unit_color: bool,
}

#[derive(Debug, Default)]
struct Inspected {
    object: Option<ObjectId>,
    rows: Vec<Row>,
}

type Inspectors = Rc<RefCell<HashMap<ObjectId, Inspected>>>;

fn this(a: &CallArgs<'_>) -> ObjectId {
    a.this.unwrap_or(0)
}

/// Registers GuiInspector's methods: `inspect(obj)`, `getInspectObject()`,
/// `apply([newName])`, and `setEditValue(field, text)` / `getEditValue(field)` for scripts
/// and tests that edit without a mouse.
pub fn register(con: &mut Console) {
    let state: Inspectors = Rc::default();
    let g = "GuiInspector";
    let s = state.clone();
    con.register_method(g, "inspect", 3, 3, "(obj)", move |c, a| {
        let obj = c.find_object(&a.get(1));
        if obj.is_none() && !a.str(1).is_empty() {
            c.warn(&format!("GuiInspector::inspect: no object {}", a.str(1)));
        }
        inspect(c, &s, this(a), obj);
    });
    let s = state.clone();
    con.register_method(g, "getInspectObject", 2, 2, "()", move |c, a| {
        let obj = s.borrow().get(&this(a)).and_then(|i| i.object).filter(|&o| c.object(o).is_some());
        Value::Int(obj.map_or(0, i64::from))
    });
    let s = state.clone();
    con.register_method(g, "apply", 2, 3, "([newName])", move |c, a| {
        let name = (a.len() > 1).then(|| a.str(1).into_owned());
        apply(c, &s, this(a), name.as_deref())
    });
    let s = state.clone();
    con.register_method(g, "setEditValue", 4, 4, "(field, text)", move |c, a| {
        let row = s.borrow().get(&this(a)).and_then(|i| find_row(i, &a.str(1)).cloned());
        match row {
            Some(r) => {
                show_value(c, &r, &a.str(2));
                true
            }
            None => false,
        }
    });
    let s = state;
    con.register_method(g, "getEditValue", 3, 3, "(field)", move |c, a| {
        let row = s.borrow().get(&this(a)).and_then(|i| find_row(i, &a.str(1)).cloned());
        Value::from(row.map(|r| pending(c, &r)).unwrap_or_default())
    });
}

fn find_row<'a>(i: &'a Inspected, field: &str) -> Option<&'a Row> {
    i.rows.iter().find(|r| r.field.eq_ignore_ascii_case(field))
}

/// Deletes the inspector's children and forgets inspectors that are gone.
fn clear(con: &mut Console, state: &Inspectors, insp: ObjectId) {
    let kids: Vec<ObjectId> = con.object(insp).map(|o| o.members.clone()).unwrap_or_default();
    for k in kids {
        con.delete_object(k);
    }
    state.borrow_mut().retain(|&id, _| con.object(id).is_some());
}

fn child(con: &mut Console, parent: ObjectId, class: &str, fields: &[(&str, Value)]) -> Option<ObjectId> {
    let id = con.create_object_with_fields(class, None, fields).ok()?;
    con.set_add(parent, id);
    Some(id)
}

fn rect(x: i32, y: i32, w: i32, h: i32) -> [(&'static str, Value); 2] {
    [
        ("position", Value::from(format!("{x} {y}"))),
        ("extent", Value::from(format!("{} {}", w.max(1), h.max(1)))),
    ]
}

/// Fills `insp` with rows for `obj`'s fields (`None`: empties it).
fn inspect(con: &mut Console, state: &Inspectors, insp: ObjectId, obj: Option<ObjectId>) {
    clear(con, state, insp);
    // The profiles are made on first use, so registering the class creates no objects.
    if con.find_object_str("GuiInspectorEditProfile").is_none()
        && let Err(e) = con.eval_named(INSPECTOR_PROFILES, "gui/inspectorProfiles.cs")
    {
        con.error(&format!("GuiInspector: {e}"));
    }
    let Some(obj) = obj else {
        state.borrow_mut().insert(insp, Inspected::default());
        return;
    };
    let width = con
        .get_field(insp, "extent")
        .as_text()
        .split_whitespace()
        .next()
        .map_or(300, |w| w.parse::<i32>().unwrap_or(300).max(80));
    let label_w = width * 2 / 5;
    let x0 = label_w + 4;
    let ew = width - x0 - 4;
    let mut y = 0;
    let mut group = String::new();
    let mut rows = Vec::new();
    for fr in con.field_rows(obj) {
        if fr.group != group {
            group = fr.group.clone();
            let mut f = vec![
                ("profile", Value::from("GuiInspectorGroupProfile")),
                ("text", Value::from(group.as_str())),
            ];
            f.extend(rect(0, y, width, ROW_H - 2));
            child(con, insp, "GuiTextCtrl", &f);
            y += ROW_H;
        }
        let mut f = vec![
            ("profile", Value::from("GuiInspectorLabelProfile")),
            ("text", Value::from(fr.name.as_str())),
        ];
        f.extend(rect(4, y, label_w - 4, ROW_H - 2));
        child(con, insp, "GuiTextCtrl", &f);
        if let Some(row) = editor_row(con, insp, &fr, (x0, y, ew)) {
            show_value(con, &row, &fr.value);
            rows.push(row);
        }
        y += ROW_H;
    }
    con.set_field(insp, "extent", format!("{width} {}", y.max(ROW_H)));
    state.borrow_mut().insert(insp, Inspected { object: Some(obj), rows });
}

/// The editor controls for one field at `(x, y, width)`.
fn editor_row(con: &mut Console, insp: ObjectId, fr: &FieldRow, (x, y, w): (i32, i32, i32)) -> Option<Row> {
    let def = con.field_type_def(fr.ty)?.clone();
    let h = ROW_H - 2;
    let edit = |con: &mut Console, x: i32, w: i32| {
        let mut f = vec![("profile", Value::from("GuiInspectorEditProfile"))];
        f.extend(rect(x, y, w, h));
        child(con, insp, "GuiTextEditCtrl", &f)
    };
    let mut row = Row {
        field: fr.name.clone(),
        editor: def.editor,
        parts: Vec::new(),
        var: None,
        swatch: None,
        unit_color: def.name.eq_ignore_ascii_case("TypeColorF"),
    };
    match def.editor {
        Editor::Text | Editor::Number => row.parts.extend(edit(con, x, w)),
        Editor::Bool => {
            let mut f = vec![("profile", Value::from("GuiInspectorCheckProfile"))];
            f.extend(rect(x, y, h, h));
            let id = child(con, insp, "GuiCheckBoxCtrl", &f)?;
            let var = format!("$InspectorEdit{insp}_{id}");
            con.set_field(id, "variable", var.as_str());
            row.var = Some(var);
            row.parts.push(id);
        }
        Editor::Enum | Editor::DataBlock => {
            let mut f = vec![("profile", Value::from("GuiInspectorEditProfile"))];
            f.extend(rect(x, y, w, h));
            let id = child(con, insp, "GuiPopUpMenuCtrl", &f)?;
            let choices = if def.editor == Editor::Enum {
                def.options.clone()
            } else {
                let mut v = vec![String::new()];
                v.extend(objects_of(con, &def.class));
                v
            };
            // The menu's rows belong to the drawing side (GuiCanvas's registration); without
            // it `add` would be SimSet's.
            if con.class_id("GuiCanvas").is_some() {
                for (i, text) in choices.iter().enumerate() {
                    let _ = con.call_method_if_exists(
                        id,
                        "add",
                        &[Value::from(text.as_str()), Value::Int(i as i64)],
                    );
                }
            }
            row.parts.push(id);
        }
        Editor::Color => {
            row.parts.extend(edit(con, x, w - h - 4));
            let mut f = vec![("profile", Value::from("GuiInspectorSwatchProfile"))];
            f.extend(rect(x + w - h, y, h, h));
            row.swatch = child(con, insp, "GuiSwatchCtrl", &f);
        }
        Editor::Point | Editor::Rotation => {
            let words = fr.value.split_whitespace().count();
            let n = if (2..=4).contains(&words) {
                words as i32
            } else if def.editor == Editor::Point {
                3
            } else {
                4
            };
            let pw = (w - (n - 1) * 2) / n;
            for i in 0..n {
                row.parts.extend(edit(con, x + i * (pw + 2), pw));
            }
        }
    }
    Some(row)
}

/// The names of the objects a datablock menu offers: datablocks (of `class` when given), or
/// for a class that is no datablock (profiles), its objects anywhere under the root group.
fn objects_of(con: &Console, class: &str) -> Vec<String> {
    let datablocks = class.is_empty() || con.class_id(class).is_some_and(|c| con.class_is(c, "SimDataBlock"));
    let mut out = Vec::new();
    let mut todo = vec![if datablocks { DATABLOCK_GROUP_ID } else { ROOT_GROUP_ID }];
    let mut seen = 0usize;
    while let Some(g) = todo.pop() {
        let Some(o) = con.object(g) else { continue };
        for &m in o.members.iter().rev() {
            seen += 1;
            if seen > 100_000 || out.len() >= MAX_MENU {
                return out;
            }
            let Some(mo) = con.object(m) else { continue };
            if (class.is_empty() || con.class_is(mo.class, class)) && m != g {
                let name = con.object_name(m);
                out.push(if name.is_empty() { m.to_string() } else { name });
            }
            let group = con.class_is(mo.class, "SimGroup");
            if group && !datablocks {
                todo.push(m);
            }
        }
    }
    out.sort_by_key(|s| s.to_ascii_lowercase());
    out
}

/// Shows `text` in a row's editors.
fn show_value(con: &mut Console, row: &Row, text: &str) {
    match row.editor {
        Editor::Bool => {
            if let Some(v) = &row.var {
                con.set_global(v, matches!(text.trim(), "1" | "true"));
            }
        }
        Editor::Point | Editor::Rotation => {
            let words: Vec<&str> = text.split_whitespace().collect();
            for (i, &p) in row.parts.iter().enumerate() {
                set_text(con, p, words.get(i).copied().unwrap_or(""));
            }
        }
        _ => {
            for &p in &row.parts {
                set_text(con, p, text);
            }
        }
    }
    if let Some(s) = row.swatch {
        con.set_field(s, "color", swatch_color(text, row.unit_color));
    }
}

fn set_text(con: &mut Console, id: ObjectId, text: &str) {
    con.set_field(id, "text", text);
    // The drawing side's edit buffer follows (where it is registered).
    if con.class_id("GuiCanvas").is_some() {
        let _ = con.call_method_if_exists(id, "setText", &[Value::from(text)]);
    }
}

/// A colour's text as a swatch's 0..255 components (grey when it does not parse).
fn swatch_color(text: &str, unit: bool) -> String {
    let v: Vec<f64> = text.split_whitespace().filter_map(|w| w.parse::<f64>().ok()).collect();
    if !(3..=4).contains(&v.len()) {
        return "128 128 128 255".into();
    }
    let scale = if unit { 255.0 } else { 1.0 };
    let c = |i: usize, d: f64| (v.get(i).copied().unwrap_or(d) * scale).round().clamp(0.0, 255.0) as i32;
    format!("{} {} {} {}", c(0, 0.0), c(1, 0.0), c(2, 0.0), c(3, 255.0 / scale))
}

/// What a row's editors hold now.
fn pending(con: &Console, row: &Row) -> String {
    match row.editor {
        Editor::Bool => {
            let on = row.var.as_ref().is_some_and(|v| con.get_global(v).truthy());
            if on { "1".into() } else { "0".into() }
        }
        Editor::Point | Editor::Rotation => {
            let words: Vec<String> =
                row.parts.iter().map(|&p| con.get_field(p, "text").as_text().trim().to_string()).collect();
            // All boxes empty is an empty value (an unset point left alone is no edit).
            if words.iter().all(String::is_empty) { String::new() } else { words.join(" ") }
        }
        _ => row.parts.first().map(|&p| con.get_field(p, "text").as_text().into_owned()).unwrap_or_default(),
    }
}

/// V12's `GuiInspector::apply`: checks the changed values, calls `onPreApply`, writes them,
/// calls `onPostApply`. True when no value was refused.
fn apply(con: &mut Console, state: &Inspectors, insp: ObjectId, new_name: Option<&str>) -> bool {
    let (obj, rows) = match state.borrow().get(&insp) {
        Some(i) => (i.object, i.rows.clone()),
        None => (None, Vec::new()),
    };
    let Some(obj) = obj.filter(|&o| con.object(o).is_some()) else {
        con.error("GuiInspector::apply: nothing inspected (or the object is gone)");
        return false;
    };
    let current: HashMap<String, String> =
        con.field_rows(obj).into_iter().map(|r| (r.name.to_ascii_lowercase(), r.value)).collect();
    let mut changes = Vec::new();
    let mut all_ok = true;
    for row in &rows {
        let old = current.get(&row.field.to_ascii_lowercase()).cloned().unwrap_or_default();
        let new = pending(con, row);
        if new == old {
            continue;
        }
        match con.check_field(obj, &row.field, &new) {
            Ok(v) => changes.push((row, v)),
            Err(e) => {
                all_ok = false;
                con.error(&format!("GuiInspector::apply: {e}; kept \"{old}\""));
                show_value(con, row, &old);
            }
        }
    }
    let _ = con.call_method_callback(obj, "onPreApply", &[]);
    if con.object(obj).is_none() {
        return false;
    }
    if let Some(n) = new_name {
        con.set_object_name(obj, n);
    }
    for (row, v) in &changes {
        con.set_field(obj, &row.field, v.clone());
    }
    let _ = con.call_method_callback(obj, "onPostApply", &[]);
    // Editors show the values as stored (normalised by their types).
    let now = con.field_rows(obj);
    for (row, _) in &changes {
        if let Some(r) = now.iter().find(|r| r.name.eq_ignore_ascii_case(&row.field)) {
            show_value(con, row, &r.value);
        }
    }
    all_ok
}

#[cfg(test)]
mod tests {
    use v12_console_vm::{BufferSink, Console, FieldType, Value};

    fn console() -> (Console, BufferSink) {
        let mut con = Console::new();
        let out = BufferSink::new();
        con.set_output(Box::new(out.clone()));
        crate::classes::register_classes(&mut con).expect("classes");
        (con, out)
    }

    #[test]
    fn inspect_lists_grouped_rows_and_apply_calls_pre_then_post_and_refuses_junk() {
        let (mut con, out) = console();
        con.register_class("Crate", "SimObject").expect("class");
        con.add_field("Crate", "mass", FieldType::Float, Value::from(2.0));
        con.add_field("Crate", "spot", FieldType::Point, Value::from("1 2 3"));
        con.add_field("Crate", "lit", FieldType::Bool, Value::from(false));
        let r = con
            .eval(
                r#"
            new Crate(Box) { tag = "x"; };
            function Crate::onPreApply(%this) { $order = $order @ "pre:" @ %this.mass @ ";"; }
            function Crate::onPostApply(%this) { $order = $order @ "post:" @ %this.mass @ ";"; }
            new GuiInspector(Insp) { extent = "300 10"; };
            Insp.inspect(Box);
            if (Insp.getInspectObject() != Box.getId()) return "wrong object";
            if (Insp.getEditValue("spot") !$= "1 2 3") return "spot shows " @ Insp.getEditValue("spot");
            Insp.setEditValue("mass", "5.5");
            Insp.setEditValue("spot", "4 5 6");
            Insp.setEditValue("lit", "1");
            Insp.setEditValue("tag", "y");
            $ok = Insp.apply();
            return $ok @ "|" @ $order @ "|" @ Box.mass @ "|" @ Box.spot @ "|" @ Box.lit @ "|" @ Box.tag;
        "#,
            )
            .expect("eval");
        assert_eq!(r.as_text(), "1|pre:2;post:5.5;|5.5|4 5 6|1|y");
        // Group headers, labels and editors are child controls, in rows.
        let insp = con.find_object_str("Insp").expect("insp");
        let texts: Vec<String> = con
            .object(insp)
            .expect("insp")
            .members
            .clone()
            .iter()
            .filter(|&&m| con.class_name_of(m) == "GuiTextCtrl")
            .map(|&m| con.get_field(m, "text").to_string())
            .collect();
        assert_eq!(texts, ["Crate", "mass", "spot", "lit", "Dynamic Fields", "tag"]);
        let r = con
            .eval(r#"Insp.setEditValue("mass", "heavy"); return Insp.apply() @ "|" @ Box.mass @ "|" @ Insp.getEditValue("mass");"#)
            .expect("eval");
        assert_eq!(r.as_text(), "0|5.5|5.5", "a bad value is refused and the old one kept");
        assert!(out.all().contains("mass: \"heavy\" is not a number; kept \"5.5\""), "{}", out.all());
        let r = con.eval(r#"Box.delete(); return Insp.apply();"#).expect("eval");
        assert_eq!(r.as_text(), "0");
    }

    #[test]
    fn message_vector_keeps_lines_and_tags() {
        let (mut con, _) = console();
        let r = con
            .eval(
                r#"new MessageVector(Hud);
            Hud.pushBackLine("one", 1); Hud.pushBackLine("two", 2); Hud.pushFrontLine("zero");
            Hud.deleteLine(9);
            return Hud.getNumLines() @ Hud.getLineText(0) @ Hud.getLineTextByTag(2) @ Hud.getLineIndexByTag(1);"#,
            )
            .expect("eval");
        assert_eq!(r.as_text(), "3zerotwo1");
    }
}
