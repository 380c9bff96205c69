//! A checked datablock field's kind and spec, shared by `classes` (the engine's classes) and
//! `effects` (the effect and water classes), which both list fields and neither of which
//! should import the other's lists through it.
//!
//! Each kind is a console field type too ([`field_type`], V12's `Con::registerType` through
//! the console's registry): the inspector's `apply()` refuses, with the reason, a value that
//! `preload` would reset, and keeps the old one. Empty text is "unset" and always taken.

use v12_console_vm::{Console, Editor, FieldLookup, FieldType, FieldTypeDef, Value};

/// What a checked field may hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A number in `min..=max`; the default when unset or junk.
    Num { min: f64, max: f64, default: f64 },
    /// A whole number in `min..=max`.
    Int { min: i64, max: i64, default: i64 },
    /// `true`, `false` or a number.
    Bool(bool),
    /// Three numbers (a point or an extent).
    Point,
    /// A colour: three or four numbers from 0 to 1 ("r g b" or "r g b a").
    Color,
}

/// A checked datablock field: its class (the first that has it), name and kind.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldSpec {
    pub class: &'static str,
    pub name: &'static str,
    pub kind: Kind,
}

pub(crate) const fn num(
    class: &'static str,
    name: &'static str,
    min: f64,
    max: f64,
    default: f64,
) -> FieldSpec {
    FieldSpec { class, name, kind: Kind::Num { min, max, default } }
}

pub(crate) const fn int(
    class: &'static str,
    name: &'static str,
    min: i64,
    max: i64,
    default: i64,
) -> FieldSpec {
    FieldSpec { class, name, kind: Kind::Int { min, max, default } }
}

pub(crate) const fn flag(class: &'static str, name: &'static str, default: bool) -> FieldSpec {
    FieldSpec { class, name, kind: Kind::Bool(default) }
}

pub(crate) const fn point(class: &'static str, name: &'static str) -> FieldSpec {
    FieldSpec { class, name, kind: Kind::Point }
}

pub(crate) const fn color(class: &'static str, name: &'static str) -> FieldSpec {
    FieldSpec { class, name, kind: Kind::Color }
}

/// The largest sane magnitude of a force, speed or damage (anything past it is a typo).
pub(crate) const BIG: f64 = 1.0e6;

/// What is wrong with `text` for a field of `kind`, or `None`.
pub(crate) fn check(kind: Kind, text: &str) -> Option<String> {
    let number = || text.parse::<f64>().ok().filter(|v| v.is_finite());
    match kind {
        Kind::Num { min, max, .. } => match number() {
            None => Some("is not a number".into()),
            Some(v) if v < min || v > max => Some(format!("is outside {min} to {max}")),
            Some(_) => None,
        },
        Kind::Int { min, max, .. } => match number() {
            Some(v) if v.fract() == 0.0 && v >= min as f64 && v <= max as f64 => None,
            Some(_) => Some(format!("is not a whole number from {min} to {max}")),
            None => Some("is not a number".into()),
        },
        Kind::Bool(_) => {
            let ok =
                text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false") || number().is_some();
            (!ok).then(|| "is not true, false or a number".into())
        }
        Kind::Point => {
            let words: Vec<&str> = text.split_whitespace().collect();
            let ok = words.len() == 3 && words.iter().all(|w| w.parse::<f64>().is_ok_and(f64::is_finite));
            (!ok).then(|| "is not three numbers \"x y z\"".into())
        }
        Kind::Color => {
            let words: Vec<&str> = text.split_whitespace().collect();
            let ok = (3..=4).contains(&words.len())
                && words.iter().all(|w| w.parse::<f64>().is_ok_and(|v| (0.0..=1.0).contains(&v)));
            (!ok).then(|| "is not a colour \"r g b a\" of numbers from 0 to 1".into())
        }
    }
}

/// The console field type of `kind` (registered on first use; ranges are part of the name,
/// and kept in the type's options for its parser).
pub(crate) fn field_type(con: &mut Console, kind: Kind) -> FieldType {
    let (name, editor, options) = match kind {
        Kind::Num { min, max, .. } => (
            format!("TypeV12Number {min} {max}"),
            Editor::Number,
            vec!["num".into(), min.to_string(), max.to_string()],
        ),
        Kind::Int { min, max, .. } => (
            format!("TypeV12Int {min} {max}"),
            Editor::Number,
            vec!["int".into(), min.to_string(), max.to_string()],
        ),
        Kind::Bool(_) => ("TypeV12Flag".to_string(), Editor::Bool, vec!["bool".into()]),
        Kind::Point => ("TypeV12Point".to_string(), Editor::Point, vec!["point".into()]),
        Kind::Color => ("TypeV12Color".to_string(), Editor::Color, vec!["color".into()]),
    };
    if let Some(t) = con.field_type_named(&name) {
        return t;
    }
    let mut def = FieldTypeDef::new(&name, editor, parse_checked);
    def.options = options;
    con.register_field_type(def).unwrap_or(FieldType::String)
}

/// The kind a type made by [`field_type`] checks (defaults do not matter to a check).
fn kind_of(def: &FieldTypeDef) -> Option<Kind> {
    let bound = |i: usize| def.options.get(i).and_then(|t| t.parse::<f64>().ok());
    Some(match def.options.first().map(String::as_str)? {
        "num" => Kind::Num { min: bound(1)?, max: bound(2)?, default: 0.0 },
        "int" => Kind::Int { min: bound(1)? as i64, max: bound(2)? as i64, default: 0 },
        "bool" => Kind::Bool(false),
        "point" => Kind::Point,
        "color" => Kind::Color,
        _ => return None,
    })
}

/// A checked field's parser: empty (unset) or a value [`check`] takes, kept as written.
fn parse_checked(def: &FieldTypeDef, text: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(Value::Empty);
    }
    if t.len() > v12_console_vm::field_types::MAX_FIELD_TEXT {
        return Err("is too long".into());
    }
    let kind = kind_of(def).ok_or_else(|| format!("{} is not a checked type", def.name))?;
    match check(kind, t) {
        Some(problem) => Err(format!("\"{t}\" {problem}")),
        None => Ok(Value::from(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_kinds_are_field_types_that_refuse_what_preload_would_reset() {
        let mut con = Console::new();
        let speed = field_type(&mut con, Kind::Num { min: 0.0, max: 1000.0, default: 8.0 });
        assert_eq!(
            field_type(&mut con, Kind::Num { min: 0.0, max: 1000.0, default: 1.0 }),
            speed,
            "one type a range"
        );
        let slot = field_type(&mut con, Kind::Int { min: 0, max: 31, default: 0 });
        let flag = field_type(&mut con, Kind::Bool(true));
        let at = field_type(&mut con, Kind::Point);
        let tint = field_type(&mut con, Kind::Color);
        con.register_class("Probe", "SimObject").unwrap();
        for (name, ty) in [("speed", speed), ("slot", slot), ("flag", flag), ("at", at), ("tint", tint)] {
            con.add_field("Probe", name, ty, Value::Empty);
        }
        con.eval("new Probe(P) { speed = 8; };").unwrap();
        let p = con.find_object_str("P").unwrap();
        for (field, bad) in [
            ("speed", "fast"),
            ("speed", "2000"),
            ("slot", "1.5"),
            ("flag", "maybe"),
            ("at", "1 2"),
            ("tint", "2 0 0"),
        ] {
            let e = con.set_field_checked(p, field, bad).expect_err(bad);
            assert!(e.contains(bad), "{e}");
        }
        assert_eq!(con.get_field(p, "speed").as_text(), "8", "a refused value keeps the old one");
        for (field, good) in [
            ("speed", "9.5"),
            ("slot", "3"),
            ("flag", "true"),
            ("at", "1 2 3"),
            ("tint", "1 0.5 0"),
            ("speed", "  "),
        ] {
            con.set_field_checked(p, field, good).expect(good);
        }
        assert_eq!(con.get_field(p, "speed").as_text(), "", "empty is unset");
        assert_eq!(con.field_type_def(at).map(|d| d.editor), Some(Editor::Point));
    }
}
