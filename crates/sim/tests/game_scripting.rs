//! Connection scripting with the Torque names: onConnectRequest accepts or rejects with a
//! reason, onConnect gets the connect args, ClientGroup holds clients, onDrop on leave; the
//! client's ServerConnection hears onConnectionAccepted / onConnectionRejected.

use std::net::SocketAddr;
use std::sync::Arc;
use v12_console_vm::{BufferSink, Console};
use v12_netobject::LocalEnd;
use v12_netobject::ghost::{GhostArena, NoObjects};
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface, pump_local};
use v12_sim::game_connection as gc;
use v12_sim::remote_command::RemoteCommands;

const SERVER: &str = r#"
function GameConnection::onConnectRequest(%client, %address, %name) {
   if (%name $= "Cheater") return "banned";
   return "";
}
function GameConnection::onConnect(%client, %name) { %client.name = %name; echo("joined " @ %name @ " " @ ClientGroup.getCount()); }
function GameConnection::onDrop(%client, %reason) { echo("left " @ %client.name @ ": " @ %reason); }
"#;
const CLIENT: &str = r#"
function GameConnection::onConnectionAccepted(%this) { echo("accepted " @ %this.getName()); }
function GameConnection::onConnectionRejected(%this, %reason) { echo("rejected: " @ %reason); }
function GameConnection::onConnectionDropped(%this, %reason) { echo("dropped: " @ %reason); }
"#;

fn session(name: &str) -> (String, String) {
    let mut b = NetClassRegistryBuilder::new();
    gc::register_events(&mut b);
    let reg = Arc::new(b.build().unwrap());
    let (mut scon, mut ccon) = (Console::new(), Console::new());
    let (sout, cout) = (BufferSink::new(), BufferSink::new());
    scon.set_output(Box::new(sout.clone()));
    ccon.set_output(Box::new(cout.clone()));
    let sremote = RemoteCommands::register(&mut scon);
    let _cremote = RemoteCommands::register(&mut ccon);
    scon.eval(SERVER).unwrap();
    ccon.eval(CLIENT).unwrap();
    let mut server = NetInterface::new(
        InterfaceConfig { accept_connections: true, ..Default::default() },
        reg.clone(),
        [1; 32],
    );
    let mut client = NetInterface::new(InterfaceConfig::default(), reg, [2; 32]);
    let s_addr: SocketAddr = "127.0.0.1:28000".parse().unwrap();
    let c_addr: SocketAddr = "127.0.0.1:28001".parse().unwrap();
    gc::client_create_server_connection(&mut ccon).unwrap();
    let data = gc::encode_connect_args(&[name.to_string()]);
    let to_server = client.connect(0, s_addr, data.into());
    let mut accepted = false;
    for step in 0..300u64 {
        let now = step * 8;
        if step == 200 && accepted {
            client.disconnect(to_server, "bye");
        }
        pump_local(
            now,
            LocalEnd::new(&mut client, c_addr, &NoObjects, &mut GhostArena::new()),
            LocalEnd::new(&mut server, s_addr, &NoObjects, &mut GhostArena::new()),
        );
        while let Some(ev) = server.poll_event() {
            match ev {
                InterfaceEvent::Connected { connection, addr, connect_data, .. } => {
                    let args = gc::decode_connect_args(&connect_data);
                    gc::server_connection_arrived(
                        &mut scon,
                        &sremote,
                        &mut server,
                        connection,
                        &addr.to_string(),
                        &args,
                    )
                    .unwrap();
                }
                InterfaceEvent::Disconnected { connection, reason, .. } => {
                    gc::server_connection_dropped(&mut scon, &sremote, connection, &reason)
                }
                _ => {}
            }
        }
        while let Some(ev) = client.poll_event() {
            match ev {
                InterfaceEvent::EventReceived { event, .. }
                    if event.downcast_ref::<gc::ConnectAcceptedEvent>().is_some() =>
                {
                    accepted = true;
                    gc::client_connection_accepted(&mut ccon);
                }
                InterfaceEvent::Disconnected { reason, .. }
                | InterfaceEvent::ConnectFailed { reason, .. } => {
                    gc::client_connection_ended(&mut ccon, &reason, accepted)
                }
                _ => {}
            }
        }
    }
    (sout.stdout(), cout.stdout())
}

#[test]
fn accepted_client_joins_client_group_and_drops_with_reason() {
    let (s, c) = session("Dood");
    assert_eq!(c, "accepted ServerConnection\ndropped: bye\n");
    assert_eq!(s, "joined Dood 1\nleft Dood: bye\n");
}

#[test]
fn script_rejection_reaches_the_client_with_its_reason() {
    let (s, c) = session("Cheater");
    assert_eq!(c, "rejected: banned\n");
    assert_eq!(s, "");
}
