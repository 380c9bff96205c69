//! A headless GL context: EGL on Mesa's surfaceless platform (llvmpipe when there is no GPU).
//!
//! Desktop GL 3.3 core is asked for first and GLES 3.0 second; the renderer's shaders are
//! written for both. No window system and no display server are needed, so tests and the
//! `--headless --screenshot` client can render anywhere libEGL is installed (loaded at run
//! time, so building needs no EGL development package).
#![allow(unsafe_code)]

use crate::error::{RenderError, Result};
use std::rc::Rc;

/// `EGL_PLATFORM_SURFACELESS_MESA` from EGL_MESA_platform_surfaceless.
const PLATFORM_SURFACELESS_MESA: khronos_egl::Enum = 0x31DD;

type Egl = khronos_egl::DynamicInstance<khronos_egl::EGL1_5>;

/// Which GL flavour a context speaks; shaders pick their `#version` line from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlFlavor {
    /// Desktop OpenGL 3.3 core profile.
    Core33,
    /// OpenGL ES 3.0.
    Es30,
}

/// A current EGL context with no surface. Render into an [`crate::OffscreenTarget`].
///
/// The context is made current on the creating thread and must stay there (the type is not
/// `Send`). Dropping it destroys the context; the EGL display is left initialised because
/// other contexts on other threads may share it.
pub struct HeadlessContext {
    egl: Egl,
    display: khronos_egl::Display,
    context: khronos_egl::Context,
    gl: Rc<glow::Context>,
    flavor: GlFlavor,
}

impl std::fmt::Debug for HeadlessContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeadlessContext").field("flavor", &self.flavor).finish_non_exhaustive()
    }
}

/// The names libEGL is looked for under, in order: glvnd's (or Mesa's) runtime library, then
/// the development symlink.
const EGL_NAMES: [&str; 2] = ["libEGL.so.1", "libEGL.so"];

/// Loads the first of `names` that opens as an EGL 1.5 library; the error names every name
/// tried, why each failed, and which package provides the library.
fn load_egl(names: &[&str]) -> Result<Egl> {
    let mut tried = Vec::new();
    for name in names {
        // SAFETY: loading libEGL runs its initialisers; it is the system's EGL library and
        // khronos-egl checks every required 1.5 entry point is present before returning.
        match unsafe { Egl::load_required_from_filename(name) } {
            Ok(egl) => return Ok(egl),
            Err(e) => tried.push(format!("{name}: {e}")),
        }
    }
    Err(RenderError::Egl(format!(
        "cannot load libEGL: looked for {} ({}). Install it: on Debian or Ubuntu the package \
         libegl1 (glvnd's libEGL.so.1, which loads Mesa's EGL, or the GPU driver's EGL \
         through glvnd)",
        names.join(" and "),
        tried.join("; ")
    )))
}

fn egl_err(what: &str) -> impl Fn(khronos_egl::Error) -> RenderError + '_ {
    move |e| RenderError::Egl(format!("{what}: {e}"))
}

impl HeadlessContext {
    /// Loads libEGL, opens the surfaceless display and makes a new context current.
    pub fn new() -> Result<Self> {
        let egl = load_egl(&EGL_NAMES)?;
        // SAFETY: the surfaceless platform takes EGL_DEFAULT_DISPLAY (null) as its native
        // display and an empty attribute list, as EGL_MESA_platform_surfaceless specifies.
        let display = unsafe {
            egl.get_platform_display(
                PLATFORM_SURFACELESS_MESA,
                khronos_egl::DEFAULT_DISPLAY,
                &[khronos_egl::ATTRIB_NONE],
            )
        }
        .map_err(egl_err("eglGetPlatformDisplay(surfaceless)"))?;
        let (major, minor) = egl.initialize(display).map_err(egl_err("eglInitialize"))?;
        tracing::debug!(major, minor, "EGL initialised");

        let attempts = [
            (GlFlavor::Core33, khronos_egl::OPENGL_API, khronos_egl::OPENGL_BIT),
            (GlFlavor::Es30, khronos_egl::OPENGL_ES_API, khronos_egl::OPENGL_ES3_BIT),
        ];
        let mut last_err = String::from("no attempt");
        for (flavor, api, bit) in attempts {
            match Self::try_create(&egl, display, flavor, api, bit) {
                Ok(context) => {
                    // SAFETY: the context was just created on this display; surfaceless
                    // (EGL_KHR_surfaceless_context) allows no draw/read surface.
                    egl.make_current(display, None, None, Some(context))
                        .map_err(egl_err("eglMakeCurrent"))?;
                    // SAFETY: the loader returns entry points of the context made current
                    // above; glow only calls them while this context is current.
                    let gl = unsafe {
                        glow::Context::from_loader_function(|name| {
                            egl.get_proc_address(name).map_or(std::ptr::null(), |f| f as *const _)
                        })
                    };
                    tracing::info!(?flavor, version = ?glow::HasContext::version(&gl), "headless GL context");
                    return Ok(HeadlessContext { egl, display, context, gl: Rc::new(gl), flavor });
                }
                Err(e) => {
                    tracing::debug!(?flavor, error = %e, "context attempt failed");
                    last_err = e.to_string();
                }
            }
        }
        Err(RenderError::Egl(format!("no GL 3.3 core or GLES 3.0 context: {last_err}")))
    }

    fn try_create(
        egl: &Egl,
        display: khronos_egl::Display,
        flavor: GlFlavor,
        api: khronos_egl::Enum,
        bit: khronos_egl::Int,
    ) -> Result<khronos_egl::Context> {
        egl.bind_api(api).map_err(egl_err("eglBindAPI"))?;
        // SURFACE_TYPE defaults to WINDOW_BIT, which the surfaceless platform has none of;
        // an empty mask matches every config.
        let config_attrs = [
            khronos_egl::SURFACE_TYPE,
            0,
            khronos_egl::RENDERABLE_TYPE,
            bit,
            khronos_egl::RED_SIZE,
            8,
            khronos_egl::GREEN_SIZE,
            8,
            khronos_egl::BLUE_SIZE,
            8,
            khronos_egl::ALPHA_SIZE,
            8,
            khronos_egl::NONE,
        ];
        let config = egl
            .choose_first_config(display, &config_attrs)
            .map_err(egl_err("eglChooseConfig"))?
            .ok_or_else(|| RenderError::Egl("no matching EGL config".into()))?;
        let ctx_attrs: Vec<khronos_egl::Int> = match flavor {
            GlFlavor::Core33 => vec![
                khronos_egl::CONTEXT_MAJOR_VERSION,
                3,
                khronos_egl::CONTEXT_MINOR_VERSION,
                3,
                khronos_egl::CONTEXT_OPENGL_PROFILE_MASK,
                khronos_egl::CONTEXT_OPENGL_CORE_PROFILE_BIT,
                khronos_egl::NONE,
            ],
            GlFlavor::Es30 => vec![khronos_egl::CONTEXT_MAJOR_VERSION, 3, khronos_egl::NONE],
        };
        egl.create_context(display, config, None, &ctx_attrs).map_err(egl_err("eglCreateContext"))
    }

    /// The glow function table of this context (shared with the renderer).
    pub fn gl(&self) -> Rc<glow::Context> {
        self.gl.clone()
    }

    pub fn flavor(&self) -> GlFlavor {
        self.flavor
    }

    /// Makes this context current on the calling thread again (after another was used).
    pub fn make_current(&self) -> Result<()> {
        self.egl.make_current(self.display, None, None, Some(self.context)).map_err(egl_err("eglMakeCurrent"))
    }
}

impl Drop for HeadlessContext {
    fn drop(&mut self) {
        let _ = self.egl.make_current(self.display, None, None, None);
        if let Err(e) = self.egl.destroy_context(self.display, self.context) {
            tracing::warn!(error = %e, "eglDestroyContext failed");
        }
    }
}

#[cfg(test)]
mod tests {
    /// Where no EGL library is found, the error names every name looked for and the package.
    #[test]
    fn a_missing_egl_names_every_name_tried_and_the_package() {
        let names = ["libEGL-v12-absent.so.1", "libEGL-v12-absent.so"];
        let Err(e) = super::load_egl(&names) else { panic!("a library that does not exist loaded") };
        let text = e.to_string();
        for want in ["libEGL-v12-absent.so.1", "libEGL-v12-absent.so:", "libegl1", "glvnd"] {
            assert!(text.contains(want), "{want:?} missing from: {text}");
        }
        assert_eq!(super::EGL_NAMES, ["libEGL.so.1", "libEGL.so"]);
    }
}
