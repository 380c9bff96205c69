//! Datablocks declared in script on the server reach a client that has none of the
//! server's scripts, in order, before the server may start ghosting.

use std::net::SocketAddr;
use std::sync::Arc;
use v12_console_vm::{BufferSink, Console, FieldType, Value};
use v12_netobject::LocalEnd;
use v12_netobject::ghost::{GhostArena, NoObjects};
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface, pump_local};
use v12_sim::datablock::{
    ClientDataBlocks, DataBlockEvent, DataBlockProgress, DataBlocksAckEvent, DataBlocksDoneEvent,
    datablock_fields, is_datablocks_ack, send_datablocks,
};

fn registry() -> Arc<v12_netobject::NetClassRegistry> {
    Arc::new(
        NetClassRegistryBuilder::new()
            .register::<DataBlockEvent>()
            .register::<DataBlocksDoneEvent>()
            .register::<DataBlocksAckEvent>()
            .build()
            .unwrap(),
    )
}

/// The game's Rust classes, present on both sides.
fn game_classes(con: &mut Console) {
    con.register_class("PlayerData", "SimDataBlock").unwrap();
    con.add_field("PlayerData", "maxSpeed", FieldType::Float, Value::Float(1.0));
}

const SERVER_SCRIPT: &str = r#"
datablock PlayerData(LightMale) { maxSpeed = 12.5; shapeFile = "light_male.dts"; mass = 90; };
datablock PlayerData(HeavyMale : LightMale) { maxSpeed = 7; mass = 180; };
datablock PlayerData(Blank) { };
"#;

#[test]
fn client_builds_the_servers_datablocks_then_ghosting_may_start() {
    let mut scon = Console::new();
    scon.set_output(Box::new(BufferSink::new()));
    game_classes(&mut scon);
    scon.eval(SERVER_SCRIPT).unwrap();

    let mut ccon = Console::new();
    ccon.set_output(Box::new(BufferSink::new()));
    game_classes(&mut ccon);
    // The client has a datablock of its own, so ids differ from the server's.
    ccon.eval("datablock PlayerData(ClientOnly) { maxSpeed = 1; };").unwrap();

    let scfg = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
    let mut server = NetInterface::new(scfg, registry(), [1; 32]);
    let mut client = NetInterface::new(InterfaceConfig::default(), registry(), [2; 32]);
    let s_addr: SocketAddr = "127.0.0.1:28000".parse().unwrap();
    let c_addr: SocketAddr = "127.0.0.1:28001".parse().unwrap();
    let to_server = client.connect(0, s_addr, bytes::Bytes::new());

    let mut blocks = ClientDataBlocks::new();
    let mut built = Vec::new();
    let mut acked = None;
    let mut done_at_built = None;
    for step in 0..400u64 {
        let now = step * 8;
        pump_local(
            now,
            LocalEnd::new(&mut client, c_addr, &NoObjects, &mut GhostArena::new()),
            LocalEnd::new(&mut server, s_addr, &NoObjects, &mut GhostArena::new()),
        );
        while let Some(ev) = server.poll_event() {
            match ev {
                InterfaceEvent::Connected { connection, .. } => {
                    assert_eq!(send_datablocks(&scon, &mut server, connection).unwrap(), 3);
                }
                InterfaceEvent::EventReceived { connection, event } => {
                    assert!(is_datablocks_ack(&*event));
                    acked = Some(connection);
                }
                _ => {}
            }
        }
        while let Some(ev) = client.poll_event() {
            if let InterfaceEvent::EventReceived { event, .. } = ev {
                match blocks.handle_event(&mut ccon, &mut client, to_server, &*event).unwrap() {
                    DataBlockProgress::Built { server_id, local_id } => built.push((server_id, local_id)),
                    DataBlockProgress::Done { count } => done_at_built = Some((count, built.len())),
                    DataBlockProgress::NotMine => panic!("unexpected event"),
                }
            }
        }
    }
    assert!(acked.is_some(), "server got the ack and may start ghosting");
    assert_eq!(done_at_built, Some((3, 3)), "done arrives after every datablock");
    assert!(blocks.is_done());
    // Server ids in order, mapped to the client's own ids.
    let light_s = scon.find_object_str("LightMale").unwrap();
    let light_c = ccon.find_object_str("LightMale").unwrap();
    assert_ne!(light_s, light_c);
    assert_eq!(blocks.local_id(light_s), Some(light_c));
    assert_eq!(built.iter().map(|b| b.0).collect::<Vec<_>>(), {
        let mut v =
            vec![light_s, scon.find_object_str("HeavyMale").unwrap(), scon.find_object_str("Blank").unwrap()];
        v.sort();
        v
    });
    for name in ["LightMale", "HeavyMale", "Blank"] {
        let s = scon.find_object_str(name).unwrap();
        let c = ccon.find_object_str(name).unwrap();
        assert_eq!(ccon.class_name_of(c), "PlayerData");
        assert_eq!(datablock_fields(&scon, s), datablock_fields(&ccon, c), "{name}");
    }
    let heavy = ccon.find_object_str("HeavyMale").unwrap();
    assert_eq!(ccon.get_field(heavy, "maxSpeed").to_string(), "7");
    assert_eq!(ccon.get_field(heavy, "shapeFile").to_string(), "light_male.dts");
    assert_eq!(ccon.get_field(heavy, "mass").to_string(), "180");
}

#[test]
fn unknown_classes_are_made_as_datablocks_and_bad_ones_refused() {
    let mut scon = Console::new();
    scon.set_output(Box::new(BufferSink::new()));
    scon.register_class("ItemData", "SimDataBlock").unwrap();
    scon.eval("datablock ItemData(Medkit) { heal = 25; };").unwrap();
    let fields = datablock_fields(&scon, scon.find_object_str("Medkit").unwrap());
    assert_eq!(fields, vec![("heal".to_string(), "25".to_string())]);
}
