//! Bitmaps (V12 reference page Graphics: GBitmap): PNG, JPEG, GIF and BMP decoded through the
//! `image` crate, mip levels, and the 8-bit palettised format standing for Tribes 2's `.bm8`.
//!
//! A [`Bitmap`] holds level 0 and, once [`Bitmap::extrude_mip_levels`] ran, every smaller
//! level down to 1×1 (each half the one before, rounded down, at least 1), as GBitmap's
//! `extrudeMipLevels` did. Pixels are RGBA, 8 bits a channel, or 8-bit indices into a palette
//! of up to 256 RGBA colours.
//!
//! The palettised form is made by NeuQuant colour quantisation (the `color_quant` crate of the
//! image-rs project). Its file, `.bm8`, is ours: Tribes 2's own `.bm8` layout is not in
//! V12's public documentation. Layout (little-endian): the magic `V12B`, a version byte (1), width
//! and height as
//! `u16`, the palette length as `u16` (1..=256), the palette as RGBA bytes, then one index a
//! pixel, rows top to bottom. Mip levels are not stored; they are made on load when wanted.

use std::fmt;
use std::io::Cursor;

/// Largest side a bitmap may have, decoded or read (hostile files claim more).
pub const MAX_SIDE: u32 = 8192;

/// Most bytes a decoder may allocate for one image.
const MAX_DECODE_ALLOC: u64 = 256 << 20;

const BM8_MAGIC: &[u8; 4] = b"V12B";
const BM8_VERSION: u8 = 1;

/// How the pixels are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitmapFormat {
    /// Four bytes a pixel: red, green, blue, alpha.
    Rgba8,
    /// One byte a pixel: an index into the palette.
    Palettized8,
}

impl BitmapFormat {
    /// Bytes a pixel.
    pub fn bytes_per_pixel(self) -> usize {
        match self {
            BitmapFormat::Rgba8 => 4,
            BitmapFormat::Palettized8 => 1,
        }
    }
}

/// Why a bitmap could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitmapError(pub String);

impl fmt::Display for BitmapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BitmapError {}

fn err<T>(why: impl Into<String>) -> Result<T, BitmapError> {
    Err(BitmapError(why.into()))
}

/// An image with its mip levels (V12's GBitmap).
#[derive(Clone, PartialEq, Eq)]
pub struct Bitmap {
    format: BitmapFormat,
    width: u32,
    height: u32,
    /// Level 0 first.
    levels: Vec<Vec<u8>>,
    /// The colours of a palettised bitmap.
    palette: Vec<[u8; 4]>,
}

impl fmt::Debug for Bitmap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bitmap")
            .field("format", &self.format)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("levels", &self.levels.len())
            .field("palette", &self.palette.len())
            .finish()
    }
}

/// The size of mip level `level` of a `width`×`height` image.
pub fn level_size(width: u32, height: u32, level: usize) -> (u32, u32) {
    let shift = level.min(31) as u32;
    ((width >> shift).max(1), (height >> shift).max(1))
}

fn check_side(width: u32, height: u32) -> Result<(), BitmapError> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return err(format!("{width}x{height} is not a bitmap size (1 to {MAX_SIDE} a side)"));
    }
    Ok(())
}

impl Bitmap {
    /// An RGBA bitmap from its pixels, rows top to bottom.
    pub fn from_rgba(width: u32, height: u32, pixels: Vec<u8>) -> Result<Self, BitmapError> {
        check_side(width, height)?;
        if pixels.len() != width as usize * height as usize * 4 {
            return err(format!("{} bytes is not {width}x{height} RGBA pixels", pixels.len()));
        }
        Ok(Bitmap { format: BitmapFormat::Rgba8, width, height, levels: vec![pixels], palette: Vec::new() })
    }

    /// Decodes PNG, JPEG, GIF (the first frame) or BMP, told apart by their contents; the
    /// result is RGBA. Sizes over [`MAX_SIDE`] and truncated or corrupt files are errors.
    pub fn decode(bytes: &[u8]) -> Result<Self, BitmapError> {
        let rgba = decode_limited(bytes)?.into_rgba8();
        let (w, h) = rgba.dimensions();
        Bitmap::from_rgba(w, h, rgba.into_raw())
    }

    /// How the pixels are stored.
    pub fn format(&self) -> BitmapFormat {
        self.format
    }

    /// Width of level 0.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height of level 0.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Levels held (1 until [`Self::extrude_mip_levels`]).
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// The pixels of a level, rows top to bottom.
    pub fn level(&self, level: usize) -> Option<&[u8]> {
        self.levels.get(level).map(Vec::as_slice)
    }

    /// The palette of a palettised bitmap (empty for RGBA).
    pub fn palette(&self) -> &[[u8; 4]] {
        &self.palette
    }

    /// The RGBA colour at (`x`, `y`) of a level; `None` outside it.
    pub fn pixel(&self, level: usize, x: u32, y: u32) -> Option<[u8; 4]> {
        let (w, h) = level_size(self.width, self.height, level);
        if x >= w || y >= h {
            return None;
        }
        let data = self.levels.get(level)?;
        let i = y as usize * w as usize + x as usize;
        match self.format {
            BitmapFormat::Rgba8 => data.get(i * 4..i * 4 + 4).map(|p| [p[0], p[1], p[2], p[3]]),
            BitmapFormat::Palettized8 => self.palette.get(*data.get(i)? as usize).copied(),
        }
    }

    /// Makes every mip level down to 1×1 by averaging 2×2 blocks (a side of 1 averages
    /// 2×1 or 1×2). A palettised bitmap averages the colours and takes the nearest palette
    /// entry.
    pub fn extrude_mip_levels(&mut self) {
        self.levels.truncate(1);
        let mut level = 0;
        loop {
            let (w, h) = level_size(self.width, self.height, level);
            if w == 1 && h == 1 {
                break;
            }
            let (nw, nh) = level_size(self.width, self.height, level + 1);
            let mut next = Vec::with_capacity(nw as usize * nh as usize * self.format.bytes_per_pixel());
            for y in 0..nh {
                for x in 0..nw {
                    let mut sum = [0u32; 4];
                    let mut n = 0;
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        if let Some(p) = self.pixel(level, (2 * x + dx).min(w - 1), (2 * y + dy).min(h - 1)) {
                            for c in 0..4 {
                                sum[c] += u32::from(p[c]);
                            }
                            n += 1;
                        }
                    }
                    let avg = sum.map(|s| (s + n / 2) / n.max(1)).map(|v| v as u8);
                    match self.format {
                        BitmapFormat::Rgba8 => next.extend_from_slice(&avg),
                        BitmapFormat::Palettized8 => next.push(nearest(&self.palette, avg)),
                    }
                }
            }
            self.levels.push(next);
            level += 1;
        }
    }

    /// The same image as RGBA (level 0 only).
    pub fn to_rgba(&self) -> Bitmap {
        match self.format {
            BitmapFormat::Rgba8 => Bitmap { levels: vec![self.levels[0].clone()], ..self.clone() },
            BitmapFormat::Palettized8 => {
                let pixels = self.levels[0]
                    .iter()
                    .flat_map(|&i| self.palette.get(i as usize).copied().unwrap_or([0; 4]))
                    .collect();
                Bitmap {
                    format: BitmapFormat::Rgba8,
                    width: self.width,
                    height: self.height,
                    levels: vec![pixels],
                    palette: Vec::new(),
                }
            }
        }
    }

    /// The image reduced to at most `colors` colours (2..=256), the 8-bit palettised form
    /// (Tribes 2's Bm8), level 0 only. An image with no more distinct colours than that keeps
    /// them exactly; others are quantised with NeuQuant, which learns a palette from the
    /// pixels (and needs a few thousand of them to learn well).
    pub fn to_palettized(&self, colors: usize) -> Bitmap {
        let rgba = self.to_rgba();
        let pixels = &rgba.levels[0];
        let colors = colors.clamp(2, 256);
        let (palette, indices) = match exact_palette(pixels, colors) {
            Some(exact) => exact,
            None => {
                // Sampling factor 1 looks at every pixel, 30 at one in thirty; 10 is
                // NeuQuant's documented balance of speed and quality.
                let quant = color_quant::NeuQuant::new(10, colors, pixels);
                let palette =
                    quant.color_map_rgba().chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();
                let indices = pixels.chunks_exact(4).map(|p| quant.index_of(p) as u8).collect();
                (palette, indices)
            }
        };
        Bitmap {
            format: BitmapFormat::Palettized8,
            width: self.width,
            height: self.height,
            levels: vec![indices],
            palette,
        }
    }

    /// The `.bm8` file of a palettised bitmap (see the module documentation); an RGBA bitmap
    /// is quantised to 256 colours first.
    pub fn write_bm8(&self) -> Vec<u8> {
        let quantised;
        let b = match self.format {
            BitmapFormat::Palettized8 => self,
            BitmapFormat::Rgba8 => {
                quantised = self.to_palettized(256);
                &quantised
            }
        };
        let mut out = Vec::with_capacity(11 + b.palette.len() * 4 + b.levels[0].len());
        out.extend_from_slice(BM8_MAGIC);
        out.push(BM8_VERSION);
        out.extend_from_slice(&(b.width as u16).to_le_bytes());
        out.extend_from_slice(&(b.height as u16).to_le_bytes());
        out.extend_from_slice(&(b.palette.len() as u16).to_le_bytes());
        for c in &b.palette {
            out.extend_from_slice(c);
        }
        out.extend_from_slice(&b.levels[0]);
        out
    }

    /// Reads a `.bm8` file. Every count is checked against what the file holds, and every
    /// index against the palette.
    pub fn read_bm8(bytes: &[u8]) -> Result<Bitmap, BitmapError> {
        let Some(rest) = bytes.strip_prefix(BM8_MAGIC.as_slice()) else {
            return err("not a .bm8 file (no V12B magic)");
        };
        let [version, w0, w1, h0, h1, p0, p1, rest @ ..] = rest else {
            return err(".bm8 file cut short in its header");
        };
        if *version != BM8_VERSION {
            return err(format!(".bm8 version {version} is not {BM8_VERSION}"));
        }
        let (width, height) =
            (u32::from(u16::from_le_bytes([*w0, *w1])), u32::from(u16::from_le_bytes([*h0, *h1])));
        check_side(width, height)?;
        let colors = usize::from(u16::from_le_bytes([*p0, *p1]));
        if !(1..=256).contains(&colors) {
            return err(format!(".bm8 palette of {colors} colours (1 to 256)"));
        }
        let pixels = width as usize * height as usize;
        if rest.len() != colors * 4 + pixels {
            return err(format!(
                ".bm8 holds {} bytes after its header, not {}",
                rest.len(),
                colors * 4 + pixels
            ));
        }
        let (pal, indices) = rest.split_at(colors * 4);
        if let Some(bad) = indices.iter().find(|&&i| usize::from(i) >= colors) {
            return err(format!(".bm8 pixel index {bad} is past its {colors}-colour palette"));
        }
        Ok(Bitmap {
            format: BitmapFormat::Palettized8,
            width,
            height,
            levels: vec![indices.to_vec()],
            palette: pal.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
        })
    }
}

/// The palette and indices of RGBA `pixels` that hold at most `colors` distinct colours.
fn exact_palette(pixels: &[u8], colors: usize) -> Option<(Vec<[u8; 4]>, Vec<u8>)> {
    let mut palette: Vec<[u8; 4]> = Vec::new();
    let mut indices = Vec::with_capacity(pixels.len() / 4);
    for p in pixels.chunks_exact(4) {
        let c = [p[0], p[1], p[2], p[3]];
        let i = match palette.iter().position(|&q| q == c) {
            Some(i) => i,
            None if palette.len() < colors => {
                palette.push(c);
                palette.len() - 1
            }
            None => return None,
        };
        indices.push(i as u8);
    }
    Some((palette, indices))
}

/// Decodes an image of a format told by its contents, within [`MAX_SIDE`] a side and
/// `MAX_DECODE_ALLOC` bytes of decoder memory.
fn decode_limited(bytes: &[u8]) -> Result<image::DynamicImage, BitmapError> {
    let mut reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| BitmapError(format!("unreadable image: {e}")))?;
    if reader.format().is_none() {
        return err("not a PNG, JPEG, GIF or BMP image");
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    reader.decode().map_err(|e| BitmapError(format!("cannot decode image: {e}")))
}

/// The palette entry nearest to `c` (squared distance over RGBA).
fn nearest(palette: &[[u8; 4]], c: [u8; 4]) -> u8 {
    let dist = |p: &[u8; 4]| -> u32 {
        (0..4).map(|i| (i32::from(p[i]) - i32::from(c[i])).unsigned_abs().pow(2)).sum()
    };
    palette.iter().enumerate().min_by_key(|(_, p)| dist(p)).map_or(0, |(i, _)| i as u8)
}

/// A 16-bit greyscale image (a terrain heightmap): width, height and the samples, rows top to
/// bottom. An 8-bit or colour image is converted to 16-bit luminance.
pub fn decode_gray16(bytes: &[u8]) -> Result<(u32, u32, Vec<u16>), BitmapError> {
    let grey = decode_limited(bytes)?.into_luma16();
    let (w, h) = grey.dimensions();
    Ok((w, h, grey.into_raw()))
}

/// A material list (V12: MaterialList; Tribes 2's `.dml` files): the bitmap names a shape or
/// an interior uses, one a line, without extension.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MaterialList {
    /// The names, in order (a face's material is an index into this list).
    pub names: Vec<String>,
}

/// The extensions a material's bitmap is looked for with, in order (Torque's texture search).
pub const BITMAP_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "bm8", "gif", "bmp"];

impl MaterialList {
    /// Reads a `.dml` list: one name a line; blank lines and `//` comments are skipped.
    pub fn parse(text: &str) -> MaterialList {
        let names = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
            .map(str::to_string)
            .collect();
        MaterialList { names }
    }

    /// The path of material `index` inside `dir` (the folder of the shape or interior), with
    /// the first extension of [`BITMAP_EXTENSIONS`] that `exists` accepts.
    pub fn bitmap_path(&self, index: usize, dir: &str, exists: impl Fn(&str) -> bool) -> Option<String> {
        let name = self.names.get(index)?;
        let base =
            if dir.is_empty() { name.clone() } else { format!("{}/{name}", dir.trim_end_matches('/')) };
        BITMAP_EXTENSIONS.iter().map(|ext| format!("{base}.{ext}")).find(|p| exists(p))
    }
}

impl crate::ResourceManager {
    /// Registers the bitmap loaders ([`Bitmap`] from `.png`, `.jpg`, `.jpeg`, `.gif`, `.bmp`
    /// and `.bm8`) and the material-list loader ([`MaterialList`] from `.dml`).
    pub fn register_bitmap_loaders(&mut self) {
        for ext in ["png", "jpg", "jpeg", "gif", "bmp"] {
            self.register_loader::<Bitmap>(ext, |bytes, _| Bitmap::decode(bytes).map_err(|e| e.0));
        }
        self.register_loader::<Bitmap>("bm8", |bytes, _| Bitmap::read_bm8(bytes).map_err(|e| e.0));
        self.register_loader::<MaterialList>("dml", |bytes, _| {
            Ok(MaterialList::parse(&String::from_utf8_lossy(bytes)))
        });
    }

    /// The bitmaps of a material list whose shape or interior sits in `dir`, one a material:
    /// each the first of [`BITMAP_EXTENSIONS`] found, already loaded ones shared.
    pub fn load_materials(
        &self,
        list: &MaterialList,
        dir: &str,
    ) -> Vec<Result<crate::Resource<Bitmap>, crate::ResourceError>> {
        (0..list.names.len())
            .map(|i| match list.bitmap_path(i, dir, |p| self.search().is_file(p)) {
                Some(path) => self.load::<Bitmap>(&path),
                None => {
                    let wanted = format!("{}/{}", dir.trim_end_matches('/'), list.names[i]);
                    Err(crate::ResourceError::new(&wanted, crate::ErrorKind::NotFound))
                }
            })
            .collect()
    }
}
