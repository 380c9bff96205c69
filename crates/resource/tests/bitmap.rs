//! Bitmaps: each format decodes a known image, mip levels, the palettised Bm8, hostile files,
//! and bitmaps and material lists through the resource manager.
#![cfg(feature = "bitmap")]

mod common;

use std::io::Cursor;

use common::TempDir;

use image::{ImageFormat, Rgba, RgbaImage};
use v12_resource::bitmap::{decode_gray16, level_size};
use v12_resource::{Bitmap, BitmapFormat, ErrorKind, MaterialList, Resource, ResourceManager};

/// Four 8×8 blocks of solid colour (so JPEG keeps them nearly exact).
fn known() -> RgbaImage {
    let colours = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]];
    RgbaImage::from_fn(16, 16, |x, y| Rgba(colours[(y / 8 * 2 + x / 8) as usize]))
}

fn encode(img: &RgbaImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    match format {
        // JPEG and BMP carry no alpha worth testing: write RGB.
        ImageFormat::Jpeg | ImageFormat::Bmp => {
            image::DynamicImage::ImageRgba8(img.clone()).to_rgb8().write_to(&mut out, format).unwrap()
        }
        _ => img.write_to(&mut out, format).unwrap(),
    }
    out.into_inner()
}

fn assert_close(b: &Bitmap, img: &RgbaImage, tolerance: u8, what: &str) {
    assert_eq!((b.width(), b.height()), img.dimensions(), "{what}");
    for (x, y, p) in img.enumerate_pixels() {
        let got = b.pixel(0, x, y).unwrap();
        for c in 0..4 {
            let d = got[c].abs_diff(p.0[c]);
            assert!(d <= tolerance, "{what}: pixel ({x}, {y}) is {got:?}, want {:?}", p.0);
        }
    }
}

#[test]
fn each_format_decodes_a_known_image() {
    let img = known();
    for (format, tolerance) in
        [(ImageFormat::Png, 0), (ImageFormat::Bmp, 0), (ImageFormat::Gif, 0), (ImageFormat::Jpeg, 12)]
    {
        let b = Bitmap::decode(&encode(&img, format)).unwrap_or_else(|e| panic!("{format:?}: {e}"));
        assert_eq!(b.format(), BitmapFormat::Rgba8);
        assert_close(&b, &img, tolerance, &format!("{format:?}"));
    }
}

#[test]
fn mip_levels_halve_down_to_one_pixel_and_average() {
    let img =
        RgbaImage::from_fn(
            8,
            2,
            |x, _| if x % 2 == 0 { Rgba([0, 0, 0, 255]) } else { Rgba([200, 100, 50, 255]) },
        );
    let mut b = Bitmap::from_rgba(8, 2, img.into_raw()).unwrap();
    b.extrude_mip_levels();
    let sizes: Vec<(u32, u32)> = (0..b.level_count()).map(|l| level_size(8, 2, l)).collect();
    assert_eq!(sizes, vec![(8, 2), (4, 1), (2, 1), (1, 1)]);
    for l in 0..b.level_count() {
        let (w, h) = level_size(8, 2, l);
        assert_eq!(b.level(l).unwrap().len(), (w * h * 4) as usize);
    }
    assert_eq!(b.pixel(1, 0, 0), Some([100, 50, 25, 255]), "a 2×2 block of two colours averages them");
    assert_eq!(b.pixel(3, 0, 0), Some([100, 50, 25, 255]));
    assert_eq!(b.pixel(3, 1, 0), None);
}

#[test]
fn the_palettised_form_keeps_few_colours_and_round_trips_through_bm8() {
    let img = known();
    let rgba = Bitmap::from_rgba(16, 16, img.clone().into_raw()).unwrap();
    let pal = rgba.to_palettized(16);
    assert_eq!(pal.format(), BitmapFormat::Palettized8);
    assert!(pal.palette().len() <= 16);
    assert_close(&pal, &img, 0, "four colours are kept exactly");
    let file = pal.write_bm8();
    let back = Bitmap::read_bm8(&file).unwrap();
    assert_eq!(back, pal, "a .bm8 file reads back the same bitmap");
    assert_close(&back.to_rgba(), &img, 0, "expanded");
    let mut mipped = back.clone();
    mipped.extrude_mip_levels();
    assert_eq!(mipped.level_count(), 5);
    assert_eq!(mipped.level(4).unwrap().len(), 1, "a palettised level holds indices");
}

#[test]
fn neuquant_learns_a_palette_for_a_many_coloured_image() {
    let img =
        RgbaImage::from_fn(128, 128, |x, y| Rgba([(x * 2) as u8, (y * 2) as u8, ((x + y) / 2) as u8, 255]));
    let rgba = Bitmap::from_rgba(128, 128, img.clone().into_raw()).unwrap();
    let pal = rgba.to_palettized(256);
    assert_eq!(pal.palette().len(), 256);
    let mut total = 0u64;
    for (x, y, p) in img.enumerate_pixels() {
        let q = pal.pixel(0, x, y).unwrap();
        total += (0..3).map(|c| u64::from(q[c].abs_diff(p.0[c]))).sum::<u64>();
    }
    let mean = total as f64 / (128.0 * 128.0 * 3.0);
    assert!(mean < 6.0, "mean error {mean} per channel over 16,384 colours in 256");
}

#[test]
fn hostile_files_are_errors() {
    let png = encode(&known(), ImageFormat::Png);
    assert!(Bitmap::decode(&png[..png.len() / 2]).is_err(), "cut short");
    assert!(Bitmap::decode(b"not an image at all").is_err());
    assert!(Bitmap::decode(&[]).is_err());
    // A PNG whose header claims 20000×20000 (with a correct checksum): refused before any
    // pixel memory is taken.
    let mut huge = png.clone();
    huge[16..20].copy_from_slice(&20_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&20_000u32.to_be_bytes());
    let crc = crc32fast::hash(&huge[12..29]);
    huge[29..33].copy_from_slice(&crc.to_be_bytes());
    let e = Bitmap::decode(&huge).unwrap_err();
    assert!(e.0.contains("limit"), "refused for its size: {e}");
    assert!(decode_gray16(&huge).is_err());

    let good =
        Bitmap::from_rgba(2, 1, vec![0, 0, 0, 255, 255, 255, 255, 255]).unwrap().to_palettized(2).write_bm8();
    assert!(Bitmap::read_bm8(&good).is_ok());
    assert!(Bitmap::read_bm8(&good[..good.len() - 1]).is_err(), "a pixel short");
    assert!(Bitmap::read_bm8(&good[..8]).is_err(), "header cut");
    let mut bad_index = good.clone();
    *bad_index.last_mut().unwrap() = 200;
    assert!(Bitmap::read_bm8(&bad_index).unwrap_err().0.contains("past its"));
    let mut no_palette = good.clone();
    no_palette[9..11].copy_from_slice(&0u16.to_le_bytes());
    assert!(Bitmap::read_bm8(&no_palette).is_err());
    let mut zero_width = good;
    zero_width[5..7].copy_from_slice(&0u16.to_le_bytes());
    assert!(Bitmap::read_bm8(&zero_width).is_err());
    assert!(Bitmap::from_rgba(2, 2, vec![0; 15]).is_err());
}

#[test]
fn a_sixteen_bit_greyscale_png_decodes_exactly() {
    let img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(3, 2, |x, y| {
        image::Luma([(x * 20_000 + y * 7) as u16])
    });
    let mut bytes = Cursor::new(Vec::new());
    img.write_to(&mut bytes, ImageFormat::Png).unwrap();
    let (w, h, samples) = decode_gray16(bytes.get_ref()).unwrap();
    assert_eq!((w, h), (3, 2));
    assert_eq!(samples, img.into_raw());
}

#[test]
fn bitmaps_and_material_lists_load_through_the_resource_manager() {
    let dir = TempDir::new("manager");
    let img = known();
    dir.file("interiors/stone.png", &encode(&img, ImageFormat::Png));
    dir.file("interiors/Grass.bm8", &Bitmap::from_rgba(16, 16, img.clone().into_raw()).unwrap().write_bm8());
    dir.file("interiors/base.dml", b"// the base's materials\nstone\n\ngrass\nmissing\n");
    dir.file("interiors/broken.png", b"\x89PNG\r\n\x1a\nnonsense");
    let mut res = ResourceManager::new();
    res.add_mod(&dir.0).unwrap();
    res.register_bitmap_loaders();

    let a = res.load::<Bitmap>("interiors/STONE.png").unwrap();
    let b = res.load::<Bitmap>("interiors/stone.png").unwrap();
    assert!(Resource::ptr_eq(&a, &b), "one instance");
    assert_close(&a, &img, 0, "png through the manager");

    let list = res.load::<MaterialList>("interiors/base.dml").unwrap();
    assert_eq!(list.names, vec!["stone", "grass", "missing"]);
    let bitmaps = res.load_materials(&list, "interiors");
    assert!(Resource::ptr_eq(bitmaps[0].as_ref().unwrap(), &a), "a material shares the loaded bitmap");
    assert_eq!(bitmaps[1].as_ref().unwrap().format(), BitmapFormat::Palettized8, "found as .bm8");
    let e = bitmaps[2].as_ref().unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert!(e.to_string().contains("interiors/missing"), "{e}");

    let e = res.load::<Bitmap>("interiors/broken.png").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Load(_)), "{e}");
    assert!(e.to_string().starts_with("interiors/broken.png"), "the error names the file: {e}");
}
