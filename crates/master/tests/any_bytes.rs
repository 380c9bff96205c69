//! No datagram makes any part of the directory panic.

use proptest::prelude::*;
use std::net::SocketAddr;
use v12_master::info::ServerInfo;
use v12_master::token::TokenMinter;
use v12_master::wire::Message;
use v12_master::wire::answer_info_request;
use v12_master::{MasterConfig, MasterServer, QueryConfig, Registrar, RegistrarConfig, ServerQuery};

fn valid(kind: u8) -> Vec<u8> {
    let info = ServerInfo { name: "x".into(), ..ServerInfo::default() };
    match kind % 4 {
        0 => Message::Heartbeat { nonce: 1, token: 2, info }.encode(),
        1 => Message::ListPage {
            nonce: 1,
            page: 0,
            pages: 2,
            total: 1,
            servers: vec!["1.2.3.4:5".parse().unwrap()],
        }
        .encode(),
        2 => Message::InfoResponse { nonce: 1, info }.encode(),
        _ => Message::InfoRequest { nonce: 1 }.encode(),
    }
}

proptest! {
    #[test]
    fn random_and_mutated_datagrams_never_panic(
        random in proptest::collection::vec(any::<u8>(), 0..1400),
        kind in any::<u8>(),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        cut in any::<usize>(),
    ) {
        let master_addr: SocketAddr = "10.0.0.1:28000".parse().unwrap();
        let from: SocketAddr = "10.0.0.2:1".parse().unwrap();
        let mut m = MasterServer::new(MasterConfig::default(), TokenMinter::with_key([1; 16]));
        let mut r = Registrar::new(RegistrarConfig { masters: vec![master_addr], ..Default::default() }, 1);
        let mut q = ServerQuery::new(0, QueryConfig { masters: vec![master_addr], ..Default::default() }, 1);
        let mut mutated = valid(kind);
        for (at, x) in flips {
            let n = mutated.len();
            mutated[at % n] ^= x;
        }
        let cut = cut % (mutated.len() + 1);
        for d in [&random[..], &mutated[..], &mutated[..cut]] {
            m.handle_datagram(0, from, d);
            r.handle_datagram(0, master_addr, d);
            q.handle_datagram(0, master_addr, d);
            q.handle_datagram(0, from, d);
            let _ = answer_info_request(d, &ServerInfo::default());
            let _ = Message::decode(d);
        }
    }
}
