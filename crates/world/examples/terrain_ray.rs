//! The GL-free world: a terrain block with a hill, ray casts from the sky and a box swept
//! across it (what a player's movement asks the container).
//!
//! `cargo run -p v12-world --example terrain_ray`

use glam::Vec3;
use v12_world::TerrainBlock;

fn main() {
    // 8 m squares, flat at 10 m, one 40 m peak at square (4, 4).
    let mut terrain = TerrainBlock::flat(8.0, 10.0);
    terrain.set_height(4, 4, 40.0);
    for x in [0.0_f32, 16.0, 24.0, 32.0, 40.0, 48.0] {
        let from = Vec3::new(x, 32.0, 200.0);
        match terrain.cast_ray(from, Vec3::new(x, 32.0, -200.0)) {
            Some(hit) => {
                println!("ray down at x = {x:>4}: ground at z = {:.2}, normal {:.2}", hit.point.z, hit.normal)
            }
            None => println!("ray down at x = {x:>4}: no ground"),
        }
    }
    // A 1 m box slid 60 m along +x at 12 m up hits the hill's flank.
    let (center, half, delta) = (Vec3::new(0.0, 32.0, 12.0), Vec3::splat(0.5), Vec3::new(60.0, 0.0, 0.0));
    match terrain.sweep_box(center, half, delta) {
        Some((t, normal)) => {
            println!("box swept along +x stops after {:.1} m against a slope facing {normal:.2}", t * delta.x)
        }
        None => println!("box swept along +x went through"),
    }
}
