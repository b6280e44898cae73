//! The clock, read in one place: RFC 3339 timestamps for hosts' locks and events.

/// Now, in UTC, as RFC 3339 (`2026-12-02T21:02:00+00:00`).
pub fn now() -> String {
    rfc3339(now_secs())
}

/// Now, in seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    system_now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Now, as the file system stamps times (a marker's mtime, a file's age).
#[allow(clippy::disallowed_methods)] // the one place the clock is read
pub fn system_now() -> std::time::SystemTime {
    std::time::SystemTime::now()
}

/// Seconds since the Unix epoch as RFC 3339 in UTC, without a date crate.
pub fn rfc3339(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}+00:00")
}

/// An RFC 3339 timestamp (`2026-12-02T21:02:00Z`, `…+02:00`, fractions ignored) as
/// seconds since the Unix epoch; `None` when it is not one or is before 1970.
pub fn parse_rfc3339(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        rest = frac.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (oh, om) = rest[1..].split_once(':')?;
            if oh.len() != 2 || om.len() != 2 {
                return None;
            }
            sign * (oh.parse::<i64>().ok()? * 3600 + om.parse::<i64>().ok()? * 60)
        }
    };
    // Days from civil (Howard Hinnant's algorithm), the inverse of `rfc3339`.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if mo > 2 { mo - 3 } else { mo + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + mi * 60 + sec - offset).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_what_it_formats_and_github_dates() {
        for secs in [0, 951_782_400, 1_796_245_320, 978_307_200] {
            assert_eq!(super::parse_rfc3339(&super::rfc3339(secs)), Some(secs));
        }
        assert_eq!(
            super::parse_rfc3339("2026-12-02T21:02:00Z"),
            Some(1_796_245_320)
        );
        assert_eq!(
            super::parse_rfc3339("2026-12-02T23:02:00.123+02:00"),
            Some(1_796_245_320)
        );
        for bad in [
            "",
            "yesterday",
            "2026-13-02T21:02:00Z",
            "2026-12-02T21:02:00",
        ] {
            assert_eq!(super::parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_civil_dates() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00+00:00");
        assert_eq!(super::rfc3339(951_782_400), "2000-02-29T00:00:00+00:00");
        assert_eq!(super::rfc3339(1_796_245_320), "2026-12-02T21:02:00+00:00");
    }
}
