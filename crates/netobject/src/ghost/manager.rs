//! The server side of ghosting for one connection: scoping, ghost ids, priorities,
//! packing into the packet budget, and the resend rule on notifies.
//!
//! Sans-IO: the connection calls [`GhostManager::update_scope`] and
//! [`GhostManager::write_packet`] while assembling a packet, keeps the returned
//! [`GhostRecord`] with the packet, and hands it back to [`GhostManager::packet_delivered`]
//! or [`GhostManager::packet_dropped`] when the notify protocol reports the packet
//! (always in send order).

use crate::ghost::aside::SetAside;
use crate::ghost::class::GhostClassRegistry;
use crate::ghost::context::{GhostLookup, GhostPackContext};
use crate::ghost::frame::GhostFrame;
use crate::ghost::ids::{MAX_GHOST_ID_BITS, MAX_GHOSTS, ObjectId, ghost_id_bits};
use crate::ghost::object::{ALL_MASK_BITS, CameraScopeQuery, NetFlags, NetObject, PreparedQuery};
use crate::ghost::world::GhostWorld;
use hashbrown::HashMap;
use std::collections::VecDeque;
use std::sync::Arc;
use tracing::{debug, warn};
use v12_bitstream::{BitWriter, CompressionPoint};

/// Tuning of one connection's ghosting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GhostConfig {
    /// Scope-out hysteresis: a ghost stays in scope until it is beyond
    /// `visible_distance * (1 + scope_hysteresis)`, so an object on the edge does not flap.
    pub scope_hysteresis: f32,
    /// This is the local (listen-server) connection: `SCOPE_LOCAL` objects are ghosted.
    pub is_local: bool,
    /// At most this many ghosts at once (capped at 2^18).
    pub max_ghosts: u32,
    /// Updates that did not fit the packet before the manager stops trying smaller ones.
    pub max_misfits: u32,
}

impl Default for GhostConfig {
    fn default() -> Self {
        Self { scope_hysteresis: 0.1, is_local: false, max_ghosts: MAX_GHOSTS, max_misfits: 4 }
    }
}

/// Ghosting counters for one connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GhostStats {
    /// Creates written (resends included).
    pub creates_sent: u64,
    /// Updates written.
    pub updates_sent: u64,
    /// Kills written (resends included).
    pub kills_sent: u64,
    /// Creates acknowledged.
    pub creates_acked: u64,
    /// Kills acknowledged (ghost ids freed).
    pub kills_acked: u64,
    /// Mask bits put back dirty after a dropped packet.
    pub bits_resent: u64,
    /// Ghost entries that wanted a packet and were skipped.
    pub skips: u64,
    /// Bits of ghost sections written.
    pub bits_written: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The client does not have it yet; no updates until the create is acknowledged. Its
    /// create waits for a packet.
    Create,
    /// Its create is in flight.
    CreateSent,
    /// The client holds it.
    Live,
    /// Out of scope or deleted: a kill must reach the client before the id is freed. Its
    /// kill waits for a packet.
    Kill,
    /// Its kill is in flight.
    KillSent,
}

/// One ghost, what every packet's pass over the table reads and writes: 16 bytes, four to
/// a cache line, since every packet walks the table (a crowd's client holds hundreds). What
/// only a packet that carries the ghost or a notify reads is in [`SlotCold`], and whether a
/// scoping pass found it in scope is a bit in `GhostManager::scoped`.
#[derive(Debug)]
struct Slot {
    object: ObjectId,
    dirty: u32,
    /// The low 32 bits of the object's change counter up to which `dirty` holds its changes
    /// (a create not yet written takes it when it is written: it sends everything anyway).
    /// See [`newer_than_seen`].
    seen: u32,
    /// Packets it wanted and did not get (saturating).
    skips: u16,
    phase: Phase,
    /// Left scope while its create was in flight: kill it once the client has it.
    kill_after_create: bool,
}

const _: () = assert!(std::mem::size_of::<Option<Slot>>() == 16);

/// The rest of a ghost's state (`GhostManager::cold`, by ghost id).
#[derive(Clone, Copy, Debug, Default)]
struct SlotCold {
    /// Tells this ghost from an earlier one with the same id (for notifies).
    generation: u32,
    class_id: u16,
}

/// The change counter a ghost last saw, when the object's counter `version` is newer than
/// the low 32 bits `seen` it kept. Exact while the object made fewer than 2^31 changes since
/// the ghost last looked, which a live ghost does at every packet of its connection.
fn newer_than_seen(version: u64, seen: u32) -> Option<u64> {
    let gap = (version as u32).wrapping_sub(seen);
    (gap as i32 > 0).then(|| version - u64::from(gap))
}

/// A packet's candidate listing under way (see `GhostManager::list_slot`).
struct Listing {
    /// The lowest priority listed.
    lowest: f32,
    /// Ghosts whose objects are gone.
    deleted: Vec<u32>,
}

/// An update written and not yet notified (see `GhostManager::updates_in_flight`).
#[derive(Clone, Copy, Debug)]
struct UpdateInFlight {
    packet: u64,
    ghost: u32,
    generation: u32,
    mask: u32,
}

/// What a packet did to one ghost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GhostEntryKind {
    /// Class id and full update.
    Create,
    /// Some state groups.
    Update,
    /// Delete the ghost.
    Kill,
}

/// One ghost's part of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhostEntry {
    /// The ghost id.
    pub ghost: u32,
    generation: u32,
    /// Create, update or kill.
    pub kind: GhostEntryKind,
    /// The state bits the packet carried (0 for a kill).
    pub mask: u32,
}

/// What the ghost section of one packet carried, kept until the packet is notified.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GhostRecord {
    session: u32,
    packet: u64,
    reset: bool,
    entries: Vec<GhostEntry>,
}

impl GhostRecord {
    /// Nothing that needs a notify (no ghost entry and no reset).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && !self.reset
    }
    /// Ghost entries (creates, updates, kills) in this packet.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// The entries, in packet order.
    pub fn entries(&self) -> &[GhostEntry] {
        &self.entries
    }
    /// The packet carried a ghosting reset.
    pub fn is_reset(&self) -> bool {
        self.reset
    }
}

/// The ghost ids the client is known to hold, for [`GhostPackContext::ghost_id_of`].
struct Known<'a> {
    slots: &'a [Option<Slot>],
    by_object: &'a HashMap<ObjectId, u32>,
}

impl GhostLookup for Known<'_> {
    fn known_ghost(&self, object: ObjectId) -> Option<u32> {
        let &idx = self.by_object.get(&object)?;
        match self.slots.get(idx as usize)? {
            Some(s) if s.phase == Phase::Live => Some(idx),
            _ => None,
        }
    }
}

const KILL_PRIORITY: f32 = f32::MAX;
// A far candidate's skips are read back from its slot, less the one its listing counted;
// at the saturation of `Slot::skips` that may be one less than it had, which must not
// change its weight: a far candidate is capped at the ring's floor long before.
const _: () =
    assert!(crate::ghost::weights::SKIPS * (u16::MAX - 1) as f32 >= crate::ghost::weights::NEAR - 1.0);
const DEPENDENCY_DEPTH: u32 = 8;
/// A ghost is set aside only if it would stay so for this many packets at the pace of the
/// last one.
const ASIDE_PACKETS: f64 = 2.0;
/// Ghosts a connection's id map holds without growing once ghosting starts.
const EARLY_GHOSTS: usize = 64;
/// Room of the scoping scratch lists once ghosting starts.
const SCRATCH_LEN: usize = 16;

/// Entry lists kept for reuse (about the packets in flight).
const SPARE_ENTRY_LISTS: usize = 64;
/// Room a new record's entry list gets: more than a 508-byte packet's updates in a crowd.
const ENTRY_LIST_LEN: usize = 64;
/// Least room of the tables with an entry per ghost once there are ghosts (a few KB), so a
/// connection that sees a few dozen objects does not grow them as that number wanders.
const MIN_ROOM: usize = 128;
/// Room of the ring of updates in flight once ghosting starts (24 bytes each): a few packets'
/// worth, so it does not grow as the round trip wanders.
const IN_FLIGHT_ROOM: usize = 256;

/// The server's ghost manager for one connection.
pub struct GhostManager {
    config: GhostConfig,
    classes: Arc<GhostClassRegistry>,
    connection: Option<crate::ConnectionId>,
    ghosting: bool,
    session: u32,
    /// The client must drop every ghost before new ones are sent.
    reset_unacked: bool,
    slots: Vec<Option<Slot>>,
    /// By ghost id, beside `slots`.
    cold: Vec<SlotCold>,
    /// The ghosts the current scoping pass found in scope (a bit per ghost id).
    scoped: Vec<u64>,
    /// Every update not yet notified, in send order (one ring for the connection, not a
    /// queue per ghost: writing an update appends here, a delivered packet pops its
    /// entries without touching a slot, and only a dropped one looks for later updates).
    updates_in_flight: VecDeque<UpdateInFlight>,
    /// Dropped-packet scratch: ghost → the bits later packets carried again.
    scratch_later: HashMap<u32, u32>,
    /// Free slots below the top one (the lowest is reused first, so ids stay short).
    free: FreeIds,
    by_object: HashMap<ObjectId, u32>,
    generation: u32,
    query: CameraScopeQuery,
    next_packet: u64,
    next_notify: u64,
    /// The listed candidates as [`rank`] keys.
    candidates: Vec<u64>,
    /// Candidates outside their near ring while the packet has enough inside rings: their
    /// priorities are computed only if the packet gets to them. A bit per ghost id (a
    /// crowd's client lists hundreds a packet, most never weighed): the skips each had
    /// before this packet are its slot's less the one its listing counted.
    far: Vec<u64>,
    /// Bits set in `far`.
    far_count: usize,
    /// Defer the far candidates (from the second listing on: see `end_listing`).
    defer_far: bool,
    scratch_ids: Vec<(ObjectId, f32)>,
    scratch_deps: Vec<ObjectId>,
    /// Frame scoping: which of the frame's objects this connection holds a ghost of (a bit
    /// per dense index), the held ghosts whose dependencies need a full scoping, and the
    /// objects newly in range.
    held: Vec<u64>,
    scratch_deferred: Vec<ObjectId>,
    scratch_new: Vec<(f32, ObjectId)>,
    scratch_deleted: Vec<u32>,
    /// Frame scoping: the ghosts that may have left scope in this pass.
    scratch_out: Vec<u32>,
    /// Frame scoping with a listing: the ghosts its pass over the table listed (a bit per
    /// ghost id).
    listed: Vec<u64>,
    /// Entry lists of notified records, for the next packets' records.
    spare_entries: Vec<Vec<GhostEntry>>,
    /// Ghosts that wait, set aside from the pass over the ghost table (`ghost/aside.rs`).
    aside: SetAside,
    stats: GhostStats,
}

impl std::fmt::Debug for GhostManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GhostManager")
            .field("ghosting", &self.ghosting)
            .field("ghosts", &self.by_object.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl GhostManager {
    /// Marks this the local (listen-server) connection, which `SCOPE_LOCAL` objects reach.
    pub fn set_local(&mut self, local: bool) {
        self.config.is_local = local;
    }

    /// A manager that is not ghosting yet (call [`Self::start_ghosting`]).
    pub fn new(config: GhostConfig, classes: Arc<GhostClassRegistry>) -> Self {
        Self {
            config,
            classes,
            connection: None,
            ghosting: false,
            session: 0,
            reset_unacked: false,
            slots: Vec::new(),
            cold: Vec::new(),
            scoped: Vec::new(),
            updates_in_flight: VecDeque::new(),
            scratch_later: HashMap::new(),
            free: FreeIds::default(),
            by_object: HashMap::new(),
            generation: 0,
            query: CameraScopeQuery::default(),
            next_packet: 0,
            next_notify: 0,
            candidates: Vec::new(),
            far: Vec::new(),
            far_count: 0,
            defer_far: false,
            scratch_ids: Vec::new(),
            scratch_deps: Vec::new(),
            held: Vec::new(),
            scratch_deferred: Vec::new(),
            scratch_new: Vec::new(),
            scratch_deleted: Vec::new(),
            scratch_out: Vec::new(),
            listed: Vec::new(),
            spare_entries: Vec::new(),
            aside: SetAside::default(),
            stats: GhostStats::default(),
        }
    }

    /// The connection this manager serves, for [`GhostWorld::is_ghosted_to`].
    pub fn set_connection(&mut self, connection: crate::ConnectionId) {
        self.connection = Some(connection);
    }

    /// Counters so far.
    pub fn stats(&self) -> GhostStats {
        self.stats
    }

    /// True between [`Self::start_ghosting`] and [`Self::stop_ghosting`].
    pub fn is_ghosting(&self) -> bool {
        self.ghosting
    }

    /// Begins sending ghosts (after the mission's datablocks reached the client).
    pub fn start_ghosting(&mut self) {
        self.ghosting = true;
        // The scoping lists a ghosting connection soon needs, sized now rather than grown
        // from nothing in the middle of a match (about 1 KB).
        self.by_object.reserve(EARLY_GHOSTS.saturating_sub(self.by_object.len()));
        self.free.words.reserve(EARLY_GHOSTS / 64);
        for list in [&mut self.scratch_out, &mut self.scratch_deleted] {
            list.reserve(SCRATCH_LEN);
        }
        self.scratch_deferred.reserve(SCRATCH_LEN);
        self.scratch_new.reserve(SCRATCH_LEN);
        self.updates_in_flight.reserve(IN_FLIGHT_ROOM.saturating_sub(self.updates_in_flight.len()));
    }

    /// Stops ghosting and forgets every ghost. The next packets tell the client to drop
    /// all of its ghosts; no new ghost is sent until that is acknowledged, so ids can be
    /// reused safely afterwards. Records of earlier packets are ignored.
    pub fn stop_ghosting(&mut self) {
        let had_any = self.ghosting || !self.by_object.is_empty() || self.next_packet > 0;
        self.ghosting = false;
        self.session = self.session.wrapping_add(1);
        self.reset_unacked = self.reset_unacked || had_any;
        self.slots.clear();
        self.cold.clear();
        self.aside.clear();
        self.updates_in_flight.clear();
        self.free.clear();
        self.by_object.clear();
    }

    /// Mission change: stop, forget, and start again.
    pub fn reset(&mut self) {
        self.stop_ghosting();
        self.start_ghosting();
    }

    /// The camera query of the last scoping pass.
    pub fn query(&self) -> &CameraScopeQuery {
        &self.query
    }

    /// Creates that wait, set aside from the packets' passes over the ghost table for now
    /// (a crowd's client holds hundreds; see `docs/ARCHITECTURE.md`, "A crowd").
    pub fn waiting_set_aside(&self) -> usize {
        self.aside.len()
    }

    /// Ghosts held (including ones being created or killed).
    pub fn ghost_count(&self) -> usize {
        self.by_object.len()
    }

    /// The ghost id of `object` once the client is known to hold it (create acknowledged).
    pub fn ghost_id_of(&self, object: ObjectId) -> Option<u32> {
        Known { slots: &self.slots, by_object: &self.by_object }.known_ghost(object)
    }

    /// The ghost id assigned to `object`, acknowledged or not.
    pub fn assigned_ghost_id(&self, object: ObjectId) -> Option<u32> {
        self.by_object.get(&object).copied()
    }

    /// The object behind ghost id `ghost`.
    pub fn object_of(&self, ghost: u32) -> Option<ObjectId> {
        self.slots.get(ghost as usize)?.as_ref().map(|s| s.object)
    }

    /// True when `object`'s ghost is known to exist on the client (the owned-object model's
    /// `has_been_transmitted`).
    pub fn has_been_transmitted(&self, object: ObjectId) -> bool {
        self.ghost_id_of(object).is_some()
    }

    /// The state bits waiting to be sent for `object`'s ghost (changes the object made
    /// since the last packet are picked up when the next packet is written).
    pub fn dirty_mask(&self, object: ObjectId) -> Option<u32> {
        let &idx = self.by_object.get(&object)?;
        self.slots.get(idx as usize)?.as_ref().map(|s| s.dirty)
    }

    /// Ghost id width the next packet will use.
    pub fn id_bits(&self) -> u32 {
        ghost_id_bits(self.slots.len())
    }

    /// Marks state bits dirty for this connection only (e.g. data only this client sees).
    /// Changes made with the object's own `StateMask` reach every connection by themselves.
    pub fn mark_dirty(&mut self, object: ObjectId, mask: u32) {
        if let Some(&idx) = self.by_object.get(&object)
            && let Some(Some(slot)) = self.slots.get_mut(idx as usize)
            && !matches!(slot.phase, Phase::Kill | Phase::KillSent)
        {
            slot.dirty |= mask;
        }
    }

    /// Something would go into the next packet (for a connection deciding whether to send).
    pub fn has_data_to_send(&self) -> bool {
        self.reset_unacked
            || self.slots.iter().flatten().any(|s| match s.phase {
                Phase::Create | Phase::Kill => true,
                Phase::CreateSent | Phase::KillSent => false,
                Phase::Live => s.dirty != 0,
            })
    }

    // ---- scoping ----------------------------------------------------------------------

    /// V12's scoping pass: asks the scoping object for the camera query, scopes the
    /// always-scoped objects and those within the visible distance (with hysteresis for
    /// ghosts already sent), and kills ghosts that left scope.
    pub fn update_scope(&mut self, world: &(impl GhostWorld + ?Sized), scope_object: ObjectId) {
        self.scope(world, scope_object, false);
    }

    /// [`Self::update_scope`] then [`Self::write_packet`]: the same packet, but with the
    /// world's frame the packet's candidates are listed in the scoping pass over the ghost
    /// table, so each ghost and its object's record are read once a packet, not twice (a
    /// crowd's client holds hundreds of ghosts, most of them creates that wait).
    pub fn scope_and_write_packet(
        &mut self,
        world: &(impl GhostWorld + ?Sized),
        scope_object: ObjectId,
        w: &mut BitWriter,
    ) -> GhostRecord {
        let listed = self.scope(world, scope_object, true);
        self.write_listed(world, w, listed)
    }

    /// [`Self::update_scope`]; with `list`, also lists the packet's candidates when it scopes
    /// from the frame (returns whether it did).
    fn scope(&mut self, world: &(impl GhostWorld + ?Sized), scope_object: ObjectId, list: bool) -> bool {
        let mut query = CameraScopeQuery { scope_object: Some(scope_object), ..CameraScopeQuery::default() };
        let has_camera = match world.object(scope_object) {
            Some(obj) => {
                obj.on_camera_scope_query(&mut query);
                true
            }
            // No scoping object (not spawned yet, or dead): only always-scoped objects.
            None => false,
        };
        self.begin_scope_pass(query);
        let mut ids = std::mem::take(&mut self.scratch_ids);
        ids.clear();
        world.for_each_scope_always(&mut |id| ids.push((id, 0.0)));
        // A connection never holds more ghosts than the frame's objects and those always in
        // scope: no table needs room past that.
        self.keep_room(world.frame().map_or(usize::MAX, |f| f.len() + ids.len()));
        let vis = query.visible_distance.max(0.0);
        let outer = vis * (1.0 + self.config.scope_hysteresis.max(0.0));
        match world.frame() {
            Some(frame) => {
                for &(id, _) in &ids {
                    self.object_in_scope(world, id);
                }
                let mut listing = (list && has_camera).then(|| self.begin_listing());
                let aside = self.keep_aside(frame, list && has_camera, query.position, (vis, outer));
                if has_camera
                    && self.scope_from_frame(
                        world,
                        frame,
                        (query.position, vis, outer),
                        listing.as_mut(),
                        aside,
                    )
                {
                    self.scratch_ids = ids;
                    self.end_scope_listed();
                    if let Some(l) = listing {
                        self.list_the_rest(world, frame, l);
                        return true;
                    }
                    return false;
                }
                if let Some(l) = listing {
                    self.scratch_deleted = l.deleted;
                }
            }
            None => {
                self.take_all_back();
                if has_camera {
                    world.objects_in_radius(query.position, outer, &mut |id, d| ids.push((id, d)));
                }
                for &(id, dist) in &ids {
                    if dist <= vis || (dist <= outer && self.by_object.contains_key(&id)) {
                        self.object_in_scope(world, id);
                    }
                }
            }
        }
        self.scratch_ids = ids;
        self.end_scope();
        false
    }

    /// The distance scoping of [`Self::update_scope`] from the world's frame: the ghosts
    /// held stay while within `outer` (one pass over the ghost table, no lookup by id), and
    /// the frame's grid names the objects within `vis` that have no ghost yet, which are
    /// scoped nearest first (ties by id), as the radius query's order would have them.
    ///
    /// With `listing`, each ghost left in scope whose listing reads no other ghost is listed
    /// for the packet as the pass goes ([`Self::list_slot`]); the rest (those that may leave,
    /// those with dependencies, the new ones) by [`Self::list_the_rest`] once scoping ends.
    fn scope_from_frame(
        &mut self,
        world: &(impl GhostWorld + ?Sized),
        frame: &GhostFrame,
        (center, vis, outer): (crate::ghost::Point3, f32, f32),
        mut listing: Option<&mut Listing>,
        aside: bool,
    ) -> bool {
        if !self.ghosting || self.reset_unacked {
            return false;
        }
        self.held.clear();
        self.held.resize(frame.len().div_ceil(64), 0);
        let travel = frame.travel() + self.aside.camera_path;
        if aside {
            self.take_back_due(travel);
        }
        let mut deferred = std::mem::take(&mut self.scratch_deferred);
        deferred.clear();
        let mut out = std::mem::take(&mut self.scratch_out);
        out.clear();
        self.listed.clear();
        if listing.is_some() {
            self.listed.resize(self.slots.len().div_ceil(64), 0);
        }
        let prepared = PreparedQuery::new(&self.query);
        let len = self.slots.len();
        // Every ghost but those set aside, in id order.
        for w in 0..len.div_ceil(64) {
            let mut rest = !self.aside.bits().get(w).copied().unwrap_or(0);
            if (w + 1) * 64 > len {
                rest &= (1u64 << (len % 64)) - 1;
            }
            while rest != 0 {
                let idx = w * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let Some(slot) = self.slots[idx].as_mut() else { continue };
                let found = frame.index_of(slot.object);
                if let Some(i) = found {
                    self.held[i / 64] |= 1 << (i % 64);
                }
                // Its squared distance, when this pass tested it (the near ring's test reuses it).
                let mut tested = None;
                let list_now = if self.scoped.get(idx / 64).is_some_and(|w| w & (1 << (idx % 64)) != 0) {
                    // Scoped before this pass (always in scope, or a dependency).
                    found.filter(|&i| !frame.object(i).has_dependencies())
                } else {
                    let Some(i) = found else {
                        out.push(idx as u32);
                        continue;
                    };
                    let o = frame.object(i);
                    let d2 = o.squared_distance(center);
                    if !o.within_at(d2, outer) {
                        out.push(idx as u32);
                        continue;
                    }
                    if o.has_dependencies() {
                        deferred.push(slot.object);
                        out.push(idx as u32);
                        continue;
                    }
                    // Back in scope before its create was even acknowledged: keep it.
                    slot.kill_after_create = false;
                    tested = Some(d2);
                    self.mark_scoped(idx);
                    Some(i)
                };
                if let (Some(l), Some(i)) = (listing.as_deref_mut(), list_now) {
                    let waiting = matches!(self.slots[idx], Some(Slot { phase: Phase::Create, .. }));
                    if !self.list_framed(frame, i, &prepared, idx, l, tested) {
                        self.list_slot(world, Some((frame, i)), &prepared, idx, l);
                    } else if let (true, true, Some(d2)) = (aside, waiting, tested) {
                        self.set_aside(frame.object(i), (i, frame.len()), idx, (d2, outer), travel);
                    }
                    self.listed[idx / 64] |= 1 << (idx % 64);
                }
            }
        }
        self.scratch_out = out;
        for &id in &deferred {
            self.scope_one(world, id, DEPENDENCY_DEPTH);
        }
        self.scratch_deferred = deferred;
        let mut new = std::mem::take(&mut self.scratch_new);
        new.clear();
        frame.for_each_in_radius_unheld(center, vis, &self.held, |i, d| new.push((d, frame.id(i))));
        new.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for &(_, id) in &new {
            self.scope_one(world, id, DEPENDENCY_DEPTH);
        }
        self.scratch_new = new;
        true
    }

    /// Lists, once a frame scoping pass with a listing has ended, every ghost its pass over
    /// the table did not (those that left scope or may have, those with dependencies, those
    /// it created): each ghost is listed once a packet, as [`Self::collect_candidates`]
    /// would; then ends the listing.
    fn list_the_rest(&mut self, world: &(impl GhostWorld + ?Sized), frame: &GhostFrame, mut l: Listing) {
        let prepared = PreparedQuery::new(&self.query);
        let len = self.slots.len();
        self.listed.resize(len.div_ceil(64), 0);
        for w in 0..self.listed.len() {
            // Held ids not listed yet (a free id holds nothing).
            let free = self.free.words.get(w).copied().unwrap_or(0);
            let aside = self.aside.bits().get(w).copied().unwrap_or(0);
            let mut rest = !(self.listed[w] | free | aside);
            if (w + 1) * 64 > len {
                rest &= (1u64 << (len % 64)) - 1;
            }
            while rest != 0 {
                let idx = w * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let fo = self.frame_index(Some(frame), idx);
                self.list_slot(world, fo, &prepared, idx, &mut l);
            }
        }
        self.end_listing(world, l);
    }

    /// [`Self::end_scope`] after a frame scoping pass, which listed every ghost that may
    /// have left scope: only those are looked at (the same ghosts go out, in the same order).
    fn end_scope_listed(&mut self) {
        let out = std::mem::take(&mut self.scratch_out);
        for &idx in &out {
            if let Some(Some(_)) = self.slots.get(idx as usize)
                && !self.is_scoped(idx as usize)
            {
                self.scope_out(idx);
            }
        }
        self.scratch_out = out;
    }

    /// Whether this frame pass may keep and set aside waiting creates (see `ghost/aside.rs`):
    /// with `listing` (a packet listed in the scoping pass), the last packet deferring far
    /// candidates, the same frame layout and radii, and a finite camera; takes every ghost
    /// set aside back when the set cannot be kept, and adds the camera's move to its path.
    fn keep_aside(
        &mut self,
        frame: &GhostFrame,
        listing: bool,
        center: crate::ghost::Point3,
        (vis, outer): (f32, f32),
    ) -> bool {
        let a = &mut self.aside;
        let radii = (vis.to_bits(), outer.to_bits());
        let d = crate::ghost::object::sub(center, a.camera);
        let step = crate::ghost::object::dot(d, d).sqrt();
        let can = listing
            && self.ghosting
            && !self.reset_unacked
            && self.defer_far
            && vis > 0.0
            && outer.is_finite()
            && self.query.visible_distance == vis
            && center.iter().all(|c| c.is_finite());
        if can && step.is_finite() && frame.layout() == a.layout && radii == a.radii {
            a.camera_path += f64::from(step);
            a.camera = center;
            let travel = frame.travel() + a.camera_path;
            a.pace = travel - a.last_travel;
            a.last_travel = travel;
            return true;
        }
        self.take_all_back();
        let a = &mut self.aside;
        a.layout = frame.layout();
        a.radii = radii;
        a.camera = center;
        a.last_travel = frame.travel() + a.camera_path;
        a.pace = f64::INFINITY;
        can
    }

    /// Takes back every ghost set aside whose bound ran out by `travel` (the frame's travel
    /// plus the camera's path), counts this packet's skip for the rest, and marks their
    /// objects held.
    fn take_back_due(&mut self, travel: f64) {
        let slots = &mut self.slots;
        self.aside.take_due(travel, |idx, skips| {
            if let Some(Some(slot)) = slots.get_mut(idx) {
                slot.skips = skips;
            }
        });
        self.aside.mark_held(&mut self.held);
        // The rest are listed far in this packet.
        self.aside.count_listing();
        self.stats.skips += self.aside.len() as u64;
        self.far_count += self.aside.len();
    }

    /// Sets ghost `idx` aside (a create that waits, object `o` at dense index `i`, at squared
    /// distance `d2` from the camera) if its listing just put it among the far candidates and
    /// it is well inside the band between its near ring and `outer` (see `ghost/aside.rs`).
    #[inline(always)]
    fn set_aside(
        &mut self,
        o: &crate::ghost::frame::FrameObject,
        (i, objects): (usize, usize),
        idx: usize,
        (d2, outer): (f32, f32),
        travel: f64,
    ) {
        let (w, bit) = (idx / 64, 1u64 << (idx % 64));
        if !o.ring_here() || self.far.get(w).is_none_or(|f| f & bit == 0) {
            return;
        }
        let d = d2.sqrt();
        let ring = self.query.visible_distance * o.near_ring;
        // Rounding in the distance and the tests is far below this margin.
        let margin = (d - ring).min(outer - d) - 1e-3 * (1.0 + outer);
        // Not for fewer than a few packets at the pace things move (setting aside and taking
        // back cost more than the visits they save).
        if margin.is_nan() || margin <= 0.0 || f64::from(margin) < ASIDE_PACKETS * self.aside.pace {
            return;
        }
        let Some(Some(slot)) = self.slots.get(idx) else { return };
        self.aside.add(idx, travel + f64::from(margin), slot.skips, i, objects);
        // Counted in `far_count` still, as set aside.
        self.far[w] &= !bit;
    }

    /// Takes every ghost set aside back into the pass over the table (their skips into their
    /// slots).
    fn take_all_back(&mut self) {
        let slots = &mut self.slots;
        self.aside.take_all(|idx, skips| {
            if let Some(Some(slot)) = slots.get_mut(idx) {
                slot.skips = skips;
            }
        });
    }

    /// Starts a hand-made scoping pass with this camera query; follow with
    /// [`Self::object_in_scope`] calls and [`Self::end_scope`].
    pub fn begin_scope(&mut self, query: CameraScopeQuery) {
        self.take_all_back();
        self.begin_scope_pass(query);
    }

    /// [`Self::begin_scope`] for a pass that may keep the ghosts set aside.
    fn begin_scope_pass(&mut self, query: CameraScopeQuery) {
        self.query = query;
        self.scoped.clear();
        self.scoped.resize(self.slots.len().div_ceil(64), 0);
    }

    /// True when the current scoping pass found ghost `idx` in scope.
    fn is_scoped(&self, idx: usize) -> bool {
        self.scoped.get(idx / 64).is_some_and(|w| w & (1 << (idx % 64)) != 0)
    }

    fn mark_scoped(&mut self, idx: usize) {
        if idx / 64 >= self.scoped.len() {
            self.scoped.resize(idx / 64 + 1, 0);
        }
        self.scoped[idx / 64] |= 1 << (idx % 64);
    }

    /// V12's `objectInScope`: `id` is of interest to this client in this pass.
    /// Objects it depends on are scoped with it.
    pub fn object_in_scope(&mut self, world: &(impl GhostWorld + ?Sized), id: ObjectId) {
        self.scope_one(world, id, DEPENDENCY_DEPTH);
    }

    fn scope_one(&mut self, world: &(impl GhostWorld + ?Sized), id: ObjectId, depth: u32) {
        if !self.ghosting || self.reset_unacked {
            return;
        }
        if let Some(&idx) = self.by_object.get(&id) {
            if self.is_scoped(idx as usize) {
                return;
            }
            if let Some(Some(slot)) = self.slots.get_mut(idx as usize) {
                // Back in scope before its create was even acknowledged: keep it.
                slot.kill_after_create = false;
                self.mark_scoped(idx as usize);
            }
        } else {
            let Some(obj) = world.object(id) else { return };
            if let Some(c) = self.connection
                && !world.is_ghosted_to(id, c)
            {
                return;
            }
            let flags = obj.net_flags();
            if !flags.contains(NetFlags::GHOSTABLE)
                || (flags.contains(NetFlags::SCOPE_LOCAL) && !self.config.is_local)
            {
                return;
            }
            let Some(class_id) = self.classes.id_of(obj).and_then(|c| u16::try_from(c).ok()) else {
                warn!(object = %id, "ghostable object of an unregistered class");
                return;
            };
            let Some(idx) = self.alloc_id() else {
                warn!(object = %id, "ghost id space full");
                return;
            };
            self.generation = self.generation.wrapping_add(1);
            self.slots[idx as usize] = Some(Slot {
                object: id,
                phase: Phase::Create,
                kill_after_create: false,
                dirty: ALL_MASK_BITS,
                seen: obj.state_mask().version() as u32,
                skips: 0,
            });
            self.cold[idx as usize] = SlotCold { generation: self.generation, class_id };
            self.mark_scoped(idx as usize);
            self.by_object.insert(id, idx);
        }
        if depth > 0
            && let Some(obj) = world.object(id)
        {
            // Usually empty, and then this allocates nothing.
            let mut deps = Vec::new();
            obj.dependencies(&mut deps);
            for dep in deps {
                self.scope_one(world, dep, depth - 1);
            }
        }
    }

    /// Ends a scoping pass: every ghost not scoped in it goes out of scope (is killed).
    pub fn end_scope(&mut self) {
        for idx in 0..self.slots.len() {
            if self.slots[idx].is_some() && !self.is_scoped(idx) {
                self.scope_out(idx as u32);
            }
        }
    }

    fn scope_out(&mut self, idx: u32) {
        let Some(slot) = self.slots[idx as usize].as_mut() else { return };
        match slot.phase {
            // Never reached the client (or its create was lost): nothing to kill.
            Phase::Create => self.free_slot(idx),
            Phase::CreateSent => slot.kill_after_create = true,
            Phase::Live => {
                slot.phase = Phase::Kill;
                slot.dirty = 0;
            }
            Phase::Kill | Phase::KillSent => {}
        }
    }

    /// Grows the tables that hold one entry per ghost (slots, the id map, the free-id bits,
    /// the candidate lists) once they are four-fifths full, to room for twice the ghosts (at
    /// least [`MIN_ROOM`]; the id map to a quarter more); once the ghosts are a quarter of
    /// `bound` (the most the world could give this connection), to `bound` itself. So they grow as a crowd comes into
    /// scope, and not again each time a connection's ghost count creeps past its highest so
    /// far: a steady match scopes, writes and frees without allocating.
    fn keep_room(&mut self, bound: usize) {
        fn room<T>(list: &mut Vec<T>, want: usize, grow_to: usize) {
            if list.capacity() < want {
                list.reserve_exact(grow_to.saturating_sub(list.len()));
            }
        }
        let ghosts = self.slots.len().max(self.by_object.len());
        let most = (self.config.max_ghosts.min(MAX_GHOSTS) as usize).min(bound);
        let (want, grow_to) = if ghosts == 0 {
            return;
        } else if 4 * ghosts >= most {
            (most, most)
        } else {
            ((ghosts + ghosts / 4).max(MIN_ROOM), (2 * ghosts).max(MIN_ROOM))
        };
        room(&mut self.slots, want, grow_to);
        room(&mut self.cold, want, grow_to);
        room(&mut self.scoped, want.div_ceil(64), grow_to.div_ceil(64));
        room(&mut self.candidates, want, grow_to);
        room(&mut self.far, want.div_ceil(64), grow_to.div_ceil(64));
        room(&mut self.free.words, want.div_ceil(64), grow_to.div_ceil(64));
        room(&mut self.listed, want.div_ceil(64), grow_to.div_ceil(64));
        self.aside.reserve(want);
        // Its deleted entries count against its capacity until it rehashes, which it does in
        // place (no allocation) while it is under half full.
        if self.by_object.capacity() < want {
            self.by_object.reserve(want - self.by_object.len());
        }
    }

    fn alloc_id(&mut self) -> Option<u32> {
        if let Some(idx) = self.free.pop_first() {
            return Some(idx);
        }
        let cap = self.config.max_ghosts.min(MAX_GHOSTS) as usize;
        if self.slots.len() >= cap {
            return None;
        }
        self.slots.push(None);
        self.cold.push(SlotCold::default());
        Some((self.slots.len() - 1) as u32)
    }

    fn free_slot(&mut self, idx: u32) {
        if self.aside.has(idx as usize) {
            self.aside.remove(idx as usize);
        }
        if let Some(slot) = self.slots[idx as usize].take() {
            self.by_object.remove(&slot.object);
        }
        self.free.insert(idx);
        // Shrink the id space from the top so the id width can fall again.
        while let Some(None) = self.slots.last() {
            let top = (self.slots.len() - 1) as u32;
            self.free.remove(top);
            self.slots.pop();
            self.cold.pop();
        }
    }

    // ---- writing ----------------------------------------------------------------------

    /// Writes this connection's ghost section into `w`, within `w`'s budget (keeps 1 bit
    /// for the end flag): kills first, then creates and updates by priority; an entry
    /// that does not fit is rewound and its ghost's skip count raised.
    ///
    /// Wire: `0` (no ghosting) | `1 1` (reset: drop every ghost) |
    /// `1 0 0` | `1 0 1 idbits(ranged 1..=18) origin(3 f32)
    /// {1 id (0 update | 1 (1 kill | 0 class-id create)) body}* 0`.
    pub fn write_packet(&mut self, world: &(impl GhostWorld + ?Sized), w: &mut BitWriter) -> GhostRecord {
        self.take_all_back();
        self.write_listed(world, w, false)
    }

    /// [`Self::write_packet`]; `listed`: the scoping pass just listed the candidates.
    fn write_listed(
        &mut self,
        world: &(impl GhostWorld + ?Sized),
        w: &mut BitWriter,
        listed: bool,
    ) -> GhostRecord {
        let packet = self.next_packet;
        self.next_packet += 1;
        let start = w.bit_position();
        // A new list gets a packet's worth of room at once (not 4, 8, 16, ... as it fills).
        let entries = self.spare_entries.pop().unwrap_or_else(|| Vec::with_capacity(ENTRY_LIST_LEN));
        let mut record = GhostRecord { session: self.session, packet, reset: false, entries };
        if !w.write_flag(self.ghosting || self.reset_unacked) {
            self.stats.bits_written += 1;
            return record;
        }
        if w.write_flag(self.reset_unacked) {
            record.reset = true;
            self.stats.bits_written += 2;
            return record;
        }
        if !listed {
            self.collect_candidates(world);
        }
        let mark = w.bit_position();
        if self.candidates.is_empty() && self.far_count == 0 {
            w.write_flag(false);
            self.stats.bits_written += (w.bit_position() - start) as u64;
            return record;
        }
        let budget = w.budget_bits();
        w.write_flag(true);
        let id_bits = self.id_bits();
        w.write_ranged(id_bits, 1, MAX_GHOST_ID_BITS);
        for c in self.query.position {
            w.write_f32(c);
        }
        w.set_budget_bits(budget.saturating_sub(1));
        let compression = CompressionPoint::new(self.query.position.into());
        let class_bits = self.classes.id_bits();
        let mut candidates = std::mem::take(&mut self.candidates);
        // Highest priority first, ties by ghost id (the keys' order, see `rank`): a total
        // order, so the packet is the same whatever order the candidates were listed in. A
        // packet takes a few dozen of hundreds, so only the head is sorted, a chunk at a time
        // as the packet asks for more.
        let mut sorted = 0;
        let mut chunk = 64;
        let mut misfits = 0;
        let mut written = 0usize;
        let stopped_at;
        let mut n = 0;
        loop {
            if w.is_over_budget()
                || w.bits_left() < id_bits as usize + 3
                || misfits >= self.config.max_misfits
            {
                stopped_at = n;
                break;
            }
            if n == candidates.len() {
                if self.far_count == 0 {
                    stopped_at = n;
                    break;
                }
                self.push_far(world, &mut candidates);
            }
            if n == sorted {
                let rest = &mut candidates[n..];
                let k = rest.len().min(chunk);
                if k < rest.len() {
                    rest.select_nth_unstable(k - 1);
                }
                rest[..k].sort_unstable();
                sorted = n + k;
                chunk *= 2;
            }
            let idx = candidates[n] as u32;
            n += 1;
            let entry_start = w.bit_position();
            let mut version_now = 0;
            let Some(slot) = self.slots[idx as usize].as_ref() else { continue };
            let (phase, object, dirty) = (slot.phase, slot.object, slot.dirty);
            let SlotCold { generation, class_id } = self.cold[idx as usize];
            w.write_flag(true);
            w.write_int(idx, id_bits);
            let (kind, sent_mask, remaining) = match phase {
                Phase::Kill | Phase::KillSent => {
                    w.write_flag(true);
                    w.write_flag(true);
                    (GhostEntryKind::Kill, 0, 0)
                }
                Phase::Create | Phase::CreateSent | Phase::Live => {
                    let Some(obj) = world.object(object) else {
                        w.set_bit_position(entry_start);
                        continue;
                    };
                    let initial = matches!(phase, Phase::Create | Phase::CreateSent);
                    w.write_flag(initial);
                    let mask = if initial {
                        w.write_flag(false);
                        w.write_int(u32::from(class_id), class_bits);
                        ALL_MASK_BITS
                    } else {
                        dirty
                    };
                    let known = Known { slots: &self.slots, by_object: &self.by_object };
                    let mut ctx = GhostPackContext { compression, lookup: &known, id_bits, initial };
                    let remaining = obj.pack_update(&mut ctx, mask, w);
                    if initial {
                        version_now = obj.state_mask().version();
                    }
                    let kind = if initial { GhostEntryKind::Create } else { GhostEntryKind::Update };
                    (kind, mask & !remaining, remaining)
                }
            };
            if w.is_over_budget() {
                // Its skip was counted when it was listed.
                w.set_bit_position(entry_start);
                misfits += 1;
                continue;
            }
            let Some(slot) = self.slots[idx as usize].as_mut() else { continue };
            slot.skips = 0;
            self.stats.skips -= 1;
            if self.aside.has(idx as usize) {
                self.aside.remove(idx as usize);
            }
            match kind {
                GhostEntryKind::Kill => {
                    slot.phase = Phase::KillSent;
                    self.stats.kills_sent += 1;
                }
                GhostEntryKind::Create => {
                    slot.phase = Phase::CreateSent;
                    slot.dirty = remaining;
                    slot.seen = version_now as u32;
                    self.stats.creates_sent += 1;
                }
                GhostEntryKind::Update => {
                    slot.dirty = remaining;
                    self.updates_in_flight.push_back(UpdateInFlight {
                        packet,
                        ghost: idx,
                        generation,
                        mask: sent_mask,
                    });
                    self.stats.updates_sent += 1;
                }
            }
            record.entries.push(GhostEntry { ghost: idx, generation, kind, mask: sent_mask });
            written += 1;
        }
        let _ = stopped_at;
        self.clear_far();
        self.candidates = candidates;
        w.set_budget_bits(budget);
        if written == 0 {
            w.set_bit_position(mark);
        }
        w.write_flag(false);
        self.stats.bits_written += (w.bit_position() - start) as u64;
        record
    }

    /// Picks up object changes and deletions, and lists the ghosts that want this packet.
    /// With the world's frame, an object's change stamps, priority terms and dependency flag
    /// come from the frame; the object itself is reached only for what the frame cannot
    /// answer (a custom priority, more groups than the frame keeps, dependencies).
    ///
    /// A candidate outside its near ring goes to `far` unweighed; should any listed
    /// candidate rank at or below the ring's floor, the far ones are weighed at once.
    fn collect_candidates(&mut self, world: &(impl GhostWorld + ?Sized)) {
        let mut l = self.begin_listing();
        let frame = world.frame();
        let prepared = PreparedQuery::new(&self.query);
        for idx in 0..self.slots.len() {
            let fo = self.frame_index(frame, idx);
            self.list_slot(world, fo, &prepared, idx, &mut l);
        }
        self.end_listing(world, l);
    }

    /// The frame and the dense index of slot `idx`'s object, if both are there.
    fn frame_index<'f>(&self, frame: Option<&'f GhostFrame>, idx: usize) -> Option<(&'f GhostFrame, usize)> {
        let slot = self.slots.get(idx)?.as_ref()?;
        let f = frame?;
        Some((f, f.index_of(slot.object)?))
    }

    /// Starts listing the candidates of a packet.
    fn begin_listing(&mut self) -> Listing {
        self.candidates.clear();
        self.clear_far();
        let mut deleted = std::mem::take(&mut self.scratch_deleted);
        deleted.clear();
        Listing { lowest: f32::MAX, deleted }
    }

    /// Lists slot `idx` if it wants the packet (`fo`: its object in the frame): picks its
    /// object's changes up, and weighs it or puts it in `far`. Reads no other slot unless
    /// its object has dependencies, so a scoping pass may list each slot it leaves in scope
    /// as it goes ([`Self::scope_and_write_packet`]).
    // Inlined into the scoping pass, which calls it for most ghosts of every packet.
    #[inline(always)]
    fn list_slot<'w>(
        &mut self,
        world: &'w (impl GhostWorld + ?Sized),
        fo: Option<(&GhostFrame, usize)>,
        prepared: &PreparedQuery,
        idx: usize,
        l: &mut Listing,
    ) {
        let Some(Some(slot)) = self.slots.get_mut(idx) else { return };
        if matches!(slot.phase, Phase::Kill) {
            slot.skips = slot.skips.saturating_add(1);
            self.stats.skips += 1;
            self.candidates.push(rank(KILL_PRIORITY, idx as u32));
            return;
        }
        if matches!(slot.phase, Phase::KillSent) {
            return;
        }
        let mut obj: Option<&'w dyn NetObject> = None;
        if fo.is_none() {
            match world.object(slot.object) {
                Some(o) => obj = Some(o),
                None => {
                    l.deleted.push(idx as u32);
                    return;
                }
            }
        }
        let id = slot.object;
        // The object itself, fetched at most once and only when needed.
        let fetch = |obj: &mut Option<&'w dyn NetObject>| fetch_object(world, id, obj);
        let version = match (fo, obj) {
            (Some((f, i)), _) => f.object(i).version(),
            (None, Some(o)) => o.state_mask().version(),
            (None, None) => return,
        };
        // A create not yet written sends everything: its changes are picked up when it
        // is written.
        if let Some(seen) = newer_than_seen(version, slot.seen)
            && slot.phase != Phase::Create
        {
            let changed = match fo.and_then(|(f, i)| f.detail(i).stamps.changed_since(seen)) {
                Some(c) => c,
                None => match fetch(&mut obj) {
                    Some(o) => o.state_mask().changed_since(seen),
                    None => {
                        l.deleted.push(idx as u32);
                        return;
                    }
                },
            };
            slot.dirty |= changed;
            slot.seen = version as u32;
        }
        let (mask, skips) = match slot.phase {
            Phase::Create => {
                if fo.is_none_or(|(f, i)| f.object(i).has_dependencies()) {
                    let Some(o) = fetch(&mut obj) else {
                        l.deleted.push(idx as u32);
                        return;
                    };
                    let mut deps = std::mem::take(&mut self.scratch_deps);
                    deps.clear();
                    o.dependencies(&mut deps);
                    // A dependency this connection will never hold (not ghostable to
                    // it: no slot after the rider scoped it) does not hold the create
                    // back; the reference packs as none.
                    let known = Known { slots: &self.slots, by_object: &self.by_object };
                    let ready = deps
                        .iter()
                        .all(|&d| known.known_ghost(d).is_some() || !self.by_object.contains_key(&d));
                    self.scratch_deps = deps;
                    if !ready {
                        return;
                    }
                }
                let Some(slot) = self.slots[idx].as_ref() else { return };
                (ALL_MASK_BITS, u32::from(slot.skips))
            }
            Phase::Live if slot.dirty != 0 => (slot.dirty, u32::from(slot.skips)),
            _ => return,
        };
        // A listed candidate counts as skipped now; the packet resets the ones it takes
        // (no pass over the ones it leaves out). The near ring is tested from the object's compact record when it can be; the
        // rest of its terms are read only for the candidates weighed now.
        let p = match fo.filter(|&(f, i)| f.object(i).has_terms()) {
            Some((f, i)) if self.defer_far && f.outside_near_ring(i, prepared) => {
                let w = idx / 64;
                if w >= self.far.len() {
                    self.far.resize(w + 1, 0);
                }
                self.far[w] |= 1 << (idx % 64);
                self.far_count += 1;
                None
            }
            Some((f, i)) => Some(f.priority(i, prepared, skips)),
            None => match fetch(&mut obj) {
                Some(o) => Some(o.get_update_priority(&self.query, mask, skips)),
                None => {
                    l.deleted.push(idx as u32);
                    return;
                }
            },
        };
        if let Some(slot) = self.slots[idx].as_mut() {
            slot.skips = slot.skips.saturating_add(1);
            self.stats.skips += 1;
        }
        let Some(p) = p else { return };
        let p = sanitize(p);
        l.lowest = l.lowest.min(p);
        self.candidates.push(rank(p, idx as u32));
    }

    /// [`Self::list_slot`] for the ghosts a crowd's packets list by the hundred: a create
    /// waiting or a live ghost whose object is in the frame with priority terms and no
    /// dependencies, its changes answered by the frame. Returns false, having changed
    /// nothing, for any other ghost (then list it with `list_slot`).
    #[inline(always)]
    fn list_framed(
        &mut self,
        f: &GhostFrame,
        i: usize,
        q: &PreparedQuery,
        idx: usize,
        l: &mut Listing,
        d2: Option<f32>,
    ) -> bool {
        let o = f.object(i);
        if !o.has_terms() || o.has_dependencies() {
            return false;
        }
        let Some(Some(slot)) = self.slots.get_mut(idx) else { return false };
        match slot.phase {
            // Sends everything when written: no changes to pick up.
            Phase::Create => {}
            Phase::Live => {
                if let Some(seen) = newer_than_seen(o.version(), slot.seen) {
                    let Some(changed) = f.detail(i).stamps.changed_since(seen) else { return false };
                    slot.dirty |= changed;
                    slot.seen = o.version() as u32;
                }
                if slot.dirty == 0 {
                    return true;
                }
            }
            Phase::CreateSent | Phase::Kill | Phase::KillSent => return false,
        }
        let skips = u32::from(slot.skips);
        // A listed candidate counts as skipped now (see `list_slot`).
        slot.skips = slot.skips.saturating_add(1);
        self.stats.skips += 1;
        if self.defer_far
            && d2.and_then(|d2| o.outside_near_ring_at(d2, q)).unwrap_or_else(|| f.outside_near_ring(i, q))
        {
            let w = idx / 64;
            if w >= self.far.len() {
                self.far.resize(w + 1, 0);
            }
            self.far[w] |= 1 << (idx % 64);
            self.far_count += 1;
            return true;
        }
        let p = sanitize(f.priority(i, q, skips));
        l.lowest = l.lowest.min(p);
        self.candidates.push(rank(p, idx as u32));
        true
    }

    /// Ends a listing: kills the ghosts of deleted objects, and weighs the far candidates
    /// now if the listed ones reach below them.
    fn end_listing(&mut self, world: &(impl GhostWorld + ?Sized), l: Listing) {
        let Listing { lowest, deleted } = l;
        for &idx in &deleted {
            debug!(ghost = idx, "object deleted; killing its ghost");
            self.scope_out(idx);
            if let Some(Some(slot)) = self.slots.get_mut(idx as usize)
                && slot.phase == Phase::Kill
            {
                slot.skips = slot.skips.saturating_add(1);
                self.stats.skips += 1;
                self.candidates.push(rank(KILL_PRIORITY, idx));
            }
        }
        self.scratch_deleted = deleted;
        // From the second packet on the far candidates are deferred: each is weighed at most
        // once a packet either way (when listed, or when the packet reaches them), and
        // deferred they need no weighing in the packets that do not (most of a crowd's), and
        // may be set aside. (Deferring only after a packet with many candidates ranked above
        // them took all set aside back at every packet with few.)
        self.defer_far = true;
        if lowest <= crate::ghost::weights::NEAR - 1.0 && self.far_count > 0 {
            let mut candidates = std::mem::take(&mut self.candidates);
            self.push_far(world, &mut candidates);
            self.candidates = candidates;
        }
    }

    /// Weighs the candidates in `far` (outside their near rings) onto `candidates`, in ghost
    /// id order (the packet sorts them), and empties `far`.
    fn push_far(&mut self, world: &(impl GhostWorld + ?Sized), candidates: &mut Vec<u64>) {
        let far = std::mem::take(&mut self.far);
        if let Some(frame) = world.frame() {
            let prepared = PreparedQuery::new(&self.query);
            // The creates set aside are far candidates too.
            let far_ones = set_bits(&far).map(|idx| (idx, false));
            let aside_ones = set_bits(self.aside.bits()).map(|idx| (idx, true));
            for (idx, aside) in far_ones.chain(aside_ones) {
                let Some(Some(slot)) = self.slots.get(idx) else { continue };
                let Some(terms) = frame.index_of(slot.object).and_then(|i| frame.detail(i).terms) else {
                    continue;
                };
                // Its listing counted one skip (saturating: from u16::MAX - 1 or from
                // u16::MAX, which weigh the same, both at the ring's floor).
                let skips = if aside { self.aside.skips(idx) } else { slot.skips };
                let skips = u32::from(skips).saturating_sub(1);
                candidates.push(rank(sanitize(terms.priority(&prepared, skips)), idx as u32));
            }
        }
        self.far = far;
        self.clear_far();
    }

    fn clear_far(&mut self) {
        self.far.clear();
        self.far_count = 0;
    }

    // ---- notifies ---------------------------------------------------------------------

    /// The packet carrying `record` reached the client.
    pub fn packet_delivered(&mut self, record: GhostRecord) {
        self.notify(record, true);
    }

    /// The packet carrying `record` was lost: the resend rule. A lost create is sent again
    /// as a create, a lost kill again as a kill, and a lost update puts back only the mask
    /// bits that no later packet carried again (that packet holds newer data).
    pub fn packet_dropped(&mut self, record: GhostRecord) {
        self.notify(record, false);
    }

    fn notify(&mut self, record: GhostRecord, delivered: bool) {
        if record.session != self.session {
            return;
        }
        if record.packet != self.next_notify {
            warn!(expected = self.next_notify, got = record.packet, "ghost notify out of send order");
        }
        self.next_notify = record.packet + 1;
        if record.reset && delivered {
            self.reset_unacked = false;
        }
        // This packet's updates lead the ring (notifies come in send order; entries of a
        // packet never notified are stale).
        while self.updates_in_flight.front().is_some_and(|u| u.packet < record.packet) {
            self.updates_in_flight.pop_front();
        }
        let ours = self.updates_in_flight.iter().take_while(|u| u.packet == record.packet).count();
        if !delivered && ours > 0 {
            self.put_back_dropped(ours);
        }
        self.updates_in_flight.drain(..ours);
        let mut entries = record.entries;
        for e in entries.drain(..) {
            if e.kind == GhostEntryKind::Update {
                continue;
            }
            let Some(Some(slot)) = self.slots.get_mut(e.ghost as usize) else { continue };
            if self.cold[e.ghost as usize].generation != e.generation {
                continue;
            }
            if self.aside.has(e.ghost as usize) {
                // (Only a create that waits is set aside; none is in flight.)
                slot.skips = self.aside.remove(e.ghost as usize);
            }
            match (e.kind, delivered) {
                (GhostEntryKind::Create, true) => {
                    self.stats.creates_acked += 1;
                    slot.phase = Phase::Live;
                    if slot.kill_after_create {
                        slot.phase = Phase::Kill;
                        slot.dirty = 0;
                    }
                }
                (GhostEntryKind::Create, false) => {
                    if slot.kill_after_create {
                        self.free_slot(e.ghost);
                    } else {
                        slot.phase = Phase::Create;
                    }
                }
                (GhostEntryKind::Update, _) => {}
                (GhostEntryKind::Kill, true) => {
                    self.stats.kills_acked += 1;
                    self.free_slot(e.ghost);
                }
                (GhostEntryKind::Kill, false) => slot.phase = Phase::Kill,
            }
        }
        if self.spare_entries.len() < SPARE_ENTRY_LISTS {
            self.spare_entries.push(entries);
        }
    }
}

impl GhostManager {
    /// The resend rule for the first `ours` updates in flight (a dropped packet's): each
    /// puts back the bits no later packet carried again, if its ghost is still live.
    fn put_back_dropped(&mut self, ours: usize) {
        let mut later = std::mem::take(&mut self.scratch_later);
        later.clear();
        for u in self.updates_in_flight.range(..ours) {
            later.insert(u.ghost, 0);
        }
        for u in self.updates_in_flight.range(ours..) {
            // A later entry of the same ghost id is the same ghost: the dropped entry is
            // only used below while its slot keeps the generation it was written with.
            if let Some(m) = later.get_mut(&u.ghost) {
                *m |= u.mask;
            }
        }
        for u in self.updates_in_flight.range(..ours) {
            let Some(Some(slot)) = self.slots.get_mut(u.ghost as usize) else { continue };
            if self.cold[u.ghost as usize].generation != u.generation || slot.phase != Phase::Live {
                continue;
            }
            let back = u.mask & !later.get(&u.ghost).copied().unwrap_or(0);
            self.stats.bits_resent += u64::from(back.count_ones());
            slot.dirty |= back;
        }
        self.scratch_later = later;
    }
}

/// `world`'s object `id`, looked up once into `cache`.
fn fetch_object<'w>(
    world: &'w (impl GhostWorld + ?Sized),
    id: ObjectId,
    cache: &mut Option<&'w dyn NetObject>,
) -> Option<&'w dyn NetObject> {
    if cache.is_none() {
        *cache = world.object(id);
    }
    *cache
}

/// The indices of the set bits of `words`, lowest first.
fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &bits)| {
        std::iter::successors((bits != 0).then_some(bits), |&b| Some(b & (b - 1)).filter(|&r| r != 0))
            .map(move |b| w * 64 + b.trailing_zeros() as usize)
    })
}

/// A candidate's sort key: ascending keys are descending priorities (in `f32::total_cmp`'s
/// order), ties by ascending ghost id. Integers sort and select several times faster than
/// pairs compared through `total_cmp`.
#[inline(always)]
fn rank(priority: f32, ghost: u32) -> u64 {
    // `total_cmp`'s key: the bits as an `i32`, the magnitude's bits flipped when negative;
    // then as a `u32` in the same order (sign bit flipped), reversed.
    let b = priority.to_bits() as i32;
    let key = (b ^ ((((b >> 31) as u32) >> 1) as i32)) as u32 ^ 0x8000_0000;
    (u64::from(!key) << 32) | u64::from(ghost)
}

fn sanitize(p: f32) -> f32 {
    if p.is_nan() { 0.0 } else { p.min(f32::MAX / 2.0) }
}

/// A set of free slot indices as a bitset: the lowest first, and no allocation once the
/// table has reached its size (a `BTreeSet` allocated a node as ghosts came and went).
#[derive(Debug, Default, Clone)]
struct FreeIds {
    words: Vec<u64>,
    count: usize,
    /// No free index lies in a word below this one.
    low: usize,
}

impl FreeIds {
    fn insert(&mut self, idx: u32) {
        let (w, bit) = (idx as usize / 64, 1u64 << (idx % 64));
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        if self.words[w] & bit == 0 {
            self.words[w] |= bit;
            self.count += 1;
            self.low = self.low.min(w);
        }
    }

    fn remove(&mut self, idx: u32) {
        let bit = 1u64 << (idx % 64);
        if let Some(w) = self.words.get_mut(idx as usize / 64)
            && *w & bit != 0
        {
            *w &= !bit;
            self.count -= 1;
        }
    }

    /// Takes the lowest free index.
    fn pop_first(&mut self) -> Option<u32> {
        if self.count == 0 {
            return None;
        }
        let (i, w) = self.words.iter_mut().enumerate().skip(self.low).find(|(_, w)| **w != 0)?;
        let bit = w.trailing_zeros();
        *w &= *w - 1;
        self.count -= 1;
        self.low = i;
        Some(i as u32 * 64 + bit)
    }

    fn clear(&mut self) {
        self.words.fill(0);
        self.count = 0;
        self.low = 0;
    }
}

#[cfg(test)]
mod rank_tests {
    use super::rank;

    /// Sorting by `rank` is sorting by priority, highest first (`total_cmp`), then ghost id.
    #[test]
    fn rank_orders_as_total_cmp_then_id() {
        let ps = [
            f32::MAX / 2.0,
            100.5,
            100.0,
            99.0,
            1.0,
            f32::MIN_POSITIVE,
            1e-40,
            0.0,
            -0.0,
            -1e-40,
            -1.0,
            -f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let mut pairs = Vec::new();
        for (i, &p) in ps.iter().enumerate() {
            for g in [0u32, 7, u32::MAX, i as u32 * 3] {
                pairs.push((p, g));
            }
        }
        let mut by_pairs = pairs.clone();
        by_pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut keys: Vec<u64> = pairs.iter().map(|&(p, g)| rank(p, g)).collect();
        keys.sort_unstable();
        let want: Vec<u64> = by_pairs.iter().map(|&(p, g)| rank(p, g)).collect();
        assert_eq!(keys, want);
        assert!(keys.iter().zip(&by_pairs).all(|(&k, &(_, g))| k as u32 == g));
    }
}

#[cfg(test)]
mod free_ids_tests {
    use super::FreeIds;

    #[test]
    fn lowest_first_and_removal() {
        let mut f = FreeIds::default();
        for i in [130, 5, 64, 7] {
            f.insert(i);
        }
        f.insert(5);
        f.remove(7);
        f.remove(999);
        assert_eq!(f.pop_first(), Some(5));
        f.insert(3);
        assert_eq!(f.pop_first(), Some(3));
        assert_eq!(f.pop_first(), Some(64));
        assert_eq!(f.pop_first(), Some(130));
        assert_eq!(f.pop_first(), None);
        f.insert(2);
        f.clear();
        assert_eq!(f.pop_first(), None);
    }
}
