//! Voice chat: a speech codec (Opus, through the pure-Rust `opus-rs` port of libopus), inputs
//! that stand for a microphone, and the capture that cuts what an input hears into encoded
//! frames in simulated time.
//!
//! Voice is mono at [`VOICE_RATE`], in frames of [`FRAME_MS`]; each frame is one Opus packet of
//! at most [`MAX_PACKET_BYTES`]. An input is a WAV (or Ogg) file read as if spoken
//! ([`WavInput`], `--audio-input FILE.wav`), or the sound card's microphone (`CpalInput`, with
//! the `cpal` feature). Nothing a peer sends can panic the decoder: a packet that is empty or
//! too long is refused, and one the decoder chokes on is an error (the decoder starts afresh).

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::decode::{Decoder, Sound};
use crate::error::AudioError;

/// Voice's sample rate (Opus wideband).
pub const VOICE_RATE: u32 = 16_000;
/// Milliseconds of speech in one packet.
pub const FRAME_MS: u32 = 20;
/// Samples in one packet.
pub const FRAME_SAMPLES: usize = (VOICE_RATE * FRAME_MS / 1000) as usize;
/// The encoder's bitrate, bits per second (constant: each packet is ~40 bytes).
pub const VOICE_BITRATE: u32 = 16_000;
/// The longest packet accepted from anyone (the encoder writes far less).
pub const MAX_PACKET_BYTES: usize = 160;
/// The longest file a [`WavInput`] reads, seconds.
pub const MAX_INPUT_SECONDS: u32 = 120;
/// The most samples one decoded packet may hold (Opus's longest frame, 120 ms).
const MAX_DECODED: usize = (VOICE_RATE as usize) * 120 / 1000;

/// Encodes 20 ms frames of mono speech into Opus packets.
pub struct VoiceEncoder {
    enc: opus_rs::OpusEncoder,
    out: Vec<u8>,
}

impl std::fmt::Debug for VoiceEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoiceEncoder").finish_non_exhaustive()
    }
}

impl VoiceEncoder {
    /// An encoder at [`VOICE_RATE`], VoIP mode, [`VOICE_BITRATE`] constant bitrate.
    pub fn new() -> Result<VoiceEncoder, AudioError> {
        let mut enc = opus_rs::OpusEncoder::new(VOICE_RATE as i32, 1, opus_rs::Application::Voip)
            .map_err(|e| AudioError::Voice(format!("opus encoder: {e}")))?;
        enc.bitrate_bps = VOICE_BITRATE as i32;
        enc.use_cbr = true;
        Ok(VoiceEncoder { enc, out: vec![0; MAX_PACKET_BYTES] })
    }

    /// One packet for [`FRAME_SAMPLES`] samples in -1..=1 (junk is silence).
    pub fn encode(&mut self, frame: &[f32]) -> Result<Vec<u8>, AudioError> {
        if frame.len() != FRAME_SAMPLES {
            return Err(AudioError::Voice(format!(
                "a voice frame is {FRAME_SAMPLES} samples, not {}",
                frame.len()
            )));
        }
        let clean: Vec<f32> =
            frame.iter().map(|s| if s.is_finite() { s.clamp(-1.0, 1.0) } else { 0.0 }).collect();
        let enc = &mut self.enc;
        let out = &mut self.out;
        let n = catch_unwind(AssertUnwindSafe(|| enc.encode(&clean, FRAME_SAMPLES, out)))
            .map_err(|_| AudioError::Voice("the opus encoder failed".into()))?
            .map_err(|e| AudioError::Voice(format!("opus encoder: {e}")))?;
        Ok(self.out[..n.min(MAX_PACKET_BYTES)].to_vec())
    }
}

/// Decodes one speaker's Opus packets (each speaker needs its own: Opus keeps state).
pub struct VoiceDecoder {
    dec: opus_rs::OpusDecoder,
    out: Vec<f32>,
}

impl std::fmt::Debug for VoiceDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VoiceDecoder").finish_non_exhaustive()
    }
}

fn new_decoder() -> Result<opus_rs::OpusDecoder, AudioError> {
    opus_rs::OpusDecoder::new(VOICE_RATE as i32, 1)
        .map_err(|e| AudioError::Voice(format!("opus decoder: {e}")))
}

impl VoiceDecoder {
    /// A decoder at [`VOICE_RATE`], mono.
    pub fn new() -> Result<VoiceDecoder, AudioError> {
        Ok(VoiceDecoder { dec: new_decoder()?, out: vec![0.0; MAX_DECODED] })
    }

    /// The samples in one packet (at [`VOICE_RATE`], in -1..=1). A packet that is empty, over
    /// [`MAX_PACKET_BYTES`] or not Opus is an error, never a panic.
    pub fn decode(&mut self, packet: &[u8]) -> Result<&[f32], AudioError> {
        if packet.len() < 2 || packet.len() > MAX_PACKET_BYTES {
            return Err(AudioError::Voice(format!(
                "a voice packet of {} bytes (2 to {MAX_PACKET_BYTES})",
                packet.len()
            )));
        }
        let dec = &mut self.dec;
        let out = &mut self.out;
        match catch_unwind(AssertUnwindSafe(|| dec.decode(packet, MAX_DECODED, out))) {
            Ok(Ok(n)) => {
                let n = n.min(MAX_DECODED);
                for s in &mut self.out[..n] {
                    *s = if s.is_finite() { s.clamp(-1.0, 1.0) } else { 0.0 };
                }
                Ok(&self.out[..n])
            }
            Ok(Err(e)) => Err(AudioError::Voice(format!("a bad voice packet: {e}"))),
            Err(_) => {
                // The decoder's state is suspect after a panic: start afresh.
                self.dec = new_decoder()?;
                Err(AudioError::Voice("a bad voice packet (the decoder choked on it)".into()))
            }
        }
    }
}

/// A microphone, or what stands for one: mono samples at [`VOICE_RATE`].
pub trait AudioInput: std::fmt::Debug {
    /// What it is, for logs.
    fn name(&self) -> String;
    /// Opens it (push-to-talk pressed): what it held before is dropped.
    fn start(&mut self);
    /// Closes it (released).
    fn stop(&mut self);
    /// Appends up to `n` samples heard since the last read; fewer when it has no more.
    fn read(&mut self, n: usize, out: &mut Vec<f32>);
}

/// A sound file spoken into the microphone: each time talking starts, the file goes on from
/// where it stopped; it is silent (gives nothing) once it has all been said.
#[derive(Debug)]
pub struct WavInput {
    name: String,
    samples: Vec<f32>,
    at: usize,
}

impl WavInput {
    /// Reads a WAV or Ogg Vorbis file (its first [`MAX_INPUT_SECONDS`]), mixed to mono and
    /// resampled to [`VOICE_RATE`].
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<WavInput, AudioError> {
        let sound = Sound::from_bytes(bytes, name)?;
        let ch = usize::from(sound.channels()).max(1);
        let rate = sound.sample_rate();
        let cap = rate as usize * MAX_INPUT_SECONDS as usize * ch;
        let mut dec = Decoder::open(&sound)?;
        let mut all: Vec<f32> = Vec::new();
        while all.len() < cap {
            match dec.fill() {
                Ok(true) => all.extend_from_slice(dec.samples()),
                Ok(false) => break,
                Err(why) => {
                    tracing::warn!(input = name, "{why}; the input ends here");
                    break;
                }
            }
        }
        all.truncate(cap);
        let mono: Vec<f32> = all.chunks_exact(ch).map(|f| f.iter().sum::<f32>() / ch as f32).collect();
        Ok(WavInput { name: name.to_string(), samples: resample(&mono, rate, VOICE_RATE), at: 0 })
    }

    /// Reads the file at `path`.
    pub fn open(path: &std::path::Path) -> Result<WavInput, AudioError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| AudioError::Device(format!("{name}: {e}")))?;
        WavInput::from_bytes(&bytes, &name)
    }

    /// Samples not yet said.
    pub fn remaining(&self) -> usize {
        self.samples.len() - self.at
    }
}

impl AudioInput for WavInput {
    fn name(&self) -> String {
        format!("file {}", self.name)
    }
    fn start(&mut self) {}
    fn stop(&mut self) {}
    fn read(&mut self, n: usize, out: &mut Vec<f32>) {
        let end = (self.at + n).min(self.samples.len());
        out.extend_from_slice(&self.samples[self.at..end]);
        self.at = end;
    }
}

/// Linear resampling of mono samples from `from` to `to` Hz.
pub fn resample(src: &[f32], from: u32, to: u32) -> Vec<f32> {
    if from == to || src.is_empty() {
        return src.to_vec();
    }
    let n = (src.len() as u64 * u64::from(to) / u64::from(from.max(1))) as usize;
    let step = f64::from(from) / f64::from(to);
    (0..n)
        .map(|i| {
            let x = i as f64 * step;
            let j = x as usize;
            let t = (x - j as f64) as f32;
            let a = src.get(j).copied().unwrap_or(0.0);
            let b = src.get(j + 1).copied().unwrap_or(a);
            a + (b - a) * t
        })
        .collect()
}

/// Push-to-talk over an input: while capturing, what the input hears is cut into frames and
/// encoded as simulated time passes ([`VoiceCapture::advance`]), so a file input gives the same
/// packets at the same moments in every run.
#[derive(Debug)]
pub struct VoiceCapture {
    input: Box<dyn AudioInput>,
    encoder: VoiceEncoder,
    pending: Vec<f32>,
    capturing: bool,
    elapsed_ms: u64,
    taken: u64,
    read: Vec<f32>,
}

impl VoiceCapture {
    /// Capture from `input` (not capturing until [`VoiceCapture::start`]).
    pub fn new(input: Box<dyn AudioInput>) -> Result<VoiceCapture, AudioError> {
        Ok(VoiceCapture {
            input,
            encoder: VoiceEncoder::new()?,
            pending: Vec::new(),
            capturing: false,
            elapsed_ms: 0,
            taken: 0,
            read: Vec::new(),
        })
    }

    /// The input's name.
    pub fn input_name(&self) -> String {
        self.input.name()
    }

    /// True between start and stop.
    pub fn is_capturing(&self) -> bool {
        self.capturing
    }

    /// Push-to-talk pressed: the input opens.
    pub fn start(&mut self) {
        if !self.capturing {
            self.capturing = true;
            self.pending.clear();
            self.input.start();
        }
    }

    /// Released: the input closes; what is left of a frame is sent padded with silence.
    pub fn stop(&mut self) -> Option<Vec<u8>> {
        if !self.capturing {
            return None;
        }
        self.capturing = false;
        self.input.stop();
        if self.pending.is_empty() {
            return None;
        }
        self.pending.resize(FRAME_SAMPLES, 0.0);
        let frame = std::mem::take(&mut self.pending);
        self.encode(&frame)
    }

    fn encode(&mut self, frame: &[f32]) -> Option<Vec<u8>> {
        match self.encoder.encode(frame) {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::warn!("{e}; a voice frame is lost");
                None
            }
        }
    }

    /// `ms` more milliseconds: the packets of the whole frames heard meanwhile (none while
    /// not capturing). At most one second is read at once.
    pub fn advance(&mut self, ms: u64) -> Vec<Vec<u8>> {
        self.elapsed_ms += ms;
        let due = self.elapsed_ms * u64::from(VOICE_RATE) / 1000;
        let want = (due - self.taken.min(due)).min(u64::from(VOICE_RATE)) as usize;
        self.taken = due;
        let mut packets = Vec::new();
        if !self.capturing {
            return packets;
        }
        self.read.clear();
        self.input.read(want, &mut self.read);
        let heard = std::mem::take(&mut self.read);
        self.pending.extend_from_slice(&heard);
        self.read = heard;
        while self.pending.len() >= FRAME_SAMPLES {
            let frame: Vec<f32> = self.pending.drain(..FRAME_SAMPLES).collect();
            packets.extend(self.encode(&frame));
        }
        packets
    }
}

/// Samples waiting to be played for one speaker, at [`VOICE_RATE`]; at most a second (the
/// oldest go first when a speaker sends faster than it is played).
#[derive(Debug, Default)]
pub(crate) struct VoiceQueue {
    samples: VecDeque<f32>,
}

impl VoiceQueue {
    pub(crate) fn push(&mut self, s: &[f32]) {
        self.samples.extend(s.iter().map(|x| if x.is_finite() { x.clamp(-1.0, 1.0) } else { 0.0 }));
        let over = self.samples.len().saturating_sub(VOICE_RATE as usize);
        self.samples.drain(..over);
    }
    pub(crate) fn pop(&mut self) -> Option<f32> {
        self.samples.pop_front()
    }
    pub(crate) fn len(&self) -> usize {
        self.samples.len()
    }
}

#[cfg(feature = "cpal")]
pub use self::mic::CpalInput;

#[cfg(feature = "cpal")]
mod mic {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};

    use super::{AudioInput, VOICE_RATE, resample};
    use crate::error::AudioError;

    /// The default input device (the microphone) through cpal: f32 samples at the card's rate,
    /// mixed to mono, queued by the card's callback (at most a second), resampled on read.
    pub struct CpalInput {
        name: String,
        rate: u32,
        queue: Arc<Mutex<VecDeque<f32>>>,
        _stream: cpal::Stream,
    }

    impl std::fmt::Debug for CpalInput {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("CpalInput").field("name", &self.name).field("rate", &self.rate).finish()
        }
    }

    impl CpalInput {
        /// Opens the default input device at its default rate.
        pub fn open() -> Result<CpalInput, AudioError> {
            let host = cpal::default_host();
            let device =
                host.default_input_device().ok_or_else(|| AudioError::Device("no input device".into()))?;
            let name = device.name().unwrap_or_else(|_| "microphone".into());
            let config = device.default_input_config().map_err(|e| AudioError::Device(e.to_string()))?;
            if config.sample_format() != cpal::SampleFormat::F32 {
                return Err(AudioError::Device(format!(
                    "{name}: {:?} input is not supported",
                    config.sample_format()
                )));
            }
            let channels = usize::from(config.channels()).max(1);
            let rate = config.sample_rate().0;
            let queue: Arc<Mutex<VecDeque<f32>>> = Arc::new(Mutex::new(VecDeque::new()));
            let q = queue.clone();
            let cap = rate as usize;
            let stream = device
                .build_input_stream(
                    &config.into(),
                    move |data: &[f32], _| {
                        let mut q = match q.lock() {
                            Ok(q) => q,
                            Err(p) => p.into_inner(),
                        };
                        q.extend(data.chunks(channels).map(|f| f.iter().sum::<f32>() / channels as f32));
                        let over = q.len().saturating_sub(cap);
                        q.drain(..over);
                    },
                    |e| tracing::warn!("microphone: {e}"),
                    None,
                )
                .map_err(|e| AudioError::Device(format!("{name}: {e}")))?;
            stream.play().map_err(|e| AudioError::Device(format!("{name}: {e}")))?;
            Ok(CpalInput { name, rate, queue, _stream: stream })
        }

        fn drain(&self) -> Vec<f32> {
            let mut q = match self.queue.lock() {
                Ok(q) => q,
                Err(p) => p.into_inner(),
            };
            q.drain(..).collect()
        }
    }

    impl AudioInput for CpalInput {
        fn name(&self) -> String {
            format!("microphone {}", self.name)
        }
        fn start(&mut self) {
            self.drain();
        }
        fn stop(&mut self) {}
        fn read(&mut self, n: usize, out: &mut Vec<f32>) {
            let heard = resample(&self.drain(), self.rate, VOICE_RATE);
            out.extend_from_slice(&heard[..heard.len().min(n.max(VOICE_RATE as usize / 10))]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(hz: f32, n: usize) -> Vec<f32> {
        (0..n).map(|i| (i as f32 * hz * std::f32::consts::TAU / VOICE_RATE as f32).sin() * 0.5).collect()
    }

    #[test]
    fn a_tone_survives_the_codec() {
        let mut enc = VoiceEncoder::new().unwrap();
        let mut dec = VoiceDecoder::new().unwrap();
        let input = tone(440.0, FRAME_SAMPLES * 25);
        let mut energy = 0.0f64;
        let mut bytes = 0;
        for f in input.chunks_exact(FRAME_SAMPLES) {
            let p = enc.encode(f).unwrap();
            assert!(p.len() <= MAX_PACKET_BYTES);
            bytes += p.len();
            let pcm = dec.decode(&p).unwrap();
            assert_eq!(pcm.len(), FRAME_SAMPLES);
            energy += pcm.iter().map(|s| f64::from(s * s)).sum::<f64>();
        }
        // 0.5 s at 16 kbit/s is about 1000 bytes.
        assert!((500..=1_500).contains(&bytes), "{bytes} bytes");
        let rms = (energy / (FRAME_SAMPLES * 25) as f64).sqrt();
        assert!(rms > 0.2, "rms {rms}");
    }

    /// docs/PERFORMANCE.md's voice figure: 10 s of a speech-like signal (a voiced tone whose
    /// pitch and loudness move, with noise), bytes of Opus per second.
    #[test]
    fn speech_costs_about_two_kilobytes_a_second() {
        let mut enc = VoiceEncoder::new().unwrap();
        let mut x: u32 = 7;
        let mut phase = 0.0f32;
        let n = VOICE_RATE as usize * 10;
        let pcm: Vec<f32> = (0..n)
            .map(|i| {
                let t = i as f32 / VOICE_RATE as f32;
                phase += (140.0 + 40.0 * (t * 3.0).sin()) / VOICE_RATE as f32;
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let noise = (x as f32 / u32::MAX as f32 - 0.5) * 0.05;
                let env = 0.5 + 0.5 * (t * 4.0).sin().abs();
                ((phase * std::f32::consts::TAU).sin() * 0.4
                    + (phase * 3.0 * std::f32::consts::TAU).sin() * 0.1)
                    * env
                    + noise
            })
            .collect();
        let bytes: usize = pcm.chunks_exact(FRAME_SAMPLES).map(|f| enc.encode(f).unwrap().len()).sum();
        let per_s = bytes / 10;
        println!("voice: {per_s} bytes/s of Opus ({} packets/s)", 1000 / FRAME_MS);
        assert!(per_s <= (VOICE_BITRATE / 8) as usize + 100, "{per_s} B/s");
    }

    #[test]
    fn junk_packets_are_errors_not_panics() {
        let mut dec = VoiceDecoder::new().unwrap();
        assert!(dec.decode(&[]).is_err());
        assert!(dec.decode(&[0; MAX_PACKET_BYTES + 1]).is_err());
        let mut x: u32 = 1;
        for len in 2..MAX_PACKET_BYTES {
            let p: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            let _ = dec.decode(&p);
        }
        assert!(VoiceEncoder::new().unwrap().encode(&[0.0; 10]).is_err());
    }

    #[test]
    fn capture_cuts_frames_in_simulated_time() {
        let input = WavInput { name: "t".into(), samples: tone(300.0, VOICE_RATE as usize), at: 0 };
        let mut cap = VoiceCapture::new(Box::new(input)).unwrap();
        assert!(cap.advance(100).is_empty(), "not capturing yet");
        cap.start();
        let n: usize = (0..10).map(|_| cap.advance(33).len()).sum();
        // 330 ms: 16 whole frames.
        assert_eq!(n, 16);
        assert!(cap.stop().is_some(), "the rest of a frame is sent");
        assert!(cap.advance(1000).is_empty());
    }
}
