//! The engine classes Tribes 2's scripts declare beyond the first game objects: weapons'
//! images, the projectile family, vehicles, turrets, sensors, force fields, shape
//! constructors and FileObject, with V12's names and parents, and the datablock fields the
//! engine reads, checked when a datablock is defined (V12's `preload`).
//!
//! A checked field holds its text as written; on definition a junk or out-of-range value is
//! a console warning naming the datablock and the field, and the field is set back to its
//! default. Fields the engine does not read stay dynamic fields, as in V12 (a datablock may
//! carry any field a script wants).

pub(crate) use crate::fields::{BIG, FieldSpec, Kind, check, flag, int, num, point};
use crate::state::GameClass;
use v12_console_vm::{Console, ObjectId, Value};

/// `(class, parent)` in the order they are registered (a parent before its children).
pub(crate) const CLASSES: &[(&str, &str)] = &[
    // Datablocks.
    ("ShapeBaseImageData", "GameBaseData"),
    ("TurretImageData", "ShapeBaseImageData"),
    ("LinearProjectileData", "ProjectileData"),
    ("LinearFlareProjectileData", "LinearProjectileData"),
    ("TracerProjectileData", "LinearProjectileData"),
    ("EnergyProjectileData", "LinearFlareProjectileData"),
    ("GrenadeProjectileData", "ProjectileData"),
    ("BombProjectileData", "GrenadeProjectileData"),
    ("FlareProjectileData", "GrenadeProjectileData"),
    ("SeekerProjectileData", "ProjectileData"),
    ("SniperProjectileData", "ProjectileData"),
    ("ELFProjectileData", "ProjectileData"),
    ("ShockLanceProjectileData", "ProjectileData"),
    ("RepairProjectileData", "ProjectileData"),
    ("TargetProjectileData", "ProjectileData"),
    ("VehicleData", "ShapeBaseData"),
    ("WheeledVehicleData", "VehicleData"),
    ("HoverVehicleData", "VehicleData"),
    ("FlyingVehicleData", "VehicleData"),
    ("WheeledVehicleTire", "SimDataBlock"),
    ("WheeledVehicleSpring", "SimDataBlock"),
    ("TurretData", "StaticShapeData"),
    ("SensorData", "SimDataBlock"),
    ("ForceFieldBareData", "GameBaseData"),
    ("TSShapeConstructor", "SimDataBlock"),
    // Tribes 2's mission markers (way points, spawn spheres), its inventory stations' light
    // effects and the commander map's icons: kept with their fields.
    ("MissionMarkerData", "ShapeBaseData"),
    ("StationFXPersonalData", "GameBaseData"),
    ("StationFXVehicleData", "GameBaseData"),
    ("CommanderIconData", "SimDataBlock"),
    // Objects.
    ("LinearProjectile", "Projectile"),
    ("LinearFlareProjectile", "LinearProjectile"),
    ("TracerProjectile", "LinearProjectile"),
    ("EnergyProjectile", "LinearFlareProjectile"),
    ("GrenadeProjectile", "Projectile"),
    ("BombProjectile", "GrenadeProjectile"),
    ("FlareProjectile", "GrenadeProjectile"),
    ("SeekerProjectile", "Projectile"),
    ("SniperProjectile", "Projectile"),
    ("ELFProjectile", "Projectile"),
    ("ShockLanceProjectile", "Projectile"),
    ("RepairProjectile", "Projectile"),
    ("TargetProjectile", "Projectile"),
    ("Vehicle", "ShapeBase"),
    ("WheeledVehicle", "Vehicle"),
    ("HoverVehicle", "Vehicle"),
    ("FlyingVehicle", "Vehicle"),
    ("Turret", "StaticShape"),
    ("ForceFieldBare", "GameBase"),
    ("MissionMarker", "SceneObject"),
    ("WayPoint", "MissionMarker"),
    ("SpawnSphere", "MissionMarker"),
    ("CameraBookmark", "MissionMarker"),
    ("AIObjective", "MissionMarker"),
    ("CannedChatItem", "SimObject"),
];

/// The fields the engine reads, with V12's defaults (the ones this engine's example game
/// relies on where V12's differ: `maxDamage` 100).
pub(crate) const FIELDS: &[FieldSpec] = &[
    // ShapeBaseData: damage, energy and repair (`crate::damage`).
    num("ShapeBaseData", "disabledLevel", 0.0, BIG, -1.0),
    num("ShapeBaseData", "destroyedLevel", 0.0, BIG, -1.0),
    num("ShapeBaseData", "repairRate", 0.0, BIG, 0.0033),
    num("ShapeBaseData", "maxEnergy", 0.0, BIG, 0.0),
    num("ShapeBaseData", "rechargeRate", -BIG, BIG, 0.0),
    num("ShapeBaseData", "drag", 0.0, 100.0, 0.0),
    num("ShapeBaseData", "density", 0.0, BIG, 1.0),
    // PlayerData: running, jumping and jetting (`crate::PlayerTuning`).
    num("PlayerData", "runForce", 0.0, BIG, 0.0),
    num("PlayerData", "maxBackwardSpeed", 0.0, 1000.0, 0.0),
    num("PlayerData", "maxSideSpeed", 0.0, 1000.0, 0.0),
    num("PlayerData", "jumpEnergyDrain", 0.0, BIG, 0.0),
    num("PlayerData", "minJumpEnergy", 0.0, BIG, 0.0),
    num("PlayerData", "jetForce", 0.0, BIG, 0.0),
    num("PlayerData", "jetEnergyDrain", 0.0, BIG, 0.0),
    num("PlayerData", "minJetEnergy", 0.0, BIG, 0.0),
    num("PlayerData", "maxJetHorizontalPercentage", 0.0, 1.0, 0.8),
    num("PlayerData", "minImpactSpeed", 0.0, 1000.0, 25.0),
    num("PlayerData", "speedDamageScale", 0.0, BIG, 0.0),
    // ShapeBaseImageData (`crate::images`).
    int("ShapeBaseImageData", "mountPoint", 0, 31, 0),
    point("ShapeBaseImageData", "offset"),
    point("ShapeBaseImageData", "eyeOffset"),
    flag("ShapeBaseImageData", "usesEnergy", false),
    num("ShapeBaseImageData", "minEnergy", 0.0, BIG, 2.0),
    num("ShapeBaseImageData", "fireEnergy", 0.0, BIG, 0.0),
    num("TurretImageData", "activationMS", 0.0, 60_000.0, 0.0),
    num("TurretImageData", "deactivateDelayMS", 0.0, 60_000.0, 0.0),
    num("TurretImageData", "thinkTimeMS", 32.0, 60_000.0, 200.0),
    num("TurretImageData", "degPerSecTheta", 0.0, 36_000.0, 360.0),
    num("TurretImageData", "degPerSecPhi", 0.0, 36_000.0, 360.0),
    num("TurretImageData", "attackRadius", 0.0, 10_000.0, 100.0),
    // The projectile family (`crate::projectiles`).
    num("ProjectileData", "lifetimeMS", 0.0, 600_000.0, -1.0),
    num("ProjectileData", "dryVelocity", 0.0, 10_000.0, -1.0),
    // Negative: the shot does not go on under water (Tribes 2's plasma says -1).
    num("ProjectileData", "wetVelocity", -1.0, 10_000.0, -1.0),
    num("ProjectileData", "velInheritFactor", 0.0, 10.0, 1.0),
    num("ProjectileData", "armingDelayMS", 0.0, 600_000.0, 0.0),
    num("ProjectileData", "directDamage", -BIG, BIG, 0.0),
    num("ProjectileData", "indirectDamage", -BIG, BIG, 0.0),
    num("ProjectileData", "damageRadius", 0.0, 10_000.0, 0.0),
    num("ProjectileData", "kickBackStrength", -BIG, BIG, 0.0),
    num("GrenadeProjectileData", "grenadeElasticity", 0.0, 1.0, 0.35),
    num("GrenadeProjectileData", "grenadeFriction", 0.0, 1.0, 0.2),
    num("SeekerProjectileData", "maxVelocity", 0.0, 10_000.0, 100.0),
    num("SeekerProjectileData", "acceleration", 0.0, 10_000.0, 20.0),
    num("SeekerProjectileData", "turningSpeed", 0.0, 3600.0, 90.0),
    num("SeekerProjectileData", "proximityRadius", 0.0, 1000.0, 2.0),
    num("SniperProjectileData", "maxRifleRange", 0.0, 10_000.0, 1000.0),
    num("ELFProjectileData", "beamRange", 0.0, 10_000.0, 40.0),
    num("ELFProjectileData", "drainEnergy", 0.0, BIG, 1.0),
    num("ELFProjectileData", "drainHealth", 0.0, BIG, 0.0),
    num("ShockLanceProjectileData", "zapDuration", 0.0, 60.0, 1.0),
    num("ShockLanceProjectileData", "boltLength", 0.0, 1000.0, 14.0),
    num("RepairProjectileData", "beamRange", 0.0, 10_000.0, 10.0),
    num("RepairProjectileData", "repairAmount", 0.0, BIG, 0.01),
    num("TargetProjectileData", "maxRifleRange", 0.0, 10_000.0, 1000.0),
    // Vehicles (`crate::vehicles`).
    // Radians for wheels; Tribes 2's flyers give 5 and 8 (unused by their flight model).
    num("VehicleData", "maxSteeringAngle", 0.0, 360.0, 0.785),
    num("VehicleData", "mainThrustForce", 0.0, BIG, 0.0),
    num("VehicleData", "reverseThrustForce", 0.0, BIG, 0.0),
    num("VehicleData", "maxForwardSpeed", 0.0, 1000.0, 0.0),
    num("VehicleData", "jetForce", 0.0, BIG, 0.0),
    num("VehicleData", "jetEnergyDrain", 0.0, BIG, 0.0),
    num("VehicleData", "minJetEnergy", 0.0, BIG, 0.0),
    num("VehicleData", "collDamageMultiplier", 0.0, BIG, 0.0),
    num("VehicleData", "collDamageThresholdVel", 0.0, 1000.0, 20.0),
    num("VehicleData", "minImpactSpeed", 0.0, 1000.0, 25.0),
    num("VehicleData", "speedDamageScale", 0.0, BIG, 0.0),
    num("FlyingVehicleData", "maneuveringForce", 0.0, BIG, 0.0),
    num("FlyingVehicleData", "createHoverHeight", 0.0, 100.0, 2.0),
    num("FlyingVehicleData", "hoverHeight", 0.0, 100.0, 2.0),
    num("HoverVehicleData", "floatingThrustFactor", 0.0, 100.0, 0.25),
    num("HoverVehicleData", "floatingGravMag", 0.0, 100.0, 1.0),
    num("WheeledVehicleData", "engineTorque", 0.0, BIG, 0.0),
    num("WheeledVehicleData", "brakeTorque", 0.0, BIG, 0.0),
    num("WheeledVehicleData", "maxWheelSpeed", 0.0, 1000.0, 0.0),
    num("WheeledVehicleTire", "kineticFriction", 0.0, 100.0, 1.2),
    num("WheeledVehicleSpring", "length", 0.0, 100.0, 0.5),
    num("WheeledVehicleSpring", "force", 0.0, BIG, 0.0),
    num("WheeledVehicleSpring", "damping", 0.0, BIG, 0.0),
    num("HoverVehicleData", "stabLenMin", 0.0, 100.0, 1.0),
    num("HoverVehicleData", "stabSpringConstant", 0.0, BIG, 0.0),
    num("HoverVehicleData", "stabDampingConstant", 0.0, BIG, 0.0),
    num("HoverVehicleData", "dragForce", 0.0, BIG, 0.0),
    num("FlyingVehicleData", "horizontalSurfaceForce", 0.0, BIG, 0.0),
    num("FlyingVehicleData", "minDrag", 0.0, BIG, 0.0),
    num("FlyingVehicleData", "maxAutoSpeed", 0.0, 1000.0, 0.0),
    // Turrets, sensors, force fields.
    num("SensorData", "detectRadius", 0.0, 100_000.0, 0.0),
    flag("SensorData", "detectsUsingLOS", false),
    num("SensorData", "detectMinVelocity", 0.0, 10_000.0, 0.0),
    num("ForceFieldBareData", "fadeMS", 0.0, 60_000.0, 1000.0),
    num("ForceFieldBareData", "baseTranslucency", 0.0, 1.0, 0.3),
    flag("ForceFieldBareData", "teamPermiable", false),
    flag("ForceFieldBareData", "otherPermiable", false),
    // Sound (`crate::audio`): registered there with the classes.
    num("AudioDescription", "volume", 0.0, 1.0, 1.0),
    flag("AudioDescription", "isLooping", false),
    flag("AudioDescription", "is3D", false),
    num("AudioDescription", "referenceDistance", 0.0, BIG, 1.0),
    num("AudioDescription", "maxDistance", 0.0, BIG, 100.0),
    int("AudioDescription", "coneInsideAngle", 0, 360, 360),
    int("AudioDescription", "coneOutsideAngle", 0, 360, 360),
    num("AudioDescription", "coneOutsideVolume", 0.0, 1.0, 1.0),
    int("AudioDescription", "type", 0, 31, 0),
    flag("AudioProfile", "preload", false),
];

/// Registers the classes and their checked fields (as text, so a definition's junk can be
/// seen and reported), and `FileObject`'s class.
pub(crate) fn register(con: &mut Console) {
    for (class, parent) in CLASSES {
        let _ = con.register_class(class, parent);
    }
    for (class, parent) in crate::effects::CLASSES {
        let _ = con.register_class(class, parent);
    }
    // Each field typed by its kind (the inspector refuses what preload would reset).
    for f in all_fields() {
        let ty = crate::fields::field_type(con, f.kind);
        con.add_field(f.class, f.name, ty, Value::Empty);
    }
}

/// Every checked field: these and the effect classes' (`crate::effects`).
fn all_fields() -> impl Iterator<Item = &'static FieldSpec> {
    FIELDS.iter().chain(crate::effects::FIELDS)
}

/// V12's `preload`: every checked field of datablock `id` (its class's and its ancestors')
/// is read; junk and values out of range are warned about, naming the field, and set back to
/// the default (empty: unset). The image state machine is checked too (`crate::images`): a
/// transition naming an unknown state is a console error naming it.
pub(crate) fn preload(con: &mut Console, id: ObjectId) -> Result<(), String> {
    let class = con.class_name_of(id);
    let who = con
        .object(id)
        .and_then(|o| o.name)
        .map(|n| con.name_text(n).to_string())
        .unwrap_or_else(|| id.to_string());
    for f in all_fields() {
        if !is_a(con, id, f.class) {
            continue;
        }
        let v = con.get_field(id, f.name);
        let text = v.as_text();
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(problem) = check(f.kind, text) {
            con.warn(&format!(
                "{who} ({class}): field {} = \"{text}\" {problem}; the default is kept",
                f.name
            ));
            con.set_field(id, f.name, default_text(f.kind));
        }
    }
    // A transition naming an unknown state is an error naming it; the datablock stays (a
    // stock script with a typo still loads) and that transition never fires.
    if is_a(con, id, "ShapeBaseImageData") {
        for e in crate::images::parse_states_lenient(con, id).1 {
            con.error(&format!("{who} ({class}): {e}; that transition is dropped"));
        }
    }
    Ok(())
}

/// The engine class a datablock is for, by its nearest engine ancestor (`LinearProjectileData`
/// is a `ProjectileData`, `TurretData` a `StaticShapeData`, `HoverVehicleData` a
/// `VehicleData`); other classes by their own name. What a client decides by.
pub fn engine_datablock_class(con: &Console, db: ObjectId) -> String {
    const ENGINE: [&str; 8] = [
        "PlayerData",
        "ItemData",
        "StaticShapeData",
        "ProjectileData",
        "CameraData",
        "VehicleData",
        "ForceFieldBareData",
        "TriggerData",
    ];
    match ENGINE.iter().find(|c| is_a(con, db, c)) {
        Some(c) => (*c).to_string(),
        None => con.class_name_of(db),
    }
}

/// The engine class of a console class (or the nearest engine class it derives from), and
/// the datablock class it wants.
pub(crate) fn class_of(c: &Console, id: ObjectId) -> Option<(GameClass, &'static str)> {
    let is = |class: &str| is_a(c, id, class);
    Some(if is("Player") {
        (GameClass::Player, "PlayerData")
    } else if is("Item") {
        (GameClass::Item, "ItemData")
    } else if is("Turret") {
        (GameClass::Turret, "TurretData")
    } else if is("StaticShape") {
        (GameClass::StaticShape, "StaticShapeData")
    } else if is("Vehicle") {
        (GameClass::Vehicle, "VehicleData")
    } else if is("Projectile") {
        (GameClass::Projectile, "ProjectileData")
    } else if is("ForceFieldBare") {
        (GameClass::ForceField, "ForceFieldBareData")
    } else if is("Trigger") {
        (GameClass::Trigger, "TriggerData")
    } else if is("Camera") {
        (GameClass::Camera, "CameraData")
    } else {
        return None;
    })
}

/// Is object `id` of class `class` or one derived from it?
pub(crate) fn is_a(con: &Console, id: ObjectId, class: &str) -> bool {
    con.object(id).is_some_and(|o| con.class_is(o.class, class))
}

/// The text a field of `kind` is set back to (its default; empty for "unset").
fn default_text(kind: Kind) -> String {
    match kind {
        Kind::Num { default, .. } if default >= 0.0 || default.is_nan() => {
            v12_console_vm::value::fmt_num(default)
        }
        Kind::Int { default, .. } => default.to_string(),
        Kind::Bool(b) => i32::from(b).to_string(),
        _ => String::new(),
    }
}

/// A checked number field of `db`, or its default (`None` for "unset" fields whose default
/// depends on another field).
pub(crate) fn num_field(con: &Console, db: ObjectId, name: &str) -> Option<f64> {
    let v = con.get_field(db, name);
    let text = v.as_text();
    if let Ok(x) = text.trim().parse::<f64>()
        && x.is_finite()
    {
        return Some(x);
    }
    let spec = all_fields()
        .find(|f| f.name.eq_ignore_ascii_case(name) && is_a(con, db, f.class))
        .or_else(|| all_fields().find(|f| f.name.eq_ignore_ascii_case(name)))?;
    match spec.kind {
        Kind::Num { default, .. } if default >= 0.0 => Some(default),
        Kind::Int { default, .. } => Some(default as f64),
        Kind::Bool(b) => Some(f64::from(u8::from(b))),
        _ => None,
    }
}

/// A checked bool field of `db` (`true`, `false` or a number), or its default.
pub(crate) fn bool_field(con: &Console, db: ObjectId, name: &str) -> bool {
    let v = con.get_field(db, name);
    if v.as_text().trim().is_empty() {
        return num_field(con, db, name).is_some_and(|x| x != 0.0);
    }
    v.truthy()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_what_is_wrong() {
        let n = Kind::Num { min: 0.0, max: 1.0, default: 0.5 };
        assert_eq!(check(n, "0.25"), None);
        assert_eq!(check(n, "junk").as_deref(), Some("is not a number"));
        assert_eq!(check(n, "2").as_deref(), Some("is outside 0 to 1"));
        assert_eq!(check(n, "nan").as_deref(), Some("is not a number"));
        let i = Kind::Int { min: 0, max: 31, default: 0 };
        assert_eq!(check(i, "3"), None);
        assert!(check(i, "3.5").is_some() && check(i, "40").is_some());
        assert_eq!(check(Kind::Bool(false), "true"), None);
        assert!(check(Kind::Bool(false), "yes please").is_some());
        assert_eq!(check(Kind::Point, "1 2 3"), None);
        assert!(check(Kind::Point, "1 2").is_some());
    }

    #[test]
    fn every_parent_is_known_before_its_children() {
        let known = ["GameBaseData", "ProjectileData", "ShapeBaseData", "StaticShapeData", "SimDataBlock"];
        let objects = ["Projectile", "ShapeBase", "StaticShape", "GameBase", "SceneObject", "SimObject"];
        for (i, (_, parent)) in CLASSES.iter().enumerate() {
            let earlier = CLASSES[..i].iter().any(|(c, _)| c == parent);
            assert!(earlier || known.contains(parent) || objects.contains(parent), "{parent}");
        }
    }
}
