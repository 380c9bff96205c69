//! The profiler (`profilerEnable`, `profilerDump`, `profilerDumpToFile`, `profilerReset`):
//! the zone tree's structure and calls (never its times), zones entered while off, aborts,
//! and the dump file kept inside the console's folder. (Not in the measurement build, feature
//! `profiler-off`, where the zones compile to nothing.)
#![cfg(not(feature = "profiler-off"))]

use v12_console_vm::{BufferSink, Console, Level};

fn console() -> (Console, BufferSink) {
    let mut c = Console::new();
    let out = BufferSink::new();
    c.set_output(Box::new(out.clone()));
    (c, out)
}

const SCRIPT: &str = r#"
function leaf(%x) { return %x + 1; }
function Thing::poke(%this) { return leaf(2); }
function outer() {
    for (%i = 0; %i < 3; %i++)
        leaf(%i);
    return Thing::poke(0);
}
"#;

#[test]
fn zones_nest_as_script_calls_do_and_count_calls() {
    let (mut c, _out) = console();
    c.eval(SCRIPT).unwrap();
    c.eval("outer();").unwrap();
    assert!(c.profiler_calls().is_empty(), "off: no zone is made");
    c.set_profiler_enabled(true);
    c.profiler_enter("Frame");
    c.eval("outer(); outer();").unwrap();
    c.profiler_exit();
    let calls = c.profiler_calls();
    let find = |path: &str| calls.iter().find(|(p, _)| p == path).map(|(_, n)| *n);
    assert_eq!(find("Frame"), Some(1));
    assert_eq!(find("Frame/outer"), Some(2));
    assert_eq!(find("Frame/outer/leaf"), Some(6));
    assert_eq!(find("Frame/outer/Thing::poke"), Some(2));
    assert_eq!(find("Frame/outer/Thing::poke/leaf"), Some(2));
    let dump = c.profiler_dump();
    assert!(dump.starts_with("Profiler: "), "{dump}");
    assert!(dump.contains("total%") && dump.contains("own%") && dump.contains("calls"), "{dump}");
    let frame = dump.lines().find(|l| l.ends_with("  Frame")).expect("a Frame line");
    let share: f64 = frame.split_whitespace().next().unwrap().parse().unwrap();
    assert!((0.0..=100.0).contains(&share), "{frame}");
    assert!(dump.lines().any(|l| l.ends_with("      Thing::poke")), "indented below outer: {dump}");
}

#[test]
fn script_functions_drive_it_and_reset_forgets() {
    let (mut c, out) = console();
    c.eval(SCRIPT).unwrap();
    c.eval("profilerEnable(true); outer(); profilerDump();").unwrap();
    assert!(c.profiler_enabled());
    assert!(out.stdout().contains("outer"), "{}", out.stdout());
    // The function that turned it on was entered while off: its return is ignored.
    assert!(c.profiler_calls().iter().any(|(p, n)| p == "outer" && *n == 1), "{:?}", c.profiler_calls());
    c.eval("profilerReset();").unwrap();
    assert!(
        c.profiler_calls().iter().all(|(p, _)| p.starts_with("profilerReset")),
        "{:?}",
        c.profiler_calls()
    );
    c.eval("profilerEnable(false); outer();").unwrap();
    assert!(!c.profiler_enabled());
    assert!(!c.profiler_calls().iter().any(|(p, _)| p == "outer"));
}

#[test]
fn an_aborted_call_leaves_its_zones() {
    let (mut c, _out) = console();
    c.set_instruction_budget(10_000);
    c.eval("function spin() { while (1) {} } function calm() { return 1; }").unwrap();
    c.set_profiler_enabled(true);
    c.profiler_enter("Outer");
    let _ = c.eval("spin();");
    c.eval("calm();").unwrap();
    c.profiler_exit();
    let calls = c.profiler_calls();
    assert!(calls.iter().any(|(p, _)| p == "Outer/spin"), "{calls:?}");
    assert!(calls.iter().any(|(p, _)| p == "Outer/calm"), "calm is beside spin, not inside: {calls:?}");
}

#[test]
fn the_dump_file_stays_in_the_folder() {
    let dir = std::env::temp_dir().join(format!("v12-profiler-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut c, out) = console();
    c.set_file_root(&dir);
    c.eval(SCRIPT).unwrap();
    c.eval("profilerEnable(1); outer();").unwrap();
    assert_eq!(c.eval("return profilerDumpToFile(\"prof/dump.txt\");").unwrap().to_string(), "1");
    let text = std::fs::read_to_string(dir.join("prof/dump.txt")).unwrap();
    assert!(text.contains("outer"), "{text}");
    for bad in ["../escape.txt", "/tmp/v12-profiler-escape.txt"] {
        let r = c.eval(&format!("return profilerDumpToFile(\"{bad}\");")).unwrap();
        assert_eq!(r.to_string(), "0", "{bad}");
    }
    assert!(out.lines().iter().any(|(l, t)| *l == Level::Error && t.contains("outside the mod folder")));
    assert!(!dir.parent().unwrap().join("escape.txt").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
