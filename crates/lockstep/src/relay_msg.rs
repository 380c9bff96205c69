//! Server-relayed lockstep messages (relayed lockstep): what clients send the server and what the
//! server sends back. Plain enums with BitStream codecs; decoding never panics.

use crate::error::{LockstepError, Result};
use crate::game::PlayerId;
use crate::wire::*;
use v12_bitstream::{BitReader, BitWriter};

/// Most players in one relayed game.
pub const MAX_PLAYERS: usize = 32;
/// Largest state-dump chunk (bytes), so a dump fits in ordinary packets.
pub const DUMP_CHUNK: usize = 256;

/// Why a player is no longer in the game. Its units stay, driven by an idle AI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaveReason {
    /// Clean exit.
    Quit,
    /// Sent no commands for too long.
    Lagging,
    /// Its checksum differed from the majority's.
    Desync,
    /// The connection ended.
    Disconnected,
}

impl LeaveReason {
    fn code(self) -> u32 {
        match self {
            Self::Quit => 0,
            Self::Lagging => 1,
            Self::Desync => 2,
            Self::Disconnected => 3,
        }
    }
    fn from_code(c: u32) -> Result<Self> {
        Ok(match c {
            0 => Self::Quit,
            1 => Self::Lagging,
            2 => Self::Desync,
            3 => Self::Disconnected,
            _ => return Err(LockstepError::Invalid("leave reason")),
        })
    }
}

/// A change every client applies at the same NWF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Stop after this NWF's commands until [`ServerMessage::Resume`].
    Pause,
    /// New GF length (ms) and NWF length (GFs) from the next GF on.
    Speed { gf_ms: u32, nwf_len: u32 },
}

/// One player in the start message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerInfo {
    /// Its id.
    pub id: PlayerId,
    /// Its name.
    pub name: String,
    /// Driven by the server's AI.
    pub ai: bool,
}

/// The start message: everything a client needs to run the same game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartInfo {
    /// The receiving client's own id.
    pub you: PlayerId,
    /// PRNG seed.
    pub seed: u64,
    /// Number of the first GF.
    pub first_gf: u32,
    /// GF length (ms).
    pub gf_ms: u32,
    /// NWF length (GFs).
    pub nwf_len: u32,
    /// Commands sent at NWF `k` run at NWF `k + command_delay`.
    pub command_delay: u32,
    /// Every player.
    pub players: Vec<PlayerInfo>,
}

/// The server's NWF-done message: every player's batch for one NWF (AI batches included),
/// the GF the NWF starts at, who left, and any pause or speed change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NwfDone {
    /// NWF index.
    pub nwf: u32,
    /// GF number at which this NWF's commands run.
    pub gf: u32,
    /// (player, encoded batch), ascending player id.
    pub batches: Vec<(PlayerId, Vec<u8>)>,
    /// Players gone from this NWF on.
    pub left: Vec<(PlayerId, LeaveReason)>,
    /// Pause or speed change applied after this NWF's commands.
    pub control: Option<Control>,
}

/// Client → server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMessage {
    /// The commands to run at NWF `nwf` (sent every NWF, even empty), with the checksum of
    /// the sender's state at NWF `nwf - command_delay` (none for the first NWFs).
    Commands { nwf: u32, checksum: Option<u32>, batch: Vec<u8> },
    /// Clean exit.
    Leave,
    /// The sender waited `ms` for NWF `nwf`'s commands (a late or held-back NWF-done): the
    /// server lengthens the NWF when this happens often ([`crate::RelayConfig::adapt_to_waits`]).
    Waited { nwf: u32, ms: u32 },
    /// A piece of the sender's saved state at NWF `nwf`, for the async log.
    StateDump { nwf: u32, chunk: u32, chunks: u32, bytes: Vec<u8> },
    /// An answer to [`ServerMessage::VoteRequest`]: drop the named players or not.
    Vote { nwf: u32, drop: bool },
}

/// Server → client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerMessage {
    /// Start the game.
    Start(StartInfo),
    /// One NWF's commands.
    NwfDone(NwfDone),
    /// The server waits for these players.
    Lagging { players: Vec<PlayerId>, waited_ms: u32 },
    /// Checksums differed at NWF `nwf`: the game is paused; send your state dump.
    Async { nwf: u32, diverging: Vec<PlayerId>, checksums: Vec<(PlayerId, u32)> },
    /// Vote whether to drop the diverging players.
    VoteRequest { nwf: u32, players: Vec<PlayerId> },
    /// Continue after a pause.
    Resume,
    /// You are out of the game.
    Kicked { reason: LeaveReason },
    /// The game ended (a vote kept the diverging players).
    GameOver,
}

const PLAYER_BITS: u32 = 8;

fn write_players(w: &mut BitWriter, ps: &[PlayerId]) {
    let n = ps.len().min(MAX_PLAYERS);
    write_count(w, n, 6);
    for p in &ps[..n] {
        w.write_int(u32::from(*p), PLAYER_BITS);
    }
}

fn read_players(r: &mut BitReader<'_>) -> Result<Vec<PlayerId>> {
    let n = read_count(r, 6, MAX_PLAYERS, "players")?;
    (0..n).map(|_| read_player(r)).collect()
}

impl ClientMessage {
    /// Encodes the message.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = BitWriter::new();
        match self {
            Self::Commands { nwf, checksum, batch } => {
                w.write_int(0, 2);
                w.write_int(*nwf, 32);
                if w.write_flag(checksum.is_some()) {
                    w.write_int(checksum.unwrap_or(0), 32);
                }
                write_blob(&mut w, batch);
            }
            // Kind 1 is Leave or, with its flag set, Waited.
            Self::Leave => {
                w.write_int(1, 2);
                w.write_flag(false);
            }
            Self::Waited { nwf, ms } => {
                w.write_int(1, 2);
                w.write_flag(true);
                w.write_int(*nwf, 32);
                w.write_int((*ms).min(u32::from(u16::MAX)), 16);
            }
            Self::StateDump { nwf, chunk, chunks, bytes } => {
                w.write_int(2, 2);
                w.write_int(*nwf, 32);
                w.write_int(*chunk, 16);
                w.write_int(*chunks, 16);
                write_blob(&mut w, bytes);
            }
            Self::Vote { nwf, drop } => {
                w.write_int(3, 2);
                w.write_int(*nwf, 32);
                w.write_flag(*drop);
            }
        }
        w.into_bytes().to_vec()
    }

    /// Decodes a message; any byte string gives a message or an error, never a panic.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = BitReader::new(bytes);
        Ok(match r.read_int(2)? {
            0 => {
                let nwf = r.read_int(32)?;
                let checksum = if r.read_flag()? { Some(r.read_int(32)?) } else { None };
                Self::Commands { nwf, checksum, batch: read_blob(&mut r)? }
            }
            1 => {
                if r.read_flag()? {
                    Self::Waited { nwf: r.read_int(32)?, ms: r.read_int(16)? }
                } else {
                    Self::Leave
                }
            }
            2 => {
                let nwf = r.read_int(32)?;
                let chunk = r.read_int(16)?;
                let chunks = r.read_int(16)?;
                if chunk >= chunks {
                    return Err(LockstepError::Invalid("dump chunk index"));
                }
                let bytes = read_blob(&mut r)?;
                if bytes.len() > DUMP_CHUNK {
                    return Err(LockstepError::TooLong {
                        what: "dump chunk",
                        len: bytes.len(),
                        max: DUMP_CHUNK,
                    });
                }
                Self::StateDump { nwf, chunk, chunks, bytes }
            }
            _ => Self::Vote { nwf: r.read_int(32)?, drop: r.read_flag()? },
        })
    }
}

impl ServerMessage {
    /// Encodes the message.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = BitWriter::new();
        match self {
            Self::Start(s) => {
                w.write_int(0, 3);
                w.write_int(u32::from(s.you), PLAYER_BITS);
                w.write_bits(s.seed, 64);
                w.write_int(s.first_gf, 32);
                w.write_int(s.gf_ms, 16);
                w.write_int(s.nwf_len, 16);
                w.write_int(s.command_delay, 8);
                let n = s.players.len().min(MAX_PLAYERS);
                write_count(&mut w, n, 6);
                for p in &s.players[..n] {
                    w.write_int(u32::from(p.id), PLAYER_BITS);
                    write_name(&mut w, &p.name);
                    w.write_flag(p.ai);
                }
            }
            Self::NwfDone(d) => {
                w.write_int(1, 3);
                w.write_int(d.nwf, 32);
                w.write_int(d.gf, 32);
                let n = d.batches.len().min(MAX_PLAYERS);
                write_count(&mut w, n, 6);
                for (p, b) in &d.batches[..n] {
                    w.write_int(u32::from(*p), PLAYER_BITS);
                    write_blob(&mut w, b);
                }
                let n = d.left.len().min(MAX_PLAYERS);
                write_count(&mut w, n, 6);
                for (p, why) in &d.left[..n] {
                    w.write_int(u32::from(*p), PLAYER_BITS);
                    w.write_int(why.code(), 2);
                }
                match d.control {
                    None => w.write_int(0, 2),
                    Some(Control::Pause) => w.write_int(1, 2),
                    Some(Control::Speed { gf_ms, nwf_len }) => {
                        w.write_int(2, 2);
                        w.write_int(gf_ms, 16);
                        w.write_int(nwf_len, 16);
                    }
                }
            }
            Self::Lagging { players, waited_ms } => {
                w.write_int(2, 3);
                write_players(&mut w, players);
                w.write_int(*waited_ms, 32);
            }
            Self::Async { nwf, diverging, checksums } => {
                w.write_int(3, 3);
                w.write_int(*nwf, 32);
                write_players(&mut w, diverging);
                let n = checksums.len().min(MAX_PLAYERS);
                write_count(&mut w, n, 6);
                for (p, c) in &checksums[..n] {
                    w.write_int(u32::from(*p), PLAYER_BITS);
                    w.write_int(*c, 32);
                }
            }
            Self::VoteRequest { nwf, players } => {
                w.write_int(4, 3);
                w.write_int(*nwf, 32);
                write_players(&mut w, players);
            }
            Self::Resume => w.write_int(5, 3),
            Self::Kicked { reason } => {
                w.write_int(6, 3);
                w.write_int(reason.code(), 2);
            }
            Self::GameOver => w.write_int(7, 3),
        }
        w.into_bytes().to_vec()
    }

    /// Decodes a message; any byte string gives a message or an error, never a panic.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = BitReader::new(bytes);
        Ok(match r.read_int(3)? {
            0 => {
                let you = read_player(&mut r)?;
                let seed = r.read_bits(64)?;
                let first_gf = r.read_int(32)?;
                let gf_ms = r.read_int(16)?;
                let nwf_len = r.read_int(16)?;
                let command_delay = r.read_int(8)?;
                if gf_ms == 0 || nwf_len == 0 || command_delay == 0 {
                    return Err(LockstepError::Invalid("zero frame length or delay"));
                }
                let n = read_count(&mut r, 6, MAX_PLAYERS, "players")?;
                let mut players = Vec::with_capacity(n);
                for _ in 0..n {
                    let id = read_player(&mut r)?;
                    let name = read_name(&mut r)?;
                    players.push(PlayerInfo { id, name, ai: r.read_flag()? });
                }
                Self::Start(StartInfo { you, seed, first_gf, gf_ms, nwf_len, command_delay, players })
            }
            1 => {
                let nwf = r.read_int(32)?;
                let gf = r.read_int(32)?;
                let n = read_count(&mut r, 6, MAX_PLAYERS, "batches")?;
                let mut batches = Vec::with_capacity(n);
                for _ in 0..n {
                    let p = read_player(&mut r)?;
                    batches.push((p, read_blob(&mut r)?));
                }
                let n = read_count(&mut r, 6, MAX_PLAYERS, "left")?;
                let mut left = Vec::with_capacity(n);
                for _ in 0..n {
                    let p = read_player(&mut r)?;
                    left.push((p, LeaveReason::from_code(r.read_int(2)?)?));
                }
                let control = match r.read_int(2)? {
                    0 => None,
                    1 => Some(Control::Pause),
                    2 => {
                        let gf_ms = r.read_int(16)?;
                        let nwf_len = r.read_int(16)?;
                        if gf_ms == 0 || nwf_len == 0 {
                            return Err(LockstepError::Invalid("zero frame length"));
                        }
                        Some(Control::Speed { gf_ms, nwf_len })
                    }
                    _ => return Err(LockstepError::Invalid("control kind")),
                };
                Self::NwfDone(NwfDone { nwf, gf, batches, left, control })
            }
            2 => Self::Lagging { players: read_players(&mut r)?, waited_ms: r.read_int(32)? },
            3 => {
                let nwf = r.read_int(32)?;
                let diverging = read_players(&mut r)?;
                let n = read_count(&mut r, 6, MAX_PLAYERS, "checksums")?;
                let mut checksums = Vec::with_capacity(n);
                for _ in 0..n {
                    let p = read_player(&mut r)?;
                    checksums.push((p, r.read_int(32)?));
                }
                Self::Async { nwf, diverging, checksums }
            }
            4 => Self::VoteRequest { nwf: r.read_int(32)?, players: read_players(&mut r)? },
            5 => Self::Resume,
            6 => Self::Kicked { reason: LeaveReason::from_code(r.read_int(2)?)? },
            _ => Self::GameOver,
        })
    }
}
