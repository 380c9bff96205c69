#![doc = include_str!("../README.md")]

mod canvas;
mod control;
mod dirty;
mod error;
pub mod events;
mod fonts;
pub mod geom;
pub mod keys;
pub mod layout;
mod log;
mod profile;
mod render;
mod script;
pub mod textedit;

pub use canvas::{
    CanvasState, Consumer, DOUBLE_CLICK_MS, FrameInfo, GuiCanvas, InputHandler, callback, screen_rect,
};
pub use control::{
    CLASSES, CONTROL_CLASS, ControlData, ControlFields, Drag, Kind, children, global_rect, kind_of, parent,
};
pub use dirty::DirtyRects;
pub use error::GuiError;
pub use fonts::Fonts;
pub use log::{ConsoleLog, DEFAULT_LOG_LINES};
pub use profile::{Justify, PROFILE_CLASS, Profile, ProfileCache};
pub use render::GameView;
pub use script::CONSOLE_DLG;
