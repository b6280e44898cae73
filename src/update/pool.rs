//! The bounded per-server pool: run items on threads, at most `jobs` at a time and at
//! most [`git::host_limit`] per server, in order or abandoned at a timeout.

use std::sync::mpsc;
use std::time::Duration;

use crate::git;

/// Run `work` on each item on its own thread, at most `jobs` at a time and at most
/// [`git::host_limit`] at a time per server (`url` names an item's remote), each
/// abandoned at `timeout` (its result is then `None`), so a hung remote never holds up
/// the rest. A server at its limit lets later items of other servers go first.
pub(super) fn bounded<T, R>(
    items: Vec<(usize, T)>,
    url: &dyn Fn(&T) -> &str,
    jobs: usize,
    timeout: Duration,
    work: std::sync::Arc<dyn Fn(T) -> R + Send + Sync>,
) -> Vec<(usize, Option<R>)>
where
    T: Send + 'static,
    R: Send + 'static,
{
    let (done_tx, done_rx) = mpsc::channel::<(usize, Option<R>)>();
    let mut pending: std::collections::VecDeque<(usize, T, String, usize)> = items
        .into_iter()
        .map(|(i, item)| {
            let (key, limit) = git::host_limit(url(&item));
            (i, item, key, limit)
        })
        .collect();
    let mut per_host: std::collections::HashMap<String, usize> = Default::default();
    // The running items, by index: their server; and when each is abandoned, in start
    // order (one timeout for all). One thread per item: the wait for its timeout is this
    // loop's, not a second thread's.
    let mut running: std::collections::HashMap<usize, String> = Default::default();
    // (`None`: a timeout too long to count, `Duration::MAX`: never abandoned.)
    let mut deadlines: std::collections::VecDeque<(Option<std::time::Instant>, usize)> =
        Default::default();
    let mut out = Vec::new();
    loop {
        while running.len() < jobs.max(1) {
            let ready = pending.iter().position(|(_, _, key, limit)| {
                per_host.get(key).copied().unwrap_or(0) < git::limit_now(key, *limit)
            });
            let Some((i, item, key, _)) = ready.and_then(|p| pending.remove(p)) else {
                break;
            };
            *per_host.entry(key.clone()).or_default() += 1;
            running.insert(i, key);
            deadlines.push_back((std::time::Instant::now().checked_add(timeout), i));
            let (work, tx) = (work.clone(), done_tx.clone());
            std::thread::spawn(move || {
                // A panicking item answers `None` at once (its slot is not held until
                // its timeout).
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item)));
                let _ = tx.send((i, r.ok()));
            });
        }
        // Items already done leave their deadline behind: the first that counts.
        while deadlines
            .front()
            .is_some_and(|(_, i)| !running.contains_key(i))
        {
            deadlines.pop_front();
        }
        let Some(&(deadline, _)) = deadlines.front() else {
            break;
        };
        let answer = match deadline {
            Some(d) => done_rx.recv_timeout(d.saturating_duration_since(std::time::Instant::now())),
            None => done_rx
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        let done: Vec<(usize, Option<R>)> = match answer {
            // A result of an item abandoned before is dropped.
            Ok(done) => vec![done],
            Err(mpsc::RecvTimeoutError::Timeout) => late(&mut deadlines),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        for (i, r) in done {
            if let Some(key) = running.remove(&i) {
                free(&mut per_host, &key);
                out.push((i, r));
            }
        }
    }
    out
}

/// The items whose deadline has passed, taken off `deadlines` (in start order) and answered
/// `None`: abandoned.
fn late<R>(
    deadlines: &mut std::collections::VecDeque<(Option<std::time::Instant>, usize)>,
) -> Vec<(usize, Option<R>)> {
    let now = std::time::Instant::now();
    let mut late = Vec::new();
    while let Some(&(Some(d), i)) = deadlines.front()
        && d <= now
    {
        deadlines.pop_front();
        late.push((i, None));
    }
    late
}

/// A slot of the server `key` is free again.
fn free(per_host: &mut std::collections::HashMap<String, usize>, key: &str) {
    if let Some(n) = per_host.get_mut(key) {
        *n -= 1;
    }
}

/// Run `work` on each item, at most `jobs` at a time, and yield the results in the
/// items' order as they become ready: the caller handles the first while the next ones
/// are still running (`sync` and `update --all` fetch ahead and install in lock order).
/// Dropping the iterator early lets the running items finish and starts no more.
pub fn ordered<T, R>(
    items: Vec<T>,
    jobs: usize,
    work: impl Fn(T) -> R + Send + Sync + 'static,
) -> impl Iterator<Item = R>
where
    T: Send + 'static,
    R: Send + 'static,
{
    ordered_per_host(items, |_: &T| None, jobs, work)
}

/// An item's server key and its limit ([`git::host_limit`]); `None`: not a remote.
type Server = Option<(String, usize)>;

/// Which item a worker takes next: the first whose server is under its limit.
struct Slots<T> {
    pending: std::collections::VecDeque<(usize, T, Server)>,
    per_host: std::collections::HashMap<String, usize>,
}

impl<T> Slots<T> {
    fn take(&mut self) -> Option<(usize, T, Option<String>)> {
        let per_host = &self.per_host;
        let p = self.pending.iter().position(|(_, _, host)| {
            host.as_ref().is_none_or(|(key, limit)| {
                per_host.get(key).copied().unwrap_or(0) < git::limit_now(key, *limit)
            })
        })?;
        let (i, item, host) = self.pending.remove(p)?;
        let key = host.map(|(key, _)| key);
        if let Some(key) = &key {
            *self.per_host.entry(key.clone()).or_default() += 1;
        }
        Some((i, item, key))
    }
}

/// Gives an item's server slot back, and wakes the waiting workers, when dropped.
struct Release<'a, T> {
    slots: &'a (std::sync::Mutex<Slots<T>>, std::sync::Condvar),
    key: Option<String>,
}

impl<T> Drop for Release<'_, T> {
    fn drop(&mut self) {
        let (lock, wake) = self.slots;
        if let (Some(key), Ok(mut s)) = (self.key.take(), lock.lock())
            && let Some(n) = s.per_host.get_mut(&key)
        {
            *n -= 1;
        }
        wake.notify_all();
    }
}

/// [`ordered`], with at most [`git::host_limit`] items at a time per server (`url` names
/// an item's remote; `None`: not a remote). A server at its limit lets later items of
/// other servers go first; the results still come in the items' order.
pub fn ordered_per_host<T, R>(
    items: Vec<T>,
    url: impl Fn(&T) -> Option<String>,
    jobs: usize,
    work: impl Fn(T) -> R + Send + Sync + 'static,
) -> impl Iterator<Item = R>
where
    T: Send + 'static,
    R: Send + 'static,
{
    use std::sync::{Arc, Condvar, Mutex};
    let total = items.len();
    let pending = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let host = url(&item).map(|u| git::host_limit(&u));
            (i, item, host)
        })
        .collect();
    let slots = Arc::new((
        Mutex::new(Slots {
            pending,
            per_host: Default::default(),
        }),
        Condvar::new(),
    ));
    let work = Arc::new(work);
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    for _ in 0..jobs.max(1).min(total) {
        let (slots, work, tx) = (slots.clone(), work.clone(), tx.clone());
        std::thread::spawn(move || {
            let (lock, wake) = &*slots;
            loop {
                let next = {
                    let Ok(mut s) = lock.lock() else { break };
                    loop {
                        if s.pending.is_empty() {
                            break None;
                        }
                        if let Some(next) = s.take() {
                            break Some(next);
                        }
                        // Every pending item's server is at its limit: wait for a release.
                        match wake.wait(s) {
                            Ok(g) => s = g,
                            Err(_) => return,
                        }
                    }
                };
                let Some((i, item, key)) = next else {
                    wake.notify_all();
                    break;
                };
                // The server's slot is given back even if `work` panics, so that workers
                // waiting for it do not wait forever.
                let done = Release { slots: &slots, key };
                let sent = tx.send((i, work(item)));
                drop(done);
                if sent.is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let mut ready = std::collections::BTreeMap::new();
    let mut next = 0;
    std::iter::from_fn(move || {
        if next == total {
            return None;
        }
        while !ready.contains_key(&next) {
            let (i, r) = rx.recv().ok()?;
            ready.insert(i, r);
        }
        next += 1;
        ready.remove(&(next - 1))
    })
}
