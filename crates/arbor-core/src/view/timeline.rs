//! The boundary timeline's model, kept where it was computed: one lane per session (in the
//! report's session order, the findings that name no session on a lane of their own first), turn
//! and step spans on the session's lane, each sub-agent run on its parent's lane, findings marked
//! where they occur. A viewer asks for the lanes it shows and the window of the axis it shows at
//! its current resolution (pixels), and gets rectangles already merged to that resolution: a lane
//! of a million spans answers with about one rectangle a pixel, however far it is zoomed out.
//!
//! Per lane, spans are sorted by start in one table of all lanes (CSR), with the running maximum
//! of ends, so the visible part of a lane is two binary searches even where spans overlap, and a
//! chain of touching spans is covered in a few more. The axis is time when every span drawn has
//! a clock, else wire order (the place's position in the inputs), or wire order on request. The
//! scale, ticks, zoom and pan are the viewer's (ui/src/lib/timeline.ts); it draws what this
//! hands it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::store::{At, Store, TurnKey, NONE};
use crate::intern::Sym;
use crate::report::{Outcome, Place, Severity};

/// Time (epoch ms) or wire order (a record's position in the inputs, counted from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    Time,
    Wire,
}

/// An input's first position on the wire axis (the records and bad lines of the inputs before it).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct AxisInput {
    pub file: String,
    pub offset: f64,
}

/// What a viewer needs before it asks for a window: the axis, the domain, how many lanes.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TimelineInfo {
    #[ts(type = "number")]
    pub revision: u64,
    pub axis: Axis,
    /// Whether the log has a clock on every span (so that `time` may be asked for).
    pub clocked: bool,
    pub min: f64,
    pub max: f64,
    pub lanes: u32,
    /// Wire order: where each input starts, in order, for the axis labels.
    pub inputs: Vec<AxisInput>,
}

/// The timeline as it opens: its axis and domain, and the window of lanes `first..last` over
/// the whole domain at `width` pixels (what a viewer that fits the domain draws first), in one
/// answer.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TimelineOpen {
    pub info: TimelineInfo,
    pub window: TimelineWindow,
}

/// Lanes `first..last` of the domain window `start..end` drawn `width` pixels wide.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
pub struct WindowQuery {
    pub axis: Axis,
    pub first: u32,
    pub last: u32,
    pub start: f64,
    pub end: f64,
    pub width: f64,
}

/// A run's rectangle on its parent's lane, coloured by the outcome of the first run it holds.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RunRect {
    pub x0: f64,
    pub x1: f64,
    pub outcome: Outcome,
}

/// A marker: the findings of one pixel column, with their highest severity.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct MarkPoint {
    pub x: f64,
    pub severity: Severity,
}

/// One lane of a window. Positions are pixels from the window's start (`x = (domain - start) *
/// width / (end - start)`), clipped to two pixels beyond either edge; `turns` and `steps` are
/// `[x0, x1]` pairs, flattened.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LaneWindow {
    pub lane: u32,
    /// The session; `None` for the lane of findings without a session.
    pub id: Option<String>,
    pub label: Option<String>,
    /// What a root is about (its title or first prompt), as the tree names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    pub depth: u32,
    pub turns: Vec<f64>,
    pub steps: Vec<f64>,
    pub runs: Vec<RunRect>,
    pub marks: Vec<MarkPoint>,
}

/// A line from a run's start on its parent's lane to the lane of the session that ran (`lane` may
/// be above the window: the line then starts at its top edge).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Connector {
    pub x: f64,
    pub lane: u32,
    pub child: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TimelineWindow {
    #[ts(type = "number")]
    pub revision: u64,
    pub query: WindowQuery,
    pub lanes: Vec<LaneWindow>,
    pub connectors: Vec<Connector>,
}

/// Which band of a lane a point is in: the runs' band at the top, the steps' in the middle, the
/// rest of the lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    Runs,
    Steps,
    Lane,
}

/// What is under a point of lane `lane`: domain position `x`, within `slop` domain units.
/// `x: None` is the lane's label.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
pub struct HitQuery {
    pub axis: Axis,
    pub lane: u32,
    pub x: Option<f64>,
    pub slop: f64,
    pub band: Band,
}

/// A finding, a run, a step, a turn, or else the lane: the session and place it selects, and
/// what it is, in words.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TimelineHit {
    pub session: Option<String>,
    pub place: Option<Place>,
    pub text: String,
}

/// Where a session's lane is and where a place is on the axis (`None` when there is none, or a
/// clocked axis cannot place it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct Located {
    pub lane: Option<u32>,
    pub at: Option<f64>,
    /// Where the session's lane has anything on the axis, first start to last end: its runs,
    /// turns and steps (`None` without a session, or when its lane is empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub extent: Option<[f64; 2]>,
}

/// Spans of one kind for every lane, sorted by lane then start: lane `l` owns
/// `lane_start[l]..lane_start[l + 1]`. `max_end` is the running maximum of `end` within a lane.
#[derive(Debug, Default)]
pub(crate) struct SpanTable {
    pub lane_start: Vec<u32>,
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    pub max_end: Vec<f64>,
    /// Which source item each span came from.
    pub item: Vec<u32>,
}

impl SpanTable {
    /// From flat lane/start/end lists, in any order.
    pub fn build(lanes: usize, lane: &[u32], start: &[f64], end: &[f64]) -> SpanTable {
        let n = lane.len();
        let mut lane_start = vec![0u32; lanes + 1];
        for &l in lane {
            lane_start[l as usize + 1] += 1;
        }
        for l in 0..lanes {
            lane_start[l + 1] += lane_start[l];
        }
        let mut fill = lane_start.clone();
        let mut order = vec![0u32; n];
        for (i, &l) in lane.iter().enumerate() {
            order[fill[l as usize] as usize] = i as u32;
            fill[l as usize] += 1;
        }
        let key = |i: &u32| (start[*i as usize], end[*i as usize]);
        for l in 0..lanes {
            let seg = &mut order[lane_start[l] as usize..lane_start[l + 1] as usize];
            // Spans of one lane usually come in order already.
            if !seg.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
                seg.sort_by(|a, b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal));
            }
        }
        let mut t = SpanTable {
            start: order.iter().map(|&i| start[i as usize]).collect(),
            end: order.iter().map(|&i| end[i as usize]).collect(),
            max_end: vec![0.0; n],
            lane_start,
            item: order,
        };
        for l in 0..lanes {
            let mut running = f64::NEG_INFINITY;
            for i in t.lane_start[l] as usize..t.lane_start[l + 1] as usize {
                running = running.max(t.end[i]);
                t.max_end[i] = running;
            }
        }
        t
    }

    fn lane(&self, lane: u32) -> (usize, usize) {
        match (self.lane_start.get(lane as usize), self.lane_start.get(lane as usize + 1)) {
            (Some(&a), Some(&b)) => (a as usize, b as usize),
            _ => (0, 0),
        }
    }

    /// The spans of `lane` that may touch `from..=to`: everything before the range ends before
    /// `from`; everything after starts after `to`. Short spans inside it that end before `from`
    /// are the caller's to skip.
    pub fn visible(&self, lane: u32, from: f64, to: f64) -> (usize, usize) {
        let (a, b) = self.lane(lane);
        let first = a + self.max_end[a..b].partition_point(|&e| e < from);
        let last = first + self.start[first..b].partition_point(|&s| s <= to);
        (first, last)
    }

    /// The points of `lane` in `from..=to` (a table of points: start = end).
    pub fn visible_points(&self, lane: u32, from: f64, to: f64) -> (usize, usize) {
        let (a, b) = self.lane(lane);
        let first = a + self.start[a..b].partition_point(|&s| s < from);
        let last = first + self.start[first..b].partition_point(|&s| s <= to);
        (first, last)
    }

    /// The span of `lane` under `x` (within `slop`), the narrowest that contains it first.
    pub fn hit(&self, lane: u32, x: f64, slop: f64) -> Option<usize> {
        let (first, last) = self.visible(lane, x - slop, x + slop);
        let mut best = None;
        let mut best_score = f64::INFINITY;
        for i in first..last {
            if self.end[i] < x - slop || self.start[i] > x + slop {
                continue;
            }
            let inside = self.start[i] <= x && x <= self.end[i];
            let score = if inside { 0.0 } else { 1e300 } + (self.end[i] - self.start[i]);
            if score < best_score {
                best_score = score;
                best = Some(i);
            }
        }
        best
    }

    /// The point of `lane` nearest to `x` within `slop`.
    pub fn hit_point(&self, lane: u32, x: f64, slop: f64) -> Option<usize> {
        let (first, last) = self.visible_points(lane, x - slop, x + slop);
        (first..last).min_by(|&a, &b| (self.start[a] - x).abs().total_cmp(&(self.start[b] - x).abs()))
    }
}

/// The scale of a window: domain `start` at pixel 0, `k` pixels a domain unit, `width` pixels.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scale {
    pub start: f64,
    pub end: f64,
    pub width: f64,
    pub k: f64,
}

impl Scale {
    pub fn new(start: f64, end: f64, width: f64) -> Scale {
        let width = width.max(1.0);
        let span = if end > start { end - start } else { 1.0 };
        Scale { start, end: start + span, width, k: width / span }
    }

    fn px(&self, x: f64) -> f64 {
        (x - self.start) * self.k
    }

    fn clip(&self, px: f64) -> f64 {
        px.clamp(-2.0, self.width + 2.0)
    }
}

/// A rectangle in pixels, the first span (table index) it holds, and how many (or, for markers,
/// the highest severity rank).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub x0: f64,
    pub x1: f64,
    pub first: usize,
    pub count: usize,
}

/// The filled pixels of spans `from..to` as few rectangles as it takes: a rectangle is the union
/// of spans that each start within a pixel of the union so far (a span narrower than a pixel
/// counts as one pixel wide). A rectangle costs a few binary searches (the running maximum of
/// ends gives a chain's end), so a lane of a million spans costs its rectangles, not its spans.
pub(crate) fn cover(t: &SpanTable, from: usize, to: usize, s: &Scale, out: &mut Vec<Rect>) {
    out.clear();
    let px = 1.0 / s.k;
    let mut i = from;
    while i < to {
        let s0 = t.start[i];
        if s0 > s.end {
            break;
        }
        let mut reach = t.end[i].max(s0 + px);
        let mut j = i + 1;
        loop {
            let next = j + t.start[j..to].partition_point(|&x| x <= reach + px);
            if next == j {
                break;
            }
            reach = reach.max(t.max_end[next - 1]);
            j = next;
        }
        if reach >= s.start {
            out.push(Rect { x0: s.clip(s.px(s0)), x1: s.clip(s.px(reach)), first: i, count: j - i });
        }
        i = j;
    }
}

/// Spans `from..to` at the scale: a span at least a pixel wide is its own rectangle; narrower
/// ones merge (at least a pixel wide) while each starts within a pixel of the previous one's end.
/// Spans outside the window are skipped. For spans that each need their own colour.
pub(crate) fn merge(t: &SpanTable, from: usize, to: usize, s: &Scale, out: &mut Vec<Rect>) {
    out.clear();
    let mut open: Option<Rect> = None;
    for i in from..to {
        if t.end[i] < s.start || t.start[i] > s.end {
            continue;
        }
        let x0 = s.clip(s.px(t.start[i]));
        let x1 = s.clip(s.px(t.end[i]));
        if x1 - x0 >= 1.0 {
            out.extend(open.take());
            out.push(Rect { x0, x1, first: i, count: 1 });
        } else {
            match &mut open {
                Some(r) if x0 <= r.x1 + 1.0 => {
                    r.x1 = r.x1.max(x1).max(r.x0 + 1.0);
                    r.count += 1;
                }
                _ => {
                    out.extend(open.take());
                    open = Some(Rect { x0, x1: x1.max(x0 + 1.0), first: i, count: 1 });
                }
            }
        }
    }
    out.extend(open);
}

/// Markers `from..to` one per pixel column: a column's markers merge into one with their
/// highest severity rank (in `count`) and the first marker of that rank (in `first`). `counts[r]`
/// counts the markers of rank `r` before each index, so a column costs a binary search.
pub(crate) fn merge_marks(
    t: &SpanTable,
    counts: &[Vec<u32>; 4],
    from: usize,
    to: usize,
    s: &Scale,
    out: &mut Vec<Rect>,
) {
    out.clear();
    let mut i = from;
    while i < to {
        let x = s.px(t.start[i]);
        let col = x.floor();
        let edge = s.start + (col + 1.0) / s.k;
        let j = (i + 1 + t.start[i + 1..to].partition_point(|&a| a < edge)).max(i + 1);
        let mut best = 1;
        let mut first = i;
        for r in (1..=3).rev() {
            let c = &counts[r];
            if c[j] > c[i] {
                best = r;
                // The first marker of this rank in i..j: where the running count first passes c[i].
                first = i + c[i + 1..=j].partition_point(|&n| n < c[i] + 1);
                break;
            }
        }
        out.push(Rect { x0: x, x1: s.px(t.start[j - 1]), first, count: best });
        i = j;
    }
}

fn rank(s: Severity) -> usize {
    match s {
        Severity::Info => 1,
        Severity::Warning => 2,
        Severity::Error => 3,
    }
}

fn severity_of(rank: usize) -> Severity {
    match rank {
        3 => Severity::Error,
        2 => Severity::Warning,
        _ => Severity::Info,
    }
}

/// Times known at places, per file: a finding without its own time sits at the time of the latest
/// timed place at or before it in its file (the earliest one when there is none).
#[derive(Debug, Default)]
pub(crate) struct PlaceClock {
    /// Per file: lines and their times, sorted by line, the earliest time of a line kept.
    files: Vec<(Vec<u32>, Vec<f64>)>,
}

impl PlaceClock {
    fn set(&mut self, at: At, time: f64) {
        if !at.is_some() || time.is_nan() {
            return;
        }
        let f = at.file as usize;
        if self.files.len() <= f {
            self.files.resize_with(f + 1, Default::default);
        }
        self.files[f].0.push(at.line);
        self.files[f].1.push(time);
    }

    fn finish(&mut self) {
        for (lines, times) in &mut self.files {
            let mut order: Vec<u32> = (0..lines.len() as u32).collect();
            order.sort_unstable_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                lines[a].cmp(&lines[b]).then(times[a].total_cmp(&times[b]))
            });
            order.dedup_by_key(|&mut i| lines[i as usize]);
            *times = order.iter().map(|&i| times[i as usize]).collect();
            *lines = order.iter().map(|&i| lines[i as usize]).collect();
        }
    }

    pub fn time_of(&self, at: At) -> Option<f64> {
        let (lines, times) = self.files.get(at.get()?.file as usize)?;
        let i = lines.partition_point(|&l| l <= at.line);
        Some(if i == 0 { *times.first()? } else { times[i - 1] })
    }
}

/// One lane: a session (its index in the store) or the findings without one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lane {
    pub session: u32,
    pub depth: u32,
}

/// A run drawn on its parent's lane.
#[derive(Debug, Clone, Copy)]
struct RunItem {
    session: u32,
    child: u32,
    index: u32,
    outcome: Outcome,
    start: At,
}

/// Everything the timeline draws, for one axis.
pub(crate) struct Model {
    pub axis: Axis,
    pub min: f64,
    pub max: f64,
    pub lanes: Vec<Lane>,
    /// The first session's lane (1 when the findings without a session have a lane of their
    /// own): lanes are the sessions in report order after it.
    first: u32,
    turns: SpanTable,
    steps: SpanTable,
    /// Per step (store index): its turn.
    step_turn: Vec<u32>,
    runs: SpanTable,
    run_items: Vec<RunItem>,
    /// Per run (table index): the lane it is drawn on.
    run_lane: Vec<u32>,
    /// Per child lane: its runs (table indices), in start order.
    child_runs: SpanTable,
    marks: SpanTable,
    mark_counts: [Vec<u32>; 4],
    offsets: Vec<f64>,
    clock: Option<PlaceClock>,
}

/// The inputs in the order wire order joins them: a folder's files stay together where the folder
/// first comes, and within one folder a parent's file comes before its sub-agents' (by the depth
/// in the tree of the shallowest session with a turn in the file), then in name order. A
/// dsh-session folder holds `session.jsonl` and its sub-agents' `session.1.jsonl`, … which sort
/// before it by name: joined by name, the children's turns would come before the parent's.
fn wire_order(store: &Store) -> Vec<&crate::report::Input> {
    let depth_of = |mut i: u32| {
        let mut d = 0u32;
        while let Some(p) = store.session_of_sym(Sym(store.sessions[i as usize].parent)) {
            d += 1;
            // A cycle (reported as a finding) ends somewhere: no deeper than there are sessions.
            if p == i || d as usize > store.sessions.len() {
                break;
            }
            i = p;
        }
        d
    };
    let mut shallowest = vec![u32::MAX; store.files.len()];
    for t in &store.turns {
        let at = if t.start.is_some() { t.start } else { t.end };
        if let (Some(f), Some(i)) = (shallowest.get_mut(at.file as usize), store.session_of_sym(t.session)) {
            *f = (*f).min(depth_of(i));
        }
    }
    let folder = |name: &str| name.rfind(['/', '\\']).map_or("", |k| &name[..k]).to_owned();
    let mut first_of: crate::intern::HashMap<String, usize> = Default::default();
    let mut keyed: Vec<(usize, u32, usize, &crate::report::Input)> = store
        .inputs
        .iter()
        .enumerate()
        .map(|(k, input)| {
            let dir = *first_of.entry(folder(&input.file)).or_insert(k);
            let depth = store.files.iter().position(|f| *f == input.file).map_or(u32::MAX, |f| shallowest[f]);
            (dir, depth, k, input)
        })
        .collect();
    keyed.sort_by_key(|&(dir, depth, k, _)| (dir, depth, k));
    keyed.into_iter().map(|k| k.3).collect()
}

/// Ordinal offset of each file: the records and bad lines of the inputs before it, in wire
/// order (`wire_order`).
fn file_offsets(store: &Store) -> Vec<f64> {
    let mut out = vec![f64::NAN; store.files.len()];
    let mut sum = 0.0;
    for input in wire_order(store) {
        if let Some(i) = store.files.iter().position(|f| *f == input.file) {
            if out[i].is_nan() {
                out[i] = sum;
            }
        }
        sum += (input.records + input.bad_lines) as f64;
    }
    for o in &mut out {
        if o.is_nan() {
            *o = 0.0;
        }
    }
    out
}

/// Whether every span the timeline draws has a clock: each turn, step and run with a place at its
/// start (and its end, when it has ended) carries that place's time. A place without a time of
/// its own borrows one in its file (`Borrowed`), so this is: some span has a place, and every
/// file with a span's place has a timed one among them. Two passes over the places, nothing
/// sorted (every followed revision asks).
pub(crate) fn has_clock(store: &Store) -> bool {
    let files = store.files.len();
    let (mut placed, mut timed) = (vec![false; files], vec![false; files]);
    let mut outside = false;
    let mut note = |a: At, t: f64| {
        if a.is_some() {
            match placed.get_mut(a.file as usize) {
                Some(p) => *p = true,
                None => outside = true,
            }
            if t.is_finite() {
                if let Some(f) = timed.get_mut(a.file as usize) {
                    *f = true;
                }
            }
        }
    };
    let mut any = false;
    for t in &store.turns {
        any |= t.start.is_some() || t.end.is_some();
        note(t.start, t.start_time);
        note(t.end, t.end_time);
        for st in &store.steps[t.step_at as usize..(t.step_at + t.step_len) as usize] {
            note(st.start, st.start_time);
            note(st.end, st.end_time);
        }
    }
    for s in &store.sessions {
        for r in store.runs_of_row(s) {
            any |= r.start.is_some() || r.end.is_some();
            note(r.start, r.start_time);
            note(r.end, r.end_time);
        }
    }
    any && !outside && placed.iter().zip(&timed).all(|(&p, &t)| !p || t)
}

/// The times of a log's places, by file: a place without a time of its own (a clockless line in a
/// log that has a clock: every dsh-rpc `session.event` carries `time`, a response may not) borrows
/// a time from the timed places around it in its file (in proportion to the lines between them;
/// the nearest one's past either end), so that one such line does not make the whole log
/// wire-ordered.
#[derive(Default)]
struct Borrowed {
    /// Per file: (line, time) of its timed places, sorted by line.
    timed: Vec<Vec<(u32, f64)>>,
}

impl Borrowed {
    fn of(store: &Store) -> Borrowed {
        let mut timed: Vec<Vec<(u32, f64)>> = vec![Vec::new(); store.files.len()];
        let mut note = |a: At, t: f64| {
            if a.is_some() && t.is_finite() {
                if let Some(f) = timed.get_mut(a.file as usize) {
                    f.push((a.line, t));
                }
            }
        };
        for (i, t) in store.turns.iter().enumerate() {
            note(t.start, t.start_time);
            note(t.end, t.end_time);
            for st in store.steps_of(i as u32) {
                note(st.start, st.start_time);
                note(st.end, st.end_time);
            }
        }
        for r in store.sessions.iter().flat_map(|s| store.runs_of_row(s)) {
            note(r.start, r.start_time);
            note(r.end, r.end_time);
        }
        for f in &mut timed {
            f.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        }
        Borrowed { timed }
    }

    /// `time` when it is one, else the borrowed time of `a` (NaN when its file has no clock).
    fn time(&self, a: At, time: f64) -> f64 {
        if time.is_finite() || !a.is_some() {
            return time;
        }
        let Some(f) = self.timed.get(a.file as usize).filter(|f| !f.is_empty()) else { return f64::NAN };
        // Between two timed places, in proportion to the lines; past the first or last, theirs.
        let k = f.partition_point(|&(line, _)| line <= a.line);
        match (k.checked_sub(1).map(|i| f[i]), f.get(k)) {
            (Some((l0, t0)), Some(&(l1, t1))) if l1 > l0 => {
                t0 + (t1 - t0) * f64::from(a.line - l0) / f64::from(l1 - l0)
            }
            (Some((_, t0)), _) => t0,
            (None, Some(&(_, t1))) => t1,
            (None, None) => f64::NAN,
        }
    }
}

/// Where places go on the axis: their time (noted in the clock, for the places without one), or
/// their ordinal. In wire order a record occupies `[ordinal, ordinal + 1)`, so a span ends after
/// its end line and a one-line span has a width.
struct Placer<'a> {
    wire: bool,
    offsets: &'a [f64],
    clock: PlaceClock,
    borrowed: Borrowed,
}

impl Placer<'_> {
    fn ordinal(&self, a: At) -> f64 {
        self.offsets.get(a.file as usize).copied().unwrap_or(0.0) + f64::from(a.line)
    }

    fn pos(&mut self, a: At, time: f64) -> f64 {
        if self.wire {
            self.ordinal(a)
        } else {
            let time = self.borrowed.time(a, time);
            self.clock.set(a, time);
            time
        }
    }

    fn end(&mut self, a: At, time: f64) -> f64 {
        if self.wire {
            self.ordinal(a) + 1.0
        } else {
            self.pos(a, time)
        }
    }

    /// A span's start: its start place's, or (with none) where its end record begins.
    fn start_of(&mut self, start: At, start_time: f64, end: At, end_time: f64) -> f64 {
        if start.is_some() {
            self.pos(start, start_time)
        } else {
            self.end(end, end_time) - if self.wire { 1.0 } else { 0.0 }
        }
    }
}

impl Model {
    /// The model of `store` on `axis`: time only when `clocked` (`has_clock`, a walk of every
    /// span, which the view asks once), else wire order.
    pub(crate) fn build(store: &Store, axis: Axis, clocked: bool) -> Model {
        let offsets = file_offsets(store);
        let axis = if axis == Axis::Time && clocked { Axis::Time } else { Axis::Wire };
        let unowned =
            store.diagnostics.iter().any(|d| d.session == NONE || store.session_of_sym(Sym(d.session)).is_none());
        let mut lanes = Vec::with_capacity(store.sessions.len() + 1);
        if unowned {
            lanes.push(Lane { session: NONE, depth: 0 });
        }
        let first = lanes.len() as u32;
        // A session's lane: the lane of the first session with its id.
        let lane_of = |s: Sym| store.session_of_sym(s).map(|i| first + i);
        let parent_lane = |i: usize| {
            let s = &store.sessions[i];
            (s.parent != NONE && s.parent != s.id.0).then(|| lane_of(Sym(s.parent))).flatten().unwrap_or(NONE)
        };
        for (i, s) in store.sessions.iter().enumerate() {
            // A session with no reported depth sits one level under its parent's lane (a lane
            // earlier in the list, so this settles in one pass).
            let depth = if s.depth != NONE {
                s.depth
            } else {
                match parent_lane(i) {
                    p if p != NONE && p < first + i as u32 => lanes[p as usize].depth + 1,
                    _ => 0,
                }
            };
            lanes.push(Lane { session: i as u32, depth });
        }
        let wire = axis == Axis::Wire;
        let borrowed = if wire { Borrowed::default() } else { Borrowed::of(store) };
        let mut at = Placer { wire, offsets: &offsets, clock: PlaceClock::default(), borrowed };
        const OPEN: f64 = f64::INFINITY;
        let (mut tl, mut ts, mut te, mut titem) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut sl, mut ss, mut se, mut sitem) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut step_turn = vec![NONE; store.steps.len()];
        for (i, t) in store.turns.iter().enumerate() {
            let Some(lane) = lane_of(t.session) else { continue };
            if !t.start.is_some() && !t.end.is_some() {
                continue;
            }
            tl.push(lane);
            ts.push(at.start_of(t.start, t.start_time, t.end, t.end_time));
            te.push(if t.end.is_some() { at.end(t.end, t.end_time) } else { OPEN });
            titem.push(i as u32);
            let first_step = t.step_at as usize;
            for (k, st) in store.steps_of(i as u32).iter().enumerate().map(|(j, st)| (first_step + j, st)) {
                sl.push(lane);
                ss.push(at.pos(st.start, st.start_time));
                se.push(if st.end.is_some() { at.end(st.end, st.end_time) } else { OPEN });
                sitem.push(k as u32);
                step_turn[k] = i as u32;
            }
        }
        let (mut rl, mut rs, mut re, mut run_items) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, s) in store.sessions.iter().enumerate() {
            let Some(child) = lane_of(s.id) else { continue };
            for (index, r) in store.runs_of(i as u32).iter().enumerate() {
                if !r.start.is_some() && !r.end.is_some() {
                    continue;
                }
                // On the parent's lane; a run whose parent has no lane stays on the child's own.
                let lane = (r.parent != NONE).then(|| lane_of(Sym(r.parent))).flatten().unwrap_or(child);
                rl.push(lane);
                rs.push(at.start_of(r.start, r.start_time, r.end, r.end_time));
                re.push(if r.end.is_some() { at.end(r.end, r.end_time) } else { OPEN });
                run_items.push(RunItem {
                    session: i as u32,
                    child,
                    index: index as u32,
                    outcome: r.outcome,
                    start: if r.start.is_some() { r.start } else { r.end },
                });
            }
        }
        let Placer { mut clock, .. } = at;
        let ordinal = |a: At| offsets.get(a.file as usize).copied().unwrap_or(0.0) + f64::from(a.line);
        clock.finish();
        let (mut ml, mut ma, mut mitem, mut sev) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, d) in store.diagnostics.iter().enumerate() {
            let lane = (d.session != NONE).then(|| lane_of(Sym(d.session))).flatten().unwrap_or(0);
            let at = if wire {
                ordinal(d.at) + 0.5
            } else if d.time.is_finite() {
                d.time
            } else {
                match clock.time_of(d.at) {
                    Some(t) => t,
                    None => continue,
                }
            };
            ml.push(lane);
            ma.push(at);
            mitem.push(i as u32);
            sev.push(rank(d.severity) as u8);
        }
        // The domain: everything placed, or the whole wire when the log has no clock.
        let mut min = f64::INFINITY;
        let mut max = f64::NEG_INFINITY;
        for v in ts.iter().chain(&ss).chain(&rs).chain(&ma) {
            min = min.min(*v);
        }
        for v in te.iter().chain(&se).chain(&re).chain(&ma).chain(&ts).chain(&rs) {
            if *v != OPEN {
                max = max.max(*v);
            }
        }
        if wire && !store.inputs.is_empty() {
            let last: u64 = store.inputs.iter().map(|i| i.records + i.bad_lines).sum();
            let first_offset = store.inputs.first().and_then(|i| store.files.iter().position(|f| *f == i.file));
            min = min.min(first_offset.map_or(0.0, |f| offsets[f]) + 1.0);
            max = max.max(last as f64 + 1.0);
        }
        if !min.is_finite() || !max.is_finite() {
            (min, max) = (0.0, 1.0);
        }
        if max <= min {
            max = min + 1.0;
        }
        for list in [&mut te, &mut se, &mut re] {
            for v in list.iter_mut() {
                if *v == OPEN {
                    *v = max;
                }
            }
        }
        let n = lanes.len();
        let turns = SpanTable::build(n, &tl, &ts, &te);
        let steps = SpanTable::build(n, &sl, &ss, &se);
        let mut turns = turns;
        turns.item = turns.item.iter().map(|&k| titem[k as usize]).collect();
        let mut steps = steps;
        steps.item = steps.item.iter().map(|&k| sitem[k as usize]).collect();
        let runs = SpanTable::build(n, &rl, &rs, &re);
        let mut run_lane = vec![0u32; runs.item.len()];
        let mut child_lane = vec![0u32; runs.item.len()];
        for l in 0..n {
            for i in runs.lane_start[l] as usize..runs.lane_start[l + 1] as usize {
                run_lane[i] = l as u32;
                child_lane[i] = run_items[runs.item[i] as usize].child;
            }
        }
        let mut child_runs = SpanTable::build(n, &child_lane, &runs.start, &runs.end);
        // Only which runs each child lane has is read (their places are the runs table's).
        (child_runs.start, child_runs.end, child_runs.max_end) = Default::default();
        let mut marks = SpanTable::build(n, &ml, &ma, &ma);
        let mark_sev: Vec<u8> = marks.item.iter().map(|&k| sev[k as usize]).collect();
        marks.item = marks.item.iter().map(|&k| mitem[k as usize]).collect();
        let mut mark_counts: [Vec<u32>; 4] = Default::default();
        for (r, c) in mark_counts.iter_mut().enumerate().skip(1) {
            c.reserve(mark_sev.len() + 1);
            c.push(0);
            let mut sum = 0;
            for &s in &mark_sev {
                sum += u32::from(usize::from(s) == r);
                c.push(sum);
            }
        }
        Model {
            axis,
            min,
            max,
            lanes,
            first,
            turns,
            steps,
            step_turn,
            runs,
            run_items,
            run_lane,
            child_runs,
            marks,
            mark_counts,
            offsets,
            clock: (axis == Axis::Time).then_some(clock),
        }
    }

    /// A session's lane (the lane of the first session with its id).
    fn lane_of(&self, store: &Store, s: Sym) -> Option<u32> {
        store.session_of_sym(s).map(|i| self.first + i)
    }

    pub fn info(&self, store: &Store, revision: u64, clocked: bool) -> TimelineInfo {
        let mut inputs: Vec<AxisInput> = store
            .inputs
            .iter()
            .filter_map(|i| {
                let f = store.files.iter().position(|f| *f == i.file)?;
                Some(AxisInput { file: i.file.clone(), offset: self.offsets[f] })
            })
            .collect();
        inputs.sort_by(|a, b| a.offset.total_cmp(&b.offset));
        TimelineInfo {
            revision,
            axis: self.axis,
            clocked,
            min: self.min,
            max: self.max,
            lanes: self.lanes.len() as u32,
            inputs,
        }
    }

    /// The lanes and rectangles of a window at its resolution.
    pub fn window(&self, store: &Store, revision: u64, q: &WindowQuery) -> TimelineWindow {
        let s = Scale::new(q.start, q.end, q.width);
        let last = q.last.min(self.lanes.len() as u32);
        let first = q.first.min(last);
        let from = q.start - 2.0 / s.k;
        let to = s.end + 2.0 / s.k;
        let mut rects = Vec::new();
        let round = |x: f64| (x * 16.0).round() / 16.0;
        let pairs = |rects: &[Rect]| rects.iter().flat_map(|r| [round(r.x0), round(r.x1)]).collect::<Vec<f64>>();
        let mut lanes = Vec::with_capacity((last - first) as usize);
        for l in first..last {
            let lane = self.lanes[l as usize];
            let (a, b) = self.turns.visible(l, from, to);
            cover(&self.turns, a, b, &s, &mut rects);
            let turns = pairs(&rects);
            let (a, b) = self.steps.visible(l, from, to);
            cover(&self.steps, a, b, &s, &mut rects);
            let steps = pairs(&rects);
            let (a, b) = self.runs.visible(l, from, to);
            merge(&self.runs, a, b, &s, &mut rects);
            let runs = rects
                .iter()
                .map(|r| RunRect {
                    x0: round(r.x0),
                    x1: round(r.x1),
                    outcome: self.run_items[self.runs.item[r.first] as usize].outcome,
                })
                .collect();
            let (a, b) = self.marks.visible_points(l, q.start - 4.0 / s.k, s.end + 4.0 / s.k);
            merge_marks(&self.marks, &self.mark_counts, a, b, &s, &mut rects);
            let marks = rects.iter().map(|r| MarkPoint { x: round(r.x0), severity: severity_of(r.count) }).collect();
            let session = store.sessions.get(lane.session as usize);
            lanes.push(LaneWindow {
                lane: l,
                id: session.map(|s| store.ids.name(s.id).to_owned()),
                label: match session {
                    Some(s) => store.word_of(s.label).map(str::to_owned),
                    None => Some("findings without a session".to_owned()),
                },
                title: None,
                depth: lane.depth,
                turns,
                steps,
                runs,
                marks,
            });
        }
        TimelineWindow { revision, query: *q, lanes, connectors: self.connectors(first, last, &s) }
    }

    /// Lines from runs' starts on the lanes in view to their children's lanes, and from the runs
    /// of the children in view whose parents' lanes are above it; at most 5,000.
    fn connectors(&self, first: u32, last: u32, s: &Scale) -> Vec<Connector> {
        const MAX: usize = 5000;
        let mut out = Vec::new();
        let from = s.start - 2.0 / s.k;
        let to = s.end + 2.0 / s.k;
        for l in first..last {
            let (a, b) = self.runs.visible(l, from, to);
            let mut last_x = f64::NEG_INFINITY;
            for i in a..b {
                if out.len() >= MAX {
                    return out;
                }
                if self.runs.start[i] < s.start {
                    continue;
                }
                let x = s.px(self.runs.start[i]).round();
                if x - last_x < 2.0 {
                    continue;
                }
                last_x = x;
                let child = self.run_items[self.runs.item[i] as usize].child;
                if child != l {
                    out.push(Connector { x, lane: l, child });
                }
            }
        }
        for l in first..last {
            let (a, b) = self.child_runs.lane(l);
            for k in a..b {
                if out.len() >= MAX {
                    return out;
                }
                let i = self.child_runs.item[k] as usize;
                let start = self.runs.start[i];
                if self.run_lane[i] >= first || start < s.start || start > s.end {
                    continue;
                }
                out.push(Connector { x: s.px(start).round(), lane: self.run_lane[i], child: l });
            }
        }
        out
    }

    /// What is under a point (see `HitQuery`).
    pub fn hit(&self, store: &Store, q: &HitQuery) -> Option<TimelineHit> {
        let lane = *self.lanes.get(q.lane as usize)?;
        let id = store.sessions.get(lane.session as usize).map(|s| store.ids.name(s.id).to_owned());
        let lane_hit = || id.clone().map(|id| TimelineHit { session: Some(id.clone()), place: None, text: id });
        let Some(x) = q.x else { return lane_hit() };
        let l = q.lane;
        let label = |a: At| store.place(a).map_or_else(|| "—".to_owned(), |p| format!("{}:{}", p.file, p.line));
        let turn_label = |t: TurnKey| match store.turn_value(t) {
            serde_json::Value::Null => "?".to_owned(),
            serde_json::Value::String(s) => s,
            v => v.to_string(),
        };
        // On the time axis a span says how long it took (" · 1.2 s"); wire order has no duration.
        let took = |t: &SpanTable, k: usize| match self.axis {
            Axis::Time => format!(" · {}", duration(t.end[k] - t.start[k])),
            Axis::Wire => String::new(),
        };
        let run_hit = |i: usize| {
            let r = self.run_items[self.runs.item[i] as usize];
            let session = store.ids.name(store.sessions[r.session as usize].id).to_owned();
            let outcome =
                serde_json::to_value(r.outcome).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            TimelineHit {
                text: format!(
                    "run {} of {session} ({outcome}){} · {}",
                    r.index + 1,
                    took(&self.runs, i),
                    label(r.start)
                ),
                session: Some(session),
                place: store.place(r.start),
            }
        };
        if let Some(m) = self.marks.hit_point(l, x, q.slop) {
            let d = &store.diagnostics[self.marks.item[m] as usize];
            let severity =
                serde_json::to_value(d.severity).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            return Some(TimelineHit {
                session: store.name(d.session).map(str::to_owned).or(id),
                place: store.place(d.at),
                text: format!("{severity} {} · {}", store.words.name(d.code), label(d.at)),
            });
        }
        if q.band == Band::Runs {
            if let Some(r) = self.runs.hit(l, x, q.slop) {
                return Some(run_hit(r));
            }
        }
        if q.band == Band::Steps {
            if let Some(k) = self.steps.hit(l, x, q.slop) {
                let step = self.steps.item[k] as usize;
                let t = &store.turns[self.step_turn[step] as usize];
                let st = &store.steps[step];
                let session = store.ids.name(t.session).to_owned();
                return Some(TimelineHit {
                    text: format!(
                        "{session} · turn {} · step {}{} · {}",
                        turn_label(t.turn),
                        st.step,
                        took(&self.steps, k),
                        label(st.start)
                    ),
                    session: Some(session),
                    place: store.place(st.start),
                });
            }
        }
        if let Some(k) = self.turns.hit(l, x, q.slop) {
            let t = &store.turns[self.turns.item[k] as usize];
            let start = if t.start.is_some() { t.start } else { t.end };
            let session = store.ids.name(t.session).to_owned();
            return Some(TimelineHit {
                text: format!("{session} · turn {}{} · {}", turn_label(t.turn), took(&self.turns, k), label(start)),
                session: Some(session),
                place: store.place(start),
            });
        }
        if let Some(r) = self.runs.hit(l, x, q.slop) {
            return Some(run_hit(r));
        }
        lane_hit()
    }

    /// A session's lane and a place's position on the axis.
    pub fn locate(&self, store: &Store, session: Option<&str>, place: Option<&Place>) -> Located {
        let lane = session.and_then(|s| store.ids.get(s)).and_then(|s| self.lane_of(store, s));
        let at = place.and_then(|p| store.at_of(p)).and_then(|a| match self.axis {
            Axis::Wire => Some(self.offsets.get(a.file as usize).copied().unwrap_or(0.0) + f64::from(a.line) + 0.5),
            Axis::Time => self.clock.as_ref()?.time_of(a),
        });
        Located { lane, at, extent: lane.and_then(|l| self.extent(l)) }
    }

    /// Lane `l`'s turns, steps and own runs (drawn from its parent's lane), first start to last
    /// end.
    fn extent(&self, l: u32) -> Option<[f64; 2]> {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for t in [&self.turns, &self.steps] {
            let (a, b) = t.lane(l);
            if a < b {
                lo = lo.min(t.start[a]);
                hi = hi.max(t.max_end[b - 1]);
            }
        }
        let (a, b) = self.child_runs.lane(l);
        for &k in &self.child_runs.item[a..b] {
            lo = lo.min(self.runs.start[k as usize]);
            hi = hi.max(self.runs.end[k as usize]);
        }
        (lo <= hi).then_some([lo, hi])
    }
}

/// A span's length on the time axis (milliseconds) as people read it: "850 ms", "12.4 s",
/// "3 min 05 s", "2 h 07 min".
fn duration(ms: f64) -> String {
    let ms = ms.max(0.0);
    if ms < 1000.0 {
        format!("{} ms", ms.round())
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else if ms < 3_600_000.0 {
        let s = (ms / 1000.0).round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        let m = (ms / 60_000.0).round() as u64;
        format!("{} h {:02} min", m / 60, m % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(lanes: usize, lane: &[u32], start: &[f64], end: &[f64]) -> SpanTable {
        SpanTable::build(lanes, lane, start, end)
    }

    fn spans_of(t: &SpanTable, lane: usize) -> Vec<[f64; 2]> {
        (t.lane_start[lane] as usize..t.lane_start[lane + 1] as usize).map(|i| [t.start[i], t.end[i]]).collect()
    }

    fn rects(out: &[Rect]) -> Vec<[f64; 4]> {
        out.iter().map(|r| [r.x0, r.x1, r.first as f64, r.count as f64]).collect()
    }

    #[test]
    fn a_table_sorts_each_lane_by_start_and_keeps_the_source_index() {
        // Lane 0: out of order, overlapping (a long span first); lane 1 empty; lane 2 one span.
        let t = table(3, &[0, 0, 2, 0, 0], &[50.0, 0.0, 7.0, 10.0, 20.0], &[60.0, 100.0, 8.0, 15.0, 30.0]);
        assert_eq!(t.lane_start, [0, 4, 4, 5]);
        assert_eq!(spans_of(&t, 0), [[0.0, 100.0], [10.0, 15.0], [20.0, 30.0], [50.0, 60.0]]);
        assert_eq!(t.item, [1, 3, 4, 0, 2]);
        assert_eq!(t.max_end[..4], [100.0; 4]);
        // The visible range keeps a long span that started before it.
        assert_eq!(t.visible(0, 40.0, 45.0), (0, 3));
        assert_eq!(t.visible(0, 200.0, 300.0), (4, 4));
        assert_eq!(t.visible(1, 0.0, 1000.0), (4, 4));
        assert_eq!(t.visible(2, 0.0, 6.9), (4, 4));
        assert_eq!(t.visible(2, 8.0, 9.0), (4, 5));
        let u = table(1, &[0, 0, 0], &[0.0, 10.0, 20.0], &[5.0, 15.0, 25.0]);
        assert_eq!(u.visible(0, 6.0, 14.0), (1, 2));
        assert_eq!(u.visible(0, 15.0, 20.0), (1, 3));
        // The narrowest span under the point, or the nearest within the slop.
        assert_eq!(t.hit(0, 12.0, 0.0).map(|i| t.item[i]), Some(3));
        assert_eq!(t.hit(0, 40.0, 0.0).map(|i| t.item[i]), Some(1));
        assert_eq!(t.hit(0, 150.0, 1.0), None);
        assert_eq!(t.hit(2, 8.5, 1.0).map(|i| t.item[i]), Some(2));
        assert_eq!(t.hit(1, 5.0, 100.0), None);
    }

    #[test]
    fn wide_spans_stay_apart_and_narrow_neighbours_merge() {
        // 1000 domain units on 100 px: 10 units a pixel.
        let t =
            table(1, &[0; 6], &[0.0, 100.0, 103.0, 106.0, 112.0, 500.0], &[50.0, 102.0, 105.0, 111.0, 115.0, 503.0]);
        let mut out = Vec::new();
        merge(&t, 0, 6, &Scale::new(0.0, 1000.0, 100.0), &mut out);
        assert_eq!(rects(&out), [[0.0, 5.0, 0.0, 1.0], [10.0, 11.5, 1.0, 4.0], [50.0, 51.0, 5.0, 1.0]]);
    }

    #[test]
    fn a_million_sub_pixel_spans_merge_and_cover_as_one_rectangle() {
        let n = 1_000_000;
        let start: Vec<f64> = (0..n).map(f64::from).collect();
        let end: Vec<f64> = start.iter().map(|s| s + 0.5).collect();
        let t = table(1, &vec![0; n as usize], &start, &end);
        let mut out = Vec::new();
        merge(&t, 0, n as usize, &Scale::new(0.0, f64::from(n), 1000.0), &mut out);
        assert_eq!(out.len(), 1);
        let (first, last) = t.visible(0, 0.0, 2000.0);
        assert_eq!((first, last), (0, 2001));
        merge(&t, first, last, &Scale::new(0.0, 2000.0, 1000.0), &mut out);
        assert_eq!(rects(&out), [[0.0, 1000.25, 0.0, 2001.0]]);
        cover(&t, 0, n as usize, &Scale::new(0.0, f64::from(n), 1000.0), &mut out);
        assert_eq!((out.len(), out[0].count, out[0].x0), (1, n as usize, 0.0));
        assert!((out[0].x1 - 1000.0).abs() < 1e-3);
    }

    #[test]
    fn a_cover_takes_one_rectangle_a_chain_and_the_longest_end_it_jumps_over() {
        let t = table(
            1,
            &[0; 8],
            &[0.0, 100.0, 103.0, 106.0, 112.0, 500.0, 600.0, 650.0],
            &[50.0, 102.0, 105.0, 111.0, 115.0, 503.0, 700.0, 660.0],
        );
        let mut out = Vec::new();
        cover(&t, 0, 8, &Scale::new(0.0, 1000.0, 100.0), &mut out);
        assert_eq!(
            rects(&out),
            [[0.0, 5.0, 0.0, 1.0], [10.0, 11.5, 1.0, 4.0], [50.0, 51.0, 5.0, 1.0], [60.0, 70.0, 6.0, 2.0]]
        );
        // Zoomed in: clipped to the view with 2 px of slack, nothing left of it.
        cover(&t, 0, 8, &Scale::new(550.0, 750.0, 100.0), &mut out);
        assert_eq!((out.len(), out[0].x0, out[0].x1), (1, 25.0, 75.0));
        cover(&t, 0, 8, &Scale::new(640.0, 660.0, 100.0), &mut out);
        assert_eq!((out.len(), out[0].x0, out[0].x1, out[0].count), (1, -2.0, 102.0, 2));
        let t = table(1, &[0; 4], &[0.0, 5.0, 8.0, 150.0], &[10.0, 100.0, 9.0, 160.0]);
        cover(&t, 0, 4, &Scale::new(0.0, 1000.0, 100.0), &mut out);
        assert_eq!(rects(&out), [[0.0, 10.0, 0.0, 3.0], [15.0, 16.0, 3.0, 1.0]]);
    }

    fn counts(sev: &[u8]) -> [Vec<u32>; 4] {
        let mut c: [Vec<u32>; 4] = Default::default();
        for (r, list) in c.iter_mut().enumerate().skip(1) {
            list.push(0);
            let mut sum = 0;
            for &s in sev {
                sum += u32::from(usize::from(s) == r);
                list.push(sum);
            }
        }
        c
    }

    #[test]
    fn markers_merge_one_a_pixel_column_with_the_highest_severity() {
        let at = [10.0, 12.0, 14.0, 50.0];
        let t = table(1, &[0; 4], &at, &at);
        let c = counts(&[1, 3, 2, 1]);
        assert_eq!(c[3], [0, 0, 1, 1, 1]);
        let mut out = Vec::new();
        merge_marks(&t, &c, 0, 4, &Scale::new(0.0, 100.0, 10.0), &mut out);
        assert_eq!(out.iter().map(|r| (r.first, r.count)).collect::<Vec<_>>(), [(1, 3), (3, 1)]);
        merge_marks(&t, &c, 0, 4, &Scale::new(0.0, 100.0, 1000.0), &mut out);
        assert_eq!(out.iter().map(|r| r.count).collect::<Vec<_>>(), [1, 3, 2, 1]);
        // Of two warnings and an info in one column, the first warning is the one chosen.
        let w = table(1, &[0; 3], &[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]);
        merge_marks(&w, &counts(&[1, 2, 2]), 0, 3, &Scale::new(0.0, 100.0, 10.0), &mut out);
        assert_eq!(out.iter().map(|r| (r.first, r.count)).collect::<Vec<_>>(), [(1, 2)]);
        assert_eq!(t.hit_point(0, 13.0, 2.0), Some(1));
        assert_eq!(t.hit_point(0, 30.0, 2.0), None);
    }

    #[test]
    fn a_place_without_a_time_takes_the_latest_time_before_it() {
        let mut c = PlaceClock::default();
        let at = |line| At { file: 0, line };
        c.set(at(3), 1500.0);
        c.set(at(9), 4000.0);
        c.set(at(3), 1400.0);
        c.finish();
        assert_eq!(c.time_of(at(5)), Some(1400.0), "the earliest time at line 3");
        assert_eq!(c.time_of(at(1)), Some(1400.0), "before any: the first");
        assert_eq!(c.time_of(at(100)), Some(4000.0));
        assert_eq!(c.time_of(At { file: 1, line: 1 }), None);
    }

    // -----------------------------------------------------------------------------------------
    // The model of a report

    use crate::report::{Diagnostic, Input, Report, Run, Session, StepSpan, Turn};
    use crate::view::tests::{sample_report, view_of};

    fn place(line: u64) -> Place {
        Place { file: "a.jsonl".into(), line }
    }

    fn session(id: &str, parent: Option<&str>, depth: Option<u32>, runs: Vec<Run>) -> Session {
        Session {
            id: id.into(),
            parent: parent.map(Into::into),
            root: None,
            depth,
            label: None,
            runs,
            events: 0,
            inferred_parent: false,
            usage: None,
            subtree_usage: None,
        }
    }

    fn run(parent: &str, start: u64, end: Option<u64>, outcome: Outcome, times: Option<(f64, f64)>) -> Run {
        Run {
            parent: Some(parent.into()),
            start: Some(place(start)),
            end: end.map(place),
            outcome,
            link: crate::report::Link::StartEdge,
            start_time: times.map(|t| t.0),
            end_time: times.map(|t| t.1),
            received: None,
        }
    }

    fn turn(
        session: &str,
        start: u64,
        end: Option<u64>,
        times: (Option<f64>, Option<f64>),
        steps: Vec<StepSpan>,
    ) -> Turn {
        Turn {
            session: session.into(),
            turn: 1.into(),
            run: None,
            start: Some(place(start)),
            end: end.map(place),
            reason: None,
            steps: steps.len() as u32,
            start_time: times.0,
            end_time: times.1,
            step_spans: steps,
            usage: None,
        }
    }

    fn diagnostic(code: &str, severity: Severity, line: u64, session: Option<&str>, time: Option<f64>) -> Diagnostic {
        Diagnostic {
            code: code.into(),
            severity,
            at: place(line),
            session: session.map(Into::into),
            message: "m".into(),
            time,
        }
    }

    fn report(sessions: Vec<Session>, turns: Vec<Turn>, diagnostics: Vec<Diagnostic>) -> Report {
        Report {
            report_version: 1,
            inputs: vec![Input {
                file: "a.jsonl".into(),
                format: "dsh-rpc".into(),
                records: 100,
                bad_lines: 0,
                bytes: 0,
            }],
            sessions,
            turns,
            replies: Vec::new(),
            waits: Vec::new(),
            diagnostics,
            usage: None,
        }
    }

    fn model(r: Report, axis: Axis) -> (Model, crate::view::View) {
        let v = view_of(r);
        (Model::build(&v.store, axis, has_clock(&v.store)), v)
    }

    #[test]
    fn wire_order_without_a_clock_and_time_with_one() {
        let sessions = vec![
            session("s", None, Some(0), vec![]),
            session("c", Some("s"), Some(1), vec![run("s", 3, Some(9), Outcome::Ok, None)]),
        ];
        let t = turn("s", 2, Some(10), (Some(1000.0), Some(5000.0)), vec![]);
        // A run without a time in a log with a clock gets one from the timed lines around it.
        let (m, v) = model(report(sessions.clone(), vec![t.clone()], vec![]), Axis::Time);
        assert!(has_clock(&v.store));
        assert_eq!(m.axis, Axis::Time);
        assert_eq!(spans_of(&m.runs, 0), [[1500.0, 4500.0]]);
        // No time anywhere: wire order.
        let untimed = turn("s", 2, Some(10), (None, None), vec![]);
        let (m, v) = model(report(sessions.clone(), vec![untimed], vec![]), Axis::Time);
        assert!(!has_clock(&v.store));
        assert_eq!(m.axis, Axis::Wire);
        assert_eq!((m.min, m.max), (1.0, 101.0));
        // A record occupies [ordinal, ordinal + 1): the turn covers lines 2 to 10.
        assert_eq!(spans_of(&m.turns, 0), [[2.0, 11.0]]);
        // The run is on the parent's lane (0), linked to the child's (1), indexed from both ends.
        assert_eq!(spans_of(&m.runs, 0), [[3.0, 10.0]]);
        assert_eq!((m.run_items[0].child, m.run_items[0].index), (1, 0));
        assert_eq!(m.run_lane, [0]);
        assert_eq!((m.child_runs.lane_start.clone(), m.child_runs.item.clone()), (vec![0, 0, 1], vec![0]));

        let mut timed = sessions;
        timed[1].runs[0] = run("s", 3, Some(9), Outcome::Ok, Some((1500.0, 4000.0)));
        let d = vec![
            diagnostic("x", Severity::Error, 5, Some("c"), None),
            diagnostic("y", Severity::Info, 9, Some("c"), Some(4500.0)),
        ];
        let (m, v) = model(report(timed, vec![t], d), Axis::Time);
        assert!(has_clock(&v.store));
        assert_eq!(m.axis, Axis::Time);
        assert_eq!((m.min, m.max), (1000.0, 5000.0));
        assert_eq!(spans_of(&m.runs, 0), [[1500.0, 4000.0]]);
        // A finding without a time sits at the latest timed place before it (line 3, the run's start).
        assert_eq!(m.marks.start, [1500.0, 4500.0]);
        assert_eq!(m.marks.item, [0, 1]);
        // Wire order on request.
        assert_eq!(Model::build(&v.store, Axis::Wire, has_clock(&v.store)).axis, Axis::Wire);
    }

    #[test]
    fn steps_are_timed_too_and_an_open_turn_reaches_the_end() {
        let step = |times: Option<(f64, f64)>| StepSpan {
            step: 1,
            start: place(3),
            end: Some(place(4)),
            start_time: times.map(|t| t.0),
            end_time: times.map(|t| t.1),
        };
        let sessions = vec![session("s", None, Some(0), vec![])];
        let untimed = report(sessions.clone(), vec![turn("s", 2, None, (None, None), vec![step(None)])], vec![]);
        assert!(!has_clock(&view_of(untimed).store));
        assert!(!has_clock(&view_of(report(sessions.clone(), vec![], vec![])).store), "nothing to put on a clock");
        let timed =
            report(sessions, vec![turn("s", 2, None, (Some(10.0), None), vec![step(Some((11.0, 30.0)))])], vec![]);
        let (m, _) = model(timed, Axis::Time);
        assert_eq!(m.axis, Axis::Time);
        assert_eq!(spans_of(&m.turns, 0), [[10.0, 30.0]]);
    }

    #[test]
    fn an_open_run_reaches_the_end_and_findings_without_a_session_get_a_lane_of_their_own() {
        let sessions = vec![
            session("s", None, Some(0), vec![]),
            session("c", Some("s"), None, vec![run("s", 40, None, Outcome::Open, None)]),
            session("o", Some("gone"), None, vec![]),
        ];
        let (m, v) = model(
            report(sessions, vec![], vec![diagnostic("malformed-line", Severity::Warning, 7, None, None)]),
            Axis::Wire,
        );
        let ids: Vec<Option<&str>> =
            m.lanes.iter().map(|l| v.store.sessions.get(l.session as usize).map(|s| v.store.ids.name(s.id))).collect();
        assert_eq!(ids, [None, Some("s"), Some("c"), Some("o")]);
        // A missing depth is counted through the parent's lane; a parent with no lane is a root.
        assert_eq!(m.lanes.iter().map(|l| l.depth).collect::<Vec<_>>(), [0, 0, 1, 0]);
        assert_eq!(spans_of(&m.runs, 1), [[40.0, 101.0]]);
        assert_eq!(m.marks.start[..1], [7.5]);
    }

    #[test]
    fn a_reused_child_ids_runs_are_drawn_on_each_parents_lane() {
        let (m, v) = model(sample_report(), Axis::Time);
        let w = m.lane_of(&v.store, v.store.ids.get("worker-7").unwrap()).unwrap() as usize;
        let runs: Vec<usize> = (m.child_runs.lane_start[w]..m.child_runs.lane_start[w + 1])
            .map(|k| m.child_runs.item[k as usize] as usize)
            .collect();
        let parents: Vec<&str> = runs
            .iter()
            .map(|&i| v.store.ids.name(v.store.sessions[m.lanes[m.run_lane[i] as usize].session as usize].id))
            .collect();
        assert_eq!(parents, ["lead", "planner"]);
        let outcomes: Vec<Outcome> = runs.iter().map(|&i| m.run_items[m.runs.item[i] as usize].outcome).collect();
        assert_eq!(outcomes, [Outcome::Ok, Outcome::Error]);
    }

    #[test]
    fn every_span_is_inside_the_domain_and_every_step_inside_its_turn() {
        for name in ["builtin-sample", "copilot-events-saved", "dsh-session-folder", "dsh-rpc-two-level"] {
            let r = crate::view::tests::case_report(name);
            let n = r.diagnostics.len();
            for axis in [Axis::Time, Axis::Wire] {
                let (m, _) = model(r.clone(), axis);
                for t in [&m.turns, &m.steps, &m.runs] {
                    for i in 0..t.start.len() {
                        assert!(t.start[i] >= m.min && t.end[i] <= m.max && t.end[i] >= t.start[i], "{name}");
                    }
                }
                for l in 0..m.lanes.len() {
                    let turns = spans_of(&m.turns, l);
                    for i in m.steps.lane_start[l] as usize..m.steps.lane_start[l + 1] as usize {
                        assert!(turns.iter().any(|[s, e]| *s <= m.steps.start[i] && m.steps.end[i] <= *e), "{name}");
                    }
                }
                assert_eq!(m.marks.start.len(), n, "{name}: every finding is marked");
            }
        }
    }

    #[test]
    fn a_window_gives_the_lanes_in_view_at_its_resolution_and_a_hit_names_what_is_there() {
        let sessions = vec![
            session("s", None, Some(0), vec![]),
            session("c", Some("s"), Some(1), vec![run("s", 3, Some(9), Outcome::Error, None)]),
        ];
        let turns = vec![turn("s", 2, Some(10), (None, None), vec![]), turn("s", 11, Some(11), (None, None), vec![])];
        let d = vec![
            diagnostic("x", Severity::Warning, 5, Some("c"), None),
            diagnostic("y", Severity::Error, 5, Some("c"), None),
        ];
        let mut v = view_of(report(sessions, turns, d));
        let info = v.timeline_info(Axis::Time);
        assert_eq!((info.axis, info.lanes, info.min, info.max, info.clocked), (Axis::Wire, 2, 1.0, 101.0, false));
        assert_eq!(info.inputs, [AxisInput { file: "a.jsonl".into(), offset: 0.0 }]);
        // Opening answers the same axis and the fitted window of the lanes asked for.
        let opened = v.timeline_open(Axis::Time, 0, 1, 100.0);
        assert_eq!(opened.info, info);
        assert_eq!(
            opened.window.query,
            WindowQuery { axis: Axis::Wire, first: 0, last: 1, start: 1.0, end: 101.0, width: 100.0 }
        );
        assert_eq!(opened.window.lanes.len(), 1);
        // 100 records on 100 px: a pixel a record.
        let q = WindowQuery { axis: Axis::Wire, first: 0, last: 5, start: 1.0, end: 101.0, width: 100.0 };
        let w = v.timeline_window(&q);
        assert_eq!(w.lanes.len(), 2, "only the lanes there are");
        let s = &w.lanes[0];
        assert_eq!((s.id.as_deref(), s.depth, s.lane), (Some("s"), 0, 0));
        // Lines 2-10 and 11 touch: one rectangle from pixel 1 to 11.
        assert_eq!(s.turns, [1.0, 11.0]);
        assert_eq!(s.runs, [RunRect { x0: 2.0, x1: 9.0, outcome: Outcome::Error }]);
        assert_eq!(w.lanes[1].marks, [MarkPoint { x: 4.5, severity: Severity::Error }]);
        assert_eq!(w.connectors, [Connector { x: 2.0, lane: 0, child: 1 }]);
        // Scrolled down to the child's lane alone: its run's line comes from the lane above.
        let w = v.timeline_window(&WindowQuery { first: 1, ..q });
        assert_eq!(w.lanes.iter().map(|l| l.lane).collect::<Vec<_>>(), [1]);
        assert_eq!(w.connectors, [Connector { x: 2.0, lane: 0, child: 1 }]);
        // Zoomed in on lines 40-60: nothing there but the lanes.
        let w = v.timeline_window(&WindowQuery { start: 40.0, end: 60.0, ..q });
        assert!(w.lanes.iter().all(|l| l.turns.is_empty() && l.runs.is_empty() && l.marks.is_empty()));

        let hit = |v: &mut crate::view::View, lane, x: Option<f64>, band| {
            v.timeline_hit(&HitQuery { axis: Axis::Wire, lane, x, slop: 0.5, band }).map(|h| h.text)
        };
        assert_eq!(hit(&mut v, 0, Some(6.0), Band::Lane).as_deref(), Some("s · turn 1 · a.jsonl:2"));
        assert_eq!(hit(&mut v, 0, Some(6.0), Band::Runs).as_deref(), Some("run 1 of c (error) · a.jsonl:3"));
        assert_eq!(hit(&mut v, 1, Some(5.5), Band::Lane).as_deref(), Some("warning x · a.jsonl:5"));
        assert_eq!(hit(&mut v, 1, Some(50.0), Band::Lane).as_deref(), Some("c"), "the lane itself");
        assert_eq!(hit(&mut v, 1, None, Band::Lane).as_deref(), Some("c"));
        assert_eq!(hit(&mut v, 9, Some(5.0), Band::Lane), None);
        let place = v.timeline_hit(&HitQuery { axis: Axis::Wire, lane: 0, x: Some(6.0), slop: 0.5, band: Band::Lane });
        assert_eq!(place.and_then(|h| h.place), Some(self::place(2)));
        let at = v.timeline_locate(Axis::Wire, Some("c"), Some(&self::place(7)));
        assert_eq!(at.lane, Some(1));
        assert_eq!(at.at, Some(7.5));
        assert_eq!(v.timeline_locate(Axis::Wire, Some("nobody"), None), Located { lane: None, at: None, extent: None });
        // A lane's extent (a line L covers L to L + 1 on the wire axis): c's is its run, lines
        // 3 to 9 (drawn from its parent's lane); the root's, its two turns, lines 2 to 11.
        assert_eq!(at.extent, Some([3.0, 10.0]));
        assert_eq!(v.timeline_locate(Axis::Wire, Some("s"), None).extent, Some([2.0, 12.0]));
    }

    #[test]
    fn spans_on_the_time_axis_say_how_long_they_took() {
        assert_eq!(super::duration(850.2), "850 ms");
        assert_eq!(super::duration(12_400.0), "12.4 s");
        assert_eq!(super::duration(185_000.0), "3 min 05 s");
        assert_eq!(super::duration(7_620_000.0), "2 h 07 min");
        let mut v = crate::view::View::from_report(crate::view::tests::case_report("copilot-events-saved"), 1);
        let info = v.timeline_info(Axis::Time);
        assert_eq!(info.axis, Axis::Time, "a saved Copilot log has a clock");
        let mut texts = Vec::new();
        for lane in 0..info.lanes {
            for k in 0..=200 {
                let x = info.min + (info.max - info.min) * f64::from(k) / 200.0;
                if let Some(h) =
                    v.timeline_hit(&HitQuery { axis: Axis::Time, lane, x: Some(x), slop: 0.0, band: Band::Lane })
                {
                    texts.push(h.text);
                }
            }
        }
        let turns: Vec<&String> = texts.iter().filter(|t| t.contains(" · turn ")).collect();
        assert!(!turns.is_empty(), "{texts:?}");
        assert!(turns.iter().all(|t| t.contains(" ms · ") || t.contains(" s · ")), "{turns:?}");
    }

    /// A dsh-session folder's files are named `session.1.jsonl`, `session.2.jsonl`, `session.jsonl`
    /// (sub-agents first by name): wire order joins the parent's first, then its sub-agents'.
    #[test]
    fn wire_order_puts_a_folders_parent_file_before_its_sub_agents() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/deepseek-harness/examples_acp-agent__subagent-multi");
        let report = crate::analyze_paths(&[dir]).unwrap();
        let names: Vec<&str> =
            report.inputs.iter().filter(|i| i.format == "dsh-session").map(|i| i.file.as_str()).collect();
        assert_eq!(names, ["session.1.jsonl", "session.2.jsonl", "session.jsonl"], "the report keeps name order");
        let mut v = crate::view::View::from_report(report, 1);
        let info = v.timeline_info(Axis::Wire);
        let order: Vec<&str> =
            info.inputs.iter().map(|i| i.file.as_str()).filter(|f| f.starts_with("session")).collect();
        assert_eq!(order, ["session.jsonl", "session.1.jsonl", "session.2.jsonl"]);
    }

    /// Every dsh-rpc `session.event` carries `time`; its responses do not. A log of both is drawn
    /// on its clock, the clockless lines placed between the timed ones around them.
    #[test]
    fn a_dsh_rpc_log_with_clockless_responses_is_on_its_clock() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/conformance/cases/builtin-sample/input/delegation.jsonl");
        let report = crate::analyze_paths(&[dir]).unwrap();
        assert_eq!(report.inputs[0].format, "dsh-rpc");
        let untimed = report.turns.iter().filter(|t| t.start.is_some() && t.start_time.is_none()).count()
            + report
                .sessions
                .iter()
                .flat_map(|s| &s.runs)
                .filter(|r| r.start.is_some() && r.start_time.is_none())
                .count();
        let ends = report.turns.iter().filter(|t| t.end.is_some() && t.end_time.is_none()).count();
        assert!(untimed + ends > 0, "some span has a clockless place");
        let mut v = crate::view::View::from_report(report, 1);
        assert!(v.summary().clocked, "{untimed} spans start and {ends} turns end on a clockless line");
        assert_eq!(v.timeline_info(Axis::Time).axis, Axis::Time);
    }
}
