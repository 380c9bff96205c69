//! Built-ins: the scheduler: schedule, cancel, isEventPending, getSimTime, getRealTime.

use super::*;

pub(super) fn register(c: &mut Console) {
    // ---- scheduler ----
    c.register_function("schedule", 4, 0, "schedule(time, refobject|0, command, <arg1...argN>)", |c, a| {
        let delay = a.f64(0).max(0.0) as u64;
        let obj = c.find_object(&a.get(1));
        let f = a.str(2).into_owned();
        let args = a.argv[3..].to_vec();
        Value::Int(i64::from(c.schedule_event(delay, obj, &f, args, false)))
    });
    c.register_function("cancel", 2, 2, "cancel(eventId)", |c, a| {
        c.cancel_event(a.i32(0) as u32);
    });
    c.register_function("isEventPending", 2, 2, "isEventPending(eventId)", |c, a| {
        c.is_event_pending(a.i32(0) as u32)
    });
    c.register_function("getSimTime", 1, 1, "getSimTime()", |c, _a| Value::Int(c.sim_time() as i64));
    c.register_function("getRandom", 1, 3, "getRandom([min,] [max])", |c, a| {
        let r = c.next_random();
        match a.len() {
            0 => Value::Float(f64::from(r) / 4294967296.0),
            n => {
                let (lo, hi) = if n == 1 { (0, a.i32(0)) } else { (a.i32(0), a.i32(1)) };
                let (lo, hi) = (i64::from(lo.min(hi)), i64::from(lo.max(hi)));
                let span = (hi - lo + 1) as u64;
                Value::Int(lo + (u64::from(r) % span) as i64)
            }
        }
    });
    c.register_function("setRandomSeed", 1, 2, "setRandomSeed([seed])", |c, a| {
        let seed = if a.is_empty() { 0 } else { a.get(0).to_i64() as u64 };
        c.set_random_seed(seed);
    });
}
