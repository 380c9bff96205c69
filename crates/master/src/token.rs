//! Stateless challenge tokens: a keyed SipHash-1-3 (128-bit key from the OS) of the sender's
//! address and the current time bucket. The master keeps nothing for an unverified sender;
//! a token proves the sender receives datagrams at the address it claims. Tokens of the
//! current and the previous bucket are accepted, so a token lives one to two buckets.

use siphasher::sip::SipHasher13;
use std::hash::Hasher;
use std::net::SocketAddr;

/// Length of a token's time bucket (ms).
pub const BUCKET_MS: u64 = 60_000;

/// A random nonce from the operating system (falling back to the clock if it has none):
/// nonces only tell our answers from strays and spoofs, they are no key material.
pub fn random_nonce() -> u64 {
    let mut b = [0u8; 8];
    match getrandom::fill(&mut b) {
        Ok(()) => u64::from_le_bytes(b),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
    }
}

/// Mints and checks tokens with one secret key.
#[derive(Clone)]
pub struct TokenMinter {
    key: [u8; 16],
}

impl std::fmt::Debug for TokenMinter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenMinter(..)")
    }
}

impl TokenMinter {
    /// A minter with a key from the operating system's random source.
    pub fn from_os() -> std::io::Result<Self> {
        let mut key = [0u8; 16];
        getrandom::fill(&mut key).map_err(|e| std::io::Error::other(format!("getrandom: {e}")))?;
        Ok(Self { key })
    }

    /// A minter with a given key (tests and benchmarks).
    pub fn with_key(key: [u8; 16]) -> Self {
        Self { key }
    }

    fn mac(&self, addr: SocketAddr, bucket: u64) -> u64 {
        let mut h = SipHasher13::new_with_key(&self.key);
        match addr {
            SocketAddr::V4(a) => h.write(&a.ip().octets()),
            SocketAddr::V6(a) => h.write(&a.ip().octets()),
        }
        h.write_u16(addr.port());
        h.write_u64(bucket);
        // 0 means "no token" on the wire.
        h.finish().max(1)
    }

    /// The token for `addr` now.
    pub fn token(&self, addr: SocketAddr, now_ms: u64) -> u64 {
        self.mac(addr, now_ms / BUCKET_MS)
    }

    /// Did we give `token` to `addr` in this bucket or the previous one?
    pub fn verify(&self, addr: SocketAddr, token: u64, now_ms: u64) -> bool {
        if token == 0 {
            return false;
        }
        let b = now_ms / BUCKET_MS;
        token == self.mac(addr, b) || (b > 0 && token == self.mac(addr, b - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_bound_to_its_address_and_lives_two_buckets() {
        let m = TokenMinter::with_key([7; 16]);
        let a: SocketAddr = "10.0.0.1:28001".parse().unwrap();
        let b: SocketAddr = "10.0.0.1:28002".parse().unwrap();
        let t = m.token(a, 1_000);
        assert!(m.verify(a, t, 1_000));
        assert!(m.verify(a, t, BUCKET_MS + 5));
        assert!(!m.verify(a, t, 2 * BUCKET_MS + 5));
        assert!(!m.verify(b, t, 1_000));
        assert!(!m.verify(a, 0, 1_000));
        let other = TokenMinter::with_key([8; 16]);
        assert!(!other.verify(a, t, 1_000), "a restarted master (new key) refuses old tokens");
    }
}
