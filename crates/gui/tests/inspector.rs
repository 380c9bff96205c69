//! GuiInspector through the canvas's input path (clicks into its editors, typing, the Apply
//! button) and its golden image, headless on llvmpipe (no EGL context FAILS the golden, never
//! skips; `V12_BLESS=1` rewrites it).

use std::path::PathBuf;
use v12_console_vm::{BufferSink, Console, FieldType, FieldTypeDef, Value};
use v12_gui::keys::*;
use v12_gui::{ConsoleLog, GuiCanvas, screen_rect};
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent};
use v12_render_gl::{DrawList, HeadlessContext, Image, OffscreenTarget, Renderer};

const W: i32 = 400;
const H: i32 = 300;

const SCENE: &str = r#"
new GuiControlProfile(GuiDefaultProfile) { fontSize = 13; };
new GuiControlProfile(DeskProfile) { opaque = 1; fillColor = "50 55 65"; };
new GuiControlProfile(ButtonProfile) { fontSize = 13; fillColor = "180 180 170"; fillColorHL = "200 200 190";
    borderColor = "40 40 40"; canKeyFocus = 1; };
datablock SimDataBlock(HeavyCrate) {};
datablock SimDataBlock(LightCrate) {};
new Crate(Box) { label = "spare parts"; mass = 2.5; count = 3; lit = 1; tint = "1 0.5 0 1"; kind = "wood";
    data = "HeavyCrate"; spot = "10 20 30"; turn = "0 0 1 90"; note = "fragile"; };
function Crate::onPreApply(%this) { $log = $log @ "pre(" @ %this.mass @ ")"; }
function Crate::onPostApply(%this) { $log = $log @ "post(" @ %this.mass @ ")"; }
new GuiControl(Desk) { profile = "DeskProfile"; extent = "400 300";
    new GuiInspector(Insp) { position = "10 8"; extent = "380 10"; };
    new GuiButtonCtrl(ApplyButton) { profile = "ButtonProfile"; position = "10 268"; extent = "80 24";
        text = "Apply"; command = "$applied = Insp.apply();"; };
};
Canvas.setContent(Desk);
Insp.inspect(Box);
"#;

struct Gui {
    con: Console,
    canvas: GuiCanvas,
    out: BufferSink,
}

fn ev(
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
    fn new() -> Gui {
        let mut con = Console::new();
        let out = BufferSink::new();
        let log = ConsoleLog::new(100);
        log.forward_to(Box::new(out.clone()));
        con.set_output(log.sink());
        let canvas = GuiCanvas::new(&mut con, W, H, log).unwrap();
        con.register_class("Crate", "SimObject").unwrap();
        let kind =
            con.register_field_type(FieldTypeDef::enumeration("TypeCrateKind", &["wood", "steel"])).unwrap();
        let data = con.register_field_type(FieldTypeDef::datablock("TypeCrateData", "SimDataBlock")).unwrap();
        for (f, ty, d) in [
            ("label", FieldType::String, Value::Empty),
            ("mass", FieldType::Float, Value::from(1.0)),
            ("count", FieldType::Int, Value::from(0)),
            ("lit", FieldType::Bool, Value::from(false)),
            ("tint", FieldType::ColorF, Value::from("1 1 1 1")),
            ("kind", kind, Value::from("wood")),
            ("data", data, Value::Empty),
            ("spot", FieldType::Point, Value::from("0 0 0")),
            ("turn", FieldType::Rotation, Value::from("1 0 0 0")),
        ] {
            con.add_field("Crate", f, ty, d);
        }
        con.eval(SCENE).unwrap();
        let mut g = Gui { con, canvas, out };
        g.frame();
        g
    }

    fn frame(&mut self) -> DrawList {
        let mut list = DrawList::new();
        self.canvas.render(&mut self.con, &mut list);
        list
    }

    fn click(&mut self, x: i32, y: i32) {
        let mv = MouseMoveEvent { x_pos: x, y_pos: y, modifiers: Modifiers::NONE };
        self.canvas.process_mouse_move(&mut self.con, &mv);
        for make in [true, false] {
            let e = ev(InputDeviceType::Mouse, InputObjectType::Button, 0, make, 0);
            self.canvas.process_input(&mut self.con, &e);
        }
        self.frame();
    }

    fn click_ctrl(&mut self, id: u32) {
        let r = screen_rect(&self.con, id);
        self.click(r.x + r.w / 2, r.y + r.h / 2);
    }

    fn key(&mut self, key: u16, ch: Option<char>, mods: Modifiers) {
        for make in [true, false] {
            let mut e =
                ev(InputDeviceType::Keyboard, InputObjectType::Key, key, make, ch.map_or(0, |c| c as u16));
            e.modifiers = mods;
            self.canvas.process_input(&mut self.con, &e);
        }
    }

    /// Selects everything in the focused edit and types `s` over it.
    fn retype(&mut self, s: &str) {
        self.key(KEY_A, Some('a'), Modifiers::LCTRL);
        self.key(KEY_BACKSPACE, None, Modifiers::NONE);
        for c in s.chars() {
            self.key(key_for_char(c).unwrap_or(0x50), Some(c), Modifiers::NONE);
        }
        self.frame();
    }

    /// The `part`th editor control on the row of field `field` (found by its label's row).
    fn editor(&self, field: &str, part: usize) -> u32 {
        let insp = self.con.find_object_str("Insp").unwrap();
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
        let row: Vec<u32> = kids.iter().copied().filter(|&k| k != label && y(k) == y(label)).collect();
        row[part]
    }

    fn eval(&mut self, s: &str) -> String {
        self.con.eval(s).unwrap().to_string()
    }
}

#[test]
fn editors_are_clicked_and_typed_into_and_apply_checks_then_calls_pre_and_post() {
    let mut g = Gui::new();
    // Every type got its editor.
    let class = |g: &Gui, f: &str, p: usize| g.con.class_name_of(g.editor(f, p));
    assert_eq!(class(&g, "label", 0), "GuiTextEditCtrl");
    assert_eq!(class(&g, "lit", 0), "GuiCheckBoxCtrl");
    assert_eq!(class(&g, "kind", 0), "GuiPopUpMenuCtrl");
    assert_eq!(class(&g, "data", 0), "GuiPopUpMenuCtrl");
    assert_eq!(class(&g, "tint", 1), "GuiSwatchCtrl");
    assert_eq!(class(&g, "spot", 2), "GuiTextEditCtrl");
    assert_eq!(class(&g, "turn", 3), "GuiTextEditCtrl");
    // Type a new mass and a new y, untick `lit`, then press Apply.
    let mass = g.editor("mass", 0);
    g.click_ctrl(mass);
    assert_eq!(g.canvas.first_responder(&g.con), Some(mass));
    g.retype("7.25");
    let y = g.editor("spot", 1);
    g.click_ctrl(y);
    g.retype("-4");
    let lit = g.editor("lit", 0);
    g.click_ctrl(lit);
    let apply = g.con.find_object_str("ApplyButton").unwrap();
    g.click_ctrl(apply);
    assert_eq!(g.eval("return $applied @ \"|\" @ $log;"), "1|pre(2.5)post(7.25)");
    assert_eq!(g.eval("return Box.mass @ \"|\" @ Box.spot @ \"|\" @ Box.lit;"), "7.25|10 -4 30|0");
    // A bad value is refused with a message; the field and its editor keep the old value.
    g.click_ctrl(mass);
    g.retype("heavy");
    g.click_ctrl(apply);
    assert_eq!(g.eval("return $applied @ \"|\" @ Box.mass;"), "0|7.25");
    assert_eq!(g.con.get_field(mass, "text").as_text(), "7.25");
    assert!(g.out.all().contains("mass: \"heavy\" is not a number; kept \"7.25\""), "{}", g.out.all());
    // A datablock that is no datablock is refused too.
    g.eval("Insp.setEditValue(data, Box);");
    g.click_ctrl(apply);
    assert_eq!(g.eval("return $applied @ \"|\" @ Box.data;"), "0|HeavyCrate");
}

fn check_golden(name: &str, actual: &Image) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.png"));
    let artefacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    if let Err(msg) = v12_render_gl::check_golden(&path, actual, &artefacts) {
        panic!("{msg}");
    }
}

#[test]
fn inspector_matches_golden() {
    let mut g = Gui::new();
    let list = g.frame();
    let ctx = HeadlessContext::new().expect("a headless EGL context is required for the golden test");
    let target = OffscreenTarget::new(&ctx.gl(), W as u32, H as u32).expect("offscreen framebuffer");
    let mut r = Renderer::new(ctx.gl()).expect("renderer");
    target.bind(r.gl());
    r.begin_frame(W as u32, H as u32);
    r.execute(&list);
    r.end_frame();
    let img = target.read_pixels(r.gl()).expect("read back");
    check_golden("inspector", &img);
}
