//! Built-ins: words, fields and records (getWord, setField, getRecordCount, ...).

use super::*;

pub(super) fn register(c: &mut Console) {
    // Words, fields and records.
    for (kind, set) in [("Word", WORD_SEP), ("Field", FIELD_SEP), ("Record", RECORD_SEP)] {
        c.register_function(&format!("get{kind}"), 3, 3, &format!("get{kind}(text, index)"), move |c, a| {
            let i = a.i32(1);
            if i < 0 { Value::Empty } else { c.words.word(&a.get(0), i as usize, set) }
        });
        c.register_function(
            &format!("get{kind}s"),
            3,
            4,
            &format!("get{kind}s(text, index [, endIndex])"),
            move |_c, a| {
                let st = a.i32(1).max(0) as usize;
                let en = if a.len() > 2 { a.i32(2).max(-1) } else { i32::MAX };
                if en < 0 {
                    return String::new();
                }
                get_units(&a.str(0), st, en as usize, set).to_string()
            },
        );
        c.register_function(
            &format!("get{kind}Count"),
            2,
            2,
            &format!("get{kind}Count(text)"),
            move |_c, a| Value::Int(unit_count(&a.str(0), set) as i64),
        );
        c.register_function(
            &format!("set{kind}"),
            4,
            4,
            &format!("set{kind}(text, index, replace)"),
            move |c, a| {
                let (text, index, value) = (a.str(0), a.i32(1).max(0) as usize, a.str(2));
                // Missing units are padded with one separator each: bound the result first.
                let grows = index.saturating_sub(unit_count(&text, set));
                if text.len().saturating_add(grows).saturating_add(value.len()) > crate::value::MAX_STRING_LEN
                {
                    c.error(&format!(
                        "set{kind}: index {index} would make a string over {} bytes; unchanged",
                        crate::value::MAX_STRING_LEN
                    ));
                    return a.get(0);
                }
                Value::str(set_unit(&text, index, &value, set))
            },
        );
        c.register_function(
            &format!("remove{kind}"),
            3,
            3,
            &format!("remove{kind}(text, index)"),
            move |_c, a| {
                if a.i32(1) < 0 {
                    a.get(0)
                } else {
                    Value::str(remove_unit(&a.str(0), a.i32(1) as usize, set))
                }
            },
        );
    }
    c.register_function("firstWord", 2, 2, "firstWord(text)", |_c, a| {
        get_unit(&a.str(0), 0, WORD_SEP).to_string()
    });
    c.register_function("restWords", 2, 2, "restWords(text)", |_c, a| {
        let s = a.str(0);
        match s.find([' ', '\t', '\n']) {
            Some(i) => s[i + 1..].to_string(),
            None => String::new(),
        }
    });
}
