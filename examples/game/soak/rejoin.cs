// Soak: a hostile client does not give up. When its connection ends (its own side drops it
// once its backlog passes the cap, or the server refuses it), it joins again a second later,
// so the server is under attack for the whole soak.
function GameConnection::onConnectionDropped(%this, %reason)
{
   echo("client: connection dropped: " @ %reason);
   schedule(1000, 0, soakRejoin);
}

function GameConnection::onConnectionRejected(%this, %reason)
{
   echo("client: connection rejected: " @ %reason);
   schedule(1000, 0, soakRejoin);
}

function GameConnection::onConnectionTimedOut(%this)
{
   echo("client: connection timed out");
   schedule(1000, 0, soakRejoin);
}

function soakRejoin()
{
   connect($Game::ServerAddress, $Pref::Player::Name);
}
