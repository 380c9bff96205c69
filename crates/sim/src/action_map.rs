//! Action maps (V12 reference page InputModel): platform input events mapped to console commands.
//!
//! `ActionMap` is a console class with `bind(device, action, function)`,
//! `bindCmd(device, action, makeScript, breakScript)`, `unbind`, `push` and `pop`.
//! `GlobalActionMap` is always consulted first; then the stack of pushed game maps, the most
//! recently pushed first. A break event goes to whatever binding received its make, even if
//! the modifier keys changed meanwhile (releasing shift does not fire a break; releasing the
//! key does). Map data lives on the console objects themselves; the stack lives on
//! `GlobalActionMap`.
//!
//! Key codes: a key event's `object_inst` is [`key_code`] (the platform's table, next to
//! `InputEvent`) of its name: the upper-case ASCII
//! code for printable keys (`'W'` for "w"), and codes from 0x100 for the others.

use v12_console_vm::{Console, ObjectId, Value};
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers};

pub use v12_platform::key_code;

/// Which physical input a binding names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputKey {
    pub device: InputDeviceType,
    pub device_inst: u8,
    pub object: InputObjectType,
    pub object_inst: u16,
}

impl InputKey {
    fn of(ev: &InputEvent) -> Self {
        Self {
            device: ev.device_type,
            device_inst: ev.device_inst,
            object: ev.object_type,
            object_inst: ev.object_inst,
        }
    }
}

/// What a binding does.
#[derive(Clone, Debug, PartialEq)]
pub enum BindAction {
    /// `bind`: call the function with the input's value, through the bind's modifiers.
    Function(String, AxisXform),
    /// `bindCmd`: evaluate one script on make, another on break.
    Cmd { make: String, brk: String },
}

/// V12's `bind` modifiers for an axis or button value, applied in V12's order: dead zone
/// (`"D", "min max"`: a value inside is 0), scale (`"S", factor`), invert (`"I"`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AxisXform {
    pub dead_zone: Option<(f32, f32)>,
    pub scale: Option<f32>,
    pub invert: bool,
}

impl AxisXform {
    /// Reads the modifier arguments between the action and the command (`"D", "-0.1 0.1",
    /// "S", 2, "I"`); `Err` names what is wrong.
    pub fn parse(args: &[String]) -> Result<Self, String> {
        let mut x = AxisXform::default();
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            for c in flag.chars() {
                match c.to_ascii_uppercase() {
                    'D' => {
                        let arg = it.next().ok_or("dead zone \"D\" needs \"min max\"")?;
                        let v: Vec<f32> = arg.split_whitespace().filter_map(|w| w.parse().ok()).collect();
                        match v[..] {
                            [a, b] if a.is_finite() && b.is_finite() && a <= b => x.dead_zone = Some((a, b)),
                            [a] if a.is_finite() => x.dead_zone = Some((-a.abs(), a.abs())),
                            _ => return Err(format!("bad dead zone {arg:?}")),
                        }
                    }
                    'S' => {
                        let arg = it.next().ok_or("scale \"S\" needs a factor")?;
                        match arg.trim().parse::<f32>() {
                            Ok(f) if f.is_finite() => x.scale = Some(f),
                            _ => return Err(format!("bad scale {arg:?}")),
                        }
                    }
                    'I' => x.invert = true,
                    other => return Err(format!("unknown bind modifier {other:?}")),
                }
            }
        }
        Ok(x)
    }

    /// The value the bound function receives.
    pub fn apply(&self, mut v: f32) -> f32 {
        if let Some((lo, hi)) = self.dead_zone
            && v >= lo
            && v <= hi
        {
            v = 0.0;
        }
        if let Some(f) = self.scale {
            v *= f;
        }
        if self.invert {
            v = -v;
        }
        // No negative zero reaches a script ("-0").
        if v == 0.0 { 0.0 } else { v }
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Binding {
    key: InputKey,
    modifiers: u8,
    action: BindAction,
}

/// The bindings of one `ActionMap` object (and, on `GlobalActionMap`, the map stack and the
/// pending breaks).
#[derive(Clone, Debug, Default)]
pub struct ActionMapData {
    bindings: Vec<Binding>,
    stack: Vec<ObjectId>,
    breaks: Vec<(InputKey, BindAction)>,
}

fn parse_device(s: &str) -> Option<(InputDeviceType, u8)> {
    let lower = s.to_ascii_lowercase();
    let split = lower.find(|c: char| c.is_ascii_digit()).unwrap_or(lower.len());
    let (name, num) = lower.split_at(split);
    let inst = if num.is_empty() { 0 } else { num.parse::<u8>().ok()? };
    let dev = match name {
        "keyboard" => InputDeviceType::Keyboard,
        "mouse" => InputDeviceType::Mouse,
        "joystick" => InputDeviceType::Joystick,
        "gamepad" => InputDeviceType::Gamepad,
        _ => return None,
    };
    Some((dev, inst))
}

fn modifier_bits(word: &str) -> Option<u8> {
    Some(match word {
        "shift" => Modifiers::SHIFT.0,
        "lshift" => Modifiers::LSHIFT.0,
        "rshift" => Modifiers::RSHIFT.0,
        "ctrl" | "control" => Modifiers::CTRL.0,
        "lctrl" => Modifiers::LCTRL.0,
        "rctrl" => Modifiers::RCTRL.0,
        "alt" => Modifiers::ALT.0,
        "lalt" => Modifiers::LALT.0,
        "ralt" => Modifiers::RALT.0,
        _ => return None,
    })
}

/// Parses `device` + `action` ("shift w", "button0", "xaxis") into a key and modifier bits.
pub fn parse_binding(device: &str, action: &str) -> Option<(InputKey, u8)> {
    let (dev, inst) = parse_device(device)?;
    let words: Vec<String> = action.split_whitespace().map(str::to_ascii_lowercase).collect();
    let (object_name, mods) = words.split_last()?;
    let mut bits = 0u8;
    for m in mods {
        bits |= modifier_bits(m)?;
    }
    let (object, object_inst) = match object_name.as_str() {
        "xaxis" => (InputObjectType::XAxis, 0),
        "yaxis" => (InputObjectType::YAxis, 1),
        "zaxis" => (InputObjectType::ZAxis, 2),
        "rxaxis" => (InputObjectType::RxAxis, 3),
        "ryaxis" => (InputObjectType::RyAxis, 4),
        "rzaxis" => (InputObjectType::RzAxis, 5),
        "slider" => (InputObjectType::Slider, 6),
        "pov" => (InputObjectType::Pov, 7),
        b if b.starts_with("button") && dev != InputDeviceType::Keyboard => {
            (InputObjectType::Button, b["button".len()..].parse::<u16>().ok()?)
        }
        k if dev == InputDeviceType::Keyboard => (InputObjectType::Key, key_code(k)?),
        _ => return None,
    };
    Some((InputKey { device: dev, device_inst: inst, object, object_inst }, bits))
}

/// Does a binding's modifier set match the held modifiers? Per modifier: a generic binding
/// ("shift") accepts either side, a sided one ("lshift") needs that side, none needs none.
fn modifiers_match(binding: u8, held: u8) -> bool {
    [Modifiers::SHIFT.0, Modifiers::CTRL.0, Modifiers::ALT.0].iter().all(|&group| {
        let b = binding & group;
        let h = held & group;
        if b == 0 {
            h == 0
        } else if b == group {
            h != 0
        } else {
            h & b != 0
        }
    })
}

impl ActionMapData {
    fn bind(&mut self, key: InputKey, modifiers: u8, action: BindAction) {
        self.bindings.retain(|b| !(b.key == key && b.modifiers == modifiers));
        self.bindings.push(Binding { key, modifiers, action });
    }

    /// The binding for an event: an exact modifier match first, else the unmodified binding.
    fn find(&self, key: &InputKey, held: u8) -> Option<&BindAction> {
        let on_key = || self.bindings.iter().filter(move |b| b.key == *key);
        on_key()
            .find(|b| b.modifiers != 0 && modifiers_match(b.modifiers, held))
            .or_else(|| on_key().find(|b| b.modifiers == 0))
            .map(|b| &b.action)
    }

    /// Number of bindings.
    pub fn len(&self) -> usize {
        self.bindings.len()
    }

    /// True with no bindings.
    pub fn is_empty(&self) -> bool {
        self.bindings.is_empty()
    }
}

fn data_mut(con: &mut Console, id: ObjectId) -> Option<&mut ActionMapData> {
    if con.object(id)?.user.is_none() {
        con.set_object_data(id, Box::new(ActionMapData::default()));
    }
    con.object_data_mut::<ActionMapData>(id)
}

fn global_id(con: &Console) -> Option<ObjectId> {
    con.find_object_str("GlobalActionMap")
}

/// Registers the `ActionMap` class and its methods and creates `GlobalActionMap`.
/// Returns the global map's id.
pub fn register_action_maps(con: &mut Console) -> Result<ObjectId, crate::SimError> {
    con.register_class("ActionMap", "SimObject")?;
    con.register_method(
        "ActionMap",
        "bind",
        5,
        0,
        "map.bind(device, action, [\"D\", \"min max\", \"S\", scale, \"I\",] command)",
        |c, a| {
            let Some(this) = a.this else { return false };
            let Some((key, mods)) = parse_binding(&a.str(1), &a.str(2)) else {
                c.warn(&format!("ActionMap::bind: unknown input {} {}", a.str(1), a.str(2)));
                return false;
            };
            // argv: this, device, action, [modifiers...], command.
            let last = a.argv.len() - 1;
            let flags: Vec<String> = a.argv[3..last].iter().map(|v| v.as_text().into_owned()).collect();
            let xform = match AxisXform::parse(&flags) {
                Ok(x) => x,
                Err(e) => {
                    c.warn(&format!("ActionMap::bind: {e}"));
                    return false;
                }
            };
            let f = a.str(last).into_owned();
            data_mut(c, this).map(|d| d.bind(key, mods, BindAction::Function(f, xform))).is_some()
        },
    );
    con.register_method(
        "ActionMap",
        "bindCmd",
        6,
        6,
        "map.bindCmd(device, action, makeCmd, breakCmd)",
        |c, a| {
            let Some(this) = a.this else { return false };
            let Some((key, mods)) = parse_binding(&a.str(1), &a.str(2)) else {
                c.warn(&format!("ActionMap::bindCmd: unknown input {} {}", a.str(1), a.str(2)));
                return false;
            };
            let action = BindAction::Cmd { make: a.str(3).into_owned(), brk: a.str(4).into_owned() };
            data_mut(c, this).map(|d| d.bind(key, mods, action)).is_some()
        },
    );
    con.register_method("ActionMap", "unbind", 4, 4, "map.unbind(device, action)", |c, a| {
        let Some(this) = a.this else { return false };
        let Some((key, mods)) = parse_binding(&a.str(1), &a.str(2)) else { return false };
        let Some(d) = data_mut(c, this) else { return false };
        let before = d.bindings.len();
        d.bindings.retain(|b| !(b.key == key && b.modifiers == mods));
        d.bindings.len() != before
    });
    con.register_method("ActionMap", "push", 2, 2, "map.push()", |c, a| {
        let (Some(this), Some(g)) = (a.this, global_id(c)) else { return };
        if this == g {
            return;
        }
        if let Some(d) = data_mut(c, g) {
            d.stack.retain(|&m| m != this);
            d.stack.push(this);
        }
    });
    con.register_method("ActionMap", "pop", 2, 2, "map.pop()", |c, a| {
        let (Some(this), Some(g)) = (a.this, global_id(c)) else { return };
        if let Some(d) = data_mut(c, g) {
            d.stack.retain(|&m| m != this);
        }
    });
    let g = match global_id(con) {
        Some(g) => g,
        None => con.create_object("ActionMap", Some("GlobalActionMap"))?,
    };
    data_mut(con, g);
    Ok(g)
}

/// The pushed game maps, bottom first (deleted maps are left out).
pub fn map_stack(con: &mut Console) -> Vec<ObjectId> {
    let Some(g) = global_id(con) else { return Vec::new() };
    let stack = data_mut(con, g).map(|d| d.stack.clone()).unwrap_or_default();
    stack.into_iter().filter(|&m| con.object(m).is_some()).collect()
}

fn fire(con: &mut Console, action: &BindAction, make: bool, value: f32) {
    match action {
        BindAction::Function(f, xform) => {
            con.call_function(f, &[Value::Float(f64::from(xform.apply(value)))]);
        }
        BindAction::Cmd { make: m, brk } => {
            let script = if make { m } else { brk };
            if !script.is_empty() {
                let _ = con.eval(script);
            }
        }
    }
}

fn handle_in(con: &mut Console, maps: &[ObjectId], ev: &InputEvent) -> bool {
    let key = InputKey::of(ev);
    let Some(g) = global_id(con) else { return false };
    match ev.action {
        InputAction::Break => {
            // Only the binding that took the make gets the break.
            let Some(d) = data_mut(con, g) else { return false };
            let Some(pos) = d.breaks.iter().position(|(k, _)| *k == key) else { return false };
            // The global step owns breaks of global makes; the stack step owns the rest.
            let (_, action) = d.breaks.remove(pos);
            fire(con, &action, false, 0.0);
            true
        }
        InputAction::Make | InputAction::Move => {
            for &m in maps {
                let Some(d) = data_mut(con, m) else { continue };
                let Some(action) = d.find(&key, ev.modifiers.0).cloned() else { continue };
                if ev.action == InputAction::Make {
                    if let Some(gd) = data_mut(con, g) {
                        gd.breaks.retain(|(k, _)| *k != key);
                        gd.breaks.push((key, action.clone()));
                    }
                    fire(con, &action, true, ev.value);
                } else if let BindAction::Function(..) = action {
                    fire(con, &action, true, ev.value);
                }
                return true;
            }
            false
        }
    }
}

/// V12's `ActionMap::handleEventGlobal`: only `GlobalActionMap` (and breaks of makes
/// it took). True when handled.
pub fn handle_event_global(con: &mut Console, ev: &InputEvent) -> bool {
    let Some(g) = global_id(con) else { return false };
    if ev.action == InputAction::Break {
        return handle_in(con, &[], ev);
    }
    handle_in(con, &[g], ev)
}

/// V12's `ActionMap::handleEvent`: the pushed maps, most recent first.
pub fn handle_event(con: &mut Console, ev: &InputEvent) -> bool {
    let mut maps = map_stack(con);
    maps.reverse();
    handle_in(con, &maps, ev)
}

/// Global map first, then the stack (the GUI step of V12 sits between; a host with a
/// canvas calls the two halves itself).
pub fn process_input(con: &mut Console, ev: &InputEvent) -> bool {
    handle_event_global(con, ev) || handle_event(con, ev)
}
