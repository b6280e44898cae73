//! The clock, read in one place: RFC 3339 timestamps for hosts' locks and events.

/// Now, in UTC, as RFC 3339 (`2026-12-02T21:02:00+00:00`).
pub fn now() -> String {
    rfc3339(now_secs())
}

/// Now, in seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
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

#[cfg(test)]
mod tests {
    #[test]
    fn formats_civil_dates() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00+00:00");
        assert_eq!(super::rfc3339(951_782_400), "2000-02-29T00:00:00+00:00");
        assert_eq!(super::rfc3339(1_796_245_320), "2026-12-02T21:02:00+00:00");
    }
}
