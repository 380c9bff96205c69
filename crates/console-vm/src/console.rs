//! The `Console` value the host owns: names, globals, namespaces, packages, functions,
//! and the entry points (`eval`, `exec_file`, `call_function`, `call_method`).

use crate::bytecode::{Callable, GLOBAL_NS, NativeId, NsId};
use crate::compiler::compile_source;
use crate::files::FileAccess;
use crate::intern::{Interner, Name};
use crate::namespace::Namespaces;
use crate::object::{ObjectId, ObjectStore};
use crate::output::{Level, OutputSink, StdioSink};
use crate::parser::SyntaxError;
use crate::scheduler::Scheduler;
use crate::stack::VmState;
use crate::tags::TagTable;
use crate::value::Value;
use std::fmt;
use std::path::PathBuf;
use std::rc::Rc;

/// Arguments a Rust function or method receives.
#[derive(Debug)]
pub struct CallArgs<'a> {
    /// For methods: the object the method was called on.
    pub this: Option<ObjectId>,
    /// The arguments after the function name. For methods `argv[0]` is the object as written.
    pub argv: &'a [Value],
}

impl CallArgs<'_> {
    /// Argument `i` (empty when missing).
    pub fn get(&self, i: usize) -> Value {
        self.argv.get(i).cloned().unwrap_or_default()
    }
    /// Argument `i` as text.
    pub fn str(&self, i: usize) -> std::borrow::Cow<'_, str> {
        match self.argv.get(i) {
            Some(v) => v.as_text(),
            None => std::borrow::Cow::Borrowed(""),
        }
    }
    /// Argument `i` as a double.
    pub fn f64(&self, i: usize) -> f64 {
        self.argv.get(i).map(Value::to_f64).unwrap_or(0.0)
    }
    /// Argument `i` as an integer.
    pub fn i32(&self, i: usize) -> i32 {
        self.argv.get(i).map(Value::to_i32).unwrap_or(0)
    }
    /// Argument `i` as a boolean.
    pub fn bool(&self, i: usize) -> bool {
        self.argv.get(i).is_some_and(Value::truthy)
    }
    /// Number of arguments.
    pub fn len(&self) -> usize {
        self.argv.len()
    }
    /// True when there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.argv.is_empty()
    }
}

/// The body of a function implemented in Rust.
pub type NativeBody = dyn Fn(&mut Console, &CallArgs<'_>) -> Value;

/// A function or method implemented in Rust (V12's ConsoleFunction / ConsoleMethod).
pub struct NativeFn {
    pub(crate) name: Name,
    /// Minimum argc, counting the function name (and the object, for methods), as in V12.
    pub(crate) min: u32,
    /// Maximum argc; 0 means any.
    pub(crate) max: u32,
    pub(crate) usage: Rc<str>,
    pub(crate) body: Rc<NativeBody>,
    /// The same function as a plain Rust function of its arguments alone (and the word
    /// cache), for functions that need nothing else of the console: the fast loop calls it
    /// in place (see [`crate::bytecode::PureCall`]).
    pub(crate) pure: Option<crate::bytecode::PureNative>,
}

impl fmt::Debug for NativeFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NativeFn").field("min", &self.min).field("max", &self.max).finish()
    }
}

/// Errors the host sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleError {
    /// The source did not parse.
    Syntax(SyntaxError),
    /// The run was stopped (instruction budget, recursion depth, or `quit()` is not an error).
    Aborted(String),
    /// A file could not be read or is outside the allowed folder.
    File(String),
}

impl fmt::Display for ConsoleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsoleError::Syntax(e) => write!(f, "{e}"),
            ConsoleError::Aborted(m) => write!(f, "script aborted: {m}"),
            ConsoleError::File(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for ConsoleError {}

/// Instruction-budget units one console error or warning costs (see [`Console::error`]).
pub const ERROR_BUDGET_COST: u64 = 10_000;

/// Host settings.
#[derive(Clone, Debug)]
pub struct ConsoleConfig {
    /// Instructions one top-level call may run before it is stopped.
    pub instruction_budget: u64,
    /// Instructions one callback from the engine may run (a scheduled event, a network
    /// callback through [`Console::call_callback`]): small, so a runaway callback cannot keep
    /// a frame from ending; the callback is stopped with an error naming it.
    pub callback_budget: u64,
    /// Maximum script call depth.
    pub max_call_depth: usize,
    /// `new` of an unknown class makes a plain object of that class name instead of failing.
    pub lenient: bool,
}

impl Default for ConsoleConfig {
    fn default() -> Self {
        ConsoleConfig {
            instruction_budget: 200_000_000,
            callback_budget: 5_000_000,
            max_call_depth: 1000,
            lenient: false,
        }
    }
}

/// The console: compiler, VM, namespaces, objects and scheduler in one value the host owns.
/// Each part has one job and its own module; `Console` joins them and runs the callbacks
/// that cross parts (an object's `onAdd`, a scheduled call).
pub struct Console {
    /// Every identifier and string constant the scripts name, case-insensitively.
    pub(crate) names: Interner,
    /// Global variables, indexed by name.
    pub(crate) globals: Vec<Value>,
    /// Global array elements (`$s[%i]`; names ending in digits, see `elements`).
    pub(crate) elems: crate::elements::ElemStore,
    /// Row bases of two-index arrays: `(base, r)` → the name `base` + `r` + `_`.
    pub(crate) rows: crate::stack_ops::Rows,
    /// A buffer for the name of an element with a text index (`$tbl["key" @ %i]`), kept from
    /// one read to the next instead of allocated and freed per access.
    pub(crate) elem_text: String,
    /// The base name last found for an element named by text (`tblkey` of `$tbl["key" @ %i]`),
    /// tried before the name table: a loop over such names repeats one base.
    elem_base_memo: std::cell::Cell<Name>,
    /// Names of indexed fields: `(base, i)` → the name `base` + `i`.
    pub(crate) elem_names: crate::elements::ElemNames,
    /// Namespaces, functions and packages.
    pub(crate) ns: Namespaces,
    /// Functions implemented in Rust, by [`NativeId`].
    pub(crate) natives: Vec<Rc<NativeFn>>,
    /// Classes and live objects.
    pub(crate) objects: ObjectStore,
    /// The interpreter's stack, frames and run limits.
    pub(crate) vm: VmState,
    /// Simulated time and scheduled calls.
    pub(crate) scheduler: Scheduler,
    /// Tagged strings.
    pub(crate) tags: TagTable,
    /// Where scripts and the file functions read and write.
    pub(crate) files: FileAccess,
    /// Where printed lines go.
    pub(crate) output: Box<dyn OutputSink>,
    /// `trace(1)`: every script call and return is printed.
    pub(crate) trace: bool,
    /// Call hooks: tracing or the profiler is on, so the VM runs calls and returns where it
    /// can see them (one flag test per call when off).
    pub(crate) hooks: bool,
    /// The profiler's zone tree (`profilerEnable`).
    pub(crate) profiler: Box<crate::profiler::Profiler>,
    /// The `getWord` family's walk cache.
    /// `getRandom`'s generator.
    pub(crate) rng_state: u64,
    pub(crate) config: ConsoleConfig,
    /// `quit()` was called.
    pub(crate) quit: bool,
    /// The remote debugger's parts (boxed: the interpreter's hot fields stay together).
    pub(crate) debug: Box<crate::debug_link::DebugParts>,
    /// The host's datablock check, run as each datablock is defined ([`Console::set_preload`]).
    pub(crate) preload: Option<Box<PreloadHook>>,
}

/// The host's `preload` of a datablock: checks (and may correct) its fields when it is
/// defined or redefined; `Err` deletes it, as V12 deletes a datablock whose preload failed.
pub type PreloadHook = dyn FnMut(&mut Console, ObjectId) -> Result<(), String>;

impl fmt::Debug for Console {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Console")
            .field("objects", &self.objects.len())
            .field("namespaces", &self.ns.len())
            .field("sim_time", &self.scheduler.now())
            .finish()
    }
}

impl Console {
    /// A console with no classes or functions: the parts, empty. [`Console::new`] adds the
    /// built-in classes and functions on top.
    pub(crate) fn bare(config: ConsoleConfig) -> Self {
        let mut names = Interner::default();
        let global = names.intern("");
        Console {
            names,
            globals: Vec::new(),
            elems: Default::default(),
            rows: Default::default(),
            elem_text: String::new(),
            elem_base_memo: std::cell::Cell::new(global),
            elem_names: Default::default(),
            ns: Namespaces::new(global),
            natives: Vec::new(),
            objects: ObjectStore::default(),
            vm: VmState::new(config.instruction_budget),
            scheduler: Scheduler::default(),
            tags: TagTable::default(),
            files: FileAccess::default(),
            output: Box::new(StdioSink),
            trace: false,
            hooks: false,
            profiler: Box::default(),
            rng_state: 0x853c_49e6_748f_ea9b,
            config,
            quit: false,
            debug: Box::default(),
            preload: None,
        }
    }

    /// Runs `hook` on each datablock as it is defined or redefined, before its `onAdd` (V12's
    /// `SimDataBlock::preload`): the host checks the fields its engine classes read, warns
    /// about junk and keeps defaults. When the hook returns `Err`, the datablock is deleted
    /// with the error `preload failed for NAME: reason`.
    pub fn set_preload(&mut self, hook: Box<PreloadHook>) {
        self.preload = Some(hook);
    }

    /// Runs the preload hook on datablock `id`; false when it failed (the datablock is gone).
    pub(crate) fn run_preload(&mut self, id: ObjectId) -> bool {
        let Some(mut hook) = self.preload.take() else { return true };
        let result = hook(self, id);
        if self.preload.is_none() {
            self.preload = Some(hook);
        }
        match result {
            Ok(()) => true,
            Err(reason) => {
                let name = self.object(id).and_then(|o| o.name).map(|n| self.name_text(n).to_string());
                let name = name.unwrap_or_else(|| id.to_string());
                self.error(&format!("preload failed for {name}: {reason}"));
                self.delete_object(id);
                false
            }
        }
    }

    /// Sends output to `sink` instead of stdout/stderr.
    pub fn set_output(&mut self, sink: Box<dyn OutputSink>) {
        self.output = sink;
    }

    /// Reads scripts (`exec`) and answers the file functions (`isFile`, `findFirstFile`,
    /// `findNextFile`, `getFileCount`, `getFileCRC`) from `source` (a resource manager with
    /// mods and volumes) instead of the file root; writes still go to the file root.
    pub fn set_file_source(&mut self, source: Rc<dyn crate::files::FileSource>) {
        self.files.source = Some(source);
    }

    /// Allows file functions (`exec`, `isFile`, `save`, `export`) inside `root` only.
    pub fn set_file_root(&mut self, root: impl Into<PathBuf>) {
        self.files.root = Some(root.into());
    }

    /// Turns lenient loading (unknown classes become plain objects) on or off.
    pub fn set_lenient(&mut self, on: bool) {
        self.config.lenient = on;
    }

    /// Turns call tracing on or off (the script function `trace(bool)`).
    pub fn set_trace(&mut self, on: bool) {
        self.trace = on;
        self.sync_hooks();
    }

    /// Recomputes the VM's call-hook flag after tracing or the profiler changed.
    pub(crate) fn sync_hooks(&mut self) {
        self.hooks = self.trace || self.profiler.is_on();
    }

    /// Turns the profiler on or off (the script function `profilerEnable(bool)`).
    pub fn set_profiler_enabled(&mut self, on: bool) {
        self.profiler.set_on(on);
        self.sync_hooks();
    }

    /// True while the profiler times zones.
    pub fn profiler_enabled(&self) -> bool {
        self.profiler.is_on()
    }

    /// Enters the host's zone `zone` (a main loop phase, the network, rendering) under the
    /// innermost open one; one flag test when the profiler is off. Pair with
    /// [`Self::profiler_exit`].
    #[inline]
    pub fn profiler_enter(&mut self, zone: &'static str) {
        if self.profiler.is_on() {
            self.profiler.enter(crate::profiler::ZoneKey::Engine(zone));
        }
    }

    /// Leaves the innermost open zone.
    #[inline]
    pub fn profiler_exit(&mut self) {
        if self.profiler.is_on() {
            self.profiler.exit();
        }
    }

    /// Forgets the profiler's figures (`profilerReset()`).
    pub fn profiler_reset(&mut self) {
        self.profiler.reset();
    }

    /// The profiler's tree as text (`profilerDump()`): each zone's share of the time profiled,
    /// its own share, its calls, its time and its own time, children indented below.
    pub fn profiler_dump(&self) -> String {
        self.profiler.dump(&self.names)
    }

    /// The profiler's zones as paths (`Frame/ServerProcess/onTick`) with their calls, in tree
    /// order: the dump's structure without its times (for tests).
    pub fn profiler_calls(&self) -> Vec<(String, u64)> {
        self.profiler.calls(&self.names)
    }

    /// Sets the instruction budget per top-level call.
    pub fn set_instruction_budget(&mut self, n: u64) {
        self.config.instruction_budget = n;
    }

    /// True once a script called `quit()`.
    pub fn quit_requested(&self) -> bool {
        self.quit
    }

    /// Prints a line at a level.
    pub fn print(&mut self, level: Level, text: &str) {
        self.out_line(level, text);
    }
    /// `echo`.
    pub fn echo(&mut self, text: &str) {
        self.out_line(Level::Normal, text);
    }
    /// Every printed line passes here: to the host's sink, and to a debugger client.
    fn out_line(&mut self, level: Level, text: &str) {
        self.output.line(level, text);
        if let Some(q) = self.debug.cout.as_mut()
            && q.len() < crate::debug_link::MAX_PENDING_COUT
        {
            q.push((level, text.to_string()));
            self.debug_flush_cout();
        }
    }
    /// `warn`. Costs budget like [`Self::error`]: a loop that warns every pass
    /// (`while (1) %x = Nope.foo();`) is stopped as quickly.
    pub fn warn(&mut self, text: &str) {
        self.out_line(Level::Warning, text);
        self.vm.budget_left = self.vm.budget_left.saturating_sub(ERROR_BUDGET_COST);
    }
    /// `error`. A console error (and a warning) also costs [`ERROR_BUDGET_COST`] of the
    /// running call's instruction budget: printing dominates a loop that errs every pass (a
    /// top-level `for (%i ...)`), so without this such a loop would run for minutes before
    /// the budget, which counts only loop instructions, stopped it.
    pub fn error(&mut self, text: &str) {
        self.out_line(Level::Error, text);
        self.vm.budget_left = self.vm.budget_left.saturating_sub(ERROR_BUDGET_COST);
    }

    /// Interns a name.
    pub fn intern(&mut self, s: &str) -> Name {
        self.names.intern(s)
    }

    /// The text of an interned name.
    pub fn name_text(&self, n: Name) -> &str {
        self.names.text(n)
    }

    // ---- globals ----

    /// Reads a global (`name` without the `$`).
    pub fn get_global(&self, name: &str) -> Value {
        self.global_by_text(name.trim_start_matches('$'))
    }

    /// Sets a global (`name` without the `$`).
    pub fn set_global(&mut self, name: &str, v: impl Into<Value>) {
        self.set_global_by_text(name.trim_start_matches('$'), v.into());
    }

    /// The global whose name is `text` (an array element when it ends in digits).
    pub(crate) fn global_by_text(&self, text: &str) -> Value {
        if let Some((b, i)) = crate::elements::split_elem(text) {
            return match self.elem_base(b) {
                Some(b) => self.elems.get(b, i),
                None => Value::Empty,
            };
        }
        match self.names.lookup(text) {
            Some(n) => self.global(n),
            None => Value::Empty,
        }
    }

    /// The name `b` (an element's base spelled as text), if interned: the last one found is
    /// checked first (its text compared, so a name table rolled back cannot fool it).
    fn elem_base(&self, b: &str) -> Option<Name> {
        let last = self.elem_base_memo.get();
        if self.names.text(last).eq_ignore_ascii_case(b) {
            return Some(last);
        }
        let n = self.names.lookup(b)?;
        self.elem_base_memo.set(n);
        Some(n)
    }

    /// Sets the global whose name is `text`.
    pub(crate) fn set_global_by_text(&mut self, text: &str, v: Value) {
        if let Some((b, i)) = crate::elements::split_elem(text) {
            let b = match self.elem_base(b) {
                Some(n) => n,
                None => self.names.intern(b),
            };
            self.elems.set(b, i, v);
        } else {
            let n = self.names.intern(text);
            self.set_global_name(n, v);
        }
    }

    #[inline]
    pub(crate) fn global(&self, n: Name) -> Value {
        self.globals.get(n.0 as usize).cloned().unwrap_or_default()
    }

    #[inline]
    pub(crate) fn set_global_name(&mut self, n: Name, v: Value) {
        let i = n.0 as usize;
        if i >= self.globals.len() {
            if v.is_empty() {
                return;
            }
            self.globals.resize(i + 1, Value::Empty);
        }
        self.globals[i] = if v.is_empty() { Value::Empty } else { v };
    }

    // ---- namespaces and functions ----

    /// Links `child`'s namespace under `parent` (V12's `Con::linkNamespaces`).
    /// Refuses links that would make a cycle.
    pub fn link_namespaces(&mut self, parent: &str, child: &str) -> bool {
        let p = self.names.intern(parent);
        let c = self.names.intern(child);
        let pid = self.ns.named(p);
        let cid = self.ns.named(c);
        self.ns.link(pid, cid)
    }

    /// `activatePackage`: the package's functions override the current ones.
    pub fn activate_package(&mut self, name: &str) -> bool {
        let p = self.names.intern(name);
        let ok = self.ns.activate(p);
        if !ok {
            self.warn(&format!("activatePackage: no package named {name}"));
        }
        ok
    }

    /// `deactivatePackage` with V12 semantics: the package and every package activated after it.
    pub fn deactivate_package(&mut self, name: &str) -> bool {
        let p = self.names.intern(name);
        self.ns.deactivate(p)
    }

    /// True if a package with this name was declared.
    pub fn is_package(&self, name: &str) -> bool {
        self.names.lookup(name).is_some_and(|n| self.ns.is_package(n))
    }

    /// True if a global function (or `Ns::name`) exists.
    pub fn is_function(&mut self, name: &str) -> bool {
        let (ns, f) = match name.rfind("::") {
            Some(i) => (&name[..i], &name[i + 2..]),
            None => ("", name),
        };
        let Some(fname) = self.names.lookup(f) else { return false };
        let nsid = if ns.is_empty() {
            GLOBAL_NS
        } else {
            match self.names.lookup(ns).and_then(|n| self.ns.find(n)) {
                Some(id) => id,
                None => return false,
            }
        };
        if nsid == GLOBAL_NS {
            self.ns.is_global_function(fname)
        } else {
            self.ns.resolve(nsid, fname).is_some()
        }
    }

    /// Registers a Rust function callable from script as `name(...)`.
    ///
    /// `min_args`/`max_args` count the function name as argument 0, exactly like V12's
    /// ConsoleFunction (so a function taking no arguments is `1, 1`; `max_args == 0` means any).
    /// On a wrong count the console prints `usage`.
    pub fn register_function<R, F>(&mut self, name: &str, min_args: u32, max_args: u32, usage: &str, f: F)
    where
        R: Into<Value>,
        F: Fn(&mut Console, &CallArgs<'_>) -> R + 'static,
    {
        self.register_in(GLOBAL_NS, name, min_args, max_args, usage, f);
    }

    /// Registers a Rust method on a class or namespace (V12's ConsoleMethod).
    /// Counts include the function name and the object (so a method with no arguments is `2, 2`).
    pub fn register_method<R, F>(
        &mut self,
        class: &str,
        name: &str,
        min_args: u32,
        max_args: u32,
        usage: &str,
        f: F,
    ) where
        R: Into<Value>,
        F: Fn(&mut Console, &CallArgs<'_>) -> R + 'static,
    {
        let c = self.names.intern(class);
        let ns = self.ns.named(c);
        self.register_in(ns, name, min_args, max_args, usage, f);
    }

    fn register_in<R, F>(&mut self, ns: NsId, name: &str, min: u32, max: u32, usage: &str, f: F)
    where
        R: Into<Value>,
        F: Fn(&mut Console, &CallArgs<'_>) -> R + 'static,
    {
        let body: Rc<NativeBody> = Rc::new(move |c: &mut Console, a: &CallArgs<'_>| f(c, a).into());
        self.register_native(ns, name, min, max, usage, body, None);
    }

    /// Registers a global function that reads nothing of the console but its arguments and
    /// the word cache: called through [`Console::register_function`]'s path like any other,
    /// and in place by the fast loop (no stop at the call, no argument moved).
    pub(crate) fn register_pure(
        &mut self,
        name: &str,
        min: u32,
        max: u32,
        usage: &str,
        f: crate::bytecode::PureNative,
    ) {
        let body: Rc<NativeBody> =
            Rc::new(move |c: &mut Console, a: &CallArgs<'_>| f(&mut c.vm.words, a.argv));
        self.register_native(GLOBAL_NS, name, min, max, usage, body, Some(f));
    }

    #[allow(clippy::too_many_arguments, reason = "the parts of a `NativeFn`, named once here")]
    fn register_native(
        &mut self,
        ns: NsId,
        name: &str,
        min: u32,
        max: u32,
        usage: &str,
        body: Rc<NativeBody>,
        pure: Option<crate::bytecode::PureNative>,
    ) {
        let n = self.names.intern(name);
        let native = NativeFn { name: n, min, max, usage: Rc::from(usage), body, pure };
        let id = NativeId(self.natives.len() as u32);
        self.natives.push(Rc::new(native));
        self.ns.define(ns, n, None, Callable::Native(id));
    }

    // ---- entry points ----

    /// Parses, compiles and runs `src` as top-level code. Returns the value of a top-level `return`.
    pub fn eval(&mut self, src: &str) -> Result<Value, ConsoleError> {
        self.eval_named(src, "<eval>")
    }

    /// Like [`Console::eval`] with a file name for messages.
    pub fn eval_named(&mut self, src: &str, file: &str) -> Result<Value, ConsoleError> {
        let code = match compile_source(src, file, &mut self.names) {
            Ok(c) => c,
            Err(e) => {
                self.error(&e.to_string());
                return Err(ConsoleError::Syntax(e));
            }
        };
        if file != "<eval>" {
            self.debug_code_loaded(&code);
        }
        self.run_toplevel(code, None)
    }

    /// V12's `Con::evaluate`: runs a command string and returns its result text.
    pub fn evaluate(&mut self, src: &str) -> String {
        self.eval(src).map(|v| v.to_string()).unwrap_or_default()
    }

    /// Reads, parses and runs a script file (relative paths are resolved in the file root).
    pub fn exec_file(&mut self, path: &str) -> Result<Value, ConsoleError> {
        if let Some(source) = self.files.source.clone() {
            return self.exec_from_source(&*source, path);
        }
        let full = self
            .resolve_path(path)
            .ok_or_else(|| ConsoleError::File(format!("exec: path {path} is outside the script folder")))?;
        let bytes = std::fs::read(&full)
            .map_err(|e| ConsoleError::File(format!("exec: unable to read {path}: {e}")))?;
        let src = decode_source(&bytes);
        // The code is named by its path in the root (`./lib/u2.cs` run from `scripts/main.cs`
        // is `scripts/lib/u2.cs`), the name an editor's breakpoints use.
        let name = self.root_relative(&full).unwrap_or_else(|| path.to_string());
        self.files.executing.push(full.clone());
        let r = self.eval_profiled(&src, &name);
        self.files.executing.pop();
        r
    }

    /// [`Self::exec_file`] through the file source: `path` as given, else beside the file
    /// being executed.
    fn exec_from_source(
        &mut self,
        source: &dyn crate::files::FileSource,
        path: &str,
    ) -> Result<Value, ConsoleError> {
        let path = path.replace('\\', "/");
        let path = path.strip_prefix("./").unwrap_or(&path).to_string();
        let beside = self
            .files
            .executing
            .last()
            .and_then(|cur| cur.parent())
            .map(|dir| dir.join(&path).to_string_lossy().replace('\\', "/"))
            .filter(|p| source.is_file(p));
        let chosen = beside.filter(|_| !source.is_file(&path)).unwrap_or(path);
        let bytes = source.read(&chosen).map_err(|e| ConsoleError::File(format!("exec: {e}")))?;
        let src = decode_source(&bytes);
        self.files.executing.push(PathBuf::from(&chosen));
        let r = self.eval_profiled(&src, &chosen);
        self.files.executing.pop();
        r
    }

    /// [`Self::eval_named`] in a profiler zone named after the file.
    fn eval_profiled(&mut self, src: &str, file: &str) -> Result<Value, ConsoleError> {
        if !self.profiler.is_on() {
            return self.eval_named(src, file);
        }
        self.profiler.enter(crate::profiler::ZoneKey::File(Rc::from(file)));
        let r = self.eval_named(src, file);
        self.profiler.exit();
        r
    }

    /// Calls a global function by name (V12's `Con::executef`). Unknown names print an error.
    /// Calls script function `name` as a callback from the engine (a scheduled event, a
    /// network callback): with [`ConsoleConfig::callback_budget`] instructions at most, so a
    /// runaway callback cannot keep the frame from ending; one that is stopped gets an error
    /// line naming it. Inside a running script it is a plain call (the script's budget holds).
    pub fn call_callback(&mut self, name: &str, args: &[Value]) -> Value {
        self.run_callback(name, |c| c.call_function(name, args))
    }

    /// Runs `f` as an engine callback named `what` (see [`Self::call_callback`]).
    pub(crate) fn run_callback(&mut self, what: &str, f: impl FnOnce(&mut Console) -> Value) -> Value {
        if self.vm.run_depth > 0 {
            return f(self);
        }
        let full = self.config.instruction_budget;
        self.config.instruction_budget = self.config.callback_budget.min(full);
        let before = self.vm.aborts;
        let v = f(self);
        self.config.instruction_budget = full;
        if self.vm.aborts != before {
            self.error(&format!(
                "callback {what} stopped: it ran over the engine callback budget of {} instructions or hit an error that stops scripts",
                self.config.callback_budget
            ));
        }
        v
    }

    pub fn call_function(&mut self, name: &str, args: &[Value]) -> Value {
        let (ns, f) = match name.rfind("::") {
            Some(i) => (Some(&name[..i]), &name[i + 2..]),
            None => (None, name),
        };
        let fname = self.names.intern(f);
        let nsid = match ns {
            Some(n) => {
                let nn = self.names.intern(n);
                self.ns.named(nn)
            }
            None => GLOBAL_NS,
        };
        let Some(res) = self.ns.resolve(nsid, fname) else {
            let msg = format!("{name}: Unknown command.");
            self.warn(&msg);
            return Value::Empty;
        };
        self.invoke(res, None, args)
    }

    /// Calls a method on an object (V12's `Con::executef(object, ...)`).
    pub fn call_method(&mut self, object: &Value, method: &str, args: &[Value]) -> Value {
        let Some(id) = self.find_object(object) else {
            let msg = format!("Unable to find object: '{object}' attempting to call function '{method}'");
            self.warn(&msg);
            return Value::Empty;
        };
        let fname = self.names.intern(method);
        let ns = self.objects.get(id).map(|o| o.ns).unwrap_or(GLOBAL_NS);
        let Some(res) = self.ns.resolve(ns, fname) else {
            let cls = self.class_name_of(id);
            let msg = format!("{cls}::{method}: Unknown command.");
            self.warn(&msg);
            return Value::Empty;
        };
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(object.clone());
        all.extend_from_slice(args);
        self.invoke(res, Some(id), &all)
    }
    /// [`Self::call_method_if_exists`] as a callback from the engine (a connection's
    /// `onConnect`, `onDrop`, ...): under [`ConsoleConfig::callback_budget`], like
    /// [`Self::call_callback`].
    pub fn call_method_callback(&mut self, id: ObjectId, method: &str, args: &[Value]) -> Option<Value> {
        let mut out = None;
        self.run_callback(method, |c| {
            out = c.call_method_if_exists(id, method, args);
            Value::Empty
        });
        out
    }

    /// Calls `method` on the object if any definition exists, silently doing nothing otherwise
    /// (used for callbacks such as `onAdd`).
    pub fn call_method_if_exists(&mut self, id: ObjectId, method: &str, args: &[Value]) -> Option<Value> {
        let fname = self.names.intern(method);
        self.call_method_name_if_exists(id, fname, args)
    }

    /// [`Self::call_method_if_exists`] with the method's name interned beforehand
    /// ([`Self::intern`]), for callbacks a host makes every tick.
    pub fn call_method_name_if_exists(&mut self, id: ObjectId, fname: Name, args: &[Value]) -> Option<Value> {
        let ns = self.objects.get(id)?.ns;
        let res = self.ns.resolve(ns, fname)?;
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(Value::Int(i64::from(id)));
        all.extend_from_slice(args);
        Some(self.invoke(res, Some(id), &all))
    }

    /// Reads a text file as the scripts' file functions do: through the file source (the
    /// host's resource manager) when there is one, else from the file root; a path that
    /// climbs out is refused. Files over 64 MiB are refused. Latin-1 or UTF-8.
    pub fn read_file_text(&self, path: &str) -> Result<String, String> {
        const MAX: u64 = 64 << 20;
        let bytes = match &self.files.source {
            Some(src) => src.read(path)?,
            None => {
                let p = self.resolve_path(path).ok_or_else(|| format!("{path} is outside the mod folder"))?;
                let len = std::fs::metadata(&p).map_err(|e| format!("{path}: {e}"))?.len();
                if len > MAX {
                    return Err(format!("{path} is larger than 64 MiB"));
                }
                std::fs::read(&p).map_err(|e| format!("{path}: {e}"))?
            }
        };
        Ok(decode_source(&bytes))
    }

    /// `full` (a path [`Self::resolve_path`] made) relative to the file root, `/`-separated,
    /// with no `.` or `..` left.
    fn root_relative(&self, full: &std::path::Path) -> Option<String> {
        let root = self.files.root.clone().unwrap_or_else(|| PathBuf::from("."));
        let rel = full.strip_prefix(&root).ok()?;
        let mut parts: Vec<String> = Vec::new();
        for comp in rel.components() {
            match comp {
                std::path::Component::Normal(c) => parts.push(c.to_string_lossy().into_owned()),
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir => {
                    parts.pop()?;
                }
                _ => return None,
            }
        }
        (!parts.is_empty()).then(|| parts.join("/"))
    }

    /// Maps a path to a file inside the file root (or the current directory when there is none).
    /// `None` for absolute paths or paths that climb out of it.
    pub fn resolve_path(&self, path: &str) -> Option<PathBuf> {
        let p = std::path::Path::new(path);
        let mut rel = PathBuf::new();
        for comp in p.components() {
            match comp {
                std::path::Component::Normal(c) => rel.push(c),
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir => {
                    if !rel.pop() {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        let root = self.files.root.clone().unwrap_or_else(|| PathBuf::from("."));
        let direct = root.join(&rel);
        if direct.exists() {
            return Some(direct);
        }
        // Fall back to the folder of the file being executed (still inside the root).
        if let Some(cur) = self.files.executing.last()
            && let Some(dir) = cur.parent()
        {
            let cand = dir.join(&rel);
            if cand.exists() && cand.starts_with(&root) {
                return Some(cand);
            }
        }
        Some(direct)
    }
}

/// Source files may be UTF-8 or Latin-1 (old game files are the latter).
pub fn decode_source(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}
