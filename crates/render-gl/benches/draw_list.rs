//! Drawing N sprites / glyphs through a draw list, batched vs one draw call per primitive,
//! on the headless context (llvmpipe here). Each iteration is a whole frame including
//! glFinish, so the figures are frame times.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration;
use v12_render_gl::{
    ColorI, DrawList, HeadlessContext, Image, OffscreenTarget, Point2I, RectI, Renderer, TextureFilter,
};

const W: u32 = 640;
const H: u32 = 480;

fn frame(r: &mut Renderer, t: &OffscreenTarget, dl: &DrawList) {
    t.bind(r.gl());
    r.begin_frame(W, H);
    r.execute(dl);
    r.end_frame();
    r.finish();
}

fn bench(c: &mut Criterion) {
    let ctx = HeadlessContext::new().expect("headless EGL context");
    let target = OffscreenTarget::new(&ctx.gl(), W, H).expect("target");
    let mut r = Renderer::new(ctx.gl()).expect("renderer");
    let _sprite = r.insert_texture("sprite", Image::new(16, 16, [255, 160, 0, 255]), TextureFilter::Linear);

    for n in [1000u32] {
        let mut sprites = DrawList::new();
        sprites.clear_color(ColorI::BLACK);
        for i in 0..n as i32 {
            sprites.draw_bitmap_sr(
                "sprite",
                Point2I::new((i * 37) % 620, (i * 53) % 460),
                RectI::new(0, 0, 16, 16),
            );
        }
        let mut g = c.benchmark_group(format!("sprites_{n}"));
        g.throughput(Throughput::Elements(u64::from(n)));
        g.measurement_time(Duration::from_secs(3)).sample_size(20);
        r.set_batching(true);
        g.bench_function("batched", |b| b.iter(|| frame(&mut r, &target, &sprites)));
        r.set_batching(false);
        g.bench_function("baseline_unbatched", |b| b.iter(|| frame(&mut r, &target, &sprites)));
        r.set_batching(true);
        g.finish();

        let mut text = DrawList::new();
        text.clear_color(ColorI::BLACK);
        let line = "The quick brown \u{3}fox\u{0F} jumps over the lazy dog 0123456789";
        let glyphs: u32 = line.chars().filter(|c| !c.is_control() && *c != ' ').count() as u32;
        let lines = n.div_ceil(glyphs);
        for i in 0..lines as i32 {
            text.draw_text(14, Point2I::new(4, (i * 16) % 470), line, ColorI::WHITE);
        }
        let mut g = c.benchmark_group(format!("glyphs_{}", lines * glyphs));
        g.throughput(Throughput::Elements(u64::from(lines * glyphs)));
        g.measurement_time(Duration::from_secs(3)).sample_size(20);
        g.bench_function("batched", |b| b.iter(|| frame(&mut r, &target, &text)));
        r.set_batching(false);
        g.bench_function("baseline_unbatched", |b| b.iter(|| frame(&mut r, &target, &text)));
        r.set_batching(true);
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
