//! Gamepads and joysticks as platform events: what a device backend (gilrs, in
//! `gamepad_device`, with the `gamepad` feature) reports, translated into [`InputEvent`]s the action maps bind
//! (`bind(joystick0, xaxis, ...)`, `bind(gamepad0, button3, ...)`) and into
//! [`DeviceChangeEvent`]s for hot-plug. The translation is pure: tests feed it synthetic input.
//!
//! Devices get an instance per kind, the lowest free one when they connect: `gamepad0`,
//! `gamepad1`, ... for devices with a gamepad layout, `joystick0`, ... for the others. A device
//! that comes back keeps its instance while the backend keeps its id.
//!
//! Values follow V12's DirectInput conventions: axes in -1..1 with the stick pushed forward
//! (or up) negative, buttons make 1 and break 0; the analog triggers are the Z axes
//! (left `zaxis`, right `rzaxis`) in 0..1.

use std::collections::BTreeMap;

use crate::event::{
    DeviceChangeEvent, Event, InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers,
};

/// A gamepad's buttons by position (an Xbox-style layout: South is A, East is B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PadButton {
    South,
    East,
    North,
    West,
    LeftTrigger,
    RightTrigger,
    LeftTrigger2,
    RightTrigger2,
    Select,
    Start,
    LeftThumb,
    RightThumb,
    DPadUp,
    DPadDown,
    DPadLeft,
    DPadRight,
    Mode,
    C,
    Z,
}

impl PadButton {
    /// The button's number: what `bind(gamepad0, "buttonN", ...)` names.
    pub fn number(self) -> u16 {
        self as u16
    }
}

/// A gamepad's axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PadAxis {
    LeftStickX,
    LeftStickY,
    LeftZ,
    RightStickX,
    RightStickY,
    RightZ,
    DPadX,
    DPadY,
}

/// One thing a device reported.
#[derive(Clone, Debug, PartialEq)]
pub enum PadInput {
    /// The device is there (at startup, or plugged in): its name, and whether it has a
    /// gamepad layout (else it is a joystick).
    Connected {
        name: String,
        gamepad: bool,
    },
    Disconnected,
    Pressed(PadButton),
    Released(PadButton),
    /// An analog button's depth, 0..1 (only the triggers' matter: the others press and release).
    ButtonValue(PadButton, f32),
    /// An axis, -1..1 as the backend reports it (up positive).
    Axis(PadAxis, f32),
}

/// Most devices of one kind at once.
pub const MAX_DEVICES_PER_KIND: u8 = 16;

/// An input object's instance number as the action maps number axes (`xaxis` 0 ... `pov` 7).
pub fn axis_inst(object: InputObjectType) -> u16 {
    match object {
        InputObjectType::XAxis => 0,
        InputObjectType::YAxis => 1,
        InputObjectType::ZAxis => 2,
        InputObjectType::RxAxis => 3,
        InputObjectType::RyAxis => 4,
        InputObjectType::RzAxis => 5,
        InputObjectType::Slider => 6,
        InputObjectType::Pov => 7,
        InputObjectType::Key | InputObjectType::Button => 0,
    }
}

/// Which device instance each backend id has: the hot-plug bookkeeping and the translation.
#[derive(Debug, Default)]
pub struct PadSlots {
    /// Backend id → (kind, instance, still connected).
    slots: BTreeMap<usize, (InputDeviceType, u8, bool)>,
}

impl PadSlots {
    /// No device yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The device kind and instance of backend id `id`, if it has one.
    pub fn device(&self, id: usize) -> Option<(InputDeviceType, u8)> {
        self.slots.get(&id).map(|&(kind, inst, _)| (kind, inst))
    }

    /// Connected devices, as (kind, instance).
    pub fn connected(&self) -> Vec<(InputDeviceType, u8)> {
        self.slots.values().filter(|s| s.2).map(|&(k, i, _)| (k, i)).collect()
    }

    /// The lowest instance of `kind` no device holds (a disconnected one's included, so that
    /// it gets its own back); `None` when all are taken.
    fn free_inst(&self, kind: InputDeviceType) -> Option<u8> {
        (0..MAX_DEVICES_PER_KIND).find(|i| !self.slots.values().any(|s| s.0 == kind && s.1 == *i))
    }

    /// The slot for `id`, given one (a gamepad) when input comes from a device never announced.
    fn slot_for(&mut self, id: usize, kind: InputDeviceType) -> Option<(InputDeviceType, u8)> {
        if let Some(s) = self.slots.get_mut(&id) {
            s.2 = true;
            return Some((s.0, s.1));
        }
        let Some(inst) = self.free_inst(kind) else {
            tracing::warn!(?kind, "more than {MAX_DEVICES_PER_KIND} input devices of one kind: ignored");
            return None;
        };
        self.slots.insert(id, (kind, inst, true));
        Some((kind, inst))
    }

    /// The platform event for what device `id` reported, if any (unused buttons and axes,
    /// values that are not numbers and devices past the cap give none).
    pub fn translate(&mut self, id: usize, input: PadInput) -> Option<Event> {
        match input {
            PadInput::Connected { name, gamepad } => {
                // Announced twice (at startup and by the backend): one event.
                if self.slots.get(&id).is_some_and(|s| s.2) {
                    return None;
                }
                let kind = if gamepad { InputDeviceType::Gamepad } else { InputDeviceType::Joystick };
                let (device_type, device_inst) = self.slot_for(id, kind)?;
                Some(Event::DeviceChange(DeviceChangeEvent {
                    device_type,
                    device_inst,
                    connected: true,
                    name,
                }))
            }
            PadInput::Disconnected => {
                let s = self.slots.get_mut(&id)?;
                s.2 = false;
                let (device_type, device_inst) = (s.0, s.1);
                Some(Event::DeviceChange(DeviceChangeEvent {
                    device_type,
                    device_inst,
                    connected: false,
                    name: String::new(),
                }))
            }
            other => {
                let (object_type, object_inst, action, value) = object_of(&other)?;
                let (device_type, device_inst) = self.slot_for(id, InputDeviceType::Gamepad)?;
                Some(Event::Input(InputEvent {
                    device_type,
                    device_inst,
                    object_type,
                    object_inst,
                    action,
                    modifiers: Modifiers::NONE,
                    ascii: 0,
                    value,
                }))
            }
        }
    }
}

/// The input object, its instance, the action and the value of a button or axis report.
fn object_of(input: &PadInput) -> Option<(InputObjectType, u16, InputAction, f32)> {
    let axis = |object: InputObjectType, v: f32| Some((object, axis_inst(object), InputAction::Move, v));
    match *input {
        PadInput::Pressed(b) => Some((InputObjectType::Button, b.number(), InputAction::Make, 1.0)),
        PadInput::Released(b) => Some((InputObjectType::Button, b.number(), InputAction::Break, 0.0)),
        PadInput::ButtonValue(b, v) if v.is_finite() => match b {
            PadButton::LeftTrigger2 => axis(InputObjectType::ZAxis, v.clamp(0.0, 1.0)),
            PadButton::RightTrigger2 => axis(InputObjectType::RzAxis, v.clamp(0.0, 1.0)),
            _ => None,
        },
        PadInput::Axis(a, v) if v.is_finite() => {
            let v = v.clamp(-1.0, 1.0);
            // DirectInput's sign: forward (up) is negative.
            let up_negative = if v == 0.0 { 0.0 } else { -v };
            match a {
                PadAxis::LeftStickX => axis(InputObjectType::XAxis, v),
                PadAxis::LeftStickY => axis(InputObjectType::YAxis, up_negative),
                PadAxis::LeftZ => axis(InputObjectType::ZAxis, v),
                PadAxis::RightStickX => axis(InputObjectType::RxAxis, v),
                PadAxis::RightStickY => axis(InputObjectType::RyAxis, up_negative),
                PadAxis::RightZ => axis(InputObjectType::RzAxis, v),
                // The hat reports as the DPad buttons; its axes would fire twice.
                PadAxis::DPadX | PadAxis::DPadY => None,
            }
        }
        _ => None,
    }
}

/// A force-feedback effect to play: the strong (low-frequency) and weak (high-frequency)
/// motors' strengths, 0..1, for `duration_ms`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rumble {
    pub strong: f32,
    pub weak: f32,
    pub duration_ms: u32,
}

impl Rumble {
    /// Longest effect played.
    pub const MAX_DURATION_MS: u32 = 5_000;

    /// A rumble with its values brought into range (not-a-number is 0); `None` when it would
    /// not be felt (no strength or no time).
    pub fn new(strong: f32, weak: f32, duration_ms: u32) -> Option<Rumble> {
        let unit = |v: f32| if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 };
        let r = Rumble {
            strong: unit(strong),
            weak: unit(weak),
            duration_ms: duration_ms.min(Self::MAX_DURATION_MS),
        };
        (r.duration_ms > 0 && (r.strong > 0.0 || r.weak > 0.0)).then_some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(ev: Option<Event>) -> InputEvent {
        match ev {
            Some(Event::Input(i)) => i,
            other => panic!("not an input event: {other:?}"),
        }
    }

    #[test]
    fn buttons_and_axes_become_input_events_on_their_slot() {
        let mut s = PadSlots::new();
        let ev = s.translate(7, PadInput::Connected { name: "Pad".into(), gamepad: true });
        assert_eq!(
            ev,
            Some(Event::DeviceChange(DeviceChangeEvent {
                device_type: InputDeviceType::Gamepad,
                device_inst: 0,
                connected: true,
                name: "Pad".into()
            }))
        );
        let b = input(s.translate(7, PadInput::Pressed(PadButton::West)));
        assert_eq!(
            (b.device_type, b.device_inst, b.object_type),
            (InputDeviceType::Gamepad, 0, InputObjectType::Button)
        );
        assert_eq!((b.object_inst, b.action, b.value), (3, InputAction::Make, 1.0));
        let b = input(s.translate(7, PadInput::Released(PadButton::West)));
        assert_eq!((b.action, b.value), (InputAction::Break, 0.0));
        let y = input(s.translate(7, PadInput::Axis(PadAxis::LeftStickY, 0.5)));
        assert_eq!(
            (y.object_type, y.object_inst, y.action, y.value),
            (InputObjectType::YAxis, 1, InputAction::Move, -0.5)
        );
        let x = input(s.translate(7, PadInput::Axis(PadAxis::RightStickX, 3.0)));
        assert_eq!((x.object_type, x.object_inst, x.value), (InputObjectType::RxAxis, 3, 1.0));
        let t = input(s.translate(7, PadInput::ButtonValue(PadButton::RightTrigger2, 0.25)));
        assert_eq!((t.object_type, t.object_inst, t.value), (InputObjectType::RzAxis, 5, 0.25));
        assert_eq!(s.translate(7, PadInput::ButtonValue(PadButton::South, 1.0)), None);
        assert_eq!(s.translate(7, PadInput::Axis(PadAxis::LeftStickX, f32::NAN)), None);
        assert_eq!(s.translate(7, PadInput::Axis(PadAxis::DPadX, 1.0)), None);
    }

    #[test]
    fn hot_plug_keeps_instances_and_gives_the_lowest_free_one() {
        let mut s = PadSlots::new();
        s.translate(1, PadInput::Connected { name: "A".into(), gamepad: true });
        s.translate(2, PadInput::Connected { name: "Stick".into(), gamepad: false });
        s.translate(3, PadInput::Connected { name: "B".into(), gamepad: true });
        assert_eq!(s.device(2), Some((InputDeviceType::Joystick, 0)));
        assert_eq!(s.device(3), Some((InputDeviceType::Gamepad, 1)));
        assert_eq!(s.translate(3, PadInput::Connected { name: "B".into(), gamepad: true }), None, "once");
        let gone = s.translate(1, PadInput::Disconnected);
        assert!(matches!(
            gone,
            Some(Event::DeviceChange(DeviceChangeEvent { device_inst: 0, connected: false, .. }))
        ));
        assert_eq!(s.connected().len(), 2);
        // A new device does not take the instance of one unplugged; the old one gets it back.
        s.translate(4, PadInput::Connected { name: "C".into(), gamepad: true });
        assert_eq!(s.device(4), Some((InputDeviceType::Gamepad, 2)));
        s.translate(1, PadInput::Connected { name: "A".into(), gamepad: true });
        assert_eq!(s.device(1), Some((InputDeviceType::Gamepad, 0)));
        // A disconnect of a device never seen is nothing; input from one is a gamepad.
        assert_eq!(s.translate(9, PadInput::Disconnected), None);
        assert_eq!(input(s.translate(9, PadInput::Pressed(PadButton::South))).device_inst, 3);
    }

    #[test]
    fn devices_past_the_cap_are_ignored() {
        let mut s = PadSlots::new();
        for id in 0..usize::from(MAX_DEVICES_PER_KIND) {
            assert!(s.translate(id, PadInput::Connected { name: String::new(), gamepad: true }).is_some());
        }
        assert_eq!(s.translate(99, PadInput::Connected { name: String::new(), gamepad: true }), None);
        assert_eq!(s.translate(99, PadInput::Pressed(PadButton::South)), None);
    }

    #[test]
    fn rumbles_are_brought_into_range() {
        assert_eq!(
            Rumble::new(2.0, f32::NAN, 60_000),
            Some(Rumble { strong: 1.0, weak: 0.0, duration_ms: 5_000 })
        );
        assert_eq!(Rumble::new(0.0, 0.0, 100), None);
        assert_eq!(Rumble::new(0.5, 0.5, 0), None);
    }
}
