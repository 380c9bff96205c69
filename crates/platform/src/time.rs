//! Monotonic milliseconds behind a trait, so protocol code and tests can run
//! on a simulated clock while the real program uses the system's.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::event::TimeEvent;

/// Milliseconds on a monotonic clock (only differences mean anything). The
/// sans-IO layers take `now: Millis` as an argument instead of reading a clock.
pub type Millis = u64;

/// A source of monotonic time in milliseconds.
pub trait Clock {
    /// Milliseconds since the clock's start; never goes backwards.
    fn now_ms(&self) -> Millis;
}

/// The real clock: milliseconds since it was created, from [`Instant`].
#[derive(Clone, Copy, Debug)]
pub struct SystemClock {
    start: Instant,
}

impl SystemClock {
    pub fn new() -> Self {
        SystemClock { start: Instant::now() }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now_ms(&self) -> Millis {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// Seconds since the Unix epoch by the system's wall clock (0 before 1970). Only what must
/// agree with other machines reads it (connect tokens expire by it); a journaled session
/// records it once and derives the rest from its journaled [`Clock`].
pub fn unix_now_s() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A clock that moves only when told, for deterministic tests. Clones share
/// the same time, so a harness can hand one to every endpoint.
#[derive(Clone, Debug, Default)]
pub struct ManualClock {
    now: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock reading `start` ms.
    pub fn new(start: Millis) -> Self {
        ManualClock { now: Arc::new(AtomicU64::new(start)) }
    }

    /// Move forward by `ms` (saturating).
    pub fn advance(&self, ms: Millis) {
        let _ = self.now.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| Some(t.saturating_add(ms)));
    }

    /// Jump to `ms`; a time in the past is ignored, keeping the clock monotonic.
    pub fn set(&self, ms: Millis) {
        self.now.fetch_max(ms, Ordering::Relaxed);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> Millis {
        self.now.load(Ordering::Relaxed)
    }
}

/// Produces V12's time events: each call reports the milliseconds
/// since the previous one, read from a [`Clock`].
#[derive(Clone, Debug)]
pub struct TimeEventSource<C: Clock> {
    clock: C,
    last: Millis,
}

impl<C: Clock> TimeEventSource<C> {
    /// Start measuring from the clock's current time.
    pub fn new(clock: C) -> Self {
        let last = clock.now_ms();
        TimeEventSource { clock, last }
    }

    /// The clock's current time.
    pub fn now_ms(&self) -> Millis {
        self.clock.now_ms()
    }

    /// A time event for the time since the last one (or since creation).
    /// Gaps over `u32::MAX` ms are reported as `u32::MAX`.
    pub fn time_event(&mut self) -> TimeEvent {
        let now = self.clock.now_ms();
        let elapsed = now.saturating_sub(self.last);
        self.last = now;
        TimeEvent { elapsed_ms: u32::try_from(elapsed).unwrap_or(u32::MAX) }
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now_ms(&self) -> Millis {
        (**self).now_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_forward_and_is_shared() {
        let c = ManualClock::new(100);
        let shared = c.clone();
        c.advance(32);
        assert_eq!(shared.now_ms(), 132);
        shared.set(50);
        assert_eq!(c.now_ms(), 132);
        shared.set(1000);
        assert_eq!(c.now_ms(), 1000);
        c.advance(u64::MAX);
        assert_eq!(c.now_ms(), u64::MAX);
    }

    #[test]
    fn time_events_report_elapsed_time() {
        let clock = ManualClock::new(1000);
        let mut source = TimeEventSource::new(clock.clone());
        clock.advance(32);
        assert_eq!(source.time_event(), TimeEvent { elapsed_ms: 32 });
        assert_eq!(source.time_event(), TimeEvent { elapsed_ms: 0 });
        clock.advance(u64::from(u32::MAX) + 5);
        assert_eq!(source.time_event().elapsed_ms, u32::MAX);
        assert_eq!(source.now_ms(), clock.now_ms());
    }

    #[test]
    fn system_clock_is_monotonic() {
        let c = SystemClock::new();
        let a = c.now_ms();
        let b = c.now_ms();
        assert!(b >= a);
    }
}
