//! The VM's working state: the operand stack, the call frames, the objects under
//! construction, and the limits of the run in progress (instruction budget, depth, abort).

use crate::bytecode::{FuncDef, NsId};
use crate::intern::Name;
use crate::object::Pending;
use crate::value::Value;
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
    pub(crate) dyn_locals: Option<Box<HashMap<Name, Value>>>,
    /// Top-level code run by `eval` from a function uses that function's locals.
    pub(crate) eval_scope: Option<usize>,
    /// Operand-stack height to restore when the frame returns.
    pub(crate) stack_base: usize,
    /// Objects under construction when the frame started.
    pub(crate) new_base: usize,
}

/// What the interpreter works on; one per console, reused by every run.
#[derive(Debug)]
pub(crate) struct VmState {
    /// Operand stack; a frame's locals sit at its `base`.
    pub(crate) stack: Vec<Value>,
    pub(crate) frames: Vec<Frame>,
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
}

impl VmState {
    /// An idle VM with `budget` instructions for its first run.
    pub(crate) fn new(budget: u64) -> Self {
        VmState {
            stack: Vec::with_capacity(1024),
            frames: Vec::with_capacity(64),
            new_stack: Vec::new(),
            budget_left: budget,
            run_depth: 0,
            abort: None,
            aborts: 0,
            unwound_pc: 0,
            arg_pool: Vec::new(),
            rearm: None,
        }
    }
}
