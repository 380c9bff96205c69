//! Process lists: 32 ms ticks, process_after ordering, server whole ticks, client
//! interpolation, moves delivered to the controlled object.

use std::cell::RefCell;
use std::rc::Rc;
use v12_sim::moves::{Move, NULL_MOVE};
use v12_sim::process::{GameBase, ObjectArena, ProcessError, ProcessList, TICK_MS};

type Log = Rc<RefCell<Vec<String>>>;

struct Obj {
    id: u32,
    log: Log,
    ticks: u32,
    x: f32,
}

impl GameBase for Obj {
    fn process_tick(&mut self, mv: Option<&Move>) {
        self.ticks += 1;
        if let Some(m) = mv {
            self.x += m.x();
        }
        self.log.borrow_mut().push(format!("tick {} {}", self.id, mv.map_or(0, |m| m.id)));
    }
    fn interpolate_tick(&mut self, delta: f32) {
        self.log.borrow_mut().push(format!("interp {} {delta}", self.id));
    }
    fn advance_time(&mut self, dt: f32) {
        self.log.borrow_mut().push(format!("advance {} {dt}", self.id));
    }
}

fn arena(ids: &[u32], log: &Log) -> (ObjectArena<Obj>, ProcessList, ProcessList) {
    let mut a = ObjectArena::new();
    let mut s = ProcessList::server();
    let mut c = ProcessList::client();
    for &id in ids {
        a.objects.insert(id, Obj { id, log: log.clone(), ticks: 0, x: 0.0 });
        s.add(id);
        c.add(id);
    }
    (a, s, c)
}

#[test]
fn server_runs_only_whole_ticks() {
    let log = Log::default();
    let (mut a, mut s, _) = arena(&[1], &log);
    assert_eq!(s.advance_server_time(31, &mut a), 0);
    assert_eq!(s.advance_server_time(1, &mut a), 1);
    assert_eq!(s.advance_server_time(100, &mut a), 3);
    assert_eq!(s.ticks(), 4);
    assert_eq!(a.objects[&1].ticks, 4);
    assert!(log.borrow().iter().all(|l| l.starts_with("tick")));
    assert_eq!(TICK_MS, 32);
}

#[test]
fn client_ticks_ahead_and_interpolates_back() {
    let log = Log::default();
    let (mut a, _, mut c) = arena(&[1], &log);
    assert_eq!(c.advance_client_time(8, &mut a), 1);
    assert_eq!(c.last_delta(), 0.75);
    assert_eq!(c.advance_client_time(8, &mut a), 0);
    assert_eq!(c.last_delta(), 0.5);
    assert_eq!(c.advance_client_time(16, &mut a), 0);
    assert_eq!(c.last_delta(), 0.0);
    assert_eq!(c.advance_client_time(40, &mut a), 2);
    assert_eq!(c.last_delta(), 0.75);
    let l = log.borrow();
    assert_eq!(&l[..3], &["tick 1 0", "interp 1 0.75", "advance 1 0.008"]);
}

#[test]
fn process_after_orders_riders_after_mounts() {
    let log = Log::default();
    let (mut a, mut s, _) = arena(&[1, 2, 3, 4], &log);
    // 1 rides 3; 2 rides 1.
    s.process_after(1, 3).unwrap();
    s.process_after(2, 1).unwrap();
    assert_eq!(s.order(), &[3, 1, 2, 4]);
    assert_eq!(s.process_after(3, 2), Err(ProcessError::Cycle { object: 3, after: 2 }));
    assert_eq!(s.process_after(3, 3), Err(ProcessError::Cycle { object: 3, after: 3 }));
    assert_eq!(s.process_after(9, 3), Err(ProcessError::NotInList(9)));
    s.advance_server_time(32, &mut a);
    assert_eq!(*log.borrow(), vec!["tick 3 0", "tick 1 0", "tick 2 0", "tick 4 0"]);
    // Removing the mount frees the rider's constraint; order stays deterministic.
    assert!(s.remove(3));
    assert_eq!(s.order(), &[1, 2, 4]);
    s.clear_process_after(2);
    assert_eq!(s.order(), &[1, 2, 4]);
    assert!(!s.remove(3));
    assert_eq!(s.len(), 3);
}

#[test]
fn moves_reach_their_object_one_per_tick() {
    let log = Log::default();
    let (mut a, mut s, _) = arena(&[1, 2], &log);
    let q = a.moves.entry(2).or_default();
    for id in 1..=3 {
        q.push_back(Move { id, ..Move::from_input(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false; 6]) });
    }
    s.advance_server_time(32 * 4, &mut a);
    assert_eq!(a.objects[&2].x, 3.0);
    assert_eq!(a.objects[&1].x, 0.0);
    let ticks_of_2: Vec<String> = log.borrow().iter().filter(|l| l.starts_with("tick 2")).cloned().collect();
    assert_eq!(ticks_of_2, vec!["tick 2 1", "tick 2 2", "tick 2 3", "tick 2 0"]);
    let _ = NULL_MOVE;
}

#[test]
fn same_inputs_same_results() {
    let run = || {
        let log = Log::default();
        let (mut a, mut s, mut c) = arena(&[5, 3, 9, 1], &log);
        s.process_after(5, 9).unwrap();
        c.process_after(3, 1).unwrap();
        for dt in [5u32, 17, 33, 64, 1, 100] {
            s.advance_server_time(dt, &mut a);
            c.advance_client_time(dt, &mut a);
        }
        log.take()
    };
    assert_eq!(run(), run());
}
