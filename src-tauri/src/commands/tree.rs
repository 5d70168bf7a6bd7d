//! The delegation tree's rows, a page at a time: of the open log's view, or of the tree of the
//! log being read (`TreeOf`); opening, closing and revealing a session's subtree in either.

use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use tauri::State;
use ts_rs::TS;

use super::opened::{with_reading, with_view, Opened};
use crate::engine::{TreeOrder, TreePage, TreeSpot};
use crate::open::CommandError;

/// Which tree a page of rows is of: the open log's, or the one of the log being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum TreeOf {
    Open,
    Loading,
}

/// Rows `offset..offset + limit` (at most 500) of the visible rows of a tree: the open log's, or
/// the one of the log being read.
#[tauri::command]
pub async fn tree_rows(
    of: TreeOf,
    offset: u32,
    limit: u32,
    order: Option<TreeOrder>,
    opened: State<'_, Opened>,
) -> Result<TreePage, CommandError> {
    let limit = limit.min(500);
    match of {
        // The siblings' order, when given, is the tree's from then on (the tree being read has
        // no tokens yet: it keeps the log's order).
        TreeOf::Open => {
            let page = with_view(&opened, move |v| {
                if let Some(order) = order {
                    v.set_tree_order(order);
                }
                v.tree_page(offset, limit)
            })
            .await?;
            // The page has taken this revision (a followed log's next rebuild may start).
            opened.taken.fetch_max(page.revision, Ordering::SeqCst);
            Ok(page)
        }
        TreeOf::Loading => with_reading(&opened, move |t, revision| t.page(revision, offset, limit)).await,
    }
}

/// Opens (`open: true`), closes (`false`) or flips (`null`) a session's subtree in a tree.
#[tauri::command]
pub async fn tree_set_open(
    of: TreeOf,
    id: String,
    open: Option<bool>,
    opened: State<'_, Opened>,
) -> Result<TreeSpot, CommandError> {
    match of {
        TreeOf::Open => with_view(&opened, move |v| v.tree_set_open(&id, open)).await,
        TreeOf::Loading => with_reading(&opened, move |t, _| t.set_open(&id, open)).await,
    }
}

/// Opens every collapsed ancestor of a session, and says where its row is.
#[tauri::command]
pub async fn tree_reveal(of: TreeOf, id: String, opened: State<'_, Opened>) -> Result<TreeSpot, CommandError> {
    match of {
        TreeOf::Open => with_view(&opened, move |v| v.tree_reveal(&id)).await,
        TreeOf::Loading => with_reading(&opened, move |t, _| t.reveal(&id)).await,
    }
}
