// The V12 example game: a small top-down match in the spirit of seed 004's Robo Cat Action.
// Arguments (after `--`): -seconds N, -port P, -bot, -name NAME, -listen.

$Pref::Net::PacketRateToClient = 10;
$Pref::Net::PacketRateToServer = 32;
$Pref::Net::PacketSize = 508;
$Pref::Server::Port = 28000;
$Pref::Player::Name = "Player";
$matchSeconds = 20;

function parseArgs()
{
   for (%i = 0; %i < $Game::argc; %i++)
   {
      %a = $Game::argv[%i];
      if (%a $= "-seconds") { %i++; $matchSeconds = $Game::argv[%i]; }
      else if (%a $= "-port") { %i++; $Pref::Server::Port = $Game::argv[%i]; }
      else if (%a $= "-name") { %i++; $Pref::Player::Name = $Game::argv[%i]; }
      else if (%a $= "-bot") $Game::bot = 1;
      else if (%a $= "-listen") $Game::listen = 1;
   }
}

parseArgs();
// A client needs none of the server's scripts: datablocks come over the connection.
if ($Game::dedicated || $Game::listen)
   exec("server/game.cs");
exec("client/client.cs");

// A listen server: host and join ourselves over loopback. The server is created when the
// main loop starts, so the join waits for it and uses the port it really bound
// ($Server::Port; "-port 0" picks a free one).
function startListenServer()
{
   createServer($Pref::Server::Port);
   schedule(0, 0, joinListenServer);
}

function joinListenServer()
{
   connect("127.0.0.1:" @ $Server::Port, $Pref::Player::Name);
}

if ($Game::dedicated)
   createServer($Pref::Server::Port);
else if ($Game::listen)
   startListenServer();

