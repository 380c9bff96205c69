//! Clicking a client screen's controls in a test, headless (`#[path = "common/gui.rs"] mod gui;`).

use v12_game::client::ui::ClientUi;
use v12_gui::screen_rect;
use v12_platform::{InputAction, InputDeviceType, InputEvent, InputObjectType, Modifiers, MouseMoveEvent};

fn mouse(make: bool) -> InputEvent {
    InputEvent {
        device_type: InputDeviceType::Mouse,
        device_inst: 0,
        object_type: InputObjectType::Button,
        object_inst: 0,
        action: if make { InputAction::Make } else { InputAction::Break },
        modifiers: Modifiers::NONE,
        ascii: 0,
        value: if make { 1.0 } else { 0.0 },
    }
}

/// A left click at `(x, y)` on the canvas.
pub fn click_at(con: &mut v12_console_vm::Console, ui: &mut ClientUi, x: i32, y: i32) {
    ui.canvas.process_mouse_move(con, &MouseMoveEvent { x_pos: x, y_pos: y, modifiers: Modifiers::NONE });
    ui.canvas.process_input(con, &mouse(true));
    ui.canvas.process_input(con, &mouse(false));
}

/// A left click in the middle of the control named `name`.
pub fn click(con: &mut v12_console_vm::Console, ui: &mut ClientUi, name: &str) {
    let id = con.find_object_str(name).unwrap_or_else(|| panic!("no control {name}"));
    let r = screen_rect(con, id);
    click_at(con, ui, r.x + r.w / 2, r.y + r.h / 2);
}
