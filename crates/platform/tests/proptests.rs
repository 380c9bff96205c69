//! Property tests: journal round trips and "any bytes never panic";
//! NetAddress parse/print round trips.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6};

use bytes::Bytes;
use proptest::prelude::*;
use v12_platform::{
    ConnectState, ConnectedAcceptEvent, ConnectedNotifyEvent, ConnectedReceiveEvent, ConnectionTag,
    ConsoleEvent, Event, InputAction, InputDeviceType, InputEvent, InputObjectType, JournalError,
    JournalReader, JournalWriter, Modifiers, MouseMoveEvent, NetAddress, PacketReceiveEvent, TimeEvent,
};

fn address() -> impl Strategy<Value = NetAddress> {
    prop_oneof![
        (any::<[u8; 4]>(), any::<u16>())
            .prop_map(|(ip, port)| NetAddress::new(IpAddr::V4(Ipv4Addr::from(ip)), port)),
        (any::<[u8; 16]>(), any::<u16>(), any::<u32>()).prop_map(|(ip, port, scope)| {
            NetAddress::from(SocketAddr::V6(SocketAddrV6::new(Ipv6Addr::from(ip), port, 0, scope)))
        }),
    ]
}

fn event() -> impl Strategy<Value = Event> {
    use InputDeviceType as D;
    use InputObjectType as O;
    let input = (
        prop::sample::select(vec![D::Keyboard, D::Mouse, D::Joystick, D::Gamepad]),
        any::<u8>(),
        prop::sample::select(vec![O::Key, O::Button, O::XAxis, O::RzAxis, O::Slider, O::Pov]),
        any::<u16>(),
        prop::sample::select(vec![InputAction::Make, InputAction::Break, InputAction::Move]),
        any::<u8>(),
        any::<u16>(),
        -1e6f32..1e6,
    )
        .prop_map(|(device_type, device_inst, object_type, object_inst, action, m, ascii, value)| {
            Event::Input(InputEvent {
                device_type,
                device_inst,
                object_type,
                object_inst,
                action,
                modifiers: Modifiers(m),
                ascii,
                value,
            })
        });
    let states = vec![
        ConnectState::DnsResolved,
        ConnectState::DnsFailed,
        ConnectState::Connected,
        ConnectState::ConnectFailed,
        ConnectState::Disconnected,
    ];
    prop_oneof![
        input,
        (any::<i32>(), any::<i32>(), any::<u8>()).prop_map(|(x, y, m)| Event::MouseMove(MouseMoveEvent {
            x_pos: x,
            y_pos: y,
            modifiers: Modifiers(m)
        })),
        (address(), prop::collection::vec(any::<u8>(), 0..600)).prop_map(|(source, d)| {
            Event::PacketReceive(PacketReceiveEvent { source, data: Bytes::from(d) })
        }),
        any::<u32>().prop_map(|t| Event::Time(TimeEvent { elapsed_ms: t })),
        Just(Event::Quit),
        ".{0,40}".prop_map(|line| Event::Console(ConsoleEvent { line })),
        (any::<u32>(), prop::collection::vec(any::<u8>(), 0..100)).prop_map(|(t, d)| {
            Event::ConnectedReceive(ConnectedReceiveEvent { tag: ConnectionTag(t), data: Bytes::from(d) })
        }),
        (any::<u32>(), any::<u32>(), address()).prop_map(|(p, t, address)| {
            Event::ConnectedAccept(ConnectedAcceptEvent {
                port_tag: ConnectionTag(p),
                tag: ConnectionTag(t),
                address,
            })
        }),
        (any::<u32>(), prop::sample::select(states)).prop_map(|(t, state)| Event::ConnectedNotify(
            ConnectedNotifyEvent { tag: ConnectionTag(t), state }
        )),
    ]
}

fn journal(events: &[Event]) -> Vec<u8> {
    let mut w = JournalWriter::new(Vec::new()).unwrap();
    for e in events {
        w.record(e).unwrap();
    }
    w.finish().unwrap()
}

fn read_all(bytes: &[u8]) -> Result<Vec<Event>, JournalError> {
    JournalReader::new(bytes)?.collect()
}

proptest! {
    #[test]
    fn journal_round_trips(events in prop::collection::vec(event(), 0..40)) {
        prop_assert_eq!(read_all(&journal(&events)).unwrap(), events);
    }

    #[test]
    fn any_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = read_all(&bytes);
    }

    #[test]
    fn any_bytes_after_a_valid_header_never_panic(tail in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut bytes = b"V12J\x01".to_vec();
        bytes.extend_from_slice(&tail);
        let _ = read_all(&bytes);
    }

    #[test]
    fn any_cut_or_corruption_of_a_real_journal_is_an_error(
        events in prop::collection::vec(event(), 1..10),
        cut in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        let bytes = journal(&events);
        let cut = cut.index(bytes.len());
        prop_assert!(read_all(&bytes[..cut]).is_err());
        let mut bad = bytes.clone();
        bad[at.index(bytes.len())] ^= flip;
        prop_assert!(read_all(&bad).is_err());
    }

    #[test]
    fn address_print_parse_round_trips(addr in address()) {
        prop_assert_eq!(addr.to_string().parse::<NetAddress>().unwrap(), addr);
    }

    #[test]
    fn address_parse_never_panics_and_parsed_text_reprints_stably(text in ".{0,30}") {
        if let Ok(addr) = text.parse::<NetAddress>() {
            let again = addr.to_string().parse::<NetAddress>().unwrap();
            prop_assert_eq!(again, addr);
        }
    }

    #[test]
    fn address_like_text_parses_or_says_why(a in any::<[u8; 4]>(), port in "[0-9]{0,6}") {
        let text = format!("{}.{}.{}.{}:{port}", a[0], a[1], a[2], a[3]);
        match (text.parse::<NetAddress>(), port.parse::<u16>()) {
            (Ok(addr), Ok(p)) => prop_assert_eq!(addr.port(), p),
            (Err(e), Err(_)) => prop_assert!(!e.to_string().is_empty()),
            (r, p) => prop_assert!(false, "{text}: {r:?} vs {p:?}"),
        }
    }
}
