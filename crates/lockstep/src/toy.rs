//! A tiny deterministic game used by the tests, the benchmark and the README: each player
//! owns three tokens on a grid that walk toward their targets; every step draws from the
//! PRNG (a random wobble), so a PRNG desync shows in the checksum too.

use crate::cursor::Cursor;
use crate::error::{LockstepError, Result};
use crate::game::{DetRng, GameSetup, LockstepGame, PlayerId};
use v12_bitstream::{BitReader, BitWriter};

/// Tokens per player.
pub const TOKENS_PER_PLAYER: usize = 3;

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Owner.
    pub owner: PlayerId,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// Target.
    pub tx: i32,
    /// Target.
    pub ty: i32,
}

/// A toy command: send one of my tokens somewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToyCommand {
    /// Index into the game's token list.
    pub token: u16,
    /// Target.
    pub x: i16,
    /// Target.
    pub y: i16,
}

/// The toy game state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToyGame {
    /// Every token, by index.
    pub tokens: Vec<Token>,
    /// Steps run.
    pub frame: u32,
    /// The PRNG.
    pub rng: DetRng,
}

impl LockstepGame for ToyGame {
    type Command = ToyCommand;

    fn new(setup: &GameSetup) -> Self {
        let mut rng = DetRng::new(setup.seed);
        let mut tokens = Vec::new();
        for &p in &setup.players {
            for _ in 0..TOKENS_PER_PLAYER {
                let x = rng.below(200) as i32 - 100;
                let y = rng.below(200) as i32 - 100;
                tokens.push(Token { owner: p, x, y, tx: x, ty: y });
            }
        }
        Self { tokens, frame: 0, rng }
    }

    fn apply_command(&mut self, player: PlayerId, c: &ToyCommand) {
        if let Some(t) = self.tokens.get_mut(usize::from(c.token)).filter(|t| t.owner == player) {
            t.tx = i32::from(c.x);
            t.ty = i32::from(c.y);
        }
    }

    fn step(&mut self) {
        self.frame += 1;
        for t in &mut self.tokens {
            t.x += (t.tx - t.x).signum();
            t.y += (t.ty - t.y).signum();
        }
        let n = self.tokens.len() as u32;
        if n > 0 {
            let i = self.rng.below(n) as usize;
            let wobble = self.rng.below(3) as i32 - 1;
            self.tokens[i].x += wobble;
        }
    }

    fn checksum(&self) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(&self.save());
        h.finalize()
    }

    fn random_value(&self) -> u32 {
        self.rng.peek_u32()
    }

    fn encode_command(c: &ToyCommand, w: &mut BitWriter) {
        w.write_int(u32::from(c.token), 16);
        w.write_signed_int(i32::from(c.x), 16);
        w.write_signed_int(i32::from(c.y), 16);
    }

    fn decode_command(r: &mut BitReader<'_>) -> Result<ToyCommand> {
        Ok(ToyCommand {
            token: r.read_int(16)? as u16,
            x: r.read_signed_int(16)? as i16,
            y: r.read_signed_int(16)? as i16,
        })
    }

    fn save(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.tokens.len() * 17);
        out.extend_from_slice(&self.rng.seed().to_le_bytes());
        out.extend_from_slice(&self.rng.draws().to_le_bytes());
        out.extend_from_slice(&self.frame.to_le_bytes());
        out.extend_from_slice(&(self.tokens.len() as u32).to_le_bytes());
        for t in &self.tokens {
            out.push(t.owner);
            for v in [t.x, t.y, t.tx, t.ty] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    fn load(bytes: &[u8]) -> Result<Self> {
        let mut r = Cursor(bytes);
        let seed = r.u64()?;
        let draws = r.u64()?;
        let frame = r.u32()?;
        let n = r.u32()? as usize;
        if n > bytes.len() / 17 {
            return Err(LockstepError::Invalid("token count"));
        }
        let mut tokens = Vec::with_capacity(n);
        for _ in 0..n {
            let owner = r.u8()?;
            let (x, y, tx, ty) = (r.i32()?, r.i32()?, r.i32()?, r.i32()?);
            tokens.push(Token { owner, x, y, tx, ty });
        }
        Ok(Self { tokens, frame, rng: DetRng::restore(seed, draws) })
    }
}
