//! The in-process link: a client and a server interface in one program exchange datagrams
//! directly, with no socket (V12's short-circuit NetConnection). Use
//! [`crate::RateConfig::LOCAL`] on both sides for the faster local rate.

use crate::ghost::{GhostClientWorld, GhostWorld};
use crate::interface::NetInterface;
use std::net::SocketAddr;

/// One side of an in-process link: its interface, the address the other side knows it by,
/// the objects it ghosts and the world its received ghosts go into.
#[allow(missing_debug_implementations)]
pub struct LocalEnd<'a> {
    /// The interface.
    pub interface: &'a mut NetInterface,
    /// Its address as the other side knows it.
    pub addr: SocketAddr,
    /// The objects it ghosts to the other side ([`crate::ghost::NoObjects`] for none).
    pub objects: &'a dyn GhostWorld,
    /// Where the ghosts it receives go.
    pub ghosts: &'a mut dyn GhostClientWorld,
}

impl<'a> LocalEnd<'a> {
    /// One side: `interface` known as `addr`, ghosting `objects`, its ghosts into `ghosts`.
    pub fn new(
        interface: &'a mut NetInterface,
        addr: SocketAddr,
        objects: &'a dyn GhostWorld,
        ghosts: &'a mut dyn GhostClientWorld,
    ) -> Self {
        Self { interface, addr, objects, ghosts }
    }
}

/// Moves every datagram due at `now` between two interfaces until neither has more to
/// send, running their timers first. Returns the number of datagrams moved.
pub fn pump_local(now: u64, a: LocalEnd<'_>, b: LocalEnd<'_>) -> usize {
    a.interface.handle_timeout(now);
    b.interface.handle_timeout(now);
    let mut moved = 0;
    loop {
        let mut progress = false;
        while let Some((to, bytes)) = a.interface.poll_transmit(now, a.objects) {
            if to == b.addr {
                b.interface.handle_datagram(now, a.addr, &bytes, &mut *b.ghosts);
                moved += 1;
                progress = true;
            }
        }
        while let Some((to, bytes)) = b.interface.poll_transmit(now, b.objects) {
            if to == a.addr {
                a.interface.handle_datagram(now, b.addr, &bytes, &mut *a.ghosts);
                moved += 1;
                progress = true;
            }
        }
        if !progress {
            return moved;
        }
    }
}
