//! Ghosting: replicating server objects to each client as "ghosts" (V12 reference page NetGhost).
//!
//! - [`NetObject`]: what an object implements (flags, state mask, pack/unpack, scope
//!   query, priority, dependencies, add/remove hooks); [`NetObjectClass`] registers it in a
//!   [`GhostClassRegistry`].
//! - [`GhostManager`] (server, one per connection): scoping with hysteresis, ghost ids
//!   whose width grows with the count, priority order within the packet budget, and the
//!   resend rule on notifies. It holds [`ObjectId`]s and reaches objects through
//!   [`GhostWorld`].
//! - [`GhostReceiver`] (client): applies ghost sections to a [`GhostClientWorld`].
//!
//! ```
//! use std::sync::Arc;
//! use v12_bitstream::{BitReader, BitWriter};
//! use v12_netobject::ghost::*;
//!
//! let classes = Arc::new(GhostClassRegistryBuilder::new().build().unwrap());
//! let mut server = GhostManager::new(GhostConfig::default(), classes.clone());
//! let mut client = GhostReceiver::new(classes);
//! server.start_ghosting();
//! struct Empty;
//! impl GhostWorld for Empty {
//!     fn object(&self, _: ObjectId) -> Option<&dyn NetObject> { None }
//! }
//! let mut w = BitWriter::with_budget_bytes(200);
//! let record = server.write_packet(&Empty, &mut w);
//! let bytes = w.into_bytes();
//! client.read_packet(&mut GhostArena::new(), &mut BitReader::new(&bytes)).unwrap();
//! server.packet_delivered(record);
//! ```

mod aside;
mod class;
pub(crate) mod context;
mod error;
mod frame;
mod ids;
mod manager;
mod object;
mod receiver;
mod state;
mod world;

mod groups;
pub use class::{GhostClassRegistry, GhostClassRegistryBuilder};
pub use context::{GhostPackContext, GhostUnpackContext};
pub use error::GhostError;
pub use frame::GhostFrame;
pub use groups::{GhostFields, read_fields};
pub use ids::{MAX_GHOST_ID_BITS, MAX_GHOSTS, ObjectId, ghost_id_bits};
pub use manager::{GhostConfig, GhostEntry, GhostEntryKind, GhostManager, GhostRecord, GhostStats};
pub use object::{
    ALL_MASK_BITS, CameraScopeQuery, MaskStamps, NetFlags, NetObject, NetObjectClass, Point3, PreparedQuery,
    PriorityTerms, StateMask, default_update_priority, weights,
};
pub use receiver::{GhostReceiver, ReceiverStats};
pub use state::{pack_state, unpack_state};
/// The derive for ghosted state (v12-derive): see [`GhostFields`] and v12-derive's docs.
pub use v12_derive::GhostState;
pub use world::{GhostArena, GhostClientWorld, GhostWorld, NoObjects};
