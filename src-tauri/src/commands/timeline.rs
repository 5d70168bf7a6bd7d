//! The open log's timeline from its view: its axis and domain, a window of lanes and rectangles
//! at the page's resolution (the window capped, the width clamped), what is under a point, and
//! where a session or a place is.

use tauri::State;

use super::opened::{with_view, Opened};
use crate::engine::{
    Axis, HitQuery, Located, Place, TimelineHit, TimelineInfo, TimelineOpen, TimelineWindow, WindowQuery,
};
use crate::open::CommandError;

/// The timeline's axis, domain and lane count (on `axis` when the log has a clock, else wire order).
#[tauri::command]
pub async fn timeline_info(axis: Axis, opened: State<'_, Opened>) -> Result<TimelineInfo, CommandError> {
    with_view(&opened, move |v| v.timeline_info(axis)).await
}

/// The timeline's axis and domain, and the window of lanes `first..last` (at most 500) over the
/// whole domain at `width` pixels: what it draws as it opens, in one answer.
#[tauri::command]
pub async fn timeline_open(
    axis: Axis,
    first: u32,
    last: u32,
    width: f64,
    opened: State<'_, Opened>,
) -> Result<TimelineOpen, CommandError> {
    let (last, width) = (last.min(first.saturating_add(500)), width.clamp(1.0, 20_000.0));
    with_view(&opened, move |v| v.timeline_open(axis, first, last, width)).await
}

/// The lanes and rectangles of a window of the timeline, at its resolution (at most 500 lanes).
#[tauri::command]
pub async fn timeline_window(
    mut query: WindowQuery,
    opened: State<'_, Opened>,
) -> Result<TimelineWindow, CommandError> {
    query.last = query.last.min(query.first.saturating_add(500));
    query.width = query.width.clamp(1.0, 20_000.0);
    with_view(&opened, move |v| v.timeline_window(&query)).await
}

/// What is under a point of the timeline.
#[tauri::command]
pub async fn timeline_hit(query: HitQuery, opened: State<'_, Opened>) -> Result<Option<TimelineHit>, CommandError> {
    with_view(&opened, move |v| v.timeline_hit(&query)).await
}

/// Where a session's lane is and where a place is on the timeline's axis.
#[tauri::command]
pub async fn timeline_locate(
    axis: Axis,
    session: Option<String>,
    place: Option<Place>,
    opened: State<'_, Opened>,
) -> Result<Located, CommandError> {
    with_view(&opened, move |v| v.timeline_locate(axis, session.as_deref(), place.as_ref())).await
}
