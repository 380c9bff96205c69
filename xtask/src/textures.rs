//! `cargo xtask textures`: writes the example game's material bitmaps, made here from seeded
//! noise so they are licence-clean and reproducible: the terrain's `Grass`, `Dirt` and `Rock`
//! (`examples/game/terrains/`) and the building's `FLOOR`, `WALL`, `CEILING` and `WINDOW`
//! (`examples/game/interiors/`, beside the `.map` whose faces name them). Every texture tiles
//! (the noise wraps at the edges), as terrain and walls repeat them. `WINDOW` is glass: see-
//! through texels in an opaque frame, which makes its faces translucent in the engine.

use std::path::Path;

/// Texture side in texels.
const SIZE: u32 = 64;

/// A deterministic hash of a lattice point (wrapped to `period`) and a seed, 0..1.
fn lattice(x: i64, y: i64, period: i64, seed: u32) -> f32 {
    let (x, y) = (x.rem_euclid(period) as u32, y.rem_euclid(period) as u32);
    let mut h = x.wrapping_mul(0x27d4_eb2d) ^ y.wrapping_mul(0x1656_67b1) ^ seed.wrapping_mul(0x9e37_79b9);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    (h & 0xffff) as f32 / 65535.0
}

/// Tileable value noise over the texture: `cells` lattice cells a side, smoothly interpolated.
fn value_noise(x: u32, y: u32, cells: u32, seed: u32) -> f32 {
    let f = |v: u32| v as f32 * cells as f32 / SIZE as f32;
    let (fx, fy) = (f(x), f(y));
    let (ix, iy) = (fx.floor() as i64, fy.floor() as i64);
    let (tx, ty) = (fx - ix as f32, fy - iy as f32);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let p = i64::from(cells);
    let a = lattice(ix, iy, p, seed) + (lattice(ix + 1, iy, p, seed) - lattice(ix, iy, p, seed)) * s(tx);
    let b = lattice(ix, iy + 1, p, seed)
        + (lattice(ix + 1, iy + 1, p, seed) - lattice(ix, iy + 1, p, seed)) * s(tx);
    a + (b - a) * s(ty)
}

/// Three octaves of noise, 0..1.
fn fractal(x: u32, y: u32, seed: u32) -> f32 {
    (value_noise(x, y, 4, seed) * 0.5
        + value_noise(x, y, 8, seed + 1) * 0.3
        + value_noise(x, y, 16, seed + 2) * 0.2)
        .clamp(0.0, 1.0)
}

fn shade(rgb: [f32; 3], k: f32, alpha: u8) -> [u8; 4] {
    let c = |v: f32| (v * k).round().clamp(0.0, 255.0) as u8;
    [c(rgb[0]), c(rgb[1]), c(rgb[2]), alpha]
}

/// The texel of material `name` at (x, y).
fn texel(name: &str, x: u32, y: u32) -> [u8; 4] {
    match name {
        "Grass" => {
            let n = fractal(x, y, 11);
            let blade = lattice(i64::from(x), i64::from(y), i64::from(SIZE), 5);
            shade([72.0, 118.0, 48.0], 0.7 + 0.5 * n + 0.15 * blade, 255)
        }
        "Dirt" => {
            let n = fractal(x, y, 23);
            let grit = lattice(i64::from(x), i64::from(y), i64::from(SIZE), 7);
            shade([132.0, 102.0, 72.0], 0.75 + 0.35 * n + 0.2 * (grit - 0.5), 255)
        }
        "Rock" => {
            let n = fractal(x, y, 37);
            // Cracks where the coarse noise crosses its middle.
            let crack = (value_noise(x, y, 4, 41) - 0.5).abs() < 0.03;
            shade([128.0, 126.0, 130.0], if crack { 0.55 } else { 0.7 + 0.5 * n }, 255)
        }
        "FLOOR" => {
            // Planks 16 texels wide along x, their ends staggered, with grain.
            let plank = y / 16;
            let seam = y.is_multiple_of(16) || (x + plank * 23).is_multiple_of(SIZE);
            let grain = value_noise(x, y * 4 % SIZE, 16, 50 + plank);
            shade([150.0, 108.0, 70.0], if seam { 0.45 } else { 0.8 + 0.3 * grain }, 255)
        }
        "WALL" => {
            // Bricks 16 × 8 texels, rows offset by half a brick, mortar lines between.
            let row = y / 8;
            let bx = (x + if row % 2 == 1 { 8 } else { 0 }) % SIZE;
            let mortar = y.is_multiple_of(8) || bx.is_multiple_of(16);
            let n = fractal(x, y, 60);
            let brick = lattice(i64::from(bx / 16), i64::from(row), 64, 61);
            if mortar {
                shade([190.0, 186.0, 176.0], 0.85 + 0.2 * n, 255)
            } else {
                shade([160.0, 82.0, 60.0], 0.75 + 0.25 * brick + 0.2 * n, 255)
            }
        }
        "CEILING" => shade([214.0, 210.0, 198.0], 0.85 + 0.15 * fractal(x, y, 70), 255),
        "WINDOW" => {
            // A frame 4 texels wide and a cross bar, glass between.
            let edge = |v: u32| !(4..SIZE - 4).contains(&v) || (SIZE / 2 - 2..SIZE / 2 + 2).contains(&v);
            if edge(x) || edge(y) {
                shade([96.0, 72.0, 50.0], 0.9 + 0.2 * fractal(x, y, 80), 255)
            } else {
                shade([170.0, 210.0, 230.0], 0.9 + 0.2 * fractal(x, y, 81), 96)
            }
        }
        _ => [255, 0, 255, 255],
    }
}

/// Every texture: its folder under `examples/game`, its material name.
pub const TEXTURES: &[(&str, &str)] = &[
    ("terrains", "Grass"),
    ("terrains", "Dirt"),
    ("terrains", "Rock"),
    ("interiors", "FLOOR"),
    ("interiors", "WALL"),
    ("interiors", "CEILING"),
    ("interiors", "WINDOW"),
];

/// The texture of material `name`.
pub fn image(name: &str) -> image::RgbaImage {
    image::RgbaImage::from_fn(SIZE, SIZE, |x, y| image::Rgba(texel(name, x, y)))
}

pub fn write_all(game: &Path) -> Result<(), String> {
    for &(dir, name) in TEXTURES {
        let path = game.join(dir).join(format!("{name}.png"));
        image(name).save(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The committed bitmaps hold exactly the texels `cargo xtask textures` makes.
    #[test]
    fn committed_textures_are_the_generated_ones() {
        let game = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/game");
        for &(dir, name) in super::TEXTURES {
            let path = game.join(dir).join(format!("{name}.png"));
            let committed =
                image::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).into_rgba8();
            assert!(
                committed == super::image(name),
                "{name} differs from its definition: run `cargo xtask textures`"
            );
        }
    }

    #[test]
    fn textures_tile_and_only_the_window_is_see_through() {
        for &(_, name) in super::TEXTURES {
            let img = super::image(name);
            let translucent = img.pixels().any(|p| p.0[3] < 255);
            assert_eq!(translucent, name == "WINDOW", "{name}");
            // Opposite edges are neighbours in the noise: no hard seam where it repeats.
            if !["FLOOR", "WALL", "WINDOW"].contains(&name) {
                for y in 0..super::SIZE {
                    let (a, b) = (img.get_pixel(0, y).0, img.get_pixel(super::SIZE - 1, y).0);
                    let d: i32 = (0..3).map(|k| (i32::from(a[k]) - i32::from(b[k])).abs()).sum();
                    assert!(d < 90, "{name} row {y}: {a:?} vs {b:?}");
                }
            }
        }
    }
}
