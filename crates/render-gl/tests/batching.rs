//! Draw lists executed by the renderer: batching into few draw calls, and the same pixels
//! whether batched or not.

mod common;

use common::Harness;
use v12_render_gl::{ColorI, DrawList, Image, Point2I, RectI, TextureFilter};

fn sprites(n: i32, tex: &str) -> DrawList {
    let mut dl = DrawList::new();
    dl.clear_color(ColorI::rgb(0, 0, 0));
    for i in 0..n {
        dl.draw_bitmap_sr(tex, Point2I::new((i * 7) % 60, (i * 5) % 40), RectI::new(i % 2, 0, 2, 2));
    }
    dl
}

#[test]
fn sprites_and_text_batch_into_few_draw_calls() {
    let mut h = Harness::new(64, 48);
    let _tex =
        h.renderer.insert_texture("sprite", Image::new(4, 4, [255, 128, 0, 255]), TextureFilter::Nearest);
    let dl = sprites(100, "sprite");
    h.frame(|r| r.execute(&dl));
    let s = h.renderer.stats();
    assert_eq!((s.draw_calls, s.quads, s.vertices), (1, 100, 600));

    let mut text = DrawList::new();
    text.draw_text(12, Point2I::new(0, 0), "abcdefghij", ColorI::WHITE);
    text.draw_text(12, Point2I::new(0, 20), "\u{3}klm\u{4}nop", ColorI::WHITE);
    h.frame(|r| r.execute(&text));
    let s = h.renderer.stats();
    assert_eq!((s.draw_calls, s.quads), (1, 16), "two runs of text, one atlas, one call");

    // A texture switch or a clip change starts a new batch.
    let mut mixed = DrawList::new();
    mixed.fill_rect(RectI::new(0, 0, 4, 4), ColorI::WHITE);
    mixed.fill_rect(RectI::new(4, 0, 4, 4), ColorI::WHITE);
    mixed.draw_bitmap("sprite", Point2I::new(10, 10));
    mixed.push_clip(RectI::new(0, 0, 32, 32));
    mixed.draw_bitmap("sprite", Point2I::new(20, 10));
    mixed.pop_clip();
    h.frame(|r| r.execute(&mixed));
    assert_eq!(h.renderer.stats().draw_calls, 3);
}

#[test]
fn unbatched_baseline_draws_the_same_pixels_with_one_call_each() {
    let mut h = Harness::new(64, 48);
    let _tex =
        h.renderer.insert_texture("sprite", Image::new(4, 4, [0, 200, 255, 255]), TextureFilter::Nearest);
    let mut dl = sprites(50, "sprite");
    dl.draw_text(12, Point2I::new(2, 30), "batch", ColorI::WHITE);
    let batched = h.frame(|r| r.execute(&dl));
    assert_eq!(h.renderer.stats().draw_calls, 2);
    h.renderer.set_batching(false);
    let unbatched = h.frame(|r| r.execute(&dl));
    assert_eq!(h.renderer.stats().draw_calls, 55);
    assert_eq!(batched, unbatched);
}
