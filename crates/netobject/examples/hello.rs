//! The smallest client and server: two sans-IO `NetInterface`s in one program, joined by
//! `pump_local` (no socket), exchanging one guaranteed-ordered event each way.
//!
//! `cargo run -p v12-netobject --example hello`

use bytes::Bytes;
use std::net::SocketAddr;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::{GhostArena, NoObjects};
use v12_netobject::*;

/// A line of text, delivered once and in order.
#[derive(Debug)]
struct Hello(String);

impl NetEvent for Hello {
    fn guarantee(&self) -> Guarantee {
        Guarantee::GuaranteedOrdered
    }
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        write_str(w, &self.0);
    }
}

impl NetEventClass for Hello {
    const NAME: &'static str = "HelloEvent";
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        Ok(Hello(read_str(r, 256)?))
    }
}

fn main() {
    // Both sides register the same event classes, in the same order.
    let registry = Arc::new(NetClassRegistryBuilder::new().register::<Hello>().build().expect("one class"));
    let server_addr: SocketAddr = "127.0.0.1:28000".parse().unwrap();
    let client_addr: SocketAddr = "127.0.0.1:50000".parse().unwrap();
    let server_config = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
    let mut server = NetInterface::new(server_config, registry.clone(), [1; 32]);
    let mut client = NetInterface::new(InterfaceConfig::default(), registry, [2; 32]);
    let to_server = client.connect(0, server_addr, Bytes::from_static(b"player"));
    // Neither side ghosts objects here: no objects to send, an empty arena to receive into.
    let (mut client_ghosts, mut server_ghosts) = (GhostArena::new(), GhostArena::new());

    // Time is passed in: a simulated clock in 16 ms steps.
    for now in (0..2_000).step_by(16) {
        pump_local(
            now,
            LocalEnd {
                interface: &mut client,
                addr: client_addr,
                objects: &NoObjects,
                ghosts: &mut client_ghosts,
            },
            LocalEnd {
                interface: &mut server,
                addr: server_addr,
                objects: &NoObjects,
                ghosts: &mut server_ghosts,
            },
        );
        while let Some(ev) = server.poll_event() {
            match ev {
                InterfaceEvent::Connected { connection, connect_data, .. } => {
                    println!("{now:>4} ms server: {} connected", String::from_utf8_lossy(&connect_data));
                    server.post_event(connection, Box::new(Hello("welcome".into()))).unwrap();
                }
                InterfaceEvent::EventReceived { event, .. } => {
                    if let Some(Hello(text)) = event.downcast_ref::<Hello>() {
                        println!("{now:>4} ms server got: {text}");
                    }
                }
                other => println!("{now:>4} ms server: {other:?}"),
            }
        }
        while let Some(ev) = client.poll_event() {
            match ev {
                InterfaceEvent::Connected { .. } => {
                    println!("{now:>4} ms client: connected");
                    client.post_event(to_server, Box::new(Hello("hello, server".into()))).unwrap();
                }
                InterfaceEvent::EventReceived { event, .. } => {
                    if let Some(Hello(text)) = event.downcast_ref::<Hello>() {
                        println!("{now:>4} ms client got: {text}");
                    }
                }
                other => println!("{now:>4} ms client: {other:?}"),
            }
        }
    }
    let rtt = client.connection(to_server).map_or(0.0, |c| c.rtt_ms());
    println!("round trip on the in-process link: {rtt:.1} ms");
}
