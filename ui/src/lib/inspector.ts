// The event inspector's text: a raw log line, pretty-printed when it is JSON. Log content is
// untrusted: this returns plain text that the view renders as text.

import type { RecordView } from "./ipc";
import type { Place } from "./report";

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

/** The records around a place split into those before it and those after it (wire order). */
export function neighbours(records: RecordView[], place: Place): { before: RecordView[]; after: RecordView[] } {
  const at = records.findIndex((r) => r.file === place.file && r.line === place.line);
  if (at < 0) return { before: [], after: [] };
  return { before: records.slice(0, at), after: records.slice(at + 1) };
}
