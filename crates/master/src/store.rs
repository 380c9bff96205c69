//! Where the master keeps registered servers: a small trait, in memory by default.
//!
//! Nothing here needs to survive a restart: every server heart-beats within one period,
//! meets a fresh challenge from the restarted master, and is registered again.

use crate::info::{Filter, ServerInfo};
use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};

/// What [`ServerStore::upsert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert {
    /// A new server.
    Added,
    /// A known server's info and time refreshed.
    Refreshed,
    /// Refused: the store or this address's share of it is full.
    Full,
}

/// Storage of registered servers.
pub trait ServerStore {
    /// Adds or refreshes the server at `addr`, seen at `now_ms`; at most `per_ip` servers
    /// per IP address and `max` in all.
    fn upsert(
        &mut self,
        addr: SocketAddr,
        info: ServerInfo,
        now_ms: u64,
        per_ip: usize,
        max: usize,
    ) -> Upsert;
    /// Removes one server; was it there?
    fn remove(&mut self, addr: SocketAddr) -> bool;
    /// Removes every server last seen before `before_ms`; how many went.
    fn expire(&mut self, before_ms: u64) -> usize;
    /// Servers registered.
    fn len(&self) -> usize;
    /// No server registered?
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The info of one server.
    fn get(&self, addr: SocketAddr) -> Option<&ServerInfo>;
    /// Addresses of the servers passing `filter`, in a stable order, into `out`.
    fn matching(&self, filter: &Filter, out: &mut Vec<SocketAddr>);
}

#[derive(Debug, Clone)]
struct Entry {
    info: ServerInfo,
    seen_ms: u64,
}

/// The default store: an ordered map (stable pages) and a count per IP.
#[derive(Debug, Default)]
pub struct MemoryStore {
    servers: BTreeMap<SocketAddr, Entry>,
    per_ip: HashMap<IpAddr, usize>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }
}

impl ServerStore for MemoryStore {
    fn upsert(
        &mut self,
        addr: SocketAddr,
        info: ServerInfo,
        now_ms: u64,
        per_ip: usize,
        max: usize,
    ) -> Upsert {
        if let Some(e) = self.servers.get_mut(&addr) {
            e.info = info;
            e.seen_ms = now_ms;
            return Upsert::Refreshed;
        }
        let n = self.per_ip.get(&addr.ip()).copied().unwrap_or(0);
        if n >= per_ip || self.servers.len() >= max {
            return Upsert::Full;
        }
        self.per_ip.insert(addr.ip(), n + 1);
        self.servers.insert(addr, Entry { info, seen_ms: now_ms });
        Upsert::Added
    }

    fn remove(&mut self, addr: SocketAddr) -> bool {
        if self.servers.remove(&addr).is_none() {
            return false;
        }
        if let Some(n) = self.per_ip.get_mut(&addr.ip()) {
            *n -= 1;
            if *n == 0 {
                self.per_ip.remove(&addr.ip());
            }
        }
        true
    }

    fn expire(&mut self, before_ms: u64) -> usize {
        let old: Vec<SocketAddr> =
            self.servers.iter().filter(|(_, e)| e.seen_ms < before_ms).map(|(a, _)| *a).collect();
        for a in &old {
            self.remove(*a);
        }
        old.len()
    }

    fn len(&self) -> usize {
        self.servers.len()
    }

    fn get(&self, addr: SocketAddr) -> Option<&ServerInfo> {
        self.servers.get(&addr).map(|e| &e.info)
    }

    fn matching(&self, filter: &Filter, out: &mut Vec<SocketAddr>) {
        out.extend(self.servers.iter().filter(|(_, e)| filter.matches(&e.info)).map(|(a, _)| *a));
    }
}
