// A tool call read for a person (the transcript's tool cards): its main argument on one line
// (`Bash: bd show spotter-4te`, `Edit: src/x.rs`), an edit or patch as diff lines, and a long
// result folded to its first lines. Pure functions over the part's text as the page carries it
// (JSON arguments, or the raw text of a custom tool's input such as Codex's `apply_patch`); the
// view draws what they answer as text nodes, never as HTML.

/** The arguments of a call as an object, when its text is a JSON object. */
function argsOf(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A command given as a string or as an argument list (Codex's `shell` gives `["bash", "-lc", "…"]`). */
function commandOf(v: unknown): string | null {
  if (typeof v === "string") return v || null;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
    const a = v as string[];
    // `bash -lc "…"`: the script is what was run.
    if (a.length === 3 && /(^|\/)(ba|z)?sh$/.test(a[0]) && /^-l?c$/.test(a[1])) return a[2];
    return a.join(" ");
  }
  return null;
}

/** Keys that hold a call's main argument, most telling first. */
const MAIN_KEYS = ["command", "cmd", "file_path", "notebook_path", "filePath", "pattern", "query", "url", "path", "description", "prompt", "subject", "name", "id"];

/** The files an `apply_patch` text names (`*** Update File: src/x.rs`). */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm)) out.push(m[1].trim());
  return out;
}

/** The patch text of a call, when it is one: `apply_patch`'s input, as text or in its arguments. */
export function patchOf(tool: string | null, text: string): string | null {
  const args = argsOf(text);
  const candidates = args ? [args.input, args.patch, commandOf(args.command)] : [text];
  for (const c of candidates) {
    if (typeof c !== "string") continue;
    const at = c.indexOf("*** Begin Patch");
    if (at >= 0) return c.slice(at);
    if (/apply_patch/i.test(tool ?? "") && /^[-+@]/m.test(c)) return c;
  }
  return null;
}

/** One line: its first line, cut at `max` characters with an ellipsis. */
function oneLine(s: string, max = 200): string {
  const first = s.trim().split("\n", 1)[0];
  const more = first.length > max || s.trim().includes("\n");
  return more ? `${first.slice(0, max)}…` : first;
}

/**
 * What a call is about, on one line: its command, file, pattern, address or task, as the tool's
 * arguments name it; "" when they name nothing (the arguments are then shown folded).
 */
export function toolSubject(tool: string | null, text: string): string {
  const patch = patchOf(tool, text);
  if (patch !== null) {
    const files = patchFiles(patch);
    if (files.length) return files.length === 1 ? files[0] : `${files[0]} and ${files.length - 1} more`;
  }
  const args = argsOf(text);
  if (!args) return text.trim().startsWith("{") || text.trim().startsWith("[") ? "" : oneLine(text);
  const cmd = commandOf(args.command) ?? commandOf(args.cmd);
  if (cmd) return oneLine(cmd);
  for (const k of MAIN_KEYS) {
    const v = str(args[k]);
    if (v) return oneLine(v);
  }
  if (Array.isArray(args.todos)) return `${args.todos.length} ${args.todos.length === 1 ? "todo" : "todos"}`;
  for (const v of Object.values(args)) {
    const s = str(v);
    if (s) return oneLine(s);
  }
  return "";
}

/** `Bash: bd show spotter-4te`: the tool and what it is about. */
export function toolHead(tool: string | null, text: string): string {
  const subject = toolSubject(tool, text);
  const name = tool ?? "tool";
  return subject ? `${name}: ${subject}` : name;
}

export type DiffKind = "add" | "del" | "hunk" | "file" | "ctx";
export type DiffLine = { kind: DiffKind; text: string };

/** A patch's lines, each with what it is (a unified diff, or `apply_patch`'s envelope). */
export function patchLines(patch: string): DiffLine[] {
  return patch
    .replace(/\n$/, "")
    .split("\n")
    .map((text) => {
      if (text.startsWith("*** ") || text.startsWith("+++ ") || text.startsWith("--- ") || text.startsWith("diff --git")) return { kind: "file" as const, text };
      if (text.startsWith("@@")) return { kind: "hunk" as const, text };
      if (text.startsWith("+")) return { kind: "add" as const, text };
      if (text.startsWith("-")) return { kind: "del" as const, text };
      return { kind: "ctx" as const, text };
    });
}

/** An edit's old and new text as removed and added lines (Claude Code's Edit and MultiEdit). */
function editLines(old: string, next: string): DiffLine[] {
  const a = old === "" ? [] : old.split("\n");
  const b = next === "" ? [] : next.split("\n");
  // The lines both share at the start and end are context, the rest removed and added.
  let s = 0;
  while (s < a.length && s < b.length && a[s] === b[s]) s++;
  let e = 0;
  while (e < a.length - s && e < b.length - s && a[a.length - 1 - e] === b[b.length - 1 - e]) e++;
  return [
    ...a.slice(0, s).map((t) => ({ kind: "ctx" as const, text: ` ${t}` })),
    ...a.slice(s, a.length - e).map((t) => ({ kind: "del" as const, text: `-${t}` })),
    ...b.slice(s, b.length - e).map((t) => ({ kind: "add" as const, text: `+${t}` })),
    ...a.slice(a.length - e).map((t) => ({ kind: "ctx" as const, text: ` ${t}` })),
  ];
}

/** The diff a call makes, when it edits: an Edit's old/new, a MultiEdit's edits, a patch; else null. */
export function toolDiff(tool: string | null, text: string): DiffLine[] | null {
  const patch = patchOf(tool, text);
  if (patch !== null) return patchLines(patch);
  const args = argsOf(text);
  if (!args) return null;
  if (typeof args.old_string === "string" && typeof args.new_string === "string") return editLines(args.old_string, args.new_string);
  if (Array.isArray(args.edits)) {
    const out: DiffLine[] = [];
    for (const e of args.edits as Record<string, unknown>[]) {
      if (!e || typeof e.old_string !== "string" || typeof e.new_string !== "string") return null;
      if (out.length) out.push({ kind: "hunk", text: "@@" });
      out.push(...editLines(e.old_string, e.new_string));
    }
    return out.length ? out : null;
  }
  return null;
}

/** Lines of a result shown before "show all". */
export const FOLDED_LINES = 6;

/** A text folded to its first `lines` lines: what shows, and how many lines are left out. */
export function fold(text: string, lines = FOLDED_LINES): { shown: string; hidden: number } {
  let at = -1;
  for (let i = 0; i < lines; i++) {
    at = text.indexOf("\n", at + 1);
    if (at < 0) return { shown: text, hidden: 0 };
  }
  const rest = text.slice(at + 1);
  if (rest === "") return { shown: text, hidden: 0 };
  return { shown: text.slice(0, at), hidden: rest.split("\n").length };
}
