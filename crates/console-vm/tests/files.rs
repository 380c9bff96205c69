//! The file functions (`findFirstFile`, `findNextFile`, `getFileCount`, `getFileCRC`,
//! `isFile`) over the file root, and `exec` through a host's file source.

use std::collections::BTreeMap;
use std::rc::Rc;

use v12_console_vm::files::FileSource;
use v12_console_vm::{BufferSink, Console};

fn console() -> (Console, BufferSink) {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    (con, out)
}

#[test]
fn find_count_and_crc_over_the_file_root() {
    let dir = std::env::temp_dir().join(format!("v12-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.cs"), "echo(1);").unwrap();
    std::fs::write(dir.join("b.cs"), "echo(2);").unwrap();
    std::fs::write(dir.join("sub/c.txt"), "text").unwrap();
    let (mut con, _) = console();
    con.set_file_root(&dir);
    let r = |con: &mut Console, s: &str| con.eval(s).unwrap().as_text().into_owned();
    assert_eq!(r(&mut con, "return findFirstFile(\"*.cs\");"), "a.cs");
    assert_eq!(r(&mut con, "return findNextFile(\"*.cs\");"), "b.cs");
    assert_eq!(r(&mut con, "return findNextFile(\"*.cs\");"), "");
    assert_eq!(r(&mut con, "return getFileCount(\"*\");"), "3");
    assert_eq!(r(&mut con, "return findFirstFile(\"SUB/*.TXT\");"), "sub/c.txt");
    let crc = crc32fast::hash(b"echo(1);") as i32;
    assert_eq!(r(&mut con, "return getFileCRC(\"a.cs\");"), crc.to_string());
    assert_eq!(r(&mut con, "return getFileCRC(\"missing.cs\");"), "-1");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A host's files in memory (a resource manager in the real program).
struct Mem(BTreeMap<String, String>);

impl FileSource for Mem {
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        self.0
            .get(&path.to_lowercase())
            .map(|s| s.clone().into_bytes())
            .ok_or_else(|| format!("{path}: not found"))
    }
    fn is_file(&self, path: &str) -> bool {
        self.0.contains_key(&path.to_lowercase())
    }
    fn find(&self, pattern: &str) -> Vec<String> {
        let p = pattern.to_lowercase();
        self.0.keys().filter(|k| p == "*" || k.ends_with(p.trim_start_matches('*'))).cloned().collect()
    }
}

#[test]
fn exec_and_the_file_functions_go_through_the_file_source() {
    let files = [
        ("main.cs", "exec(\"scripts/game.cs\"); $found = findFirstFile(\"*.gui\");"),
        ("scripts/game.cs", "exec(\"./rules.cs\"); $game = 1;"),
        ("scripts/rules.cs", "$rules = isFile(\"Scripts/Game.cs\");"),
        ("ui/menu.gui", "// a screen"),
    ];
    let (mut con, out) = console();
    con.set_file_source(Rc::new(Mem(files.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())));
    con.exec_file("main.cs").unwrap();
    assert_eq!(con.get_global("game").as_text(), "1");
    assert_eq!(con.get_global("rules").as_text(), "1", "{}", out.all());
    assert_eq!(con.get_global("found").as_text(), "ui/menu.gui");
    let e = con.exec_file("nope.cs").unwrap_err().to_string();
    assert!(e.contains("nope.cs: not found"), "{e}");
}
