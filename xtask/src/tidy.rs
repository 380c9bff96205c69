//! Tidy checks, run by `cargo test` (the rust-analyzer way): rules of the house that a
//! reviewer would otherwise have to remember. Each names the file and line it objects to.

use std::path::{Path, PathBuf};

/// The protocol cores: time and bytes are passed in, so they read no clock and open no socket.
const SANS_IO: &[&str] = &["bitstream", "notify-protocol", "netobject", "lockstep", "netsim"];

/// What a sans-IO crate may not name.
const IO_WORDS: &[&str] =
    &["Instant::now", "SystemTime", "UdpSocket", "TcpStream", "TcpListener", "socket2", "thread::sleep"];

/// What a library may not do: print (the host decides where output goes; use `tracing`).
const PRINT_WORDS: &[&str] = &["println!", "eprintln!", "print!(", "eprint!(", "dbg!("];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask is one folder down").to_path_buf()
}

/// The code lines of a file that are not comments, with their line numbers; a `#[cfg(test)]`
/// module at the end (the house style) is left out, since tests may print and sleep.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().copied().enumerate() {
        let t = line.trim_start();
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        if t.starts_with("#[cfg(test)]") && next.starts_with("mod ") {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push((i + 1, line));
    }
    out
}

fn crate_dirs() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn offences(dirs: &[&str], sub: &str, words: &[&str], skip: impl Fn(&Path) -> bool) -> Vec<String> {
    let root = root();
    let mut bad = Vec::new();
    for dir in dirs {
        for file in crate::files::rust_files(&root.join("crates").join(dir).join(sub)) {
            if skip(&file) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for (n, line) in code_lines(&text) {
                for w in words {
                    if line.contains(w) {
                        let rel = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
                        bad.push(format!("{rel}:{n}: {w}"));
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn sans_io_crates_read_no_clock_and_open_no_socket() {
    let bad = offences(SANS_IO, "src", IO_WORDS, |_| false);
    assert!(bad.is_empty(), "a sans-IO crate does I/O (pass time and bytes in):\n{}", bad.join("\n"));
}

#[test]
fn libraries_do_not_print() {
    let dirs = crate_dirs();
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    // Programs (src/bin, src/main.rs) print; libraries log with tracing.
    let is_program = |p: &Path| p.components().any(|c| c.as_os_str() == "bin") || p.ends_with("main.rs");
    let bad = offences(&dirs, "src", PRINT_WORDS, is_program);
    assert!(bad.is_empty(), "a library prints (use tracing):\n{}", bad.join("\n"));
}

#[test]
fn every_crate_has_a_readme_that_the_code_map_names() {
    let map = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    for dir in crate_dirs() {
        assert!(
            root().join("crates").join(&dir).join("README.md").is_file(),
            "crates/{dir} has no README.md"
        );
        assert!(
            map.contains(&format!("### `crates/{dir}`")),
            "docs/ARCHITECTURE.md's code map has no section for crates/{dir}"
        );
    }
}

/// The functions clippy's `too_many_lines` excuses, by file: each carries
/// `#[allow(clippy::too_many_lines, reason = "...")]` saying why it stays long. Any other
/// such allow fails the test below; so does an entry here whose allow is gone.
const TOO_MANY_LINES_EXCUSED: &[(&str, &str)] = &[
    // The interpreter loops: one match over the opcodes, kept in one frame for speed
    // (docs/PERFORMANCE.md: splitting measured 7-15 % slower).
    ("crates/console-vm/src/vm.rs", "run"),
    ("crates/console-vm/src/stack_ops.rs", "run"),
    // The number-only loop's body (issue 32, sixteenth pass; one body inlined into run_tight
    // and its copies since the twenty-sixth): its point is a call-free body with the pc and
    // the code in registers, which a split into functions would undo.
    ("crates/console-vm/src/stack_ops.rs", "tight_loop"),
    // The self-recursion loop (issue 32, twenty-third pass): light frames with the pc, frame
    // base, stack top and budget in registers, which a split into functions would undo.
    ("crates/console-vm/src/recursion.rs", "run_rec"),
];

/// The limit is on (`too_many_lines` warns in every crate, and CI denies warnings), and only
/// the functions of [`TOO_MANY_LINES_EXCUSED`] are excused from it, each with a reason.
#[test]
fn functions_are_short_but_for_the_named_exceptions() {
    let root = root();
    let manifest: toml::Table =
        std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml").parse().expect("a manifest");
    let level = manifest["workspace"]["lints"]["clippy"].get("too_many_lines").and_then(|v| v.as_str());
    assert!(matches!(level, Some("warn" | "deny")), "[workspace.lints.clippy] too_many_lines is not on");
    let clippy: toml::Table =
        std::fs::read_to_string(root.join("clippy.toml")).expect("clippy.toml").parse().expect("clippy.toml");
    let limit = clippy.get("too-many-lines-threshold").and_then(toml::Value::as_integer);
    assert!(
        limit.is_some_and(|n| (50..=160).contains(&n)),
        "clippy.toml: too-many-lines-threshold {limit:?}"
    );
    let mut dirs: Vec<String> = crate_dirs().into_iter().map(|d| format!("crates/{d}")).collect();
    dirs.extend(["examples".into(), "xtask".into(), "fuzz".into()]);
    let mut bad = Vec::new();
    for d in &dirs {
        let text = std::fs::read_to_string(root.join(d).join("Cargo.toml")).unwrap_or_default();
        if !text.contains("[lints]\nworkspace = true") {
            bad.push(format!("{d}/Cargo.toml: no [lints] workspace = true (the limit would not apply)"));
        }
    }
    let word = ["clippy::", "too_many_lines"].concat();
    let mut found = Vec::new();
    for d in &dirs {
        for file in crate::files::rust_files(&root.join(d)) {
            let rel = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
            if rel == "xtask/src/tidy.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let lines = code_lines(&text);
            for (i, (n, line)) in lines.iter().enumerate() {
                if !line.contains(&word) {
                    continue;
                }
                if !line.contains("reason = \"") {
                    bad.push(format!("{rel}:{n}: an excuse from too_many_lines without a reason"));
                }
                let name = lines[i..].iter().find_map(|(_, l)| {
                    let rest = l.split("fn ").nth(1)?;
                    Some(rest.split(|c: char| !c.is_alphanumeric() && c != '_').next()?.to_string())
                });
                let name = name.unwrap_or_default();
                if TOO_MANY_LINES_EXCUSED.contains(&(rel.as_str(), name.as_str())) {
                    found.push((rel.clone(), name));
                } else {
                    bad.push(format!("{rel}:{n}: {name} is excused from too_many_lines: split it instead"));
                }
            }
        }
    }
    for (file, name) in TOO_MANY_LINES_EXCUSED {
        if !found.iter().any(|(f, n)| f == file && n == name) {
            bad.push(format!("{file}: {name} is listed as excused but carries no allow (drop the entry)"));
        }
    }
    assert!(bad.is_empty(), "too_many_lines:\n{}", bad.join("\n"));
}

/// "seed" means a random generator's starting value and nothing else (docs/ARCHITECTURE.md's
/// glossary): the engine's behaviour is named after V12's public source, never "the seed".
#[test]
fn seed_names_only_a_random_seed() {
    let root = root();
    let map = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    assert!(map.contains("## Glossary") && map.contains("- **seed** —"), "the glossary defines seed");
    // Spelt out of pieces so this file does not name them.
    let words: Vec<String> =
        [["seed", "'s "], ["seed", " page"], ["seed", " section"], ["seed", " 00"], ["seeds", " 00"]]
            .iter()
            .map(|p| p.concat())
            .collect();
    let mut bad = Vec::new();
    for dir in ["crates", "examples", "docs", "fuzz", "xtask", "deploy"] {
        for file in crate::files::files_with(&root.join(dir), &["rs", "md", "cs", "toml", "yaml"]) {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_default()
                .replace("\n//! ", " ")
                .replace("\n/// ", " ");
            for w in &words {
                if text.to_lowercase().contains(w.as_str()) {
                    bad.push(format!("{}: \"{w}\"", file.strip_prefix(&root).unwrap_or(&file).display()));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "\"seed\" used for the specification (name V12's public source):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_layer_graph_holds() {
    crate::layers::check(&root()).expect("cargo xtask layers");
}

#[test]
fn no_module_imports_itself_through_others() {
    let code = |file: &Path| {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        code_lines(&text).into_iter().map(|(_, l)| l).collect::<Vec<_>>().join("\n")
    };
    let bad = crate::circles::check(&root(), code);
    assert!(bad.is_empty(), "import circles (move what both need below both):\n{}", bad.join("\n"));
}

/// The folder a code-map section (`### \`crates/x\` — ...`, `### \`examples\``) is about.
fn section_dir(heading: &str) -> Option<String> {
    let rest = heading.strip_prefix("### `")?;
    Some(rest[..rest.find('`')?].to_string())
}

/// The backticked words of a line.
fn backticked(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// Whether `word` names a file or folder (a path with a slash, or a name with a file
/// extension the repository uses), rather than code.
fn names_a_path(word: &str) -> bool {
    // A bare extension (`.ter`) names a kind of file, not one.
    if word.is_empty()
        || word.starts_with('.')
        || word.contains([' ', '*', '<', '>', '(', ')', '$', '%', '=', ','])
        || word.contains("::")
    {
        return false;
    }
    let ext = [".rs", ".md", ".toml", ".cs", ".json", ".yaml", ".glb", ".ter", ".map", ".mis", ".sh"];
    word.contains('/') || ext.iter().any(|e| word.ends_with(e))
}

/// Whether some file or folder below `dir` has a path ending in `tail` (`game.cs`,
/// `server/game.cs`, `tests/ghost_support`).
fn find_named(dir: &Path, tail: &str) -> bool {
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.ends_with(tail) {
                return true;
            }
            if p.is_dir() && p.file_name().is_some_and(|n| n != "target" && n != ".git") {
                todo.push(p);
            }
        }
    }
    false
}

/// docs/ARCHITECTURE.md does not drift from the code: every crate its layer table names
/// exists, every path its code map names exists (from the repository root, or inside the
/// section's crate), and no section describes the same file twice.
#[test]
fn the_architecture_names_only_what_exists() {
    let root = root();
    let text = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let mut bad = Vec::new();
    // The layer table: "| crate, crate | may use directly |" rows up to the first other line.
    let lines: Vec<&str> = text.lines().collect();
    let head =
        lines.iter().position(|l| l.starts_with("| crate | may use directly")).expect("the layer table");
    for (n, line) in lines.iter().enumerate().skip(head + 2).take_while(|(_, l)| l.starts_with('|')) {
        let first = line.trim_start_matches('|').split('|').next().unwrap_or_default().replace("*free:*", "");
        for name in first.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !root.join("crates").join(name).join("Cargo.toml").is_file() {
                bad.push(format!(
                    "docs/ARCHITECTURE.md:{}: the layer table names crate {name}, which does not exist",
                    n + 1
                ));
            }
        }
    }
    for free in crate::layers::FREE {
        if !root.join("crates").join(free).is_dir() {
            bad.push(format!("xtask/src/layers.rs: FREE names crate {free}, which does not exist"));
        }
    }
    // The code map.
    let mut dir: Option<String> = None;
    let mut described: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("## ") || line.starts_with("### ") {
            dir = section_dir(line);
            described.clear();
            continue;
        }
        let Some(d) = dir.as_deref() else { continue };
        let base = root.join(d);
        for word in backticked(line).into_iter().filter(|w| names_a_path(w)) {
            let word = word.trim_end_matches('/');
            let exists = root.join(word).exists()
                || base.join(word).exists()
                || base.join("src").join(word).exists()
                || find_named(&base, word)
                // A path relative to a folder the text named just before, or in another
                // crate's tests: somewhere in the code.
                || ["crates", "examples", "xtask", "fuzz"].iter().any(|d| find_named(&root.join(d), word));
            if !exists {
                bad.push(format!("docs/ARCHITECTURE.md:{}: `{word}` (section {d}) does not exist", n + 1));
            }
        }
        // "`name.rs`: what it holds" describes a file; twice in one section is drift.
        for part in line.split('`').collect::<Vec<_>>().windows(2) {
            if part[0].ends_with(".rs") && part[1].starts_with(':') && !part[0].contains(' ') {
                if described.iter().any(|f| f == part[0]) {
                    bad.push(format!("docs/ARCHITECTURE.md:{}: `{}` described twice in {d}", n + 1, part[0]));
                }
                described.push(part[0].to_string());
            }
        }
    }
    assert!(bad.is_empty(), "the architecture document drifted:\n{}", bad.join("\n"));
}

/// Every library crate can be picked on its own: it packages (`.ci/run` runs `cargo package`),
/// with a description, its README, keywords and categories, and the workspace gives each
/// internal dependency a version.
#[test]
fn every_library_crate_has_its_package_metadata() {
    let root = root();
    let mut bad = Vec::new();
    for dir in crate_dirs() {
        let text =
            std::fs::read_to_string(root.join("crates").join(&dir).join("Cargo.toml")).unwrap_or_default();
        let manifest: toml::Table = text.parse().expect("a manifest");
        let package = manifest["package"].as_table().expect("[package]");
        for key in ["description", "readme", "keywords", "categories"] {
            if !package.contains_key(key) {
                bad.push(format!("crates/{dir}/Cargo.toml: no {key}"));
            }
        }
        if package.contains_key("publish") {
            bad.push(format!("crates/{dir}/Cargo.toml: a library crate is publishable (no publish key)"));
        }
    }
    let workspace: toml::Table =
        std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default().parse().expect("Cargo.toml");
    let deps = workspace["workspace"]["dependencies"].as_table().expect("[workspace.dependencies]");
    for (name, dep) in deps.iter().filter(|(_, d)| d.get("path").is_some()) {
        if dep.get("version").is_none() {
            bad.push(format!("Cargo.toml: the internal dependency {name} has no version"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every crate's README starts with how to depend on that crate alone, and (but for the
/// engine layer, whose example is the example game) shows it working in a Rust example that
/// runs as a doctest (the README is the crate's documentation).
#[test]
fn every_readme_says_how_to_use_its_crate_alone() {
    let root = root();
    let mut bad = Vec::new();
    for dir in crate_dirs() {
        let base = root.join("crates").join(&dir);
        let readme = std::fs::read_to_string(base.join("README.md")).unwrap_or_default();
        let name = format!("v12-{dir}");
        let head: String = readme.lines().take(12).collect::<Vec<_>>().join("\n");
        if !head.contains("Use this crate alone") || !head.contains(&format!("{name} = {{ path")) {
            bad.push(format!("crates/{dir}/README.md: does not start with how to depend on {name} alone"));
        }
        if dir == "game" {
            continue;
        }
        let lib = std::fs::read_to_string(base.join("src/lib.rs")).unwrap_or_default();
        if !lib.contains("include_str!(\"../README.md\")") {
            bad.push(format!("crates/{dir}/src/lib.rs: the README is not the crate's documentation"));
        }
        if !readme.lines().any(|l| l.trim() == "```rust") {
            bad.push(format!("crates/{dir}/README.md: no Rust example (a doctest)"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
