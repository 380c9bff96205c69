#![doc = include_str!("../README.md")]

mod camera;
mod error;
mod font;
mod headless;
mod image;
mod scene;
mod target;
mod types;

pub use camera::Camera;
pub use error::{RenderError, Result};
pub use font::{
    ColorCode, ColorTable, DEFAULT_FONT_TTF, Font, GlyphInfo, GlyphQuad, strip_color_codes,
};
pub use headless::{GlFlavor, HeadlessContext};
pub use image::{Image, ImageDiff, MAX_IMAGE_SIDE};
pub use scene::{MAX_GRID_CELLS, Scene, SceneMesh, Shape, Vertex3};
pub use target::OffscreenTarget;
pub use types::{ColorI, Point2I, RectI};

/// The GL bindings this crate uses, so callers need not depend on a matching version.
pub use glow;
pub use glam;
