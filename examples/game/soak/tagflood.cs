// Soak: a hostile client that sends a stream of new tagged strings (each a new entry in the
// server's tag table unless the server caps what one client may hold).
// As fast as the link carries guaranteed events: a client that queues faster than its link
// drains only fills its own backlog until its own side drops the connection; then it joins
// again (rejoin.cs).
function soakTagFlood()
{
   for (%i = 0; %i < 10; %i++)
   {
      $Soak::Tags++;
      commandToServer('ChatMessage', addTaggedString("flood" @ $Soak::Tags));
   }
   schedule(32, 0, soakTagFlood);
}
schedule(3000, 0, soakTagFlood);
exec("soak/rejoin.cs");
