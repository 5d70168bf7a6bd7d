//! What `subagent-reply-differs` compares for Gemini CLI (SPEC 2.6, as 2.4 says it): a
//! sub-agent's reply and what its parent's call received, each as a loose hash (whitespace
//! aside), made where the line is read.
//!
//! The producer (`agents/local-invocation.ts`) hands the parent a call result of one text part:
//! a line `Subagent '<name>' finished.` (`Browser agent finished.` for the browser agent), a
//! line `Termination Reason: <reason>`, a line `Result:`, then the sub-agent's output. Only
//! those three lines are its own and are set aside here; anything else the parent received is
//! compared whole. The output (`agents/local-executor.ts`) is what the sub-agent submitted with
//! its `complete_task` call (`tools/complete-task.ts`: the `result` argument, or the one output
//! argument its definition names; a value that is not a string is serialized by the producer
//! and not compared here), so a sub-agent whose last message makes that call replied with it;
//! otherwise its reply is the text of its last `gemini` message that has text.

use crate::text::loose;
use serde_json::Value;

/// The tool a sub-agent ends its run with.
pub(super) const COMPLETE_TASK: &str = "complete_task";

/// The sub-agent's output inside the text the producer gave its parent: the text after the
/// three lines it puts before it, or all of it when they are not there.
pub(super) fn unwrapped(text: &str) -> &str {
    let strip = || {
        let t = text.trim_start();
        let (first, rest) = t.split_once('\n')?;
        let first = first.trim_end();
        let named = first.starts_with("Subagent '") && first.ends_with("' finished.");
        if !named && first != "Browser agent finished." {
            return None;
        }
        let (reason, rest) = rest.split_once('\n')?;
        reason.starts_with("Termination Reason:").then_some(())?;
        let (label, rest) = rest.split_once('\n').unwrap_or((rest, ""));
        (label.trim_end() == "Result:").then_some(rest)
    };
    strip().unwrap_or(text)
}

/// The loose hash of what a call that ran a sub-agent received (its raw `result`), the
/// producer's lines aside; `None` when the result holds no text.
pub(super) fn received_hash(raw: &str) -> Option<u64> {
    let (texts, _) = super::transcript::raw_response_texts(raw)?;
    if texts.is_empty() {
        return None;
    }
    Some(loose::hash(unwrapped(&texts.join("\n\n"))))
}

/// The loose hash of what a `complete_task` call submitted (its raw `args`): the `result`
/// argument, else its one argument; `None` when that is not a string (the producer serializes
/// it, or a definition's own function reshapes it: not compared).
pub(super) fn submitted_hash(raw: &str) -> Option<u64> {
    let args: Value = serde_json::from_str(raw).ok()?;
    let obj = args.as_object()?;
    let value = match obj.get("result") {
        Some(v) => v,
        None if obj.len() == 1 => obj.values().next()?,
        None => return None,
    };
    value.as_str().map(loose::hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_producers_three_lines_are_set_aside() {
        let got = "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\nThe parser drops\nthe last line.";
        assert_eq!(unwrapped(got), "The parser drops\nthe last line.");
        assert_eq!(unwrapped("Browser agent finished.\nTermination Reason: GOAL\nResult:\nok"), "ok");
        assert_eq!(unwrapped("Subagent 'x' finished.\nTermination Reason: GOAL\nResult:\n"), "");
        // Not the producer's lines: compared whole.
        for other in ["Subagent 'x' failed. Error: boom", "Result:\nok", "Subagent 'x' finished.\nResult:\nok"] {
            assert_eq!(unwrapped(other), other);
        }
    }

    #[test]
    fn received_and_submitted_hash_the_output_alone() {
        let raw = r#"[{"functionResponse":{"id":"c1","name":"codebase_investigator","response":{"output":"Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\nall  done"}}}]"#;
        assert_eq!(received_hash(raw), Some(loose::hash("all done")));
        assert_eq!(submitted_hash(r#"{"result":"all\ndone"}"#), Some(loose::hash("all done")));
        assert_eq!(submitted_hash(r#"{"report":"all done"}"#), Some(loose::hash("all done")));
        assert_eq!(submitted_hash(r#"{"result":{"a":1}}"#), None);
        assert_eq!(received_hash("[]"), None);
    }
}
