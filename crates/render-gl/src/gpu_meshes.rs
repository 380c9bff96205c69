//! The renderer's side of [`crate::resident`]: one GL buffer (and vertex array) a mesh key,
//! uploaded when the key is new or its version changed, freed when unused for
//! [`EVICT_AFTER_FRAMES`] frames or when more than [`MAX_RESIDENT_MESHES`] are kept; and the
//! program that poses and lights a shape's mesh on the GPU.
#![allow(unsafe_code)]

use crate::error::{RenderError, Result};
use crate::resident::{MeshKey, PosedVertex};
use crate::scene::{InstancedShape, PosedMesh, ShapeInstance, TexVertex3};
use crate::shader::{ViewUniforms, as_bytes, compile};
use glow::HasContext;
use std::collections::HashMap;

/// Frames a resident mesh may go undrawn before its buffer is freed.
pub const EVICT_AFTER_FRAMES: u64 = 240;
/// Most meshes kept at once; past it the least recently drawn go first.
pub const MAX_RESIDENT_MESHES: usize = 16_384;

/// Which vertex layout a buffer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Textured,
    Posed,
    /// Textured, with a second buffer of lightmap coordinates (attribute 5).
    Lightmapped,
}

struct GpuMesh {
    vao: glow::VertexArray,
    vbo: glow::Buffer,
    /// The lightmap coordinates' buffer of a lightmapped mesh.
    vbo2: Option<glow::Buffer>,
    version: u64,
    layout: Layout,
    vertices: i32,
    last_drawn: u64,
    bytes: usize,
}

/// What the cache did this frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Uploaded {
    pub bytes: u64,
}

const VS_POSED: &str = r"
in vec3 a_pos;
in vec3 a_normal;
uniform mat4 u_mvp;
uniform mat4 u_model;
uniform vec4 u_color;
uniform vec3 u_to_light;
uniform float u_ambient;
out vec4 v_color;
out vec4 v_fog;
void shade(mat4 model);
void main() {
    shade(u_model);
}
";

/// The end of both vertex shaders: a vertex placed by `model`, lit by the light, fogged and
/// projected (declared before their `main`, defined after it).
const VS_SHADE: &str = r"
void shade(mat4 model) {
    vec4 w = model * vec4(a_pos, 1.0);
    vec3 n = mat3(model) * a_normal;
    float len = length(n);
    n = len > 0.0 ? n / len : vec3(0.0, 0.0, 1.0);
    float k = u_ambient + (1.0 - u_ambient) * max(dot(n, u_to_light), 0.0);
    v_color = vec4(clamp(u_color.rgb * k, 0.0, 1.0), u_color.a);
    v_fog = fog_at(w.xyz);
    gl_Position = u_mvp * w;
}
";

const FS_POSED: &str = r"
in vec4 v_color;
in vec4 v_fog;
out vec4 o_color;
void main() {
    o_color = vec4(mix(v_color.rgb, v_fog.rgb, v_fog.a), v_color.a);
}
";

/// The instanced shapes' vertex shader: each instance's placement (three rows) and pose in
/// attributes, the pose's node matrices read from the palette texture (three texels a
/// matrix, `u_width` texels a row), then [`VS_SHADE`] lights it.
const VS_INSTANCED: &str = r"
in vec3 a_pos;
in vec3 a_normal;
in vec4 a_row0;
in vec4 a_row1;
in vec4 a_row2;
in float a_pose;
uniform mat4 u_mvp;
uniform sampler2D u_palette;
uniform int u_width;
uniform int u_nodes;
uniform int u_node;
uniform vec4 u_color;
uniform vec3 u_to_light;
uniform float u_ambient;
out vec4 v_color;
out vec4 v_fog;
vec4 texel(int t) {
    return texelFetch(u_palette, ivec2(t % u_width, t / u_width), 0);
}
mat4 from_rows(vec4 r0, vec4 r1, vec4 r2) {
    return transpose(mat4(r0, r1, r2, vec4(0.0, 0.0, 0.0, 1.0)));
}
void shade(mat4 model);
void main() {
    int m = (int(a_pose + 0.5) * u_nodes + u_node) * 3;
    shade(from_rows(a_row0, a_row1, a_row2) * from_rows(texel(m), texel(m + 1), texel(m + 2)));
}
";

struct PosedProgram {
    program: glow::Program,
    u: [Option<glow::UniformLocation>; 10],
}

/// The instanced program, its palette texture and instance buffer.
struct InstancedProgram {
    program: glow::Program,
    /// `u_mvp`, `u_to_light`, `u_ambient`, the fog's five, then `u_palette`, `u_width`,
    /// `u_nodes`, `u_node`, `u_color`.
    u: [Option<glow::UniformLocation>; 13],
    palette: glow::Texture,
    instances: glow::Buffer,
}

/// The texture unit the palette is read from (above the textured programs' layers and
/// lightmap).
const PALETTE_UNIT: u32 = 10;
/// The palette texture's width in texels.
const PALETTE_WIDTH: usize = 1024;

/// The resident buffers and the posing programs.
pub(crate) struct GpuMeshes {
    meshes: HashMap<MeshKey, GpuMesh>,
    posed: Option<PosedProgram>,
    instanced: Option<InstancedProgram>,
    frame: u64,
}

/// Bytes of uniforms one posed draw sends (a matrix and a colour).
pub(crate) const POSE_BYTES: u64 = 16 * 4 + 4 * 4;

impl GpuMeshes {
    pub(crate) fn new() -> Self {
        GpuMeshes { meshes: HashMap::new(), posed: None, instanced: None, frame: 0 }
    }

    pub(crate) fn len(&self) -> usize {
        self.meshes.len()
    }

    /// Bytes held in GPU buffers.
    pub(crate) fn bytes(&self) -> usize {
        self.meshes.values().map(|m| m.bytes).sum()
    }

    /// A new frame: frees what has gone undrawn too long.
    pub(crate) fn begin_frame(&mut self, gl: &glow::Context) {
        self.frame += 1;
        let now = self.frame;
        let stale: Vec<MeshKey> = self
            .meshes
            .iter()
            .filter(|(_, m)| now.saturating_sub(m.last_drawn) > EVICT_AFTER_FRAMES)
            .map(|(k, _)| *k)
            .collect();
        for k in stale {
            self.free(gl, k);
        }
    }

    fn free(&mut self, gl: &glow::Context, key: MeshKey) {
        if let Some(m) = self.meshes.remove(&key) {
            // SAFETY: the buffer and VAO belong to this context and are not used after this.
            unsafe {
                gl.delete_vertex_array(m.vao);
                gl.delete_buffer(m.vbo);
                if let Some(b) = m.vbo2 {
                    gl.delete_buffer(b);
                }
            }
        }
    }

    /// The vertex array of `key` holding `verts` at `version`, uploaded now if needed.
    fn ensure<T: Copy>(
        &mut self,
        gl: &glow::Context,
        key: MeshKey,
        version: u64,
        (layout, lightmap_uvs): (Layout, Option<&[[f32; 2]]>),
        verts: &[T],
        up: &mut Uploaded,
    ) -> Result<(glow::VertexArray, i32)> {
        let frame = self.frame;
        if let Some(m) = self.meshes.get_mut(&key)
            && m.version == version
            && m.layout == layout
        {
            m.last_drawn = frame;
            return Ok((m.vao, m.vertices));
        }
        self.free(gl, key);
        if self.meshes.len() >= MAX_RESIDENT_MESHES
            && let Some(oldest) = self.meshes.iter().min_by_key(|(_, m)| m.last_drawn).map(|(k, _)| *k)
        {
            self.free(gl, oldest);
        }
        let bytes = as_bytes(verts);
        let count = (verts.len() / 3 * 3).min(i32::MAX as usize) as i32;
        // SAFETY: new buffer and VAO on this context; the attribute layout matches the vertex
        // type of `layout` (TexVertex3: 32-byte stride; PosedVertex: 24-byte stride).
        let mut extra = 0;
        let (vao, vbo, vbo2) = unsafe {
            let vao = gl.create_vertex_array().map_err(RenderError::Gl)?;
            let vbo = gl.create_buffer().map_err(RenderError::Gl)?;
            gl.bind_vertex_array(Some(vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, bytes, glow::STATIC_DRAW);
            let mut vbo2 = None;
            match layout {
                Layout::Textured => crate::shader::textured_layout(gl),
                Layout::Lightmapped => {
                    crate::shader::textured_layout(gl);
                    let uvs = lightmap_uvs.unwrap_or_default();
                    let b = gl.create_buffer().map_err(RenderError::Gl)?;
                    gl.bind_buffer(glow::ARRAY_BUFFER, Some(b));
                    gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, as_bytes(uvs), glow::STATIC_DRAW);
                    gl.enable_vertex_attrib_array(5);
                    gl.vertex_attrib_pointer_f32(5, 2, glow::FLOAT, false, 8, 0);
                    extra = std::mem::size_of_val(uvs);
                    vbo2 = Some(b);
                }
                Layout::Posed => {
                    let stride = std::mem::size_of::<PosedVertex>() as i32;
                    gl.enable_vertex_attrib_array(0);
                    gl.vertex_attrib_pointer_f32(0, 3, glow::FLOAT, false, stride, 0);
                    gl.enable_vertex_attrib_array(1);
                    gl.vertex_attrib_pointer_f32(1, 3, glow::FLOAT, false, stride, 12);
                }
            }
            gl.bind_vertex_array(None);
            (vao, vbo, vbo2)
        };
        up.bytes += (bytes.len() + extra) as u64;
        self.meshes.insert(
            key,
            GpuMesh {
                vao,
                vbo,
                vbo2,
                version,
                layout,
                vertices: count,
                last_drawn: frame,
                bytes: bytes.len() + extra,
            },
        );
        Ok((vao, count))
    }

    /// The vertex array of a textured resident mesh (uploaded if new or changed).
    pub(crate) fn textured(
        &mut self,
        gl: &glow::Context,
        key: MeshKey,
        version: u64,
        verts: &[TexVertex3],
        up: &mut Uploaded,
    ) -> Result<(glow::VertexArray, i32)> {
        self.ensure(gl, key, version, (Layout::Textured, None), verts, up)
    }

    /// The vertex array of a lightmapped resident mesh: its vertices and, per vertex, its
    /// lightmap coordinate (as many as the vertices; missing ones read 0, 0).
    pub(crate) fn lightmapped(
        &mut self,
        gl: &glow::Context,
        key: MeshKey,
        version: u64,
        verts: &[TexVertex3],
        uvs: &[[f32; 2]],
        up: &mut Uploaded,
    ) -> Result<(glow::VertexArray, i32)> {
        let count = (verts.len() / 3 * 3).min(uvs.len() / 3 * 3);
        self.ensure(gl, key, version, (Layout::Lightmapped, Some(&uvs[..count])), &verts[..count], up)
    }

    /// Draws posed meshes (opaque) with the depth state already set.
    pub(crate) fn draw_posed(
        &mut self,
        gl: &glow::Context,
        header: &str,
        meshes: &[PosedMesh],
        view: &ViewUniforms,
        light: ([f32; 3], f32),
        up: &mut Uploaded,
    ) -> Result<u32> {
        if meshes.is_empty() {
            return Ok(0);
        }
        if self.posed.is_none() {
            let vs = format!("{}{VS_POSED}{VS_SHADE}", crate::shader::FOG_GLSL);
            let program = compile(gl, header, &vs, FS_POSED, &["a_pos", "a_normal"])?;
            let names = [
                "u_mvp",
                "u_model",
                "u_color",
                "u_to_light",
                "u_ambient",
                "u_eye",
                "u_fog",
                "u_fog_color",
                "u_layers",
                "u_layer_colors",
            ];
            // SAFETY: uniform lookups on the program just linked.
            let u = names.map(|n| unsafe { gl.get_uniform_location(program, n) });
            self.posed = Some(PosedProgram { program, u });
        }
        let mut calls = 0;
        let mut arrays = Vec::with_capacity(meshes.len());
        for m in meshes {
            arrays.push(self.ensure(gl, m.key, m.version, (Layout::Posed, None), &m.vertices, up)?);
        }
        let Some(p) = &self.posed else { return Ok(0) };
        // SAFETY: the program and VAOs belong to this context; counts are the uploaded counts.
        unsafe {
            gl.use_program(Some(p.program));
            let u = &p.u;
            set_view_uniforms(gl, [&u[0], &u[3], &u[4], &u[5], &u[6], &u[7], &u[8], &u[9]], view, light);
            for (m, (vao, count)) in meshes.iter().zip(arrays) {
                if count == 0 {
                    continue;
                }
                let c = m.color.map(|x| f32::from(x) / 255.0);
                gl.uniform_matrix_4_f32_slice(p.u[1].as_ref(), false, &m.model.to_cols_array());
                gl.uniform_4_f32_slice(p.u[2].as_ref(), &c);
                gl.bind_vertex_array(Some(vao));
                gl.draw_arrays(glow::TRIANGLES, 0, count);
                calls += 1;
            }
        }
        Ok(calls)
    }

    /// The instanced program, built on first use.
    fn instanced_program(&mut self, gl: &glow::Context, header: &str) -> Result<&InstancedProgram> {
        if self.instanced.is_none() {
            let vs = format!("{}{VS_INSTANCED}{VS_SHADE}", crate::shader::FOG_GLSL);
            let attribs = ["a_pos", "a_normal", "a_row0", "a_row1", "a_row2", "a_pose"];
            let program = compile(gl, header, &vs, FS_POSED, &attribs)?;
            let names = [
                "u_mvp",
                "u_to_light",
                "u_ambient",
                "u_eye",
                "u_fog",
                "u_fog_color",
                "u_layers",
                "u_layer_colors",
                "u_palette",
                "u_width",
                "u_nodes",
                "u_node",
                "u_color",
            ];
            // SAFETY: uniform lookups on the program just linked; a new texture and buffer on
            // this context.
            let made = unsafe {
                let u = names.map(|n| gl.get_uniform_location(program, n));
                let palette = gl.create_texture().map_err(RenderError::Gl)?;
                gl.active_texture(glow::TEXTURE0 + PALETTE_UNIT);
                gl.bind_texture(glow::TEXTURE_2D, Some(palette));
                gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
                gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, glow::NEAREST as i32);
                gl.active_texture(glow::TEXTURE0);
                let instances = gl.create_buffer().map_err(RenderError::Gl)?;
                InstancedProgram { program, u, palette, instances }
            };
            self.instanced = Some(made);
        }
        self.instanced.as_ref().ok_or_else(|| RenderError::Gl("no instanced program".into()))
    }

    /// Draws instanced shapes (their opaque parts) with the depth state already set: per
    /// shape its palette and instances are sent, then one instanced draw a part. Returns the
    /// draw calls and the bytes of palettes and instances sent.
    pub(crate) fn draw_instanced(
        &mut self,
        gl: &glow::Context,
        header: &str,
        shapes: &[std::sync::Arc<InstancedShape>],
        view: &ViewUniforms,
        light: ([f32; 3], f32),
        up: &mut Uploaded,
    ) -> Result<(u32, u64)> {
        let drawn: Vec<_> =
            shapes.iter().map(|s| (s, s.drawable_instances())).filter(|(_, d)| !d.is_empty()).collect();
        for s in shapes {
            if s.poses.len() > crate::scene::MAX_PALETTE_MATRICES {
                tracing::warn!(
                    matrices = s.poses.len(),
                    "an instanced shape's palette is too big; not drawn"
                );
            }
        }
        if drawn.is_empty() {
            return Ok((0, 0));
        }
        let mut arrays = Vec::new();
        for (s, _) in &drawn {
            for part in s.parts.iter().filter(|p| p.color[3] == 255) {
                arrays.push(self.ensure(
                    gl,
                    part.key,
                    part.version,
                    (Layout::Posed, None),
                    &part.vertices,
                    up,
                )?);
            }
        }
        let p = self.instanced_program(gl, header)?;
        let (mut calls, mut bytes) = (0, 0u64);
        let mut arrays = arrays.into_iter();
        let stride = std::mem::size_of::<ShapeInstance>() as i32;
        // SAFETY: the program, texture, buffer and VAOs belong to this context; the palette
        // data is `width × height` texels of four floats; counts are the uploaded counts and
        // the instance buffer holds `instances` records of `stride` bytes.
        unsafe {
            gl.use_program(Some(p.program));
            let u = &p.u;
            set_view_uniforms(gl, [&u[0], &u[1], &u[2], &u[3], &u[4], &u[5], &u[6], &u[7]], view, light);
            gl.uniform_1_i32(p.u[8].as_ref(), PALETTE_UNIT as i32);
            gl.active_texture(glow::TEXTURE0 + PALETTE_UNIT);
            gl.bind_texture(glow::TEXTURE_2D, Some(p.palette));
            for (s, inst) in &drawn {
                let texels: Vec<[f32; 4]> = s.poses.iter().flatten().copied().collect();
                let width = texels.len().clamp(1, PALETTE_WIDTH);
                let height = texels.len().div_ceil(width).max(1);
                let mut data = texels;
                data.resize(width * height, [0.0; 4]);
                gl.tex_image_2d(
                    glow::TEXTURE_2D,
                    0,
                    glow::RGBA32F as i32,
                    width as i32,
                    height as i32,
                    0,
                    glow::RGBA,
                    glow::FLOAT,
                    glow::PixelUnpackData::Slice(Some(as_bytes(&data))),
                );
                gl.bind_buffer(glow::ARRAY_BUFFER, Some(p.instances));
                gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, as_bytes(inst), glow::STREAM_DRAW);
                bytes +=
                    (std::mem::size_of_val(s.poses.as_slice()) + std::mem::size_of_val(&inst[..])) as u64;
                gl.uniform_1_i32(p.u[9].as_ref(), width as i32);
                gl.uniform_1_i32(p.u[10].as_ref(), s.nodes.min(i32::MAX as u32) as i32);
                let n = inst.len().min(i32::MAX as usize) as i32;
                for part in s.parts.iter().filter(|p| p.color[3] == 255) {
                    let Some((vao, count)) = arrays.next() else { break };
                    if count == 0 || n == 0 {
                        continue;
                    }
                    gl.uniform_1_i32(p.u[11].as_ref(), part.node.min(i32::MAX as u32) as i32);
                    gl.uniform_4_f32_slice(p.u[12].as_ref(), &part.color.map(|x| f32::from(x) / 255.0));
                    gl.bind_vertex_array(Some(vao));
                    gl.bind_buffer(glow::ARRAY_BUFFER, Some(p.instances));
                    for row in 0..3u32 {
                        gl.enable_vertex_attrib_array(2 + row);
                        gl.vertex_attrib_pointer_f32(2 + row, 4, glow::FLOAT, false, stride, 16 * row as i32);
                        gl.vertex_attrib_divisor(2 + row, 1);
                    }
                    gl.enable_vertex_attrib_array(5);
                    gl.vertex_attrib_pointer_f32(5, 1, glow::FLOAT, false, stride, 48);
                    gl.vertex_attrib_divisor(5, 1);
                    gl.draw_arrays_instanced(glow::TRIANGLES, 0, count, n);
                    for a in 2..6 {
                        gl.vertex_attrib_divisor(a, 0);
                        gl.disable_vertex_attrib_array(a);
                    }
                    calls += 1;
                }
            }
            gl.active_texture(glow::TEXTURE0);
            gl.bind_vertex_array(None);
        }
        Ok((calls, bytes))
    }

    pub(crate) fn destroy(&mut self, gl: &glow::Context) {
        let keys: Vec<MeshKey> = self.meshes.keys().copied().collect();
        for k in keys {
            self.free(gl, k);
        }
        if let Some(p) = self.posed.take() {
            // SAFETY: the program belongs to this context and is not used after this.
            unsafe { gl.delete_program(p.program) };
        }
        if let Some(p) = self.instanced.take() {
            // SAFETY: the program, texture and buffer belong to this context and are not used
            // after this.
            unsafe {
                gl.delete_program(p.program);
                gl.delete_texture(p.palette);
                gl.delete_buffer(p.instances);
            }
        }
    }
}

/// Sets what every GPU-posed program takes of the view: `u` holds the locations of the mvp,
/// the light's direction and ambient, the eye, the fog, its colour, the fog layers and their
/// colours, in that order (the two programs number their uniforms differently).
///
/// # Safety
/// The locations belong to the program in use on `gl`'s context.
unsafe fn set_view_uniforms(
    gl: &glow::Context,
    u: [&Option<glow::UniformLocation>; 8],
    view: &ViewUniforms,
    light: ([f32; 3], f32),
) {
    // SAFETY: the caller's contract.
    unsafe {
        gl.uniform_matrix_4_f32_slice(u[0].as_ref(), false, &view.mvp);
        gl.uniform_3_f32_slice(u[1].as_ref(), &light.0);
        gl.uniform_1_f32(u[2].as_ref(), light.1);
        gl.uniform_3_f32_slice(u[3].as_ref(), &view.eye);
        gl.uniform_2_f32_slice(u[4].as_ref(), &view.fog);
        gl.uniform_3_f32_slice(u[5].as_ref(), &view.fog_color);
        gl.uniform_4_f32_slice(u[6].as_ref(), &view.layers);
        gl.uniform_3_f32_slice(u[7].as_ref(), &view.layer_colors);
    }
}
