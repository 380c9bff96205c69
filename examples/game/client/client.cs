// Client side: the scoreboard and the connection callbacks of ServerConnection.

// The server sends the scoreboard in parts (each fits a packet): Begin, Part..., End.
function clientCmdScoreboardBegin()
{
   $ScoreboardNext = "";
}

function clientCmdScoreboardPart(%text)
{
   $ScoreboardNext = $ScoreboardNext $= "" ? %text : $ScoreboardNext SPC %text;
}

function clientCmdScoreboardEnd()
{
   $Scoreboard = $ScoreboardNext;
}

// The scoreboard is the one last sent (an older server sent it here as %text).
// The match is over: stop playing while the world settles for the ghost-state check.
function clientCmdFreeze()
{
   $Game::frozen = 1;
}

function clientCmdGhostCheck()
{
   clientGhostCheck();
}

// Voice chat, with Tribes 2's bind functions: push-to-talk held and released (the window
// client's MoveMap binds "v"). The voice is `v12 --audio-input FILE.wav`, or the microphone.
function voiceCapStart()
{
   $voiceCaptureStarted = alxCaptureStart();
}

function voiceCapStop()
{
   if (!$voiceCaptureStarted)
      return;
   $voiceCaptureStarted = false;
   alxCaptureStop();
}

function clientCmdMatchOver(%text)
{
   if (%text !$= "")
      $Scoreboard = %text;
   echo("client: match over");
   schedule(500, 0, quit);
}

function GameConnection::onConnectionAccepted(%this)
{
   echo("client: connection accepted");
   schedule(500, 0, waveWhenSpawned);
}

// Once this client has its player, it waves: a control message to an object it owns.
function waveWhenSpawned()
{
   %player = ServerConnection.getControlObject();
   if (isObject(%player))
      sendControlMessage(%player, "wave");
   else
      schedule(500, 0, waveWhenSpawned);
}

function GameConnection::onConnectionRejected(%this, %reason)
{
   echo("client: connection rejected: " @ %reason);
   quit();
}

function GameConnection::onConnectionDropped(%this, %reason)
{
   echo("client: connection dropped: " @ %reason);
   quit();
}

function GameConnection::onConnectionTimedOut(%this)
{
   echo("client: connection timed out");
   quit();
}
