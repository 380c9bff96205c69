//! Shared test harness: a headless context (creation failure FAILS the test, never skips),
//! a fixed-size framebuffer, and golden-image comparison.
//!
//! Goldens live in tests/golden/*.png. `V12_BLESS=1 cargo test` rewrites them. On a
//! mismatch the actual image and a diff image are written under the cargo target's tmp dir
//! and the test fails with their paths.
#![allow(dead_code)]

use std::path::PathBuf;
use v12_render_gl::{HeadlessContext, Image, OffscreenTarget, Renderer};

/// A context, a target of the given size (bound) and a renderer.
pub struct Harness {
    pub renderer: Renderer,
    pub target: OffscreenTarget,
    pub ctx: HeadlessContext,
}

impl Harness {
    pub fn new(width: u32, height: u32) -> Self {
        let ctx = HeadlessContext::new().expect("a headless EGL context is required for rendering tests");
        let gl = ctx.gl();
        let target = OffscreenTarget::new(&gl, width, height).expect("offscreen framebuffer");
        let renderer = Renderer::new(gl).expect("renderer");
        Harness { renderer, target, ctx }
    }

    /// Runs one frame and reads it back.
    pub fn frame(&mut self, draw: impl FnOnce(&mut Renderer)) -> Image {
        self.target.bind(self.renderer.gl());
        self.renderer.begin_frame(self.target.width(), self.target.height());
        draw(&mut self.renderer);
        self.renderer.end_frame();
        self.target.read_pixels(self.renderer.gl()).expect("read back")
    }
}

pub fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.png"))
}

/// Compares with tests/golden/NAME.png (or writes it when V12_BLESS=1).
pub fn check_golden(name: &str, actual: &Image) {
    let artefacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden");
    if let Err(msg) = v12_render_gl::check_golden(&golden_path(name), actual, &artefacts) {
        panic!("{msg}");
    }
}

/// Every pixel of `img` inside `area` (or the whole image) is either `bg` or `fg`, and the
/// set of `fg` pixels is exactly `want`.
pub fn assert_exact_pixels(img: &Image, bg: [u8; 4], fg: [u8; 4], want: &dyn Fn(i32, i32) -> bool) {
    for y in 0..img.height() {
        for x in 0..img.width() {
            let p = img.get(x, y).unwrap();
            let expect = if want(x as i32, y as i32) { fg } else { bg };
            assert_eq!(p, expect, "pixel ({x},{y})");
        }
    }
}
