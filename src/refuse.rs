//! The refusals of the `ops` layer, one function per refusal (cargo-deny's
//! `src/bans/diags.rs`): each writes its code, message and way out once, and the call site
//! names what happened. The commands' own refusals are [`crate::error::Refusal`].

use std::fmt::Display;
use std::path::Path;

use crate::diagnostic::Code;
use crate::error::Error;

/// The one place an `ops` refusal is built.
fn refused(code: Code, message: String, help: impl Into<Option<String>>) -> Error {
    Error::Refused {
        code,
        message,
        help: help.into(),
    }
}

/// `update`, `verify`: an id no home's lock has — the commands' own refusal, written once
/// with its way out in [`crate::error::Refusal::NotInstalled`].
pub fn not_installed(id: &str) -> Error {
    crate::error::Refusal::NotInstalled { id: id.to_owned() }.into()
}

/// A consent that could not be asked: which command, what it would have granted, and the
/// flag that grants it. `why` says why nobody was asked (`stdin is not a terminal`);
/// `again` is the command line to re-run with `--yes`, when it is not the user's own.
pub fn unasked(
    command: &str,
    why: &str,
    r: &crate::install::Request,
    again: Option<&str>,
) -> Error {
    let message = format!(
        "`plugins {command}` cannot ask for consent ({why}): {} asks for {}; nothing was granted",
        r.id,
        crate::reporter::asks_for(r)
    );
    let help = match again {
        Some(again) => format!("re-run with --yes to grant it: {again} --yes"),
        None => format!("re-run the same `plugins {command}` with --yes to grant it"),
    };
    refused(Code::InstallDeclined, message, help)
}

/// `sync`: an installed tree that no longer hashes to the locked one.
pub fn tampered(id: &str, at: Option<&str>) -> Error {
    let at = at.unwrap_or("the locked source");
    let message = format!("{id} at {at} no longer hashes to the locked tree");
    let help = "the source changed under the same commit or path; inspect it before trusting it";
    refused(Code::InstallTampered, message, help.to_owned())
}

/// `--frozen`'s way out: the first words for a row it cannot honour (each refusal's
/// message already says "nothing was changed").
const FROZEN: &str = "--frozen installs only what the lock pins";

/// `sync --frozen`: the locked commit cannot be fetched.
pub fn frozen_unfetchable(id: &str, commit: Option<&str>, why: impl Display) -> Error {
    let commit = commit.unwrap_or("(none)");
    let message =
        format!("{id}: the locked commit {commit} cannot be fetched: {why}; nothing was changed");
    let help = format!(
        "{FROZEN}; with the server down, fetch from a mirror (git's url.<mirror>.insteadOf, PLUGINS_GH_BASE for gh: sources) or install from a bundle (`plugins sync --frozen --from FILE`)"
    );
    refused(Code::SyncMissingCommit, message, help)
}

/// `sync --frozen`: the locked release asset cannot be had as locked.
pub fn frozen_asset(id: &str, why: impl Display) -> Error {
    let message = format!(
        "{id}: the locked release asset cannot be had as locked: {why}; nothing was changed"
    );
    let help = format!("{FROZEN}; the release must still serve the asset with the lock's sha256");
    refused(Code::SyncAssetMismatch, message, help)
}

/// `sync --frozen`: a row of a fetched source pins no commit.
pub fn frozen_no_commit(id: &str, source: &str) -> Error {
    let message = format!("{id}: the lock names no commit for {source}; nothing was changed");
    let help = "a frozen sync installs only pinned commits; `plugins update` (or `plugins sync` without --frozen) pins one";
    refused(Code::SyncMissingCommit, message, help.to_owned())
}

/// `sync --frozen`: a row without a tree hash to check its files against.
pub fn frozen_no_tree_hash(id: &str) -> Error {
    let message = format!(
        "{id}: the lock records no tree_hash, so its files cannot be checked; nothing was changed"
    );
    let help = "a row the host's own installer wrote has none; `plugins sync` without --frozen (or `plugins update`) records one";
    refused(Code::SyncTreeMismatch, message, help.to_owned())
}

/// `sync --frozen`: the command line's host profile conflicts with the lock's.
pub fn frozen_profile(id: &str, conflicts: &[String], locked_flags: &str) -> Error {
    let message = format!(
        "{id}: the lock was made under another host profile: {}; nothing was changed",
        conflicts.join(", ")
    );
    let help = format!(
        "run it with the lock's profile ({locked_flags}) or without the flags; to move to another host, `plugins update` under the new profile"
    );
    refused(Code::SyncProfileMismatch, message, help)
}

/// `sync --from`: a home without the lock the bundle was made from.
pub fn bundle_no_lock(home: &Path, lockfile: &Path) -> Error {
    let message = format!(
        "{} has no plugins.lock: a bundle installs the lock committed beside it; nothing was changed",
        home.display()
    );
    let help = format!(
        "put the committed plugins.lock at {} (the bundle was made from it), then run the same command",
        lockfile.display()
    );
    refused(Code::SyncBundle, message, help)
}

/// `sync --from`: the bundle was made from another lock than the home's.
pub fn bundle_other_lock(lockfile: &Path, there: &str, bundled: &str) -> Error {
    let message = format!(
        "the bundle was made from another lock than {} ({there} there, {bundled} bundled); nothing was changed",
        lockfile.display()
    );
    let help = "make the bundle from the lock this home has (`plugins bundle --home H -o FILE`), or put the bundled plugins.lock in the home";
    refused(Code::SyncBundle, message, help.to_owned())
}

/// `sync --from`: an archive `plugins bundle` did not write (or not as it wrote it).
pub fn not_a_bundle(shown: &str, why: &str) -> Error {
    let message =
        format!("{shown} is not a bundle plugins can install: {why}; nothing was changed");
    let help = "use an archive `plugins bundle` wrote, as it wrote it";
    refused(Code::SyncBundle, message, help.to_owned())
}

/// `sync --from`: builds for another platform than this machine's.
pub fn bundle_platform(shown: &str, named: &str, built: &[&str], here: &str) -> Error {
    let message = format!(
        "{shown} carries plugins built for {named} ({}), but this machine is {here}; nothing was changed",
        built.join(", ")
    );
    let help = format!(
        "make the bundle on a {here} machine (`plugins bundle` carries the builds of the platform it runs on)"
    );
    refused(Code::SyncBundlePlatform, message, help)
}

/// The way out of a bundle that lacks what the lock pins.
const BUNDLE_THIS_LOCK: &str = "bundle the lock this home has: `plugins bundle --home H -o FILE`";

/// `sync --from`: the bundle holds no tree of a locked plugin.
pub fn bundle_no_tree(id: &str) -> Error {
    let message = format!("the bundle holds no tree of {id}; nothing was changed");
    refused(Code::SyncBundle, message, BUNDLE_THIS_LOCK.to_owned())
}

/// `sync --from`: the bundled build output does not hash to the lock's.
pub fn bundle_build_mismatch(id: &str, hash: Option<&str>, locked: Option<&str>) -> Error {
    let message = format!(
        "the bundled build output of {id} hashes to {} but the lock pins {}; nothing was changed",
        hash.unwrap_or("nothing"),
        locked.unwrap_or("none")
    );
    refused(Code::SyncBundle, message, BUNDLE_THIS_LOCK.to_owned())
}

/// `bundle`: an installed tree that cannot be walked.
pub fn bundle_unwalkable(why: impl Display) -> Error {
    let help = "bundle a lock whose trees are plain files";
    refused(Code::SyncBundle, why.to_string(), help.to_owned())
}

/// `bundle`: a file inside a `.git` directory of an installed tree.
pub fn bundle_git_dir(path: &str) -> Error {
    let message = format!(
        "{path} is inside a .git directory, which no hash covers and a bundle never carries; nothing was written"
    );
    let help = "remove it from the installed plugin (`plugins sync --repair`)";
    refused(Code::SyncBundle, message, help.to_owned())
}

/// `bundle`: a symbolic link in an installed tree.
pub fn bundle_symlink(path: &str) -> Error {
    let message =
        format!("{path} is a symbolic link, which a bundle cannot carry; nothing was written");
    let help = "sync such a plugin online (`plugins sync --frozen` through a mirror)";
    refused(Code::SyncBundle, message, help.to_owned())
}

/// `bundle`: the archive cannot be written.
pub fn bundle_unwritable(output: &Path, why: impl Display) -> Error {
    let message = format!(
        "cannot write {}: {why}; nothing was written",
        output.display()
    );
    let help = "choose a writable -o path that does not exist (or a regular file, with --force)";
    refused(Code::SyncBundle, message, help.to_owned())
}

/// `bundle -o`: a path where an archive is never written, and the way out.
fn bundle_output(output: &Path, why: &str, help: &str) -> Error {
    let message = format!("{}: {why}; nothing was written", output.display());
    refused(Code::SyncBundle, message, help.to_owned())
}

/// `bundle -o` inside the home being bundled.
pub fn bundle_output_in_home(output: &Path, home: &Path) -> Error {
    let why = format!("it is inside the home {} being bundled", home.display());
    let help = "write the bundle outside the home (`-o ../plugins-bundle.tar`)";
    bundle_output(output, &why, help)
}

/// `bundle -o` of an existing file, without `--force`.
pub fn bundle_output_exists(output: &Path) -> Error {
    let help = "pass --force to replace it, or choose another -o path";
    bundle_output(output, "it exists", help)
}

/// `bundle -o` of something other than a regular file.
pub fn bundle_output_kind(output: &Path, kind: &str) -> Error {
    let why = format!("it is a {kind} (not a regular file), which is never replaced");
    bundle_output(output, &why, "choose another -o path")
}

/// `bundle -o` of a path that cannot be looked at.
pub fn bundle_output_unusable(output: &Path, why: &str) -> Error {
    bundle_output(output, why, "choose another -o path")
}
