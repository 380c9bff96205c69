//! Field types (V12's `Con::registerType`): a registered field's type is an index into a
//! registry of [`FieldTypeDef`]s, each with how text is parsed and checked, how a value is
//! written back as text, and which inspector editor shows it. The built-in types (string,
//! int, float, bool, point, rotation, colours, datablock reference) are entries like any a
//! host registers (`Console::register_field_type`), made when the registry is.
//!
//! A script's `%obj.field = v` converts only the numeric built-ins (int, float, bool) as it
//! always has; every other type keeps the text written, so a host's checks (a datablock's
//! `preload`) still see junk and report it. Checking is what the inspector does before it
//! changes a field: `parse` refuses a bad value with a message and the old value stays.

use crate::value::Value;
use hashbrown::HashMap;

/// A field's type: an index into the console's registry of field types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldType(pub(crate) u16);

// The built-ins keep the names they had as enum variants (`FieldType::Int`), so every
// `add_field` call reads as before.
#[allow(non_upper_case_globals)]
impl FieldType {
    /// TypeS32: a whole number (script writes convert).
    pub const Int: FieldType = FieldType(0);
    /// TypeF32: a number (script writes convert).
    pub const Float: FieldType = FieldType(1);
    /// TypeBool (script writes convert to 0 or 1).
    pub const Bool: FieldType = FieldType(2);
    /// TypeString: any text.
    pub const String: FieldType = FieldType(3);
    /// TypePoint3F: three numbers, `"x y z"`.
    pub const Point: FieldType = FieldType(4);
    /// TypeAngAxisF: a rotation as an axis and an angle in degrees, `"x y z deg"`.
    pub const Rotation: FieldType = FieldType(5);
    /// TypeColorF: three or four numbers from 0 to 1.
    pub const ColorF: FieldType = FieldType(6);
    /// TypeColorI: three or four whole numbers from 0 to 255.
    pub const ColorI: FieldType = FieldType(7);
    /// TypeDataBlock: the name or id of any datablock, or empty.
    pub const DataBlock: FieldType = FieldType(8);

    /// Its index in the registry.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// What a script write stores: the numeric built-ins convert, the rest keep the value.
    #[inline]
    pub(crate) fn coerce(self, v: Value) -> Value {
        match self {
            FieldType::Int => Value::Int(i64::from(v.to_i32())),
            FieldType::Float => Value::Float(f64::from(v.to_f64() as f32)),
            FieldType::Bool => Value::Int(i64::from(v.truthy())),
            _ => v,
        }
    }
}

/// The inspector's editor for a type (V12's GuiInspector picks one per console type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Editor {
    /// A line of text.
    Text,
    /// A line of text holding one number.
    Number,
    /// A check box.
    Bool,
    /// A colour's components and a swatch.
    Color,
    /// A menu of the datablocks of the type's class.
    DataBlock,
    /// A menu of the type's values.
    Enum,
    /// A point's three components.
    Point,
    /// A rotation's axis and angle.
    Rotation,
}

/// What a type's `parse` may ask of the console: whether a datablock exists.
pub trait FieldLookup {
    /// `Ok(canonical text: its name, or its id)` when `text` names an object of class
    /// `class` or a subclass (any datablock when `class` is empty); `Err(why)` otherwise.
    fn datablock(&self, text: &str, class: &str) -> Result<String, String>;
}

/// Checks and converts text for a field of type `def`: the value to store, or why not.
pub type ParseFn = fn(&FieldTypeDef, &str, &dyn FieldLookup) -> Result<Value, String>;
/// Writes a value of type `def` as the text `save` and the inspector show.
pub type FormatFn = fn(&FieldTypeDef, &Value) -> String;

/// A registered field type.
#[derive(Clone, Debug)]
pub struct FieldTypeDef {
    /// Its name (`TypeS32`, ...), unique without regard to case.
    pub name: String,
    /// The inspector's editor.
    pub editor: Editor,
    /// Checks and converts text.
    pub parse: ParseFn,
    /// Writes a value as text.
    pub format: FormatFn,
    /// An enum's values (the first spelling of each is the canonical one).
    pub options: Vec<String>,
    /// A datablock reference's class (empty: any datablock).
    pub class: String,
}

impl FieldTypeDef {
    /// A type with the given parser and the plain formatter.
    pub fn new(name: &str, editor: Editor, parse: ParseFn) -> Self {
        FieldTypeDef {
            name: name.to_string(),
            editor,
            parse,
            format: format_plain,
            options: Vec::new(),
            class: String::new(),
        }
    }

    /// An enum: one of `options`, matched without regard to case.
    pub fn enumeration(name: &str, options: &[&str]) -> Self {
        let mut d = FieldTypeDef::new(name, Editor::Enum, parse_enum);
        d.options = options.iter().map(|s| s.to_string()).collect();
        d
    }

    /// A reference to an object of `class` or a subclass (a datablock, a profile; empty: any
    /// datablock). Its editor is a menu of those objects.
    pub fn datablock(name: &str, class: &str) -> Self {
        let mut d = FieldTypeDef::new(name, Editor::DataBlock, parse_datablock);
        d.class = class.to_string();
        d
    }

    /// Checks and converts text.
    pub fn parse_text(&self, text: &str, lookup: &dyn FieldLookup) -> Result<Value, String> {
        (self.parse)(self, text, lookup)
    }

    /// Writes a value as text.
    pub fn format_value(&self, v: &Value) -> String {
        (self.format)(self, v)
    }
}

/// Most field types one console holds.
pub const MAX_FIELD_TYPES: usize = 4096;

/// The registry of field types.
#[derive(Debug)]
pub(crate) struct FieldTypes {
    defs: Vec<FieldTypeDef>,
    by_name: HashMap<String, u16>,
}

impl Default for FieldTypes {
    fn default() -> Self {
        let mut t = FieldTypes { defs: Vec::new(), by_name: HashMap::new() };
        // In the order of the constants above.
        for d in [
            FieldTypeDef::new("TypeS32", Editor::Number, parse_int),
            FieldTypeDef::new("TypeF32", Editor::Number, parse_float),
            FieldTypeDef::new("TypeBool", Editor::Bool, parse_bool),
            FieldTypeDef::new("TypeString", Editor::Text, parse_string),
            FieldTypeDef::new("TypePoint3F", Editor::Point, parse_point),
            FieldTypeDef::new("TypeAngAxisF", Editor::Rotation, parse_rotation),
            FieldTypeDef::new("TypeColorF", Editor::Color, parse_color_f),
            FieldTypeDef::new("TypeColorI", Editor::Color, parse_color_i),
            FieldTypeDef::datablock("TypeDataBlock", ""),
        ] {
            let _ = t.register(d);
        }
        t
    }
}

impl FieldTypes {
    /// Registers `def` (replacing a type of the same name, which keeps its index); `None`
    /// when the registry is full.
    pub(crate) fn register(&mut self, def: FieldTypeDef) -> Option<FieldType> {
        let key = def.name.to_ascii_lowercase();
        if let Some(&i) = self.by_name.get(&key) {
            if let Some(slot) = self.defs.get_mut(usize::from(i)) {
                *slot = def;
            }
            return Some(FieldType(i));
        }
        if self.defs.len() >= MAX_FIELD_TYPES {
            return None;
        }
        let i = self.defs.len() as u16;
        self.defs.push(def);
        self.by_name.insert(key, i);
        Some(FieldType(i))
    }

    pub(crate) fn get(&self, ty: FieldType) -> Option<&FieldTypeDef> {
        self.defs.get(ty.index())
    }

    pub(crate) fn named(&self, name: &str) -> Option<FieldType> {
        self.by_name.get(&name.to_ascii_lowercase()).map(|&i| FieldType(i))
    }
}

/// Longest text a checked field takes (a mistaken paste is refused, not stored).
pub const MAX_FIELD_TEXT: usize = 4096;

fn format_plain(_: &FieldTypeDef, v: &Value) -> String {
    v.as_text().into_owned()
}

fn parse_string(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    if t.len() > MAX_FIELD_TEXT {
        return Err(format!("text longer than {MAX_FIELD_TEXT} bytes"));
    }
    Ok(Value::from(t))
}

fn number(t: &str) -> Result<f64, String> {
    let s = t.trim();
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(f),
        _ => Err(format!("\"{s}\" is not a number")),
    }
}

fn parse_int(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    let s = t.trim();
    match s.parse::<i32>() {
        Ok(i) => Ok(Value::Int(i64::from(i))),
        Err(_) => Err(format!("\"{s}\" is not a whole number")),
    }
}

fn parse_float(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    Ok(Value::Float(f64::from(number(t)? as f32)))
}

fn parse_bool(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    match t.trim().to_ascii_lowercase().as_str() {
        "1" | "true" => Ok(Value::Int(1)),
        "0" | "false" | "" => Ok(Value::Int(0)),
        s => Err(format!("\"{s}\" is not true or false")),
    }
}

/// `n` numbers (or `n - 1` to `n` when `optional_last`), each through `check`.
fn numbers(t: &str, n: usize, optional_last: bool, what: &str) -> Result<Vec<f64>, String> {
    let parts: Vec<&str> = t.split_whitespace().collect();
    if parts.len() != n && !(optional_last && parts.len() + 1 == n) {
        return Err(format!("\"{}\" is not {what}", t.trim()));
    }
    parts.iter().map(|p| number(p)).collect()
}

fn join(v: &[f64]) -> Value {
    let parts: Vec<String> = v.iter().map(|f| Value::Float(*f).as_text().into_owned()).collect();
    Value::from(parts.join(" "))
}

fn parse_point(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    Ok(join(&numbers(t, 3, false, "a point (three numbers)")?))
}

fn parse_rotation(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    let v = numbers(t, 4, false, "a rotation (an axis and an angle)")?;
    if v.iter().take(3).all(|c| *c == 0.0) && v.get(3).is_some_and(|a| *a != 0.0) {
        return Err(format!("\"{}\": a rotation's axis cannot be zero", t.trim()));
    }
    Ok(join(&v))
}

fn parse_color_f(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    let v = numbers(t, 4, true, "a colour (three or four numbers)")?;
    if v.iter().any(|c| !(0.0..=1.0).contains(c)) {
        return Err(format!("\"{}\": colour components are from 0 to 1", t.trim()));
    }
    Ok(join(&v))
}

fn parse_color_i(_: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    let v = numbers(t, 4, true, "a colour (three or four numbers)")?;
    if v.iter().any(|c| !(0.0..=255.0).contains(c) || c.fract() != 0.0) {
        return Err(format!("\"{}\": colour components are whole numbers from 0 to 255", t.trim()));
    }
    Ok(join(&v))
}

fn parse_enum(def: &FieldTypeDef, t: &str, _: &dyn FieldLookup) -> Result<Value, String> {
    let s = t.trim();
    match def.options.iter().find(|o| o.eq_ignore_ascii_case(s)) {
        Some(o) => Ok(Value::from(o.as_str())),
        None => Err(format!("\"{s}\" is not one of {}", def.options.join(", "))),
    }
}

fn parse_datablock(def: &FieldTypeDef, t: &str, lookup: &dyn FieldLookup) -> Result<Value, String> {
    let s = t.trim();
    if s.is_empty() {
        return Ok(Value::Empty);
    }
    lookup.datablock(s, &def.class).map(Value::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoBlocks;
    impl FieldLookup for NoBlocks {
        fn datablock(&self, text: &str, _class: &str) -> Result<String, String> {
            if text == "Known" { Ok("Known".into()) } else { Err(format!("no datablock {text}")) }
        }
    }

    fn p(t: &FieldTypes, ty: FieldType, s: &str) -> Result<String, String> {
        t.get(ty).expect("type").parse_text(s, &NoBlocks).map(|v| v.as_text().into_owned())
    }

    #[test]
    fn built_ins_check_and_normalise() {
        let t = FieldTypes::default();
        assert_eq!(p(&t, FieldType::Int, " 12 ").as_deref(), Ok("12"));
        assert!(p(&t, FieldType::Int, "12abc").is_err());
        assert!(p(&t, FieldType::Float, "nan").is_err());
        assert_eq!(p(&t, FieldType::Float, "0.5").as_deref(), Ok("0.5"));
        assert_eq!(p(&t, FieldType::Bool, "TRUE").as_deref(), Ok("1"));
        assert!(p(&t, FieldType::Bool, "maybe").is_err());
        assert_eq!(p(&t, FieldType::Point, "1  2 3").as_deref(), Ok("1 2 3"));
        assert!(p(&t, FieldType::Point, "1 2").is_err());
        assert!(p(&t, FieldType::Rotation, "0 0 0 90").is_err());
        assert_eq!(p(&t, FieldType::Rotation, "0 0 1 90").as_deref(), Ok("0 0 1 90"));
        assert!(p(&t, FieldType::ColorF, "1 0 2").is_err());
        assert_eq!(p(&t, FieldType::ColorI, "255 0 0").as_deref(), Ok("255 0 0"));
        assert!(p(&t, FieldType::ColorI, "255 0 0.5").is_err());
        assert_eq!(p(&t, FieldType::DataBlock, "Known").as_deref(), Ok("Known"));
        assert!(p(&t, FieldType::DataBlock, "Nope").is_err());
        assert!(p(&t, FieldType::String, &"x".repeat(MAX_FIELD_TEXT + 1)).is_err());
    }

    #[test]
    fn registering_by_name_replaces_and_enums_take_their_values() {
        let mut t = FieldTypes::default();
        let e = t.register(FieldTypeDef::enumeration("TypeSizing", &["right", "width"])).expect("room");
        assert_eq!(t.named("typesizing"), Some(e));
        assert_eq!(p(&t, e, "WIDTH").as_deref(), Ok("width"));
        assert!(p(&t, e, "up").is_err());
        let again = t.register(FieldTypeDef::enumeration("TypeSizing", &["up"])).expect("room");
        assert_eq!(again, e, "a type registered again keeps its index");
        assert_eq!(p(&t, e, "up").as_deref(), Ok("up"));
        assert_eq!(t.get(FieldType::Point).map(|d| d.editor), Some(Editor::Point));
    }
}
