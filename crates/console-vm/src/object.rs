//! The object model (seed pages SimBase, SimManager): SimObject, SimSet, SimGroup, ScriptObject,
//! SimDataBlock, the root group, the name and id dictionary, console classes with typed fields.

use crate::bytecode::NsId;
use crate::intern::Name;
use crate::value::Value;
use hashbrown::HashMap;
use std::any::Any;

/// Object ids.
pub type ObjectId = u32;

/// The object id a number names (an integral value in `u32`'s range), whether or not such an
/// object exists; text (ids, names and paths) is read by `find_object`.
#[inline]
pub(crate) fn number_id(v: &Value) -> Option<ObjectId> {
    match v {
        Value::Int(i) => u32::try_from(*i).ok(),
        Value::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 4294967296.0 => Some(*f as u32),
        _ => None,
    }
}

/// The root group's id.
pub const ROOT_GROUP_ID: ObjectId = 1;
/// The group every datablock joins.
pub const DATABLOCK_GROUP_ID: ObjectId = 2;
/// First datablock id (V12).
pub const FIRST_DATABLOCK_ID: ObjectId = 3;
/// First id of other objects (V12).
pub const FIRST_OBJECT_ID: ObjectId = 1027;

/// Types of registered fields (a subset of the seed's consoleTypes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// TypeS32.
    Int,
    /// TypeF32.
    Float,
    /// TypeBool.
    Bool,
    /// TypeString.
    String,
}

impl FieldType {
    pub(crate) fn coerce(self, v: Value) -> Value {
        match self {
            FieldType::Int => Value::Int(i64::from(v.to_i32())),
            FieldType::Float => Value::Float(f64::from(v.to_f64() as f32)),
            FieldType::Bool => Value::Int(i64::from(v.truthy())),
            FieldType::String => v,
        }
    }
}

/// A registered field (the seed's `addField`).
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Field name.
    pub name: Name,
    /// Its type.
    pub ty: FieldType,
    /// Value of a new object.
    pub default: Value,
}

/// What a class's objects can do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// A plain object.
    Object,
    /// Holds references to other objects.
    Set,
    /// Owns its members.
    Group,
    /// A datablock.
    DataBlock,
}

/// A console class (the seed's AbstractClassRep).
#[derive(Clone, Debug)]
pub struct ClassRec {
    /// Class name.
    pub name: Name,
    /// Parent class index.
    pub parent: Option<u32>,
    /// The class's namespace.
    pub ns: NsId,
    /// Fields, parents' first.
    pub fields: Vec<FieldDef>,
    pub(crate) field_index: HashMap<Name, usize>,
    /// Kind.
    pub kind: ClassKind,
    /// `class`/`superClass` fields set the namespace (ScriptObject, ScriptGroup).
    pub script_class: bool,
}

/// A live object.
pub struct SimObject {
    /// Id.
    pub id: ObjectId,
    /// Optional name.
    pub name: Option<Name>,
    /// Class index.
    pub class: u32,
    /// Namespace methods are looked up in.
    pub ns: NsId,
    /// Registered field values (parallel to the class's fields).
    pub fields: Vec<Value>,
    /// Dynamic fields.
    pub dynamic: HashMap<Name, Value>,
    /// Owning group.
    pub group: Option<ObjectId>,
    /// Sets holding this object (groups included).
    pub sets: Vec<ObjectId>,
    /// Members, for sets and groups.
    pub members: Vec<ObjectId>,
    /// Host data attached by Rust classes.
    pub user: Option<Box<dyn Any>>,
    /// Set while `delete` runs (its `onRemove` may try to delete it again).
    pub(crate) deleting: bool,
}

/// Most groups nested in an object `save` writes: `exec` reads nested `new` blocks back only
/// so deep (the parser bounds nesting to keep its stack bounded); `save` refuses deeper trees
/// with an error rather than write a file `exec` would refuse.
pub const MAX_SAVE_NESTING: usize = 100;

impl std::fmt::Debug for SimObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimObject").field("id", &self.id).field("class", &self.class).finish()
    }
}

/// An object between `new` and registration.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) obj: Option<SimObject>,
    /// Existing datablock being redefined.
    pub(crate) existing: Option<ObjectId>,
    pub(crate) id: Option<ObjectId>,
    pub(crate) datablock: bool,
}

/// Every live object and every class: the id and name dictionaries (seed: SimManager's
/// `Sim::findObject` tables). What runs script when objects come and go is in `sim_manager`.
#[derive(Debug)]
pub(crate) struct ObjectStore {
    /// Classes by index (`SimObject::class`).
    pub(crate) classes: Vec<ClassRec>,
    class_by_name: HashMap<Name, u32>,
    by_id: HashMap<ObjectId, SimObject>,
    by_name: HashMap<Name, ObjectId>,
    next_id: ObjectId,
    next_datablock_id: ObjectId,
}

impl Default for ObjectStore {
    fn default() -> Self {
        ObjectStore {
            classes: Vec::new(),
            class_by_name: HashMap::new(),
            by_id: HashMap::new(),
            by_name: HashMap::new(),
            next_id: FIRST_OBJECT_ID,
            next_datablock_id: FIRST_DATABLOCK_ID,
        }
    }
}

impl ObjectStore {
    /// The object with this id.
    #[inline]
    pub(crate) fn get(&self, id: ObjectId) -> Option<&SimObject> {
        self.by_id.get(&id)
    }

    /// Mutable access to an object.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: ObjectId) -> Option<&mut SimObject> {
        self.by_id.get_mut(&id)
    }

    /// True while the object exists.
    #[inline]
    pub(crate) fn contains(&self, id: ObjectId) -> bool {
        self.by_id.contains_key(&id)
    }

    /// Live objects.
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// A fresh id: datablocks count up from [`FIRST_DATABLOCK_ID`], other objects from
    /// [`FIRST_OBJECT_ID`] (wrapping back to it).
    pub(crate) fn next_id(&mut self, datablock: bool) -> ObjectId {
        if datablock {
            let id = self.next_datablock_id;
            self.next_datablock_id += 1;
            id
        } else {
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1).max(FIRST_OBJECT_ID);
            id
        }
    }

    /// Enters an object under its id and its name.
    pub(crate) fn insert(&mut self, obj: SimObject) {
        if let Some(n) = obj.name {
            self.by_name.insert(n, obj.id);
        }
        self.by_id.insert(obj.id, obj);
    }

    /// Takes an object out of both dictionaries.
    pub(crate) fn remove(&mut self, id: ObjectId) -> Option<SimObject> {
        let o = self.by_id.remove(&id)?;
        if let Some(n) = o.name
            && self.by_name.get(&n) == Some(&id)
        {
            self.by_name.remove(&n);
        }
        Some(o)
    }

    /// The object called `name`.
    pub(crate) fn named(&self, name: Name) -> Option<ObjectId> {
        self.by_name.get(&name).copied()
    }

    /// Renames an object (`None` removes its name). False for an unknown id.
    pub(crate) fn rename(&mut self, id: ObjectId, name: Option<Name>) -> bool {
        let Some(o) = self.by_id.get_mut(&id) else { return false };
        if let Some(n) = o.name
            && self.by_name.get(&n) == Some(&id)
        {
            self.by_name.remove(&n);
        }
        o.name = name;
        if let Some(n) = name {
            self.by_name.insert(n, id);
        }
        true
    }

    /// A field of an object (registered or dynamic); `""` for none.
    pub(crate) fn field(&self, id: ObjectId, field: Name) -> Value {
        self.by_id.get(&id).map(|o| field_of(&self.classes, o, field)).unwrap_or_default()
    }

    /// Writes a field (registered fields convert to their type; `""` removes a dynamic one).
    pub(crate) fn set_field(&mut self, id: ObjectId, field: Name, v: Value) {
        if let Some(o) = self.by_id.get_mut(&id) {
            set_field_on(&self.classes, o, field, v);
        }
    }

    /// Writes a field of object `id` if it exists; otherwise hands the value back.
    #[inline]
    pub(crate) fn try_set_field(&mut self, id: ObjectId, field: Name, v: Value) -> Result<(), Value> {
        match self.by_id.get_mut(&id) {
            Some(o) => {
                set_field_on(&self.classes, o, field, v);
                Ok(())
            }
            None => Err(v),
        }
    }

    /// The class called `name`.
    pub(crate) fn class_named(&self, name: Name) -> Option<u32> {
        self.class_by_name.get(&name).copied()
    }

    /// Adds a class; its index.
    pub(crate) fn add_class(&mut self, class: ClassRec) -> u32 {
        let id = self.classes.len() as u32;
        self.class_by_name.insert(class.name, id);
        self.classes.push(class);
        id
    }
}

impl SimObject {
    pub(crate) fn group_like(&self, classes: &[ClassRec]) -> bool {
        classes.get(self.class as usize).is_some_and(|c| c.kind == ClassKind::Group)
    }
}

pub(crate) fn field_of(classes: &[ClassRec], o: &SimObject, field: Name) -> Value {
    if let Some(c) = classes.get(o.class as usize)
        && !c.field_index.is_empty()
        && let Some(&i) = c.field_index.get(&field)
    {
        return o.fields.get(i).cloned().unwrap_or_default();
    }
    o.dynamic.get(&field).cloned().unwrap_or_default()
}

pub(crate) fn set_field_on(classes: &[ClassRec], o: &mut SimObject, field: Name, v: Value) {
    if let Some(c) = classes.get(o.class as usize)
        && !c.field_index.is_empty()
        && let Some(&i) = c.field_index.get(&field)
    {
        if let Some(slot) = o.fields.get_mut(i) {
            *slot = c.fields[i].ty.coerce(v);
        }
        return;
    }
    if v.is_empty() {
        o.dynamic.remove(&field);
    } else if let Some(slot) = o.dynamic.get_mut(&field) {
        *slot = v;
    } else {
        o.dynamic.insert(field, v);
    }
}
