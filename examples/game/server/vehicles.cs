// The example's vehicle: a hover skimmer waiting by its pad south-west of the arena's middle. A player who
// walks onto the pad or into the skimmer is seated as its pilot (mount node 0), and from then the
// player's moves
// drive it; after eight seconds, or when the pilot dies, the pilot gets off and the skimmer
// goes back to its pad. Bots walk to a free skimmer near them, board it and drive it towards
// the coins they want.

// Its jets, drawn on the clients only (V12's vehicle jets): while its pilot thrusts forwards,
// the flame of its two engines (forwardJetEmitter and the JetEffectData exhaust); on its
// boost (trigger 3), dust blown down under it (floatJetEmitter); faster than 6 m/s, a wake of
// dust behind it (trailEmitter).
datablock ParticleData(SkimmerDust) {
   lifetimeMS = 900; lifetimeVarianceMS = 200; dragCoefficient = 2; gravityCoefficient = -0.05;
   colors[0] = "0.6 0.5 0.4 0.5"; colors[1] = "0.6 0.5 0.4 0"; sizes[0] = 0.6; sizes[1] = 1.6;
   times[0] = 0; times[1] = 1; useInvAlpha = true;
};
datablock ParticleEmitterData(SkimmerDustEmitter) {
   ejectionPeriodMS = 30; ejectionVelocity = 2; velocityVariance = 1; thetaMin = 0; thetaMax = 40;
   particles = "SkimmerDust";
};
datablock JetEffectData(SkimmerExhaust) {
   hotColor = "1 0.75 0.35 1"; coolColor = "0.35 0.45 1 1";
   activateTime = 0.1; deactivateTime = 0.3;
   length = 2.5; width = 0.6; speed = -18; stretch = 1.8; yOffset = 0.1;
};
datablock HoverVehicleData(ArenaSkimmer) {
   maxDamage = 300; destroyedLevel = 300; disabledLevel = 250;
   maxForwardSpeed = 14;
   boundingBox = "3.6 6 1.8";
   minImpactSpeed = 40;
   forwardJetEmitter = JetFlameEmitter; jetEffect = SkimmerExhaust;
   floatJetEmitter = SkimmerDustEmitter;
   trailEmitter = SkimmerDustEmitter; minTrailSpeed = 6;
};

datablock TriggerData(VehiclePad) { tickPeriodMS = 100; };

// The skimmer, its pad, the turret and the force field, placed once a match starts.
function placeArenaFixtures()
{
   if (isObject(ArenaSkimmerPad))
      return;
   %pad = groundPoint(-6, -8);
   $SkimmerHome = %pad;
   MissionCleanup.add(new Trigger(ArenaSkimmerPad) {
      dataBlock = VehiclePad; position = VectorAdd(%pad, "-2 2 0"); scale = "4 4 3";
   });
   MissionCleanup.add(new HoverVehicle(Skimmer) { dataBlock = ArenaSkimmer; position = VectorAdd(%pad, "0 -7 0"); });
   %turret = new Turret(ArenaTurret) { dataBlock = ArenaTurretBase; position = groundPoint(38, 38); };
   MissionCleanup.add(%turret);
   %turret.mountImage(ArenaTurretBarrel, 0);
   MissionCleanup.add(new ForceFieldBare(ArenaWall) { dataBlock = ArenaField; position = groundPoint(-30, 30); });
}

function VehiclePad::onEnterTrigger(%data, %trigger, %obj)
{
   if (isObject(Skimmer))
      boardVehicle(Skimmer, %obj);
}

// A living player on foot takes the pilot's seat if it is free.
function boardVehicle(%vehicle, %obj)
{
   if ($MatchOver || %obj.getClassName() !$= "Player" || %obj.isMounted())
      return;
   if (%obj.getDamageState() !$= "Enabled" || %vehicle.getMountNodeObject(0) != 0)
      return;
   %vehicle.mountObject(%obj, 0);
}

function LightMale::onMount(%data, %obj, %vehicle, %node)
{
   echo("server: " @ %obj.client.name @ " boards " @ %vehicle.getName());
   %obj.rideEvent = schedule(8000, %obj, dismount, %obj);
}

function LightMale::onUnmount(%data, %obj, %vehicle, %node)
{
   cancel(%obj.rideEvent);
   // Off to the side, and the skimmer home.
   %obj.setTransform(VectorAdd(%vehicle.getPosition(), "3 0 1") SPC "0 0 1 0");
   %vehicle.setTransform(VectorAdd($SkimmerHome, "0 -7 0") SPC "0 0 1 0");
}

function dismount(%obj)
{
   if (isObject(%obj))
      %obj.unmount();
}
