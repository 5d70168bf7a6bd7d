//! OpenCode's record shape: one row of its SQLite store as the reader renders it
//! (`bytes::rows`: `{"$table":"part","$rowid":57,"id":…,"session_id":…,"data":{…}}`, and the
//! header line `{"$db":"sqlite","tables":{…}}`), or one document of the older JSON `storage/`
//! tree (`{"id":…,"sessionID":…,"role":…}`). Lenient serde structs that borrow from the line:
//! a field of a surprising type reads as absent.
//!
//! The fields are those of `packages/opencode/src/session/message-v2.ts` (`Info`: a user or
//! assistant message; `Part`: text, reasoning, tool, step-start, step-finish, file, compaction,
//! subtask, patch, snapshot, agent, retry) and of `session.sql.ts` (the tables' columns: a
//! message's and a part's `data` hold the document without its ids, which are columns).

use crate::scan::{field, field_in, FieldBit, Invalid, Scanner, R};
use crate::wire::{Flag, Num, Obj, Str};
use serde::Deserialize;

/// One record: a database row (its columns, its document in `data`) or a JSON document.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Row<'a> {
    /// The rendering's header line (`"$db": "sqlite"`), with its tables' columns.
    #[serde(rename = "$db", borrow)]
    pub db: Str<'a>,
    pub tables: Obj<Tables<'a>>,
    /// A row's table and rowid (absent from a JSON document).
    #[serde(rename = "$table", borrow)]
    pub table: Str<'a>,
    #[serde(rename = "$rowid")]
    pub rowid: Num,
    // The columns (session, message, part tables).
    #[serde(borrow)]
    pub session_id: Str<'a>,
    #[serde(borrow)]
    pub message_id: Str<'a>,
    #[serde(borrow)]
    pub parent_id: Str<'a>,
    pub time_created: Num,
    /// A message's or part's document (its fields as a JSON document has them, without ids).
    #[serde(borrow)]
    pub data: Obj<Doc<'a>>,
    /// The fields a document has at its top (a JSON file), and a session row's own columns.
    #[serde(flatten, borrow)]
    pub doc: Doc<'a>,
}

/// The tables of the header line, each a list of its columns (empty: no such table).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Tables<'a> {
    #[serde(borrow)]
    pub session: Columns<'a>,
    #[serde(borrow)]
    pub message: Columns<'a>,
    #[serde(borrow)]
    pub part: Columns<'a>,
}

/// A table's columns: a list of names, or nothing when the field is not one.
#[derive(Debug, Default)]
pub struct Columns<'a>(pub Vec<Str<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Columns<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Array(a) => Ok(Columns(
                a.into_iter().filter_map(|v| v.as_str().map(|s| Str::Owned(s.into()))).collect(),
            )),
            _ => Ok(Columns(Vec::new())),
        }
    }
}

/// A session, message or part document.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
#[serde(rename_all = "camelCase")]
pub struct Doc<'a> {
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(rename = "sessionID", borrow)]
    pub session_id: Str<'a>,
    #[serde(rename = "messageID", borrow)]
    pub message_id: Str<'a>,
    /// A session's parent session; an assistant message's user message.
    #[serde(rename = "parentID", borrow)]
    pub parent_id: Str<'a>,
    #[serde(rename = "projectID", borrow)]
    pub project_id: Str<'a>,
    #[serde(borrow)]
    pub title: Str<'a>,
    #[serde(borrow)]
    pub directory: Str<'a>,
    pub time: Obj<Time>,
    // A message.
    #[serde(borrow)]
    pub role: Str<'a>,
    #[serde(rename = "modelID", borrow)]
    pub model_id: Str<'a>,
    #[serde(rename = "providerID", borrow)]
    pub provider_id: Str<'a>,
    /// A user message's model (`{providerID, modelID}`).
    #[serde(borrow)]
    pub model: Obj<Model<'a>>,
    #[serde(borrow)]
    pub agent: Str<'a>,
    /// An assistant message that is a compaction's summary (`true`); a user message's summary is
    /// an object, which reads as absent.
    pub summary: Flag,
    pub error: Obj<Error<'a>>,
    #[serde(borrow)]
    pub finish: Str<'a>,
    pub cost: Num,
    pub tokens: Obj<Tokens>,
    // A part.
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    pub synthetic: Flag,
    pub ignored: Flag,
    /// Whether a text or reasoning part has text (its text is read back when shown).
    #[serde(borrow)]
    pub text: Str<'a>,
    #[serde(rename = "callID", borrow)]
    pub call_id: Str<'a>,
    #[serde(borrow)]
    pub tool: Str<'a>,
    #[serde(borrow)]
    pub state: Obj<State<'a>>,
    /// A subtask part's agent, description.
    #[serde(borrow)]
    pub description: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Time {
    pub created: Num,
    pub completed: Num,
    pub start: Num,
    pub end: Num,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Model<'a> {
    #[serde(rename = "modelID", borrow)]
    pub model_id: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Error<'a> {
    #[serde(borrow)]
    pub name: Str<'a>,
}

/// A call's tokens: `input` without cache reads and writes; `reasoning` apart from `output`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Tokens {
    pub input: Num,
    pub output: Num,
    pub reasoning: Num,
    pub cache: Obj<Cache>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Cache {
    pub read: Num,
    pub write: Num,
}

/// A tool part's state: `pending`, `running`, `completed` or `error`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct State<'a> {
    #[serde(borrow)]
    pub status: Str<'a>,
    /// A completed call's output (a task's: `task_id: <child> …<task_result>…`).
    #[serde(borrow)]
    pub output: Str<'a>,
    #[serde(borrow)]
    pub metadata: Obj<Metadata<'a>>,
    pub time: Obj<Time>,
    /// Tool input: the `task` tool's `subagent_type`.
    #[serde(borrow)]
    pub input: Obj<Input<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Metadata<'a> {
    /// The `task` tool's child session.
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Input<'a> {
    #[serde(borrow)]
    pub subagent_type: Str<'a>,
    #[serde(borrow)]
    pub description: Str<'a>,
}

impl<'a> Row<'a> {
    /// The document: a row's `data`, or the line itself (a JSON file, a session row).
    pub fn doc(&self) -> &Doc<'a> {
        self.data.0.as_ref().unwrap_or(&self.doc)
    }

    pub fn id(&self) -> Option<&str> {
        self.doc.id.non_empty()
    }

    pub fn session(&self) -> Option<&str> {
        self.session_id.non_empty().or(self.doc().session_id.non_empty()).or(self.doc.session_id.non_empty())
    }

    pub fn message(&self) -> Option<&str> {
        self.message_id.non_empty().or(self.doc().message_id.non_empty()).or(self.doc.message_id.non_empty())
    }

    /// What the record is: the table it is a row of, else what a document's fields say.
    pub fn what(&self) -> What {
        match self.table.as_str() {
            Some("session") => return What::Session,
            Some("message") => return What::Message,
            Some("part") => return What::Part,
            Some(_) => return What::Other,
            None => {}
        }
        if self.db.as_str() == Some("sqlite") {
            return What::Header;
        }
        let d = &self.doc;
        if d.role.present() {
            What::Message
        } else if d.kind.present() {
            What::Part
        } else if d.project_id.present() || (d.title.present() && d.directory.present()) {
            What::Session
        } else {
            What::Other
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Header,
    Session,
    Message,
    Part,
    /// A row of another table (project, todo, permission, migrations …).
    Other,
}

/// A line in this shape, or `None` (not a JSON object the shape reads).
pub fn parse(text: &str) -> Option<Row<'_>> {
    let mut row = Row::default();
    Scanner::whole(text, None, |p| read_row(p, &mut row)).then_some(row)
}

/// `parse` through serde_json and the derived shapes: the reference the one-pass reading is held
/// to (`tests/scan.rs`).
pub fn parse_serde(text: &str) -> Option<Row<'_>> {
    if text.trim_start().as_bytes().first() != Some(&b'{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// Parse `text` into `out` (a default row) in one pass: the parse was a fifth of a store's
/// reading through serde (its `flatten` buffers every top-level field, and a row was built and
/// then moved into place).
fn parse_into<'a>(text: &'a str, _arena: &'a bumpalo::Bump, out: &mut Row<'a>) -> bool {
    Scanner::whole(text, None, |p| read_row(p, out))
}

/// A row's fields (at its `{`), as the derived `Deserialize` of `Row` reads them: each known key
/// once (twice is an error), the others into `doc` as its `flatten` does: read whole first (serde
/// buffers them, numbers converted and strings decoded at any depth), then as the document's
/// fields.
fn read_row<'a>(p: &mut Scanner<'a>, r: &mut Row<'a>) -> R<()> {
    let (mut seen, mut doc_seen): (FieldBit, FieldBit) = (0, 0);
    p.object(|p, key| {
        let seen = &mut seen;
        match key {
            "$db" => field!(seen, 0, r.db, p.str_field()),
            // The header's tables, once a file: read by serde from the value's text (as typed).
            "tables" => field!(seen, 1, r.tables, {
                let start = p.pos();
                p.skip().and_then(|()| serde_json::from_str::<Obj<Tables<'a>>>(p.since(start)).map_err(|_| Invalid))
            }),
            "$table" => field!(seen, 2, r.table, p.str_field()),
            "$rowid" => field!(seen, 3, r.rowid, p.num_field()),
            "session_id" => field!(seen, 4, r.session_id, p.str_field()),
            "message_id" => field!(seen, 5, r.message_id, p.str_field()),
            "parent_id" => field!(seen, 6, r.parent_id, p.str_field()),
            "time_created" => field!(seen, 7, r.time_created, p.num_field()),
            "data" => field_in!(seen, 8, p.obj_in(&mut r.data, read_doc)),
            _ => {
                let start = p.pos();
                p.typed()?;
                p.rewind(start);
                read_doc(p, &mut r.doc, &mut doc_seen, key)
            }
        }
    })
}

fn read_doc<'a>(p: &mut Scanner<'a>, d: &mut Doc<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "id" => field!(seen, 0, d.id, p.str_field()),
        "sessionID" => field!(seen, 1, d.session_id, p.str_field()),
        "messageID" => field!(seen, 2, d.message_id, p.str_field()),
        "parentID" => field!(seen, 3, d.parent_id, p.str_field()),
        "projectID" => field!(seen, 4, d.project_id, p.str_field()),
        "title" => field!(seen, 5, d.title, p.str_field()),
        "directory" => field!(seen, 6, d.directory, p.str_field()),
        "time" => field!(seen, 7, d.time, p.obj_field(read_time)),
        "role" => field!(seen, 8, d.role, p.str_field()),
        "modelID" => field!(seen, 9, d.model_id, p.str_field()),
        "providerID" => field!(seen, 10, d.provider_id, p.str_field()),
        "model" => field!(seen, 11, d.model, p.obj_field(read_model)),
        "agent" => field!(seen, 12, d.agent, p.str_field()),
        "summary" => field!(seen, 13, d.summary, p.flag_field()),
        "error" => field!(seen, 14, d.error, p.obj_field(read_error)),
        "finish" => field!(seen, 15, d.finish, p.str_field()),
        "cost" => field!(seen, 16, d.cost, p.num_field()),
        "tokens" => field!(seen, 17, d.tokens, p.obj_field(read_tokens)),
        "type" => field!(seen, 18, d.kind, p.str_field()),
        "synthetic" => field!(seen, 19, d.synthetic, p.flag_field()),
        "ignored" => field!(seen, 20, d.ignored, p.flag_field()),
        "text" => field!(seen, 21, d.text, p.str_field()),
        "callID" => field!(seen, 22, d.call_id, p.str_field()),
        "tool" => field!(seen, 23, d.tool, p.str_field()),
        "state" => field!(seen, 24, d.state, p.obj_field(read_state)),
        "description" => field!(seen, 25, d.description, p.str_field()),
        _ => p.skip(),
    }
}

fn read_time(p: &mut Scanner<'_>, t: &mut Time, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "created" => field!(seen, 0, t.created, p.num_field()),
        "completed" => field!(seen, 1, t.completed, p.num_field()),
        "start" => field!(seen, 2, t.start, p.num_field()),
        "end" => field!(seen, 3, t.end, p.num_field()),
        _ => p.skip(),
    }
}

fn read_model<'a>(p: &mut Scanner<'a>, m: &mut Model<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "modelID" => field!(seen, 0, m.model_id, p.str_field()),
        _ => p.skip(),
    }
}

fn read_error<'a>(p: &mut Scanner<'a>, e: &mut Error<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "name" => field!(seen, 0, e.name, p.str_field()),
        _ => p.skip(),
    }
}

fn read_tokens(p: &mut Scanner<'_>, t: &mut Tokens, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "input" => field!(seen, 0, t.input, p.num_field()),
        "output" => field!(seen, 1, t.output, p.num_field()),
        "reasoning" => field!(seen, 2, t.reasoning, p.num_field()),
        "cache" => field!(seen, 3, t.cache, p.obj_field(read_cache)),
        _ => p.skip(),
    }
}

fn read_cache(p: &mut Scanner<'_>, c: &mut Cache, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "read" => field!(seen, 0, c.read, p.num_field()),
        "write" => field!(seen, 1, c.write, p.num_field()),
        _ => p.skip(),
    }
}

fn read_state<'a>(p: &mut Scanner<'a>, s: &mut State<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "status" => field!(seen, 0, s.status, p.str_field()),
        "output" => field!(seen, 1, s.output, p.str_field()),
        "metadata" => field!(seen, 2, s.metadata, p.obj_field(read_metadata)),
        "time" => field!(seen, 3, s.time, p.obj_field(read_time)),
        "input" => field!(seen, 4, s.input, p.obj_field(read_input)),
        _ => p.skip(),
    }
}

fn read_metadata<'a>(p: &mut Scanner<'a>, m: &mut Metadata<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "sessionId" => field!(seen, 0, m.session_id, p.str_field()),
        _ => p.skip(),
    }
}

fn read_input<'a>(p: &mut Scanner<'a>, i: &mut Input<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "subagent_type" => field!(seen, 0, i.subagent_type, p.str_field()),
        "description" => field!(seen, 1, i.description, p.str_field()),
        _ => p.skip(),
    }
}

fn prefetch(_line: &Row<'_>) {}

/// OpenCode's line shape.
pub struct RowShape;

crate::formats::line_shape!(RowShape, row_cells, Row, parse_into, prefetch);
