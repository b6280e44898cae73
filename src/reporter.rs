//! What the user sees while an install runs: progress (a spinner or byte bar on a
//! terminal, plain status lines otherwise) and the consent text.

use std::time::Duration;

use crate::install::{Event, Request};
use crate::printer::Printer;

/// A version as the outcome lines name it: `v0.11.1 @ abc1234567` when the tag names the
/// version (with or without a `v`), `0.11.1 (main @ abc1234567)` for another ref,
/// `0.11.1 @ abc1234567` for the default branch.
pub fn version_at(version: &str, git_ref: &str, commit: &str) -> String {
    let commit = &commit[..commit.len().min(10)];
    if git_ref.is_empty() {
        format!("{version} @ {commit}")
    } else if git_ref.strip_prefix('v').unwrap_or(git_ref) == version {
        format!("{git_ref} @ {commit}")
    } else {
        format!("{version} ({git_ref} @ {commit})")
    }
}

/// What granting `r` grants, only what it asks for: `capabilities [net], build steps
/// [./build.sh], ui [pane p], pip [rich], code that runs inside the host, unverified code`.
pub fn asks_for(r: &Request) -> String {
    let mut parts = Vec::new();
    if !r.capabilities.is_empty() {
        parts.push(format!("capabilities [{}]", r.capabilities.join(", ")));
    }
    if !r.build_steps.is_empty() {
        parts.push(format!("build steps [{}]", r.build_steps.join("; ")));
    }
    if !r.ui.is_empty() {
        parts.push(format!("ui [{}]", r.ui.join(", ")));
    }
    if !r.pip.is_empty() || !r.optional_pip.is_empty() {
        let all: Vec<&str> = r
            .pip
            .iter()
            .map(String::as_str)
            .chain(r.optional_pip.iter().map(String::as_str))
            .collect();
        parts.push(format!("pip [{}]", all.join(", ")));
    }
    if !r.pins.is_empty() {
        parts.push(format!("locked wheels [{}]", r.pins.join(", ")));
    }
    if r.runs_code {
        parts.push("code that runs inside the host".to_owned());
    }
    if r.unverified {
        parts.push("unverified, un-audited code".to_owned());
    }
    if parts.is_empty() {
        "nothing".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The consent prompt text: what the plugin asks for.
pub fn consent_text(r: &Request) -> String {
    let mut s = format!(
        "{} plugin `{}` {} from {}",
        r.dialect, r.id, r.version, r.source
    );
    if let Some(c) = &r.commit {
        s.push_str(&format!(" @ {}", &c[..c.len().min(12)]));
    }
    s.push('\n');
    if !r.reasons.is_empty() {
        s.push_str(&format!("  asked again:  {}\n", r.reasons.join("; ")));
    }
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join(", ")
        }
    };
    s.push_str(&format!("  capabilities: {}\n", list(&r.capabilities)));
    s.push_str(&format!("  build steps:  {}\n", list(&r.build_steps)));
    if !r.ui.is_empty() {
        s.push_str(&format!("  ui:           {}\n", r.ui.join(", ")));
    }
    if !r.pip.is_empty() || !r.optional_pip.is_empty() {
        let optional = if r.optional_pip.is_empty() {
            String::new()
        } else {
            format!(" (optional: {})", r.optional_pip.join(", "))
        };
        s.push_str(&format!("  pip:          {}{optional}\n", list(&r.pip)));
    }
    if !r.pins.is_empty() {
        s.push_str(&format!(
            "  wheels:       {} (as the lock pins them)\n",
            r.pins.join(", ")
        ));
    }
    if r.unverified {
        s.push_str("  unverified:   un-audited code (not a GitHub release of the repository)\n");
    }
    if r.runs_code {
        s.push_str("  runs code inside the host process\n");
    }
    if let Some((old, new)) = &r.signer_change
        && r.reasons.is_empty()
    {
        s.push_str(&format!("  signed by a different key: {old} -> {new}\n"));
    }
    s
}

/// A spinner that clears itself when the command is done with it.
struct Spinner(indicatif::ProgressBar);

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// The spinner while a git fetch receives: the bytes so far and the rate.
fn fetch_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template("{spinner} {msg} {bytes} received, {bytes_per_sec}")
        .expect("a valid template")
}

fn download_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(
        "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
    )
    .expect("a valid template")
    .progress_chars("=> ")
}

/// A handle on the progress spinner (if any) that takes it off the screen while the
/// user is asked something.
#[derive(Clone, Debug, Default)]
pub struct Pause(Option<indicatif::ProgressBar>);

impl Pause {
    /// Run `f` (print the consent text, prompt, read the answer) with the spinner
    /// stopped and cleared, so nothing redraws over the question; it comes back after.
    pub fn during<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(bar) => {
                bar.disable_steady_tick();
                bar.suspend(f)
            }
            None => f(),
        }
    }
}

/// Progress on stderr: a spinner on a live terminal (cleared when the returned
/// closure is dropped: drop it before printing the outcome), plain lines otherwise,
/// nothing with `-q`.
pub fn progress(printer: &Printer) -> impl FnMut(Event) + '_ {
    progress_pausable(printer).0
}

/// [`progress`], and the [`Pause`] a consent prompt runs under.
pub fn progress_pausable(printer: &Printer) -> (impl FnMut(Event) + '_, Pause) {
    let spinner = printer
        .live_progress()
        .then(|| Spinner(indicatif::ProgressBar::new_spinner()));
    let pause = Pause(spinner.as_ref().map(|Spinner(bar)| bar.clone()));
    // Whether the spinner shows a fetch's bytes (its style changes back on the next event).
    let mut counting = false;
    let on_event = move |event| {
        let line = match event {
            Event::Fetching(src) => format!("    Fetching {src}"),
            Event::Received { bytes } => {
                // On a terminal the spinner's line gains the bytes and the rate; off one the
                // `Fetched` line follows.
                if let Some(Spinner(bar)) = &spinner {
                    if !counting {
                        counting = true;
                        bar.reset();
                        bar.set_style(fetch_style());
                    }
                    bar.set_position(bytes);
                }
                return;
            }
            Event::Fetched(commit) => format!("     Fetched {}", &commit[..12]),
            Event::Copied { copied, ignored } => copied_line(copied, ignored),
            Event::Warning { code, message } => {
                // A warning stays on screen (printed above a running spinner), even with --quiet.
                match &spinner {
                    Some(Spinner(bar)) => bar.suspend(|| printer.warning(code, &message)),
                    None => printer.warning(code, &message),
                }
                return;
            }
            Event::WaitingForLock(home) => format!(
                "     Waiting for another plugins process to release {}",
                home.display()
            ),
            Event::Recovered(r) => recovered_line(&r),
            Event::Verified {
                object,
                fingerprint,
                principal,
            } => match principal {
                Some(p) => format!("    Verified {object}: signed by {fingerprint} ({p})"),
                None => format!("    Verified {object}: signed by {fingerprint}"),
            },
            Event::Building { n, total, command } => {
                format!("    Building step {n}/{total}: {command}")
            }
            Event::Downloading { asset, done, total } => {
                if let (Some(Spinner(bar)), Some(t)) = (&spinner, total) {
                    // A byte progress bar while a release asset downloads.
                    if bar.length() != Some(t) {
                        bar.set_message(crate::auth::redact(&format!("Downloading {asset}")));
                        bar.set_length(t);
                        bar.set_style(download_style());
                    }
                    bar.set_position(done);
                    return;
                }
                // Without a terminal, one line when the download completes.
                if spinner.is_none() && total != Some(done) {
                    return;
                }
                format!(" Downloading {asset} {}", size(done))
            }
        };
        show(printer, spinner.as_ref(), &mut counting, &line);
    };
    (on_event, pause)
}

/// The line of a local copy: its files, their size, and what git ignores it left out.
fn copied_line(copied: crate::tree::Copied, ignored: usize) -> String {
    let files = crate::render::plural(copied.files, "file");
    let line = format!("      Copied {files}, {}", size(copied.bytes));
    match ignored {
        0 => line,
        1 => format!("{line} (left out 1 git-ignored entry)"),
        ignored => format!("{line} (left out {ignored} git-ignored entries)"),
    }
}

/// The line of what recovery under the home lock finished or undid.
fn recovered_line(r: &crate::install::txn::Recovered) -> String {
    let mut line = String::from("   Recovered");
    if !r.plugins.is_empty() {
        line.push_str(&format!(
            " the interrupted change to {}",
            r.plugins.join(", ")
        ));
    }
    line.push_str(&removed(r.cleaned));
    line
}

/// Show a progress `line`: on a terminal, as the spinner's message (back to a plain
/// spinner after a byte count or a download bar); off one, through the printer.
fn show(printer: &Printer, spinner: Option<&Spinner>, counting: &mut bool, line: &str) {
    match spinner {
        Some(Spinner(bar)) => {
            if bar.length().is_some() || *counting {
                *counting = false;
                bar.set_style(indicatif::ProgressStyle::default_spinner());
                bar.unset_length();
            }
            bar.enable_steady_tick(Duration::from_millis(100));
            // Straight to the terminal, not through the printer: redacted here.
            bar.set_message(crate::auth::redact(line.trim_start()));
        }
        None => printer.progress(line),
    }
}

/// What recovery removed, after its line: ` (removed 2 leftovers)`, or nothing.
fn removed(cleaned: usize) -> String {
    match cleaned {
        0 => String::new(),
        n => format!(" (removed {})", crate::render::plural(n, "leftover")),
    }
}

/// A download's size: bytes under a KiB (never `0 KiB`), else whole KiB.
fn size(bytes: u64) -> String {
    match bytes {
        ..1024 => format!("{bytes} bytes"),
        _ => format!("{} KiB", bytes / 1024),
    }
}

#[cfg(test)]
mod tests {
    use super::version_at;

    #[test]
    fn the_tag_is_named_once() {
        let c = "abc1234567890";
        assert_eq!(version_at("0.11.1", "v0.11.1", c), "v0.11.1 @ abc1234567");
        assert_eq!(version_at("0.11.1", "0.11.1", c), "0.11.1 @ abc1234567");
        assert_eq!(
            version_at("0.11.1", "main", c),
            "0.11.1 (main @ abc1234567)"
        );
        assert_eq!(
            version_at("0.11.1", "v0.11.2", c),
            "0.11.1 (v0.11.2 @ abc1234567)"
        );
        assert_eq!(version_at("0.11.1", "", c), "0.11.1 @ abc1234567");
    }
}
