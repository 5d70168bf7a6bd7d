//! The HTML style: one self-contained file, its styles inside it (allowed by their hash in a
//! strict Content-Security-Policy: nothing else loads or runs), light and dark by the reader's
//! system, tool calls and results folded in `<details>`. Every text from the log is escaped;
//! prose is rendered from markdown with HTML off (the log's markup shown as text, links only to
//! http, https and mailto, images never fetched but named).

use std::io;
use std::sync::OnceLock;

use base64::Engine as _;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use sha2::Digest as _;

use super::words::{facts, shown_text, usage_line, Head, Meta, Out, Render};
use crate::outputs::report_parts::DiagnosticRef;
use crate::transcript::{Part, PartKind, Row};

#[derive(Default)]
pub(crate) struct Html;

const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1d2127; --muted: #5d6673; --bg: #ffffff; --card: #f6f7f9;
  --line: #d9dde3; --accent: #2f6fd0; --error: #b3261e; --ok: #1f7a3d; --code: #eef0f3; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e3e6ea; --muted: #9aa3ae; --bg: #15181c; --card: #1d2126; --line: #323840;
    --accent: #7aa7f0; --error: #f2857d; --ok: #6cc98a; --code: #23282e; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.5rem; margin: 0 0 .75rem; overflow-wrap: anywhere; }
h2, h3, h4, h5, h6 { margin: 1.5rem 0 .5rem; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: 0 0 1rem;
  font-size: .9rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.item { border-left: 3px solid var(--line); padding: .25rem 0 .25rem .75rem; margin: .5rem 0; }
.item.k-prompt { border-color: var(--accent); }
.item.k-text, .item.k-received { border-color: var(--ok); }
.item.error { border-color: var(--error); }
.meta { font-size: .8rem; color: var(--muted); display: flex; flex-wrap: wrap; gap: .25rem .6rem;
  align-items: baseline; }
.meta .who { font-weight: 600; color: var(--fg); }
.meta .err { color: var(--error); font-weight: 600; }
.meta code, .arg { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .8rem; }
.arg { color: var(--fg); overflow-wrap: anywhere; }
pre, code { background: var(--code); border-radius: 4px; }
pre { padding: .5rem .75rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere;
  font: .8rem/1.4 ui-monospace, "SF Mono", Menlo, Consolas, monospace; margin: .25rem 0; }
code { padding: 0 .2rem; }
pre code { padding: 0; background: none; }
details > summary { cursor: pointer; color: var(--muted); font-size: .8rem; }
.md > :first-child { margin-top: .25rem; }
.md > :last-child { margin-bottom: .25rem; }
.md blockquote { margin: .25rem 0; padding-left: .75rem; border-left: 3px solid var(--line); color: var(--muted); }
.md table { border-collapse: collapse; }
.md td, .md th { border: 1px solid var(--line); padding: .2rem .5rem; }
.reasoning { color: var(--muted); font-style: italic; }
section.agent { border: 1px solid var(--line); border-radius: 6px; padding: .25rem 1rem .75rem;
  margin: .75rem 0; background: var(--card); }
.summary { border: 1px dashed var(--line); border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0;
  font-size: .9rem; }
ul.findings { padding-left: 1.25rem; }
.sev-error { color: var(--error); font-weight: 600; }
.sev-warning { color: #a86b00; font-weight: 600; }
footer { margin-top: 2rem; color: var(--muted); font-size: .8rem; }
"#;

/// The style block as a CSP source, `'sha256-…'`: what the export's policy allows, and what the
/// app's own policy allows too, so that its preview (a frame that inherits the app's policy) is
/// drawn with it (`tauri.conf.json`; a test holds the two equal).
pub fn style_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(STYLE.as_bytes()));
        format!("'sha256-{hash}'")
    })
}

/// The policy: nothing loads, nothing runs, but the one style block (by its hash) and images
/// from `data:` URLs; no base, no forms.
fn policy() -> &'static str {
    static POLICY: OnceLock<String> = OnceLock::new();
    POLICY.get_or_init(|| {
        format!("default-src 'none'; style-src {}; img-src data:; base-uri 'none'; form-action 'none'", style_source())
    })
}

/// `text` with `& < > " '` as references: safe in element text and in quoted attributes.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A link target a colleague may follow: http, https and mailto, or a relative one (a name with
/// no scheme). Anything else (`javascript:`, `data:`, `file:`) is shown as text.
fn followable(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    match lower.find(':') {
        None => true,
        Some(i) => {
            let scheme = &lower[..i];
            // A colon after a slash, a question mark or a hash is not a scheme's.
            scheme.contains(['/', '?', '#']) || ["http", "https", "mailto"].contains(&scheme)
        }
    }
}

/// Markdown from the log as HTML with HTML off: the log's raw HTML is shown as text (a block of
/// it as preformatted text), links go only where `followable` allows, and images are named with
/// their address, never loaded.
pub(crate) fn markdown(text: &str) -> String {
    let mut opts = Options::empty();
    opts.insert(Options::ENABLE_TABLES);
    opts.insert(Options::ENABLE_STRIKETHROUGH);
    opts.insert(Options::ENABLE_TASKLISTS);
    let mut links: Vec<bool> = Vec::new();
    let events = Parser::new_ext(text, opts).map(|e| match e {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::HtmlBlock) => Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)),
        Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::CodeBlock),
        Event::Start(Tag::Image { dest_url, .. }) => Event::Text(format!("[image {dest_url}: ").into()),
        Event::End(TagEnd::Image) => Event::Text("]".into()),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            let keep = followable(&dest_url);
            links.push(keep);
            if keep {
                Event::Start(Tag::Link { link_type, dest_url, title, id })
            } else {
                Event::Text(format!("[{dest_url}] ").into())
            }
        }
        Event::End(TagEnd::Link) => match links.pop() {
            Some(false) => Event::Text("".into()),
            _ => Event::End(TagEnd::Link),
        },
        e => e,
    });
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    pulldown_cmark::html::push_html(&mut out, events);
    // A link the reader follows opens apart from the export and tells the other side nothing.
    out.replace("<a href=", "<a rel=\"noopener noreferrer\" href=")
}

fn meta(row: &Row, part: &Part) -> String {
    let f = Meta::of(row, part);
    let mut m = format!("<div class=\"meta\"><span class=\"who\">{}</span>", f.who);
    if let Some(n) = &f.name {
        m.push_str(&format!(" <code>{}</code>", escape(n)));
    }
    if let Some(b) = f.bytes {
        m.push_str(&format!(" <span>{b} bytes</span>"));
    }
    if f.error {
        m.push_str(" <span class=\"err\">error</span>");
    }
    if let Some(arg) = &f.argument {
        m.push_str(&format!(" <span class=\"arg\">{}</span>", escape(arg)));
    }
    m.push_str(&format!(" <code>{}</code>", escape(&f.place)));
    if let Some(t) = &f.time {
        m.push_str(&format!(" <time>{t}</time>"));
    }
    if let Some(t) = &f.tokens {
        m.push_str(&format!(" <span>tokens {}</span>", escape(t)));
    }
    m.push_str("</div>");
    m
}

fn class(k: PartKind) -> &'static str {
    match k {
        PartKind::Prompt => "k-prompt",
        PartKind::Text => "k-text",
        PartKind::Reasoning => "k-reasoning",
        PartKind::ToolCall => "k-call",
        PartKind::ToolResult => "k-result",
        PartKind::Spawn => "k-spawn",
        PartKind::Received => "k-received",
        PartKind::Compaction => "k-compaction",
        PartKind::Notice => "k-notice",
        PartKind::Usage => "k-usage",
        PartKind::Image => "k-image",
    }
}

/// Lines a result shows unfolded; longer ones fold.
const OPEN_LINES: usize = 6;

impl Render for Html {
    fn begin(&mut self, o: &mut Out, title: &str) -> io::Result<()> {
        o.str(&format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
             <meta name=\"referrer\" content=\"no-referrer\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"color-scheme\" content=\"light dark\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n<h1>{}</h1>\n",
            policy(),
            escape(title),
            escape(title)
        ))
    }

    fn head(&mut self, o: &mut Out, h: &Head) -> io::Result<()> {
        let mut s = String::new();
        if h.depth > 0 {
            let level = (h.depth + 1).min(6);
            let name = h.label.as_deref().or(h.title.as_deref()).unwrap_or("Sub-agent");
            s.push_str(&format!("<h{level}>Sub-agent: {}</h{level}>\n", escape(name)));
        }
        s.push_str("<dl class=\"facts\">");
        for (k, v) in facts(h) {
            s.push_str(&format!("<dt>{k}</dt><dd>{}</dd>", escape(&v)));
        }
        s.push_str("</dl>\n");
        o.str(&s)
    }

    fn part(&mut self, o: &mut Out, row: &Row, part: &Part, _depth: u32) -> io::Result<()> {
        let error = if part.is_error == Some(true) { " error" } else { "" };
        let mut s = format!("<div class=\"item {}{error}\" id=\"r{}-{}\">", class(part.kind), row.row, row.record);
        s.push_str(&meta(row, part));
        match part.kind {
            // A harness's notice (an injected command text, a reminder) is long and seldom read:
            // folded when it is.
            PartKind::Notice if part.text.lines().count() > OPEN_LINES => {
                s.push_str(&format!(
                    "<details><summary>{} lines</summary><div class=\"md\">{}</div></details>",
                    part.text.lines().count(),
                    markdown(&part.text)
                ));
            }
            PartKind::Prompt | PartKind::Text | PartKind::Received | PartKind::Spawn | PartKind::Notice => {
                if !part.text.is_empty() {
                    s.push_str(&format!("<div class=\"md\">{}</div>", markdown(&part.text)));
                }
            }
            PartKind::Reasoning => {
                s.push_str(&format!(
                    "<details><summary>reasoning</summary><div class=\"md reasoning\">{}</div></details>",
                    markdown(&part.text)
                ));
            }
            PartKind::ToolCall | PartKind::ToolResult => {
                if !part.text.is_empty() {
                    let text = shown_text(part);
                    let lines = text.lines().count();
                    let open = if lines <= OPEN_LINES { " open" } else { "" };
                    let what = if part.kind == PartKind::ToolCall { "arguments" } else { "output" };
                    s.push_str(&format!(
                        "<details{open}><summary>{what} · {lines} {}</summary><pre>{}</pre></details>",
                        if lines == 1 { "line" } else { "lines" },
                        escape(&text)
                    ));
                }
            }
            PartKind::Compaction | PartKind::Usage | PartKind::Image => {
                if !part.text.is_empty() && part.kind != PartKind::Image {
                    s.push_str(&format!("<pre>{}</pre>", escape(&part.text)));
                }
            }
        }
        s.push_str("</div>\n");
        o.str(&s)
    }

    fn child_open(&mut self, o: &mut Out, h: &Head) -> io::Result<()> {
        o.str(&format!("<section class=\"agent\" data-session=\"{}\">\n", escape(&h.id)))
    }

    fn child_close(&mut self, o: &mut Out, _h: &Head) -> io::Result<()> {
        o.str("</section>\n")
    }

    fn child_summary(&mut self, o: &mut Out, h: &Head, file: Option<&str>) -> io::Result<()> {
        let name = h.label.as_deref().unwrap_or("sub-agent");
        let mut s = format!(
            "<div class=\"summary\"><strong>Sub-agent</strong> <code>{}</code> <code>{}</code>",
            escape(name),
            escape(&h.id)
        );
        if let Some(x) = h.outcome {
            s.push_str(&format!(" · {}", super::words::outcome(x)));
        }
        if let (Some(a), Some(b)) = (h.start, h.end) {
            if b >= a {
                s.push_str(&format!(" · {}", super::words::duration(b - a)));
            }
        }
        s.push_str(&format!(" · {} items", h.rows));
        if let Some(u) = h.subtree.as_ref().or(h.usage.as_ref()) {
            s.push_str(&format!(" · tokens {}", escape(&usage_line(u))));
        }
        if h.sub_agents > 0 {
            s.push_str(&format!(" · {} sub-agents of its own", h.sub_agents));
        }
        if let Some(f) = file {
            s.push_str(&format!(" · <a href=\"{}\">its transcript</a>", escape(f)));
        }
        s.push_str("</div>\n");
        o.str(&s)
    }

    fn loose_children(&mut self, o: &mut Out, depth: u32) -> io::Result<()> {
        let level = (depth + 2).min(6);
        o.str(&format!("<h{level}>Sub-agents not spawned in this transcript</h{level}>\n"))
    }

    fn findings(&mut self, o: &mut Out, list: &[DiagnosticRef<'_>], depth: u32) -> io::Result<()> {
        let level = (depth + 2).min(6);
        let mut s = format!("<h{level}>Findings ({})</h{level}>\n<ul class=\"findings\">", list.len());
        for d in list {
            let sev = super::words::severity(d.severity);
            s.push_str(&format!(
                "<li><span class=\"sev-{sev}\">{sev}</span> <code>{}</code> at <code>{}:{}</code>: {}</li>",
                d.code,
                escape(d.at.file),
                d.at.line,
                escape(&d.message)
            ));
        }
        s.push_str("</ul>\n");
        o.str(&s)
    }

    fn end(&mut self, o: &mut Out, footer: &str) -> io::Result<()> {
        o.str(&format!("<footer>{}</footer>\n</main>\n</body>\n</html>\n", escape(footer)))
    }
}
