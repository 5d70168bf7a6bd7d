// The findings list: diagnostics grouped by severity (errors first), in report order inside a
// group, filtered by a text the user types.

import { SEVERITIES, type Diagnostic, type Severity } from "./report";

export interface FindingGroup {
  severity: Severity;
  items: Diagnostic[];
}

/** True when every word of `query` occurs (ignoring case) in the code, message, session or place. */
export function matches(d: Diagnostic, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = `${d.code} ${d.message} ${d.session ?? ""} ${d.at.file}:${d.at.line}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** Groups by severity, errors first; empty groups and hidden severities are left out. */
export function groupFindings(
  diagnostics: Diagnostic[],
  query: string,
  hidden: ReadonlySet<Severity> = new Set(),
): FindingGroup[] {
  return SEVERITIES.filter((severity) => !hidden.has(severity))
    .map((severity) => ({
      severity,
      items: diagnostics.filter((d) => d.severity === severity && matches(d, query)),
    }))
    .filter((g) => g.items.length > 0);
}
