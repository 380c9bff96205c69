//! Demos from script (V12: "recordDemo", "playDemo"): what a client receives, saved so it
//! plays back later with no server. A client's `recordDemo(file)` starts one mid-match and
//! `stopDemo()` writes it; `playDemo(file)` or `v12 --play-demo FILE` plays it.
//!
//! A game demo is the datablocks the client holds when it starts (so a demo begun mid-match
//! plays without the datablock phase), the ghost it controls, and netobject's recording of
//! the connection (its start state and every packet after, with receive times). File
//! layout (little-endian): `"V12GDEM\0" version:u32 blocks:u32 {server_id:u32 class:str
//! name:str fields:u16 {key:str value:str}*}* control:u32 (u32::MAX: none) net_len:u32
//! net_bytes crc32:u32`, where `str` is `len:u16 utf8`. Everything is checked before
//! anything is applied; a bad file is a [`DemoFileError`], never a panic.

use crate::mission::ClientGhosts;
use std::fmt;
use std::sync::Arc;
use v12_console_vm::Console;
use v12_netobject::NetClassRegistry;
use v12_netobject::demo::DemoPlayer;
use v12_netobject::ghost::{GhostClassRegistry, ObjectId};
use v12_sim::datablock::{ClientDataBlocks, MAX_FIELDS};
use v12_sim::remote_command::RemoteCommands;
use v12_sim::scene::{ClientScene, ControlState, SceneObject};
use v12_world::mission::WorldGhosts;

/// First bytes of a game demo.
pub const DEMO_FILE_MAGIC: &[u8; 8] = b"V12GDEM\0";
/// The format version this build writes and reads.
pub const DEMO_FILE_VERSION: u32 = 1;
/// Most datablocks a demo may carry.
pub const MAX_DEMO_DATABLOCKS: usize = 65_536;

/// A datablock as the client held it: the server's id, class, name and fields.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoBlock {
    pub server_id: u32,
    pub class: String,
    pub name: String,
    pub fields: Vec<(String, String)>,
}

/// A game demo.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DemoFile {
    pub datablocks: Vec<DemoBlock>,
    /// The ghost index of the client's control object when recording began.
    pub control_ghost: Option<u32>,
    /// The ghosts' exact states when recording began (netobject's start block packs them as
    /// an update would, compressed; these put them back to the bit).
    pub ghosts: Vec<DemoGhost>,
    /// netobject's recording of the connection.
    pub net: Vec<u8>,
}

/// One ghost's exact state at the start of a demo.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DemoGhost {
    pub ghost: u32,
    pub state: ControlState,
    pub health: u8,
    pub flags: u8,
}

/// Most ghosts a demo's start state may carry.
pub const MAX_DEMO_GHOSTS: usize = 1 << 20;

/// Why a demo file cannot be played.
#[derive(Debug, Clone, PartialEq)]
pub enum DemoFileError {
    /// Not a game demo, or another version.
    NotADemo,
    /// Cut short or malformed at `offset`.
    Malformed { what: &'static str, offset: usize },
    /// The checksum does not match: the file is corrupt.
    Corrupt,
    /// The connection's recording inside is bad.
    Net(String),
    /// A datablock in it is refused.
    DataBlock(String),
}

impl fmt::Display for DemoFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotADemo => write!(f, "not a V12 game demo (or another version)"),
            Self::Malformed { what, offset } => write!(f, "demo has a bad {what} at byte {offset}"),
            Self::Corrupt => write!(f, "demo checksum mismatch: the file is corrupt"),
            Self::Net(e) => write!(f, "demo recording: {e}"),
            Self::DataBlock(e) => write!(f, "demo datablock: {e}"),
        }
    }
}

impl std::error::Error for DemoFileError {}

fn put_str(out: &mut Vec<u8>, s: &str) {
    let b = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    out.extend_from_slice(b);
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DemoFileError> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.data.len());
        let Some(end) = end else { return Err(DemoFileError::Malformed { what, offset: self.pos }) };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, DemoFileError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, DemoFileError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn str(&mut self, what: &'static str) -> Result<String, DemoFileError> {
        let n = self.u16(what)? as usize;
        let at = self.pos;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| DemoFileError::Malformed { what, offset: at })
    }
}

impl DemoFile {
    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.net.len() + 4096);
        out.extend_from_slice(DEMO_FILE_MAGIC);
        out.extend_from_slice(&DEMO_FILE_VERSION.to_le_bytes());
        out.extend_from_slice(&(self.datablocks.len() as u32).to_le_bytes());
        for b in &self.datablocks {
            out.extend_from_slice(&b.server_id.to_le_bytes());
            put_str(&mut out, &b.class);
            put_str(&mut out, &b.name);
            let fields = &b.fields[..b.fields.len().min(MAX_FIELDS)];
            out.extend_from_slice(&(fields.len() as u16).to_le_bytes());
            for (k, v) in fields {
                put_str(&mut out, k);
                put_str(&mut out, v);
            }
        }
        out.extend_from_slice(&self.control_ghost.unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&(self.ghosts.len() as u32).to_le_bytes());
        for g in &self.ghosts {
            out.extend_from_slice(&g.ghost.to_le_bytes());
            let s = g.state;
            for v in [s.pos.x, s.pos.y, s.pos.z, s.vel.x, s.vel.y, s.vel.z, s.yaw] {
                out.extend_from_slice(&v.to_bits().to_le_bytes());
            }
            out.extend_from_slice(&[g.health, g.flags]);
        }
        out.extend_from_slice(&(self.net.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.net);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads and checks a whole file.
    pub fn decode(data: &[u8]) -> Result<Self, DemoFileError> {
        if data.len() < 16 || &data[..8] != DEMO_FILE_MAGIC {
            return Err(DemoFileError::NotADemo);
        }
        let body = data.len() - 4;
        let crc = u32::from_le_bytes([data[body], data[body + 1], data[body + 2], data[body + 3]]);
        if crc32fast::hash(&data[..body]) != crc {
            return Err(DemoFileError::Corrupt);
        }
        let mut r = Reader { data: &data[..body], pos: 8 };
        if r.u32("version")? != DEMO_FILE_VERSION {
            return Err(DemoFileError::NotADemo);
        }
        let n = r.u32("datablock count")? as usize;
        if n > MAX_DEMO_DATABLOCKS {
            return Err(DemoFileError::Malformed { what: "datablock count", offset: r.pos - 4 });
        }
        let mut datablocks = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let server_id = r.u32("datablock")?;
            let class = r.str("datablock class")?;
            let name = r.str("datablock name")?;
            let nf = r.u16("field count")? as usize;
            if nf > MAX_FIELDS {
                return Err(DemoFileError::Malformed { what: "field count", offset: r.pos - 2 });
            }
            let mut fields = Vec::with_capacity(nf);
            for _ in 0..nf {
                fields.push((r.str("field name")?, r.str("field value")?));
            }
            datablocks.push(DemoBlock { server_id, class, name, fields });
        }
        let control = r.u32("control ghost")?;
        let ng = r.u32("ghost count")? as usize;
        if ng > MAX_DEMO_GHOSTS {
            return Err(DemoFileError::Malformed { what: "ghost count", offset: r.pos - 4 });
        }
        let mut ghosts = Vec::with_capacity(ng.min(4096));
        for _ in 0..ng {
            let ghost = r.u32("ghost")?;
            let mut v = [0f32; 7];
            for x in &mut v {
                *x = f32::from_bits(r.u32("ghost state")?);
            }
            let hf = r.take(2, "ghost state")?;
            let state = ControlState {
                pos: glam::Vec3::new(v[0], v[1], v[2]),
                vel: glam::Vec3::new(v[3], v[4], v[5]),
                yaw: v[6],
                ..ControlState::default()
            };
            ghosts.push(DemoGhost { ghost, state, health: hf[0], flags: hf[1] });
        }
        let len = r.u32("recording length")? as usize;
        let net = r.take(len, "recording")?.to_vec();
        if r.pos != body {
            return Err(DemoFileError::Malformed { what: "trailing data", offset: r.pos });
        }
        Ok(DemoFile { datablocks, control_ghost: (control != u32::MAX).then_some(control), ghosts, net })
    }
}

/// A hash of the ghosts a client holds, exact to the bit, by ghost index (so a live client
/// and a demo's playback, whose local ids differ, compare): each ghost's datablock, state,
/// health and flags.
pub fn ghost_state_hash<'a>(ghosts: impl Iterator<Item = (u32, Option<&'a SceneObject>)>) -> u64 {
    let mut held: Vec<(u32, u64)> = ghosts.map(|(g, o)| (g, o.map_or(0, SceneObject::exact_hash))).collect();
    held.sort_unstable();
    // A world ghost (terrain, building) counts by its index only.
    v12_sim::scene::mix_words(&held.iter().flat_map(|(g, h)| [u64::from(*g), *h]).collect::<Vec<_>>())
}

/// A demo playing: its datablocks made, its ghosts in a scene of their own, its packets
/// applied at their recorded times, the events they carry handed to the client scripts.
pub struct DemoPlayback {
    player: DemoPlayer,
    scene: ClientScene,
    world: WorldGhosts,
    /// Recorded time of the first packet, and the local time playback began.
    first: Option<u64>,
    began: u64,
    packets: usize,
    done: bool,
}

impl fmt::Debug for DemoPlayback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DemoPlayback").field("packets", &self.packets).field("done", &self.done).finish()
    }
}

impl DemoPlayback {
    /// Checks `data` and sets up its start state (datablocks, ghosts) at local time `now`.
    pub fn open(
        con: &mut Console,
        data: &[u8],
        registries: (Arc<NetClassRegistry>, Arc<GhostClassRegistry>),
        world: WorldGhosts,
        now: u64,
    ) -> Result<Self, DemoFileError> {
        let mut file = DemoFile::decode(data)?;
        let mut blocks = ClientDataBlocks::new();
        let mut scene = ClientScene::new();
        for b in &file.datablocks {
            blocks
                .restore(con, b.server_id, &b.class, &b.name, &b.fields)
                .map_err(|e| DemoFileError::DataBlock(e.to_string()))?;
            scene.known_datablocks.insert(b.server_id);
        }
        let mut world = world;
        let player = {
            let mut target = ClientGhosts { scene: &mut scene, world: &mut world };
            DemoPlayer::open(std::mem::take(&mut file.net), registries.0, registries.1, &mut target)
                .map_err(|e| DemoFileError::Net(e.to_string()))?
        };
        for g in &file.ghosts {
            let id = player.ghosts().object_of(g.ghost);
            if let Some(o) = id.and_then(|id| scene.get_mut(id)) {
                if !(g.state.pos.is_finite() && g.state.vel.is_finite() && g.state.yaw.is_finite()) {
                    return Err(DemoFileError::Malformed { what: "ghost state", offset: 0 });
                }
                o.state = g.state;
                o.render_pos = g.state.pos;
                o.health = g.health;
                o.flags = g.flags;
            }
        }
        Ok(DemoPlayback { player, scene, world, first: None, began: now, packets: 0, done: false })
    }

    /// Plays the packets due by local time `now` (the recording's own pace), runs the remote
    /// commands they carry, and interpolates the ghosts. True once every packet played.
    pub fn advance(
        &mut self,
        con: &mut Console,
        remote: &RemoteCommands,
        now: u64,
    ) -> Result<bool, DemoFileError> {
        while !self.done {
            let due = match self.first {
                Some(first) => first + now.saturating_sub(self.began),
                None => u64::MAX,
            };
            let mut target = ClientGhosts { scene: &mut self.scene, world: &mut self.world };
            match self.player.peek_time() {
                None => self.done = true,
                Some(t) if t <= due => {
                    self.first.get_or_insert(t);
                    self.player.play_next(&mut target).map_err(|e| DemoFileError::Net(e.to_string()))?;
                    self.packets += 1;
                    while let Some(ev) = self.player.poll_event() {
                        remote.handle_client_event(con, &*ev);
                    }
                }
                Some(_) => break,
            }
        }
        Ok(self.done)
    }

    /// Packets played so far.
    pub fn packets(&self) -> usize {
        self.packets
    }

    /// [`ghost_state_hash`] of the ghosts as played so far.
    pub fn ghost_hash(&self) -> u64 {
        ghost_state_hash(self.player.ghosts().iter().map(|(g, id): (u32, ObjectId)| (g, self.scene.get(id))))
    }
}
