//! Small 2D value types in V12's dgl terms: integer points and rects, 8-bit colours.

/// An integer screen point; (0,0) is the top-left pixel, +y goes down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Point2I {
    pub x: i32,
    pub y: i32,
}

impl Point2I {
    pub const fn new(x: i32, y: i32) -> Self {
        Point2I { x, y }
    }
}

/// An integer rectangle given by its top-left point and extent (V12's RectI).
///
/// It covers the half-open pixel range `[x, x+w) × [y, y+h)`; an empty extent covers nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RectI {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl RectI {
    pub const fn new(x: i32, y: i32, w: i32, h: i32) -> Self {
        RectI { x, y, w, h }
    }

    /// The rect whose inclusive corners are `a` and `b` (either order).
    pub fn from_corners(a: Point2I, b: Point2I) -> Self {
        let (x0, x1) = (a.x.min(b.x), a.x.max(b.x));
        let (y0, y1) = (a.y.min(b.y), a.y.max(b.y));
        RectI::new(x0, y0, x1 - x0 + 1, y1 - y0 + 1)
    }

    pub fn is_empty(&self) -> bool {
        self.w <= 0 || self.h <= 0
    }

    /// One past the right-most covered column.
    pub fn right(&self) -> i32 {
        self.x.saturating_add(self.w)
    }

    /// One past the bottom-most covered row.
    pub fn bottom(&self) -> i32 {
        self.y.saturating_add(self.h)
    }

    pub fn contains(&self, p: Point2I) -> bool {
        p.x >= self.x && p.x < self.right() && p.y >= self.y && p.y < self.bottom()
    }

    /// The overlap of two rects (empty, with zero extent, when they do not meet).
    pub fn intersect(&self, o: &RectI) -> RectI {
        let x0 = self.x.max(o.x);
        let y0 = self.y.max(o.y);
        let x1 = self.right().min(o.right());
        let y1 = self.bottom().min(o.bottom());
        if x1 <= x0 || y1 <= y0 { RectI::new(x0, y0, 0, 0) } else { RectI::new(x0, y0, x1 - x0, y1 - y0) }
    }
}

/// An 8-bit RGBA colour (V12's ColorI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ColorI {
    pub r: u8,
    pub g: u8,
    pub b: u8,
    pub a: u8,
}

impl ColorI {
    pub const WHITE: ColorI = ColorI::rgb(255, 255, 255);
    pub const BLACK: ColorI = ColorI::rgb(0, 0, 0);
    pub const TRANSPARENT: ColorI = ColorI::rgba(0, 0, 0, 0);

    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        ColorI { r, g, b, a: 255 }
    }

    pub const fn rgba(r: u8, g: u8, b: u8, a: u8) -> Self {
        ColorI { r, g, b, a }
    }

    /// The colour as floats in 0..=1, as GL wants them.
    pub fn to_f32(self) -> [f32; 4] {
        [self.r as f32 / 255.0, self.g as f32 / 255.0, self.b as f32 / 255.0, self.a as f32 / 255.0]
    }

    pub fn to_array(self) -> [u8; 4] {
        [self.r, self.g, self.b, self.a]
    }
}
