//! Fonts: an embedded TTF rasterized with ab_glyph at a fixed pixel size into an alpha atlas,
//! with kerning and the TorqueScript colour codes. CPU only, so the gui can measure text
//! without a GL context; the renderer uploads [`Font::atlas`] as a texture.
//!
//! Colour codes (TORQUESCRIPT.md): `\c0`..`\c6` are the bytes 0x02..0x08, `\c7` 0x0B, `\c8`
//! 0x0C, `\c9` 0x0E; they select entries 0..9 of a [`ColorTable`]. `\cr` (0x0F) goes back to
//! the colour the run started with, `\cp` (0x10) pushes the current colour and `\co` (0x11)
//! pops it. The tag marker 0x01 and other control characters draw nothing.

use crate::error::{RenderError, Result};
use crate::image::Image;
use crate::types::{ColorI, Point2I, RectI};
use ab_glyph::{Font as _, FontArc, PxScale, ScaleFont as _};
use std::collections::HashMap;

/// DejaVu Sans (Bitstream Vera licence, see `assets/LICENSE-DejaVu.txt`), cut down to
/// Latin-1 with its kerning table kept.
pub static DEFAULT_FONT_TTF: &[u8] = include_bytes!("../assets/DejaVuSans-Latin1.ttf");

/// Width of the glyph atlas in texels; its height grows with the font size.
const ATLAS_WIDTH: u32 = 512;

/// What a control character in a string does to the text colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorCode {
    /// Select entry 0..=9 of the colour table.
    Index(u8),
    /// Back to the colour the text started with.
    Reset,
    /// Save the current colour.
    Push,
    /// Restore the last saved colour.
    Pop,
}

impl ColorCode {
    /// Decodes a colour-code character, or `None` for anything else.
    pub fn from_char(c: char) -> Option<ColorCode> {
        Some(match c as u32 {
            n @ 0x02..=0x08 => ColorCode::Index((n - 0x02) as u8),
            0x0B => ColorCode::Index(7),
            0x0C => ColorCode::Index(8),
            0x0E => ColorCode::Index(9),
            0x0F => ColorCode::Reset,
            0x10 => ColorCode::Push,
            0x11 => ColorCode::Pop,
            _ => return None,
        })
    }

    /// The character that encodes this code in a string.
    pub fn to_char(self) -> char {
        let n = match self {
            ColorCode::Index(i @ 0..=6) => 0x02 + u32::from(i),
            ColorCode::Index(7) => 0x0B,
            ColorCode::Index(8) => 0x0C,
            ColorCode::Index(_) => 0x0E,
            ColorCode::Reset => 0x0F,
            ColorCode::Push => 0x10,
            ColorCode::Pop => 0x11,
        };
        char::from_u32(n).unwrap_or('\u{0F}')
    }
}

/// The text with its colour codes and other control characters removed.
pub fn strip_color_codes(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// The ten colours `\c0`..`\c9` select (a GuiControlProfile's font colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColorTable(pub [ColorI; 10]);

impl Default for ColorTable {
    /// White, red, green, blue, yellow, cyan, magenta, orange, grey, black.
    fn default() -> Self {
        ColorTable([
            ColorI::rgb(255, 255, 255),
            ColorI::rgb(255, 64, 64),
            ColorI::rgb(64, 255, 64),
            ColorI::rgb(80, 128, 255),
            ColorI::rgb(255, 255, 64),
            ColorI::rgb(64, 255, 255),
            ColorI::rgb(255, 64, 255),
            ColorI::rgb(255, 160, 32),
            ColorI::rgb(160, 160, 160),
            ColorI::rgb(0, 0, 0),
        ])
    }
}

/// Where one glyph sits in the atlas and relative to the pen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlyphInfo {
    /// Texels of the atlas holding the coverage (empty for blank glyphs such as space).
    pub atlas: RectI,
    /// From the pen on the baseline to the glyph's top-left pixel.
    pub offset: Point2I,
    /// How far the pen moves, in pixels (before kerning).
    pub advance: f32,
}

/// One glyph to draw: atlas texels to screen pixels, 1:1, in a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlyphQuad {
    pub src: RectI,
    pub dst: RectI,
    pub color: ColorI,
}

/// A typeface (a TTF or OTF file's glyphs), shared cheaply: the UI's face, loaded through the
/// resource manager (`register_font_loader`) or the embedded DejaVu Sans.
#[derive(Clone)]
pub struct FontFace(FontArc);

impl std::fmt::Debug for FontFace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FontFace").field("glyphs", &self.0.glyph_count()).finish()
    }
}

impl FontFace {
    /// The embedded DejaVu Sans (Latin-1).
    pub fn embedded() -> Self {
        FontFace(FontArc::try_from_slice(DEFAULT_FONT_TTF).expect("the embedded font parses"))
    }

    /// A TTF/OTF file's bytes.
    pub fn from_ttf(bytes: Vec<u8>) -> Result<Self> {
        FontArc::try_from_vec(bytes).map(FontFace).map_err(|e| RenderError::Font(e.to_string()))
    }
}

impl Default for FontFace {
    fn default() -> Self {
        FontFace::embedded()
    }
}

/// Registers `.ttf` and `.otf` files as [`FontFace`] resources.
pub fn register_font_loader(res: &mut v12_resource::ResourceManager) {
    for ext in ["ttf", "otf"] {
        res.register_loader::<FontFace>(ext, |bytes, _| {
            FontFace::from_ttf(bytes.to_vec()).map_err(|e| e.to_string())
        });
    }
}

/// A face at one pixel size: metrics, kerning and the rasterized Latin-1 atlas.
pub struct Font {
    face: FontArc,
    size_px: u32,
    ascent: i32,
    height: i32,
    glyphs: HashMap<char, GlyphInfo>,
    ids: HashMap<char, ab_glyph::GlyphId>,
    atlas: Image,
    colors: ColorTable,
}

impl std::fmt::Debug for Font {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Font").field("size_px", &self.size_px).field("glyphs", &self.glyphs.len()).finish()
    }
}

/// Chars rasterized into the atlas: printable ASCII and Latin-1.
fn atlas_chars() -> impl Iterator<Item = char> {
    (0x20u32..=0x7E).chain(0xA0..=0xFF).filter_map(char::from_u32)
}

impl Font {
    /// The embedded DejaVu Sans at `size_px` pixels (ascent + descent).
    pub fn new(size_px: u32) -> Result<Self> {
        let face = FontArc::try_from_slice(DEFAULT_FONT_TTF).map_err(|e| RenderError::Font(e.to_string()))?;
        Font::from_face(face, size_px)
    }

    /// `face` at `size_px` pixels.
    pub fn with_face(face: &FontFace, size_px: u32) -> Result<Self> {
        Font::from_face(face.0.clone(), size_px)
    }

    /// Any TTF/OTF file's bytes at `size_px` pixels.
    pub fn from_ttf(bytes: Vec<u8>, size_px: u32) -> Result<Self> {
        let face = FontArc::try_from_vec(bytes).map_err(|e| RenderError::Font(e.to_string()))?;
        Font::from_face(face, size_px)
    }

    fn from_face(face: FontArc, size_px: u32) -> Result<Self> {
        if !(4..=256).contains(&size_px) {
            return Err(RenderError::Font(format!("size {size_px} out of 4..=256")));
        }
        // PxScale is the height from ascent to descent, which is what callers ask for.
        let scale = PxScale::from(size_px as f32);
        let scaled = face.as_scaled(scale);
        let ascent = scaled.ascent().ceil() as i32;
        let height = (scaled.ascent() - scaled.descent()).ceil() as i32;

        // Rasterize every glyph, then shelf-pack them with a 1-texel gap.
        let mut raster: Vec<(char, u32, u32, Vec<u8>, Point2I, f32)> = Vec::new();
        let mut ids = HashMap::new();
        for c in atlas_chars() {
            let id = face.glyph_id(c);
            ids.insert(c, id);
            let advance = scaled.h_advance(id);
            let glyph = id.with_scale_and_position(scale, ab_glyph::point(0.0, 0.0));
            match face.outline_glyph(glyph) {
                Some(og) => {
                    let b = og.px_bounds();
                    let (w, h) = (b.width() as u32, b.height() as u32);
                    let mut cov = vec![0u8; (w * h) as usize];
                    og.draw(|x, y, v| {
                        if x < w && y < h {
                            cov[(y * w + x) as usize] = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                        }
                    });
                    raster.push((c, w, h, cov, Point2I::new(b.min.x as i32, b.min.y as i32), advance));
                }
                None => raster.push((c, 0, 0, Vec::new(), Point2I::default(), advance)),
            }
        }
        let (mut x, mut y, mut shelf) = (1u32, 1u32, 0u32);
        let mut placed = Vec::with_capacity(raster.len());
        for (c, w, h, cov, off, adv) in raster {
            if w == 0 || h == 0 {
                placed.push((c, RectI::default(), cov, off, adv));
                continue;
            }
            if x + w + 1 > ATLAS_WIDTH {
                x = 1;
                y += shelf + 1;
                shelf = 0;
            }
            placed.push((c, RectI::new(x as i32, y as i32, w as i32, h as i32), cov, off, adv));
            x += w + 1;
            shelf = shelf.max(h);
        }
        let atlas_h = (y + shelf + 1).next_power_of_two();
        let mut atlas = Image::new(ATLAS_WIDTH, atlas_h, [255, 255, 255, 0]);
        let mut glyphs = HashMap::new();
        for (c, r, cov, offset, advance) in placed {
            for gy in 0..r.h {
                for gx in 0..r.w {
                    let a = cov[(gy * r.w + gx) as usize];
                    atlas.put((r.x + gx) as u32, (r.y + gy) as u32, [255, 255, 255, a]);
                }
            }
            glyphs.insert(c, GlyphInfo { atlas: r, offset, advance });
        }
        Ok(Font { face, size_px, ascent, height, glyphs, ids, atlas, colors: ColorTable::default() })
    }

    pub fn size_px(&self) -> u32 {
        self.size_px
    }

    /// Line height in pixels.
    pub fn height(&self) -> i32 {
        self.height
    }

    /// Pixels from the top of a line to its baseline.
    pub fn baseline(&self) -> i32 {
        self.ascent
    }

    /// The alpha atlas (white RGB, coverage in alpha).
    pub fn atlas(&self) -> &Image {
        &self.atlas
    }

    pub fn glyph(&self, c: char) -> Option<&GlyphInfo> {
        self.glyphs.get(&c)
    }

    /// The default colour table for `\cN` codes.
    pub fn color_table(&self) -> &ColorTable {
        &self.colors
    }

    pub fn set_color_table(&mut self, colors: ColorTable) {
        self.colors = colors;
    }

    /// Horizontal kerning between two chars in pixels (usually negative, 0 when none).
    pub fn kerning(&self, a: char, b: char) -> f32 {
        match (self.ids.get(&a), self.ids.get(&b)) {
            (Some(&x), Some(&y)) => self.face.as_scaled(PxScale::from(self.size_px as f32)).kern(x, y),
            _ => 0.0,
        }
    }

    /// Glyph info for a drawable char; unknown chars draw as `?`, controls draw nothing.
    fn lookup(&self, c: char) -> Option<(char, &GlyphInfo)> {
        if c.is_control() {
            return None;
        }
        self.glyphs.get(&c).map(|g| (c, g)).or_else(|| self.glyphs.get(&'?').map(|g| ('?', g)))
    }

    /// Width in pixels of a string as drawn (colour codes take no space).
    pub fn str_width(&self, text: &str) -> i32 {
        let mut end = 0;
        self.layout(text, Point2I::default(), ColorI::WHITE, None, |_| {}, &mut end);
        end
    }

    /// Lays out a single line with its top-left at `origin`, calling `emit` for each visible
    /// glyph. `base` is the starting colour; `table` overrides the font's colour table.
    /// Returns through `end_x` the pen position after the last char, relative to `origin`.
    pub fn layout(
        &self,
        text: &str,
        origin: Point2I,
        base: ColorI,
        table: Option<&ColorTable>,
        mut emit: impl FnMut(GlyphQuad),
        end_x: &mut i32,
    ) {
        let table = table.unwrap_or(&self.colors);
        let mut color = base;
        let mut stack: Vec<ColorI> = Vec::new();
        let mut pen = 0.0f32;
        let mut prev: Option<char> = None;
        let baseline = origin.y + self.ascent;
        for c in text.chars() {
            if let Some(code) = ColorCode::from_char(c) {
                match code {
                    ColorCode::Index(i) => {
                        let t = table.0[usize::from(i).min(9)];
                        // The run's alpha applies to table colours too (fading text).
                        color = ColorI { a: ((u16::from(t.a) * u16::from(base.a)) / 255) as u8, ..t };
                    }
                    ColorCode::Reset => color = base,
                    ColorCode::Push => stack.push(color),
                    ColorCode::Pop => color = stack.pop().unwrap_or(base),
                }
                continue;
            }
            let c = if c == '\t' { ' ' } else { c };
            let Some((c, g)) = self.lookup(c) else { continue };
            if let Some(p) = prev {
                pen += self.kerning(p, c);
            }
            let x = origin.x + pen.round() as i32;
            if !g.atlas.is_empty() {
                emit(GlyphQuad {
                    src: g.atlas,
                    dst: RectI::new(x + g.offset.x, baseline + g.offset.y, g.atlas.w, g.atlas.h),
                    color,
                });
            }
            pen += g.advance;
            prev = Some(c);
        }
        *end_x = pen.round() as i32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_match_torquescript_bytes() {
        let bytes = [0x02u32, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0B, 0x0C, 0x0E];
        for (i, b) in bytes.iter().enumerate() {
            let c = char::from_u32(*b).unwrap();
            assert_eq!(ColorCode::from_char(c), Some(ColorCode::Index(i as u8)));
            assert_eq!(ColorCode::Index(i as u8).to_char(), c);
        }
        assert_eq!(ColorCode::from_char('\u{0F}'), Some(ColorCode::Reset));
        assert_eq!(ColorCode::from_char('\u{10}'), Some(ColorCode::Push));
        assert_eq!(ColorCode::from_char('\u{11}'), Some(ColorCode::Pop));
        assert_eq!(ColorCode::from_char('\n'), None);
        assert_eq!(ColorCode::from_char('a'), None);
        assert_eq!(strip_color_codes("\u{2}Hi\u{3} there\u{0F}"), "Hi there");
    }

    #[test]
    fn metrics_and_kerning() {
        let f = Font::new(16).unwrap();
        assert!(f.height() >= 16 && f.height() <= 20, "height {}", f.height());
        assert!(f.baseline() > 0 && f.baseline() < f.height());
        assert!(f.kerning('A', 'V') < 0.0, "DejaVu kerns AV");
        assert_eq!(f.kerning('l', 'l'), 0.0);
        // Colour codes take no space, and kerning makes "AV" narrower than A plus V.
        assert_eq!(f.str_width("\u{2}ab\u{0F}c"), f.str_width("abc"));
        let big = Font::new(48).unwrap();
        assert!(big.str_width("AV") < big.str_width("A") + big.str_width("V"));
        assert_eq!(f.str_width(""), 0);
        assert!(Font::new(1).is_err());
        assert!(Font::from_ttf(vec![1, 2, 3], 12).is_err());
    }

    #[test]
    fn layout_applies_colour_codes_push_pop_reset() {
        let f = Font::new(12).unwrap();
        let t = ColorTable::default();
        let base = ColorI::rgb(1, 2, 3);
        let mut colors = Vec::new();
        let mut end = 0;
        // a(base) \c1 b(red) \cp \c2 c(green) \co d(red) \cr e(base)
        let s = "a\u{3}b\u{10}\u{4}c\u{11}d\u{0F}e";
        f.layout(s, Point2I::new(10, 20), base, None, |q| colors.push(q.color), &mut end);
        assert_eq!(colors, vec![base, t.0[1], t.0[2], t.0[1], base]);
        let mut quads = Vec::new();
        f.layout("i", Point2I::new(10, 20), base, None, |q| quads.push(q), &mut end);
        let g = f.glyph('i').unwrap();
        assert_eq!(quads[0].dst.x, 10 + g.offset.x);
        assert_eq!(quads[0].dst.y, 20 + f.baseline() + g.offset.y);
        assert_eq!(quads[0].src, g.atlas);
    }
}
