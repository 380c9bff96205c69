//! The dedicated server's console on standard input (V12's `ConsoleEvent`: a line typed at
//! the server's terminal is evaluated as script). A reader thread owns stdin and hands whole
//! lines to the loop through a bounded channel; the loop takes what has arrived without
//! waiting, at most [`LINES_PER_FRAME`] a frame, so the tick never blocks on input. A line over
//! [`MAX_LINE`] bytes (the remote console's limit) is refused with a message and never held
//! whole in memory.

use std::io::{BufRead, Read};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};

/// The longest line evaluated, in bytes (the telnet console's limit).
pub const MAX_LINE: usize = v12_services::telnet::MAX_LINE;
/// Lines waiting in the channel before the reader waits for the loop.
pub const QUEUED_LINES: usize = 64;
/// Lines evaluated in one frame at most; the rest wait for the next frames.
pub const LINES_PER_FRAME: usize = 16;

/// What the reader hands over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StdinLine {
    /// A line to evaluate (without its line end).
    Line(String),
    /// A line over [`MAX_LINE`] bytes: its length, dropped.
    TooLong(usize),
}

/// The loop's end of the reader.
#[derive(Debug)]
pub struct StdinConsole {
    rx: Receiver<StdinLine>,
    /// The reader saw the end of the input (or failed): nothing more will come.
    closed: bool,
}

impl StdinConsole {
    /// Starts a reader thread on the process's standard input.
    pub fn spawn() -> std::io::Result<Self> {
        Self::spawn_on(std::io::stdin())
    }

    /// Starts a reader thread on `input` (a test hands a pipe or bytes).
    pub fn spawn_on(input: impl Read + Send + 'static) -> std::io::Result<Self> {
        let (tx, rx) = sync_channel(QUEUED_LINES);
        std::thread::Builder::new()
            .name("stdin-console".into())
            .spawn(move || read_lines(std::io::BufReader::new(input), &tx))?;
        Ok(StdinConsole { rx, closed: false })
    }

    /// The lines that arrived, at most [`LINES_PER_FRAME`]; never waits.
    pub fn take(&mut self) -> Vec<StdinLine> {
        let mut out = Vec::new();
        while !self.closed && out.len() < LINES_PER_FRAME {
            match self.rx.try_recv() {
                Ok(l) => out.push(l),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => self.closed = true,
            }
        }
        out
    }

    /// True once the input ended and every line was taken.
    pub fn closed(&self) -> bool {
        self.closed
    }
}

/// The reader thread: whole lines up to [`MAX_LINE`] bytes; a longer one is skipped to its
/// end as it streams in and reported by its length. Stops at the end of the input, on a read
/// error, or when the loop is gone.
fn read_lines(mut input: impl BufRead, tx: &SyncSender<StdinLine>) {
    let mut line: Vec<u8> = Vec::new();
    let mut over = 0usize;
    loop {
        let buf = match input.fill_buf() {
            Ok([]) => break,
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!(%e, "standard input: read failed; the console stops reading");
                return;
            }
        };
        let (chunk, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if over > 0 || line.len() + chunk.len() > MAX_LINE {
            over += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        let used = end.unwrap_or(buf.len());
        input.consume(used);
        if end.is_some() && !send_line(tx, &mut line, &mut over) {
            return;
        }
    }
    if (!line.is_empty() || over > 0) && !send_line(tx, &mut line, &mut over) {
        tracing::debug!("standard input: the loop is gone");
    }
}

/// Sends the line gathered (or its refusal); false when the loop is gone.
fn send_line(tx: &SyncSender<StdinLine>, line: &mut Vec<u8>, over: &mut usize) -> bool {
    let msg = if *over > 0 {
        StdinLine::TooLong(std::mem::take(over))
    } else {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        StdinLine::Line(String::from_utf8_lossy(line).into_owned())
    };
    line.clear();
    tx.send(msg).is_ok()
}

/// Evaluates the lines taken this frame (or refuses them) on `con`, as V12's console did.
pub fn run_lines(con: &mut v12_console_vm::Console, lines: &[StdinLine]) {
    for l in lines {
        match l {
            StdinLine::Line(text) if text.trim().is_empty() => {}
            StdinLine::Line(text) => {
                tracing::info!(line = %text, "console line from standard input");
                // Errors are printed by the console itself.
                let _ = con.eval(text);
            }
            StdinLine::TooLong(n) => {
                con.error(&format!("console: a line of {n} bytes is over the limit of {MAX_LINE}; refused"));
            }
        }
    }
}

/// A line as the journal keeps it: refused lines as `\u{1}LEN`, so a replay refuses the same.
pub fn to_journal(l: &StdinLine) -> String {
    match l {
        StdinLine::Line(t) => t.clone(),
        StdinLine::TooLong(n) => format!("\u{1}{n}"),
    }
}

/// [`to_journal`]'s inverse.
pub fn from_journal(s: String) -> StdinLine {
    match s.strip_prefix('\u{1}').and_then(|n| n.parse().ok()) {
        Some(n) => StdinLine::TooLong(n),
        None => StdinLine::Line(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &'static [u8]) -> Vec<StdinLine> {
        let mut c = StdinConsole::spawn_on(input).unwrap();
        let mut out = Vec::new();
        while !c.closed() {
            out.extend(c.take());
            std::thread::yield_now();
        }
        out
    }

    #[test]
    fn lines_arrive_whole_and_long_ones_are_refused() {
        let mut input = b"echo(1);\r\n\nquit();".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        input.extend(b"\nlast();\n");
        let got = all(Box::leak(input.into_boxed_slice()));
        assert_eq!(got[0], StdinLine::Line("echo(1);".into()));
        assert_eq!(got[1], StdinLine::Line(String::new()));
        assert_eq!(got[2], StdinLine::TooLong(MAX_LINE + 10 + "quit();".len()));
        assert_eq!(got[3], StdinLine::Line("last();".into()));
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn a_line_at_the_limit_passes_and_the_journal_form_round_trips() {
        let mut input = vec![b'y'; MAX_LINE];
        input.push(b'\n');
        let got = all(Box::leak(input.into_boxed_slice()));
        assert!(matches!(&got[..], [StdinLine::Line(l)] if l.len() == MAX_LINE));
        for l in [StdinLine::TooLong(5000), StdinLine::Line("echo(\"a\");".into())] {
            assert_eq!(from_journal(to_journal(&l)), l);
        }
    }
}
