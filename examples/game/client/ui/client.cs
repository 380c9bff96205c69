// The client's screens and their script half: chat, joining, the console toggle.
// Run by the Rust client after main.cs; the .gui files only build controls.

exec("client/ui/profiles.cs");
exec("client/ui/playGui.gui");
exec("client/ui/mainMenu.gui");

$Chat::Count = 0;

// The server relays chat to everyone (server/game.cs serverCmdChatMessage).
function clientCmdChatMessage(%from, %text)
{
   for (%i = 0; %i < 4; %i++)
      $Chat::Line[%i] = $Chat::Line[%i + 1];
   $Chat::Line4 = %from @ ": " @ %text;
   $Chat::Count++;
}

function sendChat()
{
   %t = trim($Chat::Entry);
   $Chat::Entry = "";
   ChatEntry.setText("");
   if (%t !$= "")
      commandToServer('ChatMessage', %t);
}

function joinGame()
{
   $Client::JoinRequested = 1;
   Canvas.setContent(PlayGui);
}
