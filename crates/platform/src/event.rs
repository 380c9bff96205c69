//! The platform event model (V12: engine/platform/event.h) and the
//! [`GameInterface`] that receives it.
//!
//! The game is driven by this stream of events and nothing else from the
//! platform, which is what makes journaling a session enough to replay it.

use bytes::Bytes;

use crate::address::NetAddress;

/// Identifies one TCP socket (a listening port or a connection) in the
/// Connected* events, like V12's `NetSocket` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnectionTag(pub u32);

/// What kind of device produced an [`InputEvent`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InputDeviceType {
    Keyboard = 0,
    Mouse = 1,
    Joystick = 2,
    Gamepad = 3,
}

/// Which part of the device: a key, a button or an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InputObjectType {
    Key = 0,
    Button = 1,
    XAxis = 2,
    YAxis = 3,
    ZAxis = 4,
    RxAxis = 5,
    RyAxis = 6,
    RzAxis = 7,
    Slider = 8,
    Pov = 9,
}

/// Make (pressed), break (released) or move (an axis changed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InputAction {
    Make = 0,
    Break = 1,
    Move = 2,
}

/// Modifier keys held during an input or mouse event (a small bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers(pub u8);

impl Modifiers {
    pub const NONE: Modifiers = Modifiers(0);
    pub const LSHIFT: Modifiers = Modifiers(1 << 0);
    pub const RSHIFT: Modifiers = Modifiers(1 << 1);
    pub const LCTRL: Modifiers = Modifiers(1 << 2);
    pub const RCTRL: Modifiers = Modifiers(1 << 3);
    pub const LALT: Modifiers = Modifiers(1 << 4);
    pub const RALT: Modifiers = Modifiers(1 << 5);
    pub const SHIFT: Modifiers = Modifiers(Self::LSHIFT.0 | Self::RSHIFT.0);
    pub const CTRL: Modifiers = Modifiers(Self::LCTRL.0 | Self::RCTRL.0);
    pub const ALT: Modifiers = Modifiers(Self::LALT.0 | Self::RALT.0);

    /// True when any of `other`'s bits are set here.
    pub fn intersects(self, other: Modifiers) -> bool {
        self.0 & other.0 != 0
    }
}

impl std::ops::BitOr for Modifiers {
    type Output = Modifiers;
    fn bitor(self, rhs: Modifiers) -> Modifiers {
        Modifiers(self.0 | rhs.0)
    }
}

/// Input from a physical device: keyboard, mouse button or axis, joystick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputEvent {
    pub device_type: InputDeviceType,
    /// Which device of that type (joystick 0, 1, ...).
    pub device_inst: u8,
    pub object_type: InputObjectType,
    /// The key code or button number; the axis index for axes.
    pub object_inst: u16,
    pub action: InputAction,
    pub modifiers: Modifiers,
    /// The character the key produces (0 if none), for text input.
    pub ascii: u16,
    /// 1.0/0.0 for make/break, the axis position or delta for moves.
    pub value: f32,
}

/// Screen-space mouse movement while the game runs in a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MouseMoveEvent {
    pub x_pos: i32,
    pub y_pos: i32,
    pub modifiers: Modifiers,
}

/// An unguaranteed datagram from another host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketReceiveEvent {
    pub source: NetAddress,
    pub data: Bytes,
}

/// Time passed since the previous time event; posted when nothing else is pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeEvent {
    pub elapsed_ms: u32,
}

/// A command line typed into the platform console (e.g. a dedicated server's terminal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleEvent {
    pub line: String,
}

/// A chunk of bytes received on a TCP connection (a byte stream: chunks do
/// not keep the sender's write boundaries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectedReceiveEvent {
    pub tag: ConnectionTag,
    pub data: Bytes,
}

/// A listening port accepted a connection from a remote client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectedAcceptEvent {
    /// The listening port that accepted.
    pub port_tag: ConnectionTag,
    /// The new connection.
    pub tag: ConnectionTag,
    pub address: NetAddress,
}

/// The status of an outgoing or accepted TCP connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ConnectState {
    DnsResolved = 0,
    DnsFailed = 1,
    Connected = 2,
    ConnectFailed = 3,
    Disconnected = 4,
}

/// A change in a TCP connection's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectedNotifyEvent {
    pub tag: ConnectionTag,
    pub state: ConnectState,
}

/// An input device (a gamepad, a joystick) was connected or disconnected: hot-plug, and the
/// devices already there when the program starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceChangeEvent {
    pub device_type: InputDeviceType,
    /// Its instance: `gamepad1` is instance 1 of the gamepads.
    pub device_inst: u8,
    pub connected: bool,
    /// The device's name (empty on a disconnect).
    pub name: String,
}

/// Everything the platform tells the game.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Input(InputEvent),
    MouseMove(MouseMoveEvent),
    PacketReceive(PacketReceiveEvent),
    Time(TimeEvent),
    Quit,
    Console(ConsoleEvent),
    ConnectedReceive(ConnectedReceiveEvent),
    ConnectedAccept(ConnectedAcceptEvent),
    ConnectedNotify(ConnectedNotifyEvent),
    DeviceChange(DeviceChangeEvent),
}

/// The game as the platform sees it (V12: GameInterface). Every event goes
/// through [`process_event`](GameInterface::process_event), which hands it to
/// one handler per kind; handlers not overridden ignore their events.
pub trait GameInterface {
    /// Dispatch one event to its handler.
    fn process_event(&mut self, event: Event) {
        match event {
            Event::Input(e) => self.process_input_event(e),
            Event::MouseMove(e) => self.process_mouse_move_event(e),
            Event::PacketReceive(e) => self.process_packet_receive_event(e),
            Event::Time(e) => self.process_time_event(e),
            Event::Quit => self.process_quit_event(),
            Event::Console(e) => self.process_console_event(e),
            Event::ConnectedReceive(e) => self.process_connected_receive_event(e),
            Event::ConnectedAccept(e) => self.process_connected_accept_event(e),
            Event::ConnectedNotify(e) => self.process_connected_notify_event(e),
            Event::DeviceChange(e) => self.process_device_change_event(e),
        }
    }
    fn process_input_event(&mut self, _event: InputEvent) {}
    fn process_mouse_move_event(&mut self, _event: MouseMoveEvent) {}
    fn process_packet_receive_event(&mut self, _event: PacketReceiveEvent) {}
    fn process_time_event(&mut self, _event: TimeEvent) {}
    fn process_quit_event(&mut self) {}
    fn process_console_event(&mut self, _event: ConsoleEvent) {}
    fn process_connected_receive_event(&mut self, _event: ConnectedReceiveEvent) {}
    fn process_connected_accept_event(&mut self, _event: ConnectedAcceptEvent) {}
    fn process_connected_notify_event(&mut self, _event: ConnectedNotifyEvent) {}
    fn process_device_change_event(&mut self, _event: DeviceChangeEvent) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Counts {
        seen: Vec<&'static str>,
    }

    impl GameInterface for Counts {
        fn process_time_event(&mut self, e: TimeEvent) {
            assert_eq!(e.elapsed_ms, 32);
            self.seen.push("time");
        }
        fn process_quit_event(&mut self) {
            self.seen.push("quit");
        }
        fn process_connected_notify_event(&mut self, e: ConnectedNotifyEvent) {
            assert_eq!(e.state, ConnectState::DnsFailed);
            self.seen.push("notify");
        }
    }

    #[test]
    fn dispatches_by_kind_and_ignores_the_rest() {
        let mut g = Counts::default();
        g.process_event(Event::Time(TimeEvent { elapsed_ms: 32 }));
        g.process_event(Event::Console(ConsoleEvent { line: "echo".into() }));
        g.process_event(Event::ConnectedNotify(ConnectedNotifyEvent {
            tag: ConnectionTag(1),
            state: ConnectState::DnsFailed,
        }));
        g.process_event(Event::Quit);
        assert_eq!(g.seen, ["time", "notify", "quit"]);
    }

    #[test]
    fn modifiers_combine() {
        let m = Modifiers::LSHIFT | Modifiers::RALT;
        assert!(m.intersects(Modifiers::SHIFT));
        assert!(m.intersects(Modifiers::ALT));
        assert!(!m.intersects(Modifiers::CTRL));
    }
}
