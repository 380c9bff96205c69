//! The V12 example game: the `v12` program's host (ControlFlow main loop, server and client,
//! connection scripting, the game's Rust half and its bot) and the headless match demo.
//! The rules live in `examples/game/*.cs`.

pub mod bot_match;
pub mod host;
