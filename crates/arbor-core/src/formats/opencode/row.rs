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

/// A line in this shape, or `None` (not a JSON object).
pub fn parse(text: &str) -> Option<Row<'_>> {
    if text.trim_start().as_bytes().first() != Some(&b'{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

fn parse_into<'a>(text: &'a str, _arena: &'a bumpalo::Bump, out: &mut Row<'a>) -> bool {
    match parse(text) {
        Some(r) => {
            *out = r;
            true
        }
        None => false,
    }
}

fn prefetch(_line: &Row<'_>) {}

/// OpenCode's line shape.
pub struct RowShape;

crate::formats::line_shape!(RowShape, row_cells, Row, parse_into, prefetch);
