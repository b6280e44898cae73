//! Network limits shared by git transfers and HTTP downloads: one no-progress
//! timeout (`PLUGINS_NET_TIMEOUT`), set once at start-up.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static TIMEOUT_MS: AtomicU64 = AtomicU64::new(30_000);

/// The longest an error text taken from a server is shown, in bytes.
pub const MAX_ERROR_TEXT: usize = 2_000;

/// Set the no-progress limit for every transfer. Call before any thread starts
/// (libgit2's setting is process-wide).
pub fn configure(limit: Duration) {
    TIMEOUT_MS.store(
        u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
    crate::git::set_timeout(limit);
}

/// How long a transfer may go without progress.
pub fn timeout() -> Duration {
    Duration::from_millis(TIMEOUT_MS.load(Ordering::Relaxed))
}

/// Cut a server's text to [`MAX_ERROR_TEXT`] bytes on a character boundary.
pub fn cap(text: &str) -> String {
    if text.len() <= MAX_ERROR_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_ERROR_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} [... {} more bytes]", &text[..end], text.len() - end)
}
