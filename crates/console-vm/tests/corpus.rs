//! Real-game-like files (GUI tree, mission, datablocks, a 6,000-line generated script): every
//! one parses, and run together in a lenient console (unknown engine classes become plain
//! objects) they run without a single console error.

use std::path::PathBuf;
use v12_console_vm::{BufferSink, Console, decode_source, parse};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus_dir())
        .expect("corpus dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".cs") || n.ends_with(".gui") || n.ends_with(".mis"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_corpus_file_parses() {
    let names = files();
    assert!(names.len() >= 4, "{names:?}");
    for n in &names {
        let bytes = std::fs::read(corpus_dir().join(n)).expect("read");
        let ast = parse(&decode_source(&bytes), n).unwrap_or_else(|e| panic!("{e}"));
        assert!(!ast.is_empty(), "{n}");
    }
}

#[test]
fn corpus_runs_lenient_without_errors() {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    con.set_lenient(true);
    con.set_file_root(corpus_dir());
    for n in files() {
        con.exec_file(&n).unwrap_or_else(|e| panic!("{n}: {e}"));
    }
    assert_eq!(out.stderr(), "", "console errors while running the corpus");
    let stdout = out.stdout();
    let want = [
        "Scout 90 60 5 1 0.45",
        "Assault 130 80 6 1 0.7",
        "Juggernaut 180 80 6 1 0.95",
        "[Juggernaut]",
        "Juggernaut 0.85 0.85",
        "tag is number: 1 8 ab",
        "generated: 11175 GenClass2:42 GenClass3:43 1 light 3600",
        "options gui fields: 4 200 0 200",
        "nested path: 1 3 1",
        "teams 2, spawns 2, sky 0.25",
        "generator 1 8",
    ];
    for w in want {
        assert!(stdout.lines().any(|l| l.starts_with(w)), "missing {w:?} in:\n{stdout}");
    }
    // The GUI tree was built with its nesting: the slider is four levels below the pane.
    let depth = con
        .eval(
            "function depthOf(%o, %top) { %d = 0; while (isObject(%o) && %o.getId() != %top.getId()) \
             { %o = %o.getGroup(); %d++; } return %d; } return depthOf(OP_GammaSlider, OptionsDlg);",
        )
        .expect("walk");
    assert_eq!(depth.to_string(), "5");
}
