//! Tests of `effects`: Tribes 2-style declarations of every effect class (here so that
//! `effects` itself needs nothing of `classes`, which lists its fields).

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
    assert!(stderr.contains("DiscExplosion (ExplosionData): field lightEndColor = \"bright\""), "{stderr}");
    assert_eq!(crate::classes::num_field(&con, id("DiscExplosion"), "lifetimeMS"), Some(1500.0));
    assert_eq!(crate::classes::num_field(&con, id("DiscSubExplosion"), "particleDensity"), Some(10.0));
}
