import { describe, expect, it } from "vitest";
import { applyEvent, percent, startLoading, type LoadEvent, type Progress } from "./loading";

const progress = (bytes_read: number, bytes_total = 200): Progress => ({
  files_done: 0,
  files_total: 1,
  bytes_read,
  bytes_total,
  records: 0,
  sessions: 0,
  findings: 0,
});

describe("applyEvent", () => {
  it("keeps the latest progress and the newest revision of the tree read so far", () => {
    const events: LoadEvent[] = [
      { type: "progress", ...progress(10) },
      { type: "changed", revision: 4, sessions: 76 },
      { type: "changed", revision: 3, sessions: 12 },
      { type: "progress", ...progress(200) },
      { type: "changed", revision: 6, sessions: 300 },
    ];
    const start = startLoading();
    const end = events.reduce(applyEvent, start);
    expect(start).toEqual({ progress: null, revision: -1, sessions: 0 }); // the fold does not mutate
    expect([end.revision, end.sessions]).toEqual([6, 300]);
    expect(percent(end.progress)).toBe(100);
    // An older revision arriving late changes nothing.
    expect(applyEvent(end, { type: "changed", revision: 5, sessions: 1 })).toBe(end);
  });

  it("says how much is read", () => {
    const p = applyEvent(startLoading(), { type: "progress", ...progress(30) });
    expect(percent(p.progress)).toBe(15);
    expect(percent(null)).toBeNull();
    expect(percent(progress(0, 0))).toBeNull();
  });
});
