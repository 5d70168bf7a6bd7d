// Markdown from a log (replies, transcript messages) rendered for reading: one markdown-it
// renderer shared by the views that show it, with raw HTML off (a tag in a log is shown as text,
// never parsed), links shown with their address but never followed inside the app (they render as
// text with the address beside them, no `href`), and images shown as their alt text and address
// (nothing is fetched); a bidi control is shown as a mark, never applied (./bidi). The output is what `{@html}` may take: every character of the log went
// through markdown-it's escaping.

import MarkdownIt from "markdown-it";
import { markBidiHtml } from "./bidi";

const md = new MarkdownIt({ html: false, linkify: false, breaks: true, typographer: false });
const escape = md.utils.escapeHtml;

md.renderer.rules.link_open = (tokens, i) => {
  const href = tokens[i].attrGet("href") ?? "";
  return `<span class="md-link" title="${escape(href)}">`;
};
md.renderer.rules.link_close = (tokens, i) => {
  // The address follows the text, unless the text is the address.
  let j = i - 1;
  while (j >= 0 && tokens[j].type !== "link_open") j--;
  const href = j >= 0 ? (tokens[j].attrGet("href") ?? "") : "";
  const text = tokens.slice(j + 1, i).map((t) => t.content).join("");
  return text === href || !href ? "</span>" : `</span> <span class="md-href">&lt;${escape(href)}&gt;</span>`;
};
md.renderer.rules.image = (tokens, i) => {
  const t = tokens[i];
  const src = t.attrGet("src") ?? "";
  return `<span class="md-image">[image: ${escape(t.content)}]${src ? ` &lt;${escape(src)}&gt;` : ""}</span>`;
};

/** The HTML of `text` read as Markdown, safe to put in the page (see above), its bidi controls
 * marked and not applied (./bidi). */
export function renderMarkdown(text: string): string {
  return markBidiHtml(md.render(text));
}
