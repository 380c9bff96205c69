// The probe server: says it is up, heart-beats to $Pref::Master0, and quits after
// $probeSeconds.
function probeOver()
{
   echo("probe: over");
   quit();
}

echo("probe: server up for " @ $probeSeconds @ " s");
startHeartbeat();
schedule($probeSeconds * 1000, 0, probeOver);
