//! Sound devices: where mixed frames go. The null device drops them (dedicated servers, CI,
//! a machine without a sound card); the capture device writes them to a 16-bit stereo
//! 44.1 kHz WAV file (or keeps them in memory), mixed in simulated time, which is how tests
//! hear; the cpal device (feature `cpal`) plays them on the sound card.

use std::path::{Path, PathBuf};

use crate::error::AudioError;

/// The capture device's rate (and the null device's).
pub const CAPTURE_RATE: u32 = 44_100;

/// A sink for mixed stereo frames.
pub trait AudioDevice: std::fmt::Debug {
    /// What it is, for logs (`null`, `capture FILE`, the card's name).
    fn name(&self) -> String;
    /// Frames per second it plays.
    fn sample_rate(&self) -> u32;
    /// Takes the next frames, left and right in -1..=1 (louder is clipped).
    fn write(&mut self, frames: &[[f32; 2]]) -> Result<(), AudioError>;
    /// Flushes what it holds (the capture file's header and data). Writing after is an error.
    fn finish(&mut self) -> Result<(), AudioError> {
        Ok(())
    }
    /// The frames captured so far, for a device that keeps them in memory.
    fn captured(&self) -> Option<&[[i16; 2]]> {
        None
    }
    /// Frames written since it opened.
    fn frames_written(&self) -> u64;
}

/// Converts a mixed sample to 16 bits, clipping.
pub fn to_i16(s: f32) -> i16 {
    if s.is_finite() { (s.clamp(-1.0, 1.0) * 32767.0).round() as i16 } else { 0 }
}

/// Drops everything, at [`CAPTURE_RATE`].
#[derive(Debug, Default)]
pub struct NullDevice {
    frames: u64,
}

impl NullDevice {
    /// A new null device.
    pub fn new() -> NullDevice {
        NullDevice::default()
    }
}

impl AudioDevice for NullDevice {
    fn name(&self) -> String {
        "null".into()
    }
    fn sample_rate(&self) -> u32 {
        CAPTURE_RATE
    }
    fn write(&mut self, frames: &[[f32; 2]]) -> Result<(), AudioError> {
        self.frames += frames.len() as u64;
        Ok(())
    }
    fn frames_written(&self) -> u64 {
        self.frames
    }
}

type WavFile = hound::WavWriter<std::io::BufWriter<std::fs::File>>;

/// Writes 16-bit stereo 44.1 kHz: to a WAV file, or kept in memory.
pub struct CaptureDevice {
    path: Option<PathBuf>,
    file: Option<WavFile>,
    memory: Vec<[i16; 2]>,
    frames: u64,
    finished: bool,
}

/// The capture file's format.
pub fn capture_spec() -> hound::WavSpec {
    hound::WavSpec {
        channels: 2,
        sample_rate: CAPTURE_RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    }
}

impl std::fmt::Debug for CaptureDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureDevice").field("path", &self.path).field("frames", &self.frames).finish()
    }
}

impl CaptureDevice {
    /// Captures into a WAV file at `path` (created or truncated now).
    pub fn to_file(path: &Path) -> Result<CaptureDevice, AudioError> {
        let file = hound::WavWriter::create(path, capture_spec())
            .map_err(|e| AudioError::Device(format!("{}: {e}", path.display())))?;
        Ok(CaptureDevice {
            path: Some(path.to_path_buf()),
            file: Some(file),
            memory: Vec::new(),
            frames: 0,
            finished: false,
        })
    }

    /// Captures into memory ([`AudioDevice::captured`]).
    pub fn in_memory() -> CaptureDevice {
        CaptureDevice { path: None, file: None, memory: Vec::new(), frames: 0, finished: false }
    }
}

impl AudioDevice for CaptureDevice {
    fn name(&self) -> String {
        match &self.path {
            Some(p) => format!("capture {}", p.display()),
            None => "capture (memory)".into(),
        }
    }
    fn sample_rate(&self) -> u32 {
        CAPTURE_RATE
    }
    fn write(&mut self, frames: &[[f32; 2]]) -> Result<(), AudioError> {
        if self.finished {
            return Err(AudioError::Device(format!("{}: written after it was finished", self.name())));
        }
        self.frames += frames.len() as u64;
        match &mut self.file {
            Some(w) => {
                for f in frames {
                    for s in f {
                        w.write_sample(to_i16(*s)).map_err(|e| AudioError::Device(e.to_string()))?;
                    }
                }
            }
            None => self.memory.extend(frames.iter().map(|f| [to_i16(f[0]), to_i16(f[1])])),
        }
        Ok(())
    }
    fn finish(&mut self) -> Result<(), AudioError> {
        self.finished = true;
        if let Some(w) = self.file.take() {
            w.finalize().map_err(|e| AudioError::Device(e.to_string()))?;
        }
        Ok(())
    }
    fn captured(&self) -> Option<&[[i16; 2]]> {
        self.path.is_none().then_some(&self.memory[..])
    }
    fn frames_written(&self) -> u64 {
        self.frames
    }
}

impl Drop for CaptureDevice {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            tracing::warn!("{e}");
        }
    }
}

#[cfg(feature = "cpal")]
pub use self::card::CpalDevice;

#[cfg(feature = "cpal")]
mod card {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};

    use super::AudioDevice;
    use crate::error::AudioError;

    /// The most the queue to the card holds, in milliseconds: a host that mixes ahead of the
    /// card loses its oldest frames rather than grow the queue.
    const QUEUE_MS: u64 = 250;

    /// The default output device through cpal. The mixer writes into a queue that the card's
    /// callback drains (silence when it runs dry).
    pub struct CpalDevice {
        name: String,
        rate: u32,
        queue: Arc<Mutex<VecDeque<[f32; 2]>>>,
        _stream: cpal::Stream,
        frames: u64,
    }

    impl std::fmt::Debug for CpalDevice {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("CpalDevice").field("name", &self.name).field("rate", &self.rate).finish()
        }
    }

    impl CpalDevice {
        /// Opens the default output device at its default rate (f32 samples).
        pub fn open() -> Result<CpalDevice, AudioError> {
            let host = cpal::default_host();
            let device =
                host.default_output_device().ok_or_else(|| AudioError::Device("no output device".into()))?;
            let name = device.name().unwrap_or_else(|_| "sound card".into());
            let config = device.default_output_config().map_err(|e| AudioError::Device(e.to_string()))?;
            if config.sample_format() != cpal::SampleFormat::F32 {
                return Err(AudioError::Device(format!(
                    "{name}: {:?} output is not supported",
                    config.sample_format()
                )));
            }
            let channels = usize::from(config.channels()).max(1);
            let rate = config.sample_rate().0;
            let queue: Arc<Mutex<VecDeque<[f32; 2]>>> = Arc::new(Mutex::new(VecDeque::new()));
            let q = queue.clone();
            let stream = device
                .build_output_stream(
                    &config.into(),
                    move |data: &mut [f32], _| {
                        let mut q = match q.lock() {
                            Ok(q) => q,
                            Err(p) => p.into_inner(),
                        };
                        for frame in data.chunks_mut(channels) {
                            let f = q.pop_front().unwrap_or([0.0; 2]);
                            for (i, s) in frame.iter_mut().enumerate() {
                                *s = if channels == 1 {
                                    (f[0] + f[1]) * 0.5
                                } else {
                                    f.get(i).copied().unwrap_or(0.0)
                                };
                            }
                        }
                    },
                    |e| tracing::warn!("sound card: {e}"),
                    None,
                )
                .map_err(|e| AudioError::Device(format!("{name}: {e}")))?;
            stream.play().map_err(|e| AudioError::Device(format!("{name}: {e}")))?;
            Ok(CpalDevice { name, rate, queue, _stream: stream, frames: 0 })
        }
    }

    impl AudioDevice for CpalDevice {
        fn name(&self) -> String {
            self.name.clone()
        }
        fn sample_rate(&self) -> u32 {
            self.rate
        }
        fn write(&mut self, frames: &[[f32; 2]]) -> Result<(), AudioError> {
            self.frames += frames.len() as u64;
            let cap = (u64::from(self.rate) * QUEUE_MS / 1000) as usize;
            let mut q = match self.queue.lock() {
                Ok(q) => q,
                Err(p) => p.into_inner(),
            };
            q.extend(frames.iter().map(|f| [f[0].clamp(-1.0, 1.0), f[1].clamp(-1.0, 1.0)]));
            let over = q.len().saturating_sub(cap);
            q.drain(..over);
            Ok(())
        }
        fn frames_written(&self) -> u64 {
            self.frames
        }
    }
}
