#![doc = include_str!("../README.md")]

mod addr_limit;
mod connect_token;
mod connection;
pub mod demo;
mod error;
mod event;
mod event_manager;
pub mod ghost;
mod handshake;
mod interface;
mod local;
mod log_limit;
pub mod owned;
mod rate;
mod registry;
pub mod secure;
mod simnet;
mod strings;
mod wire;

pub use crate::addr_limit::addr_group;
pub use crate::connect_token::{ConnectToken, ConnectTokenError, IssuedToken, MAX_SEALED, MAX_USER_DATA};
pub use crate::connection::{ConnectionStats, NetConnection};
pub use crate::error::{NetError, Result};
pub use crate::event::{
    ConnectionId, EventDirection, Guarantee, NetEvent, NetEventClass, PackContext, UnpackContext,
};
pub use crate::event_manager::{
    EventStats, MAX_ORDERED_IN_FLIGHT, MAX_QUEUED_GUARANTEED, MAX_QUEUED_UNGUARANTEED, ORDERED_SEQ_BITS,
};
pub use crate::handshake::{CHALLENGE_REQUEST_BYTES, Handshake, MAX_CONNECT_DATA, MAX_REASON};
pub use crate::interface::{
    AWAKE_ROUNDS, Awake, ConnectFilter, ConnectionTurn, INFO_PACKET_PREFIX, InterfaceConfig, InterfaceEvent,
    InterfaceStats, JOIN_LOG_LINES, MAX_QUEUED_INFO_PACKETS, MAX_TRACKED_ADDRESSES, NetInterface,
    PacketThreads, STALE_TOKEN_RESTARTS, YIELD_EVERY,
};
pub use crate::local::{LocalEnd, pump_local};
pub use crate::log_limit::LogLimiter;
pub use crate::rate::RateConfig;
pub use crate::registry::{NetClassInfo, NetClassRegistry, NetClassRegistryBuilder};
pub use crate::secure::Encryption;
pub use crate::strings::{MAX_TAGGED_STRING, NetStringTable, STRING_SLOTS, StringHandle};
pub use crate::wire::{read_str, write_str};
/// For `#[derive(GhostState)]`: the bitstream types its generated code names.
#[doc(hidden)]
pub use v12_bitstream as __bitstream;
pub use v12_notify_protocol::ProtocolConfig;
