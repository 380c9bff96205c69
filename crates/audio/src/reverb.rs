//! The environment's reverb (V12's AudioEnvironment, which Tribes 2 fed to EAX 2): a
//! pre-delayed early reflection and a late reverb of parallel damped comb filters and
//! allpass diffusers (the Schroeder–Moorer design), each ear with its own delays. The sources
//! send to it by their description's `environmentLevel`; the wet sound joins the mix.
//!
//! The numbers are EAX 2's: levels in millibels (-10000 is silence), times in seconds.
//! [`Environment::preset`] gives the 26 named rooms (`room = "CAVE"`), with the numbers the
//! EAX 2 presets define; a description's own fields then override them.

/// An environment's acoustics.
#[derive(Debug, Clone, PartialEq)]
pub struct Environment {
    /// Metres across (scales the reverb's delays), 1..=100.
    pub size: f32,
    /// Echo density, 0..=1.
    pub diffusion: f32,
    /// Master level of the environment's sound (EAX `room`), millibels, -10000..=0.
    pub room: i32,
    /// High-frequency level (EAX `roomHF`), millibels, -10000..=0.
    pub room_hf: i32,
    /// Seconds for the reverb to fall 60 dB, 0.1..=20.
    pub decay_time: f32,
    /// High frequencies' decay time over the lows', 0.1..=2.
    pub decay_hf_ratio: f32,
    /// Early reflections' level, millibels, -10000..=1000.
    pub reflections: i32,
    /// Seconds before the first reflection, 0..=0.3.
    pub reflections_delay: f32,
    /// Late reverb's level, millibels, -10000..=2000.
    pub reverb: i32,
    /// Seconds from the first reflection to the late reverb, 0..=0.1.
    pub reverb_delay: f32,
    /// Overall gain of the wet sound (V12's `effectVolume`), 0..=1.
    pub effect_volume: f32,
}

impl Default for Environment {
    /// EAX 2's GENERIC room.
    fn default() -> Self {
        Environment::preset("GENERIC").unwrap_or_else(|| Environment::from_row(GENERIC))
    }
}

type Row = (&'static str, f32, f32, i32, i32, f32, f32, i32, f32, i32, f32);

const GENERIC: Row = ("GENERIC", 7.5, 1.0, -1000, -100, 1.49, 0.83, -2602, 0.007, 200, 0.011);

/// EAX 2's named environments: size, diffusion, room, roomHF, decay time, decay HF ratio,
/// reflections, reflections delay, reverb, reverb delay.
const PRESETS: [Row; 26] = [
    GENERIC,
    ("PADDEDCELL", 1.4, 1.0, -1000, -6000, 0.17, 0.10, -1204, 0.001, 207, 0.002),
    ("ROOM", 1.9, 1.0, -1000, -454, 0.40, 0.83, -1646, 0.002, 53, 0.003),
    ("BATHROOM", 1.4, 1.0, -1000, -1200, 1.49, 0.54, -370, 0.007, 1030, 0.011),
    ("LIVINGROOM", 2.5, 1.0, -1000, -6000, 0.50, 0.10, -1376, 0.003, -1104, 0.004),
    ("STONEROOM", 11.6, 1.0, -1000, -300, 2.31, 0.64, -711, 0.012, 83, 0.017),
    ("AUDITORIUM", 21.6, 1.0, -1000, -476, 4.32, 0.59, -789, 0.020, -289, 0.030),
    ("CONCERTHALL", 19.6, 1.0, -1000, -500, 3.92, 0.70, -1230, 0.020, -2, 0.029),
    ("CAVE", 14.6, 1.0, -1000, 0, 2.91, 1.30, -602, 0.015, -302, 0.022),
    ("ARENA", 36.2, 1.0, -1000, -698, 7.24, 0.33, -1166, 0.020, 16, 0.030),
    ("HANGAR", 50.3, 1.0, -1000, -1000, 10.05, 0.23, -602, 0.020, 198, 0.030),
    ("CARPETEDHALLWAY", 1.9, 1.0, -1000, -4000, 0.30, 0.10, -1831, 0.002, -1630, 0.030),
    ("HALLWAY", 1.8, 1.0, -1000, -300, 1.49, 0.59, -1219, 0.007, 441, 0.011),
    ("STONECORRIDOR", 13.5, 1.0, -1000, -237, 2.70, 0.79, -1214, 0.013, 395, 0.020),
    ("ALLEY", 7.5, 0.3, -1000, -270, 1.49, 0.86, -1204, 0.007, -4, 0.011),
    ("FOREST", 38.0, 0.3, -1000, -3300, 1.49, 0.54, -2560, 0.162, -229, 0.088),
    ("CITY", 7.5, 0.5, -1000, -800, 1.49, 0.67, -2273, 0.007, -1691, 0.011),
    ("MOUNTAINS", 100.0, 0.27, -1000, -2500, 1.49, 0.21, -2780, 0.300, -1434, 0.100),
    ("QUARRY", 17.5, 1.0, -1000, -1000, 1.49, 0.83, -10000, 0.061, 500, 0.025),
    ("PLAIN", 42.5, 0.21, -1000, -2000, 1.49, 0.50, -2466, 0.179, -1926, 0.100),
    ("PARKINGLOT", 8.3, 1.0, -1000, 0, 1.65, 1.50, -1363, 0.008, -1153, 0.012),
    ("SEWERPIPE", 1.7, 0.8, -1000, -1000, 2.81, 0.14, 429, 0.014, 1023, 0.021),
    ("UNDERWATER", 1.8, 1.0, -1000, -4000, 1.49, 0.10, -449, 0.007, 1700, 0.011),
    ("DRUGGED", 1.9, 0.5, -1000, 0, 8.39, 1.39, -115, 0.002, 985, 0.030),
    ("DIZZY", 1.8, 0.6, -1000, -400, 17.23, 0.56, -1713, 0.020, -613, 0.030),
    ("PSYCHOTIC", 1.0, 0.5, -1000, -151, 7.56, 0.91, -626, 0.020, 774, 0.030),
];

fn finite_or(v: f32, or: f32) -> f32 {
    if v.is_finite() { v } else { or }
}

/// Millibels as a gain (-10000 mB and below: silence).
pub fn millibels(mb: i32) -> f32 {
    if mb <= -10_000 { 0.0 } else { 10f32.powf(mb as f32 / 2000.0) }
}

impl Environment {
    fn from_row(r: Row) -> Environment {
        Environment {
            size: r.1,
            diffusion: r.2,
            room: r.3,
            room_hf: r.4,
            decay_time: r.5,
            decay_hf_ratio: r.6,
            reflections: r.7,
            reflections_delay: r.8,
            reverb: r.9,
            reverb_delay: r.10,
            effect_volume: 1.0,
        }
    }

    /// A named EAX 2 room (any case; `"CAVE"`, `"UNDERWATER"`, ...), or None.
    pub fn preset(name: &str) -> Option<Environment> {
        PRESETS.iter().find(|r| r.0.eq_ignore_ascii_case(name.trim())).map(|&r| Environment::from_row(r))
    }

    /// The names [`Environment::preset`] knows.
    pub fn preset_names() -> impl Iterator<Item = &'static str> {
        PRESETS.iter().map(|r| r.0)
    }

    /// The same with every number in range (junk becomes GENERIC's).
    pub fn sanitized(&self) -> Environment {
        let g = Environment::from_row(GENERIC);
        Environment {
            size: finite_or(self.size, g.size).clamp(1.0, 100.0),
            diffusion: finite_or(self.diffusion, g.diffusion).clamp(0.0, 1.0),
            room: self.room.clamp(-10_000, 0),
            room_hf: self.room_hf.clamp(-10_000, 0),
            decay_time: finite_or(self.decay_time, g.decay_time).clamp(0.1, 20.0),
            decay_hf_ratio: finite_or(self.decay_hf_ratio, g.decay_hf_ratio).clamp(0.1, 2.0),
            reflections: self.reflections.clamp(-10_000, 1_000),
            reflections_delay: finite_or(self.reflections_delay, g.reflections_delay).clamp(0.0, 0.3),
            reverb: self.reverb.clamp(-10_000, 2_000),
            reverb_delay: finite_or(self.reverb_delay, g.reverb_delay).clamp(0.0, 0.1),
            effect_volume: finite_or(self.effect_volume, 1.0).clamp(0.0, 1.0),
        }
    }
}

/// Comb delays at 44.1 kHz for a 7.5 m room (Freeverb's tuning), and the right ear's offset.
const COMBS: [usize; 4] = [1116, 1188, 1277, 1356];
const ALLPASSES: [usize; 2] = [556, 341];
const SPREAD: usize = 23;

#[derive(Debug, Clone)]
struct Comb {
    buf: Vec<f32>,
    at: usize,
    feedback: f32,
    damp: f32,
    low: f32,
}

impl Comb {
    fn new(len: usize, feedback: f32, damp: f32) -> Comb {
        Comb { buf: vec![0.0; len.max(1)], at: 0, feedback, damp, low: 0.0 }
    }
    #[inline]
    fn tick(&mut self, x: f32) -> f32 {
        let y = self.buf[self.at];
        self.low = y * (1.0 - self.damp) + self.low * self.damp;
        self.buf[self.at] = x + self.low * self.feedback;
        self.at = if self.at + 1 == self.buf.len() { 0 } else { self.at + 1 };
        y
    }
}

#[derive(Debug, Clone)]
struct Allpass {
    buf: Vec<f32>,
    at: usize,
    g: f32,
}

impl Allpass {
    #[inline]
    fn tick(&mut self, x: f32) -> f32 {
        let d = self.buf[self.at];
        let y = d - x;
        self.buf[self.at] = x + d * self.g;
        self.at = if self.at + 1 == self.buf.len() { 0 } else { self.at + 1 };
        y
    }
}

/// The reverb for one environment at one rate.
#[derive(Debug, Clone)]
pub(crate) struct Reverb {
    env: Environment,
    /// Input delay line (the longest pre-delay).
    pre: Vec<f32>,
    pre_at: usize,
    reflections_tap: usize,
    reverb_tap: usize,
    reflections_gain: f32,
    late_gain: f32,
    hf: f32,
    hf_low: f32,
    combs: [Vec<Comb>; 2],
    allpasses: [Vec<Allpass>; 2],
    /// Samples of input silence seen in a row (after the tail, the reverb does nothing).
    quiet: usize,
    tail: usize,
}

impl Reverb {
    pub(crate) fn new(env: &Environment, rate: u32) -> Reverb {
        let env = env.sanitized();
        let r = f64::from(rate.max(1));
        let scale = r / 44_100.0 * f64::from(env.size / 7.5).clamp(0.2, 3.0);
        let samples = |s: f32| (f64::from(s) * r) as usize;
        let reflections_tap = samples(env.reflections_delay);
        let reverb_tap = samples(env.reflections_delay + env.reverb_delay);
        // The HF ratio as damping inside the loop: 1 or more keeps the highs.
        let damp = (1.0 - env.decay_hf_ratio).clamp(0.0, 0.85) * 0.6;
        let make = |offset: usize| -> Vec<Comb> {
            COMBS
                .iter()
                .map(|&d| {
                    let len = ((d + offset) as f64 * scale) as usize;
                    let secs = len as f32 / rate.max(1) as f32;
                    let feedback = 10f32.powf(-3.0 * secs / env.decay_time).min(0.995);
                    Comb::new(len, feedback, damp)
                })
                .collect()
        };
        let g = 0.3 + 0.4 * env.diffusion;
        let aps = |offset: usize| -> Vec<Allpass> {
            ALLPASSES
                .iter()
                .map(|&d| Allpass {
                    buf: vec![0.0; (((d + offset) as f64) * r / 44_100.0) as usize + 1],
                    at: 0,
                    g,
                })
                .collect()
        };
        let master = millibels(env.room) * env.effect_volume;
        let longest = COMBS[3] as f64 * scale + (SPREAD as f64) * scale;
        let tail = (f64::from(env.decay_time) * r) as usize + reverb_tap + longest as usize;
        Reverb {
            pre: vec![0.0; reverb_tap.max(reflections_tap) + 1],
            pre_at: 0,
            reflections_tap,
            reverb_tap,
            reflections_gain: master * millibels(env.reflections),
            // The comb bank's gain (four combs in parallel) brought back to about one.
            late_gain: master * millibels(env.reverb) * 0.25 * (1.0 - damp * 0.5),
            hf: millibels(env.room_hf),
            hf_low: 0.0,
            combs: [make(0), make(SPREAD)],
            allpasses: [aps(0), aps(SPREAD)],
            quiet: usize::MAX,
            tail,
            env,
        }
    }

    pub(crate) fn environment(&self) -> &Environment {
        &self.env
    }

    /// Adds the wet sound of `input` (what the sources sent) into `out`.
    pub(crate) fn process(&mut self, input: &[[f32; 2]], out: &mut [[f32; 2]]) {
        let len = self.pre.len();
        for (i, o) in input.iter().zip(out.iter_mut()) {
            let mut x = (i[0] + i[1]) * 0.5;
            if x == 0.0 {
                if self.quiet > self.tail {
                    continue;
                }
                self.quiet += 1;
            } else {
                self.quiet = 0;
            }
            // roomHF: a gentle low-pass whose high band is at `hf`.
            self.hf_low += (x - self.hf_low) * 0.35;
            x = self.hf_low + (x - self.hf_low) * self.hf;
            self.pre[self.pre_at] = x;
            let tap = |d: usize| (self.pre_at + len - d.min(len - 1)) % len;
            let early = self.pre[tap(self.reflections_tap)] * self.reflections_gain;
            let late_in = self.pre[tap(self.reverb_tap)];
            self.pre_at = (self.pre_at + 1) % len;
            for ((combs, allpasses), out) in self.combs.iter_mut().zip(&mut self.allpasses).zip(o.iter_mut())
            {
                let mut y = 0.0;
                for c in combs.iter_mut() {
                    y += c.tick(late_in);
                }
                for a in allpasses.iter_mut() {
                    y = a.tick(y);
                }
                *out += early + y * self.late_gain;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail_energy(env: &Environment) -> (f32, f32) {
        let mut r = Reverb::new(env, 44_100);
        let mut input = vec![[0.0f32; 2]; 44_100 * 3];
        for f in input.iter_mut().take(441) {
            *f = [0.5, 0.5];
        }
        let mut out = vec![[0.0f32; 2]; input.len()];
        r.process(&input, &mut out);
        let e = |s: &[[f32; 2]]| s.iter().map(|f| f[0] * f[0] + f[1] * f[1]).sum::<f32>();
        (e(&out[4_410..22_050]), e(&out[66_150..]))
    }

    #[test]
    fn a_longer_decay_rings_longer() {
        let short = Environment { decay_time: 0.3, ..Environment::default() };
        let long = Environment { decay_time: 4.0, ..Environment::default() };
        let (s_early, s_late) = tail_energy(&short);
        let (l_early, l_late) = tail_energy(&long);
        assert!(s_early > 0.0 && l_early > 0.0);
        assert!(l_late > s_late * 100.0, "{l_late} vs {s_late}");
        assert!(s_late < 1e-6, "{s_late}");
    }

    #[test]
    fn presets_and_junk() {
        assert!(Environment::preset("cave").is_some());
        assert!(Environment::preset("NOPE").is_none());
        assert_eq!(Environment::preset_names().count(), 26);
        let junk = Environment { size: f32::NAN, decay_time: -5.0, room: 99_999, ..Environment::default() };
        let s = junk.sanitized();
        assert!(s.size.is_finite() && s.decay_time >= 0.1 && s.room == 0);
        assert_eq!(millibels(-10_000), 0.0);
        assert!((millibels(0) - 1.0).abs() < 1e-6);
    }
}
