//! The search's rank, `arbor_rank(texts)`: FTS5's bm25 (k1 1.2, b 0.75, the same formula and
//! the same figures), save that a phrase's items are counted, for its IDF, up to `COUNT_CAP` and
//! no further.
//!
//! bm25 counts every item that holds each phrase of the query before it ranks the first one: a
//! walk of the phrase's whole list, so that a common word ("the", "file") costs as much as the
//! library is big, however few hits are asked for (issue 33: 10–14 ms at 132 entries, seconds at
//! 10,000 sessions). Here the count stops at `COUNT_CAP` items and the rest is estimated from
//! how far into the index that many took (items are numbered as they are indexed). For one
//! phrase the order is bm25's whatever the count (the IDF is one factor of every score); for
//! several, it is bm25's while each phrase is in fewer than `COUNT_CAP` items, and close to it
//! otherwise (a phrase in that many items weighs little either way).
//!
//! `arbor_rank(texts, counts)`: the phrases' item counts given (`"c0,c1,…"`, one per phrase of
//! the query, in its order), not counted: a search that ranks a window of the newest items
//! (`Library::search_before`) counts there and estimates the whole, since a phrase of several
//! tokens is counted by checking positions in every item that holds all of them.
//!
//! FTS5's ranking functions are C callbacks (`fts5_api.xCreateFunction`); rusqlite has no
//! binding for them, so this is the library's one use of its `ffi`.

use rusqlite::{ffi, Connection};
use std::os::raw::{c_int, c_void};
use std::ptr;

/// Items of one phrase counted for its IDF at most.
pub const COUNT_CAP: i64 = 20_000;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// What every row of one query is ranked with: the average item's tokens, and each phrase's IDF.
struct Data {
    avgdl: f64,
    idf: Vec<f64>,
}

/// Registers `arbor_rank` on `conn` (for its lifetime).
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: the handle is `conn`'s, open for this call; the statement is finalized before we
    // return; `api` is written by SQLite through the pointer bound (its documented way of
    // handing out the FTS5 API) and lives as long as the connection.
    unsafe {
        let db = conn.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(db, c"SELECT fts5(?1)".as_ptr(), -1, &mut stmt, ptr::null_mut());
        if rc != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some("fts5(): no FTS5".into())));
        }
        let mut api: *mut ffi::fts5_api = ptr::null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        let Some(create) = api.as_ref().and_then(|a| a.xCreateFunction) else {
            return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_ERROR), Some("no fts5_api".into())));
        };
        let rc = create(api, c"arbor_rank".as_ptr(), ptr::null_mut(), Some(rank), None);
        if rc != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some("arbor_rank".into())));
        }
    }
    Ok(())
}

fn ok(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// The count of one phrase's items, up to `COUNT_CAP`, and the rowid of the last one counted.
struct Count {
    n: i64,
    last: i64,
}

unsafe extern "C" fn count(api: *const ffi::Fts5ExtensionApi, fts: *mut ffi::Fts5Context, user: *mut c_void) -> c_int {
    // SAFETY: `user` is the `Count` `data` passed to xQueryPhrase, alive through it; `api` is
    // SQLite's.
    let c = &mut *user.cast::<Count>();
    c.n += 1;
    if let Some(rowid) = (*api).xRowid {
        c.last = rowid(fts);
    }
    if c.n >= COUNT_CAP {
        ffi::SQLITE_DONE
    } else {
        ffi::SQLITE_OK
    }
}

unsafe extern "C" fn free_data(p: *mut c_void) {
    // SAFETY: `p` is the `Box<Data>` handed to xSetAuxdata, freed once, by SQLite's call.
    drop(Box::from_raw(p.cast::<Data>()));
}

/// The query's `Data`, made by its first row; each phrase's items `given`, else counted.
unsafe fn data<'a>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    given: Option<&[f64]>,
) -> Result<&'a Data, c_int> {
    let (Some(get), Some(set), Some(rows), Some(total), Some(phrases), Some(query)) =
        (api.xGetAuxdata, api.xSetAuxdata, api.xRowCount, api.xColumnTotalSize, api.xPhraseCount, api.xQueryPhrase)
    else {
        return Err(ffi::SQLITE_MISUSE);
    };
    let p = get(fts, 0).cast::<Data>();
    if let Some(d) = p.as_ref() {
        return Ok(d);
    }
    let (mut n_rows, mut n_tokens) = (0i64, 0i64);
    ok(rows(fts, &mut n_rows))?;
    ok(total(fts, -1, &mut n_tokens))?;
    let n_rows_f = n_rows.max(1) as f64;
    let mut idf = Vec::new();
    for i in 0..phrases(fts) {
        if let Some(given) = given {
            let hits = given.get(i as usize).copied().unwrap_or(0.0).clamp(0.0, n_rows_f);
            let x = ((n_rows_f - hits + 0.5) / (hits + 0.5)).ln();
            idf.push(if x <= 0.0 { 1e-6 } else { x });
            continue;
        }
        let mut c = Count { n: 0, last: 0 };
        ok(query(fts, i, (&mut c as *mut Count).cast::<c_void>(), Some(count)))?;
        let hits = if c.n >= COUNT_CAP && c.last > 0 {
            // As many more ahead as there were behind, per item numbered (at least the cap).
            (COUNT_CAP as f64 * n_rows_f / c.last as f64).clamp(COUNT_CAP as f64, n_rows_f)
        } else {
            c.n as f64
        };
        let x = ((n_rows_f - hits + 0.5) / (hits + 0.5)).ln();
        idf.push(if x <= 0.0 { 1e-6 } else { x });
    }
    let d = Box::into_raw(Box::new(Data { avgdl: n_tokens as f64 / n_rows_f, idf }));
    // On failure SQLite frees `d` itself (xDelete).
    ok(set(fts, d.cast::<c_void>(), Some(free_data)))?;
    Ok(&*d)
}

unsafe fn score(api: &ffi::Fts5ExtensionApi, fts: *mut ffi::Fts5Context, given: Option<&[f64]>) -> Result<f64, c_int> {
    let d = data(api, fts, given)?;
    let (Some(inst_count), Some(inst), Some(size)) = (api.xInstCount, api.xInst, api.xColumnSize) else {
        return Err(ffi::SQLITE_MISUSE);
    };
    let mut freq = vec![0.0f64; d.idf.len()];
    let mut n = 0;
    ok(inst_count(fts, &mut n))?;
    for i in 0..n {
        let (mut phrase, mut col, mut off) = (0, 0, 0);
        ok(inst(fts, i, &mut phrase, &mut col, &mut off))?;
        if let Some(f) = freq.get_mut(phrase as usize) {
            *f += 1.0;
        }
    }
    let mut tokens = 0;
    ok(size(fts, -1, &mut tokens))?;
    let dl = tokens as f64;
    Ok(d.idf.iter().zip(&freq).map(|(idf, f)| idf * (f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * dl / d.avgdl))).sum())
}

unsafe extern "C" fn rank(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: SQLite calls this with its API, the query's context and the result's, for one row,
    // and `n` values of its arguments after the table's; a text value lives through this call.
    let counts: Option<Vec<f64>> = (n >= 1 && !values.is_null())
        .then(|| {
            let text = ffi::sqlite3_value_text(*values);
            (!text.is_null()).then(|| std::ffi::CStr::from_ptr(text.cast()).to_string_lossy().into_owned())
        })
        .flatten()
        .map(|t| t.split(',').map(|c| c.trim().parse().unwrap_or(0.0)).collect());
    match score(&*api, fts, counts.as_deref()) {
        Ok(s) => ffi::sqlite3_result_double(ctx, -s),
        Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(texts: impl IntoIterator<Item = String>) -> Connection {
        let c = Connection::open_in_memory().unwrap();
        register(&c).unwrap();
        c.execute_batch("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='unicode61 remove_diacritics 2')").unwrap();
        let tx = c.unchecked_transaction().unwrap();
        for text in texts {
            tx.execute("INSERT INTO t(text) VALUES (?1)", [text]).unwrap();
        }
        tx.commit().unwrap();
        c
    }

    /// (rowid, bm25, arbor_rank) of every match, best first by bm25.
    fn ranks(c: &Connection, query: &str) -> Vec<(i64, f64, f64)> {
        let mut q =
            c.prepare("SELECT rowid, bm25(t), arbor_rank(t) FROM t WHERE t MATCH ?1 ORDER BY bm25(t), rowid").unwrap();
        q.query_map([query], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
    }

    const WORDS: [&str; 12] =
        ["the", "parser", "file", "error", "cache", "fix", "a", "tests", "index", "queue", "review", "cargo"];

    /// A text of 3 to 40 words, some words more often than others, from a seed.
    fn text(seed: u64) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let n = 3 + next() % 38;
        (0..n).map(|_| WORDS[(next() % 64).min(next() % 12) as usize]).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn below_the_cap_it_is_bm25_to_the_last_digit() {
        let c = table((0..2_000).map(text));
        for query in
            ["\"the\"", "\"error\"", "\"fix\" \"cache\"", "\"the parser\"", "\"queue\" \"a\" \"cargo\"", "\"zzz\""]
        {
            let r = ranks(&c, query);
            assert!(query == "\"zzz\"" || !r.is_empty(), "{query} matches");
            for (rowid, bm25, ours) in r {
                assert!((bm25 - ours).abs() <= 1e-9 * bm25.abs().max(1.0), "{query} row {rowid}: {bm25} {ours}");
            }
        }
    }

    /// Counts given are the counts bm25 takes: given as they are, the same figures.
    #[test]
    fn counts_given_rank_as_counted_ones() {
        let c = table((0..2_000).map(text));
        let count = |q: &str| -> f64 {
            c.query_row("SELECT count(*) FROM t WHERE t MATCH ?1", [q], |r| r.get::<_, i64>(0)).unwrap() as f64
        };
        let (a, b) = (count("\"the parser\""), count("\"cache\""));
        let mut q = c.prepare("SELECT bm25(t), arbor_rank(t, ?2) FROM t WHERE t MATCH ?1 ORDER BY rowid").unwrap();
        let rows: Vec<(f64, f64)> = q
            .query_map(["\"the parser\" \"cache\"", &format!("{a},{b}")], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!rows.is_empty());
        for (bm25, ours) in &rows {
            assert!((bm25 - ours).abs() <= 1e-9 * bm25.abs().max(1.0), "{bm25} {ours}");
        }
        // Other counts, other figures: the counts are what it ranks by.
        let other: f64 = c
            .query_row(
                "SELECT arbor_rank(t, '1,1') FROM t WHERE t MATCH ?1 ORDER BY rowid LIMIT 1",
                ["\"the parser\" \"cache\""],
                |r| r.get(0),
            )
            .unwrap();
        assert!((other - rows[0].1).abs() > 1e-6, "{other} {}", rows[0].1);
    }

    #[test]
    fn above_the_cap_one_word_is_ranked_in_bm25_order() {
        // "parser" in more rows than the cap.
        let c = table((0..(COUNT_CAP as u64 * 3 / 2)).map(text));
        let common = ranks(&c, "\"parser\"");
        assert!(common.len() as i64 > COUNT_CAP, "{} matches", common.len());
        let mut ours = common.clone();
        ours.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(&b.0)));
        let by_bm25: Vec<i64> = common.iter().map(|r| r.0).collect();
        let by_ours: Vec<i64> = ours.iter().map(|r| r.0).collect();
        assert_eq!(by_bm25, by_ours);
    }
}
