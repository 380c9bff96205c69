//! The waiting creates a connection's frame scoping pass sets aside. A crowd's client holds
//! hundreds of creates too far to win a place (in scope, outside their near rings), which
//! every packet would visit only to find them in scope and far again and count a skip. A
//! create whose object was at distance `d` from the camera, between its ring `r` and the
//! scope's outer radius `o`, stays so while the object and the camera together moved less
//! than `min(d - r, o - d)` (less a margin for rounding), which the frame's travel bound
//! (`GhostFrame::travel`, while its layout holds) and the camera's own path tell: until then
//! the packets do not visit it, and its skips are counted by the number of packets listed
//! since it was set aside. Each pass first takes back the ones whose bound ran out (and visits
//! them as before); everything is taken back (its skips written into its slot) whenever a
//! pass cannot use the set: another layout or radius, no frame, no deferring of far
//! candidates, any other way of scoping or writing; a packet that reaches the far candidates
//! weighs them too. So every packet is the one the full walk writes.
//!
//! (Live ghosts that stay dirty outside their rings were set aside too, and taken back with
//! their objects' changes picked up when a packet reached them: measured slower, those near
//! enough to be live are too near their rings to stay aside long.)
//!
//! This file is the set itself: which ghosts, when each is due back (a figure of the frame's
//! travel plus the camera's path), their skips, and their objects' dense indices in the frame
//! as a held bitset.

/// The set (see the module docs). Members are kept in a dense list with their due figures
/// beside it, so a pass finds the ones due by one scan of a flat array of numbers.
#[derive(Debug, Default)]
pub(crate) struct SetAside {
    /// By ghost id.
    bits: Vec<u64>,
    /// The members, in no order, and when each is due (beside it).
    members: Vec<u32>,
    dues: Vec<f64>,
    /// By ghost id: its place in `members`.
    place: Vec<u32>,
    /// By ghost id: `listings` less its skips (wrapping), so its skips are `listings - base`.
    base: Vec<u32>,
    /// By ghost id: its object's dense index in the frame.
    index: Vec<u32>,
    /// By dense index in the frame: the members' objects.
    held: Vec<u64>,
    /// Listing passes counted.
    listings: u32,
    /// The frame layout and the radii (visible, outer) the set holds under.
    pub(crate) layout: u64,
    pub(crate) radii: (u32, u32),
    /// The camera's path so far (the sum of its moves between passes), and where it was.
    pub(crate) camera_path: f64,
    pub(crate) camera: crate::ghost::Point3,
    /// The travel figure at the last pass, and how much it grew since the pass before
    /// (infinite when unknown): a ghost is set aside only for a few passes' worth or more.
    pub(crate) last_travel: f64,
    pub(crate) pace: f64,
}

impl SetAside {
    /// Ghost `idx` is set aside.
    #[inline(always)]
    pub(crate) fn has(&self, idx: usize) -> bool {
        self.bits.get(idx / 64).is_some_and(|w| w & (1 << (idx % 64)) != 0)
    }

    /// Members.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }

    /// The members as a bit per ghost id.
    #[inline]
    pub(crate) fn bits(&self) -> &[u64] {
        &self.bits
    }

    /// The skips of member `idx` (saturating as a slot's).
    #[inline(always)]
    pub(crate) fn skips(&self, idx: usize) -> u16 {
        self.listings.wrapping_sub(self.base[idx]).min(u32::from(u16::MAX)) as u16
    }

    /// Room for `ghosts` ghost ids and members, and a frame of as many objects, without
    /// growing.
    pub(crate) fn reserve(&mut self, ghosts: usize) {
        fn room<T>(list: &mut Vec<T>, want: usize) {
            list.reserve(want.saturating_sub(list.len()));
        }
        room(&mut self.bits, ghosts.div_ceil(64));
        room(&mut self.members, ghosts);
        room(&mut self.dues, ghosts);
        room(&mut self.place, ghosts);
        room(&mut self.base, ghosts);
        room(&mut self.index, ghosts);
        // A connection holds at most the frame's objects (and those always in scope).
        room(&mut self.held, ghosts.div_ceil(64));
    }

    /// Sets ghost `idx` aside (not a member) with `skips` so far, due back once the travel
    /// figure reaches `due`; its object is at dense index `i` of a frame of `objects`.
    #[inline]
    pub(crate) fn add(&mut self, idx: usize, due: f64, skips: u16, i: usize, objects: usize) {
        debug_assert!(!self.has(idx));
        if idx >= self.place.len() || idx / 64 >= self.bits.len() || self.held.len() < objects.div_ceil(64) {
            self.grow(idx, objects);
        }
        self.place[idx] = self.members.len() as u32;
        self.members.push(idx as u32);
        self.dues.push(due);
        self.base[idx] = self.listings.wrapping_sub(u32::from(skips));
        self.index[idx] = i as u32;
        self.bits[idx / 64] |= 1 << (idx % 64);
        if let Some(w) = self.held.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    /// The tables by ghost id long enough for `idx`, the held bits for a frame of `objects`.
    #[cold]
    fn grow(&mut self, idx: usize, objects: usize) {
        if idx >= self.place.len() {
            // To the room reserved, so this is not called again for the next higher id.
            let n = (idx + 1).max(self.place.capacity());
            self.place.resize(n, 0);
            self.base.resize(n, 0);
            self.index.resize(n, 0);
        }
        if idx / 64 >= self.bits.len() {
            self.bits.resize(idx / 64 + 1, 0);
        }
        if self.held.len() < objects.div_ceil(64) {
            self.held.resize(objects.div_ceil(64), 0);
        }
    }

    /// Takes member `idx` out; returns its skips.
    #[inline]
    pub(crate) fn remove(&mut self, idx: usize) -> u16 {
        let skips = self.skips(idx);
        let at = self.place[idx] as usize;
        self.members.swap_remove(at);
        self.dues.swap_remove(at);
        if let Some(&moved) = self.members.get(at) {
            self.place[moved as usize] = at as u32;
        }
        self.bits[idx / 64] &= !(1 << (idx % 64));
        let i = self.index[idx] as usize;
        if let Some(w) = self.held.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
        skips
    }

    /// Takes out every member due by `travel`, calling `back(idx, skips)` for each.
    pub(crate) fn take_due(&mut self, travel: f64, mut back: impl FnMut(usize, u16)) {
        let mut k = 0;
        while k < self.dues.len() {
            if self.dues[k] <= travel {
                let idx = self.members[k] as usize;
                back(idx, self.remove(idx));
            } else {
                k += 1;
            }
        }
    }

    /// Takes out every member, calling `back(idx, skips)` for each.
    pub(crate) fn take_all(&mut self, mut back: impl FnMut(usize, u16)) {
        for &idx in &self.members {
            back(idx as usize, self.skips(idx as usize));
        }
        self.clear();
    }

    /// Forgets every member.
    pub(crate) fn clear(&mut self) {
        for &idx in &self.members {
            self.bits[idx as usize / 64] = 0;
        }
        self.members.clear();
        self.dues.clear();
        self.held.fill(0);
    }

    /// A packet was listed: every member's skips go up by one (saturating).
    pub(crate) fn count_listing(&mut self) {
        self.listings = self.listings.wrapping_add(1);
    }

    /// Marks the members' objects in `held` (a bit per dense index).
    pub(crate) fn mark_held(&self, held: &mut [u64]) {
        for (h, &w) in held.iter_mut().zip(&self.held) {
            *h |= w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SetAside;

    /// Members in and out by every route, against a plain model: membership, skips, the
    /// held bits, and which are due.
    #[test]
    fn set_aside_matches_a_model() {
        let mut s = SetAside::default();
        // ghost -> (due, skips at entry, listing at entry, frame index)
        let mut model: std::collections::BTreeMap<usize, (f64, u16, u32, usize)> = Default::default();
        let mut x = 12345u32;
        let mut rnd = move |m: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % m
        };
        let mut travel = 0.0;
        for round in 0..400u32 {
            // Listings counted so far (one a round).
            let listing = round;
            for _ in 0..rnd(12) {
                let idx = rnd(300) as usize;
                if let Some((_, skips, at, _)) = model.remove(&idx) {
                    let want = (u32::from(skips) + listing - at).min(u32::from(u16::MAX)) as u16;
                    assert_eq!(s.remove(idx), want);
                } else {
                    let i = idx * 3 % 500;
                    let skips = if rnd(50) == 0 { u16::MAX - 1 } else { rnd(40) as u16 };
                    let due = travel + f64::from(rnd(100)) / 10.0;
                    s.add(idx, due, skips, i, 500);
                    model.insert(idx, (due, skips, listing, i));
                }
            }
            travel += f64::from(rnd(30)) / 10.0;
            let mut back = Vec::new();
            if round % 97 == 96 {
                s.take_all(|idx, skips| back.push((idx, skips)));
            } else {
                s.take_due(travel, |idx, skips| back.push((idx, skips)));
            }
            back.sort_unstable();
            let want: Vec<(usize, u16)> = model
                .iter()
                .filter(|&(_, &(due, ..))| round % 97 == 96 || due <= travel)
                .map(|(&idx, &(_, skips, at, _))| {
                    (idx, (u32::from(skips) + listing - at).min(u32::from(u16::MAX)) as u16)
                })
                .collect();
            assert_eq!(back, want, "round {round}");
            model.retain(|idx, _| !want.iter().any(|w| w.0 == *idx));
            s.count_listing();
            assert_eq!(s.len(), model.len());
            let mut held = vec![0u64; 8];
            s.mark_held(&mut held);
            for idx in 0..300 {
                assert_eq!(s.has(idx), model.contains_key(&idx));
            }
            for i in 0..500 {
                let want = model.values().any(|m| m.3 == i);
                assert_eq!(held[i / 64] & (1 << (i % 64)) != 0, want, "round {round} index {i}");
            }
        }
    }
}
