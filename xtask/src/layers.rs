//! The layer rule: a crate under `crates/` may depend (normal, build or dev, on any target)
//! only on the workspace crates that [`GRAPH`] allows it, directly or through them, and on the
//! [`FREE`] crates. The graph is the one in `docs/ARCHITECTURE.md` ("Layers").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Crate folder -> the crate folders it may use directly (and, through them, theirs).
/// Stacks meet only where an edge says so: the network stack (bitstream, notify-protocol,
/// netobject), the console, the renderer and the world meet in `sim`, `gui` and `game`.
pub const GRAPH: &[(&str, &[&str])] = &[
    ("platform", &[]),
    ("bitstream", &[]),
    ("console-vm", &[]),
    ("resource", &["platform"]),
    ("notify-protocol", &["bitstream"]),
    ("netobject", &["bitstream", "notify-protocol"]),
    ("master", &["netobject"]),
    ("sim", &["netobject", "console-vm", "platform"]),
    // Host services beside the simulation: the socket pump, the telnet console, TCPObject.
    ("services", &["netobject", "console-vm", "platform"]),
    ("lockstep", &["netobject"]),
    ("world", &["sim", "resource"]),
    ("render-gl", &["resource"]),
    ("render3d", &["world", "render-gl"]),
    ("gui", &["console-vm", "render-gl"]),
    ("audio", &["platform", "resource"]),
    // The World Editor: a GUI control over the world and its 3D drawing.
    ("editor", &["gui", "render3d", "world", "console-vm"]),
    (
        "game",
        &[
            "sim",
            "services",
            "lockstep",
            "world",
            "render3d",
            "gui",
            "render-gl",
            "resource",
            "master",
            "audio",
            "editor",
        ],
    ),
];

/// Edges allowed in `[dev-dependencies]` only: a crate's tests may use these (and what they may
/// use), its library may not. sim's tests drive it over sockets through the services' pump.
pub const DEV_EDGES: &[(&str, &[&str])] = &[("sim", &["services"])];

/// Leaf crates with no project dependencies of their own that any crate may use: the network
/// emulator (tests and the platform conditioner) and the derive for ghosted state.
pub const FREE: &[&str] = &["netsim", "derive"];

const DEP_TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// The crates `dir` may use: its edges, their edges, and so on, plus the free crates.
fn allowed(dir: &str) -> BTreeSet<&'static str> {
    allowed_from(dir, &[])
}

/// The crates `dir`'s tests may use: [`allowed`], plus its [`DEV_EDGES`] and what they may use.
fn dev_allowed(dir: &str) -> BTreeSet<&'static str> {
    let extra: Vec<&'static str> =
        DEV_EDGES.iter().filter(|(name, _)| *name == dir).flat_map(|(_, d)| d.iter().copied()).collect();
    allowed_from(dir, &extra)
}

/// [`FREE`], `extra` and everything reachable in [`GRAPH`] from `dir` and `extra`.
fn allowed_from(dir: &str, extra: &[&'static str]) -> BTreeSet<&'static str> {
    let mut seen: BTreeSet<&'static str> = FREE.iter().chain(extra).copied().collect();
    let mut todo: Vec<&str> = vec![dir];
    todo.extend(extra);
    while let Some(c) = todo.pop() {
        for (_, deps) in GRAPH.iter().filter(|(name, _)| *name == c) {
            for d in deps.iter() {
                if seen.insert(d) {
                    todo.push(d);
                }
            }
        }
    }
    seen
}

fn known(dir: &str) -> bool {
    FREE.contains(&dir) || GRAPH.iter().any(|(name, _)| *name == dir)
}

pub fn check(root: &Path) -> Result<(), String> {
    let crates = root.join("crates");
    let mut manifests = BTreeMap::new(); // dir name -> parsed manifest
    let entries = std::fs::read_dir(&crates).map_err(|e| format!("{}: {e}", crates.display()))?;
    for entry in entries {
        let dir = entry.map_err(|e| e.to_string())?.path();
        let man = dir.join("Cargo.toml");
        if !man.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&man).map_err(|e| format!("{}: {e}", man.display()))?;
        let table: toml::Table = text.parse().map_err(|e| format!("{}: {e}", man.display()))?;
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        manifests.insert(name, table);
    }
    let breaches = breaches(&manifests);
    for b in &breaches {
        println!("{b}");
    }
    println!("layers: {} crates, {} breaches", manifests.len(), breaches.len());
    if breaches.is_empty() { Ok(()) } else { Err(format!("{} breaches of the layer rule", breaches.len())) }
}

/// Every breach of the rule, one line each, given the manifests by crate folder name.
fn breaches(manifests: &BTreeMap<String, toml::Table>) -> Vec<String> {
    let package_dir: BTreeMap<&str, &str> = manifests
        .iter()
        .filter_map(|(dir, m)| Some((m.get("package")?.get("name")?.as_str()?, dir.as_str())))
        .collect();
    let mut bad = Vec::new();
    for (dir, manifest) in manifests {
        if !known(dir) {
            bad.push(format!("crates/{dir}: not in the layer graph (xtask/src/layers.rs, GRAPH or FREE)"));
            continue;
        }
        let (allowed, dev_allowed) = (allowed(dir), dev_allowed(dir));
        // (table, whether it is a dev-dependencies table)
        let mut tables: Vec<(&toml::Value, bool)> =
            DEP_TABLES.iter().filter_map(|k| Some((manifest.get(*k)?, *k == "dev-dependencies"))).collect();
        if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
            for t in targets.values() {
                tables.extend(DEP_TABLES.iter().filter_map(|k| Some((t.get(*k)?, *k == "dev-dependencies"))));
            }
        }
        for (table, dev) in tables.iter().filter_map(|(t, dev)| Some((t.as_table()?, *dev))) {
            let allowed = if dev { &dev_allowed } else { &allowed };
            for (key, spec) in table {
                let pkg = spec.get("package").and_then(|p| p.as_str()).unwrap_or(key);
                let Some(other) = package_dir.get(pkg) else { continue };
                if !allowed.contains(other) {
                    bad.push(format!(
                        "crates/{dir} depends on crates/{other}, which the layer graph does not allow"
                    ));
                }
            }
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(name: &str, deps: &str) -> toml::Table {
        format!("[package]\nname = \"v12-{name}\"\n{deps}").parse().unwrap()
    }

    #[test]
    fn allowed_edges_pass_through_the_graph_and_others_fail() {
        let mut m = BTreeMap::new();
        m.insert("bitstream".into(), manifest("bitstream", ""));
        m.insert("notify-protocol".into(), manifest("notify-protocol", "[dependencies]\nv12-bitstream = {}"));
        // sim -> bitstream is allowed through netobject -> notify-protocol -> bitstream.
        m.insert("sim".into(), manifest("sim", "[dependencies]\nv12-bitstream = {}"));
        m.insert("netsim".into(), manifest("netsim", ""));
        m.insert("platform".into(), manifest("platform", "[dependencies]\nv12-netsim = {}"));
        assert!(breaches(&m).is_empty(), "{:?}", breaches(&m));
        m.insert(
            "bitstream".into(),
            manifest("bitstream", "[target.'cfg(unix)'.dev-dependencies]\nv12-platform = {}"),
        );
        assert_eq!(
            breaches(&m),
            ["crates/bitstream depends on crates/platform, which the layer graph does not allow"]
        );
    }

    #[test]
    fn renamed_and_unknown_crates_are_caught() {
        let mut m = BTreeMap::new();
        m.insert(
            "console-vm".into(),
            manifest("console-vm", "[dependencies]\nbits = { package = \"v12-bitstream\" }"),
        );
        m.insert("bitstream".into(), manifest("bitstream", ""));
        m.insert("extra".into(), manifest("extra", ""));
        let b = breaches(&m);
        assert_eq!(b.len(), 2, "{b:?}");
    }

    #[test]
    fn a_dev_edge_admits_tests_only() {
        let mut m = BTreeMap::new();
        m.insert("services".into(), manifest("services", ""));
        m.insert("sim".into(), manifest("sim", "[dev-dependencies]\nv12-services = {}"));
        assert!(breaches(&m).is_empty(), "{:?}", breaches(&m));
        m.insert("sim".into(), manifest("sim", "[dependencies]\nv12-services = {}"));
        assert_eq!(
            breaches(&m),
            ["crates/sim depends on crates/services, which the layer graph does not allow"]
        );
    }

    #[test]
    fn the_free_crates_depend_on_no_project_crate() {
        for free in FREE {
            assert!(!GRAPH.iter().any(|(name, _)| name == free), "{free} is both free and layered");
        }
    }
}
