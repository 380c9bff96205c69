#![doc = include_str!("../README.md")]

mod decode;
mod device;
mod error;
mod mixer;
mod playback;
mod reverb;
mod spatial;
mod voice;

use std::path::PathBuf;
use std::rc::Rc;

pub use decode::{Format, MAX_SOURCE_CHANNELS, RATES, STREAM_ABOVE_SECONDS, Sound};
#[cfg(feature = "cpal")]
pub use device::CpalDevice;
pub use device::{AudioDevice, CAPTURE_RATE, CaptureDevice, NullDevice, capture_spec, to_i16};
pub use error::AudioError;
pub use mixer::{Description, Handle, MAX_SOURCES, Mixer, NUM_CHANNELS, SourceParam, channel};
pub use reverb::{Environment, millibels};
pub use spatial::{Listener, Vec3, attenuation, cone_gain, normalized, pan_gains};
use v12_resource::ResourceManager;
#[cfg(feature = "cpal")]
pub use voice::CpalInput;
pub use voice::{
    AudioInput, FRAME_MS, FRAME_SAMPLES, MAX_INPUT_SECONDS, MAX_PACKET_BYTES, VOICE_BITRATE, VOICE_RATE,
    VoiceCapture, VoiceDecoder, VoiceEncoder, WavInput, resample,
};

/// Which device [`Audio::open`] opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Nothing is heard (a dedicated server, CI).
    Null,
    /// The sound card (with the `cpal` feature; without it, or when the card fails to open,
    /// the null device with a warning).
    Card,
    /// A 16-bit stereo 44.1 kHz WAV file, mixed in simulated time.
    Capture(PathBuf),
    /// The same kept in memory ([`AudioDevice::captured`]).
    Memory,
}

/// Frames mixed at once at most.
const MIX_CHUNK: usize = 4096;

/// A device and its mixer, advanced in (simulated or real) milliseconds.
#[derive(Debug)]
pub struct Audio {
    device: Box<dyn AudioDevice>,
    mixer: Mixer,
    elapsed_ms: u64,
    mixed: u64,
    buf: Vec<[f32; 2]>,
    failed: bool,
}

impl Audio {
    /// Opens the chosen device; one that fails to open is the null device, with a warning.
    pub fn open(choice: &DeviceChoice) -> Audio {
        let device: Box<dyn AudioDevice> = match choice {
            DeviceChoice::Null => Box::new(NullDevice::new()),
            DeviceChoice::Memory => Box::new(CaptureDevice::in_memory()),
            DeviceChoice::Capture(path) => match CaptureDevice::to_file(path) {
                Ok(d) => Box::new(d),
                Err(e) => {
                    tracing::warn!("{e}; no sound is captured");
                    Box::new(NullDevice::new())
                }
            },
            DeviceChoice::Card => open_card(),
        };
        tracing::info!(device = device.name(), rate = device.sample_rate(), "sound device open");
        Audio::with_device(device)
    }

    /// A mixer over the given device.
    pub fn with_device(device: Box<dyn AudioDevice>) -> Audio {
        let mixer = Mixer::new(device.sample_rate());
        Audio { device, mixer, elapsed_ms: 0, mixed: 0, buf: Vec::new(), failed: false }
    }

    /// The mixer (sources, channels, listener).
    pub fn mixer(&self) -> &Mixer {
        &self.mixer
    }

    /// The mixer, to change.
    pub fn mixer_mut(&mut self) -> &mut Mixer {
        &mut self.mixer
    }

    /// The device.
    pub fn device(&self) -> &dyn AudioDevice {
        self.device.as_ref()
    }

    /// Milliseconds advanced so far.
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms
    }

    /// Mixes `ms` more milliseconds into the device: exactly `rate` frames a second however
    /// the time is cut, so a capture depends only on the simulated time, not on the frames.
    pub fn advance(&mut self, ms: u32) {
        self.elapsed_ms += u64::from(ms);
        let due = self.elapsed_ms * u64::from(self.mixer.sample_rate()) / 1000;
        while self.mixed < due {
            let n = (due - self.mixed).min(MIX_CHUNK as u64) as usize;
            self.buf.resize(n, [0.0; 2]);
            self.mixer.mix(&mut self.buf);
            self.mixed += n as u64;
            if !self.failed
                && let Err(e) = self.device.write(&self.buf)
            {
                tracing::warn!("{e}; the sound device is dropped");
                self.failed = true;
            }
        }
    }

    /// Flushes the device (closes a capture file).
    pub fn finish(&mut self) -> Result<(), AudioError> {
        self.device.finish()
    }
}

#[cfg(feature = "cpal")]
fn open_card() -> Box<dyn AudioDevice> {
    match device::CpalDevice::open() {
        Ok(d) => Box::new(d),
        Err(e) => {
            tracing::warn!("{e}; sound is off (the null device)");
            Box::new(NullDevice::new())
        }
    }
}

#[cfg(not(feature = "cpal"))]
fn open_card() -> Box<dyn AudioDevice> {
    tracing::info!("built without the `cpal` feature: sound is off (the null device)");
    Box::new(NullDevice::new())
}

/// Registers the `.wav` and `.ogg` loaders that make a [`Sound`] through the resource
/// manager (so sounds come from mods and volumes, one instance per path).
pub fn register_sound_loaders(resources: &mut ResourceManager) {
    for ext in ["wav", "ogg"] {
        resources.register_loader::<Sound>(ext, |bytes, path| {
            Sound::from_bytes(bytes, path).map_err(|e| e.to_string())
        });
    }
}

/// The sound at `path` through the resource manager (loaded once and shared while alive).
/// The loaders must be registered ([`register_sound_loaders`]).
pub fn load_sound(resources: &ResourceManager, path: &str) -> Result<Rc<Sound>, AudioError> {
    resources.load::<Sound>(path).map(|r| r.to_rc()).map_err(|e| AudioError::Resource(e.to_string()))
}
