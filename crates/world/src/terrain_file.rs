//! The terrain file (V12: TerrainFile), `.ter`, and import from a 16-bit greyscale PNG.
//!
//! Layout, little-endian: the magic `V12T`, a version byte (1), the square size as `f32`,
//! 65,536 heights as `u16` (1/32 m units, rows of increasing y, each of increasing x),
//! 65,536 material indices as `u8`, the count of material names as `u8` (1 to 255), then
//! each name as a length byte and its UTF-8 bytes. Nothing may follow. Tribes 2's own `.ter`
//! layout is not in V12's public documentation; this one holds the same things.

use crate::terrain::{BLOCK_SIZE, HEIGHT_UNITS_PER_METRE, MAX_HEIGHT, TerrainBlock};

const MAGIC: &[u8; 4] = b"V12T";
const VERSION: u8 = 1;

/// The `.ter` file of a block.
pub fn write(block: &TerrainBlock) -> Vec<u8> {
    let n = BLOCK_SIZE * BLOCK_SIZE;
    let mut out = Vec::with_capacity(9 + n * 3 + 1 + block.material_names.len() * 16);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.extend_from_slice(&block.square_size().to_le_bytes());
    for h in block.heights() {
        out.extend_from_slice(&h.to_le_bytes());
    }
    out.extend_from_slice(block.materials());
    let names: Vec<&String> = block.material_names.iter().take(255).collect();
    out.push(names.len() as u8);
    for name in names {
        let bytes = &name.as_bytes()[..name.len().min(255)];
        out.push(bytes.len() as u8);
        out.extend_from_slice(bytes);
    }
    out
}

/// Reads a `.ter` file; every length is checked against the bytes there are.
pub fn read(bytes: &[u8]) -> Result<TerrainBlock, String> {
    let n = BLOCK_SIZE * BLOCK_SIZE;
    let rest = bytes.strip_prefix(MAGIC.as_slice()).ok_or("not a terrain file (no V12T magic)")?;
    let (&version, rest) = rest.split_first().ok_or("terrain file cut short")?;
    if version != VERSION {
        return Err(format!("terrain file version {version} is not {VERSION}"));
    }
    let take = |rest: &[u8], k: usize| -> Result<(Vec<u8>, usize), String> {
        if rest.len() < k { Err("terrain file cut short".into()) } else { Ok((rest[..k].to_vec(), k)) }
    };
    let (sq, k) = take(rest, 4)?;
    let rest = &rest[k..];
    let square_size = f32::from_le_bytes([sq[0], sq[1], sq[2], sq[3]]);
    let (raw, k) = take(rest, n * 2)?;
    let rest = &rest[k..];
    let heights = raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let (materials, k) = take(rest, n)?;
    let mut rest = &rest[k..];
    let (&count, r) = rest.split_first().ok_or("terrain file cut short")?;
    rest = r;
    let mut names = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let (&len, r) = rest.split_first().ok_or("terrain file cut short in its material names")?;
        let len = usize::from(len);
        if r.len() < len {
            return Err("terrain file cut short in its material names".into());
        }
        names.push(String::from_utf8_lossy(&r[..len]).into_owned());
        rest = &r[len..];
    }
    if !rest.is_empty() {
        return Err(format!("{} bytes after the terrain", rest.len()));
    }
    if names.is_empty() {
        return Err("a terrain needs at least one material name".into());
    }
    TerrainBlock::from_parts(square_size, heights, materials, names)
}

/// A block from a 16-bit greyscale heightmap (an 8-bit or colour one is read as luminance):
/// black is 0 m and white `height_range` metres (at most [`MAX_HEIGHT`]). A map that is not
/// 256×256 is resampled bilinearly, its edges meeting as the block repeats.
pub fn import_heightmap(png: &[u8], square_size: f32, height_range: f32) -> Result<TerrainBlock, String> {
    let (w, h, samples) = v12_resource::bitmap::decode_gray16(png).map_err(|e| e.0)?;
    let range = height_range.clamp(0.0, MAX_HEIGHT);
    let sample = |x: usize, y: usize| f32::from(samples[(y % h as usize) * w as usize + (x % w as usize)]);
    let mut heights = Vec::with_capacity(BLOCK_SIZE * BLOCK_SIZE);
    for j in 0..BLOCK_SIZE {
        for i in 0..BLOCK_SIZE {
            let fx = i as f32 * w as f32 / BLOCK_SIZE as f32;
            let fy = j as f32 * h as f32 / BLOCK_SIZE as f32;
            let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
            let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
            let top = sample(x0, y0) * (1.0 - tx) + sample(x0 + 1, y0) * tx;
            let bottom = sample(x0, y0 + 1) * (1.0 - tx) + sample(x0 + 1, y0 + 1) * tx;
            let v = (top * (1.0 - ty) + bottom * ty) / f32::from(u16::MAX);
            heights.push((v * range * HEIGHT_UNITS_PER_METRE).round() as u16);
        }
    }
    TerrainBlock::from_parts(square_size, heights, vec![0; BLOCK_SIZE * BLOCK_SIZE], vec!["Default".into()])
}
