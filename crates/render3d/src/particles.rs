//! Particles (V12's ParticleData, ParticleEmitterData and the particle engine): simulated on
//! the client only, deterministic from a seed, capped per emitter and in total, drawn as
//! camera-facing billboards in the translucent pass (sorted back to front with the rest).
//!
//! A [`ParticleDesc`] is one kind of particle (lifetime, drag, gravity, inherited velocity,
//! constant acceleration, spin, colours and sizes over its life at up to four keys, a
//! texture, and its blending: alpha or additive). An [`EmitterDesc`] ejects particles of
//! its kinds every period (with variance) inside a cone about its axis (`thetaMin..thetaMax`
//! from the axis, `phiReferenceVel` degrees a second around it plus `phiVariance`), at its
//! ejection velocity and offset. The game reads both from datablocks (crates/game's
//! `effects`); this module knows no console.
//!
//! The random numbers are a SplitMix64 stream from the system's seed, and the simulation
//! moves in whole milliseconds, so the same seed and the same calls give the same particles
//! on every machine.

use glam::{Vec3, Vec4};
use std::sync::Arc;
use v12_render_gl::{Camera, Shape, TexVertex3};

/// Most particles one emitter keeps alive (V12 had no cap; a script's typo could ask for
/// millions).
pub const MAX_PER_EMITTER: usize = 1000;
/// Most particles alive in one system.
pub const MAX_TOTAL: usize = 8000;
/// Most emitters in one system.
pub const MAX_EMITTERS: usize = 512;
/// Gravity the `gravityCoefficient` scales (m/s², downward).
pub const GRAVITY: f32 = 9.81;

/// One kind of particle (V12's ParticleData), its values already checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticleDesc {
    pub lifetime_ms: u32,
    pub lifetime_variance_ms: u32,
    /// Velocity lost a second, as a share (`dragCoefficient`).
    pub drag: f32,
    pub gravity: f32,
    /// Share of the emitter's velocity a particle starts with.
    pub inherited_velocity: f32,
    /// Acceleration along the particle's starting direction (m/s²).
    pub constant_acceleration: f32,
    /// Degrees a second.
    pub spin_speed: f32,
    pub spin_random_min: f32,
    pub spin_random_max: f32,
    /// Colours (RGBA, 0..=1) and sizes (m) at the keys' times (shares of the life, rising).
    pub colors: [Vec4; 4],
    pub sizes: [f32; 4],
    pub times: [f32; 4],
    /// The texture's name (`None`: a soft round spot of the colour).
    pub texture: Option<Arc<str>>,
    /// Added to what is behind (V12's `useInvAlpha = false`), else blended by alpha.
    pub additive: bool,
}

impl Default for ParticleDesc {
    fn default() -> Self {
        ParticleDesc {
            lifetime_ms: 1000,
            lifetime_variance_ms: 0,
            drag: 0.0,
            gravity: 0.0,
            inherited_velocity: 0.0,
            constant_acceleration: 0.0,
            spin_speed: 0.0,
            spin_random_min: 0.0,
            spin_random_max: 0.0,
            colors: [Vec4::ONE; 4],
            sizes: [1.0; 4],
            times: [0.0, 1.0, 2.0, 2.0],
            texture: None,
            additive: true,
        }
    }
}

impl ParticleDesc {
    /// The colour and size at `t` (share of the life, 0..=1), interpolated between the keys
    /// around it (keys past the last rising time are unused).
    pub fn at(&self, t: f32) -> (Vec4, f32) {
        let mut last = 0;
        for k in 1..4 {
            if self.times[k] > self.times[k - 1] && self.times[k] <= 1.0 + 1e-6 {
                last = k;
            } else {
                break;
            }
        }
        if t <= self.times[0] || last == 0 {
            return (self.colors[0], self.sizes[0]);
        }
        for k in 1..=last {
            if t <= self.times[k] {
                let f = (t - self.times[k - 1]) / (self.times[k] - self.times[k - 1]).max(1e-6);
                let c = self.colors[k - 1].lerp(self.colors[k], f);
                return (c, self.sizes[k - 1] + (self.sizes[k] - self.sizes[k - 1]) * f);
            }
        }
        (self.colors[last], self.sizes[last])
    }
}

/// An emitter's kind (V12's ParticleEmitterData), its values already checked.
#[derive(Debug, Clone, PartialEq)]
pub struct EmitterDesc {
    pub period_ms: u32,
    pub period_variance_ms: u32,
    pub velocity: f32,
    pub velocity_variance: f32,
    /// Metres from the emitter's point, along the ejection direction, a particle starts.
    pub offset: f32,
    /// Degrees from the axis.
    pub theta_min: f32,
    pub theta_max: f32,
    /// Degrees a second the ejection turns about the axis, and its random spread.
    pub phi_reference_vel: f32,
    pub phi_variance: f32,
    /// The particles it ejects, one at random each time (at least one to eject anything).
    pub particles: Vec<Arc<ParticleDesc>>,
}

impl Default for EmitterDesc {
    fn default() -> Self {
        EmitterDesc {
            period_ms: 100,
            period_variance_ms: 0,
            velocity: 2.0,
            velocity_variance: 1.0,
            offset: 0.0,
            theta_min: 0.0,
            theta_max: 90.0,
            phi_reference_vel: 0.0,
            phi_variance: 360.0,
            particles: Vec::new(),
        }
    }
}

/// A handle on an emitter of a system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EmitterId(u64);

#[derive(Debug, Clone)]
struct Emitter {
    id: EmitterId,
    desc: Arc<EmitterDesc>,
    pos: Vec3,
    axis: Vec3,
    vel: Vec3,
    /// Milliseconds to the next ejection.
    next_ms: i64,
    /// Milliseconds of emitting left (`None`: until removed).
    left_ms: Option<i64>,
    age_ms: u64,
    alive: usize,
}

#[derive(Debug, Clone)]
struct Particle {
    emitter: EmitterId,
    desc: Arc<ParticleDesc>,
    pos: Vec3,
    vel: Vec3,
    accel: Vec3,
    age_ms: u32,
    life_ms: u32,
    spin: f32,
}

/// SplitMix64: small, fast and the same everywhere.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..1.
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in -1..1.
    fn signed(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

/// A client's particles and emitters.
#[derive(Debug, Clone)]
pub struct ParticleSystem {
    rng: Rng,
    emitters: Vec<Emitter>,
    particles: Vec<Particle>,
    next_id: u64,
    /// Particles not ejected because a cap was reached, over the system's life.
    pub dropped: u64,
}

impl ParticleSystem {
    /// An empty system whose random numbers come from `seed`.
    pub fn new(seed: u64) -> Self {
        ParticleSystem { rng: Rng(seed), emitters: Vec::new(), particles: Vec::new(), next_id: 1, dropped: 0 }
    }

    /// Particles alive.
    pub fn len(&self) -> usize {
        self.particles.len()
    }

    pub fn is_empty(&self) -> bool {
        self.particles.is_empty()
    }

    /// Emitters alive (emitting).
    pub fn emitters(&self) -> usize {
        self.emitters.len()
    }

    /// Starts an emitter at `pos` ejecting about `axis` for `lifetime_ms` (`None`: until
    /// [`Self::remove_emitter`]); `None` when [`MAX_EMITTERS`] are alive.
    pub fn add_emitter(
        &mut self,
        desc: Arc<EmitterDesc>,
        pos: Vec3,
        axis: Vec3,
        lifetime_ms: Option<u32>,
    ) -> Option<EmitterId> {
        if self.emitters.len() >= MAX_EMITTERS {
            tracing::debug!("particle emitter not started: {MAX_EMITTERS} alive");
            return None;
        }
        let id = EmitterId(self.next_id);
        self.next_id += 1;
        let axis = axis.try_normalize().unwrap_or(Vec3::Z);
        self.emitters.push(Emitter {
            id,
            desc,
            pos,
            axis,
            vel: Vec3::ZERO,
            next_ms: 0,
            left_ms: lifetime_ms.map(i64::from),
            age_ms: 0,
            alive: 0,
        });
        Some(id)
    }

    /// Moves an emitter (a projectile's trail follows its shot), with the velocity its
    /// particles inherit from.
    pub fn move_emitter(&mut self, id: EmitterId, pos: Vec3, vel: Vec3) {
        if let Some(e) = self.emitters.iter_mut().find(|e| e.id == id) {
            e.pos = pos;
            e.vel = vel;
        }
    }

    /// Turns an emitter's ejection axis (a vehicle's jet turning with it); a zero axis is
    /// ignored.
    pub fn aim_emitter(&mut self, id: EmitterId, axis: Vec3) {
        if let (Some(e), Some(axis)) = (self.emitters.iter_mut().find(|e| e.id == id), axis.try_normalize()) {
            e.axis = axis;
        }
    }

    /// Stops an emitter; its particles live out their lives.
    pub fn remove_emitter(&mut self, id: EmitterId) {
        self.emitters.retain(|e| e.id != id);
    }

    /// Ejects `count` particles at once from `desc` at `pos` about `axis` (an explosion's
    /// burst), within the caps.
    pub fn burst(&mut self, desc: &Arc<EmitterDesc>, pos: Vec3, axis: Vec3, count: u32) {
        let axis = axis.try_normalize().unwrap_or(Vec3::Z);
        let id = EmitterId(0);
        for _ in 0..count {
            if !self.eject(id, desc, pos, axis, Vec3::ZERO, 0) {
                break;
            }
        }
    }

    /// One particle from `desc`; false when a cap stopped it.
    fn eject(
        &mut self,
        id: EmitterId,
        desc: &EmitterDesc,
        pos: Vec3,
        axis: Vec3,
        vel: Vec3,
        age_ms: u64,
    ) -> bool {
        if self.particles.len() >= MAX_TOTAL {
            self.dropped += 1;
            return false;
        }
        let Some(pd) = (match desc.particles.len() {
            0 => None,
            n => desc.particles.get((self.rng.next_u64() % n as u64) as usize),
        }) else {
            return false;
        };
        let pd = pd.clone();
        let r = &mut self.rng;
        let theta = (desc.theta_min + (desc.theta_max - desc.theta_min) * r.unit()).to_radians();
        let phi =
            (desc.phi_reference_vel * age_ms as f32 / 1000.0 + desc.phi_variance * r.unit()).to_radians();
        let x = axis.any_orthonormal_vector();
        let y = axis.cross(x);
        let dir = (axis * theta.cos() + (x * phi.cos() + y * phi.sin()) * theta.sin()).normalize_or_zero();
        let speed = desc.velocity + desc.velocity_variance * r.signed();
        let variance = pd.lifetime_variance_ms.min(pd.lifetime_ms.saturating_sub(1)) as f32;
        let life_ms = (pd.lifetime_ms as f32 + variance * r.signed()).round().max(1.0) as u32;
        let spin = pd.spin_random_min + (pd.spin_random_max - pd.spin_random_min) * r.unit();
        self.particles.push(Particle {
            emitter: id,
            pos: pos + dir * desc.offset,
            vel: dir * speed + vel * pd.inherited_velocity,
            accel: dir * pd.constant_acceleration,
            age_ms: 0,
            life_ms,
            spin,
            desc: pd,
        });
        true
    }

    /// Moves everything on by `dt_ms` milliseconds (in steps of at most 32 ms): emitters
    /// eject what their periods say, particles move and age, the dead are dropped.
    pub fn advance(&mut self, dt_ms: u32) {
        let mut left = dt_ms;
        while left > 0 {
            let step = left.min(32);
            left -= step;
            self.step(step);
        }
    }

    fn step(&mut self, ms: u32) {
        let dt = ms as f32 / 1000.0;
        for p in &mut self.particles {
            let d = &p.desc;
            let a = p.accel - Vec3::Z * (GRAVITY * d.gravity) - p.vel * d.drag;
            p.vel += a * dt;
            p.pos += p.vel * dt;
            p.age_ms = p.age_ms.saturating_add(ms);
        }
        // A particle whose motion is no longer finite (fields gone bad) goes.
        self.particles.retain(|p| p.age_ms < p.life_ms && p.pos.is_finite() && p.vel.is_finite());
        for e in &mut self.emitters {
            e.alive = 0;
        }
        for p in &self.particles {
            if let Some(e) = self.emitters.iter_mut().find(|e| e.id == p.emitter) {
                e.alive += 1;
            }
        }
        let mut emitters = std::mem::take(&mut self.emitters);
        for e in &mut emitters {
            e.age_ms += u64::from(ms);
            e.next_ms -= i64::from(ms);
            while e.next_ms <= 0 {
                if e.alive >= MAX_PER_EMITTER {
                    self.dropped += 1;
                } else if self.eject(e.id, &e.desc, e.pos, e.axis, e.vel, e.age_ms) {
                    e.alive += 1;
                }
                let variance = e.desc.period_variance_ms.min(e.desc.period_ms.saturating_sub(1)) as f32;
                let period = (e.desc.period_ms as f32 + variance * self.rng.signed()).round().max(1.0);
                e.next_ms += period as i64;
            }
            if let Some(l) = &mut e.left_ms {
                *l -= i64::from(ms);
            }
        }
        emitters.retain(|e| e.left_ms.is_none_or(|l| l > 0));
        self.emitters = emitters;
    }

    /// The live particles as camera-facing quads (two triangles each, spun by their spin),
    /// one translucent batch a texture and blending, appended to `out`.
    pub fn billboards(&self, camera: &Camera, out: &mut Vec<Shape>) {
        let mut batches: Vec<(Option<Arc<str>>, bool, Vec<TexVertex3>)> = Vec::new();
        for p in self.particles.iter().filter(|p| p.pos.is_finite()) {
            let d = &p.desc;
            let t = p.age_ms as f32 / p.life_ms.max(1) as f32;
            let (c, size) = d.at(t);
            let angle = p.spin + d.spin_speed * p.age_ms as f32 / 1000.0;
            let quad = billboard(camera, p.pos, size, c, angle);
            match batches.iter_mut().find(|b| b.0 == d.texture && b.1 == d.additive) {
                Some(b) => b.2.extend(quad),
                None => batches.push((d.texture.clone(), d.additive, quad.to_vec())),
            }
        }
        for (texture, additive, triangles) in batches {
            out.push(Shape::Particles { texture, triangles: Arc::new(triangles), additive });
        }
    }
}

/// A camera-facing square of side `size` at `center`, turned `spin_degrees` in the view's
/// plane, in colour `color` (RGBA 0..=1): two triangles for a [`Shape::Particles`] batch.
pub fn billboard(
    camera: &Camera,
    center: Vec3,
    size: f32,
    color: Vec4,
    spin_degrees: f32,
) -> [TexVertex3; 6] {
    let fwd = camera.forward();
    let right = fwd.cross(Vec3::Z).try_normalize().unwrap_or(Vec3::X);
    let up = right.cross(fwd);
    let spin = if spin_degrees.is_finite() { spin_degrees % 360.0 } else { 0.0 };
    let (s, co) = spin.to_radians().sin_cos();
    let h = if size.is_finite() { size.max(0.0) * 0.5 } else { 0.0 };
    let (r, u) = ((right * co + up * s) * h, (up * co - right * s) * h);
    let color = (color.clamp(Vec4::ZERO, Vec4::ONE) * 255.0).round().to_array().map(|v| v as u8);
    let mut weights = [0u8; v12_render_gl::MAX_LAYERS];
    weights[0] = 255;
    let v = |corner: Vec3, uv: [f32; 2]| TexVertex3 { pos: (center + corner).to_array(), uv, color, weights };
    [
        v(-r - u, [0.0, 1.0]),
        v(r - u, [1.0, 1.0]),
        v(r + u, [1.0, 0.0]),
        v(-r - u, [0.0, 1.0]),
        v(r + u, [1.0, 0.0]),
        v(-r + u, [0.0, 0.0]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smoke() -> Arc<EmitterDesc> {
        let p = ParticleDesc {
            lifetime_ms: 500,
            lifetime_variance_ms: 100,
            gravity: -0.2,
            drag: 0.5,
            colors: [Vec4::new(1.0, 0.5, 0.2, 1.0), Vec4::new(0.5, 0.5, 0.5, 0.5), Vec4::ZERO, Vec4::ZERO],
            sizes: [0.5, 2.0, 0.0, 0.0],
            times: [0.0, 1.0, 2.0, 2.0],
            ..ParticleDesc::default()
        };
        Arc::new(EmitterDesc { period_ms: 10, particles: vec![Arc::new(p)], ..EmitterDesc::default() })
    }

    #[test]
    fn the_same_seed_gives_the_same_particles() {
        let run = |seed| {
            let mut s = ParticleSystem::new(seed);
            s.add_emitter(smoke(), Vec3::ZERO, Vec3::Z, Some(300));
            s.advance(200);
            s.particles.iter().map(|p| p.pos).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert_eq!(run(7).len(), 21, "one at the start, then one every 10 ms");
    }

    /// An aimed emitter ejects about its new axis (a vehicle's jet turning with it); a zero
    /// axis leaves it as it was.
    #[test]
    fn aimed_emitters_eject_about_their_new_axis() {
        let narrow = Arc::new(EmitterDesc { theta_max: 0.0, velocity_variance: 0.0, ..(*smoke()).clone() });
        let mut s = ParticleSystem::new(2);
        let id = s.add_emitter(narrow, Vec3::ZERO, Vec3::Z, None).unwrap();
        s.aim_emitter(id, -Vec3::Y * 3.0);
        s.aim_emitter(id, Vec3::ZERO);
        s.advance(30);
        assert!(!s.particles.is_empty());
        assert!(s.particles.iter().all(|p| p.vel.normalize().dot(-Vec3::Y) > 0.99), "they blow along -y");
    }

    #[test]
    fn particles_age_out_and_emitters_end() {
        let mut s = ParticleSystem::new(1);
        s.add_emitter(smoke(), Vec3::ZERO, Vec3::Z, Some(100));
        s.advance(100);
        assert_eq!(s.emitters(), 0);
        assert!(!s.is_empty());
        s.advance(700);
        assert!(s.is_empty(), "all dead after their 400-600 ms");
    }

    #[test]
    fn caps_hold_per_emitter_and_in_total() {
        let mut s = ParticleSystem::new(3);
        let fast = Arc::new(EmitterDesc {
            period_ms: 1,
            particles: vec![Arc::new(ParticleDesc { lifetime_ms: 100_000, ..ParticleDesc::default() })],
            ..EmitterDesc::default()
        });
        s.add_emitter(fast.clone(), Vec3::ZERO, Vec3::Z, None);
        s.advance(5000);
        assert_eq!(s.len(), MAX_PER_EMITTER);
        for _ in 0..20 {
            s.burst(&fast, Vec3::ZERO, Vec3::Z, 1000);
        }
        assert_eq!(s.len(), MAX_TOTAL);
        assert!(s.dropped > 0);
    }

    #[test]
    fn colours_and_sizes_follow_the_keys() {
        let d = ParticleDesc {
            colors: [Vec4::ZERO, Vec4::ONE, Vec4::ZERO, Vec4::ZERO],
            sizes: [1.0, 3.0, 1.0, 0.0],
            times: [0.0, 0.5, 1.0, 1.0],
            ..ParticleDesc::default()
        };
        assert_eq!(d.at(0.25), (Vec4::splat(0.5), 2.0));
        assert_eq!(d.at(0.5).1, 3.0);
        assert_eq!(d.at(0.75).1, 2.0);
        assert_eq!(d.at(1.0).1, 1.0);
    }

    #[test]
    fn billboards_face_the_camera_and_batch_by_texture() {
        let mut s = ParticleSystem::new(5);
        s.burst(&smoke(), Vec3::new(0.0, 10.0, 0.0), Vec3::Z, 10);
        let cam = Camera::look_at(Vec3::ZERO, Vec3::new(0.0, 10.0, 0.0), 1.0, 0.1, 100.0);
        let mut out = Vec::new();
        s.billboards(&cam, &mut out);
        assert_eq!(out.len(), 1);
        let Shape::Particles { triangles, additive, .. } = &out[0] else { panic!("particles") };
        assert!(*additive);
        assert_eq!(triangles.len(), 60);
        for t in triangles.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|i| Vec3::from_array(t[i].pos));
            let n = (b - a).cross(c - a).normalize();
            assert!(n.dot(cam.forward()).abs() > 0.99, "faces the camera");
        }
    }
}
