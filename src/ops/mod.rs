//! The flows that several commands share, between the commands (which parse arguments and
//! render) and the domain modules (which never print): cargo's `ops` layer.
//!
//! * [`apply`]: the one apply pipeline — the sources of a list of installs are fetched and
//!   checked ahead, `--jobs` at a time in the bounded per-server pool, and handed back in
//!   lock order, where an `Applier` installs each one at a time: consent under one
//!   `Consent::{Ask, Refuse, Grant}` (with the no-terminal refusal), the home lock
//!   (recovering first), the swap, and why it stopped (`Stop`). `install`, `update`, `sync`
//!   and `autoupdate` go through it.
//! * [`autoupdate`]: one cron sweep under each home's policy (interval, idle/always,
//!   cooldown), applied through the same pipeline; an update that needs consent is never
//!   applied.
//! * [`bundle`]: `plugins bundle`'s archive of a lock, and its checked reading for
//!   `sync --frozen --from`.
//! * [`check`]: the options `outdated`, `update` and `autoupdate` check remotes with, and
//!   the one check they share ([`crate::update::check::Plan`]) as `outdated` runs it.
//! * [`install`]: `plugins install` from a typed source, through consent, to its row.
//! * [`list`], [`info`]: the installed plugins with what their hosts' records say of them
//!   (switched off, versions a host-written row does not record, wheel deps) and holds.
//! * [`outdated`]: the checks `outdated` shows, one row per plugin.
//! * [`sync`]: `plugins sync` from the lock to one output row per plugin.
//! * [`verify`]: each locked plugin's files against its row, and `--record`'s baselines.
//! * [`update`]: `plugins update` from the checks to one output row per plugin.
//!
//! An `ops` function reports progress, consent prompts and failures as they happen
//! through the printer (as cargo's ops report through its `Shell`); what the command
//! prints at the end (text or `--json`) is the serde model it returns.

/// One plugin that `remove`, `hold`, `unhold` or `rollback` changed, as `--json` prints it
/// (`{"plugins": [row]}`, docs/schema/output/change.json). Keys a command has nothing for
/// are left out.
#[derive(Debug, serde::Serialize)]
pub struct ChangedRow<'a> {
    pub id: &'a str,
    pub status: &'static str,
    pub home: &'a std::path::Path,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<std::path::PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<Option<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_commit: Option<Option<&'a str>>,
    /// `hold`/`unhold`/`rollback`: the hold (null when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold: Option<Option<&'a crate::hold::Hold>>,
}

impl<'a> ChangedRow<'a> {
    pub fn new(id: &'a str, status: &'static str, home: &'a std::path::Path) -> Self {
        ChangedRow {
            id,
            status,
            home,
            dir: None,
            version: None,
            commit: None,
            from_commit: None,
            hold: None,
        }
    }
}

pub mod apply;
pub mod autoupdate;
pub mod bundle;
pub mod check;
pub mod info;
pub mod install;
pub mod list;
pub mod outdated;
pub mod sync;
pub mod update;
pub mod verify;
