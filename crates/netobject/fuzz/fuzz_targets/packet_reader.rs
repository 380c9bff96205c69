//! Arbitrary datagrams into a server with a live connection, and into that client:
//! nothing may panic, whatever the bytes or the claimed source.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::net::SocketAddr;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::*;

#[derive(Debug)]
struct Chat(String);
impl NetEvent for Chat {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        write_str(w, &self.0);
    }
}
impl NetEventClass for Chat {
    const NAME: &'static str = "Chat";
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        Ok(Self(read_str(r, 255)?))
    }
}

fuzz_target!(|data: &[u8]| {
    let reg = Arc::new(NetClassRegistryBuilder::new().register::<Chat>().build().expect("registry"));
    let s_addr: SocketAddr = "10.0.0.1:28000".parse().expect("addr");
    let c_addr: SocketAddr = "10.0.0.2:28000".parse().expect("addr");
    let stranger: SocketAddr = "10.0.0.3:28000".parse().expect("addr");
    let mut server =
        NetInterface::new(InterfaceConfig { accept_connections: true, ..Default::default() }, reg.clone(), [3; 32]);
    let mut client = NetInterface::new(InterfaceConfig::default(), reg, [4; 32]);
    let id = client.connect(0, s_addr, bytes::Bytes::new());
    for now in (0..200).step_by(10) {
        pump_local(now, &mut client, c_addr, &mut server, s_addr);
    }
    let _ = client.post_event(id, Box::new(Chat("hi".into())));
    pump_local(250, &mut client, c_addr, &mut server, s_addr);
    // The input, split into datagrams by its first byte, from each kind of source.
    for (i, chunk) in data.chunks(data.first().map_or(1, |&b| usize::from(b % 64) + 1)).enumerate() {
        let now = 300 + i as u64;
        match i % 3 {
            0 => server.handle_datagram(now, c_addr, chunk),
            1 => server.handle_datagram(now, stranger, chunk),
            _ => client.handle_datagram(now, s_addr, chunk),
        }
        pump_local(now, &mut client, c_addr, &mut server, s_addr);
        while server.poll_event().is_some() {}
        while client.poll_event().is_some() {}
    }
});
