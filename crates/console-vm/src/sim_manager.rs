//! V12's SimManager on the console: classes, creating (`new`), registering, naming,
//! grouping and deleting objects, their fields, and `save`/`dump`/`tree`, with the script
//! callbacks (`onAdd`, `onRemove`) these run.

use crate::bytecode::{NewSpec, NsId};
use crate::console::{Console, ConsoleError};
use crate::intern::Name;
use crate::object::*;
use crate::value::Value;
use std::any::Any;
use std::fmt::Write as _;

pub(crate) fn register_builtin_classes(c: &mut Console) {
    let so = c.define_class("SimObject", None, ClassKind::Object);
    let set = c.define_class("SimSet", Some(so), ClassKind::Set);
    let group = c.define_class("SimGroup", Some(set), ClassKind::Group);
    let script = c.define_class("ScriptObject", Some(so), ClassKind::Object);
    let sgroup = c.define_class("ScriptGroup", Some(group), ClassKind::Group);
    c.define_class("SimDataBlock", Some(so), ClassKind::DataBlock);
    for cls in [script, sgroup] {
        c.objects.classes[cls as usize].script_class = true;
        let _ = c.add_field_to(cls, "class", FieldType::String, Value::Empty);
        let _ = c.add_field_to(cls, "superClass", FieldType::String, Value::Empty);
    }
    let root_ns = c.objects.classes[group as usize].ns;
    for (id, name) in [(ROOT_GROUP_ID, "RootGroup"), (DATABLOCK_GROUP_ID, "DataBlockGroup")] {
        let n = c.names.intern(name);
        let obj = SimObject {
            id,
            name: Some(n),
            class: group,
            ns: root_ns,
            fields: Vec::new(),
            dynamic: crate::object::DynFields::new(),
            group: None,
            sets: Vec::new(),
            members: Vec::new(),
            user: None,
            deleting: false,
        };
        c.objects.insert(obj);
    }
    c.set_add(ROOT_GROUP_ID, DATABLOCK_GROUP_ID);
}

impl Console {
    fn define_class(&mut self, name: &str, parent: Option<u32>, kind: ClassKind) -> u32 {
        let n = self.names.intern(name);
        let ns = self.ns.named(n);
        let (fields, field_index) = match parent {
            Some(p) => {
                let pc = &self.objects.classes[p as usize];
                (pc.fields.clone(), pc.field_index.clone())
            }
            None => (Vec::new(), crate::object::FieldIndex::default()),
        };
        if let Some(p) = parent {
            let pns = self.objects.classes[p as usize].ns;
            self.ns.link(pns, ns);
        }
        let script_class = parent.is_some_and(|p| self.objects.classes[p as usize].script_class);
        self.objects.add_class(ClassRec { name: n, parent, ns, fields, field_index, kind, script_class })
    }

    /// Registers a Rust class under `parent` (V12's IMPLEMENT_CONOBJECT). Its namespace is
    /// linked under the parent's, and it starts with the parent's fields.
    pub fn register_class(&mut self, name: &str, parent: &str) -> Result<u32, ConsoleError> {
        let pn = self.names.intern(parent);
        let Some(p) = self.objects.class_named(pn) else {
            return Err(ConsoleError::File(format!("register_class: unknown parent class {parent}")));
        };
        let n = self.names.intern(name);
        if let Some(existing) = self.objects.class_named(n) {
            return Ok(existing);
        }
        let kind = self.objects.classes[p as usize].kind;
        Ok(self.define_class(name, Some(p), kind))
    }

    /// Makes a registered class link its objects' names (and `class` / `superClass` fields)
    /// into their namespace chain, as ScriptObject does: V12's TCPObject, for one, so
    /// `new TCPObject(IRC); function IRC::onLine(%this, %line) {...}` works. Set it before
    /// registering subclasses (they copy it). False for an unknown class.
    pub fn set_script_class(&mut self, class: &str, on: bool) -> bool {
        let n = self.names.intern(class);
        match self.objects.class_named(n) {
            Some(c) => {
                self.objects.classes[c as usize].script_class = on;
                true
            }
            None => false,
        }
    }

    /// Adds a typed field to a class (V12's `addField` in `initPersistFields`).
    /// Add fields before registering subclasses: subclasses copy the list when registered.
    pub fn add_field(&mut self, class: &str, field: &str, ty: FieldType, default: Value) -> bool {
        let n = self.names.intern(class);
        match self.objects.class_named(n) {
            Some(c) => self.add_field_to(c, field, ty, default),
            None => false,
        }
    }

    fn add_field_to(&mut self, class: u32, field: &str, ty: FieldType, default: Value) -> bool {
        let f = self.names.intern(field);
        let c = &mut self.objects.classes[class as usize];
        if c.field_index.contains_key(&f) {
            return false;
        }
        c.field_index.insert(f, c.fields.len());
        c.fields.push(FieldDef { name: f, ty, default, owner: class });
        true
    }

    /// Class index by name.
    pub fn class_id(&self, name: &str) -> Option<u32> {
        self.names.lookup(name).and_then(|n| self.objects.class_named(n))
    }

    /// True if `class` is `ancestor` or derives from it.
    pub fn class_is(&self, class: u32, ancestor: &str) -> bool {
        let Some(a) = self.class_id(ancestor) else { return false };
        let mut c = Some(class);
        while let Some(x) = c {
            if x == a {
                return true;
            }
            c = self.objects.classes.get(x as usize).and_then(|r| r.parent);
        }
        false
    }

    // ---- lookup ----

    /// Finds an object by id, name or path (`Group/child`) as a script would write it.
    pub fn find_object(&self, v: &Value) -> Option<ObjectId> {
        match v {
            Value::Str(s) => self.find_object_str(s),
            number => crate::object::number_id(number).filter(|id| self.objects.contains(*id)),
        }
    }

    /// Finds an object from text: an id, a name, or a path.
    pub fn find_object_str(&self, s: &str) -> Option<ObjectId> {
        if s.is_empty() {
            return None;
        }
        let mut parts = s.split('/');
        let first = parts.next()?;
        let mut cur = if first.as_bytes().first().is_some_and(|b| b.is_ascii_digit()) {
            let id = u32::try_from(crate::value::atoi(first)).ok()?;
            self.objects.contains(id).then_some(id)?
        } else {
            let n = self.names.lookup(first)?;
            self.objects.named(n)?
        };
        for part in parts {
            if part.is_empty() {
                continue;
            }
            let n = self.names.lookup(part)?;
            let obj = self.objects.get(cur)?;
            cur = *obj.members.iter().find(|&&m| self.objects.get(m).is_some_and(|o| o.name == Some(n)))?;
        }
        Some(cur)
    }

    /// The object with this id.
    pub fn object(&self, id: ObjectId) -> Option<&SimObject> {
        self.objects.get(id)
    }

    /// Mutable access to an object.
    pub fn object_mut(&mut self, id: ObjectId) -> Option<&mut SimObject> {
        self.objects.get_mut(id)
    }

    /// The object's class name.
    pub fn class_name_of(&self, id: ObjectId) -> String {
        self.objects
            .get(id)
            .and_then(|o| self.objects.classes.get(o.class as usize))
            .map(|c| self.names.text(c.name).to_string())
            .unwrap_or_default()
    }

    /// The object's name, or `""`.
    pub fn object_name(&self, id: ObjectId) -> String {
        self.objects.get(id).and_then(|o| o.name).map(|n| self.names.text(n).to_string()).unwrap_or_default()
    }

    // ---- fields ----

    pub(crate) fn get_field_of(&self, o: &Value, field: Name) -> Value {
        match self.find_object(o) {
            Some(id) => self.field(id, field),
            None => Value::Empty,
        }
    }

    pub(crate) fn set_field_of(&mut self, o: &Value, field: Name, v: Value) {
        if let Some(id) = self.find_object(o) {
            self.set_field_name(id, field, v);
        }
    }

    pub(crate) fn field(&self, id: ObjectId, field: Name) -> Value {
        self.objects.field(id, field)
    }

    /// Reads a field (registered or dynamic) by name.
    pub fn get_field(&self, id: ObjectId, field: &str) -> Value {
        match self.names.lookup(field) {
            Some(n) => self.field(id, n),
            None => Value::Empty,
        }
    }

    /// Writes a field; registered fields convert to their type, `""` removes a dynamic field.
    pub fn set_field(&mut self, id: ObjectId, field: &str, v: impl Into<Value>) {
        let n = self.names.intern(field);
        self.set_field_name(id, n, v.into());
    }

    pub(crate) fn set_field_name(&mut self, id: ObjectId, field: Name, v: Value) {
        self.objects.set_field(id, field, v);
    }

    /// Attaches host data to an object (for Rust classes).
    pub fn set_object_data(&mut self, id: ObjectId, data: Box<dyn Any>) {
        if let Some(o) = self.objects.get_mut(id) {
            o.user = Some(data);
        }
    }

    /// Host data of type `T` attached to an object.
    pub fn object_data<T: 'static>(&self, id: ObjectId) -> Option<&T> {
        self.objects.get(id)?.user.as_ref()?.downcast_ref::<T>()
    }

    /// Mutable host data of type `T`.
    pub fn object_data_mut<T: 'static>(&mut self, id: ObjectId) -> Option<&mut T> {
        self.objects.get_mut(id)?.user.as_mut()?.downcast_mut::<T>()
    }

    // ---- creation ----

    fn blank_object(&self, class: u32) -> SimObject {
        let c = &self.objects.classes[class as usize];
        SimObject {
            id: 0,
            name: None,
            class,
            ns: c.ns,
            fields: c.fields.iter().map(|f| f.default.clone()).collect(),
            dynamic: crate::object::DynFields::new(),
            group: None,
            sets: Vec::new(),
            members: Vec::new(),
            user: None,
            deleting: false,
        }
    }

    /// Creates and registers an object from Rust (like `new Class(Name)` with no fields).
    pub fn create_object(&mut self, class: &str, name: Option<&str>) -> Result<ObjectId, ConsoleError> {
        self.create_prepared(class, name, |_, _| {})
    }

    /// [`Self::create_object`] with fields set before the object is registered, as the
    /// field block of `new Class(Name) { field = value; }` is: a script class's `class` and
    /// `superClass` place it in their namespaces.
    pub fn create_object_with_fields(
        &mut self,
        class: &str,
        name: Option<&str>,
        fields: &[(&str, Value)],
    ) -> Result<ObjectId, ConsoleError> {
        self.create_prepared(class, name, |c, obj| {
            for (field, value) in fields {
                let f = c.names.intern(field);
                set_field_on(&c.objects.classes, obj, f, value.clone());
            }
        })
    }

    /// [`Self::create_object`] with host data attached before the object is registered, so
    /// its class's `onAdd` already sees it (a client's ghost of a server object, say).
    pub fn create_object_with_data(
        &mut self,
        class: &str,
        name: Option<&str>,
        data: Box<dyn Any>,
    ) -> Result<ObjectId, ConsoleError> {
        self.create_prepared(class, name, |_, obj| obj.user = Some(data))
    }

    /// A blank object of `class` named `name`, made ready by `prepare`, then registered
    /// (which calls `onAdd`).
    fn create_prepared(
        &mut self,
        class: &str,
        name: Option<&str>,
        prepare: impl FnOnce(&mut Self, &mut SimObject),
    ) -> Result<ObjectId, ConsoleError> {
        let n = self.names.intern(class);
        let Some(cid) = self.objects.class_named(n) else {
            return Err(ConsoleError::File(format!("create_object: unknown class {class}")));
        };
        let mut obj = self.blank_object(cid);
        obj.name = name.filter(|s| !s.is_empty()).map(|s| self.names.intern(s));
        prepare(self, &mut obj);
        let datablock = self.objects.classes[cid as usize].kind == ClassKind::DataBlock;
        Ok(self.register_object(obj, datablock, None))
    }

    fn class_for_new(&mut self, class: Name, datablock: bool) -> Option<u32> {
        if let Some(c) = self.objects.class_named(class) {
            return Some(c);
        }
        if self.config.lenient {
            let parent = if datablock { "SimDataBlock" } else { "SimGroup" };
            let p = self.class_id(parent)?;
            let kind = self.objects.classes[p as usize].kind;
            let text = self.names.text(class).to_string();
            return Some(self.define_class(&text, Some(p), kind));
        }
        None
    }

    /// `NewBegin`: stack `[class?, name?, args...]`. False when the object cannot be made.
    pub(crate) fn new_begin(&mut self, spec: &NewSpec) -> bool {
        let n = self.vm.stack.len().saturating_sub(spec.argc as usize);
        self.vm.stack.truncate(n);
        let name_v = if spec.has_name { self.vm.stack.pop().unwrap_or_default() } else { Value::Empty };
        let class = match spec.class {
            Some(c) => c,
            None => {
                let v = self.vm.stack.pop().unwrap_or_default();
                let t = v.to_string();
                self.names.intern(&t)
            }
        };
        let fail = |c: &mut Console| {
            c.vm.new_stack.push(Pending { obj: None, existing: None, id: None, datablock: spec.datablock });
            false
        };
        let Some(cid) = self.class_for_new(class, spec.datablock) else {
            let loc = self.location();
            let t = self.names.text(class).to_string();
            self.error(&format!("{loc}Unable to instantiate non-conobject class {t}."));
            return fail(self);
        };
        let is_db = self.objects.classes[cid as usize].kind == ClassKind::DataBlock;
        if spec.datablock && !is_db {
            let loc = self.location();
            let t = self.names.text(class).to_string();
            self.error(&format!("{loc}{t} is not a datablock class."));
            return fail(self);
        }
        let name = name_v.as_text();
        let name = if name.is_empty() { None } else { Some(self.names.intern(&name)) };
        let mut obj = self.blank_object(cid);
        obj.name = name;
        if let Some(p) = spec.parent {
            match self.objects.named(p) {
                Some(pid) => {
                    if let Some(src) = self.objects.get(pid) {
                        let src_fields: Vec<(Name, Value)> = self.objects.classes[src.class as usize]
                            .fields
                            .iter()
                            .zip(&src.fields)
                            .map(|(f, v)| (f.name, v.clone()))
                            .chain(src.dynamic.iter().map(|(k, v)| (*k, v.clone())))
                            .collect();
                        for (k, v) in src_fields {
                            set_field_on(&self.objects.classes, &mut obj, k, v);
                        }
                    }
                }
                None => {
                    let loc = self.location();
                    let t = self.names.text(p).to_string();
                    self.error(&format!("{loc}Unable to find parent object {t} to copy fields from."));
                }
            }
        }
        // Redefining a datablock updates the existing one in place.
        let mut existing = None;
        if spec.datablock
            && let Some(n) = name
            && let Some(old) = self.objects.named(n)
            && self.objects.get(old).is_some_and(|o| o.class == cid)
        {
            existing = Some(old);
        }
        self.vm.new_stack.push(Pending { obj: Some(obj), existing, id: None, datablock: spec.datablock });
        true
    }

    pub(crate) fn new_field(&mut self, field: Name, v: Value) {
        let Some(p) = self.vm.new_stack.last_mut() else { return };
        if let Some(o) = p.obj.as_mut() {
            set_field_on(&self.objects.classes, o, field, v);
        } else if let Some(id) = p.id {
            self.objects.set_field(id, field, v);
        }
    }

    pub(crate) fn new_add(&mut self) {
        let n = self.vm.new_stack.len();
        if n == 0 {
            return;
        }
        let Some(obj) = self.vm.new_stack[n - 1].obj.take() else { return };
        let datablock = self.vm.new_stack[n - 1].datablock;
        if let Some(old) = self.vm.new_stack[n - 1].existing {
            // Copy the new definition's fields over the old datablock.
            if let Some(o) = self.objects.get_mut(old) {
                o.fields = obj.fields;
                for (k, v) in obj.dynamic {
                    o.dynamic.insert(k, v);
                }
            }
            self.vm.new_stack[n - 1].id = self.run_preload(old).then_some(old);
            return;
        }
        let parent = if n >= 2 { self.vm.new_stack[n - 2].id } else { None };
        let id = self.register_object(obj, datablock, parent);
        if let Some(p) = self.vm.new_stack.last_mut() {
            p.id = Some(id);
        }
    }

    pub(crate) fn new_end(&mut self) -> Value {
        match self.vm.new_stack.pop() {
            Some(Pending { id: Some(id), .. }) if self.objects.contains(id) => Value::Int(i64::from(id)),
            _ => Value::Int(0),
        }
    }

    /// Gives the object an id and a namespace, enters it in the dictionaries and its group,
    /// then calls `onAdd`.
    fn register_object(&mut self, mut obj: SimObject, datablock: bool, parent: Option<ObjectId>) -> ObjectId {
        let id = self.objects.next_id(datablock);
        obj.id = id;
        obj.ns = self.namespace_for(&obj);
        self.objects.insert(obj);
        let group = if datablock {
            Some(DATABLOCK_GROUP_ID)
        } else if let Some(p) = parent {
            if self
                .objects
                .get(p)
                .is_some_and(|o| self.objects.classes[o.class as usize].kind != ClassKind::Object)
            {
                Some(p)
            } else {
                let loc = self.location();
                self.warn(&format!(
                    "{loc}object {id} declared inside an object that is not a set; not added"
                ));
                None
            }
        } else {
            let ig = self.get_global("instantGroup");
            match self.find_object(&ig) {
                Some(g) if self.objects.get(g).is_some_and(|o| o.group_like(&self.objects.classes)) => {
                    Some(g)
                }
                _ => Some(ROOT_GROUP_ID),
            }
        };
        if let Some(g) = group {
            self.set_add(g, id);
        }
        if datablock {
            // V12's SimDataBlock has no script `onAdd`: `function ItemData::onAdd(%data, %obj)`
            // is the callback for each *object* using the datablock, called by its class.
            self.run_preload(id);
            return id;
        }
        self.call_method_if_exists(id, "onAdd", &[]);
        id
    }

    /// True when the class or an ancestor is a GUI control class (`Gui*`, e.g. `GuiControl`,
    /// or a lenient stand-in such as `GuiChunkedBitmapCtrl`): V12 puts a named control's name in
    /// front of its class namespace, which is how `function OptionsDlg::onWake()` works.
    fn is_gui_class(&self, mut class: u32) -> bool {
        for _ in 0..64 {
            let Some(c) = self.objects.classes.get(class as usize) else { return false };
            let name = self.names.text(c.name);
            if name.len() >= 3 && name[..3].eq_ignore_ascii_case("gui") {
                return true;
            }
            match c.parent {
                Some(p) => class = p,
                None => return false,
            }
        }
        false
    }

    /// A script object's name, then its `class`/`superClass` (ScriptObject, ScriptGroup); a
    /// named datablock's or GUI control's name; else the class namespace.
    fn namespace_for(&mut self, obj: &SimObject) -> NsId {
        let class = &self.objects.classes[obj.class as usize];
        let mut ns = class.ns;
        if class.script_class {
            let cls =
                field_of(&self.objects.classes, obj, self.names.lookup("class").unwrap_or(Name(u32::MAX)));
            let sup = field_of(
                &self.objects.classes,
                obj,
                self.names.lookup("superClass").unwrap_or(Name(u32::MAX)),
            );
            if !sup.is_empty() {
                let sn = self.names.intern(&sup.as_text());
                let sid = self.ns.named(sn);
                if self.ns.link(ns, sid) || self.ns.parent_of(sid).is_some() {
                    ns = sid;
                }
            }
            if !cls.is_empty() {
                let cn = self.names.intern(&cls.as_text());
                let cid = self.ns.named(cn);
                if self.ns.link(ns, cid) || self.ns.parent_of(cid).is_some() {
                    ns = cid;
                }
            }
            // V12 links a script object's name too: name -> class -> superClass -> ScriptObject,
            // so `new ScriptObject(Timer); function Timer::ring(%this) {...} Timer.ring();` works.
            if let Some(n) = obj.name {
                let nid = self.ns.named(n);
                if nid != ns && (self.ns.link(ns, nid) || self.ns.parent_of(nid).is_some()) {
                    ns = nid;
                }
            }
        } else if let Some(n) = obj.name
            && (class.kind == ClassKind::DataBlock || self.is_gui_class(obj.class))
        {
            let nid = self.ns.named(n);
            if self.ns.link(ns, nid) {
                ns = nid;
            }
        }
        ns
    }

    // ---- sets and groups ----

    /// Adds `obj` to a set; for a group it leaves its previous group.
    pub fn set_add(&mut self, set: ObjectId, obj: ObjectId) -> bool {
        if set == obj || !self.objects.contains(obj) {
            return false;
        }
        let Some(s) = self.objects.get(set) else { return false };
        let kind = self.objects.classes[s.class as usize].kind;
        if kind == ClassKind::Object || kind == ClassKind::DataBlock {
            return false;
        }
        if kind == ClassKind::Group {
            // An object is in at most one group; refuse to make a group contain its ancestor.
            let mut g = Some(set);
            while let Some(x) = g {
                if x == obj {
                    return false;
                }
                g = self.objects.get(x).and_then(|o| o.group);
            }
            if let Some(old) = self.objects.get(obj).and_then(|o| o.group) {
                if old == set {
                    return true;
                }
                self.set_remove(old, obj);
            }
        }
        // Membership from the object's side: it is in a few sets, a set may hold 100,000s of
        // objects (scanning `members` made creating many objects quadratic).
        if self.objects.get(obj).is_some_and(|o| o.sets.contains(&set)) {
            return true;
        }
        let Some(s) = self.objects.get_mut(set) else { return false };
        s.members.push(obj);
        if let Some(o) = self.objects.get_mut(obj) {
            o.sets.push(set);
            if kind == ClassKind::Group {
                o.group = Some(set);
            }
        }
        true
    }

    /// Removes `obj` from a set or group.
    pub fn set_remove(&mut self, set: ObjectId, obj: ObjectId) -> bool {
        let Some(s) = self.objects.get_mut(set) else { return false };
        // From the back: the newest members are the ones most often removed.
        let Some(pos) = s.members.iter().rposition(|&m| m == obj) else { return false };
        s.members.remove(pos);
        if let Some(o) = self.objects.get_mut(obj) {
            o.sets.retain(|&x| x != set);
            if o.group == Some(set) {
                o.group = None;
            }
        }
        true
    }

    /// Deletes an object: `onRemove`, then (for a group) its members, then it leaves every set.
    pub fn delete_object(&mut self, id: ObjectId) -> bool {
        if id == ROOT_GROUP_ID || id == DATABLOCK_GROUP_ID {
            return false;
        }
        match self.objects.get_mut(id) {
            Some(o) if !o.deleting => o.deleting = true,
            _ => return false,
        }
        self.call_method_if_exists(id, "onRemove", &[]);
        let (is_group, members) = match self.objects.get(id) {
            Some(o) => (self.objects.classes[o.class as usize].kind == ClassKind::Group, o.members.clone()),
            None => return false,
        };
        for m in members {
            if is_group {
                self.delete_object(m);
            } else {
                self.set_remove(id, m);
            }
        }
        let sets = self.objects.get(id).map(|o| o.sets.clone()).unwrap_or_default();
        for s in sets {
            self.set_remove(s, id);
        }
        self.scheduler.cancel_events_of(id);
        self.objects.remove(id);
        true
    }

    /// Renames an object (`""` removes the name).
    pub fn set_object_name(&mut self, id: ObjectId, name: &str) {
        let new = if name.is_empty() { None } else { Some(self.names.intern(name)) };
        self.objects.rename(id, new);
    }

    // ---- persistence and inspection ----
    //
    // `save` writes nested `new` blocks, which `exec` parses with bounded nesting.

    /// How many groups deep the tree under `id` goes (0: no member groups); iterative, so a
    /// pathologically deep tree costs no native stack.
    pub fn group_nesting(&self, id: ObjectId) -> usize {
        let mut deepest = 0;
        let mut todo = vec![(id, 0usize)];
        while let Some((g, d)) = todo.pop() {
            deepest = deepest.max(d);
            if let Some(o) = self.objects.get(g)
                && self.objects.classes[o.class as usize].kind == ClassKind::Group
            {
                todo.extend(o.members.iter().map(|m| (*m, d + 1)));
            }
        }
        deepest
    }

    /// Script that recreates the object (and a group's members): V12's `SimObject::save`.
    /// Refuse objects nested deeper than `MAX_SAVE_NESTING` first (`group_nesting`): `exec`
    /// could not read the file back.
    pub fn save_object_text(&self, id: ObjectId) -> String {
        let mut out = String::from("//--- OBJECT WRITE BEGIN ---\n");
        self.write_object(id, 0, &mut out);
        out.push_str("//--- OBJECT WRITE END ---\n");
        out
    }

    fn write_object(&self, id: ObjectId, depth: usize, out: &mut String) {
        let Some(o) = self.objects.get(id) else { return };
        let class = &self.objects.classes[o.class as usize];
        let pad = "   ".repeat(depth);
        let kw = if class.kind == ClassKind::DataBlock { "datablock" } else { "new" };
        let name = o.name.map(|n| self.names.text(n)).unwrap_or("");
        let _ = writeln!(out, "{pad}{kw} {}({name}) {{", self.names.text(class.name));
        for (f, v) in class.fields.iter().zip(&o.fields) {
            let mut q = String::new();
            crate::ast::quote(&self.format_field(f.ty, v), '"', &mut q);
            let _ = writeln!(out, "{pad}   {} = {q};", self.names.text(f.name));
        }
        let mut dynamic: Vec<(&str, &Value)> =
            o.dynamic.iter().map(|(k, v)| (self.names.text(*k), v)).collect();
        dynamic.sort_by_key(|(k, _)| k.to_ascii_lowercase());
        for (k, v) in dynamic {
            let mut q = String::new();
            crate::ast::quote(&v.as_text(), '"', &mut q);
            let _ = writeln!(out, "{pad}   {k} = {q};");
        }
        if class.kind == ClassKind::Group {
            if !o.members.is_empty() {
                out.push('\n');
            }
            for m in &o.members {
                self.write_object(*m, depth + 1, out);
            }
        }
        let _ = writeln!(out, "{pad}}};");
    }

    /// Lines of `obj.dump()`: fields, dynamic fields and methods along the namespace chain.
    pub fn dump_lines(&self, id: ObjectId) -> Vec<String> {
        let Some(o) = self.objects.get(id) else { return Vec::new() };
        let class = &self.objects.classes[o.class as usize];
        let mut lines = vec!["Member Fields:".to_string()];
        for (f, v) in class.fields.iter().zip(&o.fields) {
            lines.push(format!("  {} = \"{}\"", self.names.text(f.name), v));
        }
        lines.push("Tagged Fields:".to_string());
        let mut dynamic: Vec<String> =
            o.dynamic.iter().map(|(k, v)| format!("  {} = \"{}\"", self.names.text(*k), v)).collect();
        dynamic.sort_by_key(|s| s.to_ascii_lowercase());
        lines.extend(dynamic);
        lines.push("Methods:".to_string());
        let mut methods: Vec<String> = Vec::new();
        for fname in self.ns.names_visible_from(o.ns) {
            let t = self.names.text(fname).to_string();
            if !methods.iter().any(|m| m.eq_ignore_ascii_case(&t)) {
                methods.push(t);
            }
        }
        methods.sort_by_key(|m| m.to_ascii_lowercase());
        lines.extend(methods.into_iter().map(|m| format!("  {m}()")));
        lines
    }

    /// The object hierarchy under `id` as indented lines (`tree()`).
    pub fn tree_lines(&self, id: ObjectId) -> Vec<String> {
        let mut out = Vec::new();
        self.tree_into(id, 0, &mut out);
        out
    }

    fn tree_into(&self, id: ObjectId, depth: usize, out: &mut Vec<String>) {
        let Some(o) = self.objects.get(id) else { return };
        let name = o.name.map(|n| self.names.text(n)).unwrap_or("");
        let class = self.names.text(self.objects.classes[o.class as usize].name);
        out.push(format!("{}{id} {name} ({class})", "   ".repeat(depth)).replace("  (", " ("));
        if self.objects.classes[o.class as usize].kind == ClassKind::Group {
            for m in &o.members {
                self.tree_into(*m, depth + 1, out);
            }
        }
    }
}
