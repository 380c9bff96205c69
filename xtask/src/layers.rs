//! The layer rule: a crate under `crates/` may depend (normal, build or dev, on any target)
//! only on workspace crates that stand before it in [`LAYERS`]. Same rule as
//! `../shared/tools/check-layers`.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, bottom up.
pub const LAYERS: [&str; 9] = [
    "netsim",
    "platform",
    "bitstream",
    "notify-protocol",
    "netobject",
    "console-vm",
    "sim",
    "render-gl",
    "gui",
];

const DEP_TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

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
    let missing: Vec<_> = LAYERS.iter().filter(|l| !manifests.contains_key(**l)).collect();
    print!("layers: {} crates, {} breaches", manifests.len(), breaches.len());
    if missing.is_empty() {
        println!();
    } else {
        println!(", missing {missing:?}");
    }
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
        let Some(me) = LAYERS.iter().position(|l| l == dir) else {
            bad.push(format!("crates/{dir}: not one of the layers {LAYERS:?}"));
            continue;
        };
        let mut tables: Vec<&toml::Value> = DEP_TABLES.iter().filter_map(|k| manifest.get(*k)).collect();
        if let Some(targets) = manifest.get("target").and_then(|t| t.as_table()) {
            for t in targets.values() {
                tables.extend(DEP_TABLES.iter().filter_map(|k| t.get(*k)));
            }
        }
        for table in tables.iter().filter_map(|t| t.as_table()) {
            for (key, spec) in table {
                let pkg = spec.get("package").and_then(|p| p.as_str()).unwrap_or(key);
                let Some(other) = package_dir.get(pkg) else { continue };
                match LAYERS.iter().position(|l| l == other) {
                    Some(them) if them < me => {}
                    _ => bad.push(format!("crates/{dir} depends on crates/{other}, which is not below it")),
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
    fn downward_dependencies_pass_and_upward_ones_fail() {
        let mut m = BTreeMap::new();
        m.insert("platform".into(), manifest("platform", ""));
        m.insert("bitstream".into(), manifest("bitstream", "[dependencies]\nv12-platform = {}"));
        assert!(breaches(&m).is_empty());
        m.insert(
            "platform".into(),
            manifest("platform", "[target.'cfg(unix)'.dev-dependencies]\nv12-bitstream = {}"),
        );
        assert_eq!(breaches(&m), ["crates/platform depends on crates/bitstream, which is not below it"]);
    }

    #[test]
    fn renamed_and_unknown_crates_are_caught() {
        let mut m = BTreeMap::new();
        m.insert(
            "platform".into(),
            manifest("platform", "[dependencies]\nbits = { package = \"v12-bitstream\" }"),
        );
        m.insert("bitstream".into(), manifest("bitstream", ""));
        m.insert("extra".into(), manifest("extra", ""));
        let b = breaches(&m);
        assert_eq!(b.len(), 2, "{b:?}");
    }
}
