//! The one trait every lockstep game implements, so the same game runs server-relayed,
//! peer-to-peer and in replays; plus the seeded, platform-independent PRNG it must use.

use crate::error::Result;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use std::fmt::Debug;
use v12_bitstream::{BitReader, BitWriter};

/// A player's id in a lockstep session (1-based; 0 is never a player).
pub type PlayerId = u8;

/// What every participant knows before the first frame: the shared seed and the players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSetup {
    /// Seed of the game's PRNG, chosen by the server or the master peer.
    pub seed: u64,
    /// Every player in the game (humans and AIs), in ascending id order.
    pub players: Vec<PlayerId>,
}

/// A deterministic game. Every participant runs the same calls in the same order, so the
/// same commands from the same seed give the same state everywhere.
pub trait LockstepGame: Sized {
    /// One player order (move here, attack that).
    type Command: Clone + Debug + PartialEq;
    /// The initial state for `setup`.
    fn new(setup: &GameSetup) -> Self;
    /// Applies a command issued by `player`. Must ignore commands that are invalid for
    /// that player (another player's unit, a dead unit): every participant does the same.
    fn apply_command(&mut self, player: PlayerId, command: &Self::Command);
    /// Advances the simulation by one frame (a GF, or a sub-turn).
    fn step(&mut self);
    /// CRC-32 of the whole game state including the PRNG state.
    fn checksum(&self) -> u32;
    /// The value the game's PRNG would draw next, without drawing it (the peer-to-peer
    /// sync check sends it; peeking keeps replays free of extra draws).
    fn random_value(&self) -> u32;
    /// Writes one command.
    fn encode_command(command: &Self::Command, w: &mut BitWriter);
    /// Reads one command; never panics on bad input.
    fn decode_command(r: &mut BitReader<'_>) -> Result<Self::Command>;
    /// The whole state as bytes (save game, desync logs).
    fn save(&self) -> Vec<u8>;
    /// Restores a state written by [`LockstepGame::save`].
    fn load(bytes: &[u8]) -> Result<Self>;
}

/// Most commands in one batch (one player, one NWF or turn).
pub const MAX_BATCH_COMMANDS: usize = 255;

/// Takes commands issued at (time, command) from the front of `pending` while their encoded
/// batch stays within `max_bytes` (always at least one): the batch and the issue times, for
/// the latency figures. What does not fit waits for the next frame.
pub(crate) fn take_batch<G: LockstepGame>(
    pending: &mut std::collections::VecDeque<(u64, G::Command)>,
    max_bytes: usize,
) -> (Vec<G::Command>, Vec<u64>) {
    let mut taken = Vec::new();
    let mut issued = Vec::new();
    while let Some((t, c)) = pending.front().cloned() {
        taken.push(c);
        if encode_batch::<G>(&taken).len() > max_bytes && taken.len() > 1 {
            taken.pop();
            break;
        }
        issued.push(t);
        pending.pop_front();
    }
    (taken, issued)
}

/// Encodes a list of commands as the opaque batch that travels between participants.
pub fn encode_batch<G: LockstepGame>(commands: &[G::Command]) -> Vec<u8> {
    let mut w = BitWriter::new();
    let n = commands.len().min(MAX_BATCH_COMMANDS);
    w.write_int(n as u32, 8);
    for c in &commands[..n] {
        G::encode_command(c, &mut w);
    }
    w.into_bytes().to_vec()
}

/// What [`encode_batch`] writes for no commands (a count of zero), for code that does not
/// know the game type.
pub fn empty_batch() -> Vec<u8> {
    vec![0]
}

/// Decodes a batch written by [`encode_batch`].
pub fn decode_batch<G: LockstepGame>(bytes: &[u8]) -> Result<Vec<G::Command>> {
    let mut r = BitReader::new(bytes);
    let n = r.read_int(8)? as usize;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(G::decode_command(&mut r)?);
    }
    Ok(out)
}

/// The seeded PRNG a lockstep game draws from: PCG-32 (`rand_pcg`), identical on every
/// platform. It counts its draws so it can be saved as (seed, draws) and restored with
/// PCG's jump-ahead, and so its state can go into the checksum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetRng {
    seed: u64,
    draws: u64,
    rng: Pcg32,
}

impl DetRng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self { seed, draws: 0, rng: Pcg32::seed_from_u64(seed) }
    }
    /// Restores a generator that had drawn `draws` values from `seed`.
    pub fn restore(seed: u64, draws: u64) -> Self {
        let mut rng = Pcg32::seed_from_u64(seed);
        rng.advance(draws);
        Self { seed, draws, rng }
    }
    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Values drawn so far.
    pub fn draws(&self) -> u64 {
        self.draws
    }
    /// The next 32-bit value.
    pub fn next_u32(&mut self) -> u32 {
        self.draws += 1;
        self.rng.next_u32()
    }
    /// The next value, without drawing it.
    pub fn peek_u32(&self) -> u32 {
        self.rng.clone().next_u32()
    }
    /// A value in `0..n` (`n > 0`; 0 gives 0), by Lemire's multiply-shift, no modulo bias worth noting.
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }
    /// Feeds the generator state into a checksum.
    pub fn hash_into(&self, h: &mut crc32fast::Hasher) {
        h.update(&self.seed.to_le_bytes());
        h.update(&self.draws.to_le_bytes());
    }
}
