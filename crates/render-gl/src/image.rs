//! CPU-side RGBA8 images: PNG decode/encode, sub-images and comparison (for golden tests).
//!
//! No GL here: textures keep their `Image` as the source they are re-uploaded from after a
//! context loss, and framebuffer read-backs come back as an `Image`.

use crate::error::{RenderError, Result};
use std::path::Path;

/// The largest image side accepted from a file; bigger claims are treated as hostile.
pub const MAX_IMAGE_SIDE: u32 = 8192;

/// A row-major RGBA8 image with its first row at the top.
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Image({}x{})", self.width, self.height)
    }
}

impl Image {
    /// An image filled with one colour.
    pub fn new(width: u32, height: u32, fill: [u8; 4]) -> Self {
        let n = width as usize * height as usize;
        let mut pixels = Vec::with_capacity(n * 4);
        for _ in 0..n {
            pixels.extend_from_slice(&fill);
        }
        Image { width, height, pixels }
    }

    /// Wraps an RGBA8 buffer; fails when its length is not `width * height * 4`.
    pub fn from_rgba(width: u32, height: u32, pixels: Vec<u8>) -> Result<Self> {
        let want = width as usize * height as usize * 4;
        if pixels.len() != want {
            return Err(RenderError::BadImage(format!(
                "{width}x{height} needs {want} bytes, got {}",
                pixels.len()
            )));
        }
        Ok(Image { width, height, pixels })
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The raw RGBA8 bytes, top row first.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// The pixel at (x, y) from the top left, or `None` outside the image.
    pub fn get(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.pixels.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// Sets the pixel at (x, y); writes outside the image are ignored.
    pub fn put(&mut self, x: u32, y: u32, rgba: [u8; 4]) {
        if x < self.width && y < self.height {
            let i = (y as usize * self.width as usize + x as usize) * 4;
            self.pixels[i..i + 4].copy_from_slice(&rgba);
        }
    }

    /// Reverses the row order (GL reads bottom row first).
    pub fn flip_vertical(&mut self) {
        let stride = self.width as usize * 4;
        let h = self.height as usize;
        for y in 0..h / 2 {
            let (top, bottom) = self.pixels.split_at_mut((h - 1 - y) * stride);
            top[y * stride..(y + 1) * stride].swap_with_slice(&mut bottom[..stride]);
        }
    }

    /// Decodes a PNG of any colour type and bit depth to RGBA8.
    pub fn decode_png(bytes: &[u8]) -> Result<Self> {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().map_err(|e| RenderError::Png(e.to_string()))?;
        let (w, h) = {
            let info = reader.info();
            (info.width, info.height)
        };
        if w == 0 || h == 0 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
            return Err(RenderError::Png(format!("unsupported size {w}x{h}")));
        }
        let size = reader.output_buffer_size().ok_or_else(|| RenderError::Png("image too large".into()))?;
        let mut buf = vec![0; size];
        let frame = reader.next_frame(&mut buf).map_err(|e| RenderError::Png(e.to_string()))?;
        let data = buf.get(..frame.buffer_size()).ok_or_else(|| RenderError::Png("short frame".into()))?;
        let n = w as usize * h as usize;
        let mut pixels = Vec::with_capacity(n * 4);
        match (frame.color_type, frame.bit_depth) {
            (png::ColorType::Rgba, png::BitDepth::Eight) => pixels.extend_from_slice(data),
            (png::ColorType::Rgb, png::BitDepth::Eight) => {
                for p in data.chunks_exact(3) {
                    pixels.extend_from_slice(&[p[0], p[1], p[2], 255]);
                }
            }
            (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight) => {
                for p in data.chunks_exact(2) {
                    pixels.extend_from_slice(&[p[0], p[0], p[0], p[1]]);
                }
            }
            (png::ColorType::Grayscale, png::BitDepth::Eight) => {
                for &g in data {
                    pixels.extend_from_slice(&[g, g, g, 255]);
                }
            }
            (ct, bd) => return Err(RenderError::Png(format!("unsupported output format {ct:?} {bd:?}"))),
        }
        Image::from_rgba(w, h, pixels).map_err(|e| RenderError::Png(e.to_string()))
    }

    /// Reads and decodes a PNG file.
    pub fn load_png(path: impl AsRef<Path>) -> Result<Self> {
        let bytes = std::fs::read(path)?;
        Image::decode_png(&bytes)
    }

    /// Encodes as an RGBA8 PNG.
    pub fn encode_png(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width, self.height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().map_err(|e| RenderError::Png(e.to_string()))?;
            w.write_image_data(&self.pixels).map_err(|e| RenderError::Png(e.to_string()))?;
        }
        Ok(out)
    }

    /// Encodes and writes a PNG file, creating parent directories.
    pub fn save_png(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, self.encode_png()?)?;
        Ok(())
    }

    /// Compares two images channel by channel.
    ///
    /// Returns `None` when the sizes differ. The diff image shows matching pixels dimmed and
    /// pixels off by more than `tolerance` in solid red.
    pub fn compare(&self, other: &Image, tolerance: u8) -> Option<ImageDiff> {
        if self.width != other.width || self.height != other.height {
            return None;
        }
        let mut max_delta = 0u8;
        let mut bad = 0usize;
        let mut diff = Vec::with_capacity(self.pixels.len());
        for (a, b) in self.pixels.chunks_exact(4).zip(other.pixels.chunks_exact(4)) {
            let d = a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0);
            max_delta = max_delta.max(d);
            if d > tolerance {
                bad += 1;
                diff.extend_from_slice(&[255, 0, 0, 255]);
            } else {
                diff.extend_from_slice(&[a[0] / 4, a[1] / 4, a[2] / 4, 255]);
            }
        }
        Some(ImageDiff {
            max_delta,
            pixels_over_tolerance: bad,
            diff: Image { width: self.width, height: self.height, pixels: diff },
        })
    }
}

/// The result of [`Image::compare`].
#[derive(Debug, Clone)]
pub struct ImageDiff {
    /// The largest per-channel difference seen.
    pub max_delta: u8,
    /// How many pixels differ by more than the tolerance in some channel.
    pub pixels_over_tolerance: usize,
    /// A picture of where they differ.
    pub diff: Image,
}

/// Tolerance per channel that golden tests use: llvmpipe rounds a little differently between
/// Mesa versions, never by more than this.
pub const GOLDEN_TOLERANCE: u8 = 2;

/// The golden-image check every rendering test shares. With `V12_BLESS=1` in the environment it
/// (re)writes `golden` from `actual` and passes. Otherwise it compares within
/// [`GOLDEN_TOLERANCE`]; on a mismatch (or a missing golden) it writes `NAME.actual.png` and
/// `NAME.diff.png` into `artefacts` and returns a message naming them.
pub fn check_golden(golden: &Path, actual: &Image, artefacts: &Path) -> std::result::Result<(), String> {
    if std::env::var("V12_BLESS").is_ok_and(|v| v == "1") {
        return actual.save_png(golden).map_err(|e| format!("cannot write {}: {e}", golden.display()));
    }
    let name = golden.file_stem().map_or("golden".into(), |n| n.to_string_lossy().into_owned());
    let _ = std::fs::create_dir_all(artefacts);
    let actual_path = artefacts.join(format!("{name}.actual.png"));
    let fail = |why: String| {
        let saved =
            actual.save_png(&actual_path).map_or_else(|e| format!(" (not saved: {e})"), |()| String::new());
        Err(format!(
            "golden {name}: {why}; actual image at {}{saved}; rerun with V12_BLESS=1 to accept",
            actual_path.display()
        ))
    };
    let expected = match Image::load_png(golden) {
        Ok(i) => i,
        Err(e) => return fail(format!("cannot read {}: {e}", golden.display())),
    };
    match expected.compare(actual, GOLDEN_TOLERANCE) {
        None => fail(format!(
            "size {}x{} differs from the golden's {}x{}",
            actual.width, actual.height, expected.width, expected.height
        )),
        Some(d) if d.pixels_over_tolerance > 0 => {
            let diff_path = artefacts.join(format!("{name}.diff.png"));
            let _ = d.diff.save_png(&diff_path);
            fail(format!(
                "{} pixels differ by more than {GOLDEN_TOLERANCE} (max {}); diff at {}",
                d.pixels_over_tolerance,
                d.max_delta,
                diff_path.display()
            ))
        }
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_check_passes_within_tolerance_and_reports_a_mismatch_with_artefacts() {
        if std::env::var("V12_BLESS").is_ok() {
            return; // blessing rewrites goldens by design; this test is about comparing
        }
        let dir = std::env::temp_dir().join(format!("v12-golden-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let golden = dir.join("g.png");
        Image::new(4, 4, [10, 20, 30, 255]).save_png(&golden).unwrap();
        assert_eq!(check_golden(&golden, &Image::new(4, 4, [12, 20, 30, 255]), &dir), Ok(()));
        let err = check_golden(&golden, &Image::new(4, 4, [99, 20, 30, 255]), &dir).unwrap_err();
        assert!(err.contains("16 pixels differ"), "{err}");
        assert!(dir.join("g.actual.png").is_file() && dir.join("g.diff.png").is_file());
        let err = check_golden(&golden, &Image::new(2, 2, [10, 20, 30, 255]), &dir).unwrap_err();
        assert!(err.contains("size 2x2"), "{err}");
        assert!(check_golden(&dir.join("missing.png"), &Image::new(1, 1, [0; 4]), &dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn png_round_trip_and_flip() {
        let mut img = Image::new(3, 2, [1, 2, 3, 4]);
        img.put(0, 0, [9, 9, 9, 9]);
        let back = Image::decode_png(&img.encode_png().unwrap()).unwrap();
        assert_eq!(back, img);
        img.flip_vertical();
        assert_eq!(img.get(0, 1), Some([9, 9, 9, 9]));
        assert_eq!(img.get(0, 0), Some([1, 2, 3, 4]));
        assert_eq!(img.get(3, 0), None);
    }

    #[test]
    fn bad_png_is_an_error() {
        assert!(matches!(Image::decode_png(b"not a png"), Err(RenderError::Png(_))));
        let good = Image::new(4, 4, [0; 4]).encode_png().unwrap();
        assert!(Image::decode_png(&good[..good.len() / 2]).is_err());
        assert!(Image::from_rgba(2, 2, vec![0; 3]).is_err());
    }

    #[test]
    fn compare_counts_pixels_over_tolerance() {
        let a = Image::new(2, 2, [100, 100, 100, 255]);
        let mut b = a.clone();
        b.put(1, 1, [103, 100, 100, 255]);
        let d = a.compare(&b, 2).unwrap();
        assert_eq!((d.max_delta, d.pixels_over_tolerance), (3, 1));
        assert_eq!(a.compare(&b, 3).unwrap().pixels_over_tolerance, 0);
        assert!(a.compare(&Image::new(1, 1, [0; 4]), 0).is_none());
    }
}
