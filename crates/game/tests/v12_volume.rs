//! A mod shipped as one volume runs unchanged: the example game zipped into `game.vl2`, alone
//! in a folder, is a `--mod` the `v12` server runs from (main.cs, the server and client
//! scripts all read out of the archive through the resource manager).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const V12: &str = env!("CARGO_BIN_EXE_v12");

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
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/game");
    let mut z = zip::ZipWriter::new(std::fs::File::create(dir.join("game.vl2")).unwrap());
    add_folder(&mut z, &game, &game);
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
    assert!(stdout.contains("server: Coins match of 1 s"), "{stdout}");
    assert!(stdout.contains("server: match over"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--add-mod` mounts a mod over the game: its file replaces the game's.
#[test]
fn an_added_mod_overrides_the_games_files() {
    let dir = std::env::temp_dir().join(format!("v12-added-mod-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("server")).unwrap();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/game");
    let mut script = std::fs::read_to_string(game.join("server/game.cs")).unwrap();
    script.push_str("\necho(\"the added mod's game.cs ran\");\n");
    std::fs::write(dir.join("SERVER/Game.cs".to_lowercase()), script).unwrap();
    let out = Command::new(V12)
        .args(["--dedicated", "--add-mod"])
        .arg(&dir)
        .args(["--", "-port", "0", "-seconds", "1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("the added mod's game.cs ran"), "{stdout}");
    assert!(stdout.contains("server: match over"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
