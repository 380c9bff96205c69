//! Tribes 2's own stock scripts (`base/scripts`, not shipped here) executed on a dedicated
//! `v12`: every object and datablock declaration must instantiate (no "Unable to instantiate"
//! line) and no engine class may be missing. Point `T2_BASE_SCRIPTS` at a copy's
//! `base/scripts` folder and run
//! `T2_BASE_SCRIPTS=... cargo test -p v12-game --test t2_stock_scripts -- --ignored --nocapture`.

#[path = "common/procs.rs"]
#[allow(dead_code)]
mod procs;

use std::path::Path;
use std::process::{Command, Stdio};

/// Copies `from` (a folder tree of `.cs` files) under `to`.
fn copy_scripts(from: &Path, to: &Path, files: &mut Vec<String>, rel: &str) {
    let Ok(dir) = std::fs::read_dir(from) else { return };
    let mut entries: Vec<_> = dir.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        let rel_name = format!("{rel}/{name}");
        if path.is_dir() {
            std::fs::create_dir_all(to.join(&rel_name)).unwrap();
            copy_scripts(&path, to, files, &rel_name);
        } else if name.ends_with(".cs") {
            std::fs::copy(&path, to.join(&rel_name)).unwrap();
            files.push(rel_name);
        }
    }
}

#[test]
#[ignore = "needs a copy of Tribes 2's base/scripts in T2_BASE_SCRIPTS"]
fn tribes_2_stock_scripts_instantiate_every_declaration() {
    let Some(src) = std::env::var_os("T2_BASE_SCRIPTS") else {
        panic!("set T2_BASE_SCRIPTS to a copy of Tribes 2's base/scripts folder");
    };
    let scratch = procs::Scratch::new("t2-stock");
    std::fs::create_dir_all(scratch.join("scripts")).unwrap();
    let mut files = Vec::new();
    copy_scripts(Path::new(&src), &scratch, &mut files, "scripts");
    assert!(files.len() > 100, "{} scripts found in {src:?}", files.len());
    // Tribes 2's force-feedback EffectProfiles (played as gamepad rumbles): each name declared
    // outside a comment is one datablock.
    let mut effects = std::collections::BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(scratch.join(f)).unwrap_or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for rest in line.split("datablock EffectProfile(").skip(1) {
                effects.insert(rest.split(')').next().unwrap_or("").trim().to_ascii_lowercase());
            }
        }
    }
    let count_effects = "$n = 0;\nfor ($i = 0; $i < DataBlockGroup.getCount(); $i++)\n   \
        if (DataBlockGroup.getObject($i).getClassName() $= \"EffectProfile\")\n      $n++;\n\
        echo(\"EffectProfile datablocks: \" @ $n);\n";
    let main: String =
        files.iter().map(|f| format!("exec(\"{f}\");\n")).collect::<String>() + count_effects + "quit();\n";
    std::fs::write(scratch.join("main.cs"), main).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_v12"))
        .args(["--dedicated", "--mod", scratch.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .expect("v12 runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let failures: Vec<&str> = text.lines().filter(|l| l.contains("Unable to instantiate")).collect();
    println!("{} scripts, {} declarations failed", files.len(), failures.len());
    assert!(out.status.success(), "{text}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let made = format!("EffectProfile datablocks: {}", effects.len());
    println!("{} EffectProfile names declared", effects.len());
    assert!(effects.len() > 100 && text.contains(&made), "{made} expected\n{text}");
}
