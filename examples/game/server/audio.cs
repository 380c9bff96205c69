// The example's sounds (audio/README.md: generated, CC0), as Tribes 2 declares them: an
// AudioDescription says how a sound plays (3D, distances, channel), an AudioProfile names the
// file. Datablocks: the server sends them to every client with the others.

datablock AudioDescription(AudioClose3d) {
   volume = 1.0;
   isLooping = false;
   is3D = true;
   referenceDistance = 5.0;
   maxDistance = 60.0;
   type = $EffectAudioType;
};

datablock AudioDescription(AudioDefault3d) {
   volume = 1.0;
   isLooping = false;
   is3D = true;
   referenceDistance = 10.0;
   maxDistance = 120.0;
   type = $EffectAudioType;
};

datablock AudioDescription(AudioChat2d) {
   volume = 0.8;
   isLooping = false;
   is3D = false;
   type = $ChatAudioType;
};

datablock AudioProfile(BallLauncherFireSound) {
   filename = "audio/fire.wav";
   description = AudioClose3d;
   preload = true;
};

datablock AudioProfile(BallExplosionSound) {
   filename = "audio/explosion.wav";
   description = AudioDefault3d;
   preload = true;
};

datablock AudioProfile(CoinPickupSound) {
   filename = "audio/pickup.wav";
   description = AudioChat2d;
   preload = true;
};

// Tribes 2's serverPlay3D: every client in range hears it there.
function serverPlay3D(%profile, %transform)
{
   for (%i = 0; %i < ClientGroup.getCount(); %i++)
      ClientGroup.getObject(%i).play3D(%profile, %transform);
}
