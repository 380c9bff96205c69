//! Gamepads and joysticks as the scripts see them (the platform's `gamepad` module translates
//! the devices' reports; the window client polls them): hot-plug callbacks, V12's joystick
//! functions, and force feedback from Tribes 2's EffectProfiles.
//!
//! - `onInputDeviceConnected(%device, %name)` and `onInputDeviceDisconnected(%device)` are
//!   called, when a script defines them, with the name `bind` uses (`gamepad0`, `joystick1`).
//! - `isJoystickDetected()`, `enableJoystick()`, `disableJoystick()` (V12's; devices are
//!   enabled until a script disables them: their input is then dropped), `getJoystickAxes(n)`
//!   (V12's answer: the count, then one letter per axis, tab-separated: `6 X Y Z R U V`),
//!   `getInputDevices()` (the connected devices' names, space-separated).
//! - An AudioProfile whose `effect` names an EffectProfile plays that effect as a rumble when it
//!   sounds within the effect's reach: full strength up to `minDistance`, fading to nothing at
//!   `maxDistance`. Tribes 2's EffectProfiles name Immersion force files (`effectname`), which
//!   are not read; this engine's optional fields `strong` and `weak` (the motors, 0..1, 0.5 by
//!   default) and `duration` (milliseconds, 150 by default) say what plays.

use v12_console_vm::{Console, ObjectId, Value};
use v12_platform::{DeviceChangeEvent, InputDeviceType, InputEvent, Rumble};

/// The console object holding the devices' state.
const HOST_OBJECT: &str = "InputDeviceSystem";
/// Most rumbles waiting for the host to play them (older ones are dropped).
const MAX_PENDING_RUMBLES: usize = 16;

/// The connected devices, whether their input is taken, and the rumbles to play.
#[derive(Debug, Default)]
pub struct InputDevices {
    connected: Vec<(InputDeviceType, u8, String)>,
    disabled: bool,
    /// A host plays force feedback (the window client): rumbles are queued for it.
    plays_rumbles: bool,
    rumbles: Vec<Rumble>,
}

/// The name `bind` uses for a device: `gamepad0`, `joystick1`.
pub fn device_name(kind: InputDeviceType, inst: u8) -> String {
    let k = match kind {
        InputDeviceType::Keyboard => "keyboard",
        InputDeviceType::Mouse => "mouse",
        InputDeviceType::Joystick => "joystick",
        InputDeviceType::Gamepad => "gamepad",
    };
    format!("{k}{inst}")
}

fn state(con: &mut Console) -> Option<&mut InputDevices> {
    let id = con.find_object_str(HOST_OBJECT)?;
    con.object_data_mut::<InputDevices>(id)
}

/// This host plays force feedback (the window client with its devices open): rumbles are
/// queued for [`take_rumbles`].
pub fn set_plays_rumbles(con: &mut Console, on: bool) {
    if let Some(s) = state(con) {
        s.plays_rumbles = on;
    }
}

/// Registers the joystick functions and the devices' state (every mode, as V12's one
/// executable had them).
pub fn install(con: &mut Console) {
    if con.find_object_str(HOST_OBJECT).is_none() {
        let _ = con.register_class(HOST_OBJECT, "SimObject");
        let data = Box::new(InputDevices::default());
        if let Err(e) = con.create_object_with_data(HOST_OBJECT, Some(HOST_OBJECT), data) {
            tracing::warn!("{HOST_OBJECT}: {e}");
            return;
        }
    }
    con.register_function(
        "isJoystickDetected",
        1,
        1,
        "isJoystickDetected() - a joystick or gamepad is connected",
        |c, _| state(c).is_some_and(|s| !s.connected.is_empty()),
    );
    con.register_function(
        "enableJoystick",
        1,
        1,
        "enableJoystick() - take joystick and gamepad input",
        |c, _| state(c).map(|s| s.disabled = false).is_some(),
    );
    con.register_function(
        "disableJoystick",
        1,
        1,
        "disableJoystick() - drop joystick and gamepad input",
        |c, _| state(c).map(|s| s.disabled = true).is_some(),
    );
    con.register_function(
        "getJoystickAxes",
        2,
        2,
        "getJoystickAxes(n) - \"count<TAB>X<TAB>Y...\" of joystick n",
        |c, a| {
            let n = a.str(0).trim().parse::<u8>().ok();
            let there = state(c).is_some_and(|s| s.connected.iter().any(|d| Some(d.1) == n));
            // Every device gilrs reports has the standard layout's six axes.
            if there { "6\tX\tY\tZ\tR\tU\tV".to_string() } else { "0".to_string() }
        },
    );
    con.register_function(
        "getInputDevices",
        1,
        1,
        "getInputDevices() - the connected devices (\"gamepad0 joystick0\")",
        |c, _| {
            let names: Vec<String> = state(c)
                .map(|s| s.connected.iter().map(|d| device_name(d.0, d.1)).collect())
                .unwrap_or_default();
            names.join(" ")
        },
    );
}

/// A device came or went: logged, kept, and told to the scripts' callbacks.
pub fn on_device_change(con: &mut Console, ev: &DeviceChangeEvent) {
    let name = device_name(ev.device_type, ev.device_inst);
    if let Some(s) = state(con) {
        s.connected.retain(|d| (d.0, d.1) != (ev.device_type, ev.device_inst));
        if ev.connected {
            s.connected.push((ev.device_type, ev.device_inst, ev.name.clone()));
        }
    }
    if ev.connected {
        tracing::info!(device = %name, name = %ev.name, "input device connected");
        if con.is_function("onInputDeviceConnected") {
            con.call_function(
                "onInputDeviceConnected",
                &[Value::from(name.as_str()), Value::from(ev.name.as_str())],
            );
        }
    } else {
        tracing::info!(device = %name, "input device disconnected");
        if con.is_function("onInputDeviceDisconnected") {
            con.call_function("onInputDeviceDisconnected", &[Value::from(name.as_str())]);
        }
    }
}

/// Whether an input event is taken: joystick and gamepad input is dropped while disabled.
pub fn accepts(con: &mut Console, ev: &InputEvent) -> bool {
    match ev.device_type {
        InputDeviceType::Joystick | InputDeviceType::Gamepad => state(con).is_none_or(|s| !s.disabled),
        InputDeviceType::Keyboard | InputDeviceType::Mouse => true,
    }
}

/// A number field of an EffectProfile: `default` when unset, junk a warning.
fn number(con: &mut Console, id: ObjectId, field: &str, default: f32) -> f32 {
    let text = con.get_field(id, field).as_text().trim().to_string();
    if text.is_empty() {
        return default;
    }
    match text.parse::<f32>() {
        Ok(v) if v.is_finite() => v,
        _ => {
            con.warn(&format!(
                "EffectProfile {}: {field} = \"{text}\" is not a number; using {default}",
                con.object_name(id)
            ));
            default
        }
    }
}

/// The rumble EffectProfile `effect` plays heard `distance` metres away (`None`: a 2D sound,
/// full strength); `None` beyond its reach.
pub fn effect_rumble(con: &mut Console, effect: ObjectId, distance: Option<f32>) -> Option<Rumble> {
    let min = number(con, effect, "minDistance", 1.0).max(0.0);
    let max = number(con, effect, "maxDistance", 100.0).max(min);
    let gain = match distance {
        None => 1.0,
        Some(d) if d <= min => 1.0,
        Some(d) if d >= max => return None,
        Some(d) => (max - d) / (max - min),
    };
    let strong = number(con, effect, "strong", 0.5);
    let weak = number(con, effect, "weak", 0.5);
    let duration = number(con, effect, "duration", 150.0).clamp(0.0, Rumble::MAX_DURATION_MS as f32) as u32;
    Rumble::new(strong * gain, weak * gain, duration)
}

/// An AudioProfile sounded `distance` metres from the listener: its EffectProfile's rumble is
/// queued for the host (nothing where no host plays force feedback, or input is disabled).
pub fn sound_effect(con: &mut Console, audio_profile: ObjectId, distance: Option<f32>) {
    if !state(con).is_some_and(|s| s.plays_rumbles && !s.disabled && !s.connected.is_empty()) {
        return;
    }
    let named = con.get_field(audio_profile, "effect");
    let Some(effect) = con.find_object(&named).filter(|&e| crate::classes::is_a(con, e, "EffectProfile"))
    else {
        return;
    };
    let Some(r) = effect_rumble(con, effect, distance) else { return };
    if let Some(s) = state(con) {
        if s.rumbles.len() >= MAX_PENDING_RUMBLES {
            s.rumbles.remove(0);
        }
        s.rumbles.push(r);
    }
}

/// The rumbles queued since the last call, for the host to play.
pub fn take_rumbles(con: &mut Console) -> Vec<Rumble> {
    state(con).map(|s| std::mem::take(&mut s.rumbles)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use v12_console_vm::BufferSink;
    use v12_platform::{InputAction, InputObjectType, Modifiers};

    fn setup() -> (Console, BufferSink) {
        let mut con = Console::new();
        let out = BufferSink::new();
        con.set_output(Box::new(out.clone()));
        for class in ["AudioProfile", "EffectProfile"] {
            con.register_class(class, "SimDataBlock").unwrap();
        }
        install(&mut con);
        (con, out)
    }

    fn change(kind: InputDeviceType, inst: u8, connected: bool, name: &str) -> DeviceChangeEvent {
        DeviceChangeEvent { device_type: kind, device_inst: inst, connected, name: name.into() }
    }

    #[test]
    fn hot_plug_reaches_the_scripts_and_v12s_joystick_functions() {
        let (mut con, out) = setup();
        con.eval(
            r#"function onInputDeviceConnected(%d, %n) { echo("+" @ %d @ " " @ %n); }
               function onInputDeviceDisconnected(%d) { echo("-" @ %d); }"#,
        )
        .unwrap();
        let ask = |con: &mut Console, s: &str| con.eval(s).unwrap().as_text().into_owned();
        assert_eq!(ask(&mut con, "return isJoystickDetected();"), "0");
        on_device_change(&mut con, &change(InputDeviceType::Gamepad, 0, true, "Pad"));
        on_device_change(&mut con, &change(InputDeviceType::Joystick, 0, true, "Stick"));
        assert_eq!(ask(&mut con, "return isJoystickDetected();"), "1");
        assert_eq!(ask(&mut con, "return getInputDevices();"), "gamepad0 joystick0");
        assert_eq!(ask(&mut con, "return getField(getJoystickAxes(0), 0);"), "6");
        assert_eq!(ask(&mut con, "return getJoystickAxes(3);"), "0");
        on_device_change(&mut con, &change(InputDeviceType::Gamepad, 0, false, ""));
        assert_eq!(ask(&mut con, "return getInputDevices();"), "joystick0");
        assert_eq!(out.stdout(), "+gamepad0 Pad\n+joystick0 Stick\n-gamepad0\n");
        // disableJoystick drops the devices' input, not the keyboard's.
        let pad = InputEvent {
            device_type: InputDeviceType::Gamepad,
            device_inst: 0,
            object_type: InputObjectType::Button,
            object_inst: 0,
            action: InputAction::Make,
            modifiers: Modifiers::NONE,
            ascii: 0,
            value: 1.0,
        };
        let key =
            InputEvent { device_type: InputDeviceType::Keyboard, object_type: InputObjectType::Key, ..pad };
        assert!(accepts(&mut con, &pad));
        con.eval("disableJoystick();").unwrap();
        assert!(!accepts(&mut con, &pad));
        assert!(accepts(&mut con, &key));
        con.eval("enableJoystick();").unwrap();
        assert!(accepts(&mut con, &pad));
    }

    #[test]
    fn an_effect_profile_rumbles_by_distance_and_its_fields() {
        let (mut con, out) = setup();
        con.eval(
            r#"datablock EffectProfile(NearEffect) { effectname = "weapons/x"; minDistance = 2; maxDistance = 10; };
               datablock EffectProfile(BigEffect) { minDistance = 2; maxDistance = 10; strong = 1; weak = 0; duration = 400; };
               datablock EffectProfile(JunkEffect) { strong = "lots"; };
               datablock AudioProfile(Boom) { filename = "boom.wav"; effect = BigEffect; };
               datablock AudioProfile(Quiet) { filename = "q.wav"; };"#,
        )
        .unwrap();
        let e = |con: &Console, n: &str| con.find_object_str(n).unwrap();
        let near = e(&con, "NearEffect");
        assert_eq!(effect_rumble(&mut con, near, Some(1.0)), Rumble::new(0.5, 0.5, 150));
        assert_eq!(effect_rumble(&mut con, near, None), Rumble::new(0.5, 0.5, 150));
        assert_eq!(effect_rumble(&mut con, near, Some(6.0)), Rumble::new(0.25, 0.25, 150));
        assert_eq!(effect_rumble(&mut con, near, Some(10.0)), None);
        let big = e(&con, "BigEffect");
        assert_eq!(effect_rumble(&mut con, big, Some(0.0)), Rumble::new(1.0, 0.0, 400));
        let junk = e(&con, "JunkEffect");
        assert_eq!(effect_rumble(&mut con, junk, None), Rumble::new(0.5, 0.5, 150));
        assert!(out.all().contains("strong = \"lots\" is not a number"), "{}", out.all());
        // Queued only where a host plays them and a device is there.
        let boom = e(&con, "Boom");
        sound_effect(&mut con, boom, Some(1.0));
        set_plays_rumbles(&mut con, true);
        sound_effect(&mut con, boom, Some(1.0));
        assert!(take_rumbles(&mut con).is_empty(), "no device");
        on_device_change(&mut con, &change(InputDeviceType::Gamepad, 0, true, "Pad"));
        sound_effect(&mut con, boom, Some(1.0));
        sound_effect(&mut con, boom, Some(50.0));
        let quiet = e(&con, "Quiet");
        sound_effect(&mut con, quiet, None);
        assert_eq!(take_rumbles(&mut con), vec![Rumble { strong: 1.0, weak: 0.0, duration_ms: 400 }]);
        con.eval("disableJoystick();").unwrap();
        sound_effect(&mut con, boom, Some(1.0));
        assert!(take_rumbles(&mut con).is_empty(), "disabled");
    }
}
