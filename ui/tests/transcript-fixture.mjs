// A synthetic log for the transcript's browser tests and bench: a report (a root that spawned one
// child, with tokens) and the transcript commands' answers made on demand, row by row, so that a
// 100,000-item session costs nothing until a page of it is asked for. The root's rows are at
// run.jsonl:(row + 1), the child's at kid.jsonl:(row + 1). Row 3 of the root is hostile markup,
// row 5 spawns the child, row 6 is what the root received from it, row 7 is a text cut at 4,000
// characters.

export const SCRIPT = "<script>window.__pwned=1</script>";
export const IMG = '<img src=x onerror="window.__pwned=1">';
export const JS = "[click me](javascript:window.__pwned=1)";
const CUT = 4000;

const usage = (n) => ({ input: n * 10, output: n, cache_read: n * 100, cache_write: 0 });

/** The report of the synthetic log: `rows` items in the root's transcript, 10 in the child's. */
export function transcriptReport(rows) {
  const at = (file, line) => ({ file, line });
  return {
    report_version: 2,
    inputs: [{ file: "run.jsonl", format: "dsh-rpc", records: rows, bad_lines: 0, bytes: rows * 100 }],
    sessions: [
      { id: "root", parent: null, root: "root", depth: 0, label: "lead", runs: [], events: rows, usage: { ...usage(1234), cost: 1.5 }, subtree_usage: { ...usage(1334) } },
      {
        id: "kid",
        parent: "root",
        root: "root",
        depth: 1,
        label: "worker",
        runs: [{ parent: "root", start: at("kid.jsonl", 1), end: at("kid.jsonl", 10), outcome: "ok", link: "meta", received: { text: "kid answer", at: at("run.jsonl", 7) } }],
        events: 10,
        usage: usage(100),
        subtree_usage: usage(100),
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
        { model: "gpt-known", usage: { ...usage(1234), cost: 1.5 } },
        { model: "mystery-model", usage: usage(100) },
      ],
      total: usage(1334),
      prices: { source: "test prices", date: "2026-01-01" },
    },
  };
}

function part(kind, text, extra = {}) {
  return { kind, text, text_len: [...text].length, cut: false, json: false, tool: null, call_id: null, is_error: null, child: null, model: null, usage: null, ...extra };
}

const LONG = "long text ".repeat(1000);

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
  switch (row % 5) {
    case 0:
      return [part("prompt", `question ${row}`)];
    case 1:
      return [part("reasoning", `thinking about ${row}`), part("text", `**Answer ${row}**: see \`code\`\n\n\`\`\`js\nconst x = ${row};\n\`\`\``, { model: "gpt-known", usage: usage(row % 97) })];
    case 2:
      return [part("tool-call", JSON.stringify({ path: `src/file${row}.rs`, line: row }), { json: true, tool: "read_file", call_id: `t${row}` })];
    case 3:
      return [part("tool-result", JSON.stringify({ ok: row % 2 === 0, lines: ["a", "b"] }), { json: true, call_id: `t${row}`, is_error: row % 2 !== 0 })];
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
    time: null,
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
    locate(session, place) {
      const owner = place.file === "kid.jsonl" ? "kid" : place.file === "run.jsonl" ? "root" : session;
      if (!owner || !(owner in totals)) return null;
      return { session: owner, row: Math.max(0, Math.min(totals[owner] - 1, place.line - 1)) };
    },
  };
}
