#![doc = include_str!("../README.md")]

mod config;
mod error;
mod header;
mod protocol;

pub use crate::config::ProtocolConfig;
pub use crate::error::ProtocolError;
pub use crate::header::{AckMask, DELAY_STEP_MS, PacketKind, SEQ_BITS, WINDOW, WireHeader};
pub use crate::protocol::{ConnectionProtocol, Notify, Received, Stats};
