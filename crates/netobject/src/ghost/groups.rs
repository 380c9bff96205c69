//! Ghosted state declared on the fields: [`GhostState`](crate::ghost::GhostState), the derive
//! from v12-derive (re-exported here), writes a class's state groups (mask bit constants),
//! `pack_groups` and `unpack_groups` from `#[ghost(...)]` attributes, so a class written in
//! Rust needs no hand-written packing code. It replaced the `state_groups!` macro: the same
//! groups and kinds, plus strings, optional values, arrays, nested structs ([`GhostFields`]),
//! initial-only groups and hooks. The attributes are listed in v12-derive's docs.
//!
//! ```
//! use v12_netobject::ghost::GhostState;
//! #[derive(Default, GhostState)]
//! #[ghost(group(AIM), group(HEALTH))]
//! struct Turret {
//!     #[ghost(AIM, float(10))]
//!     aim: f32,
//!     #[ghost(AIM, signed(8))]
//!     speed: f32,
//!     #[ghost(HEALTH, int(8))]
//!     health: u8,
//!     #[ghost(HEALTH, flag)]
//!     firing: bool,
//! }
//! assert_eq!((Turret::AIM, Turret::HEALTH), (0b01, 0b10));
//! ```
//!
//! Each group is written as V12 does: a flag saying whether the group is in the update,
//! then its fields in order. `unpack_groups` returns the mask of the groups the update
//! carried, so the class can react (reset interpolation when its position came, say).

use crate::ghost::{GhostError, GhostPackContext, GhostUnpackContext};
use v12_bitstream::{BitReader, BitWriter};

/// A value packed inside a state group as a whole (a script thread, a mount): what
/// `#[derive(GhostState)]` implements for a struct that declares no groups, and what the
/// `fields` kind packs.
pub trait GhostFields: Default {
    /// Writes the fields in declaration order.
    fn pack_fields(&self, ctx: &GhostPackContext<'_>, w: &mut BitWriter);
    /// Reads what [`Self::pack_fields`] wrote.
    fn unpack_fields(
        &mut self,
        ctx: &GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError>;
}

/// A new `T` read from `r` (the generated code's `fields` kind).
pub fn read_fields<T: GhostFields>(
    ctx: &GhostUnpackContext<'_>,
    r: &mut BitReader<'_>,
) -> Result<T, GhostError> {
    let mut t = T::default();
    t.unpack_fields(ctx, r)?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use crate::ghost::{GhostError, GhostPackContext, GhostUnpackContext, ObjectId};
    use glam::Vec3;
    use hashbrown::HashMap;
    use proptest::prelude::*;
    use v12_bitstream::{BitReader, BitWriter, CompressionPoint};

    /// A class declared with the derive.
    #[derive(Debug, Default, Clone, PartialEq, crate::ghost::GhostState)]
    #[ghost(crate = crate, group(MOVE), group(HEALTH), group(AMMO))]
    struct Tank {
        #[ghost(MOVE, point)]
        pos: Vec3,
        #[ghost(MOVE, float(10))]
        turret: f32,
        #[ghost(MOVE, signed(9))]
        vel: f32,
        #[ghost(HEALTH, int(8))]
        health: u8,
        #[ghost(HEALTH, flag)]
        dead: bool,
        #[ghost(AMMO, int(12))]
        ammo: u16,
        #[ghost(AMMO, f32)]
        exact: f32,
    }

    /// The same class written by hand, as V12's classes are.
    fn pack_by_hand(t: &Tank, ctx: &GhostPackContext<'_>, mask: u32, w: &mut BitWriter) {
        if w.write_flag(mask & 0b001 != 0) {
            w.write_compressed_point(t.pos, ctx.compression_point());
            w.write_float(t.turret, 10);
            w.write_signed_float(t.vel, 9);
        }
        if w.write_flag(mask & 0b010 != 0) {
            w.write_int(u32::from(t.health), 8);
            w.write_flag(t.dead);
        }
        if w.write_flag(mask & 0b100 != 0) {
            w.write_int(u32::from(t.ammo), 12);
            w.write_f32(t.exact);
        }
    }

    fn unpack_by_hand(
        t: &mut Tank,
        ctx: &GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        if r.read_flag()? {
            t.pos = r.read_compressed_point(ctx.compression_point())?;
            t.turret = r.read_float(10)?;
            t.vel = r.read_signed_float(9)?;
        }
        if r.read_flag()? {
            t.health = r.read_int(8)? as u8;
            t.dead = r.read_flag()?;
        }
        if r.read_flag()? {
            t.ammo = r.read_int(12)? as u16;
            t.exact = r.read_f32()?;
        }
        Ok(())
    }

    fn contexts(cp: Vec3) -> (GhostPackContext<'static>, HashMap<u32, crate::ghost::ObjectId>) {
        let pack = GhostPackContext {
            compression: CompressionPoint::new(cp),
            lookup: &crate::ghost::context::NoGhosts,
            id_bits: 1,
            initial: false,
        };
        (pack, HashMap::new())
    }

    proptest! {
        #[test]
        fn generated_packing_matches_the_hand_written_form(
            x in -2000.0f32..2000.0, y in -2000.0f32..2000.0, z in -100.0f32..500.0,
            turret in 0.0f32..=1.0, vel in -1.0f32..=1.0, health: u8, dead: bool,
            ammo in 0u16..4096, exact in any::<f32>().prop_filter("finite", |v| v.is_finite()),
            mask in 0u32..8, cx in -100.0f32..100.0,
        ) {
            let t = Tank { pos: Vec3::new(x, y, z), turret, vel, health, dead, ammo, exact };
            let (ctx, ghosts) = contexts(Vec3::new(cx, 0.0, 0.0));
            let (mut a, mut b) = (BitWriter::new(), BitWriter::new());
            t.pack_groups(&ctx, mask, &mut a);
            pack_by_hand(&t, &ctx, mask, &mut b);
            prop_assert_eq!(a.bit_position(), b.bit_position());
            let bytes = a.into_bytes();
            prop_assert_eq!(&bytes[..], &b.into_bytes()[..]);
            let uctx = GhostUnpackContext {
                compression: CompressionPoint::new(Vec3::new(cx, 0.0, 0.0)),
                ghosts: &ghosts,
                id_bits: 1,
                initial: false,
            };
            let (mut got, mut want) = (Tank::default(), Tank::default());
            let carried = got.unpack_groups(&uctx, &mut BitReader::new(&bytes)).unwrap();
            unpack_by_hand(&mut want, &uctx, &mut BitReader::new(&bytes)).unwrap();
            prop_assert_eq!(carried, mask);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_cut_update_is_an_error_not_a_panic() {
        let t = Tank { health: 9, ammo: 7, ..Tank::default() };
        let (ctx, ghosts) = contexts(Vec3::ZERO);
        let mut w = BitWriter::new();
        t.pack_groups(&ctx, 0b110, &mut w);
        let bytes = w.into_bytes();
        let uctx = GhostUnpackContext {
            compression: CompressionPoint::new(Vec3::ZERO),
            ghosts: &ghosts,
            id_bits: 1,
            initial: false,
        };
        let mut got = Tank::default();
        assert!(got.unpack_groups(&uctx, &mut BitReader::new(&bytes[..2])).is_err());
    }

    /// A nested value: packed whole inside a group.
    #[derive(Debug, Default, Clone, PartialEq, crate::ghost::GhostState)]
    #[ghost(crate = crate)]
    struct Thread {
        #[ghost(string(max = 8))]
        name: String,
        #[ghost(flag)]
        on: bool,
    }

    /// Every other kind and hook, against the same written by hand.
    #[derive(Debug, Default, Clone, PartialEq, crate::ghost::GhostState)]
    #[ghost(
        crate = crate,
        group(DATA, initial),
        group(SPIN, bit = 3, after = Self::spun),
        group(THREADS, initial_if = Self::any_thread),
        group(LINK, bit = 4, pack = Self::pack_link, unpack = Self::unpack_link)
    )]
    struct Rich {
        #[ghost(DATA, int(20))]
        data: u32,
        #[ghost(SPIN, float(10, scale = std::f32::consts::TAU, bias = 0.5), at = 0)]
        #[ghost(SPIN, signed(12, scale = 64.0), at = 1)]
        spin: (f32, f32),
        #[ghost(SPIN, optional(int(5)))]
        level: Option<u8>,
        #[ghost(SPIN, with = odd)]
        odd: u8,
        #[ghost(THREADS, array(optional(fields)), set = Self::thread_arrived)]
        threads: [Option<Thread>; 3],
        link: Option<ObjectId>,
        spun: u32,
        arrivals: u32,
    }

    mod odd {
        use super::*;
        pub fn pack(v: &u8, _: &GhostPackContext<'_>, w: &mut BitWriter) {
            w.write_int(u32::from(*v) * 3, 10);
        }
        pub fn unpack(
            v: &mut u8,
            _: &GhostUnpackContext<'_>,
            r: &mut BitReader<'_>,
        ) -> Result<(), GhostError> {
            *v = (r.read_int(10)? / 3) as u8;
            Ok(())
        }
    }

    impl Rich {
        fn spun(&mut self, _: &GhostUnpackContext<'_>) {
            self.spun += 1;
        }
        fn any_thread(&self) -> bool {
            self.threads.iter().any(Option::is_some)
        }
        fn thread_arrived(&mut self, i: usize, t: Option<Thread>) {
            self.arrivals += 1;
            self.threads[i] = t;
        }
        fn pack_link(&self, ctx: &GhostPackContext<'_>, w: &mut BitWriter) -> u32 {
            let ghost = self.link.and_then(|l| ctx.ghost_id_of(l));
            if let Some(g) = w.write_flag(ghost.is_some()).then_some(ghost).flatten() {
                w.write_int(g, ctx.ghost_id_bits());
            }
            if self.link.is_some() && ghost.is_none() { Self::LINK } else { 0 }
        }
        fn unpack_link(
            &mut self,
            ctx: &GhostUnpackContext<'_>,
            r: &mut BitReader<'_>,
        ) -> Result<(), GhostError> {
            self.link = if r.read_flag()? { ctx.object_of(r.read_int(ctx.ghost_id_bits())?) } else { None };
            Ok(())
        }
    }

    fn rich_by_hand(t: &Rich, ctx: &GhostPackContext<'_>, mask: u32, w: &mut BitWriter) {
        if w.write_flag(mask & 1 != 0 || ctx.is_initial()) {
            w.write_int(t.data, 20);
        }
        if w.write_flag(mask & 8 != 0) {
            w.write_float(t.spin.0 / std::f32::consts::TAU + 0.5, 10);
            w.write_signed_float(t.spin.1 / 64.0, 12);
            if let Some(l) = w.write_flag(t.level.is_some()).then_some(t.level).flatten() {
                w.write_int(u32::from(l), 5);
            }
            w.write_int(u32::from(t.odd) * 3, 10);
        }
        if w.write_flag(mask & 4 != 0 || (ctx.is_initial() && t.any_thread())) {
            for th in &t.threads {
                if let Some(th) = w.write_flag(th.is_some()).then_some(th.as_ref()).flatten() {
                    w.write_string(&th.name).unwrap();
                    w.write_flag(th.on);
                }
            }
        }
        if w.write_flag(mask & (1 << 4) != 0) {
            w.write_flag(false);
        }
    }

    #[test]
    fn every_kind_and_hook_matches_the_hand_written_form() {
        assert_eq!((Rich::DATA, Rich::SPIN, Rich::THREADS, Rich::LINK), (1, 8, 4, 16));
        let th = |n: &str, on| Some(Thread { name: n.into(), on });
        let t = Rich {
            data: 0xABCDE,
            spin: (1.0, -20.0),
            level: Some(17),
            odd: 200,
            threads: [None, th("run", true), th("", false)],
            link: Some(crate::ghost::ObjectId(4)),
            ..Rich::default()
        };
        for initial in [false, true] {
            for mask in [0, 1, 2, 4, 8, 16, 0b11010, u32::MAX] {
                let (mut ctx, ghosts) = contexts(Vec3::ZERO);
                ctx.initial = initial;
                let (mut a, mut b) = (BitWriter::new(), BitWriter::new());
                let remaining = t.pack_groups(&ctx, mask, &mut a);
                rich_by_hand(&t, &ctx, mask, &mut b);
                assert_eq!(remaining, mask & Rich::LINK, "the unknown link is still to send");
                let bytes = a.into_bytes();
                assert_eq!(&bytes[..], &b.into_bytes()[..], "mask {mask:b} initial {initial}");
                let uctx = GhostUnpackContext {
                    compression: CompressionPoint::new(Vec3::ZERO),
                    ghosts: &ghosts,
                    id_bits: 1,
                    initial,
                };
                let mut got = Rich::default();
                let carried = got.unpack_groups(&uctx, &mut BitReader::new(&bytes)).unwrap();
                let want_carried =
                    (mask & Rich::GHOST_GROUPS) | if initial { Rich::DATA | Rich::THREADS } else { 0 };
                assert_eq!(carried, want_carried);
                if carried & Rich::SPIN != 0 {
                    assert_eq!((got.level, got.odd, got.spun), (Some(17), 200, 1));
                    assert!((got.spin.0 - 1.0).abs() < 0.01 && (got.spin.1 + 20.0).abs() < 0.05);
                }
                if carried & Rich::THREADS != 0 {
                    assert_eq!((&got.threads, got.arrivals), (&t.threads, 3));
                }
            }
        }
        // A name over its limit is refused on the client.
        let long = Rich { threads: [th("ninechars", true), None, None], ..Rich::default() };
        let (ctx, ghosts) = contexts(Vec3::ZERO);
        let mut w = BitWriter::new();
        long.pack_groups(&ctx, Rich::THREADS, &mut w);
        let bytes = w.into_bytes();
        let uctx = GhostUnpackContext {
            compression: CompressionPoint::new(Vec3::ZERO),
            ghosts: &ghosts,
            id_bits: 1,
            initial: false,
        };
        let e = Rich::default().unpack_groups(&uctx, &mut BitReader::new(&bytes)).unwrap_err();
        assert!(matches!(e, GhostError::BadUpdate(ref m) if m.contains("name")), "{e}");
    }
}
