//! GL program building, and the programs of the textured 3D path: one per layer count
//! (0 to [`MAX_LAYERS`]), compiled on first use, so a batch samples only the textures it
//! blends (an interior's faces one, the terrain its few materials; llvmpipe pays per sample).
//!
//! Terrain materials are blended here, per pixel, by the weights the vertices carry:
//! V12's Blender mixed material textures on the CPU into cached square textures, because
//! the cards of its day could not sample eight textures in one pass; today's can, with no
//! blended copies to build, cache or upload when the camera moves.
#![allow(unsafe_code)]

use crate::error::{RenderError, Result};
use crate::scene::{MAX_LAYERS, TexVertex3};
use glow::HasContext;

/// Views a slice of plain `repr(C)` vertices as bytes for upload.
pub(crate) fn as_bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: only called with Vertex2/Vertex3/TexVertex3/PosedVertex/ShapeInstance, `repr(C)`
    // structs of f32 and u8 fields with no padding (20, 16, 32, 24 and 52 bytes), `[f32; 2]`
    // lightmap coordinates and `[f32; 4]` palette texels, so every byte is initialised; the
    // length is exact.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// The GLSL version line for this context.
pub(crate) fn header(gl: &glow::Context) -> &'static str {
    if gl.version().is_embedded { "#version 300 es\nprecision highp float;\n" } else { "#version 330 core\n" }
}

/// Compiles and links a program; attribute `i` of `attribs` is bound to location `i`.
pub(crate) fn compile(
    gl: &glow::Context,
    header: &str,
    vs: &str,
    fs: &str,
    attribs: &[&str],
) -> Result<glow::Program> {
    // SAFETY: shader and program objects are created, used and deleted here on the current
    // context; sources are plain strings.
    unsafe {
        let program = gl.create_program().map_err(RenderError::Gl)?;
        let mut shaders = Vec::new();
        for (kind, src) in [(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)] {
            let s = gl.create_shader(kind).map_err(RenderError::Gl)?;
            gl.shader_source(s, &format!("{header}{src}"));
            gl.compile_shader(s);
            if !gl.get_shader_compile_status(s) {
                let log = gl.get_shader_info_log(s);
                gl.delete_shader(s);
                gl.delete_program(program);
                return Err(RenderError::Gl(format!("shader compile: {log}")));
            }
            gl.attach_shader(program, s);
            shaders.push(s);
        }
        for (i, name) in attribs.iter().enumerate() {
            gl.bind_attrib_location(program, i as u32, name);
        }
        gl.link_program(program);
        for s in shaders {
            gl.detach_shader(program, s);
            gl.delete_shader(s);
        }
        if !gl.get_program_link_status(program) {
            let log = gl.get_program_info_log(program);
            gl.delete_program(program);
            return Err(RenderError::Gl(format!("program link: {log}")));
        }
        Ok(program)
    }
}

/// The fog over a world point, for the vertex shaders: the distance fog and the sky's fog
/// layers (see `Sky::fog_at`, which computes the same on the CPU), as (colour, amount).
pub(crate) const FOG_GLSL: &str = r"
uniform vec3 u_eye;
uniform vec2 u_fog;
uniform vec3 u_fog_color;
uniform vec4 u_layers[3];
uniform vec3 u_layer_colors[3];
vec4 fog_at(vec3 p) {
    float d = distance(p, u_eye);
    float a = clamp((d - u_fog.x) / max(u_fog.y - u_fog.x, 0.001), 0.0, 1.0);
    vec3 acc = u_fog_color * a;
    float w = a;
    float clear = 1.0 - a;
    float lo = min(p.z, u_eye.z);
    float hi = max(p.z, u_eye.z);
    for (int i = 0; i < 3; i++) {
        vec4 l = u_layers[i];
        if (l.z <= 0.0) { continue; }
        float inside = hi - lo < 0.001
            ? ((lo >= l.x && lo <= l.y) ? d : 0.0)
            : d * max(min(l.y, hi) - max(l.x, lo), 0.0) / (hi - lo);
        float k = clamp(inside * l.z, 0.0, 1.0);
        acc += u_layer_colors[i] * k;
        w += k;
        clear *= 1.0 - k;
    }
    return vec4(w > 0.0 ? acc / w : u_fog_color, 1.0 - clear);
}
";

const VS_TEX: &str = r"
in vec3 a_pos;
in vec2 a_uv;
in vec4 a_color;
in vec4 a_w0;
in vec4 a_w1;
in vec2 a_lm;
uniform mat4 u_mvp;
out vec2 v_lm;
out vec2 v_uv;
out vec4 v_color;
out vec4 v_w0;
out vec4 v_w1;
out vec4 v_fog;
void main() {
    v_uv = a_uv;
    v_lm = a_lm;
    v_color = a_color;
    v_w0 = a_w0;
    v_w1 = a_w1;
    v_fog = fog_at(a_pos);
    gl_Position = u_mvp * vec4(a_pos, 1.0);
}
";

/// The fragment shader blending `n` layers: the weighted texels, topped up with white by
/// what the weights leave (so all-zero weights draw the colour alone), times the lit
/// colour, then fog. With one layer the weights are not read: the texel is the layer's. With
/// a lightmap, the lit colour is the vertex's plus the lightmap's (the map's lights, baked
/// with their shadows), at most white.
fn fragment_source(n: usize, lightmap: bool) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("uniform sampler2D u_tex{i};\n"));
    }
    if lightmap {
        s.push_str("uniform sampler2D u_lightmap;\n");
    }
    s.push_str(
        "in vec2 v_lm;\nin vec2 v_uv;\nin vec4 v_color;\nin vec4 v_w0;\nin vec4 v_w1;\n\
         in vec4 v_fog;\nout vec4 o_color;\nvoid main() {\n    vec4 t = vec4(0.0);\n    float s = 0.0;\n",
    );
    if n == 1 {
        // One layer is the whole texel (its weight is full wherever one layer is used), and
        // llvmpipe is spared interpolating and reading the weights.
        s.push_str("    t = texture(u_tex0, v_uv);\n    s = 1.0;\n");
    }
    for i in (0..n).filter(|_| n > 1) {
        let w = format!("v_w{}.{}", i / 4, ["x", "y", "z", "w"][i % 4]);
        s.push_str(&format!("    t += {w} * texture(u_tex{i}, v_uv);\n    s += {w};\n"));
    }
    if lightmap {
        s.push_str(
            "    vec4 base = t + vec4(max(1.0 - s, 0.0));\n    \
             vec3 lit = min(v_color.rgb + texture(u_lightmap, v_lm).rgb, vec3(1.0));\n    \
             vec4 c = vec4(base.rgb * lit, base.a * v_color.a);\n",
        );
    } else {
        s.push_str("    vec4 c = (t + vec4(max(1.0 - s, 0.0))) * v_color;\n");
    }
    s.push_str("    o_color = vec4(mix(c.rgb, v_fog.rgb, v_fog.a), c.a);\n}\n");
    s
}

/// Describes the [`TexVertex3`] layout (32-byte stride: 3 f32 position, 2 f32 uv, 4 u8
/// colour, 8 u8 weights) on the bound vertex array and buffer.
///
/// # Safety
/// A vertex array and an array buffer of this context must be bound.
pub(crate) unsafe fn textured_layout(gl: &glow::Context) {
    let stride = std::mem::size_of::<TexVertex3>() as i32;
    // SAFETY: the caller bound a VAO and a buffer; offsets are within the stride.
    unsafe {
        gl.enable_vertex_attrib_array(0);
        gl.vertex_attrib_pointer_f32(0, 3, glow::FLOAT, false, stride, 0);
        gl.enable_vertex_attrib_array(1);
        gl.vertex_attrib_pointer_f32(1, 2, glow::FLOAT, false, stride, 12);
        gl.enable_vertex_attrib_array(2);
        gl.vertex_attrib_pointer_f32(2, 4, glow::UNSIGNED_BYTE, true, stride, 20);
        gl.enable_vertex_attrib_array(3);
        gl.vertex_attrib_pointer_f32(3, 4, glow::UNSIGNED_BYTE, true, stride, 24);
        gl.enable_vertex_attrib_array(4);
        gl.vertex_attrib_pointer_f32(4, 4, glow::UNSIGNED_BYTE, true, stride, 28);
    }
}

/// One compiled variant and its uniforms.
struct TexProgram {
    program: glow::Program,
    u_mvp: Option<glow::UniformLocation>,
    u_eye: Option<glow::UniformLocation>,
    u_fog: Option<glow::UniformLocation>,
    u_fog_color: Option<glow::UniformLocation>,
    u_layers: Option<glow::UniformLocation>,
    u_layer_colors: Option<glow::UniformLocation>,
    u_tex: Vec<Option<glow::UniformLocation>>,
    u_lightmap: Option<glow::UniformLocation>,
}

/// What every textured draw of one view shares.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ViewUniforms {
    pub mvp: [f32; 16],
    pub eye: [f32; 3],
    /// Fog start and end distances (end = the visible distance).
    pub fog: [f32; 2],
    pub fog_color: [f32; 3],
    /// The sky's fog layers: (bottom, top, 1 / visible distance or 0, 0) each, and colours.
    pub layers: [f32; 12],
    pub layer_colors: [f32; 9],
}

/// The textured programs, their vertex array and buffer.
pub(crate) struct TexturedPrograms {
    pub(crate) header: &'static str,
    programs: Vec<Option<TexProgram>>,
    vao: glow::VertexArray,
    vbo: glow::Buffer,
}

impl TexturedPrograms {
    pub(crate) fn new(gl: &glow::Context) -> Result<Self> {
        // SAFETY: creating a buffer and VAO and describing a layout that matches TexVertex3
        // (32-byte stride: 3 f32 position, 2 f32 uv, 4 u8 colour, 8 u8 weights).
        unsafe {
            let vao = gl.create_vertex_array().map_err(RenderError::Gl)?;
            let vbo = gl.create_buffer().map_err(RenderError::Gl)?;
            gl.bind_vertex_array(Some(vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            textured_layout(gl);
            gl.bind_vertex_array(None);
            Ok(TexturedPrograms {
                header: header(gl),
                programs: (0..2 * (MAX_LAYERS + 1)).map(|_| None).collect(),
                vao,
                vbo,
            })
        }
    }

    /// The program for `n` layers (and a lightmap or not), compiled now if it is the first use.
    fn program(&mut self, gl: &glow::Context, n: usize, lightmap: bool) -> Result<&TexProgram> {
        let n = n.min(MAX_LAYERS);
        let slot = n + usize::from(lightmap) * (MAX_LAYERS + 1);
        if self.programs[slot].is_none() {
            let attribs = ["a_pos", "a_uv", "a_color", "a_w0", "a_w1", "a_lm"];
            let vs = format!("{FOG_GLSL}{VS_TEX}");
            let program = compile(gl, self.header, &vs, &fragment_source(n, lightmap), &attribs)?;
            // SAFETY: uniform lookups on the program just linked.
            let p = unsafe {
                TexProgram {
                    u_mvp: gl.get_uniform_location(program, "u_mvp"),
                    u_eye: gl.get_uniform_location(program, "u_eye"),
                    u_fog: gl.get_uniform_location(program, "u_fog"),
                    u_fog_color: gl.get_uniform_location(program, "u_fog_color"),
                    u_layers: gl.get_uniform_location(program, "u_layers"),
                    u_layer_colors: gl.get_uniform_location(program, "u_layer_colors"),
                    u_tex: (0..n).map(|i| gl.get_uniform_location(program, &format!("u_tex{i}"))).collect(),
                    u_lightmap: gl.get_uniform_location(program, "u_lightmap"),
                    program,
                }
            };
            self.programs[slot] = Some(p);
        }
        self.programs[slot].as_ref().ok_or_else(|| RenderError::Gl("textured program".into()))
    }

    /// Draws `verts` (whole triangles) blending `textures` (one a layer, in order) with the
    /// depth state already set. Leaves texture unit 0 active.
    pub(crate) fn draw(
        &mut self,
        gl: &glow::Context,
        textures: &[glow::Texture],
        verts: &[TexVertex3],
        view: &ViewUniforms,
    ) -> Result<()> {
        let (vao, vbo) = (self.vao, self.vbo);
        self.bind(gl, textures, None, view)?;
        // SAFETY: the VAO and buffer belong to this context; the vertex bytes match the
        // layout described in `new`.
        unsafe {
            gl.bind_vertex_array(Some(vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(vbo));
            gl.buffer_data_u8_slice(glow::ARRAY_BUFFER, as_bytes(verts), glow::STREAM_DRAW);
            gl.draw_arrays(glow::TRIANGLES, 0, (verts.len() / 3 * 3) as i32);
        }
        Ok(())
    }

    /// Draws `count` vertices of a resident mesh's vertex array (see [`Self::draw`]), lit
    /// by `lightmap` too when given (the vertex array then has its coordinates).
    pub(crate) fn draw_resident(
        &mut self,
        gl: &glow::Context,
        textures: &[glow::Texture],
        lightmap: Option<glow::Texture>,
        vao: glow::VertexArray,
        count: i32,
        view: &ViewUniforms,
    ) -> Result<()> {
        self.bind(gl, textures, lightmap, view)?;
        // SAFETY: the VAO belongs to this context and holds at least `count` vertices.
        unsafe {
            gl.bind_vertex_array(Some(vao));
            gl.draw_arrays(glow::TRIANGLES, 0, count);
        }
        Ok(())
    }

    /// Uses the program for `textures` with the view's uniforms and binds the textures.
    fn bind(
        &mut self,
        gl: &glow::Context,
        textures: &[glow::Texture],
        lightmap: Option<glow::Texture>,
        view: &ViewUniforms,
    ) -> Result<()> {
        let p = self.program(gl, textures.len(), lightmap.is_some())?;
        // SAFETY: the program belongs to this context; texture units are within the 16 GL
        // 3.3 guarantees.
        unsafe {
            gl.use_program(Some(p.program));
            gl.uniform_matrix_4_f32_slice(p.u_mvp.as_ref(), false, &view.mvp);
            gl.uniform_3_f32_slice(p.u_eye.as_ref(), &view.eye);
            gl.uniform_2_f32_slice(p.u_fog.as_ref(), &view.fog);
            gl.uniform_3_f32_slice(p.u_fog_color.as_ref(), &view.fog_color);
            gl.uniform_4_f32_slice(p.u_layers.as_ref(), &view.layers);
            gl.uniform_3_f32_slice(p.u_layer_colors.as_ref(), &view.layer_colors);
            for (i, (tex, loc)) in textures.iter().zip(&p.u_tex).enumerate() {
                gl.active_texture(glow::TEXTURE0 + i as u32);
                gl.bind_texture(glow::TEXTURE_2D, Some(*tex));
                gl.uniform_1_i32(loc.as_ref(), i as i32);
            }
            if let Some(lm) = lightmap {
                let unit = MAX_LAYERS as u32;
                gl.active_texture(glow::TEXTURE0 + unit);
                gl.bind_texture(glow::TEXTURE_2D, Some(lm));
                gl.uniform_1_i32(p.u_lightmap.as_ref(), unit as i32);
            }
            gl.active_texture(glow::TEXTURE0);
        }
        Ok(())
    }

    pub(crate) fn destroy(self, gl: &glow::Context) {
        // SAFETY: these objects belong to `gl` and are not used after this.
        unsafe {
            for p in self.programs.into_iter().flatten() {
                gl.delete_program(p.program);
            }
            gl.delete_vertex_array(self.vao);
            gl.delete_buffer(self.vbo);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vertex_is_32_bytes_with_no_padding() {
        assert_eq!(std::mem::size_of::<TexVertex3>(), 32);
    }

    #[test]
    fn each_variant_samples_only_its_layers() {
        assert!(!fragment_source(0, false).contains("texture("));
        assert!(!fragment_source(1, false).contains("v_w0.x *"), "one layer reads no weights");
        let three = fragment_source(3, false);
        assert_eq!(three.matches("texture(").count(), 3);
        assert!(three.contains("v_w0.z * texture(u_tex2"));
        assert!(fragment_source(MAX_LAYERS, false).contains("v_w1.w * texture(u_tex7"));
        assert_eq!(fragment_source(1, true).matches("texture(").count(), 2, "the layer and the lightmap");
    }
}
