// The server browser's script half (the screen is joinServerGui.gui). The engine's
// queryMasterServer() asks the masters in $Pref::Master0.. and pings every server listed;
// onServerQueryStatus (main.cs) passes its progress to JoinServerGui.onQueryStatus.

exec("client/ui/joinServerGui.gui");

function JoinServerGui::query(%this)
{
   ServerList.clear();
   $Browser::Status = "Querying master server...";
   if (!queryMasterServer(0, 0, "Any"))
      $Browser::Status = "No master server set ($Pref::Master0).";
}

function JoinServerGui::onQueryStatus(%this, %status, %msg, %count)
{
   $Browser::Status = %msg;
   ServerList.clear();
   for (%i = 0; %i < %count; %i++)
   {
      setServerInfo(%i);
      %ping = $ServerInfo::Ping < 0 ? "?" : $ServerInfo::Ping @ " ms";
      ServerList.addRow(%i, $ServerInfo::Name @ " | " @ $ServerInfo::PlayerCount @ "/" @ $ServerInfo::MaxPlayers
         @ " | " @ $ServerInfo::MissionName @ " | " @ %ping);
   }
}

function JoinServerGui::join(%this)
{
   %row = ServerList.getSelectedId();
   if (%row < 0 || !setServerInfo(%row))
   {
      $Browser::Status = "Select a server first.";
      return;
   }
   cancelServerQuery();
   $Client::ServerAddress = $ServerInfo::Address;
   joinGame();
}
