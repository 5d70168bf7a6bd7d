// The delegation tree as a flat pre-order list of rows with depths (as Jaeger's trace view does):
// drawing is a loop over rows, and collapsing a node skips its subtree in one step, because a
// subtree is a contiguous range [index + 1, subtreeEnd).

import type { Diagnostic, Outcome, Place, Session, Severity, Turn } from "./report";

export interface TreeRow {
  id: string;
  /** Label from the log, or null. */
  label: string | null;
  /** Depth in this tree (0 for a root), counted here from the parent links. */
  depth: number;
  /** The engine's depth, when it computed one (it may differ from `depth` in a broken log). */
  reportedDepth: number | null;
  parent: string | null;
  runs: number;
  events: number;
  /** The outcome of the latest run, or null when the session never ran as a sub-agent. */
  outcome: Outcome | null;
  /** True when any run ended in error. */
  anyError: boolean;
  findings: Record<Severity, number>;
  hasChildren: boolean;
  /** One past the last row of this row's subtree. */
  subtreeEnd: number;
}

function emptyCounts(): Record<Severity, number> {
  return { error: 0, warning: 0, info: 0 };
}

/**
 * Orders sessions root first, each followed by its subtree depth first, children in report order.
 * A session whose parent is missing from the report is shown as a root; a parent cycle is broken
 * where it closes (each session appears exactly once).
 */
export function buildRows(sessions: Session[], diagnostics: Diagnostic[]): TreeRow[] {
  const byId = new Map<string, Session>();
  for (const s of sessions) if (!byId.has(s.id)) byId.set(s.id, s);

  const children = new Map<string, Session[]>();
  const roots: Session[] = [];
  for (const s of byId.values()) {
    if (s.parent !== null && s.parent !== s.id && byId.has(s.parent)) {
      const list = children.get(s.parent) ?? [];
      list.push(s);
      children.set(s.parent, list);
    } else {
      roots.push(s);
    }
  }

  const findings = new Map<string, Record<Severity, number>>();
  for (const d of diagnostics) {
    if (d.session === null) continue;
    const c = findings.get(d.session) ?? emptyCounts();
    c[d.severity] += 1;
    findings.set(d.session, c);
  }

  const rows: TreeRow[] = [];
  const placed = new Set<string>();
  const visit = (s: Session, depth: number) => {
    if (placed.has(s.id)) return;
    placed.add(s.id);
    const index = rows.length;
    const last = s.runs.length ? s.runs[s.runs.length - 1] : null;
    rows.push({
      id: s.id,
      label: s.label,
      depth,
      reportedDepth: s.depth,
      parent: s.parent,
      runs: s.runs.length,
      events: s.events,
      outcome: last ? last.outcome : null,
      anyError: s.runs.some((r) => r.outcome === "error"),
      findings: findings.get(s.id) ?? emptyCounts(),
      hasChildren: false,
      subtreeEnd: index + 1,
    });
    for (const c of children.get(s.id) ?? []) visit(c, depth + 1);
    rows[index].subtreeEnd = rows.length;
    rows[index].hasChildren = rows.length > index + 1;
  };
  for (const r of roots) visit(r, 0);
  // Sessions only reachable through a cycle have no root: start from each in report order.
  for (const s of byId.values()) visit(s, 0);
  return rows;
}

/** The rows left visible when the subtrees of `collapsed` ids are hidden (a linear skip). */
export function visibleRows(rows: TreeRow[], collapsed: ReadonlySet<string>): TreeRow[] {
  const out: TreeRow[] = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i];
    out.push(row);
    i = collapsed.has(row.id) ? row.subtreeEnd : i + 1;
  }
  return out;
}

/** Rows by id. */
export function rowsById(rows: TreeRow[]): Map<string, TreeRow> {
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The ids on the path from a root down to `id` (excluded), to expand when `id` is selected.
 * `byId` is `rowsById(rows)`, passed in by a caller that asks often (the tree, on every
 * selection).
 */
export function ancestors(rows: TreeRow[], id: string, byId = rowsById(rows)): string[] {
  const out: string[] = [];
  const seen = new Set<string>([id]);
  let cur = byId.get(id)?.parent ?? null;
  while (cur !== null && byId.has(cur) && !seen.has(cur)) {
    out.unshift(cur);
    seen.add(cur);
    cur = byId.get(cur)!.parent;
  }
  return out;
}

/**
 * Where choosing a session in the tree points the inspector: the start of its first run (the
 * edge that started it), else the start of its first turn, else nothing.
 */
export function sessionPlaces(sessions: Session[], turns: Turn[]): Map<string, Place | null> {
  const firstTurn = new Map<string, Place>();
  for (const t of turns) if (t.start && !firstTurn.has(t.session)) firstTurn.set(t.session, t.start);
  return new Map(sessions.map((s) => [s.id, s.runs[0]?.start ?? firstTurn.get(s.id) ?? null]));
}
