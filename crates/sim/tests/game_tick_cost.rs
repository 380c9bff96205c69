//! Server tick cost with N simulated clients in-process (sans-IO over the in-memory
//! loopback): moves in, control objects ticked, control events and ghost packets out.
//! Ignored by default (a measurement, not a check); run with
//! `cargo test --release -p v12-sim --test game_tick_cost -- --ignored --nocapture`.

use glam::Vec3;
use std::sync::Arc;
use std::time::Instant;
use v12_netobject::ghost::GhostClassRegistryBuilder;
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetDriver, NetInterface};
use v12_platform::{LoopbackTransport, MemoryNetwork, NetAddress, Transport};
use v12_sim::game_connection::{ClientGameConnection, ServerGameConnection, register_events};
use v12_sim::moves::Move;
use v12_sim::scene::{ClientScene, Motion, SceneObject, SceneWorld};

fn measure(n: usize) -> (f64, f64) {
    let mut b = NetClassRegistryBuilder::new();
    register_events(&mut b);
    let reg = Arc::new(b.build().unwrap());
    let classes = Arc::new(GhostClassRegistryBuilder::new().register::<SceneObject>().build().unwrap());
    let net = MemoryNetwork::new();
    let st = net.bind(NetAddress::localhost(1)).unwrap();
    let saddr = st.local_addr().socket_addr();
    let mut siface = NetInterface::new(
        InterfaceConfig {
            accept_connections: true,
            max_connections: 4096,
            max_pending: 4096,
            ..Default::default()
        },
        reg.clone(),
        [3; 32],
    );
    siface.set_ghost_classes(classes.clone());
    let mut server = NetDriver::new(siface, st);
    let mut clients: Vec<(NetDriver<LoopbackTransport>, ClientScene, ClientGameConnection, _, bool)> = (0..n)
        .map(|i| {
            let t = net.bind(NetAddress::localhost(1000 + i as u16)).unwrap();
            let mut ci = NetInterface::new(InterfaceConfig::default(), reg.clone(), [i as u8; 32]);
            ci.set_ghost_classes(classes.clone());
            let id = ci.connect(0, saddr, bytes::Bytes::new());
            (NetDriver::new(ci, t), ClientScene::new(), ClientGameConnection::new(), id, false)
        })
        .collect();
    // The demo's scene: a 100 m arena, players spread out, 12 items.
    let mut world = SceneWorld::new(60.0);
    for i in 0..12 {
        world.add(SceneObject::new(2, Vec3::new(i as f32 * 7.0 - 40.0, 10.0, 0.0)));
    }
    let motion = Motion { max_speed: 8.0, damping: 0.8, arena_half: 50.0 };
    let mut conns: Vec<ServerGameConnection> = Vec::new();
    let mut cost_ns: u128 = 0;
    let mut ticks = 0u64;
    let mut bytes0 = 0;
    for tick in 0..(6_000 / 32) as u64 {
        let now = tick * 32;
        let measuring = now >= 3_000;
        if now == 3_000 {
            bytes0 = server.stats().bytes_out;
        }
        let t0 = Instant::now();
        for g in &mut conns {
            g.process_tick(&mut world, &motion);
            g.post_control(now, &mut server.interface, &world).unwrap();
        }
        server.pump_with(now, Some(&world), None).unwrap();
        while let Some(ev) = server.interface.poll_event() {
            match ev {
                InterfaceEvent::Connected { connection, .. } => {
                    let k = conns.len() as f32;
                    let p = world.add(SceneObject::new(
                        1,
                        Vec3::new((k * 3.7) % 90.0 - 45.0, (k * 5.3) % 90.0 - 45.0, 0.0),
                    ));
                    let mut g = ServerGameConnection::new(connection);
                    g.set_control_object(Some(p));
                    server.interface.start_ghosting(connection).unwrap();
                    conns.push(g);
                }
                InterfaceEvent::EventReceived { connection, event } => {
                    if let Some(g) = conns.iter_mut().find(|g| g.connection == connection) {
                        g.handle_event(&*event);
                    }
                }
                _ => {}
            }
        }
        if measuring {
            cost_ns += t0.elapsed().as_nanos();
            ticks += 1;
        }
        for (i, (d, scene, gcon, id, connected)) in clients.iter_mut().enumerate() {
            let turn = if (tick + i as u64) % 40 < 20 { 0.05 } else { -0.05 };
            gcon.process_tick(Move::from_input(0.0, 1.0, 0.0, turn, 0.0, 0.0, [false; 6]), &motion);
            if *connected {
                gcon.post_moves(&mut d.interface, *id).unwrap();
            }
            d.pump_with(now, None, Some(scene)).unwrap();
            while let Some(ev) = d.interface.poll_event() {
                match ev {
                    InterfaceEvent::Connected { .. } => *connected = true,
                    InterfaceEvent::EventReceived { event, .. } => {
                        gcon.handle_event(&*event, &motion);
                    }
                    _ => {}
                }
            }
        }
    }
    assert_eq!(conns.len(), n, "every client connected");
    let per_client_bps = (server.stats().bytes_out - bytes0) as f64 / 3.0 / n as f64;
    (cost_ns as f64 / ticks as f64 / 1000.0, per_client_bps)
}

#[test]
#[ignore = "measurement; run in release with --ignored --nocapture"]
fn server_tick_cost_by_client_count() {
    for n in [64, 256, 1024] {
        let (us, bps) = measure(n);
        println!(
            "clients {n:>5}: server tick {us:>9.0} µs ({:.1} % of a 32 ms tick), {bps:.0} B/s per client",
            us / 320.0
        );
    }
}
