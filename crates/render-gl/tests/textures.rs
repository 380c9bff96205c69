//! The texture manager on a real context: one load per texture, reference counts, release,
//! reload after a context loss, and bad files as errors.

mod common;

use common::Harness;
use v12_render_gl::{
    BitmapDst, ColorI, HeadlessContext, Image, OffscreenTarget, Point2I, RectI, RenderError, TextureFilter,
    TextureManager,
};

fn write_png(name: &str, img: &Image) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("textures");
    let path = dir.join(name);
    img.save_png(&path).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn one_load_per_texture_with_ref_counts_and_release() {
    let ctx = HeadlessContext::new().expect("headless context");
    let gl = ctx.gl();
    let path = write_png("dedupe.png", &Image::new(8, 4, [10, 20, 30, 255]));
    let mut tm = TextureManager::new();
    let a = tm.load(&gl, &path, TextureFilter::Linear).unwrap();
    let b = tm.load(&gl, &path, TextureFilter::Linear).unwrap();
    assert_eq!(a, b);
    assert_eq!((a.width(), a.height()), (8, 4));
    assert_eq!(tm.stats().file_loads, 1, "second load shares the first");
    assert_eq!(tm.stats().uploads, 1);
    assert_eq!(tm.ref_count(&path), 2);
    let c = a.clone();
    assert_eq!(tm.ref_count(&path), 3);
    drop(c);
    tm.release(&gl, b);
    assert_eq!(tm.ref_count(&path), 1);
    assert_eq!((tm.len(), tm.stats().frees), (1, 0), "still held by a");
    tm.release(&gl, a);
    assert_eq!((tm.len(), tm.stats().frees), (0, 1), "explicit release of the last handle frees");
    // Dropping the last handle frees at the next collection; loading again reads the file.
    let d = tm.load(&gl, &path, TextureFilter::Linear).unwrap();
    assert_eq!(tm.stats().file_loads, 2);
    drop(d);
    assert_eq!(tm.ref_count(&path), 0);
    assert_eq!(tm.collect_garbage(&gl), 1);
    assert!(tm.is_empty());
    assert_eq!(tm.stats().frees, 2);
}

#[test]
fn bad_files_are_errors_not_panics() {
    let ctx = HeadlessContext::new().expect("headless context");
    let gl = ctx.gl();
    let mut tm = TextureManager::new();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("textures");
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.png");
    std::fs::write(&junk, b"\x89PNG\r\n\x1a\nthis is not really a png").unwrap();
    assert!(matches!(tm.load(&gl, &junk.to_string_lossy(), TextureFilter::Linear), Err(RenderError::Png(_))));
    assert!(matches!(tm.load(&gl, "/nonexistent/x.png", TextureFilter::Linear), Err(RenderError::Io(_))));
    assert!(tm.is_empty());
    // A draw list naming a missing texture skips it and counts it.
    let mut h = Harness::new(8, 8);
    let mut dl = v12_render_gl::DrawList::new();
    dl.draw_bitmap("/nonexistent/y.png", Point2I::new(0, 0));
    dl.fill_rect(RectI::new(0, 0, 1, 1), ColorI::WHITE);
    h.target.bind(h.renderer.gl());
    h.renderer.begin_frame(8, 8);
    h.renderer.execute(&dl);
    let stats = h.renderer.end_frame();
    assert_eq!((stats.missing_textures, stats.quads), (1, 1));
}

#[test]
fn everything_reloads_after_a_context_loss() {
    let mut h = Harness::new(40, 24);
    let path = write_png("reload.png", &{
        let mut i = Image::new(4, 4, [200, 40, 40, 255]);
        i.put(0, 0, [0, 255, 0, 255]);
        i
    });
    let tex = h.renderer.load_texture(&path, TextureFilter::Nearest).unwrap();
    let draw = |r: &mut v12_render_gl::Renderer| {
        r.clear(ColorI::rgb(0, 0, 40));
        r.draw_bitmap(&tex, None, BitmapDst::Stretch(RectI::new(2, 2, 8, 8)), ColorI::WHITE);
        r.draw_text(12, Point2I::new(12, 4), "Ok\u{3}!", ColorI::WHITE, None).unwrap();
    };
    let before = h.frame(draw);
    let uploads_before = h.renderer.textures().stats().uploads;
    assert_eq!(before.get(2, 2), Some([0, 255, 0, 255]));

    // Lose the context: forget GL names, destroy it, make a new one, restore.
    h.renderer.on_context_lost();
    let (renderer, target, ctx) = (h.renderer, h.target, h.ctx);
    target.destroy(&ctx.gl());
    drop(ctx);
    let ctx2 = HeadlessContext::new().expect("second context");
    let target2 = OffscreenTarget::new(&ctx2.gl(), 40, 24).unwrap();
    let mut renderer = renderer;
    renderer.on_context_restored(ctx2.gl()).unwrap();
    // White texture, the particles' spot, the bitmap and the font atlas: all re-uploaded,
    // none re-read.
    let stats = renderer.textures().stats();
    assert_eq!(stats.uploads, uploads_before + 4);
    assert_eq!(stats.file_loads, 1);
    let mut h2 = Harness { renderer, target: target2, ctx: ctx2 };
    let after = h2.frame(draw);
    assert_eq!(before, after, "same picture after the reload");
}

/// Textures through the resource manager: a bitmap named without its extension, found as
/// `.bm8` (palettised) in a mod, drawn with its real colours, loaded once; a missing one is
/// an error that names it.
#[test]
fn textures_come_through_the_resource_manager_in_any_bitmap_format() {
    use std::rc::Rc;
    use v12_resource::{Bitmap, ResourceManager};
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("texture-mod");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("gui")).unwrap();
    let mut pixels = Vec::new();
    for i in 0..16u8 {
        pixels.extend_from_slice(&if i < 8 { [250, 10, 10, 255] } else { [10, 10, 250, 255] });
    }
    let bm8 = Bitmap::from_rgba(4, 4, pixels).unwrap().to_palettized(2).write_bm8();
    std::fs::write(dir.join("gui/Logo.bm8"), bm8).unwrap();
    let mut res = ResourceManager::new();
    res.add_mod(&dir).unwrap();
    res.register_bitmap_loaders();
    let res = Rc::new(res);

    let mut h = Harness::new(8, 8);
    h.renderer.set_resources(res.clone());
    let tex = h.renderer.load_texture("gui/logo", TextureFilter::Nearest).unwrap();
    assert_eq!((tex.width(), tex.height()), (4, 4));
    let again = h.renderer.load_texture("gui/logo", TextureFilter::Nearest).unwrap();
    assert_eq!(again, tex);
    assert_eq!(h.renderer.textures().stats().file_loads, 1);
    let img = h.frame(|r| {
        r.clear(ColorI::rgb(0, 0, 0));
        r.draw_bitmap(&tex, None, BitmapDst::Stretch(RectI::new(0, 0, 4, 4)), ColorI::WHITE);
    });
    assert_eq!(img.get(0, 0), Some([250, 10, 10, 255]), "top rows red");
    assert_eq!(img.get(0, 3), Some([10, 10, 250, 255]), "bottom rows blue");
    let e = h.renderer.load_texture("gui/nothing", TextureFilter::Nearest).unwrap_err();
    assert!(matches!(&e, RenderError::Resource(m) if m.contains("gui/nothing")), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
