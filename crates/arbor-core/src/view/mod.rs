//! Pages of an analysis for a viewer that draws only what is on screen: the report stays here,
//! and a viewer asks for the rows of the tree it shows, a window of the timeline at its
//! resolution, pages of findings, waits and replies, and the hits of a search as they are found.
//! Perfetto's UI and SigNoz's million-span view keep their data where it was computed the same
//! way; shipping every item to the page fails near tens of thousands of them.
//!
//! A `View` is made from the report's items (one at a time: the owned `Report` need not exist
//! whole) into compact tables (`store`), then flattened into the tree (`tree`), laid out on the
//! timeline (`timeline`) and ordered for the lists (`pages`). `search` streams hits over the
//! analysis's files. Every answer carries the view's `revision`, so that a viewer that learns of
//! a newer one (the log grew, or was read again) asks for its window again. Nothing here knows
//! of Tauri or the IPC; the app's commands are a few lines each over these calls, and petgraph
//! indices never appear: sessions are named by their ids, places by file and line.

mod grow;
mod pages;
pub mod search;
mod sources;
mod store;
pub mod timeline;
mod titles;
pub mod tree;
mod usage;

use serde::Serialize;
use ts_rs::TS;

pub use pages::{FindingRow, FindingsFilter, FindingsPage, RepliesPage, ReplyGroup, WaitItem, WaitsPage};
pub use sources::Grown;
pub use timeline::{
    Axis, AxisInput, Band, Connector, HitQuery, LaneWindow, Located, MarkPoint, RunRect, TimelineHit, TimelineInfo,
    TimelineOpen, TimelineWindow, WindowQuery,
};
pub use tree::{Growing, SeverityCounts, TreeOrder, TreePage, TreeRow, TreeSpot};
pub use usage::{UsageColumn, UsagePage, UsageRow, UsageScope, UsageSort};

use crate::analysis::Analysis;
use crate::intern::Sym;
use crate::report::{self, Diagnostic, Input, Place, Report, Run};
use crate::report_parts::ReportParts;
use store::{At, Store, TextSource, NONE};

/// What the viewer shows above its panes once a log is open: the inputs and how many of each.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Summary {
    #[ts(type = "number")]
    pub revision: u64,
    pub inputs: Vec<Input>,
    pub sessions: u32,
    pub findings: SeverityCounts,
    pub waits: u32,
    pub replies: u32,
    /// Whether the timeline can use a time axis.
    pub clocked: bool,
    /// The tokens by model and their total, with the price table's source; absent when the log
    /// counts none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<crate::report::UsageSummary>,
}

/// One session as the inspector shows it: every run, with the parent it ran under.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SessionDetail {
    pub id: String,
    pub label: Option<String>,
    /// What a root session is about (its title or first prompt), read from its file for the
    /// view: not the report's `label`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    pub parent: Option<String>,
    pub root: Option<String>,
    pub depth: Option<u32>,
    /// True when the parent link was inferred rather than read (SPEC 2.2).
    pub inferred_parent: bool,
    #[ts(type = "number")]
    pub events: u64,
    pub runs: Vec<Run>,
    /// The session's own tokens and its subtree's, when the log counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<crate::report::Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subtree_usage: Option<crate::report::Usage>,
    /// Where choosing the session points the inspector.
    pub place: Option<Place>,
}

/// The report's sections, as items, for `View::build`.
pub struct Items<S, T, R, W, D> {
    pub inputs: Vec<Input>,
    pub sessions: S,
    pub turns: T,
    pub replies: R,
    pub waits: W,
    pub diagnostics: D,
    /// The tokens by model, with the price table's source.
    pub usage: Option<crate::report::UsageSummary>,
}

/// What the view orders and counts once its tables are kept.
struct Layout {
    tree: tree::Tree,
    counts: Vec<SeverityCounts>,
    places: Vec<At>,
    /// Per session (report order): how many turns it ran.
    turns: Vec<u32>,
    reply_order: Vec<u32>,
    findings: pages::Findings,
}

impl Layout {
    fn of(store: &Store) -> Layout {
        let ids: Vec<u32> = store.sessions.iter().map(|s| s.id.0).collect();
        let parents: Vec<u32> = store.sessions.iter().map(|s| s.parent).collect();
        let tree = tree::Tree::build(&ids, &parents);
        let mut counts = vec![SeverityCounts::default(); store.sessions.len()];
        for d in &store.diagnostics {
            if let Some(i) = (d.session != NONE).then(|| store.session_of_sym(Sym(d.session))).flatten() {
                counts[i as usize].add(d.severity);
            }
        }
        // A session's place: its first run's start, else its first turn's start.
        let mut places: Vec<At> =
            (0..store.sessions.len() as u32).map(|i| store.runs_of(i).first().map_or(At::NONE, |r| r.start)).collect();
        let mut turns = vec![0u32; store.sessions.len()];
        for t in &store.turns {
            if let Some(i) = store.session_of_sym(t.session) {
                turns[i as usize] += 1;
                let p = &mut places[i as usize];
                if !p.is_some() && t.start.is_some() && store.runs_of(i).first().is_none_or(|r| !r.start.is_some()) {
                    *p = t.start;
                }
            }
        }
        let rows = store.sessions.len();
        let reply_order = pages::reply_order(store, rows, |s| store.session_of_sym(s).and_then(|i| tree.index_of(i)));
        let findings = pages::Findings::new(store);
        Layout { tree, counts, places, turns, reply_order, findings }
    }
}

/// When a view lays out its timeline (`View::of_analysis_with`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timeline {
    /// With the view, on the log's own axis.
    Now,
    /// When a timeline query first asks for it.
    WhenAsked,
}

/// An open analysis's report, as pages (see the module's description).
pub struct View {
    revision: u64,
    store: Store,
    tree: tree::Tree,
    /// How the tree's siblings are ordered (`set_tree_order`).
    order: TreeOrder,
    /// Per session (report order): its findings by severity, and where choosing it points.
    counts: Vec<SeverityCounts>,
    places: Vec<At>,
    /// Per session (report order): how many turns it ran.
    turns: Vec<u32>,
    findings: pages::Findings,
    reply_order: Vec<u32>,
    titles: titles::Titles,
    clocked: bool,
    /// The timeline on each axis (time, wire), made when first asked for (the log's own axis is
    /// made with the view, so that the timeline opens at once, unless `Timeline::WhenAsked`).
    timeline: [Option<timeline::Model>; 2],
    /// Where each row came from, when the view is of a followed log's snapshot: what it needs to
    /// grow with the log (`grow`).
    source: Option<sources::Source>,
    /// The usage table's spans and its last sort, made when first asked for.
    usage: Option<usage::Table>,
}

/// Items between two looks at whether to go on.
const STRIDE: usize = 4096;

/// Feeds every item to `keep`, asking `go_on` every `STRIDE` items; `None` once it says no.
fn feed<I: Iterator>(items: I, go_on: &dyn Fn() -> bool, mut keep: impl FnMut(I::Item)) -> Option<()> {
    for (i, item) in items.enumerate() {
        if i % STRIDE == 0 && !go_on() {
            return None;
        }
        keep(item);
    }
    go_on().then_some(())
}

impl View {
    /// A view of a whole report.
    pub fn from_report(report: Report, revision: u64) -> View {
        let items = Items {
            inputs: report.inputs,
            sessions: report.sessions.into_iter(),
            turns: report.turns.into_iter(),
            replies: report.replies.into_iter(),
            waits: report.waits.into_iter(),
            diagnostics: report.diagnostics.into_iter(),
            usage: report.usage,
        };
        let view = View::build(items, revision, &|| true);
        view.unwrap_or_else(|| unreachable!("a build that is never stopped ends with a view"))
    }

    /// A view of a finished analysis's report, made from its parts one item at a time (the
    /// owned report never exists whole), the reply texts read back meanwhile. `None` when
    /// `go_on` said to stop (it is asked every few thousand items and between stages).
    pub fn of_analysis(analysis: &Analysis, revision: u64, go_on: &dyn Fn() -> bool) -> Option<View> {
        View::of_analysis_with(analysis, revision, go_on, Timeline::Now)
    }

    /// `of_analysis`, with the timeline laid out now (so that it opens at once) or when it is
    /// first asked for (a followed log's revision: most are never drawn on a timeline, and it is
    /// the longest stage of a large log's view).
    pub fn of_analysis_with(
        analysis: &Analysis,
        revision: u64,
        go_on: &dyn Fn() -> bool,
        timeline: Timeline,
    ) -> Option<View> {
        let parts = ReportParts::for_view(analysis);
        // Where each row comes from: for a view that grows with a followed log, and for which
        // findings its snapshot made when it was finished.
        let rec = std::cell::RefCell::new(sources::Recorder::default());
        let mut store = std::thread::scope(|scope| {
            // The waits' texts are read back (on threads of their own) while the sessions and
            // turns are kept: the first wait asked for reads them all. The replies' texts are
            // read back from the files a page at a time, not kept: a gigabyte log's are tens of
            // megabytes.
            let warm = std::thread::Builder::new().name("arbor-view-texts".into()).spawn_scoped(scope, || {
                parts.waits().next();
            });
            let items = Items {
                inputs: parts.inputs().map(Into::into).collect(),
                sessions: parts.sessions_with_sources().map(|(s, session)| {
                    rec.borrow_mut().sessions.push(s.0);
                    session
                }),
                turns: parts.turns_with_sources().map(|(i, turn)| {
                    rec.borrow_mut().turns.push(i);
                    turn
                }),
                replies: parts.replies_with_sources().map(|(source, r, offset)| {
                    rec.borrow_mut().replies.push(source);
                    (r, offset)
                }),
                waits: parts.waits_with_sources().map(|(i, w)| {
                    rec.borrow_mut().waits.push(i);
                    w.into()
                }),
                diagnostics: parts.diagnostics_with_sources().map(|(i, d)| {
                    rec.borrow_mut().diagnostics.push(i);
                    d.into()
                }),
                usage: parts.usage(),
            };
            let paths = analysis.files.iter().map(|f| (f.display.clone(), f.path.clone(), f.format));
            let store = View::store_of(items, go_on, Some(paths));
            drop(warm);
            store
        })?;
        // The parts (and the reply texts they read back) go before the tree and the timeline are
        // made: the two together were the peak of memory.
        drop(parts);
        let rec = rec.into_inner();
        store.provisional = sources::provisional_rows(&rec.diagnostics, analysis.provisional);
        let source = rec.finish(analysis, &store);
        let mut view = View::of_store(store, revision, go_on, timeline)?;
        view.source = source;
        Some(view)
    }

    /// Collapses the sessions that were collapsed in `before` (a view of the same log before it
    /// grew), so that a followed log's tree keeps its shape; sessions are matched by id.
    pub fn keep_collapsed(&mut self, before: &View) {
        self.set_tree_order(before.order);
        let nodes: Vec<u32> = before
            .tree
            .collapsed()
            .filter_map(|node| before.store.sessions.get(node as usize))
            .filter_map(|row| self.node(before.store.ids.name(row.id)))
            .collect();
        self.tree.collapse(nodes);
    }

    /// A view of a report given as its items, each dropped once kept; `None` when `go_on` said
    /// to stop.
    pub fn build<S, T, R, W, D>(items: Items<S, T, R, W, D>, revision: u64, go_on: &dyn Fn() -> bool) -> Option<View>
    where
        S: Iterator<Item = report::Session>,
        T: Iterator<Item = report::Turn>,
        R: Iterator<Item = report::Reply>,
        W: Iterator<Item = report::Wait>,
        D: Iterator<Item = report::Diagnostic>,
    {
        let items = Items {
            inputs: items.inputs,
            sessions: items.sessions,
            turns: items.turns,
            replies: items.replies.map(|r| (r, None)),
            waits: items.waits,
            diagnostics: items.diagnostics,
            usage: items.usage,
        };
        let store = View::store_of(items, go_on, None::<std::iter::Empty<TextSource>>)?;
        View::of_store(store, revision, go_on, Timeline::Now)
    }

    /// The tables of a report given as its items, each reply with where its line starts when
    /// its text is to be read back from the inputs' files (`paths`, by the report's file names)
    /// instead of kept.
    fn store_of<S, T, R, W, D, P>(
        items: Items<S, T, R, W, D>,
        go_on: &dyn Fn() -> bool,
        paths: Option<P>,
    ) -> Option<Store>
    where
        S: Iterator,
        S::Item: store::Keep,
        T: Iterator,
        T::Item: store::Keep,
        R: Iterator,
        R::Item: store::Keep,
        W: Iterator<Item = report::Wait>,
        D: Iterator<Item = report::Diagnostic>,
        P: Iterator<Item = TextSource>,
    {
        let mut store = Store::new(items.inputs);
        store.usage_summary = items.usage;
        if let Some(paths) = paths {
            store.set_paths(paths);
        }
        feed(items.sessions, go_on, |s| store::Keep::keep_in(s, &mut store))?;
        feed(items.turns, go_on, |t| store::Keep::keep_in(t, &mut store))?;
        feed(items.diagnostics, go_on, |d| store.add_diagnostic(d))?;
        feed(items.replies, go_on, |r| store::Keep::keep_in(r, &mut store))?;
        feed(items.waits, go_on, |w| store.add_wait(w))?;
        store.finish();
        Some(store)
    }

    fn of_store(store: Store, revision: u64, go_on: &dyn Fn() -> bool, when: Timeline) -> Option<View> {
        // The timeline on the log's own axis on one thread (whether it has a clock is a walk of
        // every span, so it is found there too, and asked there alone when the timeline waits),
        // the tree and the lists on this one.
        let timeline_of = |store: &Store| {
            let clocked = timeline::has_clock(store);
            let axis = if clocked { Axis::Time } else { Axis::Wire };
            let model = (when == Timeline::Now).then(|| timeline::Model::build(store, axis, clocked));
            (clocked, axis, model)
        };
        let (model, rest) = std::thread::scope(|scope| {
            let model = std::thread::Builder::new()
                .name("arbor-view-timeline".into())
                .spawn_scoped(scope, || timeline_of(&store));
            let rest = go_on().then(|| Layout::of(&store));
            let model = match model {
                Ok(handle) => handle.join().ok(),
                Err(_) => Some(timeline_of(&store)),
            };
            (model, rest)
        });
        let Layout { tree, counts, places, turns, reply_order, findings } = rest?;
        let (clocked, axis, model) = model?;
        let mut timeline = [None, None];
        timeline[axis as usize] = model;
        let titles = titles::Titles::of(&store, &places);
        go_on().then_some(View {
            revision,
            titles,
            store,
            tree,
            order: TreeOrder::Wire,
            counts,
            places,
            turns,
            findings,
            reply_order,
            clocked,
            timeline,
            source: None,
            usage: None,
        })
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn summary(&self) -> Summary {
        Summary {
            revision: self.revision,
            inputs: self.store.inputs.clone(),
            sessions: self.store.sessions.len() as u32,
            findings: self.findings.counts(),
            waits: self.store.waits.len() as u32,
            replies: self.store.replies.len() as u32,
            clocked: self.clocked,
            usage: self.store.usage_summary.clone(),
        }
    }

    fn node(&self, id: &str) -> Option<u32> {
        self.store.session(id)
    }

    /// Rows `offset..offset + limit` of the visible tree.
    pub fn tree_page(&self, offset: u32, limit: u32) -> TreePage {
        let s = &self.store;
        let rows = self
            .tree
            .rows(offset, limit)
            .map(|(index, r)| {
                let row = &s.sessions[r.node as usize];
                let runs = s.runs_of(r.node);
                TreeRow {
                    index,
                    id: s.ids.name(row.id).to_owned(),
                    label: s.word_of(row.label).map(str::to_owned),
                    title: self.titles.get(s, r.node).map(str::to_owned),
                    depth: r.depth,
                    reported_depth: (row.depth != NONE).then_some(row.depth),
                    parent: s.name(row.parent).map(str::to_owned),
                    has_children: r.has_children,
                    collapsed: self.tree.is_collapsed(r.node),
                    runs: Some(runs.len() as u32),
                    turns: Some(self.turns[r.node as usize]),
                    events: Some(row.events),
                    outcome: runs.last().map(|r| r.outcome),
                    link: runs.last().map(|r| r.link),
                    usage: s.usage_of(row.usage),
                    subtree_usage: s.usage_of(row.subtree_usage),
                    any_error: runs.iter().any(|r| r.outcome == report::Outcome::Error),
                    findings: self.counts[r.node as usize],
                    place: s.place(self.places[r.node as usize]),
                }
            })
            .collect();
        TreePage { revision: self.revision, total: self.tree.visible_len(), offset, rows }
    }

    /// Orders the tree's siblings (`TreeOrder`), keeping what is collapsed; the rows' visible
    /// indices change, their count does not.
    pub fn set_tree_order(&mut self, order: TreeOrder) {
        if order == self.order {
            return;
        }
        let s = &self.store;
        let ids: Vec<u32> = s.sessions.iter().map(|r| r.id.0).collect();
        let parents: Vec<u32> = s.sessions.iter().map(|r| r.parent).collect();
        let tokens = |i: u32| s.usage_of(i).map(|u| u.input + u.output + u.cache_read + u.cache_write);
        let key: Option<Vec<Option<u64>>> = match order {
            TreeOrder::Wire => None,
            TreeOrder::OwnTokens => Some(s.sessions.iter().map(|r| tokens(r.usage)).collect()),
            TreeOrder::SubtreeTokens => Some(s.sessions.iter().map(|r| tokens(r.subtree_usage)).collect()),
            // Micro-dollars: a whole number that orders as the cost does.
            TreeOrder::SubtreeCost => Some(
                s.sessions
                    .iter()
                    .map(|r| {
                        s.usage_of(r.subtree_usage).and_then(|u| u.cost).map(|c| (c.max(0.0) * 1e6).round() as u64)
                    })
                    .collect(),
            ),
            // Whole milliseconds of the log's clock.
            TreeOrder::OwnDuration | TreeOrder::SubtreeDuration => {
                let spans = usage::Spans::of(s, &self.tree, &self.turns);
                let ms = if order == TreeOrder::OwnDuration { &spans.own } else { &spans.subtree };
                Some(ms.iter().map(|&m| usage::Spans::key(m)).collect())
            }
        };
        let mut tree = tree::Tree::build_by(&ids, &parents, key.as_deref());
        tree.keep_collapsed(&self.tree);
        self.tree = tree;
        self.order = order;
        if let Some(table) = self.usage.as_mut() {
            table.forget_order();
        }
    }

    pub fn tree_order(&self) -> TreeOrder {
        self.order
    }

    /// Rows `offset..offset + limit` of the usage table sorted by `sort`: every session the tree
    /// shows (collapsed or not), with its own and its subtree's tokens, cost, duration and turns.
    pub fn usage_page(&mut self, sort: UsageSort, offset: u32, limit: u32) -> UsagePage {
        let table =
            self.usage.get_or_insert_with(|| usage::Table::new(usage::Spans::of(&self.store, &self.tree, &self.turns)));
        let s = &self.store;
        let order = table.order(s, &self.tree, &self.turns, sort);
        let total = order.len() as u32;
        let end = offset.saturating_add(limit).min(total);
        let order = order.get(offset.min(total) as usize..end as usize).unwrap_or(&[]).to_vec();
        let spans = &table.spans;
        let time = |ms: f64| ms.is_finite().then_some(ms);
        let rows = order
            .into_iter()
            .enumerate()
            .map(|(k, i)| {
                let row = &s.sessions[i as usize];
                UsageRow {
                    index: offset + k as u32,
                    id: s.ids.name(row.id).to_owned(),
                    label: s.word_of(row.label).map(str::to_owned),
                    title: self.titles.get(s, i).map(str::to_owned),
                    depth: spans.depth[i as usize],
                    turns: self.turns[i as usize],
                    subtree_turns: spans.subtree_turns[i as usize],
                    usage: s.usage_of(row.usage),
                    subtree_usage: s.usage_of(row.subtree_usage),
                    duration: time(spans.own[i as usize]),
                    subtree_duration: time(spans.subtree[i as usize]),
                    place: s.place(self.places[i as usize]),
                }
            })
            .collect();
        UsagePage { revision: self.revision, total, offset, sort, rows }
    }

    /// Opens, closes (`open`) or flips (`None`) a session's subtree.
    pub fn tree_set_open(&mut self, id: &str, open: Option<bool>) -> TreeSpot {
        match self.node(id) {
            Some(n) => self.tree.set_open(n, open),
            None => TreeSpot { index: None, total: self.tree.visible_len() },
        }
    }

    /// Opens the way to a session and says where its row is.
    pub fn tree_reveal(&mut self, id: &str) -> TreeSpot {
        match self.node(id) {
            Some(n) => self.tree.reveal(n),
            None => TreeSpot { index: None, total: self.tree.visible_len() },
        }
    }

    pub fn findings(&mut self, filter: &FindingsFilter, offset: u32, limit: u32) -> FindingsPage {
        self.findings.page(&self.store, self.revision, filter, offset, limit)
    }

    /// The findings reported at a place.
    pub fn findings_at(&self, place: &Place) -> Vec<Diagnostic> {
        let Some(at) = self.store.at_of(place) else { return Vec::new() };
        self.findings.at(&self.store, at).into_iter().filter_map(|i| self.store.diagnostic(i)).collect()
    }

    pub fn session(&self, id: &str) -> Option<SessionDetail> {
        let i = self.node(id)?;
        let s = &self.store;
        let row = &s.sessions[i as usize];
        Some(SessionDetail {
            id: id.to_owned(),
            label: s.word_of(row.label).map(str::to_owned),
            title: self.titles.get(s, i).map(str::to_owned),
            parent: s.name(row.parent).map(str::to_owned),
            root: s.name(row.root).map(str::to_owned),
            depth: (row.depth != NONE).then_some(row.depth),
            inferred_parent: row.inferred_parent,
            events: row.events,
            runs: s.runs_of(i).iter().map(|r| s.run(r)).collect(),
            usage: s.usage_of(row.usage),
            subtree_usage: s.usage_of(row.subtree_usage),
            place: s.place(self.places[i as usize]),
        })
    }

    pub fn waits(&self, offset: u32, limit: u32) -> WaitsPage {
        let total = self.store.waits.len() as u32;
        let items = (offset..offset.saturating_add(limit).min(total))
            .filter_map(|i| pages::wait_item(&self.store, &self.findings, i))
            .collect();
        WaitsPage { revision: self.revision, total, offset, items }
    }

    pub fn replies(&self, offset: u32, limit: u32) -> RepliesPage {
        pages::replies_page(&self.store, &self.reply_order, self.revision, offset, limit, |i| {
            self.titles.get(&self.store, i)
        })
    }

    /// The timeline on `axis` (wire order when the log has no clock), made when first asked for
    /// (whether the log has a clock was found with the view: its spans are not walked again).
    fn model(&mut self, axis: Axis) -> (&timeline::Model, &Store) {
        let (clocked, store) = (self.clocked, &self.store);
        let axis = if clocked { axis } else { Axis::Wire };
        let model = self.timeline[axis as usize].get_or_insert_with(|| timeline::Model::build(store, axis, clocked));
        (model, store)
    }

    pub fn timeline_info(&mut self, axis: Axis) -> TimelineInfo {
        let (revision, clocked) = (self.revision, self.clocked);
        let (m, s) = self.model(axis);
        m.info(s, revision, clocked)
    }

    /// The timeline's axis and domain with the fitted window of lanes `first..last` at `width`.
    pub fn timeline_open(&mut self, axis: Axis, first: u32, last: u32, width: f64) -> TimelineOpen {
        let (revision, clocked) = (self.revision, self.clocked);
        let (m, s) = self.model(axis);
        let info = m.info(s, revision, clocked);
        let q = WindowQuery { axis: info.axis, first, last, start: info.min, end: info.max, width };
        let mut window = m.window(s, revision, &q);
        self.title_lanes(&mut window);
        TimelineOpen { window, info }
    }

    pub fn timeline_window(&mut self, q: &WindowQuery) -> TimelineWindow {
        let revision = self.revision;
        let (m, s) = self.model(q.axis);
        let mut window = m.window(s, revision, q);
        self.title_lanes(&mut window);
        window
    }

    /// Names each lane of a window as the tree names its row: a root's title beside its label.
    fn title_lanes(&self, window: &mut TimelineWindow) {
        for lane in &mut window.lanes {
            let session = lane.id.as_deref().and_then(|id| self.node(id));
            lane.title = session.and_then(|i| self.titles.get(&self.store, i)).map(str::to_owned);
        }
    }

    pub fn timeline_hit(&mut self, q: &HitQuery) -> Option<TimelineHit> {
        let (m, s) = self.model(q.axis);
        m.hit(s, q)
    }

    pub fn timeline_locate(&mut self, axis: Axis, session: Option<&str>, place: Option<&Place>) -> Located {
        let (m, s) = self.model(axis);
        m.locate(s, session, place)
    }
}

/// Whether two views answer every question alike (the summary, every row of the tree, every
/// session, the findings, waits and replies, and both timelines whole), and where they first
/// differ: a grown view is held to the view made again by this (tests, `examples/follow-view`).
#[doc(hidden)]
pub fn same_views(a: &mut View, b: &mut View) -> Result<(), String> {
    fn same<T: Serialize>(what: &str, x: T, y: T) -> Result<(), String> {
        let (x, y) = (serde_json::to_string(&x).unwrap_or_default(), serde_json::to_string(&y).unwrap_or_default());
        if x == y {
            return Ok(());
        }
        let at = x.bytes().zip(y.bytes()).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()));
        let near = |s: &str| s.get(at.saturating_sub(200)..(at + 200).min(s.len())).unwrap_or("").to_owned();
        Err(format!("{what} differ at byte {at}:\n  {}\n  {}", near(&x), near(&y)))
    }
    same("summaries", a.summary(), b.summary())?;
    let (ta, tb) = (a.tree_page(0, u32::MAX), b.tree_page(0, u32::MAX));
    same("trees", &ta, &tb)?;
    for row in &ta.rows {
        same(&format!("sessions {}", row.id), a.session(&row.id), b.session(&row.id))?;
    }
    let all = FindingsFilter::default();
    same("findings", a.findings(&all, 0, u32::MAX), b.findings(&all, 0, u32::MAX))?;
    same("waits", a.waits(0, u32::MAX), b.waits(0, u32::MAX))?;
    same("replies", a.replies(0, u32::MAX), b.replies(0, u32::MAX))?;
    for axis in [Axis::Time, Axis::Wire] {
        let lanes = a.timeline_info(axis).lanes;
        same(
            &format!("{axis:?} timelines"),
            a.timeline_open(axis, 0, lanes, 997.0),
            b.timeline_open(axis, 0, lanes, 997.0),
        )?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The built-in sample's report: a dsh-rpc recording and a Copilot SDK one.
    pub fn sample_report() -> Report {
        let dir = tempfile::tempdir().unwrap();
        let folder = crate::sample::write_to(dir.path()).unwrap();
        crate::analyze_paths(&[folder]).unwrap()
    }

    /// The report of a conformance case's input.
    pub fn case_report(name: &str) -> Report {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/conformance/cases")
            .join(name)
            .join("input");
        crate::analyze_paths(&[dir]).unwrap()
    }

    /// A followed log cut inside its grandchild's turn: the findings its end makes are marked
    /// provisional in the findings page, the others are not, and a view of the longer log keeps
    /// the sessions collapsed in the one before.
    #[test]
    fn a_followed_logs_view_marks_provisional_findings_and_keeps_what_was_collapsed() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/conformance/cases/dsh-rpc-two-level/input/run.jsonl"),
        )
        .unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        std::fs::write(&path, lines[..12].join("\n") + "\n").unwrap();
        let mut live = crate::live::Live::open(std::slice::from_ref(&path), &mut ());
        let snapshot = live.snapshot();
        let mut before = View::of_analysis(&snapshot, 1, &|| true).unwrap();
        let all = FindingsFilter::default();
        let flags = |v: &mut View| -> Vec<bool> {
            v.findings(&all, 0, 500)
                .rows
                .into_iter()
                .filter_map(|r| match r {
                    FindingRow::Item { provisional, .. } => Some(provisional == Some(true)),
                    _ => None,
                })
                .collect()
        };
        let marked = flags(&mut before);
        assert!(marked.iter().any(|p| *p), "the open turns at the end are provisional: {marked:?}");
        let first = snapshot.provisional.unwrap();
        assert_eq!(marked.iter().filter(|p| **p).count(), snapshot.cx.findings.list.len() - first);
        // A one-shot analysis marks nothing.
        let once = crate::analyze(std::slice::from_ref(&path), &mut ());
        assert!(flags(&mut View::of_analysis(&once, 1, &|| true).unwrap()).iter().all(|p| !p));

        before.tree_set_open("kid", Some(false));
        std::fs::write(&path, text.as_bytes()).unwrap();
        live.update(&mut ());
        let mut after = View::of_analysis(&live.snapshot(), 2, &|| true).unwrap();
        after.keep_collapsed(&before);
        let rows: Vec<(String, bool)> = after.tree_page(0, 10).rows.into_iter().map(|r| (r.id, r.collapsed)).collect();
        assert_eq!(rows, [("root".to_owned(), false), ("kid".to_owned(), true)], "grand hides under kid");
    }

    pub fn view_of(report: Report) -> View {
        View::from_report(report, 1)
    }

    /// Ordered by tokens or by cost, siblings (the roots among them) come most first and those
    /// without tokens (or cost) last, each still under its own parent and depth; collapsed stays collapsed, the
    /// wire order comes back as it was, and a followed log's next view keeps the order.
    #[test]
    fn the_tree_orders_siblings_by_own_or_subtree_tokens() {
        let mut report = sample_report();
        let tokens = |n: u64| Some(crate::report::Usage { input: n, output: 1, ..Default::default() });
        for (i, s) in report.sessions.iter_mut().enumerate() {
            // Every third session has none; the others grow in wire order (the reverse for the
            // subtree), so that each order differs from the log's.
            (s.usage, s.subtree_usage) =
                if i % 3 == 2 { (None, None) } else { (tokens(i as u64), tokens(100 - i as u64)) };
            // A cost that orders otherwise than the tokens: the sessions of even place cost most.
            if let Some(u) = s.subtree_usage.as_mut() {
                u.cost =
                    (i % 4 != 1).then(|| if i % 2 == 0 { 1.0 + i as f64 / 1000.0 } else { 0.5 - i as f64 / 1000.0 });
            }
        }
        let mut view = view_of(report.clone());
        let rows = |v: &View| -> Vec<(String, Option<String>, u32)> {
            v.tree_page(0, 10_000).rows.into_iter().map(|r| (r.id, r.parent, r.depth)).collect()
        };
        let wire = rows(&view);
        let key = |id: &str, order: TreeOrder| {
            let s = report.sessions.iter().find(|s| s.id == id).unwrap();
            match order {
                TreeOrder::SubtreeCost => {
                    s.subtree_usage.as_ref().and_then(|u| u.cost).map(|c| (c * 1e6).round() as u64)
                }
                TreeOrder::OwnTokens => s.usage.as_ref().map(|u| u.input + u.output),
                _ => s.subtree_usage.as_ref().map(|u| u.input + u.output),
            }
        };
        for order in [TreeOrder::OwnTokens, TreeOrder::SubtreeTokens, TreeOrder::SubtreeCost] {
            view.set_tree_order(order);
            assert_eq!(view.tree_order(), order);
            let sorted = rows(&view);
            assert_ne!(sorted, wire, "{order:?} reorders the sample");
            let mut same = sorted.clone();
            same.sort();
            let mut all = wire.clone();
            all.sort();
            assert_eq!(same, all, "{order:?}: every session under the same parent at the same depth");
            // Siblings in the order of their keys, most first, keyless last.
            for parent in wire.iter().map(|r| r.1.clone()).collect::<std::collections::BTreeSet<_>>() {
                let keys: Vec<Option<u64>> =
                    sorted.iter().filter(|r| r.1 == parent).map(|r| key(&r.0, order)).collect();
                let mut want = keys.clone();
                want.sort_by_key(|k| std::cmp::Reverse(*k));
                assert_eq!(keys, want, "{order:?}: children of {parent:?}");
            }
        }
        // A collapsed session stays collapsed in another order.
        let parent = wire.iter().find(|r| wire.iter().any(|c| c.1.as_deref() == Some(&r.0))).unwrap().0.clone();
        let before = view.tree_page(0, 10_000).total;
        view.tree_set_open(&parent, Some(false));
        assert!(view.tree_page(0, 10_000).total < before);
        view.set_tree_order(TreeOrder::Wire);
        assert!(view.tree_page(0, 10_000).rows.iter().any(|r| r.id == parent && r.collapsed));
        view.tree_set_open(&parent, Some(true));
        assert_eq!(rows(&view), wire);
        view.set_tree_order(TreeOrder::SubtreeTokens);
        let mut next = view_of(report);
        next.keep_collapsed(&view);
        assert_eq!(next.tree_order(), TreeOrder::SubtreeTokens);
        assert_eq!(rows(&next), rows(&view));
    }

    /// The tree's rows say what the report says of each session: its runs, latest outcome,
    /// findings by severity, and the place choosing it shows.
    #[test]
    fn tree_rows_carry_each_sessions_facts() {
        let report = sample_report();
        let mut view = view_of(report.clone());
        let page = view.tree_page(0, 10_000);
        assert_eq!(page.total as usize, report.sessions.len());
        assert_eq!(page.rows.len(), report.sessions.len());
        for row in &page.rows {
            let s = report.sessions.iter().find(|s| s.id == row.id).unwrap();
            assert_eq!(row.runs, Some(s.runs.len() as u32), "{}", s.id);
            assert_eq!(row.turns, Some(report.turns.iter().filter(|t| t.session == s.id).count() as u32), "{}", s.id);
            assert_eq!(row.outcome, s.runs.last().map(|r| r.outcome));
            assert_eq!(row.any_error, s.runs.iter().any(|r| r.outcome == report::Outcome::Error));
            assert_eq!((row.label.as_deref(), row.parent.as_deref()), (s.label.as_deref(), s.parent.as_deref()));
            assert_eq!(row.reported_depth, s.depth);
            let mine = report.diagnostics.iter().filter(|d| d.session.as_deref() == Some(&s.id));
            let mut want = SeverityCounts::default();
            mine.for_each(|d| want.add(d.severity));
            assert_eq!(row.findings, want);
            let first_turn = report.turns.iter().find(|t| t.session == s.id).and_then(|t| t.start.clone());
            assert_eq!(row.place, s.runs.first().and_then(|r| r.start.clone()).or(first_turn), "{}", s.id);
        }
        // Collapsing a root hides its subtree; revealing a descendant opens it again.
        let root = page.rows.iter().find(|r| r.depth == 0 && r.has_children).unwrap().id.clone();
        let hidden = page.rows.iter().skip_while(|r| r.id != root).nth(1).unwrap().id.clone();
        let spot = view.tree_set_open(&root, Some(false));
        assert!(spot.total < page.total);
        assert!(view.tree_page(0, 10_000).rows.iter().all(|r| r.id != hidden));
        assert!(view.tree_page(0, 10_000).rows.iter().any(|r| r.id == root && r.collapsed));
        let spot = view.tree_reveal(&hidden);
        assert_eq!(spot.total, page.total);
        assert_eq!(view.tree_page(spot.index.unwrap(), 1).rows[0].id, hidden);
        assert_eq!(view.tree_reveal("no-such-session").index, None);
    }

    #[test]
    fn a_session_lists_its_runs_and_a_place_its_findings() {
        let report = sample_report();
        let view = view_of(report.clone());
        let worker = view.session("worker-7").expect("the sample's reused child id");
        let s = report.sessions.iter().find(|s| s.id == "worker-7").unwrap();
        assert_eq!(worker.runs, s.runs);
        assert_eq!(worker.runs.len(), 2);
        assert!(view.session("nobody").is_none());
        for d in &report.diagnostics {
            let here: Vec<Diagnostic> = report.diagnostics.iter().filter(|x| x.at == d.at).cloned().collect();
            assert_eq!(view.findings_at(&d.at), here);
        }
        assert!(view.findings_at(&Place { file: "nowhere".into(), line: 1 }).is_empty());
        let summary = view.summary();
        assert_eq!(summary.sessions as usize, report.sessions.len());
        assert_eq!(summary.findings.total() as usize, report.diagnostics.len());
        assert_eq!((summary.waits as usize, summary.replies as usize), (report.waits.len(), report.replies.len()));
        assert_eq!(summary.inputs, report.inputs);
    }

    /// A view made from an analysis's report parts (their sessions and turns lent to the store)
    /// keeps the same sessions, runs, turns and steps as one made from the owned report.
    #[test]
    fn a_view_keeps_the_same_tables_from_lent_parts_as_from_the_owned_report() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases");
        let inputs = [
            crate::sample::write_to(dir.path()).unwrap(),
            corpus.join("claude-code"),
            cases.join("copilot-events-saved/input"),
            cases.join("dsh-rpc-two-level/input"),
        ];
        for input in inputs {
            let analysis = crate::analyze(std::slice::from_ref(&input), &mut ());
            let lent = View::of_analysis(&analysis, 1, &|| true).unwrap();
            let owned = View::from_report(analysis.report(), 1);
            let tables = |v: &View| {
                let s = &v.store;
                format!("{:?}", (&s.sessions, &s.runs, &s.turns, &s.steps, &s.files))
            };
            assert!(!lent.store.turns.is_empty(), "{input:?} has turns");
            assert_eq!(tables(&lent), tables(&owned), "{input:?}");
        }
    }

    /// A view stops being made as soon as it is told to, at any stage, and is made whole when it
    /// is not.
    #[test]
    fn making_a_view_stops_when_told_to_at_every_stage() {
        let dir = tempfile::tempdir().unwrap();
        let folder = crate::sample::write_to(dir.path()).unwrap();
        let analysis = crate::analyze(&[folder], &mut ());
        let asked = std::cell::Cell::new(0u32);
        let whole = View::of_analysis(&analysis, 7, &|| {
            asked.set(asked.get() + 1);
            true
        })
        .expect("made when never stopped");
        assert_eq!(whole.summary(), View::from_report(analysis.report(), 7).summary());
        // Told to stop at the n-th time it asks, for every n up to the number of times it asks.
        let n = asked.get();
        assert!(n >= 7, "it asks between the stages and items: {n}");
        for stop_at in 1..=n {
            let k = std::cell::Cell::new(0u32);
            let view = View::of_analysis(&analysis, 7, &|| {
                k.set(k.get() + 1);
                k.get() < stop_at
            });
            assert!(view.is_none(), "stopped at ask {stop_at} of {n}");
            assert_eq!(k.get(), stop_at, "and asks no more after it was told to stop");
        }
    }

    /// A root alone in its file is named by what its file says it is about (a dsh title or first
    /// prompt, Claude Code's summary or slash command, Codex's first prompt); a sub-agent is
    /// named by its label alone.
    #[test]
    fn a_root_alone_in_its_file_is_named_by_its_file() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let title = |input: std::path::PathBuf| {
            let analysis = crate::analyze(std::slice::from_ref(&input), &mut ());
            let view = View::of_analysis(&analysis, 1, &|| true).unwrap();
            let rows = view.tree_page(0, 10_000).rows;
            assert!(rows.iter().filter(|r| r.parent.is_some()).all(|r| r.title.is_none()), "{input:?}");
            let roots: Vec<_> = rows.iter().filter(|r| r.parent.is_none()).collect();
            let detail = view.session(&roots[0].id).unwrap();
            assert_eq!(detail.title, roots[0].title, "{input:?}");
            (roots.len(), roots[0].title.clone())
        };
        let (n, t) = title(corpus.join("deepseek-harness/examples_acp-agent__subagent-multi"));
        assert_eq!(n, 1);
        assert!(t.unwrap().starts_with("Use the subagent tool TWICE"));
        // Claude Code: a slash command as typed; a session with a summary line is named by it.
        let (n, t) = title(corpus.join("claude-code/claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"));
        assert_eq!((n, t.as_deref()), (1, Some("/init")));
        let (_, t) = title(corpus.join("claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"));
        assert_eq!(t.as_deref(), Some("Empty Repo Setup: CLAUDE.md Foundation Created"));
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases");
        let (_, t) = title(cases.join("codex-review-window/input/parent.jsonl"));
        assert_eq!(t.as_deref(), Some("review my changes"));
    }

    /// A followed revision's view lays its timeline out when first asked, and answers as one
    /// that laid it out at once.
    #[test]
    fn a_timeline_laid_out_when_asked_answers_as_one_laid_out_at_once() {
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases");
        for case in ["copilot-events-saved", "dsh-rpc-two-level"] {
            let analysis = crate::analyze(&[cases.join(case).join("input")], &mut ());
            let mut now = View::of_analysis_with(&analysis, 1, &|| true, Timeline::Now).unwrap();
            let mut asked = View::of_analysis_with(&analysis, 1, &|| true, Timeline::WhenAsked).unwrap();
            assert!(now.timeline.iter().any(Option::is_some), "{case}");
            assert!(asked.timeline.iter().all(Option::is_none), "{case}: nothing laid out before it is asked");
            assert_eq!(now.summary(), asked.summary(), "{case}");
            for axis in [Axis::Time, Axis::Wire] {
                let a = serde_json::to_value(now.timeline_open(axis, 0, 100, 800.0)).unwrap();
                let b = serde_json::to_value(asked.timeline_open(axis, 0, 100, 800.0)).unwrap();
                assert_eq!(a, b, "{case} {axis:?}");
            }
        }
    }

    /// A view of an analysis keeps no reply texts: it reads a page's back from the files, and
    /// they are the report's, for every format and for a compressed file.
    #[test]
    fn the_replies_read_back_are_the_reports() {
        let dir = tempfile::tempdir().unwrap();
        let two = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/conformance/cases/dsh-rpc-two-level/input/run.jsonl");
        let zst = dir.path().join("run.jsonl.zst");
        std::fs::write(&zst, zstd::encode_all(&std::fs::read(&two).unwrap()[..], 3).unwrap()).unwrap();
        let sample = crate::sample::write_to(dir.path()).unwrap();
        let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases");
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        for input in [
            sample,
            zst,
            cases.join("copilot-events-saved/input"),
            cases.join("dsh-session-folder/input"),
            corpus.join("claude-code"),
            corpus.join("codex-cli"),
        ] {
            let analysis = crate::analyze(std::slice::from_ref(&input), &mut ());
            let report = analysis.report();
            let view = View::of_analysis(&analysis, 1, &|| true).unwrap();
            assert!(view.store.replies.iter().all(|r| r.text == NONE), "{input:?}: no reply's text is kept");
            let read: Vec<report::Reply> = view.replies(0, 10_000).groups.into_iter().flat_map(|g| g.replies).collect();
            let kept: Vec<report::Reply> = View::from_report(report.clone(), 1)
                .replies(0, 10_000)
                .groups
                .into_iter()
                .flat_map(|g| g.replies)
                .collect();
            assert!(!read.is_empty(), "{input:?}");
            assert_eq!(read, kept, "{input:?}");
            // A page in the middle reads only its own.
            let page: Vec<report::Reply> = view.replies(1, 2).groups.into_iter().flat_map(|g| g.replies).collect();
            assert_eq!(page[..], kept[1..3.min(kept.len())], "{input:?}");
        }
    }
}
