//! The datagrams of the directory protocols, one [`Message`] each.
//!
//! | byte 0 | byte 1 | fields |
//! |---|---|---|
//! | [`INFO_PACKET_PREFIX`] | kind (1..=8) | per kind, bit-packed with `v12-bitstream` |
//!
//! Requests that an unverified sender may send (heartbeat, goodbye, query) are padded to
//! [`MIN_REQUEST_BYTES`] and a challenge answer is shorter than that, so a spoofed source
//! gets no amplification. Decoding is bounds-checked and never panics.

pub use crate::error::WireError;
use crate::info::{Filter, INFO_REQUEST_BYTES, ServerInfo};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use v12_bitstream::{BitReader, BitWriter};
pub use v12_netobject::INFO_PACKET_PREFIX;

/// Requests from unverified senders are padded to this size.
pub const MIN_REQUEST_BYTES: usize = 32;
/// The largest datagram this protocol sends: a list page fits a 1,200-byte MTU budget.
pub const MAX_DATAGRAM: usize = 1200;
/// A query for every page (otherwise the page number wanted).
pub const ALL_PAGES: u16 = u16::MAX;
/// Bytes of a list page before its addresses.
const PAGE_HEADER_BYTES: usize = 2 + 8 + 2 + 2 + 4 + 2;
/// Most IPv4 addresses in one page (7 bytes each).
pub const SERVERS_PER_PAGE: usize = (MAX_DATAGRAM - PAGE_HEADER_BYTES) * 8 / 49;

/// One datagram of the directory protocols.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// Game server → master: "I am here", with the token of the last challenge (0: none yet).
    Heartbeat { nonce: u64, token: u64, info: ServerInfo },
    /// Game server → master: "I am going" (removes it at once).
    Goodbye { nonce: u64, token: u64 },
    /// Master → game server: registered; the next heartbeat is due within `period_s`.
    HeartbeatAck { nonce: u64, token: u64, period_s: u16 },
    /// Master → anyone unverified: present this token (a MAC of your address and the time).
    Challenge { nonce: u64, token: u64 },
    /// Browser → master: the servers passing `filter`, every page or one.
    Query { nonce: u64, token: u64, filter: Filter, page: u16 },
    /// Master → browser: page `page` of `pages` of the `total` servers that passed.
    ListPage { nonce: u64, page: u16, pages: u16, total: u32, servers: Vec<SocketAddr> },
    /// Browser → game server (or the LAN's broadcast address): who are you? Padded.
    InfoRequest { nonce: u64 },
    /// Game server → browser: this (never larger than the request).
    InfoResponse { nonce: u64, info: ServerInfo },
}

impl Message {
    fn kind(&self) -> u8 {
        match self {
            Self::Heartbeat { .. } => 1,
            Self::Goodbye { .. } => 2,
            Self::HeartbeatAck { .. } => 3,
            Self::Challenge { .. } => 4,
            Self::Query { .. } => 5,
            Self::ListPage { .. } => 6,
            Self::InfoRequest { .. } => 7,
            Self::InfoResponse { .. } => 8,
        }
    }

    /// Smallest datagram of `kind` accepted (its padding).
    fn min_len(kind: u8) -> usize {
        match kind {
            1 | 2 | 5 => MIN_REQUEST_BYTES,
            7 => INFO_REQUEST_BYTES,
            _ => 10,
        }
    }

    /// The datagram.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = BitWriter::new();
        w.write_int(u32::from(INFO_PACKET_PREFIX), 8);
        w.write_int(u32::from(self.kind()), 8);
        match self {
            Self::Heartbeat { nonce, token, info } => {
                w.write_bits(*nonce, 64);
                w.write_bits(*token, 64);
                info.write(&mut w);
            }
            Self::Goodbye { nonce, token }
            | Self::HeartbeatAck { nonce, token, .. }
            | Self::Challenge { nonce, token } => {
                w.write_bits(*nonce, 64);
                w.write_bits(*token, 64);
                if let Self::HeartbeatAck { period_s, .. } = self {
                    w.write_int(u32::from(*period_s), 16);
                }
            }
            Self::Query { nonce, token, filter, page } => {
                w.write_bits(*nonce, 64);
                w.write_bits(*token, 64);
                filter.write(&mut w);
                w.write_int(u32::from(*page), 16);
            }
            Self::ListPage { nonce, page, pages, total, servers } => {
                w.write_bits(*nonce, 64);
                w.write_int(u32::from(*page), 16);
                w.write_int(u32::from(*pages), 16);
                w.write_int(*total, 32);
                w.write_int(servers.len().min(u16::MAX as usize) as u32, 16);
                for a in servers.iter().take(u16::MAX as usize) {
                    write_addr(&mut w, *a);
                }
            }
            Self::InfoRequest { nonce } => w.write_bits(*nonce, 64),
            Self::InfoResponse { nonce, info } => {
                w.write_bits(*nonce, 64);
                info.write(&mut w);
            }
        }
        let min = Self::min_len(self.kind());
        while w.bit_position() < min * 8 {
            w.write_int(0, 8);
        }
        w.into_bytes().to_vec()
    }

    /// Reads a datagram; any bytes give a value or an error, never a panic.
    pub fn decode(data: &[u8]) -> Result<Self, WireError> {
        if data.first() != Some(&INFO_PACKET_PREFIX) {
            return Err(WireError::NotOurs);
        }
        let kind = *data.get(1).ok_or(WireError::Short { kind: 0, len: data.len(), min: 2 })?;
        if !(1..=8).contains(&kind) {
            return Err(WireError::UnknownKind(kind));
        }
        let min = Self::min_len(kind);
        if data.len() < min {
            return Err(WireError::Short { kind, len: data.len(), min });
        }
        let mut r = BitReader::new(&data[2..]);
        let nonce = r.read_bits(64)?;
        Ok(match kind {
            1 => Self::Heartbeat { nonce, token: r.read_bits(64)?, info: ServerInfo::read(&mut r)? },
            2 => Self::Goodbye { nonce, token: r.read_bits(64)? },
            3 => Self::HeartbeatAck { nonce, token: r.read_bits(64)?, period_s: r.read_int(16)? as u16 },
            4 => Self::Challenge { nonce, token: r.read_bits(64)? },
            5 => {
                let token = r.read_bits(64)?;
                let filter = Filter::read(&mut r)?;
                Self::Query { nonce, token, filter, page: r.read_int(16)? as u16 }
            }
            6 => {
                let page = r.read_int(16)? as u16;
                let pages = r.read_int(16)? as u16;
                let total = r.read_int(32)?;
                let count = r.read_int(16)? as usize;
                // Each address takes at least 49 bits: a count the bytes cannot hold is a lie.
                if count * 49 > r.bits_left() {
                    return Err(WireError::Short { kind, len: data.len(), min: 2 + count * 49 / 8 });
                }
                let mut servers = Vec::with_capacity(count);
                for _ in 0..count {
                    servers.push(read_addr(&mut r)?);
                }
                Self::ListPage { nonce, page, pages, total, servers }
            }
            7 => Self::InfoRequest { nonce },
            _ => Self::InfoResponse { nonce, info: ServerInfo::read(&mut r)? },
        })
    }
}

fn write_addr(w: &mut BitWriter, a: SocketAddr) {
    match a.ip() {
        IpAddr::V4(ip) => {
            w.write_flag(false);
            w.write_bytes(&ip.octets());
        }
        IpAddr::V6(ip) => {
            w.write_flag(true);
            w.write_bytes(&ip.octets());
        }
    }
    w.write_int(u32::from(a.port()), 16);
}

fn read_addr(r: &mut BitReader<'_>) -> Result<SocketAddr, WireError> {
    let ip = if r.read_flag()? {
        let mut b = [0u8; 16];
        r.read_bytes(&mut b)?;
        IpAddr::V6(Ipv6Addr::from(b))
    } else {
        let mut b = [0u8; 4];
        r.read_bytes(&mut b)?;
        IpAddr::V4(Ipv4Addr::from(b))
    };
    Ok(SocketAddr::new(ip, r.read_int(16)? as u16))
}

/// Bits an address takes in a list page.
pub(crate) fn addr_bits(a: &SocketAddr) -> usize {
    if a.is_ipv4() { 1 + 32 + 16 } else { 1 + 128 + 16 }
}

/// Bits available for addresses in one list page.
pub(crate) const PAGE_ADDR_BITS: usize = (MAX_DATAGRAM - PAGE_HEADER_BYTES) * 8;

/// A game server's answer to an info request, or `None` when the datagram is not one (the
/// host then treats it as it would otherwise). Stateless: nothing is stored, whoever the
/// source claims to be, and the answer is never larger than the request.
pub fn answer_info_request(datagram: &[u8], info: &ServerInfo) -> Option<Vec<u8>> {
    match Message::decode(datagram) {
        Ok(Message::InfoRequest { nonce }) if datagram.len() >= INFO_REQUEST_BYTES => {
            let reply = Message::InfoResponse { nonce, info: info.clipped() }.encode();
            (reply.len() <= datagram.len()).then_some(reply)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ServerInfo {
        ServerInfo {
            name: "Tribes Server".into(),
            mission: "Katabatic".into(),
            game_type: "CTF".into(),
            players: 12,
            max_players: 32,
            bots: 2,
            version: 7,
            password: true,
            dedicated: true,
            region: 3,
        }
    }

    #[test]
    fn every_message_round_trips() {
        let msgs = [
            Message::Heartbeat { nonce: 1, token: 2, info: info() },
            Message::Goodbye { nonce: 3, token: 4 },
            Message::HeartbeatAck { nonce: 5, token: 6, period_s: 30 },
            Message::Challenge { nonce: 7, token: 8 },
            Message::Query {
                nonce: 9,
                token: 10,
                filter: Filter { not_full: true, ..Filter::default() },
                page: 2,
            },
            Message::ListPage {
                nonce: 11,
                page: 0,
                pages: 1,
                total: 2,
                servers: vec!["127.0.0.1:28001".parse().unwrap(), "[::1]:5".parse().unwrap()],
            },
            Message::InfoRequest { nonce: 12 },
            Message::InfoResponse { nonce: 13, info: info() },
        ];
        for m in msgs {
            let bytes = m.encode();
            assert_eq!(bytes[0], INFO_PACKET_PREFIX);
            assert!(bytes.len() <= MAX_DATAGRAM);
            assert_eq!(Message::decode(&bytes).unwrap(), m);
        }
    }

    #[test]
    fn a_challenge_is_smaller_than_any_request_that_provokes_it() {
        let c = Message::Challenge { nonce: u64::MAX, token: u64::MAX }.encode();
        let q = Message::Query { nonce: 0, token: 0, filter: Filter::default(), page: ALL_PAGES }.encode();
        let g = Message::Goodbye { nonce: 0, token: 0 }.encode();
        assert!(c.len() <= q.len() && c.len() <= g.len(), "{} {} {}", c.len(), q.len(), g.len());
        let short = &q[..MIN_REQUEST_BYTES - 1];
        assert!(matches!(Message::decode(short), Err(WireError::Short { .. })));
    }

    #[test]
    fn a_full_page_of_ipv4_addresses_fits_the_mtu() {
        let servers: Vec<SocketAddr> = (0..SERVERS_PER_PAGE)
            .map(|i| SocketAddr::from(([10, 0, (i / 256) as u8, i as u8], 28000)))
            .collect();
        let bytes = Message::ListPage { nonce: 0, page: 0, pages: 1, total: 1, servers }.encode();
        assert!(bytes.len() <= MAX_DATAGRAM, "{}", bytes.len());
    }

    #[test]
    fn an_info_answer_never_exceeds_the_request() {
        let long = ServerInfo {
            name: "n".repeat(500),
            mission: "m".repeat(500),
            game_type: "g".repeat(500),
            ..info()
        };
        let req = Message::InfoRequest { nonce: 1 }.encode();
        assert_eq!(req.len(), INFO_REQUEST_BYTES);
        let reply = answer_info_request(&req, &long).unwrap();
        assert!(reply.len() <= req.len(), "{} > {}", reply.len(), req.len());
        let Message::InfoResponse { info: got, .. } = Message::decode(&reply).unwrap() else { panic!() };
        assert_eq!(got.name.len(), crate::info::MAX_NAME);
        // A request that is not padded gets nothing.
        assert!(answer_info_request(&req[..40], &long).is_none());
    }

    #[test]
    fn a_lying_address_count_is_refused_without_allocating() {
        let mut bytes = Message::ListPage { nonce: 0, page: 0, pages: 1, total: 0, servers: vec![] }.encode();
        // The count field sits after prefix, kind, nonce, page, pages and total.
        bytes[2 + 8 + 2 + 2 + 4] = 0xFF;
        bytes[2 + 8 + 2 + 2 + 4 + 1] = 0xFF;
        assert!(Message::decode(&bytes).is_err());
    }
}
