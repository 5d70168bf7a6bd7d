//! Small readings several formats share: a JSON line's string at a pointer, a file's stem,
//! what dsh and Copilot event types look like.

/// A JSON line's string at `pointer`, for `Format::about` (a head is small: a `Value` will do).
pub(crate) fn about_str(line: &serde_json::Value, pointer: &str) -> Option<String> {
    line.pointer(pointer).and_then(|v| v.as_str()).map(str::to_owned)
}

/// A dsh event type looks like `turn/start` or `text-chunks`.
pub(crate) fn dsh_like_type(t: &str) -> bool {
    t.contains('/') || t.ends_with("-chunks")
}

/// A Copilot event type looks like `assistant.message`.
pub(crate) fn copilot_like_type(t: &str) -> bool {
    t.contains('.') && !t.contains('/')
}

/// After each file opened by itself (not found in a folder, not set aside), the files `own`
/// says come with it (a session's sub-agent files), each once.
pub(crate) fn add_own_files(
    plan: &mut super::Plan,
    own: impl Fn(&crate::reader::InputFile) -> Vec<crate::reader::InputFile>,
) {
    let mut present: std::collections::HashSet<std::path::PathBuf> =
        plan.files.iter().map(|f| f.input.path.clone()).collect();
    let mut out = Vec::with_capacity(plan.files.len());
    for planned in std::mem::take(&mut plan.files) {
        let extra = if planned.input.from_folder || planned.skip.is_some() { Vec::new() } else { own(&planned.input) };
        out.push(planned);
        for input in extra {
            if present.insert(input.path.clone()) {
                out.push(super::Planned { input, skip: None, format: None });
            }
        }
    }
    plan.files = out;
}

/// A file's stem: its name up to the first dot.
pub(crate) fn stem(display: &str) -> String {
    let name = display.rsplit('/').next().unwrap_or(display);
    name.split('.').next().unwrap_or(name).to_owned()
}

/// The blocks harnesses add to a prompt as context (the file open in the IDE, its selection,
/// reminders, hooks' and local commands' output, Codex's environment): not what the user typed
/// (SPEC 2.4 Text).
const CONTEXT_TAGS: &[&str] = &[
    "ide_opened_file",
    "ide_selection",
    "ide_diagnostics",
    "system-reminder",
    "user-prompt-submit-hook",
    "local-command-caveat",
    "local-command-stdout",
    "local-command-stderr",
    "command-message",
    "task-notification",
    "environment_context",
    "user_instructions",
];

/// `text` without the context blocks it starts with (`<ide_opened_file>…</ide_opened_file>` and
/// the like, each with the whitespace after it), and, when nothing else is left, empty.
pub(crate) fn without_context(text: &str) -> &str {
    let mut rest = text.trim_start();
    'strip: loop {
        for name in CONTEXT_TAGS {
            let Some(after) = rest.strip_prefix('<').and_then(|r| r.strip_prefix(name)) else { continue };
            if !after.starts_with(['>', ' ']) {
                continue;
            }
            let close = format!("</{name}>");
            let Some(end) = memchr::memmem::find(after.as_bytes(), close.as_bytes()) else { return "" };
            rest = after[end + close.len()..].trim_start();
            continue 'strip;
        }
        return rest;
    }
}
