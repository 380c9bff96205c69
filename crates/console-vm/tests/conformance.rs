//! Runs every `tests/conformance/*.cs` in a fresh console and compares everything it prints
//! (echo, warnings and errors, in order) with the `.out` file next to it.
//! Set `BLESS=1` to write the `.out` files from the current output.

use std::path::{Path, PathBuf};
use v12_console_vm::{BufferSink, Console};

fn run_file(dir: &Path, file: &Path) -> String {
    let mut con = Console::new();
    let sink = BufferSink::new();
    con.set_output(Box::new(sink.clone()));
    con.set_file_root(dir);
    con.set_instruction_budget(5_000_000);
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let _ = con.exec_file(&name);
    let mut guard = 0;
    while let Some(next) = con.next_event_time() {
        if con.quit_requested() || next > 60_000 || guard > 100_000 {
            break;
        }
        let step = next.saturating_sub(con.sim_time());
        con.advance_time(step);
        guard += 1;
    }
    sink.all()
}

#[test]
fn conformance_suite() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("conformance dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cs"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "conformance suite is missing");
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    for f in &files {
        let got = run_file(&dir, f);
        let out = f.with_extension("out");
        if bless {
            std::fs::write(&out, &got).expect("write .out");
            continue;
        }
        let want = std::fs::read_to_string(&out).unwrap_or_else(|_| panic!("missing {}", out.display()));
        if got != want {
            failures.push(format!("--- {}\n=== expected\n{want}=== got\n{got}", f.display()));
        }
    }
    assert!(failures.is_empty(), "{} conformance failures:\n{}", failures.len(), failures.join("\n"));
}
