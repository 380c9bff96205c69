//! The glue between a sans-IO [`NetInterface`] and a platform [`Transport`] (here in
//! services, above both, so netobject stays free of sockets and clocks, as quinn-proto is): real UDP, the
//! in-memory loopback, or either behind the link conditioner.
//!
//! The driver still reads no clock: the caller passes `now` to [`NetDriver::pump`] and asks
//! [`NetDriver::next_wakeup`] how long it may sleep. That keeps one code path for the real
//! demo (a `SystemClock` and `UdpTransport::wait_readable`) and for simulated-time tests. The
//! one wall-clock reading (connect tokens expire by Unix time) is the platform's, or derived
//! from `now` ([`WallClock::From`]) where a journal must replay it.

use std::io;

use v12_platform::{Datagram, Millis, Transport};

use v12_netobject::NetInterface;
use v12_netobject::ghost::{GhostClientWorld, GhostWorld};

/// Datagram counters of one driver.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DriverStats {
    pub datagrams_in: u64,
    pub bytes_in: u64,
    pub datagrams_out: u64,
    pub bytes_out: u64,
    /// Sends the transport refused (a full socket buffer): lost like any other datagram.
    pub send_errors: u64,
}

/// Where a driver's wall clock (Unix seconds, for connect-token expiry) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WallClock {
    /// The system's wall clock, read at each pump ([`v12_platform::time::unix_now_s`]).
    System,
    /// The Unix time (s) at `now` = 0 of the driver's clock: the wall clock advances with the
    /// `now` the caller passes, so a journal that records this once replays it exactly.
    From(u64),
}

impl WallClock {
    /// The Unix time (s) at `now` (ms) of the caller's clock: the system's, or the zero's plus
    /// the whole seconds of `now`.
    pub fn unix_s(self, now: Millis) -> u64 {
        match self {
            WallClock::System => v12_platform::time::unix_now_s(),
            WallClock::From(at_zero) => at_zero.saturating_add(now / 1000),
        }
    }
}

/// Runs one [`NetInterface`] over one [`Transport`].
#[derive(Debug)]
pub struct NetDriver<T: Transport> {
    pub interface: NetInterface,
    pub transport: T,
    inbox: Vec<Datagram>,
    stats: DriverStats,
    next_keepalive: Millis,
    wall_clock: WallClock,
}

/// Spacing of [`NetDriver::keep_alive`]'s pings (the peers time out after seconds).
pub const KEEPALIVE_MS: Millis = 500;

impl<T: Transport> NetDriver<T> {
    pub fn new(interface: NetInterface, transport: T) -> Self {
        Self {
            interface,
            transport,
            inbox: Vec::new(),
            stats: DriverStats::default(),
            next_keepalive: 0,
            wall_clock: WallClock::System,
        }
    }

    /// Where the wall clock comes from (the system's unless set).
    pub fn set_wall_clock(&mut self, wall: WallClock) {
        self.wall_clock = wall;
    }

    pub fn stats(&self) -> DriverStats {
        self.stats
    }

    /// One turn of the loop at `now`: read every waiting datagram into the interface, run its
    /// timers, send everything it has to send, and let the transport release held datagrams.
    /// `objects` are what this endpoint ghosts to its clients ([`NoObjects`] for none);
    /// `ghosts` is where the ghosts its server sends go (an empty
    /// [`v12_netobject::ghost::GhostArena`] for an endpoint that receives none). Returns how
    /// many datagrams came in. Only a transport failure is an error; a refused send is counted
    /// and treated as loss.
    ///
    /// [`NoObjects`]: v12_netobject::ghost::NoObjects
    pub fn pump(
        &mut self,
        now: Millis,
        objects: &dyn GhostWorld,
        ghosts: &mut dyn GhostClientWorld,
    ) -> io::Result<usize> {
        // Connect tokens expire by the wall clock; the sans-IO interface reads none.
        self.interface.set_wall_clock(self.wall_clock.unix_s(now));
        self.inbox.clear();
        let received = self.transport.recv_batch(now, &mut self.inbox)?;
        for d in &self.inbox {
            self.stats.datagrams_in += 1;
            self.stats.bytes_in += d.data.len() as u64;
        }
        // Datagrams in, timers, datagrams out: one after another, or (a server with packet
        // threads) in one pass over the connections on the pool.
        self.interface.serve(
            now,
            &self.inbox,
            |d| (d.from.socket_addr(), &d.data[..]),
            &mut *ghosts,
            objects,
        );
        self.inbox.clear();
        while let Some((to, bytes)) = self.interface.take_transmit() {
            match self.transport.send_to(now, to.into(), &bytes) {
                Ok(()) => {
                    self.stats.datagrams_out += 1;
                    self.stats.bytes_out += bytes.len() as u64;
                }
                Err(e) => {
                    self.stats.send_errors += 1;
                    tracing::debug!(%to, error = %e, "send refused; counted as loss");
                }
            }
        }
        self.transport.poll(now)?;
        Ok(received)
    }

    /// Keeps the connections alive while the host cannot pump (a script stopped in the
    /// debugger): a ping to every peer at most every [`KEEPALIVE_MS`], nothing read (the
    /// datagrams wait in the socket for the next [`Self::pump`]), no timer run.
    pub fn keep_alive(&mut self, now: Millis) -> io::Result<()> {
        if now < self.next_keepalive {
            return Ok(());
        }
        self.next_keepalive = now + KEEPALIVE_MS;
        for (to, bytes) in self.interface.keepalive_packets(now) {
            if self.transport.send_to(now, to.into(), &bytes).is_ok() {
                self.stats.datagrams_out += 1;
                self.stats.bytes_out += bytes.len() as u64;
            } else {
                self.stats.send_errors += 1;
            }
        }
        self.transport.poll(now)
    }

    /// The earliest time at which [`Self::pump`] has timer work (the interface's or the
    /// transport's). Incoming datagrams can of course arrive sooner.
    pub fn next_wakeup(&self, now: Millis) -> Option<Millis> {
        [self.interface.poll_timeout(now), self.transport.next_wakeup()].into_iter().flatten().min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use v12_netobject::{InterfaceConfig, InterfaceEvent, NetClassRegistryBuilder};
    use v12_platform::{ConditionerConfig, LinkConditioner, LossModel, MemoryNetwork};

    /// A wall clock derived from `now` (what a journal replays) moves with `now` only; the
    /// default reads the system's.
    #[test]
    fn the_wall_clock_follows_now_when_given_its_zero() {
        use v12_netobject::ghost::{GhostArena, NoObjects};
        let registry = Arc::new(NetClassRegistryBuilder::new().build().unwrap());
        let net = MemoryNetwork::new();
        let mut d = NetDriver::new(
            NetInterface::new(InterfaceConfig::default(), registry, [7; 32]),
            net.bind_any().unwrap(),
        );
        d.pump(1_000, &NoObjects, &mut GhostArena::new()).unwrap();
        assert!(d.interface.wall_clock() > 1_000_000_000, "the system's wall clock by default");
        d.set_wall_clock(WallClock::From(1_000_000));
        d.pump(5_500, &NoObjects, &mut GhostArena::new()).unwrap();
        assert_eq!(d.interface.wall_clock(), 1_000_005);
        d.pump(65_000, &NoObjects, &mut GhostArena::new()).unwrap();
        assert_eq!(d.interface.wall_clock(), 1_000_065);
    }

    #[test]
    fn connects_over_a_conditioned_memory_network() {
        let net = MemoryNetwork::new();
        let registry = Arc::new(NetClassRegistryBuilder::new().build().unwrap());
        let server_cfg = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
        let link = ConditionerConfig { latency_ms: 30, loss: LossModel::Uniform(0.3), ..Default::default() };
        let mut server = NetDriver::new(
            NetInterface::new(server_cfg, registry.clone(), [7; 32]),
            LinkConditioner::new(net.bind_any().unwrap(), link, 1),
        );
        let mut client = NetDriver::new(
            NetInterface::new(InterfaceConfig::default(), registry, [8; 32]),
            LinkConditioner::new(net.bind_any().unwrap(), link, 2),
        );
        let server_addr = server.transport.local_addr().socket_addr();
        client.interface.connect(0, server_addr, bytes::Bytes::new());
        let mut now = 0;
        let mut connected = false;
        while now < 20_000 && !connected {
            let mut ghosts = v12_netobject::ghost::GhostArena::new();
            client.pump(now, &v12_netobject::ghost::NoObjects, &mut ghosts).unwrap();
            server.pump(now, &v12_netobject::ghost::NoObjects, &mut ghosts).unwrap();
            while let Some(e) = client.interface.poll_event() {
                connected |= matches!(e, InterfaceEvent::Connected { .. });
            }
            // Jump the simulated clock to the next timer, but never past 10 ms.
            let next = [client.next_wakeup(now), server.next_wakeup(now)].into_iter().flatten().min();
            now = next.unwrap_or(now + 10).clamp(now + 1, now + 10);
        }
        assert!(connected, "the handshake survives 30 % loss each way");
        assert!(client.stats().datagrams_out > 0 && server.stats().datagrams_in > 0);
    }

    /// A server stopped (in the debugger) for 20 s with and without keep-alives: with them the
    /// client stays connected and the server goes on afterwards; without, the client drops it.
    #[test]
    fn keep_alive_carries_a_connection_through_a_long_pause() {
        for keep in [true, false] {
            let net = MemoryNetwork::new();
            let registry = Arc::new(NetClassRegistryBuilder::new().build().unwrap());
            let server_cfg = InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() };
            let mut server = NetDriver::new(
                NetInterface::new(server_cfg, registry.clone(), [7; 32]),
                net.bind_any().unwrap(),
            );
            let mut client = NetDriver::new(
                NetInterface::new(InterfaceConfig::default(), registry, [8; 32]),
                net.bind_any().unwrap(),
            );
            let server_addr = server.transport.local_addr().socket_addr();
            client.interface.connect(0, server_addr, bytes::Bytes::new());
            let mut ghosts = v12_netobject::ghost::GhostArena::new();
            let none = v12_netobject::ghost::NoObjects;
            let mut now = 0;
            let mut lost = false;
            let mut step = |now: u64, paused: bool, server: &mut NetDriver<_>, client: &mut NetDriver<_>| {
                client.pump(now, &none, &mut ghosts).unwrap();
                if paused {
                    if keep {
                        server.keep_alive(now).unwrap();
                    }
                } else {
                    server.pump(now, &none, &mut ghosts).unwrap();
                }
                let mut lost = false;
                while let Some(e) = client.interface.poll_event() {
                    lost |= matches!(e, InterfaceEvent::Disconnected { .. });
                }
                while server.interface.poll_event().is_some() {}
                lost
            };
            while now < 1_000 {
                lost |= step(now, false, &mut server, &mut client);
                now += 10;
            }
            assert_eq!(client.interface.connection_count(), 1);
            while now < 21_000 {
                lost |= step(now, true, &mut server, &mut client);
                now += 10;
            }
            while now < 25_000 {
                lost |= step(now, false, &mut server, &mut client);
                now += 10;
            }
            if keep {
                assert!(!lost, "kept alive through the pause");
                assert_eq!(client.interface.connection_count(), 1);
                assert_eq!(server.interface.connection_count(), 1);
            } else {
                assert!(lost, "without keep-alives the client times the server out");
            }
        }
    }
}
