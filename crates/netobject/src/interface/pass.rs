//! The packet threads' pass over the connections: every connection once, in pieces of at most
//! [`GRAIN`] that the pool's workers share out.
//!
//! The connection map's own parallel iterator (`par_values_mut`) cannot be split finer than
//! rayon's adaptive splitter goes for an unindexed source: about four pieces of a quarter of
//! the connections on two threads, split again only when stolen. In a crowd a pump builds
//! packets for a tenth of the connections (about 40 µs each) and only checks the timers of
//! the rest (well under a µs), so a worker that ran out of pieces idled while the other ended
//! a long one: 0.1–0.8 ms a pass at crowded 1,024 (a fifth of a pump's wall clock). A list of
//! the connections is an indexed source, cut into pieces of at most [`GRAIN`]: a worker that
//! runs out takes a few connections from the other's half, and both end within about one
//! packet of each other.

use crate::connection::NetConnection;
use crate::event::ConnectionId;
use hashbrown::HashMap;
use rayon::prelude::*;

/// Most connections a worker takes at once: small enough that the two ends of a pass are
/// about one packet apart, large enough that splitting (a `join` per piece) stays a few
/// percent of a pass where most connections only check their timers.
pub(super) const GRAIN: usize = 8;

/// The room of a pass's list of connections, kept between passes (empty: only its
/// allocation is kept, so a steady pass allocates nothing).
#[derive(Debug, Default)]
pub(super) struct PassRoom {
    room: Vec<usize>,
}

impl PassRoom {
    /// Calls `f` once for every connection of `connections` on `pool`, in pieces of at most
    /// [`GRAIN`] connections (in no particular order across pieces).
    pub(super) fn for_each(
        &mut self,
        pool: &rayon::ThreadPool,
        connections: &mut HashMap<ConnectionId, NetConnection>,
        f: impl Fn(&mut NetConnection) + Sync,
    ) {
        let mut list: Vec<&mut NetConnection> = recycle(std::mem::take(&mut self.room));
        list.extend(connections.values_mut());
        pool.install(|| list.par_iter_mut().with_max_len(GRAIN).for_each(|c| f(c)));
        self.room = recycle(list);
    }
}

/// A server's packet threads ([`super::NetInterface::packet_threads`]): a loop that runs on
/// one of them ([`Self::run`]) forks each of its passes from a thread of the pool, which
/// takes the first share of the pass at once, instead of from a thread outside it, which
/// sleeps through the pass and must be woken after it (and the pass waits for a pool
/// thread to wake before anything starts).
#[derive(Clone)]
pub struct PacketThreads(pub(super) std::sync::Arc<rayon::ThreadPool>);

impl std::fmt::Debug for PacketThreads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PacketThreads").field("threads", &self.0.current_num_threads()).finish()
    }
}

impl PacketThreads {
    /// Runs `f` on one of the packet threads and returns its result; the interface's passes
    /// that `f` makes (`serve`, `for_each_connection`) start on that thread.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.0.install(f)
    }
}

/// `v`'s allocation, emptied, as a vector of another element type of the same size and
/// alignment: the standard library collects a mapped vector iterator in place, so no
/// allocation is made or freed (`recycled_room_keeps_its_allocation`).
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recycled_room_keeps_its_allocation() {
        let room: Vec<usize> = Vec::with_capacity(1000);
        let ptr = room.as_ptr() as usize;
        let mut list: Vec<&mut NetConnection> = recycle(room);
        assert!(list.capacity() >= 1000);
        assert_eq!(list.as_mut_ptr() as usize, ptr);
        let back: Vec<usize> = recycle(list);
        assert!(back.capacity() >= 1000);
        assert_eq!(back.as_ptr() as usize, ptr);
    }
}
