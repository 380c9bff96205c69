//! A mod shipped as one volume runs unchanged: the tests' probe mod (`tests/mods/probe`) zipped
//! into `game.vl2`, alone in a folder, is a `--mod` the `v12` server runs from (main.cs and the
//! server script read out of the archive through the resource manager); and a mod added over
//! it replaces its files.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const V12: &str = env!("CARGO_BIN_EXE_v12");
/// The engine tests' own mod: a dedicated server that says it is up and quits.
const PROBE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mods/probe");

fn add_folder(z: &mut zip::ZipWriter<std::fs::File>, root: &Path, dir: &Path) {
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            add_folder(z, root, &p);
        } else {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            z.start_file(rel, opts).unwrap();
            z.write_all(&std::fs::read(&p).unwrap()).unwrap();
        }
    }
}

#[test]
fn the_game_runs_from_a_single_volume() {
    let dir = std::env::temp_dir().join(format!("v12-volume-mod-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let game = Path::new(PROBE);
    let mut z = zip::ZipWriter::new(std::fs::File::create(dir.join("game.vl2")).unwrap());
    add_folder(&mut z, game, game);
    z.finish().unwrap();
    let out = Command::new(V12)
        .arg("--dedicated")
        .arg("--mod")
        .arg(&dir)
        .args(["--", "-port", "0", "-seconds", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("LISTENING "), "{stdout}\n{stderr}");
    // main.cs and server/server.cs both came out of the volume.
    assert!(stdout.contains("probe: server up for 1 s"), "{stdout}");
    assert!(stdout.contains("probe: over"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--add-mod` mounts a mod over the game: its file replaces the game's.
#[test]
fn an_added_mod_overrides_the_games_files() {
    let dir = std::env::temp_dir().join(format!("v12-added-mod-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("server")).unwrap();
    let game = Path::new(PROBE);
    let mut script = std::fs::read_to_string(game.join("server/server.cs")).unwrap();
    script.push_str("\necho(\"the added mod's server.cs ran\");\n");
    std::fs::write(dir.join("SERVER/Server.cs".to_lowercase()), script).unwrap();
    let out = Command::new(V12)
        .args(["--dedicated", "--mod", PROBE, "--add-mod"])
        .arg(&dir)
        .args(["--", "-port", "0", "-seconds", "1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("the added mod's server.cs ran"), "{stdout}");
    assert!(stdout.contains("probe: over"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
