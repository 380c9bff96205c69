//! Remote commands (V12 reference page NetConsole): `commandToServer('Tag', args...)` runs
//! `serverCmdTag(%client, args...)` on the server, `commandToClient(%client, 'Tag', args...)`
//! runs `clientCmdTag(args...)` on the client. Tagged-string arguments cross once through
//! the connection's string table (then as ids) in a guaranteed-ordered
//! [`RemoteCommandEvent`], and are expanded on arrival exactly as V12 did: from the last
//! argument to the first, `%1`..`%9` in a tagged argument is replaced by the (already
//! expanded) text of the argument 1..9 places after it. An expanded tagged argument reaches
//! script as `"\x01<tag> <text>"`, which `detag` turns into the text.

use crate::SimError;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_console_vm::{Console, MAX_ARGS, ObjectId, Value};
use v12_netobject::{
    ConnectionId, NetEvent, NetEventClass, NetInterface, PackContext, StringHandle, UnpackContext, read_str,
    write_str,
};

/// Longest plain-string argument accepted from a peer.
pub const MAX_ARG_LEN: usize = 4096;
/// Longest expanded tagged string (V12 used 1024-byte buffers; longer text is cut).
pub const MAX_EXPANDED_LEN: usize = 4096;
const TAG_PREFIX: char = '\u{1}';

/// One argument of a remote command.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteArg {
    /// A tagged string to send (its text crosses once per connection).
    Tag(StringHandle),
    /// A tagged string as received: its text.
    TagText(Arc<str>),
    /// Plain text.
    Str(String),
}

/// V12's RemoteCommandEvent: the command name tag and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteCommandEvent {
    pub args: Vec<RemoteArg>,
}

impl NetEvent for RemoteCommandEvent {
    fn pack(&self, w: &mut BitWriter, ctx: &mut PackContext<'_>) {
        let n = self.args.len().min(MAX_ARGS);
        w.write_int(n as u32, 5);
        for a in &self.args[..n] {
            match a {
                RemoteArg::Tag(h) => {
                    w.write_flag(true);
                    ctx.write_string_tag(w, h);
                }
                RemoteArg::TagText(t) => {
                    // A received tag forwarded as is: its text travels as plain text.
                    w.write_flag(false);
                    write_str(w, t);
                }
                RemoteArg::Str(s) => {
                    w.write_flag(false);
                    write_str(w, s);
                }
            }
        }
    }
}

impl NetEventClass for RemoteCommandEvent {
    const NAME: &'static str = "RemoteCommandEvent";
    fn unpack(r: &mut BitReader<'_>, ctx: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        let n = r.read_int(5)? as usize;
        if n == 0 || n > MAX_ARGS {
            return Err(v12_netobject::NetError::BadEvent(format!("remote command with {n} arguments")));
        }
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            if r.read_flag()? {
                args.push(RemoteArg::TagText(ctx.read_string_tag(r)?));
            } else {
                args.push(RemoteArg::Str(read_str(r, MAX_ARG_LEN)?));
            }
        }
        Ok(Self { args })
    }
}

/// The text of a tagged value (`"\x01N"` or `"\x01N text"`), or the value itself.
fn strip_tag(s: &str) -> &str {
    match s.strip_prefix(TAG_PREFIX) {
        Some(rest) => rest.split_once(' ').map_or("", |(_, t)| t),
        None => s,
    }
}

/// V12's `NetStringTable::expandString`: `%1`..`%9` replaced by the text of the following
/// arguments (`later[0]` is `%1`); a missing argument expands to nothing. The result is cut
/// at [`MAX_EXPANDED_LEN`] bytes.
pub fn expand_string(text: &str, later: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if out.len() >= MAX_EXPANDED_LEN {
            break;
        }
        if c == '%'
            && let Some(&d) = chars.peek()
            && ('1'..='9').contains(&d)
        {
            chars.next();
            let i = (d as u8 - b'1') as usize;
            if let Some(a) = later.get(i) {
                out.push_str(strip_tag(a));
            }
            continue;
        }
        out.push(c);
    }
    if out.len() > MAX_EXPANDED_LEN {
        let mut end = MAX_EXPANDED_LEN;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    out
}

/// Expands received arguments into the strings script sees: last to first, each tagged
/// argument becomes `"\x01<local tag> <expanded text>"` (its text is added to the
/// console's tag table so `getTaggedString` works).
pub fn expand_args(con: &mut Console, args: &[RemoteArg]) -> Vec<String> {
    expand_args_for(con, args, None)
}

/// [`expand_args`] for a client's command: the tags it makes in the console's table are
/// recorded in `owned` (freed when the client goes) and at most [`MAX_TAGS_PER_CLIENT`] are
/// made; past that a tagged argument reaches script as its plain text.
fn expand_args_for(con: &mut Console, args: &[RemoteArg], mut owned: Option<&mut Vec<u32>>) -> Vec<String> {
    let mut out: Vec<String> = vec![String::new(); args.len()];
    for i in (0..args.len()).rev() {
        out[i] = match &args[i] {
            RemoteArg::Str(s) => s.clone(),
            RemoteArg::Tag(h) => expand_tag(con, h.text(), &out[i + 1..], owned.as_deref_mut()),
            RemoteArg::TagText(t) => expand_tag(con, t, &out[i + 1..], owned.as_deref_mut()),
        };
    }
    out
}

/// Tags one client may add to the server console's table (issue 17: a tag flood grew a
/// server from 5 to 215 MB, never freed).
pub const MAX_TAGS_PER_CLIENT: usize = 1024;

fn expand_tag(con: &mut Console, text: &str, later: &[String], owned: Option<&mut Vec<u32>>) -> String {
    let expanded = expand_string(text, later);
    let tag = match owned {
        Some(list) if list.len() >= MAX_TAGS_PER_CLIENT => {
            // The client's share of the table is used up: the text only (detag of plain
            // text is the text), no new entry.
            return expanded;
        }
        Some(list) => {
            let (v, new) = con.add_tagged_string_new(text);
            list.extend(new);
            v.to_string()
        }
        None => con.add_tagged_string(text).to_string(),
    };
    let mut s = tag;
    s.push(' ');
    s.push_str(&expanded);
    s
}

fn valid_command_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[derive(Debug, Clone)]
enum OutArg {
    Tag(String),
    Str(String),
}

#[derive(Debug, Default)]
struct Shared {
    to_server: Vec<Vec<OutArg>>,
    to_clients: Vec<(ConnectionId, Vec<OutArg>)>,
    clients: BTreeMap<ObjectId, ConnectionId>,
    client_objects: BTreeMap<ConnectionId, ObjectId>,
    /// Per client: command tokens (thousandths) and the sim time they were counted at.
    buckets: BTreeMap<ConnectionId, (u64, u64)>,
    /// Per client: the tags its commands added to the console's table.
    client_tags: BTreeMap<ConnectionId, Vec<u32>>,
    /// "Bad name" warnings per client (a flood of them must not flood the log).
    bad_name_log: v12_netobject::LogLimiter<ConnectionId>,
}

/// `serverCmd` calls a client may make per second, unless `$Pref::Server::CommandsPerSecond`
/// says otherwise; twice that in a burst (`$Pref::Server::CommandBurst`).
pub const DEFAULT_COMMANDS_PER_SECOND: u64 = 40;

/// Host-side glue between a [`Console`] and the network: the script functions queue
/// commands, the host flushes them into its `NetInterface`s and hands received
/// [`RemoteCommandEvent`]s back. A listen server uses one helper for both sides.
#[derive(Debug, Clone)]
pub struct RemoteCommands {
    shared: Rc<RefCell<Shared>>,
}

fn out_arg(con: &Console, v: &Value, force_tag: bool) -> OutArg {
    let s = v.as_text();
    if s.starts_with(TAG_PREFIX) {
        OutArg::Tag(con.tagged_string(&s))
    } else if force_tag {
        OutArg::Tag(s.into_owned())
    } else {
        OutArg::Str(s.into_owned())
    }
}

impl RemoteCommands {
    /// Registers `commandToServer`, `commandToClient`, V12's `detag`, and the
    /// `NetConnection` / `GameConnection` console classes.
    pub fn register(con: &mut Console) -> Self {
        let shared = Rc::new(RefCell::new(Shared::default()));
        let _ = con.register_class("NetConnection", "SimGroup");
        let _ = con.register_class("GameConnection", "NetConnection");
        let sh = shared.clone();
        con.register_function(
            "commandToServer",
            2,
            0,
            "commandToServer(functionNameTag, args...)",
            move |c, a| {
                let args: Vec<OutArg> =
                    a.argv.iter().take(MAX_ARGS).enumerate().map(|(i, v)| out_arg(c, v, i == 0)).collect();
                sh.borrow_mut().to_server.push(args);
                Value::Empty
            },
        );
        let sh = shared.clone();
        con.register_function(
            "commandToClient",
            3,
            0,
            "commandToClient(client, functionNameTag, args...)",
            move |c, a| {
                let Some(obj) = c.find_object(&a.get(0)) else {
                    c.warn(&format!("commandToClient: unknown client {}", a.str(0)));
                    return Value::Empty;
                };
                let Some(conn) = sh.borrow().clients.get(&obj).copied() else {
                    c.warn(&format!("commandToClient: {obj} is not a client connection"));
                    return Value::Empty;
                };
                let args: Vec<OutArg> = a.argv[1..]
                    .iter()
                    .take(MAX_ARGS)
                    .enumerate()
                    .map(|(i, v)| out_arg(c, v, i == 0))
                    .collect();
                sh.borrow_mut().to_clients.push((conn, args));
                Value::Empty
            },
        );
        con.register_function("detag", 2, 2, "detag(textTagString)", |c, a| {
            let s = a.str(0);
            match s.strip_prefix(TAG_PREFIX) {
                Some(rest) => match rest.split_once(' ') {
                    Some((_, t)) => t.to_string(),
                    None => c.tagged_string(&s),
                },
                None => s.into_owned(),
            }
        });
        Self { shared }
    }

    /// Server: a client connected; creates its `GameConnection` object (in the SimGroup
    /// `ClientGroup`, created on first use) and returns the object id scripts use as `%client`.
    pub fn add_client(&self, con: &mut Console, conn: ConnectionId) -> Result<ObjectId, SimError> {
        let group = match con.find_object_str("ClientGroup") {
            Some(g) => g,
            None => con.create_object("SimGroup", Some("ClientGroup"))?,
        };
        let obj = con.create_object("GameConnection", None)?;
        con.set_add(group, obj);
        let mut sh = self.shared.borrow_mut();
        sh.clients.insert(obj, conn);
        sh.client_objects.insert(conn, obj);
        Ok(obj)
    }

    /// Server: a client left; deletes its object.
    pub fn remove_client(&self, con: &mut Console, conn: ConnectionId) {
        let obj = {
            let mut sh = self.shared.borrow_mut();
            let obj = sh.client_objects.remove(&conn);
            if let Some(o) = obj {
                sh.clients.remove(&o);
            }
            sh.to_clients.retain(|(c, _)| *c != conn);
            sh.buckets.remove(&conn);
            let suppressed = sh.bad_name_log.forget(&conn);
            if suppressed > 0 {
                tracing::warn!(%conn, suppressed, "bad-name lines suppressed before the client left");
            }
            let tags = sh.client_tags.remove(&conn).unwrap_or_default();
            (obj, tags)
        };
        let (obj, tags) = obj;
        for t in tags {
            con.remove_tagged_string(t);
        }
        if let Some(o) = obj {
            con.delete_object(o);
        }
    }

    /// The `%client` object of a connection.
    pub fn client_object(&self, conn: ConnectionId) -> Option<ObjectId> {
        self.shared.borrow().client_objects.get(&conn).copied()
    }

    /// Commands queued by script and not flushed yet (to the server, to clients).
    pub fn queued(&self) -> (usize, usize) {
        let sh = self.shared.borrow();
        (sh.to_server.len(), sh.to_clients.len())
    }

    fn to_event(iface: &mut NetInterface, args: Vec<OutArg>) -> RemoteCommandEvent {
        let args = args
            .into_iter()
            .map(|a| match a {
                OutArg::Str(s) => RemoteArg::Str(s),
                OutArg::Tag(t) => RemoteArg::Tag(match iface.strings().lookup(&t) {
                    Some(h) => h,
                    None => iface.strings().add_tagged_string(&t),
                }),
            })
            .collect();
        RemoteCommandEvent { args }
    }

    /// Client: posts every queued `commandToServer` on `server` of `iface`.
    pub fn flush_to_server(&self, iface: &mut NetInterface, server: ConnectionId) -> Result<usize, SimError> {
        let queued = std::mem::take(&mut self.shared.borrow_mut().to_server);
        let n = queued.len();
        for args in queued {
            let ev = Self::to_event(iface, args);
            iface.post_event(server, Box::new(ev))?;
        }
        Ok(n)
    }

    /// Server: posts every queued `commandToClient` on `iface`. A connection that vanished
    /// meanwhile is skipped.
    pub fn flush_to_clients(&self, iface: &mut NetInterface) -> usize {
        let queued = std::mem::take(&mut self.shared.borrow_mut().to_clients);
        let mut n = 0;
        for (conn, args) in queued {
            let ev = Self::to_event(iface, args);
            if iface.post_event(conn, Box::new(ev)).is_ok() {
                n += 1;
            }
        }
        n
    }

    /// Server: runs a command received from `conn` as `serverCmd<Name>(%client, args...)`.
    /// Returns false when the event is not a remote command or the name is not valid.
    pub fn handle_server_event(&self, con: &mut Console, conn: ConnectionId, event: &dyn NetEvent) -> bool {
        let Some(ev) = event.downcast_ref::<RemoteCommandEvent>() else { return false };
        let Some(client) = self.client_object(conn) else { return false };
        let mut owned = self.shared.borrow_mut().client_tags.remove(&conn).unwrap_or_default();
        let argv = expand_args_for(con, &ev.args, Some(&mut owned));
        self.shared.borrow_mut().client_tags.insert(conn, owned);
        let Some(name) = argv.first().map(|s| strip_tag(s).to_string()) else { return false };
        if !valid_command_name(&name) {
            let logged = self.shared.borrow_mut().bad_name_log.check(&conn, con.sim_time());
            if let Some(suppressed) = logged {
                tracing::warn!(%conn, suppressed, "remote command with a bad name dropped");
            }
            return false;
        }
        if !self.allow_command(con, conn) {
            tracing::debug!(%conn, %name, "serverCmd over the client's rate limit dropped");
            return true;
        }
        let mut args = Vec::with_capacity(argv.len());
        args.push(Value::Int(i64::from(client)));
        args.extend(argv.into_iter().skip(1).map(Value::str));
        con.call_callback(&format!("serverCmd{name}"), &args);
        true
    }

    /// The client's command rate limit (a token bucket on the console's sim time; the
    /// script sets `$Pref::Server::CommandsPerSecond` and `$Pref::Server::CommandBurst`).
    fn allow_command(&self, con: &Console, conn: ConnectionId) -> bool {
        let pref = |n: &str, d: u64| {
            let v = con.get_global(n).to_f64();
            if v > 0.0 { v.min(1e6) as u64 } else { d }
        };
        let rate = pref("Pref::Server::CommandsPerSecond", DEFAULT_COMMANDS_PER_SECOND);
        let burst = pref("Pref::Server::CommandBurst", rate * 2) * 1000;
        let now = con.sim_time();
        let mut sh = self.shared.borrow_mut();
        let (tokens, at) = sh.buckets.entry(conn).or_insert((burst, now));
        *tokens = (*tokens + now.saturating_sub(*at) * rate).min(burst);
        *at = now;
        if *tokens >= 1000 {
            *tokens -= 1000;
            true
        } else {
            false
        }
    }

    /// Client: runs a command received from the server as `clientCmd<Name>(args...)`.
    pub fn handle_client_event(&self, con: &mut Console, event: &dyn NetEvent) -> bool {
        let Some(ev) = event.downcast_ref::<RemoteCommandEvent>() else { return false };
        let argv = expand_args(con, &ev.args);
        let Some(name) = argv.first().map(|s| strip_tag(s).to_string()) else { return false };
        if !valid_command_name(&name) {
            let logged = self.shared.borrow_mut().bad_name_log.check(&ConnectionId(u32::MAX), con.sim_time());
            if let Some(suppressed) = logged {
                tracing::warn!(suppressed, "remote command with a bad name dropped");
            }
            return false;
        }
        let args: Vec<Value> = argv.into_iter().skip(1).map(Value::str).collect();
        con.call_callback(&format!("clientCmd{name}"), &args);
        true
    }
}
