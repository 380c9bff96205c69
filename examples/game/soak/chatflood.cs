// Soak: a hostile client that floods chat lines, which the server relays to every player
// unless its per-client command rate limit stops them.
// As fast as the link carries guaranteed events: a client that queues faster than its link
// drains only fills its own backlog until its own side drops the connection; then it joins
// again (rejoin.cs).
function soakChatFlood()
{
   %line = "spam spam spam spam spam spam spam spam spam spam spam spam spam spam spam spam";
   for (%i = 0; %i < 10; %i++)
      commandToServer('ChatMessage', %line SPC $Soak::Lines++);
   schedule(32, 0, soakChatFlood);
}
schedule(3000, 0, soakChatFlood);
exec("soak/rejoin.cs");
