//! The instructions that need nothing of the console but the VM's own state run in their own
//! small loop: constants, locals, arithmetic, comparisons, jumps, and script-to-script calls
//! and returns through a warm call-site cache. The interpreter calls it and runs the
//! instruction it stops at (natives, methods, globals, fields, objects, strings that can fail,
//! the debugger, anything unusual about a call or return).
//!
//! Why a loop apart: in the one large interpreter function the compiler kept the hot numbers
//! (a sum in a loop, the stack top) in memory between instructions, a store and a reload on
//! every arithmetic step; in a small function they stay in registers (docs/PERFORMANCE.md).

use crate::bytecode::{
    Arith, ELEM_FROM_STACK, FieldOperand, FuncDef, GLOBAL_NS, MAX_ARGS, NsId, Op, OpCell, ScriptCallee, Sep,
};
use crate::bytecode::{GStore, NO_HINT};
use crate::elements::{ElemNames, ElemStore, direct_index};
use crate::intern::Name;
use crate::object::{
    ClassRec, ObjectStore, SimObject, arith_field_hint, field_ref_hint, field_ref_hint_inline, number_id,
    set_field_hint, set_field_hint_inline,
};
use crate::stack::VmState;
use crate::value::assign;
use crate::value::{Num, Value};
use std::cell::Cell;
use std::rc::Rc;

/// Most local slots a function's code may name and still run in [`run`] (which reserves
/// them on the operand stack above the frame's base); no compiled function comes near it.
const MAX_FAST_SLOTS: usize = 1 << 16;

/// Why [`run`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// At an instruction the interpreter runs (`pc` is its index; past the end: return).
    Op,
    /// A backward jump was taken while a stepped-over breakpoint waits to be put back:
    /// re-arm it and go on (`pc` is the jump's target).
    Rearm,
    /// A backward jump found the instruction budget spent (`pc` is past the jump).
    Budget,
    /// A backward jump went to the head of a tight loop (`pc`): run it with [`tight`].
    Tight,
}

/// The console's data the loop reads and writes: global array elements, objects (a method
/// call's receiver, fields), and the names of elements of field arrays made so far.
pub(crate) struct Data<'a> {
    pub(crate) elems: &'a mut ElemStore,
    pub(crate) objects: &'a mut ObjectStore,
    /// `(base, i)` → the name `base` + `i` (`%obj.v[%i]` is the field named so).
    pub(crate) elem_names: &'a ElemNames,
    /// Row bases of two-index arrays made so far: `(base, r)` → the name `base` + `r` + `_`.
    pub(crate) rows: &'a Rows,
    /// Global variables by name (`Console::globals`).
    pub(crate) globals: &'a mut Vec<Value>,
}

/// Row bases of two-index arrays: `(base, r)` → the name `base` + `r` + `_`, with the last
/// row found remembered (an inner loop over `%j` in `$a[%i, %j]` stays on one row, so it
/// finds the row without hashing; the hash lookup was a third of the two-index program).
#[derive(Debug, Default)]
pub(crate) struct Rows {
    map: hashbrown::HashMap<(Name, u32), Name, crate::intern::FastBuild>,
    last: Cell<Option<((Name, u32), Name)>>,
}

impl Rows {
    /// The row base of `(base, r)`, if made.
    #[inline]
    pub(crate) fn get(&self, base: Name, r: u32) -> Option<Name> {
        if let Some((k, row)) = self.last.get()
            && k == (base, r)
        {
            return Some(row);
        }
        let row = *self.map.get(&(base, r))?;
        self.last.set(Some(((base, r), row)));
        Some(row)
    }

    /// The row base of `(base, r)` if it is the row found last (no lookup).
    #[inline(always)]
    pub(crate) fn get_last(&self, base: Name, r: u32) -> Option<Name> {
        match self.last.get() {
            Some((k, row)) if k == (base, r) => Some(row),
            _ => None,
        }
    }

    /// Remembers the row base of `(base, r)`.
    pub(crate) fn insert(&mut self, base: Name, r: u32, row: Name) {
        self.map.insert((base, r), row);
        self.last.set(Some(((base, r), row)));
    }
}

/// What the loop needs to know of the console, fixed for one call.
pub(crate) struct Ctx {
    /// The namespaces' generation (call-site cache entries of another are stale).
    pub(crate) generation: u64,
    /// The console's call-depth limit.
    pub(crate) max_depth: usize,
    /// Frames below this one belong to the caller of the interpreter: never returned into here.
    pub(crate) entry: usize,
    /// No trace and no breakpoint waiting to be re-armed: calls and returns may run here.
    pub(crate) plain: bool,
    /// Most budget the loop takes at once: with a debugger open the rest stays in the
    /// console, so the backward jump that finds the slice spent stops (`Stop::Rearm`) and
    /// the interpreter serves the debugger (a `pause` in a long call) before going on.
    pub(crate) slice: u64,
}

// The interpreter loops start on a 64-byte line whatever else the program holds: each
// lives in an ELF section of its own (`link_section` above), which this gives a 64-byte
// alignment (an empty `.balign 64` at its start; the assembler raises the section's
// alignment to it, the linker keeps it). Without it their offset in a 64-byte line moved with
// the size of every function linked before them, and with it the time of the tight loops by
// up to 15 % with their code unchanged (docs/PERFORMANCE.md, sixteenth to twenty-second
// passes). A layout hint only: no code, no data. It needs the directives and the functions
// in one object file: the release profile's one codegen unit for this crate (`Cargo.toml`);
// in a debug build, split into many units, the functions may stay 16-aligned.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[allow(unsafe_code)]
mod loop_lines {
    // SAFETY: only section directives and an alignment: no instruction, no symbol.
    std::arch::global_asm!(
        ".pushsection .text.hot.v12_vm_run,\"ax\",@progbits",
        ".balign 64",
        ".popsection",
        ".pushsection .text.hot.v12_vm_tight,\"ax\",@progbits",
        ".balign 64",
        ".popsection",
        ".pushsection .text.hot.v12_vm_tight_g,\"ax\",@progbits",
        ".balign 64",
        ".popsection",
        ".pushsection .text.hot.v12_vm_tight_r,\"ax\",@progbits",
        ".balign 64",
        ".popsection",
        ".pushsection .text.hot.v12_vm_tight_l,\"ax\",@progbits",
        ".balign 64",
        ".popsection",
    );
}

/// Runs from `pc` in the innermost frame (`func`, locals at `base`) until an instruction
/// the interpreter must run, and returns why with the pc and frame base reached (calls and
/// returns here move `func` along). A backward jump pays its distance from the budget (a loop
/// pays for its body each round; `IncJumpLtLI` carries its distance), a call its body's
/// length up to 64, as in the interpreter.
#[inline(never)]
#[cfg_attr(all(target_os = "linux", target_arch = "x86_64"), allow(unsafe_code))]
// SAFETY: a section of its own for this function alone (see `pin_64!`), named nowhere else.
#[cfg_attr(all(target_os = "linux", target_arch = "x86_64"), unsafe(link_section = ".text.hot.v12_vm_run"))]
#[allow(clippy::too_many_lines, reason = "the stack-only interpreter loop: one match, kept whole for speed")]
pub(crate) fn run(
    vm: &mut VmState,
    func: &mut Rc<FuncDef>,
    pc: usize,
    base: usize,
    cx: &Ctx,
    data: Data<'_>,
) -> (Stop, usize, usize) {
    let Data { elems, objects, elem_names, rows, globals } = data;
    // The frame's base, the pc and the budget are kept in locals (registers) while the loop
    // runs and handed back when it stops. When a breakpoint waits to be re-armed the budget
    // stays in `vm.budget_left` and the local one is 0, so the first backward jump takes the
    // slow path, which re-arms: the hot path checks the local budget only.
    let mut fb = base;
    let mut p = pc;
    // The running code's length: the pc of its sentinel (set by the outer loop below).
    let mut end;
    let mut budget = if cx.plain { vm.budget_left.min(cx.slice) } else { 0 };
    vm.budget_left -= budget;
    macro_rules! stop {
        ($why:expr, $at:expr) => {{
            vm.budget_left += budget;
            return ($why, $at, fb);
        }};
    }
    // A local's slot, read or written without a bounds check. Every slot an instruction of
    // the running function names is below its code's `slot_end` (`Code::new` computed it from
    // every instruction; `Code::set` refuses an instruction past it), and the outer loop below
    // reserved `fb + slot_end` slots for the function and frame base the inner loop runs
    // (both change only by breaking out to it).
    macro_rules! slot {
        ($s:expr) => {{
            #[allow(unsafe_code)]
            // SAFETY: `$s` is a slot named by an instruction of `running`, so below its
            // `slot_end`, and `fb + slot_end` slots were reserved for this frame (above).
            let v = unsafe { vm.stack.slot(fb + $s as usize) };
            v
        }};
    }
    macro_rules! slot_mut {
        ($s:expr) => {{
            #[allow(unsafe_code)]
            // SAFETY: as in `slot!`.
            let v = unsafe { vm.stack.slot_mut(fb + $s as usize) };
            v
        }};
    }
    // A field site's helper finds the field (`None`: the interpreter runs the op) and says
    // where it lies; the site's instruction is rewritten with that place when it moved, so the
    // next run looks there first.
    macro_rules! field_site {
        ($cell:expr, $find:expr, $hint:expr) => {{
            let Some(found) = $find else { stop!(Stop::Op, p - 1) };
            if found != $hint {
                $cell.set_hint(found);
            }
        }};
    }
    macro_rules! local {
        ($s:expr) => {
            slot!($s).to_f64()
        };
    }
    macro_rules! local_n {
        ($s:expr) => {
            Num::of(Some(slot!($s)))
        };
    }
    macro_rules! local_i {
        ($s:expr) => {
            slot!($s).to_i32()
        };
    }
    macro_rules! bin_f {
        ($op:tt) => {{
            let b = vm.stack.pop_f64();
            if let Some(a) = vm.stack.last_mut() {
                let r = a.to_f64() $op b;
                a.set_f64(r);
            }
        }};
    }
    // `+ - *` on the stack: integers stay integers where `Arith::int_apply` allows.
    macro_rules! bin_n {
        ($ar:expr) => {{
            let b = vm.stack.pop_num();
            if let Some(a) = vm.stack.last_mut() {
                let r = $ar.num(Num::of(Some(a)), b);
                a.set_num(r);
            }
        }};
    }
    macro_rules! cmp_f {
        ($op:tt) => {{
            let b = vm.stack.pop_f64();
            if let Some(a) = vm.stack.last_mut() {
                let r = (a.to_f64() $op b) as i64;
                a.set_int(r);
            }
        }};
    }
    macro_rules! bin_i {
        ($e:expr) => {{
            let b = vm.stack.pop_i32();
            let f: fn(i32, i32) -> i32 = $e;
            match vm.stack.last_mut() {
                Some(a) => {
                    let r = f(a.to_i32(), b);
                    a.set_int(i64::from(r));
                }
                None => vm.stack.push(Value::Int(i64::from(f(0, b)))),
            }
        }};
    }
    // A script-to-script call through the cache of the call site in `$f`: enter the callee
    // (going on with it at the outer loop, `$outer`) or leave the call to the interpreter.
    // A call of the running function itself (recursion) keeps `func`, its code, `end` and
    // `slot_end` as they are: it leaves only the inner loop (`break`), for the middle one,
    // which reserves the new frame's slots (a call starts at pc 0, at or below `end`).
    // `pure`: a site whose cache holds a Rust function registered as pure (`getWord`,
    // `strlen`, `mFloor`, ...) calls it here, in place, instead of stopping for the
    // interpreter's call (a global call's site only).
    macro_rules! call {
        ($f:expr, $ns:expr, $argc:expr, $outer:lifetime) => {
            call!($f, $ns, $argc, $outer, false)
        };
        ($f:expr, $ns:expr, $argc:expr, $outer:lifetime, $pure:expr) => {{
            let mut pure = None;
            match $f.cached_call_from(p - 1, cx.generation, $ns, std::ptr::from_ref($f), &mut pure) {
                Ok((ns, layer)) => {
                    let Some(start) =
                        enter_self(vm, &mut budget, func, (ns, layer), $argc as usize, p, cx.max_depth)
                    else {
                        stop!(Stop::Op, p - 1)
                    };
                    fb = start;
                    p = 0;
                    break;
                }
                Err(None) if $pure => {
                    let argc = $argc as usize;
                    let Some(pure) = pure.filter(|c: &crate::bytecode::PureCall| c.fits(argc)) else {
                        stop!(Stop::Op, p - 1)
                    };
                    let VmState { stack, words, .. } = &mut *vm;
                    stack.call_pure(argc, pure.f, words);
                }
                Err(res) => {
                    let Some((callee, start)) = enter(vm, &mut budget, res, $argc as usize, p, cx.max_depth)
                    else {
                        stop!(Stop::Op, p - 1)
                    };
                    fb = start;
                    p = 0;
                    *func = callee;
                    continue $outer;
                }
            }
        }};
    }
    // The outer loop holds the frame's function and its code (in registers, not reloaded through
    // `func` at each instruction); a call or a return into another function sets `func` and
    // goes on at the outer loop (`continue 'outer`: a jump out of the inner loop, not a second
    // back edge of it, which moved the loops' register allocation: sieve +2.8 %); one into the
    // same function (recursion) breaks out to the middle loop, which skips the reloads.
    'outer: loop {
        let running: &FuncDef = func;
        // The instructions and the sentinel `Break` after them (`Code::with_sentinel`): the
        // fetch below reads `code[p]` without a bounds check, `p <= end` always. Here (each
        // entry, and each call or return into another function) `p` is clamped to `end`; in
        // the inner loop it moves only by one past an instruction below `end` (so to at most
        // `end`, the sentinel, which stops), by a jump, which stops at `end` instead of taking a
        // target past it (`jump_back!`, `jump_to!`), by a call, which starts at 0, or by a
        // return, to a frame's pc (which the interpreter also writes): clamped here when into
        // another function, in the return arm when into the same one. A pc past the end so
        // becomes the sentinel's, where the loop stops and the interpreter returns, as it did
        // at any pc past the end.
        let code: &[OpCell] = running.code.with_sentinel();
        // `code` is never empty (`Code::new` always adds the sentinel).
        end = code.len() - 1;
        // The slots the function's code names, from `fb` (see `slot!`). Code naming more
        // than `MAX_FAST_SLOTS` (no compiled function) runs in the interpreter.
        let slot_end = running.code.slot_end() as usize;
        if slot_end > MAX_FAST_SLOTS {
            stop!(Stop::Op, p.min(end));
        }
        p = p.min(end);
        vm.stack.reserve_slots(fb + slot_end);
        // A backward jump to `t` paying `cost` (a loop pays for its body each round).
        macro_rules! jump_back {
            ($t:expr, $cost:expr) => {{
                let (t, cost) = ($t, $cost);
                if budget < cost {
                    if vm.budget_left < cost {
                        stop!(Stop::Budget, p);
                    }
                    vm.budget_left -= cost;
                    stop!(Stop::Rearm, t);
                }
                budget -= cost;
                // A target past the end stops where the sentinel would (see the fetch below):
                // a branch, not a `min`, so the next fetch's address does not wait on a compare.
                if t > end {
                    stop!(Stop::Op, end);
                }
                p = t;
                // The head of a tight loop: stop for `tight` (no call site in this loop).
                if running.code.tight_head(t) {
                    stop!(Stop::Tight, t);
                }
            }};
        }
        macro_rules! jump_to {
            ($t:expr) => {{
                let t = $t as usize;
                if t < p {
                    jump_back!(t, (p - t) as u64);
                } else {
                    if t > end {
                        stop!(Stop::Op, end);
                    }
                    p = t;
                }
            }};
        }
        // A call or a return that stays in the same function (recursion: `break` out of the
        // inner loop) comes back here, not to the outer loop: its code, `end` and `slot_end`
        // are loaded already; only the frame's slots are reserved (fib -5.6 % instructions,
        // docs/PERFORMANCE.md, fourteenth pass).
        loop {
            loop {
                debug_assert!(p <= end && end < code.len(), "fetch at {p} past the sentinel {end}");
                // SAFETY: `p <= end` (see `end` above) and `code` has `end + 1` cells.
                #[allow(unsafe_code)]
                let cell = unsafe { code.get_unchecked(p) };
                // The instruction is matched in place, each arm loading only its own operands.
                // Matched as a copy (`cell.get()`), the 16-byte value was loaded whole and every
                // operand field split out of it before the jump table (the fields common to the
                // arms are hoisted): eight registers held across the dispatch, so the pc, the
                // code's pointer and length lived on the stack and were reloaded every
                // instruction. In place: integer operators -25 %, method calls -19 %, `switch$`
                // -20 %, fib -12 % (docs/PERFORMANCE.md, fifth pass).
                // SAFETY: `cell` points into `running.code`, which lives as long as this inner
                // loop (`running` is borrowed from `func`, replaced only after the loop breaks).
                // Code is written only through `Cell::set`: here, by the arms that update a
                // site's hint, after their operands were copied out of `*op` by the pattern;
                // elsewhere (the debugger's breakpoints) only by the interpreter, while this
                // loop is not running. The reference is used only by the `match` below, which
                // copies every operand (all `Copy`) when an arm is chosen, so no write to this
                // cell happens while it is live.
                #[allow(unsafe_code)]
                let op: &Op = unsafe { &*cell.as_ptr() };
                p += 1;
                match *op {
                    // ---- constants and the stack ----
                    Op::Int(i) => vm.stack.push(Value::Int(i)),
                    Op::Float(f) => vm.stack.push_f64(f),
                    Op::Const(k) => {
                        vm.stack.push(running.consts.get(k as usize).cloned().unwrap_or_default())
                    }
                    Op::Empty => vm.stack.push_empty(),
                    Op::Pop => vm.stack.drop_top(),
                    Op::Dup => vm.stack.push_copy(vm.stack.len().wrapping_sub(1)),
                    Op::Dup2 => {
                        let n = vm.stack.len();
                        if n >= 2 {
                            vm.stack.push_copy(n - 2);
                            vm.stack.push_copy(n - 1);
                        }
                    }
                    // ---- locals by slot ----
                    Op::LoadLocal(s) => vm.stack.push_copy(fb + s as usize),
                    Op::StoreLocal(s, keep) => vm.stack.pop_into(fb + s as usize, keep),
                    Op::IncLocal(s, d, keep) => {
                        let slot = slot_mut!(s);
                        let x = slot.step(i32::from(d));
                        let nv = if let Value::Int(i) = slot { Value::Int(*i) } else { Value::Float(x) };
                        if keep {
                            vm.stack.push(nv);
                        }
                    }
                    // ---- arithmetic, bits and comparison on the stack ----
                    Op::Add => bin_n!(Arith::Add),
                    Op::Sub => bin_n!(Arith::Sub),
                    Op::Mul => bin_n!(Arith::Mul),
                    Op::Div => bin_f!(/),
                    Op::Mod => bin_i!(|a, b| if b == 0 { 0 } else { a.wrapping_rem(b) }),
                    Op::BitAnd => bin_i!(|a, b| a & b),
                    Op::BitOr => bin_i!(|a, b| a | b),
                    Op::BitXor => bin_i!(|a, b| a ^ b),
                    Op::Shl => bin_i!(|a, b| a.wrapping_shl(b as u32)),
                    Op::Shr => bin_i!(|a, b| a.wrapping_shr(b as u32)),
                    Op::Lt => cmp_f!(<),
                    Op::Le => cmp_f!(<=),
                    Op::Gt => cmp_f!(>),
                    Op::Ge => cmp_f!(>=),
                    Op::Eq => cmp_f!(==),
                    Op::Ne => cmp_f!(!=),
                    // `@`, `SPC`, `TAB`, `NL` (a result past the longest string stops the script:
                    // the interpreter's).
                    Op::Cat(sep) => {
                        if !cat_top(vm, sep) {
                            stop!(Stop::Op, p - 1)
                        }
                    }
                    which @ (Op::StrEq | Op::StrNe) => {
                        let b = vm.stack.pop().unwrap_or_default();
                        let a = vm.stack.pop().unwrap_or_default();
                        let eq = a.as_text().eq_ignore_ascii_case(&b.as_text());
                        let r = if matches!(which, Op::StrEq) { eq } else { !eq };
                        vm.stack.push(Value::Int(i64::from(r)));
                    }
                    // ---- unary operators ----
                    Op::Neg => {
                        let a = vm.stack.pop().unwrap_or_default();
                        vm.stack.push(match a {
                            Value::Int(i) => Value::Int(i.wrapping_neg()),
                            other => Value::Float(-other.to_f64()),
                        });
                    }
                    Op::Not => {
                        let t = vm.stack.pop_truthy();
                        vm.stack.push(Value::Int(i64::from(!t)));
                    }
                    Op::BitNot => {
                        let a = vm.stack.pop().unwrap_or_default();
                        vm.stack.push(Value::Int(i64::from(!a.to_i32())));
                    }
                    // ---- compare-and-jump, and arithmetic fused with locals (peephole forms) ----
                    Op::JumpCmp(c, when, t) => {
                        let b = vm.stack.pop_f64();
                        let a = vm.stack.pop_f64();
                        if c.test(a, b) == when {
                            jump_to!(t);
                        }
                    }
                    Op::JumpCmpLI(c, when, a, k, t) => {
                        if c.test(local!(a), f64::from(k)) == when {
                            jump_to!(t);
                        }
                    }
                    Op::JumpCmpLL(c, when, a, b, t) => {
                        if c.test(local!(a), local!(b)) == when {
                            jump_to!(t);
                        }
                    }
                    Op::ArithLL(ar, a, b) => {
                        let r = ar.num(local_n!(a), local_n!(b));
                        vm.stack.push_num(r);
                    }
                    Op::ArithLI(ar, a, k) => {
                        let r = ar.num(local_n!(a), Num::Int(i64::from(k)));
                        vm.stack.push_num(r);
                    }
                    Op::ArithSL(ar, b) => {
                        let y = local_n!(b);
                        if let Some(top) = vm.stack.last_mut() {
                            let r = ar.num(Num::of(Some(top)), y);
                            top.set_num(r);
                        }
                    }
                    Op::ArithSI(ar, k) => {
                        if let Some(top) = vm.stack.last_mut() {
                            let r = ar.num(Num::of(Some(top)), Num::Int(i64::from(k)));
                            top.set_num(r);
                        }
                    }
                    Op::ArithLS(ar, a) => {
                        let x = local_n!(a);
                        if let Some(top) = vm.stack.last_mut() {
                            let r = ar.num(x, Num::of(Some(top)));
                            top.set_num(r);
                        }
                    }
                    Op::ArithLSStore(ar, a, d) => {
                        let v = vm.stack.pop_num();
                        let r = ar.num(local_n!(a), v);
                        slot_mut!(d).set_num(r);
                    }
                    Op::ArithLLIStore { outer, inner, a, b, d, k } => {
                        let r = Arith::apply2(outer, inner, local!(a), local!(b), k);
                        slot_mut!(d).store_f64(r);
                    }
                    Op::ArithLLIAcc { outer, inner, d, b, k } => {
                        let y = local!(b);
                        slot_mut!(d).update_f64(|x| Arith::apply2(outer, inner, x, y, k));
                    }
                    Op::ArithLLStore(ar, a, b, d) => {
                        let r = ar.num(local_n!(a), local_n!(b));
                        slot_mut!(d).set_num(r);
                    }
                    Op::ArithLIStore(ar, a, k, d) => {
                        let r = ar.num(local_n!(a), Num::Int(i64::from(k)));
                        slot_mut!(d).set_num(r);
                    }
                    // ---- fields of an object named by its id (names and paths are the interpreter's),
                    // and `$a[%i, %j]`: out of line, so the loop's registers stay on its hot arms ----
                    Op::LoadField(n, hint) => {
                        field_site!(cell, load_field(vm, objects, n, hint), hint);
                    }
                    Op::StoreField(n, keep, hint) => {
                        let find = store_field(vm, objects, n, keep, hint);
                        field_site!(cell, find, hint);
                    }
                    Op::LoadFieldElem(b, off) => {
                        let find = load_field_elem(vm, objects, elem_names, b, off);
                        field_site!(cell, find, off);
                    }
                    Op::StoreFieldElem(b, keep, off) => {
                        let find = store_field_elem(vm, objects, elem_names, b, keep, off);
                        field_site!(cell, find, off);
                    }
                    // The same with the object, index or indexes in locals (register operands).
                    Op::LoadFieldL(s, n, hint) => {
                        let find = load_field_l(vm, objects, fb + s as usize, n, hint);
                        field_site!(cell, find, hint);
                    }
                    Op::StoreFieldL(s, n, keep, hint) => {
                        let find = store_field_l(vm, objects, fb + s as usize, n, keep, hint);
                        field_site!(cell, find, hint);
                    }
                    Op::LoadFieldLStore { s, d, n, hint } => {
                        let find =
                            load_field_l_store(vm, objects, (fb + s as usize, fb + d as usize), n, hint);
                        field_site!(cell, find, hint);
                    }
                    Op::StoreFieldLL { o, x, n, hint } => {
                        let find = store_field_ll(vm, objects, (fb + o as usize, fb + x as usize), n, hint);
                        field_site!(cell, find, hint);
                    }
                    Op::ArithFieldL { ar, o, y, n, hint } => {
                        let find = arith_field_l(vm, objects, (fb, o), (ar, y), n, hint);
                        field_site!(cell, find, hint);
                    }
                    Op::ArithFF { ar, a, b, na, nb, ha, hb } => {
                        let find = arith_ff(vm, objects, (fb, a, b), ar, (na, nb), (ha, hb));
                        let hint = u32::from(ha) | u32::from(hb) << 8;
                        field_site!(cell, find, hint);
                    }
                    Op::LoadFieldElemLL { o, i, b, off } => {
                        let at = (fb + o as usize, fb + i as usize);
                        let find = load_field_elem_ll(vm, objects, elem_names, at, b, off);
                        field_site!(cell, find, off);
                    }
                    Op::StoreFieldElemLL { o, i, b, off } => {
                        let at = (fb + o as usize, fb + i as usize);
                        let find = store_field_elem_ll(vm, objects, elem_names, at, b, off);
                        field_site!(cell, find, off);
                    }
                    Op::StoreFieldElemLLL { o, i, x, b, off } => {
                        let at = (fb + o as usize, fb + i as usize, fb + x as usize);
                        let find = store_field_elem_lll(vm, objects, elem_names, at, b, off);
                        field_site!(cell, find, off);
                    }
                    Op::LoadGlobalElemLL(b, r, c) => {
                        if !load_elem2_ll(vm, elems, rows, b, (fb + r as usize, fb + c as usize)) {
                            stop!(Stop::Op, p - 1)
                        }
                    }
                    Op::StoreGlobalElemLL(b, r, c) => {
                        if !store_elem2_ll(vm, elems, rows, b, (fb + r as usize, fb + c as usize)) {
                            stop!(Stop::Op, p - 1)
                        }
                    }
                    Op::LoadGlobalElem(b, 2) => {
                        if !load_elem2(vm, elems, rows, b) {
                            stop!(Stop::Op, p - 1)
                        }
                    }
                    Op::StoreGlobalElem(b, 2, keep) => {
                        if !store_elem2(vm, elems, rows, b, keep) {
                            stop!(Stop::Op, p - 1)
                        }
                    }
                    // ---- globals by name (as `Console::global` and `set_global_name`) ----
                    Op::LoadGlobal(n) => vm.stack.push_ref(globals.get(n.0 as usize)),
                    Op::StoreGlobal(n, GStore::Pop) => store_global(vm, globals, n, false),
                    Op::StoreGlobal(n, GStore::Keep) => store_global(vm, globals, n, true),
                    Op::StoreGlobal(g, GStore::ArithI(ar, k)) => {
                        arith_global(globals, g, ar, Num::Int(i64::from(k)));
                    }
                    Op::StoreGlobal(g, GStore::ArithL(ar, s)) => arith_global(globals, g, ar, local_n!(s)),
                    // ---- array elements by a number (text indexes are the interpreter's) ----
                    Op::LoadGlobalElem(b, 1) => {
                        let Some(top) = vm.stack.last_mut() else { stop!(Stop::Op, p - 1) };
                        let Some(i) = direct_index(top) else { stop!(Stop::Op, p - 1) };
                        assign(top, elems.get_ref(b, i).unwrap_or(&Value::Empty));
                    }
                    Op::StoreGlobalElem(b, 1, keep) => {
                        let at = vm.stack.len().wrapping_sub(2);
                        let Some(i) = vm.stack.get(at).and_then(direct_index) else { stop!(Stop::Op, p - 1) };
                        let v = vm.stack.pop().unwrap_or_default();
                        vm.stack.truncate(at);
                        if keep {
                            vm.stack.push(v.clone());
                        }
                        elems.set(b, i, v);
                    }
                    Op::LoadGlobalElemL(b, s) => {
                        let Some(i) = direct_index(slot!(s)) else { stop!(Stop::Op, p - 1) };
                        vm.stack.push_ref(elems.get_ref(b, i));
                    }
                    Op::LoadGlobalElemStore { b, s, d } => {
                        // As the load and `StoreLocal(d, false)`: a slot at or above the top
                        // before the push (none in a running frame) is not written.
                        let from_stack = s == ELEM_FROM_STACK;
                        let top = vm.stack.len().wrapping_sub(usize::from(from_stack));
                        let index = if from_stack { vm.stack.get(top) } else { Some(slot!(s)) };
                        let Some(i) = index.and_then(direct_index) else { stop!(Stop::Op, p - 1) };
                        let at = fb + d as usize;
                        if at < top
                            && let Some(dst) = vm.stack.local_mut(at)
                        {
                            assign(dst, elems.get_ref(b, i).unwrap_or(&Value::Empty));
                        }
                        if from_stack {
                            vm.stack.drop_top();
                        }
                    }
                    Op::JumpIfNotElemL(b, s, t) => {
                        let Some(i) = direct_index(slot!(s)) else { stop!(Stop::Op, p - 1) };
                        if !elems.get_ref(b, i).is_some_and(Value::truthy) {
                            jump_to!(t);
                        }
                    }
                    Op::StoreGlobalElemL(b, s) => {
                        let Some(i) = direct_index(slot!(s)) else { stop!(Stop::Op, p - 1) };
                        if let Some(top) = vm.stack.last_mut() {
                            elems.set_from(b, i, top);
                        }
                        vm.stack.drop_top();
                    }
                    Op::StoreGlobalElemLI(b, s, k) => {
                        let Some(i) = direct_index(slot!(s)) else { stop!(Stop::Op, p - 1) };
                        elems.set_int(b, i, i64::from(k));
                    }
                    Op::LoadLocalElemL(b, s) if !running.toplevel && !running.elem_slots => {
                        let Some(i) = direct_index(slot!(s)) else { stop!(Stop::Op, p - 1) };
                        let VmState { frames, stack, .. } = &mut *vm;
                        stack.push_ref(
                            frames
                                .last()
                                .and_then(|f| f.dyn_locals.as_deref())
                                .and_then(|d| d.elems.get_ref(b, i)),
                        );
                    }
                    Op::StoreLocalElemL(b, s) if !running.toplevel && !running.elem_slots => {
                        let Some(i) = direct_index(slot!(s)) else { stop!(Stop::Op, p - 1) };
                        // The value moves straight from its stack slot (popped into a local
                        // around the table's call, it was reloaded whole: a store-forwarding stall).
                        let VmState { frames, stack, .. } = &mut *vm;
                        if let (Some(f), Some(top)) = (frames.last_mut(), stack.last_mut()) {
                            let d = match &mut f.dyn_locals {
                                Some(d) => d,
                                none => new_dyn_locals(none),
                            };
                            d.elems.set_from(b, i, top);
                        }
                        stack.drop_top();
                    }
                    Op::LoadLocalElem(b, 1) if !running.toplevel && !running.elem_slots => {
                        let Some(top) = vm.stack.last_mut() else { stop!(Stop::Op, p - 1) };
                        let Some(i) = direct_index(top) else { stop!(Stop::Op, p - 1) };
                        let VmState { frames, stack, .. } = &mut *vm;
                        let v = frames
                            .last()
                            .and_then(|f| f.dyn_locals.as_deref())
                            .and_then(|d| d.elems.get_ref(b, i));
                        if let Some(top) = stack.last_mut() {
                            assign(top, v.unwrap_or(&Value::Empty));
                        }
                    }
                    Op::StoreLocalElem(b, 1, keep) if !running.toplevel && !running.elem_slots => {
                        let at = vm.stack.len().wrapping_sub(2);
                        let Some(i) = vm.stack.get(at).and_then(direct_index) else { stop!(Stop::Op, p - 1) };
                        let v = vm.stack.pop().unwrap_or_default();
                        vm.stack.truncate(at);
                        if keep {
                            vm.stack.push(v.clone());
                        }
                        if let Some(f) = vm.frames.last_mut() {
                            f.dyn_locals.get_or_insert_with(Default::default).elems.set(b, i, v);
                        }
                    }
                    Op::IntLL(io, a, b) => {
                        let r = io.apply(local_i!(a), local_i!(b));
                        vm.stack.push(Value::Int(i64::from(r)));
                    }
                    Op::IntLI(io, a, k) => {
                        let r = io.apply(local_i!(a), k);
                        vm.stack.push(Value::Int(i64::from(r)));
                    }
                    Op::IntSL(io, b) => {
                        let y = local_i!(b);
                        if let Some(top) = vm.stack.last_mut() {
                            let r = io.apply(top.to_i32(), y);
                            top.set_int(i64::from(r));
                        }
                    }
                    Op::IntSI(io, k) => {
                        if let Some(top) = vm.stack.last_mut() {
                            let r = io.apply(top.to_i32(), k);
                            top.set_int(i64::from(r));
                        }
                    }
                    Op::IntLS(io, a) => {
                        let x = local_i!(a);
                        if let Some(top) = vm.stack.last_mut() {
                            let r = io.apply(x, top.to_i32());
                            top.set_int(i64::from(r));
                        }
                    }
                    Op::IntSIStore(crate::bytecode::IntOp::And, k, d) => {
                        let r = vm.stack.pop_i32() & k;
                        slot_mut!(d).set_int(i64::from(r));
                    }
                    Op::IntSIStore(crate::bytecode::IntOp::Or, k, d) => {
                        let r = vm.stack.pop_i32() | k;
                        slot_mut!(d).set_int(i64::from(r));
                    }
                    Op::IntSIStore(io, k, d) => {
                        let r = io.apply(vm.stack.pop_i32(), k);
                        slot_mut!(d).set_int(i64::from(r));
                    }
                    Op::IntIL { io1, io2, a, b, k } => {
                        let r = io2.apply(local_i!(b), io1.apply(local_i!(a), k));
                        vm.stack.push(Value::Int(i64::from(r)));
                    }
                    Op::ArithIL { ar, io: crate::bytecode::IntOp::Shl, a, b, k } => {
                        let x = local_i!(a).wrapping_shl(k as u32);
                        let r = ar.num(Num::Int(i64::from(x)), local_n!(b));
                        vm.stack.push_num(r);
                    }
                    Op::ArithIL { ar, io, a, b, k } => {
                        let x = io.apply(local_i!(a), k);
                        let r = ar.num(Num::Int(i64::from(x)), local_n!(b));
                        vm.stack.push_num(r);
                    }
                    Op::JumpCmpSI(c, when, k, t) => {
                        let a = match vm.stack.pop() {
                            Some(Value::Int(i)) => i as f64,
                            Some(v) => v.to_f64(),
                            None => 0.0,
                        };
                        if c.test(a, f64::from(k)) == when {
                            jump_to!(t);
                        }
                    }
                    Op::JumpIntLLI { io, a, b, c, when, k, t } => {
                        let r = io.apply(local_i!(a), local_i!(b));
                        if c.test(f64::from(r), f64::from(k)) == when {
                            jump_to!(t);
                        }
                    }
                    Op::JumpCmpAL { ar, a, b, x, c, when, t } => {
                        let r = ar.apply(local!(a), local!(b));
                        if c.test(r, local!(x)) == when {
                            jump_to!(t);
                        }
                    }
                    Op::JumpStrLK(a, k, when, t) => {
                        let eq = text_eq(slot!(a), running.consts.get(k as usize).unwrap_or(&Value::Empty));
                        if eq == when {
                            jump_to!(t);
                        }
                    }
                    Op::JumpStrLK2 { a, k1, k2, t1, t2 } => {
                        let v = slot!(a);
                        if text_eq(v, running.consts.get(k1 as usize).unwrap_or(&Value::Empty)) {
                            jump_to!(t1);
                        } else if text_eq(v, running.consts.get(k2 as usize).unwrap_or(&Value::Empty)) {
                            jump_to!(t2);
                        } else {
                            jump_to!(p + 1);
                        }
                    }
                    // ---- jumps ----
                    Op::Jump(t) => jump_to!(t),
                    Op::IncJumpLtLI(s, cost, k, t) => {
                        let x = slot_mut!(s).step(1);
                        if x < k {
                            jump_back!(t as usize, u64::from(cost));
                        }
                    }
                    // A `for` loop's step and bound with `<` (the common loop): no jump table on
                    // the comparison.
                    Op::IncJumpCmpLL { s, d, c: crate::bytecode::Cmp::Lt, b, t } => {
                        let x = slot_mut!(s).step(i32::from(d));
                        if x < local!(b) {
                            jump_to!(t);
                        }
                    }
                    Op::IncJumpCmpLL { s, d, c, b, t } => {
                        let x = slot_mut!(s).step(i32::from(d));
                        if c.test(x, local!(b)) {
                            jump_to!(t);
                        }
                    }
                    Op::IncJumpCmpAL { s, d, ar, a, b, x, c, t } => {
                        slot_mut!(s).step(i32::from(d));
                        let r = ar.apply(local!(a), local!(b));
                        if c.test(r, local!(x)) {
                            jump_to!(t);
                        }
                    }
                    Op::IncJumpCmpLG { s, d, c, g, t } => {
                        let x = slot_mut!(s).step(i32::from(d));
                        if c.test(x, globals.get(g.0 as usize).map_or(0.0, Value::to_f64)) {
                            jump_to!(t);
                        }
                    }
                    Op::ArithJumpCmpLL { ar, a, b, d, x, c, t } => {
                        let r = ar.num(local_n!(a), local_n!(b));
                        slot_mut!(d).set_num(r);
                        if c.test(r.to_f64(), local!(x)) {
                            jump_to!(t);
                        }
                    }
                    Op::IncJumpCmpLI(s, d, c, k, t) => {
                        let x = slot_mut!(s).step(i32::from(d));
                        if c.test(x, f64::from(k)) {
                            jump_to!(t);
                        }
                    }
                    Op::JumpIfL(s, when, t) => {
                        if slot!(s).truthy() == when {
                            jump_to!(t);
                        }
                    }
                    Op::JumpIfFalse(t) => {
                        if !vm.stack.pop_truthy() {
                            jump_to!(t);
                        }
                    }
                    Op::JumpIfTrue(t) => {
                        if vm.stack.pop_truthy() {
                            jump_to!(t);
                        }
                    }
                    // ---- script-to-script calls and returns, the common case only ----
                    Op::Call(_, argc) if cx.plain => call!(running, GLOBAL_NS, argc, 'outer, true),
                    // The argument, then the `Call` after it as its own arm would make it (its
                    // pc is `p`: the site's cache and the failure's stop are that `Call`'s).
                    Op::ArithLICall(ar, a, k) => {
                        let r = ar.num(local_n!(a), Num::Int(i64::from(k)));
                        vm.stack.push_num(r);
                        // SAFETY: `p <= end` (one past an instruction below `end`), and `code`
                        // has `end + 1` cells; read in place as the fetch above does.
                        #[allow(unsafe_code)]
                        let next: &Op = unsafe { &*code.get_unchecked(p).as_ptr() };
                        if let Op::Call(_, argc) = *next
                            && cx.plain
                        {
                            p += 1;
                            call!(running, GLOBAL_NS, argc, 'outer, true)
                        }
                    }
                    // A method on an object named by its id (a name goes through the interpreter).
                    Op::CallMethod(_, argc) if cx.plain => {
                        let at = vm.stack.len().saturating_sub(argc as usize);
                        let Some(obj) = vm.stack.get(at).and_then(number_id).and_then(|id| objects.get(id))
                        else {
                            stop!(Stop::Op, p - 1)
                        };
                        call!(running, obj.ns, argc, 'outer)
                    }
                    which @ (Op::Return | Op::ReturnEmpty | Op::ReturnLocal(_))
                        if cx.plain && vm.frames.len() > cx.entry + 1 =>
                    {
                        let src = match which {
                            Op::Return => vm.stack.len().checked_sub(1),
                            Op::ReturnLocal(s) => Some(fb + s as usize),
                            _ => None,
                        };
                        // The ended frame and its caller with one bounds check; what the ended
                        // frame leaves besides its slots (dynamic locals, objects under
                        // construction: rare) is dropped out of line, as `end_frame` does.
                        let VmState { frames, stack, new_stack, .. } = &mut *vm;
                        let Some((done, caller)) = frames.pop_to_caller() else { stop!(Stop::Op, p - 1) };
                        let fbase = done.base;
                        if done.dyn_locals.is_some() || new_stack.len() > done.new_base {
                            let rest = done.dyn_locals.take();
                            let new_base = done.new_base;
                            let (pc, base) = (caller.pc, caller.base);
                            vm.end_frame_rest(rest, new_base);
                            vm.stack.return_to(src, fbase);
                            p = pc;
                            fb = base;
                            *func = match vm.frames.last() {
                                Some(c) => c.func.clone(),
                                None => stop!(Stop::Op, p),
                            };
                            continue 'outer;
                        }
                        stack.return_to(src, fbase);
                        p = caller.pc;
                        fb = caller.base;
                        if Rc::ptr_eq(&caller.func, func) {
                            // Clamped as the outer loop would (see the fetch).
                            p = p.min(end);
                            break;
                        }
                        *func = caller.func.clone();
                        continue 'outer;
                    }
                    // Everything else is the interpreter's (listed, not `_`: a full jump table).
                    Op::Break
                    | Op::LoadLocalDyn
                    | Op::StoreLocalDyn(_)
                    | Op::LoadGlobalDyn
                    | Op::StoreGlobalDyn(_)
                    | Op::BuildName(..)
                    | Op::LoadGlobalElem(..)
                    | Op::StoreGlobalElem(..)
                    | Op::LoadLocalElem(..)
                    | Op::StoreLocalElem(..)
                    | Op::LoadLocalElemL(..)
                    | Op::StoreLocalElemL(..)
                    | Op::LoadFieldDyn
                    | Op::StoreFieldDyn(_)
                    | Op::AppendLocal(..)
                    | Op::Tag(_)
                    | Op::Call(..)
                    | Op::CallNs(..)
                    | Op::CallParent(..)
                    | Op::CallMethod(..)
                    | Op::Return
                    | Op::ReturnEmpty
                    | Op::ReturnLocal(_)
                    | Op::NewBegin(_)
                    | Op::NewField(_)
                    | Op::NewFieldDyn
                    | Op::NewAdd
                    | Op::NewEnd
                    | Op::Error(_)
                    | Op::Declare(_) => stop!(Stop::Op, p - 1),
                }
            }
            vm.stack.reserve_slots(fb + slot_end);
        }
    }
}

/// Runs the tight loop at `pc` of the innermost frame (`func`, locals at `base`; see
/// [`run_tight`]) with the budget [`run`] would have, and says why it stopped and where: at an
/// instruction for [`run`] (`Stop::Op`: the fast loop goes on from there, not the
/// interpreter) or with a stop of its own.
pub(crate) fn tight(
    vm: &mut VmState,
    func: &FuncDef,
    pc: usize,
    base: usize,
    cx: &Ctx,
    data: Data<'_>,
) -> (Stop, usize) {
    let mut budget = if cx.plain { vm.budget_left.min(cx.slice) } else { 0 };
    vm.budget_left -= budget;
    let end = if func.code.tight_locals() && !func.code.tight_rows() {
        run_tight_locals(vm, func, pc, base, &mut budget, data.elems, data.rows, data.globals)
    } else if func.code.tight_rows() {
        run_tight_rows(vm, func, pc, base, &mut budget, data.elems, data.rows, data.globals)
    } else if func.code.tight_globals() {
        run_tight_globals(vm, func, pc, base, &mut budget, data.elems, data.rows, data.globals)
    } else {
        run_tight(vm, func, pc, base, &mut budget, data.elems, data.rows)
    };
    vm.budget_left += budget;
    match end {
        TightEnd::At(at) => (Stop::Op, at),
        TightEnd::Stop(why, at) => (why, at),
    }
}

/// How [`run_tight`] ended: at an instruction it leaves to the fast loop (which goes on
/// there), or with a stop of the fast loop's own (a backward jump that found the budget spent,
/// or a breakpoint to re-arm).
enum TightEnd {
    /// Go on in the fast loop at this pc.
    At(usize),
    /// The fast loop stops so, at this pc.
    Stop(Stop, usize),
}

/// A value read as a number (`num_fast`, `f64_fast`, `i32_fast`), or the instruction left
/// through the `out!()` of the loop that expands it (text): the readers of the tight loops,
/// [`run_tight`] and `recursion::run_rec`.
macro_rules! num_or_out {
    ($v:expr) => {
        match $crate::value::num_fast($v) {
            Some(x) => x,
            None => out!(),
        }
    };
}
macro_rules! f64_or_out {
    ($v:expr) => {
        match $crate::value::f64_fast($v) {
            Some(x) => x,
            None => out!(),
        }
    };
}
macro_rules! i32_or_out {
    ($v:expr) => {
        match $crate::value::i32_fast($v) {
            Some(x) => x,
            None => out!(),
        }
    };
}
pub(crate) use {f64_or_out, i32_or_out, num_or_out};

/// The loop of a tight loop (`Code::tight_head`): the instructions of [`Op::is_tight`] on
/// numbers only, in a function with no call in it, so that its state (the pc, the code, the
/// stack's slots and top, the frame's base, the budget) stays in registers; in the fast loop's
/// one large `match`, whose arms call out, every arm reloaded them from its spilled frame
/// (docs/PERFORMANCE.md, sixteenth pass). Each instruction computes what the fast loop's arm
/// for it computes, for operands that are numbers or `""` and element slots in the dense part
/// of the array found last; anything else (text, which needs `atof` or a reference count;
/// an element elsewhere; too few values or no room on the stack; locals not below the top)
/// leaves the instruction, before it changes anything, to the fast loop, which runs it whole.
/// Backward jumps pay `budget` as in the fast loop. Globals by name are run only by the copy
/// [`run_tight_globals`], for code whose tight loops name one ([`crate::bytecode::Code::tight_globals`]).
#[inline(never)]
#[cfg_attr(all(target_os = "linux", target_arch = "x86_64"), allow(unsafe_code))]
// SAFETY: as for `run`.
#[cfg_attr(all(target_os = "linux", target_arch = "x86_64"), unsafe(link_section = ".text.hot.v12_vm_tight"))]
fn run_tight(
    vm: &mut VmState,
    running: &FuncDef,
    p: usize,
    fb: usize,
    budget: &mut u64,
    elems: &mut ElemStore,
    rows: &Rows,
) -> TightEnd {
    // No global is read here (`W` 0: those arms are not compiled), so the table is empty.
    tight_loop::<0>(vm, running, p, fb, budget, elems, rows, &mut Vec::new())
}

/// A copy of [`tight_loop`] with the globals' table, as a function of its own in a section
/// of its own (each starts on a 64-byte line), so that `run_tight` keeps its machine code (a
/// generic copy of each in one section put the second one anywhere in a line).
macro_rules! tight_copy {
    ($(#[$doc:meta])* $name:ident, $section:literal, $w:expr) => {
        $(#[$doc])*
        #[inline(never)]
        #[cfg_attr(all(target_os = "linux", target_arch = "x86_64"), allow(unsafe_code))]
        // SAFETY: as for `run`.
        #[cfg_attr(all(target_os = "linux", target_arch = "x86_64"), unsafe(link_section = $section))]
        #[allow(clippy::too_many_arguments, reason = "the loop's state, kept in registers")]
        fn $name(
            vm: &mut VmState,
            running: &FuncDef,
            p: usize,
            fb: usize,
            budget: &mut u64,
            elems: &mut ElemStore,
            rows: &Rows,
            globals: &mut [Value],
        ) -> TightEnd {
            tight_loop::<{ $w }>(vm, running, p, fb, budget, elems, rows, globals)
        }
    };
}

tight_copy!(
    /// [`run_tight`] with the globals' table: loops that read and write globals by name (as
    /// numbers) run here.
    run_tight_globals,
    ".text.hot.v12_vm_tight_g",
    GLOBALS
);

tight_copy!(
    /// [`run_tight_globals`] that also reads two-index elements with their indexes on the
    /// stack (`$a[%i, %j] += $a[%i - 1, %j - 1]`) and finds any row made, by hashing when it is
    /// not the one found last (the other copies leave such an access to the fast loop, which
    /// would leave at every turn from one row to the other). A copy of its own: these arms in
    /// `run_tight_globals` cost `pGlobals` 8.5 % more instructions (its register allocation).
    run_tight_rows,
    ".text.hot.v12_vm_tight_r",
    GLOBALS | ROWS
);

tight_copy!(
    /// [`run_tight_globals`] that also writes local array elements with the index and value
    /// on the stack (the insertion sort's `%a[%j + 1] = %a[%j]`). A copy of its own: that arm
    /// in `run_tight_rows` cost `pGrid2` 6.8 % more instructions (its register allocation).
    /// Code that needs this copy and the rows copy runs in the rows copy (where this store
    /// leaves).
    run_tight_locals,
    ".text.hot.v12_vm_tight_l",
    GLOBALS | LOCALS
);

/// [`tight_loop`]'s copy with globals by name.
const GLOBALS: u8 = 1;
/// [`tight_loop`]'s copy with local array elements written from the stack.
const LOCALS: u8 = 4;
/// [`tight_loop`]'s copy with two-index reads from the stack and rows found by hashing.
const ROWS: u8 = 2;

/// The body of [`run_tight`] (`W` 0), [`run_tight_globals`] (`W` [`GLOBALS`]) and
/// [`run_tight_rows`] (`W` [`GLOBALS`] | [`ROWS`]) and [`run_tight_locals`] (`W` [`GLOBALS`] |
/// [`LOCALS`]), inlined into each.
#[inline(always)]
#[allow(clippy::too_many_lines, reason = "the tight loop: one match, kept whole for speed")]
#[allow(clippy::too_many_arguments, reason = "the loop's state, kept in registers")]
fn tight_loop<const W: u8>(
    vm: &mut VmState,
    running: &FuncDef,
    mut p: usize,
    fb: usize,
    budget: &mut u64,
    elems: &mut ElemStore,
    rows: &Rows,
    globals: &mut [Value],
) -> TightEnd {
    // The fast loop's code (with the sentinel) and slot bound for this function.
    let code: &[OpCell] = running.code.with_sentinel();
    let slot_end = running.code.slot_end() as usize;
    use crate::bytecode::IntOp;
    use crate::value::{num_fast, put_num_raw, put_raw, step_fast, truthy_fast};
    let VmState { stack, frames, budget_left, .. } = vm;
    let mut st = stack.tight();
    let mut b = *budget;
    // `code` ends with the sentinel, which this loop leaves to the fast loop.
    let end = code.len() - 1;
    // The operands live above the frame's locals: every local this code names is below the
    // top while the loop runs (checked here, and no pop goes below `floor`), so writes to
    // locals never touch an operand and reads of them never see one.
    let floor = fb + slot_end;
    macro_rules! leave {
        ($e:expr) => {{
            let e = $e;
            let sp = st.top();
            stack.set_top_from(sp);
            *budget = b;
            return e;
        }};
    }
    if !st.fits(floor, 0, 0) {
        leave!(TightEnd::At(p));
    }
    // Leave the instruction (nothing changed yet) to the fast loop.
    macro_rules! out {
        () => {
            leave!(TightEnd::At(p - 1))
        };
    }
    // The instruction pops `$pops` values and pushes at most `$pushes`.
    macro_rules! fits {
        ($pops:expr, $pushes:expr) => {
            if !st.fits(floor, $pops, $pushes) {
                out!()
            }
        };
    }
    // Locals without a bounds check, as the fast loop's `slot!`: this is its function and
    // frame, whose `fb + slot_end` slots it reserved before it ran them (the view's slice is
    // that vector).
    macro_rules! slot {
        ($s:expr) => {{
            #[allow(unsafe_code)]
            // SAFETY: `$s` is a slot named by an instruction of `running`, so below its
            // `slot_end`, and the fast loop reserved `fb + slot_end` slots for this frame.
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
    // Reads of a value as a number, or leave the instruction (text).
    use {f64_or_out as f, i32_or_out as i, num_or_out as n};
    // The value `$k` below the top (`fits!` checked first).
    macro_rules! peek {
        ($k:expr) => {
            match st.peek($k) {
                Some(v) => v,
                None => out!(),
            }
        };
    }
    // A local about to be written must not hold text (whose drop is a call).
    macro_rules! writable {
        ($s:expr) => {
            if let Value::Str(_) = slot!($s) {
                out!()
            }
        };
    }
    // The index a local names, for a number only (text is the general path's).
    macro_rules! index {
        ($s:expr) => {{
            let v = slot!($s);
            if matches!(v, Value::Str(_) | Value::Empty) {
                out!()
            }
            match direct_index(v) {
                Some(i) => i,
                None => out!(),
            }
        }};
    }
    // The index a value names (two-index reads from the stack), as `index!`.
    macro_rules! index_of {
        ($v:expr) => {{
            let v = $v;
            if matches!(v, Value::Str(_) | Value::Empty) {
                out!()
            }
            match direct_index(v) {
                Some(i) => i,
                None => out!(),
            }
        }};
    }
    // As the fast loop's `jump_back!`.
    macro_rules! jump_back {
        ($t:expr, $cost:expr) => {{
            let (t, cost) = ($t, $cost);
            if b < cost {
                if *budget_left < cost {
                    leave!(TightEnd::Stop(Stop::Budget, p));
                }
                *budget_left -= cost;
                leave!(TightEnd::Stop(Stop::Rearm, t));
            }
            b -= cost;
            // Past the end: where the sentinel is (a branch, as in the fast loop).
            if t > end {
                leave!(TightEnd::At(end));
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
                    leave!(TightEnd::At(end));
                }
                p = t;
            }
        }};
    }
    // `x op y` of the two values on top, the result in place of them.
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
    macro_rules! bin_i {
        ($e:expr) => {{
            let f: fn(i32, i32) -> i32 = $e;
            binary!(i, |x, y| Num::Int(i64::from(f(x, y))))
        }};
    }
    macro_rules! cmp_f {
        ($op:tt) => {
            binary!(f, |x, y| Num::Int((x $op y) as i64))
        };
    }
    // `IntIL` with constant operators.
    macro_rules! int_il {
        ($io1:ident, $io2:ident, $a:expr, $y:expr, $k:expr) => {{
            fits!(0, 1);
            let r = IntOp::$io2.apply(i!(slot!($y)), IntOp::$io1.apply(i!(slot!($a)), $k));
            st.push_plain(Value::Int(i64::from(r)));
        }};
    }
    // `ArithIL` of `<<` with a constant arithmetic operator.
    macro_rules! shl_arith {
        ($ar:ident, $a:expr, $y:expr, $k:expr) => {{
            fits!(0, 1);
            let x = i!(slot!($a)).wrapping_shl($k as u32);
            let r = Arith::$ar.num(Num::Int(i64::from(x)), n!(slot!($y)));
            st.push_num_plain(r);
        }};
    }
    // The running frame's local arrays (`%a[%i]`), found once: the frame does not change here
    // (no call), and its table is made only by the fast loop (`None`: those instructions
    // leave). Top-level code and functions whose named locals end in digits have none here.
    let mut local_elems = if running.toplevel || running.elem_slots {
        None
    } else {
        frames.last_mut().and_then(|f| f.dyn_locals.as_deref_mut()).map(|d| &mut d.elems)
    };
    loop {
        debug_assert!(p <= end && end < code.len(), "fetch at {p} past the sentinel {end}");
        // SAFETY: `p <= end` always: it starts so (the fast loop's pc, at or below its `end`,
        // which is this `end`), moves by one past an instruction below `end` (the sentinel
        // leaves), and jumps past `end` leave instead of going there.
        #[allow(unsafe_code)]
        let cell = unsafe { code.get_unchecked(p) };
        // Matched in place, as in the fast loop (a copy had every operand decoded before the
        // dispatch).
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
            Op::Empty => {
                fits!(0, 1);
                st.push_plain(Value::Empty);
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
                writable!(s);
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
            Op::Add => binary!(n, |x, y| Arith::Add.num(x, y)),
            Op::Sub => binary!(n, |x, y| Arith::Sub.num(x, y)),
            Op::Mul => binary!(n, |x, y| Arith::Mul.num(x, y)),
            Op::Div => binary!(f, |x, y| Num::Float(x / y)),
            Op::Mod => bin_i!(|a, b| if b == 0 { 0 } else { a.wrapping_rem(b) }),
            Op::BitAnd => bin_i!(|a, b| a & b),
            Op::BitOr => bin_i!(|a, b| a | b),
            Op::BitXor => bin_i!(|a, b| a ^ b),
            Op::Shl => bin_i!(|a, b| a.wrapping_shl(b as u32)),
            Op::Shr => bin_i!(|a, b| a.wrapping_shr(b as u32)),
            Op::Lt => cmp_f!(<),
            Op::Le => cmp_f!(<=),
            Op::Gt => cmp_f!(>),
            Op::Ge => cmp_f!(>=),
            Op::Eq => cmp_f!(==),
            Op::Ne => cmp_f!(!=),
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
                if c.test(f!(slot!(a)), f64::from(k)) == when {
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
            Op::ArithLSStore(ar, a, d) => {
                fits!(1, 0);
                let r = ar.num(n!(slot!(a)), n!(peek!(0)));
                writable!(d);
                st.pop_plain();
                put_num_raw(slot_mut!(d), r);
            }
            Op::ArithLLIStore { outer, inner, a, b: y, d, k } => {
                let r = Arith::apply2(outer, inner, f!(slot!(a)), f!(slot!(y)), k);
                writable!(d);
                put_raw(slot_mut!(d), Value::Float(r));
            }
            Op::ArithLLIAcc { outer, inner, d, b: y, k } => {
                let y = f!(slot!(y));
                let x = f!(slot!(d));
                put_raw(slot_mut!(d), Value::Float(Arith::apply2(outer, inner, x, y, k)));
            }
            Op::ArithLLStore(ar, a, y, d) => {
                let r = ar.num(n!(slot!(a)), n!(slot!(y)));
                writable!(d);
                put_num_raw(slot_mut!(d), r);
            }
            Op::ArithLIStore(ar, a, k, d) => {
                let r = ar.num(n!(slot!(a)), Num::Int(i64::from(k)));
                writable!(d);
                put_num_raw(slot_mut!(d), r);
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
            Op::IntSL(io, y) => {
                fits!(1, 0);
                let r = io.apply(i!(peek!(0)), i!(slot!(y)));
                if let Some(top) = st.last_mut() {
                    put_raw(top, Value::Int(i64::from(r)));
                }
            }
            Op::IntSI(io, k) => {
                fits!(1, 0);
                let r = io.apply(i!(peek!(0)), k);
                if let Some(top) = st.last_mut() {
                    put_raw(top, Value::Int(i64::from(r)));
                }
            }
            Op::IntLS(io, a) => {
                fits!(1, 0);
                let r = io.apply(i!(slot!(a)), i!(peek!(0)));
                if let Some(top) = st.last_mut() {
                    put_raw(top, Value::Int(i64::from(r)));
                }
            }
            Op::IntSIStore(crate::bytecode::IntOp::And, k, d) => {
                fits!(1, 0);
                let r = i!(peek!(0)) & k;
                writable!(d);
                st.pop_plain();
                put_raw(slot_mut!(d), Value::Int(i64::from(r)));
            }
            Op::IntSIStore(crate::bytecode::IntOp::Or, k, d) => {
                fits!(1, 0);
                let r = i!(peek!(0)) | k;
                writable!(d);
                st.pop_plain();
                put_raw(slot_mut!(d), Value::Int(i64::from(r)));
            }
            Op::IntSIStore(io, k, d) => {
                fits!(1, 0);
                let r = io.apply(i!(peek!(0)), k);
                writable!(d);
                st.pop_plain();
                put_raw(slot_mut!(d), Value::Int(i64::from(r)));
            }
            // `%y op (%a % k)` and `(%a << k) + %y` (hashes, packing), common pairs with arms of
            // their own: the operators are constants there, with no dispatch on them.
            Op::IntIL { io1: IntOp::Mod, io2: IntOp::Xor, a, b: y, k } => int_il!(Mod, Xor, a, y, k),
            Op::IntIL { io1: IntOp::Mod, io2: IntOp::And, a, b: y, k } => int_il!(Mod, And, a, y, k),
            Op::IntIL { io1: IntOp::Mod, io2: IntOp::Or, a, b: y, k } => int_il!(Mod, Or, a, y, k),
            Op::IntIL { io1, io2, a, b: y, k } => {
                fits!(0, 1);
                let r = io2.apply(i!(slot!(y)), io1.apply(i!(slot!(a)), k));
                st.push_plain(Value::Int(i64::from(r)));
            }
            Op::ArithIL { ar: Arith::AddW, io: IntOp::Shl, a, b: y, k } => shl_arith!(AddW, a, y, k),
            Op::ArithIL { ar: Arith::Add, io: IntOp::Shl, a, b: y, k } => shl_arith!(Add, a, y, k),
            Op::ArithIL { ar, io: IntOp::Shl, a, b: y, k } => {
                fits!(0, 1);
                let x = i!(slot!(a)).wrapping_shl(k as u32);
                let r = ar.num(Num::Int(i64::from(x)), n!(slot!(y)));
                st.push_num_plain(r);
            }
            Op::ArithIL { ar, io, a, b: y, k } => {
                fits!(0, 1);
                let x = io.apply(i!(slot!(a)), k);
                let r = ar.num(Num::Int(i64::from(x)), n!(slot!(y)));
                st.push_num_plain(r);
            }
            Op::JumpCmpSI(c, when, k, t) => {
                fits!(1, 0);
                let x = f!(peek!(0));
                st.pop_plain();
                if c.test(x, f64::from(k)) == when {
                    jump_to!(t);
                }
            }
            Op::JumpIntLLI { io, a, b: y, c, when, k, t } => {
                let r = io.apply(i!(slot!(a)), i!(slot!(y)));
                if c.test(f64::from(r), f64::from(k)) == when {
                    jump_to!(t);
                }
            }
            Op::JumpCmpAL { ar, a, b: y, x, c, when, t } => {
                let r = ar.apply(f!(slot!(a)), f!(slot!(y)));
                if c.test(r, f!(slot!(x))) == when {
                    jump_to!(t);
                }
            }
            Op::Jump(t) => jump_to!(t),
            Op::IncJumpLtLI(s, cost, k, t) => {
                let Some(x) = step_fast(slot_mut!(s), 1) else { out!() };
                if x < k {
                    jump_back!(t as usize, u64::from(cost));
                }
            }
            // A step, then a test reading locals: the locals are checked to be numbers before
            // the step (a text bound leaves the instruction whole).
            // `for` steps with `<` and `<=` with arms of their own (no dispatch on the test).
            Op::IncJumpCmpLL { s, d, c: crate::bytecode::Cmp::Lt, b: y, t } => {
                f!(slot!(y));
                let Some(x) = step_fast(slot_mut!(s), i32::from(d)) else { out!() };
                if x < f!(slot!(y)) {
                    jump_to!(t);
                }
            }
            Op::IncJumpCmpLL { s, d, c: crate::bytecode::Cmp::Le, b: y, t } => {
                f!(slot!(y));
                let Some(x) = step_fast(slot_mut!(s), i32::from(d)) else { out!() };
                if x <= f!(slot!(y)) {
                    jump_to!(t);
                }
            }
            Op::IncJumpCmpLL { s, d, c, b: y, t } => {
                f!(slot!(y));
                let Some(x) = step_fast(slot_mut!(s), i32::from(d)) else { out!() };
                if c.test(x, f!(slot!(y))) {
                    jump_to!(t);
                }
            }
            Op::IncJumpCmpAL { s, d, ar, a, b: y, x, c, t } => {
                f!(slot!(a));
                f!(slot!(y));
                f!(slot!(x));
                if step_fast(slot_mut!(s), i32::from(d)).is_none() {
                    out!()
                }
                let r = ar.apply(f!(slot!(a)), f!(slot!(y)));
                if c.test(r, f!(slot!(x))) {
                    jump_to!(t);
                }
            }
            Op::ArithJumpCmpLL { ar, a, b: y, d, x, c, t } => {
                let r = ar.num(n!(slot!(a)), n!(slot!(y)));
                f!(slot!(x));
                writable!(d);
                put_num_raw(slot_mut!(d), r);
                if c.test(r.to_f64(), f!(slot!(x))) {
                    jump_to!(t);
                }
            }
            Op::IncJumpCmpLI(s, d, c, k, t) => {
                let Some(x) = step_fast(slot_mut!(s), i32::from(d)) else { out!() };
                if c.test(x, f64::from(k)) {
                    jump_to!(t);
                }
            }
            Op::JumpIfL(s, when, t) => {
                let Some(v) = truthy_fast(slot!(s)) else { out!() };
                if v == when {
                    jump_to!(t);
                }
            }
            Op::JumpIfFalse(t) => {
                fits!(1, 0);
                let Some(v) = truthy_fast(peek!(0)) else { out!() };
                st.pop_plain();
                if !v {
                    jump_to!(t);
                }
            }
            Op::JumpIfTrue(t) => {
                fits!(1, 0);
                let Some(v) = truthy_fast(peek!(0)) else { out!() };
                st.pop_plain();
                if v {
                    jump_to!(t);
                }
            }
            Op::LoadGlobalElemL(base, s) => {
                fits!(0, 1);
                let i = index!(s);
                let Some(v) = elems.dense_ref(base, i).and_then(num_fast) else { out!() };
                st.push_num_plain(v);
            }
            Op::JumpIfNotElemL(base, s, t) => {
                let i = index!(s);
                let Some(v) = elems.dense_ref(base, i).and_then(truthy_fast) else { out!() };
                if !v {
                    jump_to!(t);
                }
            }
            Op::StoreGlobalElemL(base, s) => {
                fits!(1, 0);
                let i = index!(s);
                let Some(v) = num_fast(peek!(0)) else { out!() };
                let Some(dst) = elems.dense_mut(base, i).filter(|d| !matches!(d, Value::Str(_))) else {
                    out!()
                };
                put_num_raw(dst, v);
                st.pop_plain();
            }
            Op::StoreGlobalElemLI(base, s, k) => {
                let i = index!(s);
                let Some(dst) = elems.dense_mut(base, i).filter(|d| !matches!(d, Value::Str(_))) else {
                    out!()
                };
                put_raw(dst, Value::Int(i64::from(k)));
            }
            Op::LoadLocalElemL(base, s) => {
                fits!(0, 1);
                let Some(d) = local_elems.as_deref() else { out!() };
                let i = index!(s);
                let Some(v) = d.dense_ref(base, i).and_then(num_fast) else { out!() };
                st.push_num_plain(v);
            }
            Op::StoreLocalElemL(base, s) => {
                fits!(1, 0);
                let Some(d) = local_elems.as_deref_mut() else { out!() };
                let i = index!(s);
                let Some(v) = num_fast(peek!(0)) else { out!() };
                let Some(dst) = d.dense_mut(base, i).filter(|d| !matches!(d, Value::Str(_))) else { out!() };
                put_num_raw(dst, v);
                st.pop_plain();
            }
            // In the rows copy, two-index elements of any row made (found by hashing when not
            // the row found last): a loop there may read two rows in turn. Arms of their own,
            // not an `if W & ROWS` inside the general arms below: that one arm measured grid
            // +1.7 %, localArray +1.6 %, pSortLocal +7.0 % (register allocation of every copy).
            Op::LoadGlobalElemLL(base, r, c) if W & ROWS != 0 => {
                fits!(0, 1);
                let (r, j) = (index!(r), index!(c));
                let Some(row) = rows.get(base, r) else { out!() };
                let Some(v) = elems.dense_ref_any(row, j).and_then(num_fast) else { out!() };
                st.push_num_plain(v);
            }
            Op::StoreGlobalElemLL(base, r, c) if W & ROWS != 0 => {
                fits!(1, 0);
                let (r, j) = (index!(r), index!(c));
                let Some(row) = rows.get(base, r) else { out!() };
                let Some(v) = num_fast(peek!(0)) else { out!() };
                let Some(dst) = elems.dense_mut_any(row, j).filter(|d| !matches!(d, Value::Str(_))) else {
                    out!()
                };
                put_num_raw(dst, v);
                st.pop_plain();
            }
            // `%a[x] = v` with the index and the value on the stack (the insertion sort's
            // `%a[%j + 1] = %a[%j]`), in a dense slot of the frame's local arrays.
            Op::StoreLocalElem(base, 1, false) if W & LOCALS != 0 => {
                fits!(2, 0);
                let i = index_of!(peek!(1));
                let Some(v) = num_fast(peek!(0)) else { out!() };
                let Some(d) = local_elems.as_deref_mut() else { out!() };
                let Some(dst) = d.dense_mut_any(base, i).filter(|d| !matches!(d, Value::Str(_))) else {
                    out!()
                };
                put_num_raw(dst, v);
                st.pop_plain();
                st.pop_plain();
            }
            // `$a[x, y]` with both indexes on the stack.
            Op::LoadGlobalElem(base, 2) if W & ROWS != 0 => {
                fits!(2, 0);
                let (r, j) = (index_of!(peek!(1)), index_of!(peek!(0)));
                let Some(row) = rows.get(base, r) else { out!() };
                let Some(v) = elems.dense_ref_any(row, j).and_then(num_fast) else { out!() };
                st.pop_plain();
                if let Some(top) = st.last_mut() {
                    put_num_raw(top, v);
                }
            }
            Op::LoadGlobalElemLL(base, r, c) => {
                fits!(0, 1);
                let (r, j) = (index!(r), index!(c));
                let Some(row) = rows.get_last(base, r) else { out!() };
                let Some(v) = elems.dense_ref(row, j).and_then(num_fast) else { out!() };
                st.push_num_plain(v);
            }
            Op::StoreGlobalElemLL(base, r, c) => {
                fits!(1, 0);
                let (r, j) = (index!(r), index!(c));
                let Some(row) = rows.get_last(base, r) else { out!() };
                let Some(v) = num_fast(peek!(0)) else { out!() };
                let Some(dst) = elems.dense_mut(row, j).filter(|d| !matches!(d, Value::Str(_))) else {
                    out!()
                };
                put_num_raw(dst, v);
                st.pop_plain();
            }
            // Globals by name, in the copies with the globals' table only (`W` has
            // [`GLOBALS`]: a tight loop of this code names one). Numbers only, in a global already made (`""`, text and an
            // unset global leave), as the fast loop's `LoadGlobal`, `StoreGlobal` and
            // `IncJumpCmpLG` compute them.
            Op::LoadGlobal(g) if W & GLOBALS != 0 => {
                fits!(0, 1);
                let Some(v) = globals.get(g.0 as usize).and_then(num_fast) else { out!() };
                st.push_num_plain(v);
            }
            Op::StoreGlobal(g, GStore::ArithI(ar, k)) if W & GLOBALS != 0 => {
                let Some(dst) = globals.get_mut(g.0 as usize) else { out!() };
                let x = n!(dst);
                put_num_raw(dst, ar.num(x, Num::Int(i64::from(k))));
            }
            Op::StoreGlobal(g, GStore::ArithL(ar, s)) if W & GLOBALS != 0 => {
                let y = n!(slot!(s));
                let Some(dst) = globals.get_mut(g.0 as usize) else { out!() };
                let x = n!(dst);
                put_num_raw(dst, ar.num(x, y));
            }
            Op::StoreGlobal(g, keep @ (GStore::Pop | GStore::Keep)) if W & GLOBALS != 0 => {
                fits!(1, 0);
                let Some(v) = num_fast(peek!(0)) else { out!() };
                let Some(dst) = globals.get_mut(g.0 as usize).filter(|d| !matches!(d, Value::Str(_))) else {
                    out!()
                };
                put_num_raw(dst, v);
                if keep == GStore::Pop {
                    st.pop_plain();
                }
            }
            Op::IncJumpCmpLG { s, d, c, g, t } if W & GLOBALS != 0 => {
                let Some(bound) = globals.get(g.0 as usize).and_then(crate::value::f64_fast) else { out!() };
                let Some(x) = step_fast(slot_mut!(s), i32::from(d)) else { out!() };
                if c.test(x, bound) {
                    jump_to!(t);
                }
            }
            // Everything else is the fast loop's (listed, not `_`: a full jump table).
            Op::Break
            | Op::Const(_)
            | Op::Dup
            | Op::Dup2
            | Op::LoadGlobal(_)
            | Op::StoreGlobal(..)
            | Op::LoadLocalDyn
            | Op::StoreLocalDyn(_)
            | Op::LoadGlobalDyn
            | Op::StoreGlobalDyn(_)
            | Op::LoadGlobalElem(..)
            | Op::StoreGlobalElem(..)
            | Op::LoadLocalElem(..)
            | Op::StoreLocalElem(..)
            | Op::LoadGlobalElemStore { .. }
            | Op::BuildName(..)
            | Op::LoadField(..)
            | Op::StoreField(..)
            | Op::LoadFieldElem(..)
            | Op::StoreFieldElem(..)
            | Op::LoadFieldL(..)
            | Op::StoreFieldL(..)
            | Op::LoadFieldLStore { .. }
            | Op::StoreFieldLL { .. }
            | Op::ArithFieldL { .. }
            | Op::ArithFF { .. }
            | Op::LoadFieldElemLL { .. }
            | Op::StoreFieldElemLL { .. }
            | Op::StoreFieldElemLLL { .. }
            | Op::LoadFieldDyn
            | Op::StoreFieldDyn(_)
            | Op::AppendLocal(..)
            | Op::StrEq
            | Op::StrNe
            | Op::Cat(_)
            | Op::Neg
            | Op::Not
            | Op::BitNot
            | Op::Tag(_)
            | Op::JumpStrLK(..)
            | Op::JumpStrLK2 { .. }
            | Op::IncJumpCmpLG { .. }
            | Op::ArithLICall(..)
            | Op::Call(..)
            | Op::CallNs(..)
            | Op::CallParent(..)
            | Op::CallMethod(..)
            | Op::Return
            | Op::ReturnEmpty
            | Op::ReturnLocal(_)
            | Op::NewBegin(_)
            | Op::NewField(_)
            | Op::NewFieldDyn
            | Op::NewAdd
            | Op::NewEnd
            | Op::Error(_)
            | Op::Declare(_) => out!(),
        }
    }
}

/// `LoadField` on an object named by its id, trying the dynamic field at position `hint`
/// first: where the field was found (the site's next hint), or `None` (nothing changed) for
/// an object the interpreter must find. The value is copied onto the stack field by field
/// (a value returned whole through memory stalled store forwarding).
/// The common case calls nothing (as [`load_field_l`]'s): an integer id of the dense table
/// on top, the dynamic field at the hint, no registered field of its name; anything else is
/// [`load_field_slow`]'s.
#[inline(never)]
fn load_field(vm: &mut VmState, objects: &ObjectStore, n: Name, hint: u32) -> Option<u32> {
    if let Some(top) = vm.stack.last_mut()
        && let Value::Int(_) = *top
        && let Some(v) = dense_field(objects, Some(top), n, hint as usize)
    {
        // The top is an integer: nothing to drop.
        crate::value::assign_plain(top, v);
        return Some(hint);
    }
    load_field_slow(vm, objects, n, hint)
}

/// [`load_field`]'s general case.
#[inline(never)]
fn load_field_slow(vm: &mut VmState, objects: &ObjectStore, n: Name, hint: u32) -> Option<u32> {
    let top = vm.stack.last_mut()?;
    let o = number_id(top).and_then(|id| objects.get(id))?;
    let (v, at) = field_ref_hint(&objects.classes, o, n, hint as usize);
    match v {
        Some(v) => assign(top, v),
        None => assign(top, &Value::Empty),
    }
    Some(u32::try_from(at).unwrap_or(NO_HINT))
}

/// `StoreField` on an object named by its id (see [`load_field`]): `$a[%i].f = v`, `%o.f = v`
/// where `v` may change `%o`. The common case calls nothing (as [`store_field_l`]'s): a
/// number popped over the dynamic field at the hint, which holds no text, of an integer id
/// of the dense table below it; anything else is [`store_field_slow`]'s.
#[inline(never)]
fn store_field(vm: &mut VmState, objects: &mut ObjectStore, n: Name, keep: bool, hint: u32) -> Option<u32> {
    if !keep
        && let Some(dst) =
            dense_field_mut(objects, vm.stack.get(vm.stack.len().wrapping_sub(2)), n, hint as usize)
        && !matches!(dst, Value::Str(_))
        && vm.stack.pop_num_over(dst)
    {
        // The object below it, an integer: nothing to drop.
        vm.stack.drop_top();
        return Some(hint);
    }
    store_field_slow(vm, objects, n, keep, hint)
}

/// [`store_field`]'s general case.
#[inline(never)]
fn store_field_slow(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    n: Name,
    keep: bool,
    hint: u32,
) -> Option<u32> {
    let at = vm.stack.len().wrapping_sub(2);
    let id = vm.stack.get(at).and_then(number_id)?;
    let o = objects.get_mut_split(id)?;
    let v = vm.stack.pop().unwrap_or_default();
    let kept = if keep { Some(v.clone()) } else { None };
    let found = set_field_hint(o.0, o.1, n, v, hint as usize);
    vm.stack.truncate(at);
    if let Some(k) = kept {
        vm.stack.push(k);
    }
    Some(u32::try_from(found).unwrap_or(NO_HINT))
}

/// `StoreGlobal` (as `Console::set_global_name`: `""` unsets; the table grows only for a value).
#[inline(always)]
fn store_global(vm: &mut VmState, globals: &mut Vec<Value>, n: Name, keep: bool) {
    let i = n.0 as usize;
    if i >= globals.len() {
        store_global_grow(vm, globals, i, keep);
        return;
    }
    let (Some(dst), Some(top)) = (globals.get_mut(i), vm.stack.last_mut()) else { return };
    if keep {
        crate::value::assign(dst, top);
    } else {
        crate::value::move_into(dst, top);
        vm.stack.truncate(vm.stack.len() - 1);
    }
}

/// `$g = $g ar y` ([`GStore::ArithI`], [`GStore::ArithL`]): what `LoadGlobal`, the operator on
/// the top and `StoreGlobal(g, Pop)` do (an unset global reads as `""`, so as 0, and the number
/// written makes it).
#[inline(never)]
fn arith_global(globals: &mut Vec<Value>, g: Name, ar: Arith, y: Num) {
    let i = g.0 as usize;
    if i >= globals.len() {
        globals.resize(i + 1, Value::Empty);
    }
    if let Some(dst) = globals.get_mut(i) {
        let r = ar.num(Num::of(Some(dst)), y);
        dst.set_num(r);
    }
}

#[cold]
#[inline(never)]
fn store_global_grow(vm: &mut VmState, globals: &mut Vec<Value>, i: usize, keep: bool) {
    let v = if keep {
        vm.stack.last_mut().map(|v| v.clone()).unwrap_or_default()
    } else {
        vm.stack.pop().unwrap_or_default()
    };
    if v.is_empty() {
        return;
    }
    globals.resize(i + 1, Value::Empty);
    if let Some(slot) = globals.get_mut(i) {
        *slot = v;
    }
}

/// `LoadFieldElem` on an object named by its id, a numeric index whose name was made,
/// trying the position `i + off` first: the site's next `off`, or `None` (nothing changed)
/// for the interpreter.
#[inline(never)]
fn load_field_elem(
    vm: &mut VmState,
    objects: &ObjectStore,
    names: &ElemNames,
    b: Name,
    off: u32,
) -> Option<u32> {
    let at = vm.stack.len().wrapping_sub(2);
    let i = vm.stack.get(at + 1).and_then(direct_index)?;
    let n = names.get(b, i)?;
    let o = vm.stack.get(at).and_then(number_id).and_then(|id| objects.get(id))?;
    let (v, pos) = field_ref_hint(&objects.classes, o, n, i.wrapping_add(off) as usize);
    vm.stack.truncate(at);
    vm.stack.push_ref(v);
    Some(elem_offset(pos, i, off))
}

/// The cache of a field element site after finding index `i` at `pos` (kept when not found).
#[inline(always)]
fn elem_offset(pos: usize, i: u32, off: u32) -> u32 {
    match u32::try_from(pos) {
        Ok(p) if pos != usize::MAX => p.wrapping_sub(i),
        _ => off,
    }
}

/// `StoreFieldElem` (see [`load_field_elem`]).
#[inline(never)]
fn store_field_elem(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    names: &ElemNames,
    b: Name,
    keep: bool,
    off: u32,
) -> Option<u32> {
    let at = vm.stack.len().wrapping_sub(3);
    let i = vm.stack.get(at + 1).and_then(direct_index)?;
    let n = names.get(b, i)?;
    let id = vm.stack.get(at).and_then(number_id)?;
    let (classes, o) = objects.get_mut_split(id)?;
    let v = vm.stack.pop().unwrap_or_default();
    vm.stack.truncate(at);
    if keep {
        vm.stack.push(v.clone());
    }
    let pos = set_field_hint(classes, o, n, v, i.wrapping_add(off) as usize);
    Some(elem_offset(pos, i, off))
}

/// `$a[%i, %j]` read with numeric indexes whose row was made (by the interpreter).
#[inline(never)]
fn load_elem2(vm: &mut VmState, elems: &ElemStore, rows: &Rows, b: Name) -> bool {
    let at = vm.stack.len().wrapping_sub(2);
    let (Some(r), Some(j)) =
        (vm.stack.get(at).and_then(direct_index), vm.stack.get(at + 1).and_then(direct_index))
    else {
        return false;
    };
    let Some(row) = rows.get(b, r) else { return false };
    vm.stack.truncate(at);
    vm.stack.push_ref(elems.get_ref(row, j));
    true
}

/// `$a[%i, %j] = v` (see [`load_elem2`]).
#[inline(never)]
fn store_elem2(vm: &mut VmState, elems: &mut ElemStore, rows: &Rows, b: Name, keep: bool) -> bool {
    let at = vm.stack.len().wrapping_sub(3);
    let (Some(r), Some(j)) =
        (vm.stack.get(at).and_then(direct_index), vm.stack.get(at + 1).and_then(direct_index))
    else {
        return false;
    };
    let Some(row) = rows.get(b, r) else { return false };
    if let Some(top) = vm.stack.last_mut() {
        if keep {
            let v = top.clone();
            elems.set(row, j, v);
        } else {
            elems.set_from(row, j, top);
        }
    }
    // The value (or nothing) down to where the indexes were.
    if keep {
        let top = vm.stack.len() - 1;
        vm.stack.return_to(Some(top), at);
    } else {
        vm.stack.truncate(at);
    }
    true
}

/// The case every field site tries first: `id` an integer of the dense id table (no
/// hashing), the dynamic field `n` where the site's cache `hint` says, and no registered
/// field of that name (the class's bit alone). `None` for anything else, which the site's
/// general path handles. Inlined, so the sites' common paths still call nothing.
#[inline(always)]
fn dense_field<'o>(objects: &'o ObjectStore, id: Option<&Value>, n: Name, hint: usize) -> Option<&'o Value> {
    let &Value::Int(id) = id? else { return None };
    let o = objects.get_dense(id)?;
    let v = o.dynamic.at_hint(n, hint)?;
    (!objects.classes.get(o.class as usize).is_some_and(|c| c.field_index.may_have(n))).then_some(v)
}

/// [`dense_field`] to change.
#[inline(always)]
fn dense_field_mut<'o>(
    objects: &'o mut ObjectStore,
    id: Option<&Value>,
    n: Name,
    hint: usize,
) -> Option<&'o mut Value> {
    let &Value::Int(id) = id? else { return None };
    let (classes, o) = objects.get_dense_mut_split(id)?;
    if classes.get(o.class as usize).is_some_and(|c| c.field_index.may_have(n)) {
        return None;
    }
    o.dynamic.at_hint_mut(n, hint)
}

/// `LoadFieldL`: [`load_field`] on the object in the local at `at`, the value pushed.
/// The common case first: an integer id of the dense table, the dynamic field at the site's
/// hint, no registered field of that name (the bit alone), room on the stack. That path calls
/// nothing (every call here is the function's last act), so it saves no registers; anything
/// else is [`load_field_l_slow`]'s.
#[inline(never)]
fn load_field_l(vm: &mut VmState, objects: &ObjectStore, at: usize, n: Name, hint: u32) -> Option<u32> {
    if let Some(v) = dense_field(objects, vm.stack.local(at), n, hint as usize)
        && vm.stack.try_push_ref(v)
    {
        return Some(hint);
    }
    load_field_l_slow(vm, objects, at, n, hint)
}

/// [`load_field_l`]'s general case: any id, a field not at the hint or registered.
#[inline(never)]
fn load_field_l_slow(vm: &mut VmState, objects: &ObjectStore, at: usize, n: Name, hint: u32) -> Option<u32> {
    let o = vm.stack.local(at).and_then(number_id).and_then(|id| objects.get(id))?;
    let (v, found) = field_ref_hint_inline(&objects.classes, o, n, hint as usize);
    vm.stack.push_ref(v);
    Some(u32::try_from(found).unwrap_or(NO_HINT))
}

/// `StoreFieldL`: [`store_field`] on the object in the local at `at`, the value on top.
/// The common case calls nothing (as [`load_field_l`]'s): a number popped over the dynamic
/// field at the hint, which holds no text, of an integer id of the dense table; anything else
/// (a value kept on the stack, text, `""`) is [`store_field_l_slow`]'s.
#[inline(never)]
fn store_field_l(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    at: usize,
    n: Name,
    keep: bool,
    hint: u32,
) -> Option<u32> {
    if !keep
        && let Some(dst) = dense_field_mut(objects, vm.stack.local(at), n, hint as usize)
        && !matches!(dst, Value::Str(_))
        && vm.stack.pop_num_over(dst)
    {
        return Some(hint);
    }
    store_field_l_slow(vm, objects, at, n, keep, hint)
}

/// [`store_field_l`]'s general case.
#[inline(never)]
fn store_field_l_slow(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    at: usize,
    n: Name,
    keep: bool,
    hint: u32,
) -> Option<u32> {
    let id = vm.stack.local(at).and_then(number_id)?;
    let (classes, o) = objects.get_mut_split(id)?;
    let v = if keep {
        vm.stack.last_mut().map(|v| v.clone()).unwrap_or_default()
    } else {
        vm.stack.pop().unwrap_or_default()
    };
    let found = set_field_hint_inline(classes, o, n, v, hint as usize);
    Some(u32::try_from(found).unwrap_or(NO_HINT))
}

/// `LoadFieldLStore`: the field of the object in the local at `at.0` into the local at `at.1`.
/// The common case as [`load_field_l`]'s, into a local that does not hold text (whose drop
/// is a call); anything else is [`load_field_l_store_slow`]'s.
#[inline(never)]
fn load_field_l_store(
    vm: &mut VmState,
    objects: &ObjectStore,
    at: (usize, usize),
    n: Name,
    hint: u32,
) -> Option<u32> {
    if let Some(v) = dense_field(objects, vm.stack.local(at.0), n, hint as usize)
        && let Some(dst) = vm.stack.local_mut(at.1)
        && !matches!(dst, Value::Str(_))
    {
        crate::value::assign_plain(dst, v);
        return Some(hint);
    }
    load_field_l_store_slow(vm, objects, at, n, hint)
}

/// [`load_field_l_store`]'s general case.
#[inline(never)]
fn load_field_l_store_slow(
    vm: &mut VmState,
    objects: &ObjectStore,
    at: (usize, usize),
    n: Name,
    hint: u32,
) -> Option<u32> {
    let o = vm.stack.local(at.0).and_then(number_id).and_then(|id| objects.get(id))?;
    let (v, found) = field_ref_hint_inline(&objects.classes, o, n, hint as usize);
    let dst = vm.stack.local_mut(at.1)?;
    assign(dst, v.unwrap_or(&Value::Empty));
    Some(u32::try_from(found).unwrap_or(NO_HINT))
}

/// `StoreFieldLL`: a copy of the local at `at.1` into the field of the object in `at.0`.
/// The common case as [`load_field_l`]'s: a value that is not `""` copied over the dynamic
/// field at the site's hint, which does not hold text; anything else is
/// [`store_field_ll_slow`]'s.
#[inline(never)]
fn store_field_ll(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    at: (usize, usize),
    n: Name,
    hint: u32,
) -> Option<u32> {
    if let Some(src) = vm.stack.local(at.1)
        && !src.is_empty()
        && let Some(dst) = dense_field_mut(objects, vm.stack.local(at.0), n, hint as usize)
        && !matches!(dst, Value::Str(_))
    {
        crate::value::assign_plain(dst, src);
        return Some(hint);
    }
    store_field_ll_slow(vm, objects, at, n, hint)
}

/// [`store_field_ll`]'s general case.
#[inline(never)]
fn store_field_ll_slow(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    at: (usize, usize),
    n: Name,
    hint: u32,
) -> Option<u32> {
    let id = vm.stack.local(at.0).and_then(number_id)?;
    let (classes, o) = objects.get_mut_split(id)?;
    let v = vm.stack.local(at.1).cloned().unwrap_or_default();
    let found = set_field_hint(classes, o, n, v, hint as usize);
    Some(u32::try_from(found).unwrap_or(NO_HINT))
}

/// `ArithFieldL`: `%o.f = %o.f op y` on the object in local `o` of the frame at `fb`, the
/// field read and written in place (`None`, nothing changed, for an object the interpreter
/// must find). The common case first, as [`load_field_l`]'s: an integer id of the dense
/// table, a number in the dynamic field at the site's hint (no registered field of that
/// name), an operand that is a number; that path calls nothing. Anything else is
/// [`arith_field_l_slow`]'s.
#[inline(never)]
fn arith_field_l(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    (fb, o): (usize, u16),
    (ar, y): (Arith, FieldOperand),
    n: Name,
    hint: u32,
) -> Option<u32> {
    let stack = &vm.stack;
    let num = |s: u16| stack.local(fb + s as usize).and_then(crate::value::num_fast);
    if let Some(slot) = dense_field_mut(objects, stack.local(fb + o as usize), n, hint as usize)
        && let Some(cur) = crate::value::num_fast(slot)
    {
        // The operand read here, not through `FieldOperand::apply`'s closure (which the
        // compiler left a call of its own).
        let r = match y {
            FieldOperand::After(s) => match num(s) {
                Some(x) => ar.num(cur, x),
                None => return arith_field_l_slow(vm, objects, (fb, o), (ar, y), n, hint),
            },
            FieldOperand::Before(s) => match num(s) {
                Some(x) => ar.num(x, cur),
                None => return arith_field_l_slow(vm, objects, (fb, o), (ar, y), n, hint),
            },
            FieldOperand::Int(k) => ar.num(cur, Num::Int(i64::from(k))),
        };
        crate::value::put_num_raw(slot, r);
        return Some(hint);
    }
    arith_field_l_slow(vm, objects, (fb, o), (ar, y), n, hint)
}

/// [`arith_field_l`]'s general case: any id, any field (registered, elsewhere, missing),
/// any values (text read as its number).
#[inline(never)]
fn arith_field_l_slow(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    (fb, o): (usize, u16),
    (ar, y): (Arith, FieldOperand),
    n: Name,
    hint: u32,
) -> Option<u32> {
    let id = vm.stack.local(fb + o as usize).and_then(number_id)?;
    let (classes, obj) = objects.get_mut_split(id)?;
    let stack = &vm.stack;
    let found = arith_field_hint(classes, obj, n, hint as usize, |cur| {
        y.apply(ar, cur, |s| Num::of(stack.local(fb + s as usize)))
    });
    Some(u32::try_from(found).unwrap_or(NO_HINT))
}

/// `ArithFF`: `%a.f ar %b.g` with the objects in the locals `a` and `b` of the frame at `fb`,
/// the result pushed; the sites' caches `h` (a byte each). Returns both caches as the site's
/// next (`ha | hb << 8`), or `None` (nothing changed) for an object the interpreter must
/// find. The common case as [`load_field_l`]'s, for both fields, numbers in both: that path
/// calls nothing; anything else is [`arith_ff_slow`]'s.
#[inline(never)]
fn arith_ff(
    vm: &mut VmState,
    objects: &ObjectStore,
    (fb, a, b): (usize, u16, u16),
    ar: Arith,
    (na, nb): (Name, Name),
    (ha, hb): (u8, u8),
) -> Option<u32> {
    let field = |s: u16, n: Name, h: u8| {
        dense_field(objects, vm.stack.local(fb + s as usize), n, usize::from(h))
            .and_then(crate::value::num_fast)
    };
    if let Some(x) = field(a, na, ha)
        && let Some(y) = field(b, nb, hb)
        && vm.stack.try_push_num(ar.num(x, y))
    {
        return Some(u32::from(ha) | u32::from(hb) << 8);
    }
    arith_ff_slow(vm, objects, (fb, a, b), ar, (na, nb), (ha, hb))
}

/// [`arith_ff`]'s general case: any id, fields anywhere (registered or not there: `""`),
/// any values (text read as its number).
#[inline(never)]
fn arith_ff_slow(
    vm: &mut VmState,
    objects: &ObjectStore,
    (fb, a, b): (usize, u16, u16),
    ar: Arith,
    (na, nb): (Name, Name),
    (ha, hb): (u8, u8),
) -> Option<u32> {
    let find = |s: u16, n: Name, h: u8| {
        let o = vm.stack.local(fb + s as usize).and_then(number_id).and_then(|id| objects.get(id))?;
        let (v, at) = field_ref_hint_inline(&objects.classes, o, n, usize::from(h));
        let h = if at == usize::MAX { h } else { u8::try_from(at).unwrap_or(crate::bytecode::NO_HINT8) };
        Some((Num::of(Some(v.unwrap_or(&Value::Empty))), h))
    };
    let (x, ha) = find(a, na, ha)?;
    let (y, hb) = find(b, nb, hb)?;
    vm.stack.push_num(ar.num(x, y));
    Some(u32::from(ha) | u32::from(hb) << 8)
}

/// `LoadFieldElemLL`: [`load_field_elem`] with the object and index in the locals at `at`.
/// The common case first: the field at the site's position is tagged as element `i` of `b`
/// (`DynFields::elem_at`) and no registered field has its name, so neither the element's
/// name nor the field is looked up; otherwise [`load_field_elem_by_name`].
#[inline(never)]
fn load_field_elem_ll(
    vm: &mut VmState,
    objects: &ObjectStore,
    names: &ElemNames,
    at: (usize, usize),
    b: Name,
    off: u32,
) -> Option<u32> {
    let i = vm.stack.local(at.1).and_then(direct_index)?;
    let o = vm.stack.local(at.0).and_then(number_id).and_then(|id| objects.get(id))?;
    if let Some((n, v)) = o.dynamic.elem_at(b, i, i.wrapping_add(off) as usize)
        && !objects.classes.get(o.class as usize).is_some_and(|c| c.field_index.may_have(n))
    {
        vm.stack.push_ref(Some(v));
        return Some(off);
    }
    load_field_elem_by_name(vm, objects, names, o, (b, i), off)
}

/// [`load_field_elem_ll`] by the element's name (made before by the interpreter, else
/// `None`), tagging the dynamic field it finds as that element.
#[inline(never)]
fn load_field_elem_by_name(
    vm: &mut VmState,
    objects: &ObjectStore,
    names: &ElemNames,
    o: &SimObject,
    (b, i): (Name, u32),
    off: u32,
) -> Option<u32> {
    let n = names.get(b, i)?;
    let (v, pos) = field_ref_hint(&objects.classes, o, n, i.wrapping_add(off) as usize);
    if pos != usize::MAX {
        o.dynamic.tag_elem(pos, b, i);
    }
    vm.stack.push_ref(v);
    Some(elem_offset(pos, i, off))
}

/// `StoreFieldElemLL`: [`store_field_elem`] with the object and index in the locals at `at`.
/// The common case first, as [`load_field_elem_ll`]: a value that is not `""` written over
/// the tagged element at the site's position; otherwise [`store_field_elem_by_name`].
#[inline(never)]
fn store_field_elem_ll(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    names: &ElemNames,
    at: (usize, usize),
    b: Name,
    off: u32,
) -> Option<u32> {
    let i = vm.stack.local(at.1).and_then(direct_index)?;
    let id = vm.stack.local(at.0).and_then(number_id)?;
    let (classes, o) = objects.get_mut_split(id)?;
    let class = classes.get(o.class as usize);
    if let Some((n, slot)) = o.dynamic.elem_at_mut(b, i, i.wrapping_add(off) as usize)
        && !class.is_some_and(|c| c.field_index.may_have(n))
        && let Some(top) = vm.stack.last_mut()
        && !top.is_empty()
    {
        crate::value::move_into(slot, top);
        vm.stack.drop_top();
        return Some(off);
    }
    store_field_elem_by_name(vm, classes, o, names, (b, i), off)
}

/// `StoreFieldElemLLL`: [`store_field_elem_ll`] with the value in the local at `at.2` too
/// (copied, not moved).
#[inline(never)]
fn store_field_elem_lll(
    vm: &mut VmState,
    objects: &mut ObjectStore,
    names: &ElemNames,
    at: (usize, usize, usize),
    b: Name,
    off: u32,
) -> Option<u32> {
    let i = vm.stack.local(at.1).and_then(direct_index)?;
    let id = vm.stack.local(at.0).and_then(number_id)?;
    let (classes, o) = objects.get_mut_split(id)?;
    let class = classes.get(o.class as usize);
    let src = vm.stack.local(at.2);
    if let Some((n, slot)) = o.dynamic.elem_at_mut(b, i, i.wrapping_add(off) as usize)
        && !class.is_some_and(|c| c.field_index.may_have(n))
        && let Some(src) = src
        && !src.is_empty()
    {
        assign(slot, src);
        return Some(off);
    }
    let n = names.get(b, i)?;
    let v = src.cloned().unwrap_or_default();
    let pos = set_field_hint(classes, o, n, v, i.wrapping_add(off) as usize);
    if pos != usize::MAX {
        o.dynamic.tag_elem(pos, b, i);
    }
    Some(elem_offset(pos, i, off))
}

/// [`store_field_elem_ll`] by the element's name (see [`load_field_elem_by_name`]).
#[inline(never)]
fn store_field_elem_by_name(
    vm: &mut VmState,
    classes: &[ClassRec],
    o: &mut SimObject,
    names: &ElemNames,
    (b, i): (Name, u32),
    off: u32,
) -> Option<u32> {
    let n = names.get(b, i)?;
    let v = vm.stack.pop().unwrap_or_default();
    let pos = set_field_hint(classes, o, n, v, i.wrapping_add(off) as usize);
    if pos != usize::MAX {
        o.dynamic.tag_elem(pos, b, i);
    }
    Some(elem_offset(pos, i, off))
}

/// The row base and column of `$a[%r, %c]` with both indexes in locals (at `at`) when
/// they are numbers and the row was made.
#[inline(always)]
fn elem2_ll(vm: &VmState, rows: &Rows, b: Name, at: (usize, usize)) -> Option<(Name, u32)> {
    let r = vm.stack.local(at.0).and_then(direct_index)?;
    let j = vm.stack.local(at.1).and_then(direct_index)?;
    rows.get(b, r).map(|row| (row, j))
}

/// `LoadGlobalElemLL` (see [`load_elem2`]).
#[inline(never)]
fn load_elem2_ll(vm: &mut VmState, elems: &ElemStore, rows: &Rows, b: Name, at: (usize, usize)) -> bool {
    let Some((row, j)) = elem2_ll(vm, rows, b, at) else { return false };
    vm.stack.push_ref(elems.get_ref(row, j));
    true
}

/// `StoreGlobalElemLL`: the value on top moves into the element.
#[inline(never)]
fn store_elem2_ll(vm: &mut VmState, elems: &mut ElemStore, rows: &Rows, b: Name, at: (usize, usize)) -> bool {
    let Some((row, j)) = elem2_ll(vm, rows, b, at) else { return false };
    if let Some(top) = vm.stack.last_mut() {
        elems.set_from(row, j, top);
    }
    vm.stack.drop_top();
    true
}

/// `Cat`: the top two values joined by `sep` in place of them, or false (nothing changed)
/// when the result would pass [`crate::value::MAX_STRING_LEN`]. The left string is appended
/// to in place when nothing else holds it.
#[inline(never)]
fn cat_top(vm: &mut VmState, sep: Sep) -> bool {
    let n = vm.stack.len();
    let (Some(a), Some(b)) =
        (n.checked_sub(2).and_then(|i| vm.stack.get(i)), vm.stack.get(n.wrapping_sub(1)))
    else {
        return false;
    };
    if a.text_len_hint() + 1 + b.text_len_hint() > crate::value::MAX_STRING_LEN {
        return false;
    }
    let b = vm.stack.pop().unwrap_or_default();
    let a = vm.stack.pop().unwrap_or_default();
    // A string shared with a constant or a variable (`"key" @ %i`) is copied into a buffer
    // sized for the result once (`Rc::make_mut` copied it exactly, and the append then grew
    // it again: two allocations and a copy more per concatenation).
    let extra = 1 + b.text_len_hint().min(64);
    let mut st = match a {
        Value::Str(rc) if Rc::strong_count(&rc) == 1 && Rc::weak_count(&rc) == 0 => rc,
        Value::Str(rc) => {
            let mut s = String::with_capacity(rc.len() + extra);
            s.push_str(&rc);
            Rc::new(s)
        }
        other => {
            let mut s = String::with_capacity(24 + extra);
            other.write_to(&mut s);
            Rc::new(s)
        }
    };
    let buf = Rc::make_mut(&mut st);
    if let Some(c) = sep.ch() {
        buf.push(c);
    }
    b.write_to(buf);
    vm.stack.push(if buf.is_empty() { Value::Empty } else { Value::Str(st) });
    true
}

/// A frame's first local array: its table of dynamic locals, made out of line.
#[cold]
#[inline(never)]
fn new_dyn_locals(d: &mut Option<Box<crate::stack::DynLocals>>) -> &mut crate::stack::DynLocals {
    d.get_or_insert_with(Default::default)
}

/// `a $= b`: the texts equal ignoring ASCII case. Decided inline when it can be cheaply (the
/// same string; different lengths; different first letters, folded), the rest out of line:
/// a `switch$` tries its cases in turn and most of them differ at once (the out-of-line call
/// for every case was a fifth of the `switch$` program).
#[inline(always)]
fn text_eq(a: &Value, b: &Value) -> bool {
    if let (Value::Str(x), Value::Str(y)) = (a, b) {
        if Rc::ptr_eq(x, y) {
            return true;
        }
        let (x, y) = (x.as_bytes(), y.as_bytes());
        // Bytes equal ignoring ASCII case are equal after `| 0x20` (the converse does not
        // hold, so a match there still compares the whole text).
        if x.len() != y.len() || x.first().map(|c| c | 0x20) != y.first().map(|c| c | 0x20) {
            return false;
        }
    }
    text_eq_other(a, b)
}

#[inline(never)]
fn text_eq_other(a: &Value, b: &Value) -> bool {
    match (a, b) {
        // Byte-equal first (`memcmp`; a `switch$` case that matches is usually written as
        // the text it meets), then ignoring case.
        (Value::Str(x), Value::Str(y)) => x == y || x.eq_ignore_ascii_case(y),
        (Value::Empty, Value::Empty) => true,
        _ => a.as_text().eq_ignore_ascii_case(&b.as_text()),
    }
}

/// [`enter`] for a call of `f`, the running function, resolved in namespace `at.0` at layer `at.1`.
#[inline(always)]
fn enter_self(
    vm: &mut VmState,
    budget: &mut u64,
    f: &Rc<FuncDef>,
    at: (NsId, u32),
    argc: usize,
    ret_pc: usize,
    max_depth: usize,
) -> Option<usize> {
    let cost = f.call_cost();
    if vm.frames.len() >= max_depth || *budget < cost || argc > MAX_ARGS {
        return None;
    }
    *budget -= cost;
    let start = vm.stack.len().saturating_sub(argc);
    vm.call_frame(f, start, at.0, at.1, ret_pc);
    Some(start)
}

/// Starts the frame of a cached script callee whose `argc` arguments are on the stack (the
/// caller resumes at `ret_pc`): the callee and its base, or `None` with nothing changed when
/// the interpreter must make the call (not cached, Rust, too deep, budget spent).
#[inline(always)]
fn enter(
    vm: &mut VmState,
    budget: &mut u64,
    res: Option<ScriptCallee>,
    argc: usize,
    ret_pc: usize,
    max_depth: usize,
) -> Option<(Rc<FuncDef>, usize)> {
    let (f, ns, layer) = res?;
    let cost = f.call_cost();
    if vm.frames.len() >= max_depth || *budget < cost || argc > MAX_ARGS {
        return None;
    }
    *budget -= cost;
    let start = vm.stack.len().saturating_sub(argc);
    vm.call_frame(&f, start, ns, layer, ret_pc);
    Some((f, start))
}

#[cfg(test)]
mod tests {
    use crate::bytecode::{Code, Op, OpCell};
    use crate::compiler::compile_source;

    /// The field sites' common cases (`LoadFieldL`, `LoadFieldLStore`, `StoreFieldLL`: an
    /// integer id of the dense table, the field at the site's hint, no registered field of
    /// its name, no text to drop) and everything they leave to the general path give what
    /// the general path gives: ids as text, as doubles and as names; text in the destination
    /// local and in the field; `""` stored (the field goes); a deleted object whose slot a
    /// new object took; objects whose fields lie in other orders through the same sites; a
    /// field registered for the class after objects had a dynamic field of that name.
    #[test]
    fn field_fast_paths_give_what_the_general_path_gives() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(
            "function rd(%o) { %x = \"text\" @ %o; %x = %o.v; return %x; }
             function wr(%o, %v) { %o.v = %v; }
             function sum(%o) { %d = %o.v; return %d + %o.w; }
             function both(%o) { return %o.v SPC %o.w; }",
        )
        .expect("declares");
        let run = |con: &mut Console, src: &str| con.eval(src).expect("runs").to_string();
        // Two objects, their fields in other orders: the sites' hints move between them.
        run(
            &mut con,
            "$a = new ScriptObject(Named) { v = 5; w = 2; }; $b = new ScriptObject() { w = 4; v = 3; };",
        );
        for _ in 0..3 {
            assert_eq!(run(&mut con, "return rd($a) SPC rd($b) SPC sum($a) SPC sum($b);"), "5 3 7 7");
        }
        // The id as text, as a double, by name (the general path's, or the interpreter's).
        assert_eq!(run(&mut con, "return rd($a @ \"\") SPC rd($a + 0.0) SPC rd(\"Named\");"), "5 5 5");
        assert_eq!(run(&mut con, "return sum($a @ \"\") SPC sum($a * 1.0) SPC sum(Named);"), "7 7 7");
        // Stores: a number over a number, text over a number, a number over text, `""`.
        run(&mut con, "wr($a, 8); wr($a, 9);");
        assert_eq!(run(&mut con, "return both($a);"), "9 2");
        run(&mut con, "wr($a, \"abc\");");
        assert_eq!(run(&mut con, "return rd($a) SPC both($a);"), "abc abc 2");
        run(&mut con, "wr($a, 6);");
        assert_eq!(run(&mut con, "return rd($a) SPC sum($a);"), "6 8");
        run(&mut con, "wr($a, \"\");");
        assert_eq!(run(&mut con, "return \"[\" @ rd($a) @ \"]\" SPC $a.w SPC sum($a);"), "[] 2 2");
        run(&mut con, "wr($a, 1); wr($a @ \"\", 12); wr(Named, 13);");
        assert_eq!(run(&mut con, "return rd($a) SPC both($a);"), "13 13 2");
        // A deleted object: its id names nothing, though a new object takes its slot.
        run(
            &mut con,
            "$c = new ScriptObject() { v = 21; w = 1; }; $old = $c; rd($c); wr($c, 22); $c.delete();",
        );
        run(&mut con, "$d = new ScriptObject() { v = 31; w = 1; };");
        assert_eq!(run(&mut con, "return \"[\" @ rd($old) @ \"]\" SPC rd($d) SPC sum($d);"), "[] 31 32");
        run(&mut con, "wr($old, 40);");
        assert_eq!(run(&mut con, "return rd($d) SPC \"[\" @ $old.v @ \"]\";"), "31 []");
        // A field registered afterwards hides the dynamic field of its name.
        assert_eq!(run(&mut con, "return both($b);"), "3 4");
        assert!(con.add_field("ScriptObject", "w", crate::field_types::FieldType::Int, Value::Int(0)));
        assert_eq!(run(&mut con, "return \"[\" @ both($b) @ \"]\" SPC sum($b);"), "[3 ] 3");
    }

    /// Elements by a text index, read and written in turn through the one name buffer the
    /// interpreter keeps (given back after stores too): globals and locals, one and two
    /// indexes, a name longer than the buffer kept, the variables seen by their text names.
    #[test]
    fn text_index_elements_through_the_kept_name_buffer() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(
            "function t(%n) { %long = \"k\"; for (%i = 0; %i < 11; %i++) %long = %long @ %long;\n\
             for (%i = 0; %i < %n; %i++) { %k = \"p\" @ (%i % 3); $s[%k] += 1; %l[%k] += 2; $g[%k, \"x\"] = $g[%k, \"x\"] + 3;\n\
             $s[%long] = %i; %l[%long] = %i * 2; }\n\
             return $s[\"p0\"] SPC $s[\"p2\"] SPC %l[\"p1\"] SPC $g[\"p1\", \"x\"] SPC $s[%long] SPC %l[%long] SPC strlen(%long); }",
        )
        .expect("declares");
        let r = con.eval("return t(10) SPC $sp0 SPC $gp2_x;").expect("runs").to_string();
        assert_eq!(r, "4 3 6 9 9 18 2048 4 9");
    }

    /// `StoreField` (the object on the stack: `$objs[%i].v = x`) in its common case (a number
    /// over a field without text of an integer id of the dense table, at the site's hint) and
    /// what it leaves to the general path (text, `""`, a field holding text, the value kept,
    /// ids as text and names, fields in other orders, a deleted object)
    /// gives what `%o.v = x` through a local gives.
    #[test]
    fn field_stores_on_stack_objects_give_what_stores_through_a_local_give() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(
            "function viaStack(%i, %x) { $objs[%i].v = %x; return $objs[%i].v; }
             function viaStackKeep(%i, %x) { %y = $objs[%i].v = %x * 2; return %y SPC $objs[%i].v; }
             function viaLocal(%o, %x) { %o.v = %x; return %o.v; }
             function viaLocalKeep(%o, %x) { %y = %o.v = %x * 2; return %y SPC %o.v; }",
        )
        .expect("declares");
        let run = |con: &mut Console, src: &str| con.eval(src).expect("runs").to_string();
        run(
            &mut con,
            "$objs[0] = new ScriptObject(Named0) { v = 1; w = 2; }; $objs[1] = new ScriptObject() { w = 3; v = 4; };\n\
             $objs[2] = new ScriptObject() { w = 1; }; $objs[3] = \"Named0\"; $objs[4] = $objs[1] @ \"\";\n\
             $refs[0] = new ScriptObject(Named1) { v = 1; w = 2; }; $refs[1] = new ScriptObject() { w = 3; v = 4; };\n\
             $refs[2] = new ScriptObject() { w = 1; }; $refs[3] = \"Named1\"; $refs[4] = $refs[1] @ \"\";",
        );
        let vals = ["5", "2.5", "\"text\"", "\"\"", "-3", "\"7\"", "0"];
        for round in 0..3 {
            for i in 0..5 {
                for x in vals {
                    let a = run(&mut con, &format!("return viaStack({i}, {x}) SPC viaStackKeep({i}, {x});"));
                    let b = run(
                        &mut con,
                        &format!("return viaLocal($refs[{i}], {x}) SPC viaLocalKeep($refs[{i}], {x});"),
                    );
                    assert_eq!(a, b, "round {round}, object {i}, value {x}");
                }
            }
        }
        // A deleted object: nothing stored, nothing read.
        run(&mut con, "$objs[1].delete(); $refs[1].delete();");
        assert_eq!(run(&mut con, "return \"[\" @ viaStack(1, 5) @ \"]\";"), "[]");
        assert_eq!(run(&mut con, "return \"[\" @ viaLocal($refs[1], 5) @ \"]\";"), "[]");
    }

    /// `%o.f = value` with the value computed on the stack (`StoreFieldL`) and a field of an
    /// object on the stack (`LoadField`: a call's result, an element): their common cases (a
    /// number popped over a field without text; an integer id of the dense table) and what
    /// they leave to the general path (a value kept, text, `""`, a field holding text, ids as
    /// text and names, a deleted object) give what the general path gives.
    #[test]
    fn field_stores_of_computed_values_and_reads_of_stack_objects() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(
            "function put(%o, %a, %b) { %o.v = %a * %b; }
             function putk(%o, %a) { %x = %o.v = %a - 1; return %x; }
             function putt(%o, %a) { %o.v = %a @ \"s\"; }
             function Obj::me(%this) { return %this; }
             function viaCall(%o) { return %o.me().v; }
             function viaElem(%i) { return $objs[%i].v; }",
        )
        .expect("declares");
        let run = |con: &mut Console, src: &str| con.eval(src).expect("runs").to_string();
        run(&mut con, "$a = new ScriptObject(Named) { class = Obj; w = 1; v = 2; }; $objs[0] = $a;");
        run(&mut con, "$b = new ScriptObject() { class = Obj; v = 5; w = 0; }; $objs[1] = $b;");
        for _ in 0..2 {
            run(&mut con, "put($a, 3, 4); put($b, 0.5, 3);");
            assert_eq!(
                run(&mut con, "return $a.v SPC $b.v SPC viaCall($a) SPC viaElem(1);"),
                "12 1.5 12 1.5"
            );
        }
        assert_eq!(run(&mut con, "return putk($a, 7) SPC $a.v;"), "6 6");
        run(&mut con, "putt($a, 4);");
        assert_eq!(run(&mut con, "return $a.v SPC viaElem(0);"), "4s 4s");
        run(&mut con, "put($a, 2, 2);");
        assert_eq!(run(&mut con, "return $a.v SPC viaCall($a);"), "4 4");
        run(&mut con, "putt($a, \"\"); put($a @ \"\", 3, 3); put(Named, 1, 5);");
        assert_eq!(
            run(&mut con, "return $a.v SPC $a.w SPC viaCall(Named) SPC viaCall($a @ \"\");"),
            "5 1 5 5"
        );
        run(&mut con, "$a.v = \"\";");
        assert_eq!(run(&mut con, "return \"[\" @ viaElem(0) @ \"]\";"), "[]");
        run(&mut con, "put($a, 2, 3);");
        assert_eq!(run(&mut con, "return $a.v SPC $a.w SPC viaElem(0);"), "6 1 6");
        run(&mut con, "$old = $b; $b.delete(); $c = new ScriptObject() { v = 9; };");
        run(&mut con, "put($old, 2, 2);");
        assert_eq!(run(&mut con, "return \"[\" @ viaElem(1) @ \"]\" SPC $c.v;"), "[] 9");
    }

    /// `%a.f op %b.g` (`ArithFF`: both fields read and the operator applied in one
    /// instruction, the sites' caches a byte each) gives what two reads into locals and the
    /// operator give, for every operator, on numbers, numeric and other text, missing and
    /// registered fields, ids as text, doubles and names, a deleted object and none, and a
    /// field past the 255 positions a byte cache names.
    #[test]
    fn field_pairs_with_an_operator_give_what_two_reads_give() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        let mut src = String::new();
        for (name, op) in [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")] {
            src.push_str(&format!(
                "function f{name}(%a, %b, %f, %g) {{ return %a.v {op} %b.w; }}
                 function s{name}(%a, %b) {{ %x = %a.v; %y = %b.w; return %x {op} %y; }}\n"
            ));
        }
        src.push_str("function fcls(%a, %b) { return %a.class + %b.w; } function scls(%a, %b) { %x = %a.class; %y = %b.w; return %x + %y; }\n");
        let main = compile_source(&src, "t.cs", &mut con.names).expect("compiles");
        let fused = |name: &str| {
            main.decls.iter().any(|f| {
                con.names.text(f.name) == name
                    && f.code.iter().any(|c| matches!(c.get(), Op::ArithFF { ha: 255, hb: 255, .. }))
            })
        };
        for name in ["fadd", "fsub", "fmul", "fdiv", "fcls"] {
            assert!(fused(name), "{name} reads both fields in one instruction");
        }
        assert!(!fused("sadd"), "reads into locals stay apart");
        con.eval(&src).expect("declares");
        let run = |con: &mut Console, src: &str| con.eval(src).expect("runs").to_string();
        run(
            &mut con,
            "$p = new ScriptObject(Pn) { class = 7; v = 6; w = 4; }; $q = new ScriptObject() { w = 2.5; v = 1; };
             $t = new ScriptObject() { v = \"3.5x\"; w = \"abc\"; }; $e = new ScriptObject() { z = 1; };
             $gone = new ScriptObject() { v = 1; w = 1; }; $gone.delete();
             $big = new ScriptObject(); for (%i = 0; %i < 300; %i++) $big.f[%i] = %i; $big.v = 9; $big.w = 8;",
        );
        let objs =
            ["$p", "$q", "$t", "$e", "$big", "$gone", "0", "999999", "$p @ \"\"", "$q * 1.0", "Pn", "\"Pn\""];
        for name in ["add", "sub", "mul", "div", "cls"] {
            for a in objs {
                for b in objs {
                    // Twice: the second run goes through the caches the first one wrote.
                    for _ in 0..2 {
                        let f = run(&mut con, &format!("return f{name}({a}, {b});"));
                        let s = run(&mut con, &format!("return s{name}({a}, {b});"));
                        assert_eq!(f, s, "{name}({a}, {b})");
                    }
                }
            }
        }
        assert_eq!(run(&mut con, "return fadd($p, $q) SPC fmul($big, $p) SPC fcls($p, $q);"), "8.5 36 9.5");
    }

    /// Integer operator pairs with arms of their own in `run_tight` (`Z`: where a test puts a
    /// statement in the loop's body).
    const PAIRS: &str = "function p(%n, %s) { %h = %s; %r = 0; for (%i = -3; %i < %n; %i++) { %g = %h & (%i % 5); %q = %g | (%i % 3); %h = %h ^ (%i % 9); %r = (%q << 29) + %i; %w = ((%h << 30) + %r) & 1023; Z } return %h SPC %g SPC %q SPC %r SPC %w; }";
    use crate::{BufferSink, Console, Value};
    use std::rc::Rc;

    /// Compiles `src` in `con`, gives its first function the instructions `ops` in place of
    /// its own, and runs the file (declaring the function).
    fn load_with(con: &mut Console, src: &str, ops: Vec<Op>) {
        let mut main = compile_source(src, "t.cs", &mut con.names).expect("compiles");
        let f =
            Rc::get_mut(&mut main).and_then(|m| m.decls.first_mut()).and_then(Rc::get_mut).expect("unshared");
        f.code = Code::new(ops);
        f.cost = crate::bytecode::FuncDef::cost_of(&f.code);
        con.run_toplevel(main, None).expect("declares");
    }

    /// The fast loop reads locals without a bounds check: code naming slots past its frame's
    /// `nlocals` (no compiler makes it, a hand-built function can) still reads `""` and
    /// writes in bounds, since the loop reserves the code's `slot_end` above the frame; code
    /// naming slots past `MAX_FAST_SLOTS` never enters the loop (the interpreter runs it,
    /// with its checked reads). Debug builds assert every unchecked slot is reserved.
    #[test]
    fn locals_past_the_frame_stay_in_bounds() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        // `f()` has no locals; its code reads slot 40 and writes slots 41 and 42.
        // It returns 7 when slot 42 reads at least 1 (a return reads only below the top).
        let ops = vec![
            Op::IncLocal(41, 1, false),
            Op::ArithLLStore(crate::bytecode::Arith::Add, 40, 41, 42),
            Op::JumpCmpLI(crate::bytecode::Cmp::Lt, false, 42, 1, 5),
            Op::Int(5),
            Op::Return,
            Op::Int(7),
            Op::Return,
        ];
        load_with(&mut con, "function f() { return 0; }", ops);
        assert_eq!(con.eval("return f();").expect("runs").to_string(), "7");
        // Slots above the top written by such code are left as written (as before the
        // unchecked reads): what matters here is that nothing reads or writes out of bounds.
        assert!(con.eval("return f() + f();").is_ok());

        let far = u32::try_from(super::MAX_FAST_SLOTS).expect("fits") + 7;
        let ops = vec![Op::IncLocal(far, 2, false), Op::ReturnLocal(far)];
        load_with(&mut con, "function g() { return 0; }", ops);
        assert_eq!(
            con.eval("return g();").expect("runs").to_string(),
            "",
            "past the cap: the interpreter's reads"
        );
    }

    /// The fast loop fetches without a bounds check: code that runs off its end (no
    /// terminating return), jumps past it forward or "backward", or is empty stops at the
    /// sentinel, and the interpreter returns from it as before. Debug builds assert every
    /// fetch is at or below the sentinel.
    #[test]
    fn code_off_its_end_stays_in_bounds() {
        use crate::bytecode::Cmp;
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        let cases: [(&str, Vec<Op>); 5] = [
            ("a", vec![Op::Int(1), Op::StoreLocal(0, false)]),
            ("b", vec![Op::Jump(900)]),
            ("c", vec![Op::Int(0), Op::StoreLocal(0, false), Op::IncJumpLtLI(0, 1, 3.0, 77)]),
            ("d", vec![Op::IncJumpCmpLI(0, 1, Cmp::Lt, 5, 4000)]),
            ("e", vec![]),
        ];
        for (name, ops) in cases {
            load_with(&mut con, &format!("function {name}() {{ return 0; }}"), ops);
            let call = format!("return {name}() @ \"|\" @ {name}();");
            assert_eq!(con.eval(&call).expect("runs").to_string(), "|", "{name}: returns nothing");
        }
        // Called from a loop in script code (the fast loop's calls and returns).
        con.eval("function h(%n) { for (%i = 0; %i < %n; %i++) { a(); b(); c(); d(); e(); } return %i; }")
            .expect("declares");
        assert_eq!(con.eval("return h(50);").expect("runs").to_string(), "50");
    }

    /// `& k` and `| k` stored into a local, and `(local << k) op local`, have arms of their
    /// own (no operator dispatch): they read their operands as every integer operator does.
    #[test]
    fn mask_and_flag_stores_read_as_integers() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval("function m(%x, %y) { %a = (%x ^ %y) & 12; %b = (%x ^ %y) | 3; %c = (%x ^ %y) % 5; return %a SPC %b SPC %c; }")
            .expect("declares");
        for (args, want) in [
            ("13, 0", "12 15 3"),
            ("-1, 0", "12 -1 -1"),
            ("\"7abc\", 0", "4 7 2"),
            ("\"\", \"\"", "0 3 0"),
            ("2.9, 0", "0 3 2"),
            ("6, 6", "0 3 0"),
        ] {
            let got = con.eval(&format!("return m({args});")).expect("runs").to_string();
            assert_eq!(got, want, "m({args})");
        }
        // `(%x << k) op %y` (`ArithIL` with `<<`, which has its own arm too).
        con.eval("function s(%x, %y) { return (%x << 3) + %y; }").expect("declares");
        for (args, want) in [
            ("1, 2", "10"),
            ("\"2\", 0.5", "16.5"),
            ("-1, 0", "-8"),
            ("2147483647, 0", "-8"),
            ("\"\", \"\"", "0"),
        ] {
            let got = con.eval(&format!("return s({args});")).expect("runs").to_string();
            assert_eq!(got, want, "s({args})");
        }
    }

    /// Loops of numbers run in `run_tight`; text, `""`, unset and sparse elements, counters
    /// crossing 10^6 and too little stack leave an instruction to the fast loop and the loop
    /// comes back. Each program runs twice: as written (its loops tight) and with a string
    /// append in each loop body, which keeps the loop out of `run_tight`; the results agree.
    #[test]
    fn tight_loops_compute_what_the_fast_loop_does() {
        let programs = [
            // Integer operators from a text seed, a `""` operand and `%` by zero.
            "function p(%n, %s) { %h = %s; for (%i = 0; %i < %n; %i++) { %h = ((%h << 5) + %i) & 65535; %h = %h ^ (%i % 7) | %u; %k = %i % 0; Z } return %h SPC %k; }",
            // A bound and a step operand that are text.
            "function p(%n, %s) { %t = 0; for (%i = 0; %i < %s; %i += 2) { %t = %t + %i * 3; Z } return %t; }",
            // A counter past 10^6 (an integer becoming a double), sums in doubles.
            "function p(%n, %s) { %t = 0.5; for (%i = 999990; %i < 1000010; %i++) { %t += %i / 4; Z } return %i SPC %t; }",
            // A global array with text, unset, sparse and negative indexes.
            "function p(%n, %s) { for (%i = 0; %i < %n; %i++) { $tl[%i] = %i * 2; Z } $tl[3] = %s; $tl[%n + 500] = 9; %t = 0; for (%i = 0; %i < %n + 600; %i++) { if ($tl[%i]) %t += $tl[%i]; Z } for (%i = -3; %i < 2; %i++) { %t += $tl[%i]; Z } return %t; }",
            // The sieve's shape, with a text mark.
            "function p(%n, %s) { for (%i = 0; %i <= %n; %i++) { $sv[%i] = 1; Z } $sv[4] = %s; %c = 0; for (%i = 2; %i * %i <= %n; %i++) { if ($sv[%i]) for (%j = %i * %i; %j <= %n; %j += %i) { $sv[%j] = 0; Z } } for (%i = 0; %i <= %n; %i++) { if ($sv[%i]) %c++; Z } return %c; }",
            // A local array with text elements, and an unset local.
            "function p(%n, %s) { for (%i = 0; %i < %n; %i++) { %a[%i] = %i * 2; Z } %a[5] = %s; %t = %w; for (%i = 0; %i < %n; %i++) { %t += %a[%i]; Z } return %t; }",
            // Two indexes, a text element, rows made in turn.
            "function p(%n, %s) { for (%i = 0; %i < 9; %i++) for (%j = 0; %j < 9; %j++) { $gr[%i, %j] = %i + %j; Z } $gr[2, 3] = %s; %t = 0; for (%i = 0; %i < 9; %i++) for (%j = 0; %j < 9; %j++) { %t += $gr[%i, %j]; Z } return %t; }",
            // Stack-form operators and comparisons, `while` loops, conditions on the stack.
            "function p(%n, %s) { %i = 0; %t = 0; while (%i < %n * 2) { %t = %t + (%i < 5) + (%i >= %s) - (%i == 3) * 4 + %i / 2 - (%i % 3 == 1 ? 1 : 0); %i++; Z } return %t; }",
            // Deep recursion of stack values: `((a + b) * (c - d))` chains.
            "function p(%n, %s) { %t = 1; for (%i = 1; %i < %n; %i++) { %t = ((%t + %i) * (%i - 1) + (%i * (%i + (%i * (%i - 2))))) % 100000; Z } return %t; }",
            // The operator pairs with arms of their own (`tight_operator_pairs_compile`), from
            // negative and text operands, past 32 bits.
            PAIRS,
            // Globals as counters and a global bound (`run_tight`'s copy with the globals):
            // text, `""` and unset globals, updates by a literal and by a local, a plain store.
            GLOBALS,
            // Two rows read in turn, indexes computed on the stack (`run_tight_rows`).
            ROWS,
            // An insertion sort of a local array, `%a[%j + 1] = %a[%j]` (`run_tight_locals`).
            SORT,
        ];
        for (k, src) in programs.iter().enumerate() {
            // The program as written has a tight loop; with the append in its bodies, none.
            let mut names = crate::intern::Interner::default();
            let tight = |src: &str, names: &mut crate::intern::Interner| {
                let main = compile_source(src, "t.cs", names).expect("compiles");
                let f = main.decls.first().expect("p");
                (0..f.code.len()).any(|pc| f.code.tight_head(pc))
            };
            assert!(tight(&src.replace('Z', ""), &mut names), "program {k} has a tight loop");
            assert!(!tight(&src.replace('Z', "%z = %z @ \"\";"), &mut names), "program {k} appended");
            for (n, text) in [("40", "\"12abc\""), ("40", "\"\""), ("7", "\"3\""), ("100", "2.5")] {
                let mut results = Vec::new();
                for body in ["", "%z = %z @ \"\";"] {
                    let mut con = Console::new();
                    con.set_output(Box::new(BufferSink::new()));
                    con.set_instruction_budget(u64::MAX);
                    con.eval(&src.replace('Z', body)).expect("declares");
                    let r = con.eval(&format!("return p({n}, {text});")).expect("runs").to_string();
                    results.push(r);
                }
                assert_eq!(results[0], results[1], "program {k} with ({n}, {text})");
            }
        }
    }

    /// The program of `tight_loops_compute_what_the_fast_loop_does` with globals by name.
    const GLOBALS: &str = "function p(%n, %s) { $gc = 0; $gt = %s; $gx = \"\"; $gb = %n; $gu = \"\"; %t = 0; \
        for (%i = 0; %i < $gb; %i++) { $gc++; $gt += %i % 7; $gx = $gx + 1; if (%i & 1) $gu = $gu - 2; \
        $gd = %i * 2.5; %t = %t + $gd * $gc; $gt = $gt * 1; Z } return $gc SPC $gt SPC $gx SPC $gu SPC $gd SPC %t; }";

    /// The program of `tight_loops_compute_what_the_fast_loop_does` with two rows read in turn.
    const ROWS: &str = "function p(%n, %s) { for (%i = 0; %i < 9; %i++) for (%j = 0; %j < 9; %j++) \
        { $gq[%i, %j] = %i * %j; Z } $gq[2, 3] = %s; $gq[4, 20] = 1; %t = 0; for (%i = 1; %i < 9; %i++) \
        for (%j = 1; %j < 9; %j++) { $gq[%i, %j] += $gq[%i - 1, %j - 1] % 10; Z } \
        for (%i = 0; %i < 9; %i++) { %t += $gq[%i, 8 - %i] + $gq[%i, %j - 1] + $gq[%i + 0.5, 1]; Z } return %t; }";

    /// The program of `tight_loops_compute_what_the_fast_loop_does` with local elements
    /// written from the stack.
    const SORT: &str = "function p(%n, %s) { %x = 12345; for (%i = 0; %i < %n; %i++) { \
        %x = (%x * 1103 + 12345) % 65536; %a[%i] = %x; Z } %a[3] = %s; for (%i = 1; %i < %n; %i++) { \
        %v = %a[%i]; %j = %i - 1; while (%j >= 0 && %a[%j] > %v) { %a[%j + 1] = %a[%j]; %j--; Z } \
        %a[%j + 1] = %v; } %t = 0; for (%i = 0; %i < %n; %i++) { %t = (%t * 7 + %a[%i]) % 1000003; Z } return %t; }";

    /// A tight loop that names a global marks its code for `run_tight`'s copy with the
    /// globals' table, one that reads a row from the stack for the rows copy, one that writes a
    /// local element from the stack for the locals copy; one with none of them is not marked.
    #[test]
    fn tight_loops_with_globals_are_marked() {
        let mut names = crate::intern::Interner::default();
        let plain = "function p(%n) { %t = 0; for (%i = 0; %i < %n; %i++) %t += %i; return %t; }";
        for (src, globals, rows, locals) in [
            (GLOBALS.replace('Z', ""), true, false, false),
            (ROWS.replace('Z', ""), false, true, false),
            (SORT.replace('Z', ""), false, false, true),
            (plain.to_string(), false, false, false),
        ] {
            let main = compile_source(&src, "t.cs", &mut names).expect("compiles");
            let f = main.decls.first().expect("p");
            assert!((0..f.code.len()).any(|pc| f.code.tight_head(pc)), "{src}: a tight loop");
            assert_eq!(f.code.tight_globals(), globals, "{src}");
            assert_eq!(f.code.tight_rows(), rows, "{src}");
            assert_eq!(f.code.tight_locals(), locals, "{src}");
        }
        // A loop after 30-odd instructions of set-up is marked too (heads up to pc 59).
        let setup = "%a = 1; %b = 2; %c = %a + %b; %d = %c * 2; %e = %d - %a; ".repeat(6);
        let late =
            format!("function p(%n) {{ {setup} %t = 0; for (%i = 0; %i < %n; %i++) %t += %i; return %t; }}");
        let main = compile_source(&late, "t.cs", &mut names).expect("compiles");
        let f = main.decls.first().expect("p");
        assert!((28..f.code.len()).any(|pc| f.code.tight_head(pc)), "{late}: a tight loop past pc 27");
    }

    /// The program of `tight_loops_compute_what_the_fast_loop_does` for the operator pairs
    /// with arms of their own in `run_tight` compiles to those pairs.
    #[test]
    fn tight_operator_pairs_compile() {
        use crate::bytecode::{Arith, IntOp, OpCell};
        let mut names = crate::intern::Interner::default();
        let main = compile_source(&PAIRS.replace('Z', ""), "t.cs", &mut names).expect("compiles");
        let f = main.decls.first().expect("p");
        let ops: Vec<Op> = (0..f.code.len()).filter_map(|pc| f.code.get(pc).map(OpCell::get)).collect();
        let has = |want: &dyn Fn(&Op) -> bool| ops.iter().any(want);
        for (io2, what) in [(IntOp::And, "&"), (IntOp::Or, "|"), (IntOp::Xor, "^")] {
            assert!(
                has(&|op| matches!(op, Op::IntIL { io1: IntOp::Mod, io2: o, .. } if *o == io2)),
                "% then {what}: {ops:?}"
            );
        }
        for ar in [Arith::Add, Arith::AddW] {
            assert!(
                has(&|op| matches!(op, Op::ArithIL { ar: a, io: IntOp::Shl, .. } if *a == ar)),
                "<< then {ar:?}: {ops:?}"
            );
        }
    }

    /// A tight loop pays its backward jumps from the budget as the fast loop does: a runaway
    /// loop is stopped and the next statement runs; a loop within the budget finishes.
    #[test]
    fn tight_loops_pay_the_budget() {
        let mut con = Console::new();
        let out = BufferSink::new();
        con.set_output(Box::new(out.clone()));
        con.set_instruction_budget(100_000);
        let src = "function spin() { %i = 0; while (1) %i++; return %i; }";
        let main = compile_source(src, "t.cs", &mut con.names).expect("compiles");
        let spin = main.decls.first().expect("spin");
        assert!((0..spin.code.len()).any(|pc| spin.code.tight_head(pc)), "the loop is tight");
        let _ = con.eval(&format!("{src}\nspin();\necho(\"after\");"));
        let text = out.all();
        assert!(text.contains("instruction budget exhausted"), "the loop must be stopped: {text}");
        assert!(text.lines().any(|l| l == "after"), "the next statement runs");
        con.eval("function count(%n) { %t = 0; for (%i = 0; %i < %n; %i++) %t += %i; return %t; }")
            .expect("declares");
        assert_eq!(con.eval("return count(1000);").expect("runs").to_string(), "499500");
    }

    /// Returns in the fast loop from frames with local arrays (their table dropped out of
    /// line), into the same function and into another, and from a call made inside a `new`
    /// block's fields (the object under construction is the caller's, kept).
    #[test]
    fn returns_settle_local_arrays_and_objects_under_construction() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(
            "function g(%n) { %a[%n] = %n; if (%n <= 0) return %a[0]; return g(%n - 1) + %a[%n]; }\n\
             function h(%n) { %b[1] = 2; return g(%n) * %b[1]; }\n\
             function k(%n) { %c[0] = %n; h(%n); }\n\
             function mk(%n) { return h(%n) + 1; }\n\
             function obj(%n) { %o = new ScriptObject() { x = mk(%n); y = g(%n); }; return %o.x SPC %o.y; }",
        )
        .expect("declares");
        assert_eq!(con.eval("return g(5);").expect("runs").to_string(), "15");
        assert_eq!(con.eval("return h(5) SPC h(0) SPC k(3) @ \"|\";").expect("runs").to_string(), "30 0 |");
        for _ in 0..3 {
            assert_eq!(con.eval("return obj(4);").expect("runs").to_string(), "21 10");
        }
        let mut sum = 0;
        for n in 0..40 {
            sum += n * 2;
            assert_eq!(con.eval(&format!("return h({n});")).expect("runs").to_i64(), sum, "h({n})");
        }
    }

    /// Call sites read their cache without a borrow guard (`FuncDef::cached_call_from`) and
    /// a call writes the caller's pc and the new frame together (`FrameStack::push_call`):
    /// a site whose callee is redefined by a call made while the site's function runs (the
    /// cache written between two reads of it), a recursive function redefined in the middle
    /// of its recursion, and calls deeper than the frame stack has been before (its first
    /// frames at each depth, out of line) all call what the namespace holds at each call and
    /// return where they were called from.
    #[test]
    fn call_sites_follow_redefinition_and_new_depths() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(
            "function g(%x) { return %x + 1; }\n\
             function redefine() { eval(\"function g(%x) { return %x * 10; }\"); }\n\
             function f(%n) { %t = 0; for (%i = 0; %i < %n; %i++) { %t = %t + g(%i); if (%i == 2) redefine(); } return %t; }\n\
             function r(%n) { if (%n == 3) eval(\"function r(%n) { return 100; }\"); if (%n <= 0) return 0; return %n + r(%n - 1); }\n\
             function d(%n) { if (%n <= 0) return 0; return 1 + d(%n - 1); }",
        )
        .expect("declares");
        // 1 + 2 + 3 by the first `g`, then 30 + 40 by the second.
        assert_eq!(con.eval("return f(5);").expect("runs").to_i64(), 76);
        assert_eq!(con.eval("return f(2);").expect("runs").to_i64(), 10);
        // r(5) = 5 + r(4) = 5 + 4 + r(3); r(3) redefines `r` and calls the new one: 3 + 100.
        assert_eq!(con.eval("return r(5);").expect("runs").to_i64(), 112);
        assert_eq!(con.eval("return r(5);").expect("runs").to_i64(), 100);
        for n in [1, 7, 40, 200, 90, 400] {
            assert_eq!(con.eval(&format!("return d({n});")).expect("runs").to_i64(), n, "d({n})");
        }
    }

    /// The interpreter loops start on a 64-byte line (their sections, `loop_lines`), in the
    /// release profile: its one codegen unit for this crate (`Cargo.toml`) puts the aligning
    /// directives in the same object as the functions. A debug build splits the crate into
    /// many units, where they may not meet (`cargo test --release -p v12-console-vm` runs it).
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(debug_assertions)))]
    #[test]
    fn the_interpreter_loops_start_on_a_64_byte_line() {
        let run = (super::run as *const ()).addr();
        let tight = (super::run_tight as *const ()).addr();
        let tight_g = (super::run_tight_globals as *const ()).addr();
        let tight_r = (super::run_tight_rows as *const ()).addr();
        assert_eq!(tight_r % 64, 0, "run_tight_rows at {tight_r:#x}");
        let tight_l = (super::run_tight_locals as *const ()).addr();
        assert_eq!(tight_l % 64, 0, "run_tight_locals at {tight_l:#x}");
        assert_eq!(run % 64, 0, "run at {run:#x}");
        assert_eq!(tight % 64, 0, "run_tight at {tight:#x}");
        assert_eq!(tight_g % 64, 0, "run_tight_globals at {tight_g:#x}");
    }

    /// A call whose last argument is `%local op k` (`Op::ArithLICall`, the argument and the
    /// call in one dispatch) against the same calls with the argument read from a local, which
    /// nothing fuses: recursion, calls of another function and of a Rust one, text and
    /// fractional arguments, fewer and more arguments than parameters, the depth limit and the
    /// budget stop (their messages and the statement after them).
    #[test]
    fn calls_with_a_computed_last_argument_match_the_plain_calls() {
        const FUSED: &str = "function f(%n, %s) { if (%n < 2) return %n @ %s; return f(%n - 1, %s) @ f(%n - 2) @ g(%n * 2) @ mAbs(%n - 9); }\n\
             function g(%a) { return %a + 0.5; }\n\
             function h(%n) { return h(%n + 1); }\n\
             function k(%x, %y) { return k2(%x, %y + 1); }\n\
             function k2(%x) { return %x; }\n\
             function spin(%n) { while (1) %n = spin2(%n + 1); }\n\
             function spin2(%n) { return %n; }";
        const APART: &str = "function f(%n, %s) { if (%n < 2) return %n @ %s; %a = %n - 2; %b = %n * 2; %c = %n - 9; return f(%n - 1, %s) @ f(%a) @ g(%b) @ mAbs(%c); }\n\
             function g(%a) { return %a + 0.5; }\n\
             function h(%n) { %m = %n + 1; return h(%m); }\n\
             function k(%x, %y) { %m = %y + 1; return k2(%x, %m); }\n\
             function k2(%x) { return %x; }\n\
             function spin(%n) { while (1) { %m = %n + 1; %n = spin2(%m); } }\n\
             function spin2(%n) { return %n; }";
        let run = |src: &str| {
            let mut con = Console::new();
            let out = BufferSink::new();
            con.set_output(Box::new(out.clone()));
            con.config.max_call_depth = 200;
            con.set_instruction_budget(200_000);
            con.eval(src).expect("declares");
            let mut r = Vec::new();
            for call in
                ["f(12, \"x\")", "f(\"7.5\", \"\")", "f(\"3 apples\")", "k(4, \"5\", 6)", "h(0)", "spin(0)"]
            {
                let v = con.eval(&format!("return {call};")).map(|v| v.to_string()).unwrap_or_default();
                r.push(format!("{call} = {v}"));
            }
            (r, out.all())
        };
        let fused = run(FUSED);
        assert_eq!(fused, run(APART));
        assert!(fused.1.contains("call depth exceeds 200"), "{}", fused.1);
        assert!(fused.1.contains("instruction budget exhausted"), "{}", fused.1);
        let compiled = compile_source(FUSED, "t.cs", &mut Console::new().names).expect("compiles");
        let n = compiled
            .decls
            .iter()
            .flat_map(|f| f.code.iter().map(OpCell::get))
            .filter(|op| matches!(op, Op::ArithLICall(..)))
            .count();
        assert_eq!(n, 6, "f's calls but the first (its last argument is `%s`), h's, k's and spin's");
    }

    /// `%o.f = %o.f op y` through the fast path (a number in the dynamic field at the site's
    /// hint) and around it (text in the field, a field moved by another's removal, the operand
    /// before the field, a constant, a double, two objects in turn, text and `""` operands,
    /// the object's id as text and as a double), against the same updates
    /// made by a read into a local and a write, which no instruction fuses.
    #[test]
    fn field_updates_in_place_match_a_read_and_a_write() {
        const FUSED: &str = "%o.n = %o.n + %k; %o.m = %k - %o.m; %o.c = %o.c * 3; %o.d = %o.d + 0.25;";
        const APART: &str = "%t = %o.n; %o.n = %t + %k; %t = %o.m; %o.m = %k - %t; %t = %o.c; %o.c = %t * 3; %t = %o.d; %o.d = %t + 0.25;";
        let run = |body: &str| {
            let mut con = Console::new();
            con.set_output(Box::new(BufferSink::new()));
            let src = format!(
                "function upd(%o, %k) {{ {body} }}\n\
                 function loop(%o, %p) {{ for (%i = 0; %i < 6; %i++) {{ upd(%o, %i); upd(%p, 2.5); }} \
                 return %o.n SPC %o.m SPC %o.c SPC %o.d SPC %p.n SPC %p.m SPC %p.c; }}\n\
                 function t() {{ %a = new ScriptObject() {{ x = 1; n = 1; m = 0; c = 1; d = 0; }}; \
                 %b = new ScriptObject() {{ n = \"7x\"; c = \"\"; }}; %r = loop(%a, %b); \
                 %a.x = \"\"; %a.n = \"3 apples\"; %b.m = \"tin\"; return %r @ \"|\" @ loop(%a, %b) @ \"|\" @ loop(%b, %a) @ \"|\" @ more(%a); }}\n\
                 function more(%o) {{ upd(%o, \"4x\"); upd(%o @ \"\", \"\"); upd(%o * 1.0, \" 2\"); \
                 return %o.n SPC %o.m SPC %o.c SPC %o.d SPC 0 SPC 0 SPC 0; }}"
            );
            con.eval(&src).expect("declares");
            con.eval("return t();").expect("runs").to_string()
        };
        let apart = run(APART);
        assert!(apart.split('|').all(|part| part.split(' ').count() == 7), "{apart}");
        assert_eq!(run(FUSED), apart);
        let compiled =
            compile_source(&format!("function upd(%o, %k) {{ {FUSED} }}"), "t.cs", &mut Console::new().names)
                .expect("compiles");
        let upd = compiled.decls.first().expect("upd");
        assert_eq!(
            upd.code.iter().filter(|op| matches!(op.get(), Op::ArithFieldL { .. })).count(),
            3,
            "each update but the double constant's is one instruction"
        );
    }

    /// `%obj.v[%i]` and the field named `v` + the index by text are one field, through the
    /// element paths' tagged common case and around it: an array filled and read twice (the
    /// second time by the tags), another object through the same sites, elements written by
    /// text name and read by index, removals (which move the last field into the removed
    /// one's place, tag and all), a registered field of an element's name added later (it
    /// wins, by index as by text), more fields than the scan keeps, a deleted object.
    #[test]
    fn field_array_elements_and_their_text_names_are_one_field() {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.register_class("ArrayHolder", "ScriptObject").expect("class");
        con.eval(
            "function fill(%o, %n, %k) { for (%i = 0; %i < %n; %i++) %o.v[%i] = %i * %k; }\n\
             function unset(%o, %i) { %o.v[%i] = \"\"; }\n\
             function put(%o, %n, %x) { for (%i = 0; %i < %n; %i++) %o.v[%i] = %x; }\n\
             function make(%c) { %o = new (%c)(); %o.v3 = \"pre\"; %o.x = 1; return %o; }\n\
             function named(%o) { %o.v7 = seven; %o.v31 = last; }\n\
             function read(%o, %n) { %t = \"\"; for (%i = 0; %i < %n; %i++) %t = %t @ %o.v[%i] @ \",\"; return %t; }",
        )
        .expect("declares");
        let id = |v: crate::Value| u32::try_from(v.to_i64()).expect("an id");
        let a = id(con.eval("return make(ArrayHolder);").expect("a"));
        let b = id(con.eval("return make(ScriptObject);").expect("b"));
        let check = |con: &mut Console, o: u32, n: usize| {
            let by_index = con.eval(&format!("return read({o}, {n});")).expect("reads").to_string();
            let by_text: String =
                (0..n).map(|i| format!("{},", con.get_field(o, &format!("v{i}")))).collect();
            assert_eq!(by_index, by_text);
            by_index
        };
        assert_eq!(check(&mut con, a, 4), ",,,pre,");
        con.eval(&format!("fill({a}, 30, 2);")).expect("fills");
        let first = check(&mut con, a, 32);
        assert!(first.starts_with("0,2,4,6,") && first.ends_with(",58,,,"), "{first}");
        assert_eq!(check(&mut con, a, 32), first, "read again through the tags");
        con.eval(&format!("fill({b}, 5, 3);")).expect("fills b");
        assert_eq!(check(&mut con, b, 6), "0,3,6,9,12,,");
        assert!(a != b && a >= crate::object::FIRST_OBJECT_ID, "{a} {b}");
        assert_eq!(check(&mut con, a, 32), first);
        con.set_field(a, "v5", "text");
        con.eval(&format!("named({a});")).expect("by name");
        let named = check(&mut con, a, 32);
        assert!(named.starts_with("0,2,4,6,8,text,12,seven,16,") && named.ends_with(",58,,last,"), "{named}");
        con.eval(&format!("unset({a}, 9); unset({a}, 0);")).expect("unsets");
        con.set_field(a, "x", "");
        con.set_field(a, "v12", "");
        let removed = check(&mut con, a, 32);
        assert!(removed.starts_with(",2,4,6,8,text,12,seven,16,,20,22,,26,"), "{removed}");
        con.eval(&format!("put({a}, 32, \"w\"); put({b}, 3, 2.5);")).expect("puts");
        assert_eq!(check(&mut con, a, 33), format!("{},", "w,".repeat(32)));
        assert_eq!(check(&mut con, b, 6), "2.5,2.5,2.5,9,12,,");
        con.eval(&format!("put({a}, 20, \"\");")).expect("unsets by a local");
        assert_eq!(check(&mut con, a, 22), format!("{}w,w,", ",".repeat(20)));
        con.eval(&format!("fill({a}, 32, 3); fill({b}, 5, 1);")).expect("fills again");
        assert_eq!(check(&mut con, a, 32), check(&mut con, a, 32));
        assert_eq!(check(&mut con, b, 5), "0,1,2,3,4,");
        assert!(con.add_field("ArrayHolder", "v4", crate::object::FieldType::Int, crate::Value::Int(0)));
        check(&mut con, a, 32);
        con.eval(&format!("fill({a}, 32, 5);")).expect("fills with a registered element");
        let registered = check(&mut con, a, 32);
        assert!(registered.starts_with("0,5,10,15,"), "{registered}");
        assert_eq!(con.get_field(a, "v31").to_string(), "155");
        let compiled = compile_source(
            "function put(%o, %n, %x) { for (%i = 0; %i < %n; %i++) %o.v[%i] = %x; }",
            "t.cs",
            &mut Console::new().names,
        )
        .expect("compiles");
        let put = compiled.decls.first().expect("put");
        assert!(put.code.iter().any(|op| matches!(op.get(), Op::StoreFieldElemLLL { .. })), "{:?}", put.code);
        con.eval(&format!("{a}.delete();")).expect("deletes");
        assert_eq!(con.eval(&format!("return read({a}, 3);")).expect("reads").to_string(), ",,,");
        con.eval(&format!("fill({a}, 3, 1);")).expect("no object: nothing written");
        assert_eq!(check(&mut con, b, 5), "0,1,2,3,4,");
    }

    /// A `switch$`'s compares against literals, paired into `JumpStrLK2`, pick the case the
    /// same `switch$` picks with its case values made at run time (`%z @ "..."`: no compare
    /// against a constant, none paired): case differences, numbers against a case `"1"`,
    /// `""`, near misses, `or`, `default`; six compares make three pairs.
    #[test]
    fn paired_switch_compares_pick_as_the_compares_do() {
        const CASES: [&str; 6] = ["fire", "jump", "crouch", "prone", "use", "1"];
        let switch = |lit: bool| {
            let v =
                |i: usize| if lit { format!("\"{}\"", CASES[i]) } else { format!("%z @ \"{}\"", CASES[i]) };
            format!(
                "function pick(%v, %z) {{ %r = 0; switch$ (%v) {{ case {}: %r = 1; case {}: %r = 2; \
                 case {} or {}: %r = 3; case {}: %r = 4; case {}: %r = 6; default: %r = 5; }} return %r; }}",
                v(0),
                v(1),
                v(2),
                v(3),
                v(4),
                v(5)
            )
        };
        let values = [
            "\"fire\"",
            "\"FIRE\"",
            "\"Jump\"",
            "\"crouch\"",
            "\"prone\"",
            "\"PRONE\"",
            "\"use\"",
            "\"look\"",
            "\"\"",
            "\"1\"",
            "1",
            "1.0",
            "\" 1\"",
            "\"fire \"",
            "\"jum\"",
            "\"usex\"",
            "\"01\"",
        ];
        let calls: String = values.iter().map(|v| format!("%t = %t @ pick({v}, \"\") @ \",\";")).collect();
        let run = |lit: bool| {
            let mut con = Console::new();
            con.set_output(Box::new(BufferSink::new()));
            con.eval(&switch(lit)).expect("declares");
            con.eval(&format!("function all() {{ %t = \"\"; {calls} return %t; }}")).expect("declares all");
            con.eval("return all() @ all();").expect("runs").to_string()
        };
        let apart = run(false);
        assert_eq!(run(true), apart);
        assert!(apart.starts_with("1,1,2,3,3,3,4,5,5,6,6,"), "{apart}");
        let compiled = compile_source(&switch(true), "t.cs", &mut Console::new().names).expect("compiles");
        let pick = compiled.decls.first().expect("pick");
        let pairs = pick.code.iter().filter(|op| matches!(op.get(), Op::JumpStrLK2 { .. })).count();
        assert_eq!(pairs, 3, "{:?}", pick.code);
    }

    /// The sentinel past the end is not part of the code: not shown, not written.
    #[test]
    fn the_sentinel_is_out_of_reach() {
        let code = Code::new(vec![Op::Int(1), Op::ReturnEmpty]);
        assert_eq!(code.len(), 2);
        assert_eq!(code.with_sentinel().len(), 3);
        assert_eq!(code.with_sentinel().last().map(crate::bytecode::OpCell::get), Some(Op::Break));
        assert!(!code.set(2, Op::Int(2)), "the sentinel is not written");
        assert_eq!(code.with_sentinel().last().map(crate::bytecode::OpCell::get), Some(Op::Break));
        assert!(Code::new(Vec::new()).is_empty());
    }

    /// No write widens a code's slot bound: an instruction naming a slot at or past it is
    /// refused (a breakpoint, a put-back instruction and a site's cache are all within it).
    #[test]
    fn code_writes_keep_the_slot_bound() {
        let code = Code::new(vec![Op::LoadLocal(3), Op::LoadFieldL(1, crate::intern::Name(0), 0), Op::Pop]);
        assert_eq!(code.slot_end(), 4);
        assert!(code.set(1, Op::LoadFieldL(1, crate::intern::Name(0), 9)), "a site's cache is written");
        assert!(code.set(0, Op::Break) && code.set(0, Op::LoadLocal(3)), "a breakpoint and its instruction");
        assert!(!code.set(2, Op::LoadLocal(4)), "a slot past the bound is refused");
        assert_eq!(code.get(2).map(crate::bytecode::OpCell::get), Some(Op::Pop), "nothing written");
        assert!(!code.set(9, Op::Pop), "past the end");
        assert_eq!(Code::new(vec![Op::Int(1)]).slot_end(), 0);
        let elem =
            Op::LoadGlobalElemStore { b: crate::intern::Name(0), s: crate::bytecode::ELEM_FROM_STACK, d: 2 };
        assert_eq!(Code::new(vec![elem]).slot_end(), 3, "the index-on-the-stack mark is no slot");
    }

    /// Natives called from a loop (the fast loop's call sites, cached as Rust functions): the
    /// value, a native that re-enters script (`eval`, `call`, object creation), a method on
    /// an object, the "wrong number of arguments" warnings with their location, and the
    /// trace's lines while tracing give what the same calls give written once at top level.
    #[test]
    fn natives_called_from_the_fast_loop_behave_as_through_the_interpreter() {
        use crate::{BufferSink, Console};
        let mut con = Console::new();
        let out = BufferSink::new();
        con.set_output(Box::new(out.clone()));
        con.eval(
            "function g(%x) { return %x * 2; }
             function f(%n) {
                %s = \"\";
                for (%i = 0; %i < %n; %i++) {
                   %s = %s @ getWord(\"a b c\", %i) @ strlen(\"xy\") @ eval(\"return \" @ %i @ \" + 10;\")
                      @ call(\"g\", %i) @ \"|\";
                   %o = new ScriptObject() { v = %i; };
                   %s = %s @ (%o.getId() == %o) @ %o.v;
                   %o.delete();
                }
                return %s;
             }
             function w(%n) {
                for (%i = 0; %i < %n; %i++)
                   %x = %x @ strlen() @ mFloor(2.5);
                return %x;
             }",
        )
        .expect("declares");
        let run = |con: &mut Console, src: &str| con.eval(src).expect("runs").to_string();
        for _ in 0..2 {
            assert_eq!(run(&mut con, "return f(3);"), "a2100|10b2112|11c2124|12");
        }
        // Four arguments (the array's case) and five (the pooled `Vec`'s).
        con.eval(
            "function h(%a, %b, %c, %d) { return %a + %b + %c + %d; }
             function k(%n) { for (%i = 0; %i < %n; %i++) %t = %t + call(\"h\", %i, 1, 2) * 100 + call(\"h\", %i, 1, 2, 3); return %t; }",
        )
        .expect("declares");
        assert_eq!(run(&mut con, "return k(3);"), "1221");
        out.clear();
        assert_eq!(run(&mut con, "return w(2);"), "22");
        let warned = out.stderr();
        let wrong: Vec<&str> =
            warned.lines().filter(|l| l.ends_with("strlen: wrong number of arguments.")).collect();
        assert_eq!(wrong.len(), 2, "{warned}");
        assert!(wrong.iter().all(|l| l.contains("<eval> (15): ")), "the call's line: {warned}");
        assert_eq!(warned.lines().filter(|l| l.ends_with("usage: strlen(string)")).count(), 2, "{warned}");
        out.clear();
        run(&mut con, "trace(1);");
        assert_eq!(run(&mut con, "return f(1);"), "a2100|10");
        run(&mut con, "trace(0);");
        let traced = out.stdout();
        for line in [
            "Entering getWord(a b c, 0)",
            "Leaving strlen() - return 2",
            "Entering g(0)",
            "Leaving g() - return 0",
        ] {
            assert!(traced.lines().any(|l| l == line), "{line} in {traced}");
        }
    }
}
