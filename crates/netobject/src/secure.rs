//! Optional authenticated encryption of a connection, as TNL offered it (a key exchange in
//! the handshake, a symmetric cipher on every packet).
//!
//! - Key exchange: each side makes an ephemeral X25519 key pair for this connection; the
//!   client's public key rides in its connect request, the server's in its accept.
//! - Keys: HKDF-SHA256 over the shared secret, salted with the client's nonce and (when a
//!   matchmaker issued one) the connect token's key, and bound to both public keys, gives
//!   one ChaCha20-Poly1305 key per direction. Mixing the token key in means a man in the
//!   middle without the token's key cannot derive them.
//! - Packets: a sealed datagram is a 4-byte header (`counter << 1 | 1`, little-endian: the
//!   low bit marks a connected packet as the notify prefix does) and the AEAD ciphertext of
//!   the plain packet with its 16-byte tag; the counter is the nonce and the header the
//!   associated data. A datagram that does not open is dropped and counted: a spoofed
//!   datagram can never end or disturb the connection. Counters seen before (a 64-packet
//!   window) are dropped too, so a replayed datagram is nothing.

use bytes::Bytes;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, KeyInit, Nonce};
use hkdf::Hkdf;
use sha2::Sha256;
use x25519_dalek::{PublicKey, StaticSecret};

/// Bytes a sealed packet adds to the plain one: the 4-byte counter header and the tag.
pub const SEAL_OVERHEAD: usize = HEADER_BYTES + TAG_BYTES;
const HEADER_BYTES: usize = 4;
const TAG_BYTES: usize = 16;
/// Packets one direction may seal under one key (the counter has 31 bits): at 30 packets a
/// second that is over two years; past it the connection ends rather than reuse a nonce.
pub const MAX_PACKETS: u32 = (1 << 31) - 1;
const REPLAY_WINDOW: u32 = 64;

/// Whether connections are encrypted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Encryption {
    /// Plain packets: a client offers no key, a server ignores offered keys.
    #[default]
    Off,
    /// A client offers a key and encrypts if the server answers with one; a server encrypts
    /// every connection whose client offered a key and accepts plain ones too.
    On,
    /// As `On`, but a plain connection is refused on either side.
    Required,
}

/// One side's ephemeral X25519 key pair for one connection attempt.
#[derive(Clone)]
pub struct KeyExchange {
    secret: StaticSecret,
    public: [u8; 32],
}

impl std::fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyExchange").field("public", &self.public).finish_non_exhaustive()
    }
}

/// What both ends bind the keys to.
#[derive(Debug, Clone, Copy)]
pub struct KeyContext<'a> {
    /// The client's nonce (both ends know it from the handshake).
    pub client_nonce: u64,
    /// The connect token's key, when the connection presented one.
    pub token_key: Option<&'a [u8; 32]>,
    /// The client's public key.
    pub client_public: [u8; 32],
    /// The server's public key.
    pub server_public: [u8; 32],
}

impl KeyExchange {
    /// A key pair from 32 secret random bytes (from a cryptographic generator).
    pub fn from_random(bytes: [u8; 32]) -> Self {
        let secret = StaticSecret::from(bytes);
        let public = PublicKey::from(&secret).to_bytes();
        Self { secret, public }
    }

    /// The public half, sent to the peer.
    pub fn public(&self) -> [u8; 32] {
        self.public
    }

    /// The packet keys for this connection, given the peer's public key; `None` when the
    /// peer's key is a low-order point (the shared secret would be known to anyone).
    pub fn finish(
        &self,
        peer_public: [u8; 32],
        is_server: bool,
        ctx: &KeyContext<'_>,
    ) -> Option<PacketCrypto> {
        let shared = self.secret.diffie_hellman(&PublicKey::from(peer_public));
        if !shared.was_contributory() {
            return None;
        }
        let mut salt = [0u8; 40];
        salt[..8].copy_from_slice(&ctx.client_nonce.to_le_bytes());
        if let Some(k) = ctx.token_key {
            salt[8..].copy_from_slice(k);
        }
        let mut info = Vec::with_capacity(19 + 64);
        info.extend_from_slice(b"V12 connection keys");
        info.extend_from_slice(&ctx.client_public);
        info.extend_from_slice(&ctx.server_public);
        let mut okm = [0u8; 64];
        Hkdf::<Sha256>::new(Some(&salt), shared.as_bytes()).expand(&info, &mut okm).ok()?;
        let (c2s, s2c) = okm.split_at(32);
        let (send, recv) = if is_server { (s2c, c2s) } else { (c2s, s2c) };
        Some(PacketCrypto::new(send, recv))
    }
}

/// Why a sealed datagram was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenError {
    /// Shorter than a header and a tag.
    Short,
    /// The tag does not match: forged, corrupted or for another connection.
    Forged,
    /// A counter already seen or older than the replay window.
    Replayed,
}

/// The per-direction ciphers and counters of an encrypted connection.
pub struct PacketCrypto {
    send: ChaCha20Poly1305,
    recv: ChaCha20Poly1305,
    next_send: u32,
    /// Highest counter opened, and a bit per counter in the 64 below it (bit 0: highest).
    highest: Option<u32>,
    seen: u64,
}

impl std::fmt::Debug for PacketCrypto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PacketCrypto")
            .field("next_send", &self.next_send)
            .field("highest", &self.highest)
            .finish_non_exhaustive()
    }
}

fn nonce(counter: u32) -> Nonce {
    let mut n = [0u8; 12];
    n[..4].copy_from_slice(&counter.to_le_bytes());
    Nonce::from(n)
}

impl PacketCrypto {
    /// Ciphers from a 32-byte key for each direction.
    pub fn new(send_key: &[u8], recv_key: &[u8]) -> Self {
        let key = |k: &[u8]| {
            let mut b = [0u8; 32];
            b.copy_from_slice(&k[..32]);
            ChaCha20Poly1305::new(&Key::from(b))
        };
        Self { send: key(send_key), recv: key(recv_key), next_send: 0, highest: None, seen: 0 }
    }

    /// Seals a plain packet; `None` once [`MAX_PACKETS`] were sealed (end the connection).
    pub fn seal(&mut self, plain: &[u8]) -> Option<Bytes> {
        if self.next_send >= MAX_PACKETS {
            return None;
        }
        let counter = self.next_send;
        self.next_send += 1;
        let header = ((counter << 1) | 1).to_le_bytes();
        let sealed = self.send.encrypt(&nonce(counter), Payload { msg: plain, aad: &header }).ok()?;
        let mut out = Vec::with_capacity(HEADER_BYTES + sealed.len());
        out.extend_from_slice(&header);
        out.extend_from_slice(&sealed);
        Some(Bytes::from(out))
    }

    /// Opens a sealed datagram: the plain packet, or why it was dropped. Only a datagram
    /// that opens moves the replay window.
    pub fn open(&mut self, data: &[u8]) -> Result<Vec<u8>, OpenError> {
        if data.len() < SEAL_OVERHEAD {
            return Err(OpenError::Short);
        }
        let (header, body) = data.split_at(HEADER_BYTES);
        let word = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
        let counter = word >> 1;
        if self.is_replay(counter) {
            return Err(OpenError::Replayed);
        }
        let plain = self
            .recv
            .decrypt(&nonce(counter), Payload { msg: body, aad: header })
            .map_err(|_| OpenError::Forged)?;
        self.mark(counter);
        Ok(plain)
    }

    fn is_replay(&self, counter: u32) -> bool {
        match self.highest {
            None => false,
            Some(h) if counter > h => false,
            Some(h) => h - counter >= REPLAY_WINDOW || self.seen & (1 << (h - counter)) != 0,
        }
    }

    fn mark(&mut self, counter: u32) {
        match self.highest {
            Some(h) if counter <= h => self.seen |= 1 << (h - counter),
            Some(h) => {
                let shift = counter - h;
                self.seen = if shift >= REPLAY_WINDOW { 1 } else { (self.seen << shift) | 1 };
                self.highest = Some(counter);
            }
            None => {
                self.seen = 1;
                self.highest = Some(counter);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(token: Option<&[u8; 32]>) -> (PacketCrypto, PacketCrypto) {
        let c = KeyExchange::from_random([1; 32]);
        let s = KeyExchange::from_random([2; 32]);
        let ctx = KeyContext {
            client_nonce: 9,
            token_key: token,
            client_public: c.public(),
            server_public: s.public(),
        };
        (c.finish(s.public(), false, &ctx).unwrap(), s.finish(c.public(), true, &ctx).unwrap())
    }

    #[test]
    fn sealed_packets_open_on_the_other_side_only() {
        let (mut c, mut s) = pair(None);
        let p = c.seal(b"\x01hello").unwrap();
        assert_eq!(p.len(), 6 + SEAL_OVERHEAD);
        assert_eq!(p[0] & 1, 1, "a sealed packet is a connected packet");
        assert_eq!(s.open(&p).unwrap(), b"\x01hello");
        assert_eq!(s.open(&p), Err(OpenError::Replayed), "a replay is dropped");
        // Our own direction's key does not open it: the keys differ per direction.
        let mine = c.seal(b"x").unwrap();
        assert_eq!(c.open(&mine), Err(OpenError::Forged));
        let back = s.seal(b"world").unwrap();
        assert_eq!(c.open(&back).unwrap(), b"world");
    }

    #[test]
    fn any_change_is_refused() {
        let (mut c, mut s) = pair(None);
        let p = c.seal(b"packet body").unwrap();
        for i in 0..p.len() {
            let mut bad = p.to_vec();
            bad[i] ^= 0x40;
            assert!(s.open(&bad).is_err(), "byte {i} flipped still opened");
        }
        assert_eq!(s.open(&p[..10]), Err(OpenError::Short));
        assert!(s.open(&p).is_ok());
    }

    #[test]
    fn the_token_key_changes_the_keys() {
        let (mut c, _) = pair(Some(&[7; 32]));
        let (_, mut s) = pair(None);
        assert_eq!(s.open(&c.seal(b"x").unwrap()), Err(OpenError::Forged));
    }

    #[test]
    fn reordering_within_the_window_is_fine() {
        let (mut c, mut s) = pair(None);
        let packets: Vec<_> = (0..100).map(|i| c.seal(&[i as u8]).unwrap()).collect();
        assert!(s.open(&packets[5]).is_ok());
        assert!(s.open(&packets[3]).is_ok(), "late but inside the window");
        assert!(s.open(&packets[99]).is_ok());
        assert_eq!(s.open(&packets[10]), Err(OpenError::Replayed), "older than the window");
        assert_eq!(s.open(&packets[99]), Err(OpenError::Replayed));
        assert!(s.open(&packets[98]).is_ok());
    }

    #[test]
    fn a_low_order_peer_key_is_refused() {
        let c = KeyExchange::from_random([1; 32]);
        let ctx = KeyContext {
            client_nonce: 1,
            token_key: None,
            client_public: c.public(),
            server_public: [0; 32],
        };
        assert!(c.finish([0; 32], false, &ctx).is_none());
    }
}
