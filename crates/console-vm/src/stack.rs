//! The VM's working state: the operand stack, the call frames, the objects under
//! construction, and the limits of the run in progress (instruction budget, depth, abort).

use crate::bytecode::{FuncDef, NsId};
use crate::intern::Name;
use crate::object::Pending;
use crate::value::{Num, Value};
use crate::value::{assign, move_into, take};
use hashbrown::HashMap;
use std::rc::Rc;

/// A script call frame.
#[derive(Debug)]
pub(crate) struct Frame {
    pub(crate) func: Rc<FuncDef>,
    pub(crate) pc: usize,
    pub(crate) base: usize,
    pub(crate) ns: NsId,
    pub(crate) layer: u32,
    pub(crate) dyn_locals: Option<Box<DynLocals>>,
    /// Top-level code run by `eval` from a function uses that function's locals.
    pub(crate) eval_scope: Option<usize>,
    /// Objects under construction when the frame started.
    pub(crate) new_base: usize,
}

impl Frame {
    /// A returned frame's slot made into a new frame ([`FrameStack::push_ref`],
    /// [`FrameStack::push_call`]); its dynamic locals were dropped when it returned. The
    /// slot takes a reference only when it held another function.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn refill(
        &mut self,
        func: &Rc<FuncDef>,
        pc: usize,
        base: usize,
        ns: NsId,
        layer: u32,
        eval_scope: Option<usize>,
        new_base: usize,
    ) {
        if !Rc::ptr_eq(&self.func, func) {
            self.func = func.clone();
        }
        self.pc = pc;
        self.base = base;
        self.ns = ns;
        self.layer = layer;
        self.eval_scope = eval_scope;
        self.new_base = new_base;
    }
}

/// A frame's locals named at run time (by `eval`, `%a[%i]`, `nextToken`).
#[derive(Debug, Default)]
pub(crate) struct DynLocals {
    /// Plain names.
    pub(crate) names: HashMap<Name, Value>,
    /// Array elements (names ending in digits, see `elements`).
    pub(crate) elems: crate::elements::ElemStore,
}

/// What the interpreter works on; one per console, reused by every run.
#[derive(Debug)]
pub(crate) struct VmState {
    /// Operand stack; a frame's locals sit at its `base`.
    pub(crate) stack: OperandStack,
    pub(crate) frames: FrameStack,
    /// Objects between `new` and registration (nested `new` blocks stack).
    pub(crate) new_stack: Vec<Pending>,
    /// Instructions the current top-level call may still run.
    pub(crate) budget_left: u64,
    /// Nested entries into the VM (a script calling Rust calling script).
    pub(crate) run_depth: usize,
    /// Why the current run is being stopped, while it unwinds.
    pub(crate) abort: Option<String>,
    /// Scripts stopped so far (budget, depth, ...), to tell a caller its call was stopped.
    pub(crate) aborts: u64,
    /// Where the last stopped top-level statement was, to resume after it.
    pub(crate) unwound_pc: usize,
    /// Argument vectors kept for reuse by native calls.
    pub(crate) arg_pool: Vec<Vec<Value>>,
    /// A breakpoint stepped over: its instruction is back in the code while it runs once;
    /// the break goes back at the next call, return or backward jump (`rearm_break`).
    pub(crate) rearm: Option<(Rc<FuncDef>, usize)>,
    /// The light frames of `recursion::rec` (empty between its runs; kept for its room).
    pub(crate) rec_frames: Vec<(usize, usize)>,
    /// Where the last `getWord`-style walk stopped, and the words it made (the word
    /// functions', called from the interpreter or in place by the fast loop).
    pub(crate) words: crate::units::WordCache,
}

impl VmState {
    /// An idle VM with `budget` instructions for its first run.
    pub(crate) fn new(budget: u64) -> Self {
        VmState {
            stack: OperandStack::with_capacity(1024),
            frames: FrameStack::default(),
            new_stack: Vec::new(),
            budget_left: budget,
            run_depth: 0,
            abort: None,
            aborts: 0,
            unwound_pc: 0,
            arg_pool: Vec::new(),
            rearm: None,
            rec_frames: Vec::new(),
            words: crate::units::WordCache::default(),
        }
    }

    /// Starts a frame for `f` whose arguments are on the stack from `base`: arguments past
    /// its parameters are dropped, missing ones and the other locals start empty. Depth and
    /// budget are the caller's to check first.
    #[inline(always)]
    pub(crate) fn start_frame(&mut self, f: Rc<FuncDef>, base: usize, ns: NsId, layer: u32) {
        self.start_frame_ref(&f, base, ns, layer);
    }

    /// [`VmState::start_frame`] from a borrowed function: the frame's slot takes a reference
    /// only when it held another function (a loop calling one function reuses the slot with
    /// no count changed: each change is a read-modify-write on the function's count, chained
    /// from call to call).
    #[inline(always)]
    pub(crate) fn start_frame_ref(&mut self, f: &Rc<FuncDef>, base: usize, ns: NsId, layer: u32) {
        let new_base = self.frame_slots(f, base);
        self.frames.push_ref(f, 0, base, ns, layer, None, new_base);
    }

    /// A new frame's slots on the operand stack: its arguments past `f`'s parameters
    /// dropped, its locals made empty. Returns where its objects under construction start.
    #[inline(always)]
    fn frame_slots(&mut self, f: &FuncDef, base: usize) -> usize {
        let params_end = base + f.nparams as usize;
        if self.stack.len() > params_end {
            self.stack.truncate(params_end);
        }
        let want = base + f.nlocals as usize;
        if self.stack.len() < want {
            self.stack.resize_empty(want);
        }
        self.new_stack.len()
    }

    /// [`VmState::start_frame_ref`] for a call from the innermost frame, which resumes at
    /// `ret_pc`: that pc and the new frame are written through one slice of the frame stack
    /// ([`FrameStack::push_call`]).
    #[inline(always)]
    pub(crate) fn call_frame(&mut self, f: &Rc<FuncDef>, base: usize, ns: NsId, layer: u32, ret_pc: usize) {
        let new_base = self.frame_slots(f, base);
        self.frames.push_call(ret_pc, f, base, ns, layer, new_base);
    }

    /// What [`VmState::end_frame`] drops besides the frame (its dynamic locals, objects it
    /// left under construction), out of line: a return in the fast loop found it there.
    #[cold]
    #[inline(never)]
    pub(crate) fn end_frame_rest(&mut self, dyn_locals: Option<Box<DynLocals>>, new_base: usize) {
        drop(dyn_locals);
        if self.new_stack.len() > new_base {
            drop(self.new_stack.split_off(new_base));
        }
    }

    /// Ends the innermost frame: its run-time-named locals and the objects it left under
    /// construction go. Returns its `pc` and `base`; the stack from `base` up is the
    /// caller's to settle (a return value moved down, or dropped).
    #[inline(always)]
    pub(crate) fn end_frame(&mut self) -> Option<(usize, usize)> {
        let fr = self.frames.pop()?;
        if fr.dyn_locals.is_some() {
            drop_cold(fr.dyn_locals.take());
        }
        let (pc, base, new_base) = (fr.pc, fr.base, fr.new_base);
        // Objects left under construction by this frame (rare): dropped out of line.
        if self.new_stack.len() > new_base {
            drop_cold(self.new_stack.split_off(new_base));
        }
        Some((pc, base))
    }
}

/// Drops a value out of line (a frame's dynamic-locals table, a string leaving a slot): the
/// rare case keeps its drop glue off the hot path.
#[cold]
#[inline(never)]
fn drop_cold<T>(v: T) {
    drop(v);
}

/// The operand stack: a vector kept filled with `Empty` up to its high-water mark and a
/// separate top index, so a push writes a value straight into its slot instead of going
/// through `Vec::push` (which builds the value aside around its grow call and then copies
/// it, a store-forwarding stall on every push; docs/PERFORMANCE.md). Slots at and above the
/// top are always `Empty`. The vector never shrinks (no method takes slots away; `truncate`
/// empties them): [`OperandStack::reserve_slots`] relies on it.
#[derive(Debug, Default)]
pub(crate) struct OperandStack {
    vals: Vec<Value>,
    sp: usize,
}

impl OperandStack {
    /// An empty stack with `n` slots ready.
    pub(crate) fn with_capacity(n: usize) -> Self {
        OperandStack { vals: vec![Value::Empty; n], sp: 0 }
    }

    /// Makes the vector hold at least `end` slots (new ones `Empty`; the top and every value
    /// unchanged). The vector never shrinks, so every index below `end` stays in bounds from
    /// here on: what [`OperandStack::slot`] and [`OperandStack::slot_mut`] rely on.
    #[inline(always)]
    pub(crate) fn reserve_slots(&mut self, end: usize) {
        if self.vals.len() < end {
            self.grow_to(end);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, end: usize) {
        self.vals.resize(end.max(self.vals.len() * 2), Value::Empty);
    }

    /// Slot `i`, read without a bounds check (a slot above the top is `Empty`, as
    /// [`OperandStack::local`] reads it).
    ///
    /// # Safety
    /// `i` is below an `end` given to [`OperandStack::reserve_slots`] on this stack.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn slot(&self, i: usize) -> &Value {
        debug_assert!(i < self.vals.len(), "a slot past the reserved ones");
        // SAFETY: the caller's reservation made `vals` hold more than `i` slots, and it never
        // shrinks.
        unsafe { self.vals.get_unchecked(i) }
    }

    /// Slot `i` to write, without a bounds check (see [`OperandStack::slot`]).
    ///
    /// # Safety
    /// As [`OperandStack::slot`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn slot_mut(&mut self, i: usize) -> &mut Value {
        debug_assert!(i < self.vals.len(), "a slot past the reserved ones");
        // SAFETY: as in `slot`.
        unsafe { self.vals.get_unchecked_mut(i) }
    }

    /// Lowers the top by one and returns the slot that was the top (`None` on an empty
    /// stack), without a bounds check.
    #[inline(always)]
    fn pop_slot(&mut self) -> Option<&mut Value> {
        let i = self.sp.checked_sub(1)?;
        self.sp = i;
        Some(self.below_len(i))
    }

    /// Slot `i`, below `sp` (now or before a pop), without a bounds check.
    #[inline(always)]
    #[allow(unsafe_code)]
    fn below_len(&mut self, i: usize) -> &mut Value {
        debug_assert!(i < self.vals.len(), "`sp` past the vector");
        // SAFETY: callers pass an index below `sp` (as it was before a pop), and
        // `sp <= vals.len()` always: every method that raises `sp` makes the vector hold the
        // slots first (`push*` through `grow`/`grow_push`, `resize_empty`), the others only
        // lower it, and the vector never shrinks.
        unsafe { self.vals.get_unchecked_mut(i) }
    }

    /// Values on the stack.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.sp
    }

    /// Pushes `v`.
    #[inline(always)]
    pub(crate) fn push(&mut self, v: Value) {
        match self.vals.get_mut(self.sp) {
            Some(slot) => *slot = v,
            None => self.grow_push(v),
        }
        self.sp += 1;
    }

    /// Pushes a double, written straight into the slot (see [`Value::set_f64`]).
    #[inline(always)]
    pub(crate) fn push_f64(&mut self, x: f64) {
        match self.vals.get_mut(self.sp) {
            Some(slot) => slot.set_f64(x),
            None => self.grow_push(Value::Float(x)),
        }
        self.sp += 1;
    }

    /// Pushes a number (see [`Value::set_num`]).
    #[inline(always)]
    pub(crate) fn push_num(&mut self, n: Num) {
        match self.vals.get_mut(self.sp) {
            Some(slot) => slot.set_num(n),
            None => self.grow_push(match n {
                Num::Int(i) => Value::Int(i),
                Num::Float(f) => Value::Float(f),
            }),
        }
        self.sp += 1;
    }

    /// Pops the top value as a number (`0` when empty).
    #[inline(always)]
    pub(crate) fn pop_num(&mut self) -> Num {
        let Some(slot) = self.pop_slot() else { return Num::Float(0.0) };
        let x = Num::of(Some(slot));
        clear(slot);
        x
    }

    #[cold]
    #[inline(never)]
    fn grow_push(&mut self, v: Value) {
        self.grow();
        if let Some(slot) = self.vals.get_mut(self.sp) {
            *slot = v;
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let n = (self.vals.len() * 2).max(64);
        self.vals.resize(n, Value::Empty);
    }

    /// Pushes a copy of the value at `i` (`Empty` when `i` is above the top), written into the
    /// new slot variant by variant.
    #[inline(always)]
    pub(crate) fn push_copy(&mut self, i: usize) {
        let sp = self.sp;
        if sp >= self.vals.len() {
            self.grow();
        }
        if i < sp
            && let Some((low, high)) = self.vals.get_mut(..=sp).map(|s| s.split_at_mut(sp))
            && let (Some(src), Some(dst)) = (low.get(i), high.first_mut())
        {
            // `dst` is above the top, so `Empty`: an empty source needs no write.
            copy_above_top(dst, src);
        }
        self.sp = sp + 1;
    }

    /// Pushes a copy of `v` (`Empty` for `None`), written field by field (see [`assign`]).
    #[inline(always)]
    pub(crate) fn push_ref(&mut self, v: Option<&Value>) {
        if self.sp >= self.vals.len() {
            self.grow();
        }
        if let (Some(v), Some(dst)) = (v, self.vals.get_mut(self.sp)) {
            // `dst` is above the top, so `Empty`.
            copy_above_top(dst, v);
        }
        self.sp += 1;
    }

    /// Pushes a copy of `v` when the slot above the top is there (`false`, nothing done, when
    /// the stack must grow first), with no call on the path: the slot is `Empty` (slots above
    /// the top always are), so nothing is dropped.
    #[inline(always)]
    pub(crate) fn try_push_ref(&mut self, v: &Value) -> bool {
        let Some(dst) = self.vals.get_mut(self.sp) else { return false };
        crate::value::assign_plain(dst, v);
        self.sp += 1;
        true
    }

    /// Pushes a number when the slot above the top is there (`false`, nothing done, when the
    /// stack must grow first), with no call on the path (see [`OperandStack::try_push_ref`]).
    #[inline(always)]
    pub(crate) fn try_push_num(&mut self, n: Num) -> bool {
        let Some(dst) = self.vals.get_mut(self.sp) else { return false };
        crate::value::put_num_raw(dst, n);
        self.sp += 1;
        true
    }

    /// Pops the top, when it is a number, over `dst`, which the caller saw holds no text
    /// (`false`, nothing done, for any other top or none), with no call on the path.
    #[inline(always)]
    pub(crate) fn pop_num_over(&mut self, dst: &mut Value) -> bool {
        let Some(i) = self.sp.checked_sub(1) else { return false };
        let Some(top) = self.vals.get_mut(i) else { return false };
        let Some(n) = crate::value::num_fast(top) else { return false };
        crate::value::put_num_raw(dst, n);
        crate::value::put_raw(top, Value::Empty);
        self.sp = i;
        true
    }

    /// Pops the top value as a double (`0` when empty).
    #[inline(always)]
    pub(crate) fn pop_f64(&mut self) -> f64 {
        let Some(slot) = self.pop_slot() else { return 0.0 };
        let x = slot.to_f64();
        clear(slot);
        x
    }

    /// Pops the top value as a condition.
    #[inline(always)]
    pub(crate) fn pop_truthy(&mut self) -> bool {
        let Some(slot) = self.pop_slot() else { return false };
        let t = slot.truthy();
        clear(slot);
        t
    }

    /// Pops the top value into slot `i` below it (a copy stays on top when `keep`). A number
    /// is written into the slot field by field (see [`assign`]): moving the 16-byte value
    /// whole read back what an instruction had just written as tag and payload, a
    /// store-forwarding stall on every `%x = ...` (docs/PERFORMANCE.md, issue 32).
    #[inline(always)]
    pub(crate) fn pop_into(&mut self, i: usize, keep: bool) {
        let Some(top) = self.sp.checked_sub(1) else { return };
        if i >= top {
            if !keep {
                self.truncate(top);
            }
            return;
        }
        if let Some((low, high)) = self.vals.get_mut(i..=top).and_then(|s| s.split_first_mut())
            && let Some(src) = high.last_mut()
        {
            if keep {
                assign(low, src);
            } else {
                move_into(low, src);
            }
        }
        if !keep {
            self.sp = top;
        }
    }

    /// Takes the value at `src` if it is at or above `floor` and below the top (else `Empty`).
    #[inline(always)]
    pub(crate) fn take_at(&mut self, src: Option<usize>, floor: usize) -> Value {
        match src {
            Some(i) if i >= floor && i < self.sp => {
                self.vals.get_mut(i).map(std::mem::take).unwrap_or_default()
            }
            _ => Value::Empty,
        }
    }

    /// A return: the value at `src` (if any, at or above `dst`) becomes the only value from
    /// `dst` up.
    #[inline(always)]
    pub(crate) fn return_to(&mut self, src: Option<usize>, dst: usize) {
        match src {
            Some(i) if i >= dst && i < self.sp => {
                self.move_down(i, dst);
                self.truncate(dst + 1);
            }
            // The return value's slot is emptied with the rest and the top put back above it
            // (it is below the vector's end, as the old top was), not pushed again.
            _ if dst < self.sp => {
                self.truncate(dst);
                self.sp = dst + 1;
            }
            _ => {
                self.truncate(dst);
                self.push_empty();
            }
        }
    }

    /// Pushes `""`: the slot above the top is cleared in place (a string's drop out of line),
    /// not overwritten through a call to the value's drop glue.
    #[inline(always)]
    pub(crate) fn push_empty(&mut self) {
        match self.vals.get_mut(self.sp) {
            Some(slot) => clear(slot),
            None => self.grow_push(Value::Empty),
        }
        self.sp += 1;
    }

    /// Moves the value at `i` to `dst` below it (a string leaves `i` empty; a number stays
    /// there until the slot is cleared).
    #[inline(always)]
    fn move_down(&mut self, i: usize, dst: usize) {
        if i == dst {
            return;
        }
        if let Some((low, high)) = self.vals.get_mut(dst..=i).and_then(|s| s.split_first_mut())
            && let Some(src) = high.last_mut()
        {
            let v = match src {
                Value::Float(f) => Value::Float(*f),
                Value::Int(n) => Value::Int(*n),
                Value::Empty => Value::Empty,
                Value::Str(_) => std::mem::take(src),
            };
            *low = v;
        }
    }

    /// A local's slot `i` (locals are below the top; only the vector's bound is checked).
    #[inline(always)]
    pub(crate) fn local_mut(&mut self, i: usize) -> Option<&mut Value> {
        debug_assert!(i < self.sp, "a local above the stack top");
        self.vals.get_mut(i)
    }

    /// Pops the top value.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<Value> {
        let i = self.sp.checked_sub(1)?;
        let v = take(self.vals.get_mut(i)?);
        self.sp = i;
        Some(v)
    }

    /// Pops the top value as a 32-bit integer, the way V12's integer operators read it
    /// (`0` when empty).
    #[inline(always)]
    pub(crate) fn pop_i32(&mut self) -> i32 {
        let Some(slot) = self.pop_slot() else { return 0 };
        let x = slot.to_i32();
        clear(slot);
        x
    }

    /// A local's slot `i` (locals are below the top; only the vector's bound is checked:
    /// a slot above the top is `Empty`, as an unset local reads).
    #[inline(always)]
    pub(crate) fn local(&self, i: usize) -> Option<&Value> {
        self.vals.get(i)
    }

    /// The value at `i`, if below the top.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<&Value> {
        if i < self.sp { self.vals.get(i) } else { None }
    }

    /// The value at `i`, if below the top.
    #[inline(always)]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut Value> {
        if i < self.sp { self.vals.get_mut(i) } else { None }
    }

    /// The top value.
    #[inline(always)]
    pub(crate) fn last_mut(&mut self) -> Option<&mut Value> {
        let i = self.sp.checked_sub(1)?;
        Some(self.below_len(i))
    }

    /// Drops the top value (usually one just moved out, so `Empty`).
    #[inline(always)]
    pub(crate) fn drop_top(&mut self) {
        if let Some(slot) = self.pop_slot() {
            clear(slot);
        }
    }

    /// Drops the values from `n` up.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn truncate(&mut self, n: usize) {
        if n < self.sp {
            let top = self.sp;
            self.sp = n;
            debug_assert!(top <= self.vals.len(), "`sp` past the vector");
            // SAFETY: `n < top == sp <= vals.len()` (see `below_len`: every method that raises
            // `sp` makes the vector hold the slots first, and the vector never shrinks), so the
            // range is in bounds; no check and no empty-slice fallback on every return.
            for v in unsafe { self.vals.get_unchecked_mut(n..top) } {
                *v = Value::Empty;
            }
        }
    }

    /// Grows or shrinks to `n` values; new ones are `Empty`.
    #[inline]
    pub(crate) fn resize_empty(&mut self, n: usize) {
        if n <= self.sp {
            self.truncate(n);
            return;
        }
        if n > self.vals.len() {
            self.vals.resize(n.max(self.vals.len() * 2), Value::Empty);
        }
        self.sp = n;
    }

    /// The values from `start` to the top.
    pub(crate) fn from(&self, start: usize) -> &[Value] {
        self.vals.get(start..self.sp).unwrap_or_default()
    }

    /// Moves the values from `start` to the top into the first slots of `out` and returns how
    /// many there were (a value past `out`'s length, which callers size for all, is dropped).
    #[inline]
    pub(crate) fn take_into(&mut self, start: usize, out: &mut [Value]) -> usize {
        let top = self.sp;
        if start >= top {
            return 0;
        }
        let src = self.vals.get_mut(start..top).unwrap_or_default();
        let n = src.len().min(out.len());
        for (d, s) in out.iter_mut().zip(src.iter_mut()) {
            *d = std::mem::take(s);
        }
        for s in src.iter_mut().skip(n) {
            *s = Value::Empty;
        }
        self.sp = start;
        n
    }

    /// Calls `f` on the top `argc` values and puts its result in their place.
    #[inline(always)]
    pub(crate) fn call_pure(
        &mut self,
        argc: usize,
        f: crate::bytecode::PureNative,
        words: &mut crate::units::WordCache,
    ) {
        let start = self.sp.saturating_sub(argc);
        let v = f(words, self.vals.get(start..self.sp).unwrap_or_default());
        // The result in the first argument's slot, the others emptied (no clearing loop over
        // them all and then a push).
        match self.vals.get_mut(start..self.sp) {
            Some([first, rest @ ..]) => {
                for r in rest {
                    *r = Value::Empty;
                }
                *first = v;
                self.sp = start + 1;
            }
            _ => {
                self.truncate(start);
                self.push(v);
            }
        }
    }

    /// Moves the values from `start` up to the end of `out`.
    pub(crate) fn drain_into(&mut self, start: usize, out: &mut Vec<Value>) {
        let top = self.sp;
        if start < top {
            out.extend(self.vals.get_mut(start..top).unwrap_or_default().iter_mut().map(std::mem::take));
            self.sp = start;
        }
    }
}

impl OperandStack {
    /// The stack as [`stack_ops::run_tight`](crate::stack_ops) sees it: its slots as a slice
    /// (it never grows there) and the top apart. Hand the top back with
    /// [`OperandStack::set_top_from`].
    #[inline(always)]
    pub(crate) fn tight(&mut self) -> Tight<'_> {
        Tight { vals: &mut self.vals, sp: self.sp }
    }

    /// Takes back the top a [`Tight`] view ended at (never past the vector: slots from the
    /// top up are `Empty`, which the view keeps).
    #[inline(always)]
    pub(crate) fn set_top_from(&mut self, sp: usize) {
        self.sp = sp.min(self.vals.len());
    }
}

/// The operand stack's slots with the top in a local (see [`OperandStack::tight`]). Its
/// pushes and pops need room and values, which the tight loop checks before an instruction
/// (`Tight::fits`), leaving the instruction to the fast loop, which grows the stack, when
/// they are not there. Locals are read without a bounds check (`Tight::slot`); every other
/// access is checked, and with `fits` made first the pushes' and pops' own checks never fail
/// (their fallbacks change nothing). Only numbers and `""` are pushed and popped here.
pub(crate) struct Tight<'a> {
    vals: &'a mut [Value],
    sp: usize,
}

impl Tight<'_> {
    /// The top (the number of values on the stack).
    #[inline(always)]
    pub(crate) fn top(&self) -> usize {
        self.sp
    }

    /// At least `pops` values on the stack above `floor` and room for `pushes` more.
    #[inline(always)]
    pub(crate) fn fits(&self, floor: usize, pops: usize, pushes: usize) -> bool {
        self.sp >= floor + pops && self.vals.len() - self.sp >= pushes
    }

    /// The value `k` below the top (0: the top), if on the stack.
    #[inline(always)]
    pub(crate) fn peek(&self, k: usize) -> Option<&Value> {
        self.vals.get(self.sp.wrapping_sub(k + 1))
    }

    /// Pushes `v`, a number or `""`, into the slot above the top, which is `Empty` (slots
    /// above the top are: returns and pops empty them, and compiled code writes locals only
    /// below the top), so nothing is dropped. Code made by hand in this crate's tests could
    /// write a string past its frame; a push over it would leak the string (never more; debug
    /// builds assert). Nothing happens without room (`fits` first).
    #[inline(always)]
    pub(crate) fn push_plain(&mut self, v: Value) {
        if let Some(slot) = self.vals.get_mut(self.sp) {
            crate::value::put_raw(slot, v);
            self.sp += 1;
        }
    }

    /// [`Tight::push_plain`] of a number, written in place.
    #[inline(always)]
    pub(crate) fn push_num_plain(&mut self, n: Num) {
        if let Some(slot) = self.vals.get_mut(self.sp) {
            crate::value::put_num_raw(slot, n);
            self.sp += 1;
        }
    }

    /// Pops the top, which the caller saw is a number or `""` (so it is left `Empty` with
    /// nothing dropped).
    #[inline(always)]
    pub(crate) fn pop_plain(&mut self) {
        if let Some(i) = self.sp.checked_sub(1)
            && let Some(slot) = self.vals.get_mut(i)
        {
            crate::value::put_raw(slot, Value::Empty);
            self.sp = i;
        }
    }

    /// Slot `i`, read without a bounds check (as [`OperandStack::slot`]).
    ///
    /// # Safety
    /// `i` is below an `end` given to [`OperandStack::reserve_slots`] on the stack this view
    /// was taken from.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn slot(&self, i: usize) -> &Value {
        debug_assert!(i < self.vals.len(), "a slot past the reserved ones");
        // SAFETY: the caller's reservation made the vector (this slice) hold more than `i`
        // slots.
        unsafe { self.vals.get_unchecked(i) }
    }

    /// Slot `i` to write, without a bounds check (see [`Tight::slot`]).
    ///
    /// # Safety
    /// As [`Tight::slot`].
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn slot_mut(&mut self, i: usize) -> &mut Value {
        debug_assert!(i < self.vals.len(), "a slot past the reserved ones");
        // SAFETY: as in `slot`.
        unsafe { self.vals.get_unchecked_mut(i) }
    }

    /// The top value (`fits` checked).
    #[inline(always)]
    pub(crate) fn last_mut(&mut self) -> Option<&mut Value> {
        self.vals.get_mut(self.sp.wrapping_sub(1))
    }

    /// The slots (the vector's length).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.vals.len()
    }

    /// Whether the values from `start` to the top are numbers or `""`.
    #[inline(always)]
    pub(crate) fn plain_from(&self, start: usize) -> bool {
        self.vals.get(start..self.sp).is_some_and(|s| s.iter().all(|v| !matches!(v, Value::Str(_))))
    }

    /// A return's values: `v` in slot `base`, the top just above it, the slots from there to
    /// the old top emptied. The caller saw that they hold no text (nothing is dropped).
    #[inline(always)]
    pub(crate) fn clear_to(&mut self, base: usize, v: Value) {
        if let Some(s) = self.vals.get_mut(base..self.sp) {
            for slot in s {
                crate::value::put_raw(slot, Value::Empty);
            }
        }
        if let Some(slot) = self.vals.get_mut(base) {
            crate::value::put_raw(slot, v);
            self.sp = base + 1;
        }
    }

    /// Moves the top to `sp` (at most the vector's length): raised over slots that are
    /// `Empty` (above the old top), or lowered over slots the caller emptied.
    #[inline(always)]
    pub(crate) fn set_top(&mut self, sp: usize) {
        debug_assert!(sp <= self.vals.len(), "a top past the vector");
        self.sp = sp.min(self.vals.len());
    }
}

/// Copies `src` into `dst`, a slot above the top (so `Empty`: an empty source needs no
/// write). Numbers first, one compare-and-branch each: a `match` on the tag made a jump
/// table, an indirect jump in every push of a local besides the dispatch.
#[inline(always)]
fn copy_above_top(dst: &mut Value, src: &Value) {
    if let Value::Float(f) = src {
        dst.set_f64(*f);
    } else if let Value::Int(n) = src {
        dst.set_int(*n);
    } else if let Value::Str(s) = src {
        *dst = Value::Str(s.clone());
    }
}

/// Empties a slot, dropping a string out of line.
#[inline(always)]
fn clear(slot: &mut Value) {
    if let Value::Str(_) = slot {
        drop_cold(std::mem::take(slot));
    } else {
        *slot = Value::Empty;
    }
}

/// The call frames. Slots stay allocated when a frame returns and a call writes the next
/// one field by field in place (building a `Frame` aside and copying it into a `Vec` was a
/// store-forwarding stall on every call; docs/PERFORMANCE.md). A returned frame's slot keeps
/// its function alive until the slot is reused or [`FrameStack::release`] runs at the end
/// of the outermost call.
#[derive(Debug, Default)]
pub(crate) struct FrameStack {
    slots: Vec<Frame>,
    len: usize,
}

impl FrameStack {
    /// Frames running.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The running frames, outermost first.
    #[inline(always)]
    pub(crate) fn live(&self) -> &[Frame] {
        self.slots.get(..self.len).unwrap_or_default()
    }

    /// The running frames, outermost first.
    #[inline(always)]
    pub(crate) fn live_mut(&mut self) -> &mut [Frame] {
        let n = self.len;
        self.slots.get_mut(..n).unwrap_or_default()
    }

    /// The innermost frame.
    #[inline(always)]
    pub(crate) fn last(&self) -> Option<&Frame> {
        self.live().last()
    }

    /// The innermost frame.
    #[inline(always)]
    pub(crate) fn last_mut(&mut self) -> Option<&mut Frame> {
        self.live_mut().last_mut()
    }

    /// The running frames, outermost first.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, Frame> {
        self.live().iter()
    }

    /// Starts a frame running `func` at `pc` with its locals at `base`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        func: Rc<FuncDef>,
        pc: usize,
        base: usize,
        ns: NsId,
        layer: u32,
        eval_scope: Option<usize>,
        new_base: usize,
    ) {
        match self.slots.get_mut(self.len) {
            // A returned frame's slot: its dynamic locals were dropped when it returned.
            Some(f) => {
                f.func = func;
                f.pc = pc;
                f.base = base;
                f.ns = ns;
                f.layer = layer;
                f.eval_scope = eval_scope;
                f.new_base = new_base;
            }
            None => self.grow(Frame { func, pc, base, ns, layer, dyn_locals: None, eval_scope, new_base }),
        }
        self.len += 1;
    }

    /// [`FrameStack::push`] from a borrowed function (see [`VmState::start_frame_ref`]).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push_ref(
        &mut self,
        func: &Rc<FuncDef>,
        pc: usize,
        base: usize,
        ns: NsId,
        layer: u32,
        eval_scope: Option<usize>,
        new_base: usize,
    ) {
        match self.slots.get_mut(self.len) {
            Some(f) => f.refill(func, pc, base, ns, layer, eval_scope, new_base),
            None => self.grow(Frame {
                func: func.clone(),
                pc,
                base,
                ns,
                layer,
                dyn_locals: None,
                eval_scope,
                new_base,
            }),
        }
        self.len += 1;
    }

    /// A call from the innermost frame: its pc becomes `ret_pc` (where it resumes) and a frame
    /// for `func` at pc 0 is pushed (see [`FrameStack::push_ref`]). The caller's slot and the
    /// new one come from one slice, one bounds check; with no slot above the caller yet (the
    /// first call this deep), or no caller, out of line.
    #[inline(always)]
    pub(crate) fn push_call(
        &mut self,
        ret_pc: usize,
        func: &Rc<FuncDef>,
        base: usize,
        ns: NsId,
        layer: u32,
        new_base: usize,
    ) {
        let i = self.len;
        if let Some(c) = i.checked_sub(1)
            && let Some([caller, f]) = self.slots.get_mut(c..=i)
        {
            caller.pc = ret_pc;
            f.refill(func, 0, base, ns, layer, None, new_base);
            self.len = i + 1;
        } else {
            self.push_call_cold(ret_pc, func, base, ns, layer, new_base);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_call_cold(
        &mut self,
        ret_pc: usize,
        func: &Rc<FuncDef>,
        base: usize,
        ns: NsId,
        layer: u32,
        new_base: usize,
    ) {
        if let Some(caller) = self.last_mut() {
            caller.pc = ret_pc;
        }
        self.push_ref(func, 0, base, ns, layer, None, new_base);
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, f: Frame) {
        self.slots.push(f);
    }

    /// Ends the innermost frame and returns it (its slot, valid until the next push). Its
    /// dynamic locals are the caller's to drop (taken, so the slot is clean for reuse).
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<&mut Frame> {
        let i = self.len.checked_sub(1)?;
        self.len = i;
        self.slots.get_mut(i)
    }

    /// Ends the innermost frame for a return into the one below it: that frame's slot and
    /// the caller's, found with one bounds check (`None`, nothing changed, with fewer than
    /// two frames). The ended frame's dynamic locals and objects under construction are the
    /// caller's to settle, as after [`FrameStack::pop`].
    #[inline(always)]
    pub(crate) fn pop_to_caller(&mut self) -> Option<(&mut Frame, &Frame)> {
        let i = self.len.checked_sub(1)?;
        let [caller, done] = self.slots.get_mut(i.checked_sub(1)?..=i)? else { return None };
        self.len = i;
        Some((done, caller))
    }

    /// Drops the returned frames' slots (and the functions they hold).
    pub(crate) fn release(&mut self) {
        self.slots.truncate(self.len);
    }
}

impl std::ops::Index<usize> for FrameStack {
    type Output = Frame;
    fn index(&self, i: usize) -> &Frame {
        &self.live()[i]
    }
}

impl std::ops::IndexMut<usize> for FrameStack {
    fn index_mut(&mut self, i: usize) -> &mut Frame {
        &mut self.live_mut()[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intern::Interner;

    #[test]
    fn operand_stack_keeps_slots_above_the_top_empty() {
        let mut s = OperandStack::with_capacity(2);
        for i in 0..5 {
            s.push(Value::Int(i));
        }
        s.push(Value::str("text"));
        assert_eq!(s.len(), 6);
        assert_eq!(s.get(5).map(Value::to_string).as_deref(), Some("text"));
        assert!(s.get(6).is_none(), "nothing is readable above the top");
        s.truncate(3);
        assert_eq!(s.len(), 3);
        assert!(s.get(3).is_none());
        s.resize_empty(5);
        assert!(s.get(4).is_some_and(Value::is_empty), "a regrown slot is empty, not stale");
        let mut out = Vec::new();
        s.drain_into(1, &mut out);
        assert_eq!(out.iter().map(Value::to_string).collect::<Vec<_>>(), ["1", "2", "", ""]);
        assert_eq!(s.pop().map(|v| v.to_i64()), Some(0));
        assert!(s.pop().is_none());
        assert!(s.vals.iter().all(Value::is_empty), "every slot is empty again");
    }

    /// The top is read without a bounds check (`sp <= vals.len()`): every pop and top read
    /// on an empty stack, a stack of no slots, one just grown and one regrown by
    /// `resize_empty` stays in bounds (debug builds assert it) and reads as before.
    #[test]
    fn top_reads_stay_below_the_vector() {
        let mut s = OperandStack::with_capacity(0);
        assert_eq!(s.pop_i32(), 0);
        assert_eq!(s.pop_f64(), 0.0);
        assert!(!s.pop_truthy());
        assert!(matches!(s.pop_num(), Num::Float(x) if x == 0.0));
        assert!(s.last_mut().is_none());
        s.drop_top();
        assert_eq!(s.len(), 0, "nothing popped below zero");
        for i in 0..200 {
            s.push_num(Num::Int(i));
        }
        assert_eq!(s.pop_i32(), 199);
        s.push_empty();
        assert!(!s.pop_truthy());
        assert_eq!(s.last_mut().map(|v| v.to_i64()), Some(198));
        s.truncate(0);
        s.resize_empty(300);
        assert!(s.last_mut().is_some_and(|v| v.is_empty()));
        s.push(Value::str("7.5"));
        assert_eq!(s.pop_f64(), 7.5);
        s.drop_top();
        assert_eq!(s.len(), 299);
        assert!(s.vals.len() >= s.len());
    }

    /// `truncate` empties the slots without a bounds check (`sp <= vals.len()`): after pushes
    /// that grew the vector, `resize_empty` past it, `drain_into` and the tight view's top,
    /// every truncate (below, at and above the top; to 0) stays in bounds (debug builds
    /// assert), drops the strings it empties and leaves every slot above the top `Empty`.
    #[test]
    fn truncate_stays_below_the_vector() {
        let mut s = OperandStack::with_capacity(1);
        let text = Rc::new(String::from("held"));
        for i in 0..70 {
            s.push(if i % 3 == 0 { Value::Str(text.clone()) } else { Value::Int(i) });
        }
        s.truncate(80);
        assert_eq!(s.len(), 70, "a truncate above the top changes nothing");
        s.truncate(35);
        assert_eq!(s.len(), 35);
        assert_eq!(Rc::strong_count(&text), 13, "the strings emptied were dropped");
        s.resize_empty(500);
        s.truncate(499);
        s.truncate(0);
        assert_eq!(Rc::strong_count(&text), 1);
        s.push(Value::Int(1));
        let mut out = Vec::new();
        s.drain_into(0, &mut out);
        s.truncate(0);
        let sp = s.tight().top();
        s.set_top_from(sp + 1_000_000);
        s.truncate(3);
        assert_eq!(s.len(), 3);
        assert!(s.vals.iter().all(Value::is_empty), "every slot is empty again");
    }

    #[test]
    fn frame_stack_reuses_slots_and_releases_functions() {
        let mut names = Interner::default();
        let f = crate::compiler::compile_source("function f() {}", "t.cs", &mut names).expect("compiles");
        let mut fs = FrameStack::default();
        fs.push(f.clone(), 0, 0, 0, 0, None, 0);
        fs.push(f.clone(), 3, 4, 0, 0, Some(0), 0);
        assert_eq!(fs.len(), 2);
        assert_eq!(fs.last().map(|fr| (fr.pc, fr.base, fr.eval_scope)), Some((3, 4, Some(0))));
        assert!(fs.pop().is_some());
        assert_eq!(fs.len(), 1);
        assert_eq!(Rc::strong_count(&f), 3, "a returned frame's slot holds its function until reused");
        fs.push(f.clone(), 7, 1, 0, 0, None, 0);
        assert_eq!(
            fs.last().map(|fr| (fr.pc, fr.base, fr.eval_scope)),
            Some((7, 1, None)),
            "every field rewritten"
        );
        assert_eq!(Rc::strong_count(&f), 3);
        fs.pop();
        fs.release();
        assert_eq!(Rc::strong_count(&f), 2, "release drops what returned frames held");
        assert_eq!(fs.iter().count(), 1);
    }
}
