//! The container database: queries agree with a brute-force scan; deterministic order;
//! the script radius search.

use glam::Vec3;
use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{BufferSink, Console};
use v12_sim::container::{
    Aabb, Container, ContainerConfig, ContainerError, Obstacles, ScriptContainer, StaticGeometry,
    link_client_container, prefer_client_container, register_container_functions, unlink_client_container,
};

fn b(x: f32, y: f32, z: f32, h: f32) -> Aabb {
    Aabb::around(Vec3::new(x, y, z), Vec3::splat(h))
}

proptest! {
#[test]
    fn radius_box_and_ray_match_brute_force(
        objs in proptest::collection::vec((-600f32..600.0, -600f32..600.0, -20f32..20.0, 0.1f32..40.0, 1u32..4), 1..120),
        moves in proptest::collection::vec((0usize..120, -600f32..600.0, -600f32..600.0), 0..40),
        q in (-600f32..600.0, -600f32..600.0, 0f32..300.0, 1u32..4),
        huge in any::<bool>(),
    ) {
        let mut c = Container::new(ContainerConfig { bin_size: 16.0, bins_per_axis: 16, max_bins_spanned: 4 });
        let mut boxes = Vec::new();
        for (i, (x, y, z, h, m)) in objs.iter().enumerate() {
            c.insert(i as u32 + 1, b(*x, *y, *z, *h), *m).unwrap();
            boxes.push((b(*x, *y, *z, *h), *m));
        }
        if huge {
            c.insert(9999, b(0.0, 0.0, 0.0, 5000.0), 1).unwrap();
            boxes.push((b(0.0, 0.0, 0.0, 5000.0), 1));
        }
        for (i, x, y) in moves {
            if i < objs.len() {
                let nb = b(x, y, 0.0, objs[i].3);
                // `place` moves an object in as `update` does (its mask unchanged here).
                if x < 0.0 {
                    c.update(i as u32 + 1, nb).unwrap();
                } else {
                    prop_assert_eq!(c.place(i as u32 + 1, nb, objs[i].4), Ok(false));
                }
                boxes[i].0 = nb;
            }
        }
        let center = Vec3::new(q.0, q.1, 0.0);
        prop_assert_eq!(c.find_radius(center, q.2, q.3), c.find_radius_brute_force(center, q.2, q.3));
        let area = b(q.0, q.1, 0.0, q.2);
        let ids = |i: usize| if huge && i == boxes.len() - 1 { 9999 } else { i as u32 + 1 };
        let mut expect: Vec<u32> = boxes.iter().enumerate()
            .filter(|(_, (bx, m))| m & q.3 != 0 && bx.overlaps(&area)).map(|(i, _)| ids(i)).collect();
        expect.sort();
        prop_assert_eq!(c.find_box(&area, q.3), expect);
        let (s, e) = (center, Vec3::new(-q.0, -q.1, 5.0));
        let best = boxes.iter().enumerate()
            .filter(|(_, (_, m))| m & q.3 != 0)
            // A ray that starts inside a box does not hit it.
            .filter(|(_, (bx, _))| !(s.cmpge(bx.min).all() && s.cmple(bx.max).all()))
            .filter_map(|(i, (bx, _))| bx.intersect_segment(s, e).map(|t| (t, ids(i))))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        prop_assert_eq!(c.cast_ray(s, e, q.3, None).map(|h| (h.t, h.id)), best);
    }
}

proptest! {
/// The obstacles' sweep (which looks only at the boxes whose x span can meet the move) finds
/// the nearest hit a scan of every box finds, wide boxes and the exempt one included.
#[test]
fn obstacle_sweeps_match_a_scan_of_every_box(
    boxes in proptest::collection::vec((-60f32..60.0, -60f32..60.0, 0.2f32..30.0, 0.2f32..3.0), 1..40),
    start in (-60f32..60.0, -60f32..60.0),
    delta in (-20f32..20.0, -20f32..20.0, -1f32..1.0),
    exempt in 0u32..40,
) {
    let mut o = Obstacles::new(None);
    for (i, (x, y, hx, hy)) in boxes.iter().enumerate() {
        o.add_box(i as u32, Vec3::new(*x, *y, 0.0), Vec3::new(*hx, *hy, 1.0));
    }
    o.set_exempt(Some(exempt));
    let half = Vec3::new(0.4, 0.4, 0.9);
    let (c, d) = (Vec3::new(start.0, start.1, 0.9), Vec3::new(delta.0, delta.1, delta.2));
    let scan = boxes.iter().enumerate().filter(|(i, _)| *i as u32 != exempt).filter_map(|(_, (x, y, hx, hy))| {
        let b = Aabb::around(Vec3::new(*x, *y, 1.0), Vec3::new(*hx, *hy, 1.0));
        let g = Aabb { min: b.min - half, max: b.max + half };
        let inside = c.cmpgt(g.min).all() && c.cmplt(g.max).all();
        (!inside).then(|| g.intersect_segment_normal(c, c + d)).flatten()
    }).map(|h| h.0).min_by(f32::total_cmp);
    prop_assert_eq!(o.sweep_box(c, half, d).map(|h| h.0), scan);
}
}

#[test]
fn insert_remove_update_errors() {
    let mut c = Container::default();
    c.insert(1, b(0.0, 0.0, 0.0, 1.0), 1).unwrap();
    assert_eq!(c.insert(1, b(0.0, 0.0, 0.0, 1.0), 1), Err(ContainerError::Duplicate(1)));
    assert_eq!(c.insert(2, Aabb { min: Vec3::NAN, max: Vec3::ZERO }, 1), Err(ContainerError::BadBox(2)));
    assert_eq!(c.update(3, b(0.0, 0.0, 0.0, 1.0)), Err(ContainerError::Unknown(3)));
    c.update(1, b(100.0, 100.0, 0.0, 1.0)).unwrap();
    assert!(c.find_radius(Vec3::ZERO, 10.0, !0).is_empty());
    assert_eq!(c.find_radius(Vec3::new(100.0, 100.0, 0.0), 0.5, !0), vec![(1, 0.0)]);
    // `place` inserts (true), moves and re-masks (false), refuses a bad box.
    assert_eq!(c.place(5, b(50.0, 0.0, 0.0, 1.0), 2), Ok(true));
    assert_eq!(c.place(5, b(50.0, 0.0, 0.0, 1.0), 2), Ok(false));
    assert_eq!(c.place(5, b(-50.0, 0.0, 0.0, 1.0), 4), Ok(false));
    assert_eq!(c.get(5), Some((b(-50.0, 0.0, 0.0, 1.0), 4)));
    assert_eq!(c.find_radius(Vec3::new(-50.0, 0.0, 0.0), 0.5, 4), vec![(5, 0.0)]);
    assert!(c.find_radius(Vec3::new(50.0, 0.0, 0.0), 0.5, !0).is_empty());
    assert_eq!(c.place(5, Aabb { min: Vec3::NAN, max: Vec3::ZERO }, 4), Err(ContainerError::BadBox(5)));
    c.remove(5).unwrap();
    c.remove(1).unwrap();
    assert_eq!(c.remove(1), Err(ContainerError::Unknown(1)));
    assert!(c.is_empty());
    assert!(c.find_radius(Vec3::ZERO, f32::NAN, !0).is_empty());
}

#[test]
fn ray_hits_nearest_and_skips_the_caster() {
    let mut c = Container::default();
    c.insert(1, b(0.0, 0.0, 0.0, 1.0), 1).unwrap();
    c.insert(2, b(10.0, 0.0, 0.0, 1.0), 1).unwrap();
    c.insert(3, b(20.0, 0.0, 0.0, 1.0), 2).unwrap();
    let hit = c.cast_ray(Vec3::new(0.0, 0.0, 0.0), Vec3::new(30.0, 0.0, 0.0), 1, Some(1)).unwrap();
    assert_eq!(hit.id, 2);
    assert!((hit.point.x - 9.0).abs() < 1e-4);
    assert_eq!(c.cast_ray(Vec3::new(12.0, 0.0, 0.0), Vec3::new(30.0, 0.0, 0.0), 2, None).unwrap().id, 3);
    assert!(c.cast_ray(Vec3::new(0.0, 5.0, 0.0), Vec3::new(30.0, 5.0, 0.0), !0, None).is_none());
}

#[test]
fn script_radius_search_nearest_first() {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    let h = Rc::new(RefCell::new(ScriptContainer::default()));
    register_container_functions(&mut con, h.clone());
    {
        let mut s = h.borrow_mut();
        s.container.insert(7, b(5.0, 0.0, 0.0, 0.5), 1).unwrap();
        s.container.insert(3, b(2.0, 0.0, 0.0, 0.5), 1).unwrap();
        s.container.insert(4, b(-2.0, 0.0, 0.0, 0.5), 1).unwrap();
        s.container.insert(9, b(1.0, 1.0, 0.0, 0.5), 2).unwrap();
        s.container.insert(11, b(50.0, 0.0, 0.0, 0.5), 1).unwrap();
    }
    con.eval(
        r#"function listNear() {
              initContainerRadiusSearch("0 0 0", 10, 1);
              while ((%obj = containerSearchNext()) != 0)
                 echo(%obj SPC containerSearchCurrDist());
           }
           listNear();"#,
    )
    .unwrap();
    // Nearest first by the distance to each box; the distance told is to the box's centre.
    assert_eq!(out.stdout(), "3 2\n4 2\n7 5\n");
    out.clear();
    con.eval(r#"initContainerRadiusSearch("0 0 0", 10, 3);"#).unwrap();
    h.borrow_mut().container.remove(9).unwrap();
    con.eval(r#"echo(containerSearchNext() SPC containerSearchNext());"#).unwrap();
    assert_eq!(out.stdout(), "3 4\n");
}

/// V12's two containers: a listen server's scripts ask the server's by default and the client
/// ghosts' with `useClientContainer`; a process without a server asks its client's; searches
/// walk the container they ran in; an unlinked client container is no longer asked.
#[test]
fn queries_reach_the_client_container_when_asked_or_when_there_is_no_server() {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    let server = Rc::new(RefCell::new(ScriptContainer::default()));
    register_container_functions(&mut con, server.clone());
    let client = Rc::new(RefCell::new(ScriptContainer::default()));
    server.borrow_mut().container.insert(10, b(5.0, 0.0, 0.0, 0.5), 1).unwrap();
    client.borrow_mut().container.insert(20, b(5.0, 0.0, 0.0, 0.5), 1).unwrap();
    client.borrow_mut().container.insert(21, b(8.0, 0.0, 0.0, 0.5), 1).unwrap();
    link_client_container(&con, &client);
    con.eval(
        r#"function probe() {
                   echo(firstWord(containerRayCast("0 0 0", "10 0 0", 1)) SPC
                        firstWord(containerRayCast("0 0 0", "10 0 0", 1, 0, true)) SPC
                        containerBoxEmpty(1, "8 0 0", 0.2) SPC containerBoxEmpty(1, "8 0 0", 0.2, -1, -1, true));
                   initContainerRadiusSearch("0 0 0", 20, 1, true);
                   %a = containerSearchNext(); %d = containerSearchCurrDist(); %b = containerSearchNext();
                   initContainerTypeSearch(1);
                   echo(%a SPC %d SPC %b SPC containerSearchNext() SPC containerSearchNext());
           }"#,
    )
    .unwrap();
    let probe = "probe();";
    con.eval(probe).unwrap();
    assert_eq!(out.stdout(), "10 20 1 0\n20 5 21 10 0\n");
    out.clear();
    prefer_client_container(&con, true);
    con.eval(probe).unwrap();
    assert_eq!(out.stdout(), "20 20 0 0\n20 5 21 20 21\n");
    out.clear();
    unlink_client_container(&con, &client);
    con.eval(probe).unwrap();
    assert_eq!(out.stdout(), "10 10 1 1\n10 5 0 10 0\n");
}

#[test]
fn obstacles_stop_a_box_at_another_and_let_overlapping_ones_part() {
    let mut o = Obstacles::new(None);
    let half = Vec3::new(0.4, 0.4, 0.9);
    o.add_box(1, Vec3::new(0.0, 0.0, 0.0), half);
    o.add_box(2, Vec3::new(5.0, 0.0, 0.0), half);
    o.set_exempt(Some(1));
    // Box 1 walking +x meets box 2 when their faces touch: centres 0.8 apart.
    let (t, n) = o.sweep_box(Vec3::new(0.0, 0.0, 0.9), half, Vec3::new(10.0, 0.0, 0.0)).unwrap();
    assert!((t * 10.0 - 4.2).abs() < 1e-4, "{t}");
    assert_eq!(n, Vec3::new(-1.0, 0.0, 0.0));
    // Its own box does not count; walking away from box 2 meets nothing.
    assert!(o.sweep_box(Vec3::new(0.0, 0.0, 0.9), half, Vec3::new(-3.0, 0.0, 0.0)).is_none());
    // Starting inside box 2 (spawned on top of it): free to leave.
    o.set_exempt(None);
    assert!(o.sweep_box(Vec3::new(5.1, 0.0, 0.9), half, Vec3::new(1.0, 0.0, 0.0)).is_none());
    // A ray hits box 2's near face.
    let (t, _) = o.cast_ray(Vec3::new(2.0, 0.0, 1.0), Vec3::new(12.0, 0.0, 1.0)).unwrap();
    assert!((t * 10.0 - 2.6).abs() < 1e-4, "{t}");
}

#[test]
fn player_boxes_block_only_while_players_are_on() {
    let mut o = Obstacles::new(None);
    let half = Vec3::new(0.4, 0.4, 0.9);
    o.add_player_box(7, Vec3::new(5.0, 0.0, 0.0), half);
    o.add_box(8, Vec3::new(0.0, 9.0, 0.0), half);
    let walk = |o: &Obstacles, d: Vec3| o.sweep_box(Vec3::new(0.0, 0.0, 0.9), half, d);
    assert!(walk(&o, Vec3::new(10.0, 0.0, 0.0)).is_some(), "players block by default");
    o.set_players(false);
    assert!(walk(&o, Vec3::new(10.0, 0.0, 0.0)).is_none(), "a mover that walks through players");
    // Other boxes still block, met just before the end of the move (the broad phase keeps a
    // box the move only reaches at its very end).
    let (t, n) = walk(&o, Vec3::new(0.0, 8.3, 0.0)).unwrap();
    assert!((t * 8.3 - 8.2).abs() < 1e-4, "{t}");
    assert_eq!(n, Vec3::new(0.0, -1.0, 0.0));
    // Refilled for the next tick: the old boxes are gone.
    o.clear_boxes();
    o.set_players(true);
    assert!(o.is_empty() && walk(&o, Vec3::new(10.0, 10.0, 0.0)).is_none());
}
