//! [`NetInterface::for_each_connection`]: the application's own work for each connection
//! (its received events, its answers), on the packet threads when the interface has them.

use super::NetInterface;
use crate::connection::NetConnection;
use crate::error::Result;
use crate::event::{ConnectionId, NetEvent, NetEventClass};
use crate::ghost::ObjectId;
use crate::registry::NetClassRegistry;

/// One connection's turn in [`NetInterface::for_each_connection`]: what the application
/// may do to that connection alone (read its events, post to it, read its state).
pub struct ConnectionTurn<'a> {
    connection: &'a mut NetConnection,
    registry: &'a NetClassRegistry,
}

impl std::fmt::Debug for ConnectionTurn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionTurn").field("id", &self.connection.id()).finish_non_exhaustive()
    }
}

impl ConnectionTurn<'_> {
    /// The connection's id.
    pub fn id(&self) -> ConnectionId {
        self.connection.id()
    }
    /// The connection, to read (its rate, its ghost manager, its counters).
    pub fn connection(&self) -> &NetConnection {
        &*self.connection
    }
    /// The next event this connection received, in order, when events stay with their
    /// connections ([`NetInterface::set_events_by_connection`]; otherwise they are
    /// [`crate::InterfaceEvent::EventReceived`] and this gives none). Call
    /// [`NetEvent::process`] on it, or read it, then hand it back with
    /// [`Self::recycle_event`].
    pub fn poll_event(&mut self) -> Option<Box<dyn NetEvent>> {
        self.connection.pop_ready()
    }
    /// Hands back a processed event ([`NetInterface::recycle_event`] for this connection).
    pub fn recycle_event(&mut self, event: Box<dyn NetEvent>) {
        self.connection.events_mut().recycle(self.registry, event);
    }
    /// Queues an event on this connection ([`NetInterface::post_event_reusing`]).
    pub fn post_event_reusing<E: NetEventClass>(&mut self, event: E) -> Result<()> {
        let boxed = match self.connection.events_mut().take_spare::<E>() {
            Some(mut b) => {
                *b = event;
                b
            }
            None => Box::new(event),
        };
        self.connection.post_event(self.registry, boxed)
    }
    /// Server side: the object whose camera scopes this client
    /// ([`NetInterface::set_scope_object`]).
    pub fn set_scope_object(&mut self, object: Option<ObjectId>) {
        self.connection.set_scope_object(object);
    }
}

impl NetInterface {
    /// Received events stay with their connection (`true`), taken in
    /// [`Self::for_each_connection`]'s turns with [`ConnectionTurn::poll_event`], instead of
    /// coming out of [`Self::poll_event`] as [`crate::InterfaceEvent::EventReceived`] in
    /// arrival order (`false`, the default). Each connection's events keep their order; a
    /// server whose game handles each client's events apart from the others' then reads
    /// them on the packet threads, and [`Self::serve`] has no events to merge. Events a
    /// connection received but nobody took go with it when it closes.
    pub fn set_events_by_connection(&mut self, on: bool) {
        self.events_by_connection = on;
    }

    /// Calls `f` once for every connection, with that connection alone
    /// ([`ConnectionTurn`]): on the packet threads when there are some
    /// ([`Self::set_transmit_threads`]; one fork and one join), in connection-id order
    /// otherwise. What `f` does to one connection must not depend on another's turn (the
    /// order of turns is not fixed with threads); anything it shares must be `Sync` (an
    /// application's state per connection behind a `Mutex` each, taken by that connection's
    /// turn only).
    pub fn for_each_connection(&mut self, f: impl Fn(&mut ConnectionTurn<'_>) + Sync) {
        let registry = &*self.registry;
        if let Some(pool) = self.transmit_pool.clone() {
            self.pass_room.for_each(&pool, &mut self.connections, |connection| {
                f(&mut ConnectionTurn { connection, registry });
            });
            return;
        }
        debug_assert_eq!(self.sorted_ids.len(), self.connections.len());
        for id in &self.sorted_ids {
            if let Some(connection) = self.connections.get_mut(id) {
                f(&mut ConnectionTurn { connection, registry });
            }
        }
    }
}
