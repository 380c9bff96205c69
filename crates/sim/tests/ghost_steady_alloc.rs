//! The ghost path allocates nothing in the steady state (issue 33): once a crowd's ghosts are
//! created and its buffers have grown, a tick of moving objects, each connection's scoping
//! pass, its ghost section and the notifies of its packets (delivered and dropped) reuse what
//! they have. A counting allocator (the only `unsafe` here) counts every allocation.

#![allow(unsafe_code)] // the counting allocator

use glam::Vec3;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use v12_bitstream::BitWriter;
use v12_netobject::ghost::{GhostClassRegistryBuilder, GhostConfig, GhostManager, GhostRecord, ObjectId};
use v12_sim::scene::{SceneObject, SceneWorld};

static ALLOCS: AtomicU64 = AtomicU64::new(0);

struct Counting;

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's layout contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator with `layout`; the contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const PLAYERS: usize = 300;
const CONNECTIONS: usize = 24;
/// Packets a connection has in flight before the oldest is notified.
const IN_FLIGHT: usize = 3;

struct Crowd {
    world: SceneWorld,
    players: Vec<u32>,
    managers: Vec<GhostManager>,
    in_flight: Vec<VecDeque<GhostRecord>>,
    writer: BitWriter,
}

impl Crowd {
    /// 300 players on a 40 m square (every one within the 60 m scope of most others), 24 of
    /// them with a connection.
    fn new() -> Self {
        let classes = Arc::new(GhostClassRegistryBuilder::new().register::<SceneObject>().build().unwrap());
        let mut world = SceneWorld::new(60.0);
        let players = (0..PLAYERS)
            .map(|i| {
                let (x, y) = ((i % 20) as f32 * 2.0 - 20.0, (i / 20) as f32 * 2.6 - 20.0);
                world.add(SceneObject::new(1, Vec3::new(x, y, 0.0)))
            })
            .collect();
        let managers = (0..CONNECTIONS)
            .map(|_| {
                let mut m = GhostManager::new(GhostConfig::default(), classes.clone());
                m.start_ghosting();
                m
            })
            .collect();
        Self {
            world,
            players,
            managers,
            in_flight: vec![VecDeque::new(); CONNECTIONS],
            writer: BitWriter::new(),
        }
    }

    /// One tick: every player moves a little (back and forth), then every connection writes
    /// a packet; the oldest packet in flight is notified, every seventh one as lost.
    fn tick(&mut self, tick: usize) {
        for (k, (_, o)) in self.world.iter_mut().enumerate() {
            let mut s = o.state;
            let step = if (tick + k) % 20 < 10 { 0.05 } else { -0.05 };
            s.pos.x += step;
            s.yaw = step;
            o.set_state(s);
        }
        for (c, m) in self.managers.iter_mut().enumerate() {
            self.writer.clear();
            self.writer.set_budget_bits(508 * 8);
            m.update_scope(&self.world, ObjectId(self.players[c * (PLAYERS / CONNECTIONS)]));
            let record = m.write_packet(&self.world, &mut self.writer);
            self.in_flight[c].push_back(record);
            if self.in_flight[c].len() > IN_FLIGHT
                && let Some(r) = self.in_flight[c].pop_front()
            {
                if (tick + c).is_multiple_of(7) { m.packet_dropped(r) } else { m.packet_delivered(r) }
            }
        }
    }
}

#[test]
fn steady_ghost_packets_allocate_nothing() {
    let mut crowd = Crowd::new();
    // Long enough for every create to be written and acknowledged and every buffer to grow.
    for tick in 0..400 {
        crowd.tick(tick);
    }
    let held: usize = crowd.managers.iter().map(GhostManager::ghost_count).sum();
    assert!(held >= CONNECTIONS * PLAYERS / 2, "the crowd is ghosted: {held} ghosts");
    let updates0: u64 = crowd.managers.iter().map(|m| m.stats().updates_sent).sum();
    let before = ALLOCS.load(Ordering::Relaxed);
    for tick in 400..600 {
        crowd.tick(tick);
    }
    let allocations = ALLOCS.load(Ordering::Relaxed) - before;
    let updates: u64 = crowd.managers.iter().map(|m| m.stats().updates_sent).sum::<u64>() - updates0;
    assert!(updates > 200 * CONNECTIONS as u64, "packets carried updates: {updates}");
    assert_eq!(allocations, 0, "allocations in 200 steady ticks ({updates} updates written)");
}
