//! The texture manager (V12's gTexManager / TextureHandle): each texture is loaded once
//! and shared through handles, freed when no handle is left, and re-uploaded from the kept
//! source image after a context loss.
//!
//! Handles are reference counted (`Rc`) and carry no GL state, so dropping one needs no
//! context: the GL texture of an entry no handle refers to is deleted by the next
//! [`TextureManager::collect_garbage`] (the renderer runs it every frame) or at once by
//! [`TextureManager::release`].
#![allow(unsafe_code)]

use crate::error::{RenderError, Result};
use crate::image::Image;
use glow::HasContext;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use v12_resource::bitmap::BITMAP_EXTENSIONS;
use v12_resource::{Bitmap, ResourceManager};

/// How a texture is sampled when stretched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextureFilter {
    /// Bilinear (smooth stretching; 1:1 blits are still exact).
    #[default]
    Linear,
    /// Nearest texel (blocky stretching, exact pixels).
    Nearest,
    /// For the 3D world: mipmapped (trilinear, so distant ground does not shimmer) and
    /// repeating, as terrain and interior textures tile.
    Mipmapped,
}

#[derive(Debug)]
struct HandleInner {
    name: Rc<str>,
    width: u32,
    height: u32,
}

/// A shared reference to a loaded texture. Clone it to share; the texture lives while any
/// clone does.
#[derive(Debug, Clone)]
pub struct TextureHandle(Rc<HandleInner>);

impl TextureHandle {
    /// The name (usually the file path) it was loaded under.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    pub fn width(&self) -> u32 {
        self.0.width
    }

    pub fn height(&self) -> u32 {
        self.0.height
    }
}

impl PartialEq for TextureHandle {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

struct Entry {
    handle: Weak<HandleInner>,
    source: Image,
    filter: TextureFilter,
    texture: Option<glow::Texture>,
}

/// Counters that show the manager does what it promises.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextureStats {
    /// Files read and decoded.
    pub file_loads: u64,
    /// Images sent to GL (first uploads and re-uploads after a context loss).
    pub uploads: u64,
    /// GL textures deleted because no handle was left.
    pub frees: u64,
}

/// Owns every texture's source image and GL name, keyed by name.
#[derive(Default)]
pub struct TextureManager {
    entries: HashMap<Rc<str>, Entry>,
    stats: TextureStats,
    context_lost: bool,
    /// Where textures are read when set (mods, volumes, every bitmap format); else PNG files
    /// from the file system.
    resources: Option<Rc<ResourceManager>>,
}

impl std::fmt::Debug for TextureManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextureManager")
            .field("entries", &self.entries.len())
            .field("stats", &self.stats)
            .finish()
    }
}

fn upload(gl: &glow::Context, image: &Image, filter: TextureFilter) -> Result<glow::Texture> {
    let (min, mag, wrap) = match filter {
        TextureFilter::Linear => (glow::LINEAR, glow::LINEAR, glow::CLAMP_TO_EDGE),
        TextureFilter::Nearest => (glow::NEAREST, glow::NEAREST, glow::CLAMP_TO_EDGE),
        TextureFilter::Mipmapped => (glow::LINEAR_MIPMAP_NEAREST, glow::LINEAR, glow::REPEAT),
    };
    // SAFETY: the pixel slice holds exactly width*height RGBA8 texels (Image guarantees it)
    // and UNPACK_ALIGNMENT 1 matches its tight rows; the texture is created here.
    unsafe {
        let tex = gl.create_texture().map_err(RenderError::Gl)?;
        gl.bind_texture(glow::TEXTURE_2D, Some(tex));
        gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
        gl.tex_image_2d(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            image.width() as i32,
            image.height() as i32,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(image.pixels())),
        );
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, min as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, mag as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, wrap as i32);
        gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_WRAP_T, wrap as i32);
        if filter == TextureFilter::Mipmapped {
            gl.generate_mipmap(glow::TEXTURE_2D);
        }
        Ok(tex)
    }
}

impl TextureManager {
    pub fn new() -> Self {
        TextureManager::default()
    }

    /// The live handle for `name`, if one is loaded.
    pub fn get(&self, name: &str) -> Option<TextureHandle> {
        self.entries.get(name).and_then(|e| e.handle.upgrade()).map(TextureHandle)
    }

    /// Reads textures through `resources` from now on: any bitmap format it has a loader for
    /// (see `ResourceManager::register_bitmap_loaders`), in mods and volumes, with the
    /// extension found when a name has none (`gui/background` finds `gui/background.png`).
    pub fn set_resources(&mut self, resources: Rc<ResourceManager>) {
        self.resources = Some(resources);
    }

    fn read_image(&self, path: &str) -> Result<Image> {
        let Some(res) = &self.resources else { return Image::load_png(path) };
        let found = if res.search().is_file(path) {
            Some(path.to_string())
        } else {
            BITMAP_EXTENSIONS.iter().map(|ext| format!("{path}.{ext}")).find(|p| res.search().is_file(p))
        };
        let Some(found) = found else {
            return Err(RenderError::Resource(format!("{path}: no such bitmap in any mod or volume")));
        };
        let bitmap = res.load::<Bitmap>(&found).map_err(|e| RenderError::Resource(e.to_string()))?;
        let rgba = bitmap.to_rgba();
        Image::from_rgba(rgba.width(), rgba.height(), rgba.level(0).unwrap_or_default().to_vec())
    }

    /// Loads a texture once (a PNG file, or any bitmap through the resource manager when one
    /// is set); later calls with the same path share the first load.
    pub fn load(&mut self, gl: &glow::Context, path: &str, filter: TextureFilter) -> Result<TextureHandle> {
        if let Some(h) = self.get(path) {
            return Ok(h);
        }
        let image = self.read_image(path).map_err(|e| {
            tracing::warn!(path, error = %e, "texture load failed");
            e
        })?;
        self.stats.file_loads += 1;
        self.insert(gl, path, image, filter)
    }

    /// Registers an image under a name; if that name is already live the existing texture is
    /// returned and `image` is dropped (one texture per name).
    pub fn insert(
        &mut self,
        gl: &glow::Context,
        name: &str,
        image: Image,
        filter: TextureFilter,
    ) -> Result<TextureHandle> {
        if let Some(h) = self.get(name) {
            return Ok(h);
        }
        // A dead entry under this name still owns a GL texture: free it first.
        if let Some(old) = self.entries.remove(name) {
            self.free(gl, old);
        }
        let texture = if self.context_lost {
            None
        } else {
            self.stats.uploads += 1;
            Some(upload(gl, &image, filter)?)
        };
        let key: Rc<str> = Rc::from(name);
        let inner = Rc::new(HandleInner { name: key.clone(), width: image.width(), height: image.height() });
        self.entries.insert(key, Entry { handle: Rc::downgrade(&inner), source: image, filter, texture });
        Ok(TextureHandle(inner))
    }

    /// How many handles share the texture `name` (0 when it is not loaded).
    pub fn ref_count(&self, name: &str) -> usize {
        self.entries.get(name).map_or(0, |e| e.handle.strong_count())
    }

    /// Number of entries that still hold a texture (live or awaiting collection).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn stats(&self) -> TextureStats {
        self.stats
    }

    /// The GL texture behind a handle (`None` while the context is lost).
    pub fn gl_texture(&self, handle: &TextureHandle) -> Option<glow::Texture> {
        self.entries.get(handle.name()).and_then(|e| e.texture)
    }

    /// Gives up a handle explicitly; when it was the last one the texture is freed now.
    pub fn release(&mut self, gl: &glow::Context, handle: TextureHandle) {
        let name = handle.0.name.clone();
        drop(handle);
        if self.ref_count(&name) == 0
            && let Some(e) = self.entries.remove(&name)
        {
            self.free(gl, e);
        }
    }

    /// Frees every texture no handle refers to; returns how many.
    pub fn collect_garbage(&mut self, gl: &glow::Context) -> usize {
        let dead: Vec<Rc<str>> = self
            .entries
            .iter()
            .filter(|(_, e)| e.handle.strong_count() == 0)
            .map(|(k, _)| k.clone())
            .collect();
        for k in &dead {
            if let Some(e) = self.entries.remove(k) {
                self.free(gl, e);
            }
        }
        dead.len()
    }

    fn free(&mut self, gl: &glow::Context, e: Entry) {
        if let Some(t) = e.texture {
            self.stats.frees += 1;
            // SAFETY: `t` was created by this manager on the current context (names from a
            // lost context were cleared in `on_context_lost`).
            unsafe { gl.delete_texture(t) };
        }
    }

    /// The context is gone: forget every GL name (they died with it) but keep the images.
    pub fn on_context_lost(&mut self) {
        self.context_lost = true;
        self.entries.retain(|_, e| e.handle.strong_count() > 0);
        for e in self.entries.values_mut() {
            e.texture = None;
        }
    }

    /// A new context is current: upload every live texture again from its kept image.
    pub fn on_context_restored(&mut self, gl: &glow::Context) -> Result<()> {
        self.context_lost = false;
        for e in self.entries.values_mut() {
            if e.texture.is_none() {
                e.texture = Some(upload(gl, &e.source, e.filter)?);
                self.stats.uploads += 1;
            }
        }
        Ok(())
    }
}
