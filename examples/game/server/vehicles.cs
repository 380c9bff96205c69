// The example's vehicle: a hover skimmer waiting by its pad south-west of the arena's middle. A player who
// walks onto the pad or into the skimmer is seated as its pilot (mount node 0), and from then the
// player's moves
// drive it; after eight seconds, or when the pilot dies, the pilot gets off and the skimmer
// goes back to its pad. Bots walk to a free skimmer near them, board it and drive it towards
// the coins they want.

datablock HoverVehicleData(ArenaSkimmer) {
   maxDamage = 300; destroyedLevel = 300; disabledLevel = 250;
   maxForwardSpeed = 14;
   boundingBox = "3.6 6 1.8";
   minImpactSpeed = 40;
   // Its jet behind it while it moves faster than 2 m/s (drawn on the clients).
   forwardJetEmitter = JetFlameEmitter; minTrailSpeed = 2;
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
