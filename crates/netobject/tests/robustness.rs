//! Bad peers: events against their direction, malformed bodies, arbitrary datagrams.
//! The offender is dropped with a reason; every other connection goes on; nothing panics.

mod common;

use common::*;
use proptest::prelude::*;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::*;

fn connected(clients: usize, seed: u64) -> World {
    let mut w =
        World::new(clients, InterfaceConfig::default(), InterfaceConfig::default(), LinkParams::CLEAN, seed);
    w.connect_all();
    w.run_until(1000);
    assert_eq!(w.node(0).connection_count(), clients);
    w
}

fn others_still_deliver(w: &mut World, skip: usize) {
    let before = w.seen(0).events.len();
    for i in 1..w.len() {
        if i == skip {
            continue;
        }
        let c = w.client_conn(i).unwrap();
        w.node_mut(i).post_event(c, Ordered::new(i as u32, 77, None)).unwrap();
    }
    let t = w.now();
    w.run_until(t + 1000);
    let got = w.seen(0).events[before..].iter().filter(|e| e.3 == 77).count();
    assert_eq!(got, w.len() - 2, "the other clients go on");
}

#[test]
fn posting_against_direction_is_refused_locally() {
    let mut w = connected(1, 1);
    let c = w.client_conn(1).unwrap();
    assert_eq!(
        w.node_mut(1).post_event(c, Box::new(ServerOnly)),
        Err(NetError::WrongDirection("ServerOnly"))
    );
    let sc = w.node(0).connection_ids()[0];
    assert_eq!(w.node_mut(0).post_event(sc, Box::new(ServerOnly)), Ok(()));
    #[derive(Debug)]
    struct Unregistered;
    impl NetEvent for Unregistered {
        fn pack(&self, _: &mut BitWriter, _: &mut PackContext<'_>) {}
    }
    assert_eq!(w.node_mut(1).post_event(c, Box::new(Unregistered)), Err(NetError::UnregisteredEvent));
}

/// Same name and version as the server's `ServerOnly`, but this client build lets it go either way.
#[derive(Debug)]
struct RogueServerOnly;
impl NetEvent for RogueServerOnly {
    fn pack(&self, _: &mut BitWriter, _: &mut PackContext<'_>) {}
}
impl NetEventClass for RogueServerOnly {
    const NAME: &'static str = "ServerOnly";
    fn unpack(_: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        Ok(Self)
    }
}

#[test]
fn event_against_its_direction_drops_only_that_client() {
    let rogue = Arc::new(
        NetClassRegistryBuilder::new()
            .register::<Unreliable>()
            .register::<Reliable>()
            .register::<Ordered>()
            .register::<RogueServerOnly>()
            .register::<Poison>()
            .build()
            .unwrap(),
    );
    let cfg = InterfaceConfig::default();
    let mut w = World::with_registries(3, cfg.clone(), cfg, LinkParams::CLEAN, 2, registry(), rogue);
    w.connect_all();
    w.run_until(1000);
    let c = w.client_conn(2).unwrap();
    w.node_mut(2).post_event(c, Box::new(RogueServerOnly)).unwrap();
    w.run_until(2000);
    let drops = &w.seen(0).disconnected;
    assert_eq!(drops.len(), 1);
    assert_eq!(drops[0].1, "protocol error: event ServerOnly sent against its direction");
    assert_eq!(w.seen(2).disconnected.len(), 1, "the offender is told: {:?}", w.seen(2).disconnected);
    assert!(w.seen(2).disconnected[0].1.contains("against its direction"));
    others_still_deliver(&mut w, 2);
}

#[test]
fn malformed_event_body_drops_only_its_sender() {
    let mut w = connected(3, 3);
    let c = w.client_conn(1).unwrap();
    w.node_mut(1).post_event(c, Box::new(Poison)).unwrap();
    w.run_until(2000);
    assert_eq!(w.seen(0).disconnected.len(), 1);
    assert_eq!(w.seen(0).disconnected[0].1, "protocol error: bad event: poison value 0xbad");
    assert_eq!(w.node(0).connection_count(), 2);
    others_still_deliver(&mut w, 1);
}

#[test]
fn ordered_events_wait_for_predecessors() {
    // Server posts 3 ordered events; the packet with the first is lost on purpose by
    // simulated loss on the server's connection, yet the client processes them in order.
    let mut w = connected(1, 4);
    let sc = w.node(0).connection_ids()[0];
    w.node_mut(0).set_simulated_net_params(sc, 1.0, 0).unwrap();
    w.node_mut(0).post_event(sc, Ordered::new(0, 0, None)).unwrap();
    let t = w.now();
    w.run_until(t + 150);
    w.node_mut(0).set_simulated_net_params(sc, 0.0, 0).unwrap();
    w.node_mut(0).post_event(sc, Ordered::new(0, 1, None)).unwrap();
    w.node_mut(0).post_event(sc, Ordered::new(0, 2, None)).unwrap();
    // The second packet arrives first: its events are held, not processed.
    let c = w.client_conn(1).unwrap();
    let mut held_seen = false;
    let t = w.now();
    while w.now() < t + 3000 {
        w.step(t + 3000);
        if w.node(1).connection(c).is_some_and(|c| c.held_events() == 2) {
            held_seen = true;
            assert!(w.seen(1).events.is_empty());
        }
    }
    assert!(held_seen, "events 1 and 2 were unpacked early and held");
    let got: Vec<u32> = w.seen(1).events.iter().map(|e| e.3).collect();
    assert_eq!(got, vec![0, 1, 2]);
    assert!(w.node(0).connection(sc).unwrap().stats().simulated_drops > 0);
}

#[test]
fn simulated_latency_delays_delivery() {
    let mut w = connected(1, 5);
    let c = w.client_conn(1).unwrap();
    w.node_mut(1).set_simulated_net_params(c, 0.0, 300).unwrap();
    let t = w.now();
    w.node_mut(1).post_event(c, Ordered::new(1, 5, None)).unwrap();
    assert!(w.run_until_cond(t + 2000, |w| !w.seen(0).events.is_empty()));
    // Link latency 20 ms + simulated 300 ms + up to one 32 ms send period.
    assert!(w.now() - t >= 320 && w.now() - t <= 360, "took {}", w.now() - t);
}

#[test]
fn oversized_event_is_dropped_not_stuck() {
    #[derive(Debug)]
    struct Huge;
    impl NetEvent for Huge {
        fn guarantee(&self) -> Guarantee {
            Guarantee::Guaranteed
        }
        fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
            w.write_bytes(&[0u8; 600]);
        }
    }
    impl NetEventClass for Huge {
        const NAME: &'static str = "Huge";
        fn unpack(_: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
            Ok(Self)
        }
    }
    let reg =
        Arc::new(NetClassRegistryBuilder::new().register::<Huge>().register::<Ordered>().build().unwrap());
    let cfg = InterfaceConfig::default();
    let mut w = World::with_registries(1, cfg.clone(), cfg, LinkParams::CLEAN, 6, reg.clone(), reg);
    w.connect_all();
    w.run_until(1000);
    let c = w.client_conn(1).unwrap();
    w.node_mut(1).post_event(c, Box::new(Huge)).unwrap();
    w.node_mut(1).post_event(c, Ordered::new(1, 1, None)).unwrap();
    w.run_until(2000);
    assert_eq!(w.seen(0).events.len(), 1, "the ordered event behind it still arrives");
    assert_eq!(w.node(1).connection(c).unwrap().stats().events.dropped, 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn arbitrary_datagrams_never_panic_and_only_hit_their_sender(
        seed in any::<u64>(),
        junk in proptest::collection::vec((0usize..6, proptest::collection::vec(any::<u8>(), 0..80)), 1..60),
    ) {
        let mut w = connected(3, seed);
        // Sources 1..=3 are live clients (client 3 never sends junk), 4 and 5 are strangers.
        for (src, bytes) in &junk {
            let src = if *src == 3 { 4 } else { *src };
            let now = w.now();
            w.node_mut(0).handle_datagram(now, addr(src), bytes, &mut v12_netobject::ghost::GhostArena::new());
            // Also throw the same junk at a client, "from the server".
            w.node_mut(3).handle_datagram(now, addr(5), bytes, &mut v12_netobject::ghost::GhostArena::new());
            w.step(now + 5);
        }
        w.run_until(w.now() + 500);
        // Client 3 sent no junk: still connected, still delivering.
        let c3 = w.client_conn(3).unwrap();
        prop_assert!(w.node(3).connection(c3).is_some());
        let before = w.seen(0).events.len();
        w.node_mut(3).post_event(c3, Ordered::new(3, 9, None)).unwrap();
        let t = w.now();
        w.run_until(t + 1000);
        prop_assert!(w.seen(0).events[before..].iter().any(|e| e.2 == 3 && e.3 == 9));
        for (conn, reason, _) in &w.seen(0).disconnected {
            prop_assert!(reason.starts_with("protocol error"), "{conn:?}: {reason}");
        }
    }
}

#[test]
fn rate_is_negotiated_in_band() {
    let mut w = connected(1, 7);
    let c = w.client_conn(1).unwrap();
    let sc = w.node(0).connection_ids()[0];
    assert_eq!(w.node(0).connection(sc).unwrap().stats().send_period_ms, 100);
    // The client asks the server to send at most every 250 ms and 200 bytes.
    let slow = RateConfig { recv_period_ms: 250, recv_size: 200, ..RateConfig::CLIENT };
    w.node_mut(1).set_rate(c, slow).unwrap();
    w.node_mut(1).post_event(c, Ordered::new(1, 1, None)).unwrap();
    let t = w.now();
    w.run_until(t + 1000);
    let st = w.node(0).connection(sc).unwrap().stats();
    assert_eq!((st.send_period_ms, st.send_size), (250, 200));
    // And the server's data packets now come no faster than that.
    let before = w.node(0).connection(sc).unwrap().protocol().stats().data_sent;
    for n in 0..40 {
        w.node_mut(0).post_event(sc, Ordered::new(0, n, None)).unwrap();
        let t = w.now();
        w.run_until(t + 50);
    }
    let sent = w.node(0).connection(sc).unwrap().protocol().stats().data_sent - before;
    assert!((8..=9).contains(&sent), "2 s at 250 ms: {sent} data packets");
}

#[test]
fn a_tagged_string_crosses_once_then_as_an_id() {
    let mut w = connected(1, 8);
    let c = w.client_conn(1).unwrap();
    let tag = w.node_mut(1).strings().add_tagged_string("This %1 guy is super %2");
    for n in 0..100 {
        w.node_mut(1).post_event(c, Ordered::new(1, n, Some(tag.clone()))).unwrap();
        let t = w.now();
        w.run_until(t + 20);
    }
    w.run_until(w.now() + 500);
    let st = w.node(1).connection(c).unwrap().stats();
    assert!(w.node(1).connection(c).unwrap().string_confirmed(&tag));
    // The text rides in every packet until one carrying it is acknowledged (one RTT).
    assert!(st.string_texts_sent <= 3, "text sent {} times", st.string_texts_sent);
    assert_eq!(w.seen(0).events.len(), 100);
    assert!(w.seen(0).events.iter().all(|e| e.4.as_deref() == Some("This %1 guy is super %2")));
    assert_eq!(w.node_mut(1).strings().remove_tagged_string(&tag), 0);
}
