#![allow(unsafe_code)]
use glow::HasContext;
use v12_render_gl::*;
#[test]
fn ctx() {
    let ctx = HeadlessContext::new().unwrap();
    let gl = ctx.gl();
    let t = OffscreenTarget::new(&gl, 8, 4).unwrap();
    unsafe {
        gl.clear_color(1.0, 0.0, 0.0, 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        eprintln!("{}", gl.get_parameter_string(glow::RENDERER));
    }
    let img = t.read_pixels(&gl).unwrap();
    assert_eq!(img.get(0, 0), Some([255, 0, 0, 255]));
}
