//! Where scripts and the file functions read from: the host can hand the console a
//! [`FileSource`] (a resource manager with mods and volumes); without one they read the
//! folder set with `Console::set_file_root`.

use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Where the console reads files, and the state of the file functions.
#[derive(Default)]
pub(crate) struct FileAccess {
    /// The folder scripts read and write without a file source.
    pub(crate) root: Option<PathBuf>,
    /// The files being executed, innermost last (`exec` looks beside the current one).
    pub(crate) executing: Vec<PathBuf>,
    /// Where scripts and the file functions read, when the host gives one (mods, volumes).
    pub(crate) source: Option<Rc<dyn FileSource>>,
    /// `findFirstFile` / `findNextFile`: the pattern, its matches and the next one.
    pub(crate) search: Option<(String, Vec<String>, usize)>,
}

/// Read-only files as a search path offers them: relative, `/`-separated paths.
pub trait FileSource {
    /// A file's bytes, or a message naming the file and the cause.
    fn read(&self, path: &str) -> Result<Vec<u8>, String>;
    /// True when `path` is a file.
    fn is_file(&self, path: &str) -> bool;
    /// Every file whose path matches `pattern` (`*`, `?`, without case), in path order.
    fn find(&self, pattern: &str) -> Vec<String>;
}

/// Most files a folder walk lists (`findFirstFile` without a file source).
const MAX_LISTED: usize = 100_000;

/// The files under `root` matching `pattern`, as paths relative to it (`/`-separated), sorted.
pub(crate) fn find_in_folder(root: &Path, pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    walk(root, root, 0, &mut out);
    out.retain(|p| wildcard(pattern, p));
    out.sort();
    out
}

fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<String>) {
    if depth > 32 || out.len() >= MAX_LISTED {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        let p: PathBuf = e.path();
        if kind.is_dir() {
            walk(root, &p, depth + 1, out);
        } else if kind.is_file()
            && let Ok(rel) = p.strip_prefix(root)
        {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// `*` any run, `?` one character, without case (`strcmp`-style matching for `findFirstFile`,
/// object-name searches and the like).
pub(crate) fn wildcard(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.replace('\\', "/").to_lowercase().chars().collect();
    let n: Vec<char> = name.to_lowercase().chars().collect();
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}
