//! One frame of the client drawn headless (EGL surfaceless on Mesa) into an image.

use v12_render_gl::{DrawList, FrameStats, HeadlessContext, Image, OffscreenTarget, RenderError, Renderer};

/// A headless context, a fixed-size framebuffer and a renderer.
pub struct HeadlessFrame {
    pub renderer: Renderer,
    pub target: OffscreenTarget,
    ctx: HeadlessContext,
}

impl std::fmt::Debug for HeadlessFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeadlessFrame").field("flavor", &self.ctx.flavor()).finish_non_exhaustive()
    }
}

impl HeadlessFrame {
    pub fn new(width: u32, height: u32) -> Result<Self, RenderError> {
        let ctx = HeadlessContext::new()?;
        let gl = ctx.gl();
        let target = OffscreenTarget::new(&gl, width, height)?;
        let renderer = Renderer::new(gl)?;
        Ok(HeadlessFrame { renderer, target, ctx })
    }

    /// Executes the list into the framebuffer and waits for the GPU (so timings are honest).
    pub fn draw(&mut self, list: &DrawList) -> FrameStats {
        self.target.bind(self.renderer.gl());
        self.renderer.begin_frame(self.target.width(), self.target.height());
        self.renderer.execute(list);
        let stats = self.renderer.end_frame();
        self.renderer.finish();
        stats
    }

    /// Draws and reads the frame back (top-left origin).
    pub fn capture(&mut self, list: &DrawList) -> Result<(Image, FrameStats), RenderError> {
        let stats = self.draw(list);
        let img = self.target.read_pixels(self.renderer.gl())?;
        Ok((img, stats))
    }
}
