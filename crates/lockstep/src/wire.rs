//! Small bit-level helpers shared by the message codecs: bounded lists and byte blobs.

use crate::error::{LockstepError, Result};
use v12_bitstream::{BitReader, BitWriter};

/// Writes a count that the reader checks against `max` (`bits` wide).
pub(crate) fn write_count(w: &mut BitWriter, n: usize, bits: u32) {
    w.write_int(n as u32, bits);
}

/// Reads a count and refuses it above `max`.
pub(crate) fn read_count(r: &mut BitReader<'_>, bits: u32, max: usize, what: &'static str) -> Result<usize> {
    let n = r.read_int(bits)? as usize;
    if n > max {
        return Err(LockstepError::TooLong { what, len: n, max });
    }
    Ok(n)
}

/// Writes a byte blob (16-bit length); longer blobs are cut, which callers avoid by budget.
pub(crate) fn write_blob(w: &mut BitWriter, b: &[u8]) {
    let n = b.len().min(v12_bitstream::MAX_BYTE_SLICE_LEN);
    // Cannot fail: the length is within the limit.
    let _ = w.write_byte_slice(&b[..n]);
}

/// Reads a byte blob.
pub(crate) fn read_blob(r: &mut BitReader<'_>) -> Result<Vec<u8>> {
    Ok(r.read_byte_slice()?)
}

/// Writes a short UTF-8 name (at most 255 bytes).
pub(crate) fn write_name(w: &mut BitWriter, s: &str) {
    let mut end = s.len().min(255);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let b = &s.as_bytes()[..end];
    w.write_int(b.len() as u32, 8);
    w.write_bytes(b);
}

/// Reads a name written by [`write_name`].
pub(crate) fn read_name(r: &mut BitReader<'_>) -> Result<String> {
    let n = r.read_int(8)? as usize;
    if n * 8 > r.bits_left() {
        return Err(LockstepError::Invalid("name longer than the message"));
    }
    let mut b = vec![0; n];
    r.read_bytes(&mut b)?;
    String::from_utf8(b).map_err(|_| LockstepError::Invalid("name is not UTF-8"))
}

/// Writes a socket address (IPv4 or IPv6 with port).
pub(crate) fn write_addr(w: &mut BitWriter, a: &std::net::SocketAddr) {
    match a {
        std::net::SocketAddr::V4(v4) => {
            w.write_flag(false);
            w.write_bytes(&v4.ip().octets());
        }
        std::net::SocketAddr::V6(v6) => {
            w.write_flag(true);
            w.write_bytes(&v6.ip().octets());
        }
    }
    w.write_int(u32::from(a.port()), 16);
}

/// Reads an address written by [`write_addr`].
pub(crate) fn read_addr(r: &mut BitReader<'_>) -> Result<std::net::SocketAddr> {
    let ip: std::net::IpAddr = if r.read_flag()? {
        let mut o = [0u8; 16];
        r.read_bytes(&mut o)?;
        std::net::Ipv6Addr::from(o).into()
    } else {
        let mut o = [0u8; 4];
        r.read_bytes(&mut o)?;
        std::net::Ipv4Addr::from(o).into()
    };
    let port = r.read_int(16)? as u16;
    Ok(std::net::SocketAddr::new(ip, port))
}

/// Reads a player id (8 bits, never 0).
pub(crate) fn read_player(r: &mut BitReader<'_>) -> Result<u8> {
    let p = r.read_int(8)? as u8;
    if p == 0 {
        return Err(LockstepError::Invalid("player id 0"));
    }
    Ok(p)
}
