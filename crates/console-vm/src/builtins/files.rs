//! Built-ins: files, confined to the file root.

use super::*;

/// The files matching `pattern`, from the file source or the file root.
fn matching_files(c: &Console, pattern: &str) -> Vec<String> {
    match &c.files.source {
        Some(src) => src.find(pattern),
        None => {
            let root = c.files.root.clone().unwrap_or_else(|| std::path::PathBuf::from("."));
            crate::files::find_in_folder(&root, pattern)
        }
    }
}

pub(super) fn register(c: &mut Console) {
    // ---- files (confined to the file root) ----
    c.register_function("isFile", 2, 2, "isFile(fileName)", |c, a| match &c.files.source {
        Some(src) => src.is_file(&a.str(0)),
        None => c.resolve_path(&a.str(0)).is_some_and(|p| p.is_file()),
    });
    c.register_function("findFirstFile", 2, 2, "findFirstFile(pattern) - the first file matching", |c, a| {
        let pattern = a.str(0).into_owned();
        let found = matching_files(c, &pattern);
        let first = found.first().cloned().unwrap_or_default();
        c.files.search = Some((pattern, found, 1));
        first
    });
    c.register_function("findNextFile", 2, 2, "findNextFile(pattern) - the next file matching", |c, a| {
        let pattern = a.str(0).into_owned();
        match c.files.search.as_mut() {
            Some((p, found, next)) if *p == pattern => {
                let f = found.get(*next).cloned().unwrap_or_default();
                *next += 1;
                f
            }
            _ => {
                let found = matching_files(c, &pattern);
                let first = found.first().cloned().unwrap_or_default();
                c.files.search = Some((pattern, found, 1));
                first
            }
        }
    });
    c.register_function("getFileCount", 2, 2, "getFileCount(pattern) - how many files match", |c, a| {
        matching_files(c, &a.str(0)).len() as i64
    });
    c.register_function(
        "getFileCRC",
        2,
        2,
        "getFileCRC(fileName) - the file's CRC-32, -1 if none",
        |c, a| {
            let bytes = match &c.files.source {
                Some(src) => src.read(&a.str(0)).ok(),
                None => c.resolve_path(&a.str(0)).and_then(|p| std::fs::read(p).ok()),
            };
            bytes.map_or(-1, |b| i64::from(crc32fast::hash(&b) as i32))
        },
    );
    c.register_function("fileBase", 2, 2, "fileBase(fileName)", |_c, a| {
        let s = a.str(0);
        let name = s.rsplit(['/', '\\']).next().unwrap_or("");
        match name.rfind('.') {
            Some(i) => name[..i].to_string(),
            None => name.to_string(),
        }
    });
    c.register_function("fileName", 2, 2, "fileName(fileName)", |_c, a| {
        a.str(0).rsplit(['/', '\\']).next().unwrap_or("").to_string()
    });
    c.register_function("fileExt", 2, 2, "fileExt(fileName)", |_c, a| {
        let s = a.str(0);
        let name = s.rsplit(['/', '\\']).next().unwrap_or("");
        match name.rfind('.') {
            Some(i) => name[i..].to_string(),
            None => String::new(),
        }
    });
    c.register_function("filePath", 2, 2, "filePath(fileName)", |_c, a| {
        let s = a.str(0);
        match s.rfind(['/', '\\']) {
            Some(i) => s[..i].to_string(),
            None => String::new(),
        }
    });
    c.register_function("expandFilename", 2, 2, "expandFilename(fileName)", |c, a| {
        let s = a.str(0).into_owned();
        let s = s.strip_prefix("~/").map(|r| r.to_string()).unwrap_or(s);
        if let Some(rest) = s.strip_prefix("./") {
            let dir = c
                .files
                .executing
                .last()
                .and_then(|p| p.parent())
                .and_then(|d| match &c.files.root {
                    // Through a file source the stack holds paths relative to the mods.
                    Some(r) if c.files.source.is_none() => d.strip_prefix(r).ok(),
                    _ => Some(d),
                })
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default();
            if dir.is_empty() { rest.to_string() } else { format!("{dir}/{rest}") }
        } else {
            s
        }
    });
}
