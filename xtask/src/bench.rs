//! `cargo xtask bench`: run the criterion benchmarks, then print one table of ratios.
//!
//! Convention: in every criterion group, the function whose id starts with `baseline` is the
//! reference measured in the same run; every other function in the group (with the same
//! parameter) is reported as `time / baseline time`. Groups without a baseline are listed
//! with their times only. The table is also written to `target/bench-ratios.md`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[derive(Debug)]
struct Estimate {
    group: String,
    function: String,
    value: String,
    mean_ns: f64,
    /// Bytes or elements per iteration, if the benchmark declared a throughput.
    throughput: Option<(String, f64)>,
}

pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let report_only = args.iter().any(|a| a == "--report-only");
    let pass: Vec<&String> = args.iter().filter(|a| *a != "--report-only").collect();
    if !report_only {
        let mut cmd = Command::new(crate::cargo());
        cmd.arg("bench").current_dir(root);
        if !pass.iter().any(|a| a.starts_with("-p") || a.starts_with("--package")) {
            cmd.arg("--workspace");
        }
        cmd.args(&pass);
        crate::run(&mut cmd)?;
    }
    let dir = crate::target_dir(root).join("criterion");
    let mut found = Vec::new();
    collect(&dir, &mut found);
    if found.is_empty() {
        return Err(format!("no criterion results under {}", dir.display()));
    }
    let table = render(&found);
    print!("{table}");
    let out = crate::target_dir(root).join("bench-ratios.md");
    std::fs::write(&out, &table).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("\n(written to {})", out.display());
    Ok(())
}

/// Walk `dir` for `new/benchmark.json` + `new/estimates.json` pairs.
fn collect(dir: &Path, out: &mut Vec<Estimate>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        if path.file_name().is_some_and(|n| n == "new") {
            if let Some(e) = read_estimate(&path) {
                out.push(e);
            }
        } else {
            collect(&path, out);
        }
    }
}

fn read_estimate(new_dir: &Path) -> Option<Estimate> {
    let json = |name: &str| -> Option<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(new_dir.join(name)).ok()?).ok()
    };
    let bench = json("benchmark.json")?;
    let est = json("estimates.json")?;
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    let throughput = bench.get("throughput").and_then(|t| t.as_object()).and_then(|t| {
        let (kind, n) = t.iter().next()?;
        Some((kind.clone(), n.as_f64()?))
    });
    Some(Estimate {
        group: text(&bench["group_id"]),
        function: text(&bench["function_id"]),
        value: text(&bench["value_str"]),
        mean_ns: est["mean"]["point_estimate"].as_f64()?,
        throughput,
    })
}

fn render(found: &[Estimate]) -> String {
    let mut groups: BTreeMap<(&str, &str), Vec<&Estimate>> = BTreeMap::new();
    for e in found {
        groups.entry((&e.group, &e.value)).or_default().push(e);
    }
    let mut s = String::from("| group | parameter | function | mean | throughput | ratio to baseline |\n");
    s.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for ((group, value), mut list) in groups {
        list.sort_by(|a, b| a.function.cmp(&b.function));
        let base = list.iter().find(|e| e.function.starts_with("baseline")).map(|e| e.mean_ns);
        for e in list {
            let ratio = match base {
                Some(b) if !e.function.starts_with("baseline") => format!("{:.3}×", e.mean_ns / b),
                Some(_) => "1 (baseline)".into(),
                None => "—".into(),
            };
            s.push_str(&format!(
                "| {group} | {value} | {} | {} | {} | {ratio} |\n",
                e.function,
                human_time(e.mean_ns),
                e.throughput.as_ref().map(|(k, n)| human_rate(k, *n, e.mean_ns)).unwrap_or_default(),
            ));
        }
    }
    s
}

fn human_time(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.1} ns"),
        n if n < 1e6 => format!("{:.2} µs", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.2} s", n / 1e9),
    }
}

fn human_rate(kind: &str, per_iter: f64, ns: f64) -> String {
    let per_sec = per_iter / (ns / 1e9);
    match kind {
        "Bytes" | "BytesDecimal" => format!("{:.1} MB/s", per_sec / 1e6),
        "Bits" => format!("{:.2} Gbit/s", per_sec / 1e9),
        _ => format!("{:.2} M/s", per_sec / 1e6),
    }
}
