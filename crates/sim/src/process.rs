//! Process lists (V12 reference page SimOver): objects that want time are ticked once every 32 ms,
//! in an order that honours `process_after`. The server only runs whole ticks; the client
//! runs ticks ahead to the next boundary and then interpolates back to the present.
//!
//! The list holds ids only; objects are reached through [`ProcessWorld`], implemented by
//! whoever owns them (one owner of objects, no shared pointers).

use crate::moves::Move;
use std::collections::BTreeMap;

/// Length of one simulation tick in milliseconds.
pub const TICK_MS: u32 = 32;

/// Object ids (the console's SimObject ids, or any host-chosen id).
pub type ProcessId = u32;

/// The per-object simulation hooks of V12's GameBase.
pub trait GameBase {
    /// Advances the object by exactly one 32 ms tick; `mv` is its controlling client's move.
    fn process_tick(&mut self, mv: Option<&Move>);
    /// Client only: place the object `delta` (0..1 of a tick) back from the end of the tick.
    fn interpolate_tick(&mut self, delta: f32) {
        let _ = delta;
    }
    /// Client only: animate by the whole elapsed time of a time event (seconds).
    fn advance_time(&mut self, dt: f32) {
        let _ = dt;
    }
}

/// How a process list reaches the objects it ticks.
pub trait ProcessWorld {
    /// One tick of object `id`.
    fn process_tick(&mut self, id: ProcessId, mv: Option<&Move>);
    /// Interpolation back from the end of the tick (client lists only).
    fn interpolate_tick(&mut self, id: ProcessId, delta: f32);
    /// Whole-frame animation time (client lists only).
    fn advance_time(&mut self, id: ProcessId, dt: f32);
    /// The move that drives `id` this tick (its controlling connection's next move), if any.
    fn next_move(&mut self, id: ProcessId) -> Option<Move> {
        let _ = id;
        None
    }
}

/// A simple owner of [`GameBase`] objects keyed by id (tests, benches, small hosts).
#[derive(Debug, Default)]
pub struct ObjectArena<T> {
    /// Objects by id (ordered map: iteration order is deterministic).
    pub objects: BTreeMap<ProcessId, T>,
    /// Moves queued per object, consumed one per tick.
    pub moves: BTreeMap<ProcessId, std::collections::VecDeque<Move>>,
}

impl<T: GameBase> ObjectArena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self { objects: BTreeMap::new(), moves: BTreeMap::new() }
    }
}

impl<T: GameBase> ProcessWorld for ObjectArena<T> {
    fn process_tick(&mut self, id: ProcessId, mv: Option<&Move>) {
        if let Some(o) = self.objects.get_mut(&id) {
            o.process_tick(mv);
        }
    }
    fn interpolate_tick(&mut self, id: ProcessId, delta: f32) {
        if let Some(o) = self.objects.get_mut(&id) {
            o.interpolate_tick(delta);
        }
    }
    fn advance_time(&mut self, id: ProcessId, dt: f32) {
        if let Some(o) = self.objects.get_mut(&id) {
            o.advance_time(dt);
        }
    }
    fn next_move(&mut self, id: ProcessId) -> Option<Move> {
        self.moves.get_mut(&id)?.pop_front()
    }
}

/// Errors of process-list edits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessError {
    /// The object is not in the list.
    NotInList(ProcessId),
    /// The requested ordering would make a cycle.
    Cycle { object: ProcessId, after: ProcessId },
}

impl std::fmt::Display for ProcessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotInList(id) => write!(f, "object {id} is not in the process list"),
            Self::Cycle { object, after } => write!(f, "processing {object} after {after} makes a cycle"),
        }
    }
}

impl std::error::Error for ProcessError {}

#[derive(Debug, Clone)]
struct Entry {
    /// Insertion sequence: the base order.
    seq: u64,
    after: Option<ProcessId>,
}

/// Which side a list runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessSide {
    /// Whole ticks only.
    Server,
    /// Ticks to the next boundary, then interpolation and advance_time on every time event.
    Client,
}

/// A process list: ids in a deterministic order, a tick counter and the time accumulator.
#[derive(Debug, Clone)]
pub struct ProcessList {
    side: ProcessSide,
    entries: BTreeMap<ProcessId, Entry>,
    next_seq: u64,
    order: Vec<ProcessId>,
    dirty: bool,
    /// Total simulated time (ms).
    time: u64,
    /// Ticks run so far.
    ticks: u64,
    last_delta: f32,
}

impl ProcessList {
    /// The server's list.
    pub fn server() -> Self {
        Self::new(ProcessSide::Server)
    }
    /// The client's list.
    pub fn client() -> Self {
        Self::new(ProcessSide::Client)
    }
    /// A list for `side`.
    pub fn new(side: ProcessSide) -> Self {
        Self {
            side,
            entries: BTreeMap::new(),
            next_seq: 0,
            order: Vec::new(),
            dirty: false,
            time: 0,
            ticks: 0,
            last_delta: 0.0,
        }
    }

    /// Adds an object at the end of the order (no-op if present).
    pub fn add(&mut self, id: ProcessId) {
        if self.entries.contains_key(&id) {
            return;
        }
        self.entries.insert(id, Entry { seq: self.next_seq, after: None });
        self.next_seq += 1;
        self.dirty = true;
    }

    /// Removes an object; objects that were processed after it lose that constraint.
    pub fn remove(&mut self, id: ProcessId) -> bool {
        if self.entries.remove(&id).is_none() {
            return false;
        }
        for e in self.entries.values_mut() {
            if e.after == Some(id) {
                e.after = None;
            }
        }
        self.dirty = true;
        true
    }

    /// True when `id` is in the list.
    pub fn contains(&self, id: ProcessId) -> bool {
        self.entries.contains_key(&id)
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// V12's `GameBase::processAfter`: `id` is processed at some point after `after`
    /// (a rider after its mount). Refused when it would make a cycle.
    pub fn process_after(&mut self, id: ProcessId, after: ProcessId) -> Result<(), ProcessError> {
        if !self.entries.contains_key(&after) {
            return Err(ProcessError::NotInList(after));
        }
        if !self.entries.contains_key(&id) {
            return Err(ProcessError::NotInList(id));
        }
        // Walk the chain from `after`; reaching `id` means a cycle.
        let mut cur = Some(after);
        let mut steps = 0;
        while let Some(c) = cur {
            if c == id || steps > self.entries.len() {
                return Err(ProcessError::Cycle { object: id, after });
            }
            cur = self.entries.get(&c).and_then(|e| e.after);
            steps += 1;
        }
        if let Some(e) = self.entries.get_mut(&id) {
            e.after = Some(after);
        }
        self.dirty = true;
        Ok(())
    }

    /// V12's `clearProcessAfter`.
    pub fn clear_process_after(&mut self, id: ProcessId) {
        if let Some(e) = self.entries.get_mut(&id) {
            e.after = None;
            self.dirty = true;
        }
    }

    /// The processing order: insertion order, except that every object comes after the
    /// object it must follow (a stable topological order).
    pub fn order(&mut self) -> &[ProcessId] {
        if self.dirty {
            self.rebuild();
        }
        &self.order
    }

    fn rebuild(&mut self) {
        let mut by_seq: Vec<(u64, ProcessId)> = self.entries.iter().map(|(id, e)| (e.seq, *id)).collect();
        by_seq.sort_unstable();
        // Children of each object, in insertion order.
        let mut children: BTreeMap<ProcessId, Vec<ProcessId>> = BTreeMap::new();
        let mut roots = Vec::new();
        for &(_, id) in &by_seq {
            match self.entries[&id].after {
                Some(a) => children.entry(a).or_default().push(id),
                None => roots.push(id),
            }
        }
        // Depth-first: an object, then everything that must come after it.
        let mut order = Vec::with_capacity(by_seq.len());
        let mut stack: Vec<ProcessId> = roots.into_iter().rev().collect();
        while let Some(id) = stack.pop() {
            order.push(id);
            if let Some(ch) = children.get(&id) {
                stack.extend(ch.iter().rev());
            }
        }
        self.order = order;
        self.dirty = false;
    }

    /// Ticks run so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Simulated time so far (ms).
    pub fn time(&self) -> u64 {
        self.time
    }

    /// The interpolation delta of the last client advance (0..1 of a tick back from its end).
    pub fn last_delta(&self) -> f32 {
        self.last_delta
    }

    fn run_ticks(&mut self, count: u64, world: &mut dyn ProcessWorld) {
        if count == 0 {
            return;
        }
        if self.dirty {
            self.rebuild();
        }
        for _ in 0..count {
            for &id in &self.order {
                let mv = world.next_move(id);
                world.process_tick(id, mv.as_ref());
            }
            self.ticks += 1;
        }
    }

    /// Server: accumulates `dt_ms` and runs every whole tick now due. Returns ticks run.
    pub fn advance_server_time(&mut self, dt_ms: u32, world: &mut dyn ProcessWorld) -> u64 {
        self.time += u64::from(dt_ms);
        let target = self.time / u64::from(TICK_MS);
        let n = target - self.ticks.min(target);
        self.run_ticks(n, world);
        n
    }

    /// Client: ticks up to the tick boundary at or after the present, then rewinds every
    /// object by the remaining fraction (`interpolate_tick`) and calls `advance_time` with
    /// the whole elapsed time. Returns ticks run.
    pub fn advance_client_time(&mut self, dt_ms: u32, world: &mut dyn ProcessWorld) -> u64 {
        self.time += u64::from(dt_ms);
        let tick = u64::from(TICK_MS);
        let target = self.time.div_ceil(tick);
        let n = target - self.ticks.min(target);
        self.run_ticks(n, world);
        let end_of_tick = self.ticks * tick;
        self.last_delta = (end_of_tick.saturating_sub(self.time)) as f32 / TICK_MS as f32;
        if self.dirty {
            self.rebuild();
        }
        for &id in &self.order {
            world.interpolate_tick(id, self.last_delta);
        }
        let dt = dt_ms as f32 / 1000.0;
        for &id in &self.order {
            world.advance_time(id, dt);
        }
        n
    }

    /// Advances by `dt_ms` on this list's side.
    pub fn advance_time(&mut self, dt_ms: u32, world: &mut dyn ProcessWorld) -> u64 {
        match self.side {
            ProcessSide::Server => self.advance_server_time(dt_ms, world),
            ProcessSide::Client => self.advance_client_time(dt_ms, world),
        }
    }
}
