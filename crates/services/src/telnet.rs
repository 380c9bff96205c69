//! The remote console, after V12's TelnetConsole: `telnetSetParameters(port, consolePass,
//! listenPass)` opens a TCP port where a telnet client types a password and then either
//! evaluates console lines and sees the console's output (the console password) or only sees
//! the output (the listen password).
//!
//! [`TelnetSessions`] is the sans-IO core (bytes and time in, actions out); [`TelnetServer`]
//! runs it over the platform's TCP and a [`Console`]. A client that sends garbage (a line over
//! [`MAX_LINE`]), floods (over [`BYTES_PER_SECOND`] sustained) or misses the password
//! [`PASSWORD_TRIES`] times is disconnected with a log line; nothing it sends can stop the
//! game.
//!
//! Guessing and squatting: a client must give a password within [`LOGIN_DEADLINE_MS`]; past
//! [`PASSWORD_TRIES`] wrong passwords from one address, each further one makes the address
//! wait (one second, doubling per miss up to [`MAX_BACKOFF_MS`]) before the next is checked; one address may hold
//! [`PROMPTS_PER_ADDRESS`] password prompts; and when every place is taken, a new connection
//! takes the place of the oldest one still at its prompt, so the administrator can always
//! get in. Log lines per address are limited ([`v12_netobject::LogLimiter`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::rc::Rc;

use v12_console_vm::{Console, Level, OutputSink, StdioSink, Value};
use v12_netobject::LogLimiter;
use v12_platform::{ConnectState, ConnectionTag, Event, TcpIo, TcpNet};

/// Longest line a client may type (bytes); past it the client is disconnected.
pub const MAX_LINE: usize = 1024;
/// Bytes a second a client may send, sustained (with a burst of twice that).
pub const BYTES_PER_SECOND: u64 = 8 * 1024;
/// Password attempts before the connection is closed.
pub const PASSWORD_TRIES: u8 = 3;
/// Clients connected at once; more are told so and disconnected.
pub const MAX_CLIENTS: usize = 8;
/// A client that has not given a password this long after connecting is disconnected (ms).
pub const LOGIN_DEADLINE_MS: u64 = 30_000;
/// Password prompts one address may hold at once.
pub const PROMPTS_PER_ADDRESS: usize = 2;
/// The first wait after an address's [`PASSWORD_TRIES`]th wrong password (ms), doubled by
/// each further miss.
pub const FIRST_BACKOFF_MS: u64 = 1_000;
/// The longest wait after wrong passwords (ms).
pub const MAX_BACKOFF_MS: u64 = 300_000;
/// Addresses whose wrong passwords are remembered at once (the oldest are forgotten first).
const MAX_REMEMBERED_ADDRESSES: usize = 4096;
/// Console output lines kept for the clients between two pumps (older ones are dropped).
const MAX_PENDING_OUTPUT: usize = 4096;

const GREETING: &str = "V12 Telnet Remote Console\r\n\r\nEnter Password:";
const TELNET_IAC: u8 = 255;

/// What a client may do once its password is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Still typing the password (attempts made so far).
    Password(u8),
    /// Evaluates lines and sees the output (the console password).
    Full,
    /// Sees the output only (the listen password).
    Listen,
}

/// What the core asks its driver to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TelnetAction {
    /// Send these bytes to the client.
    Send(ConnectionTag, Vec<u8>),
    /// Evaluate this line in the console for the client (full access).
    Eval(ConnectionTag, String),
    /// Close the client's connection (the reason goes to the log).
    Close(ConnectionTag, String),
}

#[derive(Debug)]
struct Client {
    access: Access,
    line: Vec<u8>,
    /// Bytes of a telnet command sequence still to skip.
    skip: u8,
    /// The last byte ended a line with `\r` (a `\n` right after it is the same end).
    after_cr: bool,
    /// Send budget (bytes) and when it was last topped up (ms).
    budget: u64,
    budget_at: u64,
    /// The client's address (unknown to the bare [`TelnetSessions::accept`]).
    ip: Option<IpAddr>,
    /// When it connected (ms).
    since: u64,
}

/// Wrong passwords from one address: how many, and until when the next one is not checked.
#[derive(Debug, Clone, Copy)]
struct Misses {
    count: u32,
    wait_until: u64,
}

/// The sans-IO core: every client's password state, line editing and budget.
#[derive(Debug, Default)]
pub struct TelnetSessions {
    console_pass: String,
    listen_pass: String,
    clients: BTreeMap<ConnectionTag, Client>,
    misses: BTreeMap<IpAddr, Misses>,
    /// Password lines checked (right or wrong), for tests and the log.
    checked: u64,
}

impl TelnetSessions {
    /// Sessions checking these passwords (an empty one grants nothing).
    pub fn new(console_pass: &str, listen_pass: &str) -> Self {
        Self {
            console_pass: console_pass.into(),
            listen_pass: listen_pass.into(),
            clients: BTreeMap::new(),
            misses: BTreeMap::new(),
            checked: 0,
        }
    }

    /// Connected clients.
    pub fn len(&self) -> usize {
        self.clients.len()
    }
    /// True with no client.
    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }
    /// A client's access, if it is connected.
    pub fn access(&self, tag: ConnectionTag) -> Option<Access> {
        self.clients.get(&tag).map(|c| c.access)
    }

    /// Password lines checked so far.
    pub fn passwords_checked(&self) -> u64 {
        self.checked
    }

    /// A client connected at `now`: the password prompt, or a refusal when full.
    pub fn accept(&mut self, tag: ConnectionTag, now: u64) -> Vec<TelnetAction> {
        self.admit(tag, None, now)
    }

    /// A client from `ip` connected at `now`: the password prompt, or a refusal (its address
    /// must wait after wrong passwords, or holds its share of prompts). When every place is
    /// taken, the oldest client still at its prompt makes way.
    pub fn accept_from(&mut self, tag: ConnectionTag, ip: IpAddr, now: u64) -> Vec<TelnetAction> {
        self.admit(tag, Some(ip), now)
    }

    fn admit(&mut self, tag: ConnectionTag, ip: Option<IpAddr>, now: u64) -> Vec<TelnetAction> {
        let refuse = |text: &str, reason: String| {
            vec![
                TelnetAction::Send(tag, format!("{text}\r\n").into_bytes()),
                TelnetAction::Close(tag, reason),
            ]
        };
        if let Some(ip) = ip {
            if let Some(wait) = self.wait_left(ip, now) {
                let secs = wait.div_ceil(1000);
                return refuse(
                    &format!("Too many wrong passwords from your address; try again in {secs} s."),
                    format!("refused: wrong passwords from {ip}, {secs} s to wait"),
                );
            }
            let prompts = self
                .clients
                .values()
                .filter(|c| c.ip == Some(ip) && matches!(c.access, Access::Password(_)))
                .count();
            if prompts >= PROMPTS_PER_ADDRESS {
                return refuse(
                    "Too many connections from your address.",
                    format!("refused: {ip} already holds {PROMPTS_PER_ADDRESS} password prompts"),
                );
            }
        }
        let mut out = Vec::new();
        if self.clients.len() >= MAX_CLIENTS {
            let oldest = self
                .clients
                .iter()
                .filter(|(_, c)| matches!(c.access, Access::Password(_)))
                .min_by_key(|(t, c)| (c.since, **t))
                .map(|(t, _)| *t);
            let Some(oldest) = oldest else {
                return refuse("Too many connections.", format!("refused: already {MAX_CLIENTS} clients"));
            };
            self.clients.remove(&oldest);
            out.push(TelnetAction::Send(oldest, b"\r\nPlace given to a newer connection.\r\n".to_vec()));
            out.push(TelnetAction::Close(oldest, "at the password prompt when every place was taken".into()));
        }
        let client = Client {
            access: Access::Password(0),
            line: Vec::new(),
            skip: 0,
            after_cr: false,
            budget: 2 * BYTES_PER_SECOND,
            budget_at: now,
            ip,
            since: now,
        };
        self.clients.insert(tag, client);
        out.push(TelnetAction::Send(tag, GREETING.as_bytes().to_vec()));
        out
    }

    /// How long `ip` must still wait before a password of it is checked.
    fn wait_left(&self, ip: IpAddr, now: u64) -> Option<u64> {
        self.misses.get(&ip).map(|m| m.wait_until.saturating_sub(now)).filter(|w| *w > 0)
    }

    fn missed(&mut self, ip: IpAddr, now: u64) {
        if !self.misses.contains_key(&ip) && self.misses.len() >= MAX_REMEMBERED_ADDRESSES {
            let forget = self.misses.iter().min_by_key(|(_, m)| m.wait_until).map(|(ip, _)| *ip);
            if let Some(forget) = forget {
                self.misses.remove(&forget);
            }
        }
        let m = self.misses.entry(ip).or_insert(Misses { count: 0, wait_until: 0 });
        m.count = m.count.saturating_add(1);
        if m.count >= u32::from(PASSWORD_TRIES) {
            let doublings = (m.count - u32::from(PASSWORD_TRIES)).min(20);
            m.wait_until = now + FIRST_BACKOFF_MS.saturating_mul(1 << doublings).min(MAX_BACKOFF_MS);
        }
    }

    /// Once a frame: closes clients that gave no password within [`LOGIN_DEADLINE_MS`], and
    /// forgets addresses whose wrong passwords are long past.
    pub fn tick(&mut self, now: u64) -> Vec<TelnetAction> {
        let late: Vec<ConnectionTag> = self
            .clients
            .iter()
            .filter(|(_, c)| matches!(c.access, Access::Password(_)) && now >= c.since + LOGIN_DEADLINE_MS)
            .map(|(t, _)| *t)
            .collect();
        let mut out = Vec::new();
        for tag in late {
            self.clients.remove(&tag);
            out.push(TelnetAction::Send(tag, b"\r\nNo password given in time. Goodbye.\r\n".to_vec()));
            out.push(TelnetAction::Close(tag, format!("no password within {} s", LOGIN_DEADLINE_MS / 1000)));
        }
        self.misses.retain(|_, m| now < m.wait_until.saturating_add(MAX_BACKOFF_MS));
        out
    }

    /// The connection went away.
    pub fn closed(&mut self, tag: ConnectionTag) {
        self.clients.remove(&tag);
    }

    /// Bytes from a client at `now`.
    pub fn receive(&mut self, tag: ConnectionTag, data: &[u8], now: u64) -> Vec<TelnetAction> {
        let mut out = Vec::new();
        let Some(c) = self.clients.get_mut(&tag) else { return out };
        let earned = now.saturating_sub(c.budget_at) * BYTES_PER_SECOND / 1000;
        c.budget = (c.budget + earned).min(2 * BYTES_PER_SECOND);
        c.budget_at = now;
        if data.len() as u64 > c.budget {
            self.clients.remove(&tag);
            out.push(TelnetAction::Close(tag, format!("flooding (over {BYTES_PER_SECOND} bytes/s)")));
            return out;
        }
        c.budget -= data.len() as u64;
        let mut lines = Vec::new();
        for &b in data {
            if c.skip > 0 {
                c.skip -= 1;
                continue;
            }
            let after_cr = std::mem::replace(&mut c.after_cr, b == b'\r');
            match b {
                // A telnet command: IAC, the verb, and (for option talk) the option.
                TELNET_IAC => c.skip = 2,
                b'\n' if after_cr => {}
                b'\r' | b'\n' => lines.push(std::mem::take(&mut c.line)),
                0x08 | 0x7f => {
                    c.line.pop();
                }
                0 => {}
                _ => {
                    c.line.push(b);
                    if c.line.len() > MAX_LINE {
                        self.clients.remove(&tag);
                        out.push(TelnetAction::Close(tag, format!("line over {MAX_LINE} bytes")));
                        return out;
                    }
                }
            }
        }
        for line in lines {
            let text = String::from_utf8_lossy(&line).trim().to_string();
            if !self.line(tag, text, now, &mut out) {
                break;
            }
        }
        out
    }

    /// One typed line; false once the client is gone.
    fn line(&mut self, tag: ConnectionTag, text: String, now: u64, out: &mut Vec<TelnetAction>) -> bool {
        let Some(c) = self.clients.get(&tag) else { return false };
        let ip = c.ip;
        if matches!(c.access, Access::Password(_)) && !text.is_empty() {
            // After wrong passwords the address waits: a line typed meanwhile is not checked.
            if let Some(wait) = ip.and_then(|ip| self.wait_left(ip, now)) {
                let msg = format!(
                    "\r\nWait {} s before the next password.\r\nEnter Password:",
                    wait.div_ceil(1000)
                );
                out.push(TelnetAction::Send(tag, msg.into_bytes()));
                return true;
            }
            self.checked += 1;
        }
        let Some(c) = self.clients.get_mut(&tag) else { return false };
        match c.access {
            Access::Password(tries) => {
                if text.is_empty() {
                    return true; // a stray return is no attempt
                }
                let right = (!self.console_pass.is_empty() && text == self.console_pass)
                    || (!self.listen_pass.is_empty() && text == self.listen_pass);
                if right {
                    if let Some(ip) = ip {
                        self.misses.remove(&ip);
                    }
                } else if let Some(ip) = ip {
                    self.missed(ip, now);
                }
                let Some(c) = self.clients.get_mut(&tag) else { return false };
                if !self.console_pass.is_empty() && text == self.console_pass {
                    c.access = Access::Full;
                    out.push(TelnetAction::Send(tag, b"\r\nConnected: full access.\r\n".to_vec()));
                } else if !self.listen_pass.is_empty() && text == self.listen_pass {
                    c.access = Access::Listen;
                    out.push(TelnetAction::Send(tag, b"\r\nConnected: listen only.\r\n".to_vec()));
                } else if tries + 1 >= PASSWORD_TRIES {
                    self.clients.remove(&tag);
                    out.push(TelnetAction::Send(tag, b"\r\nWrong password. Goodbye.\r\n".to_vec()));
                    out.push(TelnetAction::Close(tag, format!("{PASSWORD_TRIES} wrong passwords")));
                    return false;
                } else {
                    c.access = Access::Password(tries + 1);
                    out.push(TelnetAction::Send(tag, b"\r\nWrong password.\r\nEnter Password:".to_vec()));
                }
            }
            Access::Full if !text.is_empty() => out.push(TelnetAction::Eval(tag, text)),
            Access::Full => {}
            Access::Listen => {
                if !text.is_empty() {
                    out.push(TelnetAction::Send(tag, b"Listen only: lines are not evaluated.\r\n".to_vec()));
                }
            }
        }
        true
    }

    /// A console output line: to every client past its password.
    pub fn output(&self, text: &str) -> Vec<TelnetAction> {
        let mut bytes = text.replace('\n', "\r\n").into_bytes();
        bytes.extend_from_slice(b"\r\n");
        self.clients
            .iter()
            .filter(|(_, c)| matches!(c.access, Access::Full | Access::Listen))
            .map(|(tag, _)| TelnetAction::Send(*tag, bytes.clone()))
            .collect()
    }
}

/// Console output for the stdout as before and for the telnet clients.
struct TeeSink {
    inner: Box<dyn OutputSink>,
    lines: Rc<RefCell<VecDeque<String>>>,
}

impl OutputSink for TeeSink {
    fn line(&mut self, level: Level, text: &str) {
        self.inner.line(level, text);
        let mut lines = self.lines.borrow_mut();
        if lines.len() < MAX_PENDING_OUTPUT {
            lines.push_back(text.to_string());
        }
    }
}

#[derive(Debug, Default)]
struct Params {
    /// A new `telnetSetParameters` call: port (0 closes), console and listen passwords.
    wanted: Option<(u16, String, String)>,
}

/// The remote console over the platform's TCP: call [`TelnetServer::pump`] once a frame.
pub struct TelnetServer {
    net: Box<dyn TcpIo>,
    port: Option<(u16, ConnectionTag)>,
    sessions: TelnetSessions,
    params: Rc<RefCell<Params>>,
    output: Rc<RefCell<VecDeque<String>>>,
    events: Vec<Event>,
    /// Each client's address, for the log limits.
    addresses: HashMap<ConnectionTag, IpAddr>,
    /// Connect and disconnect lines per address.
    log: LogLimiter<IpAddr>,
}

impl std::fmt::Debug for TelnetServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TelnetServer")
            .field("port", &self.port)
            .field("clients", &self.sessions.len())
            .finish()
    }
}

impl TelnetServer {
    /// Registers `telnetSetParameters(port, consolePass, listenPass)` and routes the console's
    /// output (printed to stdout as before) to the telnet clients as well.
    pub fn register(con: &mut Console) -> Self {
        Self::register_with(con, Box::new(TcpNet::new()))
    }

    /// [`Self::register`] over `net` (a journaled one, say).
    pub fn register_with(con: &mut Console, net: Box<dyn TcpIo>) -> Self {
        let params = Rc::new(RefCell::new(Params::default()));
        let p = params.clone();
        con.register_function(
            "telnetSetParameters",
            4,
            5,
            "telnetSetParameters(port, consolePass, listenPass) - open the remote console (port 0 closes it)",
            move |_c, a| {
                let port = a.f64(0).clamp(0.0, 65535.0) as u16;
                p.borrow_mut().wanted = Some((port, a.str(1).into_owned(), a.str(2).into_owned()));
                Value::Empty
            },
        );
        let output = Rc::new(RefCell::new(VecDeque::new()));
        con.set_output(Box::new(TeeSink { inner: Box::new(StdioSink), lines: output.clone() }));
        Self {
            net,
            port: None,
            sessions: TelnetSessions::default(),
            params,
            output,
            events: Vec::new(),
            addresses: HashMap::new(),
            log: LogLimiter::new(10, 60_000, 1024),
        }
    }

    /// The port listened on, if any.
    pub fn port(&self) -> Option<u16> {
        self.port.map(|(p, _)| p)
    }

    /// One frame: apply a new `telnetSetParameters`, take connections and lines, evaluate
    /// the full-access clients' lines in `con`, and send everyone the console's output.
    pub fn pump(&mut self, con: &mut Console, now: u64) {
        let wanted = self.params.borrow_mut().wanted.take();
        if let Some((port, console_pass, listen_pass)) = wanted {
            self.reopen(con, port, &console_pass, &listen_pass);
        }
        self.events.clear();
        self.net.process(&mut self.events);
        let events = std::mem::take(&mut self.events);
        for e in &events {
            let actions = match e {
                Event::ConnectedAccept(a) if self.port.is_some_and(|(_, t)| t == a.port_tag) => {
                    let ip = a.address.ip();
                    self.addresses.insert(a.tag, ip);
                    if let Some(suppressed) = self.log.check(&ip, now) {
                        tracing::info!(client = %a.address, suppressed, "telnet client connected");
                    }
                    self.sessions.accept_from(a.tag, ip, now)
                }
                Event::ConnectedReceive(r) => self.sessions.receive(r.tag, &r.data, now),
                Event::ConnectedNotify(n) if n.state == ConnectState::Disconnected => {
                    self.sessions.closed(n.tag);
                    self.addresses.remove(&n.tag);
                    Vec::new()
                }
                _ => Vec::new(),
            };
            self.apply(con, actions, now);
        }
        self.events = events;
        let late = self.sessions.tick(now);
        self.apply(con, late, now);
        for (ip, suppressed) in self.log.drain_suppressed(now) {
            tracing::warn!(client = %ip, suppressed, "telnet log lines suppressed");
        }
        self.flush_output();
    }

    fn reopen(&mut self, con: &mut Console, port: u16, console_pass: &str, listen_pass: &str) {
        if let Some((_, tag)) = self.port.take() {
            self.net.close(tag);
        }
        self.sessions = TelnetSessions::new(console_pass, listen_pass);
        if port == 0 {
            return;
        }
        match crate::tcp_object::listen(&mut *self.net, con, port) {
            Ok((bound, tag)) => {
                self.port = Some((bound, tag));
                con.set_global("Telnet::Port", i64::from(bound));
                tracing::info!(port = bound, "telnet console listening");
            }
            Err(e) => con.error(&format!("telnetSetParameters: cannot listen on port {port}: {e}")),
        }
    }

    fn apply(&mut self, con: &mut Console, actions: Vec<TelnetAction>, now: u64) {
        for action in actions {
            match action {
                TelnetAction::Send(tag, bytes) => {
                    if self.net.send(tag, &bytes).is_err() {
                        // Output it does not read piles up past the platform's limit.
                        self.sessions.closed(tag);
                        self.net.close(tag);
                        tracing::warn!(?tag, "telnet client dropped: it does not read its output");
                    }
                }
                TelnetAction::Eval(tag, line) => {
                    tracing::info!(?tag, %line, "telnet console line");
                    // An error is printed by the console itself (and so reaches the clients).
                    let _ = con.eval(&line);
                }
                TelnetAction::Close(tag, reason) => {
                    let ip = self.addresses.remove(&tag);
                    if let Some(suppressed) = ip.map_or(Some(0), |ip| self.log.check(&ip, now)) {
                        tracing::warn!(?tag, client = ?ip, %reason, suppressed, "telnet client disconnected");
                    }
                    self.sessions.closed(tag);
                    self.net.close(tag);
                }
            }
        }
    }

    fn flush_output(&mut self) {
        let lines: Vec<String> = self.output.borrow_mut().drain(..).collect();
        if self.sessions.is_empty() {
            return;
        }
        for line in lines {
            let actions = self.sessions.output(&line);
            for action in actions {
                if let TelnetAction::Send(tag, bytes) = action
                    && self.net.send(tag, &bytes).is_err()
                {
                    self.sessions.closed(tag);
                    self.net.close(tag);
                    tracing::warn!(?tag, "telnet client dropped: it does not read its output");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: ConnectionTag = ConnectionTag(1);

    fn sent(actions: &[TelnetAction]) -> String {
        actions
            .iter()
            .filter_map(|a| match a {
                TelnetAction::Send(_, b) => Some(String::from_utf8_lossy(b).into_owned()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn passwords_give_full_or_listen_access_and_three_misses_close() {
        let mut s = TelnetSessions::new("secret", "peek");
        assert!(sent(&s.accept(A, 0)).contains("Enter Password:"));
        assert!(sent(&s.receive(A, b"secret\r\n", 10)).contains("full access"));
        assert_eq!(s.access(A), Some(Access::Full));
        assert_eq!(s.receive(A, b"echo(1);\r\n", 20), vec![TelnetAction::Eval(A, "echo(1);".into())]);
        let b = ConnectionTag(2);
        s.accept(b, 0);
        s.receive(b, b"peek\n", 10);
        assert_eq!(s.access(b), Some(Access::Listen));
        assert!(sent(&s.receive(b, b"quit();\n", 20)).contains("not evaluated"));
        assert_eq!(s.output("hello").len(), 2, "both see the output");
        let c = ConnectionTag(3);
        s.accept(c, 0);
        assert!(sent(&s.output("x")).len() < 20, "no output before the password");
        s.receive(c, b"a\r\n", 1);
        s.receive(c, b"b\r\n", 2);
        let last = s.receive(c, b"c\r\n", 3);
        assert!(matches!(last.last(), Some(TelnetAction::Close(_, r)) if r.contains("wrong passwords")));
        assert_eq!(s.access(c), None);
    }

    #[test]
    fn editing_telnet_commands_and_split_lines() {
        let mut s = TelnetSessions::new("pw", "");
        s.accept(A, 0);
        // IAC WILL ECHO, a typo and a backspace, the line split across two reads.
        s.receive(A, &[255, 251, 1], 1);
        s.receive(A, b"px\x08", 2);
        assert!(sent(&s.receive(A, b"w\r\n", 3)).contains("full access"));
        assert_eq!(s.receive(A, b"echo(", 4), vec![]);
        assert_eq!(s.receive(A, b"2);\n", 5), vec![TelnetAction::Eval(A, "echo(2);".into())]);
        // An empty listen password grants nothing.
        let b = ConnectionTag(2);
        s.accept(b, 0);
        assert!(sent(&s.receive(b, b"\r\n\r\n", 1)).is_empty(), "empty lines are no attempt");
        assert!(sent(&s.receive(b, b"\r\n", 1)).is_empty(), "nor is an empty listen password");
        assert!(sent(&s.receive(b, b"nope\r\n", 2)).contains("Wrong password"));
    }

    #[test]
    fn garbage_floods_and_crowds_are_turned_away() {
        let mut s = TelnetSessions::new("pw", "");
        s.accept(A, 0);
        let long = vec![b'x'; MAX_LINE + 1];
        let out = s.receive(A, &long, 1);
        assert!(matches!(out.last(), Some(TelnetAction::Close(_, r)) if r.contains("line over")));
        let b = ConnectionTag(2);
        s.accept(b, 0);
        s.receive(b, b"pw\n", 0);
        let mut closed = false;
        let chunk = b"xxxxxxxxx\n".repeat(51);
        for t in 0..100u64 {
            let out = s.receive(b, &chunk, t);
            if out.iter().any(|a| matches!(a, TelnetAction::Close(_, r) if r.contains("flooding"))) {
                closed = true;
                break;
            }
        }
        assert!(closed, "51 KB in 100 ms is a flood");
        // A steady typist is never cut off.
        let c = ConnectionTag(3);
        s.accept(c, 0);
        s.receive(c, b"pw\n", 0);
        for t in 0..1000u64 {
            assert!(!s.receive(c, b"abc\n", t * 10).iter().any(|a| matches!(a, TelnetAction::Close(..))));
        }
        for i in 0..MAX_CLIENTS as u32 {
            s.accept(ConnectionTag(100 + i), 0);
        }
        assert!(s.len() <= MAX_CLIENTS);
    }

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([192, 0, 2, n])
    }

    fn closed(actions: &[TelnetAction]) -> Vec<ConnectionTag> {
        actions
            .iter()
            .filter_map(|a| if let TelnetAction::Close(t, _) = a { Some(*t) } else { None })
            .collect()
    }

    /// The third probe's finding 3: eight idle connections locked the administrator out for
    /// ever. Now one address holds two prompts, a full console makes its oldest prompt give
    /// way, and a prompt left unanswered closes after the login deadline.
    #[test]
    fn idle_connections_cannot_lock_the_administrator_out() {
        let mut s = TelnetSessions::new("secret", "");
        // Eight idle connections from one address: two get a prompt.
        let refused = (0..8u32)
            .filter(|i| {
                closed(&s.accept_from(ConnectionTag(10 + i), ip(66), 0)).contains(&ConnectionTag(10 + i))
            })
            .count();
        assert_eq!((s.len(), refused), (PROMPTS_PER_ADDRESS, 8 - PROMPTS_PER_ADDRESS));
        // Idle connections from eight addresses fill the console; the administrator still
        // gets a prompt (the oldest idle one makes way) and logs in.
        for i in 0..8u32 {
            s.accept_from(ConnectionTag(100 + i), ip(100 + i as u8), 10 + u64::from(i));
        }
        assert_eq!(s.len(), MAX_CLIENTS);
        let admin = ConnectionTag(1);
        let out = s.accept_from(admin, ip(1), 100);
        assert!(sent(&out).contains("Enter Password:"));
        assert_eq!(closed(&out).len(), 1, "one idle prompt gave way");
        assert!(sent(&s.receive(admin, b"secret\r\n", 200)).contains("full access"));
        // Prompts nobody answers end at the deadline; the administrator stays.
        let late = s.tick(LOGIN_DEADLINE_MS + 100);
        assert_eq!(closed(&late).len(), MAX_CLIENTS - 1);
        assert_eq!((s.len(), s.access(admin)), (1, Some(Access::Full)));
        // A console full of logged-in clients refuses a newcomer instead.
        for i in 0..7u32 {
            let t = ConnectionTag(200 + i);
            s.accept_from(t, ip(200 + i as u8), 40_000);
            s.receive(t, b"secret\n", 40_001);
        }
        assert!(closed(&s.accept_from(ConnectionTag(300), ip(250), 40_002)).contains(&ConnectionTag(300)));
    }

    /// The third probe's finding 3: 2,258 password guesses a second. Now each wrong password
    /// makes its address wait, doubling per miss: a minute of guessing from reconnecting
    /// sockets, as fast as they can, gets a handful of passwords checked.
    #[test]
    fn password_guessing_backs_off_per_address() {
        let mut s = TelnetSessions::new("secret", "");
        let mut tag = 0u32;
        for now in (0..60_000u64).step_by(2) {
            tag += 1;
            let t = ConnectionTag(tag);
            if closed(&s.accept_from(t, ip(66), now)).contains(&t) {
                continue;
            }
            for guess in 0..3 {
                s.receive(t, format!("guess{tag}-{guess}\r\n").as_bytes(), now);
            }
            s.closed(t);
        }
        // Three, then waits of 1, 2, 4, ... 32 s fill the minute: at most 9 checked.
        assert!(s.passwords_checked() <= 9, "{} passwords checked in a minute", s.passwords_checked());
        assert!(s.passwords_checked() >= 5);
        // Another address is not held back, and the right password clears the waits.
        let admin = ConnectionTag(1_000_000);
        s.accept_from(admin, ip(1), 60_000);
        assert!(sent(&s.receive(admin, b"secret\r\n", 60_001)).contains("full access"));
        // Three wrong passwords, then the address waits: a new connection meanwhile is
        // refused, a line typed meanwhile is not checked.
        let b = ConnectionTag(1_000_001);
        s.accept_from(b, ip(2), 60_000);
        s.receive(b, b"no\r\nnope\r\n", 60_000);
        let c = ConnectionTag(1_000_002);
        s.accept_from(c, ip(2), 60_000);
        assert!(sent(&s.receive(b, b"nah\r\n", 60_000)).contains("Goodbye"));
        let before = s.passwords_checked();
        assert!(sent(&s.receive(c, b"secret\r\n", 60_100)).contains("Wait 1 s"));
        assert_eq!(s.passwords_checked(), before);
        assert!(sent(&s.accept_from(ConnectionTag(1_000_003), ip(2), 60_200)).contains("try again in 1 s"));
        assert!(sent(&s.receive(c, b"secret\r\n", 61_100)).contains("full access"));
    }
}
