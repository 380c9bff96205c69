//! Terrain ray casts per second (issue 14): the grid walk (`cast_ray`) against testing every
//! triangle under the segment (`baseline_brute_force`), on the same rays in the same run.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use v12_world::{BLOCK_SIZE, TerrainBlock};

/// Rolling hills, 0 to ~120 m, on 8 m squares (Tribes 2's usual).
fn hills() -> TerrainBlock {
    let mut t = TerrainBlock::flat(8.0, 0.0);
    for j in 0..BLOCK_SIZE as i64 {
        for i in 0..BLOCK_SIZE as i64 {
            let (x, y) = (i as f32, j as f32);
            t.set_height(
                i,
                j,
                60.0 + 30.0 * (x * 0.11).sin() * (y * 0.07).cos() + 25.0 * ((x + 2.0 * y) * 0.23).sin(),
            );
        }
    }
    t
}

/// `n` segments from a seeded generator: starts above the hills, `reach` metres long,
/// pointing down at `pitch` (0 = straight down, 1 = 45 degrees).
fn rays(n: usize, reach: f32, pitch: f32) -> Vec<(Vec3, Vec3)> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| {
            let start = Vec3::new(next() * 2048.0, next() * 2048.0, 130.0 + next() * 20.0);
            let a = next() * std::f32::consts::TAU;
            let dir = Vec3::new(a.cos() * pitch, a.sin() * pitch, -1.0).normalize();
            (start, start + dir * reach)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let t = hills();
    for (name, reach, pitch) in
        [("down_200m", 200.0, 0.0), ("slant_400m", 400.0, 1.0), ("grazing_1000m", 1000.0, 8.0)]
    {
        let set = rays(256, reach, pitch);
        let mut g = c.benchmark_group(format!("terrain_ray_{name}"));
        g.throughput(Throughput::Elements(set.len() as u64));
        g.bench_function("grid_walk", |b| {
            b.iter(|| set.iter().filter(|(a, e)| black_box(t.cast_ray(*a, *e)).is_some()).count())
        });
        g.bench_function("baseline_brute_force", |b| {
            b.iter(|| set.iter().filter(|(a, e)| black_box(t.cast_ray_brute_force(*a, *e)).is_some()).count())
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
