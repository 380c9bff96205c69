//! The console's side of inspecting objects: registering field types
//! (`Con::registerType`, see `field_types`), an object's fields as typed rows grouped by the
//! class that declared them (what V12's GuiInspector lists), and checked writes that refuse
//! a bad value with a message and keep the old one.

use crate::console::Console;
use crate::field_types::{FieldLookup, FieldType, FieldTypeDef};
use crate::object::{ClassKind, ObjectId};
use crate::value::Value;

/// The group that lists an object's dynamic fields.
pub const DYNAMIC_GROUP: &str = "Dynamic Fields";

/// One field of an object as the inspector lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldRow {
    /// The field's name.
    pub name: String,
    /// Its group: the class that declared it, or [`DYNAMIC_GROUP`].
    pub group: String,
    /// Its type (`FieldType::String` for a dynamic field).
    pub ty: FieldType,
    /// Its value, written by its type.
    pub value: String,
    /// False for a dynamic field.
    pub registered: bool,
}

impl FieldLookup for Console {
    fn datablock(&self, text: &str, class: &str) -> Result<String, String> {
        let Some(id) = self.find_object_str(text) else { return Err(format!("no object \"{text}\"")) };
        let Some(o) = self.objects.get(id) else { return Err(format!("no object \"{text}\"")) };
        let datablock =
            self.objects.classes.get(o.class as usize).map(|c| c.kind) == Some(ClassKind::DataBlock);
        if class.is_empty() && !datablock {
            return Err(format!("\"{text}\" is not a datablock"));
        }
        if !class.is_empty() && !self.class_is(o.class, class) {
            return Err(format!("\"{text}\" is a {}, not a {class}", self.class_name_of(id)));
        }
        Ok(match o.name {
            Some(n) => self.names.text(n).to_string(),
            None => id.to_string(),
        })
    }
}

impl Console {
    /// Registers a field type (V12's `Con::registerType`); a type already registered under
    /// the name is replaced and keeps its index. `None` when the registry is full
    /// (`field_types::MAX_FIELD_TYPES`).
    pub fn register_field_type(&mut self, def: FieldTypeDef) -> Option<FieldType> {
        self.objects.types.register(def)
    }

    /// The type registered under `name` (case-insensitive).
    pub fn field_type_named(&self, name: &str) -> Option<FieldType> {
        self.objects.types.named(name)
    }

    /// A type's definition.
    pub fn field_type_def(&self, ty: FieldType) -> Option<&FieldTypeDef> {
        self.objects.types.get(ty)
    }

    /// The type of field `field` of object `id`: its registered type, `String` for a dynamic
    /// field; `None` for no object.
    pub fn field_type_of(&self, id: ObjectId, field: &str) -> Option<FieldType> {
        let o = self.objects.get(id)?;
        let class = self.objects.classes.get(o.class as usize)?;
        let ty = self
            .names
            .lookup(field)
            .and_then(|n| class.field_index.get(&n))
            .and_then(|&i| class.fields.get(i))
            .map(|f| f.ty);
        Some(ty.unwrap_or(FieldType::String))
    }

    /// Every field of an object: the registered ones grouped by declaring class (parents
    /// first, in declaration order), then its dynamic fields by name.
    pub fn field_rows(&self, id: ObjectId) -> Vec<FieldRow> {
        let Some(o) = self.objects.get(id) else { return Vec::new() };
        let Some(class) = self.objects.classes.get(o.class as usize) else { return Vec::new() };
        let mut rows = Vec::with_capacity(class.fields.len() + o.dynamic.len());
        for (f, v) in class.fields.iter().zip(&o.fields) {
            let group =
                self.objects.classes.get(f.owner as usize).map(|c| self.names.text(c.name)).unwrap_or("");
            rows.push(FieldRow {
                name: self.names.text(f.name).to_string(),
                group: group.to_string(),
                ty: f.ty,
                value: self.format_field(f.ty, v),
                registered: true,
            });
        }
        let mut dynamic: Vec<FieldRow> = o
            .dynamic
            .iter()
            .map(|(k, v)| FieldRow {
                name: self.names.text(*k).to_string(),
                group: DYNAMIC_GROUP.to_string(),
                ty: FieldType::String,
                value: v.as_text().into_owned(),
                registered: false,
            })
            .collect();
        dynamic.sort_by_key(|r| r.name.to_ascii_lowercase());
        rows.extend(dynamic);
        rows
    }

    /// A value written as its type writes it.
    pub fn format_field(&self, ty: FieldType, v: &Value) -> String {
        match self.objects.types.get(ty) {
            Some(d) => d.format_value(v),
            None => v.as_text().into_owned(),
        }
    }

    /// Checks `text` for field `field` of object `id` by the field's type: the value it would
    /// store, or why it is refused.
    pub fn check_field(&self, id: ObjectId, field: &str, text: &str) -> Result<Value, String> {
        let Some(ty) = self.field_type_of(id, field) else { return Err(format!("no object {id}")) };
        let Some(def) = self.objects.types.get(ty) else { return Err(format!("field {field} has no type")) };
        def.parse_text(text, self).map_err(|e| format!("{field}: {e}"))
    }

    /// Writes a field after [`Console::check_field`]: a refused value leaves the field as it was.
    pub fn set_field_checked(&mut self, id: ObjectId, field: &str, text: &str) -> Result<(), String> {
        let v = self.check_field(id, field, text)?;
        self.set_field(id, field, v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field_types::Editor;

    #[test]
    fn rows_are_grouped_and_checked_writes_keep_the_old_value() {
        let mut c = Console::new();
        c.register_class("Thing", "SimObject").expect("class");
        c.add_field("Thing", "count", FieldType::Int, Value::from(3));
        c.add_field("Thing", "where", FieldType::Point, Value::from("0 0 0"));
        let sizing =
            c.register_field_type(FieldTypeDef::enumeration("TypeMood", &["calm", "angry"])).expect("t");
        c.add_field("Thing", "mood", sizing, Value::from("calm"));
        c.register_class("SubThing", "Thing").expect("class");
        c.add_field("SubThing", "db", FieldType::DataBlock, Value::Empty);
        c.eval("datablock SimDataBlock(Blocky) {}; new SubThing(T) { extra = 5; };").expect("eval");
        let id = c.find_object_str("T").expect("T");
        let rows = c.field_rows(id);
        let names: Vec<(&str, &str)> = rows.iter().map(|r| (r.group.as_str(), r.name.as_str())).collect();
        assert_eq!(
            names,
            [
                ("Thing", "count"),
                ("Thing", "where"),
                ("Thing", "mood"),
                ("SubThing", "db"),
                (DYNAMIC_GROUP, "extra")
            ]
        );
        assert_eq!(c.field_type_def(rows[2].ty).map(|d| d.editor), Some(Editor::Enum));
        assert!(c.set_field_checked(id, "count", "lots").is_err());
        assert_eq!(c.get_field(id, "count").to_i32(), 3, "a refused value keeps the old one");
        c.set_field_checked(id, "count", "7").expect("a number");
        assert_eq!(c.get_field(id, "count").to_i32(), 7);
        assert!(c.set_field_checked(id, "db", "T").unwrap_err().contains("not a datablock"));
        c.set_field_checked(id, "db", "blocky").expect("a datablock");
        assert_eq!(c.get_field(id, "db").as_text(), "Blocky");
        assert!(c.set_field_checked(id, "mood", "sleepy").is_err());
        c.set_field_checked(id, "extra", "anything").expect("dynamic fields are text");
    }
}
