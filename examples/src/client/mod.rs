//! The `v12` program's client half: the game view and HUD (GUI controls from
//! `examples/game/client/ui/*.gui`), the headless screenshot (`v12 --headless --screenshot`)
//! and the window client.
//!
//! The world is drawn from a [`view::WorldView`] snapshot (what the client's ghosts show), so
//! the same code renders a live game, a deterministic test scene and the benchmark's 1,000
//! objects.

pub mod cli;
pub mod frame;
pub mod screenshot;
pub mod session;
pub mod ui;
pub mod view;
pub mod window;
