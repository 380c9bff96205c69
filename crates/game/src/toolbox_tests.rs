//! The gameplay toolbox from script, as a mod uses it: the container seeing game objects,
//! damage and energy, images firing, the projectile family, mounting, vehicles, FileObject and
//! the datablock checks. (The server's tick without clients: `objects::tests::run_ticks_on`.)

use crate::objects::tests::{eval, game_console, run_ticks, run_ticks_on};

fn num(con: &mut v12_console_vm::Console, src: &str) -> f64 {
    eval(con, src).parse().unwrap_or_else(|_| panic!("not a number: {src}"))
}

#[test]
fn the_container_sees_players_items_and_shots_as_they_move() {
    let (mut con, shared, _) = game_console();
    eval(
        &mut con,
        "datablock ProjectileData(Slow) { lifetime = 5000; };\n\
         $a = new Player() { dataBlock = LightMale; position = \"0 10 0\"; };\n\
         $b = new Player() { dataBlock = LightMale; position = \"0 20 0\"; };\n\
         $c = new Item() { dataBlock = Coin; position = \"5 0 0\"; };",
    );
    // A hitscan ray from the origin along +Y meets the nearer player's box face.
    let hit = eval(&mut con, "return containerRayCast(\"0 0 1\", \"0 30 1\", $TypeMasks::PlayerObjectType);");
    let words: Vec<&str> = hit.split(' ').collect();
    assert_eq!(words[0], eval(&mut con, "return $a;"), "{hit}");
    assert_eq!(&words[1..], ["0", "9.6", "1", "0", "-1", "0"]);
    // The exempt object is skipped; an item is not a player.
    let hit = eval(
        &mut con,
        "return firstWord(containerRayCast(\"0 0 1\", \"0 30 1\", $TypeMasks::PlayerObjectType, $a));",
    );
    assert_eq!(hit, eval(&mut con, "return $b;"));
    assert_eq!(
        eval(&mut con, "return containerRayCast(\"0 0 1\", \"0 30 1\", $TypeMasks::ItemObjectType);"),
        "0"
    );
    // It follows a move made by script.
    eval(&mut con, "$a.setTransform(\"50 50 0 0 0 1 0\");");
    let hit = eval(
        &mut con,
        "return firstWord(containerRayCast(\"0 0 1\", \"0 30 1\", $TypeMasks::PlayerObjectType));",
    );
    assert_eq!(hit, eval(&mut con, "return $b;"));
    // Radius damage as a script writes it: everything within 12 m of (0 8 0), nearest first.
    eval(
        &mut con,
        "function near(%pos, %r, %mask) { %out = \"\"; initContainerRadiusSearch(%pos, %r, %mask);\n\
           while ((%o = containerSearchNext()) != 0) %out = %out SPC %o @ \":\" @ mFloor(containerSearchCurrDist());\n\
           return trim(%out); }",
    );
    // Nearest first by the distance to each box (the item's is nearer); the distance told
    // is to the box's centre.
    let expect = format!("{}:9 {}:12", eval(&mut con, "return $c;"), eval(&mut con, "return $b;"));
    let mask = "$TypeMasks::PlayerObjectType | $TypeMasks::ItemObjectType";
    assert_eq!(eval(&mut con, &format!("return near(\"0 8 0\", 12, {mask});")), expect);
    // Rad-damage distance: less the object's radius, never negative.
    eval(
        &mut con,
        "initContainerRadiusSearch(\"0 20 1\", 5, $TypeMasks::PlayerObjectType); containerSearchNext();",
    );
    assert_eq!(num(&mut con, "return containerSearchCurrRadDamageDist();"), 0.0);
    // Type search, box checks, find first / next.
    let all = eval(
        &mut con,
        "initContainerTypeSearch($TypeMasks::PlayerObjectType); return containerSearchNext() SPC containerSearchNext() SPC containerSearchNext();",
    );
    assert_eq!(all, format!("{} {} 0", eval(&mut con, "return $a;"), eval(&mut con, "return $b;")));
    assert_eq!(eval(&mut con, "return containerBoxEmpty($TypeMasks::PlayerObjectType, \"0 20 1\", 1);"), "0");
    assert_eq!(eval(&mut con, "return containerBoxEmpty($TypeMasks::PlayerObjectType, \"0 0 1\", 1);"), "1");
    assert_eq!(
        eval(
            &mut con,
            "return ContainerFindFirst($TypeMasks::ItemObjectType, \"5 0 0\", 1, 1, 1) SPC ContainerFindNext();"
        ),
        format!("{} 0", eval(&mut con, "return $c;"))
    );
    // A shot in flight is a ProjectileObjectType where it is now.
    eval(
        &mut con,
        "$p = new Projectile() { dataBlock = Slow; initialPosition = \"-10 -10 5\"; initialVelocity = \"10 0 0\"; };",
    );
    run_ticks(&mut con, &shared, 10);
    let found = eval(
        &mut con,
        "initContainerRadiusSearch(\"-6.8 -10 5\", 0.5, $TypeMasks::ProjectileObjectType); return containerSearchNext();",
    );
    assert_eq!(found, eval(&mut con, "return $p;"));
    // Deleted and hidden objects leave the container; a dead player is a corpse.
    eval(&mut con, "$c.delete(); $b.setHidden(true);");
    assert_eq!(eval(&mut con, &format!("return near(\"0 8 0\", 30, {mask});")), "");
    eval(&mut con, "$a.setTransform(\"0 0 0 0 0 1 0\"); $a.applyDamage(500);");
    assert_eq!(eval(&mut con, "return near(\"0 0 0\", 5, $TypeMasks::PlayerObjectType);"), "");
    let corpse = format!("{}:0", eval(&mut con, "return $a;"));
    assert_eq!(eval(&mut con, "return near(\"0 0 0\", 5, $TypeMasks::CorpseObjectType);"), corpse);
    assert!(shared.borrow().placed.len() >= 2);
}

/// A datablock's `onAdd(%data, %obj)` runs for each object that uses it, never for the
/// datablock itself (V12's SimDataBlock has no script `onAdd`), so scripts written for V12
/// see no empty `%obj`; a callback for an object its own `onAdd` deleted is skipped.
#[test]
fn callbacks_run_only_for_live_objects() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        "function ItemData::onAdd(%data, %obj) { echo(\"add \" @ %obj.getClassName()); if (%obj.doomed) %obj.delete(); }\n\
         datablock ItemData(Gem) { };\n\
         datablock ProjectileData(Shot) { lifetime = 64; };\n\
         function Shot::onExplode(%d, %p) { echo(\"explode\"); }\n\
         $i = new Item() { dataBlock = Gem; doomed = true; };\n\
         $s = new Projectile() { dataBlock = Shot; initialPosition = \"0 0 5\"; initialVelocity = \"1 0 0\"; };\n\
         $s.delete();",
    );
    run_ticks(&mut con, &shared, 5);
    assert_eq!(out.stdout(), "add Item\n");
    assert_eq!(out.stderr(), "");
    assert_eq!(eval(&mut con, "return isObject($i);"), "0");
}

#[test]
fn damage_levels_states_repair_and_energy_as_v12() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        "datablock StaticShapeData(Generator) { maxDamage = 1.0; disabledLevel = 0.6; destroyedLevel = 0.9; repairRate = 0.1; maxEnergy = 50; rechargeRate = 0.5; };\n\
         function Generator::onDisabled(%d, %o, %s) { echo(\"disabled from \" @ %s); }\n\
         function Generator::onDestroyed(%d, %o, %s) { echo(\"destroyed from \" @ %s); }\n\
         function Generator::onEnabled(%d, %o, %s) { echo(\"enabled from \" @ %s); }\n\
         $g = new StaticShape() { dataBlock = Generator; };\n\
         $p = new Player() { dataBlock = LightMale; };",
    );
    // The reported bug: a level set reads back.
    eval(&mut con, "$p.setDamageLevel(0.25);");
    assert_eq!(num(&mut con, "return $p.getDamageLevel();"), 0.25);
    assert_eq!(num(&mut con, "return $p.getDamagePercent();"), 0.0025);
    eval(&mut con, "$g.applyDamage(0.95);");
    assert_eq!(eval(&mut con, "return $g.getDamageState();"), "Destroyed");
    assert_eq!(out.stdout(), "disabled from Enabled\ndestroyed from Disabled\n");
    assert_eq!(eval(&mut con, "return $g.isDestroyed() SPC $g.isDisabled() SPC $g.isEnabled();"), "1 1 0");
    out.clear();
    // Repair is spent at repairRate a tick: 0.95 -> 0.85 (Disabled) -> 0.55 (Enabled).
    eval(&mut con, "$g.applyRepair(0.4);");
    run_ticks(&mut con, &shared, 1);
    assert_eq!(eval(&mut con, "return $g.getDamageState();"), "Disabled");
    run_ticks(&mut con, &shared, 3);
    assert_eq!(eval(&mut con, "return $g.getDamageState();"), "Enabled");
    assert!((num(&mut con, "return $g.getDamageLevel();") - 0.55).abs() < 1e-5);
    run_ticks(&mut con, &shared, 3);
    assert!((num(&mut con, "return $g.getDamageLevel();") - 0.55).abs() < 1e-5, "the reserve is spent");
    assert_eq!(out.stdout(), "disabled from Destroyed\nenabled from Disabled\n");
    // Energy: full at start, set and clamped, recharged a tick at a time.
    assert_eq!(num(&mut con, "return $g.getEnergyLevel();"), 50.0);
    eval(&mut con, "$g.setEnergyLevel(10);");
    run_ticks(&mut con, &shared, 4);
    assert_eq!(num(&mut con, "return $g.getEnergyLevel();"), 12.0);
    eval(&mut con, "$g.setEnergyLevel(999);");
    assert_eq!(num(&mut con, "return $g.getEnergyPercent();"), 1.0);
    // A state set by script calls its callbacks too.
    out.clear();
    eval(
        &mut con,
        "$g.setDamageState(Destroyed); $g.setDamageState(\"Enabled\"); $g.setDamageState(Broken);",
    );
    assert_eq!(out.stdout(), "disabled from Enabled\ndestroyed from Disabled\nenabled from Destroyed\n");
    assert!(out.stderr().contains("\"broken\" is not Enabled, Disabled or Destroyed"), "{}", out.stderr());
    // Junk is a console error and changes nothing.
    eval(&mut con, "$g.setDamageLevel(\"junk\");");
    assert!(out.stderr().contains("setDamageLevel: \"junk\" is not a number"), "{}", out.stderr());
}

/// A Tribes 2-style weapon: the image's state machine fires on the trigger, its `onFire`
/// script launches the shot from the muzzle, the shot hits a player through the container,
/// and the explosion's radius damage is written in script with a container search.
#[test]
fn an_image_fires_projectiles_that_hurt_by_direct_hit_and_radius() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock LinearProjectileData(DiscProjectile) { dryVelocity = 90; lifetimeMS = 2000; directDamage = 0; indirectDamage = 40; damageRadius = 8; };
        datablock ShapeBaseImageData(DiscImage) {
           projectile = DiscProjectile; projectileType = LinearProjectile;
           stateName[0] = "Activate"; stateTransitionOnTimeout[0] = "Ready"; stateTimeoutValue[0] = 0.1;
           stateName[1] = "Ready"; stateTransitionOnTriggerDown[1] = "Fire"; stateTransitionOnNoAmmo[1] = "NoAmmo";
           stateName[2] = "Fire"; stateFire[2] = true; stateScript[2] = "onFire"; stateSequence[2] = "Fire"; stateTimeoutValue[2] = 0.5; stateTransitionOnTimeout[2] = "Ready";
           stateName[3] = "NoAmmo"; stateTransitionOnAmmo[3] = "Ready";
        };
        function DiscImage::onMount(%data, %obj, %slot) { echo("mounted in " @ %slot); }
        function DiscImage::onFire(%data, %obj, %slot) {
           %p = new (%data.projectileType)() { dataBlock = %data.projectile; initialDirection = %obj.getMuzzleVector(%slot); initialPosition = %obj.getMuzzlePoint(%slot); sourceObject = %obj; sourceSlot = %slot; };
           echo("fired " @ %p.getClassName());
        }
        function DiscProjectile::onExplode(%data, %proj, %pos, %mod) {
           initContainerRadiusSearch(%pos, %data.damageRadius, $TypeMasks::PlayerObjectType);
           while ((%t = containerSearchNext()) != 0) {
              %d = containerSearchCurrRadDamageDist();
              %t.applyDamage(%data.indirectDamage * (1 - %d / %data.damageRadius));
           }
           echo("boom");
        }
        $shooter = new Player() { dataBlock = LightMale; position = "0 0 0"; };
        $target = new Player() { dataBlock = LightMale; position = "0 30 0"; };
        $shooter.mountImage(DiscImage, 0);
        $shooter.setImageAmmo(0, true);"#,
    );
    assert_eq!(out.stdout(), "mounted in 0\n");
    assert_eq!(eval(&mut con, "return $shooter.getImageState(0);"), "Activate");
    assert_eq!(eval(&mut con, "return $shooter.getMountedImage(0) == DiscImage.getId();"), "1");
    run_ticks(&mut con, &shared, 4);
    assert_eq!(eval(&mut con, "return $shooter.getImageState(0);"), "Ready");
    eval(&mut con, "$shooter.setImageTrigger(0, true);");
    run_ticks(&mut con, &shared, 1);
    assert_eq!(eval(&mut con, "return $shooter.getImageState(0) SPC $shooter.isImageFiring(0);"), "Fire 1");
    eval(&mut con, "$shooter.setImageTrigger(0, false);");
    // The firing animation plays on the image thread, so clients see it.
    let id: u32 = eval(&mut con, "return $shooter;").parse().unwrap();
    let scene = shared.borrow().by_console[&id];
    let thread = shared.borrow().world.as_ref().unwrap().get(scene).unwrap().threads
        [crate::images::IMAGE_THREAD]
        .clone();
    assert_eq!(thread.map(|t| t.sequence).as_deref(), Some("Fire"));
    run_ticks(&mut con, &shared, 12);
    assert_eq!(out.stdout(), "mounted in 0\nfired LinearProjectile\nboom\n");
    let hurt = num(&mut con, "return $target.getDamageLevel();");
    assert!(hurt > 30.0 && hurt <= 40.0, "radius damage near the centre: {hurt}");
    assert_eq!(num(&mut con, "return $shooter.getDamageLevel();"), 0.0, "out of the blast");
    // Back to Ready, and no ammo: NoAmmo.
    run_ticks(&mut con, &shared, 10);
    eval(&mut con, "$shooter.setImageAmmo(0, false);");
    run_ticks(&mut con, &shared, 1);
    assert_eq!(eval(&mut con, "return $shooter.getImageState(0);"), "NoAmmo");
    // Bad input: an unknown slot, not an image, an empty slot.
    eval(&mut con, "$shooter.mountImage(DiscImage, 9); $shooter.mountImage(LightMale, 1);");
    assert!(out.stderr().contains("image slot \"9\" is not 0 to 7"), "{}", out.stderr());
    assert!(out.stderr().contains("\"LightMale\" is not a ShapeBaseImageData"));
    assert_eq!(eval(&mut con, "return $shooter.getImageState(5);"), "Error");
    assert_eq!(eval(&mut con, "return $shooter.unmountImage(0) SPC $shooter.getMountedImage(0);"), "1 0");
}

/// An image whose fire state names no script launches its datablock's projectile itself.
#[test]
fn an_image_without_a_script_fires_its_projectile_by_itself() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock GrenadeProjectileData(Nade) { dryVelocity = 10; lifetimeMS = 3000; armingDelayMS = 100; grenadeElasticity = 0.5; };
        datablock ShapeBaseImageData(Launcher) { projectile = Nade; projectileType = GrenadeProjectile;
           stateName[0] = "Ready"; stateTransitionOnTriggerDown[0] = "Fire";
           stateName[1] = "Fire"; stateFire[1] = true; stateTimeoutValue[1] = 5; stateTransitionOnTimeout[1] = "Ready"; };
        function Nade::onExplode(%d, %p, %pos) { echo("nade " @ %p.getClassName()); }
        $p = new Player() { dataBlock = LightMale; position = "0 0 2"; };
        $p.mountImage(Launcher, 0);
        $p.setImageTrigger(0, true);"#,
    );
    run_ticks_on(&mut con, &shared, 1, Some(0.0));
    let shots =
        shared.borrow().objects.values().filter(|g| g.class == crate::state::GameClass::Projectile).count();
    assert_eq!(shots, 1, "{}", out.stderr());
    // It falls, bounces on the ground (never through it) and explodes at the end of its life.
    let mut lowest = f32::MAX;
    for _ in 0..120 {
        run_ticks_on(&mut con, &shared, 1, Some(0.0));
        let s = shared.borrow();
        for (id, g) in &s.objects {
            if g.class == crate::state::GameClass::Projectile {
                lowest = lowest.min(s.world.as_ref().unwrap().get(*id).unwrap().state.pos.z);
            }
        }
    }
    assert!(
        lowest > -0.01 && lowest < 0.2,
        "rests on the ground: {lowest} {} {}",
        out.stdout(),
        out.stderr()
    );
    assert_eq!(out.stdout(), "nade GrenadeProjectile\n");
}

#[test]
fn seekers_home_snipers_hit_at_once_and_elf_beams_drain() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock PlayerData(Heavy) { maxDamage = 100; maxEnergy = 60; };
        datablock SeekerProjectileData(Missile) { lifetimeMS = 6000; maxVelocity = 40; acceleration = 20; turningSpeed = 120; proximityRadius = 2; };
        datablock SniperProjectileData(Bolt) { maxRifleRange = 200; };
        datablock ELFProjectileData(Elf) { beamRange = 30; drainEnergy = 2; lifetimeMS = 1000; };
        function Missile::onExplode(%d, %p, %pos) { echo("missile at " @ mFloor(getWord(%pos, 0))); }
        function Bolt::onCollision(%d, %p, %col, %f, %pos) { echo("bolt hit " @ (%col == $t)); }
        function Elf::zapTarget(%d, %p, %t, %src) { echo("zap " @ (%t == $t) @ (%src == $s)); }
        $s = new Player() { dataBlock = Heavy; position = "0 0 0"; };
        $t = new Player() { dataBlock = Heavy; position = "40 0 0"; };
        $m = new SeekerProjectile() { dataBlock = Missile; initialPosition = "0 0 10"; initialDirection = "0 1 0"; };
        $m.setObjectTarget($t);"#,
    );
    run_ticks(&mut con, &shared, 120);
    assert_eq!(out.stdout(), "missile at 38\n", "turned from +Y onto the target, exploding 2 m short");
    out.clear();
    eval(
        &mut con,
        "new SniperProjectile() { dataBlock = Bolt; initialPosition = \"0 0 1\"; initialDirection = \"1 0 0\"; sourceObject = $s; };",
    );
    run_ticks(&mut con, &shared, 1);
    assert_eq!(out.stdout(), "bolt hit 1\n", "{}", out.stderr());
    out.clear();
    eval(
        &mut con,
        "$t.setTransform(\"0 20 0 0 0 1 0\"); new ELFProjectile() { dataBlock = Elf; initialPosition = \"0 0 1\"; initialDirection = \"0 1 0\"; sourceObject = $s; };",
    );
    run_ticks(&mut con, &shared, 10);
    assert_eq!(out.stdout(), "zap 11\n");
    assert_eq!(num(&mut con, "return $t.getEnergyLevel();"), 40.0);
}

#[test]
fn objects_mount_ride_and_refuse_cycles() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock HoverVehicleData(Scout) { maxDamage = 50; maxForwardSpeed = 30; };
        function LightMale::onMount(%d, %obj, %veh, %node) { echo("mount " @ %node @ " " @ (%veh == $v)); }
        function LightMale::onUnmount(%d, %obj, %veh, %node) { echo("unmount " @ %node); }
        $v = new HoverVehicle() { dataBlock = Scout; position = "10 10 0"; };
        $p = new Player() { dataBlock = LightMale; position = "0 0 0"; };
        $q = new Player() { dataBlock = LightMale; position = "0 0 0"; };"#,
    );
    assert_eq!(eval(&mut con, "return $v.getClassName() SPC $v.getState();"), "HoverVehicle Enabled");
    assert_eq!(eval(&mut con, "return $v.mountObject($p, 0);"), "1");
    assert_eq!(eval(&mut con, "return $v.mountObject($q, 1);"), "1");
    assert_eq!(out.stdout(), "mount 0 1\nmount 1 1\n");
    assert_eq!(eval(&mut con, "return $p.getObjectMount() == $v;"), "1");
    assert_eq!(eval(&mut con, "return $v.getMountNodeObject(1) == $q;"), "1");
    assert_eq!(
        eval(&mut con, "return $v.getMountedObjectCount() SPC ($v.getMountedObject(0) == $p);"),
        "2 1"
    );
    assert_eq!(eval(&mut con, "return $p.isMounted() SPC $v.isMounted();"), "1 0");
    assert_eq!(eval(&mut con, "return ($v.getPilot() == $p) SPC ($p.getControlObject() == $v);"), "1 1");
    // Riders follow their seat.
    eval(&mut con, "$v.setTransform(\"20 10 0 0 0 1 0\");");
    run_ticks(&mut con, &shared, 1);
    let x = num(&mut con, "return getWord($p.getPosition(), 0);");
    assert!((x - 20.0).abs() < 1e-4, "{x}");
    // Refused: itself, a cycle, a taken node.
    assert_eq!(eval(&mut con, "return $v.mountObject($v, 2);"), "0");
    assert_eq!(eval(&mut con, "return $p.mountObject($v, 0);"), "0");
    assert_eq!(eval(&mut con, "return $v.mountObject(new Player() { dataBlock = LightMale; }, 0);"), "0");
    assert!(out.stderr().contains("cannot be mounted on itself"), "{}", out.stderr());
    assert!(out.stderr().contains("a cycle") && out.stderr().contains("node 0 is taken"));
    // Deleting the vehicle unseats everyone.
    out.clear();
    eval(&mut con, "$v.delete();");
    assert_eq!(out.stdout(), "unmount 0\nunmount 1\n");
    assert_eq!(eval(&mut con, "return $p.isMounted() SPC $p.getControlObject();"), "0 0");
}

/// The server's process list drives the objects: a rider ticks after what it rides, even when
/// it was made first (V12's `processAfter`), so it sits on the seat where its mount stands
/// after the tick, not a tick behind; unmounted, the order is the order of creation again.
/// A player on foot within reach of a vehicle's hull touches it (`onCollision` on the player's
/// datablock, where Tribes 2's scripts seat it); one farther away or riding does not.
#[test]
fn players_on_foot_touch_vehicles() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock HoverVehicleData(Scout) { maxDamage = 50; };
        function LightMale::onCollision(%d, %obj, %col) { echo("touch " @ (%obj == $near) SPC %col.getClassName()); }
        $v = new HoverVehicle() { dataBlock = Scout; position = "10 10 0"; };
        $near = new Player() { dataBlock = LightMale; position = "10 6.9 0"; };
        $far = new Player() { dataBlock = LightMale; position = "10 5.5 0"; };"#,
    );
    run_ticks(&mut con, &shared, 1);
    assert_eq!(out.stdout(), "touch 1 HoverVehicle\n", "{}", out.stderr());
    out.clear();
    eval(&mut con, "$v.mountObject($near, 0);");
    run_ticks(&mut con, &shared, 2);
    assert_eq!(out.stdout(), "");
}

/// Tribes 2's everyday ShapeBase calls: an armour change keeps damage and energy within the
/// new limits and refuses a datablock of the wrong kind; `hide`; energy by percentage; the
/// slot transform; a thrown item is not picked up by its thrower for 15 ticks; the hit
/// location on a player's body.
#[test]
fn armour_changes_hiding_thrown_items_and_hit_locations() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock PlayerData(HeavyMale) { maxDamage = 300; maxEnergy = 50; boundingBox = "1.6 1.6 2.6"; };
        datablock PlayerData(LightArmor) { maxDamage = 100; maxEnergy = 80; };
        function LightMale::onCollision(%d, %obj, %col) { echo("touch " @ (%col == $flag)); }
        $p = new Player() { dataBlock = HeavyMale; position = "0 0 0"; };
        $p.setDamageLevel(150);"#,
    );
    assert_eq!(eval(&mut con, "return $p.setDataBlock(LightArmor);"), "1");
    assert_eq!(
        eval(&mut con, "return $p.getDataBlock().getName() SPC $p.getDamageLevel();"),
        "LightArmor 100"
    );
    assert_eq!(eval(&mut con, "return $p.setDataBlock(Coin);"), "0");
    assert!(out.stderr().contains("setDataBlock: \"Coin\" is not a PlayerData"), "{}", out.stderr());
    assert_eq!(eval(&mut con, "$p.setEnergyPercentage(0.5); return $p.getEnergyLevel();"), "40");
    assert_eq!(eval(&mut con, "$p.hide(true); return $p.isHidden();"), "1");
    eval(&mut con, "$p.hide(false);");
    assert_eq!(eval(&mut con, "return getWordCount($p.getSlotTransform(0));"), "7");
    // Head, torso and legs of a 1.8 m player facing +y, hit from the front and the back.
    assert_eq!(eval(&mut con, "return $p.getDamageLocation(\"0 0.3 1.7\");"), "head middle_front");
    assert_eq!(eval(&mut con, "return $p.getDamageLocation(\"0.3 -0.4 1.2\");"), "torso back_right");
    assert_eq!(eval(&mut con, "return $p.getDamageLocation(\"-0.3 0.4 0.2\");"), "legs front_left");
    out.clear();
    eval(
        &mut con,
        r#"$t = new Player() { dataBlock = LightMale; position = "20 0 0"; };
        $flag = new Item() { dataBlock = Coin; position = "20 0.5 0"; };
        $flag.setCollisionTimeout($t);"#,
    );
    assert_eq!(eval(&mut con, "return $flag.isStatic();"), "1");
    run_ticks(&mut con, &shared, 14);
    assert_eq!(out.stdout(), "", "inside the timeout");
    run_ticks(&mut con, &shared, 2);
    assert!(out.stdout().starts_with("touch 1"), "{}", out.stdout());
}

#[test]
fn riders_tick_after_their_mounts_on_the_process_list() {
    let (mut con, shared, _) = game_console();
    eval(
        &mut con,
        r#"$p = new Player() { dataBlock = LightMale; position = "0 0 40"; };
        $crate = new Item() { dataBlock = Coin; position = "0 0 50"; static = false; };"#,
    );
    let p_id: u32 = eval(&mut con, "return $p;").parse().unwrap();
    let c_id: u32 = eval(&mut con, "return $crate;").parse().unwrap();
    let (p, c) = (shared.borrow().by_console[&p_id], shared.borrow().by_console[&c_id]);
    assert_eq!(shared.borrow_mut().process.0.order(), [p, c], "creation order");
    assert_eq!(eval(&mut con, "return $crate.mountObject($p, 0);"), "1");
    assert_eq!(shared.borrow_mut().process.0.order(), [c, p], "the rider after its mount");
    for _ in 0..10 {
        run_ticks(&mut con, &shared, 1);
        // The item fell this tick; the rider is on its seat now, not where it was.
        let s = shared.borrow();
        let w = s.world.as_ref().unwrap();
        let (mount, rider) = (w.get(c).unwrap().state, w.get(p).unwrap().state);
        let seat = mount.pos + s.objects[&p].mount_offset;
        assert!((rider.pos - seat).length() < 1e-5, "rider {:?}, seat {seat:?}", rider.pos);
    }
    let z = num(&mut con, "return getWord($crate.getPosition(), 2);");
    assert!(z < 49.0, "the item did not fall: {z}");
    eval(&mut con, "$crate.unmountObject($p);");
    assert_eq!(shared.borrow_mut().process.0.order(), [p, c]);
    eval(&mut con, "$crate.delete();");
    assert_eq!(shared.borrow_mut().process.0.order(), [p]);
}

#[test]
fn datablock_junk_is_a_warning_naming_the_field_and_unknown_states_are_errors() {
    let (mut con, _shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock LinearProjectileData(Odd) { dryVelocity = "fast"; lifetimeMS = -5; armingDelayMS = 100; };
        datablock ShapeBaseImageData(Broken) { stateName[0] = "Ready"; stateTransitionOnTriggerDown[0] = "Fier"; };
        datablock ShapeBaseImageData(Fine) { mountPoint = 40; stateName[0] = "Ready"; };"#,
    );
    let err = out.stderr();
    assert!(
        err.contains(
            "Odd (LinearProjectileData): field dryVelocity = \"fast\" is not a number; the default is kept"
        ),
        "{err}"
    );
    assert!(err.contains("field lifetimeMS = \"-5\" is outside 0 to 600000"), "{err}");
    assert!(!err.contains("armingDelayMS"));
    assert_eq!(eval(&mut con, "return Odd.dryVelocity SPC Odd.armingDelayMS;"), " 100");
    assert!(
        err.contains("Broken (ShapeBaseImageData): state 0: stateTransitionOnTriggerDown[0] names \"Fier\", which is not a declared state; that transition is dropped"),
        "{err}"
    );
    // The datablock stays (a stock script with a typo still loads); the dead transition never fires.
    assert_eq!(eval(&mut con, "return isObject(Broken) SPC isObject(Fine);"), "1 1");
    assert!(err.contains("field mountPoint = \"40\" is not a whole number from 0 to 31"));
}

#[test]
fn file_objects_read_and_write_lines_inside_the_mod_folder() {
    let (mut con, _shared, out) = game_console();
    let dir = std::env::temp_dir().join(format!("v12-fileobject-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    con.set_file_root(&dir);
    eval(
        &mut con,
        r#"$f = new FileObject();
        $f.openForWrite("prefs/out.txt"); $f.writeLine("one"); $f.writeLine("two words"); $f.close();
        $f.openForAppend("prefs/out.txt"); $f.writeLine("three"); $f.close();
        $f.openForRead("prefs/out.txt");
        while (!$f.isEOF()) $lines = $lines @ "[" @ $f.readLine() @ "]";
        $f.close();"#,
    );
    assert_eq!(eval(&mut con, "return $lines;"), "[one][two words][three]");
    assert_eq!(eval(&mut con, "return $f.openForWrite(\"../escape.txt\");"), "0");
    assert!(out.stderr().contains("outside the mod folder"), "{}", out.stderr());
    assert_eq!(
        eval(&mut con, "return $f.openForRead(\"missing.txt\") SPC $f.isEOF() SPC $f.readLine();"),
        "0 1 "
    );
    // A file left open is written when its object goes.
    eval(
        &mut con,
        "$g = new FileObject(); $g.openForWrite(\"late.txt\"); $g.writeLine(\"kept\"); $g.delete();",
    );
    assert_eq!(std::fs::read_to_string(dir.join("late.txt")).unwrap(), "kept\n");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tribes 2's declarations of the toolbox's classes instantiate (their shapes as the stock
/// scripts write them: a datablock copying another with `: Parent`, `className`, dynamic
/// fields the engine does not read).
#[test]
fn tribes_2_style_declarations_instantiate() {
    let (mut con, _shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock SensorData(PlayerSensor) { detects = true; detectsUsingLOS = true; detectRadius = 400; };
        datablock TurretImageData(MissileBarrelLarge) { shapeFile = "turret_missile_large.dts"; item = MissileBarrelLargePack; projectile = Missile; projectileType = SeekerProjectile; usesEnergy = true; fireEnergy = 60.0; minEnergy = 60.0; activationMS = 250; deactivateDelayMS = 500; thinkTimeMS = 200; degPerSecTheta = 580; degPerSecPhi = 960; attackRadius = 250; stateName[0] = "Activate"; stateSequence[0] = "Activate"; stateTimeoutValue[0] = 1; stateTransitionOnTimeout[0] = "Ready"; stateName[1] = "Ready"; };
        datablock TurretData(TurretBaseLarge) { className = TurretBase; shapeFile = "turret_base_large.dts"; maxDamage = 2.25; destroyedLevel = 2.25; disabledLevel = 1.35; sensorData = PlayerSensor; };
        datablock FlyingVehicleData(ScoutFlyer) { spawnOffset = "0 0 2"; catagory = "Vehicles"; shapeFile = "vehicle_air_scout.dts"; maxDamage = 1.40; destroyedLevel = 1.40; maneuveringForce = 5400; maxForwardSpeed = 75; };
        datablock WheeledVehicleData(MobileBaseVehicle) { shapeFile = "vehicle_land_mpbase.dts"; maxDamage = 3.85; };
        datablock ForceFieldBareData(defaultForceFieldBare) { fadeMS = 1000; baseTranslucency = 0.30; powerOffTranslucency = 0.0; teamPermiable = false; otherPermiable = false; color = "0.0 0.55 0.99"; texture[0] = "skins/forcef1"; };
        datablock TSShapeConstructor(LightMaleDts) { baseShape = "light_male.dts"; sequence0 = "light_male_root.dsq root"; };
        datablock TracerProjectileData(ChaingunBullet) { dryVelocity = 425; wetVelocity = 100; lifetimeMS = 3000; };
        datablock EnergyProjectileData(BlasterBolt) : ChaingunBullet { dryVelocity = 200; };
        datablock BombProjectileData(BomberBomb) { grenadeElasticity = 0.35; };
        datablock FlareProjectileData(FlareGrenadeProj) { grenadeElasticity = 0.2; };
        datablock ShockLanceProjectileData(BasicShocker) { zapDuration = 1.0; boltLength = 14.0; };
        datablock RepairProjectileData(DefaultRepairBeam) { beamRange = 10; repairAmount = 0.01; };
        datablock TargetProjectileData(BasicTargeter) { maxRifleRange = 1000; };
        datablock LinearFlareProjectileData(PlasmaBolt) { dryVelocity = 55; wetVelocity = -1; };
        datablock FlyingVehicleData(BomberFlyer) { maxSteeringAngle = 5; };
        datablock MissionMarkerData(WayPointMarker) { catagory = "Misc"; shapeFile = "octahedron.dts"; };
        datablock StationFXPersonalData(PersonalInvFX) { lifetime = 1.2; texture[0] = "special/stationLight"; };
        datablock StationFXVehicleData(VehicleInvFX) { lifetime = 4.0; };
        datablock CommanderIconData(CMDPlayerIcon) { selectImage = "animation SelectAnim"; };
        new WayPoint(Point) { dataBlock = WayPointMarker; position = "1 2 3"; name = "Control Point"; };
        $ChatTable[1] = new CannedChatItem() { name = "ChatHi"; text = "Hi."; };
        datablock WheeledVehicleTire(DefaultTire) { radius = 0.6; };
        datablock WheeledVehicleSpring(DefaultSpring) { length = 0.5; };
        new ForceFieldBare(Wall) { dataBlock = defaultForceFieldBare; position = "0 0 0"; };
        new Turret(Tower) { dataBlock = TurretBaseLarge; position = "10 0 0"; };
        new FlyingVehicle(Shrike) { dataBlock = ScoutFlyer; position = "0 30 20"; };"#,
    );
    assert_eq!(out.stderr(), "", "no errors or warnings");
    for name in [
        "PlayerSensor",
        "MissileBarrelLarge",
        "TurretBaseLarge",
        "ScoutFlyer",
        "MobileBaseVehicle",
        "defaultForceFieldBare",
        "LightMaleDts",
        "BlasterBolt",
        "Wall",
        "Tower",
        "Shrike",
        "DefaultTire",
        "PersonalInvFX",
        "VehicleInvFX",
        "CMDPlayerIcon",
        "Point",
    ] {
        assert_eq!(eval(&mut con, &format!("return isObject({name});")), "1", "{name}");
    }
    assert_eq!(eval(&mut con, "return BlasterBolt.wetVelocity;"), "100", "copied from its parent");
    assert_eq!(eval(&mut con, "return $ChatTable[1].text SPC Point.getClassName();"), "Hi. WayPoint");
    assert_eq!(
        eval(
            &mut con,
            "return containerRayCast(\"10 -5 0.5\", \"10 5 0.5\", $TypeMasks::TurretObjectType) != 0;"
        ),
        "1"
    );
    assert_eq!(eval(&mut con, "return Tower.getDamageState();"), "Enabled");
}

/// A turret finds the nearest visible player in range, turns to it and fires through its
/// barrel's state machine; it spares its team and stops when disabled.
#[test]
fn turrets_aim_at_players_in_range_and_fire_their_barrel() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock TurretImageData(Barrel) { attackRadius = 30; degPerSecTheta = 180; thinkTimeMS = 100;
           stateName[0] = "Ready"; stateTransitionOnTriggerDown[0] = "Fire";
           stateName[1] = "Fire"; stateFire[1] = true; stateScript[1] = "onFire"; stateTimeoutValue[1] = 0.5; stateTransitionOnTimeout[1] = "Ready"; };
        datablock TurretData(Tower) { maxDamage = 10; };
        function Barrel::onFire(%d, %obj, %slot) { echo("fire at " @ (%obj.getTargetObject() == $p)); }
        $t = new Turret() { dataBlock = Tower; position = "0 0 0"; team = 1; };
        $t.mountImage(Barrel, 0);
        $p = new Player() { dataBlock = LightMale; position = "-20 0 0"; };"#,
    );
    // Behind it to the left (yaw pi/2): a half turn at 180 degrees a second, then fire.
    run_ticks(&mut con, &shared, 20);
    assert_eq!(out.stdout(), "fire at 1\n");
    let yaw = num(&mut con, "return getWord($t.getTransform(), 6);");
    assert!((yaw - std::f64::consts::FRAC_PI_2).abs() < 0.1, "{yaw}");
    // Its own team is spared; out of range is ignored.
    out.clear();
    eval(
        &mut con,
        "$p.team = 1; $p.delete(); $p = new Player() { dataBlock = LightMale; position = \"-20 0 0\"; team = 1; };",
    );
    eval(&mut con, "$q = new Player() { dataBlock = LightMale; position = \"0 45 0\"; };");
    run_ticks(&mut con, &shared, 40);
    assert_eq!(out.stdout(), "");
    // Disabled, it holds fire.
    eval(&mut con, "$q.setTransform(\"0 10 0 0 0 1 0\"); $t.applyDamage(10);");
    run_ticks(&mut con, &shared, 40);
    assert_eq!(out.stdout(), "");
    assert_eq!(eval(&mut con, "return $t.getDamageState();"), "Disabled");
}

/// Every toolbox method and function called with junk: wrong counts aside (the console checks
/// those), empty strings, NaN, huge and negative numbers, missing and wrong objects. Nothing
/// panics, nothing hangs, and the world still ticks.
#[test]
fn junk_arguments_never_panic() {
    let (mut con, shared, _out) = game_console();
    let dir = std::env::temp_dir().join(format!("v12-junk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    con.set_file_root(&dir);
    eval(
        &mut con,
        r#"datablock ShapeBaseImageData(Img) { stateName[0] = "A"; stateTransitionOnTimeout[0] = "A"; stateFire[0] = true; projectile = Img; projectileType = "Player"; };
        datablock HoverVehicleData(Car) { };
        datablock SeekerProjectileData(Sk) { lifetimeMS = 100; };
        $p = new Player() { dataBlock = LightMale; };
        $v = new HoverVehicle() { dataBlock = Car; };
        $s = new SeekerProjectile() { dataBlock = Sk; initialPosition = "nan inf -inf"; initialDirection = "1e39 0 0"; };
        $f = new FileObject();"#,
    );
    let junk = [
        "\"\"",
        "\"nan\"",
        "1e300",
        "-1",
        "-2147483649",
        "4294967296",
        "\"junk words here\"",
        "0",
        "$p",
        "$v",
        "99999",
    ];
    let methods: &[(&str, &str, usize)] = &[
        ("$p", "setDamageLevel", 1),
        ("$p", "applyDamage", 1),
        ("$p", "applyRepair", 1),
        ("$p", "setEnergyLevel", 1),
        ("$p", "setRechargeRate", 1),
        ("$p", "setRepairRate", 1),
        ("$p", "mountImage", 2),
        ("$p", "mountImage", 3),
        ("$p", "unmountImage", 1),
        ("$p", "getMountedImage", 1),
        ("$p", "setImageTrigger", 2),
        ("$p", "setImageAmmo", 2),
        ("$p", "getImageState", 1),
        ("$p", "getMuzzlePoint", 1),
        ("$p", "getMountSlot", 1),
        ("$v", "mountObject", 2),
        ("$v", "unmountObject", 1),
        ("$v", "getMountNodeObject", 1),
        ("$v", "getMountedObject", 1),
        ("$p", "setControlObject", 1),
        ("$v", "setFrozenState", 1),
        ("$s", "setObjectTarget", 1),
        ("$s", "setPositionTarget", 1),
        ("$f", "openForRead", 1),
        ("$f", "openForWrite", 1),
        ("$f", "writeLine", 1),
        ("$p", "setDamageFlash", 1),
        ("$p", "setWhiteOut", 1),
        ("$p", "startFade", 3),
        ("$p", "setInvincibleMode", 2),
        ("$p", "setSkinName", 1),
        ("$p", "setActionThread", 2),
        ("$p", "setArmThread", 1),
        ("$v", "getWorldBoxCenter", 0),
    ];
    for (obj, m, n) in methods {
        for j in junk {
            let args = vec![j; *n].join(", ");
            let _ = con.eval(&format!("{obj}.{m}({args});"));
        }
    }
    for f in [
        "containerRayCast(%a, %a, %a, %a)",
        "initContainerRadiusSearch(%a, %a, %a)",
        "initContainerTypeSearch(%a)",
        "containerBoxEmpty(%a, %a, %a, %a, %a)",
        "ContainerFindFirst(%a, %a, %a, %a, %a)",
        "calcExplosionCoverage(%a, %a, %a)",
    ] {
        for j in junk {
            let _ = con.eval(&format!("%a = {j}; {f}; containerSearchNext(); containerSearchCurrDist(); containerSearchCurrRadDamageDist(); ContainerFindNext();"));
        }
    }
    run_ticks(&mut con, &shared, 10);
    assert_eq!(eval(&mut con, "return isObject($p) SPC isObject($v);"), "1 1");
    let _ = std::fs::remove_dir_all(&dir);
}

/// PlayerData's energy fields become the predicted motion's energy use: the jets'
/// acceleration is `jetForce / mass`; a field out of range is a warning naming it, and its
/// default is kept; no `maxEnergy`, no energy.
#[test]
fn player_data_energy_and_jets_reach_the_motion() {
    let (mut con, _shared, out) = game_console();
    eval(
        &mut con,
        "datablock PlayerData(Jetter) { mass = 90; maxEnergy = 60; rechargeRate = 0.25; jetForce = 2700;\n\
           jetEnergyDrain = 0.8; minJetEnergy = 2; jumpEnergyDrain = 3; maxJetHorizontalPercentage = 7; };\n\
         datablock PlayerData(Walker) { mass = 90; jetForce = 2700; };",
    );
    assert!(out.stderr().contains("maxJetHorizontalPercentage"), "{}", out.stderr());
    let id = |con: &mut v12_console_vm::Console, name: &str| {
        eval(con, &format!("return {name}.getId();")).parse().unwrap()
    };
    let jetter_id = id(&mut con, "Jetter");
    let jetter = crate::PlayerTuning::of_datablock(&con, jetter_id);
    let e = jetter.energy.expect("Jetter has energy");
    assert_eq!(
        (e.max_energy, e.recharge, e.jet_drain, e.min_jet_energy, e.jump_drain),
        (60.0, 0.25, 0.8, 2.0, 3.0)
    );
    assert!((e.jet_accel - 30.0).abs() < 1e-4, "{}", e.jet_accel);
    assert_eq!(e.max_jet_horizontal, 0.8, "the default kept for the junk value");
    let walker_id = id(&mut con, "Walker");
    let walker = crate::PlayerTuning::of_datablock(&con, walker_id);
    assert_eq!(walker.energy, None);
    assert_eq!(crate::motion(None, jetter).energy, Some(e));
}

/// The ShapeBase methods Tribes 2's scripts lean on, and radius damage as its
/// `RadiusExplosion` writes it: the blast's coverage of each box past interiors and shapes.
#[test]
fn shape_base_boxes_looks_threads_and_explosion_coverage() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        r#"datablock StaticShapeData(Block) { boundingBox = "2 2 4"; };
        $p = new Player() { dataBlock = LightMale; position = "10 0 0"; };
        $wall = new StaticShape() { dataBlock = Block; position = "5 0 0"; };
        $open = new Player() { dataBlock = LightMale; position = "0 10 0"; };"#,
    );
    let center = eval(&mut con, "return $p.getWorldBoxCenter();");
    let c: Vec<f32> = center.split(' ').map(|w| w.parse().unwrap()).collect();
    assert_eq!(c[..2], [10.0, 0.0], "{center}");
    assert!(c[2] > 0.5, "the middle is above the feet: {center}");
    let world: Vec<f32> =
        eval(&mut con, "return $p.getWorldBox();").split(' ').map(|w| w.parse().unwrap()).collect();
    let object: Vec<f32> =
        eval(&mut con, "return $p.getObjectBox();").split(' ').map(|w| w.parse().unwrap()).collect();
    assert_eq!(world.len(), 6);
    assert!(
        (world[3] - world[0] - (object[3] - object[0])).abs() < 1e-4 && object[2] == 0.0,
        "{world:?} {object:?}"
    );
    assert!(eval(&mut con, "return $p.getEyeTransform();").ends_with(" 0 0 1 0"));
    // Looks are kept and read back; junk is an error naming the method.
    eval(
        &mut con,
        "$p.setDamageFlash(2); $p.setCloaked(true); $p.setSkinName(\"beagle\"); $p.startFade(1000, 0, true);",
    );
    assert_eq!(
        eval(
            &mut con,
            "return $p.getDamageFlash() SPC $p.isCloaked() SPC $p.getSkinName() SPC $p.isFaded();"
        ),
        "1 1 beagle 1"
    );
    eval(&mut con, "$p.setWhiteOut(\"bright\");");
    assert!(out.stderr().contains("setWhiteOut"), "{}", out.stderr());
    // Action and arm threads are script threads 0 and 1.
    eval(&mut con, "$p.setActionThread(\"death1\", true); $p.setArmThread(\"look\");");
    let p: u32 = eval(&mut con, "return $p;").parse().unwrap();
    let scene = shared.borrow().by_console[&p];
    let threads: Vec<String> = shared.borrow().world.as_ref().unwrap().get(scene).unwrap().threads[..2]
        .iter()
        .map(|t| t.as_ref().map_or(String::new(), |t| t.sequence.clone()))
        .collect();
    assert_eq!(threads, ["death1", "look"]);
    // A blast at the origin: the crate between it and $p shades much of $p's box; $open is in
    // the clear; with nothing in the mask, everything is seen.
    let mask = "$TypeMasks::StaticShapeObjectType";
    let shaded: f64 =
        eval(&mut con, &format!("return calcExplosionCoverage(\"0 0 1\", $p, {mask});")).parse().unwrap();
    let clear: f64 =
        eval(&mut con, &format!("return calcExplosionCoverage(\"0 0 1\", $open, {mask});")).parse().unwrap();
    let unmasked: f64 = eval(&mut con, "return calcExplosionCoverage(\"0 0 1\", $p, 0);").parse().unwrap();
    assert!(shaded < 0.9, "the crate shades the player: {shaded}");
    assert_eq!((clear, unmasked), (1.0, 1.0));
}

/// SensorData: a sensor tower sees the other team's players within its `detectRadius`
/// (by line of sight when it `detectsUsingLOS`; cloaked ones only when it `detectsCloaked`),
/// and each object's own group always sees it.
#[test]
fn a_sensor_sees_the_other_teams_players_in_range_and_in_sight() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        "datablock SensorData(TowerSensor) { detectRadius = 30; detectsUsingLOS = true; };\n\
         datablock StaticShapeData(SensorTower) { sensorData = TowerSensor; };\n\
         datablock StaticShapeData(Wall) { boundingBox = \"20 1 10\"; };\n\
         datablock StaticShapeData(Junk) { sensorData = LightMale; };\n\
         $tower = new StaticShape() { dataBlock = SensorTower; position = \"0 0 0\"; team = 1; };\n\
         $near = new Player() { dataBlock = LightMale; position = \"10 0 0\"; team = 2; };\n\
         $far = new Player() { dataBlock = LightMale; position = \"45 0 0\"; team = 2; };\n\
         $hidden = new Player() { dataBlock = LightMale; position = \"0 20 0\"; team = 2; };\n\
         $wall = new StaticShape() { dataBlock = Wall; position = \"0 10 0\"; };\n\
         $junk = new StaticShape() { dataBlock = Junk; position = \"0 -5 0\"; };",
    );
    assert!(out.stderr().contains("sensorData \"LightMale\" is not a SensorData"), "{}", out.stderr());
    run_ticks(&mut con, &shared, 9);
    let seen =
        |con: &mut v12_console_vm::Console, obj: &str| eval(con, &format!("return {obj}.isDetectedBy(1);"));
    assert_eq!(seen(&mut con, "$near"), "1", "in range and in sight");
    assert_eq!(seen(&mut con, "$far"), "0", "out of range");
    assert_eq!(seen(&mut con, "$hidden"), "0", "behind the wall");
    assert_eq!(eval(&mut con, "return $near.isDetectedBy(2) SPC $tower.getDetectedCount();"), "1 1");
    assert_eq!(eval(&mut con, "return $near.getDetectedMask();"), "6", "its own group and the tower's");
    // Cloaked, it hides from a sensor that does not detect cloaked objects.
    eval(&mut con, "$near.setCloaked(true);");
    run_ticks(&mut con, &shared, 8);
    assert_eq!(seen(&mut con, "$near"), "0");
    eval(&mut con, "$near.setCloaked(false); $tower.setSensorGroup(2);");
    run_ticks(&mut con, &shared, 8);
    assert_eq!(eval(&mut con, "return $near.getDetectedMask() SPC $tower.getSensorGroup();"), "4 2");
    // A disabled tower sees nothing; bad groups are console errors.
    eval(&mut con, "$tower.setSensorGroup(1); $tower.setDamageState(Disabled);");
    run_ticks(&mut con, &shared, 8);
    assert_eq!(seen(&mut con, "$near"), "0");
    assert_eq!(eval(&mut con, "return $tower.setSensorGroup(32) SPC $tower.setSensorGroup(\"x\");"), "0 0");
    assert!(out.stderr().contains("setSensorGroup: group \"32\" is not 0 to 31"), "{}", out.stderr());
}

/// A shot's explosion sounds its ExplosionData's `soundProfile` (the engine plays it, not a
/// script); a `soundProfile` naming no AudioProfile is a warning naming the explosion, and the
/// shot still explodes.
#[test]
fn an_explosions_sound_profile_must_be_an_audio_profile() {
    let (mut con, shared, out) = game_console();
    eval(
        &mut con,
        "datablock ExplosionData(Dud) { soundProfile = LightMale; };\n\
         datablock ProjectileData(Pop) { lifetime = 64; explosion = Dud; };\n\
         function Pop::onExplode(%data, %proj, %pos) { echo(\"explode\"); }\n\
         $p = new Projectile() { dataBlock = Pop; initialPosition = \"0 0 5\"; initialVelocity = \"0 1 0\"; };",
    );
    run_ticks(&mut con, &shared, 4);
    assert_eq!(out.stdout(), "explode\n");
    assert!(
        out.stderr().contains("soundProfile \"LightMale\" is not an AudioProfile datablock"),
        "{}",
        out.stderr()
    );
}
