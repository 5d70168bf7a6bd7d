//! Format detection from content, never from the file name (SPEC.md section 1).
//!
//! Each of the first lines of a file votes; the first decisive vote names the format. Lines that
//! fit several formats (a JSON-RPC response, a header-less blank object) do not vote.

use crate::wire::{parse_line, Line};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    DshRpc,
    DshSession,
    CopilotEvents,
    CopilotRpc,
}

impl Format {
    pub fn id(self) -> &'static str {
        match self {
            Format::DshRpc => "dsh-rpc",
            Format::DshSession => "dsh-session",
            Format::CopilotEvents => "copilot-events",
            Format::CopilotRpc => "copilot-rpc",
        }
    }
}

/// How many lines detection looks at before it gives up.
pub const DETECT_LINES: usize = 200;

const DSH_METHODS: &[&str] =
    &["subagent.started", "subagent.finished", "session.status", "initialize", "session/prompt", "shutdown"];

/// A dsh event type looks like `turn/start`, `text-chunks`, or is the header `session`.
fn dsh_like_type(t: &str) -> bool {
    t.contains('/') || t.ends_with("-chunks")
}

/// A Copilot event type looks like `assistant.message`.
fn copilot_like_type(t: &str) -> bool {
    t.contains('.') && !t.contains('/')
}

/// The vote of one parsed line.
pub fn vote(line: &Line) -> Option<Format> {
    if let Some(method) = line.method.as_str() {
        if method == "session.event" {
            let params = line.params.0.as_ref()?;
            let event = params.event.0.as_deref()?;
            let t = event.kind.as_str()?;
            if copilot_like_type(t) || event.timestamp.present() {
                return Some(Format::CopilotRpc);
            }
            if dsh_like_type(t) || event.seq.get().is_some() {
                return Some(Format::DshRpc);
            }
            return None;
        }
        return DSH_METHODS.contains(&method).then_some(Format::DshRpc);
    }
    let t = line.kind.as_str()?;
    if t == "session" && line.id.as_str().is_some() && line.version.get().is_some() {
        return Some(Format::DshSession);
    }
    if dsh_like_type(t) && (line.data.0.is_some() || line.seq.get().is_some()) {
        return Some(Format::DshSession);
    }
    if copilot_like_type(t) && (line.timestamp.present() || line.id.present()) {
        return Some(Format::CopilotEvents);
    }
    None
}

/// Detect the format of a file from its first lines.
pub fn detect<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Option<Format> {
    lines.into_iter().take(DETECT_LINES).filter_map(parse_line).find_map(|l| vote(&l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(lines: &[&str]) -> Option<Format> {
        detect(lines.iter().map(|l| l.as_bytes()))
    }

    #[test]
    fn each_format_is_recognised_by_its_first_decisive_line() {
        assert_eq!(
            of(&[
                r#"{"method":"session.event","params":{"sessionId":"s","event":{"type":"turn/start","seq":1,"data":{}}}}"#
            ]),
            Some(Format::DshRpc)
        );
        assert_eq!(
            of(&[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, r#"{"method":"subagent.started","params":{}}"#]),
            Some(Format::DshRpc)
        );
        assert_eq!(of(&[r#"{"type":"session","version":0,"id":"c1","parentSession":"s1"}"#]), Some(Format::DshSession));
        assert_eq!(
            of(&[
                r#"{"type":"assistant.message","data":{"content":"x"},"id":"e5","timestamp":"2026-09-12T00:00:05Z"}"#
            ]),
            Some(Format::CopilotEvents)
        );
        assert_eq!(
            of(&[
                r#"{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s1","event":{"type":"user.message","id":"e1","timestamp":"t"}}}"#
            ]),
            Some(Format::CopilotRpc)
        );
    }

    #[test]
    fn foreign_and_ambiguous_lines_do_not_vote() {
        assert_eq!(of(&[r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x"}}"#]), None);
        assert_eq!(of(&[r#"{"type":"user","message":{"role":"user"}}"#, "not json", "[1,2]"]), None);
    }
}
