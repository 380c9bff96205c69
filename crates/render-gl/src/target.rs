//! An offscreen render target: a framebuffer object of fixed size with colour and depth,
//! read back as a top-left-origin [`Image`].
#![allow(unsafe_code)]

use crate::error::{RenderError, Result};
use crate::image::Image;
use glow::HasContext;

/// A fixed-size FBO (RGBA8 colour, 24-bit depth) that the renderer draws into headless.
#[derive(Debug)]
pub struct OffscreenTarget {
    fbo: glow::Framebuffer,
    color: glow::Renderbuffer,
    depth: glow::Renderbuffer,
    width: u32,
    height: u32,
}

impl OffscreenTarget {
    /// Creates the framebuffer and leaves it bound as the draw and read target.
    pub fn new(gl: &glow::Context, width: u32, height: u32) -> Result<Self> {
        if width == 0 || height == 0 || width > 16384 || height > 16384 {
            return Err(RenderError::Gl(format!("bad target size {width}x{height}")));
        }
        // SAFETY: plain object creation and storage allocation on the current context; all
        // names passed back in were created just above on the same context.
        unsafe {
            let fbo = gl.create_framebuffer().map_err(RenderError::Gl)?;
            let color = gl.create_renderbuffer().map_err(RenderError::Gl)?;
            let depth = gl.create_renderbuffer().map_err(RenderError::Gl)?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(color));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::RGBA8, width as i32, height as i32);
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(depth));
            gl.renderbuffer_storage(glow::RENDERBUFFER, glow::DEPTH24_STENCIL8, width as i32, height as i32);
            gl.bind_renderbuffer(glow::RENDERBUFFER, None);
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::RENDERBUFFER,
                Some(color),
            );
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::DEPTH_STENCIL_ATTACHMENT,
                glow::RENDERBUFFER,
                Some(depth),
            );
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                gl.bind_framebuffer(glow::FRAMEBUFFER, None);
                gl.delete_framebuffer(fbo);
                gl.delete_renderbuffer(color);
                gl.delete_renderbuffer(depth);
                return Err(RenderError::Gl(format!("framebuffer incomplete: 0x{status:x}")));
            }
            Ok(OffscreenTarget { fbo, color, depth, width, height })
        }
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// Binds this framebuffer for drawing and reading.
    pub fn bind(&self, gl: &glow::Context) {
        // SAFETY: `fbo` is a live framebuffer of this context.
        unsafe { gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo)) };
    }

    /// Reads the colour buffer back, flipped so row 0 is the top of the picture.
    pub fn read_pixels(&self, gl: &glow::Context) -> Result<Image> {
        let mut buf = vec![0u8; self.width as usize * self.height as usize * 4];
        // SAFETY: the buffer holds exactly width*height RGBA8 pixels and PACK_ALIGNMENT 1
        // means rows are tightly packed, so GL writes within it.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(self.fbo));
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            gl.read_pixels(
                0,
                0,
                self.width as i32,
                self.height as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut buf)),
            );
            let err = gl.get_error();
            if err != glow::NO_ERROR {
                return Err(RenderError::Gl(format!("glReadPixels error 0x{err:x}")));
            }
        }
        let mut img = Image::from_rgba(self.width, self.height, buf)?;
        img.flip_vertical();
        Ok(img)
    }

    /// Deletes the GL objects (they are not freed on drop because that needs the context).
    pub fn destroy(self, gl: &glow::Context) {
        // SAFETY: the names belong to this context and are not used after this call.
        unsafe {
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            gl.delete_framebuffer(self.fbo);
            gl.delete_renderbuffer(self.color);
            gl.delete_renderbuffer(self.depth);
        }
    }
}
