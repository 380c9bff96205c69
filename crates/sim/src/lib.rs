#![doc = include_str!("../README.md")]

pub mod moves;
pub mod process;
pub mod container;
pub mod remote_command;
mod sim_error;
pub use sim_error::SimError;

pub mod action_map;
pub mod datablock;
