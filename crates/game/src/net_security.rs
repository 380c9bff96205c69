//! The game's connection security from its prefs: encryption and connect tokens.
//!
//! - `$Pref::Net::Encryption`: `off`, `on` (default: a client offers a key, a server
//!   encrypts every client that offers one) or `required` (plain connections refused).
//! - `$Pref::Server::ConnectTokenKey`: 64 hex digits shared with a matchmaker; when set the
//!   server admits only clients presenting a token sealed with it (and encrypts them).
//! - `$Pref::Net::ConnectToken`: the client's token as the matchmaker gave it, the sealed
//!   token and its key in hex separated by a space (`issueConnectToken`'s result).

use chacha20::ChaCha20Rng;
use rand_core::SeedableRng;
use v12_console_vm::{Console, Value};
use v12_netobject::{ConnectToken, Encryption, IssuedToken, MAX_USER_DATA};

/// `$Pref::Net::Encryption`.
pub fn encryption(con: &Console) -> Result<Encryption, String> {
    match con.get_global("Pref::Net::Encryption").as_text().to_ascii_lowercase().as_str() {
        "" | "on" | "1" => Ok(Encryption::On),
        "off" | "0" => Ok(Encryption::Off),
        "required" => Ok(Encryption::Required),
        other => Err(format!("$Pref::Net::Encryption: '{other}' is not off, on or required")),
    }
}

/// `$Pref::Server::ConnectTokenKey`, when set.
pub fn connect_token_key(con: &Console) -> Result<Option<[u8; 32]>, String> {
    let text = con.get_global("Pref::Server::ConnectTokenKey").as_text().into_owned();
    if text.is_empty() {
        return Ok(None);
    }
    key_from_hex(&text)
        .map(Some)
        .ok_or_else(|| "$Pref::Server::ConnectTokenKey: not 64 hex digits".to_string())
}

/// `$Pref::Net::ConnectToken`, when set.
pub fn client_token(con: &Console) -> Result<Option<IssuedToken>, String> {
    let text = con.get_global("Pref::Net::ConnectToken").as_text().into_owned();
    if text.is_empty() {
        return Ok(None);
    }
    let bad = || "$Pref::Net::ConnectToken: not 'SEALED KEY' in hex".to_string();
    let (sealed, key) = text.trim().split_once(' ').ok_or_else(bad)?;
    Ok(Some(IssuedToken {
        sealed: from_hex(sealed).ok_or_else(bad)?.into(),
        key: key_from_hex(key.trim()).ok_or_else(bad)?,
    }))
}

/// A cryptographic generator seeded from the operating system.
fn os_rng() -> Option<ChaCha20Rng> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).ok()?;
    Some(ChaCha20Rng::from_seed(seed))
}

/// The host's wall clock (Unix seconds) at the current frame, which it sets from the session's
/// clock (journaled when there is a journal): `issueConnectToken` reads no clock of its own.
pub type WallSeconds = std::rc::Rc<std::cell::Cell<u64>>;

/// The matchmaker's script functions: `generateConnectTokenKey()` and
/// `issueConnectToken(keyHex, clientId, seconds [, userData])`, whose tokens expire `seconds`
/// after `wall_s`.
pub fn register(con: &mut Console, wall_s: &WallSeconds) {
    con.register_function(
        "generateConnectTokenKey",
        1,
        1,
        "generateConnectTokenKey() - 64 hex digits from the OS random source, for $Pref::Server::ConnectTokenKey",
        |c, _a| {
            let mut key = [0u8; 32];
            if getrandom::fill(&mut key).is_err() {
                c.error("generateConnectTokenKey: no OS random source");
                return Value::Empty;
            }
            Value::str(to_hex(&key))
        },
    );
    let wall_s = wall_s.clone();
    con.register_function(
        "issueConnectToken",
        4,
        5,
        "issueConnectToken(keyHex, clientId, seconds [, userData]) - 'SEALED KEY' for $Pref::Net::ConnectToken",
        move |c, a| {
            let Some(key) = key_from_hex(&a.str(0)) else {
                c.error("issueConnectToken: the key is not 64 hex digits");
                return Value::Empty;
            };
            let Some(mut rng) = os_rng() else {
                c.error("issueConnectToken: no OS random source");
                return Value::Empty;
            };
            let now = wall_s.get();
            let user_data = if a.len() > 3 { a.str(3).into_owned().into_bytes() } else { Vec::new() };
            if user_data.len() > MAX_USER_DATA {
                c.error(&format!("issueConnectToken: user data over {MAX_USER_DATA} bytes"));
                return Value::Empty;
            }
            let token = ConnectToken {
                client_id: a.f64(1).max(0.0) as u64,
                expires_unix_s: now + a.f64(2).clamp(1.0, 86_400.0 * 365.0) as u64,
                user_data,
            };
            let issued = token.issue(&key, &mut rng);
            Value::str(format!("{} {}", to_hex(&issued.sealed), to_hex(&issued.key)))
        },
    );
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

pub(crate) fn key_from_hex(text: &str) -> Option<[u8; 32]> {
    from_hex(text.trim())?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_junk() {
        assert_eq!(from_hex(&to_hex(&[0, 1, 0xAB, 0xFF])).unwrap(), [0, 1, 0xAB, 0xFF]);
        assert!(from_hex("abc").is_none());
        assert!(from_hex("zz").is_none());
        assert!(from_hex("é1").is_none());
        assert!(key_from_hex("00").is_none());
    }

    /// `issueConnectToken` reads the host's wall clock (journaled), not the system's: a token
    /// issued at Unix second 1,000 for 60 s opens until 1,060 and not after.
    #[test]
    fn issued_tokens_expire_by_the_hosts_wall_clock() {
        let mut con = Console::new();
        let wall: WallSeconds = std::rc::Rc::new(std::cell::Cell::new(1_000));
        register(&mut con, &wall);
        let key = to_hex(&[5; 32]);
        let text = con
            .call_function("issueConnectToken", &[Value::str(key), Value::str("7"), Value::str("60")])
            .as_text()
            .into_owned();
        let (sealed, _) = text.split_once(' ').expect("'SEALED KEY'");
        let sealed = from_hex(sealed).unwrap();
        let (token, _) = ConnectToken::open(&[5; 32], &sealed, 1_059).expect("open before it expires");
        assert_eq!((token.client_id, token.expires_unix_s), (7, 1_060));
        assert!(ConnectToken::open(&[5; 32], &sealed, 1_060).is_err());
    }
}
