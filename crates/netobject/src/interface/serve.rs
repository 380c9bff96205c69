//! [`NetInterface::serve`]: one turn of a server's loop (datagrams in, timers, datagrams
//! out) in one pass over its connections, on the packet threads when it has them.

use super::{NetInterface, PARALLEL_BATCH, inbox_of};
use crate::connection::{NetConnection, Served};
use crate::event::ConnectionId;
use crate::ghost::{GhostClientWorld, GhostWorld};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

impl NetInterface {
    /// One turn of the loop at `now`: the datagrams of `batch` (`parts` giving each one's
    /// sender and bytes), the timers, and every datagram due, queued for
    /// [`Self::take_transmit`]: what [`Self::handle_datagrams`], [`Self::handle_timeout`] and
    /// [`Self::poll_transmit`] until `None` do one after another, with the same datagrams in
    /// the same order, the same events and the same closes. `ghosts` is where a client
    /// connection's ghosts go; `objects` what this endpoint ghosts to its clients.
    ///
    /// Each connection's turn runs only when it has datagrams in the batch or something due
    /// by its own clock (a timer, its next packet; `NetConnection::serve`); the others are
    /// passed over at the cost of reading that time. Without packet threads the turns run
    /// one after another on this thread, the batch read one by one first.
    ///
    /// With packet threads ([`Self::set_transmit_threads`]) and a world that can be shared
    /// ([`GhostWorld::as_sync`]) it is one fork and one join: each connection, on the pool,
    /// reads its datagrams of the batch (when the batch is all data for established
    /// server-side connections, at least 32 of them; otherwise they are read one by one
    /// first), runs its timers and builds its datagrams; then, on this thread, the batch's
    /// events and closes are queued in its order, the connections the timers ended closed in
    /// id order, and the built datagrams queued in connection-id order. Only the connections
    /// that built something (or must close) are visited on this thread.
    pub fn serve<D: Sync>(
        &mut self,
        now: u64,
        batch: &[D],
        parts: impl Fn(&D) -> (SocketAddr, &[u8]) + Sync,
        ghosts: &mut dyn GhostClientWorld,
        objects: &dyn GhostWorld,
    ) {
        self.clock = now;
        let pool = self.transmit_pool.clone();
        let shared = objects.as_sync();
        let parallel = pool.is_some() && shared.is_some();
        let routed = match (&pool, parallel && batch.len() >= PARALLEL_BATCH) {
            (Some(pool), true) => self.route_batch(batch, &parts, pool),
            _ => false,
        };
        if routed {
            self.stats.datagrams_in_parallel += batch.len() as u64;
        } else {
            for d in batch {
                let (from, data) = parts(d);
                self.handle_datagram(now, from, data, &mut *ghosts);
            }
        }
        // The connections with something left for this thread, in no order, and the
        // datagrams the turns built (a lock taken once per such connection: a tenth of them
        // a pump in a crowd).
        let served = Mutex::new((std::mem::take(&mut self.served), std::mem::take(&mut self.outgoing)));
        let merge = AtomicBool::new(false);
        let registry = &*self.registry;
        let settings = (self.config.negotiation_timeout_ms, self.events_by_connection);
        let inboxes = &self.inboxes[..];
        let data = |i: usize| batch.get(i).map(|d| parts(d).1);
        // A connection's turn; one with nothing due and no datagram returns at once
        // (`NetConnection::serve`), so a pump costs the connections with work, not all.
        let turn = |c: &mut NetConnection, world: &dyn GhostWorld| {
            let mine = inbox_of(inboxes, c.id());
            let s = c.serve(now, registry, world, (mine, &data), settings);
            if !mine.is_empty() && c.has_arrivals() {
                merge.store(true, Ordering::Relaxed);
            }
            if s == Served::Nothing {
                return;
            }
            let mut guard = served.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (left, outgoing) = &mut *guard;
            if s == Served::Packets {
                // Its datagrams go with the list, so that this thread need not visit it to
                // queue them; only a connection that failed is left for this thread.
                let (id, to) = (c.id(), c.remote_addr());
                let mut place = 0;
                while let Some(b) = c.take_prepared() {
                    outgoing.push((id, place, to, b));
                    place += 1;
                }
                if c.has_failure() {
                    left.push((id, s));
                }
            } else {
                left.push((c.id(), s));
            }
        };
        match (pool, shared) {
            (Some(pool), Some(world)) => {
                self.pass_room.for_each(&pool, &mut self.connections, |c| turn(c, world))
            }
            // One thread (or a world that cannot be shared): the same turns, one after another.
            _ => self.connections.values_mut().for_each(|c| turn(c, objects)),
        }
        let (mut served, mut outgoing) =
            served.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Events staying with their connections, only a datagram that claimed a token or
        // ended its connection left an arrival: none (the usual case), nothing to merge.
        if routed && merge.into_inner() {
            self.merge_arrivals();
        }
        self.route.clear();
        self.inboxes.clear();
        self.release_ghosts(ghosts);
        self.serve_timers(now, objects, &mut served);
        // The built datagrams, in connection-id order (those the turns carried, and those of
        // the connections left for this thread).
        served.sort_unstable_by_key(|&(id, _)| id);
        let mut ids = std::mem::take(&mut self.order);
        ids.clear();
        ids.extend(served.iter().filter(|(_, s)| *s == Served::Packets).map(|(id, _)| *id));
        self.queue_prepared(&ids, &mut outgoing);
        self.order = ids;
        served.clear();
        self.served = served;
        self.outgoing = outgoing;
    }

    /// [`Self::serve`]'s timers on this thread, in [`Self::handle_timeout`]'s order: our
    /// own attempts', the deferred connections' (see [`Served::Deferred`]), the closes the
    /// timers asked for, the bookkeeping; then the deferred connections' datagrams.
    fn serve_timers(&mut self, now: u64, objects: &dyn GhostWorld, served: &mut [(ConnectionId, Served)]) {
        self.pending_timers(now);
        let deadline = self.config.negotiation_timeout_ms;
        let (mut dead, mut half_open) = (Vec::new(), Vec::new());
        for (id, s) in served.iter_mut() {
            if *s == Served::Deferred {
                let Some(c) = self.connections.get_mut(id) else {
                    *s = Served::Nothing;
                    continue;
                };
                {
                    let _span = c.span().clone().entered();
                    c.handle_timeout(now);
                }
                if let Some(e) = c.expired(now, deadline) {
                    *s = e;
                }
            }
            match *s {
                Served::TimedOut => dead.push(*id),
                Served::HalfOpen => half_open.push(*id),
                _ => {}
            }
        }
        self.close_expired(&mut dead, &mut half_open);
        self.housekeeping(now);
        for (id, s) in served.iter_mut() {
            if *s == Served::Deferred
                && let Some(c) = self.connections.get_mut(id)
            {
                c.prepare_transmits(now, &self.registry, objects);
                *s = Served::Packets;
            }
        }
    }
}
