//! Import circles inside a crate: module A names module B (`use crate::b::..`,
//! `crate::b::x(..)`, `super::..`) while B, directly or through others, names A. A circle means
//! neither module can be read, tested or moved without the other; the house has none, and the
//! tidy test keeps it so.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside a crate: `["vm", "ops"]` for `src/vm/ops.rs` or `src/vm/ops/mod.rs`.
type ModPath = Vec<String>;

/// The module a source file defines, from its path under `src/` (`lib.rs`, `main.rs` and
/// `bin/` files are roots, which nothing can import, so they are left out).
fn module_of(src: &Path, file: &Path) -> Option<ModPath> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    match stem {
        "lib" | "main" if parts.is_empty() => None,
        "mod" => Some(parts),
        _ => {
            parts.push(stem.to_string());
            Some(parts)
        }
    }
}

/// Every `crate::a::b` path named in `code` (after `crate::`, as far as it is made of
/// lower-case segments), with `use crate::{a, b::c}` groups spread out; `super::x` resolved
/// against `here`.
fn named_paths(code: &str, here: &ModPath) -> Vec<ModPath> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `$crate::` or `v12_crate::`
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                out.push(segments(item.trim()));
            }
        } else {
            out.push(segments(rest));
        }
    }
    for (i, _) in code.match_indices("super::") {
        if code[..i].ends_with("::") {
            continue; // counted with the first `super::`
        }
        let mut base = here.clone();
        let mut rest = &code[i..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        base.extend(segments(rest));
        out.push(base);
    }
    out
}

/// The leading lower-case path segments of `text` (`a::b::Type` gives `[a, b]`).
fn segments(text: &str) -> ModPath {
    let mut out = Vec::new();
    for seg in text.split("::") {
        let seg: String = seg.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if seg.is_empty() || !seg.starts_with(|c: char| c.is_ascii_lowercase()) || seg == "self" {
            break;
        }
        out.push(seg);
    }
    out
}

/// The import graph of one crate's `src/`: module → the modules it names.
fn graph(
    src: &Path,
    files: &[PathBuf],
    code_of: impl Fn(&Path) -> String,
) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let modules: BTreeSet<ModPath> = files.iter().filter_map(|f| module_of(src, f)).collect();
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for file in files {
        let Some(here) = module_of(src, file) else { continue };
        let targets = edges.entry(here.clone()).or_default();
        for path in named_paths(&code_of(file), &here) {
            // The longest module the path starts with; a module's own items and its
            // ancestors (which declare it) are not imports of another room.
            let target = (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p));
            if let Some(t) = target
                && t != here
                && !here.starts_with(&t)
            {
                targets.insert(t);
            }
        }
    }
    edges
}

/// The circles of a graph: its strongly connected parts of more than one module.
fn circles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    let reach = |from: &ModPath| -> BTreeSet<ModPath> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for n in edges.get(&m).into_iter().flatten() {
                if seen.insert(n.clone()) {
                    todo.push(n.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&ModPath, BTreeSet<ModPath>> = edges.keys().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for (m, r) in &reaches {
        if done.contains(*m) || !r.contains(*m) {
            continue;
        }
        let part: Vec<ModPath> =
            r.iter().filter(|n| reaches.get(n).is_some_and(|rn| rn.contains(*m))).cloned().collect();
        done.extend(part.iter().cloned());
        out.push(part);
    }
    out
}

/// The circles of every crate below `crates/` (and `examples/`), each written as
/// `crate: a -> b -> ...`.
pub fn check(root: &Path, code_of: impl Fn(&Path) -> String + Copy) -> Vec<String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.push(root.join("examples"));
    dirs.sort();
    let mut bad = Vec::new();
    for dir in dirs {
        let src = dir.join("src");
        let files = crate::files::rust_files(&src);
        for part in circles(&graph(&src, &files, code_of)) {
            let names: Vec<String> = part.iter().map(|m| m.join("::")).collect();
            bad.push(format!(
                "{}: {}",
                dir.file_name().unwrap_or_default().to_string_lossy(),
                names.join(", ")
            ));
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_spread_groups_and_resolve_super() {
        let here = vec!["vm".to_string(), "ops".to_string()];
        let got = named_paths("use crate::{ast::*, intern::Name};\nuse super::super::value::Value;", &here);
        let want: Vec<ModPath> = vec![vec!["ast".into()], vec!["intern".into()], vec!["value".into()]];
        assert_eq!(got, want);
    }

    #[test]
    fn a_two_module_loop_is_a_circle_and_a_chain_is_not() {
        let m = |s: &str| vec![s.to_string()];
        let mut edges = BTreeMap::new();
        edges.insert(m("a"), BTreeSet::from([m("b")]));
        edges.insert(m("b"), BTreeSet::from([m("c")]));
        edges.insert(m("c"), BTreeSet::new());
        assert!(circles(&edges).is_empty());
        edges.insert(m("c"), BTreeSet::from([m("a")]));
        assert_eq!(circles(&edges), vec![vec![m("a"), m("b"), m("c")]]);
    }
}
