//! Deterministic lockstep (seeds 002 and 004): one [`LockstepGame`] trait, a server-relayed
//! mode ([`RelayServer`], [`RelayClient`]), a peer-to-peer mode with a master peer
//! ([`Peer`]), replays, and the glue that carries both over `NetConnection` as
//! guaranteed-ordered events ([`net`]). The cores are sans-IO state machines: messages
//! and time go in, messages come out, so the [`harness`] can run them on a simulated clock.

mod desync;
mod error;
mod game;
pub mod harness;
pub mod net;

mod peer;
mod peer_msg;
mod relay_client;
mod relay_msg;
mod relay_server;
mod replay;
mod stats;
pub mod toy;
mod wire;

pub use desync::{CommandLine, DesyncReport, REPORT_FRAMES, REPORT_VERSION};
pub use error::{LockstepError, Result};
pub use game::{DetRng, GameSetup, LockstepGame, MAX_BATCH_COMMANDS, PlayerId, decode_batch, encode_batch};
pub use peer::{Peer, PeerConfig, PeerEvent, PeerPhase, PeerStats};
pub use peer_msg::{JoinRefusal, PeerInfo, PeerMessage, TurnData};
pub use relay_client::{RelayClient, RelayClientConfig, RelayClientEvent, RelayClientStats};
pub use relay_msg::{
    ClientMessage, Control, DUMP_CHUNK, LeaveReason, MAX_PLAYERS, NwfDone, PlayerInfo, ServerMessage,
    StartInfo,
};
pub use relay_server::{
    AiFn, AsyncAction, AsyncLog, RelayConfig, RelayServer, RelayServerEvent, RelayStats, nwf_len_for,
};
pub use replay::{Replay, ReplayFrame, ReplayMismatch, ReplaySummary};
pub use stats::LatencyStats;
