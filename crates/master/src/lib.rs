#![doc = include_str!("../README.md")]
//!
//! The server directory of V12: Tribes 2 players found games through a master server and
//! a server browser. This crate holds every part of that path, sans-IO (time and bytes in,
//! datagrams out), plus a small UDP driver:
//!
//! - [`MasterServer`]: game servers register and heartbeat their [`ServerInfo`]; clients
//!   query with a [`Filter`] and get the matching addresses in pages that fit the MTU.
//!   Unverified senders get a stateless [`token`] challenge first, senders are rate limited
//!   per address ([`rate`]), servers that stop heart-beating expire, storage is a
//!   [`ServerStore`] (in memory by default).
//! - [`Registrar`]: the game server's side — heartbeats to one or more masters, answering
//!   their challenges, and a goodbye on shutdown.
//! - [`info`]: the stateless ping/info query a game server answers on its game port (the
//!   browser's ping column), also used for LAN discovery by broadcast.
//! - [`ServerQuery`]: the browser's side — ask the masters (or the LAN), then ping every
//!   server found, collecting [`ServerEntry`] rows.
//! - [`agones`]: the Agones SDK's local HTTP calls (ready, health, shutdown) for a match
//!   server run in a Kubernetes fleet.
//!
//! Every datagram of these protocols starts with
//! [`v12_netobject::INFO_PACKET_PREFIX`], so a game server's `NetInterface` hands them to
//! the host instead of treating them as handshake garbage.

pub mod agones;
mod error;
pub mod info;
pub mod query;
pub mod rate;
pub mod registrar;
pub mod server;
pub mod store;
pub mod token;
pub mod udp;
pub mod wire;

pub use crate::info::{Filter, ServerInfo};
pub use crate::query::{QueryConfig, ServerEntry, ServerQuery};
pub use crate::registrar::{Registrar, RegistrarConfig};
pub use crate::server::{MasterConfig, MasterServer, MasterStats};
pub use crate::store::{MemoryStore, ServerStore, Upsert};
pub use crate::wire::{Message, WireError};

/// Default UDP port of the master server (Tribes 2's master listened on 28000).
pub const DEFAULT_MASTER_PORT: u16 = 28000;
