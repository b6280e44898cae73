use std::sync::mpsc;
use std::time::Duration;

use super::*;

fn entry(kind: RefKind, r: &str, commit: &str) -> Entry {
    Entry {
        id: "x".into(),
        source: "s".into(),
        requested_ref: r.into(),
        ref_kind: Some(kind),
        commit: Some(commit.into()),
        ..Entry::default()
    }
}

fn refs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn release_tags_move_to_the_greatest_newer_release() {
    let r = refs(&[
        ("refs/tags/v0.2.1", "a"),
        ("refs/tags/v0.10.0", "b"),
        ("refs/tags/0.11.1", "c"),
        ("refs/tags/v0.12.0-rc1", "d"),
        ("refs/tags/nightly", "e"),
    ]);
    assert_eq!(
        decide(&entry(RefKind::Tag, "v0.2.1", "a"), &r, false),
        Status::Behind {
            new_ref: "0.11.1".into(),
            commit: "c".into()
        }
    );
    assert_eq!(
        decide(&entry(RefKind::Tag, "v0.2.1", "a"), &r, true),
        Status::Behind {
            new_ref: "v0.12.0-rc1".into(),
            commit: "d".into()
        }
    );
    assert_eq!(
        decide(&entry(RefKind::Tag, "0.11.1", "c"), &r, false),
        Status::UpToDate,
        "never a downgrade"
    );
    assert_eq!(
        decide(&entry(RefKind::Tag, "nightly", "old"), &r, false),
        Status::Repointed {
            new_ref: "nightly".into(),
            commit: "e".into()
        },
        "a moved tag is re-pointed, never an ordinary update (a moving target is a branch)"
    );
    assert_eq!(
        decide(&entry(RefKind::Tag, "v0.10.0", "old"), &r, false),
        Status::Behind {
            new_ref: "0.11.1".into(),
            commit: "c".into()
        },
        "a newer release wins over the moved tag itself"
    );
    assert_eq!(
        decide(&entry(RefKind::Tag, "0.11.1", "old"), &r, false),
        Status::Repointed {
            new_ref: "0.11.1".into(),
            commit: "c".into()
        },
        "the newest release, moved"
    );
    assert_eq!(
        decide(&entry(RefKind::Commit, "abc1234", "a"), &r, false),
        Status::Pinned
    );
}

#[test]
fn ordered_keeps_the_order_and_the_bound() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let running = std::sync::Arc::new(AtomicUsize::new(0));
    let most = std::sync::Arc::new(AtomicUsize::new(0));
    let (r, m) = (running.clone(), most.clone());
    let out: Vec<usize> = ordered((0..24).collect(), 3, move |i: usize| {
        let now = r.fetch_add(1, Ordering::SeqCst) + 1;
        m.fetch_max(now, Ordering::SeqCst);
        // Later items finish first, so results arrive out of order.
        std::thread::sleep(Duration::from_millis(((24 - i) % 5) as u64));
        r.fetch_sub(1, Ordering::SeqCst);
        i * 10
    })
    .collect();
    assert_eq!(out, (0..24).map(|i| i * 10).collect::<Vec<_>>());
    assert!(most.load(Ordering::SeqCst) <= 3);
    assert_eq!(ordered(Vec::<usize>::new(), 4, |i| i).count(), 0);
}

/// A worker that records, per server, how many items run at once; items of
/// `wait_for` wait (up to 10 s) until that many of them run together.
struct Gauge {
    running: std::sync::Mutex<std::collections::HashMap<String, (usize, usize)>>,
    wake: std::sync::Condvar,
}

impl Gauge {
    fn new() -> std::sync::Arc<Gauge> {
        std::sync::Arc::new(Gauge {
            running: Default::default(),
            wake: std::sync::Condvar::new(),
        })
    }

    fn run(&self, url: &str, wait_for: Option<(&str, usize)>) {
        let key = git::host_limit(url).0;
        let mut m = self.running.lock().unwrap();
        let slot = m.entry(key.clone()).or_default();
        slot.0 += 1;
        slot.1 = slot.1.max(slot.0);
        self.wake.notify_all();
        match wait_for {
            Some((host, n)) if url.contains(host) => {
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                while m[&key].1 < n && std::time::Instant::now() < deadline {
                    m = self
                        .wake
                        .wait_timeout(m, Duration::from_millis(50))
                        .unwrap()
                        .0;
                }
            }
            _ => {
                drop(m);
                std::thread::sleep(Duration::from_millis(5));
                m = self.running.lock().unwrap();
            }
        }
        m.get_mut(&key).unwrap().0 -= 1;
    }

    fn most(&self, url: &str) -> usize {
        self.running.lock().unwrap()[&git::host_limit(url).0].1
    }
}

fn mixed() -> Vec<String> {
    (0..12)
        .flat_map(|i| {
            [
                format!("ssh://git@127.0.0.1:9/p{i}.git"),
                format!("https://github.com/o/p{i}"),
            ]
        })
        .collect()
}

#[test]
fn the_pool_caps_each_server_and_lets_other_servers_pass() {
    let gauge = Gauge::new();
    let g = gauge.clone();
    let items: Vec<(usize, String)> = mixed().into_iter().enumerate().collect();
    let out = bounded(
        items,
        &|u: &String| u.as_str(),
        16,
        Duration::from_secs(60),
        std::sync::Arc::new(move |u: String| g.run(&u, Some(("github", 12)))),
    );
    assert_eq!(out.len(), 24);
    assert!(out.iter().all(|(_, r)| r.is_some()));
    // ssh is held to 4; the 12 github.com items all ran together, past the
    // queued ssh ones.
    assert!(gauge.most("ssh://git@127.0.0.1:9/p0.git") <= 4);
    assert_eq!(gauge.most("https://github.com/o/p0"), 12);
}

#[test]
fn ordered_caps_each_server_and_keeps_the_order() {
    let gauge = Gauge::new();
    let g = gauge.clone();
    let urls = mixed();
    let out: Vec<String> = ordered_per_host(
        urls.clone(),
        |u: &String| Some(u.clone()),
        16,
        move |u: String| {
            g.run(&u, Some(("github", 12)));
            u
        },
    )
    .collect();
    assert_eq!(out, urls);
    assert!(gauge.most("ssh://git@127.0.0.1:9/p0.git") <= 4);
    assert_eq!(gauge.most("https://github.com/o/p0"), 12);
}

/// A timeout too long to count (`Duration::MAX`: the monorepo fetches) waits for every item.
#[test]
fn bounded_takes_a_timeout_of_never() {
    let items: Vec<(usize, usize)> = (0..3).map(|i| (i, i)).collect();
    let mut out = bounded(
        items,
        &|_: &usize| "https://example.org/x.git",
        2,
        Duration::MAX,
        std::sync::Arc::new(|i: usize| i + 1),
    );
    out.sort_by_key(|(i, _)| *i);
    assert_eq!(out, vec![(0, Some(1)), (1, Some(2)), (2, Some(3))]);
}

/// The per-item pool abandons an item that does not finish within the timeout (`None`,
/// its slot given to the next), and answers `None` for one that panics; the others answer.
#[test]
fn bounded_abandons_a_hung_item_and_answers_for_a_panicking_one() {
    let (hang_tx, hang_rx) = mpsc::channel::<()>();
    let hang = std::sync::Mutex::new(hang_rx);
    let items: Vec<(usize, usize)> = (0..6).map(|i| (i, i)).collect();
    let mut out = bounded(
        items,
        &|_: &usize| "ssh://git@127.0.0.1:9/x.git",
        8,
        Duration::from_secs(1),
        std::sync::Arc::new(move |i: usize| {
            match i {
                // Never told to go on: hangs until the test ends.
                1 => {
                    let _ = hang.lock().unwrap().recv();
                }
                3 => panic!("item 3 fails"),
                _ => {}
            }
            i * 10
        }),
    );
    out.sort_by_key(|(i, _)| *i);
    assert_eq!(
        out,
        vec![
            (0, Some(0)),
            (1, None),
            (2, Some(20)),
            (3, None),
            (4, Some(40)),
            (5, Some(50))
        ]
    );
    drop(hang_tx);
}

#[test]
fn a_panicking_item_gives_its_servers_slot_back() {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // Ten items of one ssh server (4 at a time); four of them panic, which
        // would hold all four slots if a panic kept its slot. The items after them
        // still run, and the results stop where the first panicked item's would be.
        let out: Vec<usize> = ordered_per_host(
            (0..10).collect(),
            |_: &usize| Some("ssh://git@127.0.0.1:9/x.git".to_owned()),
            8,
            |i: usize| {
                assert!(!(4..8).contains(&i), "item {i} fails");
                i
            },
        )
        .collect();
        let _ = tx.send(out);
    });
    let out = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the pool finished");
    assert_eq!(out, vec![0, 1, 2, 3]);
}

#[test]
fn branches_compare_heads() {
    let r = refs(&[
        ("HEAD", "h"),
        ("refs/heads/main", "h"),
        ("refs/heads/dev", "d"),
    ]);
    assert_eq!(
        decide(&entry(RefKind::Branch, "dev", "d"), &r, false),
        Status::UpToDate
    );
    assert_eq!(
        decide(&entry(RefKind::Default, "", "old"), &r, false),
        Status::Behind {
            new_ref: String::new(),
            commit: "h".into()
        }
    );
    assert!(matches!(
        decide(&entry(RefKind::Branch, "gone", "d"), &r, false),
        Status::Error { .. }
    ));
}
