//! The search path: mod folders in order (a later mod overrides an earlier one, as Tribes 2's
//! `-mod` list did), each with its loose files and its volumes (zip archives: `.vl2`, `.zip`).
//! Inside one mod a loose file overrides the same path in a volume.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{ErrorKind, ResourceError};
use crate::path;

/// Largest file the manager reads (loose or in a volume); a larger one is an error.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// Most files one mod folder may hold (loose files and volume entries together).
pub const MAX_FILES_PER_MOD: usize = 200_000;
/// Deepest folder nesting scanned in a mod.
const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone)]
enum Source {
    Loose(PathBuf),
    Volume { volume: usize, entry: String },
}

#[derive(Debug, Clone)]
struct Found {
    /// The path as spelled where it was found (`/` separators).
    name: String,
    source: Source,
    size: u64,
}

struct Volume {
    path: PathBuf,
    archive: RefCell<Option<zip::ZipArchive<File>>>,
}

/// Every file the mods and their volumes offer, by case-folded path.
#[derive(Default)]
pub struct SearchPath {
    mods: Vec<PathBuf>,
    index: BTreeMap<String, Found>,
    volumes: Vec<Volume>,
}

impl std::fmt::Debug for SearchPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchPath")
            .field("mods", &self.mods)
            .field("files", &self.index.len())
            .field("volumes", &self.volumes.len())
            .finish()
    }
}

impl SearchPath {
    /// An empty search path.
    pub fn new() -> Self {
        Self::default()
    }

    /// The mod folders, first to last.
    pub fn mods(&self) -> &[PathBuf] {
        &self.mods
    }

    /// Files known.
    pub fn len(&self) -> usize {
        self.index.len()
    }
    /// True with no file.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Adds a mod folder over the ones before it: its volumes, then its loose files. A volume
    /// that is not a readable zip is skipped with a warning (the rest of the mod still loads)
    /// and reported in the returned list.
    pub fn add_mod(&mut self, dir: &Path) -> Result<Vec<ResourceError>, ResourceError> {
        let shown = dir.display().to_string();
        if !dir.is_dir() {
            return Err(ResourceError::new(&shown, ErrorKind::Io("not a folder".into())));
        }
        let mut loose = Vec::new();
        scan(dir, dir, 0, &mut loose)
            .map_err(|e| ResourceError::new(&shown, ErrorKind::Io(e.to_string())))?;
        if loose.len() > MAX_FILES_PER_MOD {
            return Err(ResourceError::new(&shown, ErrorKind::Io(format!("over {MAX_FILES_PER_MOD} files"))));
        }
        loose.sort();
        let mut problems = Vec::new();
        let mut added = 0usize;
        // Volumes first (in name order), so the loose files override them.
        for (rel, full) in loose.iter().filter(|(r, _)| is_volume(r)) {
            match self.mount(full, &mut added) {
                Ok(()) => {}
                Err(e) => {
                    tracing::warn!(volume = %full.display(), error = ?e, "volume skipped");
                    problems.push(ResourceError::new(rel, e));
                }
            }
        }
        for (rel, full) in loose.iter().filter(|(r, _)| !is_volume(r)) {
            let Some(k) = path::key(rel) else { continue };
            let size = std::fs::metadata(full).map(|m| m.len()).unwrap_or(0);
            self.index.insert(k, Found { name: rel.clone(), source: Source::Loose(full.clone()), size });
            added += 1;
        }
        self.mods.push(dir.to_path_buf());
        tracing::info!(mod_dir = %shown, files = added, "mod added");
        Ok(problems)
    }

    fn mount(&mut self, file: &Path, added: &mut usize) -> Result<(), ErrorKind> {
        let f = File::open(file).map_err(|e| ErrorKind::Io(e.to_string()))?;
        let mut archive = zip::ZipArchive::new(f).map_err(|e| ErrorKind::BadVolume(e.to_string()))?;
        let volume = self.volumes.len();
        let mut entries = Vec::new();
        for i in 0..archive.len() {
            let Ok(entry) = archive.by_index_raw(i) else { continue };
            if entry.is_dir() {
                continue;
            }
            let Ok(name) = entry.name().map(|n| n.replace('\\', "/")) else {
                tracing::warn!(volume = %file.display(), index = i, "volume entry with an unreadable name skipped");
                continue;
            };
            // A name that climbs out (`../`) or is absolute is never served.
            let Some(k) = path::key(&name) else {
                tracing::warn!(volume = %file.display(), entry = %name, "volume entry outside the root skipped");
                continue;
            };
            entries.push((k, name, entry.size()));
        }
        if *added + entries.len() > MAX_FILES_PER_MOD {
            return Err(ErrorKind::BadVolume(format!("over {MAX_FILES_PER_MOD} files")));
        }
        for (k, name, size) in entries {
            let source = Source::Volume { volume, entry: name.clone() };
            self.index.insert(k, Found { name, source, size });
            *added += 1;
        }
        self.volumes.push(Volume { path: file.to_path_buf(), archive: RefCell::new(Some(archive)) });
        Ok(())
    }

    /// True when `path` is a file of some mod or volume.
    pub fn is_file(&self, path: &str) -> bool {
        path::key(path).is_some_and(|k| self.index.contains_key(&k)) || self.written(path).is_some()
    }

    /// A loose file that appeared in a mod folder after it was scanned (a script wrote it with
    /// `FileObject` or `fileWrite`), the last mod first: what a read that missed the index
    /// finds. `None` for a path that leaves the root.
    fn written(&self, path: &str) -> Option<PathBuf> {
        path::key(path)?;
        let rel = path.replace('\\', "/");
        let rel = rel.trim_start_matches("./");
        self.mods.iter().rev().map(|m| m.join(rel)).find(|p| p.is_file())
    }

    /// The files whose paths match `pattern` (`*`, `?`; without case), as spelled where they
    /// were found, in path order: `findFirstFile` / `findNextFile`.
    pub fn find(&self, pattern: &str) -> Vec<String> {
        let pattern = pattern.replace('\\', "/");
        self.index.values().filter(|f| path::matches(&pattern, &f.name)).map(|f| f.name.clone()).collect()
    }

    /// A file's whole contents.
    pub fn read(&self, path: &str) -> Result<Vec<u8>, ResourceError> {
        let err = |kind| ResourceError::new(path, kind);
        let k = path::key(path).ok_or_else(|| err(ErrorKind::OutsideRoot))?;
        let written;
        let found = match self.index.get(&k) {
            Some(f) => f,
            None => {
                let full = self.written(path).ok_or_else(|| err(ErrorKind::NotFound))?;
                let size = std::fs::metadata(&full).map(|m| m.len()).unwrap_or(0);
                written = Found { name: path.to_string(), source: Source::Loose(full), size };
                &written
            }
        };
        if found.size > MAX_FILE_BYTES {
            return Err(err(ErrorKind::TooLarge(found.size)));
        }
        let mut out = Vec::new();
        match &found.source {
            Source::Loose(full) => {
                let f = File::open(full).map_err(|e| err(ErrorKind::Io(e.to_string())))?;
                f.take(MAX_FILE_BYTES + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| err(ErrorKind::Io(e.to_string())))?;
            }
            Source::Volume { volume, entry } => {
                let v = &self.volumes[*volume];
                let mut slot = v.archive.borrow_mut();
                let archive = slot.as_mut().ok_or_else(|| err(ErrorKind::BadVolume("closed".into())))?;
                let file = archive.by_name(entry).map_err(|e| err(ErrorKind::BadVolume(e.to_string())))?;
                // The declared size can lie (a zip bomb): the read itself is bounded.
                file.take(MAX_FILE_BYTES + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| err(ErrorKind::BadVolume(format!("{}: {e}", v.path.display()))))?;
            }
        }
        if out.len() as u64 > MAX_FILE_BYTES {
            return Err(err(ErrorKind::TooLarge(out.len() as u64)));
        }
        Ok(out)
    }

    /// The CRC-32 of a file's contents (`getFileCRC`).
    pub fn file_crc(&self, path: &str) -> Result<u32, ResourceError> {
        Ok(crc32fast::hash(&self.read(path)?))
    }
}

fn is_volume(rel: &str) -> bool {
    let l = rel.to_lowercase();
    l.ends_with(".vl2") || l.ends_with(".zip")
}

/// Every regular file under `dir` as (path relative to `root` with `/`, full path). Symbolic
/// links are not followed (nothing outside the folder is served).
fn scan(root: &Path, dir: &Path, depth: usize, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let full = entry.path();
        if kind.is_dir() {
            scan(root, &full, depth + 1, out)?;
        } else if kind.is_file() {
            if let Ok(rel) = full.strip_prefix(root) {
                out.push((rel.to_string_lossy().replace('\\', "/"), full.clone()));
            }
            if out.len() > MAX_FILES_PER_MOD {
                return Ok(());
            }
        }
    }
    Ok(())
}
