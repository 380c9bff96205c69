#![doc = include_str!("../README.md")]

mod cursor;
mod desync;
mod error;
mod game;
#[cfg(feature = "test-support")]
pub mod harness;
pub mod net;

mod peer;
mod peer_msg;
mod relay_client;
mod relay_msg;
mod relay_server;
mod replay;
mod stats;
#[cfg(any(test, feature = "test-support"))]
pub mod toy;
mod wire;

pub use cursor::Cursor;
pub use desync::{CommandLine, DesyncReport, REPORT_FRAMES, REPORT_VERSION};
pub use error::{LockstepError, Result};
pub use game::{
    DetRng, GameSetup, LockstepGame, MAX_BATCH_COMMANDS, PlayerId, decode_batch, empty_batch, encode_batch,
};
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
