//! Action maps: bind, bindCmd, modifiers, global map first, stack order, breaks to the
//! binding that took the make.

use v12_console_vm::{BufferSink, Console};
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers};
use v12_sim::action_map::{key_code, parse_binding, process_input, register_action_maps};

fn setup() -> (Console, BufferSink) {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    register_action_maps(&mut con).unwrap();
    (con, out)
}

fn key(name: &str, action: InputAction, mods: Modifiers) -> InputEvent {
    InputEvent {
        device_type: InputDeviceType::Keyboard,
        device_inst: 0,
        object_type: InputObjectType::Key,
        object_inst: key_code(name).unwrap(),
        action,
        modifiers: mods,
        ascii: 0,
        value: if action == InputAction::Make { 1.0 } else { 0.0 },
    }
}

#[test]
fn bind_calls_the_function_with_the_value_on_make_and_break() {
    let (mut con, out) = setup();
    con.eval(
        r#"function moveforward(%val) { echo("fwd " @ %val); }
           new ActionMap(moveMap);
           moveMap.bind(keyboard, w, moveforward);
           moveMap.push();"#,
    )
    .unwrap();
    assert!(process_input(&mut con, &key("w", InputAction::Make, Modifiers::NONE)));
    assert!(process_input(&mut con, &key("w", InputAction::Break, Modifiers::NONE)));
    assert!(!process_input(&mut con, &key("s", InputAction::Make, Modifiers::NONE)));
    assert_eq!(out.stdout(), "fwd 1\nfwd 0\n");
}

#[test]
fn bind_cmd_evaluates_scripts() {
    let (mut con, out) = setup();
    con.eval(
        r#"new ActionMap(m);
           m.bindCmd(keyboard, "space", "echo(\"jump down\");", "echo(\"jump up\");");
           m.push();"#,
    )
    .unwrap();
    process_input(&mut con, &key("space", InputAction::Make, Modifiers::NONE));
    process_input(&mut con, &key("space", InputAction::Break, Modifiers::NONE));
    assert_eq!(out.stdout(), "jump down\njump up\n");
}

#[test]
fn modifiers_select_bindings_and_releasing_them_does_not_break() {
    let (mut con, out) = setup();
    con.eval(
        r#"function plain(%v) { echo("plain " @ %v); }
           function shifted(%v) { echo("shifted " @ %v); }
           function lctl(%v) { echo("lctrl " @ %v); }
           GlobalActionMap.bind(keyboard, "w", plain);
           GlobalActionMap.bind(keyboard, "shift w", shifted);
           GlobalActionMap.bind(keyboard, "lctrl w", lctl);"#,
    )
    .unwrap();
    process_input(&mut con, &key("w", InputAction::Make, Modifiers::RSHIFT));
    // Shift released first: no break for the shifted binding.
    assert!(!process_input(&mut con, &key("rshift", InputAction::Break, Modifiers::NONE)));
    process_input(&mut con, &key("w", InputAction::Break, Modifiers::NONE));
    process_input(&mut con, &key("w", InputAction::Make, Modifiers::RCTRL));
    process_input(&mut con, &key("w", InputAction::Break, Modifiers::RCTRL));
    process_input(&mut con, &key("w", InputAction::Make, Modifiers::LCTRL));
    process_input(&mut con, &key("w", InputAction::Break, Modifiers::LCTRL));
    // rctrl does not match "lctrl w": the unmodified binding takes it.
    assert_eq!(out.stdout(), "shifted 1\nshifted 0\nplain 1\nplain 0\nlctrl 1\nlctrl 0\n");
}

#[test]
fn global_first_then_stack_top_first_with_push_pop() {
    let (mut con, out) = setup();
    con.eval(
        r#"function g(%v) { echo("global"); }
           function a(%v) { echo("A " @ %v); }
           function b(%v) { echo("B " @ %v); }
           new ActionMap(mapA); new ActionMap(mapB);
           mapA.bind(keyboard, "e", a); mapB.bind(keyboard, "e", b);
           mapA.bind(keyboard, "q", a);
           GlobalActionMap.bind(keyboard, "tilde", g);
           mapA.push(); mapB.push();"#,
    )
    .unwrap();
    process_input(&mut con, &key("e", InputAction::Make, Modifiers::NONE));
    process_input(&mut con, &key("q", InputAction::Make, Modifiers::NONE)); // falls through B to A
    process_input(&mut con, &key("tilde", InputAction::Make, Modifiers::NONE));
    con.eval("mapB.bind(keyboard, \"tilde\", b);").unwrap();
    process_input(&mut con, &key("tilde", InputAction::Make, Modifiers::NONE)); // global still first
    con.eval("mapB.pop();").unwrap();
    process_input(&mut con, &key("e", InputAction::Make, Modifiers::NONE));
    assert_eq!(out.stdout(), "B 1\nA 1\nglobal\nglobal\nA 1\n");
}

#[test]
fn break_goes_to_the_map_that_got_the_make() {
    let (mut con, out) = setup();
    con.eval(
        r#"function a(%v) { echo("A " @ %v); }
           function b(%v) { echo("B " @ %v); }
           new ActionMap(mapA); new ActionMap(mapB);
           mapA.bind(keyboard, "w", a); mapB.bind(keyboard, "w", b);
           mapA.push();"#,
    )
    .unwrap();
    process_input(&mut con, &key("w", InputAction::Make, Modifiers::NONE));
    con.eval("mapB.push();").unwrap(); // e.g. the player jumped into a vehicle
    process_input(&mut con, &key("w", InputAction::Break, Modifiers::NONE));
    assert_eq!(out.stdout(), "A 1\nA 0\n");
    // A second break without a make is not handled.
    assert!(!process_input(&mut con, &key("w", InputAction::Break, Modifiers::NONE)));
}

#[test]
fn axes_unbind_and_bad_names() {
    let (mut con, out) = setup();
    con.eval(
        r#"function yaw(%v) { echo("yaw " @ %v); }
           new ActionMap(m); m.bind(mouse, xaxis, yaw); m.push();
           m.bind(keyboard, "w", yaw);
           m.unbind(keyboard, "w");"#,
    )
    .unwrap();
    let ev = InputEvent {
        device_type: InputDeviceType::Mouse,
        device_inst: 0,
        object_type: InputObjectType::XAxis,
        object_inst: 0,
        action: InputAction::Move,
        modifiers: Modifiers::NONE,
        ascii: 0,
        value: -2.5,
    };
    assert!(process_input(&mut con, &ev));
    assert!(!process_input(&mut con, &key("w", InputAction::Make, Modifiers::NONE)));
    assert_eq!(out.stdout(), "yaw -2.5\n");
    assert!(parse_binding("keyboard", "hyper w").is_none());
    assert!(parse_binding("toaster", "w").is_none());
    assert!(parse_binding("keyboard", "").is_none());
    assert_eq!(parse_binding("mouse0", "button1").unwrap().0.object_inst, 1);
    con.eval("m.bind(keyboard, \"nosuchkey\", yaw);").unwrap();
    assert!(out.stderr().contains("unknown input") || out.all().contains("unknown input"));
}

/// V12's bind modifiers on a joystick axis: a dead zone, a scale and an inversion, applied
/// to every move; junk modifiers are refused with a warning.
#[test]
fn bind_modifiers_shape_an_axis() {
    let (mut con, out) = setup();
    con.eval(
        r#"function yaw(%val) { echo("yaw " @ %val); }
           new ActionMap(stickMap);
           stickMap.bind(joystick, xaxis, "D", "-0.1 0.1", "S", 2, "I", yaw);
           stickMap.push();"#,
    )
    .unwrap();
    let axis = |value: f32| InputEvent {
        device_type: InputDeviceType::Joystick,
        device_inst: 0,
        object_type: InputObjectType::XAxis,
        object_inst: 0,
        action: InputAction::Move,
        modifiers: Modifiers::NONE,
        ascii: 0,
        value,
    };
    for v in [0.05, 0.5, -0.25] {
        assert!(process_input(&mut con, &axis(v)));
    }
    assert_eq!(out.stdout(), "yaw 0\nyaw -1\nyaw 0.5\n");
    let r = con.eval(r#"return stickMap.bind(joystick, yaxis, "D", "junk", yaw);"#).unwrap();
    assert_eq!(r.to_string(), "0");
    assert!(out.stderr().contains("bad dead zone"), "{}", out.stderr());
}

/// Gamepad and joystick reports, synthetic (no device): the platform's translation, then the
/// action maps with V12's bind modifiers (dead zone, scale, invert), hot-plug in between.
#[test]
fn gamepad_reports_reach_bindings_through_their_modifiers() {
    use v12_platform::{Event, PadAxis, PadButton, PadInput, PadSlots};
    let (mut con, out) = setup();
    con.eval(
        r#"function yaw(%v) { echo("yaw " @ %v); }
           function pitch(%v) { echo("pitch " @ %v); }
           function fire(%v) { echo("fire " @ %v); }
           function thrust(%v) { echo("thrust " @ %v); }
           new ActionMap(moveMap);
           moveMap.bind(gamepad0, xaxis, "D", "-0.2 0.2", "S", 2, yaw);
           moveMap.bind(gamepad, yaxis, "I", pitch);
           moveMap.bind(gamepad1, button0, fire);
           moveMap.bind(joystick0, rzaxis, thrust);
           moveMap.push();"#,
    )
    .unwrap();
    let mut slots = PadSlots::new();
    let mut feed = |con: &mut Console, id: usize, input: PadInput| match slots.translate(id, input) {
        Some(Event::Input(ev)) => process_input(con, &ev),
        Some(Event::DeviceChange(_)) => false,
        other => panic!("{other:?}"),
    };
    feed(&mut con, 10, PadInput::Connected { name: "Pad A".into(), gamepad: true });
    feed(&mut con, 11, PadInput::Connected { name: "Pad B".into(), gamepad: true });
    feed(&mut con, 12, PadInput::Connected { name: "Stick".into(), gamepad: false });
    assert!(feed(&mut con, 10, PadInput::Axis(PadAxis::LeftStickX, 0.1)), "inside the dead zone: 0");
    assert!(feed(&mut con, 10, PadInput::Axis(PadAxis::LeftStickX, 0.25)));
    // Stick up is negative (DirectInput's sign); "I" inverts it back.
    assert!(feed(&mut con, 10, PadInput::Axis(PadAxis::LeftStickY, 0.5)));
    // Pad B's button 0 (South), make and break; pad A's is not bound.
    assert!(!feed(&mut con, 10, PadInput::Pressed(PadButton::South)));
    assert!(feed(&mut con, 11, PadInput::Pressed(PadButton::South)));
    assert!(feed(&mut con, 11, PadInput::Released(PadButton::South)));
    // The joystick's right trigger depth is its rzaxis.
    assert!(feed(&mut con, 12, PadInput::ButtonValue(PadButton::RightTrigger2, 0.75)));
    // Pad A unplugged and plugged back: still gamepad0, still bound.
    feed(&mut con, 10, PadInput::Disconnected);
    feed(&mut con, 10, PadInput::Connected { name: "Pad A".into(), gamepad: true });
    assert!(feed(&mut con, 10, PadInput::Axis(PadAxis::LeftStickX, -1.0)));
    assert_eq!(out.stdout(), "yaw 0\nyaw 0.5\npitch 0.5\nfire 1\nfire 0\nthrust 0.75\nyaw -2\n");
}
