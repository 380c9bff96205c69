//! Peer-to-peer lockstep messages (Robo Cat RTS) with their BitStream codecs.
//! Decoding never panics.

use crate::error::{LockstepError, Result};
use crate::game::PlayerId;
use crate::wire::*;
use std::net::SocketAddr;
use v12_bitstream::{BitReader, BitWriter};

/// Most peers in a game.
pub const MAX_PEERS: usize = 16;
/// Most turn datas in one message.
pub const MAX_TURN_DATA: usize = 64;

/// A peer as the master knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerInfo {
    /// Player id.
    pub id: PlayerId,
    /// Address as seen by the master (the master's own entry is filled in by the receiver).
    pub addr: SocketAddr,
    /// Player name.
    pub name: String,
}

/// Why the master refused a join.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinRefusal {
    /// No free slot.
    Full,
    /// The game already started.
    Started,
}

/// One player's data for one turn: the commands to run then, and the sync check values
/// (a PRNG draw and the state CRC) taken when it was sent, two turns earlier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnData {
    /// Turn at which the commands run.
    pub turn: i32,
    /// Whose data.
    pub player: PlayerId,
    /// Encoded command batch.
    pub commands: Vec<u8>,
    /// The sender's PRNG draw.
    pub random: u32,
    /// The sender's state CRC.
    pub crc: u32,
    /// The turn delay the sender's links need ([`crate::peer::Peer::turn_delay`]).
    pub vote: u8,
}

/// Every peer-to-peer message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerMessage {
    /// "HELO": a new peer asks to join.
    Helo { name: String },
    /// "WLCM": welcome, with your id, the master's id and every other peer.
    Wlcm { you: PlayerId, master: PlayerId, peers: Vec<PeerInfo> },
    /// "NOJN": not joining.
    Nojn { reason: JoinRefusal },
    /// "NOMP": I am not the master; the master is there.
    Nomp { master: SocketAddr },
    /// "INTR": a new peer introduces itself to every other peer.
    Intr { id: PlayerId, name: String },
    /// Acknowledges an INTR.
    IntrAck { id: PlayerId },
    /// "STRT": the master starts the countdown; carries the seed, the countdown left when
    /// this copy was sent, the turn delay the game starts with, and the full roster.
    Strt { seed: u64, countdown_ms: u32, turn_delay: u8, peers: Vec<PeerInfo> },
    /// Acknowledges a STRT.
    StrtAck,
    /// Turn data (the newest and, for recovery, the previous ones).
    Turn { data: Vec<TurnData> },
    /// Please resend your turn data from `turn` on.
    Resend { turn: i32 },
    /// `player` is being dropped for silence; here is every turn data of it I hold, and
    /// whose drop notices I have seen.
    Drop { player: PlayerId, data: Vec<TurnData>, seen: Vec<PlayerId> },
    /// RTT probe.
    Ping { time: u64 },
    /// RTT answer.
    Pong { time: u64 },
}

fn write_peers(w: &mut BitWriter, peers: &[PeerInfo]) {
    let n = peers.len().min(MAX_PEERS);
    write_count(w, n, 5);
    for p in &peers[..n] {
        w.write_int(u32::from(p.id), 8);
        write_addr(w, &p.addr);
        write_name(w, &p.name);
    }
}

fn read_peers(r: &mut BitReader<'_>) -> Result<Vec<PeerInfo>> {
    let n = read_count(r, 5, MAX_PEERS, "peers")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id = read_player(r)?;
        let addr = read_addr(r)?;
        out.push(PeerInfo { id, addr, name: read_name(r)? });
    }
    Ok(out)
}

fn write_data(w: &mut BitWriter, data: &[TurnData]) {
    let n = data.len().min(MAX_TURN_DATA);
    write_count(w, n, 7);
    for d in &data[..n] {
        w.write_signed_int(d.turn, 32);
        w.write_int(u32::from(d.player), 8);
        write_blob(w, &d.commands);
        w.write_int(d.random, 32);
        w.write_int(d.crc, 32);
        w.write_int(u32::from(d.vote), 8);
    }
}

fn read_data(r: &mut BitReader<'_>) -> Result<Vec<TurnData>> {
    let n = read_count(r, 7, MAX_TURN_DATA, "turn data")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let turn = r.read_signed_int(32)?;
        let player = read_player(r)?;
        let commands = read_blob(r)?;
        let (random, crc) = (r.read_int(32)?, r.read_int(32)?);
        out.push(TurnData { turn, player, commands, random, crc, vote: r.read_int(8)? as u8 });
    }
    Ok(out)
}

impl PeerMessage {
    /// Encodes the message (a 4-bit kind, then the fields).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = BitWriter::new();
        match self {
            Self::Helo { name } => {
                w.write_int(0, 4);
                write_name(&mut w, name);
            }
            Self::Wlcm { you, master, peers } => {
                w.write_int(1, 4);
                w.write_int(u32::from(*you), 8);
                w.write_int(u32::from(*master), 8);
                write_peers(&mut w, peers);
            }
            Self::Nojn { reason } => {
                w.write_int(2, 4);
                w.write_flag(*reason == JoinRefusal::Started);
            }
            Self::Nomp { master } => {
                w.write_int(3, 4);
                write_addr(&mut w, master);
            }
            Self::Intr { id, name } => {
                w.write_int(4, 4);
                w.write_int(u32::from(*id), 8);
                write_name(&mut w, name);
            }
            Self::IntrAck { id } => {
                w.write_int(5, 4);
                w.write_int(u32::from(*id), 8);
            }
            Self::Strt { seed, countdown_ms, turn_delay, peers } => {
                w.write_int(6, 4);
                w.write_bits(*seed, 64);
                w.write_int(*countdown_ms, 32);
                w.write_int(u32::from(*turn_delay), 8);
                write_peers(&mut w, peers);
            }
            Self::StrtAck => w.write_int(7, 4),
            Self::Turn { data } => {
                w.write_int(8, 4);
                write_data(&mut w, data);
            }
            Self::Resend { turn } => {
                w.write_int(9, 4);
                w.write_signed_int(*turn, 32);
            }
            Self::Drop { player, data, seen } => {
                w.write_int(10, 4);
                w.write_int(u32::from(*player), 8);
                write_data(&mut w, data);
                let n = seen.len().min(MAX_PEERS);
                write_count(&mut w, n, 5);
                for p in &seen[..n] {
                    w.write_int(u32::from(*p), 8);
                }
            }
            Self::Ping { time } => {
                w.write_int(11, 4);
                w.write_bits(*time, 64);
            }
            Self::Pong { time } => {
                w.write_int(12, 4);
                w.write_bits(*time, 64);
            }
        }
        w.into_bytes().to_vec()
    }

    /// Decodes a message; any bytes give a message or an error, never a panic.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = BitReader::new(bytes);
        Ok(match r.read_int(4)? {
            0 => Self::Helo { name: read_name(&mut r)? },
            1 => Self::Wlcm {
                you: read_player(&mut r)?,
                master: read_player(&mut r)?,
                peers: read_peers(&mut r)?,
            },
            2 => Self::Nojn { reason: if r.read_flag()? { JoinRefusal::Started } else { JoinRefusal::Full } },
            3 => Self::Nomp { master: read_addr(&mut r)? },
            4 => Self::Intr { id: read_player(&mut r)?, name: read_name(&mut r)? },
            5 => Self::IntrAck { id: read_player(&mut r)? },
            6 => Self::Strt {
                seed: r.read_bits(64)?,
                countdown_ms: r.read_int(32)?,
                turn_delay: r.read_int(8)? as u8,
                peers: read_peers(&mut r)?,
            },
            7 => Self::StrtAck,
            8 => Self::Turn { data: read_data(&mut r)? },
            9 => Self::Resend { turn: r.read_signed_int(32)? },
            10 => {
                let player = read_player(&mut r)?;
                let data = read_data(&mut r)?;
                let n = read_count(&mut r, 5, MAX_PEERS, "seen")?;
                let seen = (0..n).map(|_| read_player(&mut r)).collect::<Result<Vec<_>>>()?;
                Self::Drop { player, data, seen }
            }
            11 => Self::Ping { time: r.read_bits(64)? },
            12 => Self::Pong { time: r.read_bits(64)? },
            k => return Err(LockstepError::UnknownKind(k)),
        })
    }
}
