//! Log lines about what remote peers do, limited per source: a peer that repeats a bad
//! request thousands of times a second must not write thousands of log lines. Each source
//! may log a few lines per window; the rest are counted, and the next line it logs (or
//! [`LogLimiter::drain_suppressed`]) says how many were left out.

use hashbrown::HashMap;
use std::hash::Hash;

#[derive(Debug, Clone, Copy)]
struct Window {
    start: u64,
    logged: u32,
    suppressed: u64,
}

/// Per-source log limits (`K` names a source: an address, a connection).
#[derive(Debug)]
pub struct LogLimiter<K> {
    per_window: u32,
    window_ms: u64,
    max_sources: usize,
    windows: HashMap<K, Window>,
    /// Lines suppressed because the table was full of busy sources.
    overflow: u64,
}

/// Five lines per source each 10 s, 4,096 sources.
impl<K: Hash + Eq + Clone> Default for LogLimiter<K> {
    fn default() -> Self {
        Self::new(5, 10_000, 4096)
    }
}

impl<K: Hash + Eq + Clone> LogLimiter<K> {
    /// At most `per_window` lines per source each `window_ms`, tracking at most
    /// `max_sources` sources (past that, lines of new sources are suppressed and counted).
    pub fn new(per_window: u32, window_ms: u64, max_sources: usize) -> Self {
        Self {
            per_window: per_window.max(1),
            window_ms: window_ms.max(1),
            max_sources: max_sources.max(1),
            windows: HashMap::new(),
            overflow: 0,
        }
    }

    /// May a line about `source` be logged at `now` (ms)? `Some(n)`: yes, and `n` lines of
    /// it were suppressed before this one (log it as "suppressed N"); `None`: suppress it.
    pub fn check(&mut self, source: &K, now: u64) -> Option<u64> {
        if !self.windows.contains_key(source) && self.windows.len() >= self.max_sources {
            self.prune(now);
            if self.windows.len() >= self.max_sources {
                self.overflow += 1;
                return None;
            }
        }
        let w = self.windows.entry(source.clone()).or_insert(Window { start: now, logged: 0, suppressed: 0 });
        if now >= w.start.saturating_add(self.window_ms) {
            w.start = now;
            w.logged = 0;
        }
        if w.logged < self.per_window {
            w.logged += 1;
            Some(std::mem::take(&mut w.suppressed))
        } else {
            w.suppressed += 1;
            None
        }
    }

    /// Sources whose window has ended with lines suppressed, and how many (for a
    /// "suppressed N" summary); forgets sources that have gone quiet.
    pub fn drain_suppressed(&mut self, now: u64) -> Vec<(K, u64)> {
        let mut out = Vec::new();
        let window = self.window_ms;
        self.windows.retain(|k, w| {
            if now < w.start.saturating_add(window) {
                return true;
            }
            if w.suppressed > 0 {
                out.push((k.clone(), std::mem::take(&mut w.suppressed)));
            }
            false
        });
        if self.windows.capacity() > 4 * self.windows.len() + 64 {
            self.windows.shrink_to_fit();
        }
        out
    }

    /// Forgets `source` (it went away) and returns how many of its lines were suppressed since
    /// it last logged one, for a last "suppressed N" summary.
    pub fn forget(&mut self, source: &K) -> u64 {
        self.windows.remove(source).map_or(0, |w| w.suppressed)
    }

    /// Lines suppressed because too many sources were busy at once (taken: the count restarts).
    pub fn take_overflow(&mut self) -> u64 {
        std::mem::take(&mut self.overflow)
    }

    fn prune(&mut self, now: u64) {
        let window = self.window_ms;
        self.windows.retain(|_, w| now < w.start.saturating_add(window) || w.suppressed > 0);
        if self.windows.capacity() > 4 * self.windows.len() + 64 {
            self.windows.shrink_to_fit();
        }
    }

    /// Sources tracked now.
    pub fn tracked(&self) -> usize {
        self.windows.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_lines_per_window_then_a_count() {
        let mut l = LogLimiter::new(3, 1000, 8);
        let logged: Vec<Option<u64>> = (0..10).map(|i| l.check(&"a", i)).collect();
        assert_eq!(&logged[..4], &[Some(0), Some(0), Some(0), None]);
        assert_eq!(logged.iter().filter(|x| x.is_some()).count(), 3);
        assert_eq!(l.check(&"b", 5), Some(0), "another source has its own budget");
        assert_eq!(l.check(&"a", 1000), Some(7), "the next line says 7 were suppressed");
        for t in 1001..1010 {
            l.check(&"a", t);
        }
        assert_eq!(l.drain_suppressed(3000), vec![("a", 7)]);
        assert_eq!(l.tracked(), 0, "quiet sources are forgotten");
    }

    #[test]
    fn the_table_is_bounded() {
        let mut l = LogLimiter::new(1, 1000, 4);
        for k in 0..100u32 {
            l.check(&k, 0);
        }
        assert_eq!(l.tracked(), 4);
        assert_eq!(l.take_overflow(), 96);
        assert_eq!(l.check(&1000, 5000), Some(0), "expired windows make room");
    }
}
