//! The client: one [`session::ClientSession`] (used by the `v12` host's headless clients and
//! bots, the window client and the headless screenshot alike), the plain-data
//! [`snapshot`] of what it shows, and, with the `render` feature, the game view and HUD (GUI
//! controls from the mod's `client/ui/*.gui`), the headless screenshot
//! (`v12 --headless --screenshot`) and, with `window`, the window client.
//!
//! The world is drawn from a [`snapshot::WorldView`] (what the client's ghosts show), so the
//! same code renders a live game, a deterministic test scene and the benchmark's 1,000
//! objects.

pub mod bot;
pub mod cli;
pub mod demo;
#[cfg(feature = "render")]
pub mod effects;
#[cfg(feature = "render")]
pub mod frame;
#[cfg(feature = "render")]
pub mod front;
mod ghost_container;
#[cfg(feature = "render")]
pub mod jets;
#[cfg(feature = "render")]
pub mod movers;
mod own_images;
#[cfg(feature = "render")]
pub mod particle_data;
#[cfg(feature = "render")]
pub mod screenshot;
pub mod session;
pub mod shapes;
pub mod snapshot;
#[cfg(feature = "render")]
pub mod ui;
#[cfg(feature = "render")]
pub mod view;
#[cfg(feature = "window")]
pub mod window;
