//! `plugins install` from a typed source to one output row: the source parsed (and its
//! `--subdir`), `--strict`'s cleartext refusal, consent (asked on a terminal, refused
//! without one unless `--yes`, in aoe's own words for unverified code), then the install
//! pipeline (`install::install`: fetch, check, build, swap, lock).

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use super::apply::{Applier, Caller, Consent, Ready};
use crate::context::Context;
use crate::error::{Refusal, Result};
use crate::host::ValidateOptions;
use crate::install::InstallOptions;
use crate::printer::Printer;
use crate::profile::HostProfile;
use crate::signing::SignArgs;
use crate::source;

/// What `plugins install` was asked to do.
pub struct InstallRequest<'a> {
    /// `gh:owner/repo[@ref]`, a git URL or a local directory, as typed.
    pub source: &'a str,
    pub reference: Option<&'a str>,
    pub subdir: Option<&'a str>,
    pub home: Option<&'a std::path::Path>,
    /// Grant without asking.
    pub yes: bool,
    pub build: bool,
    pub force: bool,
    pub deps: bool,
    pub python: Option<&'a std::path::Path>,
    pub build_timeout: Duration,
    pub wait: bool,
    pub strict: bool,
    pub detect: bool,
    pub profile: HostProfile,
    pub signing: SignArgs,
}

/// The installed plugin (`--json`'s row).
#[derive(Debug, Serialize)]
pub struct InstalledRow {
    pub id: String,
    pub status: InstallStatus,
    pub version: String,
    pub commit: Option<String>,
    pub dir: PathBuf,
    pub home: PathBuf,
}

/// `installed`, or `up_to_date` when that commit was installed already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallStatus {
    Installed,
    UpToDate,
}

pub fn install(req: InstallRequest<'_>, cx: &Context, printer: &Printer) -> Result<InstalledRow> {
    let gh_base = cx
        .gh_base
        .clone()
        .unwrap_or_else(|| "https://github.com".into());
    let mut source = source::parse(req.source, req.reference, &gh_base)?;
    if let Some(subdir) = req.subdir {
        source = source.with_subdir(subdir)?;
    }
    if req.strict
        && let source::Source::Git { url, .. } = &source
        && crate::auth::is_cleartext(url)
    {
        return Err(Refusal::Cleartext { url: url.clone() }.into());
    }
    let home = (req.home.map(|h| cx.absolute(h))).or_else(|| cx.plugins_home.clone());
    let opts = InstallOptions {
        validate: ValidateOptions {
            strict: req.strict,
            ..ValidateOptions::default()
        },
        profile: req.profile,
        build: req.build,
        force: req.force,
        deps: req.deps,
        detect: req.detect,
        python: req.python.map(|p| cx.python_arg(p)),
        build_timeout: req.build_timeout,
        wait: req.wait,
        featured_index: cx.featured_index.clone(),
        signing: req.signing,
        ..InstallOptions::new(source, home, cx.default_homes(), &cx.github_api, "cli")
    };
    // Consent is asked on a terminal, refused without one unless `--yes`.
    let mut applier = Applier::new(printer, Consent::asking(req.yes), Caller::Install);
    let installed = applier.install(&opts, Ready::Unfetched)?;
    drop(applier);
    Ok(InstalledRow {
        status: if installed.up_to_date {
            InstallStatus::UpToDate
        } else {
            InstallStatus::Installed
        },
        id: installed.id,
        version: installed.entry.version,
        commit: installed.entry.commit,
        dir: installed.dir,
        home: installed.home.root,
    })
}
