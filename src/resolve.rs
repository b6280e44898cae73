//! AWorld activation resolution (spec `aworld.md` §8): one pass in discovery
//! order; a dependency must already be active, a conflict with an active plugin
//! (either side's declaration) skips the newcomer. Pure: no I/O.

use std::path::PathBuf;

/// A plugin that passed validation, in discovery order.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub id: String,
    pub path: PathBuf,
    pub framework: &'static str,
    pub dependencies: Vec<String>,
    pub conflicts: Vec<String>,
}

/// The outcome for one plugin.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Decision {
    pub id: String,
    pub path: PathBuf,
    pub framework: &'static str,
    /// `None` when active; else the host's reason string.
    pub skipped: Option<String>,
}

/// Resolve activation exactly as the host does, then apply the registry's
/// duplicate-id rule (the first registration wins).
pub fn resolve(plugins: &[Candidate]) -> Vec<Decision> {
    let mut accepted: Vec<&str> = Vec::new();
    // (id, its conflicts) in acceptance order; a later duplicate id overwrites in place.
    let mut accepted_conflicts: Vec<(&str, &[String])> = Vec::new();
    let mut out = Vec::with_capacity(plugins.len());
    for p in plugins {
        let reason = {
            let missing: Vec<&str> = p
                .dependencies
                .iter()
                .map(String::as_str)
                .filter(|d| !accepted.contains(d))
                .collect();
            let conflicting: Vec<&str> = p
                .conflicts
                .iter()
                .map(String::as_str)
                .filter(|c| accepted.contains(c))
                .collect();
            let reverse: Vec<&str> = accepted_conflicts
                .iter()
                .filter(|(_, cs)| cs.contains(&p.id))
                .map(|(a, _)| *a)
                .collect();
            if !missing.is_empty() {
                Some(format!("missing dependencies: {}", missing.join(", ")))
            } else if !conflicting.is_empty() {
                Some(format!(
                    "conflicts with active plugins: {}",
                    conflicting.join(", ")
                ))
            } else if !reverse.is_empty() {
                Some(format!(
                    "blocked by active plugin conflicts: {}",
                    reverse.join(", ")
                ))
            } else {
                None
            }
        };
        if reason.is_none() {
            if accepted.contains(&p.id.as_str()) {
                // Registration rejects the second copy, but resolution already counted it.
                if let Some(slot) = accepted_conflicts.iter_mut().find(|(a, _)| *a == p.id) {
                    slot.1 = &p.conflicts;
                }
            } else {
                accepted.push(&p.id);
                accepted_conflicts.push((&p.id, &p.conflicts));
            }
        }
        out.push(Decision {
            id: p.id.clone(),
            path: p.path.clone(),
            framework: p.framework,
            skipped: reason,
        });
    }
    let mut registered = std::collections::HashSet::new();
    for d in out.iter_mut().filter(|d| d.skipped.is_none()) {
        if !registered.insert(d.id.clone()) {
            d.skipped = Some(format!("duplicate plugin id: {}", d.id));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: &str, deps: &[&str], conflicts: &[&str]) -> Candidate {
        Candidate {
            id: id.into(),
            path: PathBuf::from(id),
            framework: "manifest",
            dependencies: deps.iter().map(|s| (*s).to_owned()).collect(),
            conflicts: conflicts.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn reasons(ds: &[Decision]) -> Vec<(&str, Option<&str>)> {
        ds.iter()
            .map(|d| (d.id.as_str(), d.skipped.as_deref()))
            .collect()
    }

    #[test]
    fn upstream_test_order() {
        let ds = resolve(&[
            c("base-tools", &[], &[]),
            c("dependent-tools", &["base-tools"], &[]),
            c("missing-dependent", &["not-installed"], &[]),
            c("conflicting-tools", &[], &["base-tools"]),
        ]);
        assert_eq!(
            reasons(&ds),
            [
                ("base-tools", None),
                ("dependent-tools", None),
                (
                    "missing-dependent",
                    Some("missing dependencies: not-installed")
                ),
                (
                    "conflicting-tools",
                    Some("conflicts with active plugins: base-tools")
                ),
            ]
        );
    }

    #[test]
    fn order_cycles_and_reverse_conflicts() {
        let ds = resolve(&[
            c("a", &["b"], &[]),
            c("b", &["a"], &[]),
            c("self", &["self"], &[]),
        ]);
        assert!(
            ds.iter().all(|d| d.skipped.is_some()),
            "cycles and self-dependencies never activate"
        );
        let ds = resolve(&[
            c("x", &[], &["y", "x"]),
            c("y", &[], &[]),
            c("z", &["later"], &["x"]),
            c("later", &[], &[]),
        ]);
        assert_eq!(
            reasons(&ds),
            [
                ("x", None),
                ("y", Some("blocked by active plugin conflicts: x")),
                ("z", Some("missing dependencies: later")),
                ("later", None),
            ]
        );
    }

    #[test]
    fn duplicate_ids_first_wins() {
        let ds = resolve(&[
            c("dup", &[], &[]),
            c("dup", &[], &[]),
            c("user", &["dup"], &[]),
        ]);
        assert_eq!(
            reasons(&ds),
            [
                ("dup", None),
                ("dup", Some("duplicate plugin id: dup")),
                ("user", None)
            ]
        );
    }
}
