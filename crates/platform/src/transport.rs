//! The one interface every unreliable datagram transport offers: real UDP,
//! the in-memory loopback, and the link conditioner that wraps either.
//!
//! Every call takes `now` from the caller. Real sockets ignore it; the
//! conditioner needs it to hold and release delayed datagrams, and taking it
//! as an argument (never reading a clock) keeps simulated-time tests exact.

use std::io;

use bytes::Bytes;

use crate::address::NetAddress;
use crate::event::{Event, PacketReceiveEvent};
use crate::time::Millis;

/// One received datagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datagram {
    pub from: NetAddress,
    pub data: Bytes,
}

impl From<Datagram> for Event {
    fn from(d: Datagram) -> Event {
        Event::PacketReceive(PacketReceiveEvent { source: d.from, data: d.data })
    }
}

/// An unreliable, unordered datagram port (V12's `Net::openPort` socket).
pub trait Transport {
    /// The address peers send to to reach this port.
    fn local_addr(&self) -> NetAddress;

    /// Send one datagram. Delivery is not guaranteed; an `Err` means this
    /// datagram was certainly not sent (e.g. `WouldBlock` when the socket's
    /// send buffer is full).
    fn send_to(&mut self, now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()>;

    /// Append every datagram that has arrived (up to an implementation batch
    /// limit) to `out` without blocking; returns how many were appended.
    fn recv_batch(&mut self, now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize>;

    /// Do time-driven work due at `now` (the conditioner releases delayed
    /// datagrams). Sending and receiving do this too.
    fn poll(&mut self, _now: Millis) -> io::Result<()> {
        Ok(())
    }

    /// The earliest time at which [`poll`](Transport::poll) has work, so a
    /// simulated-time harness can jump its clock there.
    fn next_wakeup(&self) -> Option<Millis> {
        None
    }
}

impl<T: Transport + ?Sized> Transport for &mut T {
    fn local_addr(&self) -> NetAddress {
        (**self).local_addr()
    }
    fn send_to(&mut self, now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        (**self).send_to(now, to, data)
    }
    fn recv_batch(&mut self, now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize> {
        (**self).recv_batch(now, out)
    }
    fn poll(&mut self, now: Millis) -> io::Result<()> {
        (**self).poll(now)
    }
    fn next_wakeup(&self) -> Option<Millis> {
        (**self).next_wakeup()
    }
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn local_addr(&self) -> NetAddress {
        (**self).local_addr()
    }
    fn send_to(&mut self, now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        (**self).send_to(now, to, data)
    }
    fn recv_batch(&mut self, now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize> {
        (**self).recv_batch(now, out)
    }
    fn poll(&mut self, now: Millis) -> io::Result<()> {
        (**self).poll(now)
    }
    fn next_wakeup(&self) -> Option<Millis> {
        (**self).next_wakeup()
    }
}
