//! Runnable programs that show each V12 layer. Each program is a module here
//! so that `cargo xtask demo`, the `[[bin]]` wrappers and the tests share one copy.

pub mod chat;
pub mod game;
pub mod ghosts;
pub mod link_check;
pub mod lockstep_demo;
pub mod net_loop;
pub mod owned;
pub mod rts;
