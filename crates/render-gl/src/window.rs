//! A winit window with a GL surface (glutin: EGL or GLX on X11, WGL on Windows).
//!
//! Asks for GL 3.3 core first and GLES 3.0 second, like the headless context, so the same
//! renderer and shaders run in both. Built only with the `window` cargo feature.
#![allow(unsafe_code)]

use crate::error::{RenderError, Result};
use glutin::config::{ConfigTemplateBuilder, GlConfig};
use glutin::context::{
    ContextApi, ContextAttributesBuilder, GlProfile, NotCurrentGlContext, PossiblyCurrentContext, Version,
};
use glutin::display::{GetGlDisplay, GlDisplay};
use glutin::surface::{GlSurface, Surface, SwapInterval, WindowSurface};
use glutin_winit::{DisplayBuilder, GlWindow as _};
use std::ffi::CString;
use std::num::NonZeroU32;
use std::rc::Rc;
use winit::event_loop::ActiveEventLoop;
use winit::raw_window_handle::HasWindowHandle;
use winit::window::{Window, WindowAttributes};

/// A window, its GL surface and a current context.
pub struct GlWindow {
    // Field order is drop order: the surface and context go before the window.
    surface: Surface<WindowSurface>,
    context: PossiblyCurrentContext,
    gl: Rc<glow::Context>,
    window: Window,
}

impl std::fmt::Debug for GlWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlWindow").field("size", &self.size()).finish_non_exhaustive()
    }
}

fn werr(what: &str) -> impl Fn(&dyn std::fmt::Display) -> RenderError + '_ {
    move |e| RenderError::Window(format!("{what}: {e}"))
}

impl GlWindow {
    /// Opens a window (call from `ApplicationHandler::resumed`) and makes its context current.
    pub fn new(event_loop: &ActiveEventLoop, attributes: WindowAttributes) -> Result<Self> {
        let template = ConfigTemplateBuilder::new().with_alpha_size(8).with_depth_size(24);
        let (window, config) = DisplayBuilder::new()
            .with_window_attributes(Some(attributes.clone()))
            .build(event_loop, template, |configs| {
                // Prefer no multisampling: dgl's pixel rules assume one sample per pixel.
                configs
                    .reduce(|a, b| if b.num_samples() < a.num_samples() { b } else { a })
                    .expect("the GL display offered no framebuffer config")
            })
            .map_err(|e| werr("display")(&e))?;
        let display = config.display();
        let raw = window.as_ref().and_then(|w| w.window_handle().ok()).map(|h| h.as_raw());
        let attempts = [
            ContextAttributesBuilder::new()
                .with_profile(GlProfile::Core)
                .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
                .build(raw),
            ContextAttributesBuilder::new()
                .with_context_api(ContextApi::Gles(Some(Version::new(3, 0))))
                .build(raw),
        ];
        let mut not_current = None;
        for attrs in &attempts {
            // SAFETY: `raw` is the handle of the window created above, which outlives the
            // context (it is dropped last).
            match unsafe { display.create_context(&config, attrs) } {
                Ok(c) => {
                    not_current = Some(c);
                    break;
                }
                Err(e) => tracing::debug!(error = %e, "window context attempt failed"),
            }
        }
        let not_current =
            not_current.ok_or_else(|| RenderError::Window("no GL 3.3 or GLES 3.0 context".into()))?;
        let window = match window {
            Some(w) => w,
            None => glutin_winit::finalize_window(event_loop, attributes, &config)
                .map_err(|e| werr("window")(&e))?,
        };
        let surface_attrs =
            window.build_surface_attributes(Default::default()).map_err(|e| werr("surface")(&e))?;
        // SAFETY: the surface is for `window`, which outlives it (field drop order).
        let surface = unsafe { display.create_window_surface(&config, &surface_attrs) }
            .map_err(|e| werr("surface")(&e))?;
        let context = not_current.make_current(&surface).map_err(|e| werr("make current")(&e))?;
        if let Err(e) = surface.set_swap_interval(&context, SwapInterval::Wait(NonZeroU32::MIN)) {
            tracing::debug!(error = %e, "vsync not available");
        }
        // SAFETY: the loader returns entry points of the context made current above.
        let gl = unsafe {
            glow::Context::from_loader_function(|name| {
                CString::new(name).map_or(std::ptr::null(), |n| display.get_proc_address(&n))
            })
        };
        Ok(GlWindow { surface, context, gl: Rc::new(gl), window })
    }

    pub fn gl(&self) -> Rc<glow::Context> {
        self.gl.clone()
    }

    pub fn window(&self) -> &Window {
        &self.window
    }

    /// The drawable size in pixels.
    pub fn size(&self) -> (u32, u32) {
        let s = self.window.inner_size();
        (s.width, s.height)
    }

    /// Resizes the surface to the window (call on `WindowEvent::Resized`).
    pub fn resize(&self) {
        let (w, h) = self.size();
        if let (Some(w), Some(h)) = (NonZeroU32::new(w), NonZeroU32::new(h)) {
            self.surface.resize(&self.context, w, h);
        }
    }

    /// Binds the window's default framebuffer for drawing.
    pub fn bind(&self) {
        // SAFETY: binding framebuffer 0 (the window surface) on this window's context.
        unsafe { glow::HasContext::bind_framebuffer(&*self.gl, glow::FRAMEBUFFER, None) };
    }

    /// Vertical sync on (wait for the display's refresh at each swap) or off.
    pub fn set_vsync(&self, on: bool) -> Result<()> {
        let interval = if on { SwapInterval::Wait(NonZeroU32::MIN) } else { SwapInterval::DontWait };
        self.surface.set_swap_interval(&self.context, interval).map_err(|e| werr("vsync")(&e))
    }

    /// Full screen (borderless, on the window's monitor) or windowed.
    pub fn set_fullscreen(&self, on: bool) {
        let mode = on.then_some(winit::window::Fullscreen::Borderless(None));
        self.window.set_fullscreen(mode);
    }

    /// True while the window is full screen.
    pub fn is_fullscreen(&self) -> bool {
        self.window.fullscreen().is_some()
    }

    /// Reads the window's back buffer (what the last frame drew, before its swap), row 0 at
    /// the top.
    pub fn read_pixels(&self) -> Result<crate::Image> {
        let (w, h) = self.size();
        let mut buf = vec![0u8; w as usize * h as usize * 4];
        // SAFETY: the buffer holds exactly w*h RGBA8 pixels and PACK_ALIGNMENT 1 packs rows
        // tightly, so GL writes within it; framebuffer 0 is this window's surface.
        unsafe {
            use glow::HasContext;
            self.gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            self.gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            self.gl.read_pixels(
                0,
                0,
                w as i32,
                h as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut buf)),
            );
            let err = self.gl.get_error();
            if err != glow::NO_ERROR {
                return Err(RenderError::Gl(format!("glReadPixels error 0x{err:x}")));
            }
        }
        let mut img = crate::Image::from_rgba(w, h, buf)?;
        img.flip_vertical();
        Ok(img)
    }

    /// Presents the frame.
    pub fn swap_buffers(&self) -> Result<()> {
        self.surface.swap_buffers(&self.context).map_err(|e| werr("swap")(&e))
    }
}
