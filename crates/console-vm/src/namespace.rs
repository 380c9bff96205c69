//! Namespaces, functions and packages (V12: `Namespace`, `Con::linkNamespaces`,
//! `activatePackage`): where a call finds its function.
//!
//! A namespace holds functions by name; each name is a stack of layers, the plain definition
//! at the bottom and one layer per active package above it. Namespaces link to a parent, so a
//! method not found in an object's namespace is looked up in its class's, and so on up.

use crate::bytecode::{Callable, FuncDef, GLOBAL_NS, NsId, Resolved};
use crate::intern::Name;
use hashbrown::HashMap;
use std::rc::Rc;

/// Most steps a lookup walks up a namespace chain (links refuse cycles; this is a backstop).
const MAX_CHAIN: usize = 10_000;

/// One definition of a function in a namespace; packages stack layers.
#[derive(Clone, Debug)]
struct Layer {
    package: Option<Name>,
    callable: Callable,
}

#[derive(Debug)]
struct Namespace {
    name: Name,
    parent: Option<NsId>,
    funcs: HashMap<Name, Vec<Layer>>,
}

/// Every namespace with its functions, the declared packages and which are active.
#[derive(Debug)]
pub(crate) struct Namespaces {
    list: Vec<Namespace>,
    by_name: HashMap<Name, NsId>,
    cache: HashMap<(NsId, Name), Option<Resolved>>,
    /// Bumped whenever any lookup could change (a definition, a package (de)activation, a
    /// namespace link); call-site caches older than this are stale.
    generation: u64,
    /// Each package's functions, as declared (active or not).
    packages: HashMap<Name, Vec<Rc<FuncDef>>>,
    /// Active packages, oldest first.
    active: Vec<Name>,
}

impl Namespaces {
    /// The table with the global namespace, named `global` (the empty name).
    pub(crate) fn new(global: Name) -> Self {
        let mut by_name = HashMap::new();
        by_name.insert(global, GLOBAL_NS);
        Namespaces {
            list: vec![Namespace { name: global, parent: None, funcs: HashMap::new() }],
            by_name,
            cache: HashMap::new(),
            generation: 1,
            packages: HashMap::new(),
            active: Vec::new(),
        }
    }

    /// How many namespaces exist.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// The lookup generation (see the field).
    #[inline]
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    fn changed(&mut self) {
        self.cache.clear();
        self.generation += 1;
    }

    /// The namespace called `name`, created on first use.
    pub(crate) fn named(&mut self, name: Name) -> NsId {
        if let Some(&id) = self.by_name.get(&name) {
            return id;
        }
        let id = self.list.len() as NsId;
        self.list.push(Namespace { name, parent: None, funcs: HashMap::new() });
        self.by_name.insert(name, id);
        id
    }

    /// The namespace called `name`, if it exists.
    pub(crate) fn find(&self, name: Name) -> Option<NsId> {
        self.by_name.get(&name).copied()
    }

    /// The namespace's name.
    pub(crate) fn name_of(&self, ns: NsId) -> Option<Name> {
        self.list.get(ns as usize).map(|n| n.name)
    }

    /// The namespace's parent.
    pub(crate) fn parent_of(&self, ns: NsId) -> Option<NsId> {
        self.list.get(ns as usize).and_then(|n| n.parent)
    }

    /// Links `child` under `parent`. Refuses links that would make a cycle.
    pub(crate) fn link(&mut self, parent: NsId, child: NsId) -> bool {
        if parent == child {
            return false;
        }
        let mut walk = Some(parent);
        let mut steps = 0;
        while let Some(w) = walk {
            if w == child || steps > MAX_CHAIN {
                return false;
            }
            walk = self.list[w as usize].parent;
            steps += 1;
        }
        if self.list[child as usize].parent != Some(parent) {
            self.list[child as usize].parent = Some(parent);
            self.changed();
        }
        true
    }

    /// Defines `fname` in `ns`: the plain definition, or `package`'s layer.
    pub(crate) fn define(&mut self, ns: NsId, fname: Name, package: Option<Name>, callable: Callable) {
        let layers = self.list[ns as usize].funcs.entry(fname).or_default();
        match package {
            None => {
                // A plain definition replaces the base layer; active packages stay on top.
                if let Some(first) = layers.first_mut()
                    && first.package.is_none()
                {
                    first.callable = callable;
                } else {
                    layers.insert(0, Layer { package: None, callable });
                }
            }
            Some(p) => {
                if let Some(l) = layers.iter_mut().find(|l| l.package == Some(p)) {
                    l.callable = callable;
                } else {
                    layers.push(Layer { package: Some(p), callable });
                }
            }
        }
        self.changed();
    }

    /// Looks `fname` up along the namespace chain starting at `ns`.
    pub(crate) fn resolve(&mut self, ns: NsId, fname: Name) -> Option<Resolved> {
        if let Some(r) = self.cache.get(&(ns, fname)) {
            return r.clone();
        }
        let r = self.resolve_from(Some(ns), fname);
        self.cache.insert((ns, fname), r.clone());
        r
    }

    fn resolve_from(&self, mut ns: Option<NsId>, fname: Name) -> Option<Resolved> {
        let mut steps = 0;
        while let Some(n) = ns {
            let space = &self.list[n as usize];
            if let Some(layers) = space.funcs.get(&fname)
                && let Some(top) = layers.last()
            {
                return Some(Resolved {
                    callable: top.callable.clone(),
                    ns: n,
                    layer: layers.len() as u32 - 1,
                });
            }
            ns = space.parent;
            steps += 1;
            if steps > MAX_CHAIN {
                return None;
            }
        }
        None
    }

    /// `Parent::fname` from a function at (`ns`, `layer`): the layer below, else up the chain.
    pub(crate) fn resolve_parent(&self, ns: NsId, layer: u32, fname: Name) -> Option<Resolved> {
        let space = self.list.get(ns as usize)?;
        if layer > 0
            && let Some(layers) = space.funcs.get(&fname)
            && let Some(l) = layers.get(layer as usize - 1)
        {
            return Some(Resolved { callable: l.callable.clone(), ns, layer: layer - 1 });
        }
        self.resolve_from(space.parent, fname)
    }

    /// Every function name visible from `ns` up its chain, each once (the first spelling).
    pub(crate) fn names_visible_from(&self, ns: NsId) -> Vec<Name> {
        let mut out: Vec<Name> = Vec::new();
        let mut at = Some(ns);
        let mut steps = 0;
        while let Some(n) = at {
            let Some(space) = self.list.get(n as usize) else { break };
            for (fname, layers) in &space.funcs {
                if !layers.is_empty() && !out.contains(fname) {
                    out.push(*fname);
                }
            }
            at = space.parent;
            steps += 1;
            if steps > MAX_CHAIN {
                break;
            }
        }
        out
    }

    /// True if the global namespace itself defines `fname` (no chain to walk).
    pub(crate) fn is_global_function(&self, fname: Name) -> bool {
        self.list[GLOBAL_NS as usize].funcs.get(&fname).is_some_and(|l| !l.is_empty())
    }

    fn namespace_of(&mut self, f: &FuncDef) -> NsId {
        match f.ns {
            Some(n) => self.named(n),
            None => GLOBAL_NS,
        }
    }

    /// Installs a compiled script function (from a `Declare` instruction): in its package
    /// (live at once when the package is active), else as the plain definition.
    pub(crate) fn declare(&mut self, f: Rc<FuncDef>) {
        let Some(p) = f.package else {
            let ns = self.namespace_of(&f);
            self.define(ns, f.name, None, Callable::Script(f));
            return;
        };
        let list = self.packages.entry(p).or_default();
        if let Some(slot) = list.iter_mut().find(|g| g.name == f.name && g.ns == f.ns) {
            *slot = f.clone();
        } else {
            list.push(f.clone());
        }
        if self.active.contains(&p) {
            let ns = self.namespace_of(&f);
            self.define(ns, f.name, Some(p), Callable::Script(f));
        }
    }

    /// `activatePackage`: the package's functions override the current ones. False when no
    /// package of that name was declared.
    pub(crate) fn activate(&mut self, p: Name) -> bool {
        if self.active.contains(&p) {
            return true;
        }
        let Some(funcs) = self.packages.get(&p).cloned() else { return false };
        for f in funcs {
            let ns = self.namespace_of(&f);
            self.define(ns, f.name, Some(p), Callable::Script(f));
        }
        self.active.push(p);
        true
    }

    /// `deactivatePackage` with V12 semantics: the package and every package activated after
    /// it. False when it is not active.
    pub(crate) fn deactivate(&mut self, p: Name) -> bool {
        let Some(pos) = self.active.iter().position(|&x| x == p) else {
            return false;
        };
        let removed: Vec<Name> = self.active.drain(pos..).collect();
        for ns in &mut self.list {
            for layers in ns.funcs.values_mut() {
                layers.retain(|l| l.package.is_none_or(|pk| !removed.contains(&pk)));
            }
        }
        self.changed();
        true
    }

    /// True if a package with this name was declared.
    pub(crate) fn is_package(&self, p: Name) -> bool {
        self.packages.contains_key(&p)
    }
}
