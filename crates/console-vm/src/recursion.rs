//! Self-recursion of small numeric functions (fib's shape) in a loop of its own, with light
//! frames (issue 32, docs/PERFORMANCE.md, twenty-third pass).
//!
//! In the fast loop ([`stack_ops::run`](crate::stack_ops)) a script call writes a whole
//! [`Frame`](crate::stack::Frame) (function, pc, base, namespace, layer, eval scope, objects
//! under construction) and checks the call site's cache (generation, namespace, callee), and a
//! return reads the frame back: about 185 of fib's 330 instructions a call, with the loop's pc
//! and frame base in stack slots (`run` is too large to keep them in registers, and any code
//! added to it moves its register allocation). Here, for a function the compiler marked
//! ([`FuncDef::rec`]: every instruction one of the few below, every call a call of its own
//! name, `N::name` for a function declared in namespace `N`), a call of the function itself pushes a light frame (the caller's pc and base) and a
//! return pops one, with the state (pc, frame base, stack top, budget) in locals. Values here
//! are numbers (text leaves the instruction to the fast loop), so the light frames' slots
//! never hold text and a return clears them without drops.
//!
//! How it is entered, with `run` unchanged: the interpreter never caches the call sites of a
//! marked function, so the fast loop stops at its self-calls; the interpreter resolves the
//! name once (nothing run here can define a function) and hands the call to [`rec`], which
//! makes it and every call under it. A call [`rec`] leaves comes back to the interpreter,
//! which makes it itself.
//!
//! The light frames become real frames ([`FrameStack::push_call`]) whenever the loop leaves
//! (an instruction it does not run, text, the budget, the depth limit, a stack to grow, a
//! return from the frame it was entered in), so the fast loop, the interpreter, the debugger
//! and error messages see what they would have seen had the fast loop run every call: the same
//! frames, pcs and bases, the same budget taken at the same instructions; the instruction at
//! which this loop left is run there whole, with nothing of it done here.

use crate::bytecode::{Arith, FuncDef, MAX_ARGS, NsId, Op, OpCell};
use crate::stack::{FrameStack, VmState};
use crate::stack_ops::{Ctx, Stop};
use crate::value::{Num, Value};
use crate::value::{num_fast, put_num_raw, step_fast, truthy_fast};
use std::rc::Rc;

/// Most light frames at once (their room is kept in `VmState::rec_frames`).
const MAX_LIGHT: usize = 1024;

/// Runs the innermost frame (`func` at `pc`, locals at `base`, whose `base + slot_end` slots
/// the fast loop reserved) in [`run_rec`] with the budget the fast loop would have, and says
/// why it stopped, where, and at which frame base: `Stop::Op` to go on in the fast loop there,
/// or a stop of the fast loop's own (the budget, a breakpoint to re-arm).
pub(crate) fn rec(
    vm: &mut VmState,
    func: &Rc<FuncDef>,
    pc: usize,
    base: usize,
    cx: &Ctx,
    at: (NsId, u32),
) -> (Stop, usize, usize) {
    let mut budget = if cx.plain { vm.budget_left.min(cx.slice) } else { 0 };
    vm.budget_left -= budget;
    // Room for the light frames the depth limit allows (at most `MAX_LIGHT` at once: a deeper
    // call is the fast loop's, and this loop goes on with light frames above it at its next
    // self-call).
    let room = cx.max_depth.saturating_sub(vm.frames.len()).min(MAX_LIGHT);
    if vm.rec_frames.len() < room {
        vm.rec_frames.resize(room, (0, 0));
    }
    let end = run_rec(vm, func, (pc, base), &mut budget, room, at);
    vm.budget_left += budget;
    end
}

/// The light frames made real, oldest first: each one's caller resumes at the pc it saved, and
/// its base is the one the next saved (the innermost's is `fb`). Out of line: once a leave.
#[cold]
#[inline(never)]
fn make_real(
    frames: &mut FrameStack,
    light: &[(usize, usize)],
    func: &Rc<FuncDef>,
    fb: usize,
    at: (NsId, u32),
    new_base: usize,
) {
    for (k, &(ret, _)) in light.iter().enumerate() {
        let base = light.get(k + 1).map_or(fb, |next| next.1);
        frames.push_call(ret, func, base, at.0, at.1, new_base);
    }
}

/// A copy of a number or `""` (`None` for text).
#[inline(always)]
fn plain(v: &Value) -> Option<Value> {
    match *v {
        Value::Int(i) => Some(Value::Int(i)),
        Value::Float(x) => Some(Value::Float(x)),
        Value::Empty => Some(Value::Empty),
        Value::Str(_) => None,
    }
}

/// The loop of [`rec`], with room for `room` light frames (`(caller's pc, caller's base)`
/// each, in `VmState::rec_frames`).
#[inline(never)]
#[allow(clippy::too_many_lines, reason = "the recursion loop: one match, kept whole for speed")]
fn run_rec(
    vm: &mut VmState,
    func: &Rc<FuncDef>,
    (mut p, mut fb): (usize, usize),
    budget: &mut u64,
    room: usize,
    at: (NsId, u32),
) -> (Stop, usize, usize) {
    let running: &FuncDef = func;
    let code: &[OpCell] = running.code.with_sentinel();
    // `code` ends with the sentinel, which this loop leaves to the fast loop.
    let end = code.len() - 1;
    let slot_end = running.code.slot_end() as usize;
    let (nparams, nlocals) = (running.nparams as usize, running.nlocals as usize);
    let cost = running.call_cost();
    let VmState { stack, frames, budget_left, new_stack, rec_frames, .. } = vm;
    // The objects under construction (none is made here) when the light frames start.
    let new_base = new_stack.len();
    let light: &mut [(usize, usize)] = rec_frames.get_mut(..room).unwrap_or_default();
    // Light frames running.
    let mut ln = 0;
    let mut st = stack.tight();
    let mut b = *budget;
    // Operands live above the frame's locals, as in `run_tight`: every local the code names
    // is below the top (checked on entry; a call's new frame holds `nlocals >= slot_end`).
    let mut floor = fb + slot_end;
    macro_rules! leave {
        ($why:expr, $pc:expr) => {{
            let pc = $pc;
            let sp = st.top();
            stack.set_top_from(sp);
            if ln > 0 {
                make_real(frames, light.get(..ln).unwrap_or_default(), func, fb, at, new_base);
            }
            *budget = b;
            return ($why, pc, fb);
        }};
    }
    // A call's checks of the depth and the argument count are `ln < room` and
    // `argc <= nparams` (the compiler takes at most `MAX_ARGS` parameters): other code, which
    // no compiler makes, runs in the fast loop.
    if nlocals < slot_end || nparams > MAX_ARGS || !st.fits(floor, 0, 0) {
        leave!(Stop::Op, p);
    }
    // Leave the instruction (nothing changed yet) to the fast loop.
    macro_rules! out {
        () => {
            leave!(Stop::Op, p - 1)
        };
    }
    macro_rules! fits {
        ($pops:expr, $pushes:expr) => {
            if !st.fits(floor, $pops, $pushes) {
                out!()
            }
        };
    }
    macro_rules! slot {
        ($s:expr) => {{
            #[allow(unsafe_code)]
            // SAFETY: `$s` is a slot named by an instruction of `running`, so below its
            // `slot_end`; the fast loop reserved `fb + slot_end` slots for the frame it handed
            // over, and a call here makes a frame only where `start + nlocals` slots (and
            // `nlocals >= slot_end`) are in the view's slice.
            let v = unsafe { st.slot(fb + $s as usize) };
            v
        }};
    }
    macro_rules! slot_mut {
        ($s:expr) => {{
            #[allow(unsafe_code)]
            // SAFETY: as in `slot!`.
            let v = unsafe { st.slot_mut(fb + $s as usize) };
            v
        }};
    }
    use crate::stack_ops::{f64_or_out as f, i32_or_out as i, num_or_out as n};
    macro_rules! peek {
        ($k:expr) => {
            match st.peek($k) {
                Some(v) => v,
                None => out!(),
            }
        };
    }
    macro_rules! jump_back {
        ($t:expr, $cost:expr) => {{
            let (t, cost) = ($t, $cost);
            if b < cost {
                if *budget_left < cost {
                    leave!(Stop::Budget, p);
                }
                *budget_left -= cost;
                leave!(Stop::Rearm, t);
            }
            b -= cost;
            if t > end {
                leave!(Stop::Op, end);
            }
            p = t;
        }};
    }
    macro_rules! jump_to {
        ($t:expr) => {{
            let t = $t as usize;
            if t < p {
                jump_back!(t, (p - t) as u64);
            } else {
                if t > end {
                    leave!(Stop::Op, end);
                }
                p = t;
            }
        }};
    }
    macro_rules! binary {
        ($read:ident, |$x:ident, $y:ident| $e:expr) => {{
            fits!(2, 0);
            let $y = $read!(peek!(0));
            let $x = $read!(peek!(1));
            let r = $e;
            st.pop_plain();
            if let Some(top) = st.last_mut() {
                put_num_raw(top, r);
            }
        }};
    }
    macro_rules! cmp_f {
        ($op:tt) => {
            binary!(f, |x, y| Num::Int((x $op y) as i64))
        };
    }
    // A call of this function with `argc` arguments on the stack (the instruction at `p - 1`,
    // naming `$name`), as the fast loop's `enter_self` makes it: its name resolves to this
    // function (`at`: the interpreter resolved it when it handed the loop over, and nothing
    // here can define a function), and the depth, budget and argument count are checked as
    // there (more arguments than parameters, which the fast loop drops, are left to it); the
    // new frame must fit in the stack's slots, and arguments from the frame the loop was
    // entered in must be numbers (light frames' slots never hold text). Anything else leaves
    // the call.
    macro_rules! call {
        ($name:expr, $argc:expr) => {{
            if $name != running.name {
                out!()
            }
            let argc = $argc as usize;
            if ln >= light.len() || b < cost || argc > nparams {
                out!()
            }
            let sp = st.top();
            let Some(start) = sp.checked_sub(argc) else { out!() };
            if start < floor || st.len() - start < nlocals {
                out!()
            }
            if ln == 0 && !st.plain_from(start) {
                out!()
            }
            b -= cost;
            // Missing arguments and the other locals are the `Empty` slots above the top.
            st.set_top(start + nlocals);
            if let Some(f) = light.get_mut(ln) {
                *f = (p, fb);
            }
            ln += 1;
            fb = start;
            floor = fb + slot_end;
            p = 0;
        }};
    }
    loop {
        debug_assert!(p <= end && end < code.len(), "fetch at {p} past the sentinel {end}");
        // SAFETY: `p <= end` always: it starts so (the fast loop's pc, at or below its `end`,
        // which is this `end`), moves by one past an instruction below `end`, jumps past `end`
        // leave instead, a call goes to 0 and a return to a pc that was `p` here.
        #[allow(unsafe_code)]
        let cell = unsafe { code.get_unchecked(p) };
        // SAFETY: `cell` points into `running.code`, which outlives this loop; nothing writes
        // code while it runs (no instruction here updates a site), and the reference is used
        // only by the `match`, which copies the operands out.
        #[allow(unsafe_code)]
        let op: &Op = unsafe { &*cell.as_ptr() };
        p += 1;
        match *op {
            Op::Int(i) => {
                fits!(0, 1);
                st.push_plain(Value::Int(i));
            }
            Op::Float(x) => {
                fits!(0, 1);
                st.push_plain(Value::Float(x));
            }
            Op::Pop => {
                fits!(1, 0);
                if let Value::Str(_) = peek!(0) {
                    out!()
                }
                st.pop_plain();
            }
            Op::LoadLocal(s) => {
                fits!(0, 1);
                let Some(v) = num_fast(slot!(s)) else { out!() };
                st.push_num_plain(v);
            }
            Op::StoreLocal(s, keep) => {
                fits!(1, 0);
                let Some(v) = num_fast(peek!(0)) else { out!() };
                if let Value::Str(_) = slot!(s) {
                    out!()
                }
                put_num_raw(slot_mut!(s), v);
                if !keep {
                    st.pop_plain();
                }
            }
            Op::IncLocal(s, d, keep) => {
                fits!(0, 1);
                let slot = slot_mut!(s);
                let Some(x) = step_fast(slot, i32::from(d)) else { out!() };
                let nv = if let Value::Int(i) = slot { Value::Int(*i) } else { Value::Float(x) };
                if keep {
                    st.push_plain(nv);
                }
            }
            Op::Neg => {
                fits!(1, 0);
                let r = match *peek!(0) {
                    Value::Int(i) => Num::Int(i.wrapping_neg()),
                    Value::Float(x) => Num::Float(-x),
                    _ => out!(),
                };
                if let Some(top) = st.last_mut() {
                    put_num_raw(top, r);
                }
            }
            Op::Add => binary!(n, |x, y| Arith::Add.num(x, y)),
            Op::Sub => binary!(n, |x, y| Arith::Sub.num(x, y)),
            Op::Mul => binary!(n, |x, y| Arith::Mul.num(x, y)),
            Op::Div => binary!(f, |x, y| Num::Float(x / y)),
            Op::Mod => binary!(i, |x, y| Num::Int(i64::from(if y == 0 { 0 } else { x.wrapping_rem(y) }))),
            Op::Lt => cmp_f!(<),
            Op::Le => cmp_f!(<=),
            Op::Gt => cmp_f!(>),
            Op::Ge => cmp_f!(>=),
            Op::Eq => cmp_f!(==),
            Op::Ne => cmp_f!(!=),
            Op::Jump(t) => jump_to!(t),
            Op::JumpIfFalse(t) => {
                fits!(1, 0);
                let Some(c) = truthy_fast(peek!(0)) else { out!() };
                st.pop_plain();
                if !c {
                    jump_to!(t);
                }
            }
            Op::JumpIfTrue(t) => {
                fits!(1, 0);
                let Some(c) = truthy_fast(peek!(0)) else { out!() };
                st.pop_plain();
                if c {
                    jump_to!(t);
                }
            }
            Op::JumpCmp(c, when, t) => {
                fits!(2, 0);
                let y = f!(peek!(0));
                let x = f!(peek!(1));
                st.pop_plain();
                st.pop_plain();
                if c.test(x, y) == when {
                    jump_to!(t);
                }
            }
            Op::JumpCmpLI(c, when, a, k, t) => {
                let x = slot!(a);
                let r = if let Value::Int(x) = *x {
                    c.test_int(x, i64::from(k))
                } else {
                    c.test(f!(x), f64::from(k))
                };
                if r == when {
                    jump_to!(t);
                }
            }
            Op::JumpCmpLL(c, when, a, y, t) => {
                if c.test(f!(slot!(a)), f!(slot!(y))) == when {
                    jump_to!(t);
                }
            }
            Op::ArithLL(ar, a, y) => {
                fits!(0, 1);
                let r = ar.num(n!(slot!(a)), n!(slot!(y)));
                st.push_num_plain(r);
            }
            Op::ArithLI(ar, a, k) => {
                fits!(0, 1);
                let r = ar.num(n!(slot!(a)), Num::Int(i64::from(k)));
                st.push_num_plain(r);
            }
            Op::ArithLLStore(ar, a, y, d) => {
                let r = ar.num(n!(slot!(a)), n!(slot!(y)));
                if let Value::Str(_) = slot!(d) {
                    out!()
                }
                put_num_raw(slot_mut!(d), r);
            }
            Op::ArithLIStore(ar, a, k, d) => {
                let r = ar.num(n!(slot!(a)), Num::Int(i64::from(k)));
                if let Value::Str(_) = slot!(d) {
                    out!()
                }
                put_num_raw(slot_mut!(d), r);
            }
            Op::IncJumpCmpLL { s, d, c, b: y, t } => {
                f!(slot!(y));
                let Some(x) = step_fast(slot_mut!(s), i32::from(d)) else { out!() };
                if c.test(x, f!(slot!(y))) {
                    jump_to!(t);
                }
            }
            Op::IntLL(io, a, y) => {
                fits!(0, 1);
                let r = io.apply(i!(slot!(a)), i!(slot!(y)));
                st.push_plain(Value::Int(i64::from(r)));
            }
            Op::IntLI(io, a, k) => {
                fits!(0, 1);
                let r = io.apply(i!(slot!(a)), k);
                st.push_plain(Value::Int(i64::from(r)));
            }
            Op::JumpCmpSI(c, when, k, t) => {
                fits!(1, 0);
                let x = f!(peek!(0));
                st.pop_plain();
                if c.test(x, f64::from(k)) == when {
                    jump_to!(t);
                }
            }
            Op::ArithSL(ar, y) => {
                fits!(1, 0);
                let r = ar.num(n!(peek!(0)), n!(slot!(y)));
                if let Some(top) = st.last_mut() {
                    put_num_raw(top, r);
                }
            }
            Op::ArithSI(ar, k) => {
                fits!(1, 0);
                let r = ar.num(n!(peek!(0)), Num::Int(i64::from(k)));
                if let Some(top) = st.last_mut() {
                    put_num_raw(top, r);
                }
            }
            Op::ArithLS(ar, a) => {
                fits!(1, 0);
                let r = ar.num(n!(slot!(a)), n!(peek!(0)));
                if let Some(top) = st.last_mut() {
                    put_num_raw(top, r);
                }
            }
            // The argument, then the `Call` after it in the same dispatch, as the fast loop
            // does (a call left to it leaves the argument pushed and its pc at the `Call`).
            Op::ArithLICall(ar, a, k) => {
                fits!(0, 1);
                let r = ar.num(n!(slot!(a)), Num::Int(i64::from(k)));
                st.push_num_plain(r);
                // SAFETY: `p <= end` (one past an instruction below `end`), and `code` has
                // `end + 1` cells; read in place as the fetch above does.
                #[allow(unsafe_code)]
                let next: &Op = unsafe { &*code.get_unchecked(p).as_ptr() };
                if let Op::Call(name, argc) = *next {
                    p += 1;
                    call!(name, argc);
                }
            }
            Op::Call(name, argc) => call!(name, argc),
            Op::CallNs(ns, name, argc) => {
                if running.ns != Some(ns) {
                    out!()
                }
                call!(name, argc)
            }
            // A return from a light frame into its caller: the value (a number or `""`: the
            // frame's slots hold nothing else) to the frame's base, the rest of the frame
            // emptied. A return from the frame this loop was entered in is the fast loop's.
            which @ (Op::Return | Op::ReturnEmpty | Op::ReturnLocal(_)) => {
                let Some(&(ret, caller_base)) = ln.checked_sub(1).and_then(|i| light.get(i)) else { out!() };
                let v = match which {
                    Op::Return => {
                        fits!(1, 0);
                        plain(peek!(0))
                    }
                    Op::ReturnLocal(s) => plain(slot!(s)),
                    _ => Some(Value::Empty),
                };
                let Some(v) = v else { out!() };
                st.clear_to(fb, v);
                ln -= 1;
                p = ret;
                fb = caller_base;
                floor = fb + slot_end;
            }
            _ => out!(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compiler::compile_source;
    use crate::{BufferSink, Console};

    /// Recursive functions of the shapes `rec` runs, against the same functions with their
    /// mark cleared (every call through the fast loop): numbers, text and fractional
    /// arguments, fewer and more arguments than parameters, loops and locals past the
    /// parameters inside the recursion, `return;`, integers that become doubles, the depth
    /// limit and the budget stop (their messages and what runs after them), a function
    /// redefined in the middle of its recursion (not marked: it calls `eval`), text passed
    /// down the recursion (every light call left to the fast loop), and a function handed
    /// over for one call at a time until its mark goes.
    #[test]
    fn self_calls_with_light_frames_match_the_fast_loop() {
        const SRC: &str = "function fib(%n) { if (%n < 2) return %n; return fib(%n - 1) + fib(%n - 2); }\n\
             function ack(%m, %n) { if (%m == 0) return %n + 1; if (%n == 0) return ack(%m - 1, 1); return ack(%m - 1, ack(%m, %n - 1)); }\n\
             function sum(%n, %acc) { if (%n <= 0) return %acc; return sum(%n - 1, %acc + %n); }\n\
             function loopy(%n) { %t = 0; for (%i = 0; %i < %n; %i++) %t = %t + %i; if (%n > 0) %t = %t + loopy(%n - 1); return %t; }\n\
             function half(%x) { if (%x < 1) return %x; return half(%x / 2) + 1; }\n\
             function big(%n) { if (%n <= 0) return 1; return big(%n - 1) * 1000; }\n\
             function none(%n) { if (%n > 0) none(%n - 1); return; }\n\
             function deep(%n) { if (%n <= 0) return 0; return 1 + deep(%n - 1); }\n\
             function burn(%n) { if (%n <= 0) return 0; return burn(%n - 1) + burn(%n - 1); }\n\
             function modp(%n) { if (%n % 7 == 3) return %n; return modp(%n + 1); }\n\
             function cmp(%n) { if (%n <= -3) return 0; return (%n < 0) + (%n >= 1) * 2 + cmp(%n - 1); }\n\
             function redef(%n) { if (%n == 3) eval(\"function redef(%n) { return 100; }\"); if (%n <= 0) return 0; return %n + redef(%n - 1); }\n\
             function txt(%n, %s) { if (%n <= 0) return %s; return txt(%n - 1, %s) + 1; }\n\
             function tak(%x, %y, %z) { if (%y >= %x) return %z; return tak(tak(%x - 1, %y, %z), tak(%y - 1, %z, %x), tak(%z - 1, %x, %y)); }\n\
             function gcd(%a, %b) { if (%b == 0) return %a; return gcd(%b, %a % %b); }\n\
             function Math::fib(%n) { if (%n < 2) return %n; return Math::fib(%n - 1) + Math::fib(%n - 2); }\n\
             function Math::deep(%n) { if (%n <= 0) return 0; return 1 + Math::deep(%n - 1); }\n\
             function shal(%n) { if (%n <= 0) return 0; return 1 + shal(%n - 1); }\n\
             function shalLoop(%k) { %t = 0; for (%i = 0; %i < %k; %i++) %t += shal(1); return %t + shal(30); }";
        const CALLS: &[&str] = &[
            "fib(15)",
            "fib(\"12\")",
            "fib(7.5)",
            "fib(\"3 apples\")",
            "fib(-4)",
            "ack(2, 3)",
            "sum(10, 0)",
            "sum(5)",
            "sum(3, 1, 2)",
            "loopy(6)",
            "half(1000)",
            "big(8)",
            "none(5)",
            "deep(150)",
            "deep(250)",
            "fib(12)",
            "burn(40)",
            "fib(10)",
            "modp(5)",
            "cmp(4)",
            "redef(6)",
            "redef(6)",
            "txt(10, \"5\")",
            "txt(4, \"x\")",
            "tak(12, 8, 4)",
            "gcd(1071, 462)",
            "gcd(\"1071\", 0.5)",
            "Math::fib(14)",
            "Math::fib(\"6\")",
            "Math::deep(120)",
            "Math::deep(230)",
            "shalLoop(40)",
            "shal(12)",
        ];
        let run = |light: bool| {
            let mut con = Console::new();
            let out = BufferSink::new();
            con.set_output(Box::new(out.clone()));
            con.config.max_call_depth = 200;
            con.set_instruction_budget(300_000);
            let main = compile_source(SRC, "t.cs", &mut con.names).expect("compiles");
            for f in &main.decls {
                let name = con.names.text(f.name).to_string();
                // `redef` calls `eval`, `shalLoop` another function, the others only themselves.
                assert_eq!(f.rec.get() != 0, !matches!(name.as_str(), "redef" | "shalLoop"), "{name}");
                if !light {
                    f.rec.set(0);
                }
            }
            let decls = main.decls.clone();
            con.run_toplevel(main, None).expect("declares");
            let mut r = Vec::new();
            for call in CALLS {
                let v = con.eval(&format!("return {call};")).map(|v| v.to_string()).unwrap_or_default();
                r.push(format!("{call} = {v}"));
            }
            if light {
                // Deep recursion keeps its mark; `shal(1)` handed over again and again (one
                // call's work each time) lost it: its calls are the fast loop's since.
                let mark = |n: &str| decls.iter().find(|f| con.names.text(f.name) == n).map(|f| f.rec.get());
                assert_eq!(mark("fib"), Some(1));
                assert_eq!(mark("shal"), Some(0));
            }
            (r, out.all())
        };
        let light = run(true);
        let plain = run(false);
        assert_eq!(light.0, plain.0);
        assert_eq!(light.1, plain.1);
        assert!(light.1.contains("call depth exceeds 200"), "{}", light.1);
        assert!(light.1.contains("instruction budget exhausted"), "{}", light.1);
        assert!(light.0.iter().any(|r| r == "fib(15) = 610"), "{:?}", light.0);
    }
}
