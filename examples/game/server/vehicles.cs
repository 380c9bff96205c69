// The example's vehicle: a hover skimmer waiting on its pad. A player who walks onto the pad
// is seated as its pilot (mount node 0), and from then the player's moves drive it; after
// eight seconds, or when the pilot dies, the pilot gets off and the skimmer goes back to its
// pad. Bots wander onto the pad like anyone else and drive it towards the coins they want.

datablock HoverVehicleData(ArenaSkimmer) {
   maxDamage = 300; destroyedLevel = 300; disabledLevel = 250;
   maxForwardSpeed = 14;
   boundingBox = "3.6 6 1.8";
   minImpactSpeed = 40;
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
   if ($MatchOver || %obj.getClassName() !$= "Player" || %obj.isMounted() || !isObject(Skimmer))
      return;
   if (Skimmer.getMountNodeObject(0) != 0)
      return;
   Skimmer.mountObject(%obj, 0);
}

function LightMale::onMount(%data, %obj, %vehicle, %node)
{
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
