//! Images: weapons and other items mounted in a shape's image slots (V12's
//! `ShapeBaseImageData`, `TurretImageData`), each running the state machine its datablock
//! declares: `stateName[n]`, the transitions `stateTransitionOnTimeout`, `…OnTriggerDown` /
//! `…OnTriggerUp`, `…OnAmmo` / `…OnNoAmmo`, `…OnLoaded` / `…OnNotLoaded`, `…OnWet` /
//! `…OnNotWet`, `…OnTarget` / `…OnNoTarget`, and what a state does on entry: `stateFire`,
//! `stateScript` (a callback on the image's datablock, `%data.onFire(%obj, %slot)`),
//! `stateSequence` (played on the shape's image thread, so every client in scope sees it),
//! `stateEnergyDrain` (per second while in the state), `stateLoadedFlag`, `stateRecoil`,
//! `stateEjectShell`, `stateTimeoutValue` and `stateWaitForTimeout`.
//!
//! The machine itself is plain data ([`MountedImage::update`], [`MountedImage::enter`]): what
//! it asks for comes back as [`Effect`]s that the caller carries out, so the server's tick
//! runs it without the console and script calls (`mountImage`) run it with one.

use std::rc::Rc;
use v12_console_vm::{Console, ObjectId};
pub use v12_sim::image_machine::{
    Effect, ImageRun, ImageState, ImageStates, LoadedFlag, MAX_IMAGES, MAX_STATES, PREDICTED_IMAGES,
    PredictedImage,
};

/// The script thread slot that plays an image's `stateSequence` (slot 3 of the four).
pub const IMAGE_THREAD: usize = 3;

/// Reads the `state…[n]` fields of image datablock `db`. A transition naming a state that
/// is not declared is an error naming both (V12 loads such a datablock with a dead
/// transition; a typo there is a weapon that never fires, so it is refused here).
pub fn parse_states(con: &Console, db: ObjectId) -> Result<ImageStates, String> {
    parse_with(con, db, true).map(|(states, _)| states)
}

/// [`parse_states`] that keeps going: a transition naming an unknown state is dropped (it
/// never fires) and described in the list returned beside the states.
pub fn parse_states_lenient(con: &Console, db: ObjectId) -> (ImageStates, Vec<String>) {
    parse_with(con, db, false).unwrap_or_default()
}

/// With `strict`, the first problem is an `Err`; without, problems are collected.
fn parse_with(con: &Console, db: ObjectId, strict: bool) -> Result<(ImageStates, Vec<String>), String> {
    let problems = std::cell::RefCell::new(Vec::new());
    let text = |field: &str, i: usize| {
        let v = con.get_field(db, &format!("{field}{i}"));
        let t = v.as_text().trim().to_string();
        (!t.is_empty()).then_some(t)
    };
    // States are the indices that have a name; the array may have holes (V12 skips them).
    let mut names: Vec<(usize, String)> = Vec::new();
    for i in 0..MAX_STATES {
        if let Some(n) = text("stateName", i) {
            names.push((i, n));
        }
    }
    if let Some(extra) = text("stateName", MAX_STATES) {
        return Err(format!("state {MAX_STATES} (\"{extra}\"): an image has at most {MAX_STATES} states"));
    }
    let lookup = |i: usize, field: &str| -> Result<Option<u8>, String> {
        let Some(target) = text(field, i) else { return Ok(None) };
        match names.iter().position(|(_, n)| n.eq_ignore_ascii_case(&target)) {
            Some(p) => Ok(Some(p as u8)),
            None => {
                let e = format!("state {i}: {field}[{i}] names \"{target}\", which is not a declared state");
                if strict {
                    return Err(e);
                }
                problems.borrow_mut().push(e);
                Ok(None)
            }
        }
    };
    let num = |i: usize, field: &str, default: f32| {
        text(field, i).map_or(default, |t| t.parse::<f32>().ok().filter(|v| v.is_finite()).unwrap_or(default))
    };
    let flag = |i: usize, field: &str, default: bool| {
        text(field, i)
            .map_or(default, |t| t.eq_ignore_ascii_case("true") || t.parse::<f64>().is_ok_and(|v| v != 0.0))
    };
    let mut states = Vec::with_capacity(names.len());
    for (i, name) in &names {
        let i = *i;
        let pair = |off: &str, on: &str| -> Result<[Option<u8>; 2], String> {
            Ok([lookup(i, off)?, lookup(i, on)?])
        };
        states.push(ImageState {
            name: name.clone(),
            on_loaded: pair("stateTransitionOnNotLoaded", "stateTransitionOnLoaded")?,
            on_ammo: pair("stateTransitionOnNoAmmo", "stateTransitionOnAmmo")?,
            on_target: pair("stateTransitionOnNoTarget", "stateTransitionOnTarget")?,
            on_wet: pair("stateTransitionOnNotWet", "stateTransitionOnWet")?,
            on_trigger: pair("stateTransitionOnTriggerUp", "stateTransitionOnTriggerDown")?,
            on_timeout: lookup(i, "stateTransitionOnTimeout")?,
            timeout: num(i, "stateTimeoutValue", 0.0).clamp(0.0, 3600.0),
            wait_for_timeout: flag(i, "stateWaitForTimeout", true),
            fire: flag(i, "stateFire", false),
            eject_shell: flag(i, "stateEjectShell", false),
            energy_drain: num(i, "stateEnergyDrain", 0.0).clamp(-1.0e6, 1.0e6),
            allow_image_change: flag(i, "stateAllowImageChange", true),
            loaded: match text("stateLoadedFlag", i).as_deref().map(str::to_ascii_lowercase).as_deref() {
                Some("loaded") => LoadedFlag::Loaded,
                Some("empty" | "notloaded") => LoadedFlag::Empty,
                _ => LoadedFlag::Ignore,
            },
            recoil: match text("stateRecoil", i).as_deref().map(str::to_ascii_lowercase).as_deref() {
                Some("lightrecoil") => 1,
                Some("mediumrecoil") => 2,
                Some("heavyrecoil") => 3,
                _ => 0,
            },
            sequence: text("stateSequence", i),
            script: text("stateScript", i),
            sound: text("stateSound", i),
        });
    }
    Ok((ImageStates { states }, problems.into_inner()))
}

/// An image in a slot: its datablock, its states and where its machine stands.
#[derive(Clone, Debug, PartialEq)]
pub struct MountedImage {
    /// The image datablock (console id).
    pub data: ObjectId,
    pub states: Rc<ImageStates>,
    pub run: ImageRun,
}

impl MountedImage {
    /// A newly mounted image (V12's `mountImage(image, slot, loaded = true)`), not yet in
    /// any state: [`MountedImage::enter`] state 0 next.
    pub fn new(data: ObjectId, states: Rc<ImageStates>, loaded: bool) -> Self {
        MountedImage { data, states, run: ImageRun::new(loaded) }
    }

    /// The current state's name ("" when the image declares none).
    pub fn state_name(&self) -> &str {
        self.run.state_name(&self.states)
    }

    /// Enters state `to` ([`ImageRun::enter`]).
    pub fn enter(&mut self, to: usize, out: &mut Vec<Effect>) {
        self.run.enter(&self.states, to, out);
    }

    /// One step of `dt` seconds ([`ImageRun::update`]); the energy drained.
    pub fn update(&mut self, dt: f32, out: &mut Vec<Effect>) -> f32 {
        self.run.update(&self.states, dt, out)
    }
}

/// A mounted image, what the slot keeps of its datablock beside the machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub image: MountedImage,
    /// The datablock's `offset` from the muzzle's default place.
    pub offset: glam::Vec3,
    /// Its states and energy use (`usesEnergy`, `minEnergy`, `fireEnergy`), as a controlled
    /// object's moves step it ([`PredictedImage`]).
    pub model: Rc<PredictedImage>,
}

/// A turret's aim (`crate::turrets`): its settings, from its barrel's datablock when it is mounted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurretAim {
    /// Metres.
    pub radius: f32,
    /// Radians a tick.
    pub turn: f32,
    /// Ticks between looks for a target.
    pub think_ticks: u32,
    pub wait: u32,
    /// Scene id of the target.
    pub target: Option<u32>,
    /// The script chose the target (`setTargetObject`): it is kept while it lives.
    pub forced: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disc() -> (Console, ObjectId) {
        let mut con = Console::new();
        let _ = con.register_class("GameBaseData", "SimDataBlock");
        let _ = con.register_class("ShapeBaseImageData", "GameBaseData");
        con.eval(
            "datablock ShapeBaseImageData(DiscImage) {\n\
               stateName[0] = \"Activate\"; stateTransitionOnTimeout[0] = \"ActivateReady\"; stateTimeoutValue[0] = 0.5; stateSequence[0] = \"Activate\";\n\
               stateName[1] = \"ActivateReady\"; stateTransitionOnLoaded[1] = \"Ready\"; stateTransitionOnNoAmmo[1] = \"NoAmmo\";\n\
               stateName[2] = \"Ready\"; stateTransitionOnNoAmmo[2] = \"NoAmmo\"; stateTransitionOnTriggerDown[2] = \"Fire\";\n\
               stateName[3] = \"Fire\"; stateTransitionOnTimeout[3] = \"Reload\"; stateTimeoutValue[3] = 0.25; stateFire[3] = true; stateScript[3] = \"onFire\"; stateSequence[3] = \"Fire\"; stateRecoil[3] = LightRecoil;\n\
               stateName[4] = \"Reload\"; stateTransitionOnNoAmmo[4] = \"NoAmmo\"; stateTransitionOnTimeout[4] = \"Ready\"; stateTimeoutValue[4] = 0.5;\n\
               stateName[5] = \"NoAmmo\"; stateTransitionOnAmmo[5] = \"Reload\"; stateTransitionOnTriggerDown[5] = \"DryFire\";\n\
               stateName[6] = \"DryFire\"; stateTimeoutValue[6] = 1.0; stateTransitionOnTimeout[6] = \"NoAmmo\";\n\
             };",
        )
        .unwrap();
        let id = con.find_object_str("DiscImage").unwrap();
        (con, id)
    }

    fn run(img: &mut MountedImage, seconds: f32, out: &mut Vec<Effect>) {
        for _ in 0..(seconds / 0.032).round() as usize {
            img.update(0.032, out);
        }
    }

    #[test]
    fn a_disc_launcher_activates_fires_reloads_and_runs_dry() {
        let (con, db) = disc();
        let states = Rc::new(parse_states(&con, db).unwrap());
        assert_eq!(states.states.len(), 7);
        assert_eq!(states.states[3].recoil, 1);
        let mut img = MountedImage::new(db, states, true);
        img.run.ammo = true;
        let mut out = Vec::new();
        img.enter(0, &mut out);
        assert_eq!(img.state_name(), "Activate");
        assert_eq!(out, vec![Effect::Sequence(Some("Activate".into()))]);
        run(&mut img, 0.6, &mut out);
        assert_eq!(img.state_name(), "Ready", "activated, loaded: ready");
        out.clear();
        img.run.trigger = true;
        img.update(0.032, &mut out);
        assert_eq!(img.state_name(), "Fire");
        assert_eq!(
            out,
            vec![
                Effect::Fire { scripted: true },
                Effect::Sequence(Some("Fire".into())),
                Effect::Script("onFire".into())
            ]
        );
        // Held down: fire (8 ticks), reload (16), ready (1), fire again: a shot every 0.8 s.
        run(&mut img, 1.7, &mut out);
        assert_eq!(img.run.fire_count, 3);
        img.run.trigger = false;
        img.run.ammo = false;
        run(&mut img, 1.0, &mut out);
        assert_eq!(img.state_name(), "NoAmmo");
        img.run.trigger = true;
        img.update(0.032, &mut out);
        assert_eq!(img.state_name(), "DryFire");
        assert_eq!(img.run.fire_count, 3, "dry fire fires nothing");
    }

    #[test]
    fn an_unknown_state_is_an_error_naming_it() {
        let (mut con, _) = disc();
        con.eval("datablock ShapeBaseImageData(Typo) { stateName[0] = \"A\"; stateTransitionOnTimeout[0] = \"Relaod\"; };").unwrap();
        let id = con.find_object_str("Typo").unwrap();
        let e = parse_states(&con, id).unwrap_err();
        assert!(e.contains("\"Relaod\"") && e.contains("stateTransitionOnTimeout[0]"), "{e}");
    }

    #[test]
    fn zero_timeout_loops_end() {
        let (mut con, _) = disc();
        con.eval(
            "datablock ShapeBaseImageData(Spin) { stateName[0] = \"A\"; stateTransitionOnTimeout[0] = \"B\";\n\
             stateName[1] = \"B\"; stateTransitionOnTimeout[1] = \"A\"; };",
        )
        .unwrap();
        let id = con.find_object_str("Spin").unwrap();
        let mut img = MountedImage::new(id, Rc::new(parse_states(&con, id).unwrap()), true);
        let mut out = Vec::new();
        img.enter(0, &mut out);
        for _ in 0..100 {
            img.update(0.032, &mut out);
        }
        assert!(out.len() < 100 * 18, "a chain ends after 16 states a step");
    }
}
