//! Timestamps: epoch milliseconds of a log's RFC 3339 text. Pure arithmetic on the log's own
//! text: the engine reads no clock.

/// Epoch milliseconds of an RFC 3339 timestamp (`2026-09-12T00:00:05.250Z`, `…+02:00`), or `None`
/// when the text is not one. Pure arithmetic on the log's own text: the engine reads no clock.
pub fn rfc3339_ms(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let secs = civil_seconds(b)?;
    after_seconds(b, secs)
}

/// `rfc3339_ms` for a stream of timestamps, remembering the last whole second: a log's events
/// come many to a second, and the date arithmetic is then done once for all of them.
#[derive(Debug, Default, Clone)]
pub struct Rfc3339 {
    /// The first 19 bytes of the last timestamp read (`2026-09-12T00:00:05`), and their seconds.
    last: Option<([u8; 19], i64)>,
}

impl Rfc3339 {
    /// The same value as `rfc3339_ms(s)`.
    pub fn ms(&mut self, s: &str) -> Option<f64> {
        let b = s.as_bytes();
        let key: [u8; 19] = b.get(..19)?.try_into().ok()?;
        let secs = match self.last {
            Some((k, secs)) if k == key => secs,
            _ => {
                let secs = civil_seconds(b)?;
                self.last = Some((key, secs));
                secs
            }
        };
        after_seconds(b, secs)
    }
}

/// The decimal number written in `b[r]`, when every byte there is a digit.
fn digits(b: &[u8], r: std::ops::Range<usize>) -> Option<i64> {
    b.get(r)?.iter().try_fold(0i64, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0')))
}

/// The seconds since the epoch of a timestamp's first 19 bytes (`YYYY-MM-DDTHH:MM:SS`) read as
/// UTC, or `None` when they are not a date and time.
fn civil_seconds(b: &[u8]) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| digits(b, r);
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d, h, mi, se) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&mo) || d < 1 || d > month_days[(mo - 1) as usize] || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + se)
}

/// The epoch milliseconds of a timestamp whose first 19 bytes are `secs` (see `civil_seconds`):
/// its fraction and its offset read from the rest.
fn after_seconds(b: &[u8], secs: i64) -> Option<f64> {
    let num = |r: std::ops::Range<usize>| digits(b, r);
    let mut i = 19;
    // Whole milliseconds are kept as an integer so that they stay exact; only digits past the
    // third are a fraction of a millisecond. Digits are read in place: this runs on every event.
    let (mut millis, mut sub_ms) = (0i64, 0.0f64);
    if b.get(i) == Some(&b'.') {
        i += 1;
        let (mut n, mut scale) = (0usize, 0.1f64);
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            let digit = i64::from(c - b'0');
            if n < 3 {
                millis = millis * 10 + digit;
            } else {
                sub_ms += digit as f64 * scale;
                scale /= 10.0;
            }
            n += 1;
            i += 1;
        }
        if n == 0 {
            return None;
        }
        for _ in n..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let m = oh * 60 + om;
            if *sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    Some(((secs - offset_min * 60) * 1000 + millis) as f64 + sub_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_timestamps_become_epoch_milliseconds() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(rfc3339_ms("2026-10-01T10:00:05Z"), Some(1_790_848_805_000.0));
        assert_eq!(rfc3339_ms("2026-10-01T12:00:05.250+02:00"), Some(1_790_848_805_250.0));
        assert_eq!(rfc3339_ms("2000-02-29T00:00:00Z"), Some(951_782_400_000.0));
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-10-01T10:00:05",
            "2026-10-01T10:00:05Zjunk",
            "２０２６-10-01T10:00:05Z",
        ] {
            assert_eq!(rfc3339_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_keeps_whole_milliseconds_exact_and_rejects_impossible_dates() {
        assert_eq!(rfc3339_ms("2038-01-19T03:15:00.055Z"), Some(2_147_483_700_055.0));
        assert_eq!(rfc3339_ms("2026-10-01T10:00:05.5Z"), Some(1_790_848_805_500.0));
        for bad in
            ["2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-01T00:00:00+99:99", "2026-01-01T00:00:00.Z"]
        {
            assert_eq!(rfc3339_ms(bad), None, "{bad}");
        }
    }
}

/// Epoch milliseconds as RFC 3339 text in UTC, to the second (`2026-09-12T00:00:05Z`); `None`
/// outside years 0–9999 or for a value that is not a number. The inverse of `rfc3339_ms` for
/// whole seconds, by the same civil-date arithmetic.
pub fn ms_rfc3339(ms: f64) -> Option<String> {
    if !ms.is_finite() {
        return None;
    }
    let secs = (ms / 1000.0).floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (proleptic Gregorian), era by era of 400 years.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let (h, m, s) = (rem / 3600, rem / 60 % 60, rem % 60);
    Some(format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z"))
}

#[cfg(test)]
mod format_tests {
    use super::*;

    #[test]
    fn epoch_milliseconds_print_as_the_rfc3339_they_were_read_from() {
        for t in [
            "1970-01-01T00:00:00Z",
            "2000-02-29T23:59:59Z",
            "2025-09-03T00:47:19Z",
            "2100-03-01T12:00:00Z",
            "1969-12-31T23:59:59Z",
        ] {
            let ms = rfc3339_ms(t).unwrap();
            assert_eq!(ms_rfc3339(ms).as_deref(), Some(t));
            assert_eq!(ms_rfc3339(ms + 999.0).as_deref(), Some(t), "{t} and a fraction of a second");
        }
        assert_eq!(ms_rfc3339(f64::NAN), None);
        assert_eq!(ms_rfc3339(1e18), None);
    }
}
