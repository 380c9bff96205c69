//! Decoders: WAV (hound) and Ogg Vorbis (lewton), read from bytes that the resource manager
//! gives. A short sound is decoded once into memory and shared by every voice that plays it;
//! a long one (over [`STREAM_ABOVE_SECONDS`]) keeps its compressed bytes and each voice
//! decodes it as it plays (streaming), so a music track never sits decoded in memory.
//!
//! Nothing here panics on bad bytes: a header that does not parse is an [`AudioError`], and
//! data that ends early or goes bad while playing ends the sound there with a warning.

use std::io::Cursor;
use std::rc::Rc;

use lewton::inside_ogg::OggStreamReader;

use crate::error::AudioError;

/// Sounds longer than this many seconds are streamed rather than decoded whole.
pub const STREAM_ABOVE_SECONDS: u64 = 10;
/// The sample rates a sound may declare.
pub const RATES: std::ops::RangeInclusive<u32> = 1_000..=192_000;
/// The most channels a sound may declare (only the first two are played).
pub const MAX_SOURCE_CHANNELS: u16 = 8;

/// The container a sound came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// RIFF WAVE, 8 to 32-bit integer or 32-bit float PCM.
    Wav,
    /// Ogg Vorbis.
    OggVorbis,
}

#[derive(Debug)]
enum Data {
    /// Interleaved samples, `channels` per frame, in -1..=1.
    Decoded(Rc<[f32]>),
    /// The file's bytes, decoded by each voice as it plays.
    Streamed(Rc<[u8]>),
}

/// A sound file, checked and ready to play: decoded, or kept for streaming.
#[derive(Debug)]
pub struct Sound {
    name: String,
    format: Format,
    rate: u32,
    channels: u16,
    frames: u64,
    data: Data,
}

impl Sound {
    /// Reads a WAV or Ogg Vorbis file from its bytes (the format is told by its first bytes,
    /// not the name, which only names the sound in errors and warnings).
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Sound, AudioError> {
        let format = if bytes.starts_with(b"RIFF") {
            Format::Wav
        } else if bytes.starts_with(b"OggS") {
            Format::OggVorbis
        } else {
            return Err(AudioError::decode(name, "neither a WAV nor an Ogg Vorbis file"));
        };
        let bytes: Rc<[u8]> = Rc::from(bytes);
        let (rate, src_channels, frames) = match format {
            Format::Wav => {
                let r = wav_reader(&bytes, name)?;
                let spec = r.spec();
                (spec.sample_rate, spec.channels, u64::from(r.duration()))
            }
            Format::OggVorbis => {
                let r = ogg_reader(&bytes, name)?;
                let h = &r.ident_hdr;
                (h.audio_sample_rate, u16::from(h.audio_channels), ogg_frames(&bytes).unwrap_or(0))
            }
        };
        if !RATES.contains(&rate) {
            return Err(AudioError::decode(name, format!("sample rate {rate} Hz is not supported")));
        }
        if src_channels == 0 || src_channels > MAX_SOURCE_CHANNELS {
            return Err(AudioError::decode(name, format!("{src_channels} channels is not supported")));
        }
        let channels = src_channels.min(2);
        let streamed = frames == 0 || frames > u64::from(rate) * STREAM_ABOVE_SECONDS;
        let mut sound =
            Sound { name: name.to_string(), format, rate, channels, frames, data: Data::Streamed(bytes) };
        if !streamed {
            // Decode it all now (at most STREAM_ABOVE_SECONDS of it).
            let cap = (rate as usize) * (STREAM_ABOVE_SECONDS as usize) * usize::from(channels);
            let mut reader = Decoder::open(&sound)?;
            let mut all = Vec::with_capacity((frames as usize * usize::from(channels)).min(cap));
            while all.len() < cap {
                match reader.fill() {
                    Ok(true) => all.extend_from_slice(reader.samples()),
                    Ok(false) => break,
                    Err(why) => {
                        tracing::warn!(sound = name, "{why}; playing the {} samples before it", all.len());
                        break;
                    }
                }
            }
            // The last Vorbis packet decodes past the stream's end: its granule says where.
            all.truncate(cap.min(frames as usize * usize::from(channels)));
            sound.frames = (all.len() / usize::from(channels)) as u64;
            sound.data = Data::Decoded(Rc::from(all));
        }
        Ok(sound)
    }

    /// The name it was loaded under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// WAV or Ogg Vorbis.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Frames per second of the file (the mixer resamples to the device's).
    pub fn sample_rate(&self) -> u32 {
        self.rate
    }

    /// 1 (mono) or 2 (stereo; a file with more channels plays its first two).
    pub fn channels(&self) -> u16 {
        self.channels
    }

    /// Length in frames (0 when an Ogg file does not say).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Length in milliseconds (`alxGetWaveLen`).
    pub fn duration_ms(&self) -> u64 {
        self.frames * 1000 / u64::from(self.rate)
    }

    /// The decoded samples (interleaved), for a sound that is not streamed.
    pub(crate) fn decoded(&self) -> Option<&Rc<[f32]>> {
        match &self.data {
            Data::Decoded(d) => Some(d),
            Data::Streamed(_) => None,
        }
    }

    /// True when voices decode it as they play rather than share a decoded copy.
    pub fn is_streamed(&self) -> bool {
        matches!(self.data, Data::Streamed(_))
    }
}

fn wav_reader(bytes: &Rc<[u8]>, name: &str) -> Result<hound::WavReader<Cursor<Rc<[u8]>>>, AudioError> {
    let r = hound::WavReader::new(Cursor::new(bytes.clone())).map_err(|e| AudioError::decode(name, e))?;
    let spec = r.spec();
    match (spec.sample_format, spec.bits_per_sample) {
        (hound::SampleFormat::Int, 8..=32) | (hound::SampleFormat::Float, 32) => Ok(r),
        (f, b) => Err(AudioError::decode(name, format!("{b}-bit {f:?} samples are not supported"))),
    }
}

type OggReader = OggStreamReader<Cursor<Rc<[u8]>>>;

fn ogg_reader(bytes: &Rc<[u8]>, name: &str) -> Result<OggReader, AudioError> {
    OggStreamReader::new(Cursor::new(bytes.clone())).map_err(|e| AudioError::decode(name, e))
}

/// The stream's length from its last page's granule position (for Vorbis, the number of the
/// last frame), or None when there is no readable last page.
fn ogg_frames(bytes: &[u8]) -> Option<u64> {
    let start = bytes.windows(4).rposition(|w| w == b"OggS")?;
    let g = bytes.get(start + 6..start + 14)?;
    let granule = u64::from_le_bytes(g.try_into().ok()?);
    (granule != u64::MAX).then_some(granule)
}

/// One pass of decoding through a sound, in chunks of interleaved samples, `channels()` per
/// frame (the sound's, already cut to two).
pub(crate) struct Decoder {
    src: Source,
    out_channels: usize,
    chunk: Vec<f32>,
}

enum Source {
    Decoded { data: Rc<[f32]>, done: bool },
    Wav { reader: hound::WavReader<Cursor<Rc<[u8]>>>, src_channels: usize, name: String },
    Ogg { reader: Box<OggReader>, src_channels: usize },
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder").field("out_channels", &self.out_channels).finish_non_exhaustive()
    }
}

/// Samples per chunk read from a streamed file.
const CHUNK_SAMPLES: usize = 4096;

impl Decoder {
    pub(crate) fn open(sound: &Sound) -> Result<Decoder, AudioError> {
        let out_channels = usize::from(sound.channels);
        let src = match &sound.data {
            Data::Decoded(d) => Source::Decoded { data: d.clone(), done: false },
            Data::Streamed(bytes) => match sound.format {
                Format::Wav => {
                    let reader = wav_reader(bytes, &sound.name)?;
                    let src_channels = usize::from(reader.spec().channels);
                    Source::Wav { reader, src_channels, name: sound.name.clone() }
                }
                Format::OggVorbis => {
                    let reader = Box::new(ogg_reader(bytes, &sound.name)?);
                    let src_channels = usize::from(reader.ident_hdr.audio_channels);
                    Source::Ogg { reader, src_channels }
                }
            },
        };
        Ok(Decoder { src, out_channels, chunk: Vec::new() })
    }

    /// Reads the next chunk into [`Decoder::samples`]: `Ok(false)` at the end.
    pub(crate) fn fill(&mut self) -> Result<bool, String> {
        self.chunk.clear();
        let out = self.out_channels;
        match &mut self.src {
            Source::Decoded { data, done } => {
                let first = !*done;
                *done = true;
                return Ok(first && !data.is_empty());
            }
            Source::Wav { reader, src_channels, name } => {
                let spec = reader.spec();
                let want = CHUNK_SAMPLES - CHUNK_SAMPLES % *src_channels;
                let mut frame = Vec::with_capacity(*src_channels);
                let mut push = |s: f32, chunk: &mut Vec<f32>| {
                    frame.push(s);
                    if frame.len() == *src_channels {
                        chunk.extend_from_slice(&frame[..out]);
                        frame.clear();
                    }
                };
                let mut error = None;
                if spec.sample_format == hound::SampleFormat::Float {
                    for s in reader.samples::<f32>().take(want) {
                        match s {
                            Ok(s) if s.is_finite() => push(s.clamp(-1.0, 1.0), &mut self.chunk),
                            Ok(_) => push(0.0, &mut self.chunk),
                            Err(e) => {
                                error = Some(e.to_string());
                                break;
                            }
                        }
                    }
                } else {
                    let scale = 1.0 / (1u64 << (spec.bits_per_sample - 1)) as f32;
                    for s in reader.samples::<i32>().take(want) {
                        match s {
                            Ok(s) => push(s as f32 * scale, &mut self.chunk),
                            Err(e) => {
                                error = Some(e.to_string());
                                break;
                            }
                        }
                    }
                }
                if let Some(e) = error {
                    if self.chunk.is_empty() {
                        return Err(format!("{name}: {e}"));
                    }
                    tracing::warn!(sound = name.as_str(), "{e}; the sound ends here");
                }
            }
            Source::Ogg { reader, src_channels } => loop {
                match reader.read_dec_packet_itl() {
                    Ok(Some(pcm)) => {
                        for f in pcm.chunks_exact(*src_channels) {
                            self.chunk.extend(f[..out].iter().map(|&s| f32::from(s) / 32768.0));
                        }
                        if !self.chunk.is_empty() {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => return Err(e.to_string()),
                }
            },
        }
        Ok(!self.chunk.is_empty())
    }

    /// The samples of the last successful [`Decoder::fill`].
    pub(crate) fn samples(&self) -> &[f32] {
        match &self.src {
            Source::Decoded { data, .. } => data,
            _ => &self.chunk,
        }
    }
}
