// The event inspector's text: a raw log line, pretty-printed when it is JSON. Log content is
// untrusted: this returns plain text that the view renders as text.

/** The line re-indented when it parses as JSON, else the line unchanged. */
export function prettyLine(raw: string): string {
  const trimmed = raw.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return raw;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return raw;
  }
}
