// The client's screens and their script half: chat, joining, the console toggle.
// Run by the Rust client after main.cs; the .gui files only build controls.

exec("client/ui/profiles.cs");
exec("client/ui/playGui.gui");
exec("client/ui/mainMenu.gui");
exec("client/ui/browser.cs");
exec("debugger/debuggerGui.gui");

$Chat::Count = 0;

// Music in the main menu: a long Ogg Vorbis file, streamed, on the music channel
// (alxSetChannelVolume($MusicAudioType, ...) sets its level). Client-side objects, not datablocks.
new AudioDescription(AudioMusic) { volume = 0.6; isLooping = true; is3D = false; type = $MusicAudioType; };
new AudioProfile(MenuMusic) { filename = "audio/menu.ogg"; description = AudioMusic; };
// The menu buttons' sounds (their profile's soundButtonOver / soundButtonDown).
new AudioDescription(AudioGui) { volume = 0.5; isLooping = false; is3D = false; type = $GuiAudioType; };
new AudioProfile(ButtonOverSound) { filename = "audio/click.wav"; description = AudioGui; };
new AudioProfile(ButtonDownSound) { filename = "audio/pickup.wav"; description = AudioGui; };

function MainMenuGui::onWake(%this)
{
   if (!alxIsPlaying($MenuMusicHandle))
      $MenuMusicHandle = alxPlay(MenuMusic);
}

function MainMenuGui::onSleep(%this)
{
   alxStop($MenuMusicHandle);
   $MenuMusicHandle = 0;
}

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

// Movement: the game's action map (pushed when play starts). The client reads $mv* each tick.
new ActionMap(MoveMap);
MoveMap.bindCmd(keyboard, "w", "$mvForward = 1;", "$mvForward = 0;");
MoveMap.bindCmd(keyboard, "s", "$mvBackward = 1;", "$mvBackward = 0;");
MoveMap.bindCmd(keyboard, "a", "$mvTurnLeft = 1;", "$mvTurnLeft = 0;");
MoveMap.bindCmd(keyboard, "d", "$mvTurnRight = 1;", "$mvTurnRight = 0;");
MoveMap.bindCmd(keyboard, "space", "$mvJump = 1;", "$mvJump = 0;");
MoveMap.bindCmd(keyboard, "f", "$mvFire = 1;", "$mvFire = 0;");
// Jets (trigger 3), as Tribes 2: the right mouse button; "e" on the keyboard.
MoveMap.bindCmd(mouse, "button1", "$mvJet = 1;", "$mvJet = 0;");
MoveMap.bindCmd(keyboard, "e", "$mvJet = 1;", "$mvJet = 0;");
MoveMap.bindCmd(mouse, "button0", "$mvFire = 1;", "$mvFire = 0;");
MoveMap.bindCmd(keyboard, "t", "ChatEntry.makeFirstResponder(1);", "");
// Push-to-talk (voice chat), as Tribes 2: held to speak.
MoveMap.bindCmd(keyboard, "v", "voiceCapStart();", "voiceCapStop();");
// Tab: the view from the player's eye, or behind it again (Tribes 2's toggleFirstPerson).
function toggleFirstPerson(%val)
{
   if (%val)
      $firstPerson = !$firstPerson;
}
MoveMap.bind(keyboard, "tab", toggleFirstPerson);
