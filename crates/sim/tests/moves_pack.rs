//! Move quantisation, delta packing round trips (proptest), move lists on both sides.

use proptest::prelude::*;
use v12_bitstream::{BitReader, BitWriter};
use v12_sim::moves::{
    ClientMoveList, MAX_MOVE_LIST, Move, MoveError, NULL_MOVE, ServerMoveList, control_checksum, read_moves,
};

fn arb_move() -> impl Strategy<Value = Move> {
    (0u8..=32, 0u8..=32, 0u8..=32, any::<u16>(), any::<u16>(), any::<u16>(), any::<[bool; 6]>()).prop_map(
        |(px, py, pz, pyaw, ppitch, proll, triggers)| Move {
            px,
            py,
            pz,
            pyaw,
            ppitch,
            proll,
            triggers,
            ..NULL_MOVE
        },
    )
}

proptest! {
    #[test]
    fn pack_round_trips_against_any_base(m in arb_move(), base in arb_move(), with_base in any::<bool>()) {
        let b = with_base.then_some(&base);
        let mut w = BitWriter::new();
        m.pack(&mut w, b);
        let bytes = w.into_bytes();
        let got = Move::unpack(&mut BitReader::new(&bytes), b).unwrap();
        prop_assert!(got.same_input(&m));
    }

    #[test]
    fn list_round_trips(moves in proptest::collection::vec(arb_move(), 0..=MAX_MOVE_LIST), cs in any::<u16>()) {
        let mut list = ClientMoveList::new();
        let mut ids = Vec::new();
        for m in &moves {
            let id = list.collect(*m).unwrap();
            list.set_checksum(id, cs ^ id as u16);
            ids.push(id);
        }
        let mut w = BitWriter::new();
        prop_assert_eq!(list.write_moves(&mut w), moves.len());
        let bytes = w.into_bytes();
        let got = read_moves(&mut BitReader::new(&bytes)).unwrap();
        prop_assert_eq!(got.len(), moves.len());
        for ((g, m), id) in got.iter().zip(&moves).zip(&ids) {
            prop_assert!(g.same_input(m));
            prop_assert_eq!(g.id, *id);
            prop_assert_eq!(g.checksum, cs ^ *id as u16);
        }
    }

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = read_moves(&mut BitReader::new(&bytes));
        let _ = Move::unpack(&mut BitReader::new(&bytes), None);
    }

    #[test]
    fn quantisation_is_stable(x in -2.0f32..2.0, yaw in -10.0f32..10.0) {
        let m = Move::from_input(x, 0.0, 0.0, yaw, 0.0, 0.0, [false; 6]);
        let again = Move::from_input(m.x(), m.y(), m.z(), m.yaw(), m.pitch(), m.roll(), m.triggers);
        prop_assert!(again.same_input(&m));
        prop_assert!((m.x() - x.clamp(-1.0, 1.0)).abs() <= 1.0 / 32.0 + 1e-6);
    }
}

#[test]
fn quantisation_matches_torque3d() {
    let m = Move::from_input(
        1.0,
        -1.0,
        0.0,
        std::f32::consts::FRAC_PI_2,
        -std::f32::consts::FRAC_PI_2,
        0.0,
        [false; 6],
    );
    assert_eq!((m.px, m.py, m.pz), (32, 0, 16));
    assert_eq!((m.pyaw, m.ppitch), (16384, 49152));
    assert!((m.pitch() + std::f32::consts::FRAC_PI_2).abs() < 1e-6);
    let n = Move::from_input(f32::NAN, 5.0, -5.0, f32::INFINITY, 0.0, 0.0, [true; 6]);
    assert_eq!((n.px, n.py, n.pz, n.pyaw), (16, 32, 0, 0));
}

#[test]
fn bits_per_move() {
    // Null move alone: one flag.
    let mut w = BitWriter::new();
    NULL_MOVE.pack(&mut w, None);
    assert_eq!(w.bit_position(), 1);
    // Same as the previous move: 7 "unchanged" flags.
    let m = Move::from_input(1.0, 0.0, 0.0, 0.1, 0.0, 0.0, [false; 6]);
    let mut w = BitWriter::new();
    m.pack(&mut w, Some(&m));
    assert_eq!(w.bit_position(), 7);
    // Worst case: everything changed.
    let a = Move::from_input(1.0, 1.0, 1.0, 0.1, 0.2, 0.3, [true; 6]);
    let mut w = BitWriter::new();
    a.pack(&mut w, Some(&NULL_MOVE));
    assert_eq!(w.bit_position(), 7 + 3 * 16 + 3 * 6 + 6);
}

#[test]
fn out_of_range_axis_is_refused() {
    let mut w = BitWriter::new();
    w.write_int(1, 32);
    w.write_int(1, 5);
    w.write_flag(true); // something changed
    for _ in 0..3 {
        w.write_flag(false);
    }
    w.write_flag(true);
    w.write_int(40, 6);
    let b = w.into_bytes();
    assert_eq!(read_moves(&mut BitReader::new(&b)), Err(MoveError::AxisOutOfRange(40)));
}

#[test]
fn client_resends_until_acked_and_server_processes_each_once() {
    let mut client = ClientMoveList::new();
    let mut server = ServerMoveList::new();
    let mut processed = Vec::new();
    for tick in 0..10u32 {
        let id =
            client.collect(Move::from_input(0.5, 0.0, 0.0, tick as f32 * 0.01, 0.0, 0.0, [tick % 2 == 0; 6]));
        let id = id.unwrap();
        let predicted = client.next_move().unwrap();
        assert_eq!(predicted.id, id);
        client.set_checksum(id, control_checksum(&tick.to_le_bytes()));
        let mut w = BitWriter::new();
        client.write_moves(&mut w);
        let b = w.into_bytes();
        // Every third packet is lost.
        if tick % 3 != 1 {
            server.read_packet(&mut BitReader::new(&b)).unwrap();
        }
        while let Some(m) = server.next_move() {
            let state = (m.id - 1).to_le_bytes();
            assert!(server.check(&m, control_checksum(&state)));
            processed.push(m.id);
        }
        // The ack reaches the client only on even ticks.
        if tick % 2 == 0 {
            client.acknowledge(server.ack_id());
        }
    }
    assert_eq!(processed, (1..=10).collect::<Vec<_>>());
    assert!(!server.take_mismatch());
    assert!(server.duplicates > 0);
    assert!(client.len() <= 2);
}

#[test]
fn checksum_mismatch_asks_for_a_correction_and_the_client_replays() {
    let mut client = ClientMoveList::new();
    let mut server = ServerMoveList::new();
    for _ in 0..5 {
        let id = client.collect(Move::from_input(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false; 6])).unwrap();
        client.next_move();
        client.set_checksum(id, 7);
    }
    let mut w = BitWriter::new();
    client.write_moves(&mut w);
    let b = w.into_bytes();
    server.read_packet(&mut BitReader::new(&b)).unwrap();
    let m1 = server.next_move().unwrap();
    assert!(server.check(&m1, 7));
    let m2 = server.next_move().unwrap();
    assert!(!server.check(&m2, 8)); // the server's object was pushed by an explosion
    assert!(server.take_mismatch());
    assert!(!server.take_mismatch());
    client.acknowledge(server.ack_id());
    let replay: Vec<u32> = client.replay_moves().iter().map(|m| m.id).collect();
    assert_eq!(replay, vec![3, 4, 5]);
}

#[test]
fn list_limits_and_resend_cap() {
    let mut client = ClientMoveList::new();
    for _ in 0..MAX_MOVE_LIST {
        assert!(client.collect(NULL_MOVE).is_some());
    }
    assert!(client.collect(NULL_MOVE).is_none(), "a full list stalls");
    client.max_resend = 2;
    for expect in [30, 30, 0] {
        let mut w = BitWriter::new();
        assert_eq!(client.write_moves(&mut w), expect);
    }
    client.acknowledge(30);
    assert!(client.is_empty());
    client.acknowledge(3); // stale ack ignored
    assert_eq!(client.last_ack(), 30);
    assert_eq!(client.collect(NULL_MOVE), Some(31));
}

/// The move clock (issue 17: the server applied up to 30 new moves per packet every tick, so
/// a client could run many times faster than real time): one move a tick, a short catch-up
/// after a late packet, and nothing gained by sending more.
#[test]
fn a_client_cannot_run_faster_than_real_time() {
    use v12_sim::moves::{MAX_MOVE_CREDIT, ServerMoveList};
    let mv = |id: u32| {
        let mut m = Move::from_input(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, [false; 6]);
        m.id = id;
        m
    };
    let apply_tick = |s: &mut ServerMoveList| {
        s.tick();
        let mut n = 0;
        while s.next_move_in_time().is_some() {
            n += 1;
        }
        n
    };
    // A cheat sends 30 new moves with every tick's packet for 100 ticks.
    let mut cheat = ServerMoveList::new();
    let (mut id, mut applied) = (0, 0);
    for _ in 0..100 {
        cheat.receive(
            &(0..30)
                .map(|_| {
                    id += 1;
                    mv(id)
                })
                .collect::<Vec<_>>(),
        );
        applied += apply_tick(&mut cheat);
    }
    assert!(applied <= 100 + MAX_MOVE_CREDIT as usize, "{applied} moves in 100 ticks");
    assert!(cheat.over_clock > 0 && cheat.queued() <= MAX_MOVE_CREDIT as usize, "{} queued", cheat.queued());
    // An honest client late by three ticks catches up in one.
    let mut honest = ServerMoveList::new();
    for _ in 0..3 {
        assert_eq!(apply_tick(&mut honest), 0);
    }
    honest.receive(&[mv(1), mv(2), mv(3), mv(4)]);
    assert_eq!(apply_tick(&mut honest), 4);
}
