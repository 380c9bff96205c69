//! The terrain: heights and normals, ray casts against a brute-force reference (proptest),
//! box sweeps, the `.ter` file, heightmap import, the resource loader, and the container and
//! `containerRayCast` hitting it.

use std::cell::RefCell;
use std::rc::Rc;

use glam::Vec3;
use proptest::prelude::*;
use v12_console_vm::{BufferSink, Console};
use v12_resource::{Resource, ResourceManager};
use v12_sim::container::{Aabb, ScriptContainer, register_container_functions, type_masks};
use v12_world::{BLOCK_SIZE, TerrainBlock, terrain_file};

/// Hills and valleys from a few sines, the same for every test (heights 0 to ~120 m).
fn hilly(square: f32) -> TerrainBlock {
    let mut t = TerrainBlock::flat(square, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let (x, y) = (i as f32, j as f32);
            let h = 60.0
                + 30.0 * (x * 0.11).sin() * (y * 0.07).cos()
                + 25.0 * ((x + 2.0 * y) * 0.23).sin()
                + 4.0 * ((x * 1.7).sin() * (y * 1.3).cos());
            t.set_height(i, j, h);
        }
    }
    t
}

thread_local! {
    static HILLS: TerrainBlock = hilly(8.0);
}

#[test]
fn heights_interpolate_each_triangle_and_the_block_repeats() {
    let mut t = TerrainBlock::flat(8.0, 10.0);
    t.set_height(1, 1, 20.0);
    assert_eq!(t.height(8.0, 8.0), 20.0, "at a grid point");
    assert_eq!(t.height(4.0, 4.0), 15.0, "halfway along an even square's diagonal");
    assert_eq!(t.height(12.0, 4.0), 15.0, "odd square (1, 0): halfway to the peak on its edge");
    let span = 8.0 * BLOCK_SIZE as f32;
    assert_eq!(t.height(8.0 + span, 8.0 - 3.0 * span), 20.0, "the block repeats");
    let (_, n) = t.height_and_normal(100.0, 100.0);
    assert!((n - Vec3::Z).length() < 1e-6, "flat ground's normal is up: {n}");
    let (_, n) = t.height_and_normal(5.0, 2.0);
    assert!(
        n.z > 0.0 && n.y < 0.0 && n.x.abs() < 1e-6,
        "triangle (0,0)-(1,0)-(1,1) rises to +y, so faces -y: {n}"
    );
    assert!((n.length() - 1.0).abs() < 1e-5);
}

#[test]
fn a_ray_down_lands_on_the_surface_with_its_material() {
    let mut t = hilly(4.0);
    assert!(t.set_material(3, 5, 0));
    t.material_names.push("Rock".into());
    assert!(t.set_material(3, 5, 1));
    assert!(!t.set_material(3, 5, 9), "no material 9");
    let (x, y) = (3.0 * 4.0 + 1.3, 5.0 * 4.0 + 2.2);
    let hit = t.cast_ray(Vec3::new(x, y, 500.0), Vec3::new(x, y, -10.0)).unwrap();
    assert!((hit.point.z - t.height(x, y)).abs() < 1e-3, "{hit:?}");
    assert_eq!(hit.material, 1);
    assert!(t.cast_ray(Vec3::new(x, y, 500.0), Vec3::new(x, y, 400.0)).is_none(), "stops short");
    assert!(t.cast_ray(Vec3::new(x, y, -10.0), Vec3::new(x, y, 500.0)).is_none(), "from below: no hit");
    assert!(t.cast_ray(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO).is_none());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The grid walk finds what testing every triangle under the segment finds.
    #[test]
    fn ray_casts_agree_with_brute_force(
        x0 in -300.0f32..2300.0, y0 in -300.0f32..2300.0, z0 in -20.0f32..200.0,
        dx in -400.0f32..400.0, dy in -400.0f32..400.0, dz in -250.0f32..100.0,
    ) {
        HILLS.with(|t| {
            let (a, b) = (Vec3::new(x0, y0, z0), Vec3::new(x0 + dx, y0 + dy, z0 + dz));
            let walk = t.cast_ray(a, b);
            let brute = t.cast_ray_brute_force(a, b);
            match (walk, brute) {
                (None, None) => {}
                (Some(w), Some(r)) => {
                    let len = (b - a).length().max(1.0);
                    prop_assert!((w.t - r.t).abs() * len < 1e-2, "walk {w:?} brute {r:?}");
                }
                (w, r) => {
                    // A graze within a millimetre of an edge may count on one side only.
                    let t = w.or(r).unwrap().t;
                    let p = a + (b - a) * t;
                    prop_assert!((p.z - t_height(t, p)).abs() < 1e-3, "walk {w:?} brute {r:?}");
                }
            }
            Ok(())
        })?;
    }
}

fn t_height(_: f32, p: Vec3) -> f32 {
    HILLS.with(|t| t.height(p.x, p.y))
}

#[test]
fn a_box_falls_onto_the_ground_and_slides_over_it() {
    let t = hilly(8.0);
    let half = Vec3::new(0.6, 0.6, 1.1);
    let c = Vec3::new(300.0, 410.0, 200.0);
    let (f, n) = t.sweep_box(c, half, Vec3::new(0.0, 0.0, -300.0)).unwrap();
    let landed = c + Vec3::new(0.0, 0.0, -300.0 * f);
    let bottom = landed.z - half.z;
    // Resting on the highest point under its bottom face (sampled finely here).
    let mut top = f32::MIN;
    for k in 0..=20 {
        for l in 0..=20 {
            let (x, y) = (c.x - half.x + 1.2 * k as f32 / 20.0, c.y - half.y + 1.2 * l as f32 / 20.0);
            top = top.max(t.height(x, y));
        }
    }
    assert!((bottom - top).abs() < 0.05, "bottom {bottom} top {top}");
    assert!(n.z > 0.0);
    // Standing there, a small step down finds the ground at once (it stays put).
    let (f, _) = t.sweep_box(landed + Vec3::new(0.0, 0.0, 0.001), half, Vec3::new(0.0, 0.0, -0.5)).unwrap();
    assert!(f < 0.01, "{f}");
    // A box well above the ground moving sideways hits nothing.
    assert!(t.sweep_box(Vec3::new(0.0, 0.0, 500.0), half, Vec3::new(50.0, 0.0, 0.0)).is_none());
}

#[test]
fn a_peak_between_the_samples_of_a_wide_box_still_stops_it() {
    let mut t = TerrainBlock::flat(2.0, 0.0);
    t.set_height(10, 10, 30.0);
    // A 40 m wide box (samples every 2 m) whose sample points all miss the single peak.
    let c = Vec3::new(20.5, 20.5, 100.0);
    let (f, _) = t.sweep_box(c, Vec3::new(20.0, 20.0, 1.0), Vec3::new(0.0, 0.0, -200.0)).unwrap();
    let bottom = c.z - 1.0 - 200.0 * f;
    assert!((bottom - 30.0).abs() < 0.01, "stopped by the peak at 30 m, not at {bottom}");
}

#[test]
fn the_terrain_file_round_trips_and_refuses_bad_bytes() {
    let mut t = hilly(8.0);
    t.material_names = vec!["Grass".into(), "Rock".into()];
    t.set_material(7, 7, 1);
    let bytes = terrain_file::write(&t);
    assert_eq!(terrain_file::read(&bytes).unwrap(), t);
    assert!(terrain_file::read(&bytes[..bytes.len() - 1]).is_err(), "cut short");
    assert!(terrain_file::read(&bytes[..100]).is_err());
    assert!(terrain_file::read(b"V12T").is_err());
    assert!(terrain_file::read(b"nope").is_err());
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(terrain_file::read(&longer).is_err(), "trailing bytes");
    let mut bad_version = bytes.clone();
    bad_version[4] = 9;
    assert!(terrain_file::read(&bad_version).is_err());
    let mut bad_square = bytes.clone();
    bad_square[5..9].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(terrain_file::read(&bad_square).is_err());
    let mut bad_material = bytes;
    bad_material[9 + 2 * BLOCK_SIZE * BLOCK_SIZE] = 7;
    assert!(terrain_file::read(&bad_material).unwrap_err().contains("material 7"));
}

#[test]
fn a_sixteen_bit_heightmap_imports_and_resamples() {
    let img = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_fn(256, 256, |x, y| {
        image::Luma([(x * 200 + y) as u16])
    });
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let t = terrain_file::import_heightmap(png.get_ref(), 8.0, 512.0).unwrap();
    let want = |x: u32, y: u32| f32::from((x * 200 + y) as u16) / 65535.0 * 512.0;
    for (i, j) in [(0, 0), (17, 3), (255, 255), (100, 200)] {
        assert!((t.point_height(i, j) - want(i as u32, j as u32)).abs() <= 1.0 / 32.0, "({i}, {j})");
    }
    // A 64×64 map is stretched over the block.
    let small = image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_pixel(64, 64, image::Luma([65535]));
    let mut png = std::io::Cursor::new(Vec::new());
    small.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let t = terrain_file::import_heightmap(png.get_ref(), 4.0, 100.0).unwrap();
    assert_eq!(t.point_height(131, 77), 100.0);
    assert!(terrain_file::import_heightmap(b"not a png", 8.0, 100.0).is_err());
}

#[test]
fn a_terrain_is_one_shared_resource() {
    let dir = std::env::temp_dir().join(format!("v12-world-terrain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("terrains")).unwrap();
    std::fs::write(dir.join("terrains/Hills.ter"), terrain_file::write(&hilly(8.0))).unwrap();
    std::fs::write(dir.join("terrains/broken.ter"), b"V12T\x01").unwrap();
    let mut res = ResourceManager::new();
    res.add_mod(&dir).unwrap();
    v12_world::register_loaders(&mut res);
    let server = res.load::<TerrainBlock>("terrains/hills.ter").unwrap();
    let client = res.load::<TerrainBlock>("TERRAINS/Hills.ter").unwrap();
    assert!(Resource::ptr_eq(&server, &client), "a listen server's two sides share the block");
    let e = res.load::<TerrainBlock>("terrains/broken.ter").unwrap_err();
    assert!(e.to_string().contains("terrains/broken.ter"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn container_ray_casts_hit_the_terrain_by_its_type_mask() {
    let handle = Rc::new(RefCell::new(ScriptContainer::default()));
    let terrain = Rc::new(hilly(8.0));
    {
        let mut s = handle.borrow_mut();
        v12_world::add_terrain_to_container(&mut s.container, 77, terrain.clone());
        let top = terrain.height(100.0, 100.0);
        // A player-sized box standing on the ground there.
        s.container
            .insert(
                1500,
                Aabb::around(Vec3::new(100.0, 100.0, top + 1.0), Vec3::new(0.5, 0.5, 1.0)),
                type_masks::PLAYER,
            )
            .unwrap();
        let hit = s
            .container
            .cast_ray(Vec3::new(100.0, 100.0, 300.0), Vec3::new(100.0, 100.0, -10.0), !0, None)
            .unwrap();
        assert_eq!((hit.id, hit.normal), (1500, Vec3::Z), "the player's box first, hit on its top face");
        let hit = s
            .container
            .cast_ray(
                Vec3::new(100.0, 100.0, 300.0),
                Vec3::new(100.0, 100.0, -10.0),
                type_masks::TERRAIN,
                None,
            )
            .unwrap();
        assert_eq!(hit.id, 77);
        assert!((hit.point.z - top).abs() < 1e-3);
        assert!(
            s.container
                .cast_ray(
                    Vec3::new(100.0, 100.0, 300.0),
                    Vec3::new(100.0, 100.0, -10.0),
                    type_masks::ITEM,
                    None
                )
                .is_none()
        );
    }
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    register_container_functions(&mut con, handle.clone());
    let r = con
        .eval("return containerRayCast(\"100 100 300\", \"100 100 -10\", $TypeMasks::TerrainObjectType);")
        .unwrap()
        .to_string();
    let words: Vec<f32> = r.split(' ').map(|w| w.parse().unwrap()).collect();
    assert_eq!(words.len(), 7, "id x y z nx ny nz: {r}");
    assert_eq!(words[0], 77.0);
    assert!((words[3] - terrain.height(100.0, 100.0)).abs() < 1e-2, "{r}");
    assert!(words[6] > 0.0, "the normal points up: {r}");
    let r = con
        .eval("return containerRayCast(\"100 100 300\", \"100 100 200\", $TypeMasks::TerrainObjectType);")
        .unwrap();
    assert_eq!(r.to_string(), "0", "a miss is 0");
    let bits = con.get_global("TypeMasks::PlayerObjectType").to_string();
    assert_eq!(bits, (1 << 14).to_string());
    assert!(handle.borrow_mut().container.remove_static(77));
}

/// The quick answers (above everything, or over one flat plane) are the sampled ones: boxes
/// standing on, walking over, falling onto and resting just under flat ground, and crossing
/// from the flat onto a slope, each compared with `sweep_box_sampled`.
#[test]
fn quick_sweeps_agree_with_the_sampled_ones() {
    let mut t = TerrainBlock::flat(8.0, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            // Flat at 2 m around (64, 64), hills beyond 40 m.
            let (x, y) = (i as f32 * 8.0 - 64.0, j as f32 * 8.0 - 64.0);
            let d = x.abs().max(y.abs());
            t.set_height(i, j, if d <= 40.0 { 2.0 } else { 2.0 + (d - 40.0) * 0.3 });
        }
    }
    let mut seed = 7u32;
    let mut next = |lo: f32, hi: f32| {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        lo + (hi - lo) * (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    let mut quick_used = 0;
    for k in 0..4000 {
        let half = Vec3::new(next(0.2, 1.5), next(0.2, 1.5), next(0.5, 1.2));
        let c = Vec3::new(next(10.0, 120.0), next(10.0, 120.0), 0.0);
        // On the ground, a little above, a little below, well above.
        let ground = t.height(c.x, c.y);
        let lift = [0.0, 0.0005, -0.0005, -0.01, 0.3, 5.0][k % 6];
        let c = Vec3::new(c.x, c.y, ground + half.z + lift);
        let delta = match k % 4 {
            0 => Vec3::new(next(-0.5, 0.5), next(-0.5, 0.5), 0.0),
            1 => Vec3::new(0.0, 0.0, -next(0.0, 6.0)),
            2 => Vec3::new(next(-0.5, 0.5), next(-0.5, 0.5), -next(0.0, 1.0)),
            _ => Vec3::new(next(-0.5, 0.5), next(-0.5, 0.5), next(0.0, 1.0)),
        };
        let (fast, slow) = (t.sweep_box(c, half, delta), t.sweep_box_sampled(c, half, delta));
        match (fast, slow) {
            (None, None) => {}
            (Some((a, n)), Some((b, m))) => {
                assert!(
                    (a - b).abs() < 1e-4 && n.distance(m) < 1e-4,
                    "{c} {half} {delta}: {fast:?} vs {slow:?}"
                )
            }
            _ => panic!("{c} {half} {delta}: {fast:?} vs {slow:?}"),
        }
        if (c.x - 64.0).abs() < 30.0 && (c.y - 64.0).abs() < 30.0 {
            quick_used += 1;
        }
    }
    assert!(quick_used > 500, "the flat part was tried {quick_used} times");
}
