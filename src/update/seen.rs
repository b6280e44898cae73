//! The first-seen record: when this home first saw each newer version of a source, and
//! which commit each tag named then. A cooldown counts from it, never from the dates a
//! publisher writes into commits and tags.
//!
//! `<home>/.plugins/first-seen.json`, replaced atomically by `outdated`, `update` and
//! `autoupdate` (recovery deletes the temp file of a write killed midway). Those commands
//! do not all hold the home lock: two running at once may lose each other's new entries,
//! which only makes a version count as seen later (held back longer), never earlier.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::store::Home;

/// The most versions and tags kept per source (the oldest go first).
const KEEP: usize = 256;

/// One source's versions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Seen {
    /// Commit → when this home first saw it (Unix seconds).
    #[serde(default)]
    pub(super) commits: BTreeMap<String, u64>,
    /// Tag → the commit it named when last seen.
    #[serde(default)]
    pub(super) tags: BTreeMap<String, String>,
    /// Tags this home saw name more than one commit: their releases date nothing.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub(super) moved: std::collections::BTreeSet<String>,
}

/// The record, by source (as the lock names it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FirstSeen {
    #[serde(default)]
    pub(super) sources: BTreeMap<String, Seen>,
}

/// What the record says about one version once it is noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Noted {
    /// When this home first saw the commit (now, if it never had).
    pub(super) first_seen: u64,
    /// The tag named another commit when this home saw it before.
    pub(super) tag_moved: bool,
}

impl FirstSeen {
    /// The home's record; an absent or unreadable one is empty (every version is new).
    pub(super) fn load(home: &Home) -> FirstSeen {
        fs_err::read(home.first_seen_record())
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Note that `source` offers `commit` (as `tag`, when it is one) at `now`.
    pub(super) fn note(
        &mut self,
        source: &str,
        commit: &str,
        tag: Option<&str>,
        now: u64,
    ) -> Noted {
        let seen = self.sources.entry(source.to_owned()).or_default();
        let first_seen = *seen.commits.entry(commit.to_owned()).or_insert(now);
        let tag_moved = tag.is_some_and(|t| {
            let before = seen.tags.insert(t.to_owned(), commit.to_owned());
            if before.is_some_and(|b| b != commit) && seen.moved.len() < KEEP {
                seen.moved.insert(t.to_owned());
            }
            seen.moved.contains(t)
        });
        if seen.commits.len() > KEEP {
            let mut by_age: Vec<(u64, String)> =
                seen.commits.iter().map(|(c, t)| (*t, c.clone())).collect();
            by_age.sort();
            for (_, c) in by_age.into_iter().take(seen.commits.len() - KEEP) {
                if c != commit {
                    seen.commits.remove(&c);
                }
            }
        }
        while seen.tags.len() > KEEP {
            let drop = seen.tags.keys().find(|t| Some(t.as_str()) != tag).cloned();
            match drop {
                Some(t) => seen.tags.remove(&t),
                None => break,
            };
        }
        Noted {
            first_seen,
            tag_moved,
        }
    }

    /// Write the record atomically (a reader sees the old or the new one).
    pub(super) fn save(&self, home: &Home) -> Result<(), crate::lock::LockError> {
        let mut text = serde_json::to_string_pretty(self).expect("serializes");
        text.push('\n');
        crate::lock::write_atomic(&home.first_seen_record(), text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sight_is_kept_and_moved_tags_are_seen() {
        let mut r = FirstSeen::default();
        let a = r.note("gh:o/r", "aaaa", Some("v1"), 100);
        assert_eq!(
            a,
            Noted {
                first_seen: 100,
                tag_moved: false
            }
        );
        // Seen again later: still first seen at 100.
        assert_eq!(r.note("gh:o/r", "aaaa", Some("v1"), 500).first_seen, 100);
        // The tag now names another commit.
        let b = r.note("gh:o/r", "bbbb", Some("v1"), 600);
        assert_eq!(
            b,
            Noted {
                first_seen: 600,
                tag_moved: true
            }
        );
        // And it stays moved.
        assert!(r.note("gh:o/r", "bbbb", Some("v1"), 700).tag_moved);
        // Another source is another record.
        assert_eq!(r.note("gh:o/x", "aaaa", None, 700).first_seen, 700);
    }

    #[test]
    fn the_record_is_bounded() {
        let mut r = FirstSeen::default();
        for n in 0..(KEEP as u64 + 10) {
            r.note("s", &format!("{n:040}"), Some(&format!("t{n}")), n);
        }
        let seen = &r.sources["s"];
        assert_eq!((seen.commits.len(), seen.tags.len()), (KEEP, KEEP));
        assert!(!seen.commits.contains_key(&format!("{:040}", 0)));
    }
}
