// The probe server: says it is up once the main loop runs (after its LISTENING line),
// heart-beats to $Pref::Master0, and quits after $probeSeconds.
function probeUp()
{
   echo("probe: server up for " @ $probeSeconds @ " s");
}

function probeOver()
{
   echo("probe: over");
   quit();
}

startHeartbeat();
schedule(0, 0, probeUp);
schedule($probeSeconds * 1000, 0, probeOver);
