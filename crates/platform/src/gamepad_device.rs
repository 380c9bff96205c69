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

/// What a gilrs event type says, as a [`PadInput`]; `connected` gives a connect's device name
/// and layout (gilrs has them by id).
fn pad_input(ev: &EventType, connected: impl FnOnce() -> PadInput) -> Option<PadInput> {
    Some(match *ev {
        EventType::Connected => connected(),
        EventType::Disconnected => PadInput::Disconnected,
        EventType::ButtonPressed(b, _) => PadInput::Pressed(pad_button(b)?),
        EventType::ButtonReleased(b, _) => PadInput::Released(pad_button(b)?),
        EventType::ButtonChanged(b, v, _) => PadInput::ButtonValue(pad_button(b)?, v),
        EventType::AxisChanged(a, v, _) => PadInput::Axis(pad_axis(a)?, v),
        _ => return None,
    })
}

/// Takes device reports from `next` (a backend id and what it said; `None` when none is
/// left) and translates them into `out`, until `out` holds [`MAX_EVENTS_PER_POLL`] events
/// (the rest wait for the next poll).
fn drain(
    slots: &mut PadSlots,
    out: &mut Vec<Event>,
    mut next: impl FnMut() -> Option<(usize, Option<PadInput>)>,
) {
    while out.len() < MAX_EVENTS_PER_POLL {
        let Some((id, input)) = next() else { break };
        if let Some(input) = input {
            out.extend(slots.translate(id, input));
        }
    }
}

/// Logs the connects and disconnects among `events`.
fn log_device_changes(events: &[Event]) {
    for e in events {
        if let Event::DeviceChange(d) = e {
            let kind = if d.device_type == InputDeviceType::Gamepad { "gamepad" } else { "joystick" };
            if d.connected {
                tracing::info!(device = %format!("{kind}{}", d.device_inst), name = %d.name, "input device connected");
            } else {
                tracing::info!(device = %format!("{kind}{}", d.device_inst), "input device disconnected");
            }
        }
    }
}

fn connected(gilrs: &Gilrs, id: GamepadId) -> PadInput {
    let pad = gilrs.gamepad(id);
    let name: String = pad.name().chars().filter(|c| !c.is_control()).take(MAX_NAME).collect();
    PadInput::Connected { name, gamepad: pad.mapping_source() != MappingSource::None }
}

/// A rumble as gilrs' two base effects: the strong motor's and the weak one's, their
/// strengths over the whole `u16` range, each playing for the rumble's duration.
fn base_effects(rumble: Rumble) -> [BaseEffect; 2] {
    let scheduling = Replay { play_for: Ticks::from_ms(rumble.duration_ms), ..Default::default() };
    let magnitude = |v: f32| (v.clamp(0.0, 1.0) * f32::from(u16::MAX)).round() as u16;
    [
        BaseEffect {
            kind: BaseEffectType::Strong { magnitude: magnitude(rumble.strong) },
            scheduling,
            envelope: Default::default(),
        },
        BaseEffect {
            kind: BaseEffectType::Weak { magnitude: magnitude(rumble.weak) },
            scheduling,
            envelope: Default::default(),
        },
    ]
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
        let gilrs = &mut self.gilrs;
        drain(&mut self.slots, &mut out, || {
            let ev = gilrs.next_event()?;
            let input = pad_input(&ev.event, || connected(gilrs, ev.id));
            Some((usize::from(ev.id), input))
        });
        log_device_changes(&out);
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
        let [strong, weak] = base_effects(rumble);
        let effect = EffectBuilder::new()
            .add_effect(strong)
            .add_effect(weak)
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

    /// gilrs' events made by hand (no device here): a connect, presses, a trigger's depth,
    /// a stick, buttons and axes gilrs does not name, and a disconnect, through the same
    /// translation and draining `poll` uses.
    #[test]
    fn synthetic_gilrs_events_become_input_and_hot_plug_events() {
        use crate::event::{InputAction, InputObjectType};
        let code = Button::South.to_nec().expect("a native code for South");
        let plugged = || PadInput::Connected { name: "Pad".into(), gamepad: true };
        let reports: Vec<(usize, EventType)> = vec![
            (7, EventType::Connected),
            (7, EventType::ButtonPressed(Button::South, code)),
            (7, EventType::ButtonChanged(Button::RightTrigger2, 0.25, code)),
            (7, EventType::AxisChanged(Axis::LeftStickY, 1.0, code)),
            (7, EventType::ButtonPressed(Button::Unknown, code)),
            (7, EventType::AxisChanged(Axis::Unknown, 0.3, code)),
            (7, EventType::ButtonReleased(Button::South, code)),
            (7, EventType::Disconnected),
        ];
        let mut it = reports.iter();
        let mut slots = PadSlots::new();
        let mut out = Vec::new();
        drain(&mut slots, &mut out, || it.next().map(|(id, ev)| (*id, pad_input(ev, plugged))));
        assert_eq!(out.len(), 6, "{out:#?}");
        assert!(matches!(&out[0], Event::DeviceChange(d) if d.connected && d.name == "Pad"
            && d.device_type == InputDeviceType::Gamepad && d.device_inst == 0));
        let input = |e: &Event| match e {
            Event::Input(i) => (i.object_type, i.object_inst, i.action, i.value),
            other => panic!("not input: {other:?}"),
        };
        assert_eq!(input(&out[1]), (InputObjectType::Button, 0, InputAction::Make, 1.0));
        assert_eq!(input(&out[2]), (InputObjectType::RzAxis, 5, InputAction::Move, 0.25));
        assert_eq!(input(&out[3]), (InputObjectType::YAxis, 1, InputAction::Move, -1.0), "up is negative");
        assert_eq!(input(&out[4]), (InputObjectType::Button, 0, InputAction::Break, 0.0));
        assert!(matches!(&out[5], Event::DeviceChange(d) if !d.connected && d.device_inst == 0));
        log_device_changes(&out);
    }

    /// A flood of reports is taken [`MAX_EVENTS_PER_POLL`] a poll; the rest wait.
    #[test]
    fn a_poll_takes_at_most_its_cap_and_leaves_the_rest() {
        let code = Button::South.to_nec().unwrap();
        let mut left = MAX_EVENTS_PER_POLL + 100;
        let mut slots = PadSlots::new();
        let mut next = || {
            left = left.checked_sub(1)?;
            Some((
                0,
                pad_input(&EventType::AxisChanged(Axis::LeftStickX, 0.1, code), || PadInput::Disconnected),
            ))
        };
        let mut out = Vec::new();
        drain(&mut slots, &mut out, &mut next);
        assert_eq!(out.len(), MAX_EVENTS_PER_POLL);
        let mut out = Vec::new();
        drain(&mut slots, &mut out, &mut next);
        assert_eq!(out.len(), 100);
    }

    /// The machine's own devices through gilrs (none here, or whatever is plugged in): opening
    /// and polling never fail hard, and a rumble on an instance no device holds plays nowhere.
    #[test]
    fn the_machines_devices_open_poll_and_refuse_a_rumble_for_no_device() {
        match Gamepads::open() {
            Ok(mut pads) => {
                let events = pads.poll();
                assert!(events.len() <= MAX_EVENTS_PER_POLL);
                let nobody = Some((InputDeviceType::Joystick, crate::gamepad::MAX_DEVICES_PER_KIND - 1));
                assert_eq!(pads.rumble(nobody, Rumble::new(1.0, 1.0, 10).unwrap()), 0);
            }
            Err(e) => assert!(!e.is_empty()),
        }
    }

    #[test]
    fn a_rumble_becomes_two_base_effects_over_the_u16_range() {
        let r = Rumble::new(1.0, 0.5, 250).unwrap();
        let [strong, weak] = base_effects(r);
        assert!(matches!(strong.kind, BaseEffectType::Strong { magnitude: u16::MAX }));
        assert!(matches!(weak.kind, BaseEffectType::Weak { magnitude: 32768 }));
        assert_eq!(strong.scheduling.play_for, Ticks::from_ms(250));
        assert_eq!(weak.scheduling.play_for, Ticks::from_ms(250));
    }
}
