//! A SQLite database read as lines: each row one JSON line, so that a store of rows (OpenCode's
//! `opencode.db`) flows through the same reader, record index and read-back as a log of lines.
//!
//! The rendering is a decoded stream, as a zstd file's is: it is made from the database, never
//! written anywhere, and its offsets are offsets in the rendering (a line is read back by making
//! the rendering again up to it, as a zstd stream is decoded again). Line 1 is a header naming the
//! tables and their columns (`{"$db":"sqlite","user_version":0,"tables":{"part":["id",…],…}}`);
//! then every table's rows, tables in the order the schema made them (`sqlite_master`), rows in
//! `rowid` order, each `{"$table":"part","$rowid":57,"id":…,"data":{…}}`. So a row's place is its
//! line in the rendering, and its raw line names its table and rowid: `select * from part where
//! rowid = 57` finds it again. A text column that holds a JSON object or array is put in as JSON
//! (its newlines, which JSON allows only between tokens, made spaces); other text is a string,
//! numbers are numbers, a blob is `{"$blob":<its length>}`. Tables without a rowid are named in
//! the header and not rendered.
//!
//! A path `<store>/<session id>` names one delegation tree of a store of sessions (OpenCode's):
//! no file has such a path, a database being a file. Its rendering is the whole store's with only
//! the tree's rows: the header (naming the tree's root as `"tree"`), then the `session` rows of the
//! root the session is under and of every session below it (by `parent_id`), the rows of every
//! table with a `session_id` column (else an `aggregate_id`: the event-sourced store's events)
//! that name one of them, and every other table whole (a project's row, the migrations); each
//! table's rows in `rowid` order as before, found by the store's own indexes. A session of a store of ten gigabytes opens in the time of its own rows.
//!
//! The database is opened read-only (`SQLITE_OPEN_READ_ONLY`, and `query_only`), never copied or
//! written; the whole rendering is one read transaction, so it is one consistent state of a store
//! that is being written (WAL mode lets the writer go on meanwhile). A database that is locked,
//! corrupt or no database is an error of the stream, which the reader reports where it happened.

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::collections::HashMap;
use std::io::{self, Read};
use std::path::Path;

/// The first 16 bytes of every SQLite database file.
pub const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Rows fetched from a table at a time.
const BATCH: usize = 256;

/// How long a read waits for a writer's lock before it gives up (a busy store is then a finding).
const BUSY_MS: u64 = 2_000;

/// Whether a file is a SQLite database (by its first 16 bytes); `false` when it cannot be read.
pub fn is_sqlite(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok_and(|()| &head == MAGIC)
}

/// Whether these first bytes of a file are a SQLite database's.
pub fn is_sqlite_head(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// The rendering of a database, read as a stream of bytes (`Read`).
pub struct Rows {
    conn: Connection,
    tables: Vec<Table>,
    /// The table being rendered, and the last rowid rendered from it.
    table: usize,
    after: Option<i64>,
    /// Rendered bytes not yet read, from `pos`.
    out: Vec<u8>,
    pos: usize,
    done: bool,
}

struct Table {
    name: String,
    columns: Vec<String>,
    rowid: bool,
    /// Only these rows (ascending rowids), when the rendering is of one tree and this table says
    /// whose rows they are; `next` is the first not yet rendered.
    only: Option<Vec<i64>>,
    next: usize,
    /// What every row of it starts with (`{"$table":"part","$rowid":`), and each column's key
    /// (`,"data":`), rendered once.
    start: Vec<u8>,
    keys: Vec<Vec<u8>>,
}

impl Table {
    fn new(name: String, columns: Vec<String>, rowid: bool) -> Table {
        let mut start = b"{\"$table\":".to_vec();
        string(&mut start, &name);
        start.extend_from_slice(b",\"$rowid\":");
        let keys = columns
            .iter()
            .map(|c| {
                let mut k = vec![b','];
                string(&mut k, c);
                k.push(b':');
                k
            })
            .collect();
        Table { name, columns, rowid, only: None, next: 0, start, keys }
    }
}

fn io_error(e: rusqlite::Error) -> io::Error {
    let kind = match &e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DatabaseBusy => {
            io::ErrorKind::WouldBlock
        }
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DatabaseLocked => {
            io::ErrorKind::WouldBlock
        }
        _ => io::ErrorKind::InvalidData,
    };
    let why = match &e {
        rusqlite::Error::SqliteFailure(f, Some(m)) => format!("SQLite: {m} ({:?})", f.code),
        e => format!("SQLite: {e}"),
    };
    io::Error::new(kind, why)
}

/// A name as an SQL identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Open a database to render its rows. Fails when it cannot be opened read-only, is locked, is no
/// database or its schema cannot be read.
pub fn open(path: &Path) -> io::Result<Rows> {
    let conn = connect(path)?;
    // One read transaction for the whole rendering: one state of a store being written.
    conn.execute_batch("BEGIN").map_err(io_error)?;
    render(conn, None)
}

/// Open a store to render the rows of one delegation tree: the root `session` is under, and every
/// session below that root. Fails as `open` does, and when the store has no such session or no
/// `session` table with `id` and `parent_id`.
pub fn open_tree(store: &Path, session: &str) -> io::Result<Rows> {
    let conn = connect(store)?;
    conn.execute_batch("BEGIN").map_err(io_error)?;
    render(conn, Some(session))
}

/// The store and session a path `<store>/<session id>` names, when it names one: it is no file,
/// its folder is a SQLite database, and its name is a session id (any UTF-8 name: whether the
/// store has that session is for `open_tree` to say).
pub fn scoped(path: &Path) -> Option<(&Path, &str)> {
    let store = path.parent().filter(|p| !p.as_os_str().is_empty())?;
    let session = path.file_name()?.to_str().filter(|s| !s.is_empty())?;
    if std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    is_sqlite(store).then_some((store, session))
}

/// The file to watch and stamp for a path: the store of a tree path (`scoped`), else the path.
pub fn file_of(path: &Path) -> &Path {
    scoped(path).map_or(path, |(store, _)| store)
}

/// Every session of the tree `session` is in: its root first (found up the `parent_id`s), then
/// every session below it; `None` when the store has no such session. A session that only
/// messages name (no `session` row) is one, with no parent, as the whole store's reading makes it.
fn tree(conn: &Connection, session: &str) -> rusqlite::Result<Option<(String, Vec<String>)>> {
    let mut parent = conn.prepare("SELECT parent_id FROM session WHERE id = ?1")?;
    // No `message` table with a `session_id`: no session is named by messages alone.
    let mut named = conn.prepare("SELECT 1 FROM message WHERE session_id = ?1 LIMIT 1").ok();
    let mut up = |id: &str| -> rusqlite::Result<Option<Option<String>>> {
        let mut rows = parent.query([id])?;
        match rows.next()? {
            Some(r) => Ok(Some(r.get::<_, Option<String>>(0)?.filter(|p| !p.is_empty()))),
            None => match named.as_mut() {
                Some(st) => Ok(st.exists([id])?.then_some(None)),
                None => Ok(None),
            },
        }
    };
    let Some(root) = root_of(session, &mut up)? else { return Ok(None) };
    let mut st = conn.prepare(
        "WITH RECURSIVE tree(id) AS (SELECT ?1 UNION SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id) SELECT id FROM tree",
    )?;
    let ids = st.query_map([&root], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some((root, ids)))
}

/// The root of `session`'s tree, up the parents `up` gives (`None`: no such session; `Some(None)`:
/// it has no parent): a session whose parent is not in the store is one (its parent's rows are
/// not there to render); in a loop of parents, the loop's least id. `None` when there is no
/// `session`.
fn root_of<E>(
    session: &str,
    up: &mut impl FnMut(&str) -> Result<Option<Option<String>>, E>,
) -> Result<Option<String>, E> {
    let Some(mut above) = up(session)? else { return Ok(None) };
    let mut seen = vec![session.to_string()];
    while let Some(p) = above {
        if let Some(k) = seen.iter().position(|s| *s == p) {
            // A loop of parents: its least id is the root, wherever the loop is entered from.
            return Ok(seen[k..].iter().min().cloned());
        }
        match up(&p)? {
            Some(next) => {
                seen.push(p);
                above = next;
            }
            None => break,
        }
    }
    Ok(seen.pop())
}

/// The root of every tree of a store (what `open_tree` renders for any of its sessions), each
/// once, in id order; none when it is no store of sessions.
pub fn roots(store: &Path) -> io::Result<Vec<String>> {
    let conn = connect(store)?;
    conn.execute_batch("BEGIN").map_err(io_error)?;
    let mut parents: HashMap<String, Option<String>> = {
        // No `session` table with these columns: no store of sessions.
        let Ok(mut st) = conn.prepare("SELECT id, parent_id FROM session") else { return Ok(Vec::new()) };
        let got = st
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?.filter(|p| !p.is_empty()))))
            .map_err(io_error)?;
        got.collect::<Result<_, _>>().map_err(io_error)?
    };
    // A session that only messages name (no `session` row) is one too, with no parent (`tree`).
    if let Ok(mut st) = conn.prepare("SELECT DISTINCT session_id FROM message WHERE session_id IS NOT NULL") {
        let named = st.query_map([], |r| r.get::<_, String>(0)).map_err(io_error)?;
        for id in named {
            parents.entry(id.map_err(io_error)?).or_insert(None);
        }
    }
    let mut out: Vec<String> = Vec::new();
    for id in parents.keys() {
        let mut up = |s: &str| -> Result<Option<Option<String>>, ()> { Ok(parents.get(s).cloned()) };
        if let Ok(Some(r)) = root_of(id, &mut up) {
            out.push(r);
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// A read-only connection to a database, made as the rendering makes it (so that other readers,
/// the Library's, write nothing beside it either).
pub fn connect(path: &Path) -> io::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    // A WAL database that no one has open has no `-wal` and `-shm` beside it, and SQLite's
    // read-only reader would make both (and leave them: only a writer removes them). Read as
    // immutable then, nothing is made: no writer is there to change it while it is read. With
    // them there (OpenCode running), the reader takes a read mark in `-shm`, as every WAL reader
    // must, and writes nothing else.
    let [wal, shm] = companions(path);
    let conn = if is_wal(path) && !wal.exists() && !shm.exists() {
        Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI).map_err(io_error)?
    } else {
        Connection::open_with_flags(path, flags).map_err(io_error)?
    };
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_MS)).map_err(io_error)?;
    conn.pragma_update(None, "query_only", true).map_err(io_error)?;
    Ok(conn)
}

fn render(conn: Connection, session: Option<&str>) -> io::Result<Rows> {
    let names: Vec<(String, String)> = {
        let mut st = conn
            .prepare("SELECT name, coalesce(sql, '') FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
            .map_err(io_error)?;
        let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(io_error)?;
        rows.collect::<Result<_, _>>().map_err(io_error)?
    };
    let mut tables = Vec::with_capacity(names.len());
    for (name, sql) in names {
        let mut st = conn.prepare(&format!("PRAGMA table_info({})", quoted(&name))).map_err(io_error)?;
        let columns: Vec<String> = st
            .query_map([], |r| r.get::<_, String>(1))
            .map_err(io_error)?
            .collect::<Result<_, _>>()
            .map_err(io_error)?;
        let rowid = !sql.to_ascii_uppercase().contains("WITHOUT ROWID");
        tables.push(Table::new(name, columns, rowid));
    }
    let user_version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(io_error)?;
    let root = match session {
        Some(session) => Some(only_tree(&conn, &mut tables, session)?),
        None => None,
    };
    let mut out = Vec::new();
    header(&mut out, user_version, &tables, root.as_deref());
    Ok(Rows { conn, tables, table: 0, after: None, out, pos: 0, done: false })
}

/// Keep only the rows of `session`'s tree (`open_tree`): each table's rowids that are the tree's.
/// Returns the tree's root.
fn only_tree(conn: &Connection, tables: &mut [Table], session: &str) -> io::Result<String> {
    let has = |t: &Table, c: &str| t.columns.iter().any(|x| x == c);
    let sessions = tables.iter().find(|t| t.name == "session" && t.rowid && has(t, "id") && has(t, "parent_id"));
    if sessions.is_none() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the database is no store of sessions: it has no session table with id and parent_id",
        ));
    }
    let Some((root, ids)) = tree(conn, session).map_err(io_error)? else {
        return Err(io::Error::new(io::ErrorKind::NotFound, format!("the store has no session {session:?}")));
    };
    let ids = serde_json::to_string(&ids).map_err(io::Error::other)?;
    for t in tables.iter_mut().filter(|t| t.rowid) {
        // A table's rows are a session's by its `session_id`; the event-sourced store's
        // `event` and `event_sequence` (opencode 1.16) by their `aggregate_id`, a session's id.
        let column = match t.name.as_str() {
            "session" => "id",
            _ if has(t, "session_id") => "session_id",
            _ if has(t, "aggregate_id") => "aggregate_id",
            _ => continue,
        };
        let sql = format!(
            "SELECT rowid FROM {} WHERE {} IN (SELECT value FROM json_each(?1)) ORDER BY rowid",
            quoted(&t.name),
            quoted(column)
        );
        let mut st = conn.prepare(&sql).map_err(io_error)?;
        let rowids = st.query_map([&ids], |r| r.get::<_, i64>(0)).map_err(io_error)?;
        t.only = Some(rowids.collect::<Result<_, _>>().map_err(io_error)?);
    }
    Ok(root)
}

/// Whether a database is in WAL mode (its header's read and write versions, bytes 18 and 19, are
/// 2). A database in rollback-journal mode makes nothing beside it when it is read, and one being
/// written has its `-journal`: it is opened as it is, and a writer's lock is waited for.
fn is_wal(path: &Path) -> bool {
    let mut head = [0u8; 20];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok_and(|()| head[18] == 2 && head[19] == 2)
}

/// `path` as an SQLite URI that opens it immutable (`file:…?immutable=1`), every byte that is not
/// plainly part of a path percent-encoded.
fn immutable_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::from("file:");
    if text.as_bytes().get(1) == Some(&b':') {
        // A Windows drive letter: `file:/C:/…`.
        out.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/._~-:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push_str("?immutable=1");
    out
}

/// Line 1: the tables and their columns.
fn header(out: &mut Vec<u8>, user_version: i64, tables: &[Table], root: Option<&str>) {
    out.extend_from_slice(b"{\"$db\":\"sqlite\",\"user_version\":");
    out.extend_from_slice(user_version.to_string().as_bytes());
    out.extend_from_slice(b",\"tables\":{");
    for (i, t) in tables.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, &t.name);
        out.extend_from_slice(b":[");
        for (k, c) in t.columns.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            string(out, c);
        }
        out.push(b']');
    }
    out.extend_from_slice(b"}");
    let without: Vec<&Table> = tables.iter().filter(|t| !t.rowid).collect();
    if !without.is_empty() {
        out.extend_from_slice(b",\"without_rowid\":[");
        for (i, t) in without.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            string(out, &t.name);
        }
        out.push(b']');
    }
    if let Some(root) = root {
        out.extend_from_slice(b",\"tree\":");
        string(out, root);
    }
    out.extend_from_slice(b"}\n");
}

fn string(out: &mut Vec<u8>, s: &str) {
    // serde_json writes a string with every character a JSON string must escape escaped (the
    // engine's own `text::json` is a layer above these bytes).
    let _ = serde_json::to_writer(&mut *out, s);
}

fn integer(out: &mut Vec<u8>, i: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
}

/// One column's value.
fn value(out: &mut Vec<u8>, v: ValueRef<'_>) {
    match v {
        ValueRef::Null => out.extend_from_slice(b"null"),
        ValueRef::Integer(i) => integer(out, i),
        ValueRef::Real(f) if f.is_finite() => {
            let _ = serde_json::to_writer(&mut *out, &f);
        }
        ValueRef::Real(_) => out.extend_from_slice(b"null"),
        ValueRef::Text(t) => text(out, t),
        ValueRef::Blob(b) => {
            out.extend_from_slice(b"{\"$blob\":");
            integer(out, b.len() as i64);
            out.push(b'}');
        }
    }
}

/// A text column: JSON text of an object or array as itself, on one line; anything else a string.
fn text(out: &mut Vec<u8>, t: &[u8]) {
    let trimmed = t.trim_ascii();
    if matches!(trimmed.first(), Some(b'{' | b'[')) && is_json(trimmed) {
        // Valid JSON has no raw line break inside a string: every one is between tokens.
        let mut from = 0;
        for i in memchr::memchr2_iter(b'\n', b'\r', trimmed) {
            out.extend_from_slice(&trimmed[from..i]);
            out.push(b' ');
            from = i + 1;
        }
        out.extend_from_slice(&trimmed[from..]);
        return;
    }
    match std::str::from_utf8(t) {
        Ok(s) => string(out, s),
        Err(_) => string(out, &String::from_utf8_lossy(t)),
    }
}

/// Whether a column's text is one JSON value (what serde_json accepts as a value it ignores).
fn is_json(t: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(t).is_ok()
}

impl Rows {
    /// Render the next rows into `out`: `false` when every table is done.
    fn fill(&mut self) -> io::Result<bool> {
        while let Some(t) = self.tables.get(self.table) {
            if !t.rowid {
                self.table += 1;
                self.after = None;
                continue;
            }
            if let Some(only) = &t.only {
                // One tree's rows: each by its rowid, a batch at a time.
                let batch = &only[t.next..only.len().min(t.next + BATCH)];
                let sql = format!("SELECT rowid, * FROM {} WHERE rowid = ?1", quoted(&t.name));
                let mut st = self.conn.prepare_cached(&sql).map_err(io_error)?;
                for &rowid in batch {
                    let mut rows = st.query([rowid]).map_err(io_error)?;
                    if let Some(r) = rows.next().map_err(io_error)? {
                        row(&mut self.out, t, rowid, r)?;
                    }
                }
                let (n, total) = (batch.len(), only.len());
                let t = &mut self.tables[self.table];
                t.next += n;
                if t.next >= total {
                    self.table += 1;
                }
                if n > 0 {
                    return Ok(true);
                }
                continue;
            }
            let sql = format!("SELECT rowid, * FROM {} WHERE rowid > ?1 ORDER BY rowid LIMIT {BATCH}", quoted(&t.name));
            let mut st = self.conn.prepare_cached(&sql).map_err(io_error)?;
            let mut rows = st.query([self.after.unwrap_or(i64::MIN)]).map_err(io_error)?;
            let mut n = 0;
            while let Some(r) = rows.next().map_err(io_error)? {
                n += 1;
                let rowid: i64 = r.get(0).map_err(io_error)?;
                self.after = Some(rowid);
                row(&mut self.out, t, rowid, r)?;
            }
            if n < BATCH {
                self.table += 1;
                self.after = None;
            }
            if n > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// One row's line.
fn row(out: &mut Vec<u8>, t: &Table, rowid: i64, r: &rusqlite::Row<'_>) -> io::Result<()> {
    out.extend_from_slice(&t.start);
    integer(out, rowid);
    for (k, key) in t.keys.iter().enumerate() {
        out.extend_from_slice(key);
        value(out, r.get_ref(k + 1).map_err(io_error)?);
    }
    out.extend_from_slice(b"}\n");
    Ok(())
}

impl Read for Rows {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.out.len() {
            if self.done {
                return Ok(0);
            }
            self.out.clear();
            self.pos = 0;
            match self.fill() {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
        let n = buf.len().min(self.out.len() - self.pos);
        buf[..n].copy_from_slice(&self.out[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The files SQLite keeps beside a database in WAL mode (`-wal`, `-shm`): what a writer changes
/// while the database file itself may stay the same, so what a follower watches.
pub fn companions(path: &Path) -> [std::path::PathBuf; 2] {
    let with = |suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    [with("-wal"), with("-shm")]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(path: &Path) -> String {
        let mut s = String::new();
        open(path).unwrap().read_to_string(&mut s).unwrap();
        s
    }

    #[test]
    fn rows_render_as_json_lines_in_table_then_rowid_order() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.db");
        let c = Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE message (id TEXT PRIMARY KEY, n INTEGER, x REAL, data TEXT, b BLOB);
             CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
             INSERT INTO message VALUES ('m2', 2, 0.5, '{\"a\":\n [1, \"x\\ny\"]}', x'0102');
             INSERT INTO message VALUES ('m1', NULL, NULL, 'plain \"text\"', NULL);
             INSERT INTO kv VALUES ('a', 'b');",
        )
        .unwrap();
        drop(c);
        let text = rendered(&db);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                r#"{"$db":"sqlite","user_version":0,"tables":{"message":["id","n","x","data","b"],"kv":["k","v"]},"without_rowid":["kv"]}"#,
                r#"{"$table":"message","$rowid":1,"id":"m2","n":2,"x":0.5,"data":{"a":  [1, "x\ny"]},"b":{"$blob":2}}"#,
                r#"{"$table":"message","$rowid":2,"id":"m1","n":null,"x":null,"data":"plain \"text\"","b":null}"#,
            ]
        );
        for l in lines {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
    }

    #[test]
    fn many_rows_come_in_batches_without_loss() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("b.db");
        let mut c = Connection::open(&db).unwrap();
        let tx = c.transaction().unwrap();
        tx.execute_batch("CREATE TABLE part (id TEXT, data TEXT)").unwrap();
        for i in 0..(BATCH * 3 + 7) {
            tx.execute("INSERT INTO part VALUES (?1, '{}')", [format!("p{i}")]).unwrap();
        }
        tx.commit().unwrap();
        drop(c);
        let text = rendered(&db);
        assert_eq!(text.lines().count(), 1 + BATCH * 3 + 7);
        assert!(text.lines().last().unwrap().contains(&format!("\"p{}\"", BATCH * 3 + 6)));
    }

    /// Read-only, with nothing made beside the database or written to it: a WAL database no one
    /// has open is read without a `-wal` or `-shm` being made; one a writer has open is read
    /// with its `-wal` and the database as they were.
    #[test]
    fn reading_a_wal_database_writes_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("odd name #1?.db");
        let c = Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('a');").unwrap();
        drop(c);
        let [wal, shm] = companions(&db);
        assert!(!wal.exists() && !shm.exists(), "a closed WAL database keeps nothing beside it");
        let stamp = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.len(), m.modified().unwrap()));
        let before = stamp(&db);
        assert_eq!(rendered(&db).lines().count(), 2);
        assert!(!wal.exists() && !shm.exists(), "reading made a -wal or -shm");
        assert_eq!(stamp(&db), before);
        // A writer has it open: its -wal holds a row the database file does not yet.
        let w = Connection::open(&db).unwrap();
        w.execute_batch("PRAGMA wal_autocheckpoint=0; INSERT INTO t VALUES ('b');").unwrap();
        let (db_before, wal_before) = (stamp(&db), stamp(&wal));
        assert_eq!(rendered(&db).lines().count(), 3, "the row in the -wal is read");
        assert_eq!((stamp(&db), stamp(&wal)), (db_before, wal_before), "the database and its -wal are as they were");
        drop(w);
    }

    /// `<store>/<session id>` renders that session's root's tree: the sessions under it by
    /// `parent_id`, the rows that name one of them, other tables whole, each in rowid order.
    #[test]
    fn a_tree_of_a_store_renders_its_own_rows() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let c = Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE project (id TEXT);
             CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT);
             CREATE TABLE message (id TEXT, session_id TEXT);
             CREATE INDEX message_session_idx ON message (session_id);
             CREATE TABLE event (id TEXT, aggregate_id TEXT);
             INSERT INTO event VALUES ('e1', 'other'), ('e2', 'kid');
             INSERT INTO project VALUES ('p');
             INSERT INTO session VALUES ('other', NULL), ('kid', 'root'), ('root', ''), ('grand', 'kid'), ('loop1', 'loop2'), ('loop2', 'loop1');
             INSERT INTO message VALUES ('m1', 'grand'), ('m2', 'other'), ('m3', 'root'), ('m4', 'kid'), ('m5', 'loop2');
             INSERT INTO session VALUES ('ghostkid', 'ghost');
             INSERT INTO message VALUES ('m6', 'ghost'), ('m7', 'ghostkid');",
        )
        .unwrap();
        drop(c);
        let text = |p: &Path| {
            let mut s = String::new();
            let rows = match scoped(p) {
                Some((store, session)) => open_tree(store, session),
                None => open(p),
            };
            rows.and_then(|mut r| r.read_to_string(&mut s)).map(|_| s)
        };
        let ids = |t: &str| -> Vec<String> {
            t.lines()
                .skip(1)
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string())
                .collect()
        };
        let tree = text(&db.join("grand")).unwrap();
        assert!(tree.lines().next().unwrap().ends_with(r#","tree":"root"}"#), "{tree}");
        assert_eq!(ids(&tree), ["p", "kid", "root", "grand", "m1", "m3", "m4", "e2"]);
        assert_eq!(ids(&text(&db.join("other")).unwrap()), ["p", "other", "m2", "e1"]);
        assert_eq!(ids(&text(&db.join("loop1")).unwrap()), ["p", "loop1", "loop2", "m5"], "a loop of parents ends");
        assert_eq!(text(&db.join("nobody")).unwrap_err().kind(), io::ErrorKind::NotFound);
        // A session only messages name is the root of its tree, and of the sessions under it.
        let ghost = text(&db.join("ghostkid")).unwrap();
        assert!(ghost.lines().next().unwrap().ends_with(r#","tree":"ghost"}"#), "{ghost}");
        assert_eq!(ids(&ghost), ["p", "ghostkid", "m6", "m7"]);
        assert_eq!(text(&db).unwrap().lines().count(), 1 + 1 + 7 + 7 + 2, "the store itself is whole");
        assert_eq!(scoped(&db.join("kid")), Some((db.as_path(), "kid")));
        assert_eq!(scoped(&db), None, "a file is itself");
        std::fs::write(dir.path().join("plain"), "{}\n").unwrap();
        assert_eq!(scoped(&dir.path().join("plain/kid")), None, "in no database");
        assert_eq!(file_of(&db.join("kid")), db.as_path());

        assert_eq!(roots(&db).unwrap(), ["ghost", "loop1", "other", "root"]);
    }

    #[test]
    fn what_is_no_database_fails_to_open_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("c.db");
        let mut bytes = MAGIC.to_vec();
        bytes.extend(std::iter::repeat_n(0xAB, 4096));
        std::fs::write(&bad, bytes).unwrap();
        assert!(is_sqlite(&bad));
        let mut s = String::new();
        let got = open(&bad).and_then(|mut r| r.read_to_string(&mut s));
        assert!(got.is_err(), "a corrupt database is an error, not rows: {s:?}");
    }
}
