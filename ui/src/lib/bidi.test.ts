import { describe, expect, it } from "vitest";
import { bidiSegments, hasBidi, markBidiHtml, showBidi } from "./bidi";
import { renderMarkdown } from "./markdown";

const SPOOF = "file\u202Egpj.exe";
const CONTROLS = ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069"];

describe("bidi controls in log text", () => {
  it("marks every override, embedding and isolate where it stands", () => {
    expect(bidiSegments(SPOOF)).toEqual([{ text: "file" }, { text: "⟨U+202E⟩", control: "\u202E", name: "right-to-left override" }, { text: "gpj.exe" }]);
    for (const c of CONTROLS) {
      const shown = showBidi(`a${c}b`);
      expect(shown).not.toContain(c);
      expect(shown).toMatch(/^a⟨U\+20[26][0-9A-E]⟩b$/);
    }
    expect(showBidi(SPOOF)).toBe("file⟨U+202E⟩gpj.exe");
  });

  it("leaves other text alone, right-to-left letters and marks included", () => {
    for (const t of ["plain", "שלום עולם", "\u200F\u200E", "\u061C", ""]) {
      expect(hasBidi(t)).toBe(false);
      expect(bidiSegments(t)).toEqual([{ text: t }]);
      expect(showBidi(t)).toBe(t);
    }
  });

  it("marks them in rendered markdown, in text and in attributes, and keeps the HTML escaped", () => {
    const html = renderMarkdown(`see ${SPOOF} and [x\u2067y](http://a\u202Eb) <b>\u202D</b>`);
    for (const c of CONTROLS) expect(html).not.toContain(c);
    expect(html).toContain('<span class="bidi" title="right-to-left override (shown, not applied)">⟨U+202E⟩</span>gpj.exe');
    expect(html).toContain('x<span class="bidi" title="right-to-left isolate (shown, not applied)">⟨U+2067⟩</span>y');
    // Inside a tag (an attribute) the mark is text.
    expect(markBidiHtml('<span title="a\u202Eb">c\u202Ed</span>')).toBe('<span title="a⟨U+202E⟩b">c<span class="bidi" title="right-to-left override (shown, not applied)">⟨U+202E⟩</span>d</span>');
    expect(html).toContain("&lt;b&gt;");
    expect(markBidiHtml("<p>none</p>")).toBe("<p>none</p>");
  });
});
