//! A checked datablock field's kind and spec, shared by `classes` (the engine's classes) and
//! `effects` (the effect and water classes), which both list fields and neither of which
//! should import the other's lists through it.

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
