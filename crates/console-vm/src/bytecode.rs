//! The compact stack bytecode the compiler emits and the VM runs.

use crate::intern::Name;
use crate::value::{Num, Value, keeps_int};
use hashbrown::HashMap;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A field site's cache before its first hit (see [`Op::LoadField`]).
pub const NO_HINT: u32 = u32::MAX;

/// Most arguments that reach a function (more are dropped at the call).
pub const MAX_ARGS: usize = 20;

/// Namespace index (into the console's namespace table).
pub type NsId = u32;

/// The global (unnamed) namespace.
pub const GLOBAL_NS: NsId = 0;

/// A function implemented in Rust: its index in the console's table of them. Code refers to
/// Rust functions by index so the bytecode does not depend on the console that runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NativeId(pub(crate) u32);

/// What a call resolves to.
#[derive(Clone, Debug)]
pub enum Callable {
    /// Compiled script.
    Script(Rc<FuncDef>),
    /// Rust.
    Native(NativeId),
}

/// A cached script callee, with the namespace and layer it was found in (what the fast
/// loop's call of another function needs of a [`Resolved`]).
pub(crate) type ScriptCallee = (Rc<FuncDef>, NsId, u32);

/// A Rust function of its arguments alone (and the word cache): see
/// [`Console::register_pure`](crate::Console).
pub(crate) type PureNative = fn(&mut crate::units::WordCache, &[crate::value::Value]) -> crate::value::Value;

/// A call site's cached [`PureNative`] with the argument counts it takes (counting the
/// function's name, as `NativeFn`'s): the fast loop calls it in place when the count fits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PureCall {
    pub(crate) f: PureNative,
    pub(crate) min: u32,
    pub(crate) max: u32,
}

impl PureCall {
    /// Whether a call with `argc` arguments is within the counts (else the interpreter's
    /// call warns).
    #[inline(always)]
    pub(crate) fn fits(self, argc: usize) -> bool {
        let n = argc as u64 + 1;
        n >= u64::from(self.min) && (self.max == 0 || n <= u64::from(self.max))
    }
}

/// A found function: what to call, and where it sits (for `Parent::`).
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub(crate) callable: Callable,
    pub(crate) ns: NsId,
    pub(crate) layer: u32,
}

/// Separator for the concatenation operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sep {
    /// `@`
    None,
    /// `SPC`
    Space,
    /// `TAB`
    Tab,
    /// `NL`
    Newline,
}

impl Sep {
    /// The separator character, if any.
    pub fn ch(self) -> Option<char> {
        match self {
            Sep::None => None,
            Sep::Space => Some(' '),
            Sep::Tab => Some('\t'),
            Sep::Newline => Some('\n'),
        }
    }
}

/// A numeric comparison (both sides read as doubles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    /// [`Cmp::test`] of two integers whose doubles compare as they do (an `i64` against an
    /// `i32`: past 2^53 the double is still beyond every `i32`), without a branch on the
    /// comparison: bit `3 * c + o` of a constant, `o` being 0, 1, 2 for `a` below, equal to,
    /// above `b`.
    #[inline(always)]
    pub(crate) fn test_int(self, a: i64, b: i64) -> bool {
        // Lt: below; Le: below, equal; Gt: above; Ge: equal, above; Eq: equal; Ne: below, above.
        const TABLE: u32 = 0b001 | 0b011 << 3 | 0b100 << 6 | 0b110 << 9 | 0b010 << 12 | 0b101 << 15;
        let o = u32::from(a == b) + 2 * u32::from(a > b);
        TABLE >> (3 * self as u32 + o) & 1 != 0
    }

    /// Applies the comparison.
    #[inline(always)]
    pub fn test(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }
}

/// A float arithmetic operator (`+ - * /`; V12 computes them in doubles).
///
/// The `W` forms compute the same, for a result only an integer operator reads (`(%h << 5) +
/// %i & 65535`, marked by the compiler's peephole): no text, index or comparison ever sees
/// it, only its 32-bit integer, so an integer result stays an integer over the whole range
/// where that integer is the double's (see [`Arith::int_apply`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Arith {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    AddW = 4,
    SubW = 5,
    MulW = 6,
}

impl Arith {
    /// Applies the operator.
    #[inline(always)]
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Arith::Add | Arith::AddW => a + b,
            Arith::Sub | Arith::SubW => a - b,
            Arith::Mul | Arith::MulW => a * b,
            Arith::Div => a / b,
        }
    }

    /// The form whose result only an integer operator reads (`None` for `/`, whose
    /// result is rarely whole, and for a `W` form already).
    pub fn widened(self) -> Option<Arith> {
        match self {
            Arith::Add => Some(Arith::AddW),
            Arith::Sub => Some(Arith::SubW),
            Arith::Mul => Some(Arith::MulW),
            _ => None,
        }
    }

    /// `a self b` of two integers as V12 computes it (in doubles), as an integer when that
    /// double is the same whole number and [`keeps_int`] holds for it (so it prints, indexes
    /// and compares as the double would); `None` sends the caller to the double. `-0`
    /// (`0 * -5`) stays a double: it prints `-0`. Operands past 32 bits are left to the
    /// double (their conversion could round). A `W` form, read only as a 32-bit integer,
    /// keeps any result in `-2^31..2^32`: there `Value::to_i32` of the integer (which
    /// wraps) and of the double (`float_to_i32`, which wraps from 2^31 as V12's conversion
    /// through U32 does) agree, and the double is exact (the operands are 32-bit).
    #[inline(always)]
    pub fn int_apply(self, a: i64, b: i64) -> Option<i64> {
        if i64::from(a as i32) != a || i64::from(b as i32) != b {
            return None;
        }
        let r = match self {
            Arith::Add => a + b,
            Arith::Sub => a - b,
            Arith::Mul => {
                let r = a * b;
                if r == 0 && (a | b) < 0 {
                    return None;
                }
                r
            }
            Arith::Div => return None,
            Arith::AddW => return wide_int(a + b),
            Arith::SubW => return wide_int(a - b),
            Arith::MulW => return wide_int(a * b),
        };
        keeps_int(r).then_some(r)
    }

    /// [`Arith::apply`] on numbers read from values: integers stay integers where
    /// [`Arith::int_apply`] allows, anything else is computed in doubles.
    #[inline(always)]
    pub fn num(self, x: Num, y: Num) -> Num {
        if let (Num::Int(a), Num::Int(b)) = (x, y)
            && let Some(r) = self.int_apply(a, b)
        {
            return Num::Int(r);
        }
        Num::Float(self.apply(x.to_f64(), y.to_f64()))
    }

    /// `x outer (y inner k)` with one dispatch on the pair of operators instead of two (two
    /// `apply` calls measured 7 % slower on the 1M loop; the explicit discriminants above are
    /// what the pair's index is built from).
    #[inline(always)]
    pub fn apply2(outer: Arith, inner: Arith, x: f64, y: f64, k: f64) -> f64 {
        match (outer as u8 & 3) << 2 | inner as u8 & 3 {
            0 => x + (y + k),
            1 => x + (y - k),
            2 => x + y * k,
            3 => x + y / k,
            4 => x - (y + k),
            5 => x - (y - k),
            6 => x - y * k,
            7 => x - y / k,
            8 => x * (y + k),
            9 => x * (y - k),
            10 => x * (y * k),
            11 => x * (y / k),
            12 => x / (y + k),
            13 => x / (y - k),
            14 => x / (y * k),
            _ => x / (y / k),
        }
    }
}

/// `r` if a `W` operator may keep it as an integer (see [`Arith::int_apply`]).
#[inline(always)]
fn wide_int(r: i64) -> Option<i64> {
    (-(1 << 31)..1 << 32).contains(&r).then_some(r)
}

/// An integer operator (`% & | ^ << >>`; V12 computes them on 32-bit integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    Mod,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

impl IntOp {
    /// Applies the operator (`%` by zero is 0, as the interpreter always did).
    #[inline(always)]
    pub fn apply(self, a: i32, b: i32) -> i32 {
        match self {
            IntOp::Mod => {
                if b == 0 {
                    0
                } else {
                    a.wrapping_rem(b)
                }
            }
            IntOp::And => a & b,
            IntOp::Or => a | b,
            IntOp::Xor => a ^ b,
            IntOp::Shl => a.wrapping_shl(b as u32),
            IntOp::Shr => a.wrapping_shr(b as u32),
        }
    }
}

/// One instruction. Operands are small so the enum stays 16 bytes.
///
/// The `*L*`/`*I*` forms are super-instructions the compiler's peephole pass makes from common
/// sequences (`L` = a local slot, `I` = a small integer literal, `S` = the stack top), so hot
/// loops run a third as many instructions without changing what they compute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// A debugger breakpoint patched over a statement's first instruction (which the
    /// function keeps aside and runs after the stop; see `debugger`).
    Break,
    /// Push an integer.
    Int(i64),
    /// Push a float.
    Float(f64),
    /// Push constant `n` of the function.
    Const(u32),
    /// Push `""`.
    Empty,
    /// Drop the top value.
    Pop,
    /// Duplicate the top value.
    Dup,
    /// Duplicate the top two values.
    Dup2,
    /// Push local slot.
    LoadLocal(u32),
    /// Pop into local slot (push it back if `keep`).
    StoreLocal(u32, bool),
    /// Push global by name.
    LoadGlobal(Name),
    /// Pop into global ([`GStore::Pop`]), keep it on the stack too ([`GStore::Keep`]), or
    /// change it by an operand in place ([`GStore::ArithI`], [`GStore::ArithL`]).
    StoreGlobal(Name, GStore),
    /// Name on stack: push local by that name.
    LoadLocalDyn,
    /// Stack `[name, value]`.
    StoreLocalDyn(bool),
    /// Name on stack: push global by that name.
    LoadGlobalDyn,
    /// Stack `[name, value]`.
    StoreGlobalDyn(bool),
    /// Stack `[index..]` (1 or 2 indexes) → element of the global array `base` (the variable
    /// named `base` + the indexes joined by `_`, found without that text when the indexes
    /// are numbers; see `elements`).
    LoadGlobalElem(Name, u8),
    /// Stack `[index.., value]`: set an element of a global array.
    StoreGlobalElem(Name, u8, bool),
    /// Stack `[index..]` → element of the local array `base`.
    LoadLocalElem(Name, u8),
    /// Stack `[index.., value]`: set an element of a local array.
    StoreLocalElem(Name, u8, bool),
    /// `LoadGlobalElem(base, 1)` whose index is local slot `s` (not on the stack).
    LoadGlobalElemL(Name, u32),
    /// `%d = $a[i]`: `LoadGlobalElem(b, 1)` (`s` is [`ELEM_FROM_STACK`]: the index popped)
    /// or `LoadGlobalElemL(b, s)`, then `StoreLocal(d, false)`, in one: the element copied
    /// into the local, nothing pushed (`%c = $cmd[%i % 5]`, a `switch$` on an element).
    LoadGlobalElemStore {
        /// The array's base name.
        b: Name,
        /// The index's slot, or [`ELEM_FROM_STACK`].
        s: u16,
        /// The destination slot.
        d: u16,
    },
    /// Stack `[value]`: `StoreGlobalElem(base, 1, false)` whose index is local slot `s`.
    StoreGlobalElemL(Name, u32),
    /// `$s[%i] = k`: `StoreGlobalElemL(base, s)` of a small integer literal (nothing on the stack).
    StoreGlobalElemLI(Name, u32, i32),
    /// `LoadLocalElem(base, 1)` whose index is local slot `s`.
    LoadLocalElemL(Name, u32),
    /// Stack `[value]`: `StoreLocalElem(base, 1, false)` whose index is local slot `s`.
    StoreLocalElemL(Name, u32),
    /// Pop `n` index values and push `base` + indexes joined by `_`.
    BuildName(Name, u32),
    /// Stack `[obj]` → field value. The last operand is the site's cache: the position of the
    /// dynamic field found last time ([`NO_HINT`] for none), tried first on the next object
    /// and checked against the name (`object::DynFields`).
    LoadField(Name, u32),
    /// Stack `[obj, value]` (the cache as in `LoadField`).
    StoreField(Name, bool, u32),
    /// Stack `[obj, index]` → the field named `base` + index (`%obj.v[%i]`; the name is
    /// looked up by base and number once made). The last operand is the site's cache: the
    /// dynamic field's position less the index, last time (an array filled in order keeps
    /// its elements at a fixed offset from their indexes), tried first and checked.
    LoadFieldElem(Name, u32),
    /// Stack `[obj, index, value]` (the cache as in `LoadFieldElem`).
    StoreFieldElem(Name, bool, u32),
    /// `LoadField` whose object is local slot `s` (nothing popped): `LoadLocal(s)` +
    /// `LoadField(name, hint)` in one, a pure push (a register operand instead of a push
    /// and a pop).
    LoadFieldL(u32, Name, u32),
    /// Stack `[value]`: `StoreField(name, keep, hint)` whose object is local slot `s` (the
    /// compiler emits it for `%o.f = v` when `v` cannot change `%o`, so reading `%o` after
    /// `v` gives what reading it before would).
    StoreFieldL(u32, Name, bool, u32),
    /// `%d = %s.f`: `LoadFieldL` into a local (nothing on the stack).
    LoadFieldLStore {
        /// The object's slot.
        s: u16,
        /// The destination slot.
        d: u16,
        /// The field.
        n: Name,
        /// The site's cache, as in `LoadField`.
        hint: u32,
    },
    /// `%o.f = %x`: `StoreFieldL` whose value is a local too (nothing on the stack).
    StoreFieldLL {
        /// The object's slot.
        o: u16,
        /// The value's slot.
        x: u16,
        /// The field.
        n: Name,
        /// The site's cache, as in `LoadField`.
        hint: u32,
    },
    /// `%o.f = %o.f op y` with `%o` a local (`%this.n = %this.n + %k`, `%this.n++`,
    /// `%this.n += %k`): `LoadFieldL` + `ArithSL`/`ArithSI`/`ArithLS` + `StoreFieldL` in one,
    /// the object found once and the field read and written where it lies.
    ArithFieldL {
        /// The operator.
        ar: Arith,
        /// The object's slot.
        o: u16,
        /// The other operand, and on which side of the field it is.
        y: FieldOperand,
        /// The field.
        n: Name,
        /// The site's cache, as in `LoadField`.
        hint: u32,
    },
    /// `%a.f op %b.g` with `%a` and `%b` locals and `op` one of `+ - * /` (`%this.vel +
    /// %db.accel` in a tick callback): two `LoadFieldL` and the operator in one, the result
    /// pushed. The sites' caches are the fields' positions as in `LoadField`, each in a byte
    /// ([`NO_HINT8`] for none, or a position past 254).
    ArithFF {
        /// The operator.
        ar: Arith,
        /// The first object's slot.
        a: u16,
        /// The second object's slot.
        b: u16,
        /// The first field.
        na: Name,
        /// The second field.
        nb: Name,
        /// The first field's cache.
        ha: u8,
        /// The second field's cache.
        hb: u8,
    },
    /// `LoadFieldElem` whose object and index are locals (`%obj.v[%i]`, a pure push).
    LoadFieldElemLL {
        /// The object's slot.
        o: u16,
        /// The index's slot.
        i: u16,
        /// The field array's base name.
        b: Name,
        /// The site's cache, as in `LoadFieldElem`.
        off: u32,
    },
    /// Stack `[value]`: `StoreFieldElem(b, false, off)` whose object and index are locals.
    StoreFieldElemLL {
        /// The object's slot.
        o: u16,
        /// The index's slot.
        i: u16,
        /// The field array's base name.
        b: Name,
        /// The site's cache, as in `LoadFieldElem`.
        off: u32,
    },
    /// `%obj.v[%i] = %x`: `StoreFieldElemLL` whose value is a local too (nothing on the stack).
    StoreFieldElemLLL {
        /// The object's slot.
        o: u16,
        /// The index's slot.
        i: u16,
        /// The value's slot.
        x: u16,
        /// The field array's base name.
        b: Name,
        /// The site's cache, as in `LoadFieldElem`.
        off: u32,
    },
    /// `LoadGlobalElem(base, 2)` whose indexes are locals `r` and `c` (`$grid[%i, %j]`).
    LoadGlobalElemLL(Name, u16, u16),
    /// Stack `[value]`: `StoreGlobalElem(base, 2, false)` whose indexes are locals.
    StoreGlobalElemLL(Name, u16, u16),
    /// Stack `[obj, name]` → field value.
    LoadFieldDyn,
    /// Stack `[obj, name, value]`.
    StoreFieldDyn(bool),
    /// `%slot = %slot <sep> top` done in place when possible.
    AppendLocal(u32, Sep, bool),
    /// `%slot = %slot + delta` (float, as V12's `++`).
    IncLocal(u32, i8, bool),
    /// Binary arithmetic and comparison.
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    StrEq,
    StrNe,
    /// Concatenate with an optional separator.
    Cat(Sep),
    /// Unary.
    Neg,
    Not,
    BitNot,
    /// Push a tagged string (constant index).
    Tag(u32),
    /// Jump to absolute pc.
    Jump(u32),
    /// Pop; jump when false.
    JumpIfFalse(u32),
    /// Pop; jump when true.
    JumpIfTrue(u32),
    /// Jump to the last operand when the local's truth is the second (`if (%found)`).
    JumpIfL(u32, bool, u32),
    /// `if ($s[%i])`: jump forward to the last operand when the element of the global array
    /// (the index in local slot `s`) is false (`LoadGlobalElemL` + `JumpIfFalse` in one).
    JumpIfNotElemL(Name, u32, u32),
    /// Pop two values; jump to the target when `(a cmp b) == when`.
    JumpCmp(Cmp, bool, u32),
    /// Jump to the last operand when `(local cmp k) == when`.
    JumpCmpLI(Cmp, bool, u32, i32, u32),
    /// Jump to the last operand when `(local_a cmp local_b) == when`.
    JumpCmpLL(Cmp, bool, u32, u32, u32),
    /// `local += delta`, then jump to the last operand when `local cmp k` (a `for` step and test).
    IncJumpCmpLI(u32, i8, Cmp, i32, u32),
    /// `IncJumpCmpLI` with `++` and `<`, the usual `for` loop: no dispatch on the comparison
    /// (the bound is kept as a double, so no conversion each pass either). Always a backward
    /// jump; the second operand is what a pass pays from the budget (the loop's length, at
    /// most 255, at least 1).
    IncJumpLtLI(u16, u8, f64, u32),
    /// `local_s += d`, then jump to `t` when `local_s c local_b` (a `for` step and test
    /// against a bound in a local, `for (...; %i < %n; %i++)`, in one dispatch).
    IncJumpCmpLL {
        /// The counter's slot.
        s: u16,
        /// The step.
        d: i8,
        /// The comparison.
        c: Cmp,
        /// The bound's slot.
        b: u16,
        /// Target.
        t: u32,
    },
    /// `local_s += d`, then jump to `t` when `local_s c $g` (a `for` whose bound is a
    /// global, `%i < $count`).
    IncJumpCmpLG {
        /// The counter's slot.
        s: u16,
        /// The step.
        d: i8,
        /// The comparison.
        c: Cmp,
        /// The global bound.
        g: Name,
        /// Target.
        t: u32,
    },
    /// `local_d = local_a ar local_b`, then jump to `t` when `local_d c local_x` (a `for`
    /// whose step is `%j += %i`, `%j = %j * 2`, ...).
    ArithJumpCmpLL {
        /// The step's operator.
        ar: Arith,
        /// Its left local.
        a: u16,
        /// Its right local.
        b: u16,
        /// Where the step goes (the local tested).
        d: u16,
        /// The bound's slot.
        x: u16,
        /// The comparison.
        c: Cmp,
        /// Target.
        t: u32,
    },
    /// `local_s += d`, then jump to `t` when `(local_a ar local_b) c local_x`: the bottom of
    /// `for (...; %d * %d <= %n; %d++)` in one dispatch.
    IncJumpCmpAL {
        /// The counter's slot.
        s: u16,
        /// The step.
        d: i8,
        /// The arithmetic operator of the test.
        ar: Arith,
        /// Its left local.
        a: u16,
        /// Its right local.
        b: u16,
        /// The local compared with.
        x: u16,
        /// The comparison.
        c: Cmp,
        /// Target.
        t: u32,
    },
    /// Push `local_a op local_b`.
    ArithLL(Arith, u32, u32),
    /// Push `local op k`.
    ArithLI(Arith, u32, i32),
    /// `ArithLI`, then the `Call` right after it in the same dispatch (`f(%n - 1)`): the
    /// fast loop computes the argument and, when that next instruction is a `Call` it may
    /// make, enters the callee as that `Call` would (its site cache, its pc); anything else
    /// goes on at the `Call`, which stays in the code. Made by the compiler only where the
    /// `Call` is no statement start and no jump target.
    ArithLICall(Arith, u32, i32),
    /// Top becomes `top op local`.
    ArithSL(Arith, u32),
    /// Top becomes `top op k`.
    ArithSI(Arith, i32),
    /// Top becomes `local op top`.
    ArithLS(Arith, u32),
    /// Pop `v`; `local_dst = local_a op v` (from `ArithLS` + `StoreLocal`).
    ArithLSStore(Arith, u32, u32),
    /// `local_dst = local_a op local_b` (from `ArithLL` + `StoreLocal`).
    ArithLLStore(Arith, u32, u32, u32),
    /// `local_dst = local_a op k` (from `ArithLI` + `StoreLocal`).
    ArithLIStore(Arith, u32, i32, u32),
    /// `local[d] = local[a] OUTER (local[b] INNER k)`: `%x = %y + %i * 2` in one instruction
    /// (slots here are 8-bit and the literal a double, so the instruction stays 16 bytes and
    /// needs no conversion; larger frames are not fused).
    ArithLLIStore {
        /// The outer operator.
        outer: Arith,
        /// The inner operator.
        inner: Arith,
        /// Outer left operand slot.
        a: u8,
        /// Inner local operand slot.
        b: u8,
        /// Destination slot.
        d: u8,
        /// Inner literal operand.
        k: f64,
    },
    /// `ArithLLIStore` whose destination is its outer left operand, `%s = %s + %i * 2`: the
    /// slot is found and checked once.
    ArithLLIAcc {
        /// The outer operator.
        outer: Arith,
        /// The inner operator.
        inner: Arith,
        /// The slot read and written.
        d: u8,
        /// Inner local operand slot.
        b: u8,
        /// Inner literal operand.
        k: f64,
    },
    /// Push `local_a op local_b` (integer operators).
    IntLL(IntOp, u32, u32),
    /// Push `local op k`.
    IntLI(IntOp, u32, i32),
    /// Top becomes `top op local`.
    IntSL(IntOp, u32),
    /// Top becomes `top op k`.
    IntSI(IntOp, i32),
    /// Top becomes `local op top` (from `LoadLocal`, a pure push, and the operator).
    IntLS(IntOp, u32),
    /// Pop `v`; `local_dst = v op k` (from `IntSI` + `StoreLocal`: `%h = ... & 65535`).
    IntSIStore(IntOp, i32, u32),
    /// Push `local_b io2 (local_a io1 k)` (from `IntLI` + `IntLS`: `%h ^ (%i % 7)`): the inner
    /// result stays in a register instead of going through the stack.
    IntIL {
        /// The inner operator.
        io1: IntOp,
        /// The outer operator.
        io2: IntOp,
        /// The inner operator's local.
        a: u16,
        /// The outer operator's (left) local.
        b: u16,
        /// The inner operator's literal.
        k: i32,
    },
    /// Push `(local_a io k) ar local_b` (from `IntLI` + `ArithSL`: `(%h << 5) + %i`).
    ArithIL {
        /// The arithmetic operator (a `W` form when an integer operator reads the result).
        ar: Arith,
        /// The inner integer operator.
        io: IntOp,
        /// The inner operator's local.
        a: u16,
        /// The arithmetic operator's right local.
        b: u16,
        /// The inner operator's literal.
        k: i32,
    },
    /// Pop `v`; jump to the last operand when `(v cmp k) == when`.
    JumpCmpSI(Cmp, bool, i32, u32),
    /// Jump to `t` when `((local_a io local_b) c k) == when`: `if (%n % %d == 0)`.
    JumpIntLLI {
        /// The integer operator.
        io: IntOp,
        /// Its left local.
        a: u16,
        /// Its right local.
        b: u16,
        /// The comparison.
        c: Cmp,
        /// Jump when the comparison gives this.
        when: bool,
        /// The literal compared with.
        k: i16,
        /// Target.
        t: u32,
    },
    /// Jump to `t` when `((local_a ar local_b) c local_x) == when`: `%d * %d <= %n`.
    JumpCmpAL {
        /// The arithmetic operator.
        ar: Arith,
        /// Its left local.
        a: u16,
        /// Its right local.
        b: u16,
        /// The local compared with.
        x: u16,
        /// The comparison.
        c: Cmp,
        /// Jump when the comparison gives this.
        when: bool,
        /// Target.
        t: u32,
    },
    /// Jump to the last operand when `(local $= consts[k]) == when` (text, ignoring case).
    JumpStrLK(u32, u32, bool, u32),
    /// Two `JumpStrLK(a, k, true, t)` in a row on one local (a `switch$`'s compares, paired
    /// once the switch is compiled), in one dispatch: jump to `t1` when the local `$=`
    /// `consts[k1]`, else to `t2` when it `$=` `consts[k2]`, else go on at this pc + 2. The
    /// second compare stays in the code after it, for anything that jumps there.
    JumpStrLK2 {
        /// The local.
        a: u16,
        /// The first case's constant.
        k1: u16,
        /// The second case's constant.
        k2: u16,
        /// The first case's target.
        t1: u32,
        /// The second case's target.
        t2: u32,
    },
    /// Call a global function with `argc` arguments on the stack.
    Call(Name, u32),
    /// Call `ns::name`.
    CallNs(Name, Name, u32),
    /// `Parent::name(...)`.
    CallParent(Name, u32),
    /// Method call; the object is the first of `argc` values.
    CallMethod(Name, u32),
    /// Return the top of the stack.
    Return,
    /// Return `""`.
    ReturnEmpty,
    /// Return the value of a local slot (from `LoadLocal` + `Return`).
    ReturnLocal(u32),
    /// Start an object: stack `[class?, name?, args...]`; see [`NewSpec`] at constant index.
    NewBegin(u32),
    /// Stack `[value]`: set a field of the object under construction.
    NewField(Name),
    /// Stack `[name, value]`.
    NewFieldDyn,
    /// Register the object under construction (and add it to its enclosing object).
    NewAdd,
    /// Finish: push the new object's id (or `0` on failure).
    NewEnd,
    /// Print a runtime error (constant index) and push `""`.
    Error(u32),
    /// Define function `decls[n]` (in its package, if any) when execution reaches it, as V12 does.
    Declare(u32),
}

const _: () = assert!(std::mem::size_of::<Op>() <= 16);

/// How [`Op::StoreGlobal`] writes its global `$g`. The updates are `StoreGlobal`'s and not
/// variants of their own: two more `Op` variants (or one, or two with two others merged into
/// one) moved `run_tight`'s register allocation, and the tight programs paid 0.7-2.6 % more
/// instructions (docs/PERFORMANCE.md, twenty-sixth pass, globals as counters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GStore {
    /// Pop the value into `$g`.
    Pop,
    /// Copy the top into `$g`, leaving it on the stack.
    Keep,
    /// `$g = $g ar k` (`$g++`, `$g += 2`, `$g = $g - 1`): `LoadGlobal(g)`, `ArithSI(ar, k)`,
    /// `StoreGlobal(g, Pop)` in one dispatch; nothing on the stack.
    ArithI(Arith, i16),
    /// `$g = $g ar local` (`$total += %x`): `LoadGlobal(g)`, `ArithSL(ar, s)`,
    /// `StoreGlobal(g, Pop)` in one dispatch; nothing on the stack.
    ArithL(Arith, u16),
}

impl GStore {
    /// The plain store: [`GStore::Keep`] when `keep`, else [`GStore::Pop`].
    pub(crate) fn of_keep(keep: bool) -> GStore {
        if keep { GStore::Keep } else { GStore::Pop }
    }
}

/// A byte-sized site cache ([`Op::ArithFF`]) that names no position.
pub const NO_HINT8: u8 = u8::MAX;

/// [`Op::LoadGlobalElemStore`]'s index slot when the index is on the stack.
pub const ELEM_FROM_STACK: u16 = u16::MAX;

/// The operand of [`Op::ArithFieldL`] other than the field: a local after the field
/// (`%o.f op %y`), a local before it (`%y op %o.f`), or a literal after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldOperand {
    /// `field op local` (the local's slot).
    After(u16),
    /// `local op field` (the local's slot).
    Before(u16),
    /// `field op k`.
    Int(i16),
}

impl FieldOperand {
    /// `field ar operand`, or `operand ar field`, with `local` reading a local's number.
    #[inline(always)]
    pub(crate) fn apply(self, ar: Arith, field: Num, local: impl FnOnce(u16) -> Num) -> Num {
        match self {
            FieldOperand::After(s) => ar.num(field, local(s)),
            FieldOperand::Before(s) => ar.num(local(s), field),
            FieldOperand::Int(k) => ar.num(field, Num::Int(i64::from(k))),
        }
    }
}

impl Op {
    /// The highest local slot the instruction names, if it names one (what [`Code`]'s
    /// bound is made of). Every variant is listed, so a new one must say its slots here.
    pub(crate) fn max_slot(self) -> Option<u32> {
        let w = u32::from;
        let m = |a: u16, b: u16| Some(w(a.max(b)));
        match self {
            Op::LoadLocal(s)
            | Op::StoreLocal(s, _)
            | Op::LoadGlobalElemL(_, s)
            | Op::StoreGlobalElemL(_, s)
            | Op::StoreGlobalElemLI(_, s, _)
            | Op::LoadLocalElemL(_, s)
            | Op::StoreLocalElemL(_, s)
            | Op::LoadFieldL(s, ..)
            | Op::StoreFieldL(s, ..)
            | Op::AppendLocal(s, ..)
            | Op::IncLocal(s, ..)
            | Op::JumpIfL(s, ..)
            | Op::JumpIfNotElemL(_, s, _)
            | Op::JumpCmpLI(_, _, s, _, _)
            | Op::IncJumpCmpLI(s, ..)
            | Op::ArithLI(_, s, _)
            | Op::ArithLICall(_, s, _)
            | Op::ArithSL(_, s)
            | Op::ArithLS(_, s)
            | Op::IntLI(_, s, _)
            | Op::IntSL(_, s)
            | Op::IntLS(_, s)
            | Op::IntSIStore(_, _, s)
            | Op::JumpStrLK(s, ..)
            | Op::ReturnLocal(s) => Some(s),
            Op::StoreGlobal(_, GStore::ArithL(_, s)) => Some(w(s)),
            Op::JumpCmpLL(_, _, a, b, _)
            | Op::ArithLL(_, a, b)
            | Op::ArithLSStore(_, a, b)
            | Op::IntLL(_, a, b) => Some(a.max(b)),
            Op::ArithLLStore(_, a, b, d) => Some(a.max(b).max(d)),
            Op::ArithLIStore(_, a, _, d) => Some(a.max(d)),
            Op::LoadGlobalElemStore { s, d, .. } => {
                if s == ELEM_FROM_STACK {
                    Some(w(d))
                } else {
                    m(s, d)
                }
            }
            Op::LoadFieldLStore { s, d, .. } => m(s, d),
            Op::StoreFieldLL { o, x, .. } => m(o, x),
            Op::ArithFieldL { o, y, .. } => match y {
                FieldOperand::After(s) | FieldOperand::Before(s) => m(o, s),
                FieldOperand::Int(_) => Some(w(o)),
            },
            Op::ArithFF { a, b, .. } => m(a, b),
            Op::LoadFieldElemLL { o, i, .. } | Op::StoreFieldElemLL { o, i, .. } => m(o, i),
            Op::StoreFieldElemLLL { o, i, x, .. } => m(o.max(i), x),
            Op::JumpStrLK2 { a, .. } => Some(w(a)),
            Op::LoadGlobalElemLL(_, a, b) | Op::StoreGlobalElemLL(_, a, b) => m(a, b),
            Op::IncJumpLtLI(s, ..) => Some(w(s)),
            Op::IncJumpCmpLL { s, b, .. } => m(s, b),
            Op::IncJumpCmpLG { s, .. } => Some(w(s)),
            Op::ArithJumpCmpLL { a, b, d, x, .. } => m(a.max(b), d.max(x)),
            Op::IncJumpCmpAL { s, a, b, x, .. } => m(s.max(a), b.max(x)),
            Op::ArithLLIStore { a, b, d, .. } => Some(u32::from(a.max(b).max(d))),
            Op::ArithLLIAcc { d, b, .. } => Some(u32::from(d.max(b))),
            Op::IntIL { a, b, .. } | Op::ArithIL { a, b, .. } => m(a, b),
            Op::JumpIntLLI { a, b, .. } => m(a, b),
            Op::JumpCmpAL { a, b, x, .. } => m(a.max(b), x),
            Op::Break
            | Op::Int(_)
            | Op::Float(_)
            | Op::Const(_)
            | Op::Empty
            | Op::Pop
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
            | Op::BuildName(..)
            | Op::LoadField(..)
            | Op::StoreField(..)
            | Op::LoadFieldElem(..)
            | Op::StoreFieldElem(..)
            | Op::LoadFieldDyn
            | Op::StoreFieldDyn(_)
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
            | Op::Lt
            | Op::Le
            | Op::Gt
            | Op::Ge
            | Op::Eq
            | Op::Ne
            | Op::StrEq
            | Op::StrNe
            | Op::Cat(_)
            | Op::Neg
            | Op::Not
            | Op::BitNot
            | Op::Tag(_)
            | Op::Jump(_)
            | Op::JumpIfFalse(_)
            | Op::JumpIfTrue(_)
            | Op::JumpCmp(..)
            | Op::ArithSI(..)
            | Op::IntSI(..)
            | Op::JumpCmpSI(..)
            | Op::Call(..)
            | Op::CallNs(..)
            | Op::CallParent(..)
            | Op::CallMethod(..)
            | Op::Return
            | Op::ReturnEmpty
            | Op::NewBegin(_)
            | Op::NewField(_)
            | Op::NewFieldDyn
            | Op::NewAdd
            | Op::NewEnd
            | Op::Error(_)
            | Op::Declare(_) => None,
        }
    }
}

impl Op {
    /// Whether `stack_ops::run_tight` runs the instruction: locals, numbers, jumps, integer
    /// operators and array elements by a number, nothing that calls a function, reads a field,
    /// builds a name or handles text.
    pub(crate) fn is_tight(self) -> bool {
        matches!(
            self,
            Op::Int(_)
                | Op::Float(_)
                | Op::Empty
                | Op::Pop
                | Op::LoadLocal(_)
                | Op::StoreLocal(..)
                | Op::IncLocal(..)
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
                | Op::Lt
                | Op::Le
                | Op::Gt
                | Op::Ge
                | Op::Eq
                | Op::Ne
                | Op::JumpCmp(..)
                | Op::JumpCmpLI(..)
                | Op::JumpCmpLL(..)
                | Op::ArithLL(..)
                | Op::ArithLI(..)
                | Op::ArithSL(..)
                | Op::ArithSI(..)
                | Op::ArithLS(..)
                | Op::ArithLSStore(..)
                | Op::ArithLLIStore { .. }
                | Op::ArithLLIAcc { .. }
                | Op::ArithLLStore(..)
                | Op::ArithLIStore(..)
                | Op::IntLL(..)
                | Op::IntLI(..)
                | Op::IntSL(..)
                | Op::IntSI(..)
                | Op::IntLS(..)
                | Op::IntSIStore(..)
                | Op::IntIL { .. }
                | Op::ArithIL { .. }
                | Op::JumpCmpSI(..)
                | Op::JumpIntLLI { .. }
                | Op::JumpCmpAL { .. }
                | Op::Jump(_)
                | Op::IncJumpLtLI(..)
                | Op::IncJumpCmpLL { .. }
                | Op::IncJumpCmpAL { .. }
                | Op::ArithJumpCmpLL { .. }
                | Op::IncJumpCmpLI(..)
                | Op::JumpIfL(..)
                | Op::JumpIfFalse(_)
                | Op::JumpIfTrue(_)
                | Op::LoadGlobalElemL(..)
                | Op::JumpIfNotElemL(..)
                | Op::StoreGlobalElemL(..)
                | Op::StoreGlobalElemLI(..)
                | Op::LoadLocalElemL(..)
                | Op::StoreLocalElemL(..)
                | Op::LoadGlobalElemLL(..)
                | Op::StoreGlobalElemLL(..)
        ) || self.names_global()
            || self.reads_row_from_stack()
            || self.stores_local_elem_from_stack()
    }

    /// Whether the instruction reads a two-index element with its indexes on the stack
    /// (`$a[%i - 1, %j - 1]`): `run_tight` runs it only in its copy for two rows read in turn
    /// (see [`Code::tight_rows`]).
    pub(crate) fn reads_row_from_stack(self) -> bool {
        matches!(self, Op::LoadGlobalElem(_, 2))
    }

    /// Whether the instruction writes a local array's element with its index on the stack
    /// (`%a[%j + 1] = v`): `run_tight` runs it only in its copy for those (see
    /// [`Code::tight_locals`]).
    pub(crate) fn stores_local_elem_from_stack(self) -> bool {
        matches!(self, Op::StoreLocalElem(_, 1, false))
    }

    /// Whether the instruction reads or writes a global by name: `run_tight` runs those only in
    /// its copy with the globals' table (a tight loop with one runs there, see
    /// [`Code::tight_globals`]).
    pub(crate) fn names_global(self) -> bool {
        matches!(self, Op::LoadGlobal(_) | Op::StoreGlobal(..) | Op::IncJumpCmpLG { .. })
    }

    /// Where the instruction may jump, if it is a jump.
    pub(crate) fn jump_target(self) -> Option<u32> {
        match self {
            Op::Jump(t)
            | Op::JumpIfFalse(t)
            | Op::JumpIfTrue(t)
            | Op::JumpIfL(_, _, t)
            | Op::JumpIfNotElemL(_, _, t)
            | Op::JumpCmp(_, _, t)
            | Op::JumpCmpLI(_, _, _, _, t)
            | Op::JumpCmpLL(_, _, _, _, t)
            | Op::IncJumpCmpLI(_, _, _, _, t)
            | Op::IncJumpLtLI(_, _, _, t)
            | Op::IncJumpCmpLL { t, .. }
            | Op::IncJumpCmpLG { t, .. }
            | Op::ArithJumpCmpLL { t, .. }
            | Op::IncJumpCmpAL { t, .. }
            | Op::JumpCmpSI(_, _, _, t)
            | Op::JumpIntLLI { t, .. }
            | Op::JumpCmpAL { t, .. }
            | Op::JumpStrLK(_, _, _, t) => Some(t),
            _ => None,
        }
    }
}

/// One instruction of a function's code, read in place by the VM. Written only through
/// `Code::set`, which refuses an instruction naming a local slot past the code's
/// [`Code::slot_end`].
#[derive(Debug)]
#[repr(transparent)]
pub struct OpCell(Cell<Op>);

impl OpCell {
    /// The instruction.
    #[inline(always)]
    pub fn get(&self) -> Op {
        self.0.get()
    }

    /// The instruction in place (for the VM's loop, which matches it without a copy).
    #[inline(always)]
    pub(crate) fn as_ptr(&self) -> *mut Op {
        self.0.as_ptr()
    }

    /// Writes the site cache of the field instruction here (`LoadField`'s hint,
    /// `LoadFieldElem`'s offset, `ArithFF`'s two bytes as `ha | hb << 8`): its slots stay as
    /// they are, so the code's [`Code::slot_end`] still bounds them. Anything else is left
    /// unchanged. Out of line: a cache moves rarely, and the VM's arms stay small.
    #[cold]
    #[inline(never)]
    pub(crate) fn set_hint(&self, h: u32) {
        let op = match self.get() {
            Op::LoadField(n, _) => Op::LoadField(n, h),
            Op::StoreField(n, keep, _) => Op::StoreField(n, keep, h),
            Op::LoadFieldElem(b, _) => Op::LoadFieldElem(b, h),
            Op::StoreFieldElem(b, keep, _) => Op::StoreFieldElem(b, keep, h),
            Op::LoadFieldL(s, n, _) => Op::LoadFieldL(s, n, h),
            Op::StoreFieldL(s, n, keep, _) => Op::StoreFieldL(s, n, keep, h),
            Op::LoadFieldLStore { s, d, n, .. } => Op::LoadFieldLStore { s, d, n, hint: h },
            Op::StoreFieldLL { o, x, n, .. } => Op::StoreFieldLL { o, x, n, hint: h },
            Op::ArithFieldL { ar, o, y, n, .. } => Op::ArithFieldL { ar, o, y, n, hint: h },
            Op::ArithFF { ar, a, b, na, nb, .. } => {
                let [ha, hb, ..] = h.to_le_bytes();
                Op::ArithFF { ar, a, b, na, nb, ha, hb }
            }
            Op::LoadFieldElemLL { o, i, b, .. } => Op::LoadFieldElemLL { o, i, b, off: h },
            Op::StoreFieldElemLL { o, i, b, .. } => Op::StoreFieldElemLL { o, i, b, off: h },
            Op::StoreFieldElemLLL { o, i, x, b, .. } => Op::StoreFieldElemLLL { o, i, x, b, off: h },
            _ => return,
        };
        self.0.set(op);
    }
}

/// A function's instructions and one past the highest local slot any of them names. The
/// bound is computed here, when the code is made, and every later write (`Code::set`: a
/// breakpoint, an instruction put back, a site's cache) keeps it: the VM's fast loop makes the
/// operand stack hold `frame base + slot_end` slots before it runs the code and then reads
/// and writes locals without a bounds check (`stack_ops::run`).
///
/// The cells hold one more instruction than the code has: a `Break` past the end (the
/// sentinel), which no write reaches and [`Code`]'s slice does not show. The fast loop
/// fetches without a bounds check through `Code::with_sentinel`: running off the end, it
/// meets the sentinel and stops there, and the interpreter finds nothing at that pc (a return),
/// as it did when the fetch was checked.
#[derive(Debug)]
pub struct Code {
    /// The instructions, then the sentinel (never empty).
    ops: Vec<OpCell>,
    slot_end: u32,
    /// The heads of tight loops among pcs 0 to 59 (bit `pc`), with bit 63 set once they were
    /// found (0: not yet), bit 62 when one of those loops names a global
    /// ([`Op::names_global`]), bit 61 when one reads a row from the stack
    /// ([`Op::reads_row_from_stack`]) and bit 60 when one writes a local element from the
    /// stack ([`Op::stores_local_elem_from_stack`]): found the first time the fast loop asks,
    /// so compiling pays nothing (most functions of a script set never run). A head past pc 59
    /// is not marked: its loop runs in the fast loop. See [`Code::tight_head`]. (A 32-bit word
    /// left heads past pc 27 out: a local sieve after 30 instructions of set-up took 35 % more
    /// instructions; the wider word cost parse + compile nothing measurable.)
    tight: Cell<u64>,
}

/// Where the heads' word has its bit "found".
const TIGHT_FOUND: u64 = 1 << 63;
/// Where the heads' word has its bit "a tight loop names a global".
const TIGHT_GLOBALS: u64 = 1 << 62;
/// Where the heads' word has its bit "a tight loop reads a two-index element from the stack".
const TIGHT_ROWS: u64 = 1 << 61;
/// Where the heads' word has its bit "a tight loop writes a local element from the stack".
const TIGHT_LOCALS: u64 = 1 << 60;
/// Heads are marked at pcs below this.
const TIGHT_PCS: usize = 60;

/// The heads of tight loops in `ops` (as they are now: a breakpoint patched in keeps its loop
/// out; one patched in later stops `run_tight` there, which leaves it to the fast loop): `t`
/// is one when a backward jump at `j >= t` goes to `t` and every instruction from `t` to `j`
/// is one `stack_ops::run_tight` runs ([`Op::is_tight`]). Pcs 0 to 59 only; bit 62 when one of
/// those loops names a global, bit 61 when one reads a row from the stack, bit 60 when one
/// writes a local element from the stack.
fn tight_heads(ops: &[OpCell]) -> u64 {
    let mut bits = TIGHT_FOUND;
    // The last instruction seen so far that `run_tight` does not run (+ 1; 0: none).
    let mut last_loose = 0;
    // The last instruction seen so far that names a global, that reads a row from the stack
    // (+ 1; 0: none).
    let (mut last_global, mut last_row, mut last_local) = (0, 0, 0);
    for (j, op) in ops.iter().map(OpCell::get).enumerate() {
        if op.names_global() {
            last_global = j + 1;
        }
        if op.reads_row_from_stack() {
            last_row = j + 1;
        }
        if op.stores_local_elem_from_stack() {
            last_local = j + 1;
        }
        if !op.is_tight() {
            last_loose = j + 1;
        } else if let Some(t) = op.jump_target().map(|t| t as usize)
            && t <= j
            && t >= last_loose
            && t < TIGHT_PCS
        {
            bits |= 1 << t;
            if last_global > t {
                bits |= TIGHT_GLOBALS;
            }
            if last_row > t {
                bits |= TIGHT_ROWS;
            }
            if last_local > t {
                bits |= TIGHT_LOCALS;
            }
        }
    }
    bits
}

impl Code {
    /// Code from its instructions, with its slot bound.
    #[cfg(test)]
    pub(crate) fn new(ops: Vec<Op>) -> Code {
        Code::from_ops(&ops)
    }

    /// Code from its instructions, with its slot bound (borrowed: the compiler reuses its buffer
    /// for the next function).
    pub(crate) fn from_ops(ops: &[Op]) -> Code {
        let slot_end =
            ops.iter().filter_map(|op| op.max_slot()).map(|s| s.saturating_add(1)).max().unwrap_or(0);
        let cells =
            ops.iter().copied().chain(std::iter::once(Op::Break)).map(|op| OpCell(Cell::new(op))).collect();
        Code { ops: cells, slot_end, tight: Cell::new(0) }
    }

    /// Whether `pc` is the head of a tight loop (see [`tight_heads`]): one load and one test
    /// on a backward jump of the fast loop, the heads found on the first.
    #[inline(always)]
    pub(crate) fn tight_head(&self, pc: usize) -> bool {
        let mut w = self.tight.get();
        if w == 0 {
            w = self.find_tight_heads();
        }
        pc < TIGHT_PCS && w >> pc & 1 != 0
    }

    /// Whether a tight loop of this code names a global (read after [`Code::tight_head`]
    /// found the heads): `run_tight` runs it in its copy with the globals' table.
    #[inline(always)]
    pub(crate) fn tight_globals(&self) -> bool {
        self.tight.get() & TIGHT_GLOBALS != 0
    }

    /// Whether a tight loop of this code reads a two-index element with its indexes on the
    /// stack (read after [`Code::tight_head`] found the heads): `run_tight` runs it in its copy
    /// that finds any row (`stack_ops::run_tight_rows`).
    #[inline(always)]
    pub(crate) fn tight_rows(&self) -> bool {
        self.tight.get() & TIGHT_ROWS != 0
    }

    /// Whether a tight loop of this code writes a local array's element with its index on
    /// the stack (read after [`Code::tight_head`] found the heads): `run_tight` runs it in its
    /// copy for those (`stack_ops::run_tight_locals`).
    #[inline(always)]
    pub(crate) fn tight_locals(&self) -> bool {
        self.tight.get() & TIGHT_LOCALS != 0
    }

    #[cold]
    #[inline(never)]
    fn find_tight_heads(&self) -> u64 {
        let w = tight_heads(&self.ops);
        self.tight.set(w);
        w
    }

    /// The instructions and the sentinel `Break` after them: `len() + 1` cells, so every pc
    /// from 0 to [`len`](slice::len) inclusive names one (`stack_ops::run` fetches so).
    #[inline(always)]
    pub(crate) fn with_sentinel(&self) -> &[OpCell] {
        &self.ops
    }

    /// One past the highest local slot the code names (0 when it names none).
    #[inline(always)]
    pub fn slot_end(&self) -> u32 {
        self.slot_end
    }

    /// Writes the instruction at `pc`. An instruction naming a slot at or past
    /// [`Code::slot_end`] is refused (`false`, nothing written): no write widens the bound
    /// the VM relies on.
    pub(crate) fn set(&self, pc: usize, op: Op) -> bool {
        if op.max_slot().is_some_and(|s| s >= self.slot_end) {
            return false;
        }
        match self.get(pc) {
            Some(cell) => {
                cell.0.set(op);
                true
            }
            None => false,
        }
    }
}

impl std::ops::Deref for Code {
    type Target = [OpCell];
    fn deref(&self) -> &[OpCell] {
        // Every cell but the sentinel (`ops` is never empty).
        self.ops.split_last().map_or(&[], |(_, code)| code)
    }
}

/// A hand-over to `recursion::rec` whose calls took less budget than this many calls of the
/// function (each its [`FuncDef::call_cost`]) is shallow ([`FuncDef::rec`]).
pub(crate) const REC_DEEP: u64 = 6;

/// Shallow hand-overs in a row after which a function's self-calls go back to the fast loop
/// ([`FuncDef::rec`]).
pub(crate) const REC_SHALLOW: u8 = 16;

/// Whether a function can run its self-calls in `recursion::rec`: code of at most 63
/// instructions, each one `recursion::rec` runs, a call among them, and every call a call of
/// the function's own name: `name(...)` for a global function (`ns` is `None`), `N::name(...)`
/// for one declared as `N::name`. Whether the name does resolve to the function is checked when
/// the interpreter hands a call over.
pub(crate) fn self_recursive(ops: &[Op], name: Name, ns: Option<Name>) -> bool {
    ops.len() < 64
        && ops.iter().any(|op| matches!(op, Op::Call(..) | Op::CallNs(..)))
        && ops.iter().all(|op| match *op {
            Op::Call(n, _) => ns.is_none() && n == name,
            Op::CallNs(s, n, _) => ns == Some(s) && n == name,
            op => runs_in_rec(op),
        })
}

/// The instructions `recursion::rec` runs besides the calls.
fn runs_in_rec(op: Op) -> bool {
    matches!(
        op,
        Op::Int(_)
            | Op::Float(_)
            | Op::Pop
            | Op::LoadLocal(_)
            | Op::StoreLocal(..)
            | Op::IncLocal(..)
            | Op::Neg
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Mod
            | Op::Lt
            | Op::Le
            | Op::Gt
            | Op::Ge
            | Op::Eq
            | Op::Ne
            | Op::Jump(_)
            | Op::JumpIfFalse(_)
            | Op::JumpIfTrue(_)
            | Op::JumpCmp(..)
            | Op::JumpCmpLI(..)
            | Op::JumpCmpLL(..)
            | Op::ArithLL(..)
            | Op::ArithLI(..)
            | Op::ArithLLStore(..)
            | Op::ArithLIStore(..)
            | Op::IncJumpCmpLL { .. }
            | Op::IntLL(..)
            | Op::IntLI(..)
            | Op::JumpCmpSI(..)
            | Op::ArithSL(..)
            | Op::ArithSI(..)
            | Op::ArithLS(..)
            | Op::ArithLICall(..)
            | Op::Return
            | Op::ReturnEmpty
            | Op::ReturnLocal(_)
    )
}

/// What `NewBegin` needs that does not fit in an operand.
#[derive(Clone, Debug, PartialEq)]
pub struct NewSpec {
    /// Literal class, or `None` when the class is on the stack.
    pub class: Option<Name>,
    /// Whether a name value is on the stack.
    pub has_name: bool,
    /// Parent to copy fields from.
    pub parent: Option<Name>,
    /// Extra constructor arguments on the stack.
    pub argc: u32,
    /// `datablock` rather than `new`.
    pub datablock: bool,
    /// Source line, for messages.
    pub line: u32,
    /// Pc of the matching `NewEnd` (creation failures skip the block, as in V12).
    pub end: u32,
}

/// A compiled function (or a file's top-level code).
#[derive(Debug)]
pub struct FuncDef {
    /// Function name (`<main>` for top-level code).
    pub name: Name,
    /// Namespace the function was declared in (`None` for global functions).
    pub ns: Option<Name>,
    /// Package, if declared in one.
    pub package: Option<Name>,
    /// Number of declared parameters.
    pub nparams: u32,
    /// Total local slots (parameters first, then named locals, then temporaries).
    pub nlocals: u32,
    /// What a call takes from the instruction budget ([`FuncDef::call_cost`]), computed when
    /// the function is made: the call paths read one byte (it sits in the struct's padding)
    /// instead of clamping the code's length at every call.
    pub(crate) cost: u8,
    /// Named locals: name → slot, for `%a[i]`-style names built at run time and `eval`.
    pub local_slots: HashMap<Name, u32, crate::intern::FastBuild>,
    /// Instructions. Cells, so the debugger can patch a breakpoint into shared code.
    pub code: Code,
    /// Where each statement starts, `(line, pc)` (the breakable lines), in code order.
    pub breaks: Vec<(u32, u32)>,
    /// Instructions the debugger patched over, `(pc, original)`.
    pub(crate) patched: RefCell<Vec<(u32, Op)>>,
    /// Source line of each instruction.
    pub lines: Vec<u32>,
    /// Constants.
    pub consts: Vec<Value>,
    /// Object specs for `NewBegin`.
    pub new_specs: Vec<NewSpec>,
    /// Function declarations reached by `Declare`.
    pub decls: Vec<Rc<FuncDef>>,
    /// File the code came from.
    pub file: Rc<str>,
    /// Where each top-level statement starts (top-level code only): after a runaway statement
    /// is stopped, execution resumes at the next one.
    pub stmt_starts: Vec<u32>,
    /// True for top-level code (locals there are looked up in the caller of `eval`).
    pub toplevel: bool,
    /// A named local ending in digits is an element of an array this function indexes
    /// (`%a5` and `%a[%i]`): `%a[5]` must find its slot, so this function's local array
    /// elements go by their text. Other named locals ending in digits (`%pos2` beside `%s[%i]`)
    /// leave its arrays on the element path.
    pub elem_slots: bool,
    /// Some named local ends in a digit (`%a5`): array elements named by code that `eval`
    /// runs in this function's frame go by their text, which finds that slot first.
    pub digit_locals: bool,
    /// Per-call-site lookup cache, indexed by the call instruction's pc (allocated on the
    /// first call). An entry is valid for one function generation and one receiver namespace.
    pub(crate) call_cache: RefCell<Vec<Option<SiteCache>>>,
    /// Nonzero: its self-calls run in `recursion::rec`, and its call sites are never cached
    /// (so the fast loop leaves them to the interpreter, which hands them over). Set to 1 by
    /// the compiler ([`self_recursive`]); one more for each hand-over in a row that made
    /// fewer than [`REC_DEEP`] calls' worth of work (a hand-over costs more than a few calls
    /// save); 0 (the fast loop's from then on) when its name is found to resolve to another
    /// function or after [`REC_SHALLOW`] such hand-overs in a row.
    pub(crate) rec: Cell<u8>,
}

/// What one call instruction resolved to last time.
#[derive(Clone, Debug)]
pub(crate) struct SiteCache {
    pub(crate) generation: u64,
    pub(crate) ns: u32,
    pub(crate) resolved: Resolved,
    /// A Rust callee the fast loop may call in place.
    pub(crate) pure: Option<PureCall>,
}

impl FuncDef {
    /// What a call to this function takes from the instruction budget: its straight-line
    /// length, at most 64 (loops inside pay again as they jump back).
    #[inline(always)]
    pub(crate) fn call_cost(&self) -> u64 {
        u64::from(self.cost)
    }

    /// [`FuncDef::call_cost`] of `code`: its straight-line length, from 1 to 64.
    pub(crate) fn cost_of(code: &Code) -> u8 {
        code.len().clamp(1, 64) as u8
    }

    /// The instruction at `pc` as compiled (under a breakpoint, the one it replaced).
    pub(crate) fn original_op(&self, pc: usize) -> Op {
        let patched = self.patched.borrow();
        match patched.iter().find(|p| p.0 as usize == pc) {
            Some(&(_, op)) => op,
            None => self.code.get(pc).map_or(Op::ReturnEmpty, OpCell::get),
        }
    }

    /// Patches a breakpoint over the instruction at `pc`.
    pub(crate) fn set_break(&self, pc: usize) {
        let Some(cell) = self.code.get(pc) else { return };
        let mut patched = self.patched.borrow_mut();
        if !patched.iter().any(|p| p.0 as usize == pc) {
            patched.push((pc as u32, cell.get()));
        }
        self.code.set(pc, Op::Break);
    }

    /// A breakpoint whose instruction ran once in its place: the break goes back, unless it
    /// was cleared meanwhile.
    pub(crate) fn rearm_break(&self, pc: usize) {
        if self.patched.borrow().iter().any(|p| p.0 as usize == pc) {
            self.code.set(pc, Op::Break);
        }
    }

    /// Puts back the instruction under a breakpoint at `pc`.
    pub(crate) fn clear_break(&self, pc: usize) {
        let mut patched = self.patched.borrow_mut();
        if let Some(i) = patched.iter().position(|p| p.0 as usize == pc) {
            let (_, op) = patched.swap_remove(i);
            self.code.set(pc, op);
        }
    }

    /// Puts back every patched instruction.
    pub(crate) fn clear_all_breaks(&self) {
        for (pc, op) in self.patched.borrow_mut().drain(..) {
            self.code.set(pc as usize, op);
        }
    }

    /// The cached resolution for the call at `pc`, if still valid.
    #[inline(always)]
    pub(crate) fn cached_call(&self, pc: usize, generation: u64, ns: u32) -> Option<Resolved> {
        // Read without a borrow guard, as in `cached_call_from`.
        #[allow(unsafe_code)]
        // SAFETY: the reference is used only inside this function, which calls nothing that
        // could write the cache (cloning a `Resolved` runs no script code), so no `borrow_mut`
        // happens while it lives; `try_borrow_unguarded` refuses if one is live now.
        let Ok(cache) = (unsafe { self.call_cache.try_borrow_unguarded() }) else { return None };
        match cache.get(pc) {
            Some(Some(s)) if s.generation == generation && s.ns == ns => Some(s.resolved.clone()),
            _ => None,
        }
    }

    /// [`FuncDef::cached_call`] for a call from `running`: a call that resolves to `running`
    /// itself (recursion) comes back as `Ok((ns, layer))` with no count of the function
    /// changed (a clone here and the drop of the function it replaced, then the same again at
    /// the return, chained from call to call: fib); another script function as
    /// `Err(Some((callee, ns, layer)))`; a Rust one, or no valid entry, as `Err(None)` (the
    /// interpreter's call), a Rust one's [`PureCall`] written to `pure` (one lookup for both).
    #[inline(always)]
    pub(crate) fn cached_call_from(
        &self,
        pc: usize,
        generation: u64,
        ns: u32,
        running: *const FuncDef,
        pure: &mut Option<PureCall>,
    ) -> Result<(NsId, u32), Option<ScriptCallee>> {
        // Read without a borrow guard (no count written and put back around the lookup); a
        // cache being written (never, while a call instruction runs) reads as a miss.
        #[allow(unsafe_code)]
        // SAFETY: the reference is used only inside this function, which calls nothing that
        // could write the cache (`Rc::clone` runs no script code), so no `borrow_mut` happens
        // while it lives; `try_borrow_unguarded` refuses if one is live now.
        let Ok(cache) = (unsafe { self.call_cache.try_borrow_unguarded() }) else { return Err(None) };
        match cache.get(pc) {
            Some(Some(s)) if s.generation == generation && s.ns == ns => match &s.resolved.callable {
                Callable::Script(f) if std::ptr::eq(Rc::as_ptr(f), running) => {
                    Ok((s.resolved.ns, s.resolved.layer))
                }
                Callable::Script(f) => Err(Some((Rc::clone(f), s.resolved.ns, s.resolved.layer))),
                Callable::Native(_) => {
                    *pure = s.pure;
                    Err(None)
                }
            },
            _ => Err(None),
        }
    }

    /// Remembers what the call at `pc` resolved to (`pure`: a Rust callee's [`PureCall`]).
    pub(crate) fn cache_call(
        &self,
        pc: usize,
        generation: u64,
        ns: u32,
        resolved: &Resolved,
        pure: Option<PureCall>,
    ) {
        let mut cache = self.call_cache.borrow_mut();
        if cache.len() < self.code.len() {
            cache.resize(self.code.len(), None);
        }
        if let Some(slot) = cache.get_mut(pc) {
            *slot = Some(SiteCache { generation, ns, resolved: resolved.clone(), pure });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Arith;
    use crate::value::{Num, Value};

    /// The text V12 gives a double (`%g`), the way `Value` prints it.
    fn text(v: Value) -> String {
        v.as_text().into_owned()
    }

    /// Where `Arith::int_apply` keeps an integer, the double V12 computes is that very
    /// number (not `-0`) and prints the same; where the sum or product is a whole double at
    /// or past 10^6, or `-0`, it leaves it to the double. Seeded values at the edges and
    /// spread over `i64`.
    #[test]
    fn int_apply_is_the_double() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = [
            0,
            1,
            -1,
            5,
            -5,
            999_999,
            -999_999,
            1_000_000,
            -1_000_000,
            500_000,
            -500_000,
            1000,
            -1000,
            i64::from(i32::MAX),
            i64::from(i32::MIN),
            1 << 31,
            1 << 53,
            (1 << 53) + 1,
            i64::MAX,
            i64::MIN,
        ];
        let mut pairs = Vec::new();
        for &a in &edges {
            for &b in &edges {
                pairs.push((a, b));
            }
        }
        for _ in 0..20_000 {
            let r = next();
            let pick = |bits: u64, r: u64| -> i64 {
                match bits % 4 {
                    0 => (r % 2_000_001) as i64 - 1_000_000,
                    1 => (r % 2001) as i64 - 1000,
                    2 => r as i64,
                    _ => (r % (1 << 33)) as i64 - (1 << 32),
                }
            };
            pairs.push((pick(r, next()), pick(r >> 2, next())));
        }
        let mut kept = 0;
        for (a, b) in pairs {
            for ar in [Arith::Add, Arith::Sub, Arith::Mul, Arith::Div] {
                let d = ar.apply(a as f64, b as f64);
                match ar.int_apply(a, b) {
                    Some(r) => {
                        kept += 1;
                        assert_eq!(r as f64, d, "{a} {ar:?} {b}");
                        assert!(!(d == 0.0 && d.is_sign_negative()), "{a} {ar:?} {b}: -0");
                        assert_eq!(text(Value::Int(r)), text(Value::Float(d)), "{a} {ar:?} {b}");
                        assert_eq!(ar.num(Num::Int(a), Num::Int(b)), Num::Int(r));
                    }
                    None => {
                        let whole_small =
                            d.fract() == 0.0 && d.abs() < 1e6 && !(d == 0.0 && d.is_sign_negative());
                        let small_operands = i32::try_from(a).is_ok() && i32::try_from(b).is_ok();
                        assert!(
                            !(whole_small && small_operands && ar != Arith::Div),
                            "{a} {ar:?} {b}: {d} left to the double"
                        );
                        let n = ar.num(Num::Int(a), Num::Int(b));
                        assert!(
                            matches!(n, Num::Float(f) if f.to_bits() == d.to_bits()),
                            "{a} {ar:?} {b}: {n:?}"
                        );
                    }
                }
            }
        }
        assert!(kept > 10_000, "{kept}");
    }

    /// `Value::step` gives the double V12 computes, as an integer only below 10^6, printing
    /// the same; a double or text steps as a double.
    #[test]
    fn step_is_the_double() {
        for start in [-1_000_005i64, -1_000_000, -999_999, -3, -1, 0, 1, 999_990, 999_998, 999_999, 1 << 53] {
            for d in [-128, -1, 1, 2, 4, 127] {
                let mut v = Value::Int(start);
                let x = v.step(d);
                let want = start as f64 + f64::from(d);
                assert_eq!(x, want, "{start} + {d}");
                assert_eq!(text(v.clone()), text(Value::Float(want)), "{start} + {d}");
                assert_eq!(matches!(v, Value::Int(_)), want.abs() < 1e6, "{start} + {d}: {v:?}");
            }
        }
        let mut f = Value::Float(2.5);
        assert_eq!(f.step(1), 3.5);
        let mut s = Value::str("7");
        assert_eq!(s.step(-2), 5.0);
        assert!(matches!(s, Value::Float(_)));
        let mut e = Value::Empty;
        assert_eq!(e.step(1), 1.0);
    }
}
