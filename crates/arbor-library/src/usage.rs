//! Usage reports (SPEC 6.2): the library's tokens and cost summed by day, week (from Monday) or
//! month in a time zone, by project, by model and by session. Each count is one the summaries
//! booked once by section 4's rules (`summary::Booked`): a turn's at the turn's start, what a
//! session counted outside its turns at its start; so every report's total is the library's.
//! A count whose log has no clock is booked to `no clock` in the reports by time.

use crate::summary::{Booked, Summary};
use arbor_core::report::Usage;
pub use jiff::tz::TimeZone;
use std::collections::{BTreeMap, BTreeSet};

/// What a report is by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Daily,
    Weekly,
    Monthly,
    Session,
    Model,
    Project,
}

/// One line of a report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Line {
    /// The day (`2026-12-03`), the week's Monday (`2026-11-30`), the month (`2026-12`), the
    /// session's key (`Summary::key`: its path), the model or the project.
    pub key: String,
    /// The sessions that booked tokens to it.
    pub sessions: u64,
    pub usage: Usage,
}

/// The label of a count without a clock in the reports by time.
pub const NO_CLOCK: &str = "no clock";

/// The report `by`, in key order (by time: oldest first), from the library's summaries and
/// booked usage, its times read in `tz`.
pub fn report(by: By, summaries: &[Summary], booked: &[(String, Booked)], tz: &TimeZone) -> Vec<Line> {
    let project: BTreeMap<&str, &str> = summaries.iter().map(|s| (s.key.as_str(), s.project.as_str())).collect();
    let mut lines: BTreeMap<String, (BTreeSet<&str>, Usage)> = BTreeMap::new();
    for (path, b) in booked {
        // Model rows hold the same counts as the time rows, split otherwise: each report reads
        // one kind, so nothing is counted twice.
        let key = match (by, &b.model) {
            (By::Model, Some(m)) => m.clone(),
            (By::Model, None) | (_, Some(_)) => continue,
            (By::Session, None) => path.clone(),
            (By::Project, None) => project.get(path.as_str()).map_or_else(|| path.clone(), |p| p.to_string()),
            (By::Daily | By::Weekly | By::Monthly, None) => period(by, b.time, tz),
        };
        let line = lines.entry(key).or_default();
        line.0.insert(path);
        line.1.add_costed(&b.usage);
    }
    lines.into_iter().map(|(key, (s, usage))| Line { key, sessions: s.len() as u64, usage }).collect()
}

/// The day, week or month of an epoch-milliseconds time in `tz`.
pub fn period(by: By, time: Option<f64>, tz: &TimeZone) -> String {
    let Some(ts) = time.and_then(|t| jiff::Timestamp::from_millisecond(t as i64).ok()) else {
        return NO_CLOCK.to_string();
    };
    let date = ts.to_zoned_datetime(tz.clone()).date();
    match by {
        By::Weekly => {
            let back = i64::from(jiff::civil::Weekday::Monday.until(date.weekday()));
            let monday = date.checked_sub(jiff::Span::new().days(back)).unwrap_or(date);
            monday.to_string()
        }
        By::Monthly => format!("{:04}-{:02}", date.year(), date.month()),
        _ => date.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(input: u64, cost: Option<f64>) -> Usage {
        Usage { input, cost, ..Usage::default() }
    }

    fn booked(path: &str, time: Option<f64>, model: Option<&str>, usage: Usage) -> (String, Booked) {
        (path.to_string(), Booked { time, model: model.map(str::to_owned), usage })
    }

    /// 2026-11-29 23:30 UTC is a Sunday in UTC and already Monday 2026-11-30 in Tokyo: a time
    /// zone moves a count across a day and a week, and the totals stay.
    #[test]
    fn a_time_zone_moves_counts_across_days_and_weeks_and_totals_stay() {
        let sunday_late = 1_795_995_000_000.0; // 2026-11-29T23:30:00Z
        let dec = 1_796_256_000_000.0; // 2026-12-03T00:00:00Z
        let rows = vec![
            booked("a", Some(sunday_late), None, u(10, Some(0.5))),
            booked("a", Some(dec), None, u(5, None)),
            booked("b", None, None, u(1, Some(0.25))),
            booked("a", None, Some("m1"), u(15, Some(0.5))),
            booked("b", None, Some("m2"), u(1, Some(0.25))),
        ];
        let utc = TimeZone::UTC;
        let tokyo = TimeZone::get("Asia/Tokyo").unwrap();
        let keys = |by, tz: &TimeZone| {
            report(by, &[], &rows, tz).into_iter().map(|l| (l.key, l.usage.input)).collect::<Vec<_>>()
        };
        assert_eq!(keys(By::Daily, &utc), [("2026-11-29".into(), 10), ("2026-12-03".into(), 5), (NO_CLOCK.into(), 1)]);
        assert_eq!(
            keys(By::Daily, &tokyo),
            [("2026-11-30".into(), 10), ("2026-12-03".into(), 5), (NO_CLOCK.into(), 1)]
        );
        assert_eq!(keys(By::Weekly, &utc), [("2026-11-23".into(), 10), ("2026-11-30".into(), 5), (NO_CLOCK.into(), 1)]);
        assert_eq!(keys(By::Weekly, &tokyo), [("2026-11-30".into(), 15), (NO_CLOCK.into(), 1)]);
        assert_eq!(keys(By::Monthly, &utc), [("2026-11".into(), 10), ("2026-12".into(), 5), (NO_CLOCK.into(), 1)]);
        assert_eq!(keys(By::Model, &utc), [("m1".into(), 15), ("m2".into(), 1)]);
        assert_eq!(keys(By::Session, &utc), [("a".into(), 15), ("b".into(), 1)]);
        let summaries: Vec<Summary> = Vec::new();
        for by in [By::Daily, By::Weekly, By::Monthly, By::Session, By::Model, By::Project] {
            let lines = report(by, &summaries, &rows, &tokyo);
            let input: u64 = lines.iter().map(|l| l.usage.input).sum();
            let cost: f64 = lines.iter().filter_map(|l| l.usage.cost).sum();
            assert_eq!((input, cost), (16, 0.75), "{by:?}");
        }
    }
}
