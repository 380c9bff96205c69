//! The profiler (V12's `Profiler`, "a hierarchical time analysis toolkit"): named zones
//! entered and left in a stack make a tree; each node counts its calls and the time spent in
//! it. The host marks its main loop's phases, the network and rendering
//! ([`crate::Console::profiler_enter`]); the VM marks every script function and every Rust
//! function a script calls while the profiler is on. Off, a zone costs one flag test, and the
//! VM pays nothing more than its trace test (one flag covers both).
//!
//! Turning it on or off may happen inside zones (a script calls `profilerEnable`): a zone
//! left that was entered while it was off is ignored, so the tree stays consistent.

use crate::intern::{Interner, Name};
use std::fmt::Write as _;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// False in the measurement build (feature `profiler-off`): every zone test is a constant
/// `false` and compiles away, the baseline the shipped build's off cost is measured against.
const ZONES: bool = !cfg!(feature = "profiler-off");

/// Most nodes in the tree; deeper or wider calls past it are timed in no node.
pub const MAX_ZONES: usize = 65_536;

/// What a zone is: an engine phase, a script function, a Rust function called by a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ZoneKey {
    /// The tree's root (never entered).
    Root,
    /// A phase the host marks.
    Engine(&'static str),
    /// A script function, `Namespace::name` or `name`.
    Script(Option<Name>, Name),
    /// A Rust function a script called.
    Native(Name),
    /// A file's top-level code (an `exec`), by its name.
    File(Rc<str>),
}

#[derive(Debug)]
struct Node {
    key: ZoneKey,
    children: Vec<usize>,
    calls: u64,
    total: Duration,
}

/// The zone tree and the zones open now.
#[derive(Debug)]
pub struct Profiler {
    on: bool,
    nodes: Vec<Node>,
    /// Open zones: their node (`usize::MAX` past [`MAX_ZONES`]) and when they were entered.
    stack: Vec<(usize, Instant)>,
    /// Time profiled before `since` (the profiler was off in between).
    profiled: Duration,
    /// When the profiler was last turned on or reset, while it is on.
    since: Option<Instant>,
}

impl Default for Profiler {
    fn default() -> Self {
        Profiler {
            on: false,
            nodes: vec![Node { key: ZoneKey::Root, children: Vec::new(), calls: 0, total: Duration::ZERO }],
            stack: Vec::new(),
            profiled: Duration::ZERO,
            since: None,
        }
    }
}

impl Profiler {
    /// True while zones are timed.
    #[inline]
    pub fn is_on(&self) -> bool {
        ZONES && self.on
    }

    /// Turns timing on or off. Turning on again continues the tree; open zones are forgotten.
    pub fn set_on(&mut self, on: bool) {
        if on == self.on {
            return;
        }
        self.on = on;
        self.stack.clear();
        if on {
            self.since = Some(Instant::now());
        } else if let Some(t) = self.since.take() {
            self.profiled += t.elapsed();
        }
    }

    /// Forgets every figure (`profilerReset`); timing stays on or off.
    pub fn reset(&mut self) {
        let on = self.on;
        *self = Profiler::default();
        self.on = on;
        if on {
            self.since = Some(Instant::now());
        }
    }

    /// Enters zone `key` under the innermost open one (when on).
    pub(crate) fn enter(&mut self, key: ZoneKey) {
        if !self.is_on() {
            return;
        }
        let parent = match self.stack.last() {
            Some(&(p, _)) => p,
            None => 0,
        };
        let node = if parent == usize::MAX { usize::MAX } else { self.child(parent, key) };
        if let Some(n) = self.nodes.get_mut(node) {
            n.calls += 1;
        }
        self.stack.push((node, Instant::now()));
    }

    /// Leaves the innermost open zone; nothing when none is open (it was entered while off).
    pub(crate) fn exit(&mut self) {
        if let Some((node, t)) = self.stack.pop()
            && let Some(n) = self.nodes.get_mut(node)
        {
            n.total += t.elapsed();
        }
    }

    /// The child of `parent` for `key`, made when new (`usize::MAX` when the tree is full).
    fn child(&mut self, parent: usize, key: ZoneKey) -> usize {
        if let Some(&c) = self.nodes[parent].children.iter().find(|&&c| self.nodes[c].key == key) {
            return c;
        }
        if self.nodes.len() >= MAX_ZONES {
            return usize::MAX;
        }
        let id = self.nodes.len();
        self.nodes.push(Node { key, children: Vec::new(), calls: 0, total: Duration::ZERO });
        self.nodes[parent].children.push(id);
        id
    }

    /// The tree as text: a header with the time profiled, then one line per zone, children
    /// below their parent (largest first, indented): its share of the time profiled, its own
    /// share (less its children), its calls, its time and its own time in milliseconds. Zones
    /// still open count up to now.
    pub(crate) fn dump(&self, names: &Interner) -> String {
        let now = Instant::now();
        let mut totals: Vec<Duration> = self.nodes.iter().map(|n| n.total).collect();
        for &(node, t) in &self.stack {
            if let Some(d) = totals.get_mut(node) {
                *d += now.duration_since(t);
            }
        }
        let profiled = self.profiled + self.since.map_or(Duration::ZERO, |t| now.duration_since(t));
        let all = profiled.as_secs_f64().max(1e-9);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Profiler: {:.3} ms profiled ({})",
            profiled.as_secs_f64() * 1000.0,
            if self.on { "on" } else { "off" }
        );
        let _ = writeln!(out, "  total%    own%      calls    total ms      own ms  zone");
        // Depth-first, children by time.
        let mut todo: Vec<(usize, usize)> =
            self.sorted_children(0, &totals).into_iter().rev().map(|c| (c, 0)).collect();
        while let Some((id, depth)) = todo.pop() {
            let n = &self.nodes[id];
            let total = totals[id];
            let kids: Duration = n.children.iter().map(|&c| totals[c]).sum();
            let own = total.saturating_sub(kids);
            let _ = writeln!(
                out,
                "{:>8.2} {:>7.2} {:>10} {:>11.3} {:>11.3}  {}{}",
                total.as_secs_f64() / all * 100.0,
                own.as_secs_f64() / all * 100.0,
                n.calls,
                total.as_secs_f64() * 1000.0,
                own.as_secs_f64() * 1000.0,
                "  ".repeat(depth),
                zone_name(&n.key, names)
            );
            for c in self.sorted_children(id, &totals).into_iter().rev() {
                todo.push((c, depth + 1));
            }
        }
        if self.nodes.len() >= MAX_ZONES {
            let _ = writeln!(out, "(the tree is full: {MAX_ZONES} zones; later ones are not shown)");
        }
        out
    }

    fn sorted_children(&self, id: usize, totals: &[Duration]) -> Vec<usize> {
        let mut c = self.nodes[id].children.clone();
        c.sort_by(|&a, &b| totals[b].cmp(&totals[a]).then(a.cmp(&b)));
        c
    }

    /// The zones' names as paths from the root with their calls (`Frame/ServerProcess 12`),
    /// in tree order: what tests check, timing aside.
    pub(crate) fn calls(&self, names: &Interner) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        let mut todo: Vec<(usize, String)> =
            self.nodes[0].children.iter().rev().map(|&c| (c, String::new())).collect();
        while let Some((id, prefix)) = todo.pop() {
            let n = &self.nodes[id];
            let path = format!("{prefix}{}", zone_name(&n.key, names));
            out.push((path.clone(), n.calls));
            for &c in n.children.iter().rev() {
                todo.push((c, format!("{path}/")));
            }
        }
        out
    }
}

fn zone_name(key: &ZoneKey, names: &Interner) -> String {
    match key {
        ZoneKey::Root => String::from("(root)"),
        ZoneKey::Engine(s) => (*s).to_string(),
        ZoneKey::Script(Some(ns), n) => format!("{}::{}", names.text(*ns), names.text(*n)),
        ZoneKey::Script(None, n) => names.text(*n).to_string(),
        ZoneKey::Native(n) => format!("{} (engine)", names.text(*n)),
        ZoneKey::File(f) => format!("exec {f}"),
    }
}
