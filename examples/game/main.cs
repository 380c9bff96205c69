// The V12 example game: a top-down match in the spirit of Robo Cat Action (Multiplayer Game Programming).
// Arguments (after `--`): -seconds N, -port P, -bot, -name NAME, -listen, -master ADDR:PORT
// (list the server there, or with -query ask it for the server list), -name-server NAME,
// -agones ADDR:PORT (the Agones SDK sidecar; AGONES_SDK_HTTP_PORT also turns it on),
// -bind IP (the server's address; 0.0.0.0 for every interface, loopback by default),
// -encryption off|on|required ($Pref::Net::Encryption, default required: plain clients are
// refused, since a blind spoofer can drop them; `on` also admits them, `off` encrypts nothing), -token-key HEX (a server
// admits only clients with a connect token sealed with this key), -token "SEALED KEY" (the
// client's connect token, from issueConnectToken), -telnet PORT PASSWORD LISTENPASSWORD (the
// remote console: telnetSetParameters), -dbg PORT PASSWORD (the script debugger's port:
// dbgSetParameters), -debugger ADDR:PORT PASSWORD (this instance as the debugger of another:
// debugger/debugger.cs), -max-per-ip N (connections and handshakes one address may hold: the
// crowd demo's hundreds of bots all come from 127.0.0.1), -packet-threads N (the server builds
// its clients' packets on N threads: $Pref::Server::PacketThreads), -pin-packet-threads (each
// of them bound to a core of its own: $Pref::Server::PinPacketThreads).

// Encrypted connections only, unless the operator asks (-encryption on|off): see docs/SECURITY.md.
$Pref::Net::Encryption = "required";
$Pref::Net::PacketRateToClient = 10;
$Pref::Net::PacketRateToServer = 32;
$Pref::Net::PacketSize = 508;
$Pref::Server::Port = 28000;
$Pref::Player::Name = "Player";
$matchSeconds = 20;
$Pref::Server::Name = "V12 Example Server";
$Pref::Server::MaxPlayers = 32;
$Server::MissionName = "Arena";
$Server::GameType = "Coins";

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
      else if (%a $= "-master") { %i++; $Pref::Master0 = $Game::argv[%i]; }
      else if (%a $= "-name-server") { %i++; $Pref::Server::Name = $Game::argv[%i]; }
      else if (%a $= "-query") $Game::queryMaster = 1;
      else if (%a $= "-agones") { %i++; $Pref::Agones::Address = $Game::argv[%i]; }
      else if (%a $= "-bind") { %i++; $Pref::Net::BindAddress = $Game::argv[%i]; }
      else if (%a $= "-encryption") { %i++; $Pref::Net::Encryption = $Game::argv[%i]; }
      else if (%a $= "-max-per-ip")
      {
         %i++;
         $Pref::Server::MaxConnectionsPerIP = $Game::argv[%i];
         $Pref::Server::MaxPendingPerIP = $Game::argv[%i];
      }
      else if (%a $= "-packet-threads") { %i++; $Pref::Server::PacketThreads = $Game::argv[%i]; }
      else if (%a $= "-pin-packet-threads") $Pref::Server::PinPacketThreads = 1;
      else if (%a $= "-token-key") { %i++; $Pref::Server::ConnectTokenKey = $Game::argv[%i]; }
      else if (%a $= "-token") { %i++; $Pref::Net::ConnectToken = $Game::argv[%i]; }
      else if (%a $= "-dbg")
      {
         dbgSetParameters($Game::argv[%i + 1], $Game::argv[%i + 2]);
         %i += 2;
      }
      else if (%a $= "-debugger")
      {
         $Debugger::Address = $Game::argv[%i + 1];
         $Debugger::PasswordEntry = $Game::argv[%i + 2];
         $Game::attachDebugger = 1;
         %i += 2;
      }
      else if (%a $= "-telnet")
      {
         telnetSetParameters($Game::argv[%i + 1], $Game::argv[%i + 2], $Game::argv[%i + 3]);
         %i += 3;
      }
   }
}

// The debugger instance's scripts (functions only; attach with dbgConnect or -debugger).
exec("debugger/debugger.cs");
parseArgs();
if ($Game::attachDebugger)
   dbgConnect($Debugger::Address, $Debugger::PasswordEntry);
// A mod over this game (`v12 --add-mod DIR`) sets itself up in its mod.cs, as Tribes 2's mods
// each ran their own main.cs (examples/ctf sets $Server::GameType).
if (isFile("mod.cs"))
   exec("mod.cs");
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


// The server query's progress: to the browser screen when there is one; with
// `-query -master ADDR`, print the servers the master lists (and their pings), then quit.
function onServerQueryStatus(%status, %msg, %count)
{
   if (isObject(JoinServerGui))
      JoinServerGui.onQueryStatus(%status, %msg, %count);
   if (%status !$= "done" || !$Game::queryMaster)
      return;
   echo("QUERY DONE " @ %count);
   for (%i = 0; %i < %count; %i++)
   {
      setServerInfo(%i);
      echo("SERVER " @ $ServerInfo::Address TAB $ServerInfo::Name TAB $ServerInfo::PlayerCount @ "/" @
         $ServerInfo::MaxPlayers TAB $ServerInfo::MissionName TAB $ServerInfo::Ping);
   }
   quit();
}

if ($Game::queryMaster)
   queryMasterServer(0, 0, "Any");
