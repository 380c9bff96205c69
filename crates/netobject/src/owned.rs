//! Network objects with owners (the owned-object model, "network aware objects").
//!
//! Every replicated object has an [`Owner`]: the server or one client. With security on (the
//! default for a class) only the server creates, changes and deletes the object; its owner
//! influences it only through [`ControlMessage`]s, which the server checks and hands to the
//! application, whose changes then go out as ordinary ghost updates. With security off for
//! a class ([`ClassPolicy::accept_client_sync`]) the owning client may create the object
//! ([`ClientObjectCreate`]) and sync it ([`ClientObjectSync`]); the server applies the state
//! to its copy and the ghosting relays it to every other client (not back to the owner:
//! [`OwnedObjects::is_ghosted_to`]). Anything from a client that is not the owner, for a
//! class that does not accept it, or naming a ghost the connection does not hold, is
//! refused and the sender is dropped with a "cheater" reason.
//!
//! Sync ordering: each client sync carries a 16-bit sequence; one that is not newer than
//! the last accepted (wrap-aware, [`sync_is_new`]) is ignored.
//!
//! Reference counts ([`OwnedObjects::add_ref`] / [`OwnedObjects::release`]) keep an object
//! that others point at alive; when its owner leaves, the class's [`OwnerLeavePolicy`]
//! destroys it (once nothing points at it) or hands it to the server.

use crate::error::{NetError, Result};
use crate::event::{ConnectionId, EventDirection, NetEvent, NetEventClass, PackContext, UnpackContext};
use crate::ghost::{GhostClassRegistry, GhostWorld, NetObject, ObjectId};
use crate::interface::NetInterface;
use crate::registry::NetClassRegistryBuilder;
use hashbrown::HashMap;
use std::sync::Arc;
use tracing::{info, warn};
use v12_bitstream::{BitReader, BitWriter};

/// Longest control message or sync body in bytes (they must fit one client packet).
pub const MAX_OWNED_BODY: usize = 400;
const LEN_BITS: u32 = 9;

/// Who owns an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// The server (the default).
    Server,
    /// A client, by its connection on the server.
    Client(ConnectionId),
}

/// What happens to a client's objects when the client leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OwnerLeavePolicy {
    /// Destroyed (as soon as no reference holds it).
    #[default]
    Destroy,
    /// The server becomes the owner.
    HandToServer,
}

/// The per-class ownership rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassPolicy {
    /// Security off (the owned-object model's `accept_client_sync`): the owning client may create
    /// and sync.
    pub accept_client_sync: bool,
    /// What happens when the owner leaves.
    pub on_owner_leave: OwnerLeavePolicy,
}

/// The owned-object model's `sync_is_new`: is `seq` newer than `last`, with 16-bit wrap-around?
pub fn sync_is_new(last: Option<u16>, seq: u16) -> bool {
    match last {
        None => true,
        Some(last) => (seq.wrapping_sub(last) as i16) > 0,
    }
}

fn write_body(w: &mut BitWriter, body: &[u8]) {
    let body = &body[..body.len().min(MAX_OWNED_BODY)];
    w.write_int(body.len() as u32, LEN_BITS);
    w.write_bytes(body);
}

fn read_body(r: &mut BitReader<'_>) -> Result<Vec<u8>> {
    let len = r.read_int(LEN_BITS)? as usize;
    if len > MAX_OWNED_BODY {
        return Err(NetError::TooLong { what: "owned-object body", len, max: MAX_OWNED_BODY });
    }
    let mut body = vec![0; len];
    r.read_bytes(&mut body)?;
    Ok(body)
}

/// Owner → server: an order for an object the sender owns, named by its ghost id.
/// The body is the application's (e.g. "move one meter to the left").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlMessage {
    pub ghost: u32,
    pub body: Vec<u8>,
}

impl NetEvent for ControlMessage {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.ghost, 32);
        write_body(w, &self.body);
    }
}

impl NetEventClass for ControlMessage {
    const NAME: &'static str = "v12.ControlMessage";
    const DIRECTION: EventDirection = EventDirection::ClientToServer;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        Ok(Self { ghost: r.read_int(32)?, body: read_body(r)? })
    }
}

/// Owning client → server (security off): "I created object `local` of this ghost class".
/// `state` is the object's full update.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientObjectCreate {
    pub local: u32,
    pub class_id: u32,
    pub state: Vec<u8>,
}

impl NetEvent for ClientObjectCreate {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.local, 32);
        w.write_int(self.class_id, 16);
        write_body(w, &self.state);
    }
}

impl NetEventClass for ClientObjectCreate {
    const NAME: &'static str = "v12.ClientObjectCreate";
    const DIRECTION: EventDirection = EventDirection::ClientToServer;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        Ok(Self { local: r.read_int(32)?, class_id: r.read_int(16)?, state: read_body(r)? })
    }
}

/// Which object a client sync names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncTarget {
    /// One the client created (its own number for it).
    Local(u32),
    /// One the client sees as a ghost (a server-made object the client owns).
    Ghost(u32),
}

/// Owning client → server (security off): the object's new state. Unguaranteed: a later
/// sync supersedes a lost one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientObjectSync {
    pub target: SyncTarget,
    pub seq: u16,
    pub state: Vec<u8>,
}

impl NetEvent for ClientObjectSync {
    fn guarantee(&self) -> crate::Guarantee {
        crate::Guarantee::Unguaranteed
    }
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        let (ghost, id) = match self.target {
            SyncTarget::Local(id) => (false, id),
            SyncTarget::Ghost(id) => (true, id),
        };
        w.write_flag(ghost);
        w.write_int(id, 32);
        w.write_int(u32::from(self.seq), 16);
        write_body(w, &self.state);
    }
}

impl NetEventClass for ClientObjectSync {
    const NAME: &'static str = "v12.ClientObjectSync";
    const DIRECTION: EventDirection = EventDirection::ClientToServer;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        let ghost = r.read_flag()?;
        let id = r.read_int(32)?;
        let target = if ghost { SyncTarget::Ghost(id) } else { SyncTarget::Local(id) };
        Ok(Self { target, seq: r.read_int(16)? as u16, state: read_body(r)? })
    }
}

/// Owning client → server (security off): "I deleted object `local`".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientObjectDelete {
    pub local: u32,
}

impl NetEvent for ClientObjectDelete {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.local, 32);
    }
}

impl NetEventClass for ClientObjectDelete {
    const NAME: &'static str = "v12.ClientObjectDelete";
    const DIRECTION: EventDirection = EventDirection::ClientToServer;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        Ok(Self { local: r.read_int(32)? })
    }
}

/// Registers the four owned-object events (both ends must).
pub fn register_events(builder: &mut NetClassRegistryBuilder) -> &mut NetClassRegistryBuilder {
    builder
        .register::<ControlMessage>()
        .register::<ClientObjectCreate>()
        .register::<ClientObjectSync>()
        .register::<ClientObjectDelete>()
}

pub use crate::ghost::{pack_state, unpack_state};

/// The server's object arena as owned objects need it: ghosting's view plus creation,
/// mutation and deletion.
pub trait OwnedWorld: GhostWorld {
    /// The object, mutably.
    fn object_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject>;
    /// Takes a new object (created by a client) and names it.
    fn insert_object(&mut self, object: Box<dyn NetObject>) -> ObjectId;
    /// Deletes an object (its ghosts are killed on the next packets).
    fn remove_object(&mut self, id: ObjectId);
}

#[derive(Clone, Debug)]
struct Record {
    owner: Owner,
    class_id: u32,
    last_sync: Option<u16>,
    refs: u32,
    /// The owner left and the class destroys: remove once `refs` is 0.
    doomed: bool,
}

/// What a client's owned-object event did (on success).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handled {
    /// A control message from the owner: the application applies `body` to `object`.
    Control { object: ObjectId, body: Vec<u8> },
    /// A client created an object (now in the world, owned by it).
    Created(ObjectId),
    /// A sync was applied to the server's copy.
    Synced(ObjectId),
    /// A sync older than the last accepted one, or for an object not there yet: ignored.
    Ignored,
    /// A client deleted its object.
    Deleted(ObjectId),
    /// Not an owned-object event: the application handles it.
    NotOwned,
}

/// The server's table of owners, sync sequences and reference counts.
#[derive(Debug, Default)]
pub struct OwnedObjects {
    policies: HashMap<u32, ClassPolicy>,
    objects: HashMap<ObjectId, Record>,
    by_local: HashMap<(ConnectionId, u32), ObjectId>,
    /// Clients dropped as cheaters so far.
    pub cheaters: u64,
}

impl OwnedObjects {
    /// An empty table; every class is security-on until [`Self::set_policy`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The rules of ghost class `class_id`.
    pub fn set_policy(&mut self, class_id: u32, policy: ClassPolicy) {
        self.policies.insert(class_id, policy);
    }

    fn policy(&self, class_id: u32) -> ClassPolicy {
        self.policies.get(&class_id).copied().unwrap_or_default()
    }

    /// Registers a server-made object and its owner (the server creates every object of a
    /// security-on class, even one a client owns and controls).
    pub fn insert(&mut self, id: ObjectId, class_id: u32, owner: Owner) {
        self.objects.insert(id, Record { owner, class_id, last_sync: None, refs: 0, doomed: false });
    }

    /// Forgets an object the server deleted.
    pub fn remove(&mut self, id: ObjectId) {
        self.objects.remove(&id);
        self.by_local.retain(|_, o| *o != id);
    }

    /// The owner of an object.
    pub fn owner(&self, id: ObjectId) -> Option<Owner> {
        self.objects.get(&id).map(|r| r.owner)
    }

    /// Objects owned by `owner`, sorted.
    pub fn owned_by(&self, owner: Owner) -> Vec<ObjectId> {
        let mut v: Vec<_> =
            self.objects.iter().filter(|(_, r)| r.owner == owner).map(|(id, _)| *id).collect();
        v.sort();
        v
    }

    /// Number of objects tracked.
    pub fn len(&self) -> usize {
        self.objects.len()
    }
    /// True with none.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Something now points at `id` (the owned-object model's reference counter).
    pub fn add_ref(&mut self, id: ObjectId) {
        if let Some(r) = self.objects.get_mut(&id) {
            r.refs += 1;
        }
    }

    /// A pointer to `id` is gone. Returns true when this deleted the object (its owner
    /// left, its class destroys, and this was the last reference).
    pub fn release(&mut self, id: ObjectId, world: &mut dyn OwnedWorld) -> bool {
        let Some(r) = self.objects.get_mut(&id) else { return false };
        r.refs = r.refs.saturating_sub(1);
        if r.refs == 0 && r.doomed {
            self.remove(id);
            world.remove_object(id);
            return true;
        }
        false
    }

    /// References held on `id`.
    pub fn ref_count(&self, id: ObjectId) -> u32 {
        self.objects.get(&id).map_or(0, |r| r.refs)
    }

    /// For [`GhostWorld::is_ghosted_to`]: a client-created object is not ghosted back to its
    /// owner (the owner holds the original).
    pub fn is_ghosted_to(&self, id: ObjectId, connection: ConnectionId) -> bool {
        !self.by_local.iter().any(|(&(c, _), &o)| c == connection && o == id)
    }

    /// A client left: its objects are destroyed or handed to the server, by class policy.
    /// Returns the objects deleted now.
    pub fn client_left(&mut self, connection: ConnectionId, world: &mut dyn OwnedWorld) -> Vec<ObjectId> {
        let mut deleted = Vec::new();
        for id in self.owned_by(Owner::Client(connection)) {
            let Some(r) = self.objects.get(&id).cloned() else { continue };
            match self.policy(r.class_id).on_owner_leave {
                OwnerLeavePolicy::HandToServer => {
                    if let Some(r) = self.objects.get_mut(&id) {
                        r.owner = Owner::Server;
                    }
                }
                OwnerLeavePolicy::Destroy if r.refs == 0 => {
                    self.remove(id);
                    world.remove_object(id);
                    deleted.push(id);
                }
                OwnerLeavePolicy::Destroy => {
                    if let Some(r) = self.objects.get_mut(&id) {
                        r.owner = Owner::Server;
                        r.doomed = true;
                    }
                }
            }
        }
        self.by_local.retain(|(c, _), _| *c != connection);
        deleted
    }

    /// Checks and applies one event a client sent. A refusal drops the sender from `net`
    /// as a cheater (the reason starts with "cheater") and returns it as the error; nothing
    /// in the world changes then.
    pub fn handle_event(
        &mut self,
        net: &mut NetInterface,
        connection: ConnectionId,
        event: &dyn NetEvent,
        classes: &Arc<GhostClassRegistry>,
        world: &mut dyn OwnedWorld,
    ) -> std::result::Result<Handled, String> {
        let result = self.check(net, connection, event, classes, world);
        if let Err(why) = &result {
            self.cheaters += 1;
            warn!(%connection, reason = %why, "dropping a cheater");
            net.disconnect(connection, why);
        }
        result
    }

    fn ghost_object(&self, net: &NetInterface, connection: ConnectionId, ghost: u32) -> Option<ObjectId> {
        net.ghost_manager(connection)?.object_of(ghost)
    }

    fn check(
        &mut self,
        net: &NetInterface,
        connection: ConnectionId,
        event: &dyn NetEvent,
        classes: &Arc<GhostClassRegistry>,
        world: &mut dyn OwnedWorld,
    ) -> std::result::Result<Handled, String> {
        let me = Owner::Client(connection);
        if let Some(c) = event.downcast_ref::<ControlMessage>() {
            let object = self
                .ghost_object(net, connection, c.ghost)
                .ok_or_else(|| format!("cheater: control message for ghost {} it does not hold", c.ghost))?;
            if self.owner(object) != Some(me) {
                return Err(format!("cheater: control message for object {object} it does not own"));
            }
            return Ok(Handled::Control { object, body: c.body.clone() });
        }
        if let Some(c) = event.downcast_ref::<ClientObjectCreate>() {
            let name =
                classes.name(c.class_id).ok_or_else(|| format!("cheater: unknown class {}", c.class_id))?;
            if !self.policy(c.class_id).accept_client_sync {
                return Err(format!("cheater: client create of {name}, a server-owned class"));
            }
            if self.by_local.contains_key(&(connection, c.local)) {
                return Err(format!("cheater: object {} created twice", c.local));
            }
            let mut obj = classes.create(c.class_id).ok_or_else(|| format!("cheater: class {name}"))?;
            unpack_state(&mut *obj, &c.state).map_err(|e| format!("cheater: bad create state: {e}"))?;
            let id = world.insert_object(obj);
            self.objects.insert(
                id,
                Record { owner: me, class_id: c.class_id, last_sync: None, refs: 0, doomed: false },
            );
            self.by_local.insert((connection, c.local), id);
            info!(%connection, object = %id, class = name, "client created an object");
            return Ok(Handled::Created(id));
        }
        if let Some(s) = event.downcast_ref::<ClientObjectSync>() {
            let object = match s.target {
                SyncTarget::Local(local) => match self.by_local.get(&(connection, local)) {
                    Some(&id) => id,
                    // Not created yet (an unguaranteed sync overtook nothing: creates are
                    // ordered, so this is a sync for an object never made or already gone).
                    None => return Ok(Handled::Ignored),
                },
                SyncTarget::Ghost(ghost) => self
                    .ghost_object(net, connection, ghost)
                    .ok_or_else(|| format!("cheater: sync for ghost {ghost} it does not hold"))?,
            };
            let rec =
                self.objects.get(&object).ok_or_else(|| format!("cheater: sync for object {object}"))?;
            if !self.policy(rec.class_id).accept_client_sync {
                let name = classes.name(rec.class_id).unwrap_or("?");
                return Err(format!("cheater: client sync of {name}, a server-owned class"));
            }
            if rec.owner != me {
                return Err(format!("cheater: sync for object {object} it does not own"));
            }
            if !sync_is_new(rec.last_sync, s.seq) {
                return Ok(Handled::Ignored);
            }
            let obj = world.object_mut(object).ok_or_else(|| format!("cheater: sync for object {object}"))?;
            unpack_state(obj, &s.state).map_err(|e| format!("cheater: bad sync state: {e}"))?;
            if let Some(r) = self.objects.get_mut(&object) {
                r.last_sync = Some(s.seq);
            }
            return Ok(Handled::Synced(object));
        }
        if let Some(d) = event.downcast_ref::<ClientObjectDelete>() {
            let object = self
                .by_local
                .remove(&(connection, d.local))
                .ok_or_else(|| format!("cheater: delete of object {} it does not own", d.local))?;
            let refs = self.ref_count(object);
            if refs == 0 {
                self.remove(object);
                world.remove_object(object);
            } else if let Some(r) = self.objects.get_mut(&object) {
                r.doomed = true;
                r.owner = Owner::Server;
            }
            return Ok(Handled::Deleted(object));
        }
        Ok(Handled::NotOwned)
    }
}

/// The client's side: numbers its own objects and stamps its syncs.
#[derive(Debug, Default)]
pub struct OwnedClient {
    next_local: u32,
    seqs: HashMap<u32, u16>,
}

impl OwnedClient {
    /// Nothing created yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Announces an object this client created (security-off class); returns its local
    /// number for later syncs.
    pub fn create(
        &mut self,
        net: &mut NetInterface,
        connection: ConnectionId,
        classes: &GhostClassRegistry,
        object: &dyn NetObject,
    ) -> Result<u32> {
        let class_id = classes.id_of(object).ok_or(NetError::UnregisteredEvent)?;
        let local = self.next_local;
        self.next_local = self.next_local.wrapping_add(1);
        let ev = ClientObjectCreate { local, class_id, state: pack_state(object) };
        net.post_event(connection, Box::new(ev))?;
        Ok(local)
    }

    fn next_seq(&mut self, key: u32) -> u16 {
        let s = self.seqs.entry(key).or_insert(0);
        *s = s.wrapping_add(1);
        *s
    }

    /// Sends the object's current state (V12's `request_sync`).
    pub fn sync(
        &mut self,
        net: &mut NetInterface,
        connection: ConnectionId,
        target: SyncTarget,
        object: &dyn NetObject,
    ) -> Result<()> {
        let key = match target {
            SyncTarget::Local(l) => l,
            SyncTarget::Ghost(g) => g | 1 << 31,
        };
        let seq = self.next_seq(key);
        net.post_event(connection, Box::new(ClientObjectSync { target, seq, state: pack_state(object) }))
    }

    /// Sends a control message to the server's copy of ghost `ghost` (which this client owns).
    pub fn control(
        &mut self,
        net: &mut NetInterface,
        connection: ConnectionId,
        ghost: u32,
        body: Vec<u8>,
    ) -> Result<()> {
        net.post_event(connection, Box::new(ControlMessage { ghost, body }))
    }

    /// Deletes an object this client created.
    pub fn delete(&mut self, net: &mut NetInterface, connection: ConnectionId, local: u32) -> Result<()> {
        self.seqs.remove(&local);
        net.post_event(connection, Box::new(ClientObjectDelete { local }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_is_new_wraps() {
        assert!(sync_is_new(None, 0));
        assert!(sync_is_new(Some(1), 2));
        assert!(!sync_is_new(Some(2), 2));
        assert!(!sync_is_new(Some(2), 1));
        assert!(sync_is_new(Some(u16::MAX), 0), "wraps");
        assert!(sync_is_new(Some(65_000), 100));
        assert!(!sync_is_new(Some(100), 65_000), "a sync from before the wrap is old");
    }
}
