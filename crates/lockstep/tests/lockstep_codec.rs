//! Every message decoder takes any bytes without panicking, and every message round-trips.

use proptest::prelude::*;
use v12_lockstep::toy::ToyGame;
use v12_lockstep::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = ClientMessage::decode(&bytes);
        let _ = ServerMessage::decode(&bytes);
        let _ = PeerMessage::decode(&bytes);
        let _ = Replay::decode(&bytes);
        let _ = decode_batch::<ToyGame>(&bytes);
        let _ = ToyGame::load(&bytes);
    }

    #[test]
    fn sessions_take_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..120), now in 0u64..10_000) {
        let mut server = RelayServer::new(RelayConfig::default(), 1);
        let p = server.add_player("a").unwrap();
        server.start(0);
        server.handle_datagram(now, p, &bytes);
        server.handle_timeout(now + 10_000);
        let mut client = RelayClient::<ToyGame>::new(RelayClientConfig::default());
        client.handle_datagram(now, &bytes);
        client.poll(now + 1000);
        let mut peer = Peer::<ToyGame>::new_master(PeerConfig::default(), "m");
        peer.handle_datagram(now, "127.0.0.1:9".parse().unwrap(), &bytes);
        peer.poll(now + 1000);
    }

    #[test]
    fn client_commands_round_trip(nwf in any::<u32>(), sum in any::<Option<u32>>(), batch in proptest::collection::vec(any::<u8>(), 0..200)) {
        let m = ClientMessage::Commands { nwf, checksum: sum, batch };
        prop_assert_eq!(ClientMessage::decode(&m.encode()).unwrap(), m);
    }

    #[test]
    fn turn_round_trip(turn in -2i32..100_000, player in 1u8.., random in any::<u32>(), crc in any::<u32>(), vote in any::<u8>(),
                       commands in proptest::collection::vec(any::<u8>(), 0..100)) {
        let m = PeerMessage::Turn { data: vec![TurnData { turn, player, commands, random, crc, vote }] };
        prop_assert_eq!(PeerMessage::decode(&m.encode()).unwrap(), m);
    }
}

#[test]
fn every_message_kind_round_trips() {
    let a: std::net::SocketAddr = "10.1.2.3:4000".parse().unwrap();
    let b: std::net::SocketAddr = "[::1]:5000".parse().unwrap();
    let server = [
        ServerMessage::Start(StartInfo {
            you: 2,
            seed: u64::MAX - 3,
            first_gf: 7,
            gf_ms: 50,
            nwf_len: 3,
            command_delay: 2,
            players: vec![
                PlayerInfo { id: 1, name: "ann".into(), ai: false },
                PlayerInfo { id: 2, name: "bö".into(), ai: true },
            ],
        }),
        ServerMessage::NwfDone(NwfDone {
            nwf: 9,
            gf: 27,
            batches: vec![(1, vec![1, 2]), (2, vec![])],
            left: vec![(3, LeaveReason::Desync)],
            control: Some(Control::Speed { gf_ms: 25, nwf_len: 6 }),
        }),
        ServerMessage::Lagging { players: vec![3], waited_ms: 1200 },
        ServerMessage::Async { nwf: 4, diverging: vec![2], checksums: vec![(1, 5), (2, 6)] },
        ServerMessage::VoteRequest { nwf: 4, players: vec![2] },
        ServerMessage::Resume,
        ServerMessage::Kicked { reason: LeaveReason::Lagging },
        ServerMessage::GameOver,
    ];
    for m in server {
        assert_eq!(ServerMessage::decode(&m.encode()).unwrap(), m);
    }
    let client = [
        ClientMessage::Leave,
        ClientMessage::Waited { nwf: 9, ms: 250 },
        ClientMessage::StateDump { nwf: 3, chunk: 1, chunks: 2, bytes: vec![9; 200] },
        ClientMessage::Vote { nwf: 3, drop: true },
    ];
    for m in client {
        assert_eq!(ClientMessage::decode(&m.encode()).unwrap(), m);
    }
    let td = TurnData { turn: -1, player: 3, commands: vec![0], random: 1, crc: 2, vote: 3 };
    let peer = [
        PeerMessage::Helo { name: "cat".into() },
        PeerMessage::Wlcm { you: 3, master: 1, peers: vec![PeerInfo { id: 2, addr: b, name: "x".into() }] },
        PeerMessage::Nojn { reason: JoinRefusal::Full },
        PeerMessage::Nojn { reason: JoinRefusal::Started },
        PeerMessage::Nomp { master: a },
        PeerMessage::Intr { id: 3, name: "cat".into() },
        PeerMessage::IntrAck { id: 2 },
        PeerMessage::Strt {
            seed: 99,
            countdown_ms: 2950,
            turn_delay: 4,
            peers: vec![PeerInfo { id: 1, addr: a, name: "m".into() }],
        },
        PeerMessage::StrtAck,
        PeerMessage::Resend { turn: 12 },
        PeerMessage::Drop { player: 2, data: vec![td.clone()], seen: vec![1, 3] },
        PeerMessage::Ping { time: 123 },
        PeerMessage::Pong { time: 124 },
        PeerMessage::Turn { data: vec![td] },
    ];
    for m in peer {
        assert_eq!(PeerMessage::decode(&m.encode()).unwrap(), m);
    }
}

#[test]
fn the_empty_batch_the_relay_server_sends_is_what_a_game_encodes_for_no_commands() {
    assert_eq!(empty_batch(), encode_batch::<ToyGame>(&[]));
    assert!(decode_batch::<ToyGame>(&empty_batch()).unwrap().is_empty());
}
