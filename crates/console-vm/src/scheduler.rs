//! The simulated clock and the queue of scheduled calls (`schedule`, `cancel`,
//! `isEventPending`; V12: `Sim::postEvent`).

use crate::intern::Name;
use crate::object::ObjectId;
use crate::value::Value;
use hashbrown::HashMap;
use std::collections::BTreeMap;

/// Most events queued by `schedule` at once; past it `schedule` fails with an error.
pub const MAX_SCHEDULED_EVENTS: usize = 100_000;

/// A scheduled call.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub(crate) id: u32,
    pub(crate) object: Option<ObjectId>,
    pub(crate) func: Name,
    pub(crate) args: Vec<Value>,
    /// Call `func` as a method of `object` (else a global function, with `object` as lifetime guard).
    pub(crate) method: bool,
}

/// Where an event sits in the queue: its due time, then the order it was scheduled in.
pub(crate) type EventKey = (u64, u64);

/// The clock and the event queue.
#[derive(Debug)]
pub(crate) struct Scheduler {
    now: u64,
    queue: BTreeMap<EventKey, Event>,
    by_id: HashMap<u32, EventKey>,
    next_id: u32,
    seq: u64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Scheduler { now: 0, queue: BTreeMap::new(), by_id: HashMap::new(), next_id: 1, seq: 0 }
    }
}

impl Scheduler {
    /// Simulated time in milliseconds.
    pub(crate) fn now(&self) -> u64 {
        self.now
    }

    /// Sets the clock (time only moves forward through [`Self::take`] and this).
    pub(crate) fn set_now(&mut self, ms: u64) {
        self.now = ms;
    }

    /// Queues a call `delay_ms` from now. `None` when [`MAX_SCHEDULED_EVENTS`] are queued.
    pub(crate) fn schedule(
        &mut self,
        delay_ms: u64,
        object: Option<ObjectId>,
        func: Name,
        args: Vec<Value>,
        method: bool,
    ) -> Option<u32> {
        if self.queue.len() >= MAX_SCHEDULED_EVENTS {
            return None;
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let key = (self.now.saturating_add(delay_ms), self.seq);
        self.seq += 1;
        self.queue.insert(key, Event { id, object, func, args, method });
        self.by_id.insert(id, key);
        Some(id)
    }

    /// Cancels an event; false when it is not pending.
    pub(crate) fn cancel(&mut self, id: u32) -> bool {
        match self.by_id.remove(&id) {
            Some(k) => self.queue.remove(&k).is_some(),
            None => false,
        }
    }

    /// Cancels every event bound to `obj` (it is being deleted).
    pub(crate) fn cancel_events_of(&mut self, obj: ObjectId) {
        let ids: Vec<u32> = self.queue.values().filter(|e| e.object == Some(obj)).map(|e| e.id).collect();
        for id in ids {
            self.cancel(id);
        }
    }

    /// True while the event has not fired or been cancelled.
    pub(crate) fn is_pending(&self, id: u32) -> bool {
        self.by_id.contains_key(&id)
    }

    /// When the next event is due, if any.
    pub(crate) fn next_time(&self) -> Option<u64> {
        self.queue.keys().next().map(|k| k.0)
    }

    /// Keys of the events due by `target`, in order: only what is queued now, so an event
    /// scheduled while these fire waits for the next frame.
    pub(crate) fn due_by(&self, target: u64) -> Vec<EventKey> {
        self.queue.range(..=(target, u64::MAX)).map(|(k, _)| *k).collect()
    }

    /// Takes an event out of the queue to fire it, moving the clock to its time. `None` when
    /// it was cancelled meanwhile.
    pub(crate) fn take(&mut self, key: EventKey) -> Option<Event> {
        let ev = self.queue.remove(&key)?;
        self.by_id.remove(&ev.id);
        self.now = key.0;
        Some(ev)
    }
}
