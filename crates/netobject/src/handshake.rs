//! Connection negotiation packets and the stateless challenge token.
//!
//! Every handshake datagram starts with a 0 bit (connected packets start with 1, the
//! notify protocol's prefix), then a 3-bit kind. The server answers a challenge request
//! with a token it can verify later without remembering anything: a SipHash-2-4 MAC of
//! the client's address and nonce and the time epoch, keyed by a secret derived from the
//! server's master key and that epoch. Tokens of the current and the previous epoch are
//! accepted, so secrets rotate every epoch with no stored state.

use crate::connect_token::MAX_SEALED;
use crate::error::{NetError, Result};
use crate::wire;
use bytes::Bytes;
use siphasher::sip::SipHasher24;
use siphasher::sip128::SipHasher24 as SipHasher128;
use std::hash::Hasher;
use std::net::SocketAddr;
use v12_bitstream::{BitReader, BitWriter};

/// A challenge request is padded to this size, so a response is never larger than the
/// request that provoked it (no amplification from a spoofed source).
pub const CHALLENGE_REQUEST_BYTES: usize = 32;
/// Longest reason string in a reject or disconnect.
pub const MAX_REASON: usize = 255;
/// Longest application connect data.
pub const MAX_CONNECT_DATA: usize = 256;

const KIND_BITS: u32 = 3;

/// A handshake packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handshake {
    /// Client → server: "may I connect?" (padded).
    ChallengeRequest { client_nonce: u64 },
    /// Server → client: the token to present.
    ChallengeResponse { client_nonce: u64, epoch: u32, token: u64 },
    /// Client → server: the token, versions and the application's connect data.
    ConnectRequest {
        client_nonce: u64,
        epoch: u32,
        token: u64,
        protocol_version: u32,
        class_digest: u64,
        /// Digest of the ghost classes (`GhostClassRegistry::digest`).
        ghost_digest: u64,
        connect_data: Bytes,
        /// The client's X25519 public key when it wants an encrypted connection.
        public_key: Option<[u8; 32]>,
        /// A matchmaker's sealed connect token (empty: none).
        connect_token: Bytes,
    },
    /// Server → client: accepted; with the server's public key when encrypted.
    ConnectAccept { client_nonce: u64, public_key: Option<[u8; 32]> },
    /// Server → client: refused, with a reason to show.
    ConnectReject { client_nonce: u64, reason: String },
    /// Either way: the connection is over, with a reason.
    Disconnect { client_nonce: u64, reason: String },
}

impl Handshake {
    fn kind(&self) -> u32 {
        match self {
            Self::ChallengeRequest { .. } => 0,
            Self::ChallengeResponse { .. } => 1,
            Self::ConnectRequest { .. } => 2,
            Self::ConnectAccept { .. } => 3,
            Self::ConnectReject { .. } => 4,
            Self::Disconnect { .. } => 5,
        }
    }

    /// The datagram.
    pub fn encode(&self) -> Bytes {
        let mut w = BitWriter::new();
        w.write_flag(false);
        w.write_int(self.kind(), KIND_BITS);
        match self {
            Self::ChallengeRequest { client_nonce } => {
                w.write_bits(*client_nonce, 64);
                while w.bit_position() < CHALLENGE_REQUEST_BYTES * 8 {
                    w.write_int(0, 8);
                }
            }
            Self::ChallengeResponse { client_nonce, epoch, token } => {
                w.write_bits(*client_nonce, 64);
                w.write_int(*epoch, 32);
                w.write_bits(*token, 64);
            }
            Self::ConnectRequest {
                client_nonce,
                epoch,
                token,
                protocol_version,
                class_digest,
                ghost_digest,
                connect_data,
                public_key,
                connect_token,
            } => {
                w.write_bits(*client_nonce, 64);
                w.write_int(*epoch, 32);
                w.write_bits(*token, 64);
                w.write_int(*protocol_version, 32);
                w.write_bits(*class_digest, 64);
                w.write_bits(*ghost_digest, 64);
                let data = &connect_data[..connect_data.len().min(MAX_CONNECT_DATA)];
                w.write_int(data.len() as u32, 9);
                w.write_bytes(data);
                write_key(&mut w, public_key.as_ref());
                let token = &connect_token[..connect_token.len().min(MAX_SEALED)];
                w.write_int(token.len() as u32, 8);
                w.write_bytes(token);
            }
            Self::ConnectAccept { client_nonce, public_key } => {
                w.write_bits(*client_nonce, 64);
                write_key(&mut w, public_key.as_ref());
            }
            Self::ConnectReject { client_nonce, reason } | Self::Disconnect { client_nonce, reason } => {
                w.write_bits(*client_nonce, 64);
                let mut end = reason.len().min(MAX_REASON);
                while !reason.is_char_boundary(end) {
                    end -= 1;
                }
                wire::write_str(&mut w, &reason[..end]);
            }
        }
        w.into_bytes()
    }

    /// Parses a datagram whose first bit is 0. Every field is checked.
    pub fn decode(data: &[u8]) -> Result<Self> {
        let mut r = BitReader::new(data);
        if r.read_flag()? {
            return Err(NetError::BadEvent("not a handshake packet".into()));
        }
        let kind = r.read_int(KIND_BITS)?;
        let client_nonce = r.read_bits(64)?;
        Ok(match kind {
            0 => {
                if data.len() < CHALLENGE_REQUEST_BYTES {
                    return Err(NetError::TooLong {
                        what: "short challenge request",
                        len: data.len(),
                        max: CHALLENGE_REQUEST_BYTES,
                    });
                }
                Self::ChallengeRequest { client_nonce }
            }
            1 => Self::ChallengeResponse { client_nonce, epoch: r.read_int(32)?, token: r.read_bits(64)? },
            2 => {
                let epoch = r.read_int(32)?;
                let token = r.read_bits(64)?;
                let protocol_version = r.read_int(32)?;
                let class_digest = r.read_bits(64)?;
                let ghost_digest = r.read_bits(64)?;
                let len = r.read_int(9)? as usize;
                if len > MAX_CONNECT_DATA {
                    return Err(NetError::TooLong { what: "connect data", len, max: MAX_CONNECT_DATA });
                }
                let mut buf = vec![0; len];
                r.read_bytes(&mut buf)?;
                let public_key = read_key(&mut r)?;
                let token_len = r.read_int(8)? as usize;
                if token_len > MAX_SEALED {
                    return Err(NetError::TooLong { what: "connect token", len: token_len, max: MAX_SEALED });
                }
                let mut token_buf = vec![0; token_len];
                r.read_bytes(&mut token_buf)?;
                Self::ConnectRequest {
                    client_nonce,
                    epoch,
                    token,
                    protocol_version,
                    class_digest,
                    ghost_digest,
                    connect_data: Bytes::from(buf),
                    public_key,
                    connect_token: Bytes::from(token_buf),
                }
            }
            3 => Self::ConnectAccept { client_nonce, public_key: read_key(&mut r)? },
            4 => Self::ConnectReject { client_nonce, reason: wire::read_str(&mut r, MAX_REASON)? },
            5 => Self::Disconnect { client_nonce, reason: wire::read_str(&mut r, MAX_REASON)? },
            other => return Err(NetError::BadEvent(format!("unknown handshake kind {other}"))),
        })
    }
}

fn write_key(w: &mut BitWriter, key: Option<&[u8; 32]>) {
    if w.write_flag(key.is_some())
        && let Some(k) = key
    {
        w.write_bytes(k);
    }
}

fn read_key(r: &mut BitReader<'_>) -> Result<Option<[u8; 32]>> {
    if !r.read_flag()? {
        return Ok(None);
    }
    let mut k = [0u8; 32];
    r.read_bytes(&mut k)?;
    Ok(Some(k))
}

/// The server's token minting and checking: a master key, nothing per client.
#[derive(Clone)]
pub struct TokenMinter {
    master: (u64, u64),
    epoch_ms: u64,
}

impl std::fmt::Debug for TokenMinter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenMinter").field("epoch_ms", &self.epoch_ms).finish_non_exhaustive()
    }
}

/// Why a presented token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenError {
    /// The MAC does not match (forged, or for another address or nonce).
    Invalid,
    /// Minted more than one epoch ago (or in the future).
    Stale,
}

impl TokenMinter {
    /// A minter with a secret master key; secrets rotate every `epoch_ms`.
    pub fn new(master: (u64, u64), epoch_ms: u64) -> Self {
        Self { master, epoch_ms: epoch_ms.max(1) }
    }

    /// The epoch of `now`.
    pub fn epoch(&self, now: u64) -> u32 {
        (now / self.epoch_ms) as u32
    }

    fn epoch_key(&self, epoch: u32) -> (u64, u64) {
        let h = SipHasher128::new_with_keys(self.master.0, self.master.1).hash(&epoch.to_le_bytes());
        (h.h1, h.h2)
    }

    /// The token for `addr` and `client_nonce` in `epoch`.
    pub fn token(&self, epoch: u32, addr: SocketAddr, client_nonce: u64) -> u64 {
        let (k0, k1) = self.epoch_key(epoch);
        let mut h = SipHasher24::new_with_keys(k0, k1);
        let ip = match addr.ip() {
            std::net::IpAddr::V4(v4) => v4.to_ipv6_mapped(),
            std::net::IpAddr::V6(v6) => v6,
        };
        h.write(&ip.octets());
        h.write_u16(addr.port());
        h.write_u64(client_nonce);
        h.write_u32(epoch);
        h.finish()
    }

    /// Checks a presented token: right MAC, and minted in this epoch or the one before.
    pub fn check(
        &self,
        now: u64,
        epoch: u32,
        addr: SocketAddr,
        client_nonce: u64,
        token: u64,
    ) -> std::result::Result<(), TokenError> {
        let current = self.epoch(now);
        if epoch > current || current - epoch > 1 {
            // Still tell forged from stale: a stale token with a good MAC is an honest, slow client.
            return Err(if self.token(epoch, addr, client_nonce) == token {
                TokenError::Stale
            } else {
                TokenError::Invalid
            });
        }
        if self.token(epoch, addr, client_nonce) == token { Ok(()) } else { Err(TokenError::Invalid) }
    }

    /// When tokens of `epoch` stop being accepted.
    pub fn expiry(&self, epoch: u32) -> u64 {
        (u64::from(epoch) + 2) * self.epoch_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn packets_round_trip() {
        let all = [
            Handshake::ChallengeRequest { client_nonce: 7 },
            Handshake::ChallengeResponse { client_nonce: 7, epoch: 3, token: u64::MAX },
            Handshake::ConnectRequest {
                client_nonce: 1,
                epoch: 2,
                token: 3,
                protocol_version: 4,
                class_digest: 5,
                ghost_digest: 6,
                connect_data: Bytes::from_static(b"name=Dood"),
                public_key: Some([7; 32]),
                connect_token: Bytes::from_static(b"sealed"),
            },
            Handshake::ConnectRequest {
                client_nonce: 1,
                epoch: 2,
                token: 3,
                protocol_version: 4,
                class_digest: 5,
                ghost_digest: 6,
                connect_data: Bytes::new(),
                public_key: None,
                connect_token: Bytes::new(),
            },
            Handshake::ConnectAccept { client_nonce: 9, public_key: None },
            Handshake::ConnectAccept { client_nonce: 9, public_key: Some([1; 32]) },
            Handshake::ConnectReject { client_nonce: 9, reason: "server full".into() },
            Handshake::Disconnect { client_nonce: 9, reason: "bye".into() },
        ];
        for p in all {
            let b = p.encode();
            assert_eq!(b[0] & 1, 0);
            assert_eq!(Handshake::decode(&b).unwrap(), p);
        }
        let req = Handshake::ChallengeRequest { client_nonce: 1 }.encode();
        let resp = Handshake::ChallengeResponse { client_nonce: 1, epoch: 1, token: 1 }.encode();
        assert!(resp.len() <= req.len(), "no amplification");
        assert!(Handshake::decode(&req[..20]).is_err());
    }

    #[test]
    fn tokens_bind_address_nonce_and_epoch() {
        let m = TokenMinter::new((1, 2), 10_000);
        let a = addr("10.0.0.1:5000");
        let t = m.token(m.epoch(1000), a, 42);
        assert_eq!(m.check(1000, 0, a, 42, t), Ok(()));
        assert_eq!(m.check(15_000, 0, a, 42, t), Ok(()), "previous epoch accepted");
        assert_eq!(m.check(25_000, 0, a, 42, t), Err(TokenError::Stale));
        assert_eq!(m.check(1000, 0, addr("10.0.0.1:5001"), 42, t), Err(TokenError::Invalid));
        assert_eq!(m.check(1000, 0, a, 43, t), Err(TokenError::Invalid));
        assert_eq!(m.check(1000, 0, a, 42, t ^ 1), Err(TokenError::Invalid));
        let other = TokenMinter::new((1, 3), 10_000);
        assert_eq!(other.check(1000, 0, a, 42, t), Err(TokenError::Invalid));
    }
}
