//! The World Editor (F11) driven through the canvas's input path: F11 opens it on the mod's
//! mission; clicks pick objects in the 3D view, drags move them on a gizmo axis and over the
//! terrain, rotate and scale them; the palette makes an object, Delete removes it, Ctrl+C and
//! Ctrl+V copy it, Ctrl+Z and Ctrl+Y undo and redo; the tree selects; the brushes raise the
//! terrain; Save writes the `.mis` (and the `.ter`), which loads back to the same objects.
//! Its golden shows a selection with the move gizmo.

use glam::{Vec2, Vec3};
use std::path::PathBuf;
use std::rc::Rc;
use v12_console_vm::{BufferSink, Console};
use v12_editor::{EditorView, Handle};
use v12_gui::keys::*;
use v12_gui::{ConsoleLog, GuiCanvas, screen_rect};
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent};
use v12_render_gl::{DrawList, HeadlessContext, OffscreenTarget, RectI, Renderer};
use v12_resource::ResourceManager;
use v12_world::TerrainBlock;

const W: i32 = 800;
const H: i32 = 600;

const MISSION: &str = r#"
new SimGroup(MissionGroup) {
   new TerrainBlock(Terrain) {
      terrainFile = "terrains/test.ter";
      squareSize = 8;
   };
   new Sky(Sky) {
      visibleDistance = 500;
      fogDistance = 300;
   };
   new StaticShape(Crate) {
      position = "0 0 10";
      rotation = "0 0 1 0";
      scale = "1 1 1";
      dataBlock = "CrateData";
   };
   new SimGroup(Props) {
      new StaticShape(Lamp) {
         position = "-14 10 10";
         rotation = "0 0 1 0";
         scale = "1 1 1";
         dataBlock = "CrateData";
      };
   };
};
"#;

const SETUP: &str = r#"
new GuiControlProfile(GuiDefaultProfile) { fontSize = 13; };
new GuiControl(MainMenu) { profile = "GuiDefaultProfile"; extent = "800 600"; };
Canvas.setContent(MainMenu);
datablock StaticShapeData(CrateData) { };
"#;

struct Ed {
    con: Console,
    canvas: GuiCanvas,
    ed: Handle,
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

/// A terrain flat at 10 m with a hill to the north-east, two materials.
fn terrain() -> TerrainBlock {
    let flat = TerrainBlock::flat(8.0, 10.0);
    let names = vec!["Grass".to_string(), "Rock".to_string()];
    let mut t =
        TerrainBlock::from_parts(8.0, flat.heights().to_vec(), flat.materials().to_vec(), names).unwrap();
    for j in 4..12i64 {
        for i in 4..12i64 {
            let d = (((i - 8) * (i - 8) + (j - 8) * (j - 8)) as f32).sqrt();
            t.set_height(i, j, 10.0 + (12.0 - 3.0 * d).max(0.0));
        }
    }
    t
}

impl Ed {
    fn new(name: &str) -> Ed {
        let dir = std::env::temp_dir().join(format!("v12-worlded-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("missions")).unwrap();
        std::fs::create_dir_all(dir.join("terrains")).unwrap();
        std::fs::write(dir.join("missions/arena.mis"), MISSION).unwrap();
        std::fs::write(dir.join("terrains/test.ter"), v12_world::terrain_file::write(&terrain())).unwrap();
        let mut res = ResourceManager::new();
        res.register_bitmap_loaders();
        v12_world::register_loaders(&mut res);
        res.add_mod(&dir).unwrap();
        let mut con = Console::new();
        con.set_file_root(&dir);
        let out = BufferSink::new();
        let log = ConsoleLog::new(100);
        log.forward_to(Box::new(out.clone()));
        con.set_output(log.sink());
        let mut canvas = GuiCanvas::new(&mut con, W, H, log).unwrap();
        let ed = v12_editor::install(&mut con, Rc::new(res));
        con.register_class("StaticShapeData", "SimDataBlock").unwrap();
        con.register_class("StaticShape", "SceneObject").unwrap();
        v12_editor::bind_toggle(&mut canvas);
        canvas.set_game_view(Some(Box::new(EditorView::new(ed.clone(), None))));
        con.eval(SETUP).unwrap();
        let mut e = Ed { con, canvas, ed, out, dir };
        e.frame();
        e
    }

    fn frame(&mut self) -> DrawList {
        let mut list = DrawList::new();
        self.canvas.render(&mut self.con, &mut list);
        list
    }

    fn move_to(&mut self, p: Vec2) {
        let mv = MouseMoveEvent {
            x_pos: p.x.round() as i32,
            y_pos: p.y.round() as i32,
            modifiers: Modifiers::NONE,
        };
        self.canvas.process_mouse_move(&mut self.con, &mv);
    }

    fn button(&mut self, make: bool) {
        let e = input(InputDeviceType::Mouse, InputObjectType::Button, 0, make, 0);
        self.canvas.process_input(&mut self.con, &e);
    }

    fn click(&mut self, p: Vec2) {
        self.move_to(p);
        self.button(true);
        self.button(false);
        self.frame();
    }

    /// A click with modifier keys held (Shift adds to the selection).
    fn click_with(&mut self, p: Vec2, mods: Modifiers) {
        self.move_to(p);
        for make in [true, false] {
            let mut e = input(InputDeviceType::Mouse, InputObjectType::Button, 0, make, 0);
            e.modifiers = mods;
            self.canvas.process_input(&mut self.con, &e);
        }
        self.frame();
    }

    fn drag(&mut self, from: Vec2, to: Vec2) {
        self.move_to(from);
        self.button(true);
        for k in 1..=4 {
            self.move_to(from + (to - from) * (k as f32 / 4.0));
        }
        self.button(false);
        self.frame();
    }

    fn click_named(&mut self, name: &str) {
        let r = screen_rect(&self.con, self.id(name));
        self.click(Vec2::new((r.x + r.w / 2) as f32, (r.y + r.h / 2) as f32));
    }

    fn key(&mut self, key: u16, mods: Modifiers) {
        for make in [true, false] {
            let mut e = input(InputDeviceType::Keyboard, InputObjectType::Key, key, make, 0);
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

    fn field(&self, name: &str, field: &str) -> String {
        self.con.get_field(self.id(name), field).as_text().into_owned()
    }

    fn selected(&mut self) -> u32 {
        self.eval("return EWorldEditor.getSelected();").parse().unwrap()
    }

    /// Where a world point is on the canvas (the view is at the canvas's top left).
    fn screen(&self, p: Vec3) -> Vec2 {
        let r = screen_rect(&self.con, self.id("EWorldEditor"));
        let cam = self.ed.borrow().camera.camera();
        let s = cam.point_to_screen(p, RectI::new(0, 0, r.w, r.h)).expect("in front of the camera");
        Vec2::new(s.x + r.x as f32, s.y + r.y as f32)
    }

    /// The middle of an object's box on the canvas.
    fn object_screen(&self, name: &str) -> Vec2 {
        let id = self.id(name);
        let c = self.ed.borrow().object(id).map(|o| o.center).expect("an object in the view");
        self.screen(c)
    }

    /// The row of a text list whose text contains `text`, clicked.
    fn click_row(&mut self, list: &str, text: &str) {
        let l = self.id(list);
        let n: i32 = self.eval(&format!("return {l}.rowCount();")).parse().unwrap();
        let row = (0..n)
            .find(|i| {
                self.con.eval(&format!("return {l}.getRowText({i});")).unwrap().to_string().contains(text)
            })
            .unwrap_or_else(|| panic!("no row {text} in {list}"));
        let r = screen_rect(&self.con, l);
        let h = r.h.saturating_sub(2) / n.max(1);
        self.click(Vec2::new((r.x + 20) as f32, (r.y + row * h + h / 2) as f32));
    }

    /// The inspector's editors for `field` (the controls on its label's row), left to right: a
    /// point shows one box per component.
    fn inspector_editors(&self, field: &str) -> Vec<u32> {
        let insp = self.id("EWorldEditorInspector");
        let kids = self.con.object(insp).unwrap().members.clone();
        let at = |id: u32, i: usize| -> i32 {
            self.con
                .get_field(id, "position")
                .to_string()
                .split(' ')
                .nth(i)
                .unwrap_or("")
                .parse()
                .unwrap_or(0)
        };
        let y = |id: u32| at(id, 1);
        let label = *kids
            .iter()
            .find(|&&k| {
                self.con.class_name_of(k) == "GuiTextCtrl" && self.con.get_field(k, "text").as_text() == field
            })
            .unwrap_or_else(|| panic!("no row {field}"));
        let mut row: Vec<u32> = kids.iter().copied().filter(|&k| k != label && y(k) == y(label)).collect();
        row.sort_by_key(|&k| at(k, 0));
        assert!(!row.is_empty(), "no editor for {field}");
        row
    }

    /// Clicks an edit box, selects what it holds and types `text` over it, as a user would.
    fn type_into(&mut self, edit: u32, text: &str) {
        let r = screen_rect(&self.con, edit);
        self.click(Vec2::new((r.x + r.w / 2) as f32, (r.y + r.h / 2) as f32));
        self.key(KEY_A, Modifiers::LCTRL);
        self.key(KEY_BACKSPACE, Modifiers::NONE);
        self.type_text(text);
    }

    fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            for make in [true, false] {
                let e = input(
                    InputDeviceType::Keyboard,
                    InputObjectType::Key,
                    key_for_char(c).unwrap(),
                    make,
                    c as u16,
                );
                self.canvas.process_input(&mut self.con, &e);
            }
        }
        self.frame();
    }

    fn objects_in_mission(&mut self) -> usize {
        self.ed.borrow().objects.len()
    }
}

impl Drop for Ed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn f11_opens_the_mission_and_clicks_pick_drags_move_rotate_and_scale_with_undo() {
    let mut e = Ed::new("drive");
    e.key(v12_editor::KEY_F11, Modifiers::NONE);
    assert_eq!(e.eval("return Canvas.getContent() == EditorGui.getId();"), "1", "{}", e.out.all());
    assert_eq!(e.eval("return EWorldEditor.isOpen();"), "1");
    assert_eq!(e.objects_in_mission(), 2, "the crate and the lamp");
    // A click on the crate selects it (a ray through the container); the inspector shows it.
    let p = e.object_screen("Crate");
    e.click(p);
    assert_eq!(e.selected(), e.id("Crate"));
    assert_eq!(e.eval("return EWorldEditorInspector.getInspectObject();"), e.id("Crate").to_string());
    // A drag on the X handle moves it along X only, on the 2 m grid.
    let len = v12_editor::gizmo::handle_len(&e.ed.borrow().camera.camera(), Vec3::new(0.0, 0.0, 11.0));
    let a = e.screen(Vec3::new(0.0, 0.0, 11.0));
    let b = e.screen(Vec3::new(len, 0.0, 11.0));
    let press = a + (b - a) * 0.7;
    e.drag(press, press + (b - a) * (6.0 / len));
    let pos: Vec<f32> = e.field("Crate", "position").split(' ').map(|w| w.parse().unwrap()).collect();
    assert_eq!(pos[0], 6.0, "{pos:?}");
    assert_eq!((pos[1], pos[2]), (0.0, 10.0));
    // Ctrl+Z puts it back, Ctrl+Y moves it again.
    e.key(u16::from(b'Z'), Modifiers::LCTRL);
    assert_eq!(e.field("Crate", "position"), "0 0 10");
    e.key(u16::from(b'Y'), Modifiers::LCTRL);
    assert_eq!(e.field("Crate", "position"), "6 0 10");
    // G turns the grid off and on again; T turns snapping to the terrain off and on.
    e.key(u16::from(b'G'), Modifiers::NONE);
    assert_eq!(e.eval("return EWorldEditor.gridSize;"), "0");
    e.key(u16::from(b'G'), Modifiers::NONE);
    assert_eq!(e.eval("return EWorldEditor.gridSize;"), "2");
    e.key(u16::from(b'T'), Modifiers::NONE);
    assert_eq!(e.eval("return EWorldEditor.snapToTerrain;"), "0");
    e.key(u16::from(b'T'), Modifiers::NONE);
    // Dragging the lamp's body moves it over the terrain: snapped to the grid, feet on the
    // ground (up the hill's side).
    let from = e.object_screen("Lamp");
    let to = e.screen(Vec3::new(56.0, 56.0, 17.0));
    e.drag(from, to);
    assert_eq!(e.selected(), e.id("Lamp"));
    let lamp = v12_world::mission::vec3(&e.field("Lamp", "position"));
    assert!(lamp.x % 2.0 == 0.0 && lamp.y % 2.0 == 0.0 && lamp.x > 40.0, "{lamp}");
    let ground = e.ed.borrow().terrain.as_ref().unwrap().block.height(lamp.x, lamp.y);
    assert!((lamp.z - ground).abs() < 0.01 && ground > 10.0, "{lamp} on {ground}");
    // Rotate mode (2): a drag from the gizmo's origin turns it about +Z in 15° steps.
    e.key(KEY_0 + 2, Modifiers::NONE);
    let o = e.object_screen("Lamp");
    e.drag(o, o + Vec2::new(61.0, 0.0));
    assert_eq!(e.field("Lamp", "rotation"), "0 0 1 30");
    // Scale mode (3): a drag up scales it.
    e.key(KEY_0 + 3, Modifiers::NONE);
    e.drag(o, o + Vec2::new(0.0, -50.0));
    assert_eq!(e.field("Lamp", "scale"), "1.5 1.5 1.5");
    e.key(u16::from(b'Z'), Modifiers::LCTRL);
    assert_eq!(e.field("Lamp", "scale"), "1 1 1");
    assert_eq!(e.field("Lamp", "rotation"), "0 0 1 30");
    // The tree selects what it is clicked on.
    e.click_row("EWorldEditorTree", "Crate");
    assert_eq!(e.selected(), e.id("Crate"));
    // Shift+click adds the lamp to the selection, and takes it out again.
    let lamp_at = e.object_screen("Lamp");
    e.click_with(lamp_at, Modifiers::LSHIFT);
    assert_eq!(e.eval("return EWorldEditor.getSelectionSize();"), "2");
    e.click_with(lamp_at, Modifiers::LSHIFT);
    assert_eq!(e.eval("return EWorldEditor.getSelectionSize();"), "1");
    assert_eq!(e.selected(), e.id("Crate"));
    // The docked inspector edits it: type a new position, Apply; Ctrl+Z undoes the edit.
    // A position shows as three boxes (x, y, z).
    let boxes = e.inspector_editors("position");
    assert_eq!(boxes.len(), 3, "x, y and z boxes");
    for (&b, v) in boxes.iter().zip(["8", "8", "10"]) {
        e.type_into(b, v);
    }
    e.click_named("EWorldEditorApply");
    assert_eq!(e.field("Crate", "position"), "8 8 10");
    e.key(u16::from(b'Z'), Modifiers::LCTRL);
    assert_eq!(e.field("Crate", "position"), "6 0 10");
    // F11 again goes back to what was there.
    e.key(v12_editor::KEY_F11, Modifiers::NONE);
    assert_eq!(e.eval("return Canvas.getContent() == MainMenu.getId();"), "1");
}

#[test]
fn palette_delete_copy_paste_brushes_and_save_load_back() {
    let mut e = Ed::new("save");
    e.key(v12_editor::KEY_F11, Modifiers::NONE);
    // The palette makes an object of its datablock, on the terrain, selected.
    e.click_row("EWorldEditorPalette", "StaticShape: CrateData");
    let made = e.selected();
    assert_eq!(e.con.class_name_of(made), "StaticShape");
    assert_eq!(e.con.get_field(made, "dataBlock").as_text(), "CrateData");
    assert_eq!(e.objects_in_mission(), 3);
    // Delete removes it; undo brings it back (a new id, the same fields); redo removes it.
    e.key(KEY_DELETE, Modifiers::NONE);
    assert!(e.con.object(made).is_none());
    assert_eq!(e.objects_in_mission(), 2);
    e.click_named("EWorldEditorUndo");
    assert_eq!(e.objects_in_mission(), 3);
    e.click_named("EWorldEditorRedo");
    assert_eq!(e.objects_in_mission(), 2);
    // Copy and paste: an unnamed copy a grid step east.
    let p = e.object_screen("Crate");
    e.click(p);
    e.key(u16::from(b'C'), Modifiers::LCTRL);
    e.key(u16::from(b'V'), Modifiers::LCTRL);
    let copy = e.selected();
    assert_ne!(copy, e.id("Crate"));
    assert_eq!(e.con.object_name(copy), "");
    assert_eq!(e.con.get_field(copy, "position").as_text(), "2 0 10");
    assert_eq!(e.objects_in_mission(), 3);
    // The raise brush lifts the terrain under a drag; undo lowers it again.
    e.click_named("EWorldEditorRaise");
    assert_eq!(e.eval("return EWorldEditor.getMode();"), "terrain");
    let at = Vec3::new(-24.0, 24.0, 10.0);
    let before = e.ed.borrow().terrain.as_ref().unwrap().block.height(at.x, at.y);
    let s = e.screen(at);
    e.drag(s, s + Vec2::new(2.0, 0.0));
    let raised = e.ed.borrow().terrain.as_ref().unwrap().block.height(at.x, at.y);
    assert!(raised > before + 0.5, "{before} -> {raised}");
    e.key(u16::from(b'Z'), Modifiers::LCTRL);
    assert_eq!(e.ed.borrow().terrain.as_ref().unwrap().block.height(at.x, at.y), before);
    e.key(u16::from(b'Y'), Modifiers::LCTRL);
    // The paint brush sets the squares' material under it.
    e.click_named("EWorldEditorPaint");
    let s = e.screen(Vec3::new(16.0, 24.0, 10.0));
    e.drag(s, s + Vec2::new(1.0, 0.0));
    assert_eq!(e.ed.borrow().terrain.as_ref().unwrap().block.material(2, 3), 1);
    assert_eq!(e.ed.borrow().terrain.as_ref().unwrap().block.material(10, 3), 0);
    // Saving outside the mod's folder is refused.
    assert_eq!(e.eval("return EWorldEditor.saveMission(\"../outside.mis\");"), "0");
    assert!(e.out.all().contains("outside the mod's folder"), "{}", e.out.all());
    assert!(!e.dir.join("../outside.mis").exists());
    // Save writes the mission and the terrain; they load back the same.
    e.eval("EWorldEditor.missionFile = \"missions/saved.mis\";");
    e.click_named("EWorldEditorSave");
    let saved = std::fs::read_to_string(e.dir.join("missions/saved.mis")).expect("saved");
    assert!(
        saved.contains("new StaticShape(Crate)") && saved.contains("new TerrainBlock(Terrain)"),
        "{saved}"
    );
    let ter = std::fs::read(e.dir.join("terrains/test.ter")).unwrap();
    let back = v12_world::terrain_file::read(&ter).unwrap();
    assert_eq!(back.heights(), e.ed.borrow().terrain.as_ref().unwrap().block.heights(), "the .ter as edited");
    assert_eq!(back.materials(), e.ed.borrow().terrain.as_ref().unwrap().block.materials());
    let first = e.con.save_object_text(e.id("MissionGroup"));
    e.eval("MissionGroup.delete(); exec(\"missions/saved.mis\");");
    assert_eq!(
        e.con.save_object_text(e.id("MissionGroup")),
        first,
        "loaded back: the same objects and fields"
    );
}

#[test]
fn world_editor_with_a_selection_and_its_gizmo_matches_golden() {
    let mut e = Ed::new("golden");
    e.key(v12_editor::KEY_F11, Modifiers::NONE);
    e.eval("EWorldEditor.setCamera(\"4 -22 20\", -0.1, -0.55);");
    let p = e.object_screen("Crate");
    e.click(p);
    let list = e.frame();
    let ctx = HeadlessContext::new().expect("a headless EGL context is required for the golden test");
    let target = OffscreenTarget::new(&ctx.gl(), W as u32, H as u32).expect("offscreen framebuffer");
    let mut r = Renderer::new(ctx.gl()).expect("renderer");
    target.bind(r.gl());
    r.begin_frame(W as u32, H as u32);
    r.execute(&list);
    r.end_frame();
    let img = target.read_pixels(r.gl()).expect("read back");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/world_editor.png");
    let artefacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    if let Err(msg) = v12_render_gl::check_golden(&path, &img, &artefacts) {
        panic!("{msg}");
    }
}

#[test]
fn bad_input_is_refused_with_a_message_and_changes_nothing() {
    let mut e = Ed::new("bad");
    e.key(v12_editor::KEY_F11, Modifiers::NONE);
    let before = e.con.save_object_text(e.id("MissionGroup"));
    assert_eq!(e.eval("return EWorldEditor.saveMission(\"missions/a.txt\");"), "0");
    assert!(e.out.all().contains("a mission file ends in .mis"), "{}", e.out.all());
    assert_eq!(e.eval("return EWorldEditor.createObject(GuiControl);"), "0");
    assert_eq!(e.eval("return EWorldEditor.createObject(NoSuchClass, CrateData);"), "0");
    assert_eq!(e.eval("return EWorldEditor.setMode(sideways);"), "0");
    assert_eq!(e.eval("return EWorldEditor.setBrush(melt);"), "0");
    e.eval(
        "EWorldEditor.setBrush(raise, 999, 1e30); EWorldEditor.setCamera(\"nan nan nan\", \"nan\", 1e30);",
    );
    e.eval("EWorldEditor.onKeyDown(-5, \"ctrl\"); EWorldEditor.onMouseDragged(\"junk\"); EWorldEditor.onMouseUp(\"\");");
    e.eval("EWorldEditor.select(99999); EWorldEditor.undo(); EWorldEditor.redo(); EWorldEditor.pasteSelection();");
    assert_eq!(e.eval("return EWorldEditor.createEntry(-3);"), "0");
    e.frame();
    assert_eq!(e.con.save_object_text(e.id("MissionGroup")), before, "nothing changed");
}

#[test]
fn a_junk_position_typed_in_the_inspector_is_refused_with_a_message_and_the_old_value_kept() {
    let mut e = Ed::new("junkpos");
    e.key(v12_editor::KEY_F11, Modifiers::NONE);
    // An unset scale: its empty boxes, left alone, are no edit.
    e.eval("Crate.scale = \"\";");
    e.click_row("EWorldEditorTree", "Crate");
    assert_eq!(e.selected(), e.id("Crate"));
    let boxes = e.inspector_editors("position");
    assert_eq!(boxes.len(), 3, "x, y and z boxes");
    e.type_into(boxes[0], "junk");
    e.click_named("EWorldEditorApply");
    let log = e.out.all();
    assert!(log.contains("GuiInspector::apply") && log.contains("junk"), "{log}");
    assert!(log.contains("kept \"0 0 10\""), "{log}");
    assert!(!log.contains("scale"), "an untouched empty scale is no edit: {log}");
    assert_eq!(e.field("Crate", "position"), "0 0 10", "the old value kept");
    assert_eq!(e.field("Crate", "scale"), "");
    // The box shows the kept value again, and a number there applies.
    let boxes = e.inspector_editors("position");
    assert_eq!(e.con.get_field(boxes[0], "text").as_text(), "0");
    e.type_into(boxes[0], "3");
    e.click_named("EWorldEditorApply");
    assert_eq!(e.field("Crate", "position"), "3 0 10");
    assert_eq!(e.field("Crate", "scale"), "", "the unset scale left alone");
}
