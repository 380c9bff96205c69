#![doc = include_str!("../README.md")]

mod camera;
pub mod draw_list;
mod error;
mod font;
mod frame;
mod gpu_meshes;
mod headless;
mod image;
mod renderer;
pub mod resident;
mod scene;
mod shader;
mod target;
mod texture;
mod types;
#[cfg(feature = "window")]
mod window;

pub use camera::Camera;
pub use draw_list::{BitmapDst, DrawCommand, DrawList};
pub use error::{RenderError, Result};
pub use font::{
    ColorCode, ColorTable, DEFAULT_FONT_TTF, Font, FontFace, GlyphInfo, GlyphQuad, register_font_loader,
    strip_color_codes,
};
pub use frame::{FrameMesh, TranslucentRun};
pub use headless::{GlFlavor, HeadlessContext};
pub use image::{GOLDEN_TOLERANCE, Image, ImageDiff, MAX_IMAGE_SIDE, check_golden};
pub use renderer::{FrameStats, Renderer};
pub use resident::{MeshKey, PosedVertex};
pub use scene::{
    CloudLayer, FogLayer, InstancedPart, InstancedShape, Layers, Lightmap, MAX_FOG_LAYERS, MAX_GRID_CELLS,
    MAX_LAYERS, MAX_PALETTE_MATRICES, PARTICLE_SPOT, PosedMesh, ResidentMesh, Scene, SceneMesh, Shape,
    ShapeInstance, Sky, TexVertex3, TexturedBatch, Vertex3, affine_rows,
};
pub use target::OffscreenTarget;
pub use texture::{TextureFilter, TextureHandle, TextureManager, TextureStats};
pub use types::{ColorI, Point2I, RectI};
#[cfg(feature = "window")]
pub use window::GlWindow;
#[cfg(feature = "window")]
pub use winit;

pub use glam;
/// The GL bindings this crate uses, so callers need not depend on a matching version.
pub use glow;
