//! SceneObject's wire form: the derived packing (`#[derive(GhostState)]`) against the
//! hand-written `pack_update` / `unpack_update` it replaced, bit for bit.
//!
//! Two references: [`FIXTURES`], the bytes the hand-written code wrote for a set of objects and
//! masks (recorded from it before the derive replaced it), and [`legacy_pack`] /
//! [`legacy_unpack`], that code kept verbatim. The derive writes those bits followed by the
//! mount group's flag (the one group added since), and reads them back to the same object,
//! client bookkeeping included.

use super::*;
use v12_bitstream::CompressionPoint;
use v12_netobject::ghost::ALL_MASK_BITS;

pub(super) fn cases() -> Vec<(&'static str, SceneObject)> {
    let run = ScriptThread { sequence: "run".into(), playing: true, forward: true };
    let jump = ScriptThread { sequence: "jump".into(), playing: false, forward: false };
    let mut out = Vec::new();
    out.push(("at rest", SceneObject::new(3, Vec3::new(10.5, -20.25, 0.0))));
    let mut o = SceneObject::new(77, Vec3::new(-3.0, 40.0, 1.5));
    o.state.vel = Vec3::new(3.5, -2.25, 0.0);
    o.state.yaw = 1.2;
    o.set_health_flags(200, 0b1010);
    out.push(("moving", o));
    let mut o = SceneObject::new(5, Vec3::new(1.0, 2.0, 3.0));
    o.set_thread(1, Some(run));
    o.set_thread(3, Some(jump));
    out.push(("threads", o));
    let mut o = SceneObject::new(u32::MAX, Vec3::new(1500.0, 800.0, 300.0));
    o.state.vel = Vec3::new(100.0, -80.0, 0.0);
    o.state.yaw = -3.0;
    o.set_health_flags(255, 0xF);
    out.push(("far and fast", o));
    let mut o = SceneObject::new(9, Vec3::new(0.0, 0.0, 0.0));
    o.state.vel = Vec3::new(0.0, 0.0, 5.0);
    out.push(("climbing", o));
    out
}

/// (initial, mask, compression point) of each packing.
pub(super) fn packings() -> Vec<(bool, u32, Vec3)> {
    let all = u32::MAX;
    let c = Vec3::new(12.0, -7.0, 3.0);
    vec![
        (true, all, Vec3::ZERO),
        (true, all, c),
        (false, MOVE_MASK, Vec3::ZERO),
        (false, MOVE_MASK, c),
        (false, STATE_MASK, c),
        (false, THREAD_MASK, c),
        (false, DATABLOCK_MASK, c),
        (false, MOVE_MASK | STATE_MASK, c),
        (false, 0, c),
        (true, MOVE_MASK, c),
    ]
}

pub(super) fn pack(o: &SceneObject, initial: bool, mask: u32, cp: Vec3) -> (Vec<u8>, usize) {
    let mut ctx = GhostPackContext::detached(CompressionPoint::new(cp), initial);
    let mut w = BitWriter::new();
    o.pack_update(&mut ctx, mask, &mut w);
    let bits = w.bit_position();
    (w.into_bytes().to_vec(), bits)
}

/// What the hand-written code wrote for each of [`cases`] x [`packings`], in that order:
/// (case, initial, mask, bits, bytes in hex). Recorded before the derive replaced it.
const FIXTURES: &[(&str, bool, u32, usize, &str)] = &[
    ("at rest", true, 0xffffffff, 113, "07000000a24170810f0000c0001000"),
    ("at rest", true, 0xffffffff, 113, "07000000a2f63fad4fed0fc0001000"),
    ("at rest", false, 0x2, 65, "a24170810f00004000"),
    ("at rest", false, 0x2, 65, "a2f63fad4fed0f4000"),
    ("at rest", false, 0x4, 16, "0400"),
    ("at rest", false, 0x8, 8, "08"),
    ("at rest", false, 0x1, 36, "0700000000"),
    ("at rest", false, 0x6, 77, "a2f63fad4fed0fc00000"),
    ("at rest", false, 0x0, 4, "00"),
    ("at rest", true, 0x2, 97, "07000000a2f63fad4fed0f4000"),
    ("moving", true, 0xffffffff, 137, "9b00000042ed0ffa6009100e707fd8c81a00"),
    ("moving", true, 0xffffffff, 137, "9b00000042a2cf25a1f61f0e707fd8c81a00"),
    ("moving", false, 0x2, 89, "42ed0ffa6009100e707f5800"),
    ("moving", false, 0x2, 89, "42a2cf25a1f61f0e707f5800"),
    ("moving", false, 0x4, 16, "4456"),
    ("moving", false, 0x8, 8, "08"),
    ("moving", false, 0x1, 36, "9b00000000"),
    ("moving", false, 0x6, 101, "42a2cf25a1f61f0e707fd8c80a"),
    ("moving", false, 0x0, 4, "00"),
    ("moving", true, 0x2, 121, "9b00000042a2cf25a1f61f0e707f5800"),
    ("threads", true, 0xffffffff, 178, "0b0000004206800cc01200c000d003b9d74df06cdf7600"),
    ("threads", true, 0xffffffff, 178, "0b00000042bb4f38000000c000d003b9d74df06cdf7600"),
    ("threads", false, 0x2, 65, "4206800cc012004000"),
    ("threads", false, 0x2, 65, "42bb4f380000004000"),
    ("threads", false, 0x4, 16, "0400"),
    ("threads", false, 0x8, 73, "e881dceb2678b66f3b00"),
    ("threads", false, 0x1, 36, "0b00000000"),
    ("threads", false, 0x6, 77, "42bb4f38000000c00000"),
    ("threads", false, 0x0, 4, "00"),
    ("threads", true, 0x2, 166, "0b00000042bb4f38000000403d907bdd04cff66d07"),
    ("far and fast", true, 0xffffffff, 149, "ffffffff0b9f248038015307ff2f002ff8ff01"),
    ("far and fast", true, 0xffffffff, 149, "ffffffff0b54243c3b414007ff2f002ff8ff01"),
    ("far and fast", false, 0x2, 101, "0a9f248038015307ff2f002f00"),
    ("far and fast", false, 0x2, 101, "0a54243c3b414007ff2f002f00"),
    ("far and fast", false, 0x4, 16, "fc7f"),
    ("far and fast", false, 0x8, 8, "08"),
    ("far and fast", false, 0x1, 36, "ffffffff01"),
    ("far and fast", false, 0x6, 113, "0a54243c3b414007ff2f002ff8ff00"),
    ("far and fast", false, 0x0, 4, "00"),
    ("far and fast", true, 0x2, 133, "ffffffff0b54243c3b414007ff2f002f00"),
    ("climbing", true, 0xffffffff, 137, "1300000002000000000010000000c0001000"),
    ("climbing", true, 0xffffffff, 137, "1300000002b5cf2b40ed1f000000c0001000"),
    ("climbing", false, 0x2, 89, "020000000000100000004000"),
    ("climbing", false, 0x2, 89, "02b5cf2b40ed1f0000004000"),
    ("climbing", false, 0x4, 16, "0400"),
    ("climbing", false, 0x8, 8, "08"),
    ("climbing", false, 0x1, 36, "1300000000"),
    ("climbing", false, 0x6, 101, "02b5cf2b40ed1f000000c00000"),
    ("climbing", false, 0x0, 4, "00"),
    ("climbing", true, 0x2, 121, "1300000002b5cf2b40ed1f0000004000"),
];

/// The hand-written `SceneObject::pack_update`, as it was (the four groups before the mount).
fn legacy_pack(o: &SceneObject, ctx: &GhostPackContext<'_>, mask: u32, w: &mut BitWriter) -> u32 {
    if w.write_flag(mask & DATABLOCK_MASK != 0 || ctx.is_initial()) {
        w.write_int(o.datablock, 32);
    }
    if w.write_flag(mask & MOVE_MASK != 0) {
        w.write_compressed_point(o.state.pos, ctx.compression_point());
        if w.write_flag(o.state.vel != Vec3::ZERO) {
            w.write_signed_float(o.state.vel.x / MAX_NET_SPEED, VEL_BITS);
            w.write_signed_float(o.state.vel.y / MAX_NET_SPEED, VEL_BITS);
        }
        w.write_float((o.state.yaw / std::f32::consts::TAU) + 0.5, YAW_BITS);
    }
    if w.write_flag(mask & STATE_MASK != 0) {
        w.write_int(u32::from(o.health), HEALTH_BITS);
        w.write_int(u32::from(o.flags & 0xF), FLAG_BITS);
    }
    let threads = mask & THREAD_MASK != 0 || (ctx.is_initial() && o.threads.iter().any(Option::is_some));
    if w.write_flag(threads) {
        for t in &o.threads {
            if let Some(t) = w.write_flag(t.is_some()).then_some(t.as_ref()).flatten() {
                if w.write_string(&t.sequence).is_err() {
                    let _ = w.write_string("");
                }
                w.write_flag(t.playing);
                w.write_flag(t.forward);
            }
        }
    }
    0
}

/// The hand-written `SceneObject::unpack_update`, as it was.
fn legacy_unpack(
    o: &mut SceneObject,
    ctx: &GhostUnpackContext<'_>,
    r: &mut BitReader<'_>,
) -> Result<(), GhostError> {
    if r.read_flag()? {
        o.datablock = r.read_int(32)?;
    }
    if r.read_flag()? {
        let pos = r.read_compressed_point(ctx.compression_point())?;
        let vel = if r.read_flag()? {
            let x = r.read_signed_float(VEL_BITS)? * MAX_NET_SPEED;
            let y = r.read_signed_float(VEL_BITS)? * MAX_NET_SPEED;
            Vec3::new(x, y, 0.0)
        } else {
            Vec3::ZERO
        };
        let yaw = (r.read_float(YAW_BITS)? - 0.5) * std::f32::consts::TAU;
        o.state = ControlState { pos, vel, yaw: wrap_angle(yaw), ..o.state };
        if o.updates == 0 || ctx.is_initial() {
            o.render_pos = pos;
        }
        o.target_pos = pos;
        o.updates = o.updates.saturating_add(1);
        o.since_update_ms = 0;
    }
    if r.read_flag()? {
        o.health = r.read_int(HEALTH_BITS)? as u8;
        o.flags = r.read_int(FLAG_BITS)? as u8;
    }
    if r.read_flag()? {
        for slot in 0..MAX_SCRIPT_THREADS {
            let thread = if r.read_flag()? {
                let sequence = r.read_string()?;
                if sequence.chars().count() > MAX_SEQUENCE_NAME {
                    return Err(GhostError::BadUpdate("a thread's sequence name is too long".into()));
                }
                Some(ScriptThread { sequence, playing: r.read_flag()?, forward: r.read_flag()? })
            } else {
                None
            };
            if o.threads[slot].as_ref().map(|t| &t.sequence) != thread.as_ref().map(|t| &t.sequence) {
                o.thread_age_ms[slot] = 0;
            }
            o.threads[slot] = thread;
        }
    }
    Ok(())
}

/// The bits of `bytes`, `n` of them, as '0'/'1'.
fn bits(bytes: &[u8], n: usize) -> String {
    (0..n).map(|i| if bytes[i / 8] >> (i % 8) & 1 == 1 { '1' } else { '0' }).collect()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

/// Everything the wire and the client's bookkeeping touch.
fn client_view(o: &SceneObject) -> String {
    format!(
        "{:?} {} {} {} {:?} {:?} {} {} {:?} {:?} {:?}",
        o.state,
        o.datablock,
        o.health,
        o.flags,
        o.render_pos,
        o.target_pos,
        o.updates,
        o.since_update_ms,
        o.threads,
        o.thread_age_ms,
        o.mount
    )
}

/// Ghosts as a client may hold them before an update: new, and one that already had an
/// update, plays threads (one of the same name as a case's) and has aged.
fn prior_ghosts() -> Vec<SceneObject> {
    let mut old = SceneObject::new(1, Vec3::new(5.0, 5.0, 0.0));
    old.updates = 4;
    old.since_update_ms = 300;
    old.render_pos = Vec3::new(4.0, 4.0, 0.0);
    old.threads[1] = Some(ScriptThread { sequence: "run".into(), playing: true, forward: false });
    old.threads[2] = Some(ScriptThread { sequence: "wave".into(), playing: true, forward: true });
    old.thread_age_ms = [10, 20, 30, 40];
    vec![SceneObject::default(), old]
}

/// The derived packing writes what the hand-written code wrote, bit for bit (the recorded
/// fixtures and the kept functions agree), then the mount group's flag; it reads back to the
/// same ghost as the hand-written reader, from a new ghost and from one with history.
#[test]
fn derived_scene_object_packing_matches_the_hand_written_bit_for_bit() {
    let mut fixtures = FIXTURES.iter();
    for (name, o) in cases() {
        for (initial, mask, cp) in packings() {
            let &(f_name, f_initial, f_mask, f_bits, f_hex) = fixtures.next().expect("a fixture per packing");
            assert_eq!(
                (f_name, f_initial, f_mask),
                (name, initial, mask),
                "fixtures follow cases x packings"
            );
            let (bytes, n) = pack(&o, initial, mask, cp);
            let recorded = bits(&hex(f_hex), f_bits);
            let mut legacy = BitWriter::new();
            legacy_pack(
                &o,
                &GhostPackContext::detached(CompressionPoint::new(cp), initial),
                mask,
                &mut legacy,
            );
            let legacy_n = legacy.bit_position();
            let legacy = bits(&legacy.into_bytes(), legacy_n);
            assert_eq!(
                legacy, recorded,
                "{name} mask {mask:#x} initial {initial}: the kept code is the recorded one"
            );
            // The mount group: its flag, and "no mount" when it is in the mask.
            let mount_flag = if mask & MOUNT_MASK != 0 { "10" } else { "0" };
            assert_eq!(
                bits(&bytes, n),
                format!("{recorded}{mount_flag}"),
                "{name} mask {mask:#x} initial {initial}"
            );
            for prior in prior_ghosts() {
                let uctx = GhostUnpackContext::detached(CompressionPoint::new(cp), initial);
                let (mut derived, mut hand) = (prior.clone(), prior.clone());
                derived
                    .unpack_update(
                        &mut GhostUnpackContext::detached(CompressionPoint::new(cp), initial),
                        &mut BitReader::new(&bytes),
                    )
                    .unwrap();
                legacy_unpack(&mut hand, &uctx, &mut BitReader::new(&bytes)).unwrap();
                assert_eq!(
                    client_view(&derived),
                    client_view(&hand),
                    "{name} mask {mask:#x} initial {initial}"
                );
            }
        }
    }
    assert!(fixtures.next().is_none());
}

/// A client refuses a sequence name over the limit (a server that bypassed `set_thread`),
/// as the hand-written reader did; a cut update is an error, not a panic.
#[test]
fn over_long_names_and_cut_updates_are_refused() {
    let mut o = SceneObject::new(3, Vec3::ZERO);
    o.threads[0] =
        Some(ScriptThread { sequence: "x".repeat(MAX_SEQUENCE_NAME + 1), playing: true, forward: true });
    let (bytes, _) = pack(&o, true, ALL_MASK_BITS, Vec3::ZERO);
    let ctx = || GhostUnpackContext::detached(CompressionPoint::new(Vec3::ZERO), true);
    let err = SceneObject::default().unpack_update(&mut ctx(), &mut BitReader::new(&bytes)).unwrap_err();
    assert!(matches!(err, GhostError::BadUpdate(_)), "{err}");
    assert!(legacy_unpack(&mut SceneObject::default(), &ctx(), &mut BitReader::new(&bytes)).is_err());
    let (bytes, _) = pack(&SceneObject::new(3, Vec3::ONE), true, ALL_MASK_BITS, Vec3::ZERO);
    for cut in 0..bytes.len() {
        assert!(
            SceneObject::default().unpack_update(&mut ctx(), &mut BitReader::new(&bytes[..cut])).is_err()
        );
    }
}

/// A mount the client does not hold yet goes as "none" and stays to send; set and cleared,
/// it marks its group dirty; a rider depends on its mount.
#[test]
fn mount_waits_for_its_ghost_and_marks_its_group() {
    let mut o = SceneObject::new(3, Vec3::ZERO);
    let v0 = o.state_mask().version();
    o.set_mount(Some(Mount { object: ObjectId(9), node: 2 }));
    assert_eq!(o.state_mask().changed_since(v0), MOUNT_MASK);
    let mut deps = Vec::new();
    o.dependencies(&mut deps);
    assert_eq!(deps, [ObjectId(9)]);
    let mut ctx = GhostPackContext::detached(CompressionPoint::new(Vec3::ZERO), false);
    let mut w = BitWriter::new();
    assert_eq!(o.pack_update(&mut ctx, MOUNT_MASK, &mut w), MOUNT_MASK, "not held yet: send again");
    assert_eq!(w.bit_position(), 6, "four empty groups, the mount group, no mount");
    let v1 = o.state_mask().version();
    o.set_mount(Some(Mount { object: ObjectId(9), node: 2 }));
    assert_eq!(o.state_mask().version(), v1, "the same mount changes nothing");
    o.set_mount(None);
    assert_eq!(o.state_mask().changed_since(v1), MOUNT_MASK);
    deps.clear();
    o.dependencies(&mut deps);
    assert!(deps.is_empty());
    let mut w = BitWriter::new();
    assert_eq!(o.pack_update(&mut ctx, MOUNT_MASK, &mut w), 0);
}

/// Removing a mount from the world unseats its riders (marking them dirty), so none points
/// at an object that is gone; a client dropping a mount's ghost does the same to its ghosts.
#[test]
fn a_removed_mount_leaves_no_rider_pointing_at_it() {
    let mut w = SceneWorld::new(100.0);
    let car = w.add(SceneObject::new(1, Vec3::ZERO));
    let rider = w.add(SceneObject::new(2, Vec3::ZERO));
    let other = w.add(SceneObject::new(2, Vec3::ZERO));
    assert!(w.set_mount(rider, Some(Mount { object: ObjectId(car), node: 0 })));
    assert!(w.set_mount(other, Some(Mount { object: ObjectId(car), node: 1 })));
    // Moved to another seat: the world's index of riders follows.
    assert!(w.set_mount(other, Some(Mount { object: ObjectId(rider), node: 1 })));
    assert!(!w.set_mount(999, None));
    let v = w.get(rider).unwrap().state_mask().version();
    w.remove(car);
    assert_eq!(w.get(rider).unwrap().mount(), None);
    assert_eq!(w.get(rider).unwrap().state_mask().changed_since(v), MOUNT_MASK);
    assert_eq!(w.get(other).unwrap().mount(), Some(Mount { object: ObjectId(rider), node: 1 }));
    w.remove(rider);
    assert_eq!(w.get(other).unwrap().mount(), None);

    let mut scene = ClientScene::new();
    let a = scene.add_ghost(Box::new(SceneObject::default()));
    let b = scene.add_ghost(Box::new(SceneObject::default()));
    scene.get_mut(b).unwrap().mount = Some(Mount { object: a, node: 0 });
    scene.remove_ghost(a);
    assert_eq!(scene.get(b).unwrap().mount(), None);
}
