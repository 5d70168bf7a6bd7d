// How a second open combines with what is open: it replaces it, or adds to it (the engine reads
// every path again as one set, so cross-file routing stays whole).

export type OpenMode = "replace" | "add";

/** What is open plus `added`, in order, each path once. */
export function mergePaths(open: string[], added: string[]): string[] {
  return [...new Set([...open, ...added])];
}

/**
 * Where a drop lands: files dropped on the right half of the window are added to what is open,
 * on the left half they replace it. With nothing open that can be added to, every drop replaces.
 * `x` and `width` are in the same unit (CSS pixels).
 */
export function dropMode(x: number, width: number, canAdd: boolean): OpenMode {
  return canAdd && width > 0 && x >= width / 2 ? "add" : "replace";
}
