//! The machine's gamepads and joysticks through gilrs (the `gamepad` feature): their reports as
//! platform [`Event`]s ([`crate::gamepad::PadSlots`] translates them), hot-plug logged, and
//! force feedback ([`Rumble`]) on the devices that have it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use gilrs::ff::{BaseEffect, BaseEffectType, EffectBuilder, Repeat, Replay, Ticks};
use gilrs::{Axis, Button, EventType, GamepadId, Gilrs, MappingSource};

use crate::event::{Event, InputDeviceType};
use crate::gamepad::{PadAxis, PadButton, PadInput, PadSlots, Rumble};

/// Most device reports taken in one [`Gamepads::poll`] (the rest wait for the next).
const MAX_EVENTS_PER_POLL: usize = 1024;
/// Most effects playing at once (the oldest stops for a new one).
const MAX_EFFECTS: usize = 8;
/// Longest device name kept.
const MAX_NAME: usize = 64;

/// The gilrs button of a pad button, and back.
pub fn pad_button(b: Button) -> Option<PadButton> {
    Some(match b {
        Button::South => PadButton::South,
        Button::East => PadButton::East,
        Button::North => PadButton::North,
        Button::West => PadButton::West,
        Button::C => PadButton::C,
        Button::Z => PadButton::Z,
        Button::LeftTrigger => PadButton::LeftTrigger,
        Button::LeftTrigger2 => PadButton::LeftTrigger2,
        Button::RightTrigger => PadButton::RightTrigger,
        Button::RightTrigger2 => PadButton::RightTrigger2,
        Button::Select => PadButton::Select,
        Button::Start => PadButton::Start,
        Button::Mode => PadButton::Mode,
        Button::LeftThumb => PadButton::LeftThumb,
        Button::RightThumb => PadButton::RightThumb,
        Button::DPadUp => PadButton::DPadUp,
        Button::DPadDown => PadButton::DPadDown,
        Button::DPadLeft => PadButton::DPadLeft,
        Button::DPadRight => PadButton::DPadRight,
        _ => return None,
    })
}

/// The pad axis of a gilrs axis.
pub fn pad_axis(a: Axis) -> Option<PadAxis> {
    Some(match a {
        Axis::LeftStickX => PadAxis::LeftStickX,
        Axis::LeftStickY => PadAxis::LeftStickY,
        Axis::LeftZ => PadAxis::LeftZ,
        Axis::RightStickX => PadAxis::RightStickX,
        Axis::RightStickY => PadAxis::RightStickY,
        Axis::RightZ => PadAxis::RightZ,
        Axis::DPadX => PadAxis::DPadX,
        Axis::DPadY => PadAxis::DPadY,
        _ => return None,
    })
}

/// What a gilrs event type says, as a [`PadInput`] (the device's name and layout for a
/// connect come from gilrs, by id).
fn pad_input(gilrs: &Gilrs, id: GamepadId, ev: &EventType) -> Option<PadInput> {
    Some(match *ev {
        EventType::Connected => connected(gilrs, id),
        EventType::Disconnected => PadInput::Disconnected,
        EventType::ButtonPressed(b, _) => PadInput::Pressed(pad_button(b)?),
        EventType::ButtonReleased(b, _) => PadInput::Released(pad_button(b)?),
        EventType::ButtonChanged(b, v, _) => PadInput::ButtonValue(pad_button(b)?, v),
        EventType::AxisChanged(a, v, _) => PadInput::Axis(pad_axis(a)?, v),
        _ => return None,
    })
}

fn connected(gilrs: &Gilrs, id: GamepadId) -> PadInput {
    let pad = gilrs.gamepad(id);
    let name: String = pad.name().chars().filter(|c| !c.is_control()).take(MAX_NAME).collect();
    PadInput::Connected { name, gamepad: pad.mapping_source() != MappingSource::None }
}

/// The gamepads and joysticks: poll them once a frame.
pub struct Gamepads {
    gilrs: Gilrs,
    slots: PadSlots,
    /// Devices there at startup, announced by the first poll.
    announce: Vec<GamepadId>,
    /// Effects playing, with when they end (dropping an effect stops it).
    effects: VecDeque<(gilrs::ff::Effect, Instant)>,
}

impl std::fmt::Debug for Gamepads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gamepads").field("slots", &self.slots).finish_non_exhaustive()
    }
}

impl Gamepads {
    /// Opens the machine's input devices; `Err` says why there are none (no udev, a platform
    /// gilrs does not support).
    pub fn open() -> Result<Gamepads, String> {
        let gilrs = Gilrs::new().map_err(|e| e.to_string())?;
        let announce = gilrs.gamepads().map(|(id, _)| id).collect();
        Ok(Gamepads { gilrs, slots: PadSlots::new(), announce, effects: VecDeque::new() })
    }

    /// What the devices reported since the last poll, as platform events (connects and
    /// disconnects logged).
    pub fn poll(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        for id in std::mem::take(&mut self.announce) {
            let input = connected(&self.gilrs, id);
            out.extend(self.slots.translate(usize::from(id), input));
        }
        while out.len() < MAX_EVENTS_PER_POLL {
            let Some(ev) = self.gilrs.next_event() else { break };
            let Some(input) = pad_input(&self.gilrs, ev.id, &ev.event) else { continue };
            out.extend(self.slots.translate(usize::from(ev.id), input));
        }
        for e in &out {
            if let Event::DeviceChange(d) = e {
                let kind = if d.device_type == InputDeviceType::Gamepad { "gamepad" } else { "joystick" };
                if d.connected {
                    tracing::info!(device = %format!("{kind}{}", d.device_inst), name = %d.name, "input device connected");
                } else {
                    tracing::info!(device = %format!("{kind}{}", d.device_inst), "input device disconnected");
                }
            }
        }
        let now = Instant::now();
        self.effects.retain(|(_, end)| *end > now);
        out
    }

    /// Plays `rumble` on device `(kind, inst)`, or on every connected device with `None`.
    /// Returns how many devices play it: 0 where none has force feedback.
    pub fn rumble(&mut self, device: Option<(InputDeviceType, u8)>, rumble: Rumble) -> usize {
        let ids: Vec<GamepadId> = self
            .gilrs
            .gamepads()
            .filter(|(id, pad)| {
                pad.is_ff_supported() && device.is_none_or(|d| self.slots.device(usize::from(*id)) == Some(d))
            })
            .map(|(id, _)| id)
            .collect();
        if ids.is_empty() {
            return 0;
        }
        let ticks = Ticks::from_ms(rumble.duration_ms);
        let scheduling = Replay { play_for: ticks, ..Default::default() };
        let magnitude = |v: f32| (v * f32::from(u16::MAX)) as u16;
        let effect = EffectBuilder::new()
            .add_effect(BaseEffect {
                kind: BaseEffectType::Strong { magnitude: magnitude(rumble.strong) },
                scheduling,
                envelope: Default::default(),
            })
            .add_effect(BaseEffect {
                kind: BaseEffectType::Weak { magnitude: magnitude(rumble.weak) },
                scheduling,
                envelope: Default::default(),
            })
            .repeat(Repeat::For(ticks))
            .gamepads(&ids)
            .finish(&mut self.gilrs);
        match effect.and_then(|e| e.play().map(|()| e)) {
            Ok(e) => {
                if self.effects.len() >= MAX_EFFECTS {
                    self.effects.pop_front();
                }
                let end = Instant::now() + Duration::from_millis(u64::from(rumble.duration_ms));
                self.effects.push_back((e, end));
                ids.len()
            }
            Err(e) => {
                tracing::debug!(%e, "force feedback not played");
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gilrs_buttons_and_axes_map_to_pad_ones() {
        assert_eq!(pad_button(Button::South).map(PadButton::number), Some(0));
        assert_eq!(pad_button(Button::DPadRight), Some(PadButton::DPadRight));
        assert_eq!(pad_button(Button::Unknown), None);
        assert_eq!(pad_axis(Axis::RightStickY), Some(PadAxis::RightStickY));
        assert_eq!(pad_axis(Axis::Unknown), None);
        // A gilrs report goes through the same translation as the synthetic ones.
        let mut slots = PadSlots::new();
        let ev = slots.translate(0, PadInput::Axis(pad_axis(Axis::LeftStickX).unwrap(), 0.5));
        assert!(matches!(ev, Some(Event::Input(i)) if i.value == 0.5));
    }
}
