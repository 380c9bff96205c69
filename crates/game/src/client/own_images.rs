//! The controlling client's own images (V12: "the controlling client predicts its own
//! image"): the images mounted in its control object's first slots (each predicted run names
//! its datablock) are stepped by its own moves with the rest of its predicted state
//! ([`v12_sim::image_machine`]), so its weapon goes into its fire state, plays its fire
//! sequence and its state sound on the tick the button goes down, a round trip before the
//! server's word; a correction brings the state back in line as it does the position.

use crate::images::{Effect, PREDICTED_IMAGES, PredictedImage};
use std::collections::BTreeMap;
use std::rc::Rc;
use v12_console_vm::Console;
use v12_sim::scene::{ControlState, ScriptThread};

/// The models of the control object's predicted images and what they last did.
#[derive(Debug, Default)]
pub(crate) struct OwnImages {
    /// Each image datablock's model (by server id), read once from the client's copy.
    models: BTreeMap<u32, Rc<PredictedImage>>,
    /// The control object's images in the predicted slots.
    pub(crate) slots: [Option<Rc<PredictedImage>>; PREDICTED_IMAGES],
    /// The sequence the predicted images play on the image thread, and since when (ms).
    thread: Option<(ScriptThread, u64)>,
    /// Shots predicted so far.
    pub(crate) shots: u64,
}

impl OwnImages {
    /// Reads the models of the images the predicted state names (each run carries its image
    /// datablock, so the first correction tells; `None`: nothing predicted yet).
    pub(crate) fn update(
        &mut self,
        con: &Console,
        predicted: Option<&ControlState>,
        block_local: &BTreeMap<u32, u32>,
    ) {
        for (slot, out) in self.slots.iter_mut().enumerate() {
            let image = predicted.map(|p| p.images[slot].image).filter(|&i| i != 0);
            *out = image.and_then(|server| {
                let local = *block_local.get(&server)?;
                let model = self
                    .models
                    .entry(server)
                    .or_insert_with(|| Rc::new(crate::weapons::model_of(con, local)))
                    .clone();
                Some(model)
            });
        }
        if self.slots.iter().all(Option::is_none) {
            self.thread = None;
        }
    }

    /// Carries out what one predicted tick's images asked for: the fire sequence on the image
    /// thread, the state's sound where the player stands, a shot counted.
    pub(crate) fn play(
        &mut self,
        con: &mut Console,
        effects: &[(usize, Effect)],
        pos: glam::Vec3,
        now_ms: u64,
    ) {
        for (_, e) in effects {
            match e {
                Effect::Sequence(seq) => {
                    self.thread = seq
                        .clone()
                        .map(|sequence| (ScriptThread { sequence, playing: true, forward: true }, now_ms));
                }
                Effect::Sound(profile) => crate::audio::play_named_at(con, profile, pos.to_array()),
                Effect::Fire { .. } => self.shots += 1,
                // The image's scripts run on the server.
                Effect::Script(_) => {}
            }
        }
    }

    /// The image thread's sequence and how long it has played (seconds) at `now_ms`, when a
    /// predicted image plays one.
    pub(crate) fn thread(&self, now_ms: u64) -> Option<(ScriptThread, f32)> {
        self.thread.as_ref().map(|(t, since)| (t.clone(), now_ms.saturating_sub(*since) as f32 / 1000.0))
    }

    /// Whether the image thread is the predicted images' (the server's is then ignored).
    pub(crate) fn predicts(&self) -> bool {
        self.slots.iter().any(Option::is_some)
    }
}
