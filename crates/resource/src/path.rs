//! Resource paths: relative, `/`-separated, compared without case (Tribes 2 ran on Windows,
//! and its scripts and volumes spell the same file many ways).

/// The path's key: lower case, `/` separators, no `.` parts; `None` when it is absolute or
/// climbs out with `..`.
pub fn key(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let p = path.replace('\\', "/");
    if p.starts_with('/') || p.contains(':') {
        return None;
    }
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            _ => parts.push(part),
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/").to_lowercase())
}

/// True when `name` matches `pattern` (`*` any run, `?` one character), without case.
pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let n: Vec<char> = name.to_lowercase().chars().collect();
    // Iterative wildcard match with one backtrack point (the last `*`).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fold_case_and_refuse_escapes() {
        assert_eq!(key("Scripts\\Game.CS").as_deref(), Some("scripts/game.cs"));
        assert_eq!(key("./a//b/./c.png").as_deref(), Some("a/b/c.png"));
        for bad in ["../secret", "a/../../b", "/etc/passwd", "C:/x", "", ".", "a/.."] {
            assert_eq!(key(bad), None, "{bad}");
        }
    }

    #[test]
    fn wildcards() {
        assert!(matches("scripts/*.cs", "Scripts/Game.cs"));
        assert!(matches("*", "anything/at/all"));
        assert!(matches("ter?ain/*.png", "terrain/grass.PNG"));
        assert!(!matches("*.cs", "game.dso"));
        assert!(matches("a*b*c", "aXXbYYc"));
        assert!(!matches("a*b*c", "aXXbYY"));
    }
}
