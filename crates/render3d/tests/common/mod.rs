//! What the rendering tests share: one frame of a scene on headless EGL (no context fails the
//! test, never skips it) and the golden-image check (`V12_BLESS=1` rewrites the golden).
#![allow(dead_code)]

use v12_render_gl::{Camera, HeadlessContext, Image, OffscreenTarget, RectI, Renderer, Scene};

/// Draws `scene` from `camera` into a `w`×`h` frame and reads it back.
pub fn render(scene: &Scene, camera: &Camera, w: u32, h: u32) -> Image {
    let ctx = HeadlessContext::new().expect("a headless EGL context is required for rendering tests");
    let gl = ctx.gl();
    let target = OffscreenTarget::new(&gl, w, h).expect("offscreen framebuffer");
    let mut r = Renderer::new(gl).expect("renderer");
    target.bind(r.gl());
    r.begin_frame(w, h);
    r.draw_scene(RectI::new(0, 0, w as i32, h as i32), camera, scene);
    r.end_frame();
    target.read_pixels(r.gl()).expect("read back")
}

/// Compares with `tests/golden/NAME.png`.
pub fn golden(name: &str, img: &Image) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.png"));
    let artefacts = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    if let Err(msg) = v12_render_gl::check_golden(&path, img, &artefacts) {
        panic!("{msg}");
    }
}
