// Server rules every game type shares: datablocks, connection callbacks, players, throwing,
// damage, respawns, the scoreboard and the end of the match. Players and balls are engine
// objects (Player, Projectile) made with `new`, as in V12; the engine ghosts them, moves
// players by their clients' moves and calls back the datablocks.
//
// The game type, as Tribes 2 had it: `server/<$Server::GameType>Game.cs` defines
// `<type>Game::` methods on the `Game` object, whose superClass `DefaultGame` (below) holds
// the defaults. The example's type is Coins (server/CoinsGame.cs); a mod sets another in its
// mod.cs (examples/ctf: capture the flag).

// Players walk into each other (V12's playerCollisions). Over the bots' 200 ms round trip each
// client's prediction of bumping into players it sees 150 ms late disagrees with the server
// now and then (docs/PERFORMANCE.md counts the corrections); a game whose players mostly
// crowd may set it false.
// Drawn on the clients only: dust where a player's feet fall, the flame of its jets.
datablock ParticleData(FootDust) {
   lifetimeMS = 600; lifetimeVarianceMS = 100; dragCoefficient = 3; gravityCoefficient = -0.05;
   colors[0] = "0.55 0.45 0.35 0.6"; colors[1] = "0.55 0.45 0.35 0"; sizes[0] = 0.3; sizes[1] = 0.8;
   times[0] = 0; times[1] = 1; useInvAlpha = true;
};
datablock ParticleEmitterData(FootPuffEmitter) {
   ejectionPeriodMS = 20; ejectionVelocity = 1; velocityVariance = 0.5; thetaMin = 60; thetaMax = 90;
   particles = "FootDust";
};
datablock ParticleData(JetFlame) {
   lifetimeMS = 250; lifetimeVarianceMS = 50;
   colors[0] = "0.6 0.8 1 1"; colors[1] = "1 0.5 0.2 0.6"; colors[2] = "0.2 0.2 0.2 0";
   sizes[0] = 0.4; sizes[1] = 0.6; sizes[2] = 0.2; times[0] = 0; times[1] = 0.3; times[2] = 1;
};
datablock ParticleEmitterData(JetFlameEmitter) {
   ejectionPeriodMS = 15; ejectionVelocity = 8; velocityVariance = 1; thetaMin = 0; thetaMax = 10;
   particles = "JetFlame";
};
datablock PlayerData(LightMale) {
   shapeFile = "shapes/player.glb";
   maxDamage = 100; mass = 90; maxForwardSpeed = 8; jumpForce = 720; playerCollisions = true;
   // The running speed builds up by runForce / mass = 50 m/s² on the ground (8 m/s in 5
   // ticks) and keeps in the air, predicted by the client with its moves.
   runForce = 4500;
   minImpactSpeed = 30; speedDamageScale = 2;
   // Energy for the jets (trigger 3) and jumps, predicted by the client with its moves.
   maxEnergy = 60; rechargeRate = 0.256; jumpEnergyDrain = 2;
   jetForce = 2000; jetEnergyDrain = 0.8; minJetEnergy = 1; maxJetHorizontalPercentage = 0.33;
   footPuffEmitter = FootPuffEmitter; footPuffNumParts = 6; footPuffRadius = 0.25;
   jetEmitter = JetFlameEmitter;
   // In water (V12's LiquidProfile physics, predicted with the moves): half as dense as
   // water, it floats with its head out in the pond (Tribes 2's armors, at density 10,
   // sink), and swims at 3 m/s.
   density = 0.5; maxUnderwaterForwardSpeed = 3;
   splash = PlayerSplash;
};

// Where a player walks or falls into the water, the clients draw its splash (V12's
// SplashData): a spray of drops and a ring of them thrown outwards, and its sound
// (server/audio.cs).
datablock ParticleData(SplashDrop) {
   lifetimeMS = 700; lifetimeVarianceMS = 150; dragCoefficient = 0.5; gravityCoefficient = 0.8;
   colors[0] = "0.85 0.92 1 0.9"; colors[1] = "0.7 0.85 1 0.3";
   sizes[0] = 0.25; sizes[1] = 0.5; times[0] = 0; times[1] = 1;
};
datablock ParticleEmitterData(SplashDropEmitter) {
   ejectionPeriodMS = 10; ejectionVelocity = 5; velocityVariance = 1.5; thetaMin = 0; thetaMax = 25;
   particles = "SplashDrop";
};
datablock SplashData(PlayerSplash) {
   emitter[0] = SplashDropEmitter; numSegments = 12; startRadius = 0.6; ejectionAngle = 50;
};

// The weapon: a ball launcher, V12's image state machine (server/weapons.cs) firing Balls,
// whose explosions splash nearby players (radius damage written here, with the container).
// Where a ball ends, its explosion: each client that sees the ball end plays its
// soundProfile there (V12's ExplosionData; the profile is in server/audio.cs).
// Drawn on the clients only (their particles are simulated there, from a seed): a burst of
// hot sparks that cool to smoke, and a light flash.
datablock ParticleData(BallSpark) {
   lifetimeMS = 700; lifetimeVarianceMS = 150; dragCoefficient = 2; gravityCoefficient = -0.2;
   colors[0] = "1 0.9 0.4 1"; colors[1] = "1 0.45 0.1 0.8"; colors[2] = "0.3 0.3 0.3 0";
   sizes[0] = 0.6; sizes[1] = 1.4; sizes[2] = 2.2;
   times[0] = 0; times[1] = 0.35; times[2] = 1;
};
datablock ParticleEmitterData(BallSparkEmitter) {
   ejectionPeriodMS = 8; ejectionVelocity = 6; velocityVariance = 2; thetaMin = 0; thetaMax = 80;
   particles = "BallSpark";
};
datablock ExplosionData(BallExplosion) {
   soundProfile = BallExplosionSound;
   lifetimeMS = 300;
   particleEmitter = BallSparkEmitter; particleDensity = 40;
   lightStartRadius = 3; lightEndRadius = 0.5; lightStartColor = "1 0.7 0.3"; lightEndColor = "0.6 0.2 0";
};
datablock LinearProjectileData(Ball) {
   lifetimeMS = 1280; dryVelocity = 25; muzzleVelocity = 25; velInheritFactor = 0;
   damage = 34; splashDamage = 12; splashRadius = 3;
   explosion = BallExplosion;
};
exec("server/weapons.cs");
exec("server/vehicles.cs");
exec("server/audio.cs");

// A point on the ground (terrain, floor or roof) at (%x, %y).
function groundPoint(%x, %y)
{
   %hit = containerRayCast(%x SPC %y SPC 1000, %x SPC %y SPC -1000,
      $TypeMasks::TerrainObjectType | $TypeMasks::InteriorObjectType);
   return %x SPC %y SPC (%hit $= "0" ? 0 : getWord(%hit, 3));
}

function randomSpawnPoint()
{
   return groundPoint(getRandom(-40, 40), getRandom(-40, 40));
}

function onServerCreated()
{
   $MatchOver = 0;
   // The world: the arena's terrain and the building (clients get them as ghosts).
   if (!isObject(MissionGroup))
      exec("missions/arena.mis");
   if (!isObject(MissionCleanup))
      new SimGroup(MissionCleanup);
   if (!isObject(Game))
   {
      exec("server/" @ $Server::GameType @ "Game.cs");
      new ScriptObject(Game) { class = $Server::GameType @ "Game"; superClass = DefaultGame; };
   }
   Game.startMatch();
   placeArenaFixtures();
   schedule($matchSeconds * 1000, 0, endMatch);
   echo("server: " @ $Server::GameType @ " match of " @ $matchSeconds @ " s");
   // Listed by the master server when one is named ($Pref::Master0, or -master).
   if ($Pref::Master0 !$= "")
      startHeartbeat();
}

function GameConnection::onConnectRequest(%client, %address, %name)
{
   if (%name $= "")
      return "a player name is required";
   if (ClientGroup.getCount() > 1024)
      return "server is full";
   %client.address = %address;
   return "";
}

function GameConnection::onConnect(%client, %name)
{
   %client.name = %name;
   %client.score = 0;
   // "local": a listen server's own client, joined through memory rather than a socket.
   echo("server: " @ %name @ " joined" @ (%client.address $= "local" ? " (local)" : ""));
}

// The client has every datablock: now it may see ghosts and get a player.
function GameConnection::onDataBlocksDone(%client)
{
   if (%client.encrypted)
      echo("server: " @ %client.name @ " is on an encrypted connection" @
         (%client.connectTokenId !$= "" ? " (connect token " @ %client.connectTokenId @ ", " @ %client.connectTokenData @ ")" : ""));
   Game.onClientEnterGame(%client);
}

function GameConnection::onDrop(%client, %reason)
{
   echo("server: " @ %client.name @ " left (" @ %reason @ ")");
   Game.onClientLeaveGame(%client);
}

// ---- DefaultGame: what a game type does unless it says otherwise.

function DefaultGame::startMatch(%game)
{
}

function DefaultGame::onClientEnterGame(%game, %client)
{
   %game.spawnPlayer(%client);
   updateScoreboard();
}


function DefaultGame::onClientLeaveGame(%game, %client)
{
   if (isObject(%client.player))
      %client.player.delete();
   if (!$MatchOver)
      updateScoreboard();
}

function DefaultGame::pickSpawnPoint(%game, %client)
{
   return randomSpawnPoint();
}

function DefaultGame::spawnPlayer(%game, %client)
{
   %player = new Player() { dataBlock = LightMale; position = %game.pickSpawnPoint(%client); };
   MissionCleanup.add(%player);
   %player.client = %client;
   %client.player = %player;
   %client.setControlObject(%player);
   // The owned-object model's owner: this client may send its player control messages.
   %player.setOwner(%client);
   // The weapon in image slot 0: the fire trigger holds it.
   %player.mountImage(BallLauncherImage, 0);
}

// A control message from the player's owner (the server checked who sent it).
function LightMale::onControlMessage(%data, %player, %client, %text)
{
   if (%text $= "wave")
      echo("server: " @ %client.name @ " waves");
}

function DefaultGame::respawnPlayer(%game, %client)
{
   %p = %client.player;
   %p.setTransform(%game.pickSpawnPoint(%client));
   %p.setDamageLevel(0);
   %p.setHidden(0);
}

// A player touched an item that is not hidden.
function DefaultGame::playerTouchItem(%game, %player, %item)
{
}

// A player's damage reached maxDamage; %killer is the client whose ball did it.
function DefaultGame::onPlayerKilled(%game, %player, %killer)
{
   %player.unmount();
   %player.setHidden(1);
   if (isObject(%killer))
      %killer.score += 2;
   schedule(2000, 0, respawnPlayer, %player.client);
   updateScoreboard();
}

// What the scoreboard shows before the players' scores (team scores, for instance).
function DefaultGame::scoreboardHeader(%game)
{
   return "";
}

function respawnPlayer(%client)
{
   if (!$MatchOver && isObject(%client) && isObject(%client.player))
      Game.respawnPlayer(%client);
}

// ---- The engine's callbacks on the datablocks.

// A player touched an item or a vehicle (the engine calls the moving object's datablock):
// it picks the item up, or boards the vehicle (server/vehicles.cs).
function LightMale::onCollision(%data, %obj, %col)
{
   if ($MatchOver)
      return;
   if (%col.getClassName() $= "Item" && !%col.isHidden())
      Game.playerTouchItem(%obj, %col);
   else if (%col.getType() & $TypeMasks::VehicleObjectType)
      boardVehicle(%col, %obj);
}

// A ball hit something: a player takes its damage (the terrain and walls take none).
function Ball::onCollision(%data, %proj, %col, %fade, %pos, %normal)
{
   if ($MatchOver || !(%col.getType() & $TypeMasks::PlayerObjectType) || %col.getState() !$= "Enabled")
      return;
   if (isObject(%proj.sourceObject))
      %col.lastShooter = %proj.sourceObject.client;
   %col.applyDamage(%data.damage);
}

// Wherever a ball ends, it splashes: every player within splashRadius takes up to
// splashDamage, less with distance (V12's radius damage, as Tribes 2's scripts write it).
function Ball::onExplode(%data, %proj, %pos, %fade)
{
   if ($MatchOver)
      return;
   %shooter = isObject(%proj.sourceObject) ? %proj.sourceObject.client : "";
   initContainerRadiusSearch(%pos, %data.splashRadius, $TypeMasks::PlayerObjectType);
   while ((%target = containerSearchNext()) != 0)
   {
      %dist = containerSearchCurrRadDamageDist();
      if (%target.getState() !$= "Enabled" || %dist >= %data.splashRadius)
         continue;
      if (%shooter !$= "")
         %target.lastShooter = %shooter;
      %target.applyDamage(%data.splashDamage * (1 - %dist / %data.splashRadius));
   }
}

// The engine calls this when a player's damage reaches maxDamage.
function LightMale::onDisabled(%data, %obj, %state)
{
   if (!$MatchOver)
      Game.onPlayerKilled(%obj, %obj.lastShooter);
}

// The scoreboard goes out at most every 100 ms, however many scores change or players leave
// in between (a mass drop used to send one scoreboard per drop to everyone), and in parts of
// at most 200 bytes, so a long one still fits the packets (one over a packet was lost). With
// more than 16 players it goes out less often, 25 ms per player: it grows by ~12 bytes a
// player and goes to every player, so at 256 players a 3 KB scoreboard ten times a second
// would be six times a client's 5 KB/s and hold back every event queued after it.
function updateScoreboard()
{
   if (!isEventPending($ScoreboardEvent))
   {
      %count = ClientGroup.getCount();
      $ScoreboardEvent = schedule(%count > 16 ? %count * 25 : 100, 0, sendScoreboard);
   }
}

function sendScoreboard()
{
   cancel($ScoreboardEvent);
   %t = Game.scoreboardHeader();
   %n = ClientGroup.getCount();
   for (%i = 0; %i < %n; %i++)
   {
      %cl = ClientGroup.getObject(%i);
      %t = %t SPC %cl.name @ "=" @ %cl.score;
   }
   $Scoreboard = trim(%t);
   for (%i = 0; %i < %n; %i++)
      sendScoreboardTo(ClientGroup.getObject(%i));
}

function sendScoreboardTo(%client)
{
   commandToClient(%client, 'ScoreboardBegin');
   %part = "";
   %words = getWordCount($Scoreboard);
   for (%w = 0; %w < %words; %w++)
   {
      %word = getWord($Scoreboard, %w);
      if (%part !$= "" && strlen(%part) + 1 + strlen(%word) > 200)
      {
         commandToClient(%client, 'ScoreboardPart', %part);
         %part = "";
      }
      %part = %part $= "" ? %word : %part SPC %word;
   }
   if (%part !$= "")
      commandToClient(%client, 'ScoreboardPart', %part);
   commandToClient(%client, 'ScoreboardEnd');
}

// The match ends in three steps: the world freezes (every object settles and the bots stop);
// once every client holds the settled world (ghostCheck waits until no ghost change is in
// flight, at most three seconds), the server and every client print a hash of the ghost
// states they hold (the demo compares them); then the scoreboard goes out and we quit.
function endMatch()
{
   $MatchOver = 1;
   freezeWorld();
   %n = ClientGroup.getCount();
   for (%i = 0; %i < %n; %i++)
      commandToClient(ClientGroup.getObject(%i), 'Freeze');
   schedule(500, 0, ghostCheck);
}

// Called by the engine once the server printed its hashes.
function onGhostCheck()
{
   %n = ClientGroup.getCount();
   for (%i = 0; %i < %n; %i++)
      commandToClient(ClientGroup.getObject(%i), 'GhostCheck');
   schedule(500, 0, announceMatchOver);
}

function announceMatchOver()
{
   sendScoreboard();
   %n = ClientGroup.getCount();
   for (%i = 0; %i < %n; %i++)
      commandToClient(ClientGroup.getObject(%i), 'MatchOver');
   echo("server: match over: " @ $Scoreboard);
   schedule(3000, 0, quit);
}

// Chat flood protection, as Tribes 2 servers had it in script: more than
// $Pref::Server::ChatLines lines in $Pref::Server::ChatPeriod ms mutes a client for
// $Pref::Server::ChatPenalty ms. Without it one client's chat, relayed to every player,
// takes the bandwidth the others need for ghost updates.
if ($Pref::Server::ChatLines $= "")
   $Pref::Server::ChatLines = 5;
if ($Pref::Server::ChatPeriod $= "")
   $Pref::Server::ChatPeriod = 5000;
if ($Pref::Server::ChatPenalty $= "")
   $Pref::Server::ChatPenalty = 10000;

// True when %client may not chat now; tells it once when it is muted.
function chatFlooding(%client)
{
   %now = getSimTime();
   if (%now < %client.chatMutedUntil)
      return true;
   if (%client.chatPeriodStart $= "" || %now - %client.chatPeriodStart >= $Pref::Server::ChatPeriod)
   {
      %client.chatPeriodStart = %now;
      %client.chatLines = 0;
   }
   %client.chatLines++;
   if (%client.chatLines <= $Pref::Server::ChatLines)
      return false;
   %client.chatMutedUntil = %now + $Pref::Server::ChatPenalty;
   commandToClient(%client, 'ChatMessage', "server",
      "flood protection: muted for " @ mFloor($Pref::Server::ChatPenalty / 1000) @ " s");
   echo("server: " @ %client.name @ " muted for chat flooding");
   return true;
}

// Chat: a client's commandToServer('ChatMessage', %text) is relayed to every client.
function serverCmdChatMessage(%client, %text)
{
   %text = trim(%text);
   if (%text $= "" || strlen(%text) > 200 || chatFlooding(%client))
      return;
   %n = ClientGroup.getCount();
   for (%i = 0; %i < %n; %i++)
      commandToClient(ClientGroup.getObject(%i), 'ChatMessage', %client.name, %text);
}
