//! What the script debugger is made of, below the console: the transport its bytes travel
//! on, its state, and the registry of compiled code it patches. The protocol is
//! [`crate::debugger`] (methods of the console); this module does not know the console.

use crate::bytecode::FuncDef;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::rc::{Rc, Weak};
use std::time::Duration;

/// The longest command line a client may send (V12's `MaxCommandSize`); longer closes it.
pub const MAX_COMMAND: usize = 2048;
/// Output waiting for a client that does not read before it is dropped.
pub(crate) const MAX_PENDING_OUT: usize = 4 << 20;
/// Sleep between polls while stopped or waiting for a client (V12 slept 10 ms).
pub(crate) const WAIT_MS: u64 = 5;
/// Longest password kept (V12's `PasswordMaxLength`).
pub(crate) const PASSWORD_MAX: usize = 32;
/// Console lines kept for a client between polls; past it lines are not echoed.
pub(crate) const MAX_PENDING_COUT: usize = 4096;

/// What a transport saw since the last poll.
#[derive(Debug, PartialEq, Eq)]
pub enum TransportEvent {
    /// A client connected (its address, for the log).
    Connected(String),
    /// Bytes from the client.
    Data(Vec<u8>),
    /// The client went away.
    Closed,
}

/// Carries the debugger's bytes: one client at a time. Never blocks.
pub trait DebugTransport {
    /// Accepts a waiting client, reads what the connected one sent.
    fn poll(&mut self, out: &mut Vec<TransportEvent>);
    /// Sends bytes to the connected client (dropped when there is none). False when the
    /// client cannot take them (it is then disconnected).
    fn send(&mut self, data: &[u8]) -> bool;
    /// Closes the client's connection (the listener stays).
    fn disconnect(&mut self);
    /// Waits a little for input (while stopped or waiting for a client).
    fn wait(&mut self) {
        std::thread::sleep(Duration::from_millis(WAIT_MS));
    }
}

/// The default transport: a non-blocking TCP listener on loopback, one client at a time (a
/// second one is closed at once, as in V12).
#[derive(Debug)]
pub struct TcpDebugTransport {
    listener: TcpListener,
    client: Option<TcpStream>,
    pending: Vec<u8>,
}

impl TcpDebugTransport {
    /// Listens on `127.0.0.1:port` (0 picks a free port).
    pub fn bind(port: u16) -> io::Result<Self> {
        Self::bind_at(std::net::Ipv4Addr::LOCALHOST.into(), port)
    }

    /// Listens on `ip:port` (0 picks a free port).
    pub fn bind_at(ip: std::net::IpAddr, port: u16) -> io::Result<Self> {
        let listener = TcpListener::bind(SocketAddr::new(ip, port))?;
        listener.set_nonblocking(true)?;
        Ok(TcpDebugTransport { listener, client: None, pending: Vec::new() })
    }

    /// The port listened on.
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    fn flush(&mut self) -> bool {
        let Some(c) = self.client.as_mut() else {
            self.pending.clear();
            return true;
        };
        while !self.pending.is_empty() {
            match c.write(&self.pending) {
                Ok(0) => return false,
                Ok(n) => {
                    self.pending.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        self.pending.len() <= MAX_PENDING_OUT
    }
}

impl DebugTransport for TcpDebugTransport {
    fn poll(&mut self, out: &mut Vec<TransportEvent>) {
        loop {
            match self.listener.accept() {
                Ok((stream, addr)) => {
                    if self.client.is_some() || stream.set_nonblocking(true).is_err() {
                        drop(stream);
                        continue;
                    }
                    let _ = stream.set_nodelay(true);
                    self.client = Some(stream);
                    self.pending.clear();
                    out.push(TransportEvent::Connected(addr.to_string()));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if !self.flush() {
            self.disconnect();
            out.push(TransportEvent::Closed);
            return;
        }
        let Some(c) = self.client.as_mut() else { return };
        let mut buf = [0u8; 4096];
        // A bounded number of reads per poll: one flooding client cannot hold the frame.
        for _ in 0..16 {
            match c.read(&mut buf) {
                Ok(0) => {
                    self.disconnect();
                    out.push(TransportEvent::Closed);
                    return;
                }
                Ok(n) => out.push(TransportEvent::Data(buf[..n].to_vec())),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.disconnect();
                    out.push(TransportEvent::Closed);
                    return;
                }
            }
        }
    }

    fn send(&mut self, data: &[u8]) -> bool {
        if self.client.is_none() {
            return true;
        }
        self.pending.extend_from_slice(data);
        self.flush()
    }

    fn disconnect(&mut self) {
        if let Some(c) = self.client.take() {
            let _ = c.shutdown(std::net::Shutdown::Both);
        }
        self.pending.clear();
    }
}

/// Where the debugger's one client is in the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    NotConnected,
    /// Connected; the next line is the password.
    PasswordTry,
    /// Password right, `waitForClient` set: the program waits for `CONTINUE` or `STEPIN`.
    Initialize,
    Connected,
}

#[derive(Clone, Debug)]
pub(crate) struct Breakpoint {
    pub(crate) file: Rc<str>,
    pub(crate) line: u32,
    pub(crate) clear_on_hit: bool,
    pub(crate) pass_count: u32,
    pub(crate) count: u32,
    pub(crate) condition: String,
}

impl Breakpoint {
    /// Set at `file:line` (file names compare without case, as V12's).
    pub(crate) fn is_at(&self, file: &str, line: u32) -> bool {
        self.line == line && self.file.eq_ignore_ascii_case(file)
    }
}

impl Debugger {
    /// Where a breakpoint asked for at `line` of `file` goes: the first breakable line at or
    /// after it (V12's `findFirstBreakLine`), or `None` (cleared) when there is none or another
    /// breakpoint holds that line.
    pub(crate) fn place(&self, lines: &[u32], file: &str, line: u32) -> Option<u32> {
        let l = *lines.iter().find(|&&l| l >= line)?;
        let taken = l != line && self.breakpoints.iter().any(|b| b.is_at(file, l));
        (!taken).then_some(l)
    }
}

/// Every compiled function still alive (what breakpoints patch), and each loaded file's
/// breakable lines (what `FILELIST` and `BREAKLIST` list, and where breakpoints move to; a
/// file's top-level code is gone once it ran, its lines are not). Code evaluated without a
/// file name (`eval`) is not kept.
#[derive(Debug, Default)]
pub(crate) struct CodeRegistry {
    funcs: Vec<Weak<FuncDef>>,
    /// Length at the last prune: dead entries are dropped when the list doubles.
    pruned_at: usize,
    /// Files in the order first loaded, with the breakable lines of their latest load.
    files: Vec<(Rc<str>, Vec<u32>)>,
}

impl CodeRegistry {
    /// Keeps `code` and every function it declares.
    pub(crate) fn add(&mut self, code: &Rc<FuncDef>) {
        fn walk(f: &Rc<FuncDef>, out: &mut Vec<Weak<FuncDef>>) {
            out.push(Rc::downgrade(f));
            for d in &f.decls {
                walk(d, out);
            }
        }
        let first = self.funcs.len();
        walk(code, &mut self.funcs);
        let mut lines: Vec<u32> = self.funcs[first..]
            .iter()
            .filter_map(Weak::upgrade)
            .flat_map(|f| f.breaks.iter().map(|b| b.0).collect::<Vec<_>>())
            .collect();
        lines.sort_unstable();
        lines.dedup();
        match self.files.iter_mut().find(|(f, _)| f.eq_ignore_ascii_case(&code.file)) {
            Some(entry) => entry.1 = lines,
            None => self.files.push((code.file.clone(), lines)),
        }
        if self.funcs.len() >= 2 * self.pruned_at.max(64) {
            self.funcs.retain(|w| w.strong_count() > 0);
            self.pruned_at = self.funcs.len();
        }
    }

    pub(crate) fn live(&self) -> impl Iterator<Item = Rc<FuncDef>> + '_ {
        self.funcs.iter().filter_map(Weak::upgrade)
    }

    /// Files loaded, in the order first loaded.
    pub(crate) fn files(&self) -> Vec<Rc<str>> {
        self.files.iter().map(|(f, _)| f.clone()).collect()
    }

    /// The file's breakable lines, sorted (empty for a file never loaded).
    pub(crate) fn break_lines(&self, file: &str) -> Vec<u32> {
        self.files
            .iter()
            .find(|(f, _)| f.eq_ignore_ascii_case(file))
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }
}

/// The debugger's state; lives in the console while `dbgSetParameters` has a port open.
pub(crate) struct Debugger {
    pub(crate) transport: Box<dyn DebugTransport>,
    pub(crate) port: u16,
    pub(crate) password: String,
    pub(crate) wait_for_client: bool,
    pub(crate) state: State,
    pub(crate) line_buf: Vec<u8>,
    pub(crate) breakpoints: Vec<Breakpoint>,
    /// Stop at the next statement (`BRKNEXT`, `STEPIN`; with `step_depth`, `STEPOVER`/`STEPOUT`).
    pub(crate) break_next: bool,
    /// Stop only at a statement whose stack depth is at most this.
    pub(crate) step_depth: Option<usize>,
    /// Stopped at a breakpoint: conditions and `EVAL`s do not stop again.
    pub(crate) paused: bool,
    pub(crate) events: Vec<TransportEvent>,
    /// The client asked for V12's extensions (`V12EXT`): warnings and errors come as `CERR`,
    /// a failed `EVAL` as `EVALERR`.
    pub(crate) ext: bool,
}

impl std::fmt::Debug for Debugger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Debugger")
            .field("port", &self.port)
            .field("state", &self.state)
            .field("breakpoints", &self.breakpoints.len())
            .finish()
    }
}

/// The host's hook while a script is stopped (keep the network alive, redraw).
pub type IdleHook = Box<dyn FnMut()>;

/// What the console keeps for the debugger, in one box.
#[derive(Default)]
pub(crate) struct DebugParts {
    /// Every live compiled function by file.
    pub(crate) registry: CodeRegistry,
    /// The remote debugger, while `dbgSetParameters` has a port open.
    pub(crate) session: Option<Box<Debugger>>,
    /// Console lines waiting to go to the debugger client as `COUT` (while one is connected).
    pub(crate) cout: Option<Vec<(crate::output::Level, String)>>,
    /// The host's hook while a script is stopped at a breakpoint.
    pub(crate) idle: Option<IdleHook>,
    /// Time spent stopped at breakpoints.
    pub(crate) paused_ms: u64,
}
