//! Convergence under loss: a moving world ghosted through a lossy link; after a clean
//! period every in-scope ghost equals its server object, out-of-scope ghosts are gone,
//! and no ghost id is reused while the client holds it (checked after every packet).

mod ghost_support;

use ghost_support::*;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use v12_netobject::ghost::*;

fn scenario(seed: u64, loss: Loss, budget: usize) -> Link {
    let mut rng = Pcg32::seed_from_u64(seed);
    let mut world = SimWorld::new(600.0, 50.0);
    let mut cam = Mover::new(0, [300.0, 300.0, 0.0], [6.0, 2.0, 0.0]);
    cam.view_distance = 150.0;
    let cam = world.add(cam);
    world.populate(&mut rng, 150, 15.0);
    for i in [5u32, 77] {
        world.mover_mut(ObjectId(i)).unwrap().flags = NetFlags::GHOSTABLE | NetFlags::SCOPE_ALWAYS;
    }
    let mut msg = SimpleNetObject { message2: "board".into(), ..Default::default() };
    msg.set_message1("Hello World 1!");
    world.add_message(msg);
    let h = GhostConfig::default().scope_hysteresis;
    let mut link = Link::new(GhostConfig::default(), cam, budget, 3, seed ^ 0xabc);
    for t in 0..400u32 {
        world.step(0.1);
        if t % 7 == 0 {
            let id = ObjectId(1 + rng.next_u32() % 150);
            if let Some(m) = world.mover_mut(id) {
                m.tag = rng.next_u32() & 0xffff;
                m.mask.set_mask_bits(TAG);
            }
        }
        if t % 50 == 25 {
            world.delete(ObjectId(1 + rng.next_u32() % 150));
            world.messages[0].1.set_message1(&format!("message {t}"));
        }
        link.step(&world, loss).expect("client accepts every packet");
    }
    for _ in 0..150 {
        link.step(&world, Loss { rate: 0.0, burst: false }).expect("clean packet");
    }
    link.deliver_notifies(true);
    link.assert_converged(&world, h);
    assert!(!link.server.has_data_to_send(), "idle after convergence");
    link
}

#[test]
fn converges_without_loss() {
    let link = scenario(1, Loss { rate: 0.0, burst: false }, 200);
    assert!(link.client.stats().creates > 20);
    assert_eq!(link.server.stats().bits_resent, 0);
}

#[test]
fn converges_under_independent_loss() {
    for (seed, rate) in [(2u64, 0.1), (3, 0.3), (4, 0.5)] {
        let link = scenario(seed, Loss { rate, burst: false }, 200);
        assert!(link.dropped > 0);
        assert!(link.server.stats().bits_resent > 0, "loss {rate}: something was resent");
    }
}

#[test]
fn converges_under_burst_loss() {
    for (seed, rate) in [(5u64, 0.2), (6, 0.5)] {
        let link = scenario(seed, Loss { rate, burst: true }, 200);
        assert!(link.dropped > 0);
    }
}

#[test]
fn converges_with_tiny_and_large_packets() {
    scenario(7, Loss { rate: 0.2, burst: false }, 40);
    scenario(8, Loss { rate: 0.2, burst: false }, 1400);
}

#[test]
fn mission_reset_under_loss_rebuilds_the_client() {
    let mut rng = Pcg32::seed_from_u64(9);
    let mut world = SimWorld::new(400.0, 50.0);
    let mut cam = Mover::new(0, [200.0, 200.0, 0.0], [0.0, 0.0, 0.0]);
    cam.view_distance = 120.0;
    let cam = world.add(cam);
    world.populate(&mut rng, 80, 10.0);
    let loss = Loss { rate: 0.3, burst: false };
    let mut link = Link::new(GhostConfig::default(), cam, 300, 4, 99);
    for _ in 0..60 {
        world.step(0.1);
        link.step(&world, loss).unwrap();
    }
    assert!(!link.client.is_empty());
    link.server.reset();
    link.resets_requested += 1;
    // A new mission: different objects.
    let mut world = SimWorld::new(400.0, 50.0);
    let mut cam = Mover::new(0, [100.0, 100.0, 0.0], [0.0, 0.0, 0.0]);
    cam.view_distance = 120.0;
    world.add(cam);
    world.populate(&mut rng, 40, 10.0);
    for _ in 0..80 {
        world.step(0.1);
        link.step(&world, loss).unwrap();
    }
    // The reset rides every packet until one is acknowledged; each copy is harmless.
    assert!(link.client.stats().resets >= 1, "the reset reached the client");
    for _ in 0..100 {
        link.step(&world, Loss { rate: 0.0, burst: false }).unwrap();
    }
    link.deliver_notifies(true);
    link.assert_converged(&world, 0.1);
}

#[test]
fn stop_ghosting_empties_the_client() {
    let mut rng = Pcg32::seed_from_u64(10);
    let mut world = SimWorld::new(300.0, 50.0);
    let mut cam = Mover::new(0, [150.0, 150.0, 0.0], [0.0, 0.0, 0.0]);
    cam.view_distance = 200.0;
    let cam = world.add(cam);
    world.populate(&mut rng, 30, 5.0);
    let mut link = Link::new(GhostConfig::default(), cam, 400, 2, 1);
    for _ in 0..30 {
        link.step(&world, Loss { rate: 0.0, burst: false }).unwrap();
    }
    assert_eq!(link.client.len(), 31);
    link.server.stop_ghosting();
    for _ in 0..10 {
        link.step(&world, Loss { rate: 0.0, burst: false }).unwrap();
    }
    assert!(link.client.is_empty() && link.arena.is_empty());
    assert!(!link.server.has_data_to_send());
}
