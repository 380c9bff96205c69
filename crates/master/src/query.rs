//! The browser's side: ask the masters for the servers passing a filter (and/or ask the LAN
//! by broadcast), then ping every server found for its info and round-trip time, as the
//! Tribes 2 browser did. Sans-IO: the host sends [`ServerQuery::poll_transmit`]'s datagrams
//! from any UDP socket and passes back what arrives.

use crate::info::{Filter, ServerInfo};
use crate::wire::{ALL_PAGES, Message};
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use tracing::debug;

/// Query settings.
#[derive(Debug, Clone)]
pub struct QueryConfig {
    /// Master servers to ask.
    pub masters: Vec<SocketAddr>,
    /// Addresses to send an info request to directly: the LAN's broadcast address and game
    /// port, or known servers ("favourites").
    pub direct: Vec<SocketAddr>,
    pub filter: Filter,
    /// Ask a master again (the missing pages) after this long without them (ms).
    pub master_retry_ms: u64,
    /// Times a master is asked before it is given up.
    pub master_tries: u32,
    /// Ping a server again after this long without an answer (ms).
    pub ping_timeout_ms: u64,
    /// Times a server is pinged before it counts as not answering.
    pub ping_tries: u32,
    /// Pings in flight at once.
    pub max_in_flight: usize,
    /// Most servers kept from all sources.
    pub max_servers: usize,
    /// How long answers to the direct (broadcast) requests are awaited (ms).
    pub direct_wait_ms: u64,
}

impl Default for QueryConfig {
    fn default() -> Self {
        Self {
            masters: Vec::new(),
            direct: Vec::new(),
            filter: Filter::default(),
            master_retry_ms: 1_000,
            master_tries: 3,
            ping_timeout_ms: 1_000,
            ping_tries: 2,
            max_in_flight: 32,
            max_servers: 4_096,
            direct_wait_ms: 1_000,
        }
    }
}

/// One row of the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    pub addr: SocketAddr,
    /// The server's answer (None: not answered yet, or never).
    pub info: Option<ServerInfo>,
    /// Round-trip time of the answered info request (ms).
    pub ping_ms: Option<u64>,
}

#[derive(Debug)]
struct MasterQuery {
    addr: SocketAddr,
    token: u64,
    pages: Option<Vec<bool>>,
    sent_at: u64,
    tries: u32,
    done: bool,
}

/// A running query.
#[derive(Debug)]
pub struct ServerQuery {
    config: QueryConfig,
    nonce: u64,
    started: u64,
    masters: Vec<MasterQuery>,
    entries: Vec<ServerEntry>,
    index: HashMap<SocketAddr, usize>,
    todo: VecDeque<usize>,
    in_flight: HashMap<SocketAddr, (u64, u32)>,
    out: VecDeque<(SocketAddr, Vec<u8>)>,
    cancelled: bool,
}

impl ServerQuery {
    /// Starts a query at `now`; `nonce` tells answers to us from spoofed ones (use a random value).
    pub fn new(now: u64, config: QueryConfig, nonce: u64) -> Self {
        let masters = config
            .masters
            .iter()
            .map(|a| MasterQuery { addr: *a, token: 0, pages: None, sent_at: now, tries: 1, done: false })
            .collect();
        let mut q = Self {
            config,
            nonce,
            started: now,
            masters,
            entries: Vec::new(),
            index: HashMap::new(),
            todo: VecDeque::new(),
            in_flight: HashMap::new(),
            out: VecDeque::new(),
            cancelled: false,
        };
        for i in 0..q.masters.len() {
            q.ask_master(i, ALL_PAGES);
        }
        let req = Message::InfoRequest { nonce }.encode();
        for a in q.config.direct.clone() {
            q.out.push_back((a, req.clone()));
        }
        q
    }

    fn ask_master(&mut self, i: usize, page: u16) {
        let m = &self.masters[i];
        let msg =
            Message::Query { nonce: self.nonce, token: m.token, filter: self.config.filter.clone(), page };
        self.out.push_back((m.addr, msg.encode()));
    }

    fn add_server(&mut self, addr: SocketAddr) -> Option<usize> {
        if let Some(i) = self.index.get(&addr) {
            return Some(*i);
        }
        if self.entries.len() >= self.config.max_servers {
            return None;
        }
        let i = self.entries.len();
        self.entries.push(ServerEntry { addr, info: None, ping_ms: None });
        self.index.insert(addr, i);
        Some(i)
    }

    /// A datagram from `from`; `true` if it belonged to this query.
    pub fn handle_datagram(&mut self, now: u64, from: SocketAddr, data: &[u8]) -> bool {
        if self.cancelled {
            return false;
        }
        let Ok(msg) = Message::decode(data) else { return false };
        match msg {
            Message::Challenge { nonce, token } if nonce == self.nonce => {
                let Some(i) = self.masters.iter().position(|m| m.addr == from && !m.done) else {
                    return false;
                };
                self.masters[i].token = token;
                self.masters[i].sent_at = now;
                self.ask_master(i, ALL_PAGES);
                true
            }
            Message::ListPage { nonce, page, pages, servers, .. } if nonce == self.nonce => {
                let Some(i) = self.masters.iter().position(|m| m.addr == from && !m.done) else {
                    return false;
                };
                let got = self.masters[i].pages.get_or_insert_with(|| vec![false; usize::from(pages.max(1))]);
                if let Some(slot) = got.get_mut(usize::from(page)) {
                    *slot = true;
                }
                let complete = got.iter().all(|p| *p);
                for a in servers {
                    if let Some(e) = self.add_server(a)
                        && self.entries[e].info.is_none()
                        && !self.in_flight.contains_key(&a)
                        && !self.todo.contains(&e)
                    {
                        self.todo.push_back(e);
                    }
                }
                if complete {
                    self.masters[i].done = true;
                    debug!(master = %from, servers = self.entries.len(), "browser: master list complete");
                }
                true
            }
            Message::InfoResponse { nonce, info } if nonce == self.nonce => {
                let sent = self.in_flight.remove(&from).map(|(t, _)| t);
                let direct = sent.is_none() && now <= self.started + self.config.direct_wait_ms;
                if sent.is_none() && !direct && !self.index.contains_key(&from) {
                    return false;
                }
                let Some(i) = self.add_server(from) else { return true };
                let e = &mut self.entries[i];
                if e.info.is_none() {
                    e.ping_ms = Some(now.saturating_sub(sent.unwrap_or(self.started)));
                }
                e.info = Some(info);
                true
            }
            _ => false,
        }
    }

    /// Retries and pings due at `now`.
    pub fn poll(&mut self, now: u64) {
        if self.cancelled {
            return;
        }
        for i in 0..self.masters.len() {
            let m = &self.masters[i];
            if m.done || now < m.sent_at + self.config.master_retry_ms {
                continue;
            }
            if m.tries >= self.config.master_tries {
                debug!(master = %m.addr, "browser: master gave no (complete) list; giving up on it");
                self.masters[i].done = true;
                continue;
            }
            let missing: Vec<u16> = match &m.pages {
                None => vec![ALL_PAGES],
                Some(p) => p.iter().enumerate().filter(|(_, got)| !**got).map(|(n, _)| n as u16).collect(),
            };
            self.masters[i].tries += 1;
            self.masters[i].sent_at = now;
            for page in missing {
                self.ask_master(i, page);
            }
        }
        let expired: Vec<SocketAddr> = self
            .in_flight
            .iter()
            .filter(|(_, (t, _))| now >= t + self.config.ping_timeout_ms)
            .map(|(a, _)| *a)
            .collect();
        for a in expired {
            let Some((_, tries)) = self.in_flight.remove(&a) else { continue };
            if tries < self.config.ping_tries {
                self.ping(now, a, tries + 1);
            }
        }
        while self.in_flight.len() < self.config.max_in_flight {
            let Some(i) = self.todo.pop_front() else { break };
            let a = self.entries[i].addr;
            self.ping(now, a, 1);
        }
    }

    fn ping(&mut self, now: u64, addr: SocketAddr, tries: u32) {
        self.in_flight.insert(addr, (now, tries));
        self.out.push_back((addr, Message::InfoRequest { nonce: self.nonce }.encode()));
    }

    /// Stops the query: nothing more is sent or accepted.
    pub fn cancel(&mut self) {
        self.cancelled = true;
        self.out.clear();
        self.todo.clear();
        self.in_flight.clear();
    }

    /// Every master answered or was given up, every server answered or was given up.
    pub fn is_done(&self, now: u64) -> bool {
        self.cancelled
            || (self.masters.iter().all(|m| m.done)
                && self.todo.is_empty()
                && self.in_flight.is_empty()
                && (self.config.direct.is_empty() || now > self.started + self.config.direct_wait_ms))
    }

    /// A line for the browser's status text.
    pub fn status(&self, now: u64) -> String {
        if self.cancelled {
            return "Query cancelled.".into();
        }
        if !self.masters.iter().all(|m| m.done) {
            return "Querying master server...".into();
        }
        let answered = self.entries.iter().filter(|e| e.info.is_some()).count();
        if self.is_done(now) {
            format!("{answered} server(s) found.")
        } else {
            format!("Pinging servers: {answered} of {} answered...", self.entries.len())
        }
    }

    /// The servers that answered and pass the filter, in the order found.
    pub fn answered(&self) -> Vec<&ServerEntry> {
        self.entries
            .iter()
            .filter(|e| e.info.as_ref().is_some_and(|i| self.config.filter.matches(i)))
            .collect()
    }

    /// Every server heard of, answered or not.
    pub fn entries(&self) -> &[ServerEntry] {
        &self.entries
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<(SocketAddr, Vec<u8>)> {
        self.out.pop_front()
    }
}
