// The example's weapons, as Tribes 2 declares them: a ShapeBaseImageData whose states the
// engine runs (stateName[n] and the transitions), firing from `onFire`; a turret whose
// TurretImageData barrel the engine aims; a force field.

// The ball launcher: ready, fire on the trigger (one ball every 480 ms while it is held).
datablock ShapeBaseImageData(BallLauncherImage) {
   projectile = Ball;
   projectileType = LinearProjectile;
   mountPoint = 0;

   stateName[0] = "Activate";
   stateTimeoutValue[0] = 0.25;
   stateTransitionOnTimeout[0] = "Ready";

   stateName[1] = "Ready";
   stateTransitionOnTriggerDown[1] = "Fire";

   stateName[2] = "Fire";
   stateFire[2] = true;
   stateScript[2] = "onFire";
   stateSequence[2] = "fire";
   stateSound[2] = BallLauncherFireSound;
   stateTimeoutValue[2] = 0.48;
   stateTransitionOnTimeout[2] = "Ready";
   stateAllowImageChange[2] = false;
};

// Tribes 2's ShapeBaseImageData::onFire: a shot of the image's projectile class from the
// muzzle, along the muzzle vector, its source the firer.
function ShapeBaseImageData::onFire(%data, %obj, %slot)
{
   if ($MatchOver || %obj.isHidden())
      return 0;
   %p = new (%data.projectileType)() {
      dataBlock = %data.projectile;
      initialDirection = %obj.getMuzzleVector(%slot);
      initialPosition = %obj.getMuzzlePoint(%slot);
      sourceObject = %obj;
      sourceSlot = %slot;
   };
   MissionCleanup.add(%p);
   return %p;
}

// The turret in the arena's corner: it shoots weak balls at whoever comes within 22 m.
datablock LinearProjectileData(TurretBall) {
   lifetimeMS = 1500; dryVelocity = 30; damage = 8; splashDamage = 4; splashRadius = 2;
};
datablock TurretImageData(ArenaTurretBarrel) {
   projectile = TurretBall;
   projectileType = LinearProjectile;
   attackRadius = 22; degPerSecTheta = 120; thinkTimeMS = 250;

   stateName[0] = "Ready";
   stateTransitionOnTriggerDown[0] = "Fire";

   stateName[1] = "Fire";
   stateFire[1] = true;
   stateScript[1] = "onFire";
   stateTimeoutValue[1] = 1.5;
   stateTransitionOnTimeout[1] = "Ready";
};
datablock TurretData(ArenaTurretBase) {
   maxDamage = 200; destroyedLevel = 200; disabledLevel = 150;
   boundingBox = "1.6 1.6 2.4";
};

function TurretBall::onCollision(%data, %proj, %col, %fade, %pos, %normal)
{
   Ball::onCollision(%data, %proj, %col, %fade, %pos, %normal);
}

function TurretBall::onExplode(%data, %proj, %pos, %fade)
{
   Ball::onExplode(%data, %proj, %pos, %fade);
}

// A force field: a wall no player passes (teamPermiable, otherPermiable false); shots stop
// at it too.
datablock ForceFieldBareData(ArenaField) {
   fadeMS = 1000; baseTranslucency = 0.3; teamPermiable = false; otherPermiable = false;
   boundingBox = "8 0.4 3";
};
