// Client side: the scoreboard and the connection callbacks of ServerConnection.

function clientCmdScoreboard(%text)
{
   $Scoreboard = %text;
}

function clientCmdMatchOver(%text)
{
   $Scoreboard = %text;
   echo("client: match over");
   schedule(500, 0, quit);
}

function GameConnection::onConnectionAccepted(%this)
{
   echo("client: connection accepted");
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
