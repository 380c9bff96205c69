//! The crate error type: every failure a caller or a bad file can cause is a value, never a panic.

use std::fmt;

/// Why a rendering operation failed.
#[derive(Debug)]
pub enum RenderError {
    /// The EGL library could not be loaded or an EGL call failed (headless context).
    Egl(String),
    /// A windowed context could not be created.
    Window(String),
    /// A GL object could not be created, or a shader failed to compile or link.
    Gl(String),
    /// A PNG file could not be decoded or encoded.
    Png(String),
    /// Reading or writing a file failed.
    Io(std::io::Error),
    /// An image had dimensions or a pixel buffer that do not match.
    BadImage(String),
    /// The embedded or supplied font could not be parsed.
    Font(String),
    /// A texture name that is not loaded and could not be loaded.
    NoTexture(String),
    /// The resource manager could not find or load a bitmap (the message names the file).
    Resource(String),
    /// `pop_clip` without a matching `push_clip`.
    ClipUnderflow,
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::Egl(e) => write!(f, "EGL: {e}"),
            RenderError::Window(e) => write!(f, "window: {e}"),
            RenderError::Gl(e) => write!(f, "GL: {e}"),
            RenderError::Png(e) => write!(f, "PNG: {e}"),
            RenderError::Io(e) => write!(f, "I/O: {e}"),
            RenderError::BadImage(e) => write!(f, "bad image: {e}"),
            RenderError::Font(e) => write!(f, "font: {e}"),
            RenderError::NoTexture(e) => write!(f, "no texture {e:?}"),
            RenderError::Resource(e) => write!(f, "resource: {e}"),
            RenderError::ClipUnderflow => write!(f, "clip stack underflow"),
        }
    }
}

impl std::error::Error for RenderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RenderError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for RenderError {
    fn from(e: std::io::Error) -> Self {
        RenderError::Io(e)
    }
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, RenderError>;
