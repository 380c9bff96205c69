//! What a game server says about itself ([`ServerInfo`]), what a browser asks for
//! ([`Filter`]), and the sizes of the stateless ping/info query a game server answers on its game port
//! ([`crate::wire::answer_info_request`]).
//!
//! The info request is padded to [`INFO_REQUEST_BYTES`] and the answer never exceeds it, so
//! a spoofed request cannot make a server send more than it received (no amplification).

use crate::error::WireError;
use v12_bitstream::{BitReader, BitWriter};

/// Longest server name, in bytes.
pub const MAX_NAME: usize = 48;
/// Longest mission name, in bytes.
pub const MAX_MISSION: usize = 32;
/// Longest game type, in bytes.
pub const MAX_GAME_TYPE: usize = 16;
/// An info request is padded to this size; an info response is never larger.
pub const INFO_REQUEST_BYTES: usize = 160;
/// Any region, in a [`Filter`].
pub const ANY_REGION: u8 = 0xFF;

/// A game server's description, as heart-beaten to the master and answered to browsers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerInfo {
    pub name: String,
    pub mission: String,
    pub game_type: String,
    pub players: u16,
    pub max_players: u16,
    pub bots: u16,
    /// The game's network protocol version; browsers show only their own.
    pub version: u32,
    pub password: bool,
    pub dedicated: bool,
    /// A small region number (0 = unspecified), as Tribes 2's regions.
    pub region: u8,
}

/// Truncates `s` to at most `max` bytes on a character boundary.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

fn read_capped(r: &mut BitReader<'_>, max: usize, what: &'static str) -> Result<String, WireError> {
    let s = r.read_string()?;
    if s.len() > max {
        return Err(WireError::TooLong { what, len: s.len(), max });
    }
    Ok(s)
}

impl ServerInfo {
    /// The same info with every string clipped to its maximum.
    pub fn clipped(&self) -> Self {
        Self {
            name: clip(&self.name, MAX_NAME),
            mission: clip(&self.mission, MAX_MISSION),
            game_type: clip(&self.game_type, MAX_GAME_TYPE),
            ..self.clone()
        }
    }

    /// Is the server full?
    pub fn is_full(&self) -> bool {
        self.players >= self.max_players
    }

    pub(crate) fn write(&self, w: &mut BitWriter) {
        let c = self.clipped();
        // Clipped strings are shorter than a string's 255-byte limit: these cannot fail.
        let _ = w.write_string(&c.name);
        let _ = w.write_string(&c.mission);
        let _ = w.write_string(&c.game_type);
        w.write_int(u32::from(c.players), 16);
        w.write_int(u32::from(c.max_players), 16);
        w.write_int(u32::from(c.bots), 16);
        w.write_int(c.version, 32);
        w.write_flag(c.password);
        w.write_flag(c.dedicated);
        w.write_int(u32::from(c.region), 8);
    }

    pub(crate) fn read(r: &mut BitReader<'_>) -> Result<Self, WireError> {
        Ok(Self {
            name: read_capped(r, MAX_NAME, "server name")?,
            mission: read_capped(r, MAX_MISSION, "mission name")?,
            game_type: read_capped(r, MAX_GAME_TYPE, "game type")?,
            players: r.read_int(16)? as u16,
            max_players: r.read_int(16)? as u16,
            bots: r.read_int(16)? as u16,
            version: r.read_int(32)?,
            password: r.read_flag()?,
            dedicated: r.read_flag()?,
            region: r.read_int(8)? as u8,
        })
    }
}

/// What a browser asks the master for. The default matches every server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Only this game type (case-insensitive); empty: any.
    pub game_type: String,
    /// Only this protocol version; 0: any.
    pub version: u32,
    /// Only this region; [`ANY_REGION`]: any.
    pub region: u8,
    /// Leave out full servers.
    pub not_full: bool,
    /// Leave out empty servers.
    pub not_empty: bool,
    /// Leave out servers with a password.
    pub no_password: bool,
}

impl Default for Filter {
    fn default() -> Self {
        Self {
            game_type: String::new(),
            version: 0,
            region: ANY_REGION,
            not_full: false,
            not_empty: false,
            no_password: false,
        }
    }
}

impl Filter {
    /// Does `info` pass?
    pub fn matches(&self, info: &ServerInfo) -> bool {
        (self.game_type.is_empty() || self.game_type.eq_ignore_ascii_case(&info.game_type))
            && (self.version == 0 || self.version == info.version)
            && (self.region == ANY_REGION || self.region == info.region)
            && !(self.not_full && info.is_full())
            && !(self.not_empty && info.players == 0)
            && !(self.no_password && info.password)
    }

    pub(crate) fn write(&self, w: &mut BitWriter) {
        let _ = w.write_string(&clip(&self.game_type, MAX_GAME_TYPE));
        w.write_int(self.version, 32);
        w.write_int(u32::from(self.region), 8);
        w.write_flag(self.not_full);
        w.write_flag(self.not_empty);
        w.write_flag(self.no_password);
    }

    pub(crate) fn read(r: &mut BitReader<'_>) -> Result<Self, WireError> {
        Ok(Self {
            game_type: read_capped(r, MAX_GAME_TYPE, "game type")?,
            version: r.read_int(32)?,
            region: r.read_int(8)? as u8,
            not_full: r.read_flag()?,
            not_empty: r.read_flag()?,
            no_password: r.read_flag()?,
        })
    }
}
