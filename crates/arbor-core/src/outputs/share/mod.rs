//! Sharing a session (SPEC 6.4): a session or its subtree as Markdown or as one self-contained
//! HTML file, with every item's file:line, tool calls and results, tokens and findings, and each
//! sub-agent inline (in place of its spawn), summarized at its spawn, or as a file of its own.
//!
//! The transcript is read back a page at a time (`outputs::transcript`) and written as it is read,
//! so an export of a gigabyte log holds one page, never the log. What the two styles write is
//! theirs (`markdown.rs`, `html.rs`); the walk through the tree, and what each session's heading
//! says, is here. Log text stays text in both: the Markdown escapes markup outside code, the HTML
//! escapes every text and renders markdown with HTML off under a strict Content-Security-Policy.

mod html;
mod markdown;
mod words;

pub use html::style_source;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::analysis::Analysis;
use crate::intern::{HashMap, HashSet, Sym};
use crate::outputs::report_parts::{DiagnosticRef, ReportParts};
use crate::transcript::{Index, PartKind};
use words::{Head, Out, Render};

/// Markdown or HTML.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    Markdown,
    Html,
}

/// Where a sub-agent's transcript goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Subagents {
    /// In place of its spawn, nested under it.
    Inline,
    /// Its task, reply, tokens and outcome at its spawn; its own items left out.
    #[default]
    Summary,
    /// A file of its own beside the export, linked from its spawn.
    Files,
}

/// What an export holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, ts_rs::TS)]
pub struct ShareOptions {
    pub style: Style,
    pub subagents: Subagents,
    /// Whether the assistant's reasoning is written.
    pub reasoning: bool,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct Shared {
    /// Sessions written (inline, or each in its own file).
    pub sessions: u32,
    /// Transcript rows written.
    #[ts(type = "number")]
    pub rows: u64,
    /// The sub-agents' own files (`Subagents::Files`), beside the export.
    pub files: Vec<String>,
    /// The export stopped at its budget of bytes (a preview).
    pub cut: bool,
}

fn is_cut(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.to_string() == Out::CUT)
}

/// Rows read back per page.
const PAGE: u32 = 256;

impl Analysis {
    /// Writes `session` (and, by `options.subagents`, its subtree) to `out`, at most `budget`
    /// bytes of it (`Shared::cut` then). With `Subagents::Files`, each sub-agent goes to a file of
    /// its own beside `file` (the export's own path), named after it; with no `file` (a preview,
    /// stdout) sub-agents are summarized with the name their file would have.
    pub fn share(
        &self,
        session: &str,
        options: &ShareOptions,
        out: &mut dyn Write,
        file: Option<&Path>,
        budget: u64,
    ) -> io::Result<Option<Shared>> {
        let Some(top) = self.cx.ids.get(session).filter(|&s| self.cx.graph.contains(s)) else { return Ok(None) };
        let mut walk = Walk::new(self, *options, file);
        let mut o = Out { w: out, left: budget };
        match walk.document(&mut o, top) {
            Ok(()) => {}
            Err(e) if is_cut(&e) => walk.shared.cut = true,
            Err(e) => return Err(e),
        }
        Ok(Some(walk.shared))
    }
}

impl Analysis {
    /// `share` to the file `path`, which appears whole or not at all (written beside it, then
    /// renamed); sub-agents' own files (`Subagents::Files`) beside it. `None`: no such session.
    pub fn share_file(&self, session: &str, options: &ShareOptions, path: &Path) -> io::Result<Option<Shared>> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
        let tmp = dir.join(format!(".{name}.arbor-{}.tmp", std::process::id()));
        let written = std::fs::File::create(&tmp).and_then(|f| {
            let mut w = io::BufWriter::with_capacity(1 << 16, f);
            let shared = self.share(session, options, &mut w, Some(path), u64::MAX)?;
            w.flush()?;
            Ok(shared)
        });
        match written {
            Ok(Some(shared)) => std::fs::rename(&tmp, path).map(|_| Some(shared)),
            other => {
                let _ = std::fs::remove_file(&tmp);
                other
            }
        }
    }

    /// The root sessions, in report order: what an export names when it is not told which.
    pub fn root_sessions(&self) -> Vec<&str> {
        let g = &self.cx.graph;
        g.report_order()
            .into_iter()
            .filter(|&s| g.get(s).is_some_and(|n| n.parent.is_none()))
            .map(|s| self.cx.ids.name(s))
            .collect()
    }
}

/// One export's walk through the tree.
struct Walk<'a> {
    a: &'a Analysis,
    parts: ReportParts<'a>,
    options: ShareOptions,
    /// The export's own path, for sub-agents' files beside it.
    file: Option<&'a Path>,
    indexes: HashMap<&'a str, Index>,
    children: HashMap<Sym, Vec<Sym>>,
    findings: HashMap<&'a str, Vec<DiagnosticRef<'a>>>,
    /// Sessions written (or summarized): each once, whatever the links say.
    done: HashSet<Sym>,
    /// Names of the files written, to keep them apart.
    names: HashSet<String>,
    shared: Shared,
}

impl<'a> Walk<'a> {
    fn new(a: &'a Analysis, options: ShareOptions, file: Option<&'a Path>) -> Self {
        let parts = ReportParts::new(a);
        let mut children: HashMap<Sym, Vec<Sym>> = HashMap::default();
        for &s in parts.session_order() {
            if let Some(p) = a.cx.graph.get(s).and_then(|n| n.parent) {
                children.entry(p).or_default().push(s);
            }
        }
        let mut findings: HashMap<&'a str, Vec<DiagnosticRef<'a>>> = HashMap::default();
        let listed: Vec<DiagnosticRef<'a>> = parts.diagnostics().collect();
        for d in listed {
            if let Some(s) = d.session {
                findings.entry(s).or_default().push(d);
            }
        }
        Walk {
            a,
            parts,
            options,
            file,
            indexes: a.transcript_indexes(),
            children,
            findings,
            done: HashSet::default(),
            names: HashSet::default(),
            shared: Shared::default(),
        }
    }

    fn render(&self) -> Box<dyn Render> {
        match self.options.style {
            Style::Markdown => Box::new(markdown::Markdown),
            Style::Html => Box::new(html::Html),
        }
    }

    /// The whole export of `top`: the document around its section.
    fn document(&mut self, o: &mut Out, top: Sym) -> io::Result<()> {
        let mut r = self.render();
        let head = self.head(top, 0);
        let title = head.title.clone().unwrap_or_else(|| format!("Session {}", head.id));
        r.begin(o, &title)?;
        self.section(&mut *r, o, top, 0)?;
        r.end(o, &self.footer())
    }

    fn footer(&self) -> String {
        let files: Vec<&str> = self.a.files.iter().filter(|f| f.format.is_some()).map(|f| f.display.as_str()).collect();
        let shown = match files.len() {
            0 => String::new(),
            1..=3 => format!(" from {}", files.join(", ")),
            n => format!(" from {} and {} other files", files[..2].join(", "), n - 2),
        };
        format!("Exported by Arbor {}{shown}.", env!("CARGO_PKG_VERSION"))
    }

    /// Session `s`'s heading, transcript and findings, its sub-agents as the options say.
    fn section(&mut self, r: &mut dyn Render, o: &mut Out, s: Sym, depth: u32) -> io::Result<()> {
        self.done.insert(s);
        self.shared.sessions += 1;
        let head = self.head(s, depth);
        r.head(o, &head)?;
        let name = self.a.cx.ids.name(s);
        if let Some(index) = self.indexes.remove(name) {
            let mut from = 0;
            while (from as usize) < index.len() {
                let page = self.a.transcript_page(&index, from, PAGE, usize::MAX);
                for row in &page.rows {
                    self.shared.rows += 1;
                    for part in &row.parts {
                        if part.kind == PartKind::Reasoning && !self.options.reasoning {
                            continue;
                        }
                        r.part(o, row, part, depth)?;
                        if part.kind == PartKind::Spawn {
                            if let Some(child) = part.child.as_deref().and_then(|c| self.a.cx.ids.get(c)) {
                                self.child(r, o, child, depth)?;
                            }
                        }
                    }
                }
                from += PAGE;
            }
            self.indexes.insert(name, index);
        }
        // Sub-agents the transcript never spawned (a link by inference, a reused id).
        let loose: Vec<Sym> =
            self.children.get(&s).into_iter().flatten().copied().filter(|c| !self.done.contains(c)).collect();
        if !loose.is_empty() {
            r.loose_children(o, depth)?;
            for c in loose {
                self.child(r, o, c, depth)?;
            }
        }
        if let Some(list) = self.findings.get(name) {
            r.findings(o, list, depth)?;
        }
        Ok(())
    }

    /// Sub-agent `c`, spawned by a session at `depth`, as the options say (each once).
    fn child(&mut self, r: &mut dyn Render, o: &mut Out, c: Sym, depth: u32) -> io::Result<()> {
        if self.done.contains(&c) || !self.a.cx.graph.contains(c) {
            return Ok(());
        }
        let head = self.head(c, depth + 1);
        match self.options.subagents {
            Subagents::Inline => {
                r.child_open(o, &head)?;
                self.section(r, o, c, depth + 1)?;
                r.child_close(o, &head)
            }
            Subagents::Summary => {
                self.done.insert(c);
                r.child_summary(o, &head, None)
            }
            Subagents::Files => {
                let name = self.file_name(&head.id);
                if let Some(dir) = self.file.map(|f| f.parent().unwrap_or(Path::new(""))) {
                    self.own_file(&dir.join(&name), c)?;
                    self.shared.files.push(name.clone());
                } else {
                    self.done.insert(c);
                }
                r.child_summary(o, &head, Some(&name))
            }
        }
    }

    /// Sub-agent `c` written whole to a file of its own, its own sub-agents beside it.
    fn own_file(&mut self, path: &PathBuf, c: Sym) -> io::Result<()> {
        let mut f = io::BufWriter::new(std::fs::File::create(path)?);
        let mut o = Out { w: &mut f, left: u64::MAX };
        let mut r = self.render();
        let head = self.head(c, 0);
        let title = head.title.clone().unwrap_or_else(|| format!("Sub-agent {}", head.id));
        r.begin(&mut o, &title)?;
        self.section(&mut *r, &mut o, c, 0)?;
        r.end(&mut o, &self.footer())?;
        f.flush()
    }

    /// A file name for a sub-agent's own file: the export's name, then the id's plain characters.
    fn file_name(&mut self, id: &str) -> String {
        let (stem, ext) = match self.file.and_then(|f| f.file_name()).map(|n| n.to_string_lossy().into_owned()) {
            Some(n) => match n.rsplit_once('.') {
                Some((s, e)) if !s.is_empty() => (s.to_owned(), e.to_owned()),
                _ => (n, String::new()),
            },
            None => ("session".to_owned(), if self.options.style == Style::Html { "html" } else { "md" }.to_owned()),
        };
        let plain: String = id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
            .take(80)
            .collect();
        let dot = if ext.is_empty() { "" } else { "." };
        let mut name = format!("{stem}.{plain}{dot}{ext}");
        let mut n = 2;
        while !self.names.insert(name.clone()) {
            name = format!("{stem}.{plain}-{n}{dot}{ext}");
            n += 1;
        }
        name
    }

    fn head(&self, s: Sym, depth: u32) -> Head {
        let a = self.a;
        let id = a.cx.ids.name(s).to_owned();
        let node = a.cx.graph.get(s);
        let sref = self.parts.session_ref(s, |_, _| None);
        let index = self.indexes.get(id.as_str());
        let first_file = index.and_then(|i| i.record(0)).and_then(|r| a.cx.file_of(r)).map(|f| f as usize);
        let info = first_file.and_then(|f| a.files.get(f));
        let label = sref.as_ref().and_then(|r| r.label).map(str::to_owned);
        let root = node.is_some_and(|n| n.parent.is_none());
        let title = label.clone().or_else(|| {
            let info = info.filter(|_| root)?;
            crate::formats::about_file(&info.path, info.format)
        });
        let runs = sref.as_ref().map(|r| r.runs.as_slice()).unwrap_or_default();
        let row_time =
            |row: Option<usize>| row.and_then(|r| a.cx.records.get(r)).map(|r| r.time).filter(|t| !t.is_nan());
        let start = runs
            .iter()
            .filter_map(|r| r.start_time)
            .reduce(f64::min)
            .or_else(|| row_time(index.and_then(|i| i.record(0))));
        let end = runs
            .iter()
            .filter_map(|r| r.end_time)
            .reduce(f64::max)
            .or_else(|| row_time(index.and_then(|i| i.len().checked_sub(1)).and_then(|l| index?.record(l as u32))));
        let sub_agents = self.subtree_size(s);
        Head {
            title,
            label,
            format: info.and_then(|i| i.format).map(|f| f.id),
            parent: node.and_then(|n| n.parent).map(|p| a.cx.ids.name(p).to_owned()),
            depth,
            start,
            end,
            outcome: runs.last().map(|r| r.outcome),
            usage: sref.as_ref().and_then(|r| r.usage.clone()),
            subtree: sref.as_ref().and_then(|r| r.subtree_usage.clone()).filter(|_| sub_agents > 0),
            sub_agents,
            rows: index.map_or(0, |i| i.len() as u32),
            file: info.map(|i| i.display.clone()),
            id,
        }
    }

    /// Sessions under `s`, each once.
    fn subtree_size(&self, s: Sym) -> u32 {
        let mut seen: HashSet<Sym> = HashSet::default();
        let mut stack = vec![s];
        while let Some(x) = stack.pop() {
            for &c in self.children.get(&x).into_iter().flatten() {
                if seen.insert(c) && c != s {
                    stack.push(c);
                }
            }
        }
        seen.len() as u32
    }
}

#[cfg(test)]
mod tests;
