//! dgl 2D primitives on a real (headless llvmpipe) context: exact pixel rules and goldens.

mod common;

use common::{Harness, assert_exact_pixels, check_golden};
use v12_render_gl::draw_list::line_runs;
use v12_render_gl::{BitmapDst, ColorI, ColorTable, Image, Point2I, RectI, TextureFilter};

const BG: ColorI = ColorI::rgb(0, 0, 0);
const FG: ColorI = ColorI::rgb(255, 255, 255);
const W: [u8; 4] = [255, 255, 255, 255];
const K: [u8; 4] = [0, 0, 0, 255];

#[test]
fn filled_rect_covers_half_open_range() {
    let mut h = Harness::new(32, 24);
    let img = h.frame(|r| {
        r.clear(BG);
        r.fill_rect(RectI::new(3, 5, 10, 7), FG);
        // Empty and negative extents draw nothing.
        r.fill_rect(RectI::new(20, 2, 0, 5), FG);
        r.fill_rect(RectI::new(20, 2, 5, -1), FG);
    });
    assert_exact_pixels(&img, K, W, &|x, y| (3..13).contains(&x) && (5..12).contains(&y));
}

#[test]
fn rect_outline_covers_border_pixels_only() {
    let mut h = Harness::new(32, 24);
    let r0 = RectI::from_corners(Point2I::new(4, 3), Point2I::new(20, 15));
    assert_eq!(r0, RectI::new(4, 3, 17, 13));
    let img = h.frame(|r| {
        r.clear(BG);
        r.draw_rect(r0, FG);
        // Degenerate outlines: one pixel, a row and a column.
        r.draw_rect(RectI::new(25, 2, 1, 1), FG);
        r.draw_rect(RectI::new(24, 20, 5, 1), FG);
        r.draw_rect(RectI::new(30, 5, 1, 4), FG);
    });
    assert_exact_pixels(&img, K, W, &|x, y| {
        let border =
            ((x == 4 || x == 20) && (3..=15).contains(&y)) || ((y == 3 || y == 15) && (4..=20).contains(&x));
        border || (x, y) == (25, 2) || (y == 20 && (24..29).contains(&x)) || (x == 30 && (5..9).contains(&y))
    });
    // A translucent outline touches each pixel once: the corners are no darker than edges.
    let img = h.frame(|r| {
        r.clear(BG);
        r.draw_rect(RectI::new(2, 2, 6, 6), ColorI::rgba(255, 255, 255, 128));
    });
    assert_eq!(img.get(2, 2), img.get(4, 2));
    assert_eq!(img.get(7, 7), img.get(7, 4));
}

#[test]
fn lines_cover_bresenham_pixels_exactly() {
    let lines = [
        (Point2I::new(1, 1), Point2I::new(30, 1)),
        (Point2I::new(1, 3), Point2I::new(1, 22)),
        (Point2I::new(4, 4), Point2I::new(20, 10)),
        (Point2I::new(28, 22), Point2I::new(10, 6)),
        (Point2I::new(25, 4), Point2I::new(23, 20)),
    ];
    let mut want = std::collections::HashSet::new();
    for (a, b) in lines {
        line_runs(a, b, |r| {
            for y in r.y..r.bottom() {
                for x in r.x..r.right() {
                    want.insert((x, y));
                }
            }
        });
    }
    let mut h = Harness::new(32, 24);
    let img = h.frame(|r| {
        r.clear(BG);
        for (a, b) in lines {
            r.draw_line(a, b, FG);
        }
    });
    assert!(want.contains(&(4, 4)) && want.contains(&(20, 10)), "end points included");
    assert_exact_pixels(&img, K, W, &|x, y| want.contains(&(x, y)));
    check_golden("lines", &img);
}

#[test]
fn clip_stack_intersects_and_restores() {
    let mut h = Harness::new(32, 24);
    let img = h.frame(|r| {
        r.clear(BG);
        r.push_clip(RectI::new(4, 4, 20, 12));
        r.push_clip(RectI::new(10, 0, 30, 30)); // intersect -> (10,4)-(24,16)
        assert_eq!(r.clip_rect(), RectI::new(10, 4, 14, 12));
        r.fill_rect(RectI::new(0, 0, 32, 24), FG);
        r.pop_clip().unwrap();
        r.pop_clip().unwrap();
        assert!(r.pop_clip().is_err(), "underflow is an error");
        r.fill_rect(RectI::new(0, 20, 2, 2), FG); // whole screen again
    });
    assert_exact_pixels(&img, K, W, &|x, y| {
        ((10..24).contains(&x) && (4..16).contains(&y)) || ((0..2).contains(&x) && (20..22).contains(&y))
    });
}

/// A 4x4 checker of distinct colours so every texel is recognisable.
fn test_bitmap() -> Image {
    let mut img = Image::new(4, 4, [0; 4]);
    for y in 0..4u32 {
        for x in 0..4u32 {
            img.put(x, y, [(x * 60 + 15) as u8, (y * 60 + 15) as u8, 200, 255]);
        }
    }
    img
}

#[test]
fn bitmaps_plain_stretched_and_sub_region() {
    let mut h = Harness::new(48, 32);
    let src = test_bitmap();
    let tex = h.renderer.insert_texture("checker", src.clone(), TextureFilter::Nearest).unwrap();
    let img = h.frame(|r| {
        r.clear(BG);
        r.draw_bitmap(&tex, None, BitmapDst::At(Point2I::new(1, 1)), ColorI::WHITE);
        r.draw_bitmap(&tex, None, BitmapDst::Stretch(RectI::new(8, 1, 8, 8)), ColorI::WHITE);
        r.draw_bitmap(&tex, Some(RectI::new(1, 2, 2, 2)), BitmapDst::At(Point2I::new(20, 1)), ColorI::WHITE);
        r.draw_bitmap(
            &tex,
            Some(RectI::new(2, 0, 2, 1)),
            BitmapDst::Stretch(RectI::new(24, 1, 8, 4)),
            ColorI::WHITE,
        );
        // Modulated: half red.
        r.draw_bitmap(&tex, None, BitmapDst::At(Point2I::new(1, 12)), ColorI::rgb(255, 0, 0));
    });
    for y in 0..4 {
        for x in 0..4 {
            // Plain: texel for texel.
            assert_eq!(img.get(1 + x, 1 + y), src.get(x, y));
            // Stretched x2 with nearest: each texel is a 2x2 block.
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                assert_eq!(img.get(8 + 2 * x + dx, 1 + 2 * y + dy), src.get(x, y));
            }
            let p = src.get(x, y).unwrap();
            assert_eq!(img.get(1 + x, 12 + y), Some([p[0], 0, 0, 255]));
        }
    }
    // Sub-region: texels (1..3, 2..4) at (20,1).
    for y in 0..2 {
        for x in 0..2 {
            assert_eq!(img.get(20 + x, 1 + y), src.get(1 + x, 2 + y));
        }
    }
    assert_eq!(img.get(22, 1), Some(K), "sub-region stops at its width");
    // Stretched sub-region: texels (2,0),(3,0) each 4x4.
    assert_eq!(img.get(24, 1), src.get(2, 0));
    assert_eq!(img.get(27, 4), src.get(2, 0));
    assert_eq!(img.get(28, 1), src.get(3, 0));
    assert_eq!(img.get(31, 4), src.get(3, 0));
    assert_eq!(img.get(24, 5), Some(K));
    check_golden("bitmaps", &img);
}

#[test]
fn bitmap_linear_stretch_golden() {
    let mut h = Harness::new(64, 32);
    let tex = h.renderer.insert_texture("checker-linear", test_bitmap(), TextureFilter::Linear).unwrap();
    let img = h.frame(|r| {
        r.clear(ColorI::rgb(20, 20, 20));
        r.draw_bitmap(&tex, None, BitmapDst::Stretch(RectI::new(0, 0, 32, 32)), ColorI::WHITE);
        r.draw_bitmap(
            &tex,
            Some(RectI::new(0, 0, 2, 2)),
            BitmapDst::Stretch(RectI::new(36, 4, 24, 24)),
            ColorI::WHITE,
        );
    });
    // 1:1 sampling at texel centres is exact even with linear filtering.
    check_golden("bitmaps_linear", &img);
}

#[test]
fn text_with_colour_codes() {
    let mut h = Harness::new(200, 64);
    let table = ColorTable::default();
    let mut end = 0;
    let img = h.frame(|r| {
        r.clear(ColorI::rgb(16, 16, 32));
        // "Plain " in the base colour, "red" via \c1, back with \cr.
        end =
            r.draw_text(16, Point2I::new(4, 4), "Plain \u{3}red\u{0F} AV Wave", ColorI::WHITE, None).unwrap();
        r.draw_text(
            12,
            Point2I::new(4, 30),
            "\u{4}green\u{10}\u{5}blue\u{11}green",
            ColorI::WHITE,
            Some(&table),
        )
        .unwrap();
        r.draw_text(20, Point2I::new(4, 42), "Tribes 2: V12", ColorI::rgb(255, 200, 64), None).unwrap();
    });
    check_golden("text", &img);
    let font = h.renderer.font(16).unwrap();
    assert_eq!(end, 4 + font.str_width("Plain red AV Wave"));
    // The word "red" has red pixels and no white ones; "Plain" has white ones.
    let red_x0 = 4 + font.str_width("Plain ");
    let red_x1 = 4 + font.str_width("Plain red");
    let (mut red, mut white_in_red) = (0, 0);
    for y in 4..24 {
        for x in red_x0..red_x1 {
            let p = img.get(x as u32, y).unwrap();
            if p[0] > 200 && p[1] < 90 {
                red += 1;
            }
            if p[0] > 200 && p[1] > 200 && p[2] > 200 {
                white_in_red += 1;
            }
        }
    }
    assert!(red > 10 && white_in_red == 0, "red {red}, white {white_in_red}");
    let white_in_plain = (4..24)
        .flat_map(|y| (4..red_x0).map(move |x| (x as u32, y)))
        .filter(|&(x, y)| img.get(x, y).unwrap().iter().all(|&c| c > 200))
        .count();
    assert!(white_in_plain > 10, "white {white_in_plain}");
}

#[test]
fn primitives_overview_golden() {
    let mut h = Harness::new(96, 64);
    let img = h.frame(|r| {
        r.clear(ColorI::rgb(30, 30, 40));
        r.fill_rect(RectI::new(4, 4, 40, 24), ColorI::rgb(200, 60, 60));
        r.fill_rect(RectI::new(24, 14, 40, 24), ColorI::rgba(60, 60, 220, 160));
        r.draw_rect(RectI::new(2, 2, 92, 60), ColorI::rgb(240, 240, 240));
        r.push_clip(RectI::new(50, 30, 40, 28));
        for i in 0..12 {
            r.draw_line(Point2I::new(40, 30 + i * 3), Point2I::new(95, 60 - i * 2), ColorI::rgb(80, 220, 80));
        }
        r.pop_clip().unwrap();
        r.draw_text(12, Point2I::new(6, 44), "\u{5}dgl\u{0F} ok", ColorI::WHITE, None).unwrap();
    });
    check_golden("primitives", &img);
}

/// A UI face loaded through the resource manager (`.ttf` as a `FontFace` resource) draws the
/// text; here the file holds the embedded face's bytes, so the frame is pixel for pixel the
/// embedded face's. A file that is not a font is an error naming it.
#[test]
fn a_font_face_comes_through_the_resource_manager() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("font-mod");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("fonts")).unwrap();
    std::fs::write(dir.join("fonts/Face.ttf"), v12_render_gl::DEFAULT_FONT_TTF).unwrap();
    std::fs::write(dir.join("fonts/Broken.ttf"), b"not a font").unwrap();
    let mut res = v12_resource::ResourceManager::new();
    res.add_mod(&dir).unwrap();
    v12_render_gl::register_font_loader(&mut res);
    let face = res.load::<v12_render_gl::FontFace>("fonts/face.ttf").unwrap();
    let e = res.load::<v12_render_gl::FontFace>("fonts/broken.ttf").unwrap_err();
    assert!(e.to_string().contains("fonts/broken.ttf"), "{e}");

    let draw = |r: &mut v12_render_gl::Renderer| {
        r.clear(ColorI::rgb(16, 16, 32));
        r.draw_text(20, Point2I::new(4, 8), "Tribes 2: V12", ColorI::rgb(255, 200, 64), None).unwrap();
    };
    let mut h = Harness::new(160, 40);
    let embedded = h.frame(draw);
    h.renderer.set_font_face((*face).clone());
    let loaded = h.frame(draw);
    assert_eq!(embedded.pixels(), loaded.pixels());
    assert!(embedded.pixels().chunks(4).any(|p| p[0] > 200 && p[1] > 150), "the text was drawn");
    let _ = std::fs::remove_dir_all(&dir);
}
