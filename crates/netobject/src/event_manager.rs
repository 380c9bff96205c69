//! The per-connection event manager: three queues, packet records, and the receive side
//! that holds early ordered events until their predecessors have been processed.
//!
//! Wire format inside a data packet (after the rate and before any later section):
//! `{1 class-id body}* 0` for unguaranteed events, then
//! `{1 ordered? [seq==prev+1 ? 1 : 0 seq7] class-id body}* 0` for guaranteed ones.

use crate::error::{NetError, Result};
use crate::event::{ConnectionId, Guarantee, NetEvent, PackContext, UnpackContext};
use crate::registry::NetClassRegistry;
use crate::strings::{SentString, StringReceiver, StringSender};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use tracing::warn;
use v12_bitstream::{BitReader, BitWriter};

/// Bits of an ordered event sequence on the wire.
pub const ORDERED_SEQ_BITS: u32 = 7;
const SEQ_MASK: u32 = (1 << ORDERED_SEQ_BITS) - 1;
/// At most this many guaranteed-ordered events may be unacknowledged at once.
pub const MAX_ORDERED_IN_FLIGHT: u32 = 126;
/// Most guaranteed events (either kind) one connection may have queued and unacknowledged.
/// A peer that does not keep up (or a flood relayed to it) cannot make the other side hold
/// unbounded memory: the post past it fails and the connection is closed with the reason.
pub const MAX_QUEUED_GUARANTEED: usize = 4096;
/// Most unguaranteed events waiting on one connection; past it the oldest is dropped (they
/// may be lost anyway).
pub const MAX_QUEUED_UNGUARANTEED: usize = 1024;
/// Bits kept free for the two section terminators.
const TERMINATOR_BITS: usize = 2;
/// Most finished events of recycling classes ([`crate::NetEventClass::RECYCLE`]) one
/// connection keeps for reuse; more are dropped.
pub const MAX_SPARE_EVENTS: usize = 16;
/// Most emptied record lists one connection keeps for its next packets.
const MAX_SPARE_LISTS: usize = 8;

#[derive(Debug)]
struct Queued {
    class_id: u32,
    seq: Option<u32>,
    sends: u32,
    /// The class recycles its events ([`crate::NetEventClass::RECYCLE`]).
    recycle: bool,
    event: Box<dyn NetEvent>,
}

/// What the events of one packet were, kept until the packet is notified.
#[derive(Debug, Default)]
pub struct EventRecord {
    unguaranteed: Vec<Queued>,
    guaranteed: Vec<Queued>,
    ordered: Vec<Queued>,
}

impl EventRecord {
    /// No events in this packet.
    pub fn is_empty(&self) -> bool {
        self.unguaranteed.is_empty() && self.guaranteed.is_empty() && self.ordered.is_empty()
    }
}

/// Event counters for one connection.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct EventStats {
    /// Events written into a packet for the first time.
    pub sent: u64,
    /// Guaranteed events written again after their packet was dropped.
    pub resent: u64,
    /// Events whose packet was acknowledged.
    pub delivered: u64,
    /// Unguaranteed events whose packet was dropped.
    pub dropped: u64,
    /// Events received and handed on for processing.
    pub received: u64,
    /// Unguaranteed events dropped unsent because [`MAX_QUEUED_UNGUARANTEED`] were waiting.
    pub unguaranteed_dropped: u64,
}

/// The event queues and ordering state of one connection.
#[derive(Debug)]
pub struct EventManager {
    connection: ConnectionId,
    is_server: bool,
    unguaranteed: VecDeque<Queued>,
    guaranteed: VecDeque<Queued>,
    ordered_resend: BTreeMap<u32, Queued>,
    ordered_fresh: VecDeque<Queued>,
    next_send_seq: u32,
    ordered_in_flight: BTreeSet<u32>,
    next_recv_seq: u32,
    recv_ordered: Vec<Option<Box<dyn NetEvent>>>,
    /// The bits of each ordered event held for its predecessors, by sequence: a demo begun
    /// now writes them (V12: "all as yet unprocessed events are written").
    recv_held_bits: BTreeMap<u32, (Vec<u8>, usize)>,
    ready: VecDeque<Box<dyn NetEvent>>,
    /// Finished events of recycling classes, for the next ones of their class: what the
    /// application handed back after processing, and what was sent and notified.
    spare: Vec<Box<dyn NetEvent>>,
    /// Emptied lists of packet records, for the next packets' records.
    spare_lists: Vec<Vec<Queued>>,
    stats: EventStats,
    fatal: Option<String>,
}

impl EventManager {
    /// The manager of `connection`; `is_server` is this side's role.
    pub fn new(connection: ConnectionId, is_server: bool) -> Self {
        Self {
            connection,
            is_server,
            unguaranteed: VecDeque::new(),
            guaranteed: VecDeque::new(),
            ordered_resend: BTreeMap::new(),
            ordered_fresh: VecDeque::new(),
            next_send_seq: 0,
            ordered_in_flight: BTreeSet::new(),
            next_recv_seq: 0,
            recv_ordered: (0..=SEQ_MASK).map(|_| None).collect(),
            recv_held_bits: BTreeMap::new(),
            ready: VecDeque::new(),
            spare: Vec::new(),
            spare_lists: Vec::new(),
            stats: EventStats::default(),
            fatal: None,
        }
    }

    /// Keeps a finished event of a recycling class for the next one of its class.
    fn keep_spare(&mut self, recycle: bool, event: Box<dyn NetEvent>) {
        if recycle && self.spare.len() < MAX_SPARE_EVENTS {
            if self.spare.capacity() == 0 {
                self.spare.reserve_exact(MAX_SPARE_EVENTS);
            }
            self.spare.push(event);
        }
    }

    /// Hands back a received event once processed: kept for the next event of its class
    /// when the class recycles ([`crate::NetEventClass::RECYCLE`]), dropped otherwise.
    pub fn recycle(&mut self, registry: &NetClassRegistry, event: Box<dyn NetEvent>) {
        let recycle = registry
            .id_of_type((*event).type_id())
            .and_then(|id| registry.class(id))
            .is_some_and(|c| c.recycles());
        self.keep_spare(recycle, event);
    }

    /// A finished event of class `E` to fill and post again, if one is kept.
    pub fn take_spare<E: NetEvent>(&mut self) -> Option<Box<E>> {
        let i = self.spare.iter().position(|b| (**b).type_id() == std::any::TypeId::of::<E>())?;
        crate::registry::downcast_box::<E>(self.spare.swap_remove(i)).ok()
    }

    /// A kept event of the type `type_id`, if any.
    fn take_spare_of(&mut self, type_id: std::any::TypeId) -> Option<Box<dyn NetEvent>> {
        let i = self.spare.iter().position(|b| (**b).type_id() == type_id)?;
        Some(self.spare.swap_remove(i))
    }

    /// An emptied record list (no allocation once a few packets have been notified).
    fn spare_list(&mut self) -> Vec<Queued> {
        self.spare_lists.pop().unwrap_or_default()
    }

    /// Keeps an emptied record list for a later packet.
    fn keep_list(&mut self, list: Vec<Queued>) {
        debug_assert!(list.is_empty());
        if list.capacity() > 0 && self.spare_lists.len() < MAX_SPARE_LISTS {
            if self.spare_lists.capacity() == 0 {
                self.spare_lists.reserve_exact(MAX_SPARE_LISTS);
            }
            self.spare_lists.push(list);
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> EventStats {
        self.stats
    }

    /// Queues an event for sending. Refuses unregistered types and events that may
    /// not travel from this side.
    pub fn post(&mut self, registry: &NetClassRegistry, event: Box<dyn NetEvent>) -> Result<()> {
        let type_id = (*event).type_id();
        let class_id = registry.id_of_type(type_id).ok_or(NetError::UnregisteredEvent)?;
        let info = registry.class(class_id).ok_or(NetError::UnknownClass(class_id))?;
        if !info.direction.may_send(self.is_server) {
            return Err(NetError::WrongDirection(info.name));
        }
        let q = Queued { class_id, seq: None, sends: 0, recycle: info.recycles(), event };
        if q.event.guarantee() != Guarantee::Unguaranteed
            && self.guaranteed.len() + self.ordered_resend.len() + self.ordered_fresh.len()
                >= MAX_QUEUED_GUARANTEED
        {
            self.fatal.get_or_insert_with(|| {
                format!("guaranteed event backlog over {MAX_QUEUED_GUARANTEED} (the peer does not keep up)")
            });
            return Err(NetError::TooLong {
                what: "queued guaranteed events",
                len: MAX_QUEUED_GUARANTEED + 1,
                max: MAX_QUEUED_GUARANTEED,
            });
        }
        match q.event.guarantee() {
            Guarantee::Unguaranteed => {
                if self.unguaranteed.len() >= MAX_QUEUED_UNGUARANTEED {
                    self.unguaranteed.pop_front();
                    self.stats.unguaranteed_dropped += 1;
                }
                self.unguaranteed.push_back(q)
            }
            Guarantee::Guaranteed => self.guaranteed.push_back(q),
            Guarantee::GuaranteedOrdered => self.ordered_fresh.push_back(q),
        }
        Ok(())
    }

    fn ordered_window_open(&self) -> bool {
        let oldest = self.ordered_in_flight.first().copied().unwrap_or(self.next_send_seq);
        self.next_send_seq.wrapping_sub(oldest) < MAX_ORDERED_IN_FLIGHT
    }

    /// True when something is waiting that a packet could carry now.
    pub fn has_data_to_send(&self) -> bool {
        !self.unguaranteed.is_empty()
            || !self.guaranteed.is_empty()
            || !self.ordered_resend.is_empty()
            || (!self.ordered_fresh.is_empty() && self.ordered_window_open())
    }

    /// Events queued and not yet acknowledged (guaranteed ones in flight count too).
    pub fn queued_len(&self) -> usize {
        self.unguaranteed.len() + self.guaranteed.len() + self.ordered_resend.len() + self.ordered_fresh.len()
    }

    /// Writes as many events as fit. `payload_capacity` is the most bits an event
    /// section could ever have in a packet, to tell "next packet" from "never fits".
    pub fn write_packet(
        &mut self,
        w: &mut BitWriter,
        registry: &NetClassRegistry,
        strings: &mut StringSender,
        string_record: &mut Vec<SentString>,
        payload_capacity: usize,
    ) -> EventRecord {
        let mut record = EventRecord {
            unguaranteed: if self.unguaranteed.is_empty() { Vec::new() } else { self.spare_list() },
            guaranteed: if self.guaranteed.is_empty() { Vec::new() } else { self.spare_list() },
            ordered: if self.ordered_resend.is_empty() && self.ordered_fresh.is_empty() {
                Vec::new()
            } else {
                self.spare_list()
            },
        };
        let budget = w.budget_bits();
        w.set_budget_bits(budget.saturating_sub(TERMINATOR_BITS));
        let id_bits = registry.id_bits();
        let connection = self.connection;

        // Unguaranteed first: they are the most time-critical.
        while let Some(mut q) = self.unguaranteed.pop_front() {
            let mark = w.bit_position();
            let strings_mark = string_record.len();
            w.write_flag(true);
            w.write_int(q.class_id, id_bits);
            q.event.pack(w, &mut PackContext { connection, strings, record: string_record });
            if w.is_over_budget() {
                let bits = w.bit_position() - mark;
                w.set_bit_position(mark);
                string_record.truncate(strings_mark);
                if bits > payload_capacity {
                    self.too_large(registry, q, bits);
                    continue;
                }
                self.unguaranteed.push_front(q);
                break;
            }
            self.count_send(&mut q);
            record.unguaranteed.push(q);
        }
        w.set_budget_bits(budget.saturating_sub(TERMINATOR_BITS - 1));
        w.write_flag(false);

        let mut prev_seq: Option<u32> = None;
        loop {
            // Unordered guaranteed first, then nacked ordered by sequence, then fresh ordered.
            let (mut q, source) = if let Some(q) = self.guaranteed.pop_front() {
                (q, 0)
            } else if let Some((_, q)) = self.ordered_resend.pop_first() {
                (q, 1)
            } else if self.ordered_window_open()
                && let Some(q) = self.ordered_fresh.pop_front()
            {
                (q, 2)
            } else {
                break;
            };
            let mark = w.bit_position();
            let strings_mark = string_record.len();
            w.write_flag(true);
            let ordered = source != 0;
            w.write_flag(ordered);
            if ordered {
                let seq = q.seq.unwrap_or(self.next_send_seq);
                if !w.write_flag(prev_seq.map(|p| p.wrapping_add(1)) == Some(seq)) {
                    w.write_int(seq & SEQ_MASK, ORDERED_SEQ_BITS);
                }
                q.seq = Some(seq);
            }
            w.write_int(q.class_id, id_bits);
            q.event.pack(w, &mut PackContext { connection, strings, record: string_record });
            if w.is_over_budget() {
                let bits = w.bit_position() - mark;
                w.set_bit_position(mark);
                string_record.truncate(strings_mark);
                if source == 2 {
                    q.seq = None;
                }
                if bits > payload_capacity {
                    if source == 1 {
                        // A resent ordered event that no longer fits (its string tags now
                        // need their text) would stall the ordered stream for good.
                        self.fatal = Some(format!("ordered event of {bits} bits no longer fits a packet"));
                    }
                    self.too_large(registry, q, bits);
                    continue;
                }
                match source {
                    0 => self.guaranteed.push_front(q),
                    1 => {
                        let seq = q.seq.unwrap_or_default();
                        self.ordered_resend.insert(seq, q);
                    }
                    _ => self.ordered_fresh.push_front(q),
                }
                break;
            }
            self.count_send(&mut q);
            if source == 2 {
                self.next_send_seq = self.next_send_seq.wrapping_add(1);
                if let Some(seq) = q.seq {
                    self.ordered_in_flight.insert(seq);
                }
            }
            if source == 0 {
                record.guaranteed.push(q);
            } else {
                prev_seq = q.seq;
                record.ordered.push(q);
            }
        }
        w.set_budget_bits(budget);
        w.write_flag(false);
        record
    }

    fn count_send(&mut self, q: &mut Queued) {
        if q.sends == 0 {
            self.stats.sent += 1;
        } else {
            self.stats.resent += 1;
        }
        q.sends += 1;
    }

    /// A reason to end the connection found while writing, taken once.
    pub fn take_fatal(&mut self) -> Option<String> {
        self.fatal.take()
    }

    fn too_large(&mut self, registry: &NetClassRegistry, mut q: Queued, bits: usize) {
        let class = registry.class(q.class_id).map_or("?", |c| c.name);
        warn!(connection = %self.connection, class, bits, "event larger than a packet; dropped");
        self.stats.dropped += 1;
        q.event.notify_dropped(self.connection);
    }

    /// The packet with this record was acknowledged.
    pub fn packet_delivered(&mut self, record: EventRecord) {
        let EventRecord { unguaranteed, guaranteed, ordered } = record;
        for mut list in [unguaranteed, guaranteed, ordered] {
            for mut q in list.drain(..) {
                if let Some(seq) = q.seq {
                    self.ordered_in_flight.remove(&seq);
                }
                self.stats.delivered += 1;
                q.event.notify_delivered(self.connection);
                self.keep_spare(q.recycle, q.event);
            }
            self.keep_list(list);
        }
    }

    /// The packet with this record was lost: resend what is guaranteed, in the right order.
    pub fn packet_dropped(&mut self, record: EventRecord) {
        let EventRecord { mut unguaranteed, mut guaranteed, mut ordered } = record;
        for mut q in unguaranteed.drain(..) {
            self.stats.dropped += 1;
            q.event.notify_dropped(self.connection);
            self.keep_spare(q.recycle, q.event);
        }
        for q in guaranteed.drain(..).rev() {
            self.guaranteed.push_front(q);
        }
        for q in ordered.drain(..) {
            if let Some(seq) = q.seq {
                self.ordered_resend.insert(seq, q);
            }
        }
        for list in [unguaranteed, guaranteed, ordered] {
            self.keep_list(list);
        }
    }

    /// The connection is gone: every event still held is told it was dropped.
    pub fn close(&mut self) {
        let connection = self.connection;
        let all = self
            .unguaranteed
            .drain(..)
            .chain(self.guaranteed.drain(..))
            .chain(std::mem::take(&mut self.ordered_resend).into_values())
            .chain(self.ordered_fresh.drain(..));
        for mut q in all {
            q.event.notify_dropped(connection);
        }
    }

    /// The next guaranteed-ordered sequence number this side expects (demo start block).
    pub(crate) fn next_ordered_recv(&self) -> u32 {
        self.next_recv_seq
    }

    /// Continues a recorded stream: the next guaranteed-ordered sequence expected.
    pub(crate) fn set_next_ordered_recv(&mut self, seq: u32) {
        self.next_recv_seq = seq;
    }

    /// Reads the event sections of a received packet. Events ready to process are queued
    /// for [`EventManager::pop_ready`]; an error means the peer must be dropped.
    pub fn read_packet(
        &mut self,
        r: &mut BitReader<'_>,
        registry: &NetClassRegistry,
        strings: &mut StringReceiver,
    ) -> Result<()> {
        let mut ctx = UnpackContext { connection: self.connection, strings };
        while r.read_flag()? {
            let ev = self.read_event(r, registry, &mut ctx)?;
            self.stats.received += 1;
            self.ready.push_back(ev);
        }
        let mut prev_seq: Option<u32> = None;
        while r.read_flag()? {
            let ordered = r.read_flag()?;
            let seq = if ordered {
                let seq = if r.read_flag()? {
                    match prev_seq {
                        Some(p) => p.wrapping_add(1),
                        None => return Err(NetError::BadEventSequence(u32::MAX)),
                    }
                } else {
                    let wire = r.read_int(ORDERED_SEQ_BITS)?;
                    let ahead = wire.wrapping_sub(self.next_recv_seq) & SEQ_MASK;
                    if ahead >= MAX_ORDERED_IN_FLIGHT {
                        return Err(NetError::BadEventSequence(wire));
                    }
                    self.next_recv_seq.wrapping_add(ahead)
                };
                if seq.wrapping_sub(self.next_recv_seq) >= MAX_ORDERED_IN_FLIGHT {
                    return Err(NetError::BadEventSequence(seq & SEQ_MASK));
                }
                prev_seq = Some(seq);
                Some(seq)
            } else {
                None
            };
            let before = r.clone();
            let ev = self.read_event(r, registry, &mut ctx)?;
            self.stats.received += 1;
            match seq {
                None => self.ready.push_back(ev),
                Some(seq) => {
                    let slot = &mut self.recv_ordered[(seq & SEQ_MASK) as usize];
                    if slot.is_some() {
                        return Err(NetError::BadEventSequence(seq & SEQ_MASK));
                    }
                    *slot = Some(ev);
                    if seq != self.next_recv_seq {
                        // Early: held, and kept as bits for a demo that starts meanwhile.
                        let bits = r.bit_position() - before.bit_position();
                        self.recv_held_bits.insert(seq, copy_bits(before, bits)?);
                    }
                    self.release_ready();
                }
            }
        }
        Ok(())
    }

    /// Moves the ordered events whose predecessors all arrived to the ready queue.
    fn release_ready(&mut self) {
        while let Some(ev) = self.recv_ordered[(self.next_recv_seq & SEQ_MASK) as usize].take() {
            self.recv_held_bits.remove(&self.next_recv_seq);
            self.ready.push_back(ev);
            self.next_recv_seq = self.next_recv_seq.wrapping_add(1);
        }
    }

    /// The ordered events held for their predecessors, as `(sequence, bytes, bits)` in
    /// sequence order from the next expected one (a demo's start block).
    pub(crate) fn held_events(&self) -> Vec<(u32, Vec<u8>, usize)> {
        let next = self.next_recv_seq;
        let mut held: Vec<(u32, Vec<u8>, usize)> =
            self.recv_held_bits.iter().map(|(s, (b, n))| (*s, b.clone(), *n)).collect();
        held.sort_by_key(|(s, _, _)| s.wrapping_sub(next));
        held
    }

    /// Test support: a held event's bits, as `read_packet` keeps them (unchecked).
    #[cfg(test)]
    pub(crate) fn recv_held_for_test(&mut self, seq: u32, bytes: &[u8], bits: usize) {
        self.recv_held_bits.insert(seq, (bytes.to_vec(), bits));
    }

    /// Puts back an ordered event a demo's start block held (read as it was received).
    pub(crate) fn restore_held(
        &mut self,
        seq: u32,
        bytes: &[u8],
        bits: usize,
        registry: &NetClassRegistry,
        strings: &mut StringReceiver,
    ) -> Result<()> {
        let ahead = seq.wrapping_sub(self.next_recv_seq);
        if ahead == 0
            || ahead >= MAX_ORDERED_IN_FLIGHT
            || self.recv_ordered[(seq & SEQ_MASK) as usize].is_some()
        {
            return Err(NetError::BadEventSequence(seq & SEQ_MASK));
        }
        let mut r = BitReader::new(bytes);
        let mut ctx = UnpackContext { connection: self.connection, strings };
        let ev = self.read_event(&mut r, registry, &mut ctx)?;
        if r.bit_position() != bits {
            return Err(NetError::BadEventSequence(seq & SEQ_MASK));
        }
        self.recv_ordered[(seq & SEQ_MASK) as usize] = Some(ev);
        self.recv_held_bits.insert(seq, (bytes.to_vec(), bits));
        Ok(())
    }

    fn read_event(
        &mut self,
        r: &mut BitReader<'_>,
        registry: &NetClassRegistry,
        ctx: &mut UnpackContext<'_>,
    ) -> Result<Box<dyn NetEvent>> {
        let class_id = r.read_int(registry.id_bits())?;
        let info = registry.class(class_id).ok_or(NetError::UnknownClass(class_id))?;
        if !info.direction.may_send(!self.is_server) {
            return Err(NetError::WrongDirection(info.name));
        }
        let spare = if info.recycles() { self.take_spare_of(info.type_id()) } else { None };
        info.unpack(r, ctx, spare)
    }

    /// Received events waiting for [`Self::pop_ready`].
    pub fn ready_len(&self) -> usize {
        self.ready.len()
    }

    /// The next received event, in processing order.
    pub fn pop_ready(&mut self) -> Option<Box<dyn NetEvent>> {
        self.ready.pop_front()
    }

    /// Ordered events received early and held for their predecessors.
    pub fn held_len(&self) -> usize {
        self.recv_ordered.iter().filter(|s| s.is_some()).count()
    }
}

/// The next `bits` bits of `r` as bytes (the last byte zero-padded).
fn copy_bits(mut r: BitReader<'_>, bits: usize) -> Result<(Vec<u8>, usize)> {
    let mut w = v12_bitstream::BitWriter::new();
    let mut left = bits;
    while left > 0 {
        let n = left.min(64) as u32;
        w.write_bits(r.read_bits(n)?, n);
        left -= n as usize;
    }
    Ok((w.into_bytes().to_vec(), bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::NetEventClass;
    use crate::registry::NetClassRegistryBuilder;

    #[derive(Debug)]
    struct Num(u32, Guarantee);
    impl NetEvent for Num {
        fn guarantee(&self) -> Guarantee {
            self.1
        }
        fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
            w.write_int(self.0, 32);
        }
    }
    impl NetEventClass for Num {
        const NAME: &'static str = "Num";
        fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
            Ok(Self(r.read_int(32)?, Guarantee::GuaranteedOrdered))
        }
    }

    fn setup() -> (NetClassRegistry, EventManager, EventManager) {
        let reg = NetClassRegistryBuilder::new().register::<Num>().build().unwrap();
        (reg, EventManager::new(ConnectionId(1), false), EventManager::new(ConnectionId(1), true))
    }

    fn send(tx: &mut EventManager, reg: &NetClassRegistry, bits: usize) -> (bytes::Bytes, EventRecord) {
        let mut w = BitWriter::with_budget_bits(bits);
        let mut s = StringSender::default();
        let rec = tx.write_packet(&mut w, reg, &mut s, &mut Vec::new(), bits);
        assert!(!w.is_over_budget());
        (w.into_bytes(), rec)
    }

    fn recv(rx: &mut EventManager, reg: &NetClassRegistry, b: &[u8]) -> Vec<u32> {
        rx.read_packet(&mut BitReader::new(b), reg, &mut StringReceiver::default()).unwrap();
        std::iter::from_fn(|| rx.pop_ready()).map(|e| e.downcast_ref::<Num>().unwrap().0).collect()
    }

    #[test]
    fn an_event_that_does_not_fit_waits_for_the_next_packet() {
        let (reg, mut tx, mut rx) = setup();
        for i in 0..3 {
            tx.post(&reg, Box::new(Num(i, Guarantee::Guaranteed))).unwrap();
        }
        // Each event: 1 + 1 + 0 (class id) + 32 bits; two fit in 72 bits plus terminators.
        let (b, rec) = send(&mut tx, &reg, 72);
        assert_eq!(recv(&mut rx, &reg, &b), vec![0, 1]);
        tx.packet_delivered(rec);
        let (b, _) = send(&mut tx, &reg, 72);
        assert_eq!(recv(&mut rx, &reg, &b), vec![2]);
    }

    #[test]
    fn nacked_ordered_events_resend_in_order_and_wait_on_the_receiver() {
        let (reg, mut tx, mut rx) = setup();
        for i in 0..6 {
            tx.post(&reg, Box::new(Num(i, Guarantee::GuaranteedOrdered))).unwrap();
        }
        let (_lost, rec1) = send(&mut tx, &reg, 80); // 0, 1
        let (b2, rec2) = send(&mut tx, &reg, 80); // 2, 3
        assert_eq!(recv(&mut rx, &reg, &b2), Vec::<u32>::new(), "held until 0 and 1 arrive");
        assert_eq!(rx.held_len(), 2);
        tx.packet_dropped(rec1);
        tx.packet_delivered(rec2);
        let (b3, _) = send(&mut tx, &reg, 200); // 0, 1 resent first, then 4, 5
        assert_eq!(recv(&mut rx, &reg, &b3), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(tx.stats().resent, 2);
    }

    /// A demo begun while ordered events are held carries them: a player restored from
    /// `held_events` releases them with their predecessor, as the live receiver does.
    #[test]
    fn held_ordered_events_carry_over_to_a_restored_receiver() {
        let (reg, mut tx, mut rx) = setup();
        for i in 0..6 {
            tx.post(&reg, Box::new(Num(i, Guarantee::GuaranteedOrdered))).unwrap();
        }
        let (_lost, rec1) = send(&mut tx, &reg, 80); // 0, 1
        let (b2, rec2) = send(&mut tx, &reg, 80); // 2, 3: held
        assert_eq!(recv(&mut rx, &reg, &b2), Vec::<u32>::new());
        let held = rx.held_events();
        assert_eq!(held.iter().map(|h| h.0).collect::<Vec<_>>(), vec![2, 3]);
        // The demo's player: the same next sequence, the held events put back.
        let mut player = EventManager::new(ConnectionId(0), false);
        player.set_next_ordered_recv(rx.next_ordered_recv());
        for (seq, bytes, bits) in &held {
            player.restore_held(*seq, bytes, *bits, &reg, &mut StringReceiver::default()).unwrap();
        }
        assert_eq!(player.held_len(), 2);
        assert!(player.restore_held(2, &held[0].1, held[0].2, &reg, &mut StringReceiver::default()).is_err());
        tx.packet_dropped(rec1);
        tx.packet_delivered(rec2);
        let (b3, _) = send(&mut tx, &reg, 200);
        assert_eq!(recv(&mut rx, &reg, &b3), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(recv(&mut player, &reg, &b3), vec![0, 1, 2, 3, 4, 5]);
        assert!(rx.held_events().is_empty(), "released events are not kept as bits");
    }

    #[test]
    fn at_most_126_ordered_events_in_flight() {
        let (reg, mut tx, _) = setup();
        for i in 0..200 {
            tx.post(&reg, Box::new(Num(i, Guarantee::GuaranteedOrdered))).unwrap();
        }
        let (_, rec) = send(&mut tx, &reg, 100_000);
        assert_eq!(rec.ordered.len(), MAX_ORDERED_IN_FLIGHT as usize);
        assert!(!tx.has_data_to_send(), "the rest wait for acks");
        tx.packet_delivered(rec);
        let (_, rec) = send(&mut tx, &reg, 100_000);
        assert_eq!(rec.ordered.len(), 74);
    }

    #[test]
    fn unguaranteed_go_first_and_are_told_when_dropped() {
        let (reg, mut tx, mut rx) = setup();
        tx.post(&reg, Box::new(Num(1, Guarantee::GuaranteedOrdered))).unwrap();
        tx.post(&reg, Box::new(Num(2, Guarantee::Unguaranteed))).unwrap();
        let (b, rec) = send(&mut tx, &reg, 1000);
        assert_eq!(recv(&mut rx, &reg, &b), vec![2, 1]);
        tx.packet_dropped(rec);
        assert_eq!(tx.stats().dropped, 1);
        assert!(tx.has_data_to_send(), "the ordered one is queued again");
    }

    #[test]
    fn out_of_window_sequence_is_an_error() {
        let (reg, _, mut rx) = setup();
        let mut w = BitWriter::new();
        w.write_flag(false); // no unguaranteed
        w.write_flag(true);
        w.write_flag(true); // ordered
        w.write_flag(false);
        w.write_int(127, ORDERED_SEQ_BITS); // 127 ahead of 0: outside the 126 window
        w.write_int(5, 32);
        w.write_flag(false);
        let b = w.into_bytes();
        let err = rx.read_packet(&mut BitReader::new(&b), &reg, &mut StringReceiver::default());
        assert_eq!(err, Err(NetError::BadEventSequence(127)));
    }
}
