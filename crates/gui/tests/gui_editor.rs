//! The GUI Editor (F10) driven through the canvas's input path: F10 opens it over the
//! content, clicks select, drags move and resize on the grid, the palette adds a control,
//! the docked inspector edits it, Delete deletes, Save writes the `.gui`, and the file loads
//! back to the same objects. Its golden shows a selection with its handle.

use std::path::PathBuf;
use v12_console_vm::{BufferSink, Console};
use v12_gui::keys::*;
use v12_gui::{ConsoleLog, GuiCanvas, screen_rect};
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent};
use v12_render_gl::{DrawList, HeadlessContext, OffscreenTarget, Renderer};

const W: i32 = 640;
const H: i32 = 480;

const CONTENT: &str = r#"
new GuiControlProfile(GuiDefaultProfile) { fontSize = 13; };
new GuiControlProfile(MenuProfile) { opaque = 1; fillColor = "40 70 100 255"; };
new GuiControlProfile(MenuTextProfile) { fontSize = 14; fontColor = "255 255 255 255"; };
new GuiControl(MainMenu) { profile = "MenuProfile"; extent = "640 480";
    new GuiTextCtrl(Title) { profile = "MenuTextProfile"; position = "40 40"; extent = "160 24"; text = "Main menu"; };
    new GuiControl(Box) { profile = "GuiDefaultProfile"; position = "40 120"; extent = "200 160";
        new GuiTextCtrl(Inner) { profile = "MenuTextProfile"; position = "16 16"; extent = "100 20"; text = "inner"; };
    };
};
Canvas.setContent(MainMenu);
"#;

struct Gui {
    con: Console,
    canvas: GuiCanvas,
    out: BufferSink,
    dir: PathBuf,
}

fn input(
    device_type: InputDeviceType,
    object_type: InputObjectType,
    inst: u16,
    make: bool,
    ch: u16,
) -> InputEvent {
    InputEvent {
        device_type,
        device_inst: 0,
        object_type,
        object_inst: inst,
        action: if make { InputAction::Make } else { InputAction::Break },
        modifiers: Modifiers::NONE,
        ascii: ch,
        value: if make { 1.0 } else { 0.0 },
    }
}

impl Gui {
    fn new(name: &str) -> Gui {
        let dir = std::env::temp_dir().join(format!("v12-guied-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut con = Console::new();
        con.set_file_root(&dir);
        let out = BufferSink::new();
        let log = ConsoleLog::new(100);
        log.forward_to(Box::new(out.clone()));
        con.set_output(log.sink());
        let mut canvas = GuiCanvas::new(&mut con, W, H, log).unwrap();
        canvas.bind_gui_editor_toggle();
        con.eval(CONTENT).unwrap();
        let mut g = Gui { con, canvas, out, dir };
        g.frame();
        g
    }

    fn frame(&mut self) -> DrawList {
        let mut list = DrawList::new();
        self.canvas.render(&mut self.con, &mut list);
        list
    }

    fn move_to(&mut self, x: i32, y: i32) {
        let mv = MouseMoveEvent { x_pos: x, y_pos: y, modifiers: Modifiers::NONE };
        self.canvas.process_mouse_move(&mut self.con, &mv);
    }

    fn button(&mut self, make: bool) {
        let e = input(InputDeviceType::Mouse, InputObjectType::Button, 0, make, 0);
        self.canvas.process_input(&mut self.con, &e);
    }

    fn click(&mut self, x: i32, y: i32) {
        self.move_to(x, y);
        self.button(true);
        self.button(false);
        self.frame();
    }

    fn drag(&mut self, from: (i32, i32), to: (i32, i32)) {
        self.move_to(from.0, from.1);
        self.button(true);
        self.move_to((from.0 + to.0) / 2, (from.1 + to.1) / 2);
        self.move_to(to.0, to.1);
        self.button(false);
        self.frame();
    }

    fn click_named(&mut self, name: &str) {
        let r = screen_rect(&self.con, self.id(name));
        self.click(r.x + r.w / 2, r.y + r.h / 2);
    }

    fn key(&mut self, key: u16, ch: Option<char>, mods: Modifiers) {
        for make in [true, false] {
            let mut e =
                input(InputDeviceType::Keyboard, InputObjectType::Key, key, make, ch.map_or(0, |c| c as u16));
            e.modifiers = mods;
            self.canvas.process_input(&mut self.con, &e);
        }
        self.frame();
    }

    fn id(&self, name: &str) -> u32 {
        self.con.find_object_str(name).unwrap_or_else(|| panic!("no object {name}"))
    }

    fn eval(&mut self, s: &str) -> String {
        self.con.eval(s).unwrap().to_string()
    }

    fn selected(&mut self) -> u32 {
        self.eval("return GuiEditor.getSelected();").parse().unwrap()
    }

    /// The inspector's editor for `field` (the control on its label's row).
    fn inspector_editor(&self, field: &str) -> u32 {
        let insp = self.id("GuiEditorInspector");
        let kids = self.con.object(insp).unwrap().members.clone();
        let y = |id: u32| {
            self.con.get_field(id, "position").to_string().split(' ').nth(1).unwrap_or("").to_string()
        };
        let label = *kids
            .iter()
            .find(|&&k| {
                self.con.class_name_of(k) == "GuiTextCtrl" && self.con.get_field(k, "text").as_text() == field
            })
            .unwrap_or_else(|| panic!("no row {field}"));
        *kids.iter().find(|&&k| k != label && y(k) == y(label)).unwrap()
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn f10_select_move_resize_add_edit_delete_save_and_load_back() {
    let mut g = Gui::new("drive");
    g.key(KEY_F10, None, Modifiers::NONE);
    assert_eq!(g.eval("return Canvas.isDialogOpen(GuiEditorGui);"), "1");
    // A click selects the deepest control under the mouse; the inspector shows it.
    g.click(70, 145);
    assert_eq!(g.selected(), g.id("Inner"));
    assert_eq!(g.eval("return GuiEditorInspector.getInspectObject();"), g.id("Inner").to_string());
    // Dragging moves it, snapped to the 8-pixel grid (16 16 + (13, 7) -> 32 24 after snapping).
    g.drag((70, 145), (83, 152));
    assert_eq!(g.con.get_field(g.id("Inner"), "position").as_text(), "32 24");
    // Dragging the handle at its bottom-right corner resizes it (100 20 + (21, 30) -> 120 48).
    let r = screen_rect(&g.con, g.id("Inner"));
    g.drag((r.x + r.w - 2, r.y + r.h - 2), (r.x + r.w - 2 + 21, r.y + r.h - 2 + 30));
    assert_eq!(g.con.get_field(g.id("Inner"), "extent").as_text(), "120 48");
    // The palette adds a button into the selected container (select Box first).
    g.click(45, 275);
    assert_eq!(g.selected(), g.id("Box"));
    let before = g.eval("return Box.getCount();");
    let palette = g.con.object(g.id("GuiEditorPanel")).unwrap().members.clone();
    let add_button =
        *palette.iter().find(|&&c| g.con.get_field(c, "text").as_text() == "GuiButtonCtrl").expect("palette");
    let r = screen_rect(&g.con, add_button);
    g.click(r.x + r.w / 2, r.y + r.h / 2);
    assert_eq!(g.eval("return Box.getCount();"), (before.parse::<i32>().unwrap() + 1).to_string());
    let added = g.selected();
    assert_eq!(g.con.class_name_of(added), "GuiButtonCtrl");
    // The docked inspector edits it: click its `text` editor, type, Apply.
    let text_edit = g.inspector_editor("text");
    let r = screen_rect(&g.con, text_edit);
    g.click(r.x + r.w / 2, r.y + r.h / 2);
    g.key(KEY_A, Some('a'), Modifiers::LCTRL);
    g.key(KEY_BACKSPACE, None, Modifiers::NONE);
    for c in "Play".chars() {
        g.key(key_for_char(c).unwrap(), Some(c), Modifiers::NONE);
    }
    g.click_named("GuiEditorApply");
    assert_eq!(g.con.get_field(added, "text").as_text(), "Play");
    // A bad value in the inspector is refused and the old one kept.
    let ext_edit = g.inspector_editor("extent");
    g.eval(&format!("{ext_edit}.setText(\"wide\");"));
    g.click_named("GuiEditorApply");
    assert_eq!(g.con.get_field(added, "extent").as_text(), "96 24");
    assert!(g.out.all().contains("is not two whole numbers"), "{}", g.out.all());
    // Profile inspects the selection's profile; its fields are edited the same way.
    g.click(90, 160);
    assert_eq!(g.selected(), g.id("Inner"));
    g.click_named("GuiEditorProfileButton");
    assert_eq!(g.eval("return GuiEditorInspector.getInspectObject();"), g.id("MenuTextProfile").to_string());
    let size_edit = g.inspector_editor("fontSize");
    let r = screen_rect(&g.con, size_edit);
    g.click(r.x + r.w / 2, r.y + r.h / 2);
    g.key(KEY_A, Some('a'), Modifiers::LCTRL);
    g.key(KEY_BACKSPACE, None, Modifiers::NONE);
    for c in "18".chars() {
        g.key(key_for_char(c).unwrap(), Some(c), Modifiers::NONE);
    }
    g.click_named("GuiEditorApply");
    assert_eq!(g.eval("return MenuTextProfile.fontSize;"), "18");
    // Select the title and delete it with the Delete key.
    g.click(60, 50);
    assert_eq!(g.selected(), g.id("Title"));
    g.key(KEY_DELETE, None, Modifiers::NONE);
    assert!(g.con.find_object_str("Title").is_none(), "deleted");
    // Save writes the .gui; it loads back to the same objects.
    g.eval("GuiEditor.saveFile = \"gui/mainMenu.gui\";");
    g.click_named("GuiEditorSave");
    let saved = std::fs::read_to_string(g.dir.join("gui/mainMenu.gui")).expect("saved");
    assert!(saved.contains("new GuiButtonCtrl() {") && saved.contains("\"Play\""), "{saved}");
    g.key(KEY_F10, None, Modifiers::NONE);
    assert_eq!(g.eval("return Canvas.isDialogOpen(GuiEditorGui);"), "0");
    let first = g.con.save_object_text(g.id("MainMenu"));
    g.eval("MainMenu.delete(); exec(\"gui/mainMenu.gui\");");
    assert_eq!(g.con.save_object_text(g.id("MainMenu")), first, "loaded back: the same objects and fields");
    assert_eq!(g.con.get_field(g.id("Inner"), "position").as_text(), "32 24");
}

#[test]
fn gui_editor_with_a_selection_matches_golden() {
    let mut g = Gui::new("golden");
    g.key(KEY_F10, None, Modifiers::NONE);
    g.click(70, 145);
    let list = g.frame();
    let ctx = HeadlessContext::new().expect("a headless EGL context is required for the golden test");
    let target = OffscreenTarget::new(&ctx.gl(), W as u32, H as u32).expect("offscreen framebuffer");
    let mut r = Renderer::new(ctx.gl()).expect("renderer");
    target.bind(r.gl());
    r.begin_frame(W as u32, H as u32);
    r.execute(&list);
    r.end_frame();
    let img = target.read_pixels(r.gl()).expect("read back");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/gui_editor.png");
    let artefacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    if let Err(msg) = v12_render_gl::check_golden(&path, &img, &artefacts) {
        panic!("{msg}");
    }
}
