//! Pages of the lists a viewer shows beside the tree: the findings (grouped by severity, then
//! code; filtered by text, severity and session), the root waits beside their naive reading, and
//! every session's replies per turn. Each is asked for a page at a time; a filtered list is made
//! once per filter and kept until the next.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::store::{At, Maybe, Store, NONE};
use super::tree::SeverityCounts;
use crate::intern::Sym;
use crate::report::{Diagnostic, Place, Reply, Severity, Wait};

/// Severities in the order the findings list shows them.
const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// Which findings to list: every word of `text` (ignoring case) in the code, message, session or
/// place; none of the `hidden` severities; only `session`'s, when given. The findings of a
/// `folded` code are counted on their code's row and not listed (the app folds `unknown-format`:
/// a folder's 27 files that are not logs are one line, each file on request).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FindingsFilter {
    pub text: String,
    pub hidden: Vec<Severity>,
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(optional, as = "Option<Vec<String>>")]
    pub folded: Vec<String>,
}

/// One row of the findings list: a severity's heading, a code's heading, or a finding.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum FindingRow {
    Group {
        severity: Severity,
        count: u32,
    },
    Code {
        severity: Severity,
        code: String,
        count: u32,
        /// Its findings are not listed (the filter's `folded`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[ts(as = "Option<bool>", optional)]
        folded: bool,
    },
    Item {
        diagnostic: Diagnostic,
        /// Set (true) when the finding depends on the end of a log still followed (an open turn,
        /// a truncated last line): it may go away as the log grows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        provisional: Option<bool>,
    },
}

/// Rows `offset..` of the `total` rows the filter leaves; `matched` findings in them; `counts`
/// are the whole log's, per severity.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FindingsPage {
    #[ts(type = "number")]
    pub revision: u64,
    pub total: u32,
    pub matched: u32,
    pub counts: SeverityCounts,
    pub offset: u32,
    pub rows: Vec<FindingRow>,
}

/// A row of the findings list, as kept: indices, not copies.
#[derive(Debug, Clone, Copy)]
enum Row {
    Group(Severity, u32),
    Code(Severity, Sym, u32, bool),
    Item(u32),
}

/// The findings list for the last filter asked for.
#[derive(Default)]
pub(crate) struct Findings {
    filter: Option<FindingsFilter>,
    rows: Vec<Row>,
    matched: u32,
    counts: SeverityCounts,
    /// Findings by place (file index, then line), for the inspector and the waits.
    by_place: Vec<u32>,
}

impl Findings {
    pub fn new(store: &Store) -> Self {
        let mut counts = SeverityCounts::default();
        for d in &store.diagnostics {
            counts.add(d.severity);
        }
        let mut by_place: Vec<u32> = (0..store.diagnostics.len() as u32).collect();
        by_place.sort_by_key(|&i| store.diagnostics[i as usize].at);
        Findings { filter: None, rows: Vec::new(), matched: 0, counts, by_place }
    }

    fn refilter(&mut self, store: &Store, filter: &FindingsFilter) {
        if self.filter.as_ref() == Some(filter) {
            return;
        }
        let words: Vec<String> = filter.text.to_lowercase().split_whitespace().map(str::to_owned).collect();
        let session = filter.session.as_deref().map(|s| store.ids.get(s).map_or(NONE - 1, |s| s.0));
        let mut rows = Vec::new();
        let mut matched = 0;
        for severity in SEVERITIES.into_iter().filter(|s| !filter.hidden.contains(s)) {
            let mut items: Vec<u32> = (0..store.diagnostics.len() as u32)
                .filter(|&i| {
                    let d = &store.diagnostics[i as usize];
                    d.severity == severity
                        && session.is_none_or(|s| d.session == s)
                        && (words.is_empty() || matches(store, i, &words))
                })
                .collect();
            if items.is_empty() {
                continue;
            }
            // By code, codes in order; report order inside a code (the sort is stable).
            items.sort_by(|&a, &b| {
                let (a, b) = (&store.diagnostics[a as usize], &store.diagnostics[b as usize]);
                store.words.name(a.code).cmp(store.words.name(b.code))
            });
            rows.push(Row::Group(severity, items.len() as u32));
            matched += items.len() as u32;
            for group in
                items.chunk_by(|&a, &b| store.diagnostics[a as usize].code == store.diagnostics[b as usize].code)
            {
                let code = store.diagnostics[group[0] as usize].code;
                let folded = filter.folded.iter().any(|c| c == store.words.name(code));
                rows.push(Row::Code(severity, code, group.len() as u32, folded));
                if !folded {
                    rows.extend(group.iter().map(|&i| Row::Item(i)));
                }
            }
        }
        self.rows = rows;
        self.matched = matched;
        self.filter = Some(filter.clone());
    }

    pub fn page(
        &mut self,
        store: &Store,
        revision: u64,
        filter: &FindingsFilter,
        offset: u32,
        limit: u32,
    ) -> FindingsPage {
        self.refilter(store, filter);
        let rows = self
            .rows
            .iter()
            .skip(offset as usize)
            .take(limit as usize)
            .filter_map(|r| match *r {
                Row::Group(severity, count) => Some(FindingRow::Group { severity, count }),
                Row::Code(severity, code, count, folded) => {
                    Some(FindingRow::Code { severity, code: store.words.name(code).to_owned(), count, folded })
                }
                Row::Item(i) => store.diagnostic(i).map(|diagnostic| FindingRow::Item {
                    diagnostic,
                    provisional: store.provisional.binary_search(&i).is_ok().then_some(true),
                }),
            })
            .collect();
        FindingsPage {
            revision,
            total: self.rows.len() as u32,
            matched: self.matched,
            counts: self.counts,
            offset,
            rows,
        }
    }

    pub fn counts(&self) -> SeverityCounts {
        self.counts
    }

    /// The findings at one place, in report order.
    pub fn at(&self, store: &Store, at: At) -> Vec<u32> {
        let d = &store.diagnostics;
        let from = self.by_place.partition_point(|&i| d[i as usize].at < at);
        self.by_place[from..].iter().copied().take_while(|&i| d[i as usize].at == at).collect()
    }

    /// The last finding (in report order) with code `code` from `from` to `to` (a range of lines
    /// of one file).
    fn last_in(&self, store: &Store, code: Sym, from: At, to: At) -> Option<u32> {
        let d = &store.diagnostics;
        let a = self.by_place.partition_point(|&i| d[i as usize].at < from);
        let b = self.by_place.partition_point(|&i| d[i as usize].at <= to);
        self.by_place[a..b.max(a)].iter().copied().filter(|&i| d[i as usize].code == code).max()
    }
}

/// True when every word occurs (ignoring case) in the finding's code, message, session or place.
fn matches(store: &Store, i: u32, words: &[String]) -> bool {
    let d = &store.diagnostics[i as usize];
    let file = store.files.get(d.at.file as usize).map_or("", String::as_str);
    let hay = format!(
        "{} {} {} {}:{}",
        store.words.name(d.code),
        store.texts.get(d.message),
        store.name(d.session).unwrap_or(""),
        file,
        d.at.line
    )
    .to_lowercase();
    words.iter().all(|w| hay.contains(w.as_str()))
}

/// A root wait beside its naive reading, with what makes them differ.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct WaitItem {
    /// The wait's index in the report's `waits`.
    pub index: u32,
    pub wait: Wait,
    /// What the naive reading gets wrong: `reply`, `end`, `outcome`, `notifications`.
    pub differences: Vec<String>,
    /// Where the message the naive waiter returns is (a sub-agent's: the
    /// `child-reply-would-replace-root-reply` finding inside the wait).
    pub naive_reply_place: Option<Place>,
    /// The findings at the naive end, when the naive reading ends elsewhere (what stops it there).
    pub naive_end_findings: Vec<Diagnostic>,
    /// How many notifications the naive reading of a dsh-rpc root turn drops (the engine lists
    /// them: `naive_dropped`); absent when it drops none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub dropped: Option<u64>,
}

/// Waits `offset..` of `total`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct WaitsPage {
    #[ts(type = "number")]
    pub revision: u64,
    pub total: u32,
    pub offset: u32,
    pub items: Vec<WaitItem>,
}

/// A session's replies on a page, in report order.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ReplyGroup {
    pub session: String,
    /// The session's label (the task it was given), to head the group with.
    pub label: Option<String>,
    /// What a root session is about (its title or first prompt), when its file says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    pub replies: Vec<Reply>,
}

/// Replies `offset..` of `total`, grouped by session: sessions in the tree's order, turns in
/// report order. A group cut by the page's edge goes on on the next page.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RepliesPage {
    #[ts(type = "number")]
    pub revision: u64,
    pub total: u32,
    pub offset: u32,
    pub groups: Vec<ReplyGroup>,
}

/// The naive reading's differences from the correct one (SPEC 2.1, 2.2).
fn differences(store: &Store, i: u32) -> Vec<String> {
    let w = &store.waits[i as usize];
    let mut out = Vec::new();
    let reply = |t: u32| (t != NONE).then(|| store.texts.get(t));
    match w.naive_reply {
        Maybe::Absent => {}
        Maybe::Null if w.reply == NONE => {}
        Maybe::Is(t) if reply(w.reply) == Some(store.texts.get(t)) => {}
        _ => out.push("reply"),
    }
    match w.naive_end {
        Maybe::Absent => {}
        Maybe::Null if !w.end.is_some() => {}
        Maybe::Is(a) if a == w.end => {}
        _ => out.push("end"),
    }
    if w.naive_outcome.is_some_and(|o| o != w.outcome) {
        out.push("outcome");
    }
    if let (Some(n), Some(c)) = (w.naive_notifications, w.notifications) {
        if n != c {
            out.push("notifications");
        }
    }
    out.into_iter().map(str::to_owned).collect()
}

pub(crate) fn wait_item(store: &Store, findings: &Findings, i: u32) -> Option<WaitItem> {
    let w = &store.waits[i as usize];
    let wait = store.wait(i)?;
    let differences = differences(store, i);
    let naive_reply_place = match (differences.iter().any(|d| d == "reply"), w.start.get(), w.naive_end) {
        (true, Some(start), Maybe::Is(end)) if end.file == start.file => store
            .words
            .get("child-reply-would-replace-root-reply")
            .and_then(|code| findings.last_in(store, code, start, end))
            .and_then(|d| store.place(store.diagnostics[d as usize].at)),
        _ => None,
    };
    let naive_end_findings = match w.naive_end {
        Maybe::Is(end) if differences.iter().any(|d| d == "end") => {
            findings.at(store, end).into_iter().filter_map(|d| store.diagnostic(d)).collect()
        }
        _ => Vec::new(),
    };
    let dropped = match (w.notifications, w.naive_notifications) {
        (Some(c), Some(n)) if c > n => Some(c - n),
        _ => None,
    };
    Some(WaitItem { index: i, wait, differences, naive_reply_place, naive_end_findings, dropped })
}

/// The replies in the order the view shows them: grouped by session, sessions in the tree's
/// order (`rank`: a session's row among `rows`; unranked ones last, in order of first
/// appearance), report order inside a session. A counting sort by rank: every followed revision
/// orders the replies again (a quarter million for a 1 GiB Copilot log).
pub(crate) fn reply_order(store: &Store, rows: usize, rank: impl Fn(Sym) -> Option<u32>) -> Vec<u32> {
    const NOT_YET: u32 = NONE;
    const UNRANKED: u32 = NONE - 1;
    let mut rank_of = vec![NOT_YET; store.ids.len()];
    let mut ranks = Vec::with_capacity(store.replies.len());
    for r in &store.replies {
        let k = match rank_of.get_mut(r.session.0 as usize) {
            Some(k) if *k != NOT_YET => *k,
            Some(k) => {
                *k = rank(r.session).filter(|&x| (x as usize) < rows).unwrap_or(UNRANKED);
                *k
            }
            None => UNRANKED,
        };
        ranks.push(k);
    }
    let mut start = vec![0u32; rows + 1];
    for &k in ranks.iter().filter(|&&k| k != UNRANKED) {
        start[k as usize + 1] += 1;
    }
    for i in 0..rows {
        start[i + 1] += start[i];
    }
    let mut out = vec![0u32; start[rows] as usize];
    // Unranked replies: by the first reply of their session, then in order.
    let mut first_of: crate::intern::HashMap<Sym, u32> = Default::default();
    let mut unranked: Vec<(u32, u32)> = Vec::new();
    for (i, (&k, r)) in ranks.iter().zip(&store.replies).enumerate() {
        if k == UNRANKED {
            let first = *first_of.entry(r.session).or_insert(i as u32);
            unranked.push((first, i as u32));
        } else {
            out[start[k as usize] as usize] = i as u32;
            start[k as usize] += 1;
        }
    }
    unranked.sort_unstable();
    out.extend(unranked.into_iter().map(|(_, i)| i));
    out
}

pub(crate) fn replies_page<'a>(
    store: &Store,
    order: &[u32],
    revision: u64,
    offset: u32,
    limit: u32,
    title: impl Fn(u32) -> Option<&'a str>,
) -> RepliesPage {
    let mut groups: Vec<ReplyGroup> = Vec::new();
    let page: Vec<u32> = order.iter().skip(offset as usize).take(limit as usize).copied().collect();
    for reply in store.replies_of(&page) {
        match groups.last_mut() {
            Some(g) if g.session == reply.session => g.replies.push(reply),
            _ => {
                let i = store.session(&reply.session);
                let label = i.and_then(|i| store.word_of(store.sessions[i as usize].label));
                groups.push(ReplyGroup {
                    session: reply.session.clone(),
                    label: label.map(str::to_owned),
                    title: i.and_then(&title).map(str::to_owned),
                    replies: vec![reply],
                })
            }
        }
    }
    RepliesPage { revision, total: order.len() as u32, offset, groups }
}

#[cfg(test)]
mod tests {
    use crate::report::Severity;
    use crate::view::tests::{case_report, sample_report, view_of};
    use crate::view::FindingsFilter;

    use super::FindingRow;

    fn filter(text: &str, hidden: &[Severity], session: Option<&str>) -> FindingsFilter {
        FindingsFilter {
            text: text.into(),
            hidden: hidden.to_vec(),
            session: session.map(str::to_owned),
            folded: Vec::new(),
        }
    }

    /// The rows as text: `E` and a count for a severity, `  code n` for a code, `    line` for an item.
    fn rows(page: &super::FindingsPage) -> Vec<String> {
        page.rows
            .iter()
            .map(|r| match r {
                FindingRow::Group { severity, count } => format!("{severity:?} {count}"),
                FindingRow::Code { code, count, .. } => format!("  {code} {count}"),
                FindingRow::Item { diagnostic, .. } => format!("    {}:{}", diagnostic.at.file, diagnostic.at.line),
            })
            .collect()
    }

    #[test]
    fn findings_are_grouped_by_severity_then_code_and_filtered() {
        let report = sample_report();
        let mut view = view_of(report.clone());
        let all = view.findings(&filter("", &[], None), 0, 1000);
        let n = report.diagnostics.len() as u32;
        assert_eq!(all.matched, n);
        assert_eq!(all.counts.total(), n);
        // One heading per severity present and per code inside it, codes in order.
        let mut want = Vec::new();
        for sev in [Severity::Error, Severity::Warning, Severity::Info] {
            let mut items: Vec<_> = report.diagnostics.iter().filter(|d| d.severity == sev).collect();
            if items.is_empty() {
                continue;
            }
            want.push(format!("{sev:?} {}", items.len()));
            items.sort_by(|a, b| a.code.cmp(&b.code));
            for group in items.chunk_by(|a, b| a.code == b.code) {
                want.push(format!("  {} {}", group[0].code, group.len()));
                want.extend(group.iter().map(|d| format!("    {}:{}", d.at.file, d.at.line)));
            }
        }
        assert_eq!(rows(&all), want);
        assert_eq!(all.total as usize, want.len());
        // Pages of it are slices of it.
        let page = view.findings(&filter("", &[], None), 2, 3);
        assert_eq!(rows(&page), want[2..5.min(want.len())]);
        // Hidden severities and a session narrow it; text words must all match.
        let warn = view.findings(&filter("", &[Severity::Error, Severity::Info], None), 0, 1000);
        assert!(warn.rows.iter().all(|r| match r {
            FindingRow::Group { severity, .. } | FindingRow::Code { severity, .. } => *severity == Severity::Warning,
            FindingRow::Item { diagnostic, .. } => diagnostic.severity == Severity::Warning,
        }));
        let first = &report.diagnostics[0];
        let code_and_line = format!("{} {}:{}", first.code.to_uppercase(), first.at.file, first.at.line);
        let one = view.findings(&filter(&code_and_line, &[], None), 0, 10);
        assert!(one.matched >= 1, "{code_and_line}");
        assert!(one.rows.iter().any(|r| matches!(r, FindingRow::Item { diagnostic, .. } if diagnostic == first)));
        let none = view.findings(&filter("no such words anywhere", &[], None), 0, 10);
        assert_eq!((none.total, none.matched), (0, 0));
        assert_eq!(none.counts.total(), n, "the counts are the whole log's");
        let owner = report.diagnostics.iter().find_map(|d| d.session.clone()).expect("a finding with a session");
        let mine = view.findings(&filter("", &[], Some(&owner)), 0, 1000);
        let want_mine = report.diagnostics.iter().filter(|d| d.session.as_deref() == Some(&owner)).count();
        assert_eq!(mine.matched as usize, want_mine);
        let nobody = view.findings(&filter("", &[], Some("no-such-session")), 0, 1000);
        assert_eq!(nobody.matched, 0);
    }

    /// A folded code is one row, its count whole; its findings are not listed, every other
    /// code's are, and unfolding lists them again in the same place.
    #[test]
    fn a_folded_code_is_one_row_with_its_count() {
        let report = sample_report();
        let mut view = view_of(report.clone());
        let code = report.diagnostics[0].code.clone();
        let n = report.diagnostics.iter().filter(|d| d.code == code).count();
        let open = view.findings(&filter("", &[], None), 0, 1000);
        let folded = view.findings(&FindingsFilter { folded: vec![code.clone()], ..filter("", &[], None) }, 0, 1000);
        assert_eq!(folded.matched, open.matched, "the folded findings still count");
        assert_eq!(folded.total as usize, open.total as usize - n);
        assert!(folded.rows.iter().any(
            |r| matches!(r, FindingRow::Code { code: c, count, folded: true, .. } if *c == code && *count as usize == n)
        ));
        assert!(!folded
            .rows
            .iter()
            .any(|r| matches!(r, FindingRow::Item { diagnostic, .. } if diagnostic.code == code)));
        let want: Vec<String> = rows(&open)
            .into_iter()
            .zip(&open.rows)
            .filter(|(_, r)| !matches!(r, FindingRow::Item { diagnostic, .. } if diagnostic.code == code))
            .map(|(t, _)| t)
            .collect();
        assert_eq!(rows(&folded), want);
        assert_eq!(rows(&view.findings(&filter("", &[], None), 0, 1000)), rows(&open));
    }

    #[test]
    fn waits_say_what_the_naive_reading_gets_wrong() {
        let report = sample_report();
        let view = view_of(report.clone());
        let page = view.waits(0, 100);
        assert_eq!(page.total as usize, report.waits.len());
        for item in &page.items {
            let w = &report.waits[item.index as usize];
            assert_eq!(&item.wait, w);
            let n = &w.naive;
            assert_eq!(
                item.differences.contains(&"reply".to_owned()),
                n.reply.as_ref().is_some_and(|r| *r != w.reply),
                "{w:?}"
            );
            assert_eq!(item.differences.contains(&"end".to_owned()), n.end.as_ref().is_some_and(|e| *e != w.end));
            let drops = w.notifications.zip(n.notifications).filter(|(c, n)| c > n).map(|(c, n)| c - n);
            assert_eq!(item.dropped, drops);
        }
        assert!(page.items.iter().any(|i| !i.naive_end_findings.is_empty()), "the naive end's findings");
        assert!(page.items.iter().any(|i| i.dropped.is_some()), "the dsh-rpc root turn drops notifications");
        // A saved Copilot log: the naive waiter returns a sub-agent's message, whose line is the
        // finding's.
        let saved = case_report("copilot-events-saved");
        let page = view_of(saved.clone()).waits(0, 100);
        let item = page.items.iter().find(|i| i.naive_reply_place.is_some()).expect("a naive reply from a child");
        assert!(item.differences.contains(&"reply".to_owned()));
        let at = item.naive_reply_place.as_ref().unwrap();
        assert!(saved.diagnostics.iter().any(|d| d.code == "child-reply-would-replace-root-reply" && d.at == *at));
    }

    #[test]
    fn replies_come_grouped_by_session_in_tree_order() {
        let report = sample_report();
        let view = view_of(report.clone());
        let all = view.replies(0, 10_000);
        assert_eq!(all.total as usize, report.replies.len());
        let flat: Vec<_> =
            all.groups.iter().flat_map(|g| g.replies.iter().map(move |r| (g.session.clone(), r))).collect();
        assert_eq!(flat.len(), report.replies.len());
        assert!(flat.iter().all(|(s, r)| *s == r.session));
        // Each session once, in the tree's order; its replies in report order.
        let tree: Vec<String> = view.tree_page(0, 10_000).rows.into_iter().map(|r| r.id).collect();
        let sessions: Vec<&String> = all.groups.iter().map(|g| &g.session).collect();
        let mut ranks: Vec<usize> = sessions.iter().map(|s| tree.iter().position(|t| t == *s).unwrap()).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{sessions:?}");
        ranks.dedup();
        assert_eq!(ranks.len(), sessions.len(), "one group a session");
        for g in &all.groups {
            let want: Vec<&crate::report::Reply> = report.replies.iter().filter(|r| r.session == g.session).collect();
            assert_eq!(g.replies.iter().collect::<Vec<_>>(), want);
            let label = report.sessions.iter().find(|s| s.id == g.session).and_then(|s| s.label.clone());
            assert_eq!(g.label, label, "the group is headed with its session's label");
        }
        assert!(all.groups.iter().any(|g| g.label.is_some()), "the sample labels some sessions");
        // A page cuts through a group and the next goes on with it.
        let a = view.replies(0, 2);
        let b = view.replies(2, 2);
        let paged: Vec<_> = [a, b].iter().flat_map(|p| p.groups.iter().flat_map(|g| g.replies.clone())).collect();
        assert_eq!(paged, flat.iter().take(4).map(|(_, r)| (*r).clone()).collect::<Vec<_>>());
    }

    /// A report of waits and findings in one file `f`, for the naive reading's cases.
    fn waits_report(waits: Vec<crate::report::Wait>, diagnostics: Vec<(&str, u64, &str)>) -> crate::report::Report {
        use crate::report::*;
        Report {
            report_version: 1,
            inputs: vec![Input {
                file: "f".into(),
                format: "copilot-events".into(),
                records: 20,
                bad_lines: 0,
                bytes: 0,
            }],
            sessions: vec![],
            turns: vec![],
            replies: vec![],
            waits,
            diagnostics: diagnostics
                .into_iter()
                .map(|(code, line, file)| Diagnostic {
                    code: code.into(),
                    severity: Severity::Warning,
                    at: Place { file: file.into(), line },
                    session: None,
                    message: "m".into(),
                    time: None,
                })
                .collect(),
            usage: None,
        }
    }

    fn wait(end: Option<u64>, naive: crate::report::NaiveWait, notifications: Option<u64>) -> crate::report::Wait {
        use crate::report::*;
        let at = |line| Place { file: "f".into(), line };
        Wait {
            root: "s1".into(),
            start: Some(at(2)),
            end: end.map(at),
            outcome: if end.is_some() { WaitOutcome::Idle } else { WaitOutcome::Open },
            reply: Some("final".into()),
            finish_reason: None,
            notifications,
            events: None,
            naive,
        }
    }

    #[test]
    fn each_field_the_naive_reading_gets_wrong_is_named_and_its_causes_found() {
        use crate::report::{NaiveWait, Place, WaitOutcome};
        let at = |line| Place { file: "f".into(), line };
        let agree = NaiveWait {
            end: Some(Some(at(9))),
            outcome: Some(WaitOutcome::Idle),
            reply: Some(Some("final".into())),
            notifications: None,
        };
        let child = NaiveWait {
            end: Some(Some(at(6))),
            outcome: Some(WaitOutcome::Inferred),
            reply: Some(Some("child".into())),
            notifications: None,
        };
        let counts = NaiveWait { end: None, outcome: None, reply: None, notifications: Some(2) };
        let report = waits_report(
            vec![
                wait(Some(9), agree, None),
                wait(Some(9), child.clone(), None),
                wait(Some(9), counts.clone(), Some(5)),
                wait(Some(9), NaiveWait { notifications: Some(5), ..counts }, Some(5)),
                wait(None, NaiveWait { end: Some(Some(at(3))), outcome: None, reply: None, notifications: None }, None),
            ],
            vec![
                ("child-reply-would-replace-root-reply", 1, "f"),
                ("child-idle-would-resolve-wait", 6, "f"),
                ("child-reply-would-replace-root-reply", 5, "f"),
                ("child-reply-would-replace-root-reply", 6, "f"),
                ("child-reply-would-replace-root-reply", 6, "g"),
                ("child-reply-would-replace-root-reply", 9, "f"),
            ],
        );
        let page = view_of(report).waits(0, 10);
        let diffs: Vec<Vec<String>> = page.items.iter().map(|i| i.differences.clone()).collect();
        let want: [&[&str]; 5] = [&[], &["reply", "end", "outcome"], &["notifications"], &[], &["end"]];
        assert_eq!(diffs, want.map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>()));
        // The child's reply: the last such finding from the start to the naive end, in its file.
        assert_eq!(page.items[1].naive_reply_place, Some(at(6)));
        let causes: Vec<&str> = page.items[1].naive_end_findings.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(causes, ["child-idle-would-resolve-wait", "child-reply-would-replace-root-reply"]);
        assert_eq!(page.items[2].dropped, Some(3));
        assert_eq!((page.items[3].dropped, page.items[0].naive_reply_place.clone()), (None, None));
    }
}
