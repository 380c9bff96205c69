// The engine tests' own mod: the least a game needs to run on the v12 program. A dedicated
// server on -port (default 0, a free one) for -seconds (default 1), listed at -master when
// given, with the remote console when -telnet PORT PASSWORD LISTENPASSWORD, then quit. Tests
// that play a match use the example game (examples/game).
$Pref::Server::Port = 0;
$probeSeconds = 1;

function parseProbeArgs()
{
   for (%i = 0; %i < $Game::argc; %i++)
   {
      %a = $Game::argv[%i];
      if (%a $= "-seconds") { %i++; $probeSeconds = $Game::argv[%i]; }
      else if (%a $= "-port") { %i++; $Pref::Server::Port = $Game::argv[%i]; }
      else if (%a $= "-master") { %i++; $Pref::Master0 = $Game::argv[%i]; }
      else if (%a $= "-telnet")
      {
         telnetSetParameters($Game::argv[%i + 1], $Game::argv[%i + 2], $Game::argv[%i + 3]);
         %i += 3;
      }
   }
}

parseProbeArgs();
exec("server/server.cs");
if ($Game::dedicated)
   createServer($Pref::Server::Port);
