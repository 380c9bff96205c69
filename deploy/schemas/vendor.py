#!/usr/bin/env python3
"""Rebuilds the vendored schemas in this folder (run by hand, with network, when they move on).

  pip download kubernetes-validate==1.37.0 --no-deps   # the Kubernetes JSON schemas (Apache-2.0)
  unzip kubernetes_validate-1.37.0-py3-none-any.whl
  curl -LO https://raw.githubusercontent.com/googleforgames/agones/b19d5fe780b0d08f9e4cc0403c962acdcae199a8/install/yaml/install.yaml
  python3 vendor.py kubernetes_validate/kubernetes-json-schema/v1.33.0-local-strict install.yaml

Writes kubernetes.json (the definitions the kinds in KINDS reach, from the v1.33 strict
schemas, descriptions dropped) and agones.json (the openAPIV3Schema of Agones's Fleet and
FleetAutoscaler CRDs turned into JSON Schema: int-or-string and nullable spelt out, and
objects closed to unknown fields the way `kubectl apply --validate=strict` rejects them).
"""
import json, sys
import yaml

KINDS = {  # apiVersion/kind -> the definition
    "v1/ConfigMap": "io.k8s.api.core.v1.ConfigMap",
    "v1/Service": "io.k8s.api.core.v1.Service",
    "apps/v1/Deployment": "io.k8s.api.apps.v1.Deployment",
    # Every object's metadata (the CRDs' schemas leave the top-level one to the API server).
    "ObjectMeta": "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
}
CRDS = {"agones.dev/v1/Fleet": "fleets.agones.dev",
        "autoscaling.agones.dev/v1/FleetAutoscaler": "fleetautoscalers.autoscaling.agones.dev"}


def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k != "description"}
    if isinstance(o, list):
        return [strip(v) for v in o]
    if isinstance(o, str) and o.startswith("/api/_definitions.json#/$defs/"):
        return "#/$defs/" + o.split("/")[-1]
    return o


def refs(o, out):
    if isinstance(o, dict):
        r = o.get("$ref")
        if isinstance(r, str):
            out.add(r.split("/")[-1])
        for v in o.values():
            refs(v, out)
    elif isinstance(o, list):
        for v in o:
            refs(v, out)


def kubernetes(folder):
    defs = json.load(open(f"{folder}/_definitions.json"))["$defs"]
    want, todo = set(), list(KINDS.values())
    while todo:
        n = todo.pop()
        if n in want:
            continue
        want.add(n)
        found = set()
        refs(defs[n], found)
        todo.extend(found - want)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$comment": "Kubernetes v1.33 (strict: no unknown fields), from kubernetes-validate 1.37.0; see vendor.py",
        "kinds": {k: "#/$defs/" + v for k, v in KINDS.items()},
        "$defs": {n: strip(defs[n]) for n in sorted(want)},
    }


def openapi_to_json_schema(o):
    if isinstance(o, list):
        return [openapi_to_json_schema(v) for v in o]
    if not isinstance(o, dict):
        return o
    s = {k: openapi_to_json_schema(v) for k, v in o.items() if k != "description"}
    if s.pop("x-kubernetes-int-or-string", False):
        s.pop("type", None)
        s["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if s.pop("nullable", False) and "type" in s:
        s["type"] = [s["type"], "null"]
    # OpenAPI 3.0's boolean exclusiveMinimum/Maximum are numbers in JSON Schema 2020-12.
    for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(s.get(bound), bool):
            if s.pop(bound) and limit in s:
                s[bound] = s.pop(limit)
    preserve = s.get("x-kubernetes-preserve-unknown-fields", False)
    if "properties" in s and "additionalProperties" not in s and not preserve:
        s["additionalProperties"] = False
    return s


def agones(install):
    crds = {d["metadata"]["name"]: d for d in yaml.safe_load_all(open(install))
            if d and d.get("kind") == "CustomResourceDefinition"}
    out = {"$schema": "https://json-schema.org/draft/2020-12/schema",
           "$comment": "Agones CRDs (install/yaml/install.yaml at b19d5fe, version 1.57.0), openAPIV3Schema as JSON Schema; see vendor.py",
           "kinds": {}, "$defs": {}}
    for kind, name in CRDS.items():
        v = crds[name]["spec"]["versions"][0]
        schema = openapi_to_json_schema(v["schema"]["openAPIV3Schema"])
        # The API server fills these; a manifest names them.
        schema.setdefault("properties", {}).update(
            {"apiVersion": {"const": kind.rsplit("/", 1)[0]}, "kind": {"const": kind.rsplit("/", 1)[1]},
             "metadata": {"type": "object"}})
        schema["required"] = sorted(set(schema.get("required", [])) | {"apiVersion", "kind", "metadata", "spec"})
        key = kind.replace("/", ".")
        out["$defs"][key] = schema
        out["kinds"][kind] = "#/$defs/" + key
    return out


if __name__ == "__main__":
    folder, install = sys.argv[1], sys.argv[2]
    for name, doc in (("kubernetes.json", kubernetes(folder)), ("agones.json", agones(install))):
        with open(name, "w") as f:
            json.dump(doc, f, indent=None, separators=(",", ":"), sort_keys=True)
            f.write("\n")
