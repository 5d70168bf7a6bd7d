// How a search hit's text shows in a narrow row: the engine sends some context before the match;
// the row starts shortly before it and marks it. Log text stays plain text (rendered as text).

/** `text` split around the first case-insensitive match of `query`, starting at most `lead` characters before it. */
export function matchParts(text: string, query: string, lead = 24): { before: string; match: string; after: string } {
  const q = query.trim().toLowerCase();
  const at = q ? text.toLowerCase().indexOf(q) : -1;
  // Lowercasing may change lengths outside ASCII; then the offsets are not trusted.
  if (at < 0 || text.toLowerCase().length !== text.length) return { before: text, match: "", after: "" };
  const start = Math.max(0, at - lead);
  const before = (start > 0 || text.startsWith("…") ? "…" : "") + text.slice(start > 0 ? start : 0, at).replace(/^…/, "");
  return { before, match: text.slice(at, at + q.length), after: text.slice(at + q.length) };
}
