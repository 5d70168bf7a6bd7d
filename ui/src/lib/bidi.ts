// Unicode bidi controls in log text (issue #31): the embeddings and overrides U+202A–U+202E and
// the isolates U+2066–U+2069 reorder the characters around them when applied, so that
// `file<U+202E>gpj.exe` reads as `fileexe.jpg`. Log text is shown with each such control marked
// where it stands (`⟨U+202E⟩`) and never applied: `bidiSegments` for the views (LogText.svelte),
// `showBidi` for text put in an attribute (a tooltip), `markBidiHtml` for the markdown renderer's
// output. The other characters are left as they are.

/** One bidi control, any of U+202A–U+202E or U+2066–U+2069. */
const ONE = /[\u202A-\u202E\u2066-\u2069]/;
const EVERY = /[\u202A-\u202E\u2066-\u2069]/g;

const NAMES: Record<string, string> = {
  "\u202A": "left-to-right embedding",
  "\u202B": "right-to-left embedding",
  "\u202C": "pop directional formatting",
  "\u202D": "left-to-right override",
  "\u202E": "right-to-left override",
  "\u2066": "left-to-right isolate",
  "\u2067": "right-to-left isolate",
  "\u2068": "first strong isolate",
  "\u2069": "pop directional isolate",
};

export type BidiSegment = { text: string; control?: undefined } | { text: string; control: string; name: string };

/** Whether `text` holds a bidi control (the common case, none, costs one scan). */
export function hasBidi(text: string): boolean {
  return ONE.test(text);
}

/** `⟨U+202E⟩`: how a control is shown. */
export function bidiMark(c: string): string {
  return `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** `text` cut at its bidi controls: plain runs, and each control as its mark and name. */
export function bidiSegments(text: string): BidiSegment[] {
  if (!hasBidi(text)) return [{ text }];
  const out: BidiSegment[] = [];
  let from = 0;
  for (const m of text.matchAll(EVERY)) {
    const at = m.index!;
    if (at > from) out.push({ text: text.slice(from, at) });
    out.push({ text: bidiMark(m[0]), control: m[0], name: NAMES[m[0]] });
    from = at + m[0].length;
  }
  if (from < text.length) out.push({ text: text.slice(from) });
  return out;
}

/** `text` with every bidi control replaced by its mark: for attributes (tooltips) and plain strings. */
export function showBidi(text: string): string {
  return hasBidi(text) ? text.replace(EVERY, bidiMark) : text;
}

/**
 * The markdown renderer's HTML with every bidi control marked: in text, a marked span (the mark
 * is ours, the control is gone); inside a tag (an attribute), the mark as text. The HTML is
 * markdown-it's, whose text has every `<` escaped, so a `<` starts one of its own tags.
 */
export function markBidiHtml(html: string): string {
  if (!hasBidi(html)) return html;
  return html.replace(/(<[^>]*>)|([^<]+)/g, (_, tag: string | undefined, text: string | undefined) =>
    tag !== undefined
      ? showBidi(tag)
      : text!.replace(EVERY, (c) => `<span class="bidi" title="${NAMES[c]} (shown, not applied)">${bidiMark(c)}</span>`),
  );
}
