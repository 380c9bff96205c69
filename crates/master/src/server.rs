//! The master server's core, sans-IO: datagrams and time in, datagrams out.
//!
//! Order of work for each datagram: decode (garbage is counted and costs its source nothing:
//! anyone can forge a source address, so a forged datagram must not spend a real sender's
//! budget), check the token, then rate limit by source IP in one of two budgets: requests
//! with a valid token (only a sender that reads the master's answers at that address has
//! one) and anonymous ones. Forged datagrams can only spend the anonymous budget, so a
//! registered server's real heartbeats still get through. A request with no valid token gets
//! a [`Message::Challenge`] and nothing is stored.
//! A verified heartbeat registers or refreshes the server; a verified query gets the list
//! in pages of at most [`MAX_DATAGRAM`] bytes. [`MasterServer::handle_timeout`] expires
//! servers that stopped heart-beating.

use crate::info::Filter;
use crate::rate::{RateConfig, RateLimiter};
use crate::store::{MemoryStore, ServerStore, Upsert};
use crate::token::TokenMinter;
use crate::wire::{ALL_PAGES, MAX_DATAGRAM, Message, PAGE_ADDR_BITS, addr_bits};
use std::collections::VecDeque;
use std::net::SocketAddr;
use tracing::{debug, info, warn};

/// Master settings.
#[derive(Debug, Clone)]
pub struct MasterConfig {
    /// Heartbeat period asked of game servers (ms).
    pub heartbeat_period_ms: u64,
    /// A server not heard from for this long is dropped (ms); about three periods.
    pub expire_after_ms: u64,
    /// Most servers registered.
    pub max_servers: usize,
    /// Most servers registered from one IP address.
    pub max_servers_per_ip: usize,
    /// Per-source rate limits of requests without a valid token (challenges, garbage that
    /// parses).
    pub rate: RateConfig,
    /// Per-source rate limits of requests with a valid token (heartbeats, goodbyes and
    /// queries of senders that answered a challenge), kept apart from anonymous traffic.
    pub verified_rate: RateConfig,
    /// Most datagrams waiting to be sent; more are dropped (counted).
    pub max_queued: usize,
}

impl Default for MasterConfig {
    fn default() -> Self {
        Self {
            heartbeat_period_ms: 30_000,
            expire_after_ms: 95_000,
            max_servers: 100_000,
            max_servers_per_ip: 64,
            rate: RateConfig::default(),
            verified_rate: RateConfig::default(),
            max_queued: 16_384,
        }
    }
}

/// Counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MasterStats {
    pub datagrams: u64,
    pub rate_limited: u64,
    pub garbage: u64,
    pub challenges: u64,
    pub heartbeats: u64,
    /// Servers registered now.
    pub registered: u64,
    pub refused_full: u64,
    pub goodbyes: u64,
    pub expired: u64,
    pub queries: u64,
    pub pages_sent: u64,
    pub dropped_out: u64,
}

/// The master server.
#[derive(Debug)]
pub struct MasterServer<S: ServerStore = MemoryStore> {
    config: MasterConfig,
    store: S,
    minter: TokenMinter,
    limiter: RateLimiter,
    verified_limiter: RateLimiter,
    out: VecDeque<(SocketAddr, Vec<u8>)>,
    stats: MasterStats,
    next_expire: u64,
    scratch: Vec<SocketAddr>,
}

impl MasterServer<MemoryStore> {
    /// A master with an in-memory store.
    pub fn new(config: MasterConfig, minter: TokenMinter) -> Self {
        Self::with_store(config, minter, MemoryStore::new())
    }
}

impl<S: ServerStore> MasterServer<S> {
    /// A master over any store.
    pub fn with_store(config: MasterConfig, minter: TokenMinter, store: S) -> Self {
        let limiter = RateLimiter::new(config.rate);
        let verified_limiter = RateLimiter::new(config.verified_rate);
        Self {
            config,
            store,
            minter,
            limiter,
            verified_limiter,
            out: VecDeque::new(),
            stats: MasterStats::default(),
            next_expire: 0,
            scratch: Vec::new(),
        }
    }

    pub fn config(&self) -> &MasterConfig {
        &self.config
    }
    pub fn stats(&self) -> &MasterStats {
        &self.stats
    }
    pub fn store(&self) -> &S {
        &self.store
    }
    /// Source addresses the rate limiter tracks now.
    pub fn tracked_sources(&self) -> usize {
        self.limiter.tracked() + self.verified_limiter.tracked()
    }

    fn send(&mut self, to: SocketAddr, m: Message) {
        if self.out.len() >= self.config.max_queued {
            self.stats.dropped_out += 1;
            return;
        }
        self.out.push_back((to, m.encode()));
    }

    fn challenge(&mut self, now: u64, from: SocketAddr, nonce: u64) {
        self.stats.challenges += 1;
        let token = self.minter.token(from, now);
        self.send(from, Message::Challenge { nonce, token });
    }

    /// A datagram from `from` at `now` (ms). Never panics, whatever the bytes.
    pub fn handle_datagram(&mut self, now: u64, from: SocketAddr, data: &[u8]) {
        self.stats.datagrams += 1;
        let msg = match Message::decode(data) {
            Ok(m) => m,
            Err(e) => {
                self.stats.garbage += 1;
                debug!(%from, error = %e, "master: garbage datagram");
                return;
            }
        };
        let token = match &msg {
            Message::Heartbeat { token, .. }
            | Message::Goodbye { token, .. }
            | Message::Query { token, .. } => Some(*token),
            _ => None,
        };
        let verified = token.is_some_and(|t| self.minter.verify(from, t, now));
        let limiter = if verified { &mut self.verified_limiter } else { &mut self.limiter };
        if !limiter.allow(from.ip(), now) {
            self.stats.rate_limited += 1;
            return;
        }
        match msg {
            Message::Heartbeat { nonce, token: _, info } => {
                self.stats.heartbeats += 1;
                if !verified {
                    return self.challenge(now, from, nonce);
                }
                let (per_ip, max) = (self.config.max_servers_per_ip, self.config.max_servers);
                match self.store.upsert(from, info.clipped(), now, per_ip, max) {
                    Upsert::Added | Upsert::Refreshed => {
                        let token = self.minter.token(from, now);
                        let period_s =
                            (self.config.heartbeat_period_ms / 1000).clamp(1, u64::from(u16::MAX)) as u16;
                        self.send(from, Message::HeartbeatAck { nonce, token, period_s });
                    }
                    Upsert::Full => {
                        self.stats.refused_full += 1;
                        warn!(%from, servers = self.store.len(), "master: refusing a server, the list (or its address's share) is full");
                        return;
                    }
                }
                self.stats.registered = self.store.len() as u64;
            }
            Message::Goodbye { nonce, token: _ } => {
                if !verified {
                    return self.challenge(now, from, nonce);
                }
                if self.store.remove(from) {
                    self.stats.goodbyes += 1;
                    info!(%from, "master: server said goodbye");
                }
            }
            Message::Query { nonce, token: _, filter, page } => {
                if !verified {
                    return self.challenge(now, from, nonce);
                }
                self.stats.queries += 1;
                self.answer_query(from, nonce, &filter, page);
            }
            _ => self.stats.garbage += 1,
        }
    }

    fn answer_query(&mut self, to: SocketAddr, nonce: u64, filter: &Filter, page: u16) {
        let mut list = std::mem::take(&mut self.scratch);
        list.clear();
        self.store.matching(filter, &mut list);
        // Page boundaries by bits, so IPv6 addresses (145 bits) and IPv4 (49) both fit.
        let mut starts = vec![0usize];
        let mut bits = 0;
        for (i, a) in list.iter().enumerate() {
            let b = addr_bits(a);
            if bits + b > PAGE_ADDR_BITS {
                starts.push(i);
                bits = 0;
            }
            bits += b;
        }
        let pages = starts.len().min(usize::from(u16::MAX - 1));
        let total = list.len().min(u32::MAX as usize) as u32;
        let wanted: Vec<usize> =
            if page == ALL_PAGES { (0..pages).collect() } else { vec![usize::from(page)] };
        for p in wanted.into_iter().filter(|p| *p < pages) {
            let end = starts.get(p + 1).copied().unwrap_or(list.len());
            let servers = list[starts[p]..end].to_vec();
            self.stats.pages_sent += 1;
            self.send(to, Message::ListPage { nonce, page: p as u16, pages: pages as u16, total, servers });
        }
        debug_assert!(self.out.back().is_none_or(|(_, d)| d.len() <= MAX_DATAGRAM));
        self.scratch = list;
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<(SocketAddr, Vec<u8>)> {
        self.out.pop_front()
    }

    /// When [`Self::handle_timeout`] should run next (ms).
    pub fn poll_timeout(&self) -> u64 {
        self.next_expire
    }

    /// Expires silent servers and prunes idle rate-limit entries.
    pub fn handle_timeout(&mut self, now: u64) {
        if now < self.next_expire {
            return;
        }
        self.next_expire = now + 1000;
        let gone = self.store.expire(now.saturating_sub(self.config.expire_after_ms));
        if gone > 0 {
            self.stats.expired += gone as u64;
            info!(gone, left = self.store.len(), "master: servers expired (no heartbeat)");
        }
        self.stats.registered = self.store.len() as u64;
        self.limiter.prune(now);
        self.verified_limiter.prune(now);
    }
}
