//! Walking the source tree (the tidy checks and the import-circle check both read it).

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files_with(dir, &["rs"])
}

/// Every file below `dir` whose extension is one of `exts` (build output and `.git` left out).
pub(crate) fn files_with(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "target" && n != ".git") {
                    todo.push(p);
                }
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
