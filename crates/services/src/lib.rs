#![doc = include_str!("../README.md")]

pub mod driver;
pub mod tcp_object;
pub mod telnet;
pub use driver::{DriverStats, NetDriver, WallClock};
