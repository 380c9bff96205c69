//! A GUI screen from script: a `.gui`-style dialog made of controls, drawn into a draw list
//! and, with a headless EGL context, into a PNG. No window system is built or opened.
//!
//! `cargo run -p v12-gui --example screen [-- OUT.png]`

use v12_console_vm::Console;
use v12_gui::{ConsoleLog, GuiCanvas};
use v12_render_gl::{DrawList, HeadlessContext, OffscreenTarget, Renderer};

const SCREEN: &str = r#"
new GuiControlProfile(ScreenProfile) { fillColor = "40 60 90"; opaque = true; fontColor = "255 255 255"; };
new GuiControl(MainScreen) {
    profile = ScreenProfile; position = "0 0"; extent = "320 200";
    new GuiTextCtrl() { position = "20 20"; extent = "280 20"; text = "V12 GUI from script"; };
    new GuiButtonCtrl(PlayButton) { position = "20 60"; extent = "120 30"; text = "Play"; command = "echo(\"play!\");"; };
};
Canvas.setContent(MainScreen);
"#;

fn main() {
    let (w, h) = (320, 200);
    let mut con = Console::new();
    let mut canvas = GuiCanvas::new(&mut con, w, h, ConsoleLog::new(16)).expect("the GUI classes register");
    if let Err(e) = con.eval(SCREEN) {
        eprintln!("script error: {e}");
        return;
    }
    let mut list = DrawList::new();
    let frame = canvas.render(&mut con, &mut list);
    println!("{} controls drawn with {} draw-list commands", frame.controls, list.len());

    let Some(out) = std::env::args().nth(1) else { return };
    let ctx = match HeadlessContext::new() {
        Ok(c) => c,
        Err(e) => return eprintln!("no headless EGL context ({e}); the draw list above is the frame"),
    };
    let target = OffscreenTarget::new(&ctx.gl(), w as u32, h as u32).expect("an offscreen framebuffer");
    let mut r = Renderer::new(ctx.gl()).expect("a renderer");
    target.bind(r.gl());
    r.begin_frame(w as u32, h as u32);
    r.execute(&list);
    r.end_frame();
    let img = target.read_pixels(r.gl()).expect("read back");
    match img.save_png(&out) {
        Ok(()) => println!("wrote {out}"),
        Err(e) => eprintln!("cannot write {out}: {e}"),
    }
}
