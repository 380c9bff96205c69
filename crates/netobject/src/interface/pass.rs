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
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// How many packet threads there are.
    pub fn count(&self) -> usize {
        self.0.current_num_threads()
    }

    /// Runs `f` on one of the packet threads and returns its result; the interface's passes
    /// that `f` makes (`serve`, `for_each_connection`) start on that thread.
    pub fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.0.install(f)
    }

    /// [`Self::run`], the other packet threads held awake until `f` returns: each waits for
    /// `f`'s next pass by looking for work (yielding its core every `rounds` rounds, at
    /// least 1), as [`Self::keep_awake_yielding`] would hold them, instead of going to
    /// sleep in the serial work between two passes and having to be woken for the next.
    /// Allocates nothing: the threads are held by jobs on `f`'s thread's stack
    /// (`rayon::join`), which end, letting the threads go back to rayon's own idling, as
    /// soon as `f` returns, before the caller is woken (so they do not spin while the
    /// caller wants a core). The output is the same as [`Self::run`]'s: only who waits
    /// how changes.
    pub fn run_awake_yielding<R: Send>(&self, rounds: u32, f: impl FnOnce() -> R + Send) -> R {
        let others = self.count().saturating_sub(1);
        let rounds = rounds.max(1);
        self.0.install(|| {
            if others == 0 {
                return f();
            }
            let awake = AtomicBool::new(true);
            let (r, ()) = rayon::join(
                || {
                    // Let go even if `f` panics (the holders would otherwise spin until
                    // `AWAKE_ROUNDS` before the panic goes on).
                    let _release = Release(&awake);
                    f()
                },
                || hold(&awake, rounds, others),
            );
            r
        })
    }

    /// Keeps the packet threads awake until the returned guard drops: each waits for the
    /// next pass by looking for work, every [`YIELD_EVERY`] rounds yielding its core, instead of
    /// going to sleep after about 32 rounds as rayon's idle threads do and having to be
    /// woken for the next pass (in this VM a halted virtual CPU restarted by an
    /// inter-processor interrupt: tens of µs before the pass can start, and CPU besides).
    /// Hold it over a server tick, its passes and the serial work between them, from the
    /// thread that drives the interface; drop it between ticks and the threads sleep. A
    /// thread that looks [`AWAKE_ROUNDS`] times in a row in vain goes back to rayon's own
    /// idling (and so to sleep) even while the guard is held: what a guard held too long
    /// costs is bounded.
    ///
    /// Called on a packet thread (inside [`Self::run`]), that thread is not held (it is
    /// busy with the caller's work; a wait for work stacked on its own passes would hold
    /// them up). The output is the same with or without it: only who waits how changes.
    pub fn keep_awake(&self) -> Awake {
        self.keep_awake_yielding(YIELD_EVERY)
    }

    /// [`Self::keep_awake`], each thread yielding its core every `rounds` rounds of looking
    /// for work in vain (at least 1) instead of every [`YIELD_EVERY`]: fewer yields keep a
    /// thread on its core where other processes want it too (a yield then may cost it a
    /// time slice while a pass waits for it), more let more packet threads than cores take
    /// turns.
    pub fn keep_awake_yielding(&self, rounds: u32) -> Awake {
        let awake = std::sync::Arc::new(AtomicBool::new(true));
        let flag = awake.clone();
        let caller = self.0.current_thread_index();
        let rounds = rounds.max(1);
        self.0.spawn_broadcast(move |ctx| {
            if Some(ctx.index()) != caller {
                keep_looking(&flag, rounds);
            }
        });
        Awake(awake)
    }
}

/// Most rounds in a row a packet thread held awake ([`PacketThreads::keep_awake`]) looks
/// for work and finds none before it goes back to rayon's own idling: about 2 ms here, well
/// over the serial work between a server tick's passes (0.05–0.3 ms) (a round is a look through the pool's
/// queues, and every [`YIELD_EVERY`] rounds a yield of the core).
pub const AWAKE_ROUNDS: u32 = 1 << 14;

/// Rounds between two yields of the core by a packet thread held awake
/// ([`PacketThreads::keep_awake`]): on idle cores a yield returns at once, and this VM's
/// quiet moments measured the tick faster yielding every 16 rounds than every 4,096; on a
/// busy machine a yield may cost the thread a time slice (docs/PERFORMANCE.md, issue 33's
/// seventh pass; [`PacketThreads::keep_awake_yielding`] to choose).
pub const YIELD_EVERY: u32 = 16;

/// A packet thread's wait for work while the pool is held awake: runs whatever rayon has
/// for it (a piece of a pass, a whole pass injected from outside) as soon as it is there,
/// yielding its core every `yield_every` rounds in vain.
fn keep_looking(awake: &AtomicBool, yield_every: u32) {
    let mut idle = 0u32;
    while awake.load(Ordering::Acquire) && idle < AWAKE_ROUNDS {
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            idle = 0;
            continue;
        }
        idle += 1;
        if idle.is_multiple_of(yield_every) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// `n` packet threads held by [`PacketThreads::run_awake_yielding`]: this one, and the rest
/// through a job each that another thread takes (`rayon::join`, on this thread's stack).
fn hold(awake: &AtomicBool, yield_every: u32, n: usize) {
    if n <= 1 {
        keep_looking(awake, yield_every);
    } else {
        rayon::join(|| keep_looking(awake, yield_every), || hold(awake, yield_every, n - 1));
    }
}

/// Lowers [`PacketThreads::run_awake_yielding`]'s flag when the held work ends.
struct Release<'a>(&'a AtomicBool);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The packet threads held awake ([`PacketThreads::keep_awake`]) until this drops.
#[derive(Debug)]
#[must_use = "the packet threads stay awake only while this is held"]
pub struct Awake(std::sync::Arc<AtomicBool>);

impl Drop for Awake {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The cores this process may run on (its affinity mask), the first `n` of them, when there
/// are at least `n` ([`super::NetInterface::set_transmit_threads_pinned`]); `None` otherwise
/// and off Linux.
pub(super) fn own_cores(n: usize) -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        let mask = rustix::thread::sched_getaffinity(None).ok()?;
        let cores: Vec<usize> =
            (0..rustix::thread::CpuSet::MAX_CPU).filter(|&c| mask.is_set(c)).take(n).collect();
        (cores.len() == n).then_some(cores)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = n;
        None
    }
}

/// Binds the calling thread to `core` (a packet thread's start; nothing for `None`, or off
/// Linux, or if the system refuses: the thread then runs wherever the scheduler puts it).
pub(super) fn bind_to_core(core: Option<usize>) {
    #[cfg(target_os = "linux")]
    if let Some(core) = core {
        let mut one = rustix::thread::CpuSet::new();
        one.set(core);
        if let Err(e) = rustix::thread::sched_setaffinity(None, &one) {
            tracing::debug!(core, error = %e, "packet thread not bound to its core");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = core;
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

    /// Threads held awake run every pass handed to the pool, from outside it and from one
    /// of its threads (which, holding the others itself, is not held), and let go when the
    /// guards drop (the pool then ends).
    #[test]
    fn held_awake_threads_run_the_passes_and_let_go() {
        let pool = std::sync::Arc::new(rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap());
        let threads = PacketThreads(pool.clone());
        let want: u64 = (0..1000u64).map(|x| x * x).sum();
        let pass = || {
            pool.install(|| {
                (0..1000u32)
                    .into_par_iter()
                    .with_max_len(GRAIN)
                    .map(|x| u64::from(x) * u64::from(x))
                    .sum::<u64>()
            })
        };
        {
            let _awake = threads.keep_awake();
            for _ in 0..50 {
                assert_eq!(pass(), want);
            }
            threads.run(|| {
                let _inner = threads.keep_awake();
                for _ in 0..50 {
                    assert_eq!(pass(), want);
                }
            });
        }
        assert_eq!(pass(), want);
        drop(threads);
        drop(pool);
    }

    /// Threads held awake by `run_awake_yielding` run the passes `f` makes, return its
    /// result, and let go when it returns (the pool then ends), with 2 and 4 threads.
    #[test]
    fn run_awake_holds_the_other_threads_over_its_passes() {
        for n in [2, 4] {
            let pool = std::sync::Arc::new(rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap());
            let threads = PacketThreads(pool.clone());
            let want: u64 = (0..1000u64).map(|x| x * x).sum();
            let pass = || {
                (0..1000u32)
                    .into_par_iter()
                    .with_max_len(GRAIN)
                    .map(|x| u64::from(x) * u64::from(x))
                    .sum::<u64>()
            };
            for every in [1, YIELD_EVERY] {
                let got = threads.run_awake_yielding(every, || {
                    let mut sums = Vec::new();
                    for _ in 0..20 {
                        sums.push(pass());
                        // Serial work between two passes, longer than rayon's own idling.
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    sums
                });
                assert_eq!(got, vec![want; 20]);
            }
            assert_eq!(pool.install(pass), want);
            drop(threads);
            drop(pool);
        }
    }

    /// Bound packet threads run the passes (each on a core of its own where the process
    /// has enough), and a count beyond the process's cores leaves them unbound.
    #[test]
    fn bound_threads_run_the_passes() {
        let cores = own_cores(1);
        #[cfg(target_os = "linux")]
        assert!(cores.as_ref().is_some_and(|c| c.len() == 1), "a process may run on some core");
        assert_eq!(own_cores(usize::MAX / 2), None);
        let n = own_cores(2).map_or(2, |c| c.len());
        let bound = own_cores(n);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .start_handler(move |i| bind_to_core(bound.as_ref().and_then(|c| c.get(i).copied())))
            .build()
            .unwrap();
        let want: u64 = (0..1000u64).map(|x| x * x).sum();
        let got: u64 = pool.install(|| {
            (0..1000u32).into_par_iter().with_max_len(GRAIN).map(|x| u64::from(x) * u64::from(x)).sum()
        });
        assert_eq!(got, want);
    }

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
