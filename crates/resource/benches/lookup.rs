//! Resource lookup cost (issue 14): reading a file through the search path, loose and inside
//! a zip volume, and fetching an already loaded resource, each against a baseline measured in
//! the same run (`baseline_*`: `std::fs::read` of the same loose file; an `Rc` clone out of a
//! `HashMap`, what a cached lookup cannot beat).

use std::collections::HashMap;
use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;

use criterion::{Criterion, criterion_group, criterion_main};
use v12_resource::ResourceManager;

/// Files in the mod, loose and in its volume alike (a Tribes 2 base volume holds thousands).
const FILES: usize = 2_000;
/// Bytes in each file (a small script or datablock file).
const SIZE: usize = 2_048;

fn setup() -> (PathBuf, ResourceManager) {
    let dir = std::env::temp_dir().join(format!("v12-resource-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("loose")).unwrap();
    let body: Vec<u8> = (0..SIZE).map(|i| b"function f() { return 1; }\n"[i % 27]).collect();
    for i in 0..FILES {
        std::fs::write(dir.join(format!("loose/file{i}.cs")), &body).unwrap();
    }
    let mut z = zip::ZipWriter::new(std::fs::File::create(dir.join("base.vl2")).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for i in 0..FILES {
        z.start_file(format!("packed/file{i}.cs"), opts).unwrap();
        z.write_all(&body).unwrap();
    }
    z.finish().unwrap();
    let mut res = ResourceManager::new();
    res.add_mod(&dir).unwrap();
    res.register_loader::<String>("cs", |bytes, _| Ok(String::from_utf8_lossy(bytes).into_owned()));
    (dir, res)
}

fn lookups(c: &mut Criterion) {
    let (dir, res) = setup();
    let loose_os = dir.join("loose/file1234.cs");
    let mut g = c.benchmark_group("resource_read_2KiB");
    g.bench_function("loose_through_search_path", |b| {
        b.iter(|| black_box(res.search().read(black_box("LOOSE/File1234.cs")).unwrap()))
    });
    g.bench_function("in_volume_through_search_path", |b| {
        b.iter(|| black_box(res.search().read(black_box("packed/file1234.cs")).unwrap()))
    });
    g.bench_function("baseline_std_fs_read", |b| {
        b.iter(|| black_box(std::fs::read(black_box(&loose_os)).unwrap()))
    });
    g.finish();

    let mut g = c.benchmark_group("resource_is_file");
    g.bench_function("search_path_is_file", |b| {
        b.iter(|| black_box(res.search().is_file(black_box("packed/FILE1234.cs"))))
    });
    g.bench_function("baseline_std_path_is_file", |b| b.iter(|| black_box(black_box(&loose_os).is_file())));
    g.finish();

    let held = res.load::<String>("packed/file1234.cs").unwrap();
    let mut map: HashMap<String, Rc<String>> = HashMap::new();
    map.insert("packed/file1234.cs".into(), Rc::new((*held).clone()));
    let mut g = c.benchmark_group("resource_load_loaded");
    g.bench_function("manager_load_of_a_loaded_resource", |b| {
        b.iter(|| black_box(res.load::<String>(black_box("Packed/File1234.cs")).unwrap()))
    });
    g.bench_function("baseline_hashmap_rc_clone", |b| {
        b.iter(|| black_box(map.get(black_box("packed/file1234.cs")).cloned()))
    });
    g.finish();
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, lookups);
criterion_main!(benches);
