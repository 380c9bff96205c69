//! A Debug Adapter Protocol front for the script debugger (`tscript --dap`): DAP (JSON with
//! `Content-Length` frames) on stdin/stdout on one side, the Torque telnet debugger protocol
//! ([`crate::debugger`]) on the other, so any DAP editor can set breakpoints, step and
//! inspect TorqueScript in `tscript` (`launch`) or in a running `v12` (`attach`).
//!
//! [`Adapter`] is the translation, sans-IO: DAP messages and debugger lines in, [`Action`]s
//! out. [`run`] drives it with real pipes and a TCP connection.

use serde_json::{Value as Json, json};
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The one thread a TorqueScript program has.
const THREAD_ID: i64 = 1;
/// Largest DAP message accepted (a bigger `Content-Length` ends the session).
const MAX_MESSAGE: usize = 16 << 20;

/// What the adapter wants done.
#[derive(Debug, PartialEq)]
pub enum Action {
    /// A DAP message (response or event) to the editor.
    Dap(Json),
    /// A line to the debugger (without the line end).
    Engine(String),
    /// Start `program` under `tscript` in `cwd` and connect to its debugger; then call
    /// [`Adapter::connected`].
    Launch { program: String, cwd: PathBuf, request: Json },
    /// Connect to a running debugger; then call [`Adapter::connected`].
    Attach { host: String, port: u16, password: String, request: Json },
    /// The session is over: stop the program if launched, close everything.
    End,
}

#[derive(Clone, Debug)]
struct Frame {
    file: String,
    line: i64,
    function: String,
}

#[derive(Debug)]
enum Pending {
    Evaluate(Json),
    Variables(Json, Vec<Json>),
    SetVariable(Json),
}

/// A breakpoint the editor set: kept so one set before the program runs is sent once it does.
#[derive(Debug, Clone)]
struct Bp {
    line: i64,
    id: i64,
    pass: u32,
    condition: String,
}

/// `variablesReference`s: a frame's locals are `frame + 1`; the globals and the objects
/// shown while stopped come after.
const GLOBALS_REF: i64 = 1_000_000;
const FIRST_OBJECT_REF: i64 = 2_000_000;
/// Most objects given a reference while stopped.
const MAX_OBJECT_REFS: usize = 10_000;

/// The translation between a DAP editor and the telnet debugger protocol.
#[derive(Debug, Default)]
pub struct Adapter {
    seq: i64,
    /// Folder the engine's script names are relative to.
    root: PathBuf,
    stack: Vec<Frame>,
    pending: HashMap<String, Pending>,
    next_tag: u64,
    /// Breakpoints by engine file name.
    breakpoints: HashMap<String, Vec<Bp>>,
    /// Connected to the engine: breakpoints go to it as they are set.
    engine_up: bool,
    /// Objects shown while stopped, by reference (less [`FIRST_OBJECT_REF`]): id or name.
    objects: Vec<String>,
    next_bp: i64,
    /// Why the program will stop next (`breakpoint`, `step`, `pause`, `entry`).
    reason: &'static str,
    launched: bool,
    stop_on_entry: bool,
    /// `configurationDone` arrived: the program may run (once it is connected; an editor may
    /// send it before `launch` or `attach`).
    configured: bool,
}

impl Adapter {
    /// A fresh adapter, before `initialize`.
    pub fn new() -> Self {
        Adapter { reason: "breakpoint", ..Default::default() }
    }

    fn message(&mut self, mut m: Json) -> Action {
        self.seq += 1;
        m["seq"] = json!(self.seq);
        Action::Dap(m)
    }

    fn respond(&mut self, req: &Json, body: Json) -> Action {
        let m = json!({"type": "response", "request_seq": req["seq"], "success": true,
            "command": req["command"], "body": body});
        self.message(m)
    }

    fn fail(&mut self, req: &Json, why: &str) -> Action {
        let m = json!({"type": "response", "request_seq": req["seq"], "success": false,
            "command": req["command"], "message": why});
        self.message(m)
    }

    fn event(&mut self, name: &str, body: Json) -> Action {
        self.message(json!({"type": "event", "event": name, "body": body}))
    }

    fn tag(&mut self) -> String {
        self.next_tag += 1;
        format!("t{}", self.next_tag)
    }

    /// The engine's name for an editor's path: relative to the root, with `/`.
    fn engine_file(&self, path: &str) -> String {
        let p = Path::new(path);
        let rel = p.strip_prefix(&self.root).unwrap_or(p);
        rel.to_string_lossy().replace('\\', "/")
    }

    /// Breakpoints set before the root was known (before `launch` or `attach`) were filed
    /// under the editor's full path: file them under the engine's name now.
    fn rekey_breakpoints(&mut self) {
        let old = std::mem::take(&mut self.breakpoints);
        for (path, bps) in old {
            let file = self.engine_file(&path);
            self.breakpoints.entry(file).or_default().extend(bps);
        }
    }

    fn editor_path(&self, file: &str) -> String {
        self.root.join(file).to_string_lossy().into_owned()
    }

    /// One message from the editor.
    pub fn on_dap(&mut self, req: &Json) -> Vec<Action> {
        let args = &req["arguments"];
        let command = req["command"].as_str().unwrap_or("");
        match command {
            "initialize" => {
                let caps = json!({
                    "supportsConfigurationDoneRequest": true,
                    "supportsConditionalBreakpoints": true,
                    "supportsHitConditionalBreakpoints": true,
                    "supportsEvaluateForHovers": true,
                });
                let r = self.respond(req, caps);
                let e = self.event("initialized", json!({}));
                vec![r, e]
            }
            "launch" => self.launch(req),
            "attach" => {
                let port = args["port"].as_u64().and_then(|p| u16::try_from(p).ok());
                let Some(port) = port else {
                    return vec![self.fail(req, "attach needs \"port\": the port dbgSetParameters opened")];
                };
                self.root = args["root"].as_str().map(PathBuf::from).unwrap_or_default();
                self.rekey_breakpoints();
                vec![Action::Attach {
                    host: args["host"].as_str().unwrap_or("127.0.0.1").to_string(),
                    port,
                    password: args["password"].as_str().unwrap_or("").to_string(),
                    request: req.clone(),
                }]
            }
            "setBreakpoints" => self.set_breakpoints(req),
            "setExceptionBreakpoints" => vec![self.respond(req, json!({}))],
            "configurationDone" => {
                // Breakpoints are set: let the program run. A program that waits for its
                // debugger (launched, or `waitForClient`) starts now; a running one is told
                // to continue, which changes nothing.
                // Sent before `launch` or `attach`, it is kept until the program is connected.
                self.configured = true;
                let mut out = vec![self.respond(req, json!({}))];
                if self.engine_up {
                    out.push(self.go());
                }
                out
            }
            "threads" => {
                vec![self.respond(req, json!({"threads": [{"id": THREAD_ID, "name": "TorqueScript"}]}))]
            }
            "stackTrace" => {
                let start = args["startFrame"].as_u64().unwrap_or(0) as usize;
                let levels = args["levels"].as_u64().filter(|&l| l > 0).map_or(usize::MAX, |l| l as usize);
                let frames: Vec<Json> = self
                    .stack
                    .iter()
                    .enumerate()
                    .skip(start)
                    .take(levels)
                    .map(|(i, f)| {
                        let mut frame = json!({"id": i, "name": f.function, "line": f.line, "column": 1});
                        if f.file != "<none>" {
                            frame["source"] = json!({"name": f.file, "path": self.editor_path(&f.file)});
                        }
                        frame
                    })
                    .collect();
                let n = self.stack.len();
                vec![self.respond(req, json!({"stackFrames": frames, "totalFrames": n}))]
            }
            "scopes" => {
                let frame = args["frameId"].as_i64().unwrap_or(0);
                let scopes = json!({"scopes": [
                    {"name": "Locals", "presentationHint": "locals", "variablesReference": frame.clamp(0, GLOBALS_REF - 2) + 1, "expensive": false},
                    {"name": "Globals", "variablesReference": GLOBALS_REF, "expensive": true},
                ]});
                vec![self.respond(req, scopes)]
            }
            "variables" => {
                let reference = args["variablesReference"].as_i64().unwrap_or(1);
                let tag = self.tag();
                let line = match reference {
                    GLOBALS_REF => format!("GLOBALS {tag}"),
                    r if r >= FIRST_OBJECT_REF => match self.objects.get((r - FIRST_OBJECT_REF) as usize) {
                        Some(obj) => format!("FIELDS {tag} {obj}"),
                        None => return vec![self.fail(req, "no such object (the program ran on)")],
                    },
                    r => format!("LOCALS {tag} {}", (r - 1).max(0)),
                };
                self.pending.insert(tag, Pending::Variables(req.clone(), Vec::new()));
                vec![Action::Engine(line)]
            }
            "setVariable" => self.set_variable(req),
            "evaluate" => {
                let expr = args["expression"].as_str().unwrap_or("").replace(['\r', '\n'], " ");
                if expr.trim().is_empty() {
                    return vec![self.fail(req, "nothing to evaluate")];
                }
                let frame = args["frameId"].as_i64().unwrap_or(0);
                let tag = self.tag();
                self.pending.insert(tag.clone(), Pending::Evaluate(req.clone()));
                vec![Action::Engine(format!("EVAL {tag} {frame} {expr}"))]
            }
            "continue" => self.resume(req, "CONTINUE", "breakpoint", json!({"allThreadsContinued": true})),
            "next" => self.resume(req, "STEPOVER", "step", json!({})),
            "stepIn" => self.resume(req, "STEPIN", "step", json!({})),
            "stepOut" => self.resume(req, "STEPOUT", "step", json!({})),
            "pause" => {
                self.reason = "pause";
                vec![Action::Engine("BRKNEXT".into()), self.respond(req, json!({}))]
            }
            "disconnect" | "terminate" => {
                let mut out = Vec::new();
                if !self.launched && self.engine_up {
                    // Leave an attached program running as it was.
                    out.push(Action::Engine("BRKCLRALL".into()));
                    out.push(Action::Engine("CONTINUE".into()));
                }
                out.push(self.respond(req, json!({})));
                out.push(Action::End);
                out
            }
            _ => vec![self.fail(req, &format!("{command} is not supported"))],
        }
    }

    /// `launch`: where the program and its folder are; `tscript` runs it there.
    fn launch(&mut self, req: &Json) -> Vec<Action> {
        let args = &req["arguments"];
        let Some(program) = args["program"].as_str() else {
            return vec![self.fail(req, "launch needs \"program\": the script file to run")];
        };
        // A relative program is in `cwd` (else the adapter's folder); tscript runs it
        // from `cwd`, which must hold it (scripts cannot reach outside their folder).
        let here = std::env::current_dir().unwrap_or_default();
        let cwd_arg = args["cwd"].as_str().map(|c| here.join(c));
        let program = cwd_arg.clone().unwrap_or_else(|| here.clone()).join(program);
        let cwd = match cwd_arg {
            Some(c) => c,
            None => program.parent().map(Path::to_path_buf).unwrap_or(here),
        };
        let Ok(rel) = program.strip_prefix(&cwd) else {
            let why = format!(
                "program {} is not inside cwd {}: tscript runs the scripts in its working folder",
                program.display(),
                cwd.display()
            );
            return vec![self.fail(req, &why)];
        };
        let rel = rel.to_string_lossy().into_owned();
        self.root = cwd.clone();
        self.rekey_breakpoints();
        self.launched = true;
        self.stop_on_entry = args["stopOnEntry"].as_bool().unwrap_or(false);
        vec![Action::Launch { program: rel, cwd, request: req.clone() }]
    }

    /// `setBreakpoints`: a file's breakpoints replace its old ones (sent to the engine once
    /// it is connected).
    fn set_breakpoints(&mut self, req: &Json) -> Vec<Action> {
        let args = &req["arguments"];
        let path = args["source"]["path"].as_str().unwrap_or("");
        let file = self.engine_file(path);
        let mut out = Vec::new();
        for bp in self.breakpoints.remove(&file).unwrap_or_default() {
            if self.engine_up {
                out.push(Action::Engine(format!("BRKCLR {file} {}", bp.line)));
            }
        }
        let mut set = Vec::new();
        let mut answer = Vec::new();
        for bp in args["breakpoints"].as_array().into_iter().flatten() {
            let line = bp["line"].as_i64().unwrap_or(0);
            let condition = bp["condition"]
                .as_str()
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .unwrap_or("true")
                .replace(['\r', '\n'], " ");
            let pass = bp["hitCondition"].as_str().and_then(|h| h.trim().parse::<u32>().ok()).unwrap_or(0);
            self.next_bp += 1;
            let bp = Bp { line, id: self.next_bp, pass, condition };
            answer.push(json!({"id": bp.id, "verified": true, "line": line}));
            if self.engine_up {
                out.push(Action::Engine(brkset(&file, &bp)));
            }
            set.push(bp);
        }
        self.breakpoints.insert(file, set);
        out.push(self.respond(req, json!({"breakpoints": answer})));
        out
    }

    /// `setVariable`: an assignment evaluated where the variable lives (a frame's local, a
    /// global, an object's field); the engine answers with the value it holds now.
    fn set_variable(&mut self, req: &Json) -> Vec<Action> {
        let args = &req["arguments"];
        let reference = args["variablesReference"].as_i64().unwrap_or(0);
        let name = args["name"].as_str().unwrap_or("");
        let value = args["value"].as_str().unwrap_or("");
        let ok_name = !name.is_empty()
            && name
                .trim_start_matches(['%', '$'])
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_:[]".contains(c));
        if !ok_name {
            return vec![self.fail(req, &format!("cannot set {name:?}"))];
        }
        let quoted = quote(value);
        let (frame, target) = match reference {
            GLOBALS_REF => (0, name.to_string()),
            r if r >= FIRST_OBJECT_REF => match self.objects.get((r - FIRST_OBJECT_REF) as usize) {
                Some(obj) => (0, format!("{}.{name}", quote(obj))),
                None => return vec![self.fail(req, "no such object (the program ran on)")],
            },
            r => (r - 1, name.to_string()),
        };
        let tag = self.tag();
        self.pending.insert(tag.clone(), Pending::SetVariable(req.clone()));
        vec![Action::Engine(format!("EVAL {tag} {} {target} = {quoted}", frame.max(0)))]
    }

    /// What lets a configured program run: a step onto its first statement with
    /// `stopOnEntry`, else a continue.
    fn go(&mut self) -> Action {
        if self.launched && self.stop_on_entry {
            self.reason = "entry";
            Action::Engine("STEPIN".into())
        } else {
            Action::Engine("CONTINUE".into())
        }
    }

    fn resume(&mut self, req: &Json, line: &str, reason: &'static str, body: Json) -> Vec<Action> {
        self.reason = reason;
        self.stack.clear();
        self.objects.clear();
        vec![Action::Engine(line.into()), self.respond(req, body)]
    }

    /// The connection a `Launch` or `Attach` asked for: `Err` fails the request.
    pub fn connected(&mut self, request: &Json, result: Result<(), String>) -> Vec<Action> {
        match result {
            Ok(()) => {
                // V12's extensions, then the breakpoints the editor set before the program ran.
                self.engine_up = true;
                let mut out = vec![Action::Engine("V12EXT".into())];
                let mut files: Vec<&String> = self.breakpoints.keys().collect();
                files.sort();
                for file in files {
                    for bp in &self.breakpoints[file] {
                        out.push(Action::Engine(brkset(file, bp)));
                    }
                }
                if self.configured {
                    out.push(self.go());
                }
                out.push(self.respond(request, json!({})));
                out
            }
            // The editor still sends `disconnect`: the session ends once it is answered.
            Err(e) => {
                let msg = e.clone();
                vec![
                    self.event("output", json!({"category": "stderr", "output": format!("{msg}\n")})),
                    self.fail(request, &e),
                ]
            }
        }
    }

    /// The program ended (a launched `tscript` exited) or the debugger went away.
    pub fn ended(&mut self, exit_code: Option<i32>) -> Vec<Action> {
        let mut out = Vec::new();
        if let Some(code) = exit_code {
            out.push(self.event("exited", json!({"exitCode": code})));
        }
        out.push(self.event("terminated", json!({})));
        out
    }

    /// A line the launched program wrote on its standard error (a script error, a missing
    /// file): an `output` event in the `stderr` category.
    pub fn on_stderr(&mut self, line: &str) -> Vec<Action> {
        vec![self.event("output", json!({"category": "stderr", "output": format!("{line}\n")}))]
    }

    /// One line from the debugger.
    pub fn on_engine(&mut self, line: &str) -> Vec<Action> {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "BREAK" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                self.stack = parts
                    .chunks(3)
                    .filter(|c| c.len() == 3)
                    .map(|c| Frame {
                        file: c[0].to_string(),
                        line: c[1].parse().unwrap_or(0),
                        function: c[2].to_string(),
                    })
                    .collect();
                let reason = std::mem::replace(&mut self.reason, "breakpoint");
                vec![self.event(
                    "stopped",
                    json!({"reason": reason, "threadId": THREAD_ID, "allThreadsStopped": true}),
                )]
            }
            "RUNNING" => {
                vec![self.event("continued", json!({"threadId": THREAD_ID, "allThreadsContinued": true}))]
            }
            "COUT" => {
                vec![self.event("output", json!({"category": "stdout", "output": format!("{rest}\n")}))]
            }
            "CERR" => {
                vec![self.event("output", json!({"category": "stderr", "output": format!("{rest}\n")}))]
            }
            "EVALERR" => {
                let (tag, why) = rest.split_once(' ').unwrap_or((rest, ""));
                match self.pending.remove(tag) {
                    Some(Pending::Evaluate(req) | Pending::SetVariable(req)) => vec![self.fail(&req, why)],
                    Some(other) => {
                        self.pending.insert(tag.to_string(), other);
                        Vec::new()
                    }
                    None => Vec::new(),
                }
            }
            "DBGERR" => vec![
                self.event("output", json!({"category": "stderr", "output": format!("debugger: {rest}\n")})),
            ],
            "EVALOUT" => {
                let (tag, value) = rest.split_once(' ').unwrap_or((rest, ""));
                match self.pending.remove(tag) {
                    Some(Pending::Evaluate(req)) => {
                        let value = if value == "\"\"" { "" } else { value };
                        let reference = self.object_ref_if(value);
                        vec![self.respond(&req, json!({"result": value, "variablesReference": reference}))]
                    }
                    Some(Pending::SetVariable(req)) => {
                        let value = if value == "\"\"" { "" } else { value };
                        vec![self.respond(&req, json!({"value": value, "variablesReference": 0}))]
                    }
                    Some(other) => {
                        self.pending.insert(tag.to_string(), other);
                        Vec::new()
                    }
                    None => Vec::new(),
                }
            }
            "LOCALVAR" | "LOCALREF" => {
                let mut it = rest.splitn(3, ' ');
                let (tag, name, value) =
                    (it.next().unwrap_or(""), it.next().unwrap_or(""), it.next().unwrap_or(""));
                let reference = if word == "LOCALREF" { self.object_ref(value) } else { 0 };
                if let Some(Pending::Variables(_, vars)) = self.pending.get_mut(tag) {
                    vars.push(json!({"name": name, "value": value, "variablesReference": reference}));
                }
                Vec::new()
            }
            "LOCALSEND" => match self.pending.remove(rest.trim()) {
                Some(Pending::Variables(req, vars)) => vec![self.respond(&req, json!({"variables": vars}))],
                _ => Vec::new(),
            },
            "BRKMOV" | "BRKCLR" => self.breakpoint_moved(word, rest),
            _ => Vec::new(),
        }
    }

    /// A reference for object `obj` (an id or a name), so the editor can expand it.
    fn object_ref(&mut self, obj: &str) -> i64 {
        if let Some(i) = self.objects.iter().position(|o| o == obj) {
            return FIRST_OBJECT_REF + i as i64;
        }
        if self.objects.len() >= MAX_OBJECT_REFS {
            return 0;
        }
        self.objects.push(obj.to_string());
        FIRST_OBJECT_REF + self.objects.len() as i64 - 1
    }

    /// An evaluation's result is expandable when it is a whole number (an object's id).
    fn object_ref_if(&mut self, value: &str) -> i64 {
        if !value.is_empty() && value.parse::<u32>().is_ok_and(|n| n > 0) {
            self.object_ref(value)
        } else {
            0
        }
    }

    /// `BRKMOV file line newline` / `BRKCLR file line`: the engine moved or dropped one.
    fn breakpoint_moved(&mut self, word: &str, rest: &str) -> Vec<Action> {
        let parts: Vec<&str> = rest.split_whitespace().collect();
        let (Some(file), Some(line)) = (parts.first(), parts.get(1).and_then(|l| l.parse::<i64>().ok()))
        else {
            return Vec::new();
        };
        let moved = parts.get(2).and_then(|l| l.parse::<i64>().ok());
        let Some(list) = self.breakpoints.get_mut(*file) else { return Vec::new() };
        let Some(i) = list.iter().position(|b| b.line == line) else { return Vec::new() };
        let id = list[i].id;
        let bp = match moved {
            Some(new) if word == "BRKMOV" => {
                list[i].line = new;
                json!({"id": id, "verified": true, "line": new})
            }
            _ => {
                list.remove(i);
                json!({"id": id, "verified": false, "line": line, "message": "no code on or after this line"})
            }
        };
        vec![self.event("breakpoint", json!({"reason": "changed", "breakpoint": bp}))]
    }
}

/// The `BRKSET` line for a breakpoint.
fn brkset(file: &str, bp: &Bp) -> String {
    format!("BRKSET {file} {} 0 {} {}", bp.line, bp.pass, bp.condition)
}

/// `s` as a TorqueScript string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Reads one DAP message (`Content-Length` framing). `None` at the end of the input.
pub fn read_message(r: &mut impl BufRead) -> io::Result<Option<Json>> {
    let mut len: Option<usize> = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end();
        if line.is_empty() {
            if len.is_some() {
                break;
            }
            continue;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse().ok();
        }
    }
    let len = len.filter(|&l| l <= MAX_MESSAGE).ok_or_else(|| io::Error::other("bad Content-Length"))?;
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    serde_json::from_slice(&body).map(Some).map_err(io::Error::other)
}

/// Writes one DAP message with its `Content-Length` header.
pub fn write_message(w: &mut impl Write, m: &Json) -> io::Result<()> {
    let body = m.to_string();
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    w.flush()
}

enum Input {
    Dap(Json),
    DapClosed,
    Engine(String),
    EngineClosed,
    /// A line the launched program wrote on its standard error.
    Stderr(String),
}

/// How long `attach` keeps trying to reach a program's debugger port.
const ATTACH_PATIENCE: Duration = Duration::from_secs(15);

/// Connects to a debugger port and logs in; the reader thread feeds `tx`.
fn connect(
    host: &str,
    port: u16,
    password: &str,
    tx: &mpsc::Sender<Input>,
    patience: Duration,
) -> Result<TcpStream, String> {
    let start = Instant::now();
    let stream = loop {
        match TcpStream::connect((host, port)) {
            // Polling a loopback port nobody holds yet can connect the socket to itself (its
            // source port picked equal to the port: TCP simultaneous open); that is no debugger.
            Ok(s) if s.local_addr().ok() == s.peer_addr().ok() => {
                drop(s);
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(s) => break s,
            Err(e) if start.elapsed() >= patience => {
                return Err(format!("cannot reach the debugger at {host}:{port}: {e}"));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let mut w = stream.try_clone().map_err(|e| e.to_string())?;
    w.write_all(format!("{password}\r\n").as_bytes()).map_err(|e| e.to_string())?;
    let mut r = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
    let mut first = String::new();
    r.read_line(&mut first).map_err(|e| e.to_string())?;
    if first.trim_end() != "PASS Connected." {
        return Err(format!("the debugger refused the password ({})", first.trim_end()));
    }
    let tx = tx.clone();
    std::thread::spawn(move || {
        for line in r.lines() {
            let Ok(line) = line else { break };
            if tx.send(Input::Engine(line)).is_err() {
                return;
            }
        }
        let _ = tx.send(Input::EngineClosed);
    });
    Ok(stream)
}

/// The port a program launched with `--dbg-port 0` listens on, from its stdout (the console's
/// "waiting for a client on port N" line); the rest of its output is read and dropped on a
/// thread so the program never blocks on a full pipe. `None` when it ended first.
fn launched_port(stdout: std::process::ChildStdout) -> Option<u16> {
    let mut r = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(p) = line.trim_end().strip_prefix("Debugger: waiting for a client on port ") {
            let port = p.parse().ok();
            std::thread::spawn(move || io::copy(&mut r, &mut io::sink()));
            return port;
        }
    }
}

/// Runs a DAP session on `input`/`output` (the editor's pipes). `tscript` is the program
/// `launch` runs scripts with. Returns when the editor disconnects or the program ends.
pub fn run(input: impl Read + Send + 'static, mut output: impl Write, tscript: &Path) -> io::Result<()> {
    let (tx, rx) = mpsc::channel();
    let dap_tx = tx.clone();
    std::thread::spawn(move || {
        let mut r = BufReader::new(input);
        while let Ok(Some(m)) = read_message(&mut r) {
            if dap_tx.send(Input::Dap(m)).is_err() {
                return;
            }
        }
        let _ = dap_tx.send(Input::DapClosed);
    });
    let mut adapter = Adapter::new();
    let mut engine: Option<TcpStream> = None;
    let mut child: Option<std::process::Child> = None;
    let mut done = false;
    while !done {
        let Ok(msg) = rx.recv_timeout(Duration::from_millis(200)) else {
            // A launched program that ended without a word (it never connected, it crashed).
            if let Some(c) = child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
                && engine.is_none()
            {
                // Reported once: the editor answers with `disconnect`.
                child = None;
                let acts = adapter.ended(status.code());
                done = perform(acts, &mut output, &mut engine)?;
            }
            continue;
        };
        let actions = match msg {
            Input::Dap(m) => adapter.on_dap(&m),
            Input::DapClosed => break,
            Input::Engine(line) => adapter.on_engine(&line),
            // Once connected, the program's errors come through the debugger (`CERR`).
            Input::Stderr(line) if engine.is_none() => adapter.on_stderr(&line),
            Input::Stderr(_) => Vec::new(),
            Input::EngineClosed => {
                engine = None;
                let code = child.take().and_then(|mut c| c.wait().ok()).and_then(|s| s.code());
                adapter.ended(code)
            }
        };
        let mut queue: Vec<Action> = actions;
        while !queue.is_empty() {
            let mut next = Vec::new();
            for a in queue {
                match a {
                    Action::Launch { program, cwd, request } if !cwd.join(&program).is_file() => {
                        let why = format!("program {} does not exist", cwd.join(&program).display());
                        next.extend(adapter.connected(&request, Err(why)));
                    }
                    Action::Launch { program, cwd, request } => {
                        let password = format!("dap{}", std::process::id());
                        // Port 0: the program binds a free port and names it on its first line
                        // (a port picked here could be taken by another process first).
                        let spawned = std::process::Command::new(tscript)
                            .args(["--dbg-port", "0", "--dbg-password", &password, &program])
                            .current_dir(&cwd)
                            .stdin(std::process::Stdio::null())
                            .stdout(std::process::Stdio::piped())
                            .stderr(std::process::Stdio::piped())
                            .spawn();
                        let result = match spawned {
                            Ok(mut c) => {
                                if let Some(err) = c.stderr.take() {
                                    let tx = tx.clone();
                                    std::thread::spawn(move || {
                                        for line in BufReader::new(err).lines().map_while(Result::ok) {
                                            if tx.send(Input::Stderr(line)).is_err() {
                                                return;
                                            }
                                        }
                                    });
                                }
                                let port = c.stdout.take().map(launched_port);
                                child = Some(c);
                                match port {
                                    Some(Some(port)) => {
                                        connect("127.0.0.1", port, &password, &tx, Duration::from_secs(20))
                                            .map(|s| engine = Some(s))
                                    }
                                    _ => Err(format!("{} did not open its debugger port", tscript.display())),
                                }
                            }
                            Err(e) => Err(format!("cannot start {}: {e}", tscript.display())),
                        };
                        next.extend(adapter.connected(&request, result));
                    }
                    Action::Attach { host, port, password, request } => {
                        // A program just started may take a while to listen on a busy machine.
                        let result =
                            connect(&host, port, &password, &tx, ATTACH_PATIENCE).map(|s| engine = Some(s));
                        next.extend(adapter.connected(&request, result));
                    }
                    other => {
                        if perform(vec![other], &mut output, &mut engine)? {
                            done = true;
                        }
                    }
                }
            }
            queue = next;
        }
    }
    if let Some(mut c) = child {
        let _ = c.kill();
        let _ = c.wait();
    }
    Ok(())
}

/// Sends DAP messages and engine lines; true on [`Action::End`].
fn perform(
    actions: Vec<Action>,
    output: &mut impl Write,
    engine: &mut Option<TcpStream>,
) -> io::Result<bool> {
    let mut end = false;
    for a in actions {
        match a {
            Action::Dap(m) => write_message(output, &m)?,
            Action::Engine(line) => {
                if let Some(s) = engine.as_mut()
                    && s.write_all(format!("{line}\r\n").as_bytes()).is_err()
                {
                    *engine = None;
                }
            }
            Action::End => end = true,
            Action::Launch { .. } | Action::Attach { .. } => {}
        }
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breakpoints_map_paths_and_moves_come_back_as_events() {
        let mut a = Adapter::new();
        a.root = PathBuf::from("/game");
        a.engine_up = true;
        let req = json!({"seq": 3, "type": "request", "command": "setBreakpoints",
            "arguments": {"source": {"path": "/game/scripts/a.cs"}, "breakpoints": [{"line": 4, "condition": "%x > 1"}]}});
        let out = a.on_dap(&req);
        assert_eq!(out[0], Action::Engine("BRKSET scripts/a.cs 4 0 0 %x > 1".into()));
        let Action::Dap(resp) = &out[1] else { panic!("{out:?}") };
        assert_eq!(resp["body"]["breakpoints"][0]["line"], 4);
        let ev = a.on_engine("BRKMOV scripts/a.cs 4 6");
        let Action::Dap(ev) = &ev[0] else { panic!() };
        assert_eq!(ev["body"]["breakpoint"]["line"], 6);
        // Setting the file's breakpoints again clears the old ones first.
        let out = a.on_dap(&json!({"seq": 4, "command": "setBreakpoints",
            "arguments": {"source": {"path": "/game/scripts/a.cs"}, "breakpoints": []}}));
        assert_eq!(out[0], Action::Engine("BRKCLR scripts/a.cs 6".into()));
    }

    #[test]
    fn breakpoints_set_before_the_program_runs_are_sent_when_it_does() {
        let mut a = Adapter::new();
        let out = a.on_dap(&json!({"seq": 2, "command": "setBreakpoints",
            "arguments": {"source": {"path": "/game/lib/u2.cs"}, "breakpoints": [{"line": 3, "hitCondition": "2"}]}}));
        assert!(!out.iter().any(|x| matches!(x, Action::Engine(_))), "nobody to send it to yet: {out:?}");
        // `launch` names the root afterwards.
        a.root = PathBuf::from("/game");
        a.rekey_breakpoints();
        let launch = json!({"seq": 3, "command": "launch"});
        let out = a.connected(&launch, Ok(()));
        assert_eq!(out[0], Action::Engine("V12EXT".into()));
        assert_eq!(out[1], Action::Engine("BRKSET lib/u2.cs 3 0 2 true".into()));
    }

    #[test]
    fn a_configuration_done_before_launch_lets_the_program_run_once_connected() {
        let mut a = Adapter::new();
        let out = a.on_dap(&json!({"seq": 2, "command": "configurationDone"}));
        assert!(!out.iter().any(|x| matches!(x, Action::Engine(_))), "nobody to tell yet: {out:?}");
        let out = a.connected(&json!({"seq": 3, "command": "launch"}), Ok(()));
        assert!(out.contains(&Action::Engine("CONTINUE".into())), "{out:?}");
        // Once connected, `configurationDone` tells the program at once.
        let mut b = Adapter::new();
        let _ = b.connected(&json!({"seq": 2, "command": "attach"}), Ok(()));
        let out = b.on_dap(&json!({"seq": 3, "command": "configurationDone"}));
        assert!(out.contains(&Action::Engine("CONTINUE".into())), "{out:?}");
    }

    #[test]
    fn stack_trace_pages_and_variables_expand_objects() {
        let mut a = Adapter::new();
        a.engine_up = true;
        a.on_engine("BREAK a.cs 3 f b.cs 9 g c.cs 1 h");
        let out = a.on_dap(&json!({"seq": 5, "command": "stackTrace",
            "arguments": {"threadId": 1, "startFrame": 1, "levels": 1}}));
        let Action::Dap(r) = &out[0] else { panic!("{out:?}") };
        assert_eq!(r["body"]["stackFrames"].as_array().unwrap().len(), 1);
        assert_eq!(r["body"]["stackFrames"][0]["name"], "g");
        assert_eq!(r["body"]["totalFrames"], 3);
        let out = a.on_dap(
            &json!({"seq": 6, "command": "variables", "arguments": {"variablesReference": GLOBALS_REF}}),
        );
        assert_eq!(out[0], Action::Engine("GLOBALS t1".into()));
        a.on_engine("LOCALREF t1 $obj 1234");
        a.on_engine("LOCALVAR t1 $n 5");
        let out = a.on_engine("LOCALSEND t1");
        let Action::Dap(r) = &out[0] else { panic!("{out:?}") };
        let obj_ref = r["body"]["variables"][0]["variablesReference"].as_i64().unwrap();
        assert!(obj_ref >= FIRST_OBJECT_REF);
        assert_eq!(r["body"]["variables"][1]["variablesReference"], 0);
        let out = a
            .on_dap(&json!({"seq": 7, "command": "variables", "arguments": {"variablesReference": obj_ref}}));
        assert_eq!(out[0], Action::Engine("FIELDS t2 1234".into()));
        let out = a.on_dap(&json!({"seq": 8, "command": "setVariable",
            "arguments": {"variablesReference": obj_ref, "name": "health", "value": "say \"hi\""}}));
        assert_eq!(out[0], Action::Engine("EVAL t3 0 \"1234\".health = \"say \\\"hi\\\"\"".into()));
        let out = a.on_engine("EVALERR t3 syntax error");
        let Action::Dap(r) = &out[0] else { panic!("{out:?}") };
        assert_eq!(r["success"], false);
        let out = a.on_engine("CERR oops");
        let Action::Dap(r) = &out[0] else { panic!("{out:?}") };
        assert_eq!(r["body"]["category"], "stderr");
    }

    #[test]
    fn a_message_round_trips_through_its_frame() {
        let mut buf = Vec::new();
        write_message(&mut buf, &json!({"a": "é"})).unwrap();
        let back = read_message(&mut std::io::Cursor::new(buf)).unwrap().unwrap();
        assert_eq!(back, json!({"a": "é"}));
        let bad = b"Content-Length: 99999999999\r\n\r\n{}".to_vec();
        assert!(read_message(&mut std::io::Cursor::new(bad)).is_err());
    }
}
