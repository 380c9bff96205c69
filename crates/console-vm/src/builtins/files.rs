//! Built-ins: files, confined to the file root.

use super::*;

pub(super) fn register(c: &mut Console) {
    // ---- files (confined to the file root) ----
    c.register_function("isFile", 2, 2, "isFile(fileName)", |c, a| {
        c.resolve_path(&a.str(0)).is_some_and(|p| p.is_file())
    });
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
                .file_stack
                .last()
                .and_then(|p| p.parent())
                .and_then(|d| c.file_root.as_ref().and_then(|r| d.strip_prefix(r).ok()))
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default();
            if dir.is_empty() { rest.to_string() } else { format!("{dir}/{rest}") }
        } else {
            s
        }
    });
}
