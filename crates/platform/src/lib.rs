#![doc = include_str!("../README.md")]

pub mod address;
pub mod conditioner;
pub mod error;
pub mod event;
pub mod gamepad;
#[cfg(feature = "gamepad")]
pub mod gamepad_device;
pub mod journal;
pub mod keys;
pub mod memory;
pub mod net;
pub mod tcp;
pub mod time;
pub mod transport;
pub mod udp;

pub use address::{AddressError, NetAddress};
pub use conditioner::{ConditionerConfig, ConditionerStats, GilbertElliott, LinkConditioner, LossModel};
pub use error::PlatformError;
pub use event::{
    ConnectState, ConnectedAcceptEvent, ConnectedNotifyEvent, ConnectedReceiveEvent, ConnectionTag,
    ConsoleEvent, DeviceChangeEvent, Event, GameInterface, InputAction, InputDeviceType, InputEvent,
    InputObjectType, Modifiers, MouseMoveEvent, PacketReceiveEvent, TimeEvent,
};
pub use gamepad::{PadAxis, PadButton, PadInput, PadSlots, Rumble};
#[cfg(feature = "gamepad")]
pub use gamepad_device::Gamepads;
pub use journal::{Journal, JournalError, JournalReader, JournalSession, JournalWriter};
pub use keys::key_code;
pub use memory::{LoopbackTransport, MemoryNetwork};
pub use net::Net;
pub use tcp::{TcpIo, TcpNet};
pub use time::{Clock, ManualClock, Millis, SystemClock, TimeEventSource};
pub use transport::{Datagram, Transport};
pub use udp::{UdpConfig, UdpTransport};
