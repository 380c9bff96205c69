//! Benches of the simulation core: container radius queries vs a brute-force scan, move
//! packing, process-list ticks for 1,000 objects.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use std::hint::black_box;
use std::time::Duration;
use v12_bitstream::BitWriter;
use v12_sim::container::{Aabb, Container};
use v12_sim::moves::{ClientMoveList, Move};
use v12_sim::process::{GameBase, ObjectArena, ProcessList};

fn container(c: &mut Criterion) {
    // A fixed 64-bit LCG: the same scene every run.
    let mut state = 0x853c_49e6_748f_ea9bu64;
    let mut f = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    let mut cont = Container::default();
    for id in 0..10_000u32 {
        let p = Vec3::new(f() * 1000.0, f() * 1000.0, f() * 10.0);
        cont.insert(id, Aabb::around(p, Vec3::splat(1.0)), 1).unwrap();
    }
    let queries: Vec<Vec3> = (0..64).map(|_| Vec3::new(f() * 1000.0, f() * 1000.0, 0.0)).collect();
    let mut g = c.benchmark_group("sim_container_radius_50m_10k");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(queries.len() as u64));
    g.bench_function("baseline_brute_force", |b| {
        b.iter(|| {
            for q in &queries {
                black_box(cont.find_radius_brute_force(*q, 50.0, 1));
            }
        })
    });
    g.bench_function("grid", |b| {
        b.iter(|| {
            for q in &queries {
                black_box(cont.find_radius(*q, 50.0, 1));
            }
        })
    });
    g.finish();
}

/// A game's tick of container work: 1,000 moving objects (players, shots) in a 200 m arena
/// each move a little, then 32 hitscan rays (60 m) and 32 radius-damage searches (8 m), as
/// weapons and explosions ask. The baseline scans every object for each query (what a game
/// without the container does); the grid re-bins only objects that change bins.
fn container_moving(c: &mut Criterion) {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut f = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    };
    let half = Vec3::new(0.4, 0.4, 0.9);
    let mut pos: Vec<Vec3> = (0..1000).map(|_| Vec3::new(f() * 100.0, f() * 100.0, 0.0)).collect();
    let vel: Vec<Vec3> = (0..1000).map(|_| Vec3::new(f() * 0.3, f() * 0.3, 0.0)).collect();
    let rays: Vec<(Vec3, Vec3)> = (0..32)
        .map(|_| {
            let s = Vec3::new(f() * 100.0, f() * 100.0, 1.0);
            let d = Vec3::new(f(), f(), 0.0).normalize_or(Vec3::Y);
            (s, s + d * 60.0)
        })
        .collect();
    let blasts: Vec<Vec3> = (0..32).map(|_| Vec3::new(f() * 100.0, f() * 100.0, 0.5)).collect();
    let mut cont = Container::default();
    for (i, p) in pos.iter().enumerate() {
        cont.insert(i as u32, Aabb::around(*p + Vec3::Z * half.z, half), 1).unwrap();
    }
    let mut g = c.benchmark_group("sim_container_moving_1000");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    g.bench_function("baseline_brute_force", |b| {
        b.iter(|| {
            let mut boxes = Vec::with_capacity(pos.len());
            for (p, v) in pos.iter_mut().zip(&vel) {
                *p = (*p + *v).clamp(Vec3::splat(-100.0), Vec3::splat(100.0));
                boxes.push(Aabb::around(*p + Vec3::Z * half.z, half));
            }
            for (s, e) in &rays {
                let hit = boxes
                    .iter()
                    .enumerate()
                    .filter_map(|(i, b)| b.intersect_segment(*s, *e).map(|t| (t, i)))
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                black_box(hit);
            }
            for q in &blasts {
                let n = boxes.iter().filter(|b| b.distance_to(*q) <= 8.0).count();
                black_box(n);
            }
        })
    });
    g.bench_function("grid", |b| {
        b.iter(|| {
            for (i, (p, v)) in pos.iter_mut().zip(&vel).enumerate() {
                *p = (*p + *v).clamp(Vec3::splat(-100.0), Vec3::splat(100.0));
                cont.update(i as u32, Aabb::around(*p + Vec3::Z * half.z, half)).unwrap();
            }
            for (s, e) in &rays {
                black_box(cont.cast_ray(*s, *e, 1, None));
            }
            for q in &blasts {
                black_box(cont.find_radius(*q, 8.0, 1).len());
            }
        })
    });
    g.finish();
}

fn moves(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim_moves");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(30));
    g.bench_function("write_30_moves", |b| {
        let mut list = ClientMoveList::new();
        list.max_resend = 0;
        for i in 0..30 {
            list.collect(Move::from_input(
                1.0,
                (i % 3) as f32 - 1.0,
                0.0,
                0.01 * i as f32,
                0.0,
                0.0,
                [false; 6],
            ));
        }
        b.iter(|| {
            let mut w = BitWriter::new();
            black_box(list.write_moves(&mut w));
            black_box(w.bit_position())
        })
    });
    g.finish();
}

struct Body {
    pos: Vec3,
    vel: Vec3,
}

impl GameBase for Body {
    fn process_tick(&mut self, mv: Option<&Move>) {
        if let Some(m) = mv {
            self.vel += Vec3::new(m.x(), m.y(), 0.0) * 0.1;
        }
        self.vel *= 0.98;
        self.pos += self.vel * 0.032;
    }
}

fn process(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim_process_tick");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for n in [1_000u32] {
        let mut arena = ObjectArena::new();
        let mut list = ProcessList::server();
        for id in 0..n {
            arena.objects.insert(id, Body { pos: Vec3::ZERO, vel: Vec3::new(id as f32, 1.0, 0.0) });
            list.add(id);
            if id % 10 == 1 {
                list.process_after(id, id - 1).unwrap();
            }
        }
        g.throughput(Throughput::Elements(u64::from(n)));
        g.bench_with_input(BenchmarkId::new("server_tick", n), &n, |b, _| {
            b.iter(|| black_box(list.advance_server_time(32, &mut arena)))
        });
    }
    g.finish();
}

criterion_group!(benches, container, container_moving, moves, process);
criterion_main!(benches);
