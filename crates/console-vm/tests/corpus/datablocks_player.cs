// Datablocks with parents, switch$, tagged strings with colour codes, $a[i,j], packages.
datablock AudioProfile(ArmorJetSound)
{
   filename = "fx/armor/jet.wav";
   description = AudioDefaultLooping3d;
   preload = true;
};

datablock PlayerData(LightMaleHumanArmor)
{
   emap = true;
   className = Armor;
   shapeFile = "light_male.dts";
   cameraMaxDist = 3;
   computeCRC = true;
   mass = 90;
   drag = 0.275;
   maxDamage = 0.66;
   maxEnergy = 60;
   runForce = 55 * 90;
   runEnergyDrain = 0;
   maxForwardSpeed = 15;
   jetForce = 26.21 * 90;
   jetSound = ArmorJetSound;
   max[RepairKit] = 1;
   max[Mine] = 3;
   max[Grenade] = 5;
   debrisShapeName = "debris_player.dts";
   observeParameters = "0.5 4.5 4.5";
   shieldEffectScale = "0.7 0.7 1.0";
};

datablock PlayerData(MediumMaleHumanArmor : LightMaleHumanArmor)
{
   shapeFile = "medium_male.dts";
   mass = 130;
   maxDamage = 1.1;
   maxEnergy = 80;
   maxForwardSpeed = 12;
   max[Mine] = 3;
   max[Grenade] = 6;
};

datablock PlayerData(HeavyMaleHumanArmor : MediumMaleHumanArmor)
{
   shapeFile = "heavy_male.dts";
   mass = 180;
   maxDamage = 1.32;
   maxForwardSpeed = 7;
};

$ArmorTypes[0] = LightMaleHumanArmor;
$ArmorTypes[1] = MediumMaleHumanArmor;
$ArmorTypes[2] = HeavyMaleHumanArmor;

function initDamageScale()
{
   for (%i = 0; %i < 3; %i++)
      for (%j = 0; %j < 3; %j++)
         $DamageScale[%i, %j] = (%i + 1) * 0.25 + %j * 0.1;
}
initDamageScale();

function armorName(%db)
{
   switch$ (%db.shapeFile)
   {
      case "light_male.dts":
         return "Scout";
      case "medium_male.dts" or "medium_female.dts":
         return "Assault";
      case "heavy_male.dts":
         return "Juggernaut";
      default:
         return "Unknown";
   }
}

function Armor::onCollision(%this, %obj, %col)
{
   %msg = '\c2%1 picked up %2.';
   messageClient(%obj.client, 'MsgItemPickup', %msg, %obj.client.name, %col.getName());
}

function messageClient(%client, %type, %msg, %a1, %a2)
{
   $lastMessage = detag(%msg);
}

package DebugArmor
{
   function armorName(%db)
   {
      return "[" @ Parent::armorName(%db) @ "]";
   }
};

function listArmors()
{
   for (%i = 0; %i < 3; %i++)
   {
      %db = $ArmorTypes[%i];
      echo(armorName(%db) SPC %db.mass SPC %db.maxEnergy SPC %db.max[Grenade] SPC %db.max[RepairKit] SPC $DamageScale[%i, 2]);
   }
}
listArmors();
activatePackage(DebugArmor);
echo(armorName(HeavyMaleHumanArmor));
deactivatePackage(DebugArmor);
echo(armorName(HeavyMaleHumanArmor) SPC $DamageScale[2,1] SPC $DamageScale2_1);

$tag = 'MsgTeamScore';
echo("tag is number: " @ (getTaggedString($tag) $= "MsgTeamScore") SPC strlen("\c3colour\c0") SPC stripChars("a\c1b", "\c1"));
$msg = "\c5Flag captured by \c3" @ "Blue" @ "\cr!";
echo(strlen($msg) SPC getSubStr($msg, 1, 4));
