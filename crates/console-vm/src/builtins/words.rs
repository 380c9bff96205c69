//! Built-ins: words, fields and records (getWord, setField, getRecordCount, ...).

use super::*;

pub(super) fn register(c: &mut Console) {
    // Words, fields and records.
    pure_units::<0>(c, "Word");
    pure_units::<1>(c, "Field");
    pure_units::<2>(c, "Record");
    for (kind, set) in [("Word", WORD_SEP), ("Field", FIELD_SEP), ("Record", RECORD_SEP)] {
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
    pure_fn!(c, "firstWord", 2, 2, "firstWord(text)", |_c, a| {
        get_unit(&a.str(0), 0, WORD_SEP).to_string()
    });
    pure_fn!(c, "restWords", 2, 2, "restWords(text)", |_c, a| {
        let s = a.str(0);
        match s.find([' ', '\t', '\n']) {
            Some(i) => s[i + 1..].to_string(),
            None => String::new(),
        }
    });
}

/// The separator set of unit kind `K` (words, fields, records).
const fn unit_set<const K: u8>() -> &'static str {
    match K {
        0 => WORD_SEP,
        1 => FIELD_SEP,
        _ => RECORD_SEP,
    }
}

/// `get{kind}`, `get{kind}s` and `get{kind}Count` of unit kind `K`, registered as pure.
fn pure_units<const K: u8>(c: &mut Console, kind: &str) {
    c.register_pure(&format!("get{kind}"), 3, 3, &format!("get{kind}(text, index)"), |w, argv| {
        let a = CallArgs { this: None, argv };
        let i = a.i32(1);
        if i < 0 {
            Value::Empty
        } else {
            match argv.first() {
                Some(v) => w.word(v, i as usize, unit_set::<K>()),
                None => Value::Empty,
            }
        }
    });
    c.register_pure(
        &format!("get{kind}s"),
        3,
        4,
        &format!("get{kind}s(text, index [, endIndex])"),
        |_w, argv| {
            let a = CallArgs { this: None, argv };
            let st = a.i32(1).max(0) as usize;
            let en = if a.len() > 2 { a.i32(2).max(-1) } else { i32::MAX };
            if en < 0 {
                return Value::Empty;
            }
            Value::str(get_units(&a.str(0), st, en as usize, unit_set::<K>()))
        },
    );
    c.register_pure(&format!("get{kind}Count"), 2, 2, &format!("get{kind}Count(text)"), |_w, argv| {
        let a = CallArgs { this: None, argv };
        Value::Int(unit_count(&a.str(0), unit_set::<K>()) as i64)
    });
}

#[cfg(test)]
mod tests {
    use crate::{BufferSink, Console};

    fn run(con: &mut Console, src: &str) -> String {
        con.eval(src).expect("runs").to_string()
    }

    /// The word functions called in place by the fast loop (pure natives) give what the
    /// interpreter's calls give: on a string appended to between calls (the word cache holds
    /// the text, so the append copies), numbers, negative and missing indices, fields and
    /// records; a script function defined over `getWord` later is called instead; a wrong
    /// count still warns.
    #[test]
    fn pure_word_calls_in_loops_match_the_interpreter() {
        let mut con = Console::new();
        let out = BufferSink::new();
        con.set_output(Box::new(out.clone()));
        con.eval(
            "function f(%n) {
                %s = \"a b c\";
                for (%i = 0; %i < %n; %i++) {
                   %r = %r @ getWord(%s, %i % 4) @ \",\";
                   %s = %s @ \" x\" @ %i;
                }
                return %r;
             }
             function g(%n) {
                for (%i = 0; %i < %n; %i++)
                   %r = %r @ getWord(12345 + %i, 0) @ getWord(\"p q\", %i - 1) @ getField(\"a b\\tc\", %i)
                      @ getRecord(\"r1\\nr2\", %i) @ getWordCount(\"a  b\") @ getWords(\"a b c d\", %i, 2)
                      @ strlen(getWord(\"abc de\", %i)) @ \"|\";
                return %r;
             }",
        )
        .expect("declares");
        for _ in 0..2 {
            assert_eq!(run(&mut con, "return f(6);"), "a,b,c,x0,a,b,");
            assert_eq!(run(&mut con, "return g(3);"), "12345a br13a b c3|12346pcr23b c2|12347q3c0|");
        }
        run(&mut con, "trace(1);");
        assert_eq!(run(&mut con, "return g(3);"), "12345a br13a b c3|12346pcr23b c2|12347q3c0|");
        run(&mut con, "trace(0);");
        con.eval("function getWord(%t, %i) { return \"S\"; }").expect("redefines");
        assert_eq!(run(&mut con, "return f(2);"), "S,S,");
        out.clear();
        con.eval("function w(%n) { for (%i = 0; %i < %n; %i++) %x = %x @ getWordCount(); return %x; }")
            .expect("declares");
        assert_eq!(run(&mut con, "return w(2);"), "");
        assert_eq!(
            out.stderr().lines().filter(|l| l.ends_with("getWordCount: wrong number of arguments.")).count(),
            2
        );
    }
}
