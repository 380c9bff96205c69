//! Mods, volumes and hostile files on a real file system (a fresh temporary folder per test).

mod common;

use std::io::Write;
use std::path::Path;

use common::TempDir;
use v12_resource::{ErrorKind, MAX_FILE_BYTES, Resource, ResourceManager};

fn zip_file(path: &Path, entries: &[(&str, &[u8])]) {
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        z.start_file(*name, opts).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap();
}

fn text(res: &ResourceManager, path: &str) -> String {
    String::from_utf8(res.search().read(path).unwrap()).unwrap()
}

#[test]
fn one_instance_per_path_freed_with_its_last_handle() {
    let d = TempDir::new("instances");
    d.file("data/Hello.txt", b"hello");
    let mut res = ResourceManager::new();
    res.add_mod(&d.0).unwrap();
    res.register_loader::<String>("txt", |b, _| Ok(String::from_utf8_lossy(b).into_owned()));
    let a = res.load::<String>("DATA/hello.TXT").unwrap();
    let b = res.load::<String>("data\\Hello.txt").unwrap();
    assert!(Resource::ptr_eq(&a, &b), "the second request gets the first instance");
    assert_eq!(res.loaded_count(), 1);
    drop(a);
    assert_eq!(res.loaded_count(), 1, "one handle is left");
    drop(b);
    assert_eq!(res.loaded_count(), 0, "freed with the last handle");
    let c = res.load::<String>("data/hello.txt").unwrap();
    assert_eq!(&*c, "hello");
    // No loader, a loader that refuses: errors that name the file.
    assert_eq!(res.load::<u32>("data/hello.txt").unwrap_err().kind, ErrorKind::NoLoader);
    res.register_loader::<u32>("txt", |_, _| Err("not a number".into()));
    let e = res.load::<u32>("data/hello.txt").unwrap_err();
    assert_eq!(e.to_string(), "data/hello.txt: not a number");
}

/// `load_shared`: an `Arc` threads may share, one per path while one lives, through the same
/// loaders, apart from `load`'s instances.
#[test]
fn shared_instances_one_per_path_apart_from_the_plain_ones() {
    let d = TempDir::new("shared");
    d.file("data/Hello.txt", b"hello");
    let mut res = ResourceManager::new();
    res.add_mod(&d.0).unwrap();
    res.register_loader::<String>("txt", |b, _| Ok(String::from_utf8_lossy(b).into_owned()));
    let a = res.load_shared::<String>("DATA/hello.TXT").unwrap();
    let b = res.load_shared::<String>("data\\Hello.txt").unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b), "the second request gets the first instance");
    assert_eq!(res.loaded_count(), 1);
    let plain = res.load::<String>("data/hello.txt").unwrap();
    assert_eq!((&*plain, res.loaded_count()), (&*a, 2), "a plain load is another instance");
    std::thread::scope(|s| {
        s.spawn(|| assert_eq!(a.as_str(), "hello"));
    });
    drop((a, b, plain));
    assert_eq!(res.loaded_count(), 0, "freed with the last handle");
    assert_eq!(res.load_shared::<u32>("data/hello.txt").unwrap_err().kind, ErrorKind::NoLoader);
}

#[test]
fn later_mods_override_and_loose_files_override_volumes() {
    let base = TempDir::new("base");
    base.file("scripts/game.cs", b"base game");
    base.file("scripts/only_base.cs", b"only base");
    zip_file(
        &base.0.join("base.vl2"),
        &[("scripts/inVolume.cs", b"volume"), ("scripts/both.cs", b"volume copy")],
    );
    base.file("scripts/Both.cs", b"loose copy");
    let m = TempDir::new("mymod");
    m.file("Scripts/GAME.cs", b"mod game");
    let mut res = ResourceManager::new();
    assert!(res.add_mod(&base.0).unwrap().is_empty());
    assert!(res.add_mod(&m.0).unwrap().is_empty());
    assert_eq!(text(&res, "scripts/game.cs"), "mod game");
    assert_eq!(text(&res, "scripts/only_base.cs"), "only base");
    assert_eq!(text(&res, "scripts/involume.cs"), "volume");
    assert_eq!(text(&res, "scripts/both.cs"), "loose copy");
    assert!(res.search().is_file("SCRIPTS/INVOLUME.CS"));
    let found = res.search().find("scripts/*.cs");
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found.contains(&"Scripts/GAME.cs".to_string()), "{found:?}");
    assert_eq!(res.search().file_crc("scripts/involume.cs").unwrap(), crc32fast::hash(b"volume"));
}

#[test]
fn hostile_paths_volumes_and_bombs_are_errors() {
    let d = TempDir::new("hostile");
    d.file("ok.txt", b"fine");
    d.file("broken.vl2", b"PK\x03\x04 this is not a zip archive at all");
    zip_file(&d.0.join("sly.zip"), &[("../escape.cs", b"evil"), ("fine.cs", b"ok")]);
    let zeros = vec![0u8; MAX_FILE_BYTES as usize + 1];
    zip_file(&d.0.join("bomb.zip"), &[("bomb.bin", &zeros)]);
    let mut res = ResourceManager::new();
    let problems = res.add_mod(&d.0).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(matches!(problems[0].kind, ErrorKind::BadVolume(_)));
    assert!(problems[0].to_string().starts_with("broken.vl2: bad volume"), "{}", problems[0]);
    // The rest of the mod is served.
    assert_eq!(text(&res, "ok.txt"), "fine");
    assert_eq!(text(&res, "fine.cs"), "ok");
    // Nothing outside the root, by a path or by a volume entry.
    for bad in ["../escape.cs", "/etc/passwd", "a/../../ok.txt"] {
        assert_eq!(res.search().read(bad).unwrap_err().kind, ErrorKind::OutsideRoot, "{bad}");
    }
    assert_eq!(res.search().read("escape.cs").unwrap_err().kind, ErrorKind::NotFound);
    // A bomb: over the limit however small it is packed.
    let e = res.search().read("bomb.bin").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::TooLarge(_)), "{e}");
    assert!(res.add_mod(&d.0.join("missing")).is_err());
}

/// A file a script writes into a mod folder after it was scanned (`FileObject`, `fileWrite`)
/// is found by the next read, the last mod first; a path that climbs out is still refused.
#[test]
fn a_file_written_after_the_scan_is_read_back() {
    let base = TempDir::new("written-base");
    let top = TempDir::new("written-top");
    base.file("main.cs", b"");
    let mut res = ResourceManager::new();
    res.add_mod(&base.0).unwrap();
    res.add_mod(&top.0).unwrap();
    assert!(!res.search().is_file("prefs/saved.cs"));
    base.file("prefs/saved.cs", b"$a = 1;");
    assert!(res.search().is_file("prefs/saved.cs"));
    assert_eq!(text(&res, "./prefs/saved.cs"), "$a = 1;");
    top.file("prefs/saved.cs", b"$a = 2;");
    assert_eq!(text(&res, "prefs/saved.cs"), "$a = 2;", "the later mod first");
    let e = res.search().read("../written-base/prefs/saved.cs").unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutsideRoot);
}
