//! Built-ins: strings: length, case, search, replace, trim, escapes, characters.

use super::*;

pub(super) fn register(c: &mut Console) {
    // ---- strings ----
    pure_fn!(c, "strlen", 2, 2, "strlen(string)", |_c, a| Value::Int(a.str(0).len() as i64));
    pure_fn!(c, "strupr", 2, 2, "strupr(string)", |_c, a| a.str(0).to_ascii_uppercase());
    pure_fn!(c, "strlwr", 2, 2, "strlwr(string)", |_c, a| a.str(0).to_ascii_lowercase());
    pure_fn!(c, "strcmp", 3, 3, "strcmp(string one, string two)", |_c, a| {
        Value::Int(a.str(0).cmp(&a.str(1)) as i64)
    });
    pure_fn!(c, "stricmp", 3, 3, "stricmp(string one, string two)", |_c, a| {
        Value::Int(a.str(0).to_ascii_lowercase().cmp(&a.str(1).to_ascii_lowercase()) as i64)
    });
    pure_fn!(c, "strstr", 3, 3, "strstr(string one, string two)", |_c, a| {
        match find_bytes(a.str(0).as_bytes(), a.str(1).as_bytes(), 0) {
            Some(i) => Value::Int(i as i64),
            None => Value::Int(-1),
        }
    });
    pure_fn!(c, "strpos", 3, 4, "strpos(string haystack, string needle, [int offset])", |_c, a| {
        let off = a.i32(2).max(0) as usize;
        match find_bytes(a.str(0).as_bytes(), a.str(1).as_bytes(), off) {
            Some(i) => Value::Int(i as i64),
            None => Value::Int(-1),
        }
    });
    pure_fn!(c, "strchr", 3, 3, "strchr(string, char)", |_c, a| {
        let s = a.str(0);
        let ch = a.str(1).chars().next();
        match ch.and_then(|ch| s.find(ch)) {
            Some(i) => Value::str(&s[i..]),
            None => Value::Empty,
        }
    });
    c.register_function("strreplace", 4, 4, "strreplace(source, from, to)", |c, a| {
        let (src, from, to) = (a.str(0), a.str(1), a.str(2));
        if from.is_empty() {
            return a.get(0);
        }
        if to.len() > from.len() {
            let n = src.matches(&*from).count();
            if src.len().saturating_add(n.saturating_mul(to.len() - from.len()))
                > crate::value::MAX_STRING_LEN
            {
                c.error(&format!(
                    "strreplace: the result would be over {} bytes; unchanged",
                    crate::value::MAX_STRING_LEN
                ));
                return a.get(0);
            }
        }
        Value::str(src.replace(&*from, &to))
    });
    pure_fn!(c, "getSubStr", 4, 4, "getSubStr(string, start, numChars)", |_c, a| {
        substr(&a.str(0), i64::from(a.i32(1)), i64::from(a.i32(2)))
    });
    pure_fn!(c, "trim", 2, 2, "trim(string)", |_c, a| {
        a.str(0).trim_matches([' ', '\t', '\n', '\r']).to_string()
    });
    pure_fn!(c, "ltrim", 2, 2, "ltrim(string)", |_c, a| {
        a.str(0).trim_start_matches([' ', '\t', '\n', '\r']).to_string()
    });
    pure_fn!(c, "rtrim", 2, 2, "rtrim(string)", |_c, a| {
        a.str(0).trim_end_matches([' ', '\t', '\n', '\r']).to_string()
    });
    pure_fn!(c, "stripChars", 3, 3, "stripChars(string, chars)", |_c, a| {
        let chars = a.str(1);
        a.str(0).chars().filter(|c| !chars.contains(*c)).collect::<String>()
    });
    pure_fn!(c, "collapseEscape", 2, 2, "collapseEscape(text)", |_c, a| collapse_escape(&a.str(0)));
    pure_fn!(c, "expandEscape", 2, 2, "expandEscape(text)", |_c, a| expand_escape(&a.str(0)));
    c.register_function("addTaggedString", 2, 2, "addTaggedString(string)", |c, a| {
        let s = a.str(0).into_owned();
        c.add_tagged_string(&s)
    });
    c.register_function("getTaggedString", 2, 2, "getTaggedString(tag)", |c, a| c.tagged_string(&a.str(0)));
    c.register_function("removeTaggedString", 2, 2, "removeTaggedString(tag)", |c, a| {
        let t = a.str(0);
        let id = crate::value::atoi(t.strip_prefix('\u{1}').unwrap_or(&t));
        c.remove_tagged_string(u32::try_from(id).unwrap_or(0))
    });
    c.register_function("detag", 2, 2, "detag(string)", |c, a| c.tagged_string(&a.str(0)));
    c.register_function("nextToken", 4, 4, "nextToken(str, tokenVar, delim)", |c, a| {
        let s = a.str(0).into_owned();
        let delim = a.str(2).into_owned();
        let is_d = |ch: char| delim.contains(ch);
        let rest = s.trim_start_matches(is_d);
        let end = rest.find(is_d).unwrap_or(rest.len());
        let token = rest[..end].to_string();
        let remain = rest[end..].trim_start_matches(is_d).to_string();
        let var = a.str(1).trim_start_matches('%').to_string();
        let n = c.names.intern(&var);
        c.set_caller_local(n, Value::str(token));
        remain
    });
}
