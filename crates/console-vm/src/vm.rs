//! The interpreter loop. Script-to-script calls push frames on one operand stack (locals are
//! slots at the frame base), so recursion in script does not recurse in Rust.

use crate::bytecode::{Callable, GLOBAL_NS, NativeId, Resolved};
use crate::bytecode::{FuncDef, GStore, Op};
use crate::console::{CallArgs, Console, ConsoleError, NativeFn};
use crate::intern::Name;
use crate::object::ObjectId;
use crate::recursion;
use crate::stack_ops::{self, Stop};
use crate::value::{Num, Value};
use std::rc::Rc;

/// Budget the fast loop takes at once while a debugger is open: it serves the debugger
/// between slices, so a `pause` stops a long call.
const DEBUG_SLICE: u64 = 50_000;

/// Nested Rust→script→Rust re-entries allowed (each one uses Rust stack).
const MAX_REENTRY: usize = 64;

const BUDGET_MSG: &str = "instruction budget exhausted (runaway script?)";

impl Console {
    /// Enters a Rust→script call. When refused (too deep), nothing was entered: the caller
    /// returns at once and must not call [`Self::end_call`] (the counter would go below the
    /// calls really running, and every later call would be refused).
    fn begin_call(&mut self) -> bool {
        if self.vm.run_depth == 0 {
            self.vm.budget_left = self.config.instruction_budget;
            self.vm.abort = None;
        }
        if self.vm.run_depth >= MAX_REENTRY {
            self.set_abort("native call nesting too deep".to_string());
            return false;
        }
        self.vm.run_depth += 1;
        true
    }

    fn end_call(&mut self) -> Option<String> {
        self.vm.run_depth = self.vm.run_depth.saturating_sub(1);
        if self.vm.run_depth == 0 {
            self.vm.frames.release();
            self.vm.abort.take()
        } else {
            None
        }
    }

    pub(crate) fn set_abort(&mut self, msg: String) {
        if self.vm.abort.is_none() {
            self.vm.aborts += 1;
            let loc = self.location();
            self.error(&format!("{loc}{msg}; script stopped"));
            self.vm.abort = Some(msg);
        }
    }

    /// `file (line): ` of the running instruction, for messages.
    pub(crate) fn location(&self) -> String {
        match self.vm.frames.last() {
            Some(f) => {
                let line = f.func.lines.get(f.pc.saturating_sub(1)).copied().unwrap_or(0);
                format!("{} ({}): ", f.func.file, line)
            }
            None => String::new(),
        }
    }

    /// Runs top-level code. `eval_scope` is the frame whose locals `%x` refers to.
    pub(crate) fn run_toplevel(
        &mut self,
        code: Rc<FuncDef>,
        eval_scope: Option<usize>,
    ) -> Result<Value, ConsoleError> {
        if !self.begin_call() {
            let m = self.vm.abort.clone().unwrap_or_default();
            return Err(ConsoleError::Aborted(m));
        }
        let entry = self.vm.frames.len();
        let base = self.vm.stack.len();
        let nl = code.nlocals as usize;
        let mut start_pc = 0;
        let v = loop {
            self.vm.stack.truncate(base);
            self.vm.stack.resize_empty(base + nl);
            let new_base = self.vm.new_stack.len();
            self.vm.frames.push(code.clone(), start_pc, base, GLOBAL_NS, 0, eval_scope, new_base);
            let v = self.run(entry);
            // At the outermost level a stopped statement does not stop the rest of the file.
            if self.vm.abort.is_some() && self.vm.run_depth == 1 && !self.quit {
                let at = self.vm.unwound_pc as u32;
                if let Some(&next) = code.stmt_starts.iter().find(|&&s| s >= at) {
                    self.vm.abort = None;
                    self.vm.budget_left = self.config.instruction_budget;
                    start_pc = next as usize;
                    continue;
                }
            }
            break v;
        };
        match self.end_call() {
            Some(m) => Err(ConsoleError::Aborted(m)),
            None => Ok(v),
        }
    }

    /// The Rust function `id` (kept alive by the clone while it runs).
    #[inline]
    fn native(&self, id: NativeId) -> Rc<NativeFn> {
        self.natives[id.0 as usize].clone()
    }

    /// Calls a resolved function with arguments from Rust.
    pub(crate) fn invoke(&mut self, res: Resolved, this: Option<ObjectId>, args: &[Value]) -> Value {
        if !self.begin_call() {
            return Value::Empty;
        }
        let v = match res.callable {
            Callable::Native(id) => {
                let n = self.native(id);
                self.call_native(&n, this, args)
            }
            Callable::Script(f) => {
                let entry = self.vm.frames.len();
                let base = self.vm.stack.len();
                for a in args.iter().take(crate::bytecode::MAX_ARGS) {
                    self.vm.stack.push(a.clone());
                }
                if self.push_frame(f, base, res.ns, res.layer) {
                    self.run(entry)
                } else {
                    self.vm.stack.truncate(base);
                    Value::Empty
                }
            }
        };
        self.end_call();
        v
    }

    /// Sets up a frame for `f` whose arguments start at `base`. False when too deep.
    /// Inlined into the call instructions; the rare paths (refusal, tracing) are outlined.
    #[inline(always)]
    fn push_frame(&mut self, f: Rc<FuncDef>, base: usize, ns: u32, layer: u32) -> bool {
        let cost = f.call_cost();
        if self.vm.frames.len() >= self.config.max_call_depth || self.vm.budget_left < cost {
            self.refuse_frame(cost);
            return false;
        }
        self.vm.budget_left -= cost;
        if self.vm.rearm.is_some() {
            self.rearm_break();
        }
        if self.hooks {
            self.hook_enter(&f, base);
        }
        self.vm.start_frame(f, base, ns, layer);
        true
    }

    #[cold]
    #[inline(never)]
    fn refuse_frame(&mut self, cost: u64) {
        if self.vm.frames.len() >= self.config.max_call_depth {
            self.set_abort(format!("call depth exceeds {}", self.config.max_call_depth));
        } else if self.vm.budget_left < cost {
            self.vm.budget_left = 0;
            self.set_abort(BUDGET_MSG.to_string());
        }
    }

    /// A script function is entered while tracing or profiling.
    #[cold]
    #[inline(never)]
    fn hook_enter(&mut self, f: &FuncDef, base: usize) {
        if self.trace {
            let argc = self.vm.stack.len() - base;
            self.trace_enter(f, base, argc.min(f.nparams as usize));
        }
        if !f.toplevel {
            self.profiler.enter(crate::profiler::ZoneKey::Script(f.ns, f.name));
        }
    }

    /// The innermost frame returns `src`'s value while tracing or profiling.
    #[cold]
    #[inline(never)]
    fn hook_leave(&mut self, src: Option<usize>) {
        let Some(callee) = self.vm.frames.last().map(|f| f.func.clone()) else { return };
        if callee.toplevel {
            return;
        }
        if self.trace {
            let v = src.and_then(|i| self.vm.stack.get(i).cloned()).unwrap_or_default();
            self.trace_leave(&callee, &v);
        }
        self.profiler.exit();
    }

    #[cold]
    #[inline(never)]
    fn trace_leave(&mut self, f: &FuncDef, v: &Value) {
        let mut s = String::from("Leaving ");
        if let Some(n) = f.ns {
            s.push_str(self.names.text(n));
            s.push_str("::");
        }
        s.push_str(self.names.text(f.name));
        s.push_str("() - return ");
        v.write_to(&mut s);
        self.echo(&s);
    }

    #[cold]
    #[inline(never)]
    fn trace_enter(&mut self, f: &FuncDef, base: usize, nargs: usize) {
        let mut s = String::from("Entering ");
        if let Some(n) = f.ns {
            s.push_str(self.names.text(n));
            s.push_str("::");
        }
        s.push_str(self.names.text(f.name));
        s.push('(');
        for i in 0..nargs {
            if i > 0 {
                s.push_str(", ");
            }
            if let Some(v) = self.vm.stack.get(base + i) {
                v.write_to(&mut s);
            }
        }
        s.push(')');
        self.echo(&s);
    }

    pub(crate) fn call_native(&mut self, n: &NativeFn, this: Option<ObjectId>, args: &[Value]) -> Value {
        let argc = args.len() as u32 + 1;
        if argc < n.min || (n.max != 0 && argc > n.max) {
            let loc = self.location();
            let name = self.names.text(n.name).to_string();
            self.warn(&format!("{loc}{name}: wrong number of arguments."));
            let usage = n.usage.clone();
            self.warn(&format!("{loc}usage: {usage}"));
            return Value::Empty;
        }
        if self.hooks {
            return self.call_native_hooked(n, this, args);
        }
        // No clone of the body: every caller holds the `NativeFn` by an `Rc` of its own (see
        // [`Self::native`]), so a native that re-registers natives while it runs frees nothing
        // this call still uses.
        (n.body)(self, &CallArgs { this, argv: args })
    }

    /// [`Self::call_native`] while tracing or profiling.
    #[cold]
    #[inline(never)]
    fn call_native_hooked(&mut self, n: &NativeFn, this: Option<ObjectId>, args: &[Value]) -> Value {
        let body = &n.body;
        let profiled = self.profiler.is_on();
        if profiled {
            self.profiler.enter(crate::profiler::ZoneKey::Native(n.name));
        }
        let v = if self.trace {
            let name = self.names.text(n.name).to_string();
            let list: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            self.echo(&format!("Entering {name}({})", list.join(", ")));
            let v = body(self, &CallArgs { this, argv: args });
            self.echo(&format!("Leaving {name}() - return {v}"));
            v
        } else {
            body(self, &CallArgs { this, argv: args })
        };
        if profiled {
            self.profiler.exit();
        }
        v
    }

    /// Unwinds frames down to `entry` after an abort.
    fn unwind(&mut self, entry: usize) -> Value {
        while self.vm.frames.len() > entry {
            let at_entry = self.vm.frames.len() == entry + 1;
            if self.hooks && self.vm.frames.last().is_some_and(|f| !f.func.toplevel) {
                self.profiler.exit();
            }
            let Some((pc, base)) = self.vm.end_frame() else { break };
            if at_entry {
                self.vm.unwound_pc = pc;
            }
            self.vm.stack.truncate(base);
        }
        Value::Empty
    }

    #[inline]
    fn pop(&mut self) -> Value {
        self.vm.stack.pop().unwrap_or_default()
    }

    /// Locals for dynamic names: the frame itself, or for top-level code the `eval` caller.
    fn dyn_frame(&self) -> Option<usize> {
        let top = self.vm.frames.len().checked_sub(1)?;
        let f = &self.vm.frames[top];
        if f.func.toplevel { f.eval_scope } else { Some(top) }
    }

    #[cold]
    #[inline(never)]
    fn local_outside(&mut self, text: &str) {
        let loc = self.location();
        self.error(&format!("{loc}local variable %{text} used outside a function"));
    }

    /// The local whose name is `text`, in the frame dynamic names refer to: a named slot,
    /// else an array element (a name ending in digits), else a name made at run time.
    pub(crate) fn load_local_text(&mut self, text: &str) -> Value {
        let Some(fi) = self.dyn_frame() else {
            self.local_outside(text);
            return Value::Empty;
        };
        let f = &self.vm.frames[fi];
        let n = self.names.lookup(text);
        if let Some(n) = n
            && let Some(&slot) = f.func.local_slots.get(&n)
        {
            return self.vm.stack.get(f.base + slot as usize).cloned().unwrap_or_default();
        }
        let Some(d) = &f.dyn_locals else { return Value::Empty };
        if let Some((b, i)) = crate::elements::split_elem(text) {
            return match self.names.lookup(b) {
                Some(b) => d.elems.get(b, i),
                None => Value::Empty,
            };
        }
        n.and_then(|n| d.names.get(&n).cloned()).unwrap_or_default()
    }

    /// Sets the local whose name is `text` (see [`Console::load_local_text`]).
    pub(crate) fn store_local_text(&mut self, text: &str, v: Value) {
        let Some(fi) = self.dyn_frame() else {
            self.local_outside(text);
            return;
        };
        let f = &self.vm.frames[fi];
        if let Some(n) = self.names.lookup(text)
            && let Some(&slot) = f.func.local_slots.get(&n)
        {
            let i = f.base + slot as usize;
            if let Some(s) = self.vm.stack.get_mut(i) {
                *s = v;
            }
            return;
        }
        if let Some((b, i)) = crate::elements::split_elem(text) {
            let b = self.names.intern(b);
            let f = &mut self.vm.frames[fi];
            f.dyn_locals.get_or_insert_with(Default::default).elems.set(b, i, v);
        } else {
            let n = self.names.intern(text);
            let f = &mut self.vm.frames[fi];
            f.dyn_locals.get_or_insert_with(Default::default).names.insert(n, v);
        }
    }

    /// Pops the `k` indexes of an array element of `base`: the element's base and index when
    /// they are numbers (no text made), else the variable's text name.
    #[inline]
    fn elem_key(&mut self, base: Name, k: u8) -> Result<(Name, u32), String> {
        if k == 1
            && let Some(top) = self.vm.stack.len().checked_sub(1)
            && let Some(i) = self.vm.stack.get(top).and_then(crate::elements::direct_index)
        {
            self.vm.stack.truncate(top);
            return Ok((base, i));
        }
        self.elem_key_other(base, k)
    }

    /// The global named `t` (an element's name with a text index); the buffer is kept for
    /// the next such name.
    fn global_by_elem_text(&mut self, t: String) -> Value {
        let v = self.global_by_text(&t);
        self.keep_elem_text(t);
        v
    }

    /// Sets the global named `t` (see [`Self::global_by_elem_text`]): the buffer is kept too
    /// (dropped here, each store by a text index made a new one: a `malloc` and a `free`).
    fn set_global_by_elem_text(&mut self, t: String, v: Value) {
        self.set_global_by_text(&t, v);
        self.keep_elem_text(t);
    }

    /// Keeps an element name's buffer for the next name [`Self::elem_key_other`] builds.
    fn keep_elem_text(&mut self, t: String) {
        // (A long name's buffer is let go: the console keeps no large block for good.)
        if t.capacity() <= 1024 {
            self.elem_text = t;
        }
    }

    #[inline(never)]
    fn elem_key_other(&mut self, base: Name, k: u8) -> Result<(Name, u32), String> {
        let start = self.vm.stack.len().saturating_sub(k as usize);
        let idx = self.vm.stack.from(start);
        if let [r, j] = idx
            && let (Some(r), Some(j)) = (crate::elements::direct_index(r), crate::elements::direct_index(j))
        {
            self.vm.stack.truncate(start);
            return Ok((self.row_name(base, r), j));
        }
        // Sized once for the index texts (`to_string` made it exact, and each index grew it).
        let base_text = self.names.text(base);
        let room: usize = idx.iter().map(|v| v.text_len_hint().min(64) + 1).sum();
        let mut t = std::mem::take(&mut self.elem_text);
        t.clear();
        t.reserve(base_text.len() + room);
        t.push_str(base_text);
        for (n, v) in idx.iter().enumerate() {
            if n > 0 {
                t.push('_');
            }
            v.write_to(&mut t);
        }
        self.vm.stack.truncate(start);
        Err(t)
    }

    /// The base of row `r` of a two-index array `base`: the name `base` + `r` + `_`.
    fn row_name(&mut self, base: Name, r: u32) -> Name {
        if let Some(n) = self.rows.get(base, r) {
            return n;
        }
        let mut t = crate::elements::elem_text(self.names.text(base), r);
        t.push('_');
        let n = self.names.intern(&t);
        self.rows.insert(base, r, n);
        n
    }

    /// The field named `base` + the index's text (remembered by base and number when the
    /// index is one).
    fn field_elem_name(&mut self, base: Name, idx: &Value) -> Name {
        match crate::elements::direct_index(idx) {
            Some(i) => {
                if let Some(n) = self.elem_names.get(base, i) {
                    return n;
                }
                let t = crate::elements::elem_text(self.names.text(base), i);
                let n = self.names.intern(&t);
                self.elem_names.insert(base, i, n);
                n
            }
            None => {
                let mut t = self.names.text(base).to_string();
                idx.write_to(&mut t);
                self.names.intern(&t)
            }
        }
    }

    /// An element of a local array (see `elem_key`).
    fn load_local_elem(&mut self, key: Result<(Name, u32), String>) -> Value {
        let fi = self.dyn_frame();
        match (key, fi) {
            (Ok((b, i)), Some(fi)) if !self.vm.frames[fi].func.digit_locals => {
                self.vm.frames[fi].dyn_locals.as_ref().map_or(Value::Empty, |d| d.elems.get(b, i))
            }
            (Ok((b, i)), _) => {
                let t = crate::elements::elem_text(self.names.text(b), i);
                self.load_local_text(&t)
            }
            (Err(t), _) => {
                let v = self.load_local_text(&t);
                self.keep_elem_text(t);
                v
            }
        }
    }

    fn store_local_elem(&mut self, key: Result<(Name, u32), String>, v: Value) {
        let fi = self.dyn_frame();
        match (key, fi) {
            (Ok((b, i)), Some(fi)) if !self.vm.frames[fi].func.digit_locals => {
                self.vm.frames[fi].dyn_locals.get_or_insert_with(Default::default).elems.set(b, i, v);
            }
            (Ok((b, i)), _) => {
                let t = crate::elements::elem_text(self.names.text(b), i);
                self.store_local_text(&t, v);
            }
            (Err(t), _) => {
                self.store_local_text(&t, v);
                self.keep_elem_text(t);
            }
        }
    }

    fn name_of(&mut self, v: &Value) -> Name {
        match v {
            Value::Str(s) => self.names.intern(s),
            other => {
                let t = other.to_string();
                self.names.intern(&t)
            }
        }
    }

    fn call_error_unknown(&mut self, ns: Option<Name>, fname: Name) {
        let loc = self.location();
        let f = self.names.text(fname).to_string();
        let msg = match ns {
            Some(n) => format!("{loc}Unknown command {}::{f}.", self.names.text(n)),
            None => format!("{loc}Unknown command {f}."),
        };
        self.warn(&msg);
    }

    /// The call at `pc` of `func` (marked [`FuncDef::rec`]) made, with the calls under it, by
    /// `recursion::rec`, when its name resolves to `func` itself: why and where that stopped,
    /// with the frame base. `None` when the instruction is no such call (the name resolving
    /// elsewhere takes the mark away: the fast loop makes the function's calls from then on).
    fn rec_call(
        &mut self,
        func: &Rc<FuncDef>,
        pc: usize,
        base: usize,
        cx: &stack_ops::Ctx,
    ) -> Option<(Stop, usize, usize)> {
        let r = match func.code.get(pc).map(crate::bytecode::OpCell::get) {
            Some(Op::Call(fname, _)) => self.ns.resolve(GLOBAL_NS, fname),
            Some(Op::CallNs(ns, fname, _)) => {
                let nsid = self.ns.named(ns);
                self.ns.resolve(nsid, fname)
            }
            _ => return None,
        };
        match r {
            Some(Resolved { callable: Callable::Script(f), ns, layer }) if Rc::ptr_eq(&f, func) => {
                let before = self.vm.budget_left;
                let end = recursion::rec(&mut self.vm, func, pc, base, cx, (ns, layer));
                // The work it did, by the budget it took: a few calls' worth, again and again,
                // and the function's calls go back to the fast loop (`FuncDef::rec`).
                let spent = before.saturating_sub(self.vm.budget_left);
                let marks = func.rec.get();
                if spent < crate::bytecode::REC_DEEP * func.call_cost() {
                    func.rec.set(if marks > crate::bytecode::REC_SHALLOW {
                        0
                    } else {
                        marks.saturating_add(1)
                    });
                } else {
                    func.rec.set(1);
                }
                Some(end)
            }
            _ => {
                func.rec.set(0);
                None
            }
        }
    }

    /// The interpreter. Runs until the frame count drops back to `entry`.
    /// Runs frames from the innermost until the frame at depth `entry` returns.
    ///
    /// One function with one `match`, its arms grouped by the section comments: splitting the
    /// groups into functions was measured 7-15 % slower on a tight numeric loop (every
    /// variant tried, even moving only the cold groups out; docs/PERFORMANCE.md, "The house
    /// changes"), so the loop stays whole and the groups are sections.
    #[allow(clippy::too_many_lines, reason = "the interpreter loop: split, it measured 7-15 % slower")]
    pub(crate) fn run(&mut self, entry: usize) -> Value {
        let Some(top) = self.vm.frames.last() else { return Value::Empty };
        let mut func = top.func.clone();
        let mut pc = top.pc;
        let mut base = top.base;
        macro_rules! save_pc {
            () => {
                if let Some(f) = self.vm.frames.last_mut() {
                    f.pc = pc;
                }
            };
        }
        macro_rules! reload {
            () => {
                match self.vm.frames.last() {
                    Some(f) => {
                        func = f.func.clone();
                        pc = f.pc;
                        base = f.base;
                    }
                    None => return Value::Empty,
                }
            };
        }
        // Where `recursion::rec` last left an instruction to the fast loop (a call stopped there
        // again is the interpreter's).
        let mut rec_left = None;
        macro_rules! check_abort {
            () => {
                if self.vm.abort.is_some() {
                    return self.unwind(entry);
                }
            };
        }
        loop {
            // Most instructions run in `stack_ops`' small loop; it stops at the next one here.
            let cx = stack_ops::Ctx {
                generation: self.ns.generation(),
                max_depth: self.config.max_call_depth,
                entry,
                plain: !self.hooks && self.vm.rearm.is_none(),
                slice: if self.debug.session.is_some() { DEBUG_SLICE } else { u64::MAX },
            };
            // The interpreter's fields the small loops borrow (both take the same ones).
            macro_rules! data {
                () => {
                    stack_ops::Data {
                        elems: &mut self.elems,
                        objects: &mut self.objects,
                        elem_names: &self.elem_names,
                        rows: &self.rows,
                        globals: &mut self.globals,
                    }
                };
            }
            let (mut stop, at, fb) = stack_ops::run(&mut self.vm, &mut func, pc, base, &cx, data!());
            (pc, base) = (at, fb);
            // The head of a tight loop: run it, then the fast loop again from where it stopped;
            // a stop it made (a breakpoint to put back, the budget) is handled below as the fast
            // loop's own.
            if stop == Stop::Tight {
                let (why, at) = stack_ops::tight(&mut self.vm, &func, pc, base, &cx, data!());
                pc = at;
                if matches!(why, Stop::Op | Stop::Tight) {
                    continue;
                }
                stop = why;
            } else if stop == Stop::Op
                && func.rec.get() != 0
                && cx.plain
                && rec_left.take() != Some((pc, base))
                && let Some((why, at, fb)) = self.rec_call(&func, pc, base, &cx)
            {
                // A self-call of a function marked for `recursion::rec` (the fast loop leaves
                // them: their sites are never cached): it and the calls under it with light
                // frames. Where it leaves an instruction, the fast loop goes on; a call it left
                // comes back here and is the interpreter's.
                (pc, base) = (at, fb);
                if why == Stop::Op {
                    rec_left = Some((pc, base));
                    continue;
                }
                stop = why;
            }
            match stop {
                // The fast loop left this instruction to the interpreter (a tight loop's stop
                // never reaches here: it goes on above).
                Stop::Op | Stop::Tight => {}
                // A backward jump was taken: put the stepped-over breakpoint back.
                Stop::Rearm => {
                    self.rearm_break();
                    if self.debug.session.is_some() {
                        // A long call still hears the debugger (`pause`: `BRKNEXT` patches the
                        // statements, so the next one stops).
                        save_pc!();
                        self.debugger_poll();
                        check_abort!();
                    }
                    continue;
                }
                Stop::Budget => {
                    save_pc!();
                    self.vm.budget_left = 0;
                    self.set_abort(BUDGET_MSG.to_string());
                    return self.unwind(entry);
                }
            }
            let op = match func.code.get(pc) {
                Some(op) => op.get(),
                None => Op::ReturnEmpty,
            };
            pc += 1;
            let op = self.unfuse_operands(op, base);
            match op {
                // ---- the debugger ----
                // A debugger breakpoint: maybe stop, then run the instruction it covers once
                // (put back in the code until the next call, return or backward jump).
                Op::Break => {
                    save_pc!();
                    if self.vm.rearm.is_some() {
                        self.rearm_break();
                    }
                    let orig = self.debug_hit(&func, pc - 1);
                    check_abort!();
                    if orig != Op::Break && func.code.set(pc - 1, orig) {
                        self.vm.rearm = Some((func.clone(), pc - 1));
                    }
                    pc -= 1;
                    continue;
                }
                // ---- globals by name ----
                Op::LoadGlobal(n) => {
                    let v = self.global(n);
                    self.vm.stack.push(v);
                }
                Op::StoreGlobal(n, update @ (GStore::ArithI(..) | GStore::ArithL(..))) => {
                    // The fast loop runs these; here as `LoadGlobal`, the operator and the store.
                    let x = Num::of(Some(&self.global(n)));
                    let (ar, y) = match update {
                        GStore::ArithI(ar, k) => (ar, Num::Int(i64::from(k))),
                        GStore::ArithL(ar, s) => (ar, Num::of(self.vm.stack.get(base + s as usize))),
                        _ => (crate::bytecode::Arith::Add, Num::Int(0)),
                    };
                    let mut v = Value::Empty;
                    v.set_num(ar.num(x, y));
                    self.set_global_name(n, v);
                }
                Op::StoreGlobal(n, keep) => {
                    let keep = keep == GStore::Keep;
                    let v = self.pop();
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    self.set_global_name(n, v);
                }
                // ---- variables and fields named at run time; fields by name ----
                Op::LoadLocalDyn => {
                    save_pc!();
                    let nv = self.pop();
                    let v = self.load_local_text(&nv.as_text());
                    self.vm.stack.push(v);
                }
                Op::StoreLocalDyn(keep) => {
                    save_pc!();
                    let v = self.pop();
                    let nv = self.pop();
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    self.store_local_text(&nv.as_text(), v);
                }
                Op::LoadGlobalDyn => {
                    let nv = self.pop();
                    let v = self.global_by_text(&nv.as_text());
                    self.vm.stack.push(v);
                }
                Op::StoreGlobalDyn(keep) => {
                    let v = self.pop();
                    let nv = self.pop();
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    self.set_global_by_text(&nv.as_text(), v);
                }
                // ---- array elements: `$s[%i]`, `%a[%i, %j]` ----
                Op::LoadGlobalElem(b, k) => {
                    let v = match self.elem_key(b, k) {
                        Ok((b, i)) => self.elems.get(b, i),
                        Err(t) => self.global_by_elem_text(t),
                    };
                    self.vm.stack.push(v);
                }
                Op::StoreGlobalElem(b, k, keep) => {
                    let v = self.pop();
                    let key = self.elem_key(b, k);
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    match key {
                        Ok((b, i)) => self.elems.set(b, i, v),
                        Err(t) => self.set_global_by_elem_text(t, v),
                    }
                }
                // The forms with the index in a local: the index pushed, then as above.
                Op::LoadGlobalElemL(b, s) => {
                    self.vm.stack.push_copy(base + s as usize);
                    let v = match self.elem_key(b, 1) {
                        Ok((b, i)) => self.elems.get(b, i),
                        Err(t) => self.global_by_elem_text(t),
                    };
                    self.vm.stack.push(v);
                }
                // `%d = $a[i]` with a text index: the load and the `StoreLocal` it stands for.
                Op::LoadGlobalElemStore { b, s, d } => {
                    if s != crate::bytecode::ELEM_FROM_STACK {
                        self.vm.stack.push_copy(base + s as usize);
                    }
                    let v = match self.elem_key(b, 1) {
                        Ok((b, i)) => self.elems.get(b, i),
                        Err(t) => self.global_by_elem_text(t),
                    };
                    self.vm.stack.push(v);
                    self.vm.stack.pop_into(base + d as usize, false);
                }
                // A text index (the fast loop takes numbers): the element by its name.
                Op::JumpIfNotElemL(b, s, t) => {
                    self.vm.stack.push_copy(base + s as usize);
                    let v = match self.elem_key(b, 1) {
                        Ok((b, i)) => self.elems.get(b, i),
                        Err(t) => self.global_by_elem_text(t),
                    };
                    if !v.truthy() {
                        pc = t as usize;
                    }
                }
                Op::StoreGlobalElemL(b, s) => {
                    let v = self.pop();
                    self.vm.stack.push_copy(base + s as usize);
                    match self.elem_key(b, 1) {
                        Ok((b, i)) => self.elems.set(b, i, v),
                        Err(t) => self.set_global_by_elem_text(t, v),
                    }
                }
                Op::StoreGlobalElemLI(b, s, k) => {
                    let v = Value::Int(i64::from(k));
                    self.vm.stack.push_copy(base + s as usize);
                    match self.elem_key(b, 1) {
                        Ok((b, i)) => self.elems.set(b, i, v),
                        Err(t) => self.set_global_by_elem_text(t, v),
                    }
                }
                Op::LoadLocalElemL(b, s) => {
                    save_pc!();
                    self.vm.stack.push_copy(base + s as usize);
                    let key = self.elem_key(b, 1);
                    let v = self.load_local_elem(key);
                    self.vm.stack.push(v);
                }
                Op::StoreLocalElemL(b, s) => {
                    save_pc!();
                    let v = self.pop();
                    self.vm.stack.push_copy(base + s as usize);
                    let key = self.elem_key(b, 1);
                    self.store_local_elem(key, v);
                }
                Op::LoadLocalElem(b, k) => {
                    save_pc!();
                    let key = self.elem_key(b, k);
                    let v = self.load_local_elem(key);
                    self.vm.stack.push(v);
                }
                Op::StoreLocalElem(b, k, keep) => {
                    save_pc!();
                    let v = self.pop();
                    let key = self.elem_key(b, k);
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    self.store_local_elem(key, v);
                }
                Op::BuildName(b, count) => {
                    let start = self.vm.stack.len().saturating_sub(count as usize);
                    let mut s = self.names.text(b).to_string();
                    for (i, v) in self.vm.stack.from(start).iter().enumerate() {
                        if i > 0 {
                            s.push('_');
                        }
                        v.write_to(&mut s);
                    }
                    self.vm.stack.truncate(start);
                    self.vm.stack.push(Value::str(s));
                }
                Op::LoadField(n, _) => {
                    let o = self.pop();
                    let v = self.get_field_of(&o, n);
                    self.vm.stack.push(v);
                }
                Op::StoreField(n, keep, _) => {
                    let v = self.pop();
                    let o = self.pop();
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    save_pc!();
                    self.set_field_of(&o, n, v);
                }
                // `%o.f = %o.f op y` on an object the fast loop does not find by id: the
                // read, the operator and the write it stands for.
                Op::ArithFieldL { ar, o, y, n, .. } => {
                    let ov = self.vm.stack.get(base + o as usize).cloned().unwrap_or_default();
                    let cur = self.get_field_of(&ov, n);
                    let stack = &self.vm.stack;
                    let r = y.apply(ar, Num::of(Some(&cur)), |s| Num::of(stack.local(base + s as usize)));
                    let mut v = Value::Empty;
                    v.set_num(r);
                    self.set_field_of(&ov, n, v);
                }
                // `%a.f op %b.g` on objects the fast loop does not find by id: the two
                // reads and the operator it stands for.
                Op::ArithFF { ar, a, b, na, nb, .. } => {
                    let oa = self.vm.stack.get(base + a as usize).cloned().unwrap_or_default();
                    let x = self.get_field_of(&oa, na);
                    let ob = self.vm.stack.get(base + b as usize).cloned().unwrap_or_default();
                    let y = self.get_field_of(&ob, nb);
                    self.vm.stack.push_num(ar.num(Num::of(Some(&x)), Num::of(Some(&y))));
                }
                // `%d = %s.f` on an object the fast loop does not find by id.
                Op::LoadFieldLStore { s, d, n, .. } => {
                    let o = self.vm.stack.get(base + s as usize).cloned().unwrap_or_default();
                    let v = self.get_field_of(&o, n);
                    if let Some(slot) = self.vm.stack.local_mut(base + d as usize) {
                        *slot = v;
                    }
                }
                Op::LoadFieldElem(b, _) => {
                    let idx = self.pop();
                    let o = self.pop();
                    let n = self.field_elem_name(b, &idx);
                    let v = self.get_field_of(&o, n);
                    self.vm.stack.push(v);
                }
                Op::StoreFieldElem(b, keep, _) => {
                    let v = self.pop();
                    let idx = self.pop();
                    let o = self.pop();
                    let n = self.field_elem_name(b, &idx);
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    save_pc!();
                    self.set_field_of(&o, n, v);
                }
                Op::LoadFieldDyn => {
                    let nv = self.pop();
                    let o = self.pop();
                    let n = self.name_of(&nv);
                    let v = self.get_field_of(&o, n);
                    self.vm.stack.push(v);
                }
                Op::StoreFieldDyn(keep) => {
                    let v = self.pop();
                    let nv = self.pop();
                    let o = self.pop();
                    let n = self.name_of(&nv);
                    if keep {
                        self.vm.stack.push(v.clone());
                    }
                    save_pc!();
                    self.set_field_of(&o, n, v);
                }
                // ---- in-place append to a local: `@=` ----
                Op::AppendLocal(s, sep, keep) => {
                    let rhs = self.pop();
                    let i = base + s as usize;
                    let cur_len = self.vm.stack.get(i).map_or(0, Value::text_len_hint);
                    if cur_len + 1 + rhs.text_len_hint() > crate::value::MAX_STRING_LEN {
                        save_pc!();
                        self.set_abort(format!(
                            "concatenation would make a string over {} bytes",
                            crate::value::MAX_STRING_LEN
                        ));
                        check_abort!();
                    }
                    if let Some(slot) = self.vm.stack.get_mut(i) {
                        let cur = std::mem::take(slot);
                        let mut st = match cur {
                            Value::Str(rc) => rc,
                            other => Rc::new(other.to_string()),
                        };
                        let buf = Rc::make_mut(&mut st);
                        if let Some(c) = sep.ch() {
                            buf.push(c);
                        }
                        rhs.write_to(buf);
                        let nv = if buf.is_empty() { Value::Empty } else { Value::Str(st) };
                        if keep {
                            self.vm.stack.push(nv.clone());
                        }
                        if let Some(slot) = self.vm.stack.get_mut(i) {
                            *slot = nv;
                        }
                    } else if keep {
                        self.vm.stack.push(Value::Empty);
                    }
                }
                // ---- strings ----
                Op::Cat(sep) => {
                    let b = self.pop();
                    let a = self.pop();
                    if a.text_len_hint() + 1 + b.text_len_hint() > crate::value::MAX_STRING_LEN {
                        save_pc!();
                        self.set_abort(format!(
                            "concatenation would make a string over {} bytes",
                            crate::value::MAX_STRING_LEN
                        ));
                        check_abort!();
                    }
                    let mut st = match a {
                        Value::Str(rc) => rc,
                        other => Rc::new(other.to_string()),
                    };
                    let buf = Rc::make_mut(&mut st);
                    if let Some(c) = sep.ch() {
                        buf.push(c);
                    }
                    b.write_to(buf);
                    self.vm.stack.push(if buf.is_empty() { Value::Empty } else { Value::Str(st) });
                }
                Op::Tag(k) => {
                    let text = func.consts.get(k as usize).map(|v| v.to_string()).unwrap_or_default();
                    let t = self.add_tagged_string(&text);
                    self.vm.stack.push(t);
                }
                // ---- calls (through the call site's cache) and returns ----
                Op::Call(fname, argc) => {
                    save_pc!();
                    let res = match func.cached_call(pc - 1, self.ns.generation(), GLOBAL_NS) {
                        Some(r) => Some(r),
                        None => {
                            let r = self.ns.resolve(GLOBAL_NS, fname);
                            // Not for a function whose self-calls `recursion::rec` makes: the
                            // fast loop stops at a site it finds no cache for.
                            if let Some(r) = &r
                                && func.rec.get() == 0
                            {
                                func.cache_call(
                                    pc - 1,
                                    self.ns.generation(),
                                    GLOBAL_NS,
                                    r,
                                    self.pure_call(r),
                                );
                            }
                            r
                        }
                    };
                    let Some(res) = res else {
                        self.call_error_unknown(None, fname);
                        self.drop_args(argc);
                        self.vm.stack.push(Value::Empty);
                        continue;
                    };
                    if self.dispatch(res, None, argc) {
                        reload!();
                    }
                    check_abort!();
                }
                Op::CallNs(ns, fname, argc) => {
                    save_pc!();
                    // The namespace is static here, so the site key is a marker, not a receiver.
                    let res = match func.cached_call(pc - 1, self.ns.generation(), u32::MAX) {
                        Some(r) => Some(r),
                        None => {
                            let nsid = self.ns.named(ns);
                            let r = self.ns.resolve(nsid, fname);
                            if let Some(r) = &r {
                                func.cache_call(pc - 1, self.ns.generation(), u32::MAX, r, None);
                            }
                            r
                        }
                    };
                    let Some(res) = res else {
                        self.call_error_unknown(Some(ns), fname);
                        self.drop_args(argc);
                        self.vm.stack.push(Value::Empty);
                        continue;
                    };
                    let this = self.this_from_args(argc);
                    if self.dispatch(res, this, argc) {
                        reload!();
                    }
                    check_abort!();
                }
                Op::CallParent(fname, argc) => {
                    save_pc!();
                    let (ns, layer) = match self.vm.frames.last() {
                        Some(f) => (f.ns, f.layer),
                        None => (GLOBAL_NS, 0),
                    };
                    let Some(res) = self.ns.resolve_parent(ns, layer, fname) else {
                        let parent_ns = self.ns.name_of(ns);
                        let pn = self.names.intern("Parent");
                        self.call_error_unknown(parent_ns.or(Some(pn)), fname);
                        self.drop_args(argc);
                        self.vm.stack.push(Value::Empty);
                        continue;
                    };
                    let this = self.this_from_args(argc);
                    if self.dispatch(res, this, argc) {
                        reload!();
                    }
                    check_abort!();
                }
                Op::CallMethod(fname, argc) => {
                    save_pc!();
                    let at = self.vm.stack.len().saturating_sub(argc as usize);
                    let objv = self.vm.stack.get(at).cloned().unwrap_or_default();
                    let Some(id) = self.find_object(&objv) else {
                        let loc = self.location();
                        let f = self.names.text(fname).to_string();
                        self.warn(&format!(
                            "{loc}Unable to find object: '{objv}' attempting to call function '{f}'"
                        ));
                        self.drop_args(argc);
                        self.vm.stack.push(Value::Empty);
                        continue;
                    };
                    let ns = self.objects.get(id).map(|o| o.ns).unwrap_or(GLOBAL_NS);
                    let res = match func.cached_call(pc - 1, self.ns.generation(), ns) {
                        Some(r) => Some(r),
                        None => {
                            let r = self.ns.resolve(ns, fname);
                            if let Some(r) = &r {
                                func.cache_call(pc - 1, self.ns.generation(), ns, r, None);
                            }
                            r
                        }
                    };
                    let Some(res) = res else {
                        let cls = self.ns.name_of(ns);
                        self.call_error_unknown(cls, fname);
                        self.drop_args(argc);
                        self.vm.stack.push(Value::Empty);
                        continue;
                    };
                    if self.dispatch(res, Some(id), argc) {
                        reload!();
                    }
                    check_abort!();
                }
                Op::Return | Op::ReturnEmpty | Op::ReturnLocal(_) => {
                    // Where the value is; it is moved down to the callee's base, not copied aside.
                    let src = match op {
                        Op::Return => self.vm.stack.len().checked_sub(1),
                        Op::ReturnLocal(s) => Some(base + s as usize),
                        _ => None,
                    };
                    if self.vm.rearm.is_some() {
                        self.rearm_break();
                    }
                    if self.hooks {
                        self.hook_leave(src);
                    }
                    let Some((_, fbase)) = self.vm.end_frame() else { return self.vm.stack.take_at(src, 0) };
                    if self.vm.frames.len() <= entry {
                        let v = self.vm.stack.take_at(src, fbase);
                        self.vm.stack.truncate(fbase);
                        return v;
                    }
                    self.vm.stack.return_to(src, fbase);
                    reload!();
                }
                // ---- objects (`new` blocks), planted errors, declarations ----
                Op::NewBegin(k) => {
                    save_pc!();
                    let spec = func.new_specs.get(k as usize).cloned();
                    if let Some(spec) = spec
                        && !self.new_begin(&spec)
                    {
                        pc = spec.end as usize;
                    }
                    check_abort!();
                }
                Op::NewField(n) => {
                    let v = self.pop();
                    self.new_field(n, v);
                }
                Op::NewFieldDyn => {
                    let v = self.pop();
                    let nv = self.pop();
                    let n = self.name_of(&nv);
                    self.new_field(n, v);
                }
                Op::NewAdd => {
                    save_pc!();
                    self.new_add();
                    check_abort!();
                }
                Op::NewEnd => {
                    let v = self.new_end();
                    self.vm.stack.push(v);
                }
                Op::Error(k) => {
                    save_pc!();
                    let msg = func.consts.get(k as usize).map(|v| v.to_string()).unwrap_or_default();
                    let loc = self.location();
                    self.error(&format!("{loc}{msg}"));
                    self.vm.stack.push(Value::Empty);
                }
                Op::Declare(k) => {
                    if let Some(f) = func.decls.get(k as usize).cloned() {
                        self.ns.declare(f);
                    }
                }
                // The rest are run (and stopped past) by `stack_ops`.
                _ => {}
            }
        }
    }

    /// An instruction with register operands (locals read in place) that the fast loop left
    /// to the interpreter: its locals pushed where the plain instruction wants them, and the
    /// plain instruction to run.
    #[inline]
    fn unfuse_operands(&mut self, op: Op, base: usize) -> Op {
        let at = |s: u32| base + s as usize;
        let st = &mut self.vm.stack;
        match op {
            Op::LoadFieldL(s, n, h) => {
                st.push_copy(at(s));
                Op::LoadField(n, h)
            }
            Op::StoreFieldLL { o, x, n, hint } => {
                st.push_copy(at(u32::from(o)));
                st.push_copy(at(u32::from(x)));
                Op::StoreField(n, false, hint)
            }
            Op::LoadFieldElemLL { o, i, b, off } => {
                st.push_copy(at(u32::from(o)));
                st.push_copy(at(u32::from(i)));
                Op::LoadFieldElem(b, off)
            }
            Op::LoadGlobalElemLL(b, r, c) => {
                st.push_copy(at(u32::from(r)));
                st.push_copy(at(u32::from(c)));
                Op::LoadGlobalElem(b, 2)
            }
            Op::StoreFieldL(s, n, keep, h) => {
                let v = st.pop().unwrap_or_default();
                st.push_copy(at(s));
                st.push(v);
                Op::StoreField(n, keep, h)
            }
            Op::StoreFieldElemLLL { o, i, x, b, off } => {
                st.push_copy(at(u32::from(o)));
                st.push_copy(at(u32::from(i)));
                st.push_copy(at(u32::from(x)));
                Op::StoreFieldElem(b, false, off)
            }
            Op::StoreFieldElemLL { o, i, b, off } => {
                let v = st.pop().unwrap_or_default();
                st.push_copy(at(u32::from(o)));
                st.push_copy(at(u32::from(i)));
                st.push(v);
                Op::StoreFieldElem(b, false, off)
            }
            Op::StoreGlobalElemLL(b, r, c) => {
                let v = st.pop().unwrap_or_default();
                st.push_copy(at(u32::from(r)));
                st.push_copy(at(u32::from(c)));
                st.push(v);
                Op::StoreGlobalElem(b, 2, false)
            }
            other => other,
        }
    }

    fn drop_args(&mut self, argc: u32) {
        let n = self.vm.stack.len().saturating_sub(argc as usize);
        self.vm.stack.truncate(n);
    }

    /// For `Ns::f(%this, ...)` and `Parent::f(%this, ...)` the first argument is the object, if any.
    fn this_from_args(&mut self, argc: u32) -> Option<ObjectId> {
        if argc == 0 {
            return None;
        }
        let at = self.vm.stack.len().saturating_sub(argc as usize);
        let v = self.vm.stack.get(at).cloned()?;
        self.find_object(&v)
    }

    /// Calls with `argc` arguments on the stack. Returns true when a script frame was pushed
    /// (the caller must reload its registers); natives run to completion and push their result.
    #[inline(always)]
    fn dispatch(&mut self, res: Resolved, this: Option<ObjectId>, argc: u32) -> bool {
        let start = self.vm.stack.len().saturating_sub(argc as usize);
        match res.callable {
            Callable::Script(f) => {
                if argc as usize > crate::bytecode::MAX_ARGS {
                    self.vm.stack.truncate(start + crate::bytecode::MAX_ARGS);
                }
                if self.push_frame(f, start, res.ns, res.layer) {
                    true
                } else {
                    self.vm.stack.truncate(start);
                    self.vm.stack.push(Value::Empty);
                    false
                }
            }
            Callable::Native(id) => {
                self.dispatch_native(id, this, start);
                false
            }
        }
    }

    /// A native call with its arguments taken from the stack above `start`. The common case
    /// (the arity right, no tracing or profiling) checks the arity in place and keeps only the
    /// body alive by its own `Rc` while it runs (a native may register natives); the rest is
    /// [`Self::dispatch_native_checked`]'s, which warns and hooks as [`Self::call_native`] does.
    #[inline(never)]
    fn dispatch_native(&mut self, id: NativeId, this: Option<ObjectId>, start: usize) {
        let argc = self.vm.stack.len().saturating_sub(start) as u32 + 1;
        let n = &self.natives[id.0 as usize];
        if self.hooks || argc < n.min || (n.max != 0 && argc > n.max) {
            self.dispatch_native_checked(id, this, start);
            return;
        }
        let body = Rc::clone(&n.body);
        // Up to four arguments (most natives' calls) in an array here, not a pooled `Vec`.
        let v = if argc <= 5 {
            let mut buf: [Value; 4] = Default::default();
            let k = self.vm.stack.take_into(start, &mut buf);
            body(self, &CallArgs { this, argv: buf.get(..k).unwrap_or_default() })
        } else {
            let mut args = self.vm.arg_pool.pop().unwrap_or_default();
            self.vm.stack.drain_into(start, &mut args);
            let v = body(self, &CallArgs { this, argv: &args });
            args.clear();
            self.vm.arg_pool.push(args);
            v
        };
        self.vm.stack.push(v);
    }

    /// What the fast loop may call in place for a call resolved to `r`: a Rust function
    /// registered as pure, with its argument counts.
    fn pure_call(&self, r: &Resolved) -> Option<crate::bytecode::PureCall> {
        let Callable::Native(id) = r.callable else { return None };
        let n = self.natives.get(id.0 as usize)?;
        n.pure.map(|f| crate::bytecode::PureCall { f, min: n.min, max: n.max })
    }

    /// [`Self::dispatch_native`] through [`Self::call_native`]: a wrong arity or hooks on.
    #[cold]
    #[inline(never)]
    fn dispatch_native_checked(&mut self, id: NativeId, this: Option<ObjectId>, start: usize) {
        let n = self.native(id);
        let mut args = self.vm.arg_pool.pop().unwrap_or_default();
        self.vm.stack.drain_into(start, &mut args);
        let v = self.call_native(&n, this, &args);
        args.clear();
        self.vm.arg_pool.push(args);
        self.vm.stack.push(v);
    }

    /// Puts a stepped-over breakpoint back, if the debugger still wants it.
    #[cold]
    #[inline(never)]
    pub(crate) fn rearm_break(&mut self) {
        if let Some((f, pc)) = self.vm.rearm.take() {
            f.rearm_break(pc);
        }
    }

    /// `eval` from script: top-level code whose `%locals` are the calling function's.
    pub(crate) fn eval_in_caller(&mut self, src: &str) -> Value {
        let stmts = match crate::parser::parse(src, "<eval>") {
            Ok(s) => s,
            Err(e) => {
                self.error(&e.to_string());
                return Value::Empty;
            }
        };
        let code = crate::compiler::compile_program(&stmts, "<eval>", &mut self.names);
        let scope = self.dyn_frame();
        self.run_toplevel(code, scope).unwrap_or_default()
    }
}
