//! Dirty rectangles (V12: "the Canvas maintains three dirty rectangles representing the
//! dirty state of each of the (up to) three buffers").
//!
//! Every change is added to the rect of every buffer; presenting a frame hands out the rect of
//! the buffer being drawn and clears only that one, because the other buffers still hold older
//! pictures. This stays correct when the host repaints everything each frame anyway: the rects
//! still say what changed, which tests and partial-present hosts rely on.

use crate::geom::union;
use v12_render_gl::RectI;

/// Up to three buffers' dirty rects.
#[derive(Debug, Clone)]
pub struct DirtyRects {
    rects: [RectI; 3],
    count: usize,
    current: usize,
}

impl DirtyRects {
    /// `buffers` is clamped to 1..=3 (1: a single back buffer that is copied, 2: double
    /// buffering, 3: triple buffering).
    pub fn new(buffers: usize) -> Self {
        DirtyRects { rects: [RectI::default(); 3], count: buffers.clamp(1, 3), current: 0 }
    }

    /// Marks `r` changed in every buffer.
    pub fn add(&mut self, r: RectI) {
        if r.is_empty() {
            return;
        }
        for x in &mut self.rects[..self.count] {
            *x = union(*x, r);
        }
    }

    /// What the buffer about to be drawn must repaint (empty: nothing).
    pub fn pending(&self) -> RectI {
        self.rects[self.current]
    }

    /// Takes the current buffer's rect for this frame and flips to the next buffer.
    pub fn present(&mut self) -> RectI {
        let r = std::mem::take(&mut self.rects[self.current]);
        self.current = (self.current + 1) % self.count;
        r
    }
}

impl Default for DirtyRects {
    fn default() -> Self {
        DirtyRects::new(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_buffer_keeps_changes_until_it_is_drawn() {
        let mut d = DirtyRects::new(2);
        d.add(RectI::new(0, 0, 10, 10));
        assert_eq!(d.present(), RectI::new(0, 0, 10, 10));
        // The second buffer has not seen that change yet.
        d.add(RectI::new(20, 20, 5, 5));
        assert_eq!(d.present(), RectI::new(0, 0, 25, 25));
        assert_eq!(d.present(), RectI::new(20, 20, 5, 5));
        assert!(d.present().is_empty());
        let mut one = DirtyRects::new(0);
        one.add(RectI::new(1, 1, 1, 1));
        one.add(RectI::new(0, 0, 0, 9));
        assert_eq!(one.present(), RectI::new(1, 1, 1, 1));
        assert!(one.present().is_empty());
    }
}
