//! What `subagent-reply-differs` compares for OpenCode (SPEC 2.7, as 2.4 says it): a `task`
//! call's output and the child's reply, each as a loose hash (whitespace aside), made where the
//! part is read.
//!
//! The producer (`tool/task.ts`) returns the child's reply, the last text part of the message
//! that ended the child's run, inside lines of its own, in one of two shapes. Older versions: a
//! line `task_id: <child> (for resuming to continue this task if needed)`, a blank line, then
//! `<task_result>`, the reply and `</task_result>` on lines of their own. Newer versions: a line
//! `<task id="<child>" state="<state>">`, an optional `<summary>…</summary>` line, `<task_result>`
//! (`<task_error>` for a failure), the reply, the closing tag, and a last line `</task>`; a
//! background task's call ends at once with `state="running"` and a notice, not the reply. Only
//! those lines are set aside here; anything else in the output is compared whole.

/// The child's reply inside a task call's output: `None` when the output is not one (a running
/// background task's notice, or a failure).
pub(super) fn unwrapped(output: &str) -> Option<&str> {
    let t = output.trim();
    let (first, rest) = t.split_once('\n').unwrap_or((t, ""));
    let first = first.trim_end();
    if first.starts_with("task_id:") {
        return Some(tagged(rest, "task_result").unwrap_or(rest));
    }
    if first.starts_with("<task ") && first.ends_with('>') {
        if let Some(body) = rest.trim_end().strip_suffix("</task>") {
            if state(first) != Some("completed") {
                return None;
            }
            let body = body.trim();
            let body = match body.split_once('\n') {
                Some((line, after)) if line.starts_with("<summary>") && line.trim_end().ends_with("</summary>") => after,
                _ => body,
            };
            return Some(tagged(body, "task_result").unwrap_or(body));
        }
    }
    Some(output)
}

/// The text between `<name>` at the start and `</name>` at the end of `text`.
fn tagged<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let t = text.trim();
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    t.strip_prefix(open.as_str())?.strip_suffix(close.as_str())
}

/// The `state` attribute of a `<task …>` line.
fn state(line: &str) -> Option<&str> {
    let at = line.find(" state=\"")? + " state=\"".len();
    let rest = &line[at..];
    Some(&rest[..rest.find('"')?])
}

#[cfg(test)]
mod tests {
    use super::unwrapped;

    #[test]
    fn the_producers_lines_are_set_aside_and_nothing_else() {
        let old = "task_id: ses_a (for resuming to continue this task if needed)\n\n<task_result>\ntest_x fails\n</task_result>";
        assert_eq!(unwrapped(old).map(str::trim), Some("test_x fails"));
        let new = "<task id=\"ses_a\" state=\"completed\">\n<task_result>\ntest_x fails\n</task_result>\n</task>";
        assert_eq!(unwrapped(new).map(str::trim), Some("test_x fails"));
        let summed = "<task id=\"ses_a\" state=\"completed\">\n<summary>Background task completed: x</summary>\n<task_result>\nok\n</task_result>\n</task>";
        assert_eq!(unwrapped(summed).map(str::trim), Some("ok"));
        let running = "<task id=\"ses_a\" state=\"running\">\n<summary>Background task started</summary>\n<task_result>\nThe task is working in the background.\n</task_result>\n</task>";
        assert_eq!(unwrapped(running), None);
        // A reply that quotes the tags keeps them; text outside the wrapper stays.
        let quoting = "task_id: ses_a\n\n<task_result>\nsee </task_result> here\n</task_result>";
        assert_eq!(unwrapped(quoting).map(str::trim), Some("see </task_result> here"));
        assert_eq!(unwrapped("just text"), Some("just text"));
        let extra = "task_id: ses_a\n\n<task_result>\nok\n</task_result>\nmore";
        assert_eq!(unwrapped(extra), Some("\n<task_result>\nok\n</task_result>\nmore"));
    }
}
