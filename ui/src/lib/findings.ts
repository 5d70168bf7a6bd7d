// The findings list: diagnostics grouped by severity (errors first), then by code (in order of
// the code), in report order inside a code; filtered by a text the user types, the severities
// switched on, and optionally one session.

import { SEVERITIES, type Diagnostic, type Severity } from "./report";

export interface CodeGroup {
  code: string;
  items: Diagnostic[];
}

export interface FindingGroup {
  severity: Severity;
  /** Every finding of the group, in report order. */
  items: Diagnostic[];
  /** The same findings by code, codes in order, report order inside each. */
  codes: CodeGroup[];
}

function byCode(items: Diagnostic[]): CodeGroup[] {
  const codes = new Map<string, Diagnostic[]>();
  for (const d of items) {
    const list = codes.get(d.code);
    if (list) list.push(d);
    else codes.set(d.code, [d]);
  }
  return [...codes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([code, items]) => ({ code, items }));
}

/** True when every word of `query` occurs (ignoring case) in the code, message, session or place. */
export function matches(d: Diagnostic, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = `${d.code} ${d.message} ${d.session ?? ""} ${d.at.file}:${d.at.line}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

/**
 * Groups by severity, errors first, and by code inside; empty groups and hidden severities are
 * left out. With `session`, only that session's findings.
 */
export function groupFindings(
  diagnostics: Diagnostic[],
  query: string,
  hidden: ReadonlySet<Severity> = new Set(),
  session: string | null = null,
): FindingGroup[] {
  return SEVERITIES.filter((severity) => !hidden.has(severity))
    .map((severity) => {
      const items = diagnostics.filter(
        (d) => d.severity === severity && (session === null || d.session === session) && matches(d, query),
      );
      return { severity, items, codes: byCode(items) };
    })
    .filter((g) => g.items.length > 0);
}
