//! The host folders are sealed: `src/host/mod.rs` declares each host (and its own helper
//! files) as a private `mod`, so shared code asks the dispatch file's capabilities and the
//! compiler refuses a reach-in. This reads what the compiler checks, as a second guard: no
//! line of `src/` outside `src/host/` names `host::<sealed>::` (or `host::{<sealed>, …}`),
//! comments included, so a doc cannot point at a path that no longer resolves.

use std::collections::BTreeSet;
use std::path::Path;

/// The modules `src/host/mod.rs` may make public: shared helpers, not hosts, and the one
/// re-export point for tests.
const PUBLIC: [&str; 3] = ["detect", "scaffold", "testing"];

/// The `mod` declarations of `src/host/mod.rs`: (name, public).
fn host_modules() -> Vec<(String, bool)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("src/host/mod.rs")).unwrap();
    super::size::production(&text)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let (public, rest) = match l.strip_prefix("pub mod ") {
                Some(rest) => (true, rest),
                None => (false, l.strip_prefix("mod ")?),
            };
            Some((rest.strip_suffix(';')?.to_owned(), public))
        })
        .collect()
}

/// The sealed modules a `host::` path at the start of `after` names.
fn sealed_in(after: &str, sealed: &BTreeSet<String>) -> Vec<String> {
    super::paths_after(after)
        .into_iter()
        .filter(|p| sealed.contains(p.split("::").next().unwrap_or_default()))
        .collect()
}

#[test]
fn only_helpers_and_the_test_surface_are_public_in_the_host_folder() {
    let public: Vec<String> = host_modules()
        .into_iter()
        .filter(|(name, public)| *public && !PUBLIC.contains(&name.as_str()))
        .map(|(name, _)| name)
        .collect();
    assert!(
        public.is_empty(),
        "src/host/mod.rs declares `pub mod` {public:?}: a host folder is a private `mod` \
         (ask src/host/mod.rs; tests go through `host::testing`)"
    );
}

#[test]
fn no_file_outside_the_host_folder_names_a_sealed_module() {
    let sealed: BTreeSet<String> = host_modules()
        .into_iter()
        .filter(|(_, public)| !public)
        .map(|(name, _)| name)
        .collect();
    for host in ["aoe", "aworld", "protoagent"] {
        assert!(sealed.contains(host), "{host} is not a private module");
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    super::sources(&src, &mut files);
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(src.join("host"))) {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        // Every production line, comments included (not only up to a `mod tests;`).
        for (n, line) in super::size::production(&text).lines().enumerate() {
            for (at, _) in line.match_indices("host::") {
                let before = line[..at].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    continue;
                }
                for path in sealed_in(&line[at + "host::".len()..], &sealed) {
                    found.push(format!("src/{rel}:{}: host::{path}", n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths into a sealed host module outside src/host/ (ask src/host/mod.rs):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_reach_in_is_found_alone_and_in_a_group() {
    let sealed: BTreeSet<String> = ["aoe".to_owned(), "protoagent".to_owned()].into();
    assert_eq!(
        sealed_in("aoe::config_path(home)", &sealed),
        ["aoe::config_path"]
    );
    assert_eq!(
        sealed_in("{detect, protoagent::Env}", &sealed),
        ["protoagent::Env"]
    );
    assert!(sealed_in("install_policy(d)", &sealed).is_empty());
}
