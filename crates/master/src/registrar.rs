//! The game server's side of the directory: heartbeats to each master, answering its
//! challenge, and a goodbye when the server shuts down. Sans-IO: the host sends what
//! [`Registrar::poll_transmit`] gives from its game socket (so the master lists the game
//! address) and passes back the master's answers.

use crate::info::ServerInfo;
use crate::wire::Message;
use std::collections::VecDeque;
use std::net::SocketAddr;
use tracing::{debug, info};

/// Registrar settings.
#[derive(Debug, Clone)]
pub struct RegistrarConfig {
    /// The master servers to register with.
    pub masters: Vec<SocketAddr>,
    /// Heartbeat period until a master says otherwise (ms).
    pub period_ms: u64,
    /// Resend a heartbeat no master acknowledged after this long (ms), doubling up to the period.
    pub retry_ms: u64,
}

impl Default for RegistrarConfig {
    fn default() -> Self {
        Self { masters: Vec::new(), period_ms: 30_000, retry_ms: 2_000 }
    }
}

#[derive(Debug, Clone)]
struct MasterState {
    addr: SocketAddr,
    token: u64,
    next_at: u64,
    retry_ms: u64,
    period_ms: u64,
    registered: bool,
}

/// Heart-beats one server's info to its masters.
#[derive(Debug)]
pub struct Registrar {
    config: RegistrarConfig,
    masters: Vec<MasterState>,
    nonce: u64,
    info: ServerInfo,
    out: VecDeque<(SocketAddr, Vec<u8>)>,
}

impl Registrar {
    /// A registrar whose first heartbeats go out at the first [`Self::poll`]; `nonce`
    /// tells our masters' answers from spoofed ones (use a random value).
    pub fn new(config: RegistrarConfig, nonce: u64) -> Self {
        let masters = config
            .masters
            .iter()
            .map(|a| MasterState {
                addr: *a,
                token: 0,
                next_at: 0,
                retry_ms: config.retry_ms,
                period_ms: config.period_ms,
                registered: false,
            })
            .collect();
        Self { config, masters, nonce, info: ServerInfo::default(), out: VecDeque::new() }
    }

    /// Is the server listed by the master at `addr` (its last heartbeat acknowledged)?
    pub fn is_registered(&self, addr: SocketAddr) -> bool {
        self.masters.iter().any(|m| m.addr == addr && m.registered)
    }

    /// The masters.
    pub fn masters(&self) -> impl Iterator<Item = SocketAddr> + '_ {
        self.masters.iter().map(|m| m.addr)
    }

    fn heartbeat(&mut self, i: usize) {
        let m = &self.masters[i];
        let msg = Message::Heartbeat { nonce: self.nonce, token: m.token, info: self.info.clone() };
        self.out.push_back((m.addr, msg.encode()));
    }

    /// Sends the heartbeats due at `now` with the server's current `info`.
    pub fn poll(&mut self, now: u64, info: &ServerInfo) {
        self.info = info.clipped();
        for i in 0..self.masters.len() {
            if now >= self.masters[i].next_at {
                self.heartbeat(i);
                let m = &mut self.masters[i];
                // Until acknowledged, retry sooner, backing off to the period.
                m.next_at = now + m.retry_ms;
                m.retry_ms = (m.retry_ms * 2).min(m.period_ms);
            }
        }
    }

    /// When [`Self::poll`] has work next (ms).
    pub fn poll_timeout(&self) -> Option<u64> {
        self.masters.iter().map(|m| m.next_at).min()
    }

    /// A datagram from `from`; `true` if it was a master's answer to us (consumed).
    pub fn handle_datagram(&mut self, now: u64, from: SocketAddr, data: &[u8]) -> bool {
        let Some(i) = self.masters.iter().position(|m| m.addr == from) else { return false };
        match Message::decode(data) {
            Ok(Message::Challenge { nonce, token }) if nonce == self.nonce => {
                debug!(master = %from, "registrar: challenged, heart-beating with the token");
                self.masters[i].token = token;
                self.masters[i].registered = false;
                self.heartbeat(i);
                true
            }
            Ok(Message::HeartbeatAck { nonce, token, period_s }) if nonce == self.nonce => {
                let retry = self.config.retry_ms;
                let m = &mut self.masters[i];
                if !m.registered {
                    info!(master = %from, "registrar: listed by the master");
                }
                m.token = token;
                m.registered = true;
                m.period_ms = (u64::from(period_s) * 1000).clamp(5_000, 300_000);
                m.next_at = now + m.period_ms;
                m.retry_ms = retry;
                true
            }
            _ => false,
        }
    }

    /// Tells every master the server is going (call before closing the socket).
    pub fn goodbye(&mut self) {
        for m in &mut self.masters {
            if m.token != 0 {
                let msg = Message::Goodbye { nonce: self.nonce, token: m.token };
                self.out.push_back((m.addr, msg.encode()));
            }
            m.registered = false;
        }
    }

    /// The next datagram to send from the game socket.
    pub fn poll_transmit(&mut self) -> Option<(SocketAddr, Vec<u8>)> {
        self.out.pop_front()
    }
}
