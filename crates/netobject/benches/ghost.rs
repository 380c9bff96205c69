//! Ghosting benchmarks: bits and time per moving-object update, and the server's cost per
//! client packet with 10,000 moving objects of which the client scopes about 200.

#[path = "../tests/ghost_support/mod.rs"]
mod ghost_support;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ghost_support::*;
use rand_core::SeedableRng;
use rand_pcg::Pcg32;
use std::hint::black_box;
use std::time::{Duration, Instant};
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::*;

/// Torque's default packet size (bytes) and rate (packets per second) to a client.
const PACKET_BYTES: usize = 200;
const OBJECTS: usize = 10_000;
const WORLD: f32 = 2000.0;
/// π r² × density = 200 objects: r = sqrt(200 / (π × 10,000 / 2000²)) ≈ 160 m.
const VIEW: f32 = 160.0;

fn world() -> (SimWorld, ObjectId) {
    let mut rng = Pcg32::seed_from_u64(42);
    let mut world = SimWorld::new(WORLD, 64.0);
    let mut cam = Mover::new(0, [WORLD / 2.0, WORLD / 2.0, 0.0], [3.0, 1.0, 0.0]);
    cam.view_distance = VIEW;
    let cam = world.add(cam);
    world.populate(&mut rng, OBJECTS - 1, 10.0);
    (world, cam)
}

fn update_bits(c: &mut Criterion) {
    let (mut world, cam) = world();
    let mut link = Link::new(GhostConfig::default(), cam, 100_000, 1, 1);
    for _ in 0..4 {
        link.step(&world, Loss { rate: 0.0, burst: false }).unwrap();
    }
    link.deliver_notifies(true);
    world.step(0.1);
    let before = (link.bits, link.server.stats().updates_sent);
    link.step(&world, Loss { rate: 0.0, burst: false }).unwrap();
    let updates = link.server.stats().updates_sent - before.1;
    let section_header = 1 + 1 + 1 + 5 + 96 + 1;
    let per_update = (link.bits - before.0 - section_header) as f64 / updates as f64;
    let id_bits = link.server.id_bits();
    println!(
        "ghost update: {updates} moving-object updates, {per_update:.1} bits each on the wire \
         ({} id bits + 2 entry flags + body), section header {section_header} bits",
        id_bits
    );

    let m = world.movers.iter().flatten().nth(5).unwrap();
    let mut g = c.benchmark_group("ghost_update");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(1));
    let mut w = BitWriter::with_budget_bytes(64);
    g.bench_function("baseline_full_state_raw_floats", |b| {
        b.iter(|| {
            w.clear();
            w.write_vec3(black_box(m.pos).into());
            w.write_vec3(black_box(m.vel).into());
            w.write_f32(black_box(m.heading));
            black_box(w.bit_position())
        })
    });
    println!("baseline full-state update body: {} bits", w.bit_position());
    let cp = v12_bitstream::CompressionPoint::new([1000.0f32, 1000.0, 0.0].into());
    g.bench_function("compressed_update_body", |b| {
        b.iter(|| {
            w.clear();
            w.write_flag(true);
            w.write_compressed_point(black_box(m.pos).into(), &cp);
            w.write_vector(black_box(m.vel).into(), MAX_SPEED, SPEED_BITS, DIR_BITS);
            w.write_int(quantize_heading(black_box(m.heading)), HEADING_BITS);
            w.write_flag(false);
            w.write_flag(false);
            black_box(w.bit_position())
        })
    });
    println!("compressed update body: {} bits", w.bit_position());
    g.finish();
}

fn server_packet(c: &mut Criterion) {
    let (mut world, cam) = world();
    let classes = classes();
    let mut server = GhostManager::new(GhostConfig::default(), classes.clone());
    server.start_ghosting();
    let mut client = GhostReceiver::new(classes);
    let mut arena = GhostArena::new();
    // Warm up with big packets until the scoped set is ghosted.
    for _ in 0..5 {
        server.update_scope(&world, cam);
        let mut w = BitWriter::with_budget_bytes(100_000);
        let rec = server.write_packet(&world, &mut w);
        client.read_packet(&mut arena, &mut BitReader::new(w.as_bytes())).unwrap();
        server.packet_delivered(rec);
    }
    println!("ghosts in scope: {}", server.ghost_count());

    let mut g = c.benchmark_group("ghost_server_packet");
    g.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(1));
    let mut pending = std::collections::VecDeque::new();
    g.bench_function("scope_write_notify_10k_objects", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // The world tick is shared by every client: not part of the per-client cost.
                world.step(0.1);
                let start = Instant::now();
                server.update_scope(&world, cam);
                let mut w = BitWriter::with_budget_bytes(PACKET_BYTES);
                let rec = server.write_packet(&world, &mut w);
                pending.push_back(rec);
                if pending.len() > 3 {
                    let rec = pending.pop_front().unwrap();
                    server.packet_delivered(rec);
                }
                black_box(w.bit_position());
                total += start.elapsed();
            }
            total
        })
    });
    // The reference: no per-client state, write the full state of whatever is in range
    // until the packet is full (what a naive server would do each packet).
    let mut w = BitWriter::with_budget_bytes(PACKET_BYTES);
    g.bench_function("baseline_full_state_no_ghost_state", |b| {
        b.iter(|| {
            w.clear();
            let center = world.mover(cam).unwrap().pos;
            let mut n = 0u32;
            world.objects_in_radius(center, VIEW, &mut |id, _| {
                if w.bits_left() >= 32 + 224 {
                    let m = world.mover(id).unwrap();
                    w.write_int(id.0, 32);
                    w.write_vec3(m.pos.into());
                    w.write_vec3(m.vel.into());
                    w.write_f32(m.heading);
                    n += 1;
                }
            });
            black_box(n)
        })
    });
    g.finish();
    let s = server.stats();
    let packets = s.bits_written.max(1) as f64 / f64::from(PACKET_BYTES as u32 * 8).max(1.0);
    println!(
        "server totals: {} updates, {} creates, {} kills, {} skips, {} bits ({:.0} full packets)",
        s.updates_sent, s.creates_sent, s.kills_sent, s.skips, s.bits_written, packets
    );
}

criterion_group!(benches, update_bits, server_packet);
criterion_main!(benches);
