//! The mixer: sources (V12's audio handles) on channels with their own volume, mixed in
//! handle order (deterministic) into stereo frames at the device's rate.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::decode::Sound;
use crate::playback::Playback;
use crate::reverb::{Environment, Reverb};
use crate::spatial::{Listener, Vec3, spatial_gains};
use crate::voice::{VOICE_RATE, VoiceQueue};

/// V12's channel count (`Audio::NumAudioTypes`): an AudioDescription's `type` is 0..32.
pub const NUM_CHANNELS: usize = 32;
/// The most sources alive at once; creating one more fails with a warning.
pub const MAX_SOURCES: usize = 256;

/// The channel types V12's scripts name (`$DefaultAudioType` and the others); the other
/// channels up to [`NUM_CHANNELS`] are free for a game's own use.
pub mod channel {
    /// `$DefaultAudioType`: anything not given a type.
    pub const DEFAULT: usize = 0;
    /// `$ChatAudioType`: voice chat and canned chat messages.
    pub const CHAT: usize = 1;
    /// `$GuiAudioType`: button clicks and other interface sounds.
    pub const GUI: usize = 2;
    /// `$EffectAudioType`: the world's sounds (weapons, explosions, vehicles, footsteps).
    pub const EFFECT: usize = 3;
    /// `$MusicAudioType`: music.
    pub const MUSIC: usize = 4;
    /// The script globals for the channels above, with their numbers.
    pub const NAMES: [(&str, usize); 5] = [
        ("DefaultAudioType", DEFAULT),
        ("ChatAudioType", CHAT),
        ("GuiAudioType", GUI),
        ("EffectAudioType", EFFECT),
        ("MusicAudioType", MUSIC),
    ];
}

/// How a sound plays (V12's AudioDescription).
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// Gain, 0..=1.
    pub volume: f32,
    /// Start again at the end.
    pub looping: bool,
    /// Placed in the world (attenuated, panned, coned) rather than played straight.
    pub is_3d: bool,
    /// Full volume within this distance.
    pub reference_distance: f32,
    /// Silent from this distance on.
    pub max_distance: f32,
    /// Full volume within this cone around the source's facing, degrees (360: no cone).
    pub cone_inside_angle: f32,
    /// `cone_outside_volume` outside this cone, degrees.
    pub cone_outside_angle: f32,
    /// Gain outside the outer cone, 0..=1.
    pub cone_outside_volume: f32,
    /// The channel (V12's `type`), 0..[`NUM_CHANNELS`].
    pub channel: usize,
    /// How much of it the environment's reverb hears (V12's `environmentLevel`), 0..=1.
    pub environment_level: f32,
}

impl Default for Description {
    fn default() -> Self {
        Description {
            volume: 1.0,
            looping: false,
            is_3d: false,
            reference_distance: 1.0,
            max_distance: 100.0,
            cone_inside_angle: 360.0,
            cone_outside_angle: 360.0,
            cone_outside_volume: 1.0,
            channel: channel::DEFAULT,
            environment_level: 0.0,
        }
    }
}

fn finite_or(v: f32, or: f32) -> f32 {
    if v.is_finite() { v } else { or }
}

impl Description {
    /// The same with every number in range: gains in 0..=1, distances positive with
    /// reference ≤ max, angles in 0..=360, a channel that exists. Junk (NaN, infinities,
    /// negatives) becomes the default.
    pub fn sanitized(&self) -> Description {
        let d = Description::default();
        let reference = finite_or(self.reference_distance, d.reference_distance).max(0.0);
        let max = finite_or(self.max_distance, d.max_distance).max(reference + 1e-3);
        let inside = finite_or(self.cone_inside_angle, 360.0).clamp(0.0, 360.0);
        Description {
            volume: finite_or(self.volume, 1.0).clamp(0.0, 1.0),
            looping: self.looping,
            is_3d: self.is_3d,
            reference_distance: reference,
            max_distance: max,
            cone_inside_angle: inside,
            cone_outside_angle: finite_or(self.cone_outside_angle, 360.0).clamp(inside, 360.0),
            cone_outside_volume: finite_or(self.cone_outside_volume, 1.0).clamp(0.0, 1.0),
            channel: if self.channel < NUM_CHANNELS { self.channel } else { channel::DEFAULT },
            environment_level: finite_or(self.environment_level, 0.0).clamp(0.0, 1.0),
        }
    }
}

/// A source's handle (V12's `AUDIOHANDLE`; 0 is never one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Handle(u32);

impl Handle {
    /// The number a script sees.
    pub fn raw(self) -> u32 {
        self.0
    }

    /// The handle for a number from a script (None for 0).
    pub fn from_raw(raw: u32) -> Option<Handle> {
        (raw != 0).then_some(Handle(raw))
    }
}

/// A source's settings that `alxSourcef` / `alxSourcei` reach, by their OpenAL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceParam {
    /// `AL_GAIN`, `AL_GAIN_LINEAR`: the source's own gain, 0..=1.
    Gain,
    /// `AL_PITCH`: playback speed, 0.1..=4.
    Pitch,
    /// `AL_REFERENCE_DISTANCE`.
    ReferenceDistance,
    /// `AL_MAX_DISTANCE`.
    MaxDistance,
    /// `AL_CONE_OUTER_GAIN`.
    ConeOuterGain,
    /// `AL_CONE_INNER_ANGLE`, degrees.
    ConeInnerAngle,
    /// `AL_CONE_OUTER_ANGLE`, degrees.
    ConeOuterAngle,
    /// `AL_LOOPING` (0 or 1).
    Looping,
}

impl SourceParam {
    /// The parameter for an OpenAL enum name (any case), or None.
    pub fn from_al_name(name: &str) -> Option<SourceParam> {
        Some(match name.to_ascii_uppercase().as_str() {
            "AL_GAIN" | "AL_GAIN_LINEAR" => Self::Gain,
            "AL_PITCH" => Self::Pitch,
            "AL_REFERENCE_DISTANCE" => Self::ReferenceDistance,
            "AL_MAX_DISTANCE" => Self::MaxDistance,
            "AL_CONE_OUTER_GAIN" => Self::ConeOuterGain,
            "AL_CONE_INNER_ANGLE" => Self::ConeInnerAngle,
            "AL_CONE_OUTER_ANGLE" => Self::ConeOuterAngle,
            "AL_LOOPING" | "AL_SOURCE_LOOPING" => Self::Looping,
            _ => return None,
        })
    }
}

/// What a source plays: a sound, or a stream of samples pushed as they come (voice chat).
#[derive(Debug)]
enum Feed {
    Sound(Playback),
    Stream(Stream),
}

/// A pushed stream at [`VOICE_RATE`], mono, resampled by linear interpolation; silent while
/// it has nothing (it never ends by itself).
#[derive(Debug, Default)]
struct Stream {
    queue: VoiceQueue,
    a: f32,
    b: f32,
    frac: f64,
}

impl Stream {
    fn mix_into(&mut self, out: &mut [[f32; 2]], step: f64, gains: [f32; 2]) {
        for o in out.iter_mut() {
            let t = self.frac as f32;
            let s = self.a + (self.b - self.a) * t;
            o[0] += s * gains[0];
            o[1] += s * gains[1];
            self.frac += step;
            while self.frac >= 1.0 {
                self.frac -= 1.0;
                self.a = self.b;
                self.b = self.queue.pop().unwrap_or(0.0);
            }
        }
    }
}

#[derive(Debug)]
struct Voice {
    feed: Feed,
    desc: Description,
    gain: f32,
    pitch: f32,
    position: Vec3,
    direction: Vec3,
    playing: bool,
}

/// The sources and how they are heard.
#[derive(Debug)]
pub struct Mixer {
    rate: u32,
    channel_volumes: [f32; NUM_CHANNELS],
    listener: Listener,
    voices: BTreeMap<Handle, Voice>,
    next: u32,
    reverb: Option<Reverb>,
    /// What the sources send to the reverb, and one source's mix (scratch), per chunk.
    sends: Vec<[f32; 2]>,
    scratch: Vec<[f32; 2]>,
}

impl Mixer {
    /// A mixer for a device playing `rate` frames a second.
    pub fn new(rate: u32) -> Mixer {
        Mixer {
            rate: rate.max(1),
            channel_volumes: [1.0; NUM_CHANNELS],
            listener: Listener::default(),
            voices: BTreeMap::new(),
            next: 1,
            reverb: None,
            sends: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The device rate it mixes at.
    pub fn sample_rate(&self) -> u32 {
        self.rate
    }

    /// A new stopped source for `sound` played as `desc` says, at `position` if 3D. None
    /// (with a warning) when [`MAX_SOURCES`] are alive.
    pub fn create_source(
        &mut self,
        sound: Rc<Sound>,
        desc: &Description,
        position: Option<Vec3>,
    ) -> Option<Handle> {
        let feed = Feed::Sound(Playback::new(sound, desc.looping));
        self.add_source(feed, desc, position)
    }

    /// A playing source that plays what [`Mixer::push_stream`] gives it (voice chat): mono at
    /// [`VOICE_RATE`], silent while it has nothing, until stopped. None at [`MAX_SOURCES`].
    pub fn create_stream(&mut self, desc: &Description, position: Option<Vec3>) -> Option<Handle> {
        let desc = Description { looping: false, ..desc.clone() };
        let h = self.add_source(Feed::Stream(Stream::default()), &desc, position)?;
        self.play(h);
        Some(h)
    }

    /// Queues samples (at [`VOICE_RATE`], mono) on a stream source; at most a second waits
    /// (older samples go). False for a handle that is not a live stream.
    pub fn push_stream(&mut self, h: Handle, samples: &[f32]) -> bool {
        match self.voices.get_mut(&h).map(|v| &mut v.feed) {
            Some(Feed::Stream(s)) => {
                s.queue.push(samples);
                true
            }
            _ => false,
        }
    }

    /// Samples waiting on a stream source (None for one that is not a live stream).
    pub fn stream_queued(&self, h: Handle) -> Option<usize> {
        match self.voices.get(&h).map(|v| &v.feed) {
            Some(Feed::Stream(s)) => Some(s.queue.len()),
            _ => None,
        }
    }

    fn add_source(&mut self, feed: Feed, desc: &Description, position: Option<Vec3>) -> Option<Handle> {
        if self.voices.len() >= MAX_SOURCES {
            let what = match &feed {
                Feed::Sound(p) => p.sound().name().to_string(),
                Feed::Stream(_) => "a voice stream".into(),
            };
            tracing::warn!(sound = what, "{MAX_SOURCES} sound sources are playing; this one is dropped");
            return None;
        }
        let desc = desc.sanitized();
        let handle = loop {
            let h = Handle(self.next);
            self.next = self.next.checked_add(1).unwrap_or(1);
            if !self.voices.contains_key(&h) {
                break h;
            }
        };
        let voice = Voice {
            feed,
            desc,
            gain: 1.0,
            pitch: 1.0,
            position: position.filter(|p| p.iter().all(|c| c.is_finite())).unwrap_or([0.0; 3]),
            direction: [0.0; 3],
            playing: false,
        };
        self.voices.insert(handle, voice);
        Some(handle)
    }

    /// Starts a created source. False for a handle that is not a live source.
    pub fn play(&mut self, h: Handle) -> bool {
        match self.voices.get_mut(&h) {
            Some(v) => {
                v.playing = true;
                true
            }
            None => false,
        }
    }

    /// Creates and starts a source: V12's `alxPlay(profile, position)`.
    pub fn play_sound(
        &mut self,
        sound: Rc<Sound>,
        desc: &Description,
        position: Option<Vec3>,
    ) -> Option<Handle> {
        let h = self.create_source(sound, desc, position)?;
        self.play(h);
        Some(h)
    }

    /// Stops and frees a source (its handle is dead after). False if it was not alive.
    pub fn stop(&mut self, h: Handle) -> bool {
        self.voices.remove(&h).is_some()
    }

    /// Stops every source.
    pub fn stop_all(&mut self) {
        self.voices.clear();
    }

    /// True while the source plays (a finished one-shot is freed and reads false).
    pub fn is_playing(&self, h: Handle) -> bool {
        self.voices.get(&h).is_some_and(|v| v.playing)
    }

    /// True while the handle names a source (playing or created and not yet played).
    pub fn is_alive(&self, h: Handle) -> bool {
        self.voices.contains_key(&h)
    }

    /// Sources alive.
    pub fn source_count(&self) -> usize {
        self.voices.len()
    }

    /// Sets a source's number: false for a dead handle. Junk (NaN, out of range) is clamped.
    pub fn set_param(&mut self, h: Handle, param: SourceParam, value: f32) -> bool {
        let Some(v) = self.voices.get_mut(&h) else { return false };
        let x = finite_or(value, 0.0);
        let d = &mut v.desc;
        match param {
            SourceParam::Gain => v.gain = x.clamp(0.0, 1.0),
            SourceParam::Pitch => v.pitch = if value.is_finite() { value.clamp(0.1, 4.0) } else { 1.0 },
            SourceParam::ReferenceDistance => d.reference_distance = x,
            SourceParam::MaxDistance => d.max_distance = x,
            SourceParam::ConeOuterGain => d.cone_outside_volume = x,
            SourceParam::ConeInnerAngle => d.cone_inside_angle = x,
            SourceParam::ConeOuterAngle => d.cone_outside_angle = x,
            SourceParam::Looping => {
                d.looping = x != 0.0;
                if let Feed::Sound(p) = &mut v.feed {
                    p.set_looping(d.looping);
                }
            }
        }
        *d = d.sanitized();
        true
    }

    /// A source's number as [`Mixer::set_param`] set it, or None for a dead handle.
    pub fn param(&self, h: Handle, param: SourceParam) -> Option<f32> {
        let v = self.voices.get(&h)?;
        let d = &v.desc;
        Some(match param {
            SourceParam::Gain => v.gain,
            SourceParam::Pitch => v.pitch,
            SourceParam::ReferenceDistance => d.reference_distance,
            SourceParam::MaxDistance => d.max_distance,
            SourceParam::ConeOuterGain => d.cone_outside_volume,
            SourceParam::ConeInnerAngle => d.cone_inside_angle,
            SourceParam::ConeOuterAngle => d.cone_outside_angle,
            SourceParam::Looping => f32::from(u8::from(d.looping)),
        })
    }

    /// Moves a source (3D sources are heard from there). False for a dead handle.
    pub fn set_position(&mut self, h: Handle, position: Vec3) -> bool {
        match self.voices.get_mut(&h) {
            Some(v) if position.iter().all(|c| c.is_finite()) => {
                v.position = position;
                true
            }
            Some(_) => true,
            None => false,
        }
    }

    /// Points a source's cone (zero: no direction, heard alike all round).
    pub fn set_direction(&mut self, h: Handle, direction: Vec3) -> bool {
        match self.voices.get_mut(&h) {
            Some(v) => {
                v.direction = if direction.iter().all(|c| c.is_finite()) { direction } else { [0.0; 3] };
                true
            }
            None => false,
        }
    }

    /// The sound a source plays (None for a dead handle or a stream).
    pub fn sound(&self, h: Handle) -> Option<&Rc<Sound>> {
        match &self.voices.get(&h)?.feed {
            Feed::Sound(p) => Some(p.sound()),
            Feed::Stream(_) => None,
        }
    }

    /// Sets the environment the sources sound in (V12's AudioEnvironment: its reverb), or none.
    pub fn set_environment(&mut self, env: Option<&Environment>) {
        self.reverb = env.map(|e| Reverb::new(e, self.rate));
    }

    /// The environment set, sanitised.
    pub fn environment(&self) -> Option<&Environment> {
        self.reverb.as_ref().map(Reverb::environment)
    }

    /// Sets a channel's volume (clamped to 0..=1). False for a channel that does not exist.
    pub fn set_channel_volume(&mut self, channel: usize, volume: f32) -> bool {
        match self.channel_volumes.get_mut(channel) {
            Some(c) => {
                *c = finite_or(volume, 1.0).clamp(0.0, 1.0);
                true
            }
            None => false,
        }
    }

    /// A channel's volume, or None for a channel that does not exist.
    pub fn channel_volume(&self, channel: usize) -> Option<f32> {
        self.channel_volumes.get(channel).copied()
    }

    /// The listener.
    pub fn listener(&self) -> &Listener {
        &self.listener
    }

    /// Places the listener (ignored where a number is not finite).
    pub fn set_listener(&mut self, position: Vec3, forward: Vec3, up: Vec3) {
        let ok = |v: &Vec3| v.iter().all(|c| c.is_finite());
        if ok(&position) && ok(&forward) && ok(&up) {
            self.listener.position = position;
            self.listener.forward = forward;
            self.listener.up = up;
        }
    }

    /// Sets the listener's gain (`alxListenerf(AL_GAIN, …)`), clamped to 0..=1.
    pub fn set_listener_gain(&mut self, gain: f32) {
        self.listener.gain = finite_or(gain, 1.0).clamp(0.0, 1.0);
    }

    /// Mixes the playing sources into `out` (overwritten), one stereo frame per element, and
    /// frees the sources that ended. With an environment, each source sends its
    /// `environment_level` of itself to the reverb, whose sound joins the mix.
    pub fn mix(&mut self, out: &mut [[f32; 2]]) {
        out.fill([0.0; 2]);
        let rate = f64::from(self.rate);
        let listener = self.listener;
        let volumes = self.channel_volumes;
        let wet = self.reverb.is_some();
        if wet {
            self.sends.clear();
            self.sends.resize(out.len(), [0.0; 2]);
        }
        let mut ended = Vec::new();
        for (h, v) in self.voices.iter_mut().filter(|(_, v)| v.playing) {
            let d = &v.desc;
            let base = d.volume * v.gain * volumes[d.channel] * listener.gain;
            let gains = if d.is_3d {
                let g = spatial_gains(&listener, v.position, v.direction, d);
                [g[0] * base, g[1] * base]
            } else {
                [base, base]
            };
            let send = if wet { d.environment_level } else { 0.0 };
            let target: &mut [[f32; 2]] = if send > 0.0 {
                self.scratch.clear();
                self.scratch.resize(out.len(), [0.0; 2]);
                &mut self.scratch
            } else {
                &mut *out
            };
            let alive = match &mut v.feed {
                Feed::Sound(p) => {
                    let step = f64::from(p.sound().sample_rate()) / rate * f64::from(v.pitch);
                    p.mix_into(target, step, gains)
                }
                Feed::Stream(s) => {
                    s.mix_into(target, f64::from(VOICE_RATE) / rate * f64::from(v.pitch), gains);
                    true
                }
            };
            if send > 0.0 {
                for ((o, w), x) in out.iter_mut().zip(self.sends.iter_mut()).zip(&self.scratch) {
                    o[0] += x[0];
                    o[1] += x[1];
                    w[0] += x[0] * send;
                    w[1] += x[1] * send;
                }
            }
            if !alive {
                ended.push(*h);
            }
        }
        for h in ended {
            self.voices.remove(&h);
        }
        if let Some(r) = &mut self.reverb {
            r.process(&self.sends, out);
        }
    }
}
