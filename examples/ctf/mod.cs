// Capture the flag: a mod over the V12 example game, written only in script. Run it with
//   v12 --add-mod examples/ctf -- -listen          (or `cargo xtask demo --mod examples/ctf`)
// The base game's main.cs runs this file after its own set-up, as Tribes 2's mods each ran
// their main.cs; the game type below selects server/CTFGame.cs.

$Server::GameType = "CTF";
$Server::MissionName = "Arena CTF";
$Pref::Server::Name = "V12 Capture the Flag";
