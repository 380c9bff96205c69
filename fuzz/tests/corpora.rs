//! Every fuzz target on its seeds, on seeded mutations of them, and on every file under
//! `fuzz/corpus/<target>/` (inputs a fuzzing run found interesting or that once failed,
//! kept as regression cases). Nothing may panic.

use std::path::Path;

/// Mutations of each seed run in `cargo test` (more in release).
const MUTATIONS: u64 = if cfg!(debug_assertions) { 40 } else { 400 };

#[test]
fn every_target_survives_its_seeds_their_mutations_and_its_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for target in v12_fuzz::TARGETS {
        let seeds = v12_fuzz::seeds(target);
        assert!(!seeds.is_empty(), "{target} has no seeds");
        let mut runs = 0;
        for (i, seed) in seeds.iter().enumerate() {
            assert!(v12_fuzz::run(target, seed));
            for m in 0..MUTATIONS {
                v12_fuzz::run(target, &v12_fuzz::mutate(seed, (i as u64) << 32 | m));
                runs += 1;
            }
        }
        if let Ok(files) = std::fs::read_dir(corpus.join(target)) {
            for f in files.flatten() {
                let data = std::fs::read(f.path()).unwrap();
                v12_fuzz::run(target, &data);
                runs += 1;
            }
        }
        assert!(runs > 0, "{target}");
        println!("{target}: {} seeds, {runs} runs", seeds.len());
    }
}

#[test]
fn empty_and_tiny_inputs_are_fine_everywhere() {
    for target in v12_fuzz::TARGETS {
        for data in [&[][..], &[0], &[0xFF], &[1, 2, 3, 4]] {
            assert!(v12_fuzz::run(target, data));
        }
    }
}
