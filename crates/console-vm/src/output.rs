//! Where console output goes: the host supplies a sink.

use std::cell::RefCell;
use std::rc::Rc;

/// Severity of a console line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `echo`, trace, dumps.
    Normal,
    /// `warn`.
    Warning,
    /// `error` and runtime errors.
    Error,
}

/// Receives every line the console prints.
pub trait OutputSink {
    /// One line of output (without the trailing newline).
    fn line(&mut self, level: Level, text: &str);
}

/// Echo to stdout, warnings and errors to stderr (the runner's sink).
#[derive(Debug, Default)]
pub struct StdioSink;

impl OutputSink for StdioSink {
    fn line(&mut self, level: Level, text: &str) {
        use std::io::Write;
        match level {
            Level::Normal => {
                let _ = writeln!(std::io::stdout().lock(), "{text}");
            }
            _ => {
                let _ = writeln!(std::io::stderr().lock(), "{text}");
            }
        }
    }
}

/// Collects output in memory (tests, embedding). Clones share the buffer.
#[derive(Clone, Debug, Default)]
pub struct BufferSink {
    lines: Rc<RefCell<Vec<(Level, String)>>>,
}

impl BufferSink {
    /// A new empty buffer.
    pub fn new() -> Self {
        Self::default()
    }
    /// All lines so far.
    pub fn lines(&self) -> Vec<(Level, String)> {
        self.lines.borrow().clone()
    }
    /// All text at `Normal` level, one line each, newline-terminated.
    pub fn stdout(&self) -> String {
        self.collect(|l| l == Level::Normal)
    }
    /// All warning and error text.
    pub fn stderr(&self) -> String {
        self.collect(|l| l != Level::Normal)
    }
    /// Everything, interleaved, newline-terminated.
    pub fn all(&self) -> String {
        self.collect(|_| true)
    }
    /// Forget the collected lines.
    pub fn clear(&self) {
        self.lines.borrow_mut().clear();
    }
    fn collect(&self, f: impl Fn(Level) -> bool) -> String {
        let mut s = String::new();
        for (l, t) in self.lines.borrow().iter() {
            if f(*l) {
                s.push_str(t);
                s.push('\n');
            }
        }
        s
    }
}

impl OutputSink for BufferSink {
    fn line(&mut self, level: Level, text: &str) {
        self.lines.borrow_mut().push((level, text.to_string()));
    }
}
