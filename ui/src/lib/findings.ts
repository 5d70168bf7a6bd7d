// What the findings list folds. The report keeps one finding per file in no known format (SPEC 1
// and 3: `unknown-format`, reported once for each file); the list shows them as one line, the
// count and the word for it, and lists the files only when asked.

/** Codes whose findings the list folds into their code's row when a log opens. */
export const FOLDED_AT_FIRST: readonly string[] = ["unknown-format"];

/** What a folded code's row says of its findings ("27 files skipped: in no known format"); null when the code has no words of its own. */
export function codeSummary(code: string, count: number): string | null {
  if (code === "unknown-format") return `${count} ${count === 1 ? "file" : "files"} skipped: in no known format`;
  return null;
}
