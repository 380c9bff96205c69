//! The console log the GUI console control shows: an [`OutputSink`] that keeps the last lines
//! (and can pass them on to another sink, e.g. stdout).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use v12_console_vm::{Level, OutputSink};

/// Lines kept by default.
pub const DEFAULT_LOG_LINES: usize = 512;

/// A shared ring of console lines. Clones share the ring, so the console's sink and the GUI
/// read the same lines; `generation` changes when lines arrive so controls repaint.
#[derive(Clone, Default)]
pub struct ConsoleLog {
    inner: Rc<RefCell<LogInner>>,
}

#[derive(Default)]
struct LogInner {
    lines: VecDeque<(Level, String)>,
    cap: usize,
    generation: u64,
    forward: Option<Box<dyn OutputSink>>,
}

impl std::fmt::Debug for ConsoleLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let i = self.inner.borrow();
        f.debug_struct("ConsoleLog")
            .field("lines", &i.lines.len())
            .field("generation", &i.generation)
            .finish()
    }
}

impl ConsoleLog {
    pub fn new(cap: usize) -> Self {
        let log = ConsoleLog::default();
        log.inner.borrow_mut().cap = cap.max(1);
        log
    }

    /// Also hand every line to `sink`.
    pub fn forward_to(&self, sink: Box<dyn OutputSink>) {
        self.inner.borrow_mut().forward = Some(sink);
    }

    /// A sink to give to `Console::set_output`.
    pub fn sink(&self) -> Box<dyn OutputSink> {
        Box::new(self.clone())
    }

    pub fn len(&self) -> usize {
        self.inner.borrow().lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn generation(&self) -> u64 {
        self.inner.borrow().generation
    }

    /// Up to `n` lines ending `back` lines before the newest.
    pub fn tail(&self, n: usize, back: usize) -> Vec<(Level, String)> {
        let i = self.inner.borrow();
        let end = i.lines.len().saturating_sub(back);
        let start = end.saturating_sub(n);
        i.lines.range(start..end).cloned().collect()
    }

    pub fn push(&self, level: Level, text: &str) {
        let mut i = self.inner.borrow_mut();
        let cap = if i.cap == 0 { DEFAULT_LOG_LINES } else { i.cap };
        while i.lines.len() >= cap {
            i.lines.pop_front();
        }
        i.lines.push_back((level, text.to_owned()));
        i.generation += 1;
        if let Some(f) = i.forward.as_mut() {
            f.line(level, text);
        }
    }
}

impl OutputSink for ConsoleLog {
    fn line(&mut self, level: Level, text: &str) {
        self.push(level, text);
    }
}
