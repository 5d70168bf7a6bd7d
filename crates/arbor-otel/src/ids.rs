//! Trace and span ids derived from the log alone, so that exporting the same log twice gives the
//! same ids (and a backend that receives it twice sees the same spans again, not new ones).
//!
//! An id is the first bytes of a SHA-256 over length-prefixed fields: the trace id over the root
//! session's id and the first line of the file it is in (two unrelated logs whose roots share a
//! hand-written id such as `s1` still get different traces), a span id over its trace id, what it
//! is (`run`, `turn`, `tool`), its session and its number or call id. It owns nothing else; the
//! engine's own hasher is randomly seeded on purpose and is never used for this.

use sha2::{Digest, Sha256};

fn digest(fields: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for f in fields {
        h.update((f.len() as u64).to_le_bytes());
        h.update(f);
    }
    h.finalize().into()
}

/// The first `N` bytes of a digest, never all zero (OTLP reads an all-zero id as no id).
fn take<const N: usize>(d: [u8; 32]) -> [u8; N] {
    let mut id = [0u8; N];
    id.copy_from_slice(&d[..N]);
    if id.iter().all(|&b| b == 0) {
        id[N - 1] = 1;
    }
    id
}

/// The trace of one root session: its id and the first line of its file (empty when unknown).
pub fn trace_id(root: &str, first_line: &[u8]) -> [u8; 16] {
    take(digest(&[b"arbor trace", root.as_bytes(), first_line]))
}

/// A span of a trace: `what` it is, its `session`, and what tells it from its siblings.
pub fn span_id(trace: &[u8; 16], what: &str, session: &str, which: &str) -> [u8; 8] {
    take(digest(&[b"arbor span", trace, what.as_bytes(), session.as_bytes(), which.as_bytes()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_depend_on_every_field_and_nothing_else() {
        let t = trace_id("s1", b"{\"a\":1}");
        assert_eq!(t, trace_id("s1", b"{\"a\":1}"));
        assert_ne!(t, trace_id("s1", b"{\"a\":2}"));
        assert_ne!(t, trace_id("s2", b"{\"a\":1}"));
        let s = span_id(&t, "run", "c1", "0");
        assert_eq!(s, span_id(&t, "run", "c1", "0"));
        assert_ne!(s, span_id(&t, "run", "c1", "1"));
        assert_ne!(s, span_id(&t, "turn", "c1", "0"));
        // Fields are length-prefixed: moving a byte from one field to the next changes the id.
        assert_ne!(span_id(&t, "run", "c1", "0"), span_id(&t, "run", "c", "10"));
    }
}
