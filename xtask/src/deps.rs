//! `cargo xtask deps`: the dependency policy of `deny.toml` checked from `cargo metadata`,
//! offline, so CI enforces it on a machine without cargo-deny: every licence is on the
//! allow list, every package comes from crates.io (or the workspace), no crate is in the
//! tree twice unless `[bans] skip` names it with a reason, and no manifest asks for a
//! wildcard version. (`cargo deny check` does the same and the RustSec advisories, which need
//! the network.)

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

const CRATES_IO: &str = "registry+https://github.com/rust-lang/crates.io-index";

/// The parts of `deny.toml` this check enforces.
#[derive(Debug, Default)]
struct Policy {
    licences: BTreeSet<String>,
    /// `crate@version-prefix` entries of `[bans] skip`.
    skip: Vec<(String, String)>,
    /// The platforms of `[graph] targets`.
    targets: Vec<String>,
}

fn policy(root: &Path) -> Result<Policy, String> {
    let path = root.join("deny.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let t: toml::Table = text.parse().map_err(|e| format!("{}: {e}", path.display()))?;
    let strings = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect())
            .unwrap_or_default()
    };
    let licences = strings(t.get("licenses").and_then(|l| l.get("allow"))).into_iter().collect();
    let targets = strings(t.get("graph").and_then(|g| g.get("targets")));
    let skip = t
        .get("bans")
        .and_then(|b| b.get("skip"))
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|e| e.get("crate").and_then(|c| c.as_str()))
                .map(|c| match c.split_once('@') {
                    Some((n, v)) => (n.to_string(), v.to_string()),
                    None => (c.to_string(), String::new()),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Policy { licences, skip, targets })
}

/// True when the SPDX expression is satisfied by the allowed licences: `OR` needs one side,
/// `AND` both, parentheses group; `A WITH B` is one licence; `/` is the old spelling of OR.
pub fn licence_ok(expr: &str, allowed: &BTreeSet<String>) -> bool {
    let spaced = expr.replace('(', " ( ").replace(')', " ) ").replace('/', " OR ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut pos = 0;
    let ok = or_expr(&tokens, &mut pos, allowed);
    ok == Some(true) && pos == tokens.len()
}

fn or_expr(t: &[&str], pos: &mut usize, allowed: &BTreeSet<String>) -> Option<bool> {
    let mut v = and_expr(t, pos, allowed)?;
    while t.get(*pos) == Some(&"OR") {
        *pos += 1;
        v |= and_expr(t, pos, allowed)?;
    }
    Some(v)
}

fn and_expr(t: &[&str], pos: &mut usize, allowed: &BTreeSet<String>) -> Option<bool> {
    let mut v = atom(t, pos, allowed)?;
    while t.get(*pos) == Some(&"AND") {
        *pos += 1;
        v &= atom(t, pos, allowed)?;
    }
    Some(v)
}

fn atom(t: &[&str], pos: &mut usize, allowed: &BTreeSet<String>) -> Option<bool> {
    let tok = *t.get(*pos)?;
    *pos += 1;
    if tok == "(" {
        let v = or_expr(t, pos, allowed)?;
        (t.get(*pos) == Some(&")")).then_some(())?;
        *pos += 1;
        return Some(v);
    }
    let mut id = tok.to_string();
    if t.get(*pos) == Some(&"WITH") {
        id = format!("{id} WITH {}", t.get(*pos + 1)?);
        *pos += 2;
    }
    Some(allowed.contains(&id))
}

fn metadata(root: &Path, target: &str) -> Result<Value, String> {
    let out = Command::new(crate::cargo())
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--all-features",
            "--filter-platform",
            target,
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata output: {e}"))
}

/// Every breach of the policy in the resolved trees of `trees` (one per target platform).
fn breaches(policy: &Policy, trees: &[Value]) -> Vec<String> {
    let mut bad = BTreeSet::new();
    // name -> versions in any tree
    let mut versions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for meta in trees {
        let members: BTreeSet<&str> = meta["workspace_members"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let resolved: BTreeSet<&str> = meta["resolve"]["nodes"]
            .as_array()
            .map(|a| a.iter().filter_map(|n| n["id"].as_str()).collect())
            .unwrap_or_default();
        for p in meta["packages"].as_array().into_iter().flatten() {
            let id = p["id"].as_str().unwrap_or_default();
            let name = p["name"].as_str().unwrap_or_default();
            let version = p["version"].as_str().unwrap_or_default();
            if members.contains(id) {
                for d in p["dependencies"].as_array().into_iter().flatten() {
                    if d["req"].as_str() == Some("*") && d["path"].is_null() {
                        bad.insert(format!("{name}: wildcard version for {}", d["name"]));
                    }
                }
                continue;
            }
            if !resolved.contains(id) {
                continue;
            }
            match p["source"].as_str() {
                Some(CRATES_IO) | None => {}
                Some(other) => {
                    bad.insert(format!("{name} {version}: from {other}, not crates.io"));
                }
            }
            match p["license"].as_str() {
                Some(l) if licence_ok(l, &policy.licences) => {}
                Some(l) => {
                    bad.insert(format!("{name} {version}: licence {l:?} is not allowed by deny.toml"));
                }
                None => {
                    bad.insert(format!("{name} {version}: no SPDX licence expression"));
                }
            }
            versions.entry(name.to_string()).or_default().insert(version.to_string());
        }
    }
    for (name, vs) in &versions {
        if vs.len() < 2 {
            continue;
        }
        let skipped =
            |v: &String| policy.skip.iter().any(|(n, pre)| n == name && v.starts_with(pre.as_str()));
        let left: Vec<&String> = vs.iter().filter(|v| !skipped(v)).collect();
        if left.len() > 1 {
            bad.insert(format!(
                "{name}: {} versions in the tree ({}); one, or a [bans] skip entry with a reason",
                vs.len(),
                vs.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    bad.into_iter().collect()
}

pub fn check(root: &Path) -> Result<(), String> {
    let policy = policy(root)?;
    let targets = if policy.targets.is_empty() {
        vec!["x86_64-unknown-linux-gnu".into()]
    } else {
        policy.targets.clone()
    };
    let trees = targets.iter().map(|t| metadata(root, t)).collect::<Result<Vec<_>, _>>()?;
    let packages: BTreeSet<&str> = trees
        .iter()
        .flat_map(|m| m["resolve"]["nodes"].as_array().into_iter().flatten())
        .filter_map(|n| n["id"].as_str())
        .collect();
    let bad = breaches(&policy, &trees);
    for b in &bad {
        println!("{b}");
    }
    println!(
        "deps: {} packages on {} target(s), {} licences allowed, {} breaches",
        packages.len(),
        targets.len(),
        policy.licences.len(),
        bad.len()
    );
    if bad.is_empty() { Ok(()) } else { Err(format!("{} breaches of deny.toml", bad.len())) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed() -> BTreeSet<String> {
        ["MIT", "Apache-2.0", "Apache-2.0 WITH LLVM-exception"].iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn spdx_expressions_follow_or_and_with_and_parentheses() {
        let a = allowed();
        assert!(licence_ok("MIT", &a));
        assert!(licence_ok("MIT OR GPL-3.0", &a));
        assert!(licence_ok("MIT/Apache-2.0", &a));
        assert!(licence_ok("Apache-2.0 WITH LLVM-exception OR MIT", &a));
        assert!(licence_ok("(MIT OR Apache-2.0) AND Apache-2.0", &a));
        assert!(!licence_ok("GPL-3.0", &a));
        assert!(!licence_ok("MIT AND GPL-3.0", &a));
        assert!(!licence_ok("GPL-2.0 WITH LLVM-exception", &a));
        assert!(!licence_ok("(MIT", &a));
        assert!(!licence_ok("", &a));
    }

    fn tree(packages: Value) -> Value {
        let ids: Vec<Value> =
            packages.as_array().unwrap().iter().map(|p| serde_json::json!({"id": p["id"]})).collect();
        serde_json::json!({"workspace_members": ["ws"], "packages": packages, "resolve": {"nodes": ids}})
    }

    #[test]
    fn foreign_sources_bad_licences_and_duplicates_are_breaches() {
        let p = |id: &str, name: &str, v: &str, lic: &str, src: &str| serde_json::json!({"id": id, "name": name, "version": v, "license": lic, "source": src, "dependencies": []});
        let policy =
            Policy { licences: allowed(), skip: vec![("dup".into(), "0.1".into())], targets: vec![] };
        let good = tree(serde_json::json!([p("a", "a", "1.0.0", "MIT", CRATES_IO)]));
        assert!(breaches(&policy, &[good]).is_empty());
        let bad = tree(serde_json::json!([
            p("b", "b", "1.0.0", "GPL-3.0", CRATES_IO),
            p("c", "c", "1.0.0", "MIT", "git+https://example.com/c"),
            p("d1", "d", "1.0.0", "MIT", CRATES_IO),
            p("d2", "d", "2.0.0", "MIT", CRATES_IO),
            p("e1", "dup", "0.1.3", "MIT", CRATES_IO),
            p("e2", "dup", "1.2.0", "MIT", CRATES_IO),
        ]));
        let b = breaches(&policy, &[bad]);
        assert_eq!(b.len(), 3, "{b:?}");
        assert!(b.iter().any(|l| l.starts_with("b 1.0.0: licence")));
        assert!(b.iter().any(|l| l.starts_with("c 1.0.0: from git")));
        assert!(b.iter().any(|l| l.starts_with("d: 2 versions")));
    }
}
