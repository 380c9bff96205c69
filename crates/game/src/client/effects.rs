//! The client's effects (issue 35): particles from the datablocks the server sent, simulated
//! here only, deterministic from a seed.
//!
//! - **Projectile trails**: a shot whose ProjectileData names a `baseEmitter` (or a
//!   `delayEmitter`) carries that emitter along while its ghost flies.
//! - **Explosions**: the server deletes a projectile right after its `onExplode`, so when a
//!   shot's ghost goes away the client spawns its ProjectileData's `explosion` where the shot
//!   was last seen: the ExplosionData's `particleEmitter` as a burst of `particleDensity`
//!   particles, its `emitter0..3` for its `lifetimeMS`, its `subExplosion0..4` after their
//!   own `delayMS` (nesting at most [`MAX_DEPTH`] deep), a camera shake (`shakeCamera`,
//!   `camShakeAmp`, `camShakeFreq`, `camShakeDuration`, falling off to nothing at
//!   `camShakeRadius`) and its light flash drawn as an additive glow from
//!   `lightStartRadius`/`lightStartColor` to `lightEndRadius`/`lightEndColor` (the renderer
//!   has no dynamic lights yet). Debris and shockwaves are read by `game::effects` but not
//!   drawn.
//!
//! - **Decals**: the shot's ProjectileData `decalData0..5` (the first that names a
//!   DecalData) is laid where it vanished, `sizeX` × `sizeY`, fading at the end of its
//!   `lifeSpan`, at most [`MAX_DECALS`] kept.
//!
//! - **Splashes** (V12's SplashData): a player, vehicle or shot whose datablock names a
//!   `splash`, seen above the water one frame and under it the next at 1 m/s or more,
//!   splashes where it met the surface: a burst of each of the SplashData's `emitter0..3`, a
//!   ring of `numSegments` puffs of the first around `startRadius` thrown out at
//!   `ejectionAngle` from the vertical, its `soundProfile` and its `explosion`; at most
//!   [`MAX_SPLASHES_A_FRAME`] a frame, among the [`MAX_DIPPERS`] lowest ghost ids. The ring is
//!   particles, not V12's textured ring.
//!
//! Vehicles' jets and players' jets and footsteps are `client::movers`'.
//!
//! Datablock values were checked at definition (`game::effects`); names that do not lead to a
//! datablock of the right class are skipped with a debug log.

use crate::client::particle_data::find_of;
pub use crate::client::particle_data::{emitter_desc, particle_desc};
use glam::{Vec3, Vec4};
use std::collections::HashMap;
use std::sync::Arc;
use v12_console_vm::{Console, ObjectId};
use v12_render_gl::{Camera, Shape};
use v12_render3d::{DecalDesc, DecalManager, EmitterDesc, EmitterId, ParticleSystem};

/// How deep sub-explosions nest (a datablock naming itself stops here).
pub const MAX_DEPTH: u32 = 3;
/// Most explosions alive at once (their shakes and flashes); older ones end first.
pub const MAX_EXPLOSIONS: usize = 64;
/// Most decals a client keeps (the oldest go first).
pub const MAX_DECALS: usize = 64;
/// Most splashes in one frame.
pub const MAX_SPLASHES_A_FRAME: usize = 8;
/// Most things watched for splashes (the lowest ghost ids).
pub const MAX_DIPPERS: usize = 256;
/// Particles of each splash emitter's burst, and most puffs in a splash's ring.
pub const SPLASH_PARTS: u32 = 12;
pub const MAX_RING: u32 = 32;

/// Something that may splash into the water this frame (`ClientSession::dippers`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dipper {
    /// Its ghost id.
    pub id: u32,
    /// Its feet (a player's or a vehicle's) or where it is (a shot), and its velocity.
    pub pos: Vec3,
    pub vel: Vec3,
    /// The water's surface over it while it is under (`None`: dry).
    pub surface: Option<f32>,
    /// The client's copy of its datablock (the one that names its `splash`).
    pub datablock: ObjectId,
}

/// A shot the client saw last frame.
#[derive(Debug, Clone)]
pub struct Shot {
    pub pos: Vec3,
    pub vel: Vec3,
    /// The client's copy of its ProjectileData.
    pub datablock: ObjectId,
    trail: Option<EmitterId>,
}

/// An explosion's shake and flash while it lasts.
#[derive(Debug, Clone)]
struct Blast {
    pos: Vec3,
    born_ms: u64,
    life_ms: u64,
    shake: Option<(Vec3, Vec3, f32, f32)>,
    flash: Option<(f32, f32, Vec4, Vec4)>,
}

/// The client's particles, shots, explosions and what is due later.
#[derive(Debug)]
pub struct ClientEffects {
    pub system: ParticleSystem,
    pub decals: DecalManager,
    shots: HashMap<u32, Shot>,
    blasts: Vec<Blast>,
    /// Sub-explosions due: (time, datablock, place, depth).
    pending: Vec<(u64, ObjectId, Vec3, u32)>,
    emitters: HashMap<ObjectId, Option<Arc<EmitterDesc>>>,
    now_ms: Option<u64>,
    /// Explosions spawned over its life.
    pub explosions: u64,
    /// The explosions' sounds (`soundProfile`, where) not yet played: the caller holding the
    /// mutable console plays them ([`Self::take_sounds`]).
    sounds: Vec<(ObjectId, Vec3)>,
    /// Vehicles' jets and players' jets and footsteps (`client::movers`).
    pub movers: crate::client::movers::MoverEffects,
    /// Whether each thing watched for splashes was under water last frame.
    wet: HashMap<u32, bool>,
    /// Splashes made over its life.
    pub splashes: u64,
}

impl ClientEffects {
    /// No effects; random numbers from `seed`.
    pub fn new(seed: u64) -> Self {
        ClientEffects {
            system: ParticleSystem::new(seed),
            decals: DecalManager::new(MAX_DECALS),
            shots: HashMap::new(),
            blasts: Vec::new(),
            pending: Vec::new(),
            emitters: HashMap::new(),
            now_ms: None,
            explosions: 0,
            sounds: Vec::new(),
            movers: Default::default(),
            wet: HashMap::new(),
            splashes: 0,
        }
    }

    /// One frame: `shots` are the projectile ghosts now in view (ghost id, position,
    /// velocity, the client's ProjectileData); a shot seen before and gone now explodes where
    /// it was. Then everything moves on to `now_ms`.
    pub fn update(&mut self, con: &Console, shots: &[(u32, Vec3, Vec3, ObjectId)], now_ms: u64) {
        let mut seen = HashMap::with_capacity(shots.len());
        for &(id, pos, vel, db) in shots {
            let shot = match self.shots.remove(&id) {
                Some(mut s) => {
                    if let Some(t) = s.trail {
                        self.system.move_emitter(t, pos, vel);
                    }
                    s.pos = pos;
                    s.vel = vel;
                    s
                }
                None => {
                    let trail = ["baseEmitter", "delayEmitter"]
                        .iter()
                        .find_map(|f| self.emitter(con, &con.get_field(db, f).as_text()))
                        .and_then(|e| self.system.add_emitter(e, pos, -vel, None));
                    if let Some(t) = trail {
                        self.system.move_emitter(t, pos, vel);
                    }
                    Shot { pos, vel, datablock: db, trail }
                }
            };
            seen.insert(id, shot);
        }
        let now = now_ms;
        for (_, gone) in std::mem::replace(&mut self.shots, seen) {
            if let Some(t) = gone.trail {
                self.system.remove_emitter(t);
            }
            let decal = (0..6).find_map(|k| {
                find_of(con, &con.get_field(gone.datablock, &format!("decalData{k}")).as_text(), "DecalData")
            });
            if let Some(d) = decal {
                let spin = (gone.pos.x * 12.9898 + gone.pos.y * 78.233).sin() * std::f32::consts::PI;
                self.decals.add(Arc::new(decal_desc(con, d)), gone.pos, spin, now);
            }
            let name = con.get_field(gone.datablock, "explosion").as_text().to_string();
            if let Some(db) = find_of(con, &name, "ExplosionData") {
                self.explode(con, db, gone.pos, 0, now);
            }
        }
        let last = self.now_ms.unwrap_or(now);
        let dt = now.saturating_sub(last);
        self.now_ms = Some(now.max(last));
        let (due, later): (Vec<_>, Vec<_>) = self.pending.drain(..).partition(|p| p.0 <= now);
        self.pending = later;
        for (_, db, pos, depth) in due {
            self.explode(con, db, pos, depth, now);
        }
        self.system.advance(dt.min(1000) as u32);
        self.blasts.retain(|b| now < b.born_ms + b.life_ms);
    }

    /// The jets and footsteps of `movers` (`client::movers`), before [`Self::update`] of the
    /// same frame moves everything on to `now_ms`.
    pub fn update_movers(&mut self, con: &Console, movers: &[crate::client::movers::Mover], now_ms: u64) {
        let dt = now_ms.saturating_sub(self.now_ms.unwrap_or(now_ms));
        self.movers.update(con, &mut self.system, movers, dt);
    }

    /// Splashes (see the module's notes): each of `dippers` above the water last frame and
    /// under it now splashes, before [`Self::update`] of the same frame moves everything on.
    /// One first seen under the water does not.
    pub fn update_splashes(&mut self, con: &Console, dippers: &[Dipper]) {
        let mut order: Vec<&Dipper> =
            dippers.iter().filter(|d| d.pos.is_finite() && d.vel.is_finite()).collect();
        order.sort_by_key(|d| d.id);
        order.truncate(MAX_DIPPERS);
        let now = self.now_ms.unwrap_or(0);
        let (mut seen, mut made) = (HashMap::with_capacity(order.len()), 0);
        for d in order {
            let wet = d.surface.is_some();
            let was = self.wet.get(&d.id).copied().unwrap_or(wet);
            seen.insert(d.id, wet);
            let (Some(surface), false) = (d.surface, was) else { continue };
            if made >= MAX_SPLASHES_A_FRAME || d.vel.length() < 1.0 {
                continue;
            }
            let name = con.get_field(d.datablock, "splash").as_text().to_string();
            if let Some(db) = find_of(con, &name, "SplashData") {
                self.splash(con, db, Vec3::new(d.pos.x, d.pos.y, surface), now);
                made += 1;
            }
        }
        self.wet = seen;
    }

    /// Spawns SplashData `db` on the surface at `at` now (see the module's notes).
    pub fn splash(&mut self, con: &Console, db: ObjectId, at: Vec3, now_ms: u64) {
        self.splashes += 1;
        let num = |f: &str, default: f32| crate::classes::num_field(con, db, f).map_or(default, |v| v as f32);
        let text = |f: &str| con.get_field(db, f).as_text().to_string();
        if let Some(p) = find_of(con, &text("soundProfile"), "AudioProfile")
            && self.sounds.len() < MAX_EXPLOSIONS
        {
            self.sounds.push((p, at));
        }
        let emitters: Vec<Arc<EmitterDesc>> = (0..crate::effects::MAX_KEYS)
            .filter_map(|k| self.emitter(con, &text(&format!("emitter{k}"))))
            .collect();
        for e in &emitters {
            self.system.burst(e, at, Vec3::Z, SPLASH_PARTS);
        }
        if let Some(e) = emitters.first() {
            let n = num("numSegments", 10.0).clamp(1.0, MAX_RING as f32) as u32;
            let r = num("startRadius", 0.0).clamp(0.2, 20.0);
            let tilt = num("ejectionAngle", 45.0).clamp(0.0, 180.0).to_radians();
            for k in 0..n {
                let a = k as f32 / n as f32 * std::f32::consts::TAU;
                let out = Vec3::new(a.cos(), a.sin(), 0.0);
                self.system.burst(e, at + out * r, out * tilt.sin() + Vec3::Z * tilt.cos(), 1);
            }
        }
        if let Some(x) = find_of(con, &text("explosion"), "ExplosionData") {
            self.explode(con, x, at, 0, now_ms);
        }
    }

    /// Spawns ExplosionData `db` at `pos` now (see the module's notes).
    pub fn explode(&mut self, con: &Console, db: ObjectId, pos: Vec3, depth: u32, now_ms: u64) {
        self.explosions += 1;
        let num = |f: &str| crate::classes::num_field(con, db, f).unwrap_or(0.0) as f32;
        let text = |f: &str| con.get_field(db, f).as_text().to_string();
        let vec3 = |f: &str| {
            let w: Vec<f32> = text(f).split_whitespace().filter_map(|x| x.parse().ok()).collect();
            (w.len() == 3).then(|| Vec3::new(w[0], w[1], w[2]))
        };
        let life_ms = num("lifetimeMS").max(0.0) as u32;
        if let Some(p) = find_of(con, &text("soundProfile"), "AudioProfile")
            && self.sounds.len() < MAX_EXPLOSIONS
        {
            self.sounds.push((p, pos));
        }
        if let Some(e) = self.emitter(con, &text("particleEmitter")) {
            let density = num("particleDensity").clamp(0.0, 4096.0) as u32;
            self.system.burst(&e, pos, Vec3::Z, density);
        }
        for k in 0..crate::effects::MAX_KEYS {
            if let Some(e) = self.emitter(con, &text(&format!("emitter{k}"))) {
                self.system.add_emitter(e, pos, Vec3::Z, Some(life_ms.max(1)));
            }
        }
        if depth < MAX_DEPTH {
            for k in 0..5 {
                let Some(sub) = find_of(con, &text(&format!("subExplosion{k}")), "ExplosionData") else {
                    continue;
                };
                let sub_num = |f: &str| crate::classes::num_field(con, sub, f).unwrap_or(0.0) as f32;
                let delay = sub_num("delayMS").max(0.0) as u64;
                let offset = sub_num("offset");
                let dir = Vec3::new((k as f32 * 2.4).cos(), (k as f32 * 2.4).sin(), 0.5).normalize();
                self.pending.push((now_ms + delay, sub, pos + dir * offset, depth + 1));
            }
        }
        let shake = crate::classes::bool_field(con, db, "shakeCamera").then(|| {
            let amp = vec3("camShakeAmp").unwrap_or(Vec3::ZERO);
            let freq = vec3("camShakeFreq").unwrap_or(Vec3::splat(10.0));
            (amp, freq, num("camShakeDuration"), num("camShakeRadius"))
        });
        let color = |f: &str| {
            let w: Vec<f32> = text(f).split_whitespace().filter_map(|x| x.parse().ok()).collect();
            match w.as_slice() {
                [r, g, b] => Vec4::new(*r, *g, *b, 1.0),
                [r, g, b, a] => Vec4::new(*r, *g, *b, *a),
                _ => Vec4::ONE,
            }
        };
        let (r0, r1) = (num("lightStartRadius"), num("lightEndRadius"));
        let flash =
            (r0 > 0.0 || r1 > 0.0).then(|| (r0, r1, color("lightStartColor"), color("lightEndColor")));
        if shake.is_some() || flash.is_some() {
            if self.blasts.len() >= MAX_EXPLOSIONS {
                self.blasts.remove(0);
            }
            self.blasts.push(Blast {
                pos,
                born_ms: now_ms,
                life_ms: u64::from(life_ms.max(1)),
                shake,
                flash,
            });
        }
    }

    /// The explosions' sounds due (AudioProfile datablock, where), oldest first; at most
    /// [`MAX_EXPLOSIONS`] wait between two calls.
    pub fn take_sounds(&mut self) -> Vec<(ObjectId, Vec3)> {
        std::mem::take(&mut self.sounds)
    }

    /// How far the camera at `eye` is shaken now (metres, to add to its position): each
    /// shaking explosion's amplitude (scaled to metres: V12's amplitudes are centimetres-ish,
    /// divided by 100 here) at its frequencies, fading over its duration and to nothing at
    /// its radius.
    pub fn camera_shake(&self, eye: Vec3) -> Vec3 {
        let Some(now) = self.now_ms else { return Vec3::ZERO };
        let mut out = Vec3::ZERO;
        for b in &self.blasts {
            let Some((amp, freq, duration, radius)) = b.shake else { continue };
            let t = (now - b.born_ms) as f32 / 1000.0;
            if t >= duration || radius <= 0.0 {
                continue;
            }
            let near = (1.0 - b.pos.distance(eye) / radius).clamp(0.0, 1.0);
            let fade = 1.0 - t / duration.max(1e-3);
            let wave = Vec3::new(
                (t * freq.x * std::f32::consts::TAU).sin(),
                (t * freq.y * std::f32::consts::TAU + 1.0).sin(),
                (t * freq.z * std::f32::consts::TAU + 2.0).sin(),
            );
            out += amp / 100.0 * wave * near * fade;
        }
        out
    }

    /// The particles, the explosions' flashes and the decals (draped over `terrain`, when
    /// there is one) as shapes for the view from `camera`; aged decals go.
    pub fn shapes(
        &mut self,
        camera: &Camera,
        terrain: Option<&v12_world::TerrainBlock>,
        out: &mut Vec<Shape>,
    ) {
        if let (Some(t), Some(now)) = (terrain, self.now_ms) {
            self.decals.shapes(t, now, out);
        }
        self.system.billboards(camera, out);
        let Some(now) = self.now_ms else { return };
        let mut glow = Vec::new();
        for b in &self.blasts {
            let Some((r0, r1, c0, c1)) = b.flash else { continue };
            let t = ((now - b.born_ms) as f32 / b.life_ms as f32).clamp(0.0, 1.0);
            let color = c0.lerp(c1, t) * Vec4::new(1.0, 1.0, 1.0, 1.0 - t);
            glow.extend(v12_render3d::billboard(camera, b.pos, 2.0 * (r0 + (r1 - r0) * t), color, 0.0));
        }
        if !glow.is_empty() {
            out.push(Shape::Particles { texture: None, triangles: Arc::new(glow), additive: true });
        }
    }

    /// Explosions whose shake or flash still lasts.
    pub fn live_explosions(&self) -> usize {
        self.blasts.len()
    }

    /// The emitter ParticleEmitterData `name` describes (read once), or `None`.
    fn emitter(&mut self, con: &Console, name: &str) -> Option<Arc<EmitterDesc>> {
        let db = find_of(con, name, "ParticleEmitterData")?;
        self.emitters.entry(db).or_insert_with(|| emitter_desc(con, db)).clone()
    }
}

/// A DecalData datablock as a decal's description.
pub fn decal_desc(con: &Console, db: ObjectId) -> DecalDesc {
    let num = |f: &str, default: f32| crate::classes::num_field(con, db, f).map_or(default, |v| v as f32);
    let texture = con.get_field(db, "textureName").as_text().trim().replace('\\', "/");
    DecalDesc {
        size: glam::Vec2::new(num("sizeX", 1.0), num("sizeY", 1.0)),
        texture: (!texture.is_empty()).then(|| Arc::from(texture)),
        life_ms: num("lifeSpan", 5000.0).max(1.0) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn console() -> Console {
        crate::client::particle_data::datablock_console(
            r#"
            datablock ParticleData(Smoke) { lifetimeMS = 800; colors[0] = "1 0.5 0.2 1"; sizes[0] = 0.5; sizes[1] = 2; times[1] = 1; };
            datablock ParticleEmitterData(SmokeEmitter) { ejectionPeriodMS = 10; particles = "Smoke"; };
            datablock ParticleEmitterData(Empty) { particles = "Nothing"; };
            datablock ExplosionData(Sub) { lifetimeMS = 300; delayMS = 100; offset = 2; particleEmitter = SmokeEmitter; particleDensity = 5; };
            datablock ExplosionData(Boom) { particleEmitter = SmokeEmitter; particleDensity = 30; emitter[0] = SmokeEmitter;
               subExplosion[0] = Sub; subExplosion[1] = Boom; lifetimeMS = 500; shakeCamera = true;
               camShakeAmp = "20 20 20"; camShakeFreq = "10 11 10"; camShakeDuration = 0.5; camShakeRadius = 20;
               lightStartRadius = 4; lightEndRadius = 1; lightStartColor = "1 0.8 0.4"; };
            datablock DecalData(Scorch) { sizeX = 3; sizeY = 3; lifeSpan = 2000; };
            datablock ProjectileData(Disc) { explosion = Boom; baseEmitter = SmokeEmitter; decalData[0] = Scorch; };
            datablock ProjectileData(Plain) { explosion = Nope; };
            "#,
        )
    }

    /// An explosion's `soundProfile` waits for the caller with the mutable console to play
    /// it where the explosion is (V12's Explosion plays its own sound on the client); one
    /// naming no AudioProfile is silent.
    #[test]
    fn an_explosion_queues_its_sound_where_it_is() {
        use crate::objects::tests::{eval, game_console};
        let (mut con, _, _) = game_console();
        // The sound card's classes without a sound card (`crate::audio::install` adds them).
        let _ = con.register_class("AudioProfile", "SimDataBlock");
        eval(
            &mut con,
            "datablock AudioProfile(BoomSound) { filename = \"boom.wav\"; };\n\
             datablock ExplosionData(Loud) { soundProfile = BoomSound; };\n\
             datablock ExplosionData(Mute) { soundProfile = Nothing; };",
        );
        let id = |n: &str| con.find_object_str(n).unwrap();
        let mut fx = ClientEffects::new(1);
        let at = Vec3::new(3.0, 4.0, 5.0);
        fx.explode(&con, id("Loud"), at, 0, 0);
        fx.explode(&con, id("Mute"), at, 0, 0);
        assert_eq!(fx.take_sounds(), vec![(id("BoomSound"), at)]);
        assert!(fx.take_sounds().is_empty());
    }

    #[test]
    fn a_shot_trails_then_explodes_where_it_vanished() {
        let con = console();
        let disc = con.find_object_str("Disc").unwrap();
        let plain = con.find_object_str("Plain").unwrap();
        let mut fx = ClientEffects::new(35);
        let v = Vec3::new(0.0, 20.0, 0.0);
        for t in 0..10u64 {
            let at = Vec3::new(0.0, t as f32 * 0.5, 1.0);
            fx.update(&con, &[(7, at, v, disc), (8, at, v, plain)], t * 25);
        }
        assert!(fx.system.len() > 10, "the trail: {}", fx.system.len());
        assert_eq!(fx.explosions, 0);
        fx.update(&con, &[], 250);
        // The disc's Boom and the Boom it names as an undelayed sub-explosion; the plain shot
        // names no ExplosionData.
        assert_eq!(fx.explosions, 2);
        let shake = fx.camera_shake(Vec3::new(0.0, 4.5, 2.0));
        fx.update(&con, &[], 270);
        let shake2 = fx.camera_shake(Vec3::new(0.0, 4.5, 2.0));
        assert!(shake != shake2 && shake2.length() > 0.0, "{shake} then {shake2}");
        assert_eq!(fx.camera_shake(Vec3::new(0.0, 100.0, 0.0)), Vec3::ZERO, "beyond its radius");
        let cam = Camera::look_at(Vec3::new(0.0, -10.0, 3.0), Vec3::new(0.0, 4.5, 1.0), 1.2, 0.1, 100.0);
        let mut shapes = Vec::new();
        let ground = v12_world::TerrainBlock::flat(8.0, 0.0);
        fx.shapes(&cam, Some(&ground), &mut shapes);
        assert!(shapes.len() >= 3, "the scorch, the particles and the flash");
        assert_eq!(fx.decals.len(), 1);
        // The sub-explosions come 100 ms later (Boom naming itself nests 3 deep at most).
        for t in 0..40u64 {
            fx.update(&con, &[], 300 + t * 50);
        }
        assert!((3..=1 + 2 + 4 + 8).contains(&fx.explosions), "{}", fx.explosions);
        assert_eq!(fx.live_explosions(), 0, "all over");
        fx.update(&con, &[], 10_000);
        assert!(fx.system.is_empty());
        assert!(emitter_desc(&con, con.find_object_str("Empty").unwrap()).is_none());
    }

    #[test]
    fn the_same_seed_and_frames_give_the_same_effects() {
        let con = console();
        let disc = con.find_object_str("Disc").unwrap();
        let run = || {
            let mut fx = ClientEffects::new(9);
            fx.update(&con, &[(1, Vec3::ZERO, Vec3::Y, disc)], 0);
            fx.update(&con, &[], 40);
            fx.update(&con, &[], 300);
            let cam = Camera::look_at(Vec3::new(0.0, -10.0, 3.0), Vec3::ZERO, 1.2, 0.1, 100.0);
            let mut out = Vec::new();
            fx.shapes(&cam, None, &mut out);
            out
        };
        assert_eq!(run(), run());
    }

    /// A player walking into the water splashes once where it met the surface (its PlayerData's
    /// `splash`: the emitter's burst and ring, the sound); staying under, or first seen
    /// under, or too slow, or naming no SplashData, it does not; at most
    /// MAX_SPLASHES_A_FRAME a frame.
    #[test]
    fn things_entering_the_water_splash_once_capped() {
        use crate::objects::tests::{eval, game_console};
        let (mut con, _, _) = game_console();
        let _ = con.register_class("AudioProfile", "SimDataBlock");
        eval(
            &mut con,
            "datablock AudioProfile(SplashSound) { filename = \"splash.wav\"; };\n\
             datablock ParticleData(Spray) { lifetimeMS = 500; sizes[0] = 0.3; };\n\
             datablock ParticleEmitterData(SprayEmitter) { ejectionPeriodMS = 20; particles = \"Spray\"; };\n\
             datablock SplashData(Sploosh) { emitter[0] = SprayEmitter; numSegments = 8; startRadius = 0.5;\n\
                ejectionAngle = 60; soundProfile = SplashSound; };\n\
             datablock PlayerData(Wader) { splash = Sploosh; };\n\
             datablock PlayerData(Dry) { splash = Nothing; };",
        );
        let id = |n: &str| con.find_object_str(n).unwrap();
        let mut fx = ClientEffects::new(5);
        let dip = |id: u32, db: ObjectId, z: f32, surface: Option<f32>| Dipper {
            id,
            pos: Vec3::new(id as f32, 0.0, z),
            vel: Vec3::new(0.0, 4.0, -1.0),
            surface,
            datablock: db,
        };
        let (wader, dry) = (id("Wader"), id("Dry"));
        fx.update_splashes(
            &con,
            &[dip(1, wader, 1.5, None), dip(2, dry, 1.5, None), dip(3, wader, 0.5, Some(1.2))],
        );
        assert_eq!(fx.splashes, 0, "first seen: no splash");
        fx.update_splashes(
            &con,
            &[dip(1, wader, 0.9, Some(1.2)), dip(2, dry, 0.9, Some(1.2)), dip(3, wader, 0.4, Some(1.2))],
        );
        assert_eq!(fx.splashes, 1, "only the wader that went in");
        assert_eq!(fx.system.len() as u32, SPLASH_PARTS + 8, "the burst and its ring");
        assert_eq!(fx.take_sounds(), vec![(id("SplashSound"), Vec3::new(1.0, 0.0, 1.2))], "on the surface");
        fx.update_splashes(&con, &[dip(1, wader, 0.8, Some(1.2))]);
        assert_eq!(fx.splashes, 1, "still under: no more");
        // Out and back in slowly: no splash.
        fx.update_splashes(&con, &[dip(1, wader, 1.5, None)]);
        fx.update_splashes(&con, &[Dipper { vel: Vec3::Z * -0.5, ..dip(1, wader, 1.1, Some(1.2)) }]);
        assert_eq!(fx.splashes, 1);
        // A crowd jumping in together: capped.
        let crowd: Vec<Dipper> = (10..40).map(|i| dip(i, wader, 1.5, None)).collect();
        fx.update_splashes(&con, &crowd);
        let wet: Vec<Dipper> =
            crowd.iter().map(|d| Dipper { pos: d.pos - Vec3::Z, surface: Some(1.2), ..*d }).collect();
        fx.update_splashes(&con, &wet);
        assert_eq!(fx.splashes, 1 + MAX_SPLASHES_A_FRAME as u64);
        // Junk is skipped.
        fx.update_splashes(&con, &[Dipper { pos: Vec3::NAN, ..dip(50, wader, 0.0, Some(1.0)) }]);
    }
}
