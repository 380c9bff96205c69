//! The object model (V12 reference pages SimBase, SimManager): SimObject, SimSet, SimGroup,
//! ScriptObject, SimDataBlock, the root group, the name and id dictionary, console classes with
//! typed fields.

use crate::bytecode::NsId;
use crate::intern::Name;
use crate::value::{Num, Value};
use hashbrown::HashMap;
use std::any::Any;

/// Object ids.
pub type ObjectId = u32;

/// The object id a number names (an integral value in `u32`'s range), whether or not such an
/// object exists; text (ids, names and paths) is read by `find_object`.
#[inline(always)]
pub(crate) fn number_id(v: &Value) -> Option<ObjectId> {
    // An id held as an integer (what `new` and `getId` give) inline, the rest out of line.
    if let Value::Int(i) = v { u32::try_from(*i).ok() } else { number_id_other(v) }
}

#[inline(never)]
fn number_id_other(v: &Value) -> Option<ObjectId> {
    match v {
        Value::Int(i) => u32::try_from(*i).ok(),
        Value::Float(f) if *f >= 0.0 && *f < 4294967296.0 && f64::from(*f as u32) == *f => Some(*f as u32),
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

pub use crate::field_types::FieldType;

/// A registered field (V12's `addField`).
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Field name.
    pub name: Name,
    /// Its type.
    pub ty: FieldType,
    /// Value of a new object.
    pub default: Value,
    /// The class that declared it (its group in the inspector).
    pub owner: u32,
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

/// A console class (V12's AbstractClassRep).
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
    pub(crate) field_index: FieldIndex,
    /// Kind.
    pub kind: ClassKind,
    /// `class`/`superClass` fields set the namespace (ScriptObject, ScriptGroup).
    pub script_class: bool,
}

/// A class's registered fields by name: a map, and a bit per name id beside it, so the
/// common case of a script's field access (`%this.n`: a dynamic field, no registered field of
/// that name) is answered by one load and a bit test instead of hashing the name (the method
/// program's profile had the map's probe at 15 % of its time).
#[derive(Clone, Debug, Default)]
pub(crate) struct FieldIndex {
    map: HashMap<Name, usize>,
    /// Bit `n % 64` of word `n / 64` is set when name id `n` is a registered field.
    bits: Vec<u64>,
}

impl FieldIndex {
    /// The position of registered field `n`, if it is one.
    #[inline(always)]
    pub(crate) fn get(&self, n: &Name) -> Option<&usize> {
        let i = n.0 as usize;
        match self.bits.get(i / 64) {
            Some(w) if w & (1 << (i % 64)) != 0 => self.map.get(n),
            _ => None,
        }
    }

    /// Whether `n` may be a registered field (its bit is set): the bit alone, no map probe,
    /// for the VM's fast paths, which leave a name with its bit set to the general path.
    #[inline(always)]
    pub(crate) fn may_have(&self, n: Name) -> bool {
        let i = n.0 as usize;
        self.bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Whether `n` is a registered field.
    pub(crate) fn contains_key(&self, n: &Name) -> bool {
        self.get(n).is_some()
    }

    /// Registers field `n` at position `at`.
    pub(crate) fn insert(&mut self, n: Name, at: usize) {
        let i = n.0 as usize;
        if self.bits.len() <= i / 64 {
            self.bits.resize(i / 64 + 1, 0);
        }
        if let Some(w) = self.bits.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
        self.map.insert(n, at);
    }
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
    pub dynamic: DynFields,
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

/// Every live object and every class: the id and name dictionaries (V12: SimManager's
/// `Sim::findObject` tables). What runs script when objects come and go is in `sim_manager`.
#[derive(Debug)]
pub(crate) struct ObjectStore {
    /// Classes by index (`SimObject::class`).
    pub(crate) classes: Vec<ClassRec>,
    class_by_name: HashMap<Name, u32>,
    by_id: IdMap,
    by_name: HashMap<Name, ObjectId>,
    next_id: ObjectId,
    next_datablock_id: ObjectId,
    /// The field types (`Con::registerType`).
    pub(crate) types: crate::field_types::FieldTypes,
}

impl Default for ObjectStore {
    fn default() -> Self {
        ObjectStore {
            classes: Vec::new(),
            class_by_name: HashMap::new(),
            by_id: IdMap::default(),
            by_name: HashMap::new(),
            next_id: FIRST_OBJECT_ID,
            next_datablock_id: FIRST_DATABLOCK_ID,
            types: Default::default(),
        }
    }
}

impl ObjectStore {
    /// The object with this id.
    #[inline]
    pub(crate) fn get(&self, id: ObjectId) -> Option<&SimObject> {
        self.by_id.get(id)
    }

    /// The object whose id is the integer `id`, when that id is one of the dense table's
    /// (below [`DENSE_IDS`]): no hashing, no call, for the VM's field paths, which leave any
    /// other id (and any id that is not an integer) to the general lookup.
    #[inline(always)]
    pub(crate) fn get_dense(&self, id: i64) -> Option<&SimObject> {
        self.by_id.get_dense(id)
    }

    /// [`ObjectStore::get_dense`] to change, with the classes apart (as
    /// [`ObjectStore::get_mut_split`]).
    #[inline(always)]
    pub(crate) fn get_dense_mut_split(&mut self, id: i64) -> Option<(&[ClassRec], &mut SimObject)> {
        let o = self.by_id.get_dense_mut(id)?;
        Some((&self.classes, o))
    }

    /// Mutable access to an object.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: ObjectId) -> Option<&mut SimObject> {
        self.by_id.get_mut(id)
    }

    /// The classes and a mutable object, apart (to write a field of the object by its class).
    #[inline]
    pub(crate) fn get_mut_split(&mut self, id: ObjectId) -> Option<(&[ClassRec], &mut SimObject)> {
        let o = self.by_id.get_mut(id)?;
        Some((&self.classes, o))
    }

    /// True while the object exists.
    #[inline]
    pub(crate) fn contains(&self, id: ObjectId) -> bool {
        self.by_id.get(id).is_some()
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
        let o = self.by_id.remove(id)?;
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
        let Some(o) = self.by_id.get_mut(id) else { return false };
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
        self.by_id.get(id).map(|o| field_of(&self.classes, o, field)).unwrap_or_default()
    }

    /// Writes a field (registered fields convert to their type; `""` removes a dynamic one).
    pub(crate) fn set_field(&mut self, id: ObjectId, field: Name, v: Value) {
        if let Some(o) = self.by_id.get_mut(id) {
            set_field_on(&self.classes, o, field, v);
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

/// Ids below this index a table of slots directly (at most 4 MiB of it); others go through a map.
const DENSE_IDS: ObjectId = 1 << 20;

/// Live objects by id. Ids are handed out counting up (datablocks from 3, others from 1027),
/// so below [`DENSE_IDS`] an id indexes `slot_of` straight, two loads instead of hashing and
/// probing (every `%obj.field` looks its object up: issue 32); larger ids (after a long run,
/// or given explicitly) are kept in a map.
#[derive(Default)]
struct IdMap {
    /// Id → slot + 1 (`0`: no object), for ids below `DENSE_IDS`; as long as the largest seen.
    slot_of: Vec<u32>,
    slots: Vec<Option<SimObject>>,
    free: Vec<u32>,
    sparse: HashMap<ObjectId, SimObject>,
    len: usize,
}

impl std::fmt::Debug for IdMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdMap").field("len", &self.len).finish()
    }
}

impl IdMap {
    #[inline(always)]
    fn slot(&self, id: ObjectId) -> Option<usize> {
        match self.slot_of.get(id as usize) {
            Some(&s) if s != 0 => Some(s as usize - 1),
            _ => None,
        }
    }

    /// An object of the dense table by an integer id (`None` for any id outside it).
    #[inline(always)]
    fn get_dense(&self, id: i64) -> Option<&SimObject> {
        let s = *self.slot_of.get(usize::try_from(id).ok()?)?;
        self.slots.get((s as usize).wrapping_sub(1))?.as_ref()
    }

    #[inline(always)]
    fn get_dense_mut(&mut self, id: i64) -> Option<&mut SimObject> {
        let s = *self.slot_of.get(usize::try_from(id).ok()?)?;
        self.slots.get_mut((s as usize).wrapping_sub(1))?.as_mut()
    }

    #[inline]
    fn get(&self, id: ObjectId) -> Option<&SimObject> {
        if id < DENSE_IDS { self.slots.get(self.slot(id)?)?.as_ref() } else { self.sparse.get(&id) }
    }

    #[inline]
    fn get_mut(&mut self, id: ObjectId) -> Option<&mut SimObject> {
        if id < DENSE_IDS {
            let s = self.slot(id)?;
            self.slots.get_mut(s)?.as_mut()
        } else {
            self.sparse.get_mut(&id)
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn insert(&mut self, id: ObjectId, obj: SimObject) {
        if id >= DENSE_IDS {
            if self.sparse.insert(id, obj).is_none() {
                self.len += 1;
            }
            return;
        }
        if let Some(s) = self.slot(id) {
            if let Some(slot) = self.slots.get_mut(s) {
                *slot = Some(obj);
            }
            return;
        }
        let s = match self.free.pop() {
            Some(s) => {
                if let Some(slot) = self.slots.get_mut(s as usize) {
                    *slot = Some(obj);
                }
                s
            }
            None => {
                self.slots.push(Some(obj));
                (self.slots.len() - 1) as u32
            }
        };
        if self.slot_of.len() <= id as usize {
            self.slot_of.resize(id as usize + 1, 0);
        }
        if let Some(e) = self.slot_of.get_mut(id as usize) {
            *e = s + 1;
        }
        self.len += 1;
    }

    fn remove(&mut self, id: ObjectId) -> Option<SimObject> {
        let o = if id >= DENSE_IDS {
            self.sparse.remove(&id)?
        } else {
            let s = self.slot(id)?;
            let o = self.slots.get_mut(s)?.take()?;
            if let Some(e) = self.slot_of.get_mut(id as usize) {
                *e = 0;
            }
            self.free.push(s as u32);
            o
        };
        self.len -= 1;
        Some(o)
    }
}

impl SimObject {
    pub(crate) fn group_like(&self, classes: &[ClassRec]) -> bool {
        classes.get(self.class as usize).is_some_and(|c| c.kind == ClassKind::Group)
    }
}

/// A field of an object (registered or dynamic), by reference; `None` for none (`""`).
#[inline]
pub(crate) fn field_ref<'a>(classes: &[ClassRec], o: &'a SimObject, field: Name) -> Option<&'a Value> {
    if let Some(c) = classes.get(o.class as usize)
        && let Some(&i) = c.field_index.get(&field)
    {
        return o.fields.get(i);
    }
    o.dynamic.get(&field)
}

/// [`field_ref`], trying the dynamic field at position `hint` first (a site's cache) and
/// returning where the field was found (`usize::MAX` for none or a registered field).
#[inline(never)]
pub(crate) fn field_ref_hint<'a>(
    classes: &[ClassRec],
    o: &'a SimObject,
    field: Name,
    hint: usize,
) -> (Option<&'a Value>, usize) {
    field_ref_hint_inline(classes, o, field, hint)
}

/// [`field_ref_hint`], inlined into the VM's one-field read helpers (`%obj.f`): called, it
/// was a second call per read (docs/PERFORMANCE.md, seventh pass).
#[inline(always)]
pub(crate) fn field_ref_hint_inline<'a>(
    classes: &[ClassRec],
    o: &'a SimObject,
    field: Name,
    hint: usize,
) -> (Option<&'a Value>, usize) {
    if let Some(c) = classes.get(o.class as usize)
        && let Some(&i) = c.field_index.get(&field)
    {
        return (o.fields.get(i), usize::MAX);
    }
    match o.dynamic.position_hint(field, hint) {
        Some(i) => (o.dynamic.value_at(i), i),
        None => (None, usize::MAX),
    }
}

pub(crate) fn field_of(classes: &[ClassRec], o: &SimObject, field: Name) -> Value {
    field_ref(classes, o, field).cloned().unwrap_or_default()
}

pub(crate) fn set_field_on(classes: &[ClassRec], o: &mut SimObject, field: Name, v: Value) {
    set_field_hint(classes, o, field, v, usize::MAX);
}

/// [`set_field_on`], trying the dynamic field at position `hint` first; returns where the
/// field now is (`usize::MAX` for a registered or removed field).
#[inline(never)]
pub(crate) fn set_field_hint(
    classes: &[ClassRec],
    o: &mut SimObject,
    field: Name,
    v: Value,
    hint: usize,
) -> usize {
    set_field_hint_inline(classes, o, field, v, hint)
}

/// [`set_field_hint`], inlined into the VM's one-field store helpers (`%obj.f = v`): called,
/// it was a second call per store. Not into the field-array helpers (`%obj.v[%i] = v`):
/// there it took fewer instructions but more time (docs/PERFORMANCE.md, seventh pass), so
/// [`set_field_hint`] stays a call.
#[inline(always)]
pub(crate) fn set_field_hint_inline(
    classes: &[ClassRec],
    o: &mut SimObject,
    field: Name,
    v: Value,
    hint: usize,
) -> usize {
    if let Some(c) = classes.get(o.class as usize)
        && let Some(&i) = c.field_index.get(&field)
    {
        if let (Some(slot), Some(def)) = (o.fields.get_mut(i), c.fields.get(i)) {
            *slot = def.ty.coerce(v);
        }
        return usize::MAX;
    }
    if v.is_empty() {
        o.dynamic.remove(&field);
        return usize::MAX;
    }
    match o.dynamic.position_hint(field, hint) {
        Some(i) => {
            if let Some(slot) = o.dynamic.value_at_mut(i) {
                crate::value::move_into(slot, &mut { v });
            }
            i
        }
        None => o.dynamic.push(field, v),
    }
}

/// `%obj.f = %obj.f op y` in place: `f` gives the field's new number from its number (`""`
/// for a field not there), written where the field lies (a registered field converted to
/// its type, a missing dynamic field added: what a read, the operator and a write give).
/// Returns where the field now is, as [`set_field_hint`].
#[inline(always)]
pub(crate) fn arith_field_hint(
    classes: &[ClassRec],
    o: &mut SimObject,
    field: Name,
    hint: usize,
    f: impl FnOnce(Num) -> Num,
) -> usize {
    if let Some(c) = classes.get(o.class as usize)
        && let Some(&i) = c.field_index.get(&field)
    {
        if let (Some(slot), Some(def)) = (o.fields.get_mut(i), c.fields.get(i)) {
            let mut v = Value::Empty;
            v.set_num(f(Num::of(Some(slot))));
            *slot = def.ty.coerce(v);
        }
        return usize::MAX;
    }
    match o.dynamic.position_hint(field, hint) {
        Some(i) => {
            if let Some(slot) = o.dynamic.value_at_mut(i) {
                let r = f(Num::of(Some(slot)));
                slot.set_num(r);
            }
            i
        }
        None => {
            let mut v = Value::Empty;
            v.set_num(f(Num::of(Some(&Value::Empty))));
            o.dynamic.push(field, v)
        }
    }
}

/// An object's dynamic fields, in the order they were first set (a removed field's place
/// takes the last one). Few fields are found by scanning their names; past 12
/// an index by name is kept beside them. A field's position is what a script site's cache
/// remembers (`%obj.field` tries the position it found last time on the next object first),
/// checked against the name, so no layout needs invalidating.
#[derive(Clone, Debug, Default)]
pub struct DynFields {
    keys: Vec<Name>,
    vals: Vec<Value>,
    /// Beside each field, the array element its name is known to be (`pack_elem(base,
    /// index)`, [`NO_ELEM`] when not known): set by the VM's field-array paths once they
    /// found the field by its name, so `%obj.v[%i]` at a site's cached position is checked
    /// by base and index alone, without making or finding the name `v` + index. A tag is only
    /// ever the element of the name beside it (it moves with the field and goes with it).
    /// A `Cell`, so a read (the object borrowed shared) can tag what it found.
    elems: Vec<std::cell::Cell<u64>>,
    index: Option<Box<hashbrown::HashMap<Name, u32, crate::intern::FastBuild>>>,
}

/// A field whose name is not known to be an array element (see `DynFields::elems`).
const NO_ELEM: u64 = u64::MAX;

/// The tag of element `i` of field array `base` (never [`NO_ELEM`]: an element index is
/// below 10^9).
#[inline(always)]
fn pack_elem(base: Name, i: u32) -> u64 {
    (u64::from(base.0) << 32) | u64::from(i)
}

/// Fields found by a scan of their names; more get an index.
const SCAN_FIELDS: usize = 12;

impl DynFields {
    /// An object without dynamic fields.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True with no fields.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Where field `n` is.
    #[inline]
    pub fn position(&self, n: Name) -> Option<usize> {
        match &self.index {
            Some(ix) => ix.get(&n).map(|&i| i as usize),
            None => self.keys.iter().position(|&k| k == n),
        }
    }

    /// Where field `n` is, trying position `hint` first.
    #[inline(always)]
    pub fn position_hint(&self, n: Name, hint: usize) -> Option<usize> {
        if self.keys.get(hint) == Some(&n) { Some(hint) } else { self.position(n) }
    }

    /// Field `n`'s value when it is at position `hint` (a site's cache); `None` when it is
    /// elsewhere or not there (no scan, no index).
    #[inline(always)]
    pub(crate) fn at_hint(&self, n: Name, hint: usize) -> Option<&Value> {
        if self.keys.get(hint) == Some(&n) { self.vals.get(hint) } else { None }
    }

    /// Field `n`'s value when it is at position `hint` (a site's cache), to change; `None`
    /// when it is elsewhere or not there (no scan, no index).
    #[inline(always)]
    pub(crate) fn at_hint_mut(&mut self, n: Name, hint: usize) -> Option<&mut Value> {
        if self.keys.get(hint) == Some(&n) { self.vals.get_mut(hint) } else { None }
    }

    /// The field at position `p` when it is known to be element `i` of field array `base`
    /// (tagged by [`DynFields::tag_elem`]): its name and value. `None` otherwise (untagged,
    /// another element, no such position), with nothing looked up.
    #[inline(always)]
    pub(crate) fn elem_at(&self, base: Name, i: u32, p: usize) -> Option<(Name, &Value)> {
        if self.elems.get(p)?.get() != pack_elem(base, i) {
            return None;
        }
        Some((*self.keys.get(p)?, self.vals.get(p)?))
    }

    /// [`DynFields::elem_at`] to change.
    #[inline(always)]
    pub(crate) fn elem_at_mut(&mut self, base: Name, i: u32, p: usize) -> Option<(Name, &mut Value)> {
        if self.elems.get(p)?.get() != pack_elem(base, i) {
            return None;
        }
        Some((*self.keys.get(p)?, self.vals.get_mut(p)?))
    }

    /// Records that the field at position `p` is element `i` of field array `base`. The
    /// caller found that field by the name `base` + `i` (the name the VM makes for
    /// `%obj.base[i]`), so the tag is true of the name beside it.
    #[inline]
    pub(crate) fn tag_elem(&self, p: usize, base: Name, i: u32) {
        if let Some(t) = self.elems.get(p) {
            t.set(pack_elem(base, i));
        }
    }

    /// The value at a position.
    #[inline(always)]
    pub fn value_at(&self, i: usize) -> Option<&Value> {
        self.vals.get(i)
    }

    #[inline(always)]
    fn value_at_mut(&mut self, i: usize) -> Option<&mut Value> {
        self.vals.get_mut(i)
    }

    /// The value of field `n`.
    #[inline]
    pub fn get(&self, n: &Name) -> Option<&Value> {
        self.position(*n).and_then(|i| self.vals.get(i))
    }

    /// The value of field `n`, to change.
    pub fn get_mut(&mut self, n: &Name) -> Option<&mut Value> {
        self.position(*n).and_then(|i| self.vals.get_mut(i))
    }

    /// Sets field `n`; the value it had.
    pub fn insert(&mut self, n: Name, v: Value) -> Option<Value> {
        match self.position(n) {
            Some(i) => self.vals.get_mut(i).map(|slot| std::mem::replace(slot, v)),
            None => {
                self.push(n, v);
                None
            }
        }
    }

    /// Adds a field not there yet; its position.
    fn push(&mut self, n: Name, v: Value) -> usize {
        let i = self.keys.len();
        self.keys.push(n);
        self.vals.push(v);
        self.elems.push(std::cell::Cell::new(NO_ELEM));
        if let Some(ix) = &mut self.index {
            ix.insert(n, i as u32);
        } else if self.keys.len() > SCAN_FIELDS {
            self.index = Some(Box::new(self.keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect()));
        }
        i
    }

    /// Removes field `n`; its value.
    pub fn remove(&mut self, n: &Name) -> Option<Value> {
        let i = self.position(*n)?;
        if let Some(ix) = &mut self.index {
            ix.remove(n);
        }
        self.keys.swap_remove(i);
        self.elems.swap_remove(i);
        let v = self.vals.swap_remove(i);
        if let (Some(ix), Some(&moved)) = (&mut self.index, self.keys.get(i)) {
            ix.insert(moved, i as u32);
        }
        Some(v)
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &Value)> {
        self.keys.iter().zip(self.vals.iter())
    }
}

impl IntoIterator for DynFields {
    type Item = (Name, Value);
    type IntoIter = std::iter::Zip<std::vec::IntoIter<Name>, std::vec::IntoIter<Value>>;
    fn into_iter(self) -> Self::IntoIter {
        self.keys.into_iter().zip(self.vals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank(id: ObjectId) -> SimObject {
        SimObject {
            id,
            name: None,
            class: 0,
            ns: 0,
            fields: Vec::new(),
            dynamic: DynFields::new(),
            group: None,
            sets: Vec::new(),
            members: Vec::new(),
            user: None,
            deleting: false,
        }
    }

    #[test]
    fn id_map_dense_and_sparse_ids() {
        let mut m = IdMap::default();
        for id in [1027, 3, 1028, DENSE_IDS, u32::MAX, 5] {
            m.insert(id, blank(id));
        }
        assert_eq!(m.len(), 6);
        assert_eq!(m.get(1028).map(|o| o.id), Some(1028));
        assert_eq!(m.get(u32::MAX).map(|o| o.id), Some(u32::MAX));
        assert!(m.get(4).is_none() && m.get(2000).is_none() && m.get(DENSE_IDS + 1).is_none());
        assert_eq!(m.remove(1027).map(|o| o.id), Some(1027));
        assert!(m.remove(1027).is_none());
        assert!(m.get(1027).is_none());
        m.insert(1029, blank(1029));
        assert_eq!(m.slots.len(), 4, "a removed object's slot is reused");
        assert_eq!(m.get_mut(1029).map(|o| o.id), Some(1029));
        m.insert(1029, blank(1029));
        assert_eq!(m.len(), 6, "a second insert under one id replaces");
        assert_eq!(m.remove(DENSE_IDS).map(|o| o.id), Some(DENSE_IDS));
        assert_eq!(m.len(), 5);
    }

    #[test]
    fn dyn_fields_scan_then_index_and_remove_keeps_positions_true() {
        let mut f = DynFields::new();
        for i in 0..40u32 {
            assert_eq!(f.insert(Name(i), Value::Int(i64::from(i))), None);
            if i == 5 {
                assert!(f.index.is_none(), "few fields are scanned");
            }
        }
        assert!(f.index.is_some(), "many fields are indexed");
        assert_eq!(f.insert(Name(3), Value::Int(33)).map(|v| v.to_i64()), Some(3));
        assert_eq!(f.remove(&Name(0)).map(|v| v.to_i64()), Some(0));
        assert_eq!(f.remove(&Name(0)), None);
        assert_eq!(f.len(), 39);
        for i in 1..40u32 {
            let want = if i == 3 { 33 } else { i64::from(i) };
            assert_eq!(f.get(&Name(i)).map(Value::to_i64), Some(want), "field {i}");
            let p = f.position(Name(i)).expect("there");
            assert_eq!(f.position_hint(Name(i), p), Some(p));
            assert_eq!(f.position_hint(Name(i), 0), Some(p), "a wrong hint still finds it");
        }
        assert_eq!(f.position_hint(Name(99), 0), None);
        let mut small = DynFields::new();
        small.insert(Name(1), Value::Int(1));
        small.insert(Name(2), Value::Int(2));
        small.remove(&Name(1));
        assert_eq!(small.position(Name(2)), Some(0), "the last field took the removed one's place");
        assert_eq!(small.into_iter().count(), 1);
    }

    /// An element tag stays with its field: a removal moves the last field, tag and all,
    /// into the removed one's place; a new field has none; the tag is checked by base and
    /// index both.
    #[test]
    fn dyn_fields_element_tags_move_with_their_fields() {
        let mut f = DynFields::new();
        let base = Name(1000);
        for i in 0..20u32 {
            f.insert(Name(i), Value::Int(i64::from(i)));
            f.tag_elem(i as usize, base, i);
        }
        assert_eq!(f.elem_at(base, 3, 3).map(|(n, v)| (n, v.to_i64())), Some((Name(3), 3)));
        assert!(f.elem_at(base, 3, 4).is_none() && f.elem_at(Name(1001), 3, 3).is_none());
        assert!(f.elem_at(base, 30, 30).is_none(), "past the end");
        f.remove(&Name(3));
        assert!(f.elem_at(base, 3, 3).is_none(), "the removed field's tag went with it");
        assert_eq!(f.elem_at(base, 19, 3).map(|(n, v)| (n, v.to_i64())), Some((Name(19), 19)));
        f.insert(Name(50), Value::Int(50));
        assert!(f.elem_at(base, 19, 19).is_none(), "a new field is not tagged");
        if let Some((_, v)) = f.elem_at_mut(base, 19, 3) {
            *v = Value::Int(7);
        }
        assert_eq!(f.get(&Name(19)).map(Value::to_i64), Some(7));
    }
}
