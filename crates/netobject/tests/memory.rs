//! Memory goes back when connections go (issue 17: after 1,200 sockets left, a server kept
//! 366 MB). A counting allocator measures the bytes the server interface holds: before any
//! client, with 1,200 connected (each having sent events), and after they all left.

#![allow(unsafe_code)] // the counting allocator

mod common;

use common::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use v12_netobject::*;

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only a counter is kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's layout contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

#[test]
fn a_crowd_that_leaves_takes_its_memory_with_it() {
    const CLIENTS: usize = 1200;
    let server_cfg = InterfaceConfig {
        max_connections: CLIENTS,
        max_pending: CLIENTS,
        encryption: Encryption::On,
        ..InterfaceConfig::default()
    };
    let client_cfg = InterfaceConfig { encryption: Encryption::On, ..InterfaceConfig::default() };
    // What a fresh server interface holds, measured on a twin.
    let start = live();
    let twin = NetInterface::new(
        InterfaceConfig { accept_connections: true, ..server_cfg.clone() },
        registry(),
        entropy(1),
    );
    let fresh = live() - start;
    drop(twin);
    let mut w = World::new(CLIENTS, server_cfg, client_cfg, LinkParams::CLEAN, 11);
    let before = live();
    w.connect_all();
    w.run_until(3000);
    assert_eq!(w.node(0).connection_count(), CLIENTS);
    for i in 1..=CLIENTS {
        let c = w.client_conn(i).unwrap();
        w.node_mut(i).post_event(c, Ordered::new(i as u32, 1, None)).unwrap();
    }
    w.run_until(4000);
    let crowd = live();
    // Half leave saying goodbye, half just vanish and time out.
    for i in 1..=CLIENTS {
        if i % 2 == 0 {
            let c = w.client_conn(i).unwrap();
            w.node_mut(i).disconnect(c, "bye");
        } else {
            w.mute(i, true);
        }
    }
    w.run_until(30_000);
    assert_eq!(w.node(0).connection_count(), 0);
    // Drop every client interface and what the test recorded, keeping the server.
    let mut server = w.into_server();
    server.handle_timeout(60_000);
    while server.poll_transmit(60_000, &v12_netobject::ghost::NoObjects).is_some() {}
    while server.poll_event().is_some() {}
    let held = live() - start;
    let per_connection = (crowd - before) / CLIENTS as isize;
    println!(
        "fresh server interface {fresh} B; {CLIENTS} connections add {per_connection} B each (both ends); \
         the server holds {held} B after they left"
    );
    // Everything the crowd cost is back, but for table slack (a few KB).
    assert!(held - fresh < 64 * 1024, "kept {} B after the crowd left", held - fresh);
}
