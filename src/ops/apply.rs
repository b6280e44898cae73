//! The apply pipeline: fetch ahead in the bounded pool, then install in order.

use crate::install::{InstallOptions, Prepared, SharedFetches};
use crate::source::Source;

/// `update` and `autoupdate` fetch at most this many newer versions at once, whatever
/// `--jobs` says (the checks before take the full `--jobs`); `sync`, whose `--jobs` is
/// about fetching, takes it as given.
pub const MAX_FETCHES: usize = 8;

/// One step of an apply, in lock order: `install` is fetched ahead; a step without one
/// (a row that is only reported) keeps its place in the order.
pub struct Step<T> {
    pub item: T,
    pub install: Option<InstallOptions>,
}

/// Fetch and check every step's source ahead — at most `jobs` at once, bounded per server
/// as the checks are — and yield the steps in their
/// order with what was fetched, for the caller to install one at a time
/// ([`crate::install::install_prepared`]: consent, home lock, swap).
///
/// Monorepo plugins fetched at the same commit share one fetch
/// ([`crate::install::SharedFetches`]): one per repository and commit for the command.
pub fn prepared_in_order<T: Send + 'static>(
    mut steps: Vec<Step<T>>,
    jobs: usize,
) -> impl Iterator<Item = (T, Option<(InstallOptions, Prepared)>)> {
    let shared = SharedFetches::of(steps.iter().filter_map(|s| s.install.as_ref()));
    if !shared.is_empty() {
        let shared = std::sync::Arc::new(shared);
        for opts in steps.iter_mut().filter_map(|s| s.install.as_mut()) {
            opts.shared = Some(shared.clone());
        }
    }
    let url = |step: &Step<T>| match step.install.as_ref().map(|o| &o.source) {
        Some(Source::Git { url, .. }) => Some(url.clone()),
        _ => None,
    };
    crate::update::ordered_per_host(steps, url, jobs, |step| {
        let fetched = step.install.map(|opts| {
            let prepared = crate::install::prepare(&opts);
            (opts, prepared)
        });
        (step.item, fetched)
    })
}
