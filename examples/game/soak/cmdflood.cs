// Soak: a hostile client that calls server commands that do not exist, as fast as it can
// (each costs the server a lookup and a console error unless rate-limited first).
// As fast as the link carries guaranteed events: a client that queues faster than its link
// drains only fills its own backlog until its own side drops the connection; then it joins
// again (rejoin.cs).
function soakCmdFlood()
{
   for (%i = 0; %i < 20; %i++)
      commandToServer('NoSuchCommand' @ (%i % 7), %i);
   schedule(32, 0, soakCmdFlood);
}
schedule(3000, 0, soakCmdFlood);
exec("soak/rejoin.cs");
