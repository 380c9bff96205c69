// Capture the flag on the example's arena. Two teams (red in the west, blue in the east), a
// flag on a stand at each base. Touch the enemy flag to take it; bring it into your own
// stand while your flag is home to capture (5 points, and a point for your team). A carrier
// who dies drops the flag where he fell; touching your own dropped flag returns it, and a
// dropped flag goes home by itself after 20 s. Kills are 2 points, as in the base game.
//
// Only script: Items (the flags), Triggers (the stands), the base game's players and balls.

datablock ItemData(Flag) { shapeFile = "shapes/flag.glb"; };
datablock TriggerData(FlagStand) { tickPeriodMS = 500; };

function teamName(%team)
{
   return %team == 0 ? "red" : "blue";
}

function CTFGame::startMatch(%game)
{
   %game.nextTeam = 0;
   for (%t = 0; %t < 2; %t++)
   {
      %game.teamScore[%t] = 0;
      %home = groundPoint(%t == 0 ? -35 : 35, 0);
      %flag = new Item() { dataBlock = Flag; position = %home; };
      %flag.team = %t;
      %flag.home = %home;
      %flag.atHome = 1;
      // Every player knows where both flags are, however far (V12's scope-always objects).
      %flag.setScopeAlways();
      %game.flag[%t] = %flag;
      // A 6 m box around the flag (V12's polyhedron: the corner, then +X, -Y and +Z edges).
      %stand = new Trigger() {
         dataBlock = FlagStand;
         position = VectorAdd(%home, "-3 3 -1");
         scale = "6 6 6";
         polyhedron = "0 0 0 1 0 0 0 -1 0 0 0 1";
      };
      %stand.team = %t;
      MissionCleanup.add(%flag);
      MissionCleanup.add(%stand);
   }
}

function CTFGame::onClientEnterGame(%game, %client)
{
   %client.team = %game.nextTeam;
   %game.nextTeam = 1 - %game.nextTeam;
   echo("ctf: " @ %client.name @ " joins " @ teamName(%client.team));
   Parent::onClientEnterGame(%game, %client);
}

function CTFGame::onClientLeaveGame(%game, %client)
{
   if (isObject(%client.player))
      %game.dropFlag(%client.player);
   Parent::onClientLeaveGame(%game, %client);
}

// Each team spawns on its own half.
function CTFGame::pickSpawnPoint(%game, %client)
{
   %x = (%client.team == 0 ? -1 : 1) * getRandom(20, 40);
   return groundPoint(%x, getRandom(-30, 30));
}

function CTFGame::playerTouchItem(%game, %player, %flag)
{
   if (%flag.getDataBlock() != Flag.getId())
      return;
   %client = %player.client;
   if (%flag.team == %client.team)
   {
      // Your own flag, dropped in the field: back home.
      if (!%flag.atHome)
      {
         %game.returnFlag(%flag);
         %client.score += 1;
         echo("ctf: " @ %client.name @ " returned the " @ teamName(%flag.team) @ " flag");
         updateScoreboard();
      }
      return;
   }
   if (isObject(%player.carrying))
      return;
   cancel(%flag.returnEvent);
   %flag.setHidden(1);
   %flag.atHome = 0;
   %flag.carrier = %player;
   %player.carrying = %flag;
   %client.score += 1;
   echo("ctf: " @ %client.name @ " took the " @ teamName(%flag.team) @ " flag");
   updateScoreboard();
}

// A carrier in his own stand, with his own flag home, captures.
function FlagStand::onEnterTrigger(%data, %stand, %obj)
{
   if ($MatchOver || %obj.getClassName() !$= "Player" || !isObject(%obj.carrying))
      return;
   %client = %obj.client;
   if (%client.team != %stand.team || !Game.flag[%stand.team].atHome)
      return;
   %flag = %obj.carrying;
   %obj.carrying = "";
   Game.returnFlag(%flag);
   Game.teamScore[%client.team]++;
   %client.score += 5;
   echo("ctf: " @ %client.name @ " captured the " @ teamName(%flag.team) @ " flag");
   updateScoreboard();
}

// While a carrier waits in his stand for his own flag to come home, he captures as soon as
// it does.
function FlagStand::onTickTrigger(%data, %stand)
{
   for (%i = 0; %i < %stand.getNumObjects(); %i++)
      FlagStand::onEnterTrigger(%data, %stand, %stand.getObject(%i));
}

function CTFGame::returnFlag(%game, %flag)
{
   cancel(%flag.returnEvent);
   %flag.carrier = "";
   %flag.setTransform(%flag.home);
   %flag.setHidden(0);
   %flag.atHome = 1;
}

function CTFGame::dropFlag(%game, %player)
{
   %flag = %player.carrying;
   if (!isObject(%flag))
      return;
   %player.carrying = "";
   %flag.carrier = "";
   %flag.setTransform(%player.getPosition());
   %flag.setHidden(0);
   %flag.returnEvent = schedule(20000, 0, returnDroppedFlag, %flag);
   echo("ctf: the " @ teamName(%flag.team) @ " flag was dropped");
}

function returnDroppedFlag(%flag)
{
   if (!$MatchOver && isObject(%flag) && !%flag.atHome && !isObject(%flag.carrier))
      Game.returnFlag(%flag);
}

function CTFGame::onPlayerKilled(%game, %player, %killer)
{
   %game.dropFlag(%player);
   Parent::onPlayerKilled(%game, %player, %killer);
}

function CTFGame::scoreboardHeader(%game)
{
   return "Red=" @ %game.teamScore[0] @ " Blue=" @ %game.teamScore[1];
}
