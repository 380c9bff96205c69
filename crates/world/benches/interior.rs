//! Interior ray casts per second (issue 14): the brush clip (`Interior::cast_ray`, each
//! convex brush the ray's box touches) against `baseline_face_soup`, the same rays against
//! every drawn face as triangles (what a renderer's polygon list offers), in the same run.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{DVec3, Vec3};
use v12_world::Interior;

/// The first hit of a segment against every face's triangle fan: the fraction, if any.
fn face_soup(i: &Interior, a: DVec3, b: DVec3) -> Option<f64> {
    let d = b - a;
    let mut best: Option<f64> = None;
    for f in &i.faces {
        for k in 1..f.points.len() - 1 {
            let (p0, e1, e2) = (f.points[0], f.points[k] - f.points[0], f.points[k + 1] - f.points[0]);
            let p = d.cross(e2);
            let det = e1.dot(p);
            if det.abs() < 1e-12 {
                continue;
            }
            let s = a - p0;
            let u = s.dot(p) / det;
            let q = s.cross(e1);
            let v = d.dot(q) / det;
            let t = e2.dot(q) / det;
            if (0.0..=1.0).contains(&u)
                && v >= 0.0
                && u + v <= 1.0
                && (0.0..=1.0).contains(&t)
                && best.is_none_or(|x| t < x)
            {
                best = Some(t);
            }
        }
    }
    best
}

fn rays(n: usize) -> Vec<(Vec3, Vec3)> {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| {
            let a = Vec3::new(next() * 24.0 - 2.0, next() * 12.0 - 2.0, next() * 5.0);
            let b = Vec3::new(next() * 24.0 - 2.0, next() * 12.0 - 2.0, next() * 5.0);
            (a, b)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let i = Interior::from_map_text(include_str!("../data/two_rooms.map")).expect("the two rooms");
    let set = rays(256);
    let mut g = c.benchmark_group("interior_ray_two_rooms");
    g.throughput(Throughput::Elements(set.len() as u64));
    g.bench_function("brush_clip", |b| {
        b.iter(|| set.iter().filter(|(a, e)| black_box(i.cast_ray(*a, *e)).is_some()).count())
    });
    g.bench_function("baseline_face_soup", |b| {
        b.iter(|| {
            set.iter().filter(|(a, e)| black_box(face_soup(&i, a.as_dvec3(), e.as_dvec3())).is_some()).count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
