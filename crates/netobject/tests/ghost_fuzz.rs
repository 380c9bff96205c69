//! Hostile input: arbitrary bytes into GhostReceiver::read_packet never panic, whether the
//! receiver is empty or already holds ghosts, and valid-looking headers followed by noise.

mod ghost_support;

use ghost_support::*;
use proptest::prelude::*;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::*;

/// A receiver that already holds a few ghosts, so updates and kills reach object code.
fn populated() -> (GhostReceiver, GhostArena) {
    let (mut world, cam) = {
        let mut w = SimWorld::new(100.0, 50.0);
        let mut c = Mover::new(0, [0.0; 3], [0.0; 3]);
        c.view_distance = 500.0;
        let c = w.add(c);
        (w, c)
    };
    for i in 0..5 {
        world.add(Mover::new(0, [i as f32 * 3.0, 2.0, 0.0], [1.0, 0.0, 0.0]));
    }
    world.add_message(SimpleNetObject { message1: "a".into(), message2: "b".into(), ..Default::default() });
    let mut link = Link::new(GhostConfig::default(), cam, 1000, 0, 1);
    for _ in 0..3 {
        link.step(&world, Loss { rate: 0.0, burst: false }).unwrap();
    }
    assert_eq!(link.client.len(), 7);
    (link.client, link.arena)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut rx = GhostReceiver::new(classes());
        let _ = rx.read_packet(&mut GhostArena::new(), &mut BitReader::new(&bytes));
        let (mut rx, mut arena) = populated();
        let _ = rx.read_packet(&mut arena, &mut BitReader::new(&bytes));
        prop_assert_eq!(rx.len(), arena.len());
    }

    #[test]
    fn valid_header_then_noise_never_panics(
        id_bits in 1u32..=18,
        noise in proptest::collection::vec(any::<u8>(), 0..120),
    ) {
        let mut w = BitWriter::new();
        w.write_flag(true);
        w.write_flag(false);
        w.write_flag(true);
        w.write_ranged(id_bits, 1, MAX_GHOST_ID_BITS);
        for c in [1.0f32, 2.0, 3.0] {
            w.write_f32(c);
        }
        w.write_bytes(&noise);
        let bytes = w.into_bytes();
        let (mut rx, mut arena) = populated();
        let _ = rx.read_packet(&mut arena, &mut BitReader::new(&bytes));
        prop_assert_eq!(rx.len(), arena.len());
        rx.clear(&mut arena);
        prop_assert!(arena.is_empty());
    }
}
