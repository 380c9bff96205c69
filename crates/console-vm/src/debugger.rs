//! The remote script debugger (V12 reference page Console, "dbgSetParameters(port, password)"): the
//! Torque engine's telnet debugger protocol, so the existing Torque debugger front-ends attach.
//!
//! How a stop works: the compiler records where each statement starts (`FuncDef::breaks`); a
//! breakpoint patches the statement's first instruction with `Op::Break`, which calls
//! `Console::debug_hit` and then runs the instruction it replaced (put back in the code for
//! one step; the break returns at the next call, return or backward jump). Stepping patches
//! every statement of every live function and stops at the first one deep enough in the
//! stack. With no debugger attached nothing is patched, and the interpreter pays one flag test
//! per call, return and backward jump.
//!
//! While a script is stopped the console keeps serving the debugger (`EVAL`, `BRKSET`, ...) and
//! calls the host's idle hook ([`Console::set_debugger_idle`]) so the host can keep its
//! network alive.
//!
//! The protocol core is the `Console` methods here; the bytes travel through a
//! [`DebugTransport`] (by default [`TcpDebugTransport`], one client at a time on loopback).

use crate::bytecode::{FuncDef, Op};
use crate::console::Console;
use crate::debug_link::{Breakpoint, Debugger, MAX_COMMAND, PASSWORD_MAX, State};

/// Command lines run per poll; more wait for the next one.
const COMMANDS_PER_POLL: usize = 64;
/// Bytes of commands a client may have waiting; past it the client is dropped as flooding.
const MAX_BACKLOG: usize = 16 * 1024;
use crate::output::Level;
use crate::value::Value;
use std::rc::Rc;

pub use crate::debug_link::{DebugTransport, IdleHook, TcpDebugTransport, TransportEvent};

impl Console {
    /// Opens the debugger on `transport` with `password` (what `dbgSetParameters` does with
    /// a [`TcpDebugTransport`]). With `wait_for_client` it returns only once a client has
    /// connected and sent `CONTINUE` (or `STEPIN`), so breakpoints can be set first.
    pub fn open_debugger(
        &mut self,
        transport: Box<dyn DebugTransport>,
        port: u16,
        password: &str,
        wait_for_client: bool,
    ) {
        self.close_debugger();
        let password: String = password.chars().take(PASSWORD_MAX).collect();
        self.debug.session = Some(Box::new(Debugger {
            transport,
            port,
            password,
            wait_for_client,
            state: State::NotConnected,
            line_buf: Vec::new(),
            breakpoints: Vec::new(),
            break_next: false,
            step_depth: None,
            paused: false,
            events: Vec::new(),
            ext: false,
        }));
        self.set_global("dbgVersion", 4i64);
        if wait_for_client {
            self.print(Level::Normal, &format!("Debugger: waiting for a client on port {port}"));
            loop {
                self.debugger_poll();
                match self.debug.session.as_ref().map(|d| d.state) {
                    Some(State::Connected) | None => break,
                    Some(_) => {}
                }
                if let Some(d) = self.debug.session.as_mut() {
                    d.transport.wait();
                }
                self.debug_idle();
            }
        }
    }

    /// Closes the debugger's port and client; breakpoints are cleared.
    pub fn close_debugger(&mut self) {
        if let Some(mut d) = self.debug.session.take() {
            d.transport.disconnect();
            self.unpatch_all();
        }
        self.debug.cout = None;
    }

    /// True while a debugger client is connected (past the password).
    pub fn debugger_connected(&self) -> bool {
        self.debug.session.as_ref().is_some_and(|d| matches!(d.state, State::Connected | State::Initialize))
    }

    /// The port `dbgSetParameters` opened, if any.
    pub fn debugger_port(&self) -> Option<u16> {
        self.debug.session.as_ref().map(|d| d.port)
    }

    /// The host's hook while a script is stopped at a breakpoint (called every few ms).
    pub fn set_debugger_idle(&mut self, hook: IdleHook) {
        self.debug.idle = Some(hook);
    }

    /// Milliseconds spent stopped at breakpoints so far (a host subtracts them from its
    /// game clock so the game resumes where it stopped instead of catching up).
    pub fn debugger_paused_ms(&self) -> u64 {
        self.debug.paused_ms
    }

    /// Serves the debugger: accepts a client, runs its commands, sends console output. The
    /// console calls it from [`Console::advance_time`]; a host that does not advance time
    /// calls it once a frame.
    pub fn debugger_poll(&mut self) {
        self.with_session(Self::serve);
    }

    /// Runs `f` on the debugger's session, taken out of the console meanwhile (so `f` may run
    /// script); `None` when there is none, or it is already out (serving a command further
    /// up). A session closed inside `f` (`dbgSetParameters(0)`) stays closed.
    fn with_session<R>(&mut self, f: impl FnOnce(&mut Self, &mut Debugger) -> R) -> Option<R> {
        let mut d = self.debug.session.take()?;
        let r = f(self, &mut d);
        if self.debug.session.is_none() {
            self.debug.session = Some(d);
        }
        Some(r)
    }

    fn debug_idle(&mut self) {
        if let Some(mut hook) = self.debug.idle.take() {
            hook();
            if self.debug.idle.is_none() {
                self.debug.idle = Some(hook);
            }
        }
    }

    /// One round: transport events, complete command lines, pending console output.
    fn serve(&mut self, d: &mut Debugger) {
        let mut events = std::mem::take(&mut d.events);
        d.transport.poll(&mut events);
        let mut budget = COMMANDS_PER_POLL;
        for ev in events.drain(..) {
            match ev {
                TransportEvent::Connected(from) => {
                    self.print(Level::Normal, &format!("Debugger connection from {from}"));
                    d.state = State::PasswordTry;
                    d.line_buf.clear();
                }
                TransportEvent::Closed => self.client_gone(d, "the client closed the connection"),
                TransportEvent::Data(bytes) => {
                    if d.state == State::NotConnected {
                        continue;
                    }
                    d.line_buf.extend_from_slice(&bytes);
                    if d.line_buf.len() > MAX_BACKLOG {
                        self.client_gone(
                            d,
                            &format!("flooding: over {MAX_BACKLOG} bytes of commands waiting"),
                        );
                        continue;
                    }
                    // In order: what came before a close runs before it.
                    self.run_commands(d, &mut budget);
                }
            }
        }
        d.events = events;
        // Lines left from a busy poll.
        self.run_commands(d, &mut budget);
        self.flush_cout(d);
    }

    /// Runs the complete command lines waiting, at most [`COMMANDS_PER_POLL`] (the rest wait
    /// for the next poll, so a client cannot hold the frame).
    fn run_commands(&mut self, d: &mut Debugger, budget: &mut usize) {
        while d.state != State::NotConnected && *budget > 0 {
            let Some(end) = d.line_buf.iter().position(|&b| b == b'\n' || b == b'\r') else {
                if d.line_buf.len() > MAX_COMMAND {
                    self.client_gone(d, &format!("a command longer than {MAX_COMMAND} bytes"));
                }
                return;
            };
            if end > MAX_COMMAND {
                self.client_gone(d, &format!("a command longer than {MAX_COMMAND} bytes"));
                return;
            }
            let line: Vec<u8> = d.line_buf.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..end]).replace('\0', "_");
            if text.is_empty() {
                continue;
            }
            *budget -= 1;
            self.command(d, &text);
        }
    }

    /// Sends a protocol line, after the console output printed before it.
    fn send(&mut self, d: &mut Debugger, line: &str) {
        self.flush_cout(d);
        self.send_raw(d, line);
    }

    fn send_raw(&mut self, d: &mut Debugger, line: &str) {
        if d.state == State::NotConnected {
            return;
        }
        let mut bytes = Vec::with_capacity(line.len() + 2);
        bytes.extend_from_slice(line.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        if !d.transport.send(&bytes) {
            self.client_gone(d, "it does not read what it is sent");
        }
    }

    /// Sends queued console lines now, unless the debugger is busy further up the stack
    /// (then they go before its next protocol line).
    pub(crate) fn debug_flush_cout(&mut self) {
        self.with_session(Self::flush_cout);
    }

    fn flush_cout(&mut self, d: &mut Debugger) {
        let lines = match self.debug.cout.as_mut() {
            Some(q) if !q.is_empty() => std::mem::take(q),
            _ => return,
        };
        for (level, l) in lines {
            let word = if d.ext && level != Level::Normal { "CERR" } else { "COUT" };
            self.send_raw(d, &format!("{word} {l}"));
        }
    }

    /// The client is gone (or dropped): breakpoints go and a stopped script runs on.
    fn client_gone(&mut self, d: &mut Debugger, why: &str) {
        if d.state == State::NotConnected {
            return;
        }
        self.print(Level::Warning, &format!("Debugger: client disconnected ({why})"));
        d.transport.disconnect();
        d.state = State::NotConnected;
        d.line_buf.clear();
        d.breakpoints.clear();
        d.break_next = false;
        d.step_depth = None;
        d.paused = false;
        self.debug.cout = None;
        self.unpatch_all();
    }

    /// One command line from the client.
    fn command(&mut self, d: &mut Debugger, line: &str) {
        if d.state == State::PasswordTry {
            if line == d.password {
                d.state = if d.wait_for_client { State::Initialize } else { State::Connected };
                self.debug.cout = Some(Vec::new());
                self.send(d, "PASS Connected.");
            } else {
                self.send(d, "PASS WrongPassword.");
                self.client_gone(d, "wrong password");
            }
            return;
        }
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        let mut args = rest.split_whitespace();
        match cmd {
            "CEVAL" => {
                let src = rest.to_string();
                self.debug_eval_console(d, &src);
            }
            "BRKSET" => {
                let file = args.next();
                let line_no = args.next().and_then(|s| s.parse::<u32>().ok());
                let clear = args.next();
                let pass = args.next().and_then(|s| s.parse::<i64>().ok());
                // The condition is the rest of the line after the fourth word.
                let cond = rest.splitn(5, ' ').nth(4).unwrap_or("").trim();
                match (file, line_no, clear, pass) {
                    (Some(f), Some(l), Some(c), Some(p)) if !cond.is_empty() => {
                        let clear = c == "1" || c.eq_ignore_ascii_case("true");
                        self.add_breakpoint(d, f, l, clear, p.clamp(0, u32::MAX as i64) as u32, cond);
                    }
                    _ => self.send(d, &format!("DBGERR Invalid command({line})!")),
                }
            }
            "BRKCLR" => match (args.next(), args.next().and_then(|s| s.parse::<u32>().ok())) {
                (Some(f), Some(l)) => {
                    d.breakpoints.retain(|b| !b.is_at(f, l));
                    self.repatch(d);
                }
                _ => self.send(d, &format!("DBGERR Invalid command({line})!")),
            },
            "BRKCLRALL" => {
                d.breakpoints.clear();
                self.repatch(d);
            }
            "BRKNEXT" => {
                if d.state == State::Connected && !d.paused {
                    d.break_next = true;
                    d.step_depth = None;
                    self.repatch(d);
                }
            }
            "CONTINUE" => {
                if d.state == State::Initialize {
                    d.state = State::Connected;
                    return;
                }
                d.break_next = false;
                d.step_depth = None;
                self.resume(d);
            }
            "STEPIN" => {
                d.break_next = true;
                d.step_depth = None;
                if d.state == State::Initialize {
                    d.state = State::Connected;
                    self.repatch(d);
                    return;
                }
                self.resume(d);
            }
            "STEPOVER" | "STEPOUT" if d.state == State::Connected => {
                let depth = self.vm.frames.len();
                let target = if cmd == "STEPOVER" { depth } else { depth.saturating_sub(1) };
                if target == 0 {
                    d.break_next = false;
                    d.step_depth = None;
                } else {
                    d.break_next = true;
                    d.step_depth = Some(target);
                }
                self.resume(d);
            }
            "EVAL" => {
                let tag = args.next();
                let frame = args.next().and_then(|s| s.parse::<i64>().ok());
                let expr = rest.splitn(3, ' ').nth(2).unwrap_or("").trim();
                match (tag, frame) {
                    (Some(tag), Some(frame)) if !expr.is_empty() => {
                        let tag = tag.to_string();
                        match self.eval_in_frame(frame, &format!("return {expr};")) {
                            Err(e) if d.ext => self.send(d, &format!("EVALERR {tag} {}", one_line(&e))),
                            Err(e) => self.send(d, &format!("EVALOUT {tag} error: {}", one_line(&e))),
                            Ok(v) => {
                                let v = if v.is_empty() { "\"\"".to_string() } else { v };
                                self.send(d, &format!("EVALOUT {tag} {v}"));
                            }
                        }
                    }
                    _ => self.send(d, &format!("DBGERR Invalid command({line})!")),
                }
            }
            // V12 extensions for the DAP front: warnings and errors as `CERR`, failed
            // evaluations as `EVALERR`; the globals; an object's fields.
            "V12EXT" => d.ext = true,
            "GLOBALS" => match args.next() {
                Some(tag) => {
                    let tag = tag.to_string();
                    for (name, value) in self.global_list(MAX_LISTED_VARS) {
                        self.send_var(d, &tag, &format!("${name}"), &value);
                    }
                    self.send(d, &format!("LOCALSEND {tag}"));
                }
                None => self.send(d, &format!("DBGERR Invalid command({line})!")),
            },
            "FIELDS" => match (args.next(), args.next().and_then(|s| self.find_object_str(s))) {
                (Some(tag), Some(id)) => {
                    let tag = tag.to_string();
                    for (name, value) in self.field_list(id, MAX_LISTED_VARS) {
                        self.send_var(d, &tag, &name, &value);
                    }
                    self.send(d, &format!("LOCALSEND {tag}"));
                }
                (Some(tag), None) => {
                    let tag = tag.to_string();
                    self.send(d, &format!("LOCALSEND {tag}"));
                }
                _ => self.send(d, &format!("DBGERR Invalid command({line})!")),
            },
            // V12 extension for the DAP front: the named locals of a frame.
            "LOCALS" => match (args.next(), args.next().and_then(|s| s.parse::<i64>().ok())) {
                (Some(tag), Some(frame)) => {
                    let tag = tag.to_string();
                    for (name, value) in self.frame_locals(frame) {
                        self.send_var(d, &tag, &format!("%{name}"), &value);
                    }
                    self.send(d, &format!("LOCALSEND {tag}"));
                }
                _ => self.send(d, &format!("DBGERR Invalid command({line})!")),
            },
            "FILELIST" => {
                let files = self.debug.registry.files();
                let names: Vec<&str> = files.iter().map(|f| &**f).collect();
                self.send(d, &format!("FILELISTOUT {}", names.join(" ")));
            }
            "BREAKLIST" => match args.next() {
                Some(f) => {
                    let lines = self.debug.registry.break_lines(f);
                    if lines.is_empty() {
                        self.send(d, "DBGERR No such file!");
                    } else {
                        let pairs = break_runs(&lines);
                        let mut out = format!("BREAKLISTOUT {f} {}", pairs.len());
                        for (skip, run) in pairs {
                            out.push_str(&format!(" {skip} {run}"));
                        }
                        self.send(d, &out);
                    }
                }
                None => self.send(d, &format!("DBGERR Invalid command({line})!")),
            },
            _ => self.send(d, &format!("DBGERR Invalid command({line})!")),
        }
    }

    /// `CEVAL`: a console line, as typed at the console.
    fn debug_eval_console(&mut self, d: &mut Debugger, src: &str) {
        let was = d.paused;
        d.paused = true;
        let _ = self.eval_in_frame(-1, src);
        d.paused = was;
    }

    fn resume(&mut self, d: &mut Debugger) {
        d.paused = false;
        self.repatch(d);
        self.send(d, "RUNNING");
    }

    fn add_breakpoint(
        &mut self,
        d: &mut Debugger,
        file: &str,
        line: u32,
        clear: bool,
        pass: u32,
        cond: &str,
    ) {
        if let Some(b) = d.breakpoints.iter_mut().find(|b| b.is_at(file, line)) {
            b.condition = cond.to_string();
            b.pass_count = pass;
            b.clear_on_hit = clear;
            b.count = 0;
            return;
        }
        let lines = self.debug.registry.break_lines(file);
        // A file not loaded yet keeps the line as asked; it is moved when the file loads.
        let line = if lines.is_empty() {
            line
        } else {
            let placed = d.place(&lines, file, line);
            self.announce(d, file, line, placed);
            let Some(l) = placed else { return };
            l
        };
        d.breakpoints.push(Breakpoint {
            file: Rc::from(file),
            line,
            clear_on_hit: clear,
            pass_count: pass,
            count: 0,
            condition: cond.to_string(),
        });
        self.repatch(d);
    }

    /// Tells the client a breakpoint asked for at `old` moved (`BRKMOV`) or was cleared
    /// (`BRKCLR`, when `placed` is `None`).
    fn announce(&mut self, d: &mut Debugger, file: &str, old: u32, placed: Option<u32>) {
        match placed {
            Some(l) if l != old => self.send(d, &format!("BRKMOV {file} {old} {l}")),
            Some(_) => {}
            None => self.send(d, &format!("BRKCLR {file} {old}")),
        }
    }

    /// Newly compiled code: kept for the debugger, its breakpoints moved onto breakable
    /// lines and patched in.
    pub(crate) fn debug_code_loaded(&mut self, code: &Rc<FuncDef>) {
        self.debug.registry.add(code);
        self.with_session(|c, d| {
            if d.state == State::NotConnected {
                return;
            }
            let lines = c.debug.registry.break_lines(&code.file);
            let mut i = 0;
            while i < d.breakpoints.len() {
                let b = &d.breakpoints[i];
                if !b.file.eq_ignore_ascii_case(&code.file) || lines.contains(&b.line) {
                    i += 1;
                    continue;
                }
                let (file, old) = (b.file.clone(), b.line);
                let placed = d.place(&lines, &file, old);
                c.announce(d, &file, old, placed);
                match placed {
                    Some(l) => {
                        d.breakpoints[i].line = l;
                        i += 1;
                    }
                    None => {
                        d.breakpoints.remove(i);
                    }
                }
            }
            c.repatch(d);
        });
    }

    /// Patches exactly what the debugger wants: every statement while stepping, else the
    /// breakpoints' lines.
    fn repatch(&mut self, d: &mut Debugger) {
        for f in self.debug.registry.live() {
            for &(line, pc) in f.breaks.iter() {
                let want = d.break_next || d.breakpoints.iter().any(|b| b.is_at(&f.file, line));
                if want { f.set_break(pc as usize) } else { f.clear_break(pc as usize) }
            }
        }
    }

    fn unpatch_all(&mut self) {
        for f in self.debug.registry.live() {
            f.clear_all_breaks();
        }
    }

    /// The interpreter reached an `Op::Break` at `pc` of `func` (the frame's pc is saved).
    /// Decides whether to stop, serves the debugger while stopped, and returns the
    /// instruction the break replaced, for the interpreter to run.
    #[cold]
    #[inline(never)]
    pub(crate) fn debug_hit(&mut self, func: &Rc<FuncDef>, pc: usize) -> Op {
        // No session here: it is serving a command further up (a condition or an `EVAL`
        // reached patched code), which must not stop.
        self.with_session(|c, d| {
            if !d.paused && d.state == State::Connected {
                let line = func.lines.get(pc).copied().unwrap_or(0);
                let depth = c.vm.frames.len();
                let stepping = d.break_next && d.step_depth.is_none_or(|t| depth <= t);
                if stepping || c.breakpoint_fires(d, &func.file, line) {
                    c.stop(d);
                }
            }
        });
        func.original_op(pc)
    }

    /// A breakpoint at `file:line` whose condition holds and pass count is reached.
    fn breakpoint_fires(&mut self, d: &mut Debugger, file: &str, line: u32) -> bool {
        let Some(i) = d.breakpoints.iter().position(|b| b.is_at(file, line)) else {
            return false;
        };
        let cond = d.breakpoints[i].condition.clone();
        d.paused = true;
        let holds = cond == "1"
            || cond.eq_ignore_ascii_case("true")
            || self.eval_in_frame(0, &format!("return ({cond});")).is_ok_and(|v| Value::from(v).truthy());
        d.paused = false;
        if !holds {
            return false;
        }
        let b = &mut d.breakpoints[i];
        b.count += 1;
        if b.count < b.pass_count {
            return false;
        }
        b.count = 0;
        if b.clear_on_hit {
            d.breakpoints.remove(i);
            self.repatch(d);
        }
        true
    }

    /// Stopped: tell the client where, then serve it until it resumes or goes away.
    fn stop(&mut self, d: &mut Debugger) {
        d.break_next = false;
        d.step_depth = None;
        self.repatch(d);
        let mut msg = String::from("BREAK");
        for f in self.vm.frames.iter().rev() {
            let line = f.func.lines.get(f.pc.saturating_sub(1)).copied().unwrap_or(0);
            let file = if f.func.file.is_empty() { "<none>" } else { &f.func.file };
            msg.push_str(&format!(" {} {line} {}", file.replace(' ', "_"), self.scope_name(&f.func)));
        }
        self.send(d, &msg);
        d.paused = true;
        let started = std::time::Instant::now();
        while d.paused && d.state != State::NotConnected {
            self.serve(d);
            if !d.paused || d.state == State::NotConnected {
                break;
            }
            d.transport.wait();
            self.debug_idle();
        }
        d.paused = false;
        self.debug.paused_ms += started.elapsed().as_millis() as u64;
        // The time stopped is not the script's: it gets its budget back.
        self.vm.budget_left = self.vm.budget_left.max(self.config.callback_budget);
    }

    /// The named locals of stack frame `frame` (0 = innermost), in slot order, values on one
    /// line each.
    fn frame_locals(&self, frame: i64) -> Vec<(String, String)> {
        let n = self.vm.frames.len();
        if n == 0 || frame < 0 {
            return Vec::new();
        }
        let mut i = n - 1 - (frame as usize).min(n - 1);
        if self.vm.frames[i].func.toplevel {
            match self.vm.frames[i].eval_scope {
                Some(s) => i = s,
                None => return Vec::new(),
            }
        }
        let f = &self.vm.frames[i];
        let mut named: Vec<(u32, String)> = f
            .func
            .local_slots
            .iter()
            .map(|(name, slot)| (*slot, self.names.text(*name).to_string()))
            .collect();
        named.sort();
        let one_line = |v: &Value| v.to_string().replace('\r', "\\r").replace('\n', "\\n");
        let mut out: Vec<(String, String)> = named
            .into_iter()
            .map(|(slot, name)| {
                let v = self.vm.stack.get(f.base + slot as usize).cloned().unwrap_or_default();
                (name, one_line(&v))
            })
            .collect();
        if let Some(dynamic) = &f.dyn_locals {
            let mut extra: Vec<(String, String)> = dynamic
                .names
                .iter()
                .map(|(name, v)| (self.names.text(*name).to_string(), one_line(v)))
                .chain(
                    dynamic
                        .elems
                        .iter()
                        .map(|(b, i, v)| (crate::elements::elem_text(self.names.text(b), i), one_line(v))),
                )
                .collect();
            extra.sort();
            out.extend(extra);
        }
        out
    }

    /// `[package::][Ns::]function` of a frame, `<none>` for top-level code.
    fn scope_name(&self, f: &FuncDef) -> String {
        if f.toplevel {
            return "<none>".to_string();
        }
        let mut s = String::new();
        if let Some(p) = f.package {
            s.push_str(self.names.text(p));
            s.push_str("::");
        }
        if let Some(ns) = f.ns {
            s.push_str(self.names.text(ns));
            s.push_str("::");
        }
        s.push_str(self.names.text(f.name));
        s
    }

    /// Runs `src` as top-level code whose `%locals` are those of stack frame `frame`
    /// (0 = the innermost; out of range is clamped; negative means none), with its own
    /// budget and without stopping the script it interrupts. Returns the result's text.
    fn eval_in_frame(&mut self, frame: i64, src: &str) -> Result<String, String> {
        let n = self.vm.frames.len();
        let scope = if frame < 0 || n == 0 {
            None
        } else {
            let i = n - 1 - (frame as usize).min(n - 1);
            let f = &self.vm.frames[i];
            if f.func.toplevel { f.eval_scope } else { Some(i) }
        };
        let code = match crate::compiler::compile_source(src, "<debugger>", &mut self.names) {
            Ok(c) => c,
            Err(e) => return Err(e.to_string()),
        };
        let saved_budget = self.vm.budget_left;
        let saved_abort = self.vm.abort.take();
        self.vm.budget_left = self.config.callback_budget;
        let out = self.run_toplevel(code, scope);
        // Whatever the evaluation did, the interrupted script goes on as it was.
        self.vm.abort = saved_abort;
        self.vm.budget_left = saved_budget;
        out.map(|v| v.to_string()).map_err(|e| e.to_string())
    }

    /// One variable of a `LOCALS`, `GLOBALS` or `FIELDS` answer: `LOCALREF` (with V12's
    /// extensions) when its value names an object, so the client can ask for its fields.
    fn send_var(&mut self, d: &mut Debugger, tag: &str, name: &str, value: &str) {
        let object = d.ext && !value.is_empty() && self.find_object_str(value).is_some();
        let word = if object { "LOCALREF" } else { "LOCALVAR" };
        self.send(d, &format!("{word} {tag} {name} {value}"));
    }

    /// The globals, sorted by name (at most `max`), values on one line.
    fn global_list(&self, max: usize) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for (i, v) in self.globals.iter().enumerate() {
            if !v.is_empty() {
                let n = self.names.text(crate::intern::Name(i as u32)).to_string();
                out.push((n, one_line(&v.to_string())));
            }
        }
        for (b, i, v) in self.elems.iter() {
            out.push((crate::elements::elem_text(self.names.text(b), i), one_line(&v.to_string())));
        }
        out.sort_by_key(|(n, _)| n.to_ascii_lowercase());
        out.truncate(max);
        out
    }

    /// Object `id`'s registered fields, then its dynamic fields sorted (at most `max`).
    fn field_list(&self, id: crate::object::ObjectId, max: usize) -> Vec<(String, String)> {
        let Some(o) = self.objects.get(id) else { return Vec::new() };
        let class = &self.objects.classes[o.class as usize];
        let mut out: Vec<(String, String)> = class
            .fields
            .iter()
            .zip(&o.fields)
            .map(|(f, v)| (self.names.text(f.name).to_string(), one_line(&v.to_string())))
            .collect();
        let mut dynamic: Vec<(String, String)> = o
            .dynamic
            .iter()
            .map(|(k, v)| (self.names.text(*k).to_string(), one_line(&v.to_string())))
            .collect();
        dynamic.sort_by_key(|(n, _)| n.to_ascii_lowercase());
        out.extend(dynamic);
        out.truncate(max);
        out
    }
}

/// Most variables a `GLOBALS` or `FIELDS` answer lists.
const MAX_LISTED_VARS: usize = 2_000;

/// A value on one protocol line.
fn one_line(s: &str) -> String {
    s.replace('\r', "\\r").replace('\n', "\\n")
}

/// Registers `dbgSetParameters`, `dbgIsConnected` and `dbgDisconnect`.
pub(crate) fn register(c: &mut Console) {
    c.register_function(
        "dbgSetParameters",
        3,
        4,
        "dbgSetParameters(port, password [, waitForClient]) - open the script debugger on a TCP port (0 closes it)",
        |c, a| {
            let port = a.f64(0);
            if !(0.0..=65535.0).contains(&port) {
                c.error(&format!("dbgSetParameters: no such port {port}"));
                return Value::Empty;
            }
            let port = port as u16;
            if port == 0 {
                c.close_debugger();
                return Value::Empty;
            }
            // Loopback, unless the game binds wider (`$Pref::Net::BindAddress`, as the
            // telnet console does).
            let ip = c
                .get_global("Pref::Net::BindAddress")
                .as_text()
                .trim()
                .parse()
                .unwrap_or(std::net::Ipv4Addr::LOCALHOST.into());
            match TcpDebugTransport::bind_at(ip, port) {
                Ok(t) => {
                    let bound = t.port();
                    c.open_debugger(Box::new(t), bound, &a.str(1), a.len() > 2 && a.bool(2));
                }
                Err(e) => c.error(&format!("dbgSetParameters: cannot listen on port {port}: {e}")),
            }
            Value::Empty
        },
    );
    c.register_function(
        "dbgIsConnected",
        1,
        1,
        "dbgIsConnected() - a debugger client is attached",
        |c, _| Value::from(c.debugger_connected()),
    );
    c.register_function("dbgDisconnect", 1, 1, "dbgDisconnect() - drop the debugger client", |c, _| {
        c.with_session(|c, d| c.client_gone(d, "dbgDisconnect"));
        Value::Empty
    });
}

/// `BREAKLIST` pairs: lines to skip, then lines that can break, from line 0.
fn break_runs(lines: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut cur = 0u32;
    let mut i = 0;
    while i < lines.len() {
        let start = lines[i];
        let mut end = start;
        while i + 1 < lines.len() && lines[i + 1] == end + 1 {
            end += 1;
            i += 1;
        }
        out.push((start - cur, end - start + 1));
        cur = end + 1;
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn break_runs_count_from_line_zero() {
        assert_eq!(break_runs(&[2, 3, 4, 7, 9, 10]), vec![(2, 3), (2, 1), (1, 2)]);
        assert_eq!(break_runs(&[0]), vec![(0, 1)]);
        assert!(break_runs(&[]).is_empty());
    }
}
