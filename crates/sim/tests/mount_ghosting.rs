//! A rider is ghosted after its mount (the owned-object model's rule, `NetObject::dependencies`),
//! over a seeded lossy link on a simulated clock: the client never holds a rider before the vehicle
//! it rides, even though the rider outranks the vehicle, and resolves the rider's mount to its
//! own ghost of the vehicle. A mount that leaves (unseated and driven out of scope, deleted
//! while ridden, or out of scope with its rider) leaves no ghost pointing at nothing.

use glam::Vec3;
use std::sync::Arc;
use v12_netobject::ghost::{CameraScopeQuery, GhostClassRegistryBuilder, NetObject, ObjectId};
use v12_netobject::{ConnectionId, InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface};
use v12_platform::{ConditionerConfig, LinkConditioner, LoopbackTransport, LossModel, Transport};
use v12_services::NetDriver;
use v12_sim::scene::{ClientScene, Mount, SceneObject, SceneWorld};

type Port = LinkConditioner<LoopbackTransport>;

const VEHICLE: u32 = 7;
const RIDER: u32 = 8;
const VISIBLE: f32 = 100.0;

struct Net {
    server: NetDriver<Port>,
    client: NetDriver<Port>,
    world: SceneWorld,
    scene: ClientScene,
    camera: u32,
    connection: Option<ConnectionId>,
    now: u64,
    /// Rider ghosts seen so far (client ids).
    seen: std::collections::BTreeSet<ObjectId>,
    /// Rider ghosts that arrived without their vehicle's ghost held (each rider is mounted
    /// whenever it comes into scope here).
    rider_first: u32,
}

impl Net {
    fn new(seed: u64) -> Self {
        let reg = Arc::new(NetClassRegistryBuilder::new().build().unwrap());
        let classes = Arc::new(GhostClassRegistryBuilder::new().register::<SceneObject>().build().unwrap());
        let (a, c) = LoopbackTransport::pair();
        let server_addr = a.local_addr().socket_addr();
        let mut siface = NetInterface::new(
            InterfaceConfig { accept_connections: true, ..Default::default() },
            reg.clone(),
            [3; 32],
        );
        siface.set_ghost_classes(classes.clone());
        let mut ciface = NetInterface::new(InterfaceConfig::default(), reg, [4; 32]);
        ciface.set_ghost_classes(classes);
        ciface.connect(0, server_addr, bytes::Bytes::new());
        let link = ConditionerConfig {
            latency_ms: 60,
            jitter_ms: 10,
            loss: LossModel::Uniform(0.05),
            ..ConditionerConfig::default()
        };
        let mut world = SceneWorld::new(VISIBLE);
        let camera = world.add(SceneObject::new(1, Vec3::ZERO));
        Self {
            server: NetDriver::new(siface, LinkConditioner::new(a, link, seed)),
            client: NetDriver::new(ciface, LinkConditioner::new(c, link, seed ^ 0x5EED)),
            world,
            scene: ClientScene::new(),
            camera,
            connection: None,
            now: 0,
            seen: Default::default(),
            rider_first: 0,
        }
    }

    /// `ms` of simulated time in 8 ms steps, checking the client after every pump.
    fn run(&mut self, ms: u64) {
        let end = self.now + ms;
        while self.now < end {
            self.now += 8;
            self.server.pump(self.now, &self.world, &mut v12_netobject::ghost::GhostArena::new()).unwrap();
            while let Some(ev) = self.server.interface.poll_event() {
                if let InterfaceEvent::Connected { connection, .. } = ev {
                    self.server.interface.start_ghosting(connection).unwrap();
                    self.server.interface.set_scope_object(connection, Some(ObjectId(self.camera))).unwrap();
                    self.connection = Some(connection);
                }
            }
            self.client.pump(self.now, &v12_netobject::ghost::NoObjects, &mut self.scene).unwrap();
            while self.client.interface.poll_event().is_some() {}
            self.check();
        }
    }

    /// No ghost rides a ghost the client does not hold; a rider arrives riding its vehicle.
    fn check(&mut self) {
        for (id, g) in self.scene.iter() {
            if let Some(m) = g.mount() {
                assert!(self.scene.get(m.object).is_some(), "ghost {id:?} rides {:?}, not held", m.object);
            }
        }
        for r in self.ghosts(RIDER) {
            if self.seen.insert(r) {
                let vehicle =
                    self.scene.get(r).and_then(|g| g.mount()).and_then(|m| self.scene.get(m.object));
                if vehicle.is_none_or(|v| v.datablock != VEHICLE) {
                    self.rider_first += 1;
                }
            }
        }
    }

    /// The client's ghosts with datablock `db`.
    fn ghosts(&self, db: u32) -> Vec<ObjectId> {
        self.scene.iter().filter(|(_, g)| g.datablock == db).map(|(id, _)| id).collect()
    }

    fn mount(&mut self, rider: u32, on: Option<u32>) {
        assert!(self.world.set_mount(rider, on.map(|v| Mount { object: ObjectId(v), node: 0 })));
    }

    fn move_to(&mut self, id: u32, pos: Vec3) {
        let o = self.world.get_mut(id).unwrap();
        let mut s = o.state;
        s.pos = pos;
        o.set_state(s);
    }
}

#[test]
fn a_rider_arrives_after_its_vehicle_and_rides_the_clients_ghost_of_it() {
    for seed in [1u64, 2, 3, 4, 5] {
        let mut n = Net::new(seed);
        // The rider sits by the camera, inside its near ring; the vehicle it rides is past the
        // visible distance (scoped only as the rider's dependency), so the rider outranks it.
        let vehicle = n.world.add(SceneObject::new(VEHICLE, Vec3::new(VISIBLE * 1.5, 0.0, 0.0)));
        let rider = n.world.add(SceneObject::new(RIDER, Vec3::new(2.0, 0.0, 0.0)));
        n.mount(rider, Some(vehicle));
        let mut q = CameraScopeQuery::default();
        n.world.get(n.camera).unwrap().on_camera_scope_query(&mut q);
        let (pr, pv) = (
            n.world.get(rider).unwrap().get_update_priority(&q, u32::MAX, 0),
            n.world.get(vehicle).unwrap().get_update_priority(&q, u32::MAX, 0),
        );
        assert!(pr > pv + 50.0, "seed {seed}: the rider outranks its vehicle ({pr} vs {pv})");
        n.run(8_000);
        assert_eq!(n.rider_first, 0, "seed {seed}: a rider was held before its vehicle");
        let (riders, vehicles) = (n.ghosts(RIDER), n.ghosts(VEHICLE));
        assert_eq!((riders.len(), vehicles.len()), (1, 1), "seed {seed}");
        let ghost = n.scene.get(riders[0]).unwrap();
        assert_eq!(ghost.mount(), Some(Mount { object: vehicles[0], node: 0 }), "seed {seed}");

        // Unseated, the vehicle drives away out of scope: its ghost goes, the rider stays.
        n.mount(rider, None);
        n.move_to(vehicle, Vec3::new(VISIBLE * 3.0, 0.0, 0.0));
        n.run(3_000);
        assert_eq!((n.ghosts(RIDER).len(), n.ghosts(VEHICLE).len()), (1, 0), "seed {seed}");
        assert_eq!(n.scene.get(riders[0]).unwrap().mount(), None, "seed {seed}");

        // Seated on a vehicle the client already holds: the update resolves to that ghost.
        let near = n.world.add(SceneObject::new(VEHICLE, Vec3::new(10.0, 5.0, 0.0)));
        n.run(1_500);
        let held = n.ghosts(VEHICLE);
        assert_eq!(held.len(), 1, "seed {seed}");
        n.mount(rider, Some(near));
        n.run(1_500);
        assert_eq!(n.scene.get(riders[0]).unwrap().mount(), Some(Mount { object: held[0], node: 0 }));

        // Deleted while ridden: the rider is unseated, the vehicle's ghost goes.
        n.world.remove(near);
        n.run(2_000);
        assert_eq!(n.ghosts(VEHICLE).len(), 0, "seed {seed}");
        assert_eq!(n.scene.get(riders[0]).unwrap().mount(), None, "seed {seed}");

        // Rider and mount leave scope together (the camera moves away), and come back.
        let far = n.world.add(SceneObject::new(VEHICLE, Vec3::new(40.0, 0.0, 0.0)));
        n.mount(rider, Some(far));
        n.run(1_500);
        n.move_to(n.camera, Vec3::new(-VISIBLE * 4.0, 0.0, 0.0));
        n.run(3_000);
        assert!(n.ghosts(RIDER).is_empty() && n.ghosts(VEHICLE).is_empty(), "seed {seed}: out of scope");
        n.move_to(n.camera, Vec3::ZERO);
        n.run(3_000);
        let (riders, vehicles) = (n.ghosts(RIDER), n.ghosts(VEHICLE));
        assert_eq!((riders.len(), vehicles.len()), (1, 1), "seed {seed}: back in scope");
        assert_eq!(n.scene.get(riders[0]).unwrap().mount(), Some(Mount { object: vehicles[0], node: 0 }));
        assert_eq!(n.rider_first, 0, "seed {seed}: a rider was held before its vehicle");
        assert!(n.connection.is_some());
    }
}
