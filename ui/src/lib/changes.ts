// What the Changes tab draws of an edit (SPEC 6.5): its diff's lines, each with what it is, for
// text nodes with a class (never HTML), and the files an edit list touches with their counts.
import type { Edit } from "./generated/engine";

export type DiffLineKind = "head" | "hunk" | "add" | "del" | "ctx" | "note";

/** The lines of a unified diff, each with its kind. */
export function diffLines(diff: string): { kind: DiffLineKind; text: string }[] {
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  return lines
    .filter((l, i) => l !== "" || i < lines.length - 1)
    .map((text) => {
      const kind: DiffLineKind = text.startsWith("+++") || text.startsWith("---")
        ? "head"
        : text.startsWith("@@")
          ? "hunk"
          : text.startsWith("+")
            ? "add"
            : text.startsWith("-")
              ? "del"
              : text.startsWith("\\")
                ? "note"
                : "ctx";
      return { kind, text };
    });
}

/** "applied", "failed" or "no result", for an edit's badge. */
export function appliedLabel(e: Edit): string {
  return e.applied === true ? "applied" : e.applied === false ? "failed" : "no result";
}

/** The files of a list of edits in the order first changed, each with its edits' line counts. */
export function filesOf(edits: Edit[]): { path: string; edits: number; added: number; removed: number }[] {
  const by = new Map<string, { path: string; edits: number; added: number; removed: number }>();
  for (const e of edits) {
    const f = by.get(e.path) ?? { path: e.path, edits: 0, added: 0, removed: 0 };
    f.edits += 1;
    f.added += e.added;
    f.removed += e.removed;
    by.set(e.path, f);
  }
  return [...by.values()];
}
