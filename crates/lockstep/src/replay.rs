//! Replays: every command batch with the GF it ran at and the checksum right after it, so
//! playback can re-execute the game and stop at the first GF whose checksum differs.

use crate::error::{LockstepError, Result};
use crate::game::{GameSetup, LockstepGame, PlayerId, decode_batch};
use crate::wire::*;
use std::fmt;
use v12_bitstream::{BitReader, BitWriter};

/// One recorded NWF (or turn): the batches that ran at `gf` and the checksum after them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayFrame {
    /// GF at which the batches ran (before that GF's step).
    pub gf: u32,
    /// (player, encoded batch), in execution order.
    pub batches: Vec<(PlayerId, Vec<u8>)>,
    /// Checksum of the game after running them.
    pub checksum: u32,
    /// Peer-to-peer: the turn delay in force for this turn (it adapts to the links, and
    /// every peer switches at the same turn); 0 in the relayed mode.
    pub turn_delay: u8,
}

/// A recorded game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// Seed and players.
    pub setup: GameSetup,
    /// First GF number.
    pub first_gf: u32,
    /// Every NWF or turn, in order.
    pub frames: Vec<ReplayFrame>,
}

/// Where a replay stopped matching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayMismatch {
    /// The GF whose checksum differs.
    pub gf: u32,
    /// Recorded checksum.
    pub expected: u32,
    /// Checksum playback computed.
    pub actual: u32,
}

impl fmt::Display for ReplayMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "replay diverges at GF {}: recorded {:#010x}, got {:#010x}",
            self.gf, self.expected, self.actual
        )
    }
}

impl std::error::Error for ReplayMismatch {}

/// What playback checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplaySummary {
    /// Frames (NWFs or turns) whose checksum matched.
    pub frames: usize,
    /// Commands re-executed.
    pub commands: usize,
    /// GF reached.
    pub last_gf: u32,
}

/// "V12S": version 2 of the file (frames carry the turn delay); version 1 was "V12R".
const MAGIC: u32 = 0x5631_3253;

impl Replay {
    /// An empty replay for a game.
    pub fn new(setup: GameSetup, first_gf: u32) -> Self {
        Self { setup, first_gf, frames: Vec::new() }
    }

    /// Re-executes the game and checks every checksum; stops at the first mismatch.
    pub fn verify<G: LockstepGame>(&self) -> std::result::Result<ReplaySummary, ReplayMismatch> {
        let mut game = G::new(&self.setup);
        let mut gf = self.first_gf;
        let mut commands = 0;
        for frame in &self.frames {
            while gf < frame.gf {
                game.step();
                gf += 1;
            }
            for (player, batch) in &frame.batches {
                // An undecodable batch was skipped live too; skip it the same way.
                for c in decode_batch::<G>(batch).unwrap_or_default() {
                    game.apply_command(*player, &c);
                    commands += 1;
                }
            }
            let actual = game.checksum();
            if actual != frame.checksum {
                return Err(ReplayMismatch { gf: frame.gf, expected: frame.checksum, actual });
            }
        }
        Ok(ReplaySummary { frames: self.frames.len(), commands, last_gf: gf })
    }

    /// Encodes the replay for a file.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = BitWriter::new();
        w.write_int(MAGIC, 32);
        w.write_bits(self.setup.seed, 64);
        let n = self.setup.players.len().min(255);
        w.write_int(n as u32, 8);
        for p in &self.setup.players[..n] {
            w.write_int(u32::from(*p), 8);
        }
        w.write_int(self.first_gf, 32);
        w.write_int(self.frames.len() as u32, 32);
        for f in &self.frames {
            w.write_int(f.gf, 32);
            w.write_int(f.checksum, 32);
            w.write_int(u32::from(f.turn_delay), 8);
            let n = f.batches.len().min(255);
            w.write_int(n as u32, 8);
            for (p, b) in &f.batches[..n] {
                w.write_int(u32::from(*p), 8);
                write_blob(&mut w, b);
            }
        }
        w.into_bytes().to_vec()
    }

    /// Decodes a replay file; bad bytes are an error, never a panic.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = BitReader::new(bytes);
        if r.read_int(32)? != MAGIC {
            return Err(LockstepError::Invalid("not a replay"));
        }
        let seed = r.read_bits(64)?;
        let n = r.read_int(8)? as usize;
        let players = (0..n).map(|_| read_player(&mut r)).collect::<Result<Vec<_>>>()?;
        let first_gf = r.read_int(32)?;
        let frames_n = r.read_int(32)? as usize;
        // Each frame takes at least 80 bits: refuse counts the data cannot hold.
        if frames_n > r.bits_left() / 80 {
            return Err(LockstepError::TooLong {
                what: "replay frames",
                len: frames_n,
                max: r.bits_left() / 80,
            });
        }
        let mut frames = Vec::with_capacity(frames_n);
        let mut last = None;
        for _ in 0..frames_n {
            let gf = r.read_int(32)?;
            if last.is_some_and(|l| gf < l) || gf < first_gf {
                return Err(LockstepError::Invalid("replay frames out of order"));
            }
            last = Some(gf);
            let checksum = r.read_int(32)?;
            let turn_delay = r.read_int(8)? as u8;
            let n = r.read_int(8)? as usize;
            let mut batches = Vec::with_capacity(n);
            for _ in 0..n {
                let p = read_player(&mut r)?;
                batches.push((p, read_blob(&mut r)?));
            }
            frames.push(ReplayFrame { gf, batches, checksum, turn_delay });
        }
        Ok(Self { setup: GameSetup { seed, players }, first_gf, frames })
    }
}
