//! Datablocks on the network (V12 reference page NetDatablocks): every datablock the server
//! declared in script (the console's DataBlockGroup) is sent to each client on connect as a
//! guaranteed-ordered [`DataBlockEvent`] (class name, server id, name, fields), then a
//! [`DataBlocksDoneEvent`]. The client builds the same datablocks without the server's
//! scripts and answers [`DataBlocksAckEvent`]; only then does the server start ghosting, so
//! no ghost can reference a datablock the client lacks. Class and field names travel as
//! string tags (sent once per connection), values as Huffman-coded text.

use crate::SimError;
use std::collections::BTreeMap;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_console_vm::{Console, DATABLOCK_GROUP_ID, ObjectId};
use v12_netobject::{
    ConnectionId, EventDirection, NetError, NetEvent, NetEventClass, NetInterface, PackContext, StringHandle,
    UnpackContext, read_str, write_str,
};

/// Most fields one datablock may carry.
pub const MAX_FIELDS: usize = 1024;
/// Longest field value accepted.
pub const MAX_VALUE_LEN: usize = 4096;
/// Longest object name accepted.
pub const MAX_NAME_LEN: usize = 255;

/// A name that is a tag when sent, text when received.
#[derive(Debug, Clone, PartialEq)]
pub enum TagName {
    Tag(StringHandle),
    Text(Arc<str>),
}

impl TagName {
    /// The text.
    pub fn text(&self) -> &str {
        match self {
            Self::Tag(h) => h.text(),
            Self::Text(t) => t,
        }
    }
    fn write(&self, w: &mut BitWriter, ctx: &mut PackContext<'_>) {
        match self {
            Self::Tag(h) => ctx.write_string_tag(w, h),
            // Never built on the sending side; kept total anyway.
            Self::Text(_) => {}
        }
    }
}

/// One datablock: V12's SimDataBlockEvent.
#[derive(Debug, Clone, PartialEq)]
pub struct DataBlockEvent {
    pub class: TagName,
    /// The server's object id (ghost updates reference datablocks by it).
    pub id: u32,
    pub name: String,
    pub fields: Vec<(TagName, String)>,
}

impl NetEvent for DataBlockEvent {
    fn pack(&self, w: &mut BitWriter, ctx: &mut PackContext<'_>) {
        self.class.write(w, ctx);
        w.write_int(self.id, 32);
        write_str(w, &self.name);
        let n = self.fields.len().min(MAX_FIELDS);
        w.write_int(n as u32, 11);
        for (k, v) in &self.fields[..n] {
            k.write(w, ctx);
            write_str(w, v);
        }
    }
}

impl NetEventClass for DataBlockEvent {
    const NAME: &'static str = "SimDataBlockEvent";
    const DIRECTION: EventDirection = EventDirection::ServerToClient;
    fn unpack(r: &mut BitReader<'_>, ctx: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        let class = TagName::Text(ctx.read_string_tag(r)?);
        let id = r.read_int(32)?;
        let name = read_str(r, MAX_NAME_LEN)?;
        let n = r.read_int(11)? as usize;
        if n > MAX_FIELDS {
            return Err(NetError::TooLong { what: "datablock fields", len: n, max: MAX_FIELDS });
        }
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let k = TagName::Text(ctx.read_string_tag(r)?);
            fields.push((k, read_str(r, MAX_VALUE_LEN)?));
        }
        Ok(Self { class, id, name, fields })
    }
}

/// Every datablock has been sent (`count` of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataBlocksDoneEvent {
    pub count: u32,
}

impl NetEvent for DataBlocksDoneEvent {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.count, 32);
    }
}

impl NetEventClass for DataBlocksDoneEvent {
    const NAME: &'static str = "DataBlocksDoneEvent";
    const DIRECTION: EventDirection = EventDirection::ServerToClient;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        Ok(Self { count: r.read_int(32)? })
    }
}

/// The client has built every datablock; the server may start ghosting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataBlocksAckEvent {
    pub count: u32,
}

impl NetEvent for DataBlocksAckEvent {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.count, 32);
    }
}

impl NetEventClass for DataBlocksAckEvent {
    const NAME: &'static str = "DataBlocksAckEvent";
    const DIRECTION: EventDirection = EventDirection::ClientToServer;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        Ok(Self { count: r.read_int(32)? })
    }
}

/// Field names of an object's registered fields (read from the console's `dump`).
fn registered_field_names(con: &Console, id: ObjectId) -> Vec<String> {
    let mut out = Vec::new();
    for line in con.dump_lines(id).iter().skip(1) {
        if !line.starts_with("  ") {
            break;
        }
        if let Some((name, _)) = line.trim_start().split_once(" = ") {
            out.push(name.to_string());
        }
    }
    out
}

/// The fields of a datablock, registered ones in class order, then dynamic ones sorted by
/// name (so every server writes the same bytes).
pub fn datablock_fields(con: &Console, id: ObjectId) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = registered_field_names(con, id)
        .into_iter()
        .map(|n| {
            let v = con.get_field(id, &n).to_string();
            (n, v)
        })
        .collect();
    if let Some(o) = con.object(id) {
        let mut dynamic: Vec<(String, String)> =
            o.dynamic.iter().map(|(k, v)| (con.name_text(*k).to_string(), v.to_string())).collect();
        dynamic.sort_by_key(|a| a.0.to_ascii_lowercase());
        out.extend(dynamic);
    }
    out
}

/// Server: the datablocks to send, in id order.
pub fn datablock_ids(con: &Console) -> Vec<ObjectId> {
    let mut ids = con.object(DATABLOCK_GROUP_ID).map(|g| g.members.clone()).unwrap_or_default();
    ids.sort_unstable();
    ids
}

/// Server: posts every datablock and the done marker to `conn`. Returns the count.
pub fn send_datablocks(con: &Console, iface: &mut NetInterface, conn: ConnectionId) -> Result<u32, SimError> {
    let ids = datablock_ids(con);
    for &id in &ids {
        let class_name = con.class_name_of(id);
        let class = TagName::Tag(tag(iface, &class_name));
        let fields = datablock_fields(con, id)
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (TagName::Tag(tag(iface, &k)), v))
            .collect();
        let ev = DataBlockEvent { class, id, name: con.object_name(id), fields };
        iface.post_event(conn, Box::new(ev))?;
    }
    let count = ids.len() as u32;
    iface.post_event(conn, Box::new(DataBlocksDoneEvent { count }))?;
    Ok(count)
}

fn tag(iface: &mut NetInterface, text: &str) -> StringHandle {
    match iface.strings().lookup(text) {
        Some(h) => h,
        None => iface.strings().add_tagged_string(text),
    }
}

/// Server: is this event the client's "all datablocks received"? Then start ghosting it.
pub fn is_datablocks_ack(event: &dyn NetEvent) -> bool {
    event.downcast_ref::<DataBlocksAckEvent>().is_some()
}

/// What a client's datablock receiver reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataBlockProgress {
    /// Not a datablock event.
    NotMine,
    /// One datablock built: (server id, local id).
    Built { server_id: u32, local_id: ObjectId },
    /// All received; the host posts [`DataBlocksAckEvent`] (done by [`ClientDataBlocks::handle_event`]).
    Done { count: u32 },
}

/// Client: builds datablocks from the server's events and maps server ids to local ids.
#[derive(Debug, Default, Clone)]
pub struct ClientDataBlocks {
    by_server_id: BTreeMap<u32, ObjectId>,
    done: bool,
}

impl ClientDataBlocks {
    /// An empty receiver.
    pub fn new() -> Self {
        Self::default()
    }

    /// True once the done marker arrived (ghosting may follow).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The local object built for a server datablock id (ghost updates carry server ids).
    pub fn local_id(&self, server_id: u32) -> Option<ObjectId> {
        self.by_server_id.get(&server_id).copied()
    }

    /// Datablocks received.
    pub fn len(&self) -> usize {
        self.by_server_id.len()
    }

    /// True when none were received.
    pub fn is_empty(&self) -> bool {
        self.by_server_id.is_empty()
    }

    /// Handles an event from the server. A datablock of a class this client does not know
    /// is made under `SimDataBlock` (so script callbacks still find its fields).
    pub fn handle_event(
        &mut self,
        con: &mut Console,
        iface: &mut NetInterface,
        server: ConnectionId,
        event: &dyn NetEvent,
    ) -> Result<DataBlockProgress, SimError> {
        if let Some(ev) = event.downcast_ref::<DataBlockEvent>() {
            let local = self.build(con, ev)?;
            return Ok(DataBlockProgress::Built { server_id: ev.id, local_id: local });
        }
        if let Some(done) = event.downcast_ref::<DataBlocksDoneEvent>() {
            if done.count as usize != self.by_server_id.len() {
                return Err(SimError::DataBlock(format!(
                    "server sent {} datablocks, {} arrived",
                    done.count,
                    self.by_server_id.len()
                )));
            }
            self.done = true;
            iface.post_event(server, Box::new(DataBlocksAckEvent { count: done.count }))?;
            return Ok(DataBlockProgress::Done { count: done.count });
        }
        Ok(DataBlockProgress::NotMine)
    }

    /// Makes a datablock as the server described it, outside the datablock phase (a demo's
    /// start state), with the same checks as one that arrived over the network.
    pub fn restore(
        &mut self,
        con: &mut Console,
        server_id: u32,
        class: &str,
        name: &str,
        fields: &[(String, String)],
    ) -> Result<ObjectId, SimError> {
        if name.len() > MAX_NAME_LEN
            || fields.len() > MAX_FIELDS
            || fields.iter().any(|(_, v)| v.len() > MAX_VALUE_LEN)
        {
            return Err(SimError::DataBlock(format!("datablock {name:?} is too large")));
        }
        let text = |t: &str| TagName::Text(Arc::from(t));
        let ev = DataBlockEvent {
            class: text(class),
            id: server_id,
            name: name.to_string(),
            fields: fields.iter().map(|(k, v)| (text(k), v.clone())).collect(),
        };
        self.build(con, &ev)
    }

    fn build(&mut self, con: &mut Console, ev: &DataBlockEvent) -> Result<ObjectId, SimError> {
        let class = ev.class.text();
        if !class.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') || class.is_empty() {
            return Err(SimError::DataBlock(format!("bad class name {class:?}")));
        }
        let is_datablock = con.class_id(class).is_some_and(|c| con.class_is(c, "SimDataBlock"));
        if !is_datablock {
            if con.class_id(class).is_some() {
                return Err(SimError::DataBlock(format!("{class} is not a datablock class")));
            }
            con.register_class(class, "SimDataBlock")?;
        }
        let existing = self.by_server_id.get(&ev.id).copied().filter(|&id| con.object(id).is_some());
        let local = match existing {
            Some(id) => id,
            None => {
                let name = (!ev.name.is_empty()).then_some(ev.name.as_str());
                con.create_object(class, name)?
            }
        };
        for (k, v) in &ev.fields {
            let k = k.text();
            if k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'[' || b == b']') {
                con.set_field(local, k, v.as_str());
            }
        }
        self.by_server_id.insert(ev.id, local);
        Ok(local)
    }
}
