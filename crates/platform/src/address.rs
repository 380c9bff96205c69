//! `NetAddress`: V12's network address, parsed from and printed as text.
//!
//! Parsing never touches DNS (so it is fast, deterministic and usable on remote
//! text); [`NetAddress::resolve`] is the one place that may ask the resolver.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6, ToSocketAddrs};
use std::str::FromStr;

/// An IPv4 or IPv6 address with a port: where a datagram or a connection goes.
///
/// Printed as `1.2.3.4:28000` or `[::1]:28000`; that text parses back to the same value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NetAddress(SocketAddr);

/// Why a piece of text is not a [`NetAddress`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressError {
    /// Nothing to parse.
    Empty,
    /// No `:port` after the host (`1.2.3.4`, `localhost:`).
    MissingPort,
    /// The port is not a number in 0..=65535.
    BadPort(String),
    /// The host part is empty (`:28000`).
    MissingHost,
    /// An IPv6 address written without `[...]` around it, so the port cannot be told apart.
    UnbracketedIpv6,
    /// A bracketed IPv6 address that does not parse.
    BadIpv6(String),
    /// A host name that is not an IP literal, `localhost`, `broadcast` or `any`
    /// (parsing never uses DNS; see [`NetAddress::resolve`]).
    UnknownHost(String),
    /// The resolver could not find the host.
    DnsFailed(String),
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressError::Empty => write!(f, "empty network address"),
            AddressError::MissingPort => write!(f, "missing port (expected host:port)"),
            AddressError::BadPort(p) => write!(f, "bad port {p:?} (expected a number 0..=65535)"),
            AddressError::MissingHost => write!(f, "missing host before ':port'"),
            AddressError::UnbracketedIpv6 => {
                write!(f, "IPv6 address must be written in brackets, like [::1]:28000")
            }
            AddressError::BadIpv6(s) => write!(f, "bad IPv6 address {s:?}"),
            AddressError::UnknownHost(h) => write!(f, "unknown host {h:?} (not an IP address or localhost)"),
            AddressError::DnsFailed(h) => write!(f, "DNS lookup of {h:?} failed"),
        }
    }
}

impl std::error::Error for AddressError {}

/// Split `host:port` text into its parts, with the port checked. The host is
/// returned without brackets for IPv6.
fn split_host_port(text: &str) -> Result<(&str, u16, bool), AddressError> {
    let text = text.trim();
    let text = strip_ip_prefix(text);
    if text.is_empty() {
        return Err(AddressError::Empty);
    }
    if let Some(rest) = text.strip_prefix('[') {
        let Some(close) = rest.find(']') else {
            return Err(AddressError::BadIpv6(text.to_string()));
        };
        let host = &rest[..close];
        let after = &rest[close + 1..];
        let Some(port) = after.strip_prefix(':') else {
            return Err(AddressError::MissingPort);
        };
        return Ok((host, parse_port(port)?, true));
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        // "IP:28000" style: a bare port means any local address.
        return Ok(("", parse_port(text)?, false));
    }
    let Some(colon) = text.rfind(':') else {
        return Err(AddressError::MissingPort);
    };
    let (host, port) = (&text[..colon], &text[colon + 1..]);
    if host.contains(':') {
        return Err(AddressError::UnbracketedIpv6);
    }
    if host.is_empty() {
        return Err(AddressError::MissingHost);
    }
    Ok((host, parse_port(port)?, false))
}

fn strip_ip_prefix(text: &str) -> &str {
    match text.get(..3) {
        Some(p) if p.eq_ignore_ascii_case("ip:") => &text[3..],
        _ => text,
    }
}

fn parse_port(port: &str) -> Result<u16, AddressError> {
    if port.is_empty() {
        return Err(AddressError::MissingPort);
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AddressError::BadPort(port.to_string()));
    }
    port.parse::<u16>().map_err(|_| AddressError::BadPort(port.to_string()))
}

/// Hosts every build knows without a resolver.
fn well_known_host(host: &str) -> Option<IpAddr> {
    if host.is_empty() || host.eq_ignore_ascii_case("any") {
        Some(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
    } else if host.eq_ignore_ascii_case("localhost") {
        Some(IpAddr::V4(Ipv4Addr::LOCALHOST))
    } else if host.eq_ignore_ascii_case("broadcast") {
        Some(IpAddr::V4(Ipv4Addr::BROADCAST))
    } else {
        None
    }
}

impl NetAddress {
    /// An address from an IP and a port.
    pub fn new(ip: IpAddr, port: u16) -> Self {
        NetAddress(SocketAddr::new(ip, port))
    }

    /// `127.0.0.1:port`.
    pub fn localhost(port: u16) -> Self {
        Self::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
    }

    /// `[::1]:port`.
    pub fn localhost_v6(port: u16) -> Self {
        Self::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port)
    }

    /// `0.0.0.0:port`: every local IPv4 interface (for binding).
    pub fn any(port: u16) -> Self {
        Self::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), port)
    }

    /// Parse like [`FromStr`], but look up host names that are not IP literals
    /// with the system resolver (blocking). IPv4 results are preferred.
    pub fn resolve(text: &str) -> Result<NetAddress, AddressError> {
        let (host, port, bracketed) = split_host_port(text)?;
        if let Some(addr) = literal(host, port, bracketed)? {
            return Ok(addr);
        }
        let found: Vec<SocketAddr> =
            (host, port).to_socket_addrs().map_err(|_| AddressError::DnsFailed(host.to_string()))?.collect();
        found
            .iter()
            .find(|a| a.is_ipv4())
            .or_else(|| found.first())
            .map(|a| NetAddress(*a))
            .ok_or_else(|| AddressError::DnsFailed(host.to_string()))
    }

    /// True when [`NetAddress::from_str`] accepts the host part without DNS
    /// (an IP literal or a well-known name).
    pub fn is_literal(text: &str) -> bool {
        text.parse::<NetAddress>().is_ok()
    }

    /// The IP part.
    pub fn ip(&self) -> IpAddr {
        self.0.ip()
    }

    /// The port part.
    pub fn port(&self) -> u16 {
        self.0.port()
    }

    /// The same host with another port.
    pub fn with_port(mut self, port: u16) -> Self {
        self.0.set_port(port);
        self
    }

    /// The std form, for APIs that need it.
    pub fn socket_addr(&self) -> SocketAddr {
        self.0
    }
}

/// An address for an IP literal or well-known host, `None` for a name that needs DNS.
fn literal(host: &str, port: u16, bracketed: bool) -> Result<Option<NetAddress>, AddressError> {
    if bracketed {
        let addr = SocketAddrV6::from_str(&format!("[{host}]:{port}"))
            .map_err(|_| AddressError::BadIpv6(host.to_string()))?;
        return Ok(Some(NetAddress(SocketAddr::V6(addr))));
    }
    if let Some(ip) = well_known_host(host) {
        return Ok(Some(NetAddress::new(ip, port)));
    }
    match host.parse::<Ipv4Addr>() {
        Ok(ip) => Ok(Some(NetAddress::new(IpAddr::V4(ip), port))),
        Err(_) => Ok(None),
    }
}

impl FromStr for NetAddress {
    type Err = AddressError;

    /// Accepts `1.2.3.4:28000`, `localhost:28000`, `[::1]:28000`, `broadcast:28000`,
    /// `any:0`, an optional V12-style `IP:` prefix (`IP:1.2.3.4:28000`) and
    /// `IP:28000` (any address, that port). Never uses DNS.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (host, port, bracketed) = split_host_port(text)?;
        literal(host, port, bracketed)?.ok_or_else(|| AddressError::UnknownHost(host.to_string()))
    }
}

impl fmt::Display for NetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            SocketAddr::V4(a) => write!(f, "{}:{}", a.ip(), a.port()),
            // Flow info is not printed (it does not survive text); the scope id is.
            SocketAddr::V6(a) if a.scope_id() != 0 => {
                write!(f, "[{}%{}]:{}", a.ip(), a.scope_id(), a.port())
            }
            SocketAddr::V6(a) => write!(f, "[{}]:{}", a.ip(), a.port()),
        }
    }
}

impl From<SocketAddr> for NetAddress {
    fn from(addr: SocketAddr) -> Self {
        NetAddress(addr)
    }
}

impl From<NetAddress> for SocketAddr {
    fn from(addr: NetAddress) -> Self {
        addr.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_usual_forms() {
        assert_eq!("1.2.3.4:28000".parse::<NetAddress>().unwrap().to_string(), "1.2.3.4:28000");
        assert_eq!("localhost:28000".parse::<NetAddress>().unwrap(), NetAddress::localhost(28000));
        assert_eq!("LocalHost:1".parse::<NetAddress>().unwrap(), NetAddress::localhost(1));
        assert_eq!("[::1]:28000".parse::<NetAddress>().unwrap(), NetAddress::localhost_v6(28000));
        assert_eq!("IP:1.2.3.4:5".parse::<NetAddress>().unwrap().to_string(), "1.2.3.4:5");
        assert_eq!("IP:0".parse::<NetAddress>().unwrap(), NetAddress::any(0));
        assert_eq!("any:7".parse::<NetAddress>().unwrap(), NetAddress::any(7));
        assert_eq!("broadcast:28000".parse::<NetAddress>().unwrap().to_string(), "255.255.255.255:28000");
        assert_eq!(" 10.0.0.1:65535 ".parse::<NetAddress>().unwrap().port(), 65535);
    }

    #[test]
    fn junk_says_why() {
        let e = |s: &str| s.parse::<NetAddress>().unwrap_err();
        assert_eq!(e(""), AddressError::Empty);
        assert_eq!(e("1.2.3.4"), AddressError::MissingPort);
        assert_eq!(e("1.2.3.4:"), AddressError::MissingPort);
        assert_eq!(e("[::1]"), AddressError::MissingPort);
        assert_eq!(e("1.2.3.4:65536"), AddressError::BadPort("65536".into()));
        assert_eq!(e("1.2.3.4:-1"), AddressError::BadPort("-1".into()));
        assert_eq!(e("1.2.3.4:http"), AddressError::BadPort("http".into()));
        assert_eq!(e(":28000"), AddressError::MissingHost);
        assert_eq!(e("::1:28000"), AddressError::UnbracketedIpv6);
        assert_eq!(e("[zz::1]:2"), AddressError::BadIpv6("zz::1".into()));
        assert_eq!(e("[::1:2"), AddressError::BadIpv6("[::1:2".into()));
        assert_eq!(e("example.invalid:1"), AddressError::UnknownHost("example.invalid".into()));
        assert_eq!(e("1.2.3:1"), AddressError::UnknownHost("1.2.3".into()));
        assert!(e("1.2.3.4:70000").to_string().contains("bad port"));
    }

    #[test]
    fn resolve_handles_literals_without_dns() {
        assert_eq!(NetAddress::resolve("localhost:9").unwrap(), NetAddress::localhost(9));
        assert_eq!(NetAddress::resolve("[::1]:9").unwrap(), NetAddress::localhost_v6(9));
        assert_eq!(NetAddress::resolve("nope"), Err(AddressError::MissingPort));
    }

    #[test]
    fn scope_id_round_trips() {
        let a = NetAddress::from(SocketAddr::V6(SocketAddrV6::new(Ipv6Addr::LOCALHOST, 5, 0, 3)));
        assert_eq!(a.to_string(), "[::1%3]:5");
        assert_eq!(a.to_string().parse::<NetAddress>().unwrap(), a);
    }
}
