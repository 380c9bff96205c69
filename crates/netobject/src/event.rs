//! The NetEvent trait: a message that packs itself into a packet and is processed
//! on the other side with one of three delivery guarantees.

use crate::error::Result;
use crate::strings::{SentString, StringHandle, StringReceiver, StringSender};
use std::any::Any;
use std::fmt;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};

/// Identifies one connection of a [`crate::NetInterface`]; never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnectionId(pub u32);

impl fmt::Display for ConnectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What happens to an event whose packet is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Guarantee {
    /// Not resent (voice, effects); told it was dropped.
    Unguaranteed,
    /// Resent until delivered; processed on arrival, in any order.
    Guaranteed,
    /// Resent until delivered; processed only after every earlier ordered event.
    GuaranteedOrdered,
}

/// Which way an event class may travel. An event arriving the wrong way drops the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventDirection {
    /// Both ways (`IMPLEMENT_CO_NETEVENT`).
    Any,
    /// Only to the server (`IMPLEMENT_CO_SERVEREVENT`).
    ClientToServer,
    /// Only to the client (`IMPLEMENT_CO_CLIENTEVENT`).
    ServerToClient,
}

impl EventDirection {
    /// May a side that `is_server` send events of this class?
    pub fn may_send(self, is_server: bool) -> bool {
        match self {
            Self::Any => true,
            Self::ClientToServer => !is_server,
            Self::ServerToClient => is_server,
        }
    }
}

/// A network event object. Its class is registered with [`crate::NetClassRegistryBuilder`]
/// through [`NetEventClass`], which adds the static name, version, direction and `unpack`.
pub trait NetEvent: Any + Send + fmt::Debug {
    /// The delivery guarantee of this event.
    fn guarantee(&self) -> Guarantee {
        Guarantee::GuaranteedOrdered
    }
    /// Writes the event body. Must mirror [`NetEventClass::unpack`] exactly.
    fn pack(&self, w: &mut BitWriter, ctx: &mut PackContext<'_>);
    /// Runs the event on the receiving side. The driver calls it for each
    /// [`crate::InterfaceEvent::EventReceived`], passing its own application state as `app`.
    fn process(&mut self, connection: ConnectionId, app: &mut dyn Any) {
        let _ = (connection, app);
    }
    /// The packet carrying this event was acknowledged.
    fn notify_delivered(&mut self, connection: ConnectionId) {
        let _ = connection;
    }
    /// The packet carrying this unguaranteed event was lost (or the connection ended
    /// before it could be sent); it will not be resent.
    fn notify_dropped(&mut self, connection: ConnectionId) {
        let _ = connection;
    }
}

impl dyn NetEvent {
    /// The concrete event, if it is a `T`.
    pub fn downcast_ref<T: NetEvent>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
    /// The concrete event, mutably, if it is a `T`.
    pub fn downcast_mut<T: NetEvent>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }
}

/// The static side of an event class: how it is named, versioned, routed and read.
pub trait NetEventClass: NetEvent + Sized {
    /// Class name; ids are assigned by sorting these.
    const NAME: &'static str;
    /// Class version; part of the handshake digest.
    const VERSION: u32 = 1;
    /// Which way the class may travel.
    const DIRECTION: EventDirection = EventDirection::Any;
    /// Reads an event written by [`NetEvent::pack`]. Every read is checked; an error
    /// drops the sending connection.
    fn unpack(r: &mut BitReader<'_>, ctx: &mut UnpackContext<'_>) -> Result<Self>;
    /// Events of this class are kept for reuse once done with: the receiving side reads
    /// into a box the application handed back ([`crate::NetInterface::recycle_event`]), and
    /// the sending side hands out the boxes of delivered or dropped events
    /// ([`crate::NetInterface::post_event_reusing`]), so a steady stream of them allocates
    /// nothing. Off by default: a kept event holds its contents until reused.
    const RECYCLE: bool = false;
    /// Reads an event into `self`, a finished event of this class (see [`Self::RECYCLE`]).
    /// The default replaces it with [`Self::unpack`]'s; a class with heap contents (a list)
    /// can refill them in place instead. On an error `self` may hold anything.
    fn unpack_in_place(&mut self, r: &mut BitReader<'_>, ctx: &mut UnpackContext<'_>) -> Result<()> {
        *self = Self::unpack(r, ctx)?;
        Ok(())
    }
}

/// What an event may use while packing: the connection's string table.
#[derive(Debug)]
pub struct PackContext<'a> {
    pub(crate) connection: ConnectionId,
    pub(crate) strings: &'a mut StringSender,
    pub(crate) record: &'a mut Vec<SentString>,
}

impl PackContext<'_> {
    /// The connection being written.
    pub fn connection(&self) -> ConnectionId {
        self.connection
    }
    /// Writes a tagged string: its text the first times, its id alone once the peer has it.
    pub fn write_string_tag(&mut self, w: &mut BitWriter, handle: &StringHandle) {
        self.strings.write(w, handle, self.record);
    }
}

/// What an event may use while unpacking: the connection's received string tags.
#[derive(Debug)]
pub struct UnpackContext<'a> {
    pub(crate) connection: ConnectionId,
    pub(crate) strings: &'a mut StringReceiver,
}

impl UnpackContext<'_> {
    /// The connection being read.
    pub fn connection(&self) -> ConnectionId {
        self.connection
    }
    /// Reads a tagged string written by [`PackContext::write_string_tag`].
    pub fn read_string_tag(&mut self, r: &mut BitReader<'_>) -> Result<Arc<str>> {
        self.strings.read(r)
    }
}
