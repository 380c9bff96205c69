//! The owned-object model's l3_demo with owned network objects: first the server syncs a
//! server-owned object to every client (its state changes, the ghosts follow), then each client
//! steers its own object with control messages, which the server checks (only the owner may),
//! applies, and sends back to everyone as ghost updates.
//!
//! In-process and deterministic: one server and N clients as sans-IO interfaces on a
//! simulated clock, their datagrams passed directly (no loss).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::*;
use v12_netobject::owned::{
    ClassPolicy, Handled, OwnedClient, OwnedObjects, OwnedWorld, Owner, register_events,
};
use v12_netobject::{ConnectionId, InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder, NetInterface};

/// The l3_demo object: a named counter at a position, owned by someone.
#[derive(Debug, Default)]
pub struct DemoNao {
    pub mask: StateMask,
    pub name: u32,
    pub value: i32,
    pub x: i32,
}

impl NetObject for DemoNao {
    fn net_flags(&self) -> NetFlags {
        NetFlags::GHOSTABLE | NetFlags::SCOPE_ALWAYS
    }
    fn state_mask(&self) -> &StateMask {
        &self.mask
    }
    fn pack_update(&self, _: &mut GhostPackContext<'_>, _: u32, w: &mut BitWriter) -> u32 {
        w.write_int(self.name, 8);
        w.write_int(self.value as u32, 32);
        w.write_int(self.x as u32, 32);
        0
    }
    fn unpack_update(
        &mut self,
        _: &mut GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        self.name = r.read_int(8)?;
        self.value = r.read_int(32)? as i32;
        self.x = r.read_int(32)? as i32;
        Ok(())
    }
}

impl NetObjectClass for DemoNao {
    const NAME: &'static str = "DemoNao";
    fn create_ghost() -> Self {
        Self::default()
    }
}

#[derive(Default)]
struct ServerWorld {
    objects: BTreeMap<ObjectId, Box<dyn NetObject>>,
    next: u32,
}

impl GhostWorld for ServerWorld {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        self.objects.get(&id).map(|b| &**b)
    }
    fn for_each_scope_always(&self, f: &mut dyn FnMut(ObjectId)) {
        self.objects.keys().for_each(|id| f(*id));
    }
}

impl OwnedWorld for ServerWorld {
    fn object_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject> {
        self.objects.get_mut(&id).map(|b| &mut **b)
    }
    fn insert_object(&mut self, object: Box<dyn NetObject>) -> ObjectId {
        let id = ObjectId(self.next);
        self.next += 1;
        self.objects.insert(id, object);
        id
    }
    fn remove_object(&mut self, id: ObjectId) {
        self.objects.remove(&id);
    }
}

/// What each client saw: per step, the (name, value, x) of every ghost, sorted.
#[derive(Debug, Default, Clone)]
pub struct L3Report {
    pub lines: Vec<String>,
    /// Final views, one per client.
    pub views: Vec<Vec<(u32, i32, i32)>>,
    /// The server's objects at the end.
    pub server: Vec<(u32, i32, i32)>,
}

impl L3Report {
    /// Every client ends with exactly the server's objects.
    pub fn converged(&self) -> bool {
        !self.views.is_empty() && self.views.iter().all(|v| *v == self.server)
    }
}

fn view(a: &GhostArena) -> Vec<(u32, i32, i32)> {
    let mut v: Vec<_> =
        a.iter().filter_map(|(_, g)| g.downcast_ref::<DemoNao>()).map(|n| (n.name, n.value, n.x)).collect();
    v.sort_unstable();
    v
}

fn addr(i: usize) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 29_000 + i as u16))
}

/// Runs the l3_demo with `clients` clients; `steps` syncs of the server object, then
/// `steps` control messages from each client to its own object.
pub fn run(clients: usize, steps: u32) -> Result<L3Report, String> {
    let reg = {
        let mut b = NetClassRegistryBuilder::new();
        register_events(&mut b);
        Arc::new(b.build().map_err(|e| e.to_string())?)
    };
    let classes =
        Arc::new(GhostClassRegistryBuilder::new().register::<DemoNao>().build().map_err(|e| e.to_string())?);
    let mut nodes = vec![NetInterface::new(
        InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() },
        reg.clone(),
        [3; 32],
    )];
    for i in 0..clients {
        nodes.push(NetInterface::new(InterfaceConfig::default(), reg.clone(), [10 + i as u8; 32]));
    }
    for n in &mut nodes {
        n.set_ghost_classes(classes.clone());
    }
    let class_id = classes.id_of_name("DemoNao").ok_or("class")?;
    let mut world = ServerWorld::default();
    let mut owned = OwnedObjects::new();
    owned.set_policy(class_id, ClassPolicy::default());
    let shared = world.insert_object(Box::new(DemoNao { name: 0, ..DemoNao::default() }));
    owned.insert(shared, class_id, Owner::Server);
    let mut arenas: Vec<GhostArena> = (0..clients).map(|_| GhostArena::new()).collect();
    let mut client_conn = vec![None; clients];
    let mut by_conn: BTreeMap<ConnectionId, usize> = BTreeMap::new();
    let mut own: BTreeMap<usize, ObjectId> = BTreeMap::new();
    for i in 0..clients {
        client_conn[i] = Some(nodes[i + 1].connect(0, addr(0), bytes::Bytes::copy_from_slice(&[i as u8])));
    }
    let mut report = L3Report::default();
    let mut now = 0u64;
    let mut pump = |nodes: &mut Vec<NetInterface>,
                    world: &mut ServerWorld,
                    owned: &mut OwnedObjects,
                    arenas: &mut Vec<GhostArena>,
                    by_conn: &mut BTreeMap<ConnectionId, usize>,
                    own: &mut BTreeMap<usize, ObjectId>,
                    for_ms: u64|
     -> Result<(), String> {
        let until = now + for_ms;
        while now < until {
            now += 8;
            for i in 0..nodes.len() {
                nodes[i].handle_timeout(now);
                let mut out = Vec::new();
                loop {
                    let objects: &dyn GhostWorld = if i == 0 { &*world } else { &NoObjects };
                    let next = nodes[i].poll_transmit(now, objects);
                    let Some(t) = next else { break };
                    out.push(t);
                }
                for (to, data) in out {
                    let j = usize::from(to.port() - 29_000);
                    if j == 0 {
                        // The server is sent no ghosts.
                        nodes[0].handle_datagram(now, addr(i), &data, &mut GhostArena::new());
                    } else if let Some(n) = nodes.get_mut(j) {
                        n.handle_datagram(now, addr(0), &data, &mut arenas[j - 1]);
                    }
                }
            }
            while let Some(ev) = nodes[0].poll_event() {
                match ev {
                    InterfaceEvent::Connected { connection, connect_data, .. } => {
                        let i = usize::from(connect_data.first().copied().unwrap_or(0));
                        by_conn.insert(connection, i);
                        // Each client gets an object it owns (created by the server: security on).
                        let id = world
                            .insert_object(Box::new(DemoNao { name: 1 + i as u32, ..DemoNao::default() }));
                        owned.insert(id, class_id, Owner::Client(connection));
                        own.insert(i, id);
                        nodes[0].start_ghosting(connection).map_err(|e| e.to_string())?;
                    }
                    InterfaceEvent::EventReceived { connection, event } => {
                        match owned.handle_event(&mut nodes[0], connection, &*event, &classes, world)? {
                            Handled::Control { object, body } => {
                                let dx = i32::from(body.first().copied().unwrap_or(0) as i8);
                                if let Some(n) =
                                    world.object_mut(object).and_then(|o| o.downcast_mut::<DemoNao>())
                                {
                                    n.x += dx;
                                    n.value += 1;
                                    n.mask.set_mask_bits(1);
                                }
                            }
                            other => return Err(format!("unexpected {other:?}")),
                        }
                    }
                    InterfaceEvent::Disconnected { reason, .. } => return Err(reason),
                    InterfaceEvent::ConnectFailed { reason, .. } => return Err(reason),
                }
            }
            for n in nodes.iter_mut().skip(1) {
                while n.poll_event().is_some() {}
            }
        }
        Ok(())
    };
    pump(&mut nodes, &mut world, &mut owned, &mut arenas, &mut by_conn, &mut own, 1_000)?;
    // Part 1: the server changes its own object; the clients' ghosts follow.
    for step in 1..=steps {
        if let Some(n) = world.object_mut(shared).and_then(|o| o.downcast_mut::<DemoNao>()) {
            n.value = step as i32;
            n.mask.set_mask_bits(1);
        }
        pump(&mut nodes, &mut world, &mut owned, &mut arenas, &mut by_conn, &mut own, 200)?;
        report
            .lines
            .push(format!("sync {step}: clients see {:?}", arenas.iter().map(view).collect::<Vec<_>>()));
    }
    // Part 2: every client moves its own object with control messages.
    for step in 1..=steps {
        for i in 0..clients {
            let (Some(conn), Some(&obj)) = (client_conn[i], own.get(&i)) else { continue };
            // The client finds its object's ghost by the name the server gave it.
            let ghost = arenas[i]
                .iter()
                .find(|(_, g)| g.downcast_ref::<DemoNao>().is_some_and(|n| n.name == 1 + i as u32))
                .and_then(|(o, _)| nodes[i + 1].ghost_receiver(conn)?.ghost_id_of(o));
            let _ = obj;
            if let Some(ghost) = ghost {
                OwnedClient::new()
                    .control(&mut nodes[i + 1], conn, ghost, vec![(i as i8 + 1) as u8])
                    .map_err(|e| e.to_string())?;
            }
        }
        pump(&mut nodes, &mut world, &mut owned, &mut arenas, &mut by_conn, &mut own, 300)?;
        report
            .lines
            .push(format!("control {step}: clients see {:?}", arenas.iter().map(view).collect::<Vec<_>>()));
    }
    pump(&mut nodes, &mut world, &mut owned, &mut arenas, &mut by_conn, &mut own, 1_000)?;
    report.views = arenas.iter().map(view).collect();
    let mut server: Vec<_> = world
        .objects
        .values()
        .filter_map(|o| o.downcast_ref::<DemoNao>())
        .map(|n| (n.name, n.value, n.x))
        .collect();
    server.sort_unstable();
    report.server = server;
    Ok(report)
}
