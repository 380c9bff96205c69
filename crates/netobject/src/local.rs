//! The in-process link: a client and a server interface in one program exchange datagrams
//! directly, with no socket (the seed's short-circuit NetConnection). Use
//! [`crate::RateConfig::LOCAL`] on both sides for the faster local rate.

use crate::interface::NetInterface;
use std::net::SocketAddr;

/// Moves every datagram due at `now` between two interfaces until neither has more to
/// send, running their timers first. `a_addr`/`b_addr` are the addresses each side is
/// known by. Returns the number of datagrams moved.
pub fn pump_local(
    now: u64,
    a: &mut NetInterface,
    a_addr: SocketAddr,
    b: &mut NetInterface,
    b_addr: SocketAddr,
) -> usize {
    a.handle_timeout(now);
    b.handle_timeout(now);
    let mut moved = 0;
    loop {
        let mut progress = false;
        while let Some((to, bytes)) = a.poll_transmit(now) {
            if to == b_addr {
                b.handle_datagram(now, a_addr, &bytes);
                moved += 1;
                progress = true;
            }
        }
        while let Some((to, bytes)) = b.poll_transmit(now) {
            if to == a_addr {
                a.handle_datagram(now, b_addr, &bytes);
                moved += 1;
                progress = true;
            }
        }
        if !progress {
            return moved;
        }
    }
}
