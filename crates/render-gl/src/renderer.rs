//! The GL renderer: dgl's 2D primitives, text and 3D views, batched.
//!
//! Every 2D primitive becomes textured, coloured triangles in one vertex stream (solid
//! colours sample a 1×1 white texture), so consecutive primitives that use the same texture
//! go out in one draw call; a texture change, a clip change, a 3D view or the end of the
//! frame flushes the batch. [`FrameStats`] counts the draw calls.
//!
//! Rects and lines are drawn as pixel-aligned quads rather than GL lines, so their pixel
//! coverage is exact and the same on every driver (see the rules in [`crate::draw_list`]).
#![allow(unsafe_code)]

use crate::camera::Camera;
use crate::draw_list::{BitmapDst, DrawCommand, DrawList, line_runs};
use crate::error::{RenderError, Result};
use crate::font::{ColorTable, Font, GlyphQuad};
use crate::image::Image;
use crate::scene::{Layers, Scene, Vertex3};
use crate::shader::{TexturedPrograms, ViewUniforms, as_bytes, compile};
use crate::texture::{TextureFilter, TextureHandle, TextureManager};
use crate::types::{ColorI, Point2I, RectI};
use glow::HasContext;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// A 2D vertex: pixel position, texture coordinate, colour.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Vertex2 {
    pos: [f32; 2],
    uv: [f32; 2],
    color: [u8; 4],
}

/// What one frame cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// glDrawArrays calls (2D batches plus 3D triangle and line passes).
    pub draw_calls: u32,
    /// 2D quads submitted (rects, line runs, bitmaps, glyphs).
    pub quads: u32,
    /// Vertices sent, 2D and 3D.
    pub vertices: u32,
    /// Bitmaps skipped, and 3D layers drawn white, because their texture could not be loaded.
    pub missing_textures: u32,
    /// 3D triangles drawn (the sky dome not counted).
    pub triangles: u32,
    /// Vertex bytes sent to GL this frame: 2D batches, streamed 3D triangles and lines, and
    /// resident meshes uploaded because they were new or changed.
    pub bytes_uploaded: u64,
    /// Of `bytes_uploaded`, the resident meshes' (0 in a steady frame).
    pub resident_bytes_uploaded: u64,
    /// Bytes that posed shape meshes on the GPU: a posed mesh's matrix and colour a draw, an
    /// instanced shape's palette and instances.
    pub pose_bytes: u64,
    /// Draws from resident buffers (textured and posed).
    pub resident_draws: u32,
}

const VS_2D: &str = r"
in vec2 a_pos;
in vec2 a_uv;
in vec4 a_color;
uniform vec2 u_screen;
out vec2 v_uv;
out vec4 v_color;
void main() {
    v_uv = a_uv;
    v_color = a_color;
    gl_Position = vec4(a_pos.x / u_screen.x * 2.0 - 1.0, 1.0 - a_pos.y / u_screen.y * 2.0, 0.0, 1.0);
}
";

const FS_2D: &str = r"
uniform sampler2D u_tex;
in vec2 v_uv;
in vec4 v_color;
out vec4 o_color;
void main() {
    o_color = texture(u_tex, v_uv) * v_color;
}
";

const VS_3D: &str = r"
in vec3 a_pos;
in vec4 a_color;
uniform mat4 u_mvp;
out vec4 v_color;
void main() {
    v_color = a_color;
    gl_Position = u_mvp * vec4(a_pos, 1.0);
}
";

const FS_3D: &str = r"
in vec4 v_color;
out vec4 o_color;
void main() {
    o_color = v_color;
}
";

/// GL objects that die with the context.
/// The steps of drawing a mirror's surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MirrorStep {
    /// Marks its visible pixels in the stencil and clears their depth.
    Mark,
    /// Seen from behind: marks its visible pixels only.
    Back,
    /// Draws its tint over the marked pixels.
    Tint,
}

struct Gpu {
    prog2d: glow::Program,
    u_screen: Option<glow::UniformLocation>,
    u_tex: Option<glow::UniformLocation>,
    vao2d: glow::VertexArray,
    vbo2d: glow::Buffer,
    prog3d: glow::Program,
    u_mvp: Option<glow::UniformLocation>,
    vao3d: glow::VertexArray,
    vbo3d: glow::Buffer,
    textured: TexturedPrograms,
    meshes: crate::gpu_meshes::GpuMeshes,
}

impl Gpu {
    fn new(gl: &glow::Context) -> Result<Self> {
        let header = crate::shader::header(gl);
        let prog2d = compile(gl, header, VS_2D, FS_2D, &["a_pos", "a_uv", "a_color"])?;
        let prog3d = compile(gl, header, VS_3D, FS_3D, &["a_pos", "a_color"])?;
        // SAFETY: creating buffers/VAOs and describing their layouts, which match Vertex2
        // (20-byte stride: 2 f32, 2 f32, 4 u8) and Vertex3 (16-byte stride: 3 f32, 4 u8).
        unsafe {
            let vao2d = gl.create_vertex_array().map_err(RenderError::Gl)?;
            let vbo2d = gl.create_buffer().map_err(RenderError::Gl)?;
            gl.bind_vertex_array(Some(vao2d));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo2d));
            gl.enable_vertex_attrib_array(0);
            gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, 20, 0);
            gl.enable_vertex_attrib_array(1);
            gl.vertex_attrib_pointer_f32(1, 2, glow::FLOAT, false, 20, 8);
            gl.enable_vertex_attrib_array(2);
            gl.vertex_attrib_pointer_f32(2, 4, glow::UNSIGNED_BYTE, true, 20, 16);
            let vao3d = gl.create_vertex_array().map_err(RenderError::Gl)?;
            let vbo3d = gl.create_buffer().map_err(RenderError::Gl)?;
            gl.bind_vertex_array(Some(vao3d));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo3d));
            gl.enable_vertex_attrib_array(0);
            gl.vertex_attrib_pointer_f32(0, 3, glow::FLOAT, false, 16, 0);
            gl.enable_vertex_attrib_array(1);
            gl.vertex_attrib_pointer_f32(1, 4, glow::UNSIGNED_BYTE, true, 16, 12);
            gl.bind_vertex_array(None);
            Ok(Gpu {
                u_screen: gl.get_uniform_location(prog2d, "u_screen"),
                u_tex: gl.get_uniform_location(prog2d, "u_tex"),
                u_mvp: gl.get_uniform_location(prog3d, "u_mvp"),
                prog2d,
                vao2d,
                vbo2d,
                prog3d,
                vao3d,
                vbo3d,
                textured: TexturedPrograms::new(gl)?,
                meshes: crate::gpu_meshes::GpuMeshes::new(),
            })
        }
    }

    fn destroy(mut self, gl: &glow::Context) {
        self.meshes.destroy(gl);
        // SAFETY: these objects belong to `gl` and are not used after this.
        unsafe {
            gl.delete_program(self.prog2d);
            gl.delete_program(self.prog3d);
            gl.delete_vertex_array(self.vao2d);
            gl.delete_vertex_array(self.vao3d);
            gl.delete_buffer(self.vbo2d);
            gl.delete_buffer(self.vbo3d);
        }
        self.textured.destroy(gl);
    }
}

/// Draws dgl primitives, text, bitmaps and 3D views into the bound framebuffer.
pub struct Renderer {
    gl: Rc<glow::Context>,
    gpu: Option<Gpu>,
    textures: TextureManager,
    white: TextureHandle,
    /// The particles' soft round spot, held so it stays loaded.
    _spot: TextureHandle,
    fonts: HashMap<u32, (Font, TextureHandle)>,
    /// The face text is drawn in, and how many times it was changed (names its atlases).
    face: crate::font::FontFace,
    face_generation: u32,
    retained: HashMap<Arc<str>, TextureHandle>,
    /// Texture names that failed to load (not tried again until the purge).
    missing: std::collections::HashSet<Arc<str>>,
    width: u32,
    height: u32,
    clip_stack: Vec<RectI>,
    batch: Vec<Vertex2>,
    batch_tex: Option<glow::Texture>,
    glyph_scratch: Vec<GlyphQuad>,
    batching: bool,
    stats: FrameStats,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("size", &(self.width, self.height))
            .field("textures", &self.textures)
            .field("batching", &self.batching)
            .finish_non_exhaustive()
    }
}

impl Renderer {
    /// Creates shaders and buffers on the current context.
    pub fn new(gl: Rc<glow::Context>) -> Result<Self> {
        let gpu = Gpu::new(&gl)?;
        let mut textures = TextureManager::new();
        let white = textures.insert(&gl, "$white", Image::new(1, 1, [255; 4]), TextureFilter::Nearest)?;
        let spot = textures.insert(&gl, crate::scene::PARTICLE_SPOT, spot_image(), TextureFilter::Linear)?;
        Ok(Renderer {
            gl,
            gpu: Some(gpu),
            textures,
            white,
            _spot: spot,
            fonts: HashMap::new(),
            face: crate::font::FontFace::embedded(),
            face_generation: 0,
            retained: HashMap::new(),
            missing: Default::default(),
            width: 1,
            height: 1,
            clip_stack: Vec::new(),
            batch: Vec::new(),
            batch_tex: None,
            glyph_scratch: Vec::new(),
            batching: true,
            stats: FrameStats::default(),
        })
    }

    pub fn gl(&self) -> &Rc<glow::Context> {
        &self.gl
    }

    pub fn textures(&self) -> &TextureManager {
        &self.textures
    }

    pub fn textures_mut(&mut self) -> (&glow::Context, &mut TextureManager) {
        (&self.gl, &mut self.textures)
    }

    /// Draws text in `face` from now on (the atlases of the old face are let go).
    pub fn set_font_face(&mut self, face: crate::font::FontFace) {
        self.face = face;
        self.face_generation += 1;
        self.fonts.clear();
    }

    /// Reads textures through the resource manager from now on (see
    /// [`TextureManager::set_resources`]).
    pub fn set_resources(&mut self, resources: std::rc::Rc<v12_resource::ResourceManager>) {
        self.textures.set_resources(resources);
    }

    /// Loads a PNG through the texture manager (shared if already loaded).
    pub fn load_texture(&mut self, path: &str, filter: TextureFilter) -> Result<TextureHandle> {
        self.textures.load(&self.gl, path, filter)
    }

    /// Registers an in-memory image as a named texture.
    pub fn insert_texture(
        &mut self,
        name: &str,
        image: Image,
        filter: TextureFilter,
    ) -> Result<TextureHandle> {
        self.textures.insert(&self.gl, name, image, filter)
    }

    /// With batching off every primitive is its own draw call (the baseline to compare with).
    pub fn set_batching(&mut self, on: bool) {
        self.batching = on;
    }

    /// The font at a pixel size, rasterized and uploaded on first use.
    pub fn font(&mut self, size_px: u32) -> Result<&Font> {
        if !self.fonts.contains_key(&size_px) {
            let font = Font::with_face(&self.face, size_px)?;
            let name = format!("$font:{}:{size_px}", self.face_generation);
            let h = self.textures.insert(&self.gl, &name, font.atlas().clone(), TextureFilter::Nearest)?;
            self.fonts.insert(size_px, (font, h));
        }
        self.fonts.get(&size_px).map(|(f, _)| f).ok_or_else(|| RenderError::Font("font cache".into()))
    }

    /// Starts a frame on the bound framebuffer of the given size: full viewport and clip,
    /// 2D state, stats reset, unused textures freed.
    pub fn begin_frame(&mut self, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.clip_stack.clear();
        self.batch.clear();
        self.batch_tex = None;
        self.stats = FrameStats::default();
        self.textures.collect_garbage(&self.gl);
        if let Some(gpu) = &mut self.gpu {
            gpu.meshes.begin_frame(&self.gl);
        }
        // SAFETY: fixed-function state setting on the current context.
        unsafe {
            let gl = &self.gl;
            gl.viewport(0, 0, self.width as i32, self.height as i32);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::CULL_FACE);
            gl.enable(glow::BLEND);
            gl.blend_func_separate(
                glow::SRC_ALPHA,
                glow::ONE_MINUS_SRC_ALPHA,
                glow::ONE,
                glow::ONE_MINUS_SRC_ALPHA,
            );
            gl.enable(glow::SCISSOR_TEST);
        }
        self.apply_scissor();
    }

    /// Flushes the last batch and returns the frame's counters.
    pub fn end_frame(&mut self) -> FrameStats {
        self.flush();
        self.stats
    }

    pub fn stats(&self) -> FrameStats {
        self.stats
    }

    /// How many meshes are resident on the GPU and the bytes their buffers hold.
    pub fn resident_meshes(&self) -> (usize, usize) {
        self.gpu.as_ref().map_or((0, 0), |g| (g.meshes.len(), g.meshes.bytes()))
    }

    /// Waits until GL has executed everything submitted (for timing and read-back).
    pub fn finish(&self) {
        // SAFETY: glFinish has no arguments and only blocks.
        unsafe { self.gl.finish() };
    }

    fn screen_rect(&self) -> RectI {
        RectI::new(0, 0, self.width as i32, self.height as i32)
    }

    /// The current clip rect (the whole target when the stack is empty).
    pub fn clip_rect(&self) -> RectI {
        self.clip_stack.last().copied().unwrap_or_else(|| self.screen_rect())
    }

    fn apply_scissor(&self) {
        let c = self.clip_rect();
        // SAFETY: state setting; GL's scissor origin is bottom-left, hence the flip.
        unsafe { self.gl.scissor(c.x, self.height as i32 - c.bottom(), c.w.max(0), c.h.max(0)) };
    }

    /// Narrows the clip rect to its intersection with `rect` (dglSetClipRect, stacked).
    pub fn push_clip(&mut self, rect: RectI) {
        self.flush();
        let r = self.clip_rect().intersect(&rect);
        self.clip_stack.push(r);
        self.apply_scissor();
    }

    /// Restores the clip rect before the matching `push_clip`.
    pub fn pop_clip(&mut self) -> Result<()> {
        self.flush();
        self.clip_stack.pop().ok_or(RenderError::ClipUnderflow)?;
        self.apply_scissor();
        Ok(())
    }

    /// Fills the current clip rect with a colour and clears depth.
    pub fn clear(&mut self, color: ColorI) {
        self.flush();
        let c = color.to_f32();
        // SAFETY: clearing honours the scissor set from the clip rect.
        unsafe {
            self.gl.clear_color(c[0], c[1], c[2], c[3]);
            self.gl.clear(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
        }
    }

    /// Sends the pending batch as one draw call.
    pub fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let Some(gpu) = &self.gpu else {
            self.batch.clear();
            return;
        };
        let gl = &self.gl;
        // SAFETY: the program, VAO and buffer belong to this context; the vertex bytes match
        // the VAO layout and the draw count is the number of vertices uploaded.
        unsafe {
            gl.use_program(Some(gpu.prog2d));
            gl.uniform_2_f32(gpu.u_screen.as_ref(), self.width as f32, self.height as f32);
            gl.uniform_1_i32(gpu.u_tex.as_ref(), 0);
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, self.batch_tex);
            gl.bind_vertex_array(Some(gpu.vao2d));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(gpu.vbo2d));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, as_bytes(&self.batch), glow::STREAM_DRAW);
            gl.draw_arrays(glow::TRIANGLES, 0, self.batch.len() as i32);
        }
        self.stats.bytes_uploaded += std::mem::size_of_val(self.batch.as_slice()) as u64;
        self.stats.draw_calls += 1;
        self.stats.vertices += self.batch.len() as u32;
        self.batch.clear();
    }

    /// Queues one textured quad; `dst` and `uv` are (x0, y0, x1, y1).
    fn quad(&mut self, tex: Option<glow::Texture>, dst: [f32; 4], uv: [f32; 4], color: ColorI) {
        if tex.is_none() {
            return;
        }
        if self.batch_tex != tex {
            self.flush();
            self.batch_tex = tex;
        }
        let c = color.to_array();
        let v = |x: f32, y: f32, u: f32, t: f32| Vertex2 { pos: [x, y], uv: [u, t], color: c };
        let [x0, y0, x1, y1] = dst;
        let [u0, v0, u1, v1] = uv;
        self.batch.extend_from_slice(&[
            v(x0, y0, u0, v0),
            v(x1, y0, u1, v0),
            v(x1, y1, u1, v1),
            v(x0, y0, u0, v0),
            v(x1, y1, u1, v1),
            v(x0, y1, u0, v1),
        ]);
        self.stats.quads += 1;
        if !self.batching {
            self.flush();
        }
    }

    fn solid(&mut self, r: RectI, color: ColorI) {
        if r.is_empty() {
            return;
        }
        let tex = self.textures.gl_texture(&self.white);
        let dst = [r.x as f32, r.y as f32, r.right() as f32, r.bottom() as f32];
        self.quad(tex, dst, [0.5, 0.5, 0.5, 0.5], color);
    }

    /// Fills `[x, x+w) × [y, y+h)`.
    pub fn fill_rect(&mut self, rect: RectI, color: ColorI) {
        self.solid(rect, color);
    }

    /// Outlines the border pixels of `rect`, each once.
    pub fn draw_rect(&mut self, rect: RectI, color: ColorI) {
        if rect.is_empty() {
            return;
        }
        let RectI { x, y, w, h } = rect;
        self.solid(RectI::new(x, y, w, 1), color);
        if h > 1 {
            self.solid(RectI::new(x, y + h - 1, w, 1), color);
        }
        if h > 2 {
            self.solid(RectI::new(x, y + 1, 1, h - 2), color);
            if w > 1 {
                self.solid(RectI::new(x + w - 1, y + 1, 1, h - 2), color);
            }
        }
    }

    /// A one-pixel line over Bresenham's pixels, both ends included.
    pub fn draw_line(&mut self, from: Point2I, to: Point2I, color: ColorI) {
        let mut runs = Vec::new();
        line_runs(from, to, |r| runs.push(r));
        for r in runs {
            self.solid(r, color);
        }
    }

    /// Any of the four dgl bitmap draws with a texture handle.
    pub fn draw_bitmap(
        &mut self,
        texture: &TextureHandle,
        src: Option<RectI>,
        dst: BitmapDst,
        modulate: ColorI,
    ) {
        let tex = self.textures.gl_texture(texture);
        self.bitmap_raw(tex, texture.width(), texture.height(), src, dst, modulate);
    }

    fn bitmap_raw(
        &mut self,
        tex: Option<glow::Texture>,
        tw: u32,
        th: u32,
        src: Option<RectI>,
        dst: BitmapDst,
        modulate: ColorI,
    ) {
        let full = RectI::new(0, 0, tw as i32, th as i32);
        let src = src.map_or(full, |s| s.intersect(&full));
        if src.is_empty() {
            return;
        }
        let dst = match dst {
            BitmapDst::At(p) => RectI::new(p.x, p.y, src.w, src.h),
            BitmapDst::Stretch(r) => r,
        };
        if dst.is_empty() {
            return;
        }
        let (fw, fh) = (tw as f32, th as f32);
        let uv = [src.x as f32 / fw, src.y as f32 / fh, src.right() as f32 / fw, src.bottom() as f32 / fh];
        let d = [dst.x as f32, dst.y as f32, dst.right() as f32, dst.bottom() as f32];
        self.quad(tex, d, uv, modulate);
    }

    /// One line of text with its top-left at `pos`; returns the x just past its end.
    pub fn draw_text(
        &mut self,
        size_px: u32,
        pos: Point2I,
        text: &str,
        color: ColorI,
        colors: Option<&ColorTable>,
    ) -> Result<i32> {
        self.font(size_px)?;
        let mut quads = std::mem::take(&mut self.glyph_scratch);
        quads.clear();
        let mut end = 0;
        let (tex, aw, ah) = {
            let (font, handle) =
                self.fonts.get(&size_px).ok_or_else(|| RenderError::Font("font cache".into()))?;
            font.layout(text, pos, color, colors, |q| quads.push(q), &mut end);
            (self.textures.gl_texture(handle), handle.width() as f32, handle.height() as f32)
        };
        for q in &quads {
            let s = q.src;
            let d = q.dst;
            let uv = [s.x as f32 / aw, s.y as f32 / ah, s.right() as f32 / aw, s.bottom() as f32 / ah];
            self.quad(tex, [d.x as f32, d.y as f32, d.right() as f32, d.bottom() as f32], uv, q.color);
        }
        self.glyph_scratch = quads;
        Ok(pos.x + end)
    }

    /// Renders a scene into `viewport` (clipped by the clip rect), then returns to 2D.
    ///
    /// The render images in order: the sky behind everything (neither tested nor written in
    /// depth), the opaque triangles, lines and textured batches, then every translucent
    /// triangle back to front (tested, not written, so each shows what is behind it).
    ///
    /// Then each mirror ([`crate::Shape::Mirror`]): its pixels not hidden are marked in the stencil
    /// and their depth cleared, the scene is drawn there again from the mirrored camera,
    /// and the surface over it in its tint (restoring its depth).
    pub fn draw_scene(&mut self, viewport: RectI, camera: &Camera, scene: &Scene) {
        self.draw_pass(viewport, camera, scene, true);
        for shape in &scene.shapes {
            if let crate::scene::Shape::Mirror { triangles, tint } = shape {
                self.draw_mirror(viewport, camera, scene, triangles, *tint);
            }
        }
    }

    /// One mirror of [`Self::draw_scene`].
    fn draw_mirror(
        &mut self,
        viewport: RectI,
        camera: &Camera,
        scene: &Scene,
        tris: &[glam::Vec3],
        tint: ColorI,
    ) {
        let Some((mut n, mut d)) = crate::scene::mirror_plane(tris) else {
            tracing::warn!("a mirror with no plane (no triangle with an area, or not finite); not drawn");
            return;
        };
        let front = n.dot(camera.position()) > d;
        if !front {
            (n, d) = (-n, -d);
        }
        let verts: Vec<Vertex3> = tris
            .iter()
            .take(tris.len() / 3 * 3)
            .map(|p| Vertex3 { pos: p.to_array(), color: tint.to_array() })
            .collect();
        let mvp = camera.view_projection(viewport).to_cols_array();
        if self.clip_rect().intersect(&viewport).is_empty() || verts.is_empty() {
            return;
        }
        if front {
            self.mirror_surface(viewport, &mvp, &verts, MirrorStep::Mark);
            let mirrored = camera.mirrored(n, d);
            self.draw_pass(viewport, &mirrored, scene, false);
        } else {
            self.mirror_surface(viewport, &mvp, &verts, MirrorStep::Back);
        }
        self.mirror_surface(viewport, &mvp, &verts, MirrorStep::Tint);
        self.apply_scissor();
    }

    /// A step of drawing a mirror's surface (see [`Self::draw_scene`]).
    fn mirror_surface(&mut self, viewport: RectI, mvp: &[f32; 16], verts: &[Vertex3], step: MirrorStep) {
        let clip = self.clip_rect().intersect(&viewport);
        let h = self.height as i32;
        let Some(gpu) = &self.gpu else { return };
        let gl = &self.gl;
        let count = verts.len().min(i32::MAX as usize / 3 * 3) as i32;
        // SAFETY: state setting and draws with this context's 3D program, VAO and buffer;
        // the vertices are `Vertex3`s and the count is at most theirs.
        unsafe {
            gl.viewport(viewport.x, h - viewport.bottom(), viewport.w, viewport.h);
            gl.scissor(clip.x, h - clip.bottom(), clip.w, clip.h);
            gl.use_program(Some(gpu.prog3d));
            gl.uniform_matrix_4_f32_slice(gpu.u_mvp.as_ref(), false, mvp);
            gl.bind_vertex_array(Some(gpu.vao3d));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(gpu.vbo3d));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, as_bytes::<Vertex3>(verts), glow::STREAM_DRAW);
            gl.enable(glow::DEPTH_TEST);
            gl.enable(glow::STENCIL_TEST);
            match step {
                MirrorStep::Mark => {
                    // Mark the surface's pixels not hidden, then set their depth to the far
                    // plane.
                    mark_stencil(gl, count);
                    gl.stencil_func(glow::EQUAL, 1, 0xff);
                    gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
                    gl.depth_func(glow::ALWAYS);
                    gl.depth_mask(true);
                    gl.depth_range_f32(1.0, 1.0);
                    gl.draw_arrays(glow::TRIANGLES, 0, count);
                    gl.depth_range_f32(0.0, 1.0);
                    gl.color_mask(true, true, true, true);
                }
                MirrorStep::Back => {
                    // Seen from behind: the pixels not hidden marked, nothing reflected.
                    mark_stencil(gl, count);
                    gl.color_mask(true, true, true, true);
                }
                MirrorStep::Tint => {
                    // The tint over the reflection, the surface's depth written back.
                    gl.stencil_func(glow::EQUAL, 1, 0xff);
                    gl.stencil_op(glow::KEEP, glow::KEEP, glow::KEEP);
                    gl.depth_func(glow::ALWAYS);
                    gl.depth_mask(true);
                    gl.enable(glow::BLEND);
                    gl.draw_arrays(glow::TRIANGLES, 0, count);
                    gl.disable(glow::STENCIL_TEST);
                    gl.depth_func(glow::LEQUAL);
                    gl.disable(glow::DEPTH_TEST);
                }
            }
            gl.bind_vertex_array(None);
            gl.viewport(0, 0, self.width as i32, h);
        }
        self.stats.draw_calls += if matches!(step, MirrorStep::Mark) { 2 } else { 1 };
        self.stats.bytes_uploaded += std::mem::size_of_val(verts) as u64;
    }

    /// One pass of [`Self::draw_scene`]'s world (`clear`: the viewport cleared first).
    fn draw_pass(&mut self, viewport: RectI, camera: &Camera, scene: &Scene, clear: bool) {
        self.flush();
        let clip = self.clip_rect().intersect(&viewport);
        if clip.is_empty() || self.gpu.is_none() {
            return;
        }
        let eye = camera.position();
        let frame = scene.build_frame(eye);
        let opaque_tex: Vec<Vec<glow::Texture>> =
            frame.opaque.textured.iter().map(|b| self.layer_textures(Some(&b.layers))).collect();
        let run_tex: Vec<Vec<glow::Texture>> =
            frame.translucent_runs.iter().map(|r| self.layer_textures(r.layers.as_ref())).collect();
        let resident_tex: Vec<Vec<glow::Texture>> =
            frame.resident.iter().map(|m| self.layer_textures(Some(&m.layers))).collect();
        let lit_tex: Vec<(Vec<glow::Texture>, Option<glow::Texture>)> = frame
            .lit
            .iter()
            .map(|(m, lm)| (self.layer_textures(Some(&m.layers)), self.lightmap_texture(lm)))
            .collect();
        let to_light = -scene.light_dir.try_normalize().unwrap_or(glam::Vec3::NEG_Z);
        let light = (to_light.to_array(), scene.ambient.clamp(0.0, 1.0));
        let view = view_uniforms(camera, viewport, scene);
        let Some(gpu) = &mut self.gpu else { return };
        let gl = &self.gl;
        let h = self.height as i32;
        let mut calls = 0;
        let mut failed = None;
        let mut up = crate::gpu_meshes::Uploaded::default();
        let mut streamed = 0u64;
        let mut resident_draws = 0u32;
        let mut instance_bytes = 0u64;
        // SAFETY: state setting and draws with this context's program/VAO/buffer; vertex
        // bytes match the 3D layout and counts are the uploaded vertex counts.
        unsafe {
            gl.viewport(viewport.x, h - viewport.bottom(), viewport.w, viewport.h);
            gl.scissor(clip.x, h - clip.bottom(), clip.w, clip.h);
            gl.enable(glow::DEPTH_TEST);
            gl.depth_func(glow::LEQUAL);
            gl.depth_mask(true);
            let mut bits = glow::DEPTH_BUFFER_BIT;
            // With a sky, the background is its fog colour (the dome covers it).
            if let Some(c) = scene.sky.as_ref().map(|s| s.fog_color).or(scene.clear_color) {
                let c = c.to_f32();
                gl.clear_color(c[0], c[1], c[2], c[3]);
                bits |= glow::COLOR_BUFFER_BIT;
            }
            if clear {
                gl.clear(bits);
            }
            gl.use_program(Some(gpu.prog3d));
            gl.uniform_matrix_4_f32_slice(gpu.u_mvp.as_ref(), false, &view.mvp);
            gl.bind_vertex_array(Some(gpu.vao3d));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(gpu.vbo3d));
            let passes = [
                (glow::TRIANGLES, &frame.sky, false),
                (glow::TRIANGLES, &frame.opaque.triangles, true),
                (glow::LINES, &frame.opaque.lines, true),
            ];
            for (mode, verts, test) in passes {
                if verts.is_empty() {
                    continue;
                }
                if test {
                    gl.enable(glow::DEPTH_TEST);
                } else {
                    gl.disable(glow::DEPTH_TEST);
                }
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, as_bytes::<Vertex3>(verts), glow::STREAM_DRAW);
                gl.draw_arrays(mode, 0, verts.len() as i32);
                streamed += std::mem::size_of_val(verts.as_slice()) as u64;
                calls += 1;
            }
            gl.enable(glow::DEPTH_TEST);
            for (b, tex) in frame.opaque.textured.iter().zip(&opaque_tex) {
                if !b.triangles.is_empty() {
                    failed = failed.or(gpu.textured.draw(gl, tex, &b.triangles, &view).err());
                    streamed += std::mem::size_of_val(b.triangles.as_slice()) as u64;
                    calls += 1;
                }
            }
            for (m, tex) in frame.resident.iter().zip(&resident_tex) {
                match gpu.meshes.textured(gl, m.key, m.version, &m.triangles, &mut up) {
                    Ok((vao, n)) if n > 0 => {
                        failed = failed.or(gpu.textured.draw_resident(gl, tex, None, vao, n, &view).err());
                        calls += 1;
                        resident_draws += 1;
                    }
                    Ok(_) => {}
                    Err(e) => failed = failed.or(Some(e)),
                }
            }
            let (n, e) = draw_lit(gl, gpu, &frame.lit, &lit_tex, &view, &mut up);
            (calls, resident_draws, failed) = (calls + n, resident_draws + n, failed.or(e));
            let (n, bytes, e) = draw_shapes(gl, gpu, &frame, &view, light, &mut up);
            (calls, resident_draws, failed) = (calls + n, resident_draws + n, failed.or(e));
            instance_bytes += bytes;
            gl.depth_mask(false);
            for (r, tex) in frame.translucent_runs.iter().zip(&run_tex) {
                if let Some(m) = &r.resident {
                    match gpu.meshes.textured(gl, m.key, m.version, &m.triangles, &mut up) {
                        Ok((vao, n)) if n > 0 => {
                            failed =
                                failed.or(gpu.textured.draw_resident(gl, tex, None, vao, n, &view).err());
                            calls += 1;
                            resident_draws += 1;
                        }
                        Ok(_) => {}
                        Err(e) => failed = failed.or(Some(e)),
                    }
                    continue;
                }
                let verts = frame.translucent.get(r.start..r.start + r.len).unwrap_or_default();
                if r.additive {
                    gl.blend_func_separate(glow::SRC_ALPHA, glow::ONE, glow::ZERO, glow::ONE);
                }
                failed = failed.or(gpu.textured.draw(gl, tex, verts, &view).err());
                if r.additive {
                    gl.blend_func_separate(
                        glow::SRC_ALPHA,
                        glow::ONE_MINUS_SRC_ALPHA,
                        glow::ONE,
                        glow::ONE_MINUS_SRC_ALPHA,
                    );
                }
                streamed += std::mem::size_of_val(verts) as u64;
                calls += 1;
            }
            gl.depth_mask(true);
            gl.disable(glow::DEPTH_TEST);
            gl.bind_vertex_array(None);
            gl.viewport(0, 0, self.width as i32, h);
        }
        if let Some(e) = failed {
            tracing::error!(error = %e, "textured 3D draw failed");
        }
        let textured: usize = frame.opaque.textured.iter().map(|b| b.triangles.len()).sum();
        let resident = frame.resident_vertices();
        self.stats.bytes_uploaded += streamed + up.bytes;
        self.stats.resident_bytes_uploaded += up.bytes;
        self.stats.pose_bytes += frame.posed.len() as u64 * crate::gpu_meshes::POSE_BYTES + instance_bytes;
        self.stats.resident_draws += resident_draws;
        self.stats.draw_calls += calls;
        self.stats.vertices += (frame.sky.len()
            + frame.opaque.triangles.len()
            + frame.opaque.lines.len()
            + textured
            + resident
            + frame.translucent.len()) as u32;
        self.stats.triangles +=
            ((frame.opaque.triangles.len() + textured + resident + frame.translucent.len()) / 3) as u32;
        // The 2D batches expect the 2D program and texture state to be set again.
        self.batch_tex = None;
        self.apply_scissor();
    }

    /// The GL textures of a batch's layers (none for colour only), each loaded once through
    /// the texture manager, mipmapped and repeating; a layer that cannot be loaded samples
    /// white (counted in `missing_textures`, warned about once).
    fn layer_textures(&mut self, layers: Option<&Layers>) -> Vec<glow::Texture> {
        let Some(layers) = layers else { return Vec::new() };
        let mut out = Vec::with_capacity(layers.len());
        for name in layers.iter() {
            let handle = match self.retained.get(name) {
                Some(h) => Some(h.clone()),
                None if self.missing.contains(name) => None,
                None => match self.textures.load(&self.gl, name, TextureFilter::Mipmapped) {
                    Ok(h) => {
                        self.retained.insert(name.clone(), h.clone());
                        Some(h)
                    }
                    Err(_) => {
                        self.missing.insert(name.clone());
                        None
                    }
                },
            };
            if handle.is_none() {
                self.stats.missing_textures += 1;
            }
            let handle = handle.unwrap_or_else(|| self.white.clone());
            if let Some(t) = self.textures.gl_texture(&handle) {
                out.push(t);
            }
        }
        out
    }

    /// A lightmap's texture: uploaded from its image under its name on first sight and kept
    /// (until [`Renderer::purge_draw_list_textures`]); `None` if the upload fails (warned
    /// about; the mesh is drawn without it).
    fn lightmap_texture(&mut self, lm: &crate::scene::Lightmap) -> Option<glow::Texture> {
        if let Some(h) = self.retained.get(&lm.name) {
            return self.textures.gl_texture(h);
        }
        if self.missing.contains(&lm.name) {
            return None;
        }
        let handle = match self.textures.get(&lm.name) {
            Some(h) => h,
            None => {
                match self.textures.insert(&self.gl, &lm.name, (*lm.image).clone(), TextureFilter::Linear) {
                    Ok(h) => h,
                    Err(e) => {
                        tracing::warn!(lightmap = &*lm.name, error = %e, "lightmap not uploaded; drawn without it");
                        self.missing.insert(lm.name.clone());
                        return None;
                    }
                }
            }
        };
        self.retained.insert(lm.name.clone(), handle.clone());
        self.textures.gl_texture(&handle)
    }

    /// The texture for a draw-list name: a live texture of that name, else the PNG file at
    /// that path (kept until [`Renderer::purge_draw_list_textures`]).
    fn named_texture(&mut self, name: &Arc<str>) -> Option<TextureHandle> {
        if let Some(h) = self.retained.get(name) {
            return Some(h.clone());
        }
        if let Some(h) = self.textures.get(name) {
            return Some(h);
        }
        match self.textures.load(&self.gl, name, TextureFilter::Linear) {
            Ok(h) => {
                self.retained.insert(name.clone(), h.clone());
                Some(h)
            }
            Err(_) => None,
        }
    }

    /// Lets go of textures that draw lists loaded by path (they are freed if unused).
    pub fn purge_draw_list_textures(&mut self) {
        self.retained.clear();
        self.missing.clear();
    }

    /// Executes a draw list. Bad input (a missing texture, an unmatched pop) is logged and
    /// skipped so one broken control cannot stop a frame.
    pub fn execute(&mut self, list: &DrawList) {
        for cmd in &list.commands {
            match cmd {
                DrawCommand::Clear(c) => self.clear(*c),
                DrawCommand::FillRect { rect, color } => self.fill_rect(*rect, *color),
                DrawCommand::Rect { rect, color } => self.draw_rect(*rect, *color),
                DrawCommand::Line { from, to, color } => self.draw_line(*from, *to, *color),
                DrawCommand::Bitmap { texture, src, dst, modulate } => match self.named_texture(texture) {
                    Some(h) => self.draw_bitmap(&h, *src, *dst, *modulate),
                    None => {
                        self.stats.missing_textures += 1;
                        tracing::warn!(texture = &**texture, "bitmap skipped: texture not loadable");
                    }
                },
                DrawCommand::Text { size_px, pos, text, color, colors } => {
                    if let Err(e) = self.draw_text(*size_px, *pos, text, *color, colors.as_ref()) {
                        tracing::warn!(error = %e, "text skipped");
                    }
                }
                DrawCommand::PushClip(r) => self.push_clip(*r),
                DrawCommand::PopClip => {
                    if self.pop_clip().is_err() {
                        tracing::warn!("draw list pops an empty clip stack");
                    }
                }
                DrawCommand::View3d { viewport, camera, scene } => self.draw_scene(*viewport, camera, scene),
            }
        }
    }

    /// The context is gone: drop every GL name without touching GL.
    pub fn on_context_lost(&mut self) {
        self.gpu = None;
        self.batch.clear();
        self.batch_tex = None;
        self.textures.on_context_lost();
    }

    /// A new context is current: rebuild shaders and buffers and re-upload every texture
    /// (bitmaps and font atlases) from the kept images.
    pub fn on_context_restored(&mut self, gl: Rc<glow::Context>) -> Result<()> {
        self.gl = gl;
        self.gpu = Some(Gpu::new(&self.gl)?);
        self.textures.on_context_restored(&self.gl)
    }

    /// Deletes the GL objects while the context is still current.
    pub fn destroy(mut self) {
        if let Some(g) = self.gpu.take() {
            g.destroy(&self.gl);
        }
    }
}

/// Draws the lightmapped resident meshes (opaque, depth state set) with their layers and
/// lightmaps; returns the draws made and the first failure.
fn draw_lit(
    gl: &glow::Context,
    gpu: &mut Gpu,
    lit: &[(crate::scene::ResidentMesh, crate::scene::Lightmap)],
    textures: &[(Vec<glow::Texture>, Option<glow::Texture>)],
    view: &ViewUniforms,
    up: &mut crate::gpu_meshes::Uploaded,
) -> (u32, Option<RenderError>) {
    let (mut calls, mut failed) = (0, None);
    for ((m, lm), (tex, lm_tex)) in lit.iter().zip(textures) {
        let built = match lm_tex {
            Some(_) => gpu.meshes.lightmapped(gl, m.key, m.version, &m.triangles, &lm.uvs, up),
            None => gpu.meshes.textured(gl, m.key, m.version, &m.triangles, up),
        };
        match built {
            Ok((vao, n)) if n > 0 => {
                failed = failed.or(gpu.textured.draw_resident(gl, tex, *lm_tex, vao, n, view).err());
                calls += 1;
            }
            Ok(_) => {}
            Err(e) => failed = failed.or(Some(e)),
        }
    }
    (calls, failed)
}

/// Draws the shapes posed on the GPU, one by one and instanced: the draw calls, the bytes
/// of instanced poses sent, and the first failure.
fn draw_shapes(
    gl: &glow::Context,
    gpu: &mut Gpu,
    frame: &crate::frame::FrameMesh,
    view: &ViewUniforms,
    light: ([f32; 3], f32),
    up: &mut crate::gpu_meshes::Uploaded,
) -> (u32, u64, Option<RenderError>) {
    let header = gpu.textured.header;
    let (mut calls, mut failed) = (0, None);
    match gpu.meshes.draw_posed(gl, header, &frame.posed, view, light, up) {
        Ok(n) => calls += n,
        Err(e) => failed = Some(e),
    }
    match gpu.meshes.draw_instanced(gl, header, &frame.instanced, view, light, up) {
        Ok((n, bytes)) => (calls + n, bytes, failed),
        Err(e) => (calls, 0, failed.or(Some(e))),
    }
}

/// What every textured draw of a view shares: the matrix, the eye, the fog and fog layers.
fn view_uniforms(camera: &Camera, viewport: RectI, scene: &Scene) -> ViewUniforms {
    let (fog, fog_color) = match &scene.sky {
        Some(s) => ([s.fog_distance, s.visible_distance], s.fog_color),
        None => ([f32::MAX, f32::MAX], ColorI::WHITE),
    };
    let c = fog_color.to_f32();
    let (layers, layer_colors) =
        scene.sky.as_ref().map(crate::scene::Sky::layer_uniforms).unwrap_or_default();
    ViewUniforms {
        mvp: camera.view_projection(viewport).to_cols_array(),
        eye: camera.position().to_array(),
        fog,
        fog_color: [c[0], c[1], c[2]],
        layers,
        layer_colors,
    }
}

/// A 32×32 white spot whose alpha falls smoothly from 1 at the centre to 0 at the rim: what a
/// particle naming no texture looks like.
fn spot_image() -> Image {
    let mut img = Image::new(32, 32, [255, 255, 255, 0]);
    for y in 0..32u32 {
        for x in 0..32u32 {
            let (dx, dy) = ((x as f32 + 0.5) / 16.0 - 1.0, (y as f32 + 0.5) / 16.0 - 1.0);
            let d = (dx * dx + dy * dy).sqrt().min(1.0);
            let a = (1.0 - d * d) * (1.0 - d * d);
            img.put(x, y, [255, 255, 255, (a * 255.0).round() as u8]);
        }
    }
    img
}

/// Marks in the stencil buffer (value 1) the pixels of the bound triangles that nothing hides,
/// writing no colour or depth: where a mirror's reflection may be drawn.
///
/// # Safety
/// The bound program, vertex array and buffer belong to `gl`'s context and hold `count`
/// vertices.
unsafe fn mark_stencil(gl: &glow::Context, count: i32) {
    // SAFETY: the caller's contract.
    unsafe {
        gl.clear_stencil(0);
        gl.clear(glow::STENCIL_BUFFER_BIT);
        gl.color_mask(false, false, false, false);
        gl.stencil_func(glow::ALWAYS, 1, 0xff);
        gl.stencil_op(glow::KEEP, glow::KEEP, glow::REPLACE);
        gl.depth_func(glow::LEQUAL);
        gl.depth_mask(false);
        gl.draw_arrays(glow::TRIANGLES, 0, count);
    }
}
