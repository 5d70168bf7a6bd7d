// A synthetic log for the transcript's browser tests and bench: a report (a root that spawned one
// child, with tokens) and the transcript commands' answers made on demand, row by row, so that a
// 100,000-item session costs nothing until a page of it is asked for. The root's rows are at
// run.jsonl:(row + 1), the child's at kid.jsonl:(row + 1). Row 3 of the root is hostile markup,
// row 5 spawns the child, row 6 is what the root received from it, row 7 is a text cut at 4,000
// characters; rows 11 to 17 are tool calls with their results (a shell command and its long
// output, an edit that failed, a patch), row 18 has a bidi override in its text. Every other
// tool call (row 5k + 2) has its result in the next row.

export const SCRIPT = "<script>window.__pwned=1</script>";
export const IMG = '<img src=x onerror="window.__pwned=1">';
export const JS = "[click me](javascript:window.__pwned=1)";
const CUT = 4000;

const usage = (n) => ({ input: n * 10, output: n, cache_read: n * 100, cache_write: 0 });

/** What the engine says a count of mystery-model's tokens leaves unpriced. */
const mystery = (u) => ({ ...u, unpriced: { tokens: u.input + u.output + u.cache_read + u.cache_write, models: ["mystery-model"] } });

/**
 * The report of the synthetic log: `rows` items in the root's transcript, 10 in the child's. The
 * root's model (gpt-known) has a price, the child's (mystery-model) none, so the subtree's cost
 * is the root's and the child's tokens are unpriced; `more` adds to the root's tokens (a followed
 * log whose totals grow).
 */
export function transcriptReport(rows, more = 0) {
  const at = (file, line) => ({ file, line });
  const own = { ...usage(1234 + more), cost: 1.5 + more / 100 };
  const kid = mystery(usage(100));
  return {
    report_version: 2,
    inputs: [{ file: "run.jsonl", format: "dsh-rpc", records: rows, bad_lines: 0, bytes: rows * 100 }],
    sessions: [
      { id: "root", parent: null, root: "root", depth: 0, label: "lead", runs: [], events: rows, usage: own, subtree_usage: { ...usage(1334 + more), cost: own.cost, unpriced: kid.unpriced } },
      {
        id: "kid",
        parent: "root",
        root: "root",
        depth: 1,
        label: "worker",
        runs: [{ parent: "root", start: at("kid.jsonl", 1), end: at("kid.jsonl", 10), outcome: "ok", link: "meta", received: { text: "kid answer", at: at("run.jsonl", 7) } }],
        events: 10,
        usage: kid,
        subtree_usage: kid,
      },
      { id: "stray", parent: "root", root: "root", depth: null, label: null, runs: [{ parent: "root", start: null, end: null, outcome: "open", link: "inferred" }], events: 1 },
    ],
    turns: [],
    replies: [],
    waits: [],
    diagnostics: [
      { code: "subagent-unfinished", severity: "warning", at: at("run.jsonl", 50_001), session: "root", message: "a finding half way down the root's transcript" },
      { code: "subagent-unfinished", severity: "warning", at: at("kid.jsonl", 4), session: "kid", message: "a finding in the child" },
    ],
    usage: {
      models: [
        { model: "gpt-known", usage: own },
        { model: "mystery-model", usage: kid },
      ],
      total: { ...usage(1334 + more), cost: own.cost, unpriced: kid.unpriced },
      prices: { source: "test prices", date: "2026-01-01" },
    },
  };
}

function part(kind, text, extra = {}) {
  return { kind, text, text_len: [...text].length, cut: false, json: false, tool: null, call_id: null, is_error: null, child: null, model: null, usage: null, ...extra };
}

const LONG = "long text ".repeat(1000);
/** The time of row 0 (epoch ms). */
export const T0 = Date.UTC(2026, 0, 1);

/** The parts of row `row` of `session`, whole (the page cuts them). */
function parts(session, row) {
  if (session === "kid") {
    if (row === 0) return [part("prompt", "check the numbers")];
    if (row === 9) return [part("text", "kid answer")];
    return [part("text", `kid step ${row}`)];
  }
  if (row === 3) return [part("text", `hostile: ${SCRIPT} ${IMG} ${JS} and https://example.com`)];
  if (row === 5) return [part("spawn", '{"prompt":"check the numbers"}', { json: true, tool: "task", call_id: "c1", child: "kid" })];
  if (row === 6) return [part("received", "kid answer", { call_id: "c1", child: "kid" })];
  if (row === 7) return [part("text", LONG)];
  // A shell call and its long output; an edit and its failure; a patch and its result.
  if (row === 11) return [part("tool-call", JSON.stringify({ command: "bd show spotter-4te", description: "Show the issue" }), { json: true, tool: "Bash", call_id: "bash-11" })];
  if (row === 12) return [part("tool-result", Array.from({ length: 30 }, (_, i) => `output line ${i + 1}`).join("\n"), { call_id: "bash-11", is_error: false })];
  if (row === 13) return [part("tool-call", JSON.stringify({ file_path: "src/x.rs", old_string: "fn a() {\n    old();\n}", new_string: "fn a() {\n    new();\n}" }), { json: true, tool: "Edit", call_id: "edit-13" })];
  if (row === 14) return [part("tool-result", "String to replace not found in file.", { call_id: "edit-13", is_error: true })];
  if (row === 16) return [part("tool-call", "*** Begin Patch\n*** Update File: src/lib.rs\n@@ fn main\n-    println!(\"old\");\n+    println!(\"new\");\n*** End Patch", { tool: "apply_patch", call_id: "patch-16" })];
  if (row === 17) return [part("tool-result", "Success. Updated the following files:\nM src/lib.rs", { call_id: "patch-16", is_error: false })];
  if (row === 18) return [part("text", "a file named file\u202Egpj.exe, not a picture")];
  switch (row % 5) {
    case 0:
      return [part("prompt", `question ${row}`)];
    case 1:
      return [part("reasoning", `thinking about ${row}`), part("text", `**Answer ${row}**: see \`code\`\n\n\`\`\`js\nconst x = ${row};\n\`\`\``, { model: "gpt-known", usage: usage(row % 97) })];
    case 2:
      return [part("tool-call", JSON.stringify({ path: `src/file${row}.rs`, line: row }), { json: true, tool: "read_file", call_id: `t${row}` })];
    case 3:
      return [part("tool-result", JSON.stringify({ ok: row % 2 === 0, lines: ["a", "b"] }), { json: true, call_id: `t${row - 1}`, is_error: row % 2 !== 0 })];
    default:
      return [part("text", `Line ${row}.${row % 3 === 0 ? "\n\nA second paragraph, a little longer, to vary the height of the rows." : ""}`)];
  }
}

/** The transcript commands over the synthetic log (`rows` items in the root's transcript). */
export function syntheticTranscript(rows) {
  const totals = { root: rows, kid: 10 };
  const file = { root: "run.jsonl", kid: "kid.jsonl" };
  const row = (session, r) => ({
    row: r,
    record: r,
    at: { file: file[session], line: r + 1 },
    kind: "event",
    // A row every 1.5 s from 2026-01-01T00:00:00Z.
    time: T0 + r * 1500,
    turn: Math.floor(r / 5) + 1,
    step: (r % 5) + 1,
    parts: parts(session, r).map((p) => {
      const whole = [...p.text].length;
      return whole > CUT ? { ...p, text: [...p.text].slice(0, CUT).join(""), cut: true } : p;
    }),
  });
  const known = (session) => {
    if (!(session in totals)) throw { code: "no-session", message: `no session ${session}` };
  };
  return {
    page(session, from, limit) {
      if (session === "stray") return { session, total: 0, from: 0, rows: [] };
      known(session);
      const total = totals[session];
      const start = Math.min(from, total);
      const rows = [];
      for (let r = start; r < Math.min(total, start + limit); r++) rows.push(row(session, r));
      return { session, total, from: start, rows };
    },
    part(session, r, k) {
      known(session);
      return parts(session, r)[k]?.text ?? null;
    },
    /** As `transcript_find`: the rows `show` keeps whose text (or tool) holds `query`, any case. */
    find(session, query, show) {
      known(session);
      const q = query.toLowerCase();
      const keeps = (ps) =>
        show === "talk" ? ps.some((p) => ["prompt", "text", "received"].includes(p.kind))
        : show === "errors" ? ps.some((p) => p.is_error === true || p.kind === "notice")
        : show === "no-results" ? ps.some((p) => p.kind !== "tool-result")
        : true;
      const out = [];
      for (let r = 0; r < totals[session]; r++) {
        const ps = parts(session, r);
        if (keeps(ps) && (q === "" || ps.some((p) => p.text.toLowerCase().includes(q) || (p.tool ?? "").toLowerCase().includes(q)))) out.push(r);
      }
      return out;
    },
    locate(session, place) {
      const owner = place.file === "kid.jsonl" ? "kid" : place.file === "run.jsonl" ? "root" : session;
      if (!owner || !(owner in totals)) return null;
      return { session: owner, row: Math.max(0, Math.min(totals[owner] - 1, place.line - 1)) };
    },
  };
}
