//! `gemini-cli`: Gemini CLI sessions (SPEC 2.6), one session a file:
//! `$GEMINI_CLI_HOME/.gemini` or `~/.gemini`, then `tmp/<project>/chats/session-<time>-<id8>.jsonl`, and a
//! sub-agent's `chats/<root session id>/<agentId>.jsonl`.
//!
//! **Lines and records.** Since 2026-04 a file is JSON Lines: a metadata line (`sessionId`,
//! `projectHash`, `startTime`, `lastUpdated`, `kind`), then one line per message as it is written
//! and each time it is written again (`id`, `timestamp`, `type`: `user`, `gemini`, `info`,
//! `warning`, `error`), and replay lines: `{"$set": {...}}` patches the metadata (and with
//! `messages` replaces the history), `{"$rewindTo": id}` cuts the history from that message on.
//! Every line is a record: the metadata line a header, a message line a message of its kind, a
//! replay line an `event`. A message line that a later line of the same id rewrites, or that a
//! rewind cut, stays a record but becomes an `event` (it is not shown in the transcript): the
//! history is what the producer's own reader rebuilds (a rewritten message keeps its place).
//! Older versions wrote one pretty-printed JSON document (`{sessionId, projectHash, startTime,
//! lastUpdated, messages: [...]}`): the reader gives it as one record at its line 1 (a
//! multi-line value, `bytes/reader`), and each of its messages is indexed as a record of its own
//! at the line where its object starts, so that every transcript item and finding has its own
//! file:line.
//!
//! **What this module does not do.** It reads no file itself: texts are read back at a record's
//! offset (`reply_text`, `received_text`, `transcript`). Turns, replies and tokens are made at a
//! file's end from the history as it stands (`session`), links once every file is read (`links`).

mod lines;
mod links;
mod plan;
mod reply;
mod session;
mod transcript;

use super::{routed, FileStart, FormatInfo, HeadLine, Routed};
use crate::ctx::Ctx;

/// A line as the one-pass reader and as the serde reference read it (`lines::parse`,
/// `lines::parse_serde`), for the differential tests.
pub fn line_readings(text: &str) -> (String, String) {
    (format!("{:?}", lines::parse(text)), format!("{:?}", lines::parse_serde(text)))
}

/// What a message line's calls returned, read by the scanner and by the `Value` reference
/// (`transcript::received` and `received_by_value`; each raw `result` by `raw_response_texts` and
/// as a `Value`), for the differential tests.
pub fn received_readings(text: &str) -> (String, String) {
    let bytes = text.as_bytes();
    let results = transcript::raw_results(bytes);
    let keys = std::iter::once(None).chain(results.iter().map(|(id, _)| id.as_deref()));
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for key in keys {
        got.push(transcript::received(bytes, key));
        want.push(transcript::received_by_value(bytes, key));
    }
    let mut got = format!("{got:?}");
    let mut want = format!("{want:?}");
    for (_, raw) in &results {
        let by_value = |raw: &str| {
            serde_json::from_str::<serde_json::Value>(raw).ok().map(|v| transcript::response_texts(&v))
        };
        got.push_str(&format!(" {:?}", raw.and_then(transcript::raw_response_texts)));
        want.push_str(&format!(" {:?}", raw.and_then(by_value)));
    }
    (got, want)
}

pub const FORMAT: FormatInfo = FormatInfo {
    id: "gemini-cli",
    description: "Gemini CLI sessions (~/.gemini/tmp/*/chats)",
    reader: &GeminiFormat,
};

#[derive(Debug, Clone)]
struct GeminiFormat;

impl super::Format for GeminiFormat {
    /// An opened session file brings its sub-agents' folder; a migrated `.json` beside its
    /// `.jsonl` is set aside.
    fn plan(&self, plan: &mut super::Plan) {
        plan::plan(plan, &FORMAT);
    }

    /// The metadata line (or the whole older document): string `sessionId` and `projectHash`
    /// and no `type`, confirmed on the same line by what the producer always writes with them
    /// (`startTime` or `lastUpdated`, or the document's `messages`). A vote sees one line, so
    /// the SPEC's confirmation by a later line is taken from the metadata line's own fields.
    fn vote(&self, head: &HeadLine) -> bool {
        let Ok(text) = std::str::from_utf8(head.bytes()) else { return false };
        let Some(l) = lines::parse(text) else { return false };
        l.is_metadata()
            && (l.start_time.as_str().is_some() || l.last_updated.as_str().is_some() || l.messages.is_some())
    }

    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed> {
        let folder = file
            .path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| n != "chats");
        routed(session::SessionFile::new(super::stem(file.display), folder))
    }

    fn settle(&self, cx: &mut Ctx) {
        links::settle(cx);
    }

    fn about(&self, line: &[u8]) -> Option<super::About> {
        transcript::about(line)
    }

    fn parse_ahead(&self) -> Option<crate::formats::ParseAhead> {
        Some(crate::formats::ahead::<lines::GeminiShape>)
    }

    fn reply_text(&self, line: &[u8]) -> String {
        transcript::reply(line)
    }

    fn received_text(&self, line: &[u8], key: Option<&str>) -> String {
        transcript::received(line, key)
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<crate::vocab::transcript::Draft>) {
        transcript::line(line, out);
    }
}

#[cfg(test)]
mod tests;
