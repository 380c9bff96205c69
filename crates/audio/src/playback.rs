//! One voice's way through its sound: frames from the decoder (looping if asked), resampled
//! to the device's rate by linear interpolation, with a pitch factor.

use std::rc::Rc;

use crate::decode::{Decoder, Sound};

/// The most source frames one output frame may step over (pitch times rate ratio).
const MAX_STEP: f64 = 16.0;

/// A voice's read position in its sound.
#[derive(Debug)]
pub(crate) struct Playback {
    sound: Rc<Sound>,
    /// A decoded sound's samples, read directly (the common case, and the mixer's hot path).
    decoded: Option<Rc<[f32]>>,
    decoder: Option<Decoder>,
    at: usize,
    filled: bool,
    looping: bool,
    /// Frames read since the decoder was (re)opened: a looping pass that reads none ends.
    pass_frames: u64,
    a: [f32; 2],
    b: [f32; 2],
    b_valid: bool,
    frac: f64,
    finished: bool,
    started: bool,
}

impl Playback {
    pub(crate) fn new(sound: Rc<Sound>, looping: bool) -> Playback {
        Playback {
            decoded: sound.decoded().cloned(),
            sound,
            decoder: None,
            at: 0,
            filled: false,
            looping,
            pass_frames: 0,
            a: [0.0; 2],
            b: [0.0; 2],
            b_valid: false,
            frac: 0.0,
            finished: false,
            started: false,
        }
    }

    pub(crate) fn sound(&self) -> &Rc<Sound> {
        &self.sound
    }

    pub(crate) fn set_looping(&mut self, looping: bool) {
        self.looping = looping;
    }

    fn open(&mut self) -> bool {
        match Decoder::open(&self.sound) {
            Ok(d) => {
                self.decoder = Some(d);
                self.at = 0;
                self.filled = false;
                self.pass_frames = 0;
                true
            }
            Err(e) => {
                tracing::warn!("{e}; the sound is silent");
                false
            }
        }
    }

    /// The next source frame (mono doubled), or None at the end of the sound.
    fn next_frame(&mut self) -> Option<[f32; 2]> {
        let ch = usize::from(self.sound.channels());
        if let Some(d) = &self.decoded {
            if self.at + ch > d.len() {
                if !self.looping || d.len() < ch {
                    return None;
                }
                self.at = 0;
            }
            let f = &d[self.at..self.at + ch];
            self.at += ch;
            return Some(if ch == 1 { [f[0]; 2] } else { [f[0], f[1]] });
        }
        loop {
            if self.decoder.is_none() && !self.open() {
                return None;
            }
            let dec = self.decoder.as_mut()?;
            if self.filled {
                let s = dec.samples();
                if let Some(f) = s.get(self.at..self.at + ch) {
                    self.at += ch;
                    self.pass_frames += 1;
                    return Some(if ch == 1 { [f[0]; 2] } else { [f[0], f[1]] });
                }
            }
            match dec.fill() {
                Ok(true) => {
                    self.filled = true;
                    self.at = 0;
                }
                Ok(false) => {
                    self.filled = false;
                    if self.looping && self.pass_frames > 0 {
                        self.decoder = None;
                        continue;
                    }
                    return None;
                }
                Err(e) => {
                    tracing::warn!(sound = self.sound.name(), "{e}; the sound ends here");
                    self.filled = false;
                    return None;
                }
            }
        }
    }

    /// Mixes `out.len()` output frames, each times `gains` (left, right), into `out`, stepping
    /// `step` source frames per output frame. Returns false once the sound has ended.
    pub(crate) fn mix_into(&mut self, out: &mut [[f32; 2]], step: f64, gains: [f32; 2]) -> bool {
        if self.finished {
            return false;
        }
        if !self.started {
            self.started = true;
            match self.next_frame() {
                Some(f) => self.a = f,
                None => {
                    self.finished = true;
                    return false;
                }
            }
            self.pull_b();
        }
        let step = if step.is_finite() { step.clamp(0.0, MAX_STEP) } else { 1.0 };
        let silent = gains == [0.0, 0.0];
        for o in out.iter_mut() {
            if !silent {
                let t = self.frac as f32;
                o[0] += (self.a[0] + (self.b[0] - self.a[0]) * t) * gains[0];
                o[1] += (self.a[1] + (self.b[1] - self.a[1]) * t) * gains[1];
            }
            self.frac += step;
            while self.frac >= 1.0 {
                self.frac -= 1.0;
                if !self.b_valid {
                    self.finished = true;
                    return false;
                }
                self.a = self.b;
                self.pull_b();
            }
        }
        true
    }

    fn pull_b(&mut self) {
        match self.next_frame() {
            Some(f) => {
                self.b = f;
                self.b_valid = true;
            }
            None => {
                self.b = [0.0; 2];
                self.b_valid = false;
            }
        }
    }
}
