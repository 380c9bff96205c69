//! CPU fonts for measuring text (render-gl's `Font`, no GL), one per pixel size.

use std::collections::HashMap;
use v12_render_gl::{Font, FontFace};

/// Fonts by pixel size, rasterized on first use. A size that fails to load falls back to a
/// fixed-width estimate so layout never fails.
#[derive(Debug, Default)]
pub struct Fonts {
    by_size: HashMap<u32, Option<Font>>,
    /// The face measured; the renderer must draw the same one (the embedded one by default).
    face: FontFace,
}

impl Fonts {
    pub fn new() -> Self {
        Fonts::default()
    }

    /// Measures in `face` from now on.
    pub fn set_face(&mut self, face: FontFace) {
        self.face = face;
        self.by_size.clear();
    }

    fn font(&mut self, size: u32) -> Option<&Font> {
        let face = &self.face;
        self.by_size
            .entry(size)
            .or_insert_with(|| match Font::with_face(face, size) {
                Ok(f) => Some(f),
                Err(e) => {
                    tracing::warn!("font size {size}: {e}; using fixed-width metrics");
                    None
                }
            })
            .as_ref()
    }

    /// Width in pixels of `text` (colour codes take no space).
    pub fn width(&mut self, size: u32, text: &str) -> i32 {
        match self.font(size) {
            Some(f) => f.str_width(text),
            None => (text.chars().filter(|c| !c.is_control()).count() as i32) * (size as i32 / 2),
        }
    }

    /// Line height in pixels.
    pub fn height(&mut self, size: u32) -> i32 {
        match self.font(size) {
            Some(f) => f.height(),
            None => size as i32 + 2,
        }
    }

    /// The char index in `text` nearest to `x` pixels from its start (for clicks in a field).
    pub fn index_at(&mut self, size: u32, text: &str, x: i32) -> usize {
        let chars: Vec<char> = text.chars().collect();
        let mut best = (0usize, i32::MAX);
        let mut prefix = String::new();
        for i in 0..=chars.len() {
            let w = self.width(size, &prefix);
            let d = (w - x).abs();
            if d < best.1 {
                best = (i, d);
            }
            if let Some(&c) = chars.get(i) {
                prefix.push(c);
            }
        }
        best.0
    }
}
