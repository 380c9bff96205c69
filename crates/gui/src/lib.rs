#![doc = include_str!("../README.md")]

// Without `render`: the console classes, field types, MessageVector and the inspector's
// script side (what a dedicated server needs). With it: the canvas, input and drawing.
#[cfg(feature = "render")]
mod canvas;
mod classes;
#[cfg(feature = "render")]
mod control;
#[cfg(feature = "render")]
mod dirty;
mod error;
#[cfg(feature = "render")]
pub mod events;
#[cfg(feature = "render")]
mod fonts;
#[cfg(feature = "render")]
pub mod geom;
#[cfg(feature = "render")]
mod gui_editor;
mod inspector;
#[cfg(feature = "render")]
pub mod keys;
#[cfg(feature = "render")]
pub mod layout;
#[cfg(feature = "render")]
mod log;
mod message_vector;
#[cfg(feature = "render")]
mod profile;
#[cfg(feature = "render")]
mod render;
#[cfg(feature = "render")]
mod script;
#[cfg(feature = "render")]
pub mod textedit;

#[cfg(feature = "render")]
pub use canvas::{
    CanvasState, Consumer, DOUBLE_CLICK_MS, FrameInfo, GuiCanvas, InputHandler, callback, screen_rect,
};
pub use classes::{
    CLASSES, CONTROL_CLASS, GuiTypes, Kind, PROFILE_CLASS, PROFILE_COLORS, is_control, kind_of,
    register_classes,
};
#[cfg(feature = "render")]
pub use control::{ControlData, ControlFields, Drag, children, global_rect, parent};
#[cfg(feature = "render")]
pub use dirty::DirtyRects;
pub use error::GuiError;
#[cfg(feature = "render")]
pub use fonts::Fonts;
#[cfg(feature = "render")]
pub use gui_editor::{EDIT_CLASS, GUI_EDITOR_FUNCS, GUI_EDITOR_GUI};
pub use inspector::{INSPECTOR_PROFILES, ROW_H as INSPECTOR_ROW_H};
#[cfg(feature = "render")]
pub use log::{ConsoleLog, DEFAULT_LOG_LINES};
pub use message_vector::MAX_LINES as MESSAGE_VECTOR_MAX_LINES;
#[cfg(feature = "render")]
pub use profile::{Justify, Profile, ProfileCache};
#[cfg(feature = "render")]
pub use render::GameView;
#[cfg(feature = "render")]
pub use script::CONSOLE_DLG;
