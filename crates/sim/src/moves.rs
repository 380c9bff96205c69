//! Moves (V12 reference page NetGameConnection, NETWORK.md "Moves"): a 32 ms snapshot of input,
//! quantised the Torque3D way (x/y/z in 6 bits, yaw/pitch/roll in 16 bits, 6 triggers),
//! delta-coded against the previous move, and the move lists of both sides.
//!
//! The client keeps every unacknowledged move and writes them all into each packet (a move
//! is re-sent at most [`ClientMoveList::max_resend`] times); the server processes each id
//! once and acknowledges the last one processed. Each move carries a 16-bit checksum of the
//! client's control object after that move, so the server knows when to send a correction.
//! Everything here is sans-IO data plus pack/unpack functions.

use std::collections::VecDeque;
use v12_bitstream::{BitReader, BitStreamError, BitWriter};

/// Trigger buttons per move (fire, jet, jump, ...).
pub const MAX_TRIGGERS: usize = 6;
/// Most moves a client keeps unacknowledged (and the server queues).
pub const MAX_MOVE_LIST: usize = 30;
/// Bits of the per-move control-object checksum.
pub const CHECKSUM_BITS: u32 = 16;
const POS_BITS: u32 = 6;
const POS_MAX: u32 = 32;
const ANG_BITS: u32 = 16;
const COUNT_BITS: u32 = 5;

/// A move: quantised input for one tick. The quantised values are the truth on both
/// sides, so the client predicts with exactly what the server will simulate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    /// Sequence id (assigned by the client move list).
    pub id: u32,
    /// x, y, z as 0..=32 (16 is zero).
    pub px: u8,
    pub py: u8,
    pub pz: u8,
    /// Yaw, pitch, roll as 16-bit angles (full turn = 65536).
    pub pyaw: u16,
    pub ppitch: u16,
    pub proll: u16,
    /// Trigger states.
    pub triggers: [bool; MAX_TRIGGERS],
    /// Control-object checksum after the client processed this move (not part of equality
    /// of input, but travels with it).
    pub checksum: u16,
}

/// The null move: no input. Neutral axes are 16, not 0.
pub const NULL_MOVE: Move = Move {
    id: 0,
    px: 16,
    py: 16,
    pz: 16,
    pyaw: 0,
    ppitch: 0,
    proll: 0,
    triggers: [false; MAX_TRIGGERS],
    checksum: 0,
};

fn quantise_axis(v: f32) -> u8 {
    if v.is_nan() {
        return 16;
    }
    ((v.clamp(-1.0, 1.0) * 16.0).round() as i32 + 16) as u8
}

fn quantise_angle(a: f32) -> u16 {
    if !a.is_finite() {
        return 0;
    }
    let turns = a / std::f32::consts::TAU;
    let frac = turns - turns.floor();
    ((frac * 65536.0).round() as u32 & 0xFFFF) as u16
}

fn angle(p: u16) -> f32 {
    let s = if p > 32767 { i32::from(p) - 65536 } else { i32::from(p) };
    s as f32 * std::f32::consts::TAU / 65536.0
}

impl Move {
    /// Quantises raw input: axes clamp to [-1, 1], angles (radians) wrap to a turn.
    pub fn from_input(x: f32, y: f32, z: f32, yaw: f32, pitch: f32, roll: f32, triggers: [bool; 6]) -> Self {
        Move {
            px: quantise_axis(x),
            py: quantise_axis(y),
            pz: quantise_axis(z),
            pyaw: quantise_angle(yaw),
            ppitch: quantise_angle(pitch),
            proll: quantise_angle(roll),
            triggers,
            ..NULL_MOVE
        }
    }
    /// x in [-1, 1].
    pub fn x(&self) -> f32 {
        (f32::from(self.px) - 16.0) / 16.0
    }
    /// y in [-1, 1].
    pub fn y(&self) -> f32 {
        (f32::from(self.py) - 16.0) / 16.0
    }
    /// z in [-1, 1].
    pub fn z(&self) -> f32 {
        (f32::from(self.pz) - 16.0) / 16.0
    }
    /// Yaw in radians, [-π, π).
    pub fn yaw(&self) -> f32 {
        angle(self.pyaw)
    }
    /// Pitch in radians, [-π, π).
    pub fn pitch(&self) -> f32 {
        angle(self.ppitch)
    }
    /// Roll in radians, [-π, π).
    pub fn roll(&self) -> f32 {
        angle(self.proll)
    }

    /// Same input (ignores id and checksum).
    pub fn same_input(&self, o: &Move) -> bool {
        self.px == o.px
            && self.py == o.py
            && self.pz == o.pz
            && self.pyaw == o.pyaw
            && self.ppitch == o.ppitch
            && self.proll == o.proll
            && self.triggers == o.triggers
    }

    /// Writes the input delta-coded against `base`: with no base, one "anything changed"
    /// flag first (against [`NULL_MOVE`]); then a flag per field that differs, and the
    /// triggers under one flag. The id and checksum are written by the move lists.
    pub fn pack(&self, w: &mut BitWriter, base: Option<&Move>) {
        let b = base.unwrap_or(&NULL_MOVE);
        if base.is_none() && !w.write_flag(!self.same_input(b)) {
            return;
        }
        for (v, bv) in [(self.pyaw, b.pyaw), (self.ppitch, b.ppitch), (self.proll, b.proll)] {
            if w.write_flag(v != bv) {
                w.write_int(u32::from(v), ANG_BITS);
            }
        }
        for (v, bv) in [(self.px, b.px), (self.py, b.py), (self.pz, b.pz)] {
            if w.write_flag(v != bv) {
                w.write_int(u32::from(v), POS_BITS);
            }
        }
        if w.write_flag(self.triggers != b.triggers) {
            for t in self.triggers {
                w.write_flag(t);
            }
        }
    }

    /// Reads a move written by [`Move::pack`] with the same base. Out-of-range axis values
    /// are an error (a well-behaved writer never produces them).
    pub fn unpack(r: &mut BitReader<'_>, base: Option<&Move>) -> Result<Move, MoveError> {
        let b = *base.unwrap_or(&NULL_MOVE);
        let mut m = Move { id: b.id, checksum: b.checksum, ..b };
        if base.is_none() && !r.read_flag()? {
            return Ok(m);
        }
        for slot in [&mut m.pyaw, &mut m.ppitch, &mut m.proll] {
            if r.read_flag()? {
                *slot = r.read_int(ANG_BITS)? as u16;
            }
        }
        for slot in [&mut m.px, &mut m.py, &mut m.pz] {
            if r.read_flag()? {
                let v = r.read_int(POS_BITS)?;
                if v > POS_MAX {
                    return Err(MoveError::AxisOutOfRange(v));
                }
                *slot = v as u8;
            }
        }
        if r.read_flag()? {
            for t in &mut m.triggers {
                *t = r.read_flag()?;
            }
        }
        Ok(m)
    }
}

/// Why move data was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    /// Ran off the packet or similar.
    Malformed(BitStreamError),
    /// A 6-bit axis value above 32.
    AxisOutOfRange(u32),
    /// More moves than the list can hold.
    TooMany(u32),
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed(e) => write!(f, "malformed moves: {e}"),
            Self::AxisOutOfRange(v) => write!(f, "move axis value {v} out of range"),
            Self::TooMany(n) => write!(f, "{n} moves in one packet, more than {MAX_MOVE_LIST}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl From<BitStreamError> for MoveError {
    fn from(e: BitStreamError) -> Self {
        Self::Malformed(e)
    }
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    mv: Move,
    send_count: u32,
}

/// The client's moves: collected once per tick, processed locally for prediction,
/// written into every packet until the server acknowledges them.
#[derive(Debug, Clone)]
pub struct ClientMoveList {
    moves: VecDeque<Pending>,
    /// Id of the next move collected.
    next_id: u32,
    /// Moves (from the front) already applied to the local control object.
    processed: usize,
    /// A move is written at most this many times (Torque3D: 4); 0 means no limit.
    pub max_resend: u32,
    last_ack: u32,
}

impl Default for ClientMoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl ClientMoveList {
    /// An empty list; move ids start at 1 (0 means "nothing acknowledged").
    pub fn new() -> Self {
        Self { moves: VecDeque::new(), next_id: 1, processed: 0, max_resend: 4, last_ack: 0 }
    }

    /// Collects the move for the next tick; `None` when [`MAX_MOVE_LIST`] moves are still
    /// unacknowledged (the client then stalls instead of running ahead of the server).
    pub fn collect(&mut self, mut mv: Move) -> Option<u32> {
        if self.moves.len() >= MAX_MOVE_LIST {
            return None;
        }
        mv.id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.moves.push_back(Pending { mv, send_count: 0 });
        Some(mv.id)
    }

    /// The next collected move not yet applied locally (for prediction), marking it applied.
    pub fn next_move(&mut self) -> Option<Move> {
        let p = self.moves.get(self.processed)?;
        self.processed += 1;
        Some(p.mv)
    }

    /// Records the control object's checksum after the client applied move `id`.
    pub fn set_checksum(&mut self, id: u32, checksum: u16) {
        if let Some(p) = self.moves.iter_mut().find(|p| p.mv.id == id) {
            p.mv.checksum = checksum;
        }
    }

    /// The server processed every move up to `id`: drop them.
    pub fn acknowledge(&mut self, id: u32) {
        if id.wrapping_sub(self.last_ack) as i32 <= 0 {
            return;
        }
        self.last_ack = id;
        while let Some(p) = self.moves.front() {
            if id.wrapping_sub(p.mv.id) as i32 >= 0 {
                self.moves.pop_front();
                self.processed = self.processed.saturating_sub(1);
            } else {
                break;
            }
        }
    }

    /// Last acknowledged id.
    pub fn last_ack(&self) -> u32 {
        self.last_ack
    }

    /// Unacknowledged moves, oldest first.
    pub fn unacknowledged(&self) -> impl Iterator<Item = &Move> {
        self.moves.iter().map(|p| &p.mv)
    }

    /// Number of unacknowledged moves.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// True when nothing is unacknowledged.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// After a correction from the server (its state as of the last acknowledged move), the
    /// moves the client already applied must be applied again on top: these, oldest first.
    pub fn replay_moves(&self) -> Vec<Move> {
        self.moves.iter().take(self.processed).map(|p| p.mv).collect()
    }

    /// Writes the unacknowledged moves (skipping leading ones sent `max_resend` times):
    /// first id (32 bits), count (5 bits), then each move delta-coded against the previous
    /// one with its 16-bit checksum. Returns the number of moves written.
    pub fn write_moves(&mut self, w: &mut BitWriter) -> usize {
        let mut skip = 0;
        if self.max_resend > 0 {
            while skip < self.moves.len() && self.moves[skip].send_count >= self.max_resend {
                skip += 1;
            }
        }
        let count = self.moves.len() - skip;
        let first = self.moves.get(skip).map_or(self.next_id, |p| p.mv.id);
        w.write_int(first, 32);
        w.write_int(count as u32, COUNT_BITS);
        let mut prev: Option<Move> = None;
        for p in self.moves.iter_mut().skip(skip) {
            p.send_count += 1;
            p.mv.pack(w, prev.as_ref());
            w.write_int(u32::from(p.mv.checksum), CHECKSUM_BITS);
            prev = Some(p.mv);
        }
        count
    }
}

/// Reads a move block written by [`ClientMoveList::write_moves`]: the moves with ids.
pub fn read_moves(r: &mut BitReader<'_>) -> Result<Vec<Move>, MoveError> {
    let first = r.read_int(32)?;
    let count = r.read_int(COUNT_BITS)?;
    if count as usize > MAX_MOVE_LIST {
        return Err(MoveError::TooMany(count));
    }
    let mut out: Vec<Move> = Vec::with_capacity(count as usize);
    for i in 0..count {
        let mut m = Move::unpack(r, out.last())?;
        m.id = first.wrapping_add(i);
        m.checksum = r.read_int(CHECKSUM_BITS)? as u16;
        out.push(m);
    }
    Ok(out)
}

/// The server's side: received moves waiting for their ticks, the last processed id (to
/// acknowledge), and whether the client's control object went out of sync.
#[derive(Debug, Clone, Default)]
pub struct ServerMoveList {
    queue: VecDeque<Move>,
    /// Highest id received (queued or processed).
    last_received: u32,
    last_processed: u32,
    mismatch: bool,
    /// Moves that arrived again (already queued or processed) and were ignored.
    pub duplicates: u64,
    /// The move clock: ticks' worth of moves the client may still have applied (one per
    /// server tick, banked up to [`MAX_MOVE_CREDIT`] while it sends nothing).
    credit: u32,
    /// Moves received beyond what the clock allows and dropped unapplied.
    pub over_clock: u64,
}

/// Ticks of moves a client may bank (it sent nothing, then catches up after a late or lost
/// packet): about a third of a second at 32 ms ticks. A client cannot run faster than real
/// time for longer than that, as V12's move clock ensured.
pub const MAX_MOVE_CREDIT: u32 = 10;

impl ServerMoveList {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes moves read from a client packet; ids already seen are ignored, and the queue
    /// never grows past [`MAX_MOVE_LIST`] (extra moves are dropped; the client re-sends).
    pub fn receive(&mut self, moves: &[Move]) {
        for m in moves {
            if m.id.wrapping_sub(self.last_received) as i32 <= 0 {
                self.duplicates += 1;
                // Still queued: the later copy's checksum wins (the client replayed it after
                // a correction).
                if let Some(front) = self.queue.front()
                    && let Some(q) = self.queue.get_mut(m.id.wrapping_sub(front.id) as usize)
                    && q.id == m.id
                {
                    q.checksum = m.checksum;
                }
                continue;
            }
            if self.queue.len() >= MAX_MOVE_LIST {
                break;
            }
            self.last_received = m.id;
            self.queue.push_back(*m);
        }
    }

    /// Reads a move block from a client packet and queues it.
    pub fn read_packet(&mut self, r: &mut BitReader<'_>) -> Result<usize, MoveError> {
        let moves = read_moves(r)?;
        let before = self.queue.len();
        self.receive(&moves);
        Ok(self.queue.len() - before)
    }

    /// One server tick passed: one more move may be applied.
    pub fn tick(&mut self) {
        self.credit = (self.credit + 1).min(MAX_MOVE_CREDIT);
    }

    /// The next move the move clock allows (see [`Self::tick`]); past the clock, what is
    /// queued beyond the banked credit is dropped (a client sending moves faster than real
    /// time gains nothing), counted in `over_clock`.
    pub fn next_move_in_time(&mut self) -> Option<Move> {
        if self.credit == 0 {
            let excess = self.queue.len().saturating_sub(MAX_MOVE_CREDIT as usize);
            if excess > 0 {
                self.queue.drain(..excess);
                self.over_clock += excess as u64;
            }
            return None;
        }
        let m = self.next_move()?;
        self.credit -= 1;
        Some(m)
    }

    /// The next move for the control object's tick (`None`: the client sent nothing in time).
    pub fn next_move(&mut self) -> Option<Move> {
        let m = self.queue.pop_front()?;
        self.last_processed = m.id;
        Some(m)
    }

    /// After processing a move, compare the server's checksum of the control object with the
    /// client's; a difference means the client needs the full control-object state.
    pub fn check(&mut self, mv: &Move, server_checksum: u16) -> bool {
        let ok = mv.checksum == server_checksum;
        if !ok {
            self.mismatch = true;
        }
        ok
    }

    /// True (once) when a correction should be sent with the next packet.
    pub fn take_mismatch(&mut self) -> bool {
        std::mem::take(&mut self.mismatch)
    }

    /// The id to acknowledge: last move processed.
    pub fn ack_id(&self) -> u32 {
        self.last_processed
    }

    /// Moves waiting.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }
}

/// A 16-bit checksum of control-object state (the truncated CRC-32 of its bytes), so both
/// sides compute the same value from the same quantised state.
pub fn control_checksum(state: &[u8]) -> u16 {
    (crc32fast::hash(state) & 0xFFFF) as u16
}
