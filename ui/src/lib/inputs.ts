// What the inputs strip says about the files that were read: one line for any number of files
// (how many, of which format, how many skipped and how many bad lines), so that a folder of many
// files does not push the tree and the inspector out of the window; the list itself is shown on
// request.

import type { Input } from "./report";
import { barePath, inside } from "./settings";

/** How the strip sums up the inputs, and the formats from most files to fewest. */
export interface InputsSummary {
  files: number;
  /** Per format read, most files first (ties by name); files in no known format are `skipped`. */
  formats: { format: string; files: number }[];
  skipped: number;
  badLines: number;
  /** "55 files: 26 dsh-session, 2 dsh-rpc, 27 skipped". */
  text: string;
}

export function summarizeInputs(inputs: readonly Input[]): InputsSummary {
  const counts = new Map<string, number>();
  let skipped = 0;
  let badLines = 0;
  for (const i of inputs) {
    badLines += i.bad_lines;
    if (i.format === "unknown") skipped++;
    else counts.set(i.format, (counts.get(i.format) ?? 0) + 1);
  }
  const formats = [...counts].map(([format, files]) => ({ format, files })).sort((a, b) => b.files - a.files || a.format.localeCompare(b.format));
  const parts = formats.map((f) => `${f.files} ${f.format}`);
  if (skipped) parts.push(`${skipped} skipped`);
  const files = inputs.length;
  const text = `${files} ${files === 1 ? "file" : "files"}${parts.length ? `: ${parts.join(", ")}` : ""}`;
  return { files, formats, skipped, badLines, text };
}

/** Inputs listed one by one in the strip itself; more are summed up (the list opens on request). */
export const LISTED_INLINE = 3;

/**
 * How an input is named on the strip beside `source` (the path that was opened, shown first):
 * nothing when it is that path (a single file opened), its path under `source` when `source` is
 * its folder, else its whole path. The strip then says each path once.
 */
export function inputName(file: string, source: string): string {
  if (file === source) return "";
  const folder = barePath(source);
  return inside(file, folder) ? file.slice(folder.length).replace(/^[\\/]/, "") : file;
}
