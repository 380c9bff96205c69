//! V12's SimpleMessageEvent chat and its voice stream, on real loopback UDP.
//!
//! A server and N clients, each a [`NetDriver`] over a [`UdpTransport`] behind a
//! [`LinkConditioner`], each in its own thread. Every client sends a fixed number of chat lines
//! (guaranteed-ordered [`SimpleMessageEvent`]s) which the server relays to every client, and a
//! stream of [`VoiceFrame`]s (unguaranteed: a late voice frame is worthless, so a lost one is
//! never resent). At the end every connection's figures are printed, and the check that every
//! chat line reached the server and every client exactly once and in order.

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::net_loop::{Port, entropy, wait};
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::{GhostArena, NoObjects};
use v12_netobject::{
    ConnectionId, ConnectionStats, Guarantee, InterfaceConfig, InterfaceEvent, NetClassRegistry,
    NetClassRegistryBuilder, NetEvent, NetEventClass, NetInterface, PackContext, UnpackContext, read_str,
    write_str,
};
use v12_platform::{
    Clock, ConditionerConfig, LinkConditioner, Millis, NetAddress, SystemClock, Transport, UdpTransport,
};
use v12_services::NetDriver;

/// Longest chat line accepted from the wire.
pub const MAX_LINE: usize = 200;
/// Voice payload per frame: one 20 ms Opus packet from `v12_audio::VoiceEncoder` (16 kbit/s,
/// so 40 bytes).
pub const VOICE_BYTES: usize = 40;

/// V12's SimpleMessageEvent: one chat line, guaranteed and in order. `from` is the
/// sender's client index and `seq` its line number, so receivers can check order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleMessageEvent {
    pub from: u32,
    pub seq: u32,
    pub text: String,
}

impl NetEvent for SimpleMessageEvent {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.from, 8);
        w.write_int(self.seq, 16);
        write_str(w, &self.text);
    }
}

impl NetEventClass for SimpleMessageEvent {
    const NAME: &'static str = "SimpleMessageEvent";
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        Ok(Self { from: r.read_int(8)?, seq: r.read_int(16)?, text: read_str(r, MAX_LINE)? })
    }
}

/// A voice frame: unguaranteed, client to server only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceFrame {
    pub seq: u32,
    pub samples: Vec<u8>,
}

impl NetEvent for VoiceFrame {
    fn guarantee(&self) -> Guarantee {
        Guarantee::Unguaranteed
    }
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.seq, 16);
        w.write_int(self.samples.len() as u32, 6);
        w.write_bytes(&self.samples);
    }
}

impl NetEventClass for VoiceFrame {
    const NAME: &'static str = "VoiceFrame";
    const DIRECTION: v12_netobject::EventDirection = v12_netobject::EventDirection::ClientToServer;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        let seq = r.read_int(16)?;
        let mut samples = vec![0; r.read_int(6)? as usize];
        r.read_bytes(&mut samples)?;
        Ok(Self { seq, samples })
    }
}

/// The network classes of the chat; both sides must build the same registry.
pub fn registry() -> Arc<NetClassRegistry> {
    Arc::new(
        NetClassRegistryBuilder::new()
            .register::<SimpleMessageEvent>()
            .register::<VoiceFrame>()
            .build()
            .expect("two distinct class names"),
    )
}

/// What the chat demo runs.
#[derive(Clone, Debug)]
pub struct ChatConfig {
    pub clients: u32,
    /// How long the clients talk.
    pub seconds: f64,
    /// Chat lines each client sends, spread over `seconds`.
    pub lines_per_client: u32,
    /// Time between voice frames from each client (0: no voice).
    pub voice_period_ms: u64,
    /// Conditions on every datagram each endpoint sends.
    pub link: ConditionerConfig,
    pub seed: u64,
}

/// One client's view at the end.
#[derive(Clone, Debug, Default)]
pub struct ClientReport {
    pub index: u32,
    pub connected: bool,
    pub failure: Option<String>,
    pub stats: ConnectionStats,
    /// Seconds the connection was up (for the rates).
    pub seconds_up: f64,
    pub lines_sent: u32,
    pub voice_sent: u32,
    /// Relayed lines received, per original sender, in arrival order.
    pub lines_received: BTreeMap<u32, Vec<u32>>,
}

/// The server's view at the end.
#[derive(Clone, Debug, Default)]
pub struct ServerReport {
    /// Chat line numbers received from each client index, in arrival order.
    pub lines_received: BTreeMap<u32, Vec<u32>>,
    /// Voice frames received from each client index (sequence numbers, in arrival order).
    pub voice_received: BTreeMap<u32, Vec<u32>>,
    /// Voice frames the server's Opus decoder refused (each client's own decoder).
    pub voice_undecodable: u32,
    /// Per client index, the server side of the connection at its end.
    pub connections: BTreeMap<u32, ConnectionStats>,
}

/// Everything the demo prints.
#[derive(Clone, Debug, Default)]
pub struct ChatReport {
    pub config_clients: u32,
    pub lines_per_client: u32,
    pub clients: Vec<ClientReport>,
    pub server: ServerReport,
}

/// Is `seqs` exactly 0, 1, ..., n-1?
fn exactly_once_in_order(seqs: Option<&Vec<u32>>, n: u32) -> bool {
    seqs.is_some_and(|s| s.iter().copied().eq(0..n))
}

impl ChatReport {
    /// Every chat line reached the server once and in order, and every client got every
    /// client's lines relayed once and in order.
    pub fn ordered_delivery_ok(&self) -> bool {
        let n = self.lines_per_client;
        let senders = 0..self.config_clients;
        senders.clone().all(|c| exactly_once_in_order(self.server.lines_received.get(&c), n))
            && self.clients.len() == self.config_clients as usize
            && self
                .clients
                .iter()
                .all(|r| senders.clone().all(|c| exactly_once_in_order(r.lines_received.get(&c), n)))
    }

    /// No voice frame reached the server twice (unguaranteed events are never resent).
    pub fn voice_never_duplicated(&self) -> bool {
        self.server.voice_received.values().all(|v| {
            let mut s = v.clone();
            s.sort_unstable();
            s.windows(2).all(|w| w[0] != w[1])
        })
    }

    pub fn render(&self) -> String {
        let mut out = String::from(
            "client | RTT ms | data loss | up kbit/s | down kbit/s | events sent/acked/resent | lines in | voice at server\n",
        );
        for c in &self.clients {
            let s = &c.stats;
            let decided = s.data_delivered + s.data_dropped;
            let loss = if decided == 0 { 0.0 } else { 100.0 * s.data_dropped as f64 / decided as f64 };
            let kbit = |bytes: u64| {
                if c.seconds_up > 0.0 { bytes as f64 * 8.0 / 1000.0 / c.seconds_up } else { 0.0 }
            };
            let lines_in: usize = c.lines_received.values().map(Vec::len).sum();
            let voice = self.server.voice_received.get(&c.index).map_or(0, Vec::len);
            out.push_str(&format!(
                "{:>6} | {:>6.1} | {:>8.1}% | {:>9.2} | {:>11.2} | {:>8}/{}/{} | {:>8} | {}/{}{}\n",
                c.index,
                s.rtt_ms,
                loss,
                kbit(s.bytes_sent),
                kbit(s.bytes_received),
                s.events.sent,
                s.events.delivered,
                s.events.resent,
                lines_in,
                voice,
                c.voice_sent,
                c.failure.as_ref().map(|f| format!("  FAILED: {f}")).unwrap_or_default(),
            ));
        }
        let server_resent: u64 = self.server.connections.values().map(|s| s.events.resent).sum();
        let server_sent: u64 = self.server.connections.values().map(|s| s.events.sent).sum();
        out.push_str(&format!(
            "server: {} connections, {} events sent, {} resent after loss\n",
            self.server.connections.len(),
            server_sent,
            server_resent
        ));
        out.push_str(&format!(
            "check: every guaranteed-ordered chat line arrived exactly once and in order: {}\n",
            if self.ordered_delivery_ok() { "yes" } else { "NO" }
        ));
        out.push_str(&format!(
            "check: no unguaranteed voice frame arrived twice: {}\n",
            if self.voice_never_duplicated() { "yes" } else { "NO" }
        ));
        out.push_str(&format!(
            "check: every voice frame the server got decodes as Opus: {}",
            if self.server.voice_undecodable == 0 { "yes" } else { "NO" }
        ));
        out
    }
}

/// Runs the chat: a server thread and one thread per client, all on 127.0.0.1.
pub fn run(config: &ChatConfig) -> io::Result<ChatReport> {
    let registry = registry();
    let clock = SystemClock::new();
    let server_port =
        LinkConditioner::new(UdpTransport::bind(NetAddress::localhost(0))?, config.link, config.seed);
    let server_addr = server_port.local_addr();
    let server_cfg = InterfaceConfig {
        accept_connections: true,
        max_connections: config.clients as usize,
        // Every demo client runs on this machine.
        max_connections_per_ip: config.clients as usize,
        max_pending_per_ip: config.clients as usize,
        max_pending: config.clients as usize,
        connect_burst_per_ip: config.clients,
        ..InterfaceConfig::default()
    };
    let server =
        NetDriver::new(NetInterface::new(server_cfg, registry.clone(), entropy(config.seed, 0)), server_port);
    let talk_ms = (config.seconds * 1000.0) as Millis;
    // Time for the last lines to be relayed and acknowledged through the worst link.
    let deadline = talk_ms + 20_000;
    let clients = config.clients;
    let stop = Arc::new(AtomicBool::new(false));
    let server_stop = stop.clone();
    let server_thread =
        std::thread::spawn(move || run_server(server, clients, clock, deadline, &server_stop));
    let mut threads = Vec::new();
    for index in 0..config.clients {
        let port = LinkConditioner::new(
            UdpTransport::bind(NetAddress::localhost(0))?,
            config.link,
            config.seed.wrapping_add(u64::from(index) + 1),
        );
        let iface = NetInterface::new(
            InterfaceConfig::default(),
            registry.clone(),
            entropy(config.seed, 1 + u64::from(index)),
        );
        let driver = NetDriver::new(iface, port);
        let cfg = config.clone();
        threads
            .push(std::thread::spawn(move || run_client(driver, index, server_addr, cfg, clock, deadline)));
    }
    let mut report = ChatReport {
        config_clients: config.clients,
        lines_per_client: config.lines_per_client,
        ..ChatReport::default()
    };
    for t in threads {
        report.clients.push(t.join().map_err(|_| io::Error::other("a client thread panicked"))??);
    }
    // A disconnect notice may be lost; the server need not wait for its connections to time out.
    stop.store(true, Ordering::Relaxed);
    report.server = server_thread.join().map_err(|_| io::Error::other("the server thread panicked"))??;
    Ok(report)
}

fn run_server(
    mut driver: NetDriver<Port>,
    clients: u32,
    clock: SystemClock,
    deadline: Millis,
    stop: &AtomicBool,
) -> io::Result<ServerReport> {
    let mut report = ServerReport::default();
    // Each client's voice decoder (Opus keeps state per speaker).
    let mut decoders: BTreeMap<u32, Option<v12_audio::VoiceDecoder>> = BTreeMap::new();
    // Chat ghosts nothing, either way.
    let mut no_ghosts = GhostArena::new();
    // Connection -> client index (the client says which one it is in its connect data).
    let mut index_of: BTreeMap<ConnectionId, u32> = BTreeMap::new();
    let mut ended = 0;
    while ended < clients && !stop.load(Ordering::Relaxed) && clock.now_ms() < deadline {
        let now = clock.now_ms();
        driver.pump(now, &NoObjects, &mut no_ghosts)?;
        while let Some(event) = driver.interface.poll_event() {
            match event {
                InterfaceEvent::Connected { connection, connect_data, .. } => {
                    let index = connect_data.first().copied().map_or(u32::MAX, u32::from);
                    tracing::info!(?connection, index, "client connected");
                    index_of.insert(connection, index);
                }
                InterfaceEvent::Disconnected { connection, reason, .. } => {
                    tracing::info!(?connection, %reason, "client left");
                    ended += 1;
                }
                InterfaceEvent::ConnectFailed { .. } => {}
                InterfaceEvent::EventReceived { connection, event } => {
                    let Some(&from) = index_of.get(&connection) else { continue };
                    if let Some(line) = event.downcast_ref::<SimpleMessageEvent>() {
                        report.lines_received.entry(from).or_default().push(line.seq);
                        // Relay to everyone, the sender too (its proof of the round trip).
                        let relay = SimpleMessageEvent { from, ..line.clone() };
                        for id in driver.interface.connection_ids() {
                            if let Err(e) = driver.interface.post_event(id, Box::new(relay.clone())) {
                                tracing::warn!(?id, error = %e, "relay failed");
                            }
                        }
                    } else if let Some(frame) = event.downcast_ref::<VoiceFrame>() {
                        report.voice_received.entry(from).or_default().push(frame.seq);
                        let dec = decoders.entry(from).or_insert_with(|| v12_audio::VoiceDecoder::new().ok());
                        if dec.as_mut().is_none_or(|d| d.decode(&frame.samples).is_err()) {
                            report.voice_undecodable += 1;
                        }
                    }
                }
            }
        }
        for (id, index) in &index_of {
            if let Some(c) = driver.interface.connection(*id) {
                report.connections.insert(*index, c.stats());
            }
        }
        wait(&driver, &clock)?;
    }
    Ok(report)
}

fn run_client(
    mut driver: NetDriver<Port>,
    index: u32,
    server: NetAddress,
    config: ChatConfig,
    clock: SystemClock,
    deadline: Millis,
) -> io::Result<ClientReport> {
    let mut report = ClientReport { index, ..ClientReport::default() };
    let mut encoder = v12_audio::VoiceEncoder::new().ok();
    let mut no_ghosts = GhostArena::new();
    let start = clock.now_ms();
    let id =
        driver.interface.connect(start, server.socket_addr(), bytes::Bytes::copy_from_slice(&[index as u8]));
    let talk_ms = ((config.seconds * 1000.0) as Millis).max(1);
    let line_period = talk_ms / Millis::from(config.lines_per_client.max(1));
    let expected: usize = (config.clients * config.lines_per_client) as usize;
    let mut up_since = None;
    let mut next_line = 0;
    let mut next_voice = 0;
    loop {
        let now = clock.now_ms();
        if now >= deadline {
            report.failure.get_or_insert_with(|| "deadline passed before every line arrived".into());
            break;
        }
        driver.pump(now, &NoObjects, &mut no_ghosts)?;
        while let Some(event) = driver.interface.poll_event() {
            match event {
                InterfaceEvent::Connected { .. } => {
                    report.connected = true;
                    up_since = Some(now);
                    next_line = now;
                    next_voice = now;
                }
                InterfaceEvent::ConnectFailed { reason, .. }
                | InterfaceEvent::Disconnected { reason, .. } => {
                    report.failure = Some(reason);
                }
                InterfaceEvent::EventReceived { event, .. } => {
                    if let Some(line) = event.downcast_ref::<SimpleMessageEvent>() {
                        report.lines_received.entry(line.from).or_default().push(line.seq);
                    }
                }
            }
        }
        if report.failure.is_some() {
            break;
        }
        let Some(since) = up_since else {
            wait(&driver, &clock)?;
            continue;
        };
        let talking = now < since + talk_ms;
        if report.lines_sent < config.lines_per_client && now >= next_line {
            let text = format!("client {index} says line {} over a lossy link", report.lines_sent);
            let line = SimpleMessageEvent { from: index, seq: report.lines_sent, text };
            if driver.interface.post_event(id, Box::new(line)).is_ok() {
                report.lines_sent += 1;
            }
            next_line += line_period;
        }
        if talking && config.voice_period_ms > 0 && now >= next_voice {
            // 20 ms of this client's tone, encoded as voice chat encodes a microphone's.
            let pcm: Vec<f32> = (0..v12_audio::FRAME_SAMPLES)
                .map(|i| {
                    let t = (report.voice_sent as usize * v12_audio::FRAME_SAMPLES + i) as f32
                        / v12_audio::VOICE_RATE as f32;
                    (t * (200.0 + 50.0 * index as f32) * std::f32::consts::TAU).sin() * 0.4
                })
                .collect();
            let samples = encoder.as_mut().and_then(|e| e.encode(&pcm).ok()).unwrap_or_default();
            let frame = VoiceFrame { seq: report.voice_sent & 0xFFFF, samples };
            if driver.interface.post_event(id, Box::new(frame)).is_ok() {
                report.voice_sent += 1;
            }
            next_voice += config.voice_period_ms;
        }
        let received: usize = report.lines_received.values().map(Vec::len).sum();
        let idle = driver.interface.connection(id).is_some_and(|c| c.pending_events() == 0);
        if !talking && report.lines_sent == config.lines_per_client && received >= expected && idle {
            break;
        }
        wait(&driver, &clock)?;
    }
    if let Some(c) = driver.interface.connection(id) {
        report.stats = c.stats();
    }
    report.seconds_up = up_since.map_or(0.0, |s| clock.now_ms().saturating_sub(s) as f64 / 1000.0);
    driver.interface.disconnect(id, "chat finished");
    // Let the disconnect notice leave (through the conditioner's delay) before the port closes.
    let leave_until = clock.now_ms() + u64::from(config.link.latency_ms + config.link.jitter_ms) + 50;
    while clock.now_ms() < leave_until {
        driver.pump(clock.now_ms(), &NoObjects, &mut no_ghosts)?;
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(report)
}
