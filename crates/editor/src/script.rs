//! The World Editor's console side: the `WorldEditor` class (an EditTSCtrl) and its
//! methods, its GUI (`EDITOR_GUI`: the view, the panel with the modes, brushes, undo and redo,
//! copy and paste, the mission tree, the datablock palette, the docked inspector, Apply and
//! Save) and `toggleEditor(make)`, which F11 calls.

use crate::Handle;
use crate::commands;
use crate::input;
use crate::state::{BrushKind, Mode};
use crate::undo::{self, Action};
use glam::{Vec2, Vec3};
use v12_console_vm::{CallArgs, Console, FieldType, ObjectId, Value};

/// The editor control's class.
pub const CLASS: &str = "WorldEditor";

/// The editor's GUI (made the first time F11 is pressed).
pub const EDITOR_GUI: &str = r#"
new GuiControlProfile(WorldEditorPanelProfile) { opaque = 1; fillColor = "60 64 72 255"; borderColor = "20 20 20 255";
    fontColor = "255 255 255 255"; fontSize = 12; };
new GuiControlProfile(WorldEditorButtonProfile) { fontSize = 11; fillColor = "170 170 165 255";
    fillColorHL = "200 200 190 255"; borderColor = "30 30 30 255"; border = 1; opaque = 1; };
new GuiControlProfile(WorldEditorListProfile) { fontSize = 12; fontColor = "235 235 235 255";
    fontColorHL = "255 255 255 255"; fillColorHL = "90 110 150 255"; opaque = 1; fillColor = "44 46 52 255"; };
new GuiControl(EditorGui) { profile = "WorldEditorPanelProfile"; extent = "800 600";
    horizSizing = "width"; vertSizing = "height";
    new WorldEditor(EWorldEditor) { profile = "WorldEditorPanelProfile"; position = "0 0"; extent = "560 600";
        horizSizing = "width"; vertSizing = "height"; gridSize = 2; snapToTerrain = 1;
        missionFile = "missions/arena.mis"; };
    new GuiControl(EWorldEditorPanel) { profile = "WorldEditorPanelProfile"; position = "560 0"; extent = "240 600";
        horizSizing = "left"; vertSizing = "height";
        new GuiButtonCtrl(EWorldEditorMove) { profile = "WorldEditorButtonProfile"; position = "4 4"; extent = "56 20";
            text = "Move"; command = "EWorldEditor.setMode(move);"; };
        new GuiButtonCtrl(EWorldEditorRotate) { profile = "WorldEditorButtonProfile"; position = "62 4"; extent = "56 20";
            text = "Rotate"; command = "EWorldEditor.setMode(rotate);"; };
        new GuiButtonCtrl(EWorldEditorScale) { profile = "WorldEditorButtonProfile"; position = "120 4"; extent = "56 20";
            text = "Scale"; command = "EWorldEditor.setMode(scale);"; };
        new GuiButtonCtrl(EWorldEditorTerrain) { profile = "WorldEditorButtonProfile"; position = "178 4"; extent = "58 20";
            text = "Terrain"; command = "EWorldEditor.setMode(terrain);"; };
        new GuiButtonCtrl(EWorldEditorRaise) { profile = "WorldEditorButtonProfile"; position = "4 28"; extent = "44 20";
            text = "Raise"; command = "EWorldEditor.setBrush(raise);"; };
        new GuiButtonCtrl(EWorldEditorLower) { profile = "WorldEditorButtonProfile"; position = "50 28"; extent = "44 20";
            text = "Lower"; command = "EWorldEditor.setBrush(lower);"; };
        new GuiButtonCtrl(EWorldEditorSmooth) { profile = "WorldEditorButtonProfile"; position = "96 28"; extent = "44 20";
            text = "Smooth"; command = "EWorldEditor.setBrush(smooth);"; };
        new GuiButtonCtrl(EWorldEditorFlatten) { profile = "WorldEditorButtonProfile"; position = "142 28"; extent = "44 20";
            text = "Flatten"; command = "EWorldEditor.setBrush(flatten);"; };
        new GuiButtonCtrl(EWorldEditorPaint) { profile = "WorldEditorButtonProfile"; position = "188 28"; extent = "48 20";
            text = "Paint"; command = "EWorldEditor.setBrush(paint, 1);"; };
        new GuiButtonCtrl(EWorldEditorUndo) { profile = "WorldEditorButtonProfile"; position = "4 52"; extent = "44 20";
            text = "Undo"; command = "EWorldEditor.undo();"; };
        new GuiButtonCtrl(EWorldEditorRedo) { profile = "WorldEditorButtonProfile"; position = "50 52"; extent = "44 20";
            text = "Redo"; command = "EWorldEditor.redo();"; };
        new GuiButtonCtrl(EWorldEditorCopy) { profile = "WorldEditorButtonProfile"; position = "96 52"; extent = "44 20";
            text = "Copy"; command = "EWorldEditor.copySelection();"; };
        new GuiButtonCtrl(EWorldEditorPaste) { profile = "WorldEditorButtonProfile"; position = "142 52"; extent = "44 20";
            text = "Paste"; command = "EWorldEditor.pasteSelection();"; };
        new GuiButtonCtrl(EWorldEditorDelete) { profile = "WorldEditorButtonProfile"; position = "188 52"; extent = "48 20";
            text = "Delete"; command = "EWorldEditor.deleteSelection();"; };
        new GuiTextCtrl() { profile = "WorldEditorPanelProfile"; position = "4 76"; extent = "120 14"; text = "Mission"; };
        new GuiScrollCtrl() { profile = "WorldEditorListProfile"; position = "0 92"; extent = "240 130";
            hScrollBar = "alwaysOff"; vScrollBar = "dynamic";
            new GuiTextListCtrl(EWorldEditorTree) { profile = "WorldEditorListProfile"; position = "0 0";
                extent = "224 10"; command = "EWorldEditor.select(EWorldEditorTree.getSelectedId());"; };
        };
        new GuiTextCtrl() { profile = "WorldEditorPanelProfile"; position = "4 226"; extent = "120 14"; text = "Create"; };
        new GuiScrollCtrl() { profile = "WorldEditorListProfile"; position = "0 242"; extent = "240 80";
            hScrollBar = "alwaysOff"; vScrollBar = "dynamic";
            new GuiTextListCtrl(EWorldEditorPalette) { profile = "WorldEditorListProfile"; position = "0 0";
                extent = "224 10"; command = "EWorldEditor.createEntry(EWorldEditorPalette.getSelectedId());"; };
        };
        new GuiScrollCtrl(EWorldEditorInspectorScroll) { profile = "WorldEditorPanelProfile"; position = "0 326";
            extent = "240 240"; vertSizing = "height"; hScrollBar = "alwaysOff"; vScrollBar = "dynamic";
            new GuiInspector(EWorldEditorInspector) { position = "0 0"; extent = "224 10"; };
        };
        new GuiButtonCtrl(EWorldEditorApply) { profile = "WorldEditorButtonProfile"; position = "4 572"; extent = "70 22";
            vertSizing = "top"; text = "Apply"; command = "EWorldEditor.applyInspector(EWorldEditorInspector);"; };
        new GuiButtonCtrl(EWorldEditorSave) { profile = "WorldEditorButtonProfile"; position = "80 572"; extent = "70 22";
            vertSizing = "top"; text = "Save"; command = "EWorldEditor.saveMission();"; };
    };
};
"#;

/// `toggleEditor` and the callbacks that keep the panel in step.
pub const EDITOR_FUNCS: &str = r#"
function toggleEditor(%make)
{
    if (!%make) return;
    if (!isObject(EditorGui)) worldEditorCreate();
    if (EWorldEditor.isOpen()) {
        EWorldEditor.close();
        if (isObject(EWorldEditor.prevContent)) Canvas.setContent(EWorldEditor.prevContent);
        return;
    }
    if (!EWorldEditor.loadMission(EWorldEditor.missionFile)) return;
    EWorldEditor.prevContent = Canvas.getContent();
    Canvas.setContent(EditorGui);
    EWorldEditor.open();
    EWorldEditor.fillPalette(EWorldEditorPalette);
    EWorldEditor.onMissionChanged();
}
function WorldEditor::onMissionChanged(%this) { %this.fillTree(EWorldEditorTree); }
function WorldEditor::onSelectionChanged(%this, %obj)
{
    EWorldEditorInspector.inspect(%obj);
    EWorldEditorTree.setSelectedById(%obj);
    %this.makeFirstResponder(1);
}
"#;

/// The control: the method's object (a callback from the canvas passes it first).
fn this(a: &CallArgs<'_>) -> ObjectId {
    a.this.unwrap_or_else(|| u32::try_from(a.i32(0)).unwrap_or(0))
}

fn point(a: &CallArgs<'_>) -> Vec2 {
    let t = a.str(1);
    let mut w = t.split_whitespace().map(|w| w.parse::<f32>().unwrap_or(0.0));
    Vec2::new(w.next().unwrap_or(0.0), w.next().unwrap_or(0.0))
}

/// Registers the class, its fields and methods, `worldEditorCreate()` and `toggleEditor`.
pub fn register(con: &mut Console, ed: &Handle) {
    if let Err(e) = con.register_class(CLASS, "EditTSCtrl") {
        tracing::warn!("the World Editor's class: {e}");
        return;
    }
    con.add_field(CLASS, "gridSize", FieldType::Float, Value::Float(2.0));
    con.add_field(CLASS, "snapToTerrain", FieldType::Bool, Value::Int(1));
    con.add_field(CLASS, "missionFile", FieldType::String, Value::from("missions/arena.mis"));
    register_input(con, ed);
    register_edits(con, ed);
    register_panel(con, ed);
    con.register_function("worldEditorCreate", 1, 1, "()", |c, _a| {
        if let Err(e) = c.eval_named(EDITOR_GUI, "editor/worldEditor.gui") {
            c.error(&format!("worldEditorCreate: {e}"));
        }
    });
    if let Err(e) = con.eval_named(EDITOR_FUNCS, "editor/worldEditor.cs") {
        tracing::warn!("the World Editor's functions: {e}");
    }
}

/// The EditTSCtrl callbacks.
fn register_input(con: &mut Console, ed: &Handle) {
    let e = ed.clone();
    con.register_method(CLASS, "onMouseDown", 3, 4, "(point [, modifiers])", move |c, a| {
        let add = a.len() > 2 && (a.str(2).contains("shift") || a.str(2).contains("ctrl"));
        input::mouse_down(c, &e, this(a), point(a), add);
    });
    let e = ed.clone();
    con.register_method(CLASS, "onMouseDragged", 3, 4, "(point [, modifiers])", move |c, a| {
        input::mouse_dragged(c, &e, this(a), point(a));
    });
    let e = ed.clone();
    con.register_method(CLASS, "onMouseUp", 3, 4, "(point [, modifiers])", move |c, a| {
        input::mouse_up(c, &e, this(a))
    });
    let e = ed.clone();
    con.register_method(CLASS, "onMouseMove", 3, 4, "(point [, modifiers])", move |c, a| {
        input::mouse_move(c, &e, this(a), point(a))
    });
    let e = ed.clone();
    con.register_method(CLASS, "onMouseWheel", 3, 3, "(delta)", move |_c, a| {
        input::wheel(&e, a.f64(1) as f32)
    });
    let e = ed.clone();
    con.register_method(CLASS, "onKeyDown", 4, 4, "(key, modifiers)", move |c, a| {
        input::key_down(c, &e, this(a), a.i32(1).clamp(0, 0xFFFF) as u16, &a.str(2));
    });
}

/// Selection, the mission's edits, undo and save.
fn register_edits(con: &mut Console, ed: &Handle) {
    let e = ed.clone();
    con.register_method(CLASS, "select", 3, 3, "(object)", move |c, a| {
        let id = c.find_object(&a.get(1)).filter(|&id| id != 0);
        commands::select(c, &e, this(a), id.into_iter().collect());
    });
    let e = ed.clone();
    con.register_method(CLASS, "getSelected", 2, 2, "()", move |_c, _a| {
        Value::Int(e.borrow().selection.first().map_or(0, |&s| i64::from(s)))
    });
    let e = ed.clone();
    con.register_method(CLASS, "getSelectionSize", 2, 2, "()", move |_c, _a| {
        Value::Int(e.borrow().selection.len() as i64)
    });
    let e = ed.clone();
    con.register_method(CLASS, "deleteSelection", 2, 2, "()", move |c, a| {
        commands::delete_selection(c, &e, this(a))
    });
    let e = ed.clone();
    con.register_method(CLASS, "copySelection", 2, 2, "()", move |c, _a| {
        commands::copy_selection(c, &e) as i64
    });
    let e = ed.clone();
    con.register_method(CLASS, "pasteSelection", 2, 2, "()", move |c, a| {
        let grid = input::snapping(c, this(a)).0;
        commands::paste(c, &e, this(a), grid) as i64
    });
    let e = ed.clone();
    con.register_method(CLASS, "undo", 2, 2, "()", move |c, a| commands::undo_redo(c, &e, this(a), false));
    let e = ed.clone();
    con.register_method(CLASS, "redo", 2, 2, "()", move |c, a| commands::undo_redo(c, &e, this(a), true));
    let e = ed.clone();
    con.register_method(CLASS, "getUndoCount", 2, 2, "()", move |_c, _a| e.borrow().undo.done.len() as i64);
    let e = ed.clone();
    con.register_method(CLASS, "createObject", 3, 4, "(class [, dataBlock])", move |c, a| {
        let db = if a.len() > 2 { a.str(2).into_owned() } else { String::new() };
        let grid = input::snapping(c, this(a)).0;
        Value::Int(i64::from(commands::create(c, &e, this(a), &a.str(1), &db, grid)))
    });
    let e = ed.clone();
    con.register_method(CLASS, "saveMission", 2, 3, "([file])", move |c, a| {
        let file = if a.len() > 1 {
            a.str(1).into_owned()
        } else {
            c.get_field(this(a), "missionFile").as_text().into_owned()
        };
        commands::save_mission(c, &e, &file)
    });
    let e = ed.clone();
    con.register_method(CLASS, "loadMission", 3, 3, "(file)", move |c, a| {
        commands::load_mission(c, &e, &a.str(1))
    });
    let e = ed.clone();
    con.register_method(CLASS, "applyInspector", 3, 3, "(inspector)", move |c, a| {
        apply_inspector(c, &e, this(a), &a.get(1))
    });
}

/// The inspector's Apply, recorded for undo.
fn apply_inspector(con: &mut Console, ed: &Handle, ctl: ObjectId, inspector: &Value) {
    let Some(insp) = con.find_object(inspector) else { return };
    let target = con.call_method(&Value::Int(i64::from(insp)), "getInspectObject", &[]);
    let Some(obj) = con.find_object(&target).filter(|&o| o != 0) else { return };
    let before = undo::snapshot(con, obj);
    con.call_method(&Value::Int(i64::from(insp)), "apply", &[]);
    let after = undo::snapshot(con, obj);
    if before != after {
        ed.borrow_mut().undo.push(Action::Fields { before: vec![before], after: vec![after] });
    }
    commands::mission_changed(con, ed, ctl);
}

/// Opening and closing, modes and brushes, the camera, the tree and the palette.
fn register_panel(con: &mut Console, ed: &Handle) {
    let e = ed.clone();
    con.register_method(CLASS, "open", 2, 2, "()", move |c, a| {
        e.borrow_mut().open = true;
        crate::objects::sync(c, &mut e.borrow_mut());
        let _ = a;
    });
    let e = ed.clone();
    con.register_method(CLASS, "close", 2, 2, "()", move |_c, _a| {
        let mut s = e.borrow_mut();
        s.open = false;
        s.drag = None;
    });
    let e = ed.clone();
    con.register_method(CLASS, "isOpen", 2, 2, "()", move |_c, _a| e.borrow().open);
    let e = ed.clone();
    con.register_method(
        CLASS,
        "setMode",
        3,
        3,
        "(move|rotate|scale|terrain)",
        move |c, a| match Mode::parse(&a.str(1)) {
            Some(m) => {
                e.borrow_mut().mode = m;
                true
            }
            None => {
                c.error(&format!("WorldEditor::setMode: no mode {}", a.str(1)));
                false
            }
        },
    );
    let e = ed.clone();
    con.register_method(CLASS, "getMode", 2, 2, "()", move |_c, _a| e.borrow().mode.name());
    let e = ed.clone();
    con.register_method(
        CLASS,
        "setBrush",
        3,
        5,
        "(raise|lower|smooth|flatten|paint [, material [, radius]])",
        move |c, a| {
            let Some(kind) = BrushKind::parse(&a.str(1)) else {
                c.error(&format!("WorldEditor::setBrush: no brush {}", a.str(1)));
                return false;
            };
            let mut s = e.borrow_mut();
            s.mode = Mode::Terrain;
            s.brush.kind = kind;
            if a.len() > 2 {
                s.brush.material = a.i32(2).clamp(0, 255) as u8;
            }
            if a.len() > 3 {
                s.brush.radius = (a.f64(3) as f32).clamp(1.0, 256.0);
            }
            true
        },
    );
    let e = ed.clone();
    con.register_method(CLASS, "setCamera", 5, 5, "(position, yaw, pitch)", move |_c, a| {
        let p = v12_world::mission::vec3(&a.str(1));
        let mut s = e.borrow_mut();
        if p.is_finite() {
            s.camera.eye = p;
        }
        let (yaw, pitch) = (a.f64(2) as f32, a.f64(3) as f32);
        if yaw.is_finite() && pitch.is_finite() {
            s.camera.yaw = yaw;
            s.camera.pitch = pitch.clamp(-1.55, 1.55);
        }
    });
    let e = ed.clone();
    con.register_method(CLASS, "fillTree", 3, 3, "(textList)", move |c, a| fill_tree(c, &a.get(1)));
    let e2 = e.clone();
    con.register_method(CLASS, "fillPalette", 3, 3, "(textList)", move |c, a| {
        fill_palette(c, &e2, &a.get(1))
    });
    con.register_method(CLASS, "createEntry", 3, 3, "(paletteRow)", move |c, a| {
        let row = usize::try_from(a.i32(1)).ok().and_then(|r| r.checked_sub(1));
        let entry = row.and_then(|r| e.borrow().palette.get(r).cloned());
        let Some((class, db)) = entry else { return 0 };
        let grid = input::snapping(c, this(a)).0;
        i64::from(commands::create(c, &e, this(a), &class, &db, grid))
    });
}

/// The mission tree: a row per object under MissionGroup, indented by depth.
fn fill_tree(con: &mut Console, list: &Value) {
    let Some(l) = con.find_object(list) else { return };
    let l = Value::Int(i64::from(l));
    con.call_method(&l, "clear", &[]);
    for (id, depth) in crate::objects::mission_tree(con) {
        let name = con.object_name(id);
        let class = con.class_name_of(id);
        let text = format!(
            "{}{} ({class})",
            "  ".repeat(depth),
            if name.is_empty() { id.to_string() } else { name }
        );
        con.call_method(&l, "addRow", &[Value::Int(i64::from(id)), Value::from(text)]);
    }
}

/// The palette: every datablock whose object class the console knows (`ItemData` makes an
/// `Item`), then the mission classes that need none.
fn fill_palette(con: &mut Console, ed: &Handle, list: &Value) {
    let Some(l) = con.find_object(list) else { return };
    let mut entries: Vec<(String, String)> = Vec::new();
    let dbs = con
        .find_object_str("DataBlockGroup")
        .and_then(|g| con.object(g))
        .map(|g| g.members.clone())
        .unwrap_or_default();
    for db in dbs {
        let class = con.class_name_of(db);
        let Some(object_class) = class.strip_suffix("Data") else { continue };
        if con.class_id(object_class).is_some_and(|k| con.class_is(k, "SceneObject")) {
            entries.push((object_class.to_string(), con.object_name(db)));
        }
    }
    for class in ["WaterBlock", "SimGroup"] {
        if con.class_id(class).is_some() {
            entries.push((class.to_string(), String::new()));
        }
    }
    let l = Value::Int(i64::from(l));
    con.call_method(&l, "clear", &[]);
    for (i, (class, db)) in entries.iter().enumerate() {
        let text = if db.is_empty() { class.clone() } else { format!("{class}: {db}") };
        con.call_method(&l, "addRow", &[Value::Int(i as i64 + 1), Value::from(text)]);
    }
    ed.borrow_mut().palette = entries;
    let _ = Vec3::ZERO;
}
