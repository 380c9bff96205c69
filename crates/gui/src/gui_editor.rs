//! The GUI Editor (V12's GuiEditCtrl and its editor GUI, opened with F10): an overlay over
//! the canvas's content that takes the mouse and keys instead of the controls under it.
//! A click selects the deepest control under the cursor, a drag moves it and a drag on the
//! handle at its bottom-right corner resizes it, both snapped to the `gridSize` grid; Delete
//! deletes it and the arrow keys nudge it a pixel. The palette adds controls (`addNew`), the
//! docked GuiInspector edits the selection's fields (and, with Profile, its profile's), and
//! Save writes the content with
//! `SimObject::save`. All of it goes through the canvas's input path, so tests drive it with
//! clicks, drags and keys.

use crate::control::{data_mut, edit_grid as grid, edit_root as root, point_text};
use v12_console_vm::{CallArgs, Console, ObjectId, Value};
use v12_render_gl::Point2I;

/// The console class of the overlay.
pub const EDIT_CLASS: &str = "GuiEditCtrl";

/// The editor's GUI: the overlay, the palette, the docked inspector, Apply and Save.
pub const GUI_EDITOR_GUI: &str = r#"
new GuiControlProfile(GuiEditorOverlayProfile) { modal = 1; canKeyFocus = 1; borderColor = "255 60 40 255";
    fillColorHL = "255 60 40 255"; };
new GuiControlProfile(GuiEditorPanelProfile) { opaque = 1; fillColor = "60 64 72 255"; borderColor = "20 20 20 255";
    fontColor = "255 255 255 255"; fontSize = 13; };
new GuiControlProfile(GuiEditorButtonProfile) { fontSize = 12; fillColor = "170 170 165 255";
    fillColorHL = "200 200 190 255"; borderColor = "30 30 30 255"; border = 1; opaque = 1; };
new GuiControl(GuiEditorGui) { profile = "GuiEditorOverlayProfile"; extent = "640 480";
    horizSizing = "width"; vertSizing = "height";
    new GuiEditCtrl(GuiEditor) { profile = "GuiEditorOverlayProfile"; position = "0 0"; extent = "420 480";
        horizSizing = "width"; vertSizing = "height"; gridSize = 8; };
    new GuiControl(GuiEditorPanel) { profile = "GuiEditorPanelProfile"; position = "420 0"; extent = "220 480";
        horizSizing = "left"; vertSizing = "height";
        new GuiButtonCtrl() { profile = "GuiEditorButtonProfile"; position = "4 4"; extent = "104 20";
            text = "GuiControl"; command = "GuiEditor.addNew(GuiControl);"; };
        new GuiButtonCtrl() { profile = "GuiEditorButtonProfile"; position = "112 4"; extent = "104 20";
            text = "GuiTextCtrl"; command = "GuiEditor.addNew(GuiTextCtrl);"; };
        new GuiButtonCtrl() { profile = "GuiEditorButtonProfile"; position = "4 28"; extent = "104 20";
            text = "GuiButtonCtrl"; command = "GuiEditor.addNew(GuiButtonCtrl);"; };
        new GuiButtonCtrl() { profile = "GuiEditorButtonProfile"; position = "112 28"; extent = "104 20";
            text = "GuiTextEditCtrl"; command = "GuiEditor.addNew(GuiTextEditCtrl);"; };
        new GuiButtonCtrl() { profile = "GuiEditorButtonProfile"; position = "4 52"; extent = "104 20";
            text = "GuiCheckBoxCtrl"; command = "GuiEditor.addNew(GuiCheckBoxCtrl);"; };
        new GuiButtonCtrl() { profile = "GuiEditorButtonProfile"; position = "112 52"; extent = "104 20";
            text = "GuiBitmapCtrl"; command = "GuiEditor.addNew(GuiBitmapCtrl);"; };
        new GuiScrollCtrl(GuiEditorInspectorScroll) { profile = "GuiEditorPanelProfile"; position = "0 78";
            extent = "220 370"; vertSizing = "height"; hScrollBar = "alwaysOff"; vScrollBar = "dynamic";
            new GuiInspector(GuiEditorInspector) { position = "0 0"; extent = "204 10"; };
        };
        new GuiButtonCtrl(GuiEditorApply) { profile = "GuiEditorButtonProfile"; position = "4 454"; extent = "70 22";
            vertSizing = "top"; text = "Apply"; command = "GuiEditorInspector.apply(); GuiEditor.onEdited();"; };
        new GuiButtonCtrl(GuiEditorSave) { profile = "GuiEditorButtonProfile"; position = "80 454"; extent = "70 22";
            vertSizing = "top"; text = "Save"; command = "GuiEditor.saveRoot();"; };
        new GuiButtonCtrl(GuiEditorProfileButton) { profile = "GuiEditorButtonProfile"; position = "156 454";
            extent = "60 22"; vertSizing = "top"; text = "Profile"; command = "GuiEditor.inspectProfile();"; };
    };
};
"#;

fn this(a: &CallArgs<'_>) -> ObjectId {
    a.this.unwrap_or(0)
}

/// The editor's script side, defined when the GUI registers (F10 calls `toggleGuiEditor`).
pub const GUI_EDITOR_FUNCS: &str = r#"
function GuiEditor::onSelect(%this, %ctrl) { GuiEditorInspector.inspect(%ctrl); }
function GuiEditor::onEdited(%this) { GuiEditorInspector.inspect(%this.getSelected()); }
function GuiEditor::inspectProfile(%this)
{
    %p = %this.getSelected().profile;
    if (!isObject(%p)) %p = GuiDefaultProfile;
    if (isObject(%p)) GuiEditorInspector.inspect(%p);
}
function toggleGuiEditor(%make)
{
    if (!%make) return;
    if (!isObject(GuiEditorGui)) guiEditorCreate();
    if (Canvas.isDialogOpen(GuiEditorGui)) { Canvas.popDialog(GuiEditorGui); return; }
    %root = Canvas.getContent();
    GuiEditor.setRoot(%root);
    Canvas.pushDialog(GuiEditorGui);
    GuiEditor.select(%root);
}
"#;

/// Registers GuiEditCtrl's methods and `guiEditorCreate()` / `toggleGuiEditor(make)`.
pub fn register(con: &mut Console) {
    let e = EDIT_CLASS;
    con.register_method(e, "setRoot", 3, 3, "(control)", |c, a| {
        let r = c.find_object(&a.get(1)).filter(|&r| crate::classes::is_control(c, r));
        c.set_field(this(a), "contentControl", Value::Int(r.map_or(0, i64::from)));
        if let Some(d) = data_mut(c, this(a)) {
            d.edit_sel = None;
        }
    });
    con.register_method(e, "getRoot", 2, 2, "()", |c, a| Value::Int(root(c, this(a)).map_or(0, i64::from)));
    con.register_method(e, "select", 3, 3, "(control)", |c, a| {
        let s = c.find_object(&a.get(1)).filter(|&s| crate::classes::is_control(c, s));
        if let Some(d) = data_mut(c, this(a)) {
            d.edit_sel = s;
        }
        crate::canvas::callback(c, this(a), "onSelect", &[Value::Int(s.map_or(0, i64::from))]);
    });
    con.register_method(e, "getSelected", 2, 2, "()", |c, a| {
        let s = crate::control::data(c, this(a)).and_then(|d| d.edit_sel).filter(|&s| c.object(s).is_some());
        Value::Int(s.map_or(0, i64::from))
    });
    con.register_method(e, "addNew", 3, 3, "(className)", |c, a| add_new(c, this(a), &a.str(1)));
    con.register_method(e, "deleteSelection", 2, 2, "()", |c, a| {
        let ed = this(a);
        let s = crate::control::data(c, ed).and_then(|d| d.edit_sel);
        match s.filter(|&s| Some(s) != root(c, ed) && c.object(s).is_some()) {
            Some(s) => {
                c.delete_object(s);
                if let Some(d) = data_mut(c, ed) {
                    d.edit_sel = None;
                }
                crate::canvas::callback(c, ed, "onSelect", &[Value::Int(0)]);
                true
            }
            None => false,
        }
    });
    con.register_method(e, "saveRoot", 2, 3, "([fileName])", |c, a| {
        let ed = this(a);
        let Some(r) = root(c, ed) else {
            c.error("GuiEditor::saveRoot: nothing to save");
            return Value::from(false);
        };
        let file = if a.len() > 1 {
            a.str(1).into_owned()
        } else {
            let f = c.get_field(ed, "saveFile").to_string();
            if f.is_empty() { format!("gui/{}.gui", c.object_name(r)) } else { f }
        };
        c.call_method(&Value::Int(i64::from(r)), "save", &[Value::from(file)])
    });
    con.register_function("guiEditorCreate", 1, 1, "()", |c, _a| {
        if let Err(e) = c.eval_named(GUI_EDITOR_GUI, "gui/guiEditor.gui") {
            c.error(&format!("guiEditorCreate: {e}"));
        }
    });
    if let Err(e) = con.eval_named(GUI_EDITOR_FUNCS, "gui/guiEditor.cs") {
        tracing::warn!("the GUI editor's functions: {e}");
    }
}

/// `addNew(class)`: a control of `class` in the selection (when it holds children) or beside
/// it, at the grid's first point, selected.
fn add_new(con: &mut Console, ed: ObjectId, class: &str) -> Value {
    let Some(r) = root(con, ed) else { return Value::Int(0) };
    let ok = con.class_id(class).is_some_and(|k| con.class_is(k, crate::classes::CONTROL_CLASS));
    if !ok || class.eq_ignore_ascii_case(EDIT_CLASS) {
        con.error(&format!("GuiEditor::addNew: {class} is not a GUI control class"));
        return Value::Int(0);
    }
    let sel = crate::control::data(con, ed).and_then(|d| d.edit_sel).filter(|&s| con.object(s).is_some());
    let container = |con: &Console, s: ObjectId| {
        matches!(
            crate::classes::kind_of(con, s),
            Some(crate::classes::Kind::Plain | crate::classes::Kind::Window)
        )
    };
    let parent = match sel {
        Some(s) if container(con, s) => s,
        Some(s) => crate::control::parent(con, s).unwrap_or(r),
        None => r,
    };
    let g = grid(con, ed).max(8);
    let fields = [
        ("position", Value::from(point_text(Point2I::new(g, g)))),
        ("extent", Value::from("96 24")),
        ("text", Value::from(class)),
    ];
    let Ok(id) = con.create_object_with_fields(class, None, &fields) else { return Value::Int(0) };
    con.set_add(parent, id);
    if let Some(d) = data_mut(con, ed) {
        d.edit_sel = Some(id);
    }
    crate::canvas::callback(con, ed, "onSelect", &[Value::Int(i64::from(id))]);
    Value::Int(i64::from(id))
}
