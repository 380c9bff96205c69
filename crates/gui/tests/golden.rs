//! One headless golden image: a dialog (a window with a few controls and text) built from a
//! `.gui` script, drawn to a draw list by the canvas and executed by render-gl on llvmpipe.
//! No EGL context means this test FAILS (never skips). `V12_BLESS=1` rewrites the golden; a
//! mismatch writes the actual and diff images under the target's tmp dir.

use std::path::PathBuf;
use v12_console_vm::Console;
use v12_gui::{ConsoleLog, GuiCanvas};
use v12_render_gl::{DrawList, HeadlessContext, Image, OffscreenTarget, Renderer};

/// Same tolerance as render-gl's goldens.
const W: u32 = 320;
const H: u32 = 240;

pub const DIALOG: &str = r#"
new GuiControlProfile(GuiDefaultProfile) { fontSize = 14; fontColor = "0 0 0"; };
new GuiControlProfile(DeskProfile) { opaque = 1; fillColor = "40 60 90"; };
new GuiControlProfile(WinProfile) { fontSize = 14; fillColor = "210 210 200"; fillColorHL = "90 110 160";
    fontColor = "255 255 255"; borderColor = "20 20 20"; };
new GuiControlProfile(ButtonProfile) { fontSize = 13; fillColor = "180 180 170"; fillColorHL = "200 200 190";
    borderColor = "40 40 40"; canKeyFocus = 1; tab = 1; };
new GuiControlProfile(EditProfile) { fontSize = 13; opaque = 1; fillColor = "255 255 255"; border = 1;
    borderColor = "60 60 60"; canKeyFocus = 1; tab = 1; };
new GuiControlProfile(BarProfile) { fillColor = "90 90 90"; fillColorHL = "60 200 80"; borderColor = "0 0 0"; };
new GuiControl(Desk) { profile = "DeskProfile"; horizSizing = "width"; vertSizing = "height"; extent = "320 240";
    new GuiWindowCtrl(OptionsWin) { profile = "WinProfile"; position = "30 20"; extent = "260 200"; text = "Options";
        new GuiTextCtrl() { position = "12 30"; extent = "80 18"; text = "Name:"; };
        new GuiTextEditCtrl(NameEdit) { profile = "EditProfile"; position = "80 30"; extent = "160 18"; text = "Player"; };
        new GuiCheckBoxCtrl(FullCheck) { profile = "ButtonProfile"; position = "12 58"; extent = "150 18"; text = "Fullscreen"; variable = "$pref::full"; };
        new GuiSliderCtrl(Vol) { profile = "ButtonProfile"; position = "12 86"; extent = "228 20"; range = "0 1"; ticks = 3; value = 0.5; };
        new GuiProgressCtrl(Load) { profile = "BarProfile"; position = "12 116"; extent = "228 12"; value = 0.66; };
        new GuiButtonCtrl(OkButton) { profile = "ButtonProfile"; position = "60 160"; extent = "60 24"; text = "OK"; };
        new GuiButtonCtrl(CancelButton) { profile = "ButtonProfile"; position = "140 160"; extent = "60 24"; text = "Cancel"; };
    };
};
$pref::full = 1;
Canvas.setContent(Desk);
"#;

fn check_golden(name: &str, actual: &Image) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.png"));
    let artefacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    if let Err(msg) = v12_render_gl::check_golden(&path, actual, &artefacts) {
        panic!("{msg}");
    }
}

#[test]
fn dialog_matches_golden() {
    let mut con = Console::new();
    let mut canvas = GuiCanvas::new(&mut con, W as i32, H as i32, ConsoleLog::new(16)).unwrap();
    con.eval(DIALOG).unwrap();
    let mut list = DrawList::new();
    canvas.render(&mut con, &mut list);
    assert!(list.len() > 20);

    let ctx = HeadlessContext::new().expect("a headless EGL context is required for the golden test");
    let target = OffscreenTarget::new(&ctx.gl(), W, H).expect("offscreen framebuffer");
    let mut r = Renderer::new(ctx.gl()).expect("renderer");
    target.bind(r.gl());
    r.begin_frame(W, H);
    r.execute(&list);
    let stats = r.end_frame();
    assert!(stats.draw_calls > 0);
    let img = target.read_pixels(r.gl()).expect("read back");
    // The desk colour shows outside the window, the title bar inside it.
    assert_eq!(img.get(5, 5), Some([40, 60, 90, 255]));
    assert_eq!(img.get(200, 25), Some([90, 110, 160, 255]));
    check_golden("dialog", &img);
}
