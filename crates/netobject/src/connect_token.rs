//! Connect tokens, after netcode.io: a matchmaker that shares a secret key with the game
//! servers vouches for a client, so only clients it authorised get in.
//!
//! The matchmaker issues a token for a client id, valid until a time, with a little user
//! data (an account or team), and gives the client two things over its own secure channel
//! (HTTPS): the sealed token, opaque to the client, and the token's key. The client
//! presents the sealed token in its connect request; the server opens it with the shared
//! key, checks the expiry and that no live connection uses the same client id, and both
//! ends mix the token's key into the connection's packet keys ([`crate::secure`]), so a
//! stolen sealed token without its key cannot hold a connection.
//!
//! Sealed format: a version byte (1), a 24-byte random nonce, then the XChaCha20-Poly1305
//! ciphertext (associated data: the version byte) of client id (u64 LE), expiry (Unix
//! seconds, u64 LE), the token key (32 bytes), the user data length (1 byte) and the data.

use bytes::Bytes;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{Key, KeyInit, XChaCha20Poly1305, XNonce};
use rand_core::CryptoRng;

const VERSION: u8 = 1;
/// Longest user data a token carries.
pub const MAX_USER_DATA: usize = 64;
/// Longest sealed token.
pub const MAX_SEALED: usize = 1 + 24 + 8 + 8 + 32 + 1 + MAX_USER_DATA + 16;

/// What a matchmaker vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectToken {
    /// The client's id in the matchmaker's eyes; one live connection per id.
    pub client_id: u64,
    /// When the token stops being accepted (Unix time, seconds).
    pub expires_unix_s: u64,
    /// Up to [`MAX_USER_DATA`] bytes for the game (longer is cut).
    pub user_data: Vec<u8>,
}

/// A token as the client receives it from the matchmaker.
#[derive(Clone, PartialEq, Eq)]
pub struct IssuedToken {
    /// The sealed token, presented to the server as is.
    pub sealed: Bytes,
    /// The token's key, known to the client and (inside the sealed token) the server.
    pub key: [u8; 32],
}

impl std::fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedToken").field("sealed_len", &self.sealed.len()).finish_non_exhaustive()
    }
}

/// Why a presented token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnectTokenError {
    /// Not sealed with this server's key, altered, or malformed.
    Invalid,
    /// Past its expiry.
    Expired,
}

impl std::fmt::Display for ConnectTokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Invalid => "connect token invalid",
            Self::Expired => "connect token expired",
        })
    }
}

impl ConnectToken {
    /// Seals this token under the servers' shared key (matchmaker side). `rng` must be a
    /// cryptographic generator: it makes the nonce and the token key.
    pub fn issue(&self, server_key: &[u8; 32], rng: &mut impl CryptoRng) -> IssuedToken {
        let mut nonce = [0u8; 24];
        rng.fill_bytes(&mut nonce);
        let mut key = [0u8; 32];
        rng.fill_bytes(&mut key);
        let data = &self.user_data[..self.user_data.len().min(MAX_USER_DATA)];
        let mut plain = Vec::with_capacity(49 + data.len());
        plain.extend_from_slice(&self.client_id.to_le_bytes());
        plain.extend_from_slice(&self.expires_unix_s.to_le_bytes());
        plain.extend_from_slice(&key);
        plain.push(data.len() as u8);
        plain.extend_from_slice(data);
        let cipher = XChaCha20Poly1305::new(&Key::from(*server_key));
        let sealed = cipher
            .encrypt(&XNonce::from(nonce), Payload { msg: &plain, aad: &[VERSION] })
            .unwrap_or_default();
        let mut out = Vec::with_capacity(25 + sealed.len());
        out.push(VERSION);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        IssuedToken { sealed: Bytes::from(out), key }
    }

    /// Opens a sealed token (server side) and checks it against `now_unix_s`: the token and
    /// its key.
    pub fn open(
        server_key: &[u8; 32],
        sealed: &[u8],
        now_unix_s: u64,
    ) -> Result<(ConnectToken, [u8; 32]), ConnectTokenError> {
        if sealed.len() < 25 + 49 + 16 || sealed.len() > MAX_SEALED || sealed[0] != VERSION {
            return Err(ConnectTokenError::Invalid);
        }
        let (head, body) = sealed.split_at(25);
        let mut nonce = [0u8; 24];
        nonce.copy_from_slice(&head[1..]);
        let cipher = XChaCha20Poly1305::new(&Key::from(*server_key));
        let plain = cipher
            .decrypt(&XNonce::from(nonce), Payload { msg: body, aad: &[VERSION] })
            .map_err(|_| ConnectTokenError::Invalid)?;
        let word = |i: usize| u64::from_le_bytes(plain[i..i + 8].try_into().unwrap_or_default());
        let len = usize::from(plain[48]);
        if plain.len() != 49 + len {
            return Err(ConnectTokenError::Invalid);
        }
        let token =
            ConnectToken { client_id: word(0), expires_unix_s: word(8), user_data: plain[49..].to_vec() };
        if token.expires_unix_s <= now_unix_s {
            return Err(ConnectTokenError::Expired);
        }
        let mut key = [0u8; 32];
        key.copy_from_slice(&plain[16..48]);
        Ok((token, key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha20::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn a_token_opens_with_the_servers_key_until_it_expires() {
        let mut rng = ChaCha20Rng::from_seed([3; 32]);
        let t = ConnectToken { client_id: 77, expires_unix_s: 1_000, user_data: b"team=red".to_vec() };
        let issued = t.issue(&[9; 32], &mut rng);
        assert!(issued.sealed.len() <= MAX_SEALED);
        let (opened, key) = ConnectToken::open(&[9; 32], &issued.sealed, 999).unwrap();
        assert_eq!(opened, t);
        assert_eq!(key, issued.key);
        assert_eq!(ConnectToken::open(&[9; 32], &issued.sealed, 1_000), Err(ConnectTokenError::Expired));
        assert_eq!(ConnectToken::open(&[8; 32], &issued.sealed, 0), Err(ConnectTokenError::Invalid));
        let mut bad = issued.sealed.to_vec();
        bad[30] ^= 1;
        assert_eq!(ConnectToken::open(&[9; 32], &bad, 0), Err(ConnectTokenError::Invalid));
        assert_eq!(ConnectToken::open(&[9; 32], &issued.sealed[..40], 0), Err(ConnectTokenError::Invalid));
        let again = t.issue(&[9; 32], &mut rng);
        assert_ne!(again.key, issued.key, "every token has its own key");
    }
}
