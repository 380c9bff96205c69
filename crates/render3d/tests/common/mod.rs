//! What the rendering tests share: one frame of a scene on headless EGL (no context fails the
//! test, never skips it) and the golden-image check (`V12_BLESS=1` rewrites the golden).
#![allow(dead_code)]

use v12_render_gl::{Camera, HeadlessContext, Image, OffscreenTarget, RectI, Renderer, Scene, TextureFilter};

/// Draws `scene` from `camera` into a `w`×`h` frame and reads it back.
pub fn render(scene: &Scene, camera: &Camera, w: u32, h: u32) -> Image {
    render_textured(scene, camera, w, h, &[])
}

/// [`render`] with named textures the scene's layers refer to.
pub fn render_textured(scene: &Scene, camera: &Camera, w: u32, h: u32, textures: &[(&str, Image)]) -> Image {
    let ctx = HeadlessContext::new().expect("a headless EGL context is required for rendering tests");
    let gl = ctx.gl();
    let target = OffscreenTarget::new(&gl, w, h).expect("offscreen framebuffer");
    let mut r = Renderer::new(gl).expect("renderer");
    let _held: Vec<_> = textures
        .iter()
        .map(|(name, img)| r.insert_texture(name, img.clone(), TextureFilter::Mipmapped).expect("texture"))
        .collect();
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

/// A 32×32 noisy texture around `rgba` (so blending and tiling show).
pub fn speckled(rgba: [u8; 4]) -> Image {
    let mut img = Image::new(32, 32, [0; 4]);
    for y in 0..32u32 {
        for x in 0..32u32 {
            let h = x.wrapping_mul(374_761_393) ^ y.wrapping_mul(668_265_263);
            let k = 0.8 + ((h >> 7) % 41) as f32 / 100.0;
            let c = |v: u8| (f32::from(v) * k).min(255.0) as u8;
            img.put(x, y, [c(rgba[0]), c(rgba[1]), c(rgba[2]), rgba[3]]);
        }
    }
    img
}
