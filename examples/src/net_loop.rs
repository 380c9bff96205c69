//! What every real-UDP example loop shares: the port type, how a loop sleeps without spinning,
//! and the server key material.

use std::io;
use std::time::Duration;

use v12_platform::{Clock, LinkConditioner, SystemClock, UdpTransport};
use v12_sim::NetDriver;

/// A real UDP port behind the link conditioner.
pub type Port = LinkConditioner<UdpTransport>;

/// Longest sleep in a loop, so timers fire on time.
pub const MAX_WAIT: Duration = Duration::from_millis(4);

/// Sleeps until a datagram arrives or the driver's next timer is due (at most [`MAX_WAIT`]).
pub fn wait(driver: &NetDriver<Port>, clock: &SystemClock) -> io::Result<()> {
    let now = clock.now_ms();
    let wait = driver
        .next_wakeup(now)
        .map_or(MAX_WAIT, |t| Duration::from_millis(t.saturating_sub(now)).min(MAX_WAIT));
    if !wait.is_zero() {
        driver.transport.inner().wait_readable(wait)?;
    }
    Ok(())
}

/// Key material for a `NetInterface`: the challenge-token MAC key and the nonce seed. On a real
/// server they must be unpredictable, so they come from the operating system's random source
/// (`getrandom`). `seed` and `who` are mixed in only if the OS has none (then the process's
/// random hasher keys stand in, with a warning).
pub fn entropy(seed: u64, who: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    if getrandom::fill(&mut out).is_ok() {
        return out;
    }
    tracing::warn!("no OS random source: deriving the handshake keys from hasher seeds");
    use std::hash::{BuildHasher, Hasher};
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(seed ^ who.rotate_left(17) ^ i as u64);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn handshake_keys_come_from_the_os_and_differ_every_time() {
        let (a, b) = (super::entropy(1, 1), super::entropy(1, 1));
        assert_ne!(a, b, "same seed, different keys: they are not derived from the seed");
        assert_ne!(a, [0u8; 32]);
    }
}
