//! `cargo xtask manifests`: the Kubernetes manifests in `deploy/` checked against the schemas
//! kept in `deploy/schemas/` (no cluster and no network: `kubectl apply --dry-run=server`
//! needs both). What the schemas cover, and what only a cluster checks, is in
//! `deploy/schemas/README.md`.

use serde_json::{Map, Value};
use std::path::Path;
use yaml_rust2::{Yaml, YamlLoader};

/// The schema bundles: each maps `apiVersion/kind` to a definition in its `$defs`.
const BUNDLES: [&str; 2] = ["deploy/schemas/kubernetes.json", "deploy/schemas/agones.json"];

/// Checks every `deploy/*.yaml`; the error lists each document's problems.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let schemas = Schemas::load(root)?;
    let mut files: Vec<_> = std::fs::read_dir(root.join("deploy"))
        .map_err(|e| format!("deploy/: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err("no manifests in deploy/".into());
    }
    let mut bad = Vec::new();
    for file in &files {
        let name = file.strip_prefix(root).unwrap_or(file).display().to_string();
        let text = std::fs::read_to_string(file).map_err(|e| format!("{name}: {e}"))?;
        match documents(&text) {
            Ok(docs) => {
                for (i, doc) in docs.iter().enumerate() {
                    bad.extend(
                        schemas.check(doc).into_iter().map(|e| format!("{name} (document {}): {e}", i + 1)),
                    );
                }
                println!("{name}: {} document(s)", docs.len());
            }
            Err(e) => bad.push(format!("{name}: {e}")),
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("manifests do not match their schemas:\n{}", bad.join("\n")))
    }
}

/// The vendored schema bundles.
pub(crate) struct Schemas {
    bundles: Vec<Value>,
}

impl Schemas {
    pub(crate) fn load(root: &Path) -> Result<Self, String> {
        let mut bundles = Vec::new();
        for b in BUNDLES {
            let text = std::fs::read_to_string(root.join(b)).map_err(|e| format!("{b}: {e}"))?;
            bundles.push(serde_json::from_str(&text).map_err(|e| format!("{b}: {e}"))?);
        }
        Ok(Self { bundles })
    }

    /// A validator for the definition `key` names in one of the bundles.
    fn validator(&self, key: &str) -> Result<jsonschema::Validator, String> {
        for b in &self.bundles {
            if let Some(Value::String(r)) = b.get("kinds").and_then(|k| k.get(key)) {
                let mut schema = b.clone();
                schema["$ref"] = Value::String(r.clone());
                return jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .build(&schema)
                    .map_err(|e| format!("the schema for {key}: {e}"));
            }
        }
        Err(format!("no schema for {key} (add it to deploy/schemas/vendor.py and rerun it)"))
    }

    /// The problems of one document (empty: it matches).
    pub(crate) fn check(&self, doc: &Value) -> Vec<String> {
        let (Some(api), Some(kind)) =
            (doc.get("apiVersion").and_then(Value::as_str), doc.get("kind").and_then(Value::as_str))
        else {
            return vec!["no apiVersion or kind".into()];
        };
        let mut out = Vec::new();
        let mut against = |key: &str, value: &Value| match self.validator(key) {
            Ok(v) => {
                out.extend(v.iter_errors(value).map(|e| format!("{kind}: {} at {}", e, e.instance_path())))
            }
            Err(e) => out.push(e),
        };
        against(&format!("{api}/{kind}"), doc);
        // The custom resources' schemas leave the top-level metadata to the API server.
        if let Some(meta) = doc.get("metadata") {
            against("ObjectMeta", meta);
        }
        out
    }
}

/// The documents of a YAML stream, as JSON values.
pub(crate) fn documents(text: &str) -> Result<Vec<Value>, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    docs.iter().filter(|d| !d.is_null()).map(to_json).collect()
}

fn to_json(y: &Yaml) -> Result<Value, String> {
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::Real(r) => {
            let f: f64 = r.parse().map_err(|_| format!("not a number: {r}"))?;
            serde_json::Number::from_f64(f)
                .map(Value::Number)
                .ok_or_else(|| format!("not a JSON number: {r}"))?
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(a) => Value::Array(a.iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    other => return Err(format!("a mapping key that is not text: {other:?}")),
                };
                m.insert(key, to_json(v)?);
            }
            Value::Object(m)
        }
        Yaml::Alias(_) | Yaml::BadValue => return Err("an alias or a value YAML cannot read".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        crate::project_root()
    }

    fn manifest(file: &str) -> Vec<Value> {
        documents(&std::fs::read_to_string(root().join("deploy").join(file)).unwrap()).unwrap()
    }

    #[test]
    fn the_deploy_manifests_match_their_schemas() {
        check(&root()).unwrap();
    }

    /// The check is worth something only if it fails on the mistakes a person makes.
    #[test]
    fn mistakes_in_a_manifest_are_caught() {
        let s = Schemas::load(&root()).unwrap();
        let fleet = manifest("fleet.yaml").remove(0);
        let master = manifest("master.yaml");
        let deployment = master.iter().find(|d| d["kind"] == "Deployment").unwrap().clone();
        let service = master.iter().find(|d| d["kind"] == "Service").unwrap().clone();
        let autoscaler = manifest("autoscaler.yaml").remove(0);
        assert!(s.check(&fleet).is_empty() && s.check(&deployment).is_empty());

        let mut cases: Vec<(&str, Value)> = Vec::new();
        let mut f = fleet.clone();
        f["spec"]["replica"] = Value::from(4);
        cases.push(("a misspelt Fleet field", f));
        let mut f = fleet.clone();
        f["spec"]["replicas"] = Value::from("four");
        cases.push(("a Fleet field of the wrong type", f));
        let mut f = fleet.clone();
        f["spec"]["template"]["spec"]["ports"][0]["portPolicy"] = Value::from("Sometimes");
        cases.push(("a port policy Agones does not have", f));
        let mut f = fleet.clone();
        f["spec"]["template"]["spec"]["template"]["spec"]["containers"][0]["imagePullPolice"] =
            Value::from("Always");
        cases.push(("a misspelt field in the Fleet's pod template", f));
        let mut d = deployment.clone();
        d["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = Value::from("game");
        cases.push(("a port that is not a number", d));
        let mut d = deployment.clone();
        d["spec"].as_object_mut().unwrap().remove("selector");
        cases.push(("a Deployment without its selector", d));
        let mut d = deployment.clone();
        d["metadata"]["labelz"] = Value::Object(Map::new());
        cases.push(("misspelt metadata", d));
        let mut v = service.clone();
        v["spec"]["ports"][0]["port"] = Value::from(true);
        cases.push(("a Service port that is not a number", v));
        let mut a = autoscaler.clone();
        a["spec"]["policy"]["buffer"]["bufferSize"] = Value::from(2.5);
        cases.push(("a buffer size neither a count nor a percentage", a));
        let mut k = deployment.clone();
        k["kind"] = Value::from("Deploymnet");
        cases.push(("a kind with no schema", k));
        for (what, doc) in cases {
            assert!(!s.check(&doc).is_empty(), "{what} passed");
        }
    }
}
