//! Tribes 2's effect and water datablock classes (issue 35): ParticleData,
//! ParticleEmitterData, ParticleEmissionDummyData, ExplosionData, DebrisData, ShockwaveData,
//! SplashData, DecalData, LightningData, PrecipitationData, FireballAtmosphereData,
//! JetEffectData, RunningLightData, LiquidProfile and WaveProfile, with V12's parents and
//! the numeric fields checked when a datablock is defined (`crate::classes::preload`: junk
//! or out of range is a console warning naming the datablock and the field, and the default
//! is kept). Names of other datablocks and textures (`particles`, `emitter0`,
//! `textureName`) stay text; arrays are the VM's `name0..nameN` fields.
//!
//! Which of them the client draws: particles (emitters, bursts), explosions (their emitters,
//! particle bursts, sub-explosions, camera shake and light flash as a glow) and projectile
//! trails (`client::effects`). Debris, shockwaves, splashes, decals, lightning,
//! precipitation, fireball atmospheres, jet effects, running lights, liquids and waves are
//! declared and checked only.

use crate::classes::{BIG, FieldSpec, color, flag, int, num, point};

/// `(class, parent)`, parents first; the parents are registered by `crate::objects`.
pub(crate) const CLASSES: &[(&str, &str)] = &[
    ("ParticleData", "SimDataBlock"),
    ("ParticleEmitterData", "SimDataBlock"),
    ("ParticleEmissionDummyData", "GameBaseData"),
    ("ExplosionData", "GameBaseData"),
    ("DebrisData", "GameBaseData"),
    ("ShockwaveData", "GameBaseData"),
    ("SplashData", "GameBaseData"),
    ("DecalData", "SimDataBlock"),
    ("LightningData", "GameBaseData"),
    ("PrecipitationData", "GameBaseData"),
    ("FireballAtmosphereData", "GameBaseData"),
    ("JetEffectData", "GameBaseData"),
    ("RunningLightData", "GameBaseData"),
    ("LiquidProfile", "SimDataBlock"),
    ("WaveProfile", "SimDataBlock"),
];

/// Most particle kinds one emitter names, and array slots read (V12: 4 keys, 4 emitters).
pub const MAX_KEYS: usize = 4;

/// Milliseconds anything may last (10 minutes).
const MS: i64 = 600_000;

/// The checked fields of the effect classes, with V12's defaults.
pub(crate) const FIELDS: &[FieldSpec] = &[
    // ParticleData.
    num("ParticleData", "dragCoefficient", 0.0, BIG, 0.0),
    num("ParticleData", "windCoefficient", -BIG, BIG, 1.0),
    num("ParticleData", "gravityCoefficient", -BIG, BIG, 0.0),
    num("ParticleData", "inheritedVelFactor", -BIG, BIG, 0.0),
    num("ParticleData", "constantAcceleration", -BIG, BIG, 0.0),
    int("ParticleData", "lifetimeMS", 1, MS, 1000),
    int("ParticleData", "lifetimeVarianceMS", 0, MS, 0),
    num("ParticleData", "spinSpeed", -10_000.0, 10_000.0, 0.0),
    num("ParticleData", "spinRandomMin", -10_000.0, 10_000.0, 0.0),
    num("ParticleData", "spinRandomMax", -10_000.0, 10_000.0, 0.0),
    flag("ParticleData", "useInvAlpha", false),
    flag("ParticleData", "animateTexture", false),
    int("ParticleData", "framesPerSec", 0, 1000, 1),
    color("ParticleData", "colors0"),
    color("ParticleData", "colors1"),
    color("ParticleData", "colors2"),
    color("ParticleData", "colors3"),
    num("ParticleData", "sizes0", 0.0, 10_000.0, 1.0),
    num("ParticleData", "sizes1", 0.0, 10_000.0, 1.0),
    num("ParticleData", "sizes2", 0.0, 10_000.0, 1.0),
    num("ParticleData", "sizes3", 0.0, 10_000.0, 1.0),
    num("ParticleData", "times0", 0.0, 1.0, 0.0),
    num("ParticleData", "times1", 0.0, 1.0, 1.0),
    num("ParticleData", "times2", 0.0, 1.0, 2.0),
    num("ParticleData", "times3", 0.0, 1.0, 2.0),
    // ParticleEmitterData.
    int("ParticleEmitterData", "ejectionPeriodMS", 1, MS, 100),
    int("ParticleEmitterData", "periodVarianceMS", 0, MS, 0),
    num("ParticleEmitterData", "ejectionVelocity", 0.0, BIG, 2.0),
    num("ParticleEmitterData", "velocityVariance", 0.0, BIG, 1.0),
    num("ParticleEmitterData", "ejectionOffset", 0.0, BIG, 0.0),
    num("ParticleEmitterData", "thetaMin", 0.0, 180.0, 0.0),
    num("ParticleEmitterData", "thetaMax", 0.0, 180.0, 90.0),
    num("ParticleEmitterData", "phiReferenceVel", 0.0, 360.0, 0.0),
    num("ParticleEmitterData", "phiVariance", 0.0, 360.0, 360.0),
    flag("ParticleEmitterData", "overrideAdvances", false),
    flag("ParticleEmitterData", "orientParticles", false),
    flag("ParticleEmitterData", "orientOnVelocity", true),
    flag("ParticleEmitterData", "useEmitterSizes", false),
    flag("ParticleEmitterData", "useEmitterColors", false),
    // ParticleEmissionDummyData.
    num("ParticleEmissionDummyData", "timeMultiple", 0.01, 100.0, 1.0),
    // ExplosionData.
    flag("ExplosionData", "faceViewer", false),
    int("ExplosionData", "particleDensity", 0, 4096, 10),
    num("ExplosionData", "particleRadius", 0.0, BIG, 0.0),
    point("ExplosionData", "explosionScale"),
    num("ExplosionData", "playSpeed", 0.05, 100.0, 1.0),
    point("ExplosionData", "sizes0"),
    point("ExplosionData", "sizes1"),
    point("ExplosionData", "sizes2"),
    point("ExplosionData", "sizes3"),
    num("ExplosionData", "times0", 0.0, 1.0, 0.0),
    num("ExplosionData", "times1", 0.0, 1.0, 1.0),
    num("ExplosionData", "times2", 0.0, 1.0, 1.0),
    num("ExplosionData", "times3", 0.0, 1.0, 1.0),
    int("ExplosionData", "delayMS", 0, MS, 0),
    int("ExplosionData", "delayVariance", 0, MS, 0),
    int("ExplosionData", "lifetimeMS", 0, MS, 1000),
    int("ExplosionData", "lifetimeVariance", 0, MS, 0),
    num("ExplosionData", "offset", 0.0, BIG, 0.0),
    flag("ExplosionData", "shakeCamera", false),
    point("ExplosionData", "camShakeFreq"),
    point("ExplosionData", "camShakeAmp"),
    num("ExplosionData", "camShakeDuration", 0.0, 600.0, 1.5),
    num("ExplosionData", "camShakeRadius", 0.0, BIG, 10.0),
    num("ExplosionData", "camShakeFalloff", 0.0, BIG, 10.0),
    num("ExplosionData", "lightStartRadius", 0.0, BIG, 0.0),
    num("ExplosionData", "lightEndRadius", 0.0, BIG, 0.0),
    color("ExplosionData", "lightStartColor"),
    color("ExplosionData", "lightEndColor"),
    num("ExplosionData", "debrisThetaMin", 0.0, 180.0, 0.0),
    num("ExplosionData", "debrisThetaMax", 0.0, 180.0, 90.0),
    num("ExplosionData", "debrisPhiMin", 0.0, 360.0, 0.0),
    num("ExplosionData", "debrisPhiMax", 0.0, 360.0, 360.0),
    int("ExplosionData", "debrisNum", 0, 1000, 1),
    int("ExplosionData", "debrisNumVariance", 0, 1000, 0),
    num("ExplosionData", "debrisVelocity", 0.0, BIG, 2.0),
    num("ExplosionData", "debrisVelocityVariance", 0.0, BIG, 0.0),
    flag("ExplosionData", "shockwaveOnTerrain", false),
    // DebrisData.
    num("DebrisData", "elasticity", 0.0, 1.0, 0.3),
    num("DebrisData", "friction", 0.0, 1.0, 0.2),
    int("DebrisData", "numBounces", 0, 1000, 0),
    int("DebrisData", "bounceVariance", 0, 1000, 0),
    num("DebrisData", "lifetime", 0.0, 1000.0, 3.0),
    num("DebrisData", "lifetimeVariance", 0.0, 1000.0, 0.0),
    num("DebrisData", "velocity", 0.0, BIG, 0.0),
    num("DebrisData", "velocityVariance", 0.0, BIG, 0.0),
    num("DebrisData", "minSpinSpeed", -10_000.0, 10_000.0, 0.0),
    num("DebrisData", "maxSpinSpeed", -10_000.0, 10_000.0, 0.0),
    num("DebrisData", "gravModifier", -BIG, BIG, 1.0),
    num("DebrisData", "terminalVelocity", 0.0, BIG, 0.0),
    num("DebrisData", "baseRadius", 0.0, BIG, 1.0),
    flag("DebrisData", "explodeOnMaxBounce", false),
    flag("DebrisData", "staticOnMaxBounce", false),
    flag("DebrisData", "snapOnMaxBounce", false),
    flag("DebrisData", "fade", true),
    flag("DebrisData", "useRadiusMass", false),
    flag("DebrisData", "ignoreWater", true),
    // ShockwaveData.
    num("ShockwaveData", "width", 0.0, BIG, 1.0),
    int("ShockwaveData", "numSegments", 1, 1024, 16),
    num("ShockwaveData", "velocity", 0.0, BIG, 1.0),
    num("ShockwaveData", "height", 0.0, BIG, 1.0),
    flag("ShockwaveData", "verticalCurve", false),
    num("ShockwaveData", "acceleration", -BIG, BIG, 0.0),
    num("ShockwaveData", "texWrap", 0.0, BIG, 1.0),
    int("ShockwaveData", "lifetimeMS", 0, MS, 500),
    flag("ShockwaveData", "is2D", false),
    flag("ShockwaveData", "orientToNormal", false),
    flag("ShockwaveData", "renderBottom", true),
    flag("ShockwaveData", "mapToTerrain", false),
    color("ShockwaveData", "colors0"),
    color("ShockwaveData", "colors1"),
    color("ShockwaveData", "colors2"),
    color("ShockwaveData", "colors3"),
    num("ShockwaveData", "times0", 0.0, 1.0, 0.0),
    num("ShockwaveData", "times1", 0.0, 1.0, 1.0),
    num("ShockwaveData", "times2", 0.0, 1.0, 1.0),
    num("ShockwaveData", "times3", 0.0, 1.0, 1.0),
    // SplashData.
    point("SplashData", "scale"),
    num("SplashData", "velocity", 0.0, BIG, 5.0),
    num("SplashData", "height", 0.0, BIG, 0.0),
    num("SplashData", "width", 0.0, BIG, 4.0),
    int("SplashData", "numSegments", 1, 1024, 10),
    num("SplashData", "acceleration", -BIG, BIG, 0.0),
    num("SplashData", "texWrap", 0.0, BIG, 1.0),
    int("SplashData", "ejectionFreq", 0, 1000, 5),
    num("SplashData", "ejectionAngle", 0.0, 180.0, 45.0),
    num("SplashData", "ringLifetime", 0.0, 600.0, 1.0),
    int("SplashData", "lifetimeMS", 0, MS, 1000),
    int("SplashData", "lifetimeVariance", 0, MS, 0),
    num("SplashData", "startRadius", 0.0, BIG, 0.0),
    color("SplashData", "colors0"),
    color("SplashData", "colors1"),
    color("SplashData", "colors2"),
    color("SplashData", "colors3"),
    // DecalData.
    num("DecalData", "sizeX", 0.0, BIG, 1.0),
    num("DecalData", "sizeY", 0.0, BIG, 1.0),
    flag("DecalData", "selfIlluminated", false),
    int("DecalData", "lifeSpan", 0, MS, 5000),
    // LightningData.
    num("LightningData", "directDamage", -BIG, BIG, 0.0),
    // PrecipitationData.
    num("PrecipitationData", "sizeX", 0.0, BIG, 1.0),
    num("PrecipitationData", "sizeY", 0.0, BIG, 1.0),
    num("PrecipitationData", "movingBoxPer", 0.0, 1.0, 0.0),
    num("PrecipitationData", "divHeightVal", 0.0, BIG, 1.0),
    num("PrecipitationData", "sizeBigBox", 0.0, BIG, 1.0),
    num("PrecipitationData", "topBoxSpeed", -BIG, BIG, 0.0),
    num("PrecipitationData", "frontBoxSpeed", -BIG, BIG, 0.0),
    num("PrecipitationData", "topBoxDrawPer", 0.0, 1.0, 0.5),
    num("PrecipitationData", "bottomDrawHeight", 0.0, BIG, 0.0),
    num("PrecipitationData", "skipIfPer", 0.0, 1.0, 0.0),
    num("PrecipitationData", "bottomSpeedPer", 0.0, BIG, 1.0),
    num("PrecipitationData", "frontSpeedPer", 0.0, BIG, 1.0),
    num("PrecipitationData", "frontRadiusPer", 0.0, BIG, 1.0),
    // FireballAtmosphereData: its `fireball` names a ProjectileData (text).
    // JetEffectData (a vehicle's or pack's jet): its emitters are named as text.
    num("JetEffectData", "velocity", 0.0, BIG, 0.0),
    num("JetEffectData", "length", 0.0, BIG, 1.0),
    // RunningLightData.
    num("RunningLightData", "radius", 0.0, BIG, 1.0),
    color("RunningLightData", "color"),
    point("RunningLightData", "offset"),
    point("RunningLightData", "direction"),
    flag("RunningLightData", "pulse", false),
    int("RunningLightData", "pulseTime", 0, MS, 0),
    // LiquidProfile (a WaterBlock's liquid: water, ocean water, lava, crude oil).
    num("LiquidProfile", "viscosity", 0.0, BIG, 1.0),
    num("LiquidProfile", "density", 0.0, BIG, 1.0),
    num("LiquidProfile", "heat", 0.0, BIG, 0.0),
    color("LiquidProfile", "color"),
    // WaveProfile.
    num("WaveProfile", "waveSpeed", -BIG, BIG, 0.0),
    num("WaveProfile", "waveAmp", 0.0, BIG, 0.0),
];

#[cfg(test)]
mod tests {
    use v12_console_vm::{BufferSink, Console};

    fn console() -> (Console, BufferSink) {
        let mut con = Console::new();
        let out = BufferSink::new();
        con.set_output(Box::new(out.clone()));
        let _ = con.register_class("SceneObject", "SimObject");
        let _ = con.register_class("GameConnection", "SimObject");
        let shared = std::rc::Rc::new(std::cell::RefCell::new(crate::state::Shared::default()));
        crate::objects::register(&mut con, &shared);
        (con, out)
    }

    /// Declarations in Tribes 2's style (scripts/particles, weapons): every class
    /// instantiates, arrays land in `name0..`, junk is a warning naming the datablock and
    /// the field, and the default is kept.
    #[test]
    fn the_effect_classes_instantiate_with_their_fields_checked() {
        let (mut con, out) = console();
        con.eval(
            r#"
            datablock ParticleData(DiscExplosionSmoke) {
               dragCoefficient = 2; gravityCoefficient = -0.1; inheritedVelFactor = 0.0;
               lifetimeMS = 1000; lifetimeVarianceMS = 500; textureName = "particleTest";
               useInvAlpha = true; spinRandomMin = -30.0; spinRandomMax = 30.0;
               colors[0] = "1.0 0.7 0.2 1.0"; colors[1] = "0.3 0.3 0.3 0.5"; colors[2] = "0.1 0.1 0.1 0.0";
               sizes[0] = 1.0; sizes[1] = 2.5; sizes[2] = 4.0;
               times[0] = 0.0; times[1] = 0.3; times[2] = 1.0;
               constantAcceleration = "fast";
            };
            datablock ParticleEmitterData(DiscExplosionSmokeEmitter) {
               ejectionPeriodMS = 7; periodVarianceMS = 0; ejectionVelocity = 5.25;
               velocityVariance = 0.25; thetaMin = 0.0; thetaMax = 270.0;
               particles = "DiscExplosionSmoke";
            };
            datablock ParticleEmissionDummyData(defaultEmissionDummy) { timeMultiple = 1.0; };
            datablock DebrisData(DiscDebris) { elasticity = 0.4; friction = 0.2; numBounces = 3; lifetime = 2; };
            datablock ShockwaveData(DiscShockwave) { width = 6; numSegments = 32; velocity = 16;
               colors[0] = "0.4 0.4 1.0 0.5"; times[1] = 0.5; lifetimeMS = 500; is2D = false; };
            datablock SplashData(BulletSplash) { numSegments = 15; ejectionFreq = 15; ringLifetime = 0.5; };
            datablock ExplosionData(DiscSubExplosion) { lifetimeMS = 200; offset = 1.0; };
            datablock ExplosionData(DiscExplosion) {
               explosionShape = "disc_explosion.dts"; soundProfile = discExpSound;
               faceViewer = true; particleEmitter = DiscExplosionSmokeEmitter; particleDensity = 80;
               particleRadius = 1.25; emitter[0] = DiscExplosionSmokeEmitter;
               subExplosion[0] = DiscSubExplosion; debris = DiscDebris; debrisNum = 6;
               shockwave = DiscShockwave; shakeCamera = true; camShakeFreq = "10.0 11.0 10.0";
               camShakeAmp = "20.0 20.0 20.0"; camShakeDuration = 0.5; camShakeRadius = 10.0;
               lightStartRadius = 6; lightEndRadius = 3; lightStartColor = "0.5 0.8 1.0";
               lightEndColor = "bright";
               sizes[0] = "1.0 1.0 1.0"; times[0] = 0.0; lifetimeMS = 1500;
            };
            datablock DecalData(ScorchDecal) { sizeX = 2; sizeY = 2; textureName = "special/scorch"; };
            datablock LightningData(DefaultStorm) { strikeTextures[0] = "special/skyLightning"; directDamage = 0.4; };
            datablock PrecipitationData(Snow) { sizeX = 0.2; sizeY = 0.2; movingBoxPer = 0.35; };
            datablock FireballAtmosphereData(FireballAtmosphere) { fireball = "Meteor"; };
            datablock JetEffectData(ShrikeJet) { texture = "special/jetExhaust02"; };
            datablock RunningLightData(ShrikeLight) { radius = 1.5; color = "1.0 1.0 1.0 0.3"; offset = "0 0 1"; };
            datablock LiquidProfile(Lava) { viscosity = 15; density = 1; heat = 500; };
            datablock WaveProfile(SeaWaves) { waveSpeed = 2; waveAmp = 0.4; };
            "#,
        )
        .expect("every declaration instantiates");
        let stderr = out.stderr();
        assert!(!stderr.contains("Unable to instantiate"), "{stderr}");
        let id = |n: &str| con.find_object_str(n).unwrap_or_else(|| panic!("no {n}"));
        for (name, class) in [
            ("DiscExplosionSmoke", "ParticleData"),
            ("DiscExplosionSmokeEmitter", "ParticleEmitterData"),
            ("defaultEmissionDummy", "ParticleEmissionDummyData"),
            ("DiscDebris", "DebrisData"),
            ("DiscShockwave", "ShockwaveData"),
            ("BulletSplash", "SplashData"),
            ("DiscExplosion", "ExplosionData"),
            ("ScorchDecal", "DecalData"),
            ("DefaultStorm", "LightningData"),
            ("Snow", "PrecipitationData"),
            ("FireballAtmosphere", "FireballAtmosphereData"),
            ("ShrikeJet", "JetEffectData"),
            ("ShrikeLight", "RunningLightData"),
            ("Lava", "LiquidProfile"),
            ("SeaWaves", "WaveProfile"),
        ] {
            assert_eq!(con.class_name_of(id(name)), class);
        }
        let smoke = id("DiscExplosionSmoke");
        assert_eq!(con.get_field(smoke, "colors1").as_text().as_ref(), "0.3 0.3 0.3 0.5");
        assert_eq!(con.get_field(smoke, "sizes2").as_text().as_ref(), "4");
        // Junk: warned about by datablock and field, set back to the default.
        assert!(
            stderr.contains("DiscExplosionSmoke (ParticleData): field constantAcceleration = \"fast\""),
            "{stderr}"
        );
        assert_eq!(con.get_field(smoke, "constantAcceleration").as_text().as_ref(), "0");
        assert!(stderr.contains("field thetaMax = \"270\" is outside 0 to 180"), "{stderr}");
        assert_eq!(con.get_field(id("DiscExplosionSmokeEmitter"), "thetaMax").as_text().as_ref(), "90");
        assert!(
            stderr.contains("DiscExplosion (ExplosionData): field lightEndColor = \"bright\""),
            "{stderr}"
        );
        assert_eq!(crate::classes::num_field(&con, id("DiscExplosion"), "lifetimeMS"), Some(1500.0));
        assert_eq!(crate::classes::num_field(&con, id("DiscSubExplosion"), "particleDensity"), Some(10.0));
    }
}
