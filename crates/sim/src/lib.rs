#![doc = include_str!("../README.md")]

pub mod action_map;
pub mod container;
pub mod datablock;
pub mod game_connection;
pub mod ghost_process;
pub mod image_machine;
pub mod liquid;
pub mod moves;
pub mod process;
pub mod remote_command;
pub mod scene;
mod sim_error;
pub mod vehicle_motion;
pub use sim_error::SimError;
