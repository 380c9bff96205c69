// The example's game type: twelve coins on the arena; a coin is a point, a hit that kills is
// two. Methods of `Game` (class CoinsGame, superClass DefaultGame: see game.cs).

datablock ItemData(Coin) { shapeFile = "shapes/item.glb"; rotate = true; score = 1; };

function CoinsGame::startMatch(%game)
{
   for (%i = 0; %i < 12; %i++)
      MissionCleanup.add(new Item() { dataBlock = Coin; position = randomSpawnPoint(); });
}

function CoinsGame::playerTouchItem(%game, %player, %item)
{
   if (%item.getDataBlock() != Coin.getId())
      return;
   %player.client.score += Coin.score;
   if (isObject(%player.client))
      %player.client.play2D(CoinPickupSound);
   %item.setHidden(1);
   schedule(3000, 0, respawnCoin, %item);
   updateScoreboard();
}

function respawnCoin(%item)
{
   if ($MatchOver || !isObject(%item))
      return; // the world is frozen for the ghost check
   %item.setTransform(randomSpawnPoint());
   %item.setHidden(0);
}
