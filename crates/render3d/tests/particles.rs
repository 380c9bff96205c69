//! An explosion's particles mid-life (300 ms after the burst, seed 35) drawn on llvmpipe over
//! a patch of ground and against a golden: fire (additive, the built-in soft spot) rising
//! and fading to smoke (alpha blended), sorted back to front in the translucent pass with a
//! grey pillar behind. The same seed draws the same picture.

mod common;

use glam::{Vec3, Vec4};
use std::sync::Arc;
use v12_render_gl::{Camera, ColorI, RectI, Scene, Shape};
use v12_render3d::{EmitterDesc, ParticleDesc, ParticleSystem};

fn explosion(seed: u64) -> ParticleSystem {
    let fire = ParticleDesc {
        lifetime_ms: 700,
        lifetime_variance_ms: 150,
        drag: 1.5,
        gravity: -0.3,
        colors: [
            Vec4::new(1.0, 0.9, 0.4, 1.0),
            Vec4::new(1.0, 0.45, 0.1, 0.8),
            Vec4::new(0.4, 0.1, 0.0, 0.0),
            Vec4::ZERO,
        ],
        sizes: [0.6, 1.6, 2.2, 0.0],
        times: [0.0, 0.4, 1.0, 1.0],
        spin_random_min: -90.0,
        spin_random_max: 90.0,
        ..ParticleDesc::default()
    };
    let smoke = ParticleDesc {
        lifetime_ms: 1500,
        drag: 0.8,
        gravity: -0.15,
        colors: [
            Vec4::new(0.3, 0.3, 0.3, 0.0),
            Vec4::new(0.35, 0.35, 0.35, 0.7),
            Vec4::new(0.5, 0.5, 0.5, 0.0),
            Vec4::ZERO,
        ],
        sizes: [1.0, 2.5, 4.0, 0.0],
        times: [0.0, 0.2, 1.0, 1.0],
        additive: false,
        ..ParticleDesc::default()
    };
    let burst = |p: ParticleDesc, velocity: f32| {
        Arc::new(EmitterDesc {
            velocity,
            velocity_variance: velocity * 0.4,
            theta_max: 80.0,
            particles: vec![Arc::new(p)],
            ..EmitterDesc::default()
        })
    };
    let mut s = ParticleSystem::new(seed);
    let at = Vec3::new(0.0, 0.0, 0.5);
    s.burst(&burst(smoke, 3.0), at, Vec3::Z, 24);
    s.burst(&burst(fire, 7.0), at, Vec3::Z, 40);
    s.advance(300);
    s
}

fn frame(seed: u64) -> v12_render_gl::Image {
    let camera = Camera::look_at(Vec3::new(0.0, -12.0, 3.0), Vec3::new(0.0, 0.0, 2.0), 1.1, 0.1, 100.0);
    let mut shapes = vec![
        Shape::Box {
            center: Vec3::new(0.0, 0.0, -0.5),
            half_extents: Vec3::new(30.0, 30.0, 0.5),
            rotation_z: 0.0,
            color: ColorI::rgb(70, 100, 60),
        },
        Shape::Box {
            center: Vec3::new(1.5, 4.0, 3.0),
            half_extents: Vec3::new(0.6, 0.6, 3.0),
            rotation_z: 0.3,
            color: ColorI::rgb(140, 140, 150),
        },
    ];
    let system = explosion(seed);
    assert!(system.len() > 40, "{} particles alive mid-life", system.len());
    system.billboards(&camera, &mut shapes);
    let scene = Scene { shapes, clear_color: Some(ColorI::rgb(40, 60, 90)), ..Scene::default() };
    common::render(&scene, &camera, 160, 120)
}

#[test]
fn an_explosions_particles_mid_life_golden() {
    let img = frame(35);
    common::golden("explosion_particles", &img);
    assert_eq!(img, frame(35), "deterministic from the seed");
    // The fireball's heart is bright orange over the ground's green.
    let vp = RectI::new(0, 0, 160, 120);
    let camera = Camera::look_at(Vec3::new(0.0, -12.0, 3.0), Vec3::new(0.0, 0.0, 2.0), 1.1, 0.1, 100.0);
    let c = camera.point_to_screen(Vec3::new(0.0, 0.0, 1.2), vp).unwrap();
    let p = img.get(c.x as u32, c.y as u32).unwrap();
    assert!(p[0] > 150 && p[0] > p[2] + 60, "fire at the heart: {p:?}");
}

/// Particle fields gone bad (not finite, huge, keys out of order, a texture that cannot be
/// loaded, a zero life) are drawn around: no panic, and what is drawn is finite.
#[test]
fn broken_particle_fields_never_panic() {
    let bad = ParticleDesc {
        lifetime_ms: 0,
        lifetime_variance_ms: u32::MAX,
        drag: f32::NAN,
        gravity: f32::INFINITY,
        inherited_velocity: -f32::MAX,
        constant_acceleration: f32::NAN,
        spin_speed: f32::INFINITY,
        spin_random_min: 1e30,
        spin_random_max: -1e30,
        colors: [Vec4::splat(f32::NAN), Vec4::splat(-5.0), Vec4::splat(1e9), Vec4::ZERO],
        sizes: [f32::NAN, -3.0, 1e30, f32::INFINITY],
        times: [1.0, f32::NAN, 0.0, -2.0],
        texture: Some(Arc::from("no/such/texture")),
        additive: false,
    };
    let emitter = Arc::new(EmitterDesc {
        velocity: f32::NAN,
        velocity_variance: f32::INFINITY,
        theta_max: 1e9,
        particles: vec![Arc::new(bad)],
        ..EmitterDesc::default()
    });
    let mut s = ParticleSystem::new(7);
    s.burst(&emitter, Vec3::new(0.0, 0.0, 1.0), Vec3::Z, 50);
    s.add_emitter(emitter, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::splat(f32::INFINITY), None);
    let camera = Camera::look_at(Vec3::new(0.0, -12.0, 3.0), Vec3::new(0.0, 0.0, 2.0), 1.1, 0.1, 100.0);
    for _ in 0..5 {
        s.advance(100);
        let mut shapes = Vec::new();
        s.billboards(&camera, &mut shapes);
        for sh in &shapes {
            if let Shape::Particles { triangles, .. } = sh {
                assert!(triangles.iter().all(|v| v.pos.iter().all(|c| c.is_finite())));
            }
        }
        let img = common::render(&Scene { shapes, ..Scene::default() }, &camera, 32, 24);
        assert_eq!(img.width(), 32);
    }
}
