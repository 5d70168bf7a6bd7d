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

/// A file's stem: its name up to the first dot.
pub(crate) fn stem(display: &str) -> String {
    let name = display.rsplit('/').next().unwrap_or(display);
    name.split('.').next().unwrap_or(name).to_owned()
}
