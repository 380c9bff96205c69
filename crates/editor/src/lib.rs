#![doc = include_str!("../README.md")]

pub mod brush;
pub mod commands;
pub mod gizmo;
pub mod input;
pub mod objects;
pub mod pick;
pub mod script;
pub mod state;
pub mod undo;
pub mod view;

use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::Console;
use v12_gui::GuiCanvas;
use v12_gui::keys::{KEY_F1, KeyChord, ModSet};
use v12_resource::ResourceManager;

pub use state::{BrushKind, Mode, WorldEditor};
pub use view::EditorView;

/// The editor's state, shared by its console methods and its view.
pub type Handle = Rc<RefCell<WorldEditor>>;

/// F11 (V12's default binding for the World Editor).
pub const KEY_F11: u16 = KEY_F1 + 10;

/// Registers the `WorldEditor` class, its methods and `toggleEditor(make)` (the GUI classes
/// must be registered: make the canvas first). The mission classes are registered too when the
/// console has none (a client that runs no server). Returns the editor's state for the view.
pub fn install(con: &mut Console, resources: Rc<ResourceManager>) -> Handle {
    let ed: Handle = Rc::new(RefCell::new(WorldEditor::new(resources.clone())));
    if con.class_id("TerrainBlock").is_none() {
        let container = Rc::new(RefCell::new(v12_sim::container::ScriptContainer::default()));
        v12_world::register_mission_classes(con, v12_world::MissionWorld::new(resources, container));
    }
    script::register(con, &ed);
    ed
}

/// Binds F11 to `toggleEditor(1);` on the canvas's global map.
pub fn bind_toggle(canvas: &mut GuiCanvas) {
    canvas.bind_global(KeyChord { key: KEY_F11, mods: ModSet::default() }, "toggleEditor(%make);");
}
