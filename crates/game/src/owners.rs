//! Owner and security objects (the owned-object model) for game code. A game object may belong to a
//! client (`%obj.setOwner(%client)`, `%obj.getOwner()`); the owning client sends it control
//! messages (`sendControlMessage(%ghost, %text)` on the client, `%ghost` one of its ghosts), which
//! the server checks (`v12_netobject::owned::OwnedObjects`: only the owner, only for an object the
//! sender holds as a ghost) before the datablock's `onControlMessage(%data, %obj, %client,
//! %text)` runs. Every game class is security-on: what a client might send to create, sync or
//! delete objects itself is refused, and a refused sender is dropped as a cheater. When a
//! client leaves, what it owned goes back to the server (the script's `onDrop` decides what
//! to delete, as in V12).

use crate::state::Shared;
use crate::{HIDDEN, SharedDriver};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{Console, Value};
use v12_netobject::ghost::{GhostWorld, NetObject, ObjectId, Point3};
use v12_netobject::owned::{
    ClassPolicy, ClientObjectCreate, ClientObjectDelete, ClientObjectSync, ControlMessage, Handled,
    MAX_OWNED_BODY, OwnedWorld, Owner, OwnerLeavePolicy,
};
use v12_netobject::{ConnectionId, NetEvent};
use v12_sim::scene::{SceneObject, SceneWorld};

/// The ghost class id of `SceneObject` (registered first in [`crate::registries`]).
pub(crate) const SCENE_OBJECT_CLASS: u32 = 0;

/// The server's scene as the owner table sees it.
struct OwnedScene<'a>(&'a mut SceneWorld);

impl GhostWorld for OwnedScene<'_> {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        self.0.object(id)
    }
    fn for_each_scope_always(&self, f: &mut dyn FnMut(ObjectId)) {
        self.0.for_each_scope_always(f);
    }
    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        self.0.objects_in_radius(center, radius, f);
    }
}

impl OwnedWorld for OwnedScene<'_> {
    fn object_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject> {
        self.0.get_mut(id.0).map(|o| o as &mut dyn NetObject)
    }

    /// Only reached for a class whose security is off, which no game class is; should a game
    /// turn it off, a `SceneObject` joins the scene and anything else is kept out (a hidden
    /// empty object stands in, so the owner table stays consistent).
    fn insert_object(&mut self, object: Box<dyn NetObject>) -> ObjectId {
        let any: Box<dyn std::any::Any> = object;
        let obj = match any.downcast::<SceneObject>() {
            Ok(o) => *o,
            Err(_) => {
                tracing::error!("a client created an object the scene cannot hold; a hidden one stands in");
                let mut o = SceneObject::new(0, Vec3::ZERO);
                o.flags = HIDDEN;
                o
            }
        };
        ObjectId(self.0.add(obj))
    }

    fn remove_object(&mut self, id: ObjectId) {
        self.0.remove(id.0);
    }
}

/// True for the events the owner table judges (control messages and client-made objects).
pub(crate) fn is_owned_event(event: &dyn NetEvent) -> bool {
    event.downcast_ref::<ControlMessage>().is_some()
        || event.downcast_ref::<ClientObjectCreate>().is_some()
        || event.downcast_ref::<ClientObjectSync>().is_some()
        || event.downcast_ref::<ClientObjectDelete>().is_some()
}

/// Server: judges an owned-object event from `connection` and, for an accepted control
/// message, calls `%data.onControlMessage(%obj, %client, %text)`. A refused sender has been
/// dropped (with the reason in the log and in its disconnect).
pub(crate) fn server_event(
    con: &mut Console,
    client: Option<u32>,
    driver: &SharedDriver,
    shared: &Rc<RefCell<Shared>>,
    connection: ConnectionId,
    event: &dyn NetEvent,
) {
    let handled = {
        let mut sh = shared.borrow_mut();
        let Shared { owned, world, .. } = &mut *sh;
        let Some(world) = world.as_mut() else { return };
        let net = &mut driver.borrow_mut().interface;
        let classes = net.ghost_classes().clone();
        owned.handle_event(net, connection, event, &classes, &mut OwnedScene(world))
    };
    let Ok(Handled::Control { object, body }) = handled else { return };
    let target = shared.borrow().objects.get(&object.0).map(|g| (g.console, g.datablock));
    let Some((obj, datablock)) = target else { return };
    let text = String::from_utf8_lossy(&body).into_owned();
    con.call_method_if_exists(
        datablock,
        "onControlMessage",
        &[Value::from(obj), Value::from(client.unwrap_or(0)), Value::from(text)],
    );
}

/// Server: a client left; what it owned now belongs to the server.
pub(crate) fn client_left(shared: &Rc<RefCell<Shared>>, connection: ConnectionId) {
    let mut sh = shared.borrow_mut();
    let Shared { owned, world, client_conns, .. } = &mut *sh;
    client_conns.retain(|_, c| *c != connection);
    if let Some(world) = world.as_mut() {
        owned.client_left(connection, &mut OwnedScene(world));
    }
}

/// Server: `setOwner(%client)` (0 for the server) and `getOwner()` on every game object.
pub(crate) fn register_server_methods(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    shared.borrow_mut().owned.set_policy(
        SCENE_OBJECT_CLASS,
        ClassPolicy { accept_client_sync: false, on_owner_leave: OwnerLeavePolicy::HandToServer },
    );
    let sh = shared.clone();
    con.register_method(
        "GameBase",
        "setOwner",
        3,
        3,
        "setOwner(client) - the client whose control messages this object takes (0: the server)",
        move |c, a| {
            let Some(id) = a.this else { return Value::from(false) };
            let Some(scene) = sh.borrow().by_console.get(&id).copied() else {
                c.error(&format!("setOwner: {id} is not a game object on the server"));
                return Value::from(false);
            };
            let who = a.str(1).into_owned();
            let owner = if who.trim().is_empty() || who.trim() == "0" {
                Owner::Server
            } else {
                let conn = c.find_object(&a.get(1)).and_then(|cl| sh.borrow().client_conns.get(&cl).copied());
                match conn {
                    Some(conn) => Owner::Client(conn),
                    None => {
                        c.error(&format!("setOwner: \"{who}\" is not a connected client"));
                        return Value::from(false);
                    }
                }
            };
            sh.borrow_mut().owned.insert(ObjectId(scene), SCENE_OBJECT_CLASS, owner);
            Value::from(true)
        },
    );
    let sh = shared.clone();
    con.register_method(
        "GameBase",
        "getOwner",
        2,
        2,
        "getOwner() - the owning client, or 0",
        move |_c, a| {
            let s = sh.borrow();
            let owner =
                a.this.and_then(|id| s.by_console.get(&id)).and_then(|scene| s.owned.owner(ObjectId(*scene)));
            let client = match owner {
                Some(Owner::Client(conn)) => {
                    s.client_conns.iter().find(|(_, c)| **c == conn).map(|(cl, _)| *cl)
                }
                _ => None,
            };
            Value::from(client.unwrap_or(0))
        },
    );
}

/// Server: an object is gone; it has no owner any more.
pub(crate) fn object_removed(sh: &mut Shared, scene: u32) {
    sh.owned.remove(ObjectId(scene));
}

/// Client: the control messages scripts queued, `(ghost index, text)`, for the session to send.
pub(crate) type ControlQueue = Rc<RefCell<Vec<(u32, Vec<u8>)>>>;

/// Client: registers `sendControlMessage(%ghost, %text)`; the session sends what it queues.
pub(crate) fn register_client(con: &mut Console) -> ControlQueue {
    let queue: ControlQueue = Rc::default();
    let q = queue.clone();
    con.register_function(
        "sendControlMessage",
        3,
        3,
        "sendControlMessage(ghost, text) - an order for an object this client owns, to the server",
        move |c, a| {
            let ghost = c
                .find_object(&a.get(0))
                .and_then(|id| c.object_data::<crate::state::GhostState>(id))
                .map(|g| g.ghost_id);
            let Some(ghost) = ghost else {
                c.error(&format!("sendControlMessage: \"{}\" is not a ghost of this client", a.str(0)));
                return Value::from(false);
            };
            let body = a.str(1).into_owned().into_bytes();
            if body.len() > MAX_OWNED_BODY {
                c.error(&format!("sendControlMessage: the text is over {MAX_OWNED_BODY} bytes"));
                return Value::from(false);
            }
            let mut q = q.borrow_mut();
            if q.len() >= 64 {
                c.error("sendControlMessage: 64 messages already wait to be sent");
                return Value::from(false);
            }
            q.push((ghost, body));
            Value::from(true)
        },
    );
    queue
}

/// Client: sends the queued control messages to the server (guaranteed, in order).
pub(crate) fn flush(queue: &ControlQueue, driver: &SharedDriver, server: ConnectionId) {
    for (ghost, body) in queue.borrow_mut().drain(..) {
        let _ = driver.borrow_mut().interface.post_event(server, Box::new(ControlMessage { ghost, body }));
    }
}
