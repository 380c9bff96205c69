//! AST → bytecode. Names are interned here so the VM never hashes a static name;
//! locals become frame slots.

use crate::ast::*;
use crate::bytecode::{Arith, Cmp, ELEM_FROM_STACK, FieldOperand, FuncDef, IntOp, NewSpec, Op, Sep};
use crate::intern::{FastBuild, Interner, Name};
use crate::parser::SyntaxError;
use crate::value::Value;
use hashbrown::HashMap;
use std::rc::Rc;

/// A function's constants are searched directly up to this many, through maps past it.
const SHORT_CONSTS: usize = 16;

/// A function's code, line and statement-start lists and its loop stack, empty but with their
/// room: the lists are scratch (a finished function keeps exact copies), handed from one
/// function to the next so each is allocated once per file rather than grown per function.
#[derive(Default)]
struct Spare {
    code: Vec<Op>,
    lines: Vec<u32>,
    breaks: Vec<(u32, u32)>,
    loops: Vec<Loop>,
}

impl Spare {
    /// Buffers with room for most functions: no regrowth while emitting.
    fn with_room() -> Spare {
        Spare {
            code: Vec::with_capacity(64),
            lines: Vec::with_capacity(64),
            breaks: Vec::with_capacity(16),
            loops: Vec::new(),
        }
    }
}

struct Loop {
    breaks: Vec<usize>,
    continues: Vec<usize>,
}

/// A constant's text, looked up by `&str` without copying it (the key is the constant's own
/// string, so a file-wide constant costs one allocation).
#[derive(Clone, PartialEq, Eq)]
struct ConstKey(Rc<String>);

impl std::hash::Hash for ConstKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.as_str().hash(h)
    }
}

impl std::borrow::Borrow<str> for ConstKey {
    fn borrow(&self) -> &str {
        self.0.as_str()
    }
}

/// A constant's text (constants are strings; the empty one is `Value::Empty`).
fn const_text(v: &Value) -> &str {
    match v {
        Value::Str(s) => s.as_str(),
        _ => "",
    }
}

/// `'a` borrows the name table. Nothing borrows the syntax tree, so a file can be compiled
/// one top-level statement at a time while it is parsed.
struct FunctionCompiler<'a> {
    names: &'a mut Interner,
    code: Vec<Op>,
    lines: Vec<u32>,
    /// Statement starts, `(line, pc)`: the debugger's breakable lines.
    breaks: Vec<(u32, u32)>,
    consts: Vec<Value>,
    /// `consts` (all texts) are searched directly while short, through `const_map` (filled on
    /// first need) once long.
    const_map: HashMap<ConstKey, u32, FastBuild>,
    /// `consts` by the address of their text, filled with `const_map`.
    const_by_ptr: HashMap<usize, u32, FastBuild>,
    new_specs: Vec<NewSpec>,
    locals: HashMap<Name, u32, FastBuild>,
    /// Slot by the address of the tree's shared name: the parser shares one `Ident` per
    /// spelling, so most local uses skip interning (other spellings fall back to it).
    local_by_ptr: [(usize, u32); 16],
    n_by_ptr: usize,
    /// Constant values shared by every function of the file (a string used in a thousand
    /// functions is allocated once).
    file_consts: HashMap<ConstKey, (), FastBuild>,
    nlocals: u32,
    loops: Vec<Loop>,
    /// Buffers for the next function this one declares (see [`Spare`]).
    spare: Spare,
    decls: Vec<Rc<FuncDef>>,
    toplevel: bool,
    line: u32,
    file: Rc<str>,
    /// Code before this index may be a jump target's predecessor: the peephole pass never
    /// rewrites across it (a label may point exactly at it, never inside a fused sequence).
    barrier: usize,
}

/// Compiles a parsed file into its top-level code.
pub fn compile_program(stmts: &[Stmt], file: &str, names: &mut Interner) -> Rc<FuncDef> {
    let main = names.intern("<main>");
    let mut fc = FunctionCompiler::new(names, true, Rc::from(file), Spare::with_room());
    let mut starts = Vec::with_capacity(stmts.len());
    for s in stmts {
        starts.push(fc.here());
        fc.stmt(s);
    }
    fc.finish_program(main, starts)
}

/// Parses and compiles `src` in one pass: each top-level statement is compiled as soon as it
/// is parsed and its tree dropped, so the whole tree never exists at once. Errors are those of
/// [`crate::parse`] (nothing is returned for a file with a syntax or scan error).
pub fn compile_source(src: &str, file: &str, names: &mut Interner) -> Result<Rc<FuncDef>, SyntaxError> {
    let mark = names.len();
    // The tables sized for the file up front (about one new name and one distinct string per
    // 128 bytes of script): no rehash while they fill.
    names.reserve(src.len() / 128);
    let main = names.intern("<main>");
    // The file's own code (its objects and datablocks, a declaration per function) with room
    // for a data file's (about one instruction per 32 bytes): regrowing a list that large
    // copied it, and its allocation merged every freed tree node first (glibc).
    let room = Spare {
        code: Vec::with_capacity(src.len() / 32 + 64),
        lines: Vec::with_capacity(src.len() / 32 + 64),
        ..Spare::with_room()
    };
    let mut fc = FunctionCompiler::new(names, true, Rc::from(file), room);
    fc.file_consts.reserve(src.len() / 128);
    let mut starts = Vec::new();
    let parsed = crate::parser::parse_each(src, file, |s| {
        starts.push(fc.here());
        fc.stmt(&s);
    });
    match parsed {
        Ok(()) => Ok(fc.finish_program(main, starts)),
        Err(e) => {
            drop(fc);
            names.truncate(mark);
            Err(e)
        }
    }
}

impl<'a> FunctionCompiler<'a> {
    fn new(names: &'a mut Interner, toplevel: bool, file: Rc<str>, spare: Spare) -> Self {
        FunctionCompiler {
            names,
            code: spare.code,
            lines: spare.lines,
            breaks: spare.breaks,
            loops: spare.loops,
            spare: Spare::default(),
            consts: Vec::new(),
            const_map: HashMap::default(),
            const_by_ptr: HashMap::default(),
            new_specs: Vec::new(),
            locals: HashMap::with_capacity_and_hasher(8, FastBuild::default()),
            local_by_ptr: [(0, 0); 16],
            n_by_ptr: 0,
            file_consts: HashMap::default(),
            nlocals: 0,
            decls: Vec::new(),
            toplevel,
            line: 0,
            file,
            barrier: 0,
        }
    }

    /// The top-level code of a file, after its last statement.
    fn finish_program(mut self, main: Name, starts: Vec<u32>) -> Rc<FuncDef> {
        self.emit(Op::ReturnEmpty);
        let mut def = self.finish(main, None, None, 0);
        def.stmt_starts = starts;
        Rc::new(def)
    }

    fn finish(self, name: Name, ns: Option<Name>, package: Option<Name>, nparams: u32) -> FuncDef {
        self.finish_keeping(name, ns, package, nparams).0
    }

    /// [`Self::finish`], handing back the code, line and statement buffers (emptied, their room
    /// kept) for the next function: the function keeps exact copies of them. No slack is kept in
    /// a function: a file's functions live as long as it is loaded, and smaller blocks made
    /// allocating and freeing them 2-4 % faster (docs/PERFORMANCE.md).
    fn finish_keeping(
        mut self,
        name: Name,
        ns: Option<Name>,
        package: Option<Name>,
        nparams: u32,
    ) -> (FuncDef, Spare) {
        self.locals.shrink_to_fit();
        let names = &*self.names;
        let (elem_slots, digit_locals) = elem_slot_flags(&self.locals, &self.code, names);
        let code = crate::bytecode::Code::from_ops(&self.code);
        let rec = !self.toplevel && crate::bytecode::self_recursive(&self.code, name, ns);
        let def = FuncDef {
            name,
            ns,
            package,
            nparams,
            nlocals: self.nlocals,
            local_slots: self.locals,
            cost: FuncDef::cost_of(&code),
            code,
            breaks: self.breaks.as_slice().to_vec(),
            patched: Default::default(),
            lines: self.lines.as_slice().to_vec(),
            consts: self.consts,
            new_specs: self.new_specs,
            decls: self.decls,
            stmt_starts: Vec::new(),
            file: self.file,
            toplevel: self.toplevel,
            elem_slots,
            digit_locals,
            call_cache: Default::default(),
            rec: std::cell::Cell::new(u8::from(rec)),
        };
        self.code.clear();
        self.lines.clear();
        self.breaks.clear();
        self.loops.clear();
        (def, Spare { code: self.code, lines: self.lines, breaks: self.breaks, loops: self.loops })
    }

    /// Appends `op`, folded into a super-instruction with the ones before it when the peephole
    /// knows one. Inlined, so an op built at the call site is written straight into the code:
    /// passed out of line it went by reference, and reloading the just-written op as one 16-byte
    /// value stalled on store forwarding (6 % of parse and compile; docs/PERFORMANCE.md).
    #[inline(always)]
    fn emit(&mut self, op: Op) -> usize {
        if fusible(op)
            && let Some(at) = self.fuse(op)
        {
            return at;
        }
        self.emit_raw(op)
    }

    /// Replaces the last `n` instructions by `op`. Inlined, so `op` is built in the code (a copy
    /// of it made just after stalled on store forwarding).
    #[inline(always)]
    fn replace_tail(&mut self, n: usize, op: Op) -> usize {
        let start = self.code.len() - n;
        self.code.truncate(start);
        self.lines.truncate(start + 1);
        self.code.push(op);
        start
    }

    /// [`Self::fuse`] for a conditional jump (`when`: jump if true) to `t`: the compare before
    /// it, and what the compare read, fold into one jump.
    fn fuse_branch(&mut self, when: bool, t: u32) -> Option<usize> {
        let n = self.code.len();
        let tail = |k: usize| n >= k && n - k >= self.barrier;
        let small = |i: i64| i32::try_from(i).ok();
        if !tail(1) {
            return None;
        }
        // `switch$` and `$=` against a literal: compare in place, no copies.
        if tail(3)
            && let (Op::LoadLocal(a), Op::Const(k), cmp @ (Op::StrEq | Op::StrNe)) =
                (self.code[n - 3], self.code[n - 2], self.code[n - 1])
        {
            let when = if cmp == Op::StrEq { when } else { !when };
            return Some(self.replace_tail(3, Op::JumpStrLK(a, k, when, t)));
        }
        if let Op::LoadLocal(a) = self.code[n - 1] {
            return Some(self.replace_tail(1, Op::JumpIfL(a, when, t)));
        }
        // A forward jump only (the interpreter runs it when the index is not a number, and
        // takes no budget for a jump).
        if !when && let Op::LoadGlobalElemL(b, s) = self.code[n - 1] {
            return Some(self.replace_tail(1, Op::JumpIfNotElemL(b, s, t)));
        }
        let c = cmp_of(self.code[n - 1])?;
        // `for (...; %i < k; %i++)` at the bottom of the loop: step, test and jump in one.
        if when
            && tail(4)
            && let (Op::IncLocal(s, d, false), Op::LoadLocal(a), Op::Int(k)) =
                (self.code[n - 4], self.code[n - 3], self.code[n - 2])
            && s == a
            && let Some(k) = small(k)
        {
            let fused = match c {
                Cmp::Lt
                    if d == 1
                        && let Ok(s) = u16::try_from(s) =>
                {
                    // It lands at `n - 4` and jumps back from the instruction after.
                    let cost = (n - 3).saturating_sub(t as usize).clamp(1, 255) as u8;
                    Op::IncJumpLtLI(s, cost, f64::from(k), t)
                }
                c => Op::IncJumpCmpLI(s, d, c, k, t),
            };
            return Some(self.replace_tail(4, fused));
        }
        // A `for` step and a test against a global bound.
        if when
            && tail(4)
            && let (Op::IncLocal(s, d, false), Op::LoadLocal(x), Op::LoadGlobal(g)) =
                (self.code[n - 4], self.code[n - 3], self.code[n - 2])
            && s == x
            && let Ok(s) = u16::try_from(s)
        {
            return Some(self.replace_tail(4, Op::IncJumpCmpLG { s, d, c, g, t }));
        }
        // A `for` step and a test against a local bound, at the bottom of the loop.
        if when
            && tail(4)
            && let (Op::LoadLocal(x), Op::LoadLocal(y)) = (self.code[n - 3], self.code[n - 2])
            && let (Ok(x16), Ok(y16)) = (u16::try_from(x), u16::try_from(y))
        {
            match self.code[n - 4] {
                Op::IncLocal(s, d, false) if s == x => {
                    return Some(self.replace_tail(4, Op::IncJumpCmpLL { s: x16, d, c, b: y16, t }));
                }
                Op::ArithLLStore(ar, a, b, d)
                    if d == x
                        && let (Ok(a), Ok(b)) = (u16::try_from(a), u16::try_from(b)) =>
                {
                    let fused = Op::ArithJumpCmpLL { ar, a, b, d: x16, x: y16, c, t };
                    return Some(self.replace_tail(4, fused));
                }
                _ => {}
            }
        }
        if tail(3) {
            let u16s = |a: u32, b: u32| Some((u16::try_from(a).ok()?, u16::try_from(b).ok()?));
            match (self.code[n - 3], self.code[n - 2]) {
                (Op::IntLL(io, a, b), Op::Int(k))
                    if let (Some((a, b)), Ok(k)) = (u16s(a, b), i16::try_from(k)) =>
                {
                    return Some(self.replace_tail(3, Op::JumpIntLLI { io, a, b, c, when, k, t }));
                }
                (Op::ArithLL(ar, a, b), Op::LoadLocal(x))
                    if let (Some((a, b)), Ok(x)) = (u16s(a, b), u16::try_from(x)) =>
                {
                    // With the `for` step before it: step, test and jump in one.
                    if when
                        && tail(4)
                        && let Op::IncLocal(s, d, false) = self.code[n - 4]
                        && let Ok(s) = u16::try_from(s)
                    {
                        let fused = Op::IncJumpCmpAL { s, d, ar, a, b, x, c, t };
                        return Some(self.replace_tail(4, fused));
                    }
                    return Some(self.replace_tail(3, Op::JumpCmpAL { ar, a, b, x, c, when, t }));
                }
                (Op::LoadLocal(a), Op::Int(k)) if small(k).is_some() => {
                    let k = small(k)?;
                    return Some(self.replace_tail(3, Op::JumpCmpLI(c, when, a, k, t)));
                }
                (Op::LoadLocal(a), Op::LoadLocal(b)) => {
                    return Some(self.replace_tail(3, Op::JumpCmpLL(c, when, a, b, t)));
                }
                _ => {}
            }
        }
        if tail(2)
            && let Op::Int(k) = self.code[n - 2]
            && let Some(k) = small(k)
        {
            return Some(self.replace_tail(2, Op::JumpCmpSI(c, when, k, t)));
        }
        Some(self.replace_tail(1, Op::JumpCmp(c, when, t)))
    }

    /// Peephole: folds `op` with the instructions just before it into a super-instruction.
    #[inline(never)]
    fn fuse(&mut self, op: Op) -> Option<usize> {
        let n = self.code.len();
        let tail = |k: usize| n >= k && n - k >= self.barrier;
        let small = |i: i64| i32::try_from(i).ok();
        match op {
            Op::JumpIfFalse(t) | Op::JumpIfTrue(t) => self.fuse_branch(matches!(op, Op::JumpIfTrue(_)), t),
            Op::Mod | Op::BitAnd | Op::BitOr | Op::BitXor | Op::Shl | Op::Shr => self.fuse_int(op),
            Op::Add | Op::Sub | Op::Mul | Op::Div => {
                let ar = match op {
                    Op::Add => Arith::Add,
                    Op::Sub => Arith::Sub,
                    Op::Mul => Arith::Mul,
                    _ => Arith::Div,
                };
                if tail(2) {
                    match (self.code[n - 2], self.code[n - 1]) {
                        (Op::LoadLocal(a), Op::LoadLocal(b)) => {
                            return Some(self.replace_tail(2, Op::ArithLL(ar, a, b)));
                        }
                        // `%a.f op %b.g`: both fields read and the operator applied in one.
                        (Op::LoadFieldL(a, na, ha), Op::LoadFieldL(b, nb, hb))
                            if let (Ok(a), Ok(b)) = (u16::try_from(a), u16::try_from(b)) =>
                        {
                            let h = |h: u32| u8::try_from(h).unwrap_or(crate::bytecode::NO_HINT8);
                            let fused = Op::ArithFF { ar, a, b, na, nb, ha: h(ha), hb: h(hb) };
                            return Some(self.replace_tail(2, fused));
                        }
                        (Op::LoadLocal(a), Op::Int(k)) if small(k).is_some() => {
                            let k = small(k)?;
                            return Some(self.replace_tail(2, Op::ArithLI(ar, a, k)));
                        }
                        (Op::LoadLocal(a), p) if pure_push(p) => {
                            self.replace_tail(2, p);
                            return Some(self.emit_raw(Op::ArithLS(ar, a)));
                        }
                        _ => {}
                    }
                }
                // `(%h << 5) + %i`: the integer operator's result kept in a register.
                if tail(2)
                    && let (Op::IntLI(io, a, k), Op::LoadLocal(b)) = (self.code[n - 2], self.code[n - 1])
                    && let (Ok(a), Ok(b)) = (u16::try_from(a), u16::try_from(b))
                {
                    return Some(self.replace_tail(2, Op::ArithIL { ar, io, a, b, k }));
                }
                if tail(1) {
                    match self.code[n - 1] {
                        Op::LoadLocal(b) => return Some(self.replace_tail(1, Op::ArithSL(ar, b))),
                        Op::Int(k) if small(k).is_some() => {
                            let k = small(k)?;
                            return Some(self.replace_tail(1, Op::ArithSI(ar, k)));
                        }
                        _ => {}
                    }
                }
                None
            }
            // `$s[%i]` / `%a[%i]` read: the index straight from its local.
            Op::LoadGlobalElem(b, 1) | Op::LoadLocalElem(b, 1) if tail(1) => match self.code[n - 1] {
                Op::LoadLocal(s) => {
                    let fused = if matches!(op, Op::LoadGlobalElem(..)) {
                        Op::LoadGlobalElemL(b, s)
                    } else {
                        Op::LoadLocalElemL(b, s)
                    };
                    Some(self.replace_tail(1, fused))
                }
                _ => None,
            },
            // `$s[%i] = v` / `%a[%i] = v` with `v` one pure push: the push, then a store whose
            // index is read from its local (the local read moved after the push, which cannot
            // change it).
            Op::StoreGlobalElem(b, 1, false) | Op::StoreLocalElem(b, 1, false) if tail(2) => {
                match (self.code[n - 2], self.code[n - 1]) {
                    (Op::LoadLocal(s), Op::Int(k))
                        if matches!(op, Op::StoreGlobalElem(..))
                            && let Some(k) = small(k) =>
                    {
                        Some(self.replace_tail(2, Op::StoreGlobalElemLI(b, s, k)))
                    }
                    (Op::LoadLocal(s), p) if pure_push(p) => {
                        self.replace_tail(2, p);
                        let fused = if matches!(op, Op::StoreGlobalElem(..)) {
                            Op::StoreGlobalElemL(b, s)
                        } else {
                            Op::StoreLocalElemL(b, s)
                        };
                        Some(self.emit_raw(fused))
                    }
                    _ => None,
                }
            }
            Op::LoadField(..)
            | Op::LoadFieldElem(..)
            | Op::LoadGlobalElem(_, 2)
            | Op::StoreFieldElem(_, false, _)
            | Op::StoreGlobalElem(_, 2, false) => self.fuse_registers(op),
            Op::StoreGlobal(g, crate::bytecode::GStore::Pop) if tail(2) => self.fuse_global_update(g),
            Op::Return if tail(1) => match self.code[n - 1] {
                Op::LoadLocal(s) => Some(self.replace_tail(1, Op::ReturnLocal(s))),
                _ => None,
            },
            Op::StoreLocal(d, false)
                if tail(2)
                    && let (Op::ArithLI(inner, b, k), Op::ArithLS(outer, a)) =
                        (self.code[n - 2], self.code[n - 1])
                    && let (Ok(a), Ok(b), Ok(d)) = (u8::try_from(a), u8::try_from(b), u8::try_from(d)) =>
            {
                let k = f64::from(k);
                let op = if a == d {
                    Op::ArithLLIAcc { outer, inner, d, b, k }
                } else {
                    Op::ArithLLIStore { outer, inner, a, b, d, k }
                };
                Some(self.replace_tail(2, op))
            }
            Op::StoreLocal(d, false)
                if tail(1)
                    && let Op::LoadFieldL(s, f, hint) = self.code[n - 1]
                    && let (Ok(s), Ok(d)) = (u16::try_from(s), u16::try_from(d)) =>
            {
                Some(self.replace_tail(1, Op::LoadFieldLStore { s, d, n: f, hint }))
            }
            // `%o.f = %o.f op y`: read, operator and write in one (the store's own cache
            // is dropped: the load's is the field's place on the same object).
            Op::StoreFieldL(o, f, false, _)
                if tail(2)
                    && let Op::LoadFieldL(lo, lf, hint) = self.code[n - 2]
                    && lo == o
                    && lf == f
                    && let Ok(o) = u16::try_from(o)
                    && let Some((ar, y)) = field_operand(self.code[n - 1]) =>
            {
                Some(self.replace_tail(2, Op::ArithFieldL { ar, o, y, n: f, hint }))
            }
            Op::StoreFieldL(o, f, false, hint)
                if tail(1)
                    && let Op::LoadLocal(x) = self.code[n - 1]
                    && let (Ok(o), Ok(x)) = (u16::try_from(o), u16::try_from(x)) =>
            {
                Some(self.replace_tail(1, Op::StoreFieldLL { o, x, n: f, hint }))
            }
            // `%d = $a[i]`: the element copied straight into the local.
            Op::StoreLocal(d, false)
                if tail(1)
                    && let Ok(d) = u16::try_from(d)
                    && let Some((b, s)) = match self.code[n - 1] {
                        Op::LoadGlobalElem(b, 1) => Some((b, ELEM_FROM_STACK)),
                        Op::LoadGlobalElemL(b, s) => {
                            u16::try_from(s).ok().filter(|&s| s != ELEM_FROM_STACK).map(|s| (b, s))
                        }
                        _ => None,
                    } =>
            {
                Some(self.replace_tail(1, Op::LoadGlobalElemStore { b, s, d }))
            }
            Op::StoreLocal(d, false) if tail(1) => match self.code[n - 1] {
                Op::ArithLS(ar, a) => Some(self.replace_tail(1, Op::ArithLSStore(ar, a, d))),
                Op::ArithLI(ar, a, k) => Some(self.replace_tail(1, Op::ArithLIStore(ar, a, k, d))),
                Op::ArithLL(ar, a, b) => Some(self.replace_tail(1, Op::ArithLLStore(ar, a, b, d))),
                Op::IntSI(io, k) => Some(self.replace_tail(1, Op::IntSIStore(io, k, d))),
                _ => None,
            },
            _ => None,
        }
    }

    /// [`Self::fuse`] for `StoreGlobal(g, Pop)` after `LoadGlobal(g)` and an operator on the
    /// top: `$g++`, `$g += %x`, `$g = $g - 1` read, change and write the global in one
    /// instruction ([`crate::bytecode::GStore`]).
    fn fuse_global_update(&mut self, g: Name) -> Option<usize> {
        use crate::bytecode::GStore;
        let n = self.code.len();
        if n < 2 || self.code[n - 2] != Op::LoadGlobal(g) {
            return None;
        }
        let update = match self.code[n - 1] {
            Op::ArithSI(ar, k) => GStore::ArithI(ar, i16::try_from(k).ok()?),
            Op::ArithSL(ar, s) => GStore::ArithL(ar, u16::try_from(s).ok()?),
            _ => return None,
        };
        Some(self.replace_tail(2, Op::StoreGlobal(g, update)))
    }

    /// [`Self::fuse`] for an integer operator (`% & | ^ << >>`): operands read from locals or
    /// literals, an integer result read by it kept in a register, and what it reads widened.
    fn fuse_int(&mut self, op: Op) -> Option<usize> {
        let n = self.code.len();
        let tail = |k: usize| n >= k && n - k >= self.barrier;
        let small = |i: i64| i32::try_from(i).ok();
        let io = match op {
            Op::Mod => IntOp::Mod,
            Op::BitAnd => IntOp::And,
            Op::BitOr => IntOp::Or,
            Op::BitXor => IntOp::Xor,
            Op::Shl => IntOp::Shl,
            _ => IntOp::Shr,
        };
        // An arithmetic result this operator reads (and nothing else: it is the
        // instruction just before its operand's, in the same block) needs only its
        // integer: its `W` form.
        if tail(2) {
            match (self.code[n - 2], self.code[n - 1]) {
                (Op::LoadLocal(a), Op::LoadLocal(b)) => {
                    return Some(self.replace_tail(2, Op::IntLL(io, a, b)));
                }
                (Op::LoadLocal(a), Op::Int(k)) if small(k).is_some() => {
                    let k = small(k)?;
                    return Some(self.replace_tail(2, Op::IntLI(io, a, k)));
                }
                // `%h ^ (%i % 7)`: the inner operator's result kept in a register.
                (Op::LoadLocal(b), Op::IntLI(io1, a, k))
                    if let (Ok(a), Ok(b)) = (u16::try_from(a), u16::try_from(b)) =>
                {
                    return Some(self.replace_tail(2, Op::IntIL { io1, io2: io, a, b, k }));
                }
                // The local read moved after the pure push (which cannot change it).
                (Op::LoadLocal(a), p) if pure_push(p) => {
                    self.replace_tail(2, widened(p));
                    return Some(self.emit_raw(Op::IntLS(io, a)));
                }
                _ => {}
            }
        }
        if tail(1) {
            let fused = match self.code[n - 1] {
                Op::LoadLocal(b) => Some(Op::IntSL(io, b)),
                Op::Int(k) => small(k).map(|k| Op::IntSI(io, k)),
                _ => None,
            };
            if let Some(fused) = fused {
                if tail(2) {
                    self.widen_at(n - 2);
                }
                return Some(self.replace_tail(1, fused));
            }
            // Both operands on the stack: the right one is the last result.
            self.widen_at(n - 1);
        }
        None
    }

    /// [`Self::fuse`] for fields and two-index elements: the object (and index) read straight
    /// from their locals instead of pushed and popped (register operands).
    fn fuse_registers(&mut self, op: Op) -> Option<usize> {
        let n = self.code.len();
        let tail = |k: usize| n >= k && n - k >= self.barrier;
        match op {
            Op::LoadField(f, h) if tail(1) => match self.code[n - 1] {
                Op::LoadLocal(s) => Some(self.replace_tail(1, Op::LoadFieldL(s, f, h))),
                _ => None,
            },
            Op::LoadFieldElem(b, off) if tail(2) => match (self.code[n - 2], self.code[n - 1]) {
                (Op::LoadLocal(o), Op::LoadLocal(i))
                    if let (Ok(o), Ok(i)) = (u16::try_from(o), u16::try_from(i)) =>
                {
                    Some(self.replace_tail(2, Op::LoadFieldElemLL { o, i, b, off }))
                }
                _ => None,
            },
            Op::LoadGlobalElem(b, 2) if tail(2) => match (self.code[n - 2], self.code[n - 1]) {
                (Op::LoadLocal(r), Op::LoadLocal(c))
                    if let (Ok(r), Ok(c)) = (u16::try_from(r), u16::try_from(c)) =>
                {
                    Some(self.replace_tail(2, Op::LoadGlobalElemLL(b, r, c)))
                }
                _ => None,
            },
            // `%obj.v[%i] = v` / `$a[%i, %j] = v` with `v` one pure push: the push, then a
            // store reading the object and indexes from their locals (moved after the push,
            // which cannot change them).
            Op::StoreFieldElem(_, false, _) | Op::StoreGlobalElem(_, 2, false) if tail(3) => {
                let (Op::LoadLocal(x), Op::LoadLocal(y), p) =
                    (self.code[n - 3], self.code[n - 2], self.code[n - 1])
                else {
                    return None;
                };
                let (Ok(x), Ok(y)) = (u16::try_from(x), u16::try_from(y)) else { return None };
                if !pure_push(p) {
                    return None;
                }
                // `%obj.v[%i] = %x`: the value read from its local too.
                if let (Op::StoreFieldElem(b, _, off), Op::LoadLocal(v)) = (op, p)
                    && let Ok(v) = u16::try_from(v)
                {
                    return Some(self.replace_tail(3, Op::StoreFieldElemLLL { o: x, i: y, x: v, b, off }));
                }
                let fused = match op {
                    Op::StoreFieldElem(b, _, off) => Op::StoreFieldElemLL { o: x, i: y, b, off },
                    Op::StoreGlobalElem(b, ..) => Op::StoreGlobalElemLL(b, x, y),
                    _ => return None,
                };
                self.replace_tail(3, p);
                Some(self.emit_raw(fused))
            }
            _ => None,
        }
    }

    #[inline(always)]
    /// Puts the arithmetic instruction at `at` (whose result only an integer operator or
    /// a `W` form reads) in its `W` form, and so on back through the stack operand it reads
    /// in turn, within the block: `((%h << 5) + %i + %k) & 65535` widens both `+`. A `W`
    /// result is the exact double's integer (see [`Arith::int_apply`]), so a `W` form that
    /// reads it computes what it would from the double.
    fn widen_at(&mut self, mut at: usize) {
        while at >= self.barrier
            && let Some(&op) = self.code.get(at)
        {
            let w = widened(op);
            if w == op {
                return;
            }
            if let Some(slot) = self.code.get_mut(at) {
                *slot = w;
            }
            if !matches!(w, Op::ArithSL(..) | Op::ArithSI(..) | Op::ArithLS(..)) || at == 0 {
                return;
            }
            at -= 1;
        }
    }

    /// The `Call` at `at` with the `ArithLI` just before it in the same block (its last
    /// argument, `f(%n - 1)`): that instruction becomes [`Op::ArithLICall`], so the fast loop
    /// makes the call in the argument's dispatch. The `Call` stays (the interpreter's, and
    /// the fast loop's when it may not make the call).
    fn fuse_call_arg(&mut self, at: usize) {
        if let Some(prev) = at.checked_sub(1)
            && prev >= self.barrier
            && let Some(op) = self.code.get_mut(prev)
            && let Op::ArithLI(ar, a, k) = *op
        {
            *op = Op::ArithLICall(ar, a, k);
        }
    }

    fn emit_raw(&mut self, op: Op) -> usize {
        self.code.push(op);
        self.lines.push(self.line);
        self.code.len() - 1
    }

    /// The current position as a jump target.
    fn here(&mut self) -> u32 {
        self.barrier = self.code.len();
        self.code.len() as u32
    }

    /// A conditional jump taken when `c`'s truth is `when`, to `t` (a loop's top) or, with
    /// `None`, to a place the caller patches into the jumps returned. `&&`, `||` and (in a
    /// forward jump) `!` become jumps, not a 0 or 1 pushed and tested: each operand is tested
    /// as `JumpIfFalse` / `JumpIfTrue` test it (the truth that `!` and the value form of `&&`
    /// and `||` use), in the same order, the right operand only when the left does not decide.
    /// So every jump to a known target keeps `when` true (a loop's bottom), as before.
    fn branch(&mut self, c: &Expr, when: bool, t: Option<u32>) -> Vec<usize> {
        let mut jumps = Vec::new();
        self.branch_into(c, when, t, &mut jumps);
        jumps
    }

    fn branch_into(&mut self, c: &Expr, when: bool, t: Option<u32>, jumps: &mut Vec<usize>) {
        match c {
            Expr::Bin(op @ (BinOp::And | BinOp::Or), ab) => {
                let (a, b) = &**ab;
                // `a && b` is false when `a` is; `a || b` is true when `a` is.
                let decides = matches!(op, BinOp::Or);
                if when == decides {
                    // Either operand alone takes the jump.
                    self.branch_into(a, when, t, jumps);
                    self.branch_into(b, when, t, jumps);
                } else {
                    // `a` alone decides against the jump: past the test.
                    let skip = self.branch(a, decides, None);
                    self.branch_into(b, when, t, jumps);
                    let h = self.here();
                    self.patch_all(&skip, h);
                }
            }
            Expr::Un(UnOp::Not, a) if t.is_none() => self.branch_into(a, !when, None, jumps),
            _ => {
                if when && t.is_none() {
                    // A forward jump if true to patch: not one of the loop-bottom forms that
                    // fold the statement before the test into the jump (`IncJumpLtLI`, ...).
                    self.here();
                }
                self.expr(c, true);
                let t = t.unwrap_or(0);
                jumps.push(self.emit(if when { Op::JumpIfTrue(t) } else { Op::JumpIfFalse(t) }));
            }
        }
    }

    fn patch_all(&mut self, at: &[usize], target: u32) {
        for &j in at {
            self.patch(j, target);
        }
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.code[at] {
            Op::Jump(t)
            | Op::JumpIfFalse(t)
            | Op::JumpIfTrue(t)
            | Op::JumpCmp(_, _, t)
            | Op::JumpCmpLI(_, _, _, _, t)
            | Op::JumpCmpSI(_, _, _, t)
            | Op::JumpStrLK(_, _, _, t)
            | Op::JumpIntLLI { t, .. }
            | Op::JumpCmpAL { t, .. }
            | Op::IncJumpCmpLL { t, .. }
            | Op::IncJumpCmpLG { t, .. }
            | Op::JumpIfL(_, _, t)
            | Op::JumpIfNotElemL(_, _, t)
            | Op::IncJumpCmpAL { t, .. }
            | Op::ArithJumpCmpLL { t, .. }
            | Op::JumpCmpLL(_, _, _, _, t) => *t = target,
            _ => {}
        }
    }

    /// The index of the constant with text `s`, if the function has one. Past
    /// [`SHORT_CONSTS`] constants the maps (by text and by address) are filled on first need.
    fn find_const(&mut self, s: &str) -> Option<u32> {
        if self.consts.len() <= SHORT_CONSTS {
            return self.consts.iter().position(|k| const_text(k) == s).map(|i| i as u32);
        }
        if self.const_map.is_empty() {
            for (i, k) in self.consts.iter().enumerate() {
                if let Value::Str(rc) = k {
                    self.const_map.insert(ConstKey(rc.clone()), i as u32);
                    self.const_by_ptr.insert(Rc::as_ptr(rc) as usize, i as u32);
                }
            }
        }
        self.const_map.get(s).copied()
    }

    /// Appends the constant `rc` (not yet in the function) and returns its index.
    fn add_const(&mut self, rc: Rc<String>) -> u32 {
        let i = self.consts.len() as u32;
        if !self.const_map.is_empty() {
            self.const_by_ptr.insert(Rc::as_ptr(&rc) as usize, i);
            self.const_map.insert(ConstKey(rc.clone()), i);
        }
        self.consts.push(Value::Str(rc));
        i
    }

    fn konst(&mut self, s: &str) -> u32 {
        if let Some(i) = self.find_const(s) {
            return i;
        }
        if s.is_empty() {
            let i = self.consts.len() as u32;
            self.consts.push(Value::Empty);
            return i;
        }
        let rc = match self.file_consts.get_key_value(s) {
            Some((k, ())) => k.0.clone(),
            None => {
                let rc = Rc::new(s.to_string());
                self.file_consts.insert(ConstKey(rc.clone()), ());
                rc
            }
        };
        self.add_const(rc)
    }

    /// The constant for a string literal of the tree: found by the text's address (the parser
    /// shares one [`Text`] per distinct literal in a file), else by its text as [`Self::konst`]
    /// finds it; a new constant is the tree's text itself, not a copy.
    fn konst_text(&mut self, t: &Text) -> u32 {
        if t.is_empty() {
            return self.konst("");
        }
        // Only addresses of texts `consts` holds are looked for or recorded, so an address
        // cannot be that of a freed text reused.
        let key = Rc::as_ptr(t) as usize;
        let by_ptr = if self.consts.len() <= SHORT_CONSTS {
            self.consts
                .iter()
                .position(|k| matches!(k, Value::Str(rc) if Rc::as_ptr(rc) as usize == key))
                .map(|i| i as u32)
        } else {
            self.const_by_ptr.get(&key).copied()
        };
        if let Some(i) = by_ptr.or_else(|| self.find_const(t)) {
            return i;
        }
        self.add_const(t.clone())
    }

    fn push_str(&mut self, s: &str) {
        if s.is_empty() {
            self.emit(Op::Empty);
        } else {
            let k = self.konst(s);
            self.emit(Op::Const(k));
        }
    }

    /// Pushes a string literal of the tree.
    fn push_text(&mut self, t: &Text) {
        if t.is_empty() {
            self.emit(Op::Empty);
        } else {
            let k = self.konst_text(t);
            self.emit(Op::Const(k));
        }
    }

    fn local_slot(&mut self, name: &Ident) -> u32 {
        let key = Rc::as_ptr(name) as *const u8 as usize;
        if let Some(&(_, s)) = self.local_by_ptr[..self.n_by_ptr].iter().find(|&&(k, _)| k == key) {
            return s;
        }
        let n = self.names.intern_rc(name);
        let s = match self.locals.get(&n) {
            Some(&s) => s,
            None => {
                let s = self.nlocals;
                self.nlocals += 1;
                self.locals.insert(n, s);
                s
            }
        };
        // A short list: most functions have a handful of locals; the rest take the slow path.
        if let Some(e) = self.local_by_ptr.get_mut(self.n_by_ptr) {
            *e = (key, s);
            self.n_by_ptr += 1;
        }
        s
    }

    fn temp_slot(&mut self) -> u32 {
        let s = self.nlocals;
        self.nlocals += 1;
        s
    }

    fn function(&mut self, f: &FunctionDecl, package: Option<&str>) {
        let name = self.names.intern_rc(&f.name);
        let ns = f.ns.as_ref().map(|n| self.names.intern_rc(n));
        let pkg = package.map(|p| self.names.intern(p));
        let spare = std::mem::take(&mut self.spare);
        let mut fc = FunctionCompiler::new(self.names, false, self.file.clone(), spare);
        fc.file_consts = std::mem::take(&mut self.file_consts);
        fc.line = f.span.line;
        for p in f.params.iter().take(crate::bytecode::MAX_ARGS) {
            let n = fc.names.intern_rc(p);
            if !fc.locals.contains_key(&n) {
                fc.locals.insert(n, fc.nlocals);
            }
            // Duplicate parameter names still take a slot so argument positions line up.
            fc.nlocals += 1;
        }
        let nparams = fc.nlocals;
        for s in &f.body {
            fc.stmt(s);
        }
        fc.emit(Op::ReturnEmpty);
        let consts = std::mem::take(&mut fc.file_consts);
        let (def, spare) = fc.finish_keeping(name, ns, pkg, nparams);
        let def = Rc::new(def);
        self.spare = spare;
        self.file_consts = consts;
        let idx = self.decls.len() as u32;
        self.decls.push(def);
        self.emit(Op::Declare(idx));
    }

    /// A statement starts here on `line`: a breakable line (the first statement of each line).
    /// The mark is a barrier, so no super-instruction spans two statements and a breakpoint
    /// patched over the statement's first instruction stops before all of it.
    fn mark_statement(&mut self, line: u32) {
        if self.breaks.last().map(|b| b.0) != Some(line) {
            let pc = self.here();
            self.breaks.push((line, pc));
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Expr(_, sp)
            | Stmt::If(_, _, _, sp)
            | Stmt::While(_, _, sp)
            | Stmt::DoWhile(_, _, sp)
            | Stmt::For(_, _, sp)
            | Stmt::Break(sp)
            | Stmt::Continue(sp)
            | Stmt::Return(_, sp)
            | Stmt::Switch { span: sp, .. } => self.mark_statement(sp.line),
            Stmt::Datablock(d) => self.mark_statement(d.span.line),
            Stmt::Block(_) | Stmt::Function(_) | Stmt::Package(..) => {}
        }
        match s {
            Stmt::Expr(e, sp) => {
                self.line = sp.line;
                self.expr(e, false);
            }
            Stmt::If(c, t, e, sp) => {
                self.line = sp.line;
                let jf = self.branch(c, false, None);
                self.stmt(t);
                if let Some(e) = e {
                    let j = self.emit(Op::Jump(0));
                    let h = self.here();
                    self.patch_all(&jf, h);
                    self.stmt(e);
                    let h = self.here();
                    self.patch(j, h);
                } else {
                    let h = self.here();
                    self.patch_all(&jf, h);
                }
            }
            Stmt::While(c, body, sp) => {
                // The test is compiled twice (before the loop, and at the bottom) so each
                // iteration runs one conditional jump and no unconditional one.
                self.line = sp.line;
                let jf = self.branch(c, false, None);
                let top = self.here();
                self.loops.push(Loop { breaks: Vec::new(), continues: Vec::new() });
                self.stmt(body);
                // The loop's test is a stop of its own on each pass, at the loop's line.
                self.mark_statement(sp.line);
                let cont = self.here();
                self.line = sp.line;
                self.branch(c, true, Some(top));
                let end = self.here();
                self.patch_all(&jf, end);
                self.close_loop(cont, end);
            }
            Stmt::DoWhile(body, c, sp) => {
                self.line = sp.line;
                let top = self.here();
                self.loops.push(Loop { breaks: Vec::new(), continues: Vec::new() });
                self.stmt(body);
                let cont = self.here();
                self.branch(c, true, Some(top));
                let end = self.here();
                self.close_loop(cont, end);
            }
            Stmt::For(head, body, sp) => self.for_loop(head, body, sp.line),
            Stmt::Switch { subject, string, cases, default, span } => {
                self.line = span.line;
                self.switch(subject, *string, cases, default.as_deref());
            }
            Stmt::Break(sp) => {
                self.line = sp.line;
                if self.loops.is_empty() {
                    self.error_op("break outside a loop");
                    self.emit(Op::Pop);
                } else {
                    let j = self.emit(Op::Jump(0));
                    if let Some(l) = self.loops.last_mut() {
                        l.breaks.push(j);
                    }
                }
            }
            Stmt::Continue(sp) => {
                self.line = sp.line;
                if self.loops.is_empty() {
                    self.error_op("continue outside a loop");
                    self.emit(Op::Pop);
                } else {
                    let j = self.emit(Op::Jump(0));
                    if let Some(l) = self.loops.last_mut() {
                        l.continues.push(j);
                    }
                }
            }
            Stmt::Return(e, sp) => {
                self.line = sp.line;
                match e {
                    Some(e) => {
                        self.expr(e, true);
                        self.emit(Op::Return);
                    }
                    None => {
                        self.emit(Op::ReturnEmpty);
                    }
                }
            }
            Stmt::Block(b) => {
                for s in b {
                    self.stmt(s);
                }
            }
            Stmt::Datablock(d) => {
                self.line = d.span.line;
                self.object(d);
                self.emit(Op::Pop);
            }
            Stmt::Function(f) => self.function(f, None),
            Stmt::Package(name, fs, _) => {
                for f in fs {
                    self.function(f, Some(name));
                }
            }
        }
    }

    /// `for (init; test; step) body`: the test compiled twice (see `while`).
    fn for_loop(&mut self, head: &[Option<Expr>; 3], body: &Stmt, line: u32) {
        let [init, test, step] = head;
        self.line = line;
        if let Some(i) = init {
            self.expr(i, false);
        }
        // The test is compiled twice (see `while`).
        let jf = test.as_ref().map(|t| self.branch(t, false, None));
        let top = self.here();
        self.loops.push(Loop { breaks: Vec::new(), continues: Vec::new() });
        self.stmt(body);
        // The loop's test is a stop of its own on each pass, at the loop's line.
        self.mark_statement(line);
        let cont = self.here();
        self.line = line;
        if let Some(st) = step {
            self.expr(st, false);
        }
        match test {
            Some(t) => {
                self.branch(t, true, Some(top));
            }
            None => {
                self.emit(Op::Jump(top));
            }
        }
        let end = self.here();
        if let Some(jf) = jf {
            self.patch_all(&jf, end);
        }
        self.close_loop(cont, end);
    }

    /// `switch` / `switch$`: the subject in a temporary, a compare and jump per case value,
    /// then the bodies in order.
    fn switch(&mut self, subject: &Expr, string: bool, cases: &[Case], default: Option<&[Stmt]>) {
        let tmp = self.temp_slot();
        self.expr(subject, true);
        self.emit(Op::StoreLocal(tmp, false));
        // Every case's jumps in one list, in order (a list per case cost an allocation each).
        let mut jumps = Vec::with_capacity(cases.iter().map(|c| c.values.len()).sum());
        for c in cases {
            for v in &c.values {
                self.emit(Op::LoadLocal(tmp));
                self.expr(v, true);
                self.emit(if string { Op::StrEq } else { Op::Eq });
                jumps.push(self.emit(Op::JumpIfTrue(0)));
            }
        }
        let to_default = self.emit(Op::Jump(0));
        let mut ends = Vec::with_capacity(cases.len());
        let mut arms = jumps.iter();
        for c in cases {
            let h = self.here();
            for &j in arms.by_ref().take(c.values.len()) {
                self.patch(j, h);
            }
            for s in &c.body {
                self.stmt(s);
            }
            ends.push(self.emit(Op::Jump(0)));
        }
        let h = self.here();
        self.patch(to_default, h);
        if let Some(d) = default {
            for s in d {
                self.stmt(s);
            }
        }
        let h = self.here();
        for e in ends {
            self.patch(e, h);
        }
        if string {
            self.pair_str_compares(&jumps);
        }
    }

    /// A `switch$`'s compares against literals two by two ([`Op::JumpStrLK2`]): one dispatch
    /// for two cases, each still with a branch of its own (a jump picked from a table of the
    /// cases was slower for all its fewer instructions: docs/PERFORMANCE.md, nineteenth
    /// pass). `at`: the compares' positions, in order, with their targets patched.
    fn pair_str_compares(&mut self, at: &[usize]) {
        let mut i = 0;
        while let (Some(&p), Some(&q)) = (at.get(i), at.get(i + 1)) {
            if q == p + 1
                && let (Some(&Op::JumpStrLK(a, k1, true, t1)), Some(&Op::JumpStrLK(b, k2, true, t2))) =
                    (self.code.get(p), self.code.get(q))
                && a == b
                && let (Ok(a), Ok(k1), Ok(k2)) = (u16::try_from(a), u16::try_from(k1), u16::try_from(k2))
                && let Some(op) = self.code.get_mut(p)
            {
                *op = Op::JumpStrLK2 { a, k1, k2, t1, t2 };
                i += 2;
            } else {
                i += 1;
            }
        }
    }

    fn close_loop(&mut self, cont: u32, end: u32) {
        if let Some(l) = self.loops.pop() {
            for b in l.breaks {
                self.patch(b, end);
            }
            for c in l.continues {
                self.patch(c, cont);
            }
        }
    }

    fn error_op(&mut self, msg: &'static str) {
        let k = self.konst(msg);
        self.emit(Op::Error(k));
    }

    fn index_name(&mut self, name: &Ident, index: &[Expr]) {
        for e in index {
            self.expr(e, true);
        }
        let n = self.names.intern_rc(name);
        self.emit(Op::BuildName(n, index.len() as u32));
    }

    /// For an indexed variable or field whose base takes a number directly (see `elements`),
    /// pushes the indexes and returns the base and their count; otherwise `None`, nothing
    /// emitted.
    fn elem_index(&mut self, name: &Ident, index: &[Expr]) -> Option<(Name, u8)> {
        // `$a["key" @ %i]` is the variable named `akey` followed by `%i`'s text, which is
        // element `%i` of the array `akey` when that base takes a number directly: the same
        // variable as the text path names (`elements`: a name ending in digits splits into
        // its base and number), found without building `"key" @ %i` and then `a` + that.
        if let [Expr::Bin(BinOp::Cat, pair)] = index
            && let (Expr::Str(prefix), rest) = (&pair.0, &pair.1)
        {
            let base = format!("{name}{prefix}");
            if crate::elements::direct_base(&base) {
                self.expr(rest, true);
                return Some((self.names.intern(&base), 1));
            }
        }
        if index.is_empty() || index.len() > 2 || !crate::elements::direct_base(name) {
            return None;
        }
        for e in index {
            self.expr(e, true);
        }
        Some((self.names.intern_rc(name), index.len() as u8))
    }

    /// `%x += k`, `%x -= k`, `%x = %x + k`, `%x = %x - k` (`%x` in `slot`, `k` a small integer):
    /// the step `IncLocal` makes, as for `%x++` (the same number, `%x + k`), which a loop's
    /// bottom folds with its test (`IncJumpCmpLL`).
    fn local_step(&mut self, slot: u32, op: Option<BinOp>, value: &Expr) -> Option<i8> {
        let (op, k) = match (op, value) {
            (Some(op @ (BinOp::Add | BinOp::Sub)), Expr::Int(k)) => (op, *k),
            (None, Expr::Bin(op @ (BinOp::Add | BinOp::Sub), ab)) => match &**ab {
                (Expr::Load(LValue::Var { scope: Scope::Local, name, index }), Expr::Int(k))
                    if index.is_empty() && self.local_slot(name) == slot =>
                {
                    (*op, *k)
                }
                _ => return None,
            },
            _ => return None,
        };
        i8::try_from(k.checked_mul(if op == BinOp::Add { 1 } else { -1 })?).ok()
    }

    /// `$a[%i] op= v`, `%a[%i] op= v`, `$a[%i, %j] op= v` with the indexes in locals that `v`
    /// cannot change (no assignment or call in it): the element read and written with its
    /// indexes straight from their locals (`LoadGlobalElemL`, `StoreGlobalElemL`,
    /// `LoadGlobalElemLL`, `StoreGlobalElemLL`, ...), not pushed, copied (`Dup`, `Dup2`) and
    /// popped by the stack forms. The same element, read and written in the same order: the
    /// indexes are read twice, with nothing between that can change them. False (nothing
    /// emitted) for any other shape.
    fn compound_elem(&mut self, lv: &LValue, op: BinOp, value: &Expr) -> bool {
        let LValue::Var { scope, name, index } = lv else { return false };
        if self.toplevel || !crate::elements::direct_base(name) || !no_effects(value) {
            return false;
        }
        let global = *scope == Scope::Global;
        fn local(e: &Expr) -> Option<&Ident> {
            match e {
                Expr::Load(LValue::Var { scope: Scope::Local, name, index }) if index.is_empty() => {
                    Some(name)
                }
                _ => None,
            }
        }
        match index.as_slice() {
            [i] => {
                let Some(i) = local(i) else { return false };
                let s = self.local_slot(i);
                let b = self.names.intern_rc(name);
                self.emit(Op::LoadLocal(s));
                self.emit(if global { Op::LoadGlobalElem(b, 1) } else { Op::LoadLocalElem(b, 1) });
                self.expr(value, true);
                self.binop(op);
                self.emit_raw(if global { Op::StoreGlobalElemL(b, s) } else { Op::StoreLocalElemL(b, s) });
                true
            }
            [r, c] if global => {
                let (Some(r), Some(c)) = (local(r), local(c)) else { return false };
                let (r, c) = (self.local_slot(r), self.local_slot(c));
                let (Ok(r16), Ok(c16)) = (u16::try_from(r), u16::try_from(c)) else { return false };
                let b = self.names.intern_rc(name);
                self.emit(Op::LoadLocal(r));
                self.emit(Op::LoadLocal(c));
                self.emit(Op::LoadGlobalElem(b, 2));
                self.expr(value, true);
                self.binop(op);
                self.emit_raw(Op::StoreGlobalElemLL(b, r16, c16));
                true
            }
            _ => false,
        }
    }

    /// A global named without an index: a plain name, or an array element when the name ends
    /// in digits (`$s12` is `$s[12]`), whose index is pushed.
    fn global_name(&mut self, name: &Ident) -> Result<Name, (Name, u8)> {
        match crate::elements::split_elem(name) {
            Some((b, i)) => {
                let b = self.names.intern(b);
                self.emit(Op::Int(i64::from(i)));
                Err((b, 1))
            }
            None => Ok(self.names.intern_rc(name)),
        }
    }

    /// Pushes the current value of an lvalue. Returns nothing on the stack but the value.
    fn load(&mut self, lv: &LValue) {
        match lv {
            LValue::Var { scope: Scope::Global, name, index } => {
                if index.is_empty() {
                    match self.global_name(name) {
                        Ok(n) => self.emit(Op::LoadGlobal(n)),
                        Err((b, k)) => self.emit(Op::LoadGlobalElem(b, k)),
                    };
                } else if let Some((b, k)) = self.elem_index(name, index) {
                    self.emit(Op::LoadGlobalElem(b, k));
                } else {
                    self.index_name(name, index);
                    self.emit(Op::LoadGlobalDyn);
                }
            }
            LValue::Var { scope: Scope::Local, name, index } => {
                if index.is_empty() && !self.toplevel {
                    let s = self.local_slot(name);
                    self.emit(Op::LoadLocal(s));
                } else if let Some((b, k)) = self.elem_index(name, index) {
                    self.emit(Op::LoadLocalElem(b, k));
                } else {
                    self.index_name(name, index);
                    self.emit(Op::LoadLocalDyn);
                }
            }
            LValue::Field { object, name, index } => {
                self.expr(object, true);
                if index.is_empty() {
                    let n = self.names.intern_rc(name);
                    self.emit(Op::LoadField(n, crate::bytecode::NO_HINT));
                } else if index.len() == 1 && crate::elements::direct_base(name) {
                    self.expr(&index[0], true);
                    let b = self.names.intern_rc(name);
                    self.emit(Op::LoadFieldElem(b, 0));
                } else {
                    self.index_name(name, index);
                    self.emit(Op::LoadFieldDyn);
                }
            }
        }
    }

    /// Assignment and compound assignment (`op`), leaving the value when `keep`.
    fn assign(&mut self, lv: &LValue, op: Option<BinOp>, value: &Expr, keep: bool) {
        // In-place append for `%s = %s @ x` and `%s @= ...`-like shapes.
        if let LValue::Var { scope: Scope::Local, name, index } = lv
            && index.is_empty()
            && !self.toplevel
        {
            let slot = self.local_slot(name);
            if op.is_none()
                && let Some(parts) = append_chain(value, name)
            {
                let last = parts.len() - 1;
                for (k, (bop, rhs)) in parts.into_iter().enumerate() {
                    self.expr(rhs, true);
                    self.emit(Op::AppendLocal(slot, sep_of(bop), keep && k == last));
                }
                return;
            }
            if let Some(d) = self.local_step(slot, op, value) {
                self.emit(Op::IncLocal(slot, d, keep));
                return;
            }
            match op {
                None => self.expr(value, true),
                Some(op) => {
                    self.emit(Op::LoadLocal(slot));
                    self.expr(value, true);
                    self.binop(op);
                }
            }
            self.emit(Op::StoreLocal(slot, keep));
            return;
        }
        if let Some(op) = op
            && !keep
            && self.compound_elem(lv, op, value)
        {
            return;
        }
        match lv {
            LValue::Var { scope, name, index } => {
                let global = *scope == Scope::Global;
                let target = if global && index.is_empty() {
                    Some(self.global_name(name))
                } else {
                    self.elem_index(name, index).map(Err)
                };
                if let Some(target) = target {
                    match target {
                        Ok(n) => {
                            if let Some(op) = op {
                                self.emit(Op::LoadGlobal(n));
                                self.expr(value, true);
                                self.binop(op);
                            } else {
                                self.expr(value, true);
                            }
                            self.emit(Op::StoreGlobal(n, crate::bytecode::GStore::of_keep(keep)));
                        }
                        Err((b, k)) => {
                            if let Some(op) = op {
                                if k == 1 {
                                    self.emit(Op::Dup);
                                } else {
                                    self.emit(Op::Dup2);
                                }
                                self.emit(if global {
                                    Op::LoadGlobalElem(b, k)
                                } else {
                                    Op::LoadLocalElem(b, k)
                                });
                                self.expr(value, true);
                                self.binop(op);
                            } else {
                                self.expr(value, true);
                            }
                            self.emit(if global {
                                Op::StoreGlobalElem(b, k, keep)
                            } else {
                                Op::StoreLocalElem(b, k, keep)
                            });
                        }
                    }
                } else {
                    self.index_name(name, index);
                    if let Some(op) = op {
                        self.emit(Op::Dup);
                        self.emit(if global { Op::LoadGlobalDyn } else { Op::LoadLocalDyn });
                        self.expr(value, true);
                        self.binop(op);
                    } else {
                        self.expr(value, true);
                    }
                    self.emit(if global { Op::StoreGlobalDyn(keep) } else { Op::StoreLocalDyn(keep) });
                }
            }
            // `%o.f = v` where `v` cannot change `%o`: the value first, then a store that
            // reads the object from its slot (no push and pop of the object).
            LValue::Field { object, name, index }
                if index.is_empty()
                    && !self.toplevel
                    && let Expr::Load(LValue::Var { scope: Scope::Local, name: on, index: oi }) =
                        &**object
                    && oi.is_empty()
                    && no_effects(value) =>
            {
                let s = self.local_slot(on);
                let n = self.names.intern_rc(name);
                if let Some(op) = op {
                    self.emit(Op::LoadLocal(s));
                    self.emit(Op::LoadField(n, crate::bytecode::NO_HINT));
                    self.expr(value, true);
                    self.binop(op);
                } else {
                    self.expr(value, true);
                }
                self.emit(Op::StoreFieldL(s, n, keep, crate::bytecode::NO_HINT));
            }
            LValue::Field { object, name, index } => {
                self.expr(object, true);
                if index.is_empty() {
                    let n = self.names.intern_rc(name);
                    if let Some(op) = op {
                        self.emit(Op::Dup);
                        self.emit(Op::LoadField(n, crate::bytecode::NO_HINT));
                        self.expr(value, true);
                        self.binop(op);
                    } else {
                        self.expr(value, true);
                    }
                    self.emit(Op::StoreField(n, keep, crate::bytecode::NO_HINT));
                } else if index.len() == 1 && crate::elements::direct_base(name) {
                    self.expr(&index[0], true);
                    let b = self.names.intern_rc(name);
                    if let Some(op) = op {
                        self.emit(Op::Dup2);
                        self.emit(Op::LoadFieldElem(b, 0));
                        self.expr(value, true);
                        self.binop(op);
                    } else {
                        self.expr(value, true);
                    }
                    self.emit(Op::StoreFieldElem(b, keep, 0));
                } else {
                    self.index_name(name, index);
                    if let Some(op) = op {
                        self.emit(Op::Dup2);
                        self.emit(Op::LoadFieldDyn);
                        self.expr(value, true);
                        self.binop(op);
                    } else {
                        self.expr(value, true);
                    }
                    self.emit(Op::StoreFieldDyn(keep));
                }
            }
        }
    }

    /// Each arm emits a constant op, written straight into the code: an op picked at run time
    /// sat in memory written one byte wide, and its 16-byte copy into the code stalled on store
    /// forwarding (docs/PERFORMANCE.md).
    fn binop(&mut self, op: BinOp) {
        match op {
            BinOp::Add => self.emit(Op::Add),
            BinOp::Sub => self.emit(Op::Sub),
            BinOp::Mul => self.emit(Op::Mul),
            BinOp::Div => self.emit(Op::Div),
            BinOp::Mod => self.emit(Op::Mod),
            BinOp::BitAnd => self.emit(Op::BitAnd),
            BinOp::BitOr => self.emit(Op::BitOr),
            BinOp::BitXor => self.emit(Op::BitXor),
            BinOp::Shl => self.emit(Op::Shl),
            BinOp::Shr => self.emit(Op::Shr),
            BinOp::Lt => self.emit(Op::Lt),
            BinOp::Le => self.emit(Op::Le),
            BinOp::Gt => self.emit(Op::Gt),
            BinOp::Ge => self.emit(Op::Ge),
            BinOp::Eq => self.emit(Op::Eq),
            BinOp::Ne => self.emit(Op::Ne),
            BinOp::StrEq => self.emit(Op::StrEq),
            BinOp::StrNe => self.emit(Op::StrNe),
            BinOp::Cat | BinOp::CatSpc | BinOp::CatTab | BinOp::CatNl => self.emit(Op::Cat(sep_of(op))),
            // Short-circuit operators are compiled with jumps; reaching here means a compound
            // assignment, which the parser never produces for them.
            BinOp::And | BinOp::Or => self.emit(Op::BitAnd),
        };
    }

    fn args(&mut self, args: &[Expr]) -> u32 {
        for a in args {
            self.expr(a, true);
        }
        args.len() as u32
    }

    /// Compiles an expression; when `want` is false the value is not left on the stack.
    fn expr(&mut self, e: &Expr, want: bool) {
        match e {
            Expr::Assign(lv, op, v) => {
                self.assign(lv, *op, v, want);
                return;
            }
            Expr::PostInc(lv, up) => {
                if let LValue::Var { scope: Scope::Local, name, index } = lv
                    && index.is_empty()
                    && !self.toplevel
                {
                    let slot = self.local_slot(name);
                    self.emit(Op::IncLocal(slot, if *up { 1 } else { -1 }, want));
                    return;
                }
                const ONE: &Expr = &Expr::Int(1);
                self.assign(lv, Some(if *up { BinOp::Add } else { BinOp::Sub }), ONE, want);
                return;
            }
            _ => {}
        }
        match e {
            Expr::Int(i) => {
                self.emit(Op::Int(*i));
            }
            Expr::Float(f) => {
                self.emit(Op::Float(*f));
            }
            Expr::Str(s) => self.push_text(s),
            Expr::Ident(s) => self.push_str(s),
            Expr::Tagged(s) => {
                let k = self.konst_text(s);
                self.emit(Op::Tag(k));
            }
            Expr::Load(lv) => self.load(lv),
            Expr::Bin(BinOp::And, ab) | Expr::Bin(BinOp::Or, ab) => {
                let (a, b) = &**ab;
                let is_and = matches!(e, Expr::Bin(BinOp::And, ..));
                self.expr(a, true);
                let j1 = self.emit(if is_and { Op::JumpIfFalse(0) } else { Op::JumpIfTrue(0) });
                self.expr(b, true);
                let j2 = self.emit(if is_and { Op::JumpIfFalse(0) } else { Op::JumpIfTrue(0) });
                self.emit(Op::Int(if is_and { 1 } else { 0 }));
                let j3 = self.emit(Op::Jump(0));
                let h = self.here();
                self.patch(j1, h);
                self.patch(j2, h);
                self.emit(Op::Int(if is_and { 0 } else { 1 }));
                let h = self.here();
                self.patch(j3, h);
            }
            Expr::Bin(op, ab) => {
                let (a, b) = &**ab;
                self.expr(a, true);
                self.expr(b, true);
                self.binop(*op);
            }
            // `-500`: the literal negated here, as `Neg` of an integer would (`Int(-k)`), so
            // `%x * -1` and `clamp(%v, -500, 500)` push one constant (or fold it further).
            Expr::Un(UnOp::Neg, a) if let Expr::Int(k) = **a => {
                self.emit(Op::Int(k.wrapping_neg()));
            }
            Expr::Un(op, a) => {
                self.expr(a, true);
                self.emit(match op {
                    UnOp::Neg => Op::Neg,
                    UnOp::Not => Op::Not,
                    UnOp::BitNot => Op::BitNot,
                });
            }
            Expr::Cond(c, a, b) => {
                let jf = self.branch(c, false, None);
                self.expr(a, true);
                let j = self.emit(Op::Jump(0));
                let h = self.here();
                self.patch_all(&jf, h);
                self.expr(b, true);
                let h = self.here();
                self.patch(j, h);
            }
            Expr::Call { ns, name, args, span } => {
                self.line = self.line.max(span.line);
                let argc = self.args(args);
                let n = self.names.intern_rc(name);
                match ns {
                    None => {
                        let at = self.emit(Op::Call(n, argc));
                        self.fuse_call_arg(at);
                        at
                    }
                    Some(p) if p.eq_ignore_ascii_case("Parent") => self.emit(Op::CallParent(n, argc)),
                    Some(p) => {
                        let pn = self.names.intern_rc(p);
                        self.emit(Op::CallNs(pn, n, argc))
                    }
                };
            }
            Expr::Method { object, name, args, .. } => {
                self.expr(object, true);
                let argc = self.args(args) + 1;
                let n = self.names.intern_rc(name);
                self.emit(Op::CallMethod(n, argc));
            }
            Expr::New(d) => self.object(d),
            Expr::Assign(..) | Expr::PostInc(..) => {}
        }
        if !want {
            self.emit(Op::Pop);
        }
    }

    /// Leaves the new object's id on the stack.
    fn object(&mut self, d: &ObjectDecl) {
        let class = match &d.class {
            ClassName::Name(n) => Some(self.names.intern_rc(n)),
            ClassName::Expr(e) => {
                self.expr(e, true);
                None
            }
        };
        if let Some(n) = &d.name {
            self.expr(n, true);
        }
        let argc = self.args(&d.args);
        let parent = d.parent.as_ref().map(|p| self.names.intern_rc(p));
        let spec = NewSpec {
            class,
            has_name: d.name.is_some(),
            parent,
            argc,
            datablock: d.datablock,
            line: d.span.line,
            end: 0,
        };
        let idx = self.new_specs.len() as u32;
        self.new_specs.push(spec);
        self.emit(Op::NewBegin(idx));
        for (name, index, value) in &d.fields {
            if index.is_empty() {
                self.expr(value, true);
                let n = self.names.intern_rc(name);
                self.emit(Op::NewField(n));
            } else {
                self.index_name(name, index);
                self.expr(value, true);
                self.emit(Op::NewFieldDyn);
            }
        }
        self.emit(Op::NewAdd);
        for c in &d.children {
            self.object(c);
            self.emit(Op::Pop);
        }
        let end = self.emit(Op::NewEnd) as u32;
        if let Some(s) = self.new_specs.get_mut(idx as usize) {
            s.end = end;
        }
    }
}

fn cmp_of(op: Op) -> Option<Cmp> {
    Some(match op {
        Op::Lt => Cmp::Lt,
        Op::Le => Cmp::Le,
        Op::Gt => Cmp::Gt,
        Op::Ge => Cmp::Ge,
        Op::Eq => Cmp::Eq,
        Op::Ne => Cmp::Ne,
        _ => return None,
    })
}

/// The ops [`FunctionCompiler::fuse`] may fold (the others skip the call).
#[inline(always)]
fn fusible(op: Op) -> bool {
    matches!(
        op,
        Op::JumpIfFalse(_)
            | Op::JumpIfTrue(_)
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Mod
            | Op::BitAnd
            | Op::BitOr
            | Op::BitXor
            | Op::Shl
            | Op::Shr
            | Op::Return
            | Op::StoreLocal(_, false)
            | Op::LoadGlobalElem(_, 1)
            | Op::LoadLocalElem(_, 1)
            | Op::StoreGlobalElem(_, 1, false)
            | Op::StoreLocalElem(_, 1, false)
            | Op::LoadField(..)
            | Op::LoadFieldElem(..)
            | Op::LoadGlobalElem(_, 2)
            | Op::StoreFieldElem(_, false, _)
            | Op::StoreGlobalElem(_, 2, false)
            | Op::StoreFieldL(_, _, false, _)
            | Op::StoreGlobal(_, crate::bytecode::GStore::Pop)
    )
}

/// Instructions that push exactly one value and have no side effects (so a local read may be
/// moved after them).
/// `op` with its arithmetic in the `W` form (see [`Arith`]) when it is an arithmetic
/// instruction that leaves its result on the stack; anything else as it is.
fn widened(op: Op) -> Op {
    let w = |ar: Arith| ar.widened().unwrap_or(ar);
    match op {
        Op::ArithLL(ar, a, b) => Op::ArithLL(w(ar), a, b),
        Op::ArithLI(ar, a, k) => Op::ArithLI(w(ar), a, k),
        Op::ArithSL(ar, b) => Op::ArithSL(w(ar), b),
        Op::ArithSI(ar, k) => Op::ArithSI(w(ar), k),
        Op::ArithLS(ar, a) => Op::ArithLS(w(ar), a),
        Op::ArithIL { ar, io, a, b, k } => Op::ArithIL { ar: w(ar), io, a, b, k },
        other => other,
    }
}

/// The operator and other operand of an arithmetic instruction applied to a field's value
/// on the stack top, for [`Op::ArithFieldL`].
fn field_operand(op: Op) -> Option<(Arith, FieldOperand)> {
    match op {
        Op::ArithSL(ar, b) => Some((ar, FieldOperand::After(u16::try_from(b).ok()?))),
        Op::ArithLS(ar, a) => Some((ar, FieldOperand::Before(u16::try_from(a).ok()?))),
        Op::ArithSI(ar, k) => Some((ar, FieldOperand::Int(i16::try_from(k).ok()?))),
        _ => None,
    }
}

fn pure_push(op: Op) -> bool {
    matches!(
        op,
        Op::Int(_)
            | Op::Float(_)
            | Op::Const(_)
            | Op::Empty
            | Op::LoadLocal(_)
            | Op::LoadGlobal(_)
            | Op::ArithLL(..)
            | Op::ArithLI(..)
            | Op::IntLL(..)
            | Op::IntLI(..)
            | Op::IntIL { .. }
            | Op::ArithIL { .. }
            | Op::LoadGlobalElemL(..)
            | Op::LoadLocalElemL(..)
            | Op::LoadFieldL(..)
            | Op::ArithFF { .. }
            | Op::LoadFieldElemLL { .. }
            | Op::LoadGlobalElemLL(..)
    )
}

/// `%s @ a SPC b ...` (any of the concatenation operators, left to right) whose leftmost
/// operand is the local `name`: the operators and right operands in order, to append in
/// place one after the other. Only when no right operand could read or change `name` (each
/// would see the partly appended string): literals, other locals, globals, fields, operators
/// on them, calls other than `eval` on them. The single `%s = %s @ x` is always taken.
fn append_chain<'e>(value: &'e Expr, name: &str) -> Option<Vec<(BinOp, &'e Expr)>> {
    let mut parts = Vec::new();
    let mut e = value;
    loop {
        match e {
            Expr::Bin(bop @ (BinOp::Cat | BinOp::CatSpc | BinOp::CatTab | BinOp::CatNl), lr) => {
                parts.push((*bop, &lr.1));
                e = &lr.0;
            }
            Expr::Load(LValue::Var { scope: Scope::Local, name: n2, index })
                if index.is_empty() && n2.eq_ignore_ascii_case(name) && !parts.is_empty() =>
            {
                parts.reverse();
                if parts.len() > 1 && !parts.iter().all(|(_, r)| leaves_local(r, name)) {
                    return None;
                }
                return Some(parts);
            }
            _ => return None,
        }
    }
}

/// True when evaluating `e` can neither read nor write the local `name` (conservative).
fn leaves_local(e: &Expr, name: &str) -> bool {
    let idx = |index: &[Expr]| index.iter().all(|i| leaves_local(i, name));
    match e {
        Expr::Int(_) | Expr::Float(_) | Expr::Str(_) | Expr::Tagged(_) | Expr::Ident(_) => true,
        Expr::Load(LValue::Var { scope: Scope::Local, name: n, index }) => {
            !n.eq_ignore_ascii_case(name) && index.is_empty()
        }
        Expr::Load(LValue::Var { scope: Scope::Global, index, .. }) => idx(index),
        Expr::Load(LValue::Field { object, index, .. }) => leaves_local(object, name) && idx(index),
        Expr::Bin(_, lr) => leaves_local(&lr.0, name) && leaves_local(&lr.1, name),
        Expr::Un(_, a) => leaves_local(a, name),
        Expr::Cond(c, a, b) => leaves_local(c, name) && leaves_local(a, name) && leaves_local(b, name),
        Expr::Call { name: f, args, .. } => {
            !f.eq_ignore_ascii_case("eval") && args.iter().all(|a| leaves_local(a, name))
        }
        Expr::Method { object, args, .. } => {
            leaves_local(object, name) && args.iter().all(|a| leaves_local(a, name))
        }
        Expr::Assign(..) | Expr::PostInc(..) | Expr::New(_) => false,
    }
}

/// The function's two flags for local array elements against its named locals (see
/// `FuncDef::elem_slots` and `FuncDef::digit_locals`). A named local ending in digits (`%a5`)
/// is also an element of the array whose base is its name's element base (`elements`): only
/// when that base (or a row of it, `%a[%i, %j]`) is an array this function indexes must its own
/// element ops go by text; any such local makes the ops of code run in its frame by `eval`
/// go by text, which finds the named slot first.
fn elem_slot_flags(locals: &HashMap<Name, u32, FastBuild>, code: &[Op], names: &Interner) -> (bool, bool) {
    let mut digit_locals = false;
    let mut elem_slots = false;
    for &n in locals.keys() {
        let Some((base, _)) = crate::elements::split_elem(names.text(n)) else { continue };
        digit_locals = true;
        elem_slots |= code.iter().any(|op| match *op {
            Op::LoadLocalElem(b, _)
            | Op::StoreLocalElem(b, _, _)
            | Op::LoadLocalElemL(b, _)
            | Op::StoreLocalElemL(b, _) => {
                let b = names.text(b).as_bytes();
                base.len() >= b.len() && base.as_bytes()[..b.len()].eq_ignore_ascii_case(b)
            }
            _ => false,
        });
    }
    (elem_slots, digit_locals)
}

/// True when evaluating `e` has no effect but its value (no call, assignment or object): it
/// cannot change any local, so a local read may move from before it to after it.
fn no_effects(e: &Expr) -> bool {
    let idx = |index: &[Expr]| index.iter().all(no_effects);
    match e {
        Expr::Int(_) | Expr::Float(_) | Expr::Str(_) | Expr::Tagged(_) | Expr::Ident(_) => true,
        Expr::Load(LValue::Var { index, .. }) => idx(index),
        Expr::Load(LValue::Field { object, index, .. }) => no_effects(object) && idx(index),
        Expr::Bin(_, lr) => no_effects(&lr.0) && no_effects(&lr.1),
        Expr::Un(_, a) => no_effects(a),
        Expr::Cond(c, a, b) => no_effects(c) && no_effects(a) && no_effects(b),
        Expr::Call { .. } | Expr::Method { .. } | Expr::Assign(..) | Expr::PostInc(..) | Expr::New(_) => {
            false
        }
    }
}

fn sep_of(op: BinOp) -> Sep {
    match op {
        BinOp::CatSpc => Sep::Space,
        BinOp::CatTab => Sep::Tab,
        BinOp::CatNl => Sep::Newline,
        _ => Sep::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_compile_matches_parse_then_compile_and_errors_leave_no_names() {
        let src = "function Foo::bar(%a) { %b = \"x\" @ %a; return %b; }\n$g = \"x\";\nFoo::bar(1);";
        let mut n1 = Interner::default();
        let mut n2 = Interner::default();
        let a = compile_program(&crate::parse(src, "t.cs").unwrap(), "t.cs", &mut n1);
        let b = compile_source(src, "t.cs", &mut n2).unwrap();
        assert_eq!(format!("{:?}", a.code), format!("{:?}", b.code));
        assert_eq!(a.stmt_starts, b.stmt_starts);
        assert_eq!(a.decls.len(), b.decls.len());
        assert_eq!(format!("{:?}", a.decls[0].consts), format!("{:?}", b.decls[0].consts));
        assert_eq!(n1.len(), n2.len());
        let before = n2.len();
        let e = compile_source("function NewName() { %q = 1; }\n%x = ;", "e.cs", &mut n2).unwrap_err();
        assert_eq!((e.line, e.col), (2, 6));
        assert_eq!(n2.len(), before);
        assert!(n2.lookup("NewName").is_none());
    }

    #[test]
    fn local_update_with_a_scaled_term_is_one_instruction() {
        let ast = crate::parse("function t(%a, %b) { %d = %b + %a * 3; return %d; }", "t.cs").unwrap();
        let mut names = Interner::default();
        let main = compile_program(&ast, "t.cs", &mut names);
        let code = &main.decls[0].code;
        assert!(
            matches!(
                code[0].get(),
                Op::ArithLLIStore { outer: Arith::Add, inner: Arith::Mul, a: 1, b: 0, d: 2, k: 3.0 }
            ),
            "{code:?}"
        );
        assert!(matches!(code[1].get(), Op::ReturnLocal(2)), "{code:?}");
        // Accumulating into the left operand, and the usual loop step and test.
        let src = "function s(%n) { %s = 0; for (%i = 0; %i < 10; %i++) %s = %s + %i * 2; return %s; }";
        let ast = crate::parse(src, "s.cs").unwrap();
        let main = compile_program(&ast, "s.cs", &mut names);
        let code: Vec<Op> = main.decls[0].code.iter().map(crate::bytecode::OpCell::get).collect();
        assert!(
            code.iter().any(|op| matches!(
                op,
                Op::ArithLLIAcc { outer: Arith::Add, inner: Arith::Mul, d: 1, b: 2, k: 2.0 }
            )),
            "{code:?}"
        );
        assert!(code.iter().any(|op| matches!(op, Op::IncJumpLtLI(2, _, 10.0, _))), "{code:?}");
        let mut con = crate::Console::new();
        con.eval(src).unwrap();
        assert_eq!(con.call_function("s", &[crate::Value::Int(0)]).to_f64(), 90.0);
    }

    /// `$g++`, `$g += %x`, `$g = $g - k` (one `StoreGlobal` that changes the global in place)
    /// give what the update written out through a local gives, for globals unset, `""`, text,
    /// integers and doubles and operands of each kind, in the fast loop and with the profiler
    /// on.
    #[test]
    fn global_updates_in_place_are_the_written_out_updates() {
        use crate::bytecode::GStore;
        use crate::{Console, Value};
        let code = ops_of("function f(%x) { $g++; $h += %x; $k = $k - 3; $m = $m * %x; }");
        let updates: Vec<GStore> = code
            .iter()
            .filter_map(|op| match op {
                Op::StoreGlobal(_, u @ (GStore::ArithI(..) | GStore::ArithL(..))) => Some(*u),
                _ => None,
            })
            .collect();
        assert_eq!(
            updates,
            [
                GStore::ArithI(Arith::Add, 1),
                GStore::ArithL(Arith::Add, 0),
                GStore::ArithI(Arith::Sub, 3),
                GStore::ArithL(Arith::Mul, 0),
            ],
            "{code:?}"
        );
        let src = "function fused(%x) { for (%i = 0; %i < 3; %i++) { $g++; $g += %x; $g = $g - 2; \
                   $g = $g * %x; $g = $g / 4; $g -= 1000000; } return $g; }\n\
                   function written(%x) { for (%i = 0; %i < 3; %i++) { %t = $g; $g = %t + 1; \
                   %t = $g; $g = %t + %x; %t = $g; $g = %t - 2; %t = $g; $g = %t * %x; \
                   %t = $g; $g = %t / 4; %t = $g; $g = %t - 1000000; } return $g; }\n";
        let seeds = ["", "abc", "12abc", "7", "5", "-3", "2.5", "2147483647", "1e10"];
        let xs =
            [Value::Int(3), Value::Float(2.5), Value::from(""), Value::from("x"), Value::Int(-2147483647)];
        for profiled in [false, true] {
            let mut con = Console::new();
            con.set_profiler_enabled(profiled);
            con.eval(src).unwrap();
            for seed in seeds.iter().map(Some).chain([None]) {
                for x in &xs {
                    let mut run = |f: &str| {
                        match seed {
                            Some(s) => con.set_global("$g", *s),
                            None => con.eval("deleteVariables(\"$g\");").map(drop).unwrap_or(()),
                        }
                        con.call_function(f, std::slice::from_ref(x)).to_string()
                    };
                    let (a, b) = (run("fused"), run("written"));
                    assert_eq!(a, b, "seed {seed:?}, x {x:?}, profiled {profiled}");
                }
            }
        }
    }

    /// The code of the first function of `src`.
    fn ops_of(src: &str) -> Vec<Op> {
        let ast = crate::parse(src, "r.cs").unwrap();
        let mut names = Interner::default();
        let main = compile_program(&ast, "r.cs", &mut names);
        main.decls[0].code.iter().map(crate::bytecode::OpCell::get).collect()
    }

    /// Conditions with `&&`, `||` and `!` compiled as jumps (`Compiler::branch`) decide as
    /// the value those operators give (`%x = E; if (%x)`), in `if`, `?:`, `while`, `do` and
    /// `for` tests, evaluate the same operands in the same order (short circuit), and leave
    /// no 0 or 1 to test. Operands: numbers, `""`, numeric and other text.
    #[test]
    fn conditions_with_and_or_not_jump_as_their_values_decide() {
        use crate::{BufferSink, Console, Value};
        let forms = [
            "f(\"a\", %a) && f(\"b\", %b)",
            "f(\"a\", %a) || f(\"b\", %b)",
            "!(f(\"a\", %a) && f(\"b\", %b))",
            "!f(\"a\", %a) || f(\"b\", %b) && !f(\"c\", %c)",
            "(f(\"a\", %a) || f(\"b\", %b)) && (f(\"c\", %c) || %b)",
            "!(!%a && !(f(\"b\", %b) || f(\"c\", %c)))",
            "%a < %b && %b < %c || %a $= %c",
            "%a && (%b || !%c) && %c",
        ];
        let mut src = String::from("function f(%k, %v) { $log = $log @ %k; return %v; }\n");
        for (k, e) in forms.iter().enumerate() {
            // The jump forms, each with its log.
            src.push_str(&format!(
                "function j{k}(%a, %b, %c) {{ $log = \"\"; %r = \"\";\n\
                 if ({e}) %r = %r @ \"1\"; else %r = %r @ \"0\"; %r = %r @ $log; $log = \"\";\n\
                 %r = %r @ (({e}) ? \"1\" : \"0\") @ $log; $log = \"\";\n\
                 for (%n = 0; %n < 3 && ({e}); %n++) {{}} %r = %r @ %n @ $log; $log = \"\";\n\
                 %n = 0; while (({e}) && %n < 3) %n++; %r = %r @ %n @ $log; $log = \"\";\n\
                 %n = 0; do %n++; while (%n < 3 && ({e})); %r = %r @ %n @ $log; $log = \"\";\n\
                 %n = 0; while (%n < 2 || ({e}) && %n < 4) %n++; %r = %r @ %n @ $log;\n\
                 return %r; }}\n"
            ));
            // The value forms.
            src.push_str(&format!(
                "function v{k}(%a, %b, %c) {{ $log = \"\"; %r = \"\";\n\
                 %x = {e}; if (%x) %r = %r @ \"1\"; else %r = %r @ \"0\"; %r = %r @ $log; $log = \"\";\n\
                 %x = {e}; %r = %r @ %x @ $log; $log = \"\";\n\
                 %l = \"\"; for (%n = 0; %n < 3; %n++) {{ %x = {e}; %l = %l @ $log; $log = \"\"; if (%x == 0) break; }} %r = %r @ %n @ %l;\n\
                 %l = \"\"; %n = 0; while (true) {{ %x = {e}; %l = %l @ $log; $log = \"\"; if (%x == 0 || %n >= 3) break; %n++; }} %r = %r @ %n @ %l;\n\
                 %l = \"\"; %n = 0; while (true) {{ %n++; if (%n >= 3) break; %x = {e}; %l = %l @ $log; $log = \"\"; if (%x == 0) break; }} %r = %r @ %n @ %l;\n\
                 %l = \"\"; %n = 0; while (true) {{ if (%n >= 2) {{ %x = {e}; %l = %l @ $log; $log = \"\"; if (%x == 0 || %n >= 4) break; }} %n++; }} %r = %r @ %n @ %l;\n\
                 return %r; }}\n"
            ));
        }
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(&src).expect("declares");
        let vals = [
            Value::Int(0),
            Value::Int(1),
            Value::Int(-1),
            Value::Empty,
            Value::str("abc"),
            Value::str("0"),
            Value::str("1.5"),
            Value::str("0.0"),
            Value::Float(0.5),
        ];
        let mut n = 0;
        for a in &vals {
            for b in &vals {
                for c in &vals {
                    let args = [a.clone(), b.clone(), c.clone()];
                    for (k, form) in forms.iter().enumerate() {
                        let j = con.call_function(&format!("j{k}"), &args).to_string();
                        let v = con.call_function(&format!("v{k}"), &args).to_string();
                        assert_eq!(j, v, "{form} with ({a}, {b}, {c})");
                        n += 1;
                    }
                }
            }
        }
        assert_eq!(n, 729 * forms.len());
        // No 0 or 1 is pushed to be tested.
        let code = ops_of("function f(%a, %b) { if (%a > 1 && %b < 2 || !%a) return \"y\"; return \"n\"; }");
        assert!(!code.iter().any(|op| matches!(op, Op::Int(0 | 1))), "{code:?}");
    }

    /// `$a[%i] op= v`, `%a[%i] op= v` and `$a[%i, %j] op= v` with local indexes (read and
    /// written from the locals, `Compiler::compound_elem`) give what the same update written
    /// out (`$a[%i] = $a[%i] op v`) gives: numbers and text in the element and the operand,
    /// unset elements, indexes that are numbers, doubles, negative, text and `""`, and the
    /// variable seen by its text name (`$a5`, `$g1_2`).
    #[test]
    fn compound_element_updates_with_local_indexes_are_the_written_out_updates() {
        use crate::{BufferSink, Console, Value};
        let ops = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"];
        let mut src = String::new();
        for (k, op) in ops.iter().enumerate() {
            src.push_str(&format!(
                "function c{k}(%i, %j, %v, %x) {{ $a[%i] = %x; $g[%i, %j] = %x; %l[%i] = %x;\n\
                 $a[%i] {op}= %v; $g[%i, %j] {op}= %v * 1; %l[%i] {op}= %v; %l[%i] {op}= $a[%i];\n\
                 return $a[%i] SPC $g[%i, %j] SPC %l[%i]; }}\n\
                 function w{k}(%i, %j, %v, %x) {{ $a[%i] = %x; $g[%i, %j] = %x; %l[%i] = %x;\n\
                 %t = %v; $a[%i] = $a[%i] {op} %t; $g[%i, %j] = $g[%i, %j] {op} %v * 1; %l[%i] = %l[%i] {op} %v;\n\
                 %l[%i] = %l[%i] {op} $a[%i];\n\
                 return $a[%i] SPC $g[%i, %j] SPC %l[%i]; }}\n"
            ));
        }
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(&src).expect("declares");
        let idx = [
            Value::Int(0),
            Value::Int(5),
            Value::Float(2.0),
            Value::Float(1.5),
            Value::Int(-3),
            Value::str("k"),
            Value::Empty,
        ];
        let vals = [
            Value::Int(3),
            Value::Float(2.5),
            Value::str("x"),
            Value::str("12"),
            Value::Empty,
            Value::Int(0),
        ];
        for i in &idx {
            for j in &idx[..3] {
                for v in &vals {
                    for x in &vals {
                        for (k, op) in ops.iter().enumerate() {
                            let args = [i.clone(), j.clone(), v.clone(), x.clone()];
                            let a = con.call_function(&format!("c{k}"), &args).to_string();
                            let b = con.call_function(&format!("w{k}"), &args).to_string();
                            assert_eq!(a, b, "{op} with ({i}, {j}, {v}, {x})");
                        }
                    }
                }
            }
        }
        // Seen by the text names.
        let r = con.eval("$a5 = 1; $g1_2 = 2; function t(%i, %j) { $a[%i] += 4; $g[%i, %j] *= 3; } t(5, \"\"); t(\"\", 1); t(1, 2); return $a5 SPC $g1_2;");
        assert_eq!(r.expect("runs").to_string(), "5 6");
        let code =
            ops_of("function f(%i, %j, %v) { $a[%i] += %v * 2; %l[%i] -= %v; $g[%i, %j] += %v % 10; }");
        assert!(!code.iter().any(|op| matches!(op, Op::Dup | Op::Dup2)), "{code:?}");
        assert!(code.iter().any(|op| matches!(op, Op::StoreGlobalElemLL(..))), "{code:?}");
        assert!(code.iter().any(|op| matches!(op, Op::StoreLocalElemL(..))), "{code:?}");
    }

    /// A named local ending in digits takes a function's arrays off the element path only when
    /// it is an element of one of them (`%s5` beside `%s[%i]`, `%g1_2` beside `%g[%i, %j]`):
    /// `%pos2` beside `%s[%i]` leaves them on it. Either way each spelling names one variable,
    /// from the function's own code and from code `eval` runs in its frame.
    #[test]
    fn named_locals_ending_in_digits_keep_other_arrays_on_the_element_path() {
        let flags = |src: &str| {
            let ast = crate::parse(src, "r.cs").unwrap();
            let mut names = Interner::default();
            let main = compile_program(&ast, "r.cs", &mut names);
            (main.decls[0].elem_slots, main.decls[0].digit_locals)
        };
        assert_eq!(
            flags("function f(%n) { %pos2 = 1; for (%i = 0; %i < %n; %i++) %s[%i] = %i; }"),
            (false, true)
        );
        assert_eq!(
            flags("function f(%n) { %S5 = 1; for (%i = 0; %i < %n; %i++) %s[%i] = %i; }"),
            (true, true)
        );
        assert_eq!(flags("function f(%n) { %g1_2 = 1; %g[%n, 2] = 3; }"), (true, true));
        assert_eq!(flags("function f(%n) { %key3 = 1; %k[%n] = 3; }"), (true, true));
        assert_eq!(flags("function f(%n) { %pos = 1; %s[%n] = 3; }"), (false, false));
        let mut con = crate::Console::new();
        let src = "function f(%n) {
               %pos2 = 7; %s5 = 50;
               for (%i = 0; %i < %n; %i++) %t[%i] = %i * 2;
               eval(\"%pos[2] += 1; %t[3] += 100; %s[5] += 1;\");
               return %pos2 SPC %t[3] SPC %t3 SPC %s[5] SPC %s5 SPC %t[4];
             }
             function g(%n) {
               %pos2 = 7;
               for (%i = 0; %i < %n; %i++) %t[%i] = %i * 2;
               %t3 += 1000;
               return %pos[2] SPC %t[3] SPC %t3;
             }";
        con.eval(src).expect("defines");
        assert_eq!(con.eval("return f(6);").expect("runs").to_string(), "8 106 106 51 51 8");
        assert_eq!(con.eval("return g(6);").expect("runs").to_string(), "7 1006 1006");
    }

    /// `%x += k`, `%x -= k`, `%x = %x + k` and `%x = %x - k` with a small integer `k` are a
    /// step of the local (`IncLocal`, as `%x++`), and give what `%x = %y + k` gives: for
    /// integers (past the integer range too), doubles, numeric and other text and `""`, as a
    /// statement and as a value; a loop's `%i += 2` is folded with its test.
    #[test]
    fn small_constant_updates_of_a_local_are_steps() {
        use crate::{BufferSink, Console, Value};
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.eval(
            "function s(%x) { %a = %x; %a += 7; %b = %x; %b -= 3; %c = %x; %c = %c + 100; %d = %x; %d = %d - 1;\n\
             %e = %x; %f = (%e += 5); return %a SPC %b SPC %c SPC %d SPC %e SPC %f; }\n\
             function g(%x) { %y = %x; %a = %y + 7; %b = %y - 3; %c = %y + 100; %d = %y - 1; %e = %y + 5;\n\
             return %a SPC %b SPC %c SPC %d SPC %e SPC %e; }",
        )
        .expect("declares");
        let vals = [
            Value::Int(0),
            Value::Int(-3),
            Value::Int(999_995),
            Value::Int(-999_999),
            Value::Int(5_000_000_000),
            Value::Int(2_147_483_647),
            Value::Float(1.5),
            Value::Float(-0.0),
            Value::Float(1e300),
            Value::str("12"),
            Value::str("abc"),
            Value::str("2.5x"),
            Value::Empty,
        ];
        for x in &vals {
            let a = con.call_function("s", std::slice::from_ref(x)).to_string();
            let b = con.call_function("g", std::slice::from_ref(x)).to_string();
            assert_eq!(a, b, "{x:?}");
        }
        let code = ops_of("function f(%n) { %t = 0; for (%i = 0; %i < %n; %i += 2) %t -= 1; return %t; }");
        assert!(code.iter().any(|op| matches!(op, Op::IncJumpCmpLL { d: 2, .. })), "{code:?}");
        assert!(code.iter().any(|op| matches!(op, Op::IncLocal(_, -1, false))), "{code:?}");
    }

    /// A negated integer literal is one constant, with what `Neg` of it gives (`-0` too).
    #[test]
    fn negative_integer_literals_are_constants() {
        use crate::{BufferSink, Console};
        let code = ops_of("function f(%v) { return %v * -1 + -500 - -0; }");
        assert!(!code.iter().any(|op| matches!(op, Op::Neg)), "{code:?}");
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        for k in ["5", "0", "1", "999999", "1000000", "2147483648", "9223372036854775807", "0x10"] {
            let folded = con.eval(&format!("function a() {{ return -{k} SPC 3 * -{k}; }} return a();"));
            let run = con.eval(&format!("function b() {{ %z = {k}; return -%z SPC 3 * -%z; }} return b();"));
            assert_eq!(folded.expect("runs").to_string(), run.expect("runs").to_string(), "-{k}");
        }
    }

    /// `$a["key" @ %i]` is element `%i` of `akey` (no concatenation, no name built at run
    /// time); a prefix ending in a digit keeps the text path (conformance:
    /// `prefixed_index.cs` checks both name the same variables).
    #[test]
    fn a_literal_prefix_in_an_index_joins_the_base() {
        let code = ops_of("function f(%i) { $a[\"key\" @ %i] = 1; return %a[\"v\" @ %i]; }");
        assert!(!code.iter().any(|op| matches!(op, Op::Cat(_) | Op::BuildName(..))), "{code:?}");
        assert!(code.iter().any(|op| matches!(op, Op::StoreGlobalElemLI(..))), "{code:?}");
        assert!(code.iter().any(|op| matches!(op, Op::LoadLocalElemL(..))), "{code:?}");
        // `"k1" @ %i`: the concatenation stays, an index of `b` read by its text.
        let code = ops_of("function g(%i) { return $b[\"k1\" @ %i]; }");
        assert!(code.iter().any(|op| matches!(op, Op::Cat(_))), "{code:?}");
    }

    #[test]
    fn locals_are_register_operands_of_fields_elements_and_loop_tests() {
        let code = ops_of(
            "function f(%o, %n) { for (%i = 0; %i < %n; %i++) { %o.v[%i] = %i; %o.w[%i] = %i + 1; } %t = 0;\n\
             for (%i = 0; %i < %n; %i++) %t += %o.v[%i]; %o.s = %o.r + %t; %d = %o.s; %o.c = %d;\n\
             for (%j = 0; %j < $count; %j += %n) $g[%i, %j] = $g[%j, %i]; return %t; }",
        );
        let has = |f: &dyn Fn(&Op) -> bool| code.iter().any(f);
        assert!(has(&|op| matches!(op, Op::StoreFieldElemLLL { o: 0, i: 2, x: 2, .. })), "{code:?}");
        assert!(has(&|op| matches!(op, Op::StoreFieldElemLL { o: 0, i: 2, .. })), "{code:?}");
        assert!(has(&|op| matches!(op, Op::LoadFieldElemLL { o: 0, i: 2, .. })), "{code:?}");
        assert!(has(&|op| matches!(op, Op::IncJumpCmpLL { s: 2, d: 1, c: Cmp::Lt, b: 1, .. })), "{code:?}");
        assert!(has(&|op| matches!(op, Op::LoadFieldL(0, ..))), "{code:?}");
        assert!(has(&|op| matches!(op, Op::StoreFieldL(0, _, false, _))), "{code:?}");
        assert!(has(&|op| matches!(op, Op::LoadFieldLStore { s: 0, .. })), "{code:?}");
        assert!(has(&|op| matches!(op, Op::StoreFieldLL { o: 0, .. })), "{code:?}");
        assert!(has(&|op| matches!(op, Op::LoadGlobalElemLL(..))), "{code:?}");
        assert!(has(&|op| matches!(op, Op::StoreGlobalElemLL(..))), "{code:?}");
        // A value with a call in it may change the object's local: the object goes first.
        let code = ops_of("function g(%o) { %o.f = h(%o); }");
        assert!(!code.iter().any(|op| matches!(op, Op::StoreFieldL(..))), "{code:?}");
        assert!(code.iter().any(|op| matches!(op, Op::StoreField(..))), "{code:?}");
    }

    /// `%o.f = %o.f op y` is one `ArithFieldL` (the other operand a local after or before
    /// the field, or a small literal); another field, another object, a value with a call or
    /// a literal past 16 bits keep the three instructions (conformance: `field_arith.cs`).
    #[test]
    fn a_field_read_changed_and_written_is_one_instruction() {
        let code = ops_of("function f(%o, %k) { %o.n = %o.n + %k; %o.n = %k - %o.n; %o.n++; %o.n *= 3; }");
        let fused = |y: FieldOperand| {
            code.iter().any(|op| matches!(op, Op::ArithFieldL { o: 0, y: x, .. } if *x == y))
        };
        assert!(fused(FieldOperand::After(1)), "{code:?}");
        assert!(fused(FieldOperand::Before(1)), "{code:?}");
        assert!(fused(FieldOperand::Int(1)), "{code:?}");
        assert!(fused(FieldOperand::Int(3)), "{code:?}");
        assert!(!code.iter().any(|op| matches!(op, Op::LoadFieldL(..) | Op::StoreFieldL(..))), "{code:?}");
        for src in [
            "function g(%o, %p, %k) { %o.n = %o.m + %k; }",
            "function g(%o, %p, %k) { %o.n = %p.n + %k; }",
            "function g(%o, %p, %k) { %o.n = %o.n + h(%k); }",
            "function g(%o, %p, %k) { %o.n = %o.n + 100000; }",
        ] {
            let code = ops_of(src);
            assert!(!code.iter().any(|op| matches!(op, Op::ArithFieldL { .. })), "{src}: {code:?}");
        }
    }

    /// `%d = $a[i]` is one `LoadGlobalElemStore`, the index on the stack or in a local; a
    /// two-index element, a kept value (`%d = %e = $a[i]`) and a local array are not
    /// (conformance: `elem_to_local.cs`).
    #[test]
    fn an_element_into_a_local_is_one_instruction() {
        let code = ops_of(
            "function f(%i) { %a = $w[%i % 5]; %b = $w[%i]; switch$ ($w[%i + 1]) { case \"x\": %c = 1; } }",
        );
        let stores = |s: u16| {
            code.iter().filter(|op| matches!(op, Op::LoadGlobalElemStore { s: x, .. } if *x == s)).count()
        };
        assert_eq!(stores(ELEM_FROM_STACK), 2, "{code:?}");
        assert_eq!(stores(0), 1, "{code:?}");
        let code = ops_of("function g(%i) { %a = $w[%i, 1]; %b = %c = $w[%i]; %d = %l[%i]; }");
        assert!(!code.iter().any(|op| matches!(op, Op::LoadGlobalElemStore { .. })), "{code:?}");
    }

    /// An integer operator's result read by the next operator stays in a register
    /// (`IntIL`, `ArithIL`, widened under an integer operator), computing what the stack
    /// forms did (conformance: `int_registers.cs`, whose output is the build's before them).
    #[test]
    fn integer_operator_results_stay_in_registers() {
        let src = "function f(%h, %i, %b) { %h = ((%h << 5) + %i) & 65535; %h = %h ^ (%i % 7) | 1;\n\
                   %m = %i % 7; %f = %h | %b; %s = (%i & 3) - %b; return %h + %m + %f + %s; }";
        let code = ops_of(src);
        let has = |f: &dyn Fn(&Op) -> bool| code.iter().any(f);
        assert!(
            has(&|op| matches!(op, Op::ArithIL { ar: Arith::AddW, io: IntOp::Shl, a: 0, b: 1, k: 5 })),
            "{code:?}"
        );
        assert!(has(&|op| matches!(op, Op::IntSIStore(IntOp::And, 65535, 0))), "{code:?}");
        assert!(
            has(&|op| matches!(op, Op::IntIL { io1: IntOp::Mod, io2: IntOp::Xor, a: 1, b: 0, k: 7 })),
            "{code:?}"
        );
        // Read by `-` and then returned: the plain (not widened) form.
        assert!(
            has(&|op| matches!(op, Op::ArithIL { ar: Arith::Sub, io: IntOp::And, a: 1, b: 2, k: 3 })),
            "{code:?}"
        );
        let mut con = crate::Console::new();
        con.eval(src).unwrap();
        let (h0, i, b) = (1234_i64, 4242_i64, 5_i64);
        let h = (((h0 << 5) + i) & 65535) ^ (i % 7) | 1;
        let expect = h + i % 7 + (h | b) + ((i & 3) - b);
        let got =
            con.call_function("f", &[crate::Value::Int(h0), crate::Value::Int(i), crate::Value::Int(b)]);
        assert_eq!(got.to_f64(), expect as f64);
        // Text and doubles as operands, as the stack forms read them.
        let got = con.call_function(
            "f",
            &[crate::Value::str("12abc"), crate::Value::Float(9.75), crate::Value::str("")],
        );
        let (h0, i, b) = (12_i64, 9_i64, 0_i64);
        let h = (((h0 << 5) + i) & 65535) ^ (i % 7) | 1;
        // `(%i & 3) - %b` reads the double 9.75 as 9 for `&`.
        let expect = h + i % 7 + (h | b) + ((i & 3) - b);
        assert_eq!(got.to_f64(), expect as f64);
    }

    #[test]
    fn constants_are_shared_past_the_short_list() {
        let mut body = String::new();
        for round in 0..2 {
            for i in 0..40 {
                body.push_str(&format!("%v{} = \"s{i}\";\n", round * 40 + i));
            }
        }
        let src = format!("function f() {{\n{body}}}");
        let ast = crate::parse(&src, "t.cs").unwrap();
        let mut names = Interner::default();
        let main = compile_program(&ast, "t.cs", &mut names);
        let f = &main.decls[0];
        assert_eq!(f.consts.len(), 40);
        for (i, c) in f.consts.iter().enumerate() {
            assert_eq!(c.to_string(), format!("s{i}"));
        }
        // 80 distinct locals: the short address list overflows and interning takes over.
        assert_eq!(f.nlocals, 80);
    }

    #[test]
    fn a_literal_and_a_bare_word_of_one_text_share_a_constant() {
        // The literal's shared text is found by its address, the bare word (and the literal
        // after it) by the text, in the short list and past it.
        for pad in [0, 30] {
            let mut body: String = (0..pad).map(|i| format!("%p{i} = \"pad{i}\";\n")).collect();
            body.push_str("%a = \"foo\"; %b = foo; %c = \"foo\"; %d = 'foo'; %e = \"\";");
            let src = format!("function f() {{\n{body}\n}}");
            let mut names = Interner::default();
            let main = compile_source(&src, "t.cs", &mut names).unwrap();
            let f = &main.decls[0];
            assert_eq!(f.consts.len(), pad + 1, "{:?}", f.consts);
            assert_eq!(f.consts[pad].to_string(), "foo");
        }
    }
}
