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

datablock AudioDescription(AudioEngineLoop3d) {
   volume = 0.7;
   isLooping = true;
   is3D = true;
   referenceDistance = 5.0;
   maxDistance = 80.0;
   type = $EffectAudioType;
};

datablock AudioDescription(AudioStep3d) {
   volume = 0.6;
   isLooping = false;
   is3D = true;
   referenceDistance = 2.0;
   maxDistance = 25.0;
   type = $EffectAudioType;
};

// The engine plays these itself on every client: a vehicle datablock's engineSound (looping,
// pitched by speed), a player datablock's FootSoftSound (each stride).
datablock AudioProfile(SkimmerEngineSound) {
   filename = "audio/engine.wav";
   description = AudioEngineLoop3d;
   preload = true;
};

datablock AudioProfile(FootstepSound) {
   filename = "audio/step.wav";
   description = AudioStep3d;
   preload = true;
};
ArenaSkimmer.engineSound = SkimmerEngineSound;
LightMale.FootSoftSound = FootstepSound;

// A player's splash into the pond (the clients play it where the splash is).
datablock AudioProfile(SplashSound) {
   filename = "audio/splash.wav";
   description = AudioClose3d;
   preload = true;
};
PlayerSplash.soundProfile = SplashSound;

// Tribes 2's serverPlay3D: every client in range hears it there.
function serverPlay3D(%profile, %transform)
{
   for (%i = 0; %i < ClientGroup.getCount(); %i++)
      ClientGroup.getObject(%i).play3D(%profile, %transform);
}
