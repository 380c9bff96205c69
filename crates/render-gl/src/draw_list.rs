//! Backend-neutral draw lists: what the gui records and the renderer executes.
//!
//! Nothing here touches GL, so the gui can build and assert on draw lists without a context.
//! Textures are named (a file path or a name given to the texture manager) and fonts are
//! named by pixel size, so a list is plain data that can be compared, logged or replayed.
//!
//! Pixel rules (all in screen pixels, (0,0) top left, +y down):
//! - `FillRect { rect }` covers exactly `[x, x+w) × [y, y+h)`.
//! - `Rect { rect }` (an outline) covers exactly the border pixels of that same area: rows
//!   `y` and `y+h-1` over columns `x..=x+w-1`, and columns `x` and `x+w-1` in between; each
//!   pixel once (so translucent outlines have no darker corners). Use
//!   [`RectI::from_corners`] for V12's inclusive `dglDrawRect(upperL, lowerR)`.
//! - `Line { from, to }` covers exactly the pixels Bresenham's algorithm visits from `from`
//!   to `to`, both ends included.
//! - Bitmaps and glyphs map texels to pixels 1:1 when not stretched.

use crate::camera::Camera;
use crate::font::ColorTable;
use crate::scene::Scene;
use crate::types::{ColorI, Point2I, RectI};
use std::sync::Arc;

/// Where a bitmap goes: at a point at its source size, or stretched to a rect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitmapDst {
    At(Point2I),
    Stretch(RectI),
}

/// One drawing operation.
#[derive(Debug, Clone, PartialEq)]
pub enum DrawCommand {
    /// Fill the current clip area with a colour (depth too).
    Clear(ColorI),
    FillRect {
        rect: RectI,
        color: ColorI,
    },
    /// A one-pixel outline.
    Rect {
        rect: RectI,
        color: ColorI,
    },
    Line {
        from: Point2I,
        to: Point2I,
        color: ColorI,
    },
    /// `src` is a texel sub-region (`None`: the whole texture); `modulate` tints it.
    Bitmap {
        texture: Arc<str>,
        src: Option<RectI>,
        dst: BitmapDst,
        modulate: ColorI,
    },
    /// A single line of text with its top-left at `pos`, in the embedded font at `size_px`;
    /// colour codes index `colors` (or the font's table when `None`).
    Text {
        size_px: u32,
        pos: Point2I,
        text: String,
        color: ColorI,
        colors: Option<ColorTable>,
    },
    /// Intersect the clip rect with this one (pushed on a stack).
    PushClip(RectI),
    PopClip,
    /// Render a 3D scene into a viewport (clipped to it and the current clip).
    View3d {
        viewport: RectI,
        camera: Camera,
        scene: Arc<Scene>,
    },
}

/// An ordered list of draw commands with dgl-style builder methods.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DrawList {
    pub commands: Vec<DrawCommand>,
}

impl DrawList {
    pub fn new() -> Self {
        DrawList::default()
    }

    pub fn len(&self) -> usize {
        self.commands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    pub fn clear(&mut self) {
        self.commands.clear();
    }

    pub fn push(&mut self, cmd: DrawCommand) {
        self.commands.push(cmd);
    }

    pub fn clear_color(&mut self, color: ColorI) {
        self.push(DrawCommand::Clear(color));
    }

    pub fn fill_rect(&mut self, rect: RectI, color: ColorI) {
        self.push(DrawCommand::FillRect { rect, color });
    }

    pub fn draw_rect(&mut self, rect: RectI, color: ColorI) {
        self.push(DrawCommand::Rect { rect, color });
    }

    pub fn draw_line(&mut self, from: Point2I, to: Point2I, color: ColorI) {
        self.push(DrawCommand::Line { from, to, color });
    }

    /// dglDrawBitmap: the whole texture at its size.
    pub fn draw_bitmap(&mut self, texture: &str, at: Point2I) {
        self.bitmap(texture, None, BitmapDst::At(at), ColorI::WHITE);
    }

    /// dglDrawBitmapStretch: the whole texture scaled to `dst`.
    pub fn draw_bitmap_stretch(&mut self, texture: &str, dst: RectI) {
        self.bitmap(texture, None, BitmapDst::Stretch(dst), ColorI::WHITE);
    }

    /// dglDrawBitmapSR: a texel sub-region at its size.
    pub fn draw_bitmap_sr(&mut self, texture: &str, at: Point2I, src: RectI) {
        self.bitmap(texture, Some(src), BitmapDst::At(at), ColorI::WHITE);
    }

    /// dglDrawBitmapStretchSR: a texel sub-region scaled to `dst`.
    pub fn draw_bitmap_stretch_sr(&mut self, texture: &str, dst: RectI, src: RectI) {
        self.bitmap(texture, Some(src), BitmapDst::Stretch(dst), ColorI::WHITE);
    }

    /// Any bitmap draw with a tint.
    pub fn bitmap(&mut self, texture: &str, src: Option<RectI>, dst: BitmapDst, modulate: ColorI) {
        self.push(DrawCommand::Bitmap { texture: Arc::from(texture), src, dst, modulate });
    }

    pub fn draw_text(&mut self, size_px: u32, pos: Point2I, text: &str, color: ColorI) {
        self.push(DrawCommand::Text { size_px, pos, text: text.to_owned(), color, colors: None });
    }

    pub fn draw_text_colors(
        &mut self,
        size_px: u32,
        pos: Point2I,
        text: &str,
        color: ColorI,
        colors: ColorTable,
    ) {
        self.push(DrawCommand::Text { size_px, pos, text: text.to_owned(), color, colors: Some(colors) });
    }

    pub fn push_clip(&mut self, rect: RectI) {
        self.push(DrawCommand::PushClip(rect));
    }

    pub fn pop_clip(&mut self) {
        self.push(DrawCommand::PopClip);
    }

    pub fn view_3d(&mut self, viewport: RectI, camera: Camera, scene: Arc<Scene>) {
        self.push(DrawCommand::View3d { viewport, camera, scene });
    }
}

/// The pixels of a Bresenham line from `a` to `b` inclusive, merged into runs: each item is
/// a 1-pixel-high horizontal run or a 1-pixel-wide vertical run, as a rect.
pub fn line_runs(a: Point2I, b: Point2I, mut emit: impl FnMut(RectI)) {
    let (dx, dy) = ((b.x as i64 - a.x as i64).abs(), -(b.y as i64 - a.y as i64).abs());
    let (sx, sy) = (if a.x < b.x { 1 } else { -1 }, if a.y < b.y { 1 } else { -1 });
    let horizontal = dx >= -dy;
    let (mut x, mut y) = (a.x as i64, a.y as i64);
    let mut err = dx + dy;
    // Current run: start pixel and length along the major axis.
    let (mut rx, mut ry, mut len) = (x, y, 0i64);
    let flush = |rx: i64, ry: i64, len: i64, emit: &mut dyn FnMut(RectI)| {
        if len == 0 {
            return;
        }
        let r = if horizontal {
            let x0 = if sx > 0 { rx } else { rx - len + 1 };
            RectI::new(x0 as i32, ry as i32, len as i32, 1)
        } else {
            let y0 = if sy > 0 { ry } else { ry - len + 1 };
            RectI::new(rx as i32, y0 as i32, 1, len as i32)
        };
        emit(r);
    };
    loop {
        let same_run = if horizontal { y == ry } else { x == rx };
        if !same_run {
            flush(rx, ry, len, &mut emit);
            (rx, ry, len) = (x, y, 0);
        }
        len += 1;
        if x == b.x as i64 && y == b.y as i64 {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
    flush(rx, ry, len, &mut emit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn pixels(a: Point2I, b: Point2I) -> (BTreeSet<(i32, i32)>, usize) {
        let mut set = BTreeSet::new();
        let mut count = 0;
        line_runs(a, b, |r| {
            for y in r.y..r.bottom() {
                for x in r.x..r.right() {
                    count += 1;
                    set.insert((x, y));
                }
            }
        });
        (set, count)
    }

    #[test]
    fn line_runs_cover_bresenham_pixels_once() {
        let (s, n) = pixels(Point2I::new(0, 0), Point2I::new(4, 0));
        assert_eq!((s.len(), n), (5, 5));
        let (s, _) = pixels(Point2I::new(2, 5), Point2I::new(2, 1));
        assert_eq!(s, (1..=5).map(|y| (2, y)).collect());
        let (s, _) = pixels(Point2I::new(0, 0), Point2I::new(3, 3));
        assert_eq!(s, [(0, 0), (1, 1), (2, 2), (3, 3)].into_iter().collect());
        let (s, n) = pixels(Point2I::new(0, 0), Point2I::new(7, 2));
        assert_eq!(s.len(), 8);
        assert_eq!(n, 8);
        assert!(s.contains(&(0, 0)) && s.contains(&(7, 2)));
        // Reversed lines cover the same count with both ends.
        let (s, _) = pixels(Point2I::new(7, 2), Point2I::new(0, 0));
        assert_eq!(s.len(), 8);
        assert!(s.contains(&(0, 0)) && s.contains(&(7, 2)));
        let (s, _) = pixels(Point2I::new(3, 3), Point2I::new(3, 3));
        assert_eq!(s, [(3, 3)].into_iter().collect());
        let (s, _) = pixels(Point2I::new(0, 10), Point2I::new(3, 0));
        assert_eq!(s.len(), 11);
    }

    #[test]
    fn builder_records_commands_in_order() {
        let mut dl = DrawList::new();
        dl.push_clip(RectI::new(0, 0, 10, 10));
        dl.draw_bitmap_sr("a.png", Point2I::new(1, 2), RectI::new(0, 0, 4, 4));
        dl.draw_text(14, Point2I::new(0, 0), "hi", ColorI::WHITE);
        dl.pop_clip();
        assert_eq!(dl.len(), 4);
        assert_eq!(
            dl.commands[1],
            DrawCommand::Bitmap {
                texture: Arc::from("a.png"),
                src: Some(RectI::new(0, 0, 4, 4)),
                dst: BitmapDst::At(Point2I::new(1, 2)),
                modulate: ColorI::WHITE
            }
        );
    }
}
