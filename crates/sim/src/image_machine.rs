//! The image state machine (V12's `ShapeBaseImageData` states, run by `updateImageState`):
//! plain data, so that the server and the controlling client run it alike.
//!
//! An image's states ([`ImageStates`], read from its datablock by the game) and where a
//! mounted image stands in them ([`ImageRun`], small and `Copy`). The images in the first
//! [`PREDICTED_IMAGES`] slots of a controlled object are part of its
//! [`ControlState`](crate::scene::ControlState): each move sets their trigger from the move's
//! fire triggers and steps them ([`PredictedImage`], reached through
//! [`Motion::images`](crate::scene::Motion)), so the controlling client's weapon goes into its
//! fire state on the tick the button goes down, and a correction brings it back in line as it
//! does the position. What entering a state asks of the engine comes back as [`Effect`]s.

use std::rc::Rc;

/// How many image slots a shape has (V12's `MaxMountedImages`).
pub const MAX_IMAGES: usize = 8;
/// How many states an image may declare (V12's `MaxStates`).
pub const MAX_STATES: usize = 31;
/// The image slots a controlled object's moves drive (V12's Player: fire triggers 0 and 1
/// hold the images in slots 0 and 1).
pub const PREDICTED_IMAGES: usize = 2;
/// State changes that may follow each other in one update (a machine whose timeouts are all
/// zero and loop would otherwise never end).
const MAX_CHAIN: usize = 16;

/// `stateLoadedFlag`: what entering the state does to the image's loaded flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadedFlag {
    Ignore,
    Loaded,
    Empty,
}

/// One declared state.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageState {
    pub name: String,
    /// Transitions by condition, indexed by the condition's value (`[false, true]`).
    pub on_loaded: [Option<u8>; 2],
    pub on_ammo: [Option<u8>; 2],
    pub on_target: [Option<u8>; 2],
    pub on_wet: [Option<u8>; 2],
    pub on_trigger: [Option<u8>; 2],
    pub on_timeout: Option<u8>,
    /// Seconds.
    pub timeout: f32,
    pub wait_for_timeout: bool,
    pub fire: bool,
    pub eject_shell: bool,
    /// Energy per second while in the state.
    pub energy_drain: f32,
    pub allow_image_change: bool,
    pub loaded: LoadedFlag,
    /// `NoRecoil`, `LightRecoil`, `MediumRecoil`, `HeavyRecoil` as 0..=3.
    pub recoil: u8,
    pub sequence: Option<String>,
    pub script: Option<String>,
    pub sound: Option<String>,
}

impl ImageState {
    /// A state named `name` that does nothing and goes nowhere (V12's defaults: it waits for
    /// its timeout, allows an image change, leaves the loaded flag alone).
    pub fn new(name: &str) -> Self {
        ImageState {
            name: name.into(),
            on_loaded: [None; 2],
            on_ammo: [None; 2],
            on_target: [None; 2],
            on_wet: [None; 2],
            on_trigger: [None; 2],
            on_timeout: None,
            timeout: 0.0,
            wait_for_timeout: true,
            fire: false,
            eject_shell: false,
            energy_drain: 0.0,
            allow_image_change: true,
            loaded: LoadedFlag::Ignore,
            recoil: 0,
            sequence: None,
            script: None,
            sound: None,
        }
    }
}

/// An image datablock's states, checked (every transition names a state of the list).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ImageStates {
    pub states: Vec<ImageState>,
}

/// What entering a state asks of the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// `%data.<name>(%obj, %slot)` on the image's datablock.
    Script(String),
    /// The image fires (`stateFire`): with no `stateScript` on the state, the engine
    /// launches the image's projectile from the muzzle.
    Fire { scripted: bool },
    /// Play this sequence on the image thread (none: stop it).
    Sequence(Option<String>),
    /// Play this AudioProfile where the object is (`stateSound`).
    Sound(String),
}

/// Where a mounted image stands: its state, the state's timer and the conditions its
/// transitions test. `Copy`, so that it travels in a controlled object's predicted state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageRun {
    /// The image datablock (the server's id; 0: none), so that a client that receives the
    /// run in a correction knows which image it predicts.
    pub image: u32,
    /// Index into the image's states; [`ImageRun::NO_STATE`] before the first is entered.
    pub state: u8,
    /// Seconds left of the state's timeout.
    pub delay: f32,
    pub loaded: bool,
    pub ammo: bool,
    pub target: bool,
    pub wet: bool,
    pub trigger: bool,
    /// Shots fired (wraps).
    pub fire_count: u32,
}

impl Default for ImageRun {
    fn default() -> Self {
        ImageRun::new(true)
    }
}

impl ImageRun {
    /// The state of an image that has entered none yet.
    pub const NO_STATE: u8 = u8::MAX;

    /// A newly mounted image (`mountImage(image, slot, loaded)`), in no state yet.
    pub fn new(loaded: bool) -> Self {
        ImageRun {
            image: 0,
            state: Self::NO_STATE,
            delay: 0.0,
            loaded,
            ammo: false,
            target: false,
            wet: false,
            trigger: false,
            fire_count: 0,
        }
    }

    /// The current state's name ("" when in none).
    pub fn state_name<'a>(&self, states: &'a ImageStates) -> &'a str {
        states.states.get(usize::from(self.state)).map_or("", |s| s.name.as_str())
    }

    /// Whether the current state fires (`stateFire`).
    pub fn firing(&self, states: &ImageStates) -> bool {
        states.states.get(usize::from(self.state)).is_some_and(|s| s.fire)
    }

    /// Enters state `to` (V12's `setImageState`), then follows zero-timeout transitions.
    /// Re-entering the current state only restarts its timer and its script.
    pub fn enter(&mut self, states: &ImageStates, to: usize, out: &mut Vec<Effect>) {
        let mut to = to;
        for _ in 0..MAX_CHAIN {
            let Some(s) = states.states.get(to) else { return };
            if to == usize::from(self.state) {
                self.delay = s.timeout;
                out.extend(s.script.clone().map(Effect::Script));
                return;
            }
            // `to` indexes a list of at most MAX_STATES.
            self.state = to as u8;
            self.delay = s.timeout;
            match s.loaded {
                LoadedFlag::Loaded => self.loaded = true,
                LoadedFlag::Empty => self.loaded = false,
                LoadedFlag::Ignore => {}
            }
            if s.fire {
                self.fire_count = self.fire_count.wrapping_add(1);
                out.push(Effect::Fire { scripted: s.script.is_some() });
            }
            out.push(Effect::Sequence(s.sequence.clone()));
            out.extend(s.sound.clone().map(Effect::Sound));
            out.extend(s.script.clone().map(Effect::Script));
            match s.on_timeout {
                Some(next) if s.timeout <= 0.0 => to = usize::from(next),
                _ => return,
            }
        }
    }

    /// One step of `dt` seconds (V12's `updateImageState`): the timer runs down and the
    /// first transition whose condition holds is taken (loaded, ammo, target, wet, trigger,
    /// then the timeout), unless the state waits for its timeout. Returns the energy the
    /// state drained over the step.
    pub fn update(&mut self, states: &ImageStates, dt: f32, out: &mut Vec<Effect>) -> f32 {
        let Some(s) = states.states.get(usize::from(self.state)) else { return 0.0 };
        let (next, drain) = StepRow::of(s).step(self, dt);
        if let Some(n) = next {
            self.enter(states, usize::from(n), out);
        }
        drain
    }

    /// Feeds the run to a checksum: every field, at full precision.
    pub(crate) fn bytes(&self) -> [u8; 14] {
        let mut b = [0u8; 14];
        b[0] = self.state;
        b[1] = u8::from(self.loaded)
            | u8::from(self.ammo) << 1
            | u8::from(self.target) << 2
            | u8::from(self.wet) << 3
            | u8::from(self.trigger) << 4;
        b[2..6].copy_from_slice(&self.delay.to_bits().to_le_bytes());
        b[6..10].copy_from_slice(&self.fire_count.to_le_bytes());
        b[10..14].copy_from_slice(&self.image.to_le_bytes());
        b
    }

    /// Writes the run at full precision (for a correction).
    pub(crate) fn write(&self, w: &mut v12_bitstream::BitWriter) {
        w.write_int(self.image, 32);
        w.write_int(u32::from(self.state), 8);
        for f in [self.loaded, self.ammo, self.target, self.wet, self.trigger] {
            w.write_flag(f);
        }
        w.write_f32(self.delay);
        w.write_int(self.fire_count, 32);
    }

    /// Reads what [`Self::write`] wrote; a state past [`MAX_STATES`] is no state, a
    /// non-finite timer 0.
    pub(crate) fn read(r: &mut v12_bitstream::BitReader<'_>) -> Result<Self, v12_bitstream::BitStreamError> {
        let image = r.read_int(32)?;
        let state = r.read_int(8)? as u8;
        let state = if usize::from(state) < MAX_STATES { state } else { Self::NO_STATE };
        let mut f = [false; 5];
        for x in &mut f {
            *x = r.read_flag()?;
        }
        let delay = r.read_f32()?;
        let delay = if delay.is_finite() { delay.clamp(-3600.0, 3600.0) } else { 0.0 };
        let fire_count = r.read_int(32)?;
        Ok(ImageRun {
            image,
            state,
            delay,
            loaded: f[0],
            ammo: f[1],
            target: f[2],
            wet: f[3],
            trigger: f[4],
            fire_count,
        })
    }
}

/// What a controlled object's moves need of an image in one of its first
/// [`PREDICTED_IMAGES`] slots: its states and how it spends energy. The server and the
/// predicting client build it from the same datablock ([`PredictedImage::new`]).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PredictedImage {
    /// The states (read only on a transition; a step reads the table beside them).
    pub states: Rc<ImageStates>,
    /// `usesEnergy`: the image has ammo while the energy is over `min_energy`.
    pub uses_energy: bool,
    pub min_energy: f32,
    /// `fireEnergy`: what each shot costs.
    pub fire_energy: f32,
    /// How many states there are, and what a step reads of each, in this value itself: a
    /// step every move then touches one table row, not the states behind two pointers (which
    /// a server tick finds out of the cache: three misses a step were ~1 µs each time).
    count: u8,
    steps: [StepRow; MAX_STATES],
}

/// What [`ImageRun::update`] reads of one state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct StepRow {
    /// The transitions by condition, in update order: loaded, ammo, target, wet, trigger,
    /// each indexed by the condition's value.
    next: [[Option<u8>; 2]; 5],
    on_timeout: Option<u8>,
    wait_for_timeout: bool,
    energy_drain: f32,
}

impl StepRow {
    /// What a step reads of state `s`.
    fn of(s: &ImageState) -> Self {
        StepRow {
            next: [s.on_loaded, s.on_ammo, s.on_target, s.on_wet, s.on_trigger],
            on_timeout: s.on_timeout,
            wait_for_timeout: s.wait_for_timeout,
            energy_drain: s.energy_drain,
        }
    }

    /// One step of `dt` seconds of `run` in this state: the timer runs down, and the first
    /// transition whose condition holds is chosen (loaded, ammo, target, wet, trigger, then the
    /// timeout) unless the state waits for its timeout. The chosen state and the energy the
    /// state drained.
    fn step(&self, run: &mut ImageRun, dt: f32) -> (Option<u8>, f32) {
        // Only "run out" matters once it has: the timer stops at 0, so a run that sat out
        // some ticks (a frozen world) still equals one that counted them.
        run.delay = (run.delay - dt).max(0.0);
        let drain = self.energy_drain * dt;
        if run.delay > 0.0 && self.wait_for_timeout {
            return (None, drain);
        }
        let [loaded, ammo, target, wet, trigger] = self.next;
        let next = loaded[usize::from(run.loaded)]
            .or(ammo[usize::from(run.ammo)])
            .or(target[usize::from(run.target)])
            .or(wet[usize::from(run.wet)])
            .or(trigger[usize::from(run.trigger)])
            .or(if run.delay <= 0.0 { self.on_timeout } else { None });
        (next, drain)
    }
}

impl PredictedImage {
    /// The model of an image with these `states` and energy rules.
    pub fn new(states: Rc<ImageStates>, uses_energy: bool, min_energy: f32, fire_energy: f32) -> Self {
        let mut steps = [StepRow::default(); MAX_STATES];
        for (row, s) in steps.iter_mut().zip(&states.states) {
            *row = StepRow::of(s);
        }
        // A checked list holds at most MAX_STATES (31) states.
        let count = states.states.len().min(MAX_STATES) as u8;
        PredictedImage { states, uses_energy, min_energy, fire_energy, count, steps }
    }

    /// One tick of the image in `run` under a move whose fire trigger for its slot is
    /// `trigger`, spending from `energy` (states' drain, shots' `fireEnergy`). Effects go to
    /// `out`.
    pub fn step(&self, run: &mut ImageRun, trigger: bool, energy: &mut f32, out: &mut Vec<Effect>) {
        self.step_charging(run, trigger, energy, true, out);
    }

    /// [`ImageRun::update`] from the table: the same decision, the states read only to enter
    /// the next one.
    fn update(&self, run: &mut ImageRun, dt: f32, out: &mut Vec<Effect>) -> f32 {
        if run.state >= self.count {
            // No state yet, or past the table (a list longer than the parser allows).
            return run.update(&self.states, dt, out);
        }
        let (next, drain) = self.steps[usize::from(run.state)].step(run, dt);
        if let Some(n) = next {
            run.enter(&self.states, usize::from(n), out);
        }
        drain
    }

    /// [`Self::step`]; without `charge_shots` the shots' `fireEnergy` is left for the caller
    /// (the server takes it when it launches an unpredicted image's shot).
    pub fn step_charging(
        &self,
        run: &mut ImageRun,
        trigger: bool,
        energy: &mut f32,
        charge_shots: bool,
        out: &mut Vec<Effect>,
    ) {
        run.trigger = trigger;
        if self.uses_energy {
            run.ammo = *energy > self.min_energy;
        }
        let fired = run.fire_count;
        let drained = self.update(run, crate::process::TICK_MS as f32 / 1000.0, out);
        if self.uses_energy && drained != 0.0 {
            *energy = (*energy - drained).max(0.0);
        }
        let shots = run.fire_count.wrapping_sub(fired);
        if charge_shots && shots > 0 && self.fire_energy > 0.0 {
            *energy = (*energy - self.fire_energy * shots as f32).max(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ready → (trigger) Fire (0.25 s) → Reload (0.5 s) → Ready; no ammo: NoAmmo.
    pub(crate) fn blaster() -> ImageStates {
        let state = ImageState::new;
        let mut ready = state("Ready");
        ready.on_trigger[1] = Some(1);
        ready.on_ammo[0] = Some(3);
        let mut fire = state("Fire");
        fire.fire = true;
        fire.timeout = 0.25;
        fire.on_timeout = Some(2);
        fire.sequence = Some("fire".into());
        let mut reload = state("Reload");
        reload.timeout = 0.5;
        reload.on_timeout = Some(0);
        let mut dry = state("NoAmmo");
        dry.on_ammo[1] = Some(0);
        ImageStates { states: vec![ready, fire, reload, dry] }
    }

    #[test]
    fn moves_fire_an_energy_weapon_until_the_energy_runs_low() {
        let img = PredictedImage::new(Rc::new(blaster()), true, 5.0, 4.0);
        let mut run = ImageRun::new(true);
        let mut out = Vec::new();
        run.enter(&img.states, 0, &mut out);
        let mut energy = 20.0;
        img.step(&mut run, true, &mut energy, &mut out);
        assert_eq!(run.state_name(&img.states), "Fire", "fires on the tick the trigger goes down");
        assert_eq!(energy, 16.0);
        for _ in 0..200 {
            img.step(&mut run, true, &mut energy, &mut out);
        }
        assert_eq!(run.fire_count, 4, "20 energy, 4 a shot, ammo only over 5");
        assert_eq!(run.state_name(&img.states), "NoAmmo");
    }

    /// The model's table decides as the states do: every state, condition and timer of a
    /// machine with every kind of transition, stepped both ways.
    #[test]
    fn the_step_table_decides_as_the_states_do() {
        let mut states = blaster();
        let mut wet = ImageState::new("Wet");
        (wet.on_wet, wet.on_target, wet.on_loaded) = ([Some(0), None], [None, Some(2)], [Some(3), None]);
        (wet.wait_for_timeout, wet.timeout, wet.energy_drain) = (false, 0.1, 3.0);
        states.states.push(wet);
        let img = PredictedImage::new(Rc::new(states.clone()), true, 5.0, 4.0);
        let mut checked = 0;
        for state in (0..=5u8).chain([ImageRun::NO_STATE]) {
            for bits in 0..32u32 {
                for delay in [0.0f32, 0.01, 0.2, 1.0] {
                    let mut run = ImageRun::new(bits & 1 != 0);
                    (run.state, run.delay, run.ammo, run.target) =
                        (state, delay, bits & 2 != 0, bits & 4 != 0);
                    (run.wet, run.trigger) = (bits & 8 != 0, bits & 16 != 0);
                    let (mut a, mut b) = (run, run);
                    let (mut ea, mut eb) = (Vec::new(), Vec::new());
                    let da = img.update(&mut a, 0.032, &mut ea);
                    let db = b.update(&states, 0.032, &mut eb);
                    assert_eq!((a, da, ea), (b, db, eb), "state {state} bits {bits:05b} delay {delay}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 7 * 32 * 4);
    }

    #[test]
    fn a_run_crosses_the_wire_whole_and_junk_is_refused() {
        let mut run = ImageRun::new(false);
        run.state = 2;
        run.delay = 0.125;
        run.trigger = true;
        run.fire_count = 70_000;
        let mut w = v12_bitstream::BitWriter::new();
        run.write(&mut w);
        let bytes = w.into_bytes();
        let back = ImageRun::read(&mut v12_bitstream::BitReader::new(&bytes)).unwrap();
        assert_eq!(back, run);
        assert_eq!(back.bytes(), run.bytes());
        let mut w = v12_bitstream::BitWriter::new();
        ImageRun { state: 200, delay: f32::NAN, ..run }.write(&mut w);
        let bytes = w.into_bytes();
        let junk = ImageRun::read(&mut v12_bitstream::BitReader::new(&bytes)).unwrap();
        assert_eq!((junk.state, junk.delay), (ImageRun::NO_STATE, 0.0));
    }
}
