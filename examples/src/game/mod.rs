//! The V12 example game's headless match demo: separate `v12` processes (a dedicated server
//! and bots) run and checked. The game itself is its scripts (`examples/game/*.cs`) on the
//! engine layer (`v12-game`).

pub mod bot_match;
pub mod crowd;
