//! A small lockstep RTS in the spirit of Robo Cat RTS (*Multiplayer Game Programming*, Glazer
//! and Madhav): every player has a few cats; a cat moves to a point or attacks another
//! player's cat on command. Integer
//! (fixed-point) positions and the seeded PRNG keep every machine in step.

use v12_bitstream::{BitReader, BitWriter};
use v12_lockstep::Cursor;
use v12_lockstep::{DetRng, GameSetup, LockstepError, LockstepGame, PlayerId, Result};

/// Cats per player.
pub const CATS_PER_PLAYER: usize = 3;
/// Half the arena's side (fixed-point units; 1 unit = 1/256 of a tile).
pub const ARENA: i32 = 64 * 256;
const SPEED: i32 = 96;
const RANGE: i32 = 3 * 256;
const MAX_HP: i32 = 100;

/// What a cat is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Standing.
    Idle,
    /// Walking to a point.
    Move { x: i32, y: i32 },
    /// Chasing and hitting a cat.
    Attack { target: u16 },
}

/// One cat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cat {
    /// Owner.
    pub owner: PlayerId,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// Hit points (0 = out).
    pub hp: i32,
    /// Current order.
    pub order: Order,
}

/// An RTS command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtsCommand {
    /// Move a cat.
    Move { cat: u16, x: i32, y: i32 },
    /// Attack with a cat.
    Attack { cat: u16, target: u16 },
}

/// The game state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtsGame {
    /// Every cat by index.
    pub cats: Vec<Cat>,
    /// Frames run.
    pub frame: u32,
    /// The PRNG (hit rolls).
    pub rng: DetRng,
}

impl RtsGame {
    /// Cats of a player that are still up.
    pub fn cats_of(&self, player: PlayerId) -> impl Iterator<Item = (u16, &Cat)> {
        self.cats
            .iter()
            .enumerate()
            .filter(move |(_, c)| c.owner == player && c.hp > 0)
            .map(|(i, c)| (i as u16, c))
    }

    /// What a bot would order now: attack the nearest enemy cat, or wander. Uses the bot's
    /// own PRNG, not the game's, so bots never change the shared state directly.
    pub fn bot_command(&self, player: PlayerId, rng: &mut DetRng) -> Option<RtsCommand> {
        let mine: Vec<(u16, &Cat)> = self.cats_of(player).collect();
        if mine.is_empty() {
            return None;
        }
        let (cat, c) = mine[rng.below(mine.len() as u32) as usize];
        if rng.below(3) == 0 {
            let x = rng.below(2 * ARENA as u32) as i32 - ARENA;
            let y = rng.below(2 * ARENA as u32) as i32 - ARENA;
            return Some(RtsCommand::Move { cat, x, y });
        }
        let target = self
            .cats
            .iter()
            .enumerate()
            .filter(|(_, t)| t.owner != player && t.hp > 0)
            .min_by_key(|(_, t)| (i64::from(t.x - c.x)).pow(2) + (i64::from(t.y - c.y)).pow(2))
            .map(|(i, _)| i as u16)?;
        Some(RtsCommand::Attack { cat, target })
    }

    /// Cats still up per player.
    pub fn alive(&self) -> Vec<(PlayerId, usize)> {
        let mut out: Vec<(PlayerId, usize)> = Vec::new();
        for c in &self.cats {
            match out.iter_mut().find(|(p, _)| *p == c.owner) {
                Some((_, n)) => *n += usize::from(c.hp > 0),
                None => out.push((c.owner, usize::from(c.hp > 0))),
            }
        }
        out
    }
}

fn step_toward(from: i32, to: i32) -> i32 {
    from + (to - from).clamp(-SPEED, SPEED)
}

impl LockstepGame for RtsGame {
    type Command = RtsCommand;

    fn new(setup: &GameSetup) -> Self {
        let mut rng = DetRng::new(setup.seed);
        let mut cats = Vec::new();
        for &p in &setup.players {
            // Each player's cats start in their own corner of the arena.
            let cx = if p % 2 == 0 { ARENA / 2 } else { -ARENA / 2 };
            let cy = if (p / 2) % 2 == 0 { ARENA / 2 } else { -ARENA / 2 };
            for _ in 0..CATS_PER_PLAYER {
                let x = cx + rng.below(2048) as i32 - 1024;
                let y = cy + rng.below(2048) as i32 - 1024;
                cats.push(Cat { owner: p, x, y, hp: MAX_HP, order: Order::Idle });
            }
        }
        Self { cats, frame: 0, rng }
    }

    fn apply_command(&mut self, player: PlayerId, command: &RtsCommand) {
        let (cat, order) = match *command {
            RtsCommand::Move { cat, x, y } => {
                (cat, Order::Move { x: x.clamp(-ARENA, ARENA), y: y.clamp(-ARENA, ARENA) })
            }
            RtsCommand::Attack { cat, target } => {
                if self.cats.get(usize::from(target)).is_none_or(|t| t.owner == player) {
                    return;
                }
                (cat, Order::Attack { target })
            }
        };
        if let Some(c) = self.cats.get_mut(usize::from(cat)).filter(|c| c.owner == player && c.hp > 0) {
            c.order = order;
        }
    }

    fn step(&mut self) {
        self.frame += 1;
        for i in 0..self.cats.len() {
            if self.cats[i].hp <= 0 {
                continue;
            }
            match self.cats[i].order {
                Order::Idle => {}
                Order::Move { x, y } => {
                    let c = &mut self.cats[i];
                    c.x = step_toward(c.x, x);
                    c.y = step_toward(c.y, y);
                    if c.x == x && c.y == y {
                        c.order = Order::Idle;
                    }
                }
                Order::Attack { target } => {
                    let t = usize::from(target);
                    let Some((tx, ty, thp)) = self.cats.get(t).map(|t| (t.x, t.y, t.hp)) else { continue };
                    if thp <= 0 {
                        self.cats[i].order = Order::Idle;
                        continue;
                    }
                    let (dx, dy) = (tx - self.cats[i].x, ty - self.cats[i].y);
                    if dx.abs() <= RANGE && dy.abs() <= RANGE {
                        // One roll per cat in range per frame: the PRNG is part of the game.
                        if self.rng.below(8) == 0 {
                            self.cats[t].hp -= 1 + self.rng.below(4) as i32;
                        }
                    } else {
                        let c = &mut self.cats[i];
                        c.x = step_toward(c.x, tx);
                        c.y = step_toward(c.y, ty);
                    }
                }
            }
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

    fn encode_command(command: &RtsCommand, w: &mut BitWriter) {
        match *command {
            RtsCommand::Move { cat, x, y } => {
                w.write_flag(false);
                w.write_int(u32::from(cat), 10);
                w.write_signed_int(x, 18);
                w.write_signed_int(y, 18);
            }
            RtsCommand::Attack { cat, target } => {
                w.write_flag(true);
                w.write_int(u32::from(cat), 10);
                w.write_int(u32::from(target), 10);
            }
        }
    }

    fn decode_command(r: &mut BitReader<'_>) -> Result<RtsCommand> {
        Ok(if r.read_flag()? {
            RtsCommand::Attack { cat: r.read_int(10)? as u16, target: r.read_int(10)? as u16 }
        } else {
            RtsCommand::Move {
                cat: r.read_int(10)? as u16,
                x: r.read_signed_int(18)?,
                y: r.read_signed_int(18)?,
            }
        })
    }

    fn save(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.cats.len() * 20);
        out.extend_from_slice(&self.rng.seed().to_le_bytes());
        out.extend_from_slice(&self.rng.draws().to_le_bytes());
        out.extend_from_slice(&self.frame.to_le_bytes());
        out.extend_from_slice(&(self.cats.len() as u32).to_le_bytes());
        for c in &self.cats {
            out.push(c.owner);
            let (kind, a, b) = match c.order {
                Order::Idle => (0u8, 0, 0),
                Order::Move { x, y } => (1, x, y),
                Order::Attack { target } => (2, i32::from(target), 0),
            };
            out.push(kind);
            for v in [c.x, c.y, c.hp, a, b] {
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
        if n > bytes.len() / 22 {
            return Err(LockstepError::Invalid("cat count"));
        }
        let mut cats = Vec::with_capacity(n);
        for _ in 0..n {
            let owner = r.u8()?;
            let kind = r.u8()?;
            let (x, y, hp, a, b) = (r.i32()?, r.i32()?, r.i32()?, r.i32()?, r.i32()?);
            let order = match kind {
                0 => Order::Idle,
                1 => Order::Move { x: a, y: b },
                2 => {
                    Order::Attack { target: u16::try_from(a).map_err(|_| LockstepError::Invalid("target"))? }
                }
                _ => return Err(LockstepError::Invalid("order kind")),
            };
            cats.push(Cat { owner, x, y, hp, order });
        }
        Ok(Self { cats, frame, rng: DetRng::restore(seed, draws) })
    }
}
