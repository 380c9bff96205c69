//! `TCPObject` and `HTTPObject`, the console's TCP as V12 scripts use it: `connect`,
//! `listen`, `send`, `disconnect`, and the callbacks `onDNSResolved`, `onDNSFailed`,
//! `onConnected`, `onConnectFailed`, `onConnectRequest`, `onLine` and `onDisconnect`;
//! `HTTPObject::get(address, path [, query])` sends a plain HTTP/1.0 request and hands the
//! answer to `onLine` a line at a time.
//!
//! A listening object's `onConnectRequest(%this, %address, %client)` receives the accepted
//! connection already wrapped in a new `TCPObject` (`%client`). When the listener has a name,
//! the client takes it as its `class`, so the listener's namespace handles the clients' lines
//! (`Door::onLine(%this, %line)` with `%this` the client; `%this.listener` is the listener).
//! (V12 scripts created that object themselves from a socket number; here the engine does, so
//! no socket is ever left without an owner.)
//!
//! Input is bounded: a line over [`MAX_LINE`] bytes, or more than [`MAX_BUFFERED`] bytes
//! waiting for `onLine`, closes that connection with a log line and `onDisconnect`; at most
//! [`LINES_PER_FRAME`] lines per connection reach the script each frame.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use v12_console_vm::{Console, ObjectId, Value};
use v12_platform::{ConnectState, ConnectionTag, Event, NetAddress, TcpIo, TcpNet};

/// Longest line handed to `onLine` (bytes).
pub const MAX_LINE: usize = 64 * 1024;
/// Most received bytes waiting to become lines, per connection.
pub const MAX_BUFFERED: usize = 1 << 20;
/// Lines per connection handed to the script per frame (the rest wait).
pub const LINES_PER_FRAME: usize = 1000;

#[derive(Debug)]
enum Request {
    Connect(ObjectId, String),
    Listen(ObjectId, u16),
    Send(ObjectId, Vec<u8>),
    Disconnect(ObjectId),
    HttpGet(ObjectId, String, Vec<u8>),
}

#[derive(Debug, Default)]
struct Shared {
    requests: VecDeque<Request>,
}

#[derive(Debug)]
struct Conn {
    object: ObjectId,
    listener: bool,
    buffer: Vec<u8>,
    /// An HTTP request to send once connected.
    on_connect: Option<Vec<u8>>,
}

/// Every script TCP connection: call [`TcpObjects::pump`] once a frame.
#[derive(Debug)]
pub struct TcpObjects {
    net: Box<dyn TcpIo>,
    shared: Rc<RefCell<Shared>>,
    conns: BTreeMap<ConnectionTag, Conn>,
    by_object: BTreeMap<ObjectId, ConnectionTag>,
    events: Vec<Event>,
}

fn object_of(c: &Console, a: &v12_console_vm::CallArgs<'_>) -> Option<ObjectId> {
    a.this.or_else(|| c.find_object(&a.get(0)))
}

impl TcpObjects {
    /// Registers the `TCPObject` and `HTTPObject` classes and their methods.
    pub fn register(con: &mut Console) -> Self {
        Self::register_with(con, Box::new(TcpNet::new()))
    }

    /// [`Self::register`] over `net` (a journaled one, say).
    pub fn register_with(con: &mut Console, net: Box<dyn TcpIo>) -> Self {
        let _ = con.register_class("TCPObject", "SimObject");
        // V12 links a TCPObject's name into its namespace (`function IRC::onLine`).
        con.set_script_class("TCPObject", true);
        let _ = con.register_class("HTTPObject", "TCPObject");
        let shared = Rc::new(RefCell::new(Shared::default()));
        let push = |shared: &Rc<RefCell<Shared>>| {
            let s = shared.clone();
            move |r: Request| s.borrow_mut().requests.push_back(r)
        };
        let p = push(&shared);
        con.register_method("TCPObject", "connect", 3, 3, "obj.connect(\"host:port\")", move |c, a| {
            let Some(id) = object_of(c, a) else { return false };
            p(Request::Connect(id, a.str(1).into_owned()));
            true
        });
        let p = push(&shared);
        con.register_method("TCPObject", "listen", 3, 3, "obj.listen(port)", move |c, a| {
            let Some(id) = object_of(c, a) else { return false };
            p(Request::Listen(id, a.f64(1).clamp(0.0, 65535.0) as u16));
            true
        });
        let p = push(&shared);
        con.register_method("TCPObject", "send", 3, 0, "obj.send(text, ...)", move |c, a| {
            let Some(id) = object_of(c, a) else { return false };
            let text: String = (1..a.len()).map(|i| a.str(i).into_owned()).collect();
            p(Request::Send(id, text.into_bytes()));
            true
        });
        let p = push(&shared);
        con.register_method("TCPObject", "disconnect", 2, 2, "obj.disconnect()", move |c, a| {
            let Some(id) = object_of(c, a) else { return false };
            p(Request::Disconnect(id));
            true
        });
        let p = push(&shared);
        con.register_method(
            "HTTPObject",
            "get",
            4,
            5,
            "obj.get(\"host:port\", \"/path\" [, \"query\"])",
            move |c, a| {
                let Some(id) = object_of(c, a) else { return false };
                let address = a.str(1).into_owned();
                let host = address.split(':').next().unwrap_or("").to_string();
                let mut path = a.str(2).into_owned();
                if !path.starts_with('/') {
                    path.insert(0, '/');
                }
                if a.len() > 3 && !a.str(3).is_empty() {
                    path = format!("{path}?{}", a.str(3));
                }
                let request = format!(
                    "GET {path} HTTP/1.0\r\nHost: {host}\r\nUser-Agent: V12\r\nConnection: close\r\n\r\n"
                );
                p(Request::HttpGet(id, address, request.into_bytes()));
                true
            },
        );
        Self { net, shared, conns: BTreeMap::new(), by_object: BTreeMap::new(), events: Vec::new() }
    }

    /// Open connections and listening ports.
    pub fn len(&self) -> usize {
        self.conns.len()
    }
    /// True with none.
    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }

    /// One frame: carry out the scripts' calls, then turn what the sockets did into callbacks.
    pub fn pump(&mut self, con: &mut Console) {
        let requests: Vec<Request> = self.shared.borrow_mut().requests.drain(..).collect();
        for r in requests {
            self.request(con, r);
        }
        // Objects deleted by script take their connection with them.
        let gone: Vec<ConnectionTag> =
            self.conns.iter().filter(|(_, c)| con.object(c.object).is_none()).map(|(t, _)| *t).collect();
        for tag in gone {
            self.close(tag);
        }
        self.events.clear();
        self.net.process(&mut self.events);
        let events = std::mem::take(&mut self.events);
        for e in &events {
            self.event(con, e);
        }
        self.events = events;
        let tags: Vec<ConnectionTag> = self.conns.keys().copied().collect();
        for tag in tags {
            self.deliver_lines(con, tag);
        }
    }

    fn attach(&mut self, tag: ConnectionTag, object: ObjectId, listener: bool, on_connect: Option<Vec<u8>>) {
        if let Some(old) = self.by_object.insert(object, tag) {
            self.conns.remove(&old);
            self.net.close(old);
        }
        self.conns.insert(tag, Conn { object, listener, buffer: Vec::new(), on_connect });
    }

    fn close(&mut self, tag: ConnectionTag) {
        if let Some(c) = self.conns.remove(&tag)
            && self.by_object.get(&c.object) == Some(&tag)
        {
            self.by_object.remove(&c.object);
        }
        self.net.close(tag);
    }

    fn request(&mut self, con: &mut Console, r: Request) {
        match r {
            Request::Connect(id, address) => {
                let tag = self.net.connect_host(strip_ip_prefix(&address));
                self.attach(tag, id, false, None);
            }
            Request::HttpGet(id, address, request) => {
                let tag = self.net.connect_host(strip_ip_prefix(&address));
                self.attach(tag, id, false, Some(request));
            }
            Request::Listen(id, port) => match listen(&mut *self.net, con, port) {
                Ok((bound, tag)) => {
                    self.attach(tag, id, true, None);
                    con.set_field(id, "port", i64::from(bound));
                }
                Err(e) => con.error(&format!("TCPObject::listen: cannot listen on port {port}: {e}")),
            },
            Request::Send(id, bytes) => {
                let Some(&tag) = self.by_object.get(&id) else {
                    con.warn("TCPObject::send: not connected");
                    return;
                };
                if self.net.send(tag, &bytes).is_err() {
                    tracing::warn!(object = id, "TCPObject: the peer does not read; disconnected");
                    self.close(tag);
                    con.call_method_callback(id, "onDisconnect", &[]);
                }
            }
            Request::Disconnect(id) => {
                if let Some(&tag) = self.by_object.get(&id) {
                    self.close(tag);
                }
            }
        }
    }

    fn event(&mut self, con: &mut Console, e: &Event) {
        match e {
            Event::ConnectedAccept(a) => {
                let Some(owner) = self.conns.get(&a.port_tag).filter(|c| c.listener).map(|c| c.object) else {
                    self.net.close(a.tag);
                    return;
                };
                // A named listener's clients take its name as their `class`: its namespace
                // handles their lines (`%this` is the client, `%this.listener` the listener).
                let listener_name = con.object_name(owner);
                let mut fields = vec![("listener", Value::Int(i64::from(owner)))];
                if !listener_name.is_empty() {
                    fields.push(("class", Value::str(listener_name)));
                }
                match con.create_object_with_fields("TCPObject", None, &fields) {
                    Ok(client) => {
                        self.attach(a.tag, client, false, None);
                        let address = format!("IP:{}", a.address.socket_addr());
                        con.call_method_callback(
                            owner,
                            "onConnectRequest",
                            &[Value::str(address), Value::Int(i64::from(client))],
                        );
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "TCPObject: cannot wrap an accepted connection");
                        self.net.close(a.tag);
                    }
                }
            }
            Event::ConnectedNotify(n) => {
                let Some(object) = self.conns.get(&n.tag).map(|c| c.object) else { return };
                match n.state {
                    ConnectState::DnsResolved => {
                        con.call_method_callback(object, "onDNSResolved", &[]);
                    }
                    ConnectState::DnsFailed => {
                        self.close(n.tag);
                        con.call_method_callback(object, "onDNSFailed", &[]);
                    }
                    ConnectState::Connected => {
                        if let Some(req) = self.conns.get_mut(&n.tag).and_then(|c| c.on_connect.take()) {
                            let _ = self.net.send(n.tag, &req);
                        }
                        con.call_method_callback(object, "onConnected", &[]);
                    }
                    ConnectState::ConnectFailed => {
                        self.close(n.tag);
                        con.call_method_callback(object, "onConnectFailed", &[]);
                    }
                    ConnectState::Disconnected => {
                        // What is still buffered (an HTTP answer without a final newline) first.
                        self.deliver_lines(con, n.tag);
                        if let Some(c) = self.conns.get_mut(&n.tag)
                            && !c.buffer.is_empty()
                        {
                            let rest = String::from_utf8_lossy(&std::mem::take(&mut c.buffer)).into_owned();
                            con.call_method_callback(object, "onLine", &[Value::str(rest)]);
                        }
                        self.close(n.tag);
                        con.call_method_callback(object, "onDisconnect", &[]);
                    }
                }
            }
            Event::ConnectedReceive(r) => {
                let Some(c) = self.conns.get_mut(&r.tag) else { return };
                c.buffer.extend_from_slice(&r.data);
                let over_line = !c.buffer.contains(&b'\n') && c.buffer.len() > MAX_LINE;
                if over_line || c.buffer.len() > MAX_BUFFERED {
                    let object = c.object;
                    tracing::warn!(
                        object,
                        bytes = c.buffer.len(),
                        "TCPObject: a line over {MAX_LINE} bytes or over {MAX_BUFFERED} bytes waiting; disconnected"
                    );
                    self.close(r.tag);
                    con.call_method_callback(object, "onDisconnect", &[]);
                }
            }
            _ => {}
        }
    }

    fn deliver_lines(&mut self, con: &mut Console, tag: ConnectionTag) {
        for _ in 0..LINES_PER_FRAME {
            let Some(c) = self.conns.get_mut(&tag) else { return };
            let Some(end) = c.buffer.iter().position(|&b| b == b'\n') else { return };
            let mut line: Vec<u8> = c.buffer.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let object = c.object;
            let text = String::from_utf8_lossy(&line).into_owned();
            con.call_method_callback(object, "onLine", &[Value::str(text)]);
        }
    }
}

/// Opens a listening port: loopback unless the server binds wider (`$Pref::Net::BindAddress`);
/// port 0 takes a free one. The port bound, and its tag.
pub(crate) fn listen(net: &mut dyn TcpIo, con: &Console, port: u16) -> std::io::Result<(u16, ConnectionTag)> {
    let ip = con
        .get_global("Pref::Net::BindAddress")
        .as_text()
        .trim()
        .parse()
        .unwrap_or(std::net::Ipv4Addr::LOCALHOST.into());
    let tag = net.listen(NetAddress::new(ip, port))?;
    let bound = net.local_addr(tag).map_or(port, |a| a.socket_addr().port());
    Ok((bound, tag))
}

/// V12 addresses may start with `IP:`.
fn strip_ip_prefix(address: &str) -> &str {
    address.strip_prefix("IP:").or_else(|| address.strip_prefix("ip:")).unwrap_or(address)
}
