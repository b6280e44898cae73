//! The only place that writes to stdout and stderr.
//!
//! stdout carries the command's output (reports, schemas, completions);
//! stderr carries errors that stopped a command, status lines and warnings about
//! configuration files. Everything written goes through [`crate::auth::redact`] (URL
//! userinfo, credential query values and authorizations hidden, control and bidi
//! characters escaped), whatever format it is in, with one exception: a validation
//! report's host message and quotes of the manifest are the host's and the file's own
//! bytes, so only their control characters are escaped ([`Printer::report_text`]).

use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::context::Context;
use crate::diagnostic::Diagnostic;
use crate::render::human::Style;

/// Output settings derived once from flags, environment and terminals.
#[derive(Clone, Copy, Debug)]
pub struct Printer {
    pub quiet: bool,
    stdout_color: bool,
    stderr_color: bool,
    /// stderr is a terminal that can redraw a line (not `TERM=dumb`).
    stderr_live: bool,
    /// `--log-format json`: status lines and errors as JSON lines.
    log_json: bool,
    /// `-v` (and not `-q`): the domain's `log::debug!` steps go to stderr.
    verbose: bool,
    /// Text log lines (status, warnings, errors, a log-writing command's report) start
    /// with an RFC 3339 timestamp: `--timestamps`, or [`Printer::logging`] off a terminal.
    timestamps: bool,
    /// The command writes a log ([`Printer::logging`]): with `--log-format json` its
    /// report lines are JSON objects too.
    log: bool,
    stderr_tty: bool,
    width: usize,
}

/// Writes the domain's `log` records (git and HTTP steps) to stderr under `-v`:
/// `debug: <message>`, or a `{"at", "level": "debug", "message"}` line with
/// `--log-format json`. Only this crate's records; every message is redacted again.
struct Logger {
    json: std::sync::atomic::AtomicBool,
    timestamps: std::sync::atomic::AtomicBool,
}

static LOGGER: Logger = Logger {
    json: std::sync::atomic::AtomicBool::new(false),
    timestamps: std::sync::atomic::AtomicBool::new(false),
};

impl log::Log for Logger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Debug && metadata.target().starts_with("plugins")
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let message = crate::auth::redact(&record.args().to_string());
        let mut err = std::io::stderr().lock();
        if self.json.load(std::sync::atomic::Ordering::Relaxed) {
            let doc = serde_json::json!({
                "at": crate::clock::now(), "level": "debug", "message": message,
            });
            let _ = writeln!(err, "{doc}");
        } else if self.timestamps.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = writeln!(err, "{} debug: {message}", crate::clock::now());
        } else {
            let _ = writeln!(err, "debug: {message}");
        }
    }

    fn flush(&self) {}
}

impl Printer {
    pub fn new(global: &GlobalArgs, cx: &Context) -> Self {
        let decide = |tty: bool| match global.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                (tty && !cx.term_dumb && !cx.clicolor_off || cx.force_color) && !cx.no_color
            }
        };
        let stderr_tty = std::io::stderr().is_terminal();
        let log_json = global.log_format == LogFormat::Json;
        let verbose = global.verbose && !global.quiet;
        Printer {
            quiet: global.quiet,
            verbose,
            stdout_color: decide(std::io::stdout().is_terminal()),
            stderr_color: decide(stderr_tty) && !log_json,
            // A spinner would redraw over `-v`'s lines.
            stderr_live: stderr_tty && !cx.term_dumb && !log_json && !verbose,
            log_json,
            timestamps: global.timestamps && !log_json,
            log: false,
            stderr_tty,
            width: cx.columns.unwrap_or(100).clamp(40, 200),
        }
    }

    /// The printer of a command that writes a log (`autoupdate`, run from cron or a
    /// timer): its text lines carry timestamps unless stderr is a terminal, and with
    /// `--log-format json` its report is JSON lines on stdout.
    pub fn logging(&self) -> Printer {
        let timestamps = self.timestamps || (!self.stderr_tty && !self.log_json);
        LOGGER
            .timestamps
            .store(timestamps, std::sync::atomic::Ordering::Relaxed);
        Printer {
            timestamps,
            log: true,
            ..*self
        }
    }

    /// `line` as a log line: after a timestamp (its indentation dropped) when the
    /// printer stamps lines, else as it is.
    fn stamp(&self, line: &str) -> String {
        if self.timestamps {
            format!("{} {}", crate::clock::now(), line.trim_start())
        } else {
            line.to_owned()
        }
    }

    /// With `-v`, send the domain's `log::debug!` records to stderr (once per process;
    /// without `-v` nothing is logged).
    pub fn start_log(&self) {
        if !self.verbose {
            return;
        }
        LOGGER
            .json
            .store(self.log_json, std::sync::atomic::Ordering::Relaxed);
        LOGGER
            .timestamps
            .store(self.timestamps, std::sync::atomic::Ordering::Relaxed);
        if log::set_logger(&LOGGER).is_ok() {
            log::set_max_level(log::LevelFilter::Debug);
        }
    }

    /// Whether a spinner or progress bar may be drawn: stderr is a live terminal,
    /// not `-q`, not `--log-format json`.
    pub fn live_progress(&self) -> bool {
        self.stderr_live && !self.quiet
    }

    /// One `--log-format json` line: `{"at", "level", "message", ...}`.
    fn log_line(&self, level: &str, message: &str, mut extra: serde_json::Value) {
        crate::auth::redact_json(&mut extra);
        let message = crate::auth::redact(message);
        let mut doc = serde_json::json!({
            "at": crate::clock::now(),
            "level": level,
            "message": message.trim(),
        });
        if let (Some(doc), serde_json::Value::Object(extra)) = (doc.as_object_mut(), extra) {
            doc.extend(extra);
        }
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{doc}");
    }

    /// A text report on stdout: every [`Line::Data`], and the [`Line::Outcome`]s unless
    /// `-q` (the printer decides what quiet leaves out, not the command). Each line
    /// is timestamped when the printer stamps lines.
    pub fn report(&self, lines: &[Line]) -> std::io::Result<()> {
        let shown = lines.iter().filter_map(|l| match l {
            Line::Data(t) => Some(("info", t.as_str())),
            Line::Problem(t) => Some(("error", t.as_str())),
            Line::Outcome(t) if !self.quiet => Some(("info", t.as_str())),
            Line::Outcome(_) => None,
        });
        if self.log && self.log_json {
            // A log collector's stdout: `{"at", "level", "message"}` per line.
            let text: String = shown
                .flat_map(|(level, t)| t.lines().map(move |l| (level, l)))
                .map(|(level, l)| {
                    let doc = serde_json::json!({
                        "at": crate::clock::now(), "level": level, "message": l.trim(),
                    });
                    format!("{doc}\n")
                })
                .collect();
            return self.out(&text);
        }
        let text: String = shown
            .map(|(_, t)| t)
            .flat_map(|t| t.split_inclusive('\n'))
            .map(|line| self.stamp(line))
            .collect();
        self.out(&text)
    }

    /// Data to stdout unless `-q`: the line saying what went well (`Installed …`).
    pub fn outcome(&self, text: &str) -> std::io::Result<()> {
        if self.quiet { Ok(()) } else { self.out(text) }
    }

    /// How reports on stdout are drawn.
    pub fn stdout_style(&self) -> Style {
        Style {
            color: self.stdout_color,
            width: self.width,
        }
    }

    /// Write data to stdout. A closed pipe (`| head`) is not an error.
    pub fn out(&self, text: &str) -> std::io::Result<()> {
        let text = if self.stdout_color {
            crate::auth::redact_styled(text)
        } else {
            crate::auth::redact(text)
        };
        self.write_out(&text)
    }

    /// Write to stdout as it is. A closed pipe (`| head`) is not an error.
    fn write_out(&self, text: &str) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        }
    }

    /// A rendered validation report (`validate`, an invalid plugin's report) to stdout.
    /// A report quotes the host's message and the manifest's own text, which are shown
    /// as they are: only control characters are escaped here. What `plugins` says in it
    /// about where the plugin came from (its root, a source) was redacted by the caller
    /// ([`crate::render::shown`]).
    pub fn report_text(&self, text: &str) -> std::io::Result<()> {
        self.write_out(&crate::auth::escape(text, self.stdout_color))
    }

    /// One JSON document on stdout (`--json`; never silenced by `-q`), inside the
    /// envelope every command shares: `{"format_version": 1, ...fields}`.
    pub fn json(&self, fields: impl serde::Serialize) -> std::io::Result<()> {
        let fields = serde_json::to_value(fields).map_err(std::io::Error::other)?;
        let mut doc = serde_json::json!({ "format_version": 1 });
        if let (Some(doc), serde_json::Value::Object(fields)) = (doc.as_object_mut(), fields) {
            doc.extend(fields);
        }
        crate::auth::redact_json(&mut doc);
        self.out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).expect("serializes")
        ))
    }

    /// A status line on stderr (progress, what is about to happen).
    pub fn status(&self, line: &str) {
        if self.log_json {
            return self.log_line("status", line, serde_json::Value::Null);
        }
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", crate::auth::redact(&self.stamp(line.trim_end())));
    }

    /// A progress line on stderr (`Fetching …`, `Building …`), left out under `-q`.
    pub fn progress(&self, line: &str) {
        if !self.quiet {
            self.status(line);
        }
    }

    /// A warning on stderr that is not about a file's text (a cleartext source, a
    /// changed plugin): `warning[CODE]: message`, or with `--log-format json` one
    /// `{"level": "warning", "code", ...}` object. Shown even with `-q`.
    pub fn warning(&self, code: crate::diagnostic::Code, message: &str) {
        if self.log_json {
            let extra = serde_json::json!({ "code": code.as_str() });
            return self.log_line("warning", message, extra);
        }
        let mut err = std::io::stderr().lock();
        let line = self.stamp(&format!("warning[{code}]: {}", message.trim_end()));
        let _ = writeln!(err, "{}", crate::auth::redact(&line));
    }

    /// Ask a question on stderr and read one line from stdin (empty at end of input).
    pub fn prompt(&self, question: &str) -> std::io::Result<String> {
        Ok(self.prompt_line(question)?.unwrap_or_default())
    }

    /// Ask a question on stderr and read one trimmed line from stdin; `None` at
    /// end of input (Ctrl-D), after ending the prompt's line.
    #[allow(clippy::print_stderr)] // the printer is the one writer (Cargo.toml [lints])
    pub fn prompt_line(&self, question: &str) -> std::io::Result<Option<String>> {
        eprint!("{}: ", crate::auth::redact(question));
        std::io::stderr().flush()?;
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut std::io::stdin().lock(), &mut line)? == 0 {
            eprintln!();
            return Ok(None);
        }
        Ok(Some(line.trim().to_owned()))
    }

    /// Diagnostics about a file the command read (a config, not a plugin), on stderr,
    /// labelled in `text`, the file's contents.
    pub fn file_diagnostics(&self, diagnostics: &[Diagnostic], path: &Path, text: &str) {
        if diagnostics.is_empty() {
            return;
        }
        if self.log_json {
            for d in diagnostics {
                let extra = serde_json::json!({
                    "code": d.code.as_str(), "file": path.display().to_string(), "help": d.help,
                });
                self.log_line("warning", &d.message, extra);
            }
            return;
        }
        if self.timestamps {
            // A log: one line per finding, not a drawing of the file.
            let mut err = std::io::stderr().lock();
            let lines = crate::render::Lines::new(text);
            for d in diagnostics {
                let at = d.labels.first().map_or(String::new(), |l| {
                    let (line, col) = lines.line_col(l.span.start);
                    format!(":{line}:{col}")
                });
                let help = d
                    .help
                    .as_ref()
                    .map_or(String::new(), |h| format!(" (help: {h})"));
                let line = format!(
                    "{}[{}]: {}{at}: {}{help}",
                    match d.severity {
                        crate::diagnostic::Severity::Error => "error",
                        crate::diagnostic::Severity::Warning => "warning",
                    },
                    d.code,
                    path.display(),
                    d.message
                );
                let _ = writeln!(err, "{}", crate::auth::redact(&self.stamp(&line)));
            }
            return;
        }
        let src = crate::render::human::Source::new(crate::render::display_path(path), text);
        let style = Style {
            color: self.stderr_color,
            width: self.width,
        };
        let mut err = std::io::stderr().lock();
        for d in diagnostics {
            let shown = crate::render::human::diagnostic(d, Some(&src), style);
            let _ = err.write_all(self.clean_stderr(&shown).as_bytes());
        }
    }

    /// Report an error that stopped the command; an invalid plugin's report
    /// goes to stdout first.
    pub fn fail(&self, e: &crate::error::Error) {
        if let crate::error::Error::Install(install) = e
            && let crate::install::InstallError::Invalid(report) = &**install
        {
            let shown = crate::render::shown(report);
            let _ = self.report_text(&crate::render::human::report(&shown, self.stdout_style()));
        }
        self.error(e);
    }

    /// Report an error that stopped the command.
    #[allow(clippy::print_stderr)] // the printer is the one writer (Cargo.toml [lints])
    pub fn error(&self, e: &dyn miette::Diagnostic) {
        if self.log_json {
            let extra = serde_json::json!({
                "code": e.code().map(|c| c.to_string()),
                "help": e.help().map(|h| h.to_string()),
            });
            return self.log_line("error", &e.to_string(), extra);
        }
        if self.timestamps {
            // A log: the error on one line.
            let code = e.code().map_or(String::new(), |c| format!("[{c}]"));
            let help = e.help().map_or(String::new(), |h| format!(" (help: {h})"));
            let line = self.stamp(&format!("error{code}: {e}{help}"));
            eprintln!("{}", crate::auth::redact(&line.replace('\n', " ")));
            return;
        }
        let mut s = String::new();
        let handler = crate::render::human::handler(Style {
            color: self.stderr_color,
            width: self.width,
        });
        if handler.render_report(&mut s, e).is_err() {
            s = format!("error: {e}\n");
        }
        // The handler never breaks a word, so a URL is redacted whole.
        eprint!("{}", self.clean_stderr(&s));
    }

    /// [`crate::auth::redact`] for text to stderr, keeping the colors drawn there.
    fn clean_stderr(&self, text: &str) -> String {
        if self.stderr_color {
            crate::auth::redact_styled(text)
        } else {
            crate::auth::redact(text)
        }
    }
}

/// Options every command accepts.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// When to use color: auto honours NO_COLOR and whether output is a terminal
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Print only problems: no status lines, no progress, no summary of what went well
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Show the git and HTTP steps on stderr: each URL with its proxy and credential
    /// source, ref listings, fetches, downloads, redirects (secrets redacted)
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Status lines and errors on stderr as text, or one JSON object per line with an
    /// RFC 3339 timestamp (for logs)
    #[arg(long, value_enum, global = true, default_value_t = LogFormat::Text, value_name = "FORMAT")]
    pub log_format: LogFormat,
    /// Text logs: start each status line, warning and error on stderr (and autoupdate's
    /// report lines) with an RFC 3339 timestamp, one line each. autoupdate does so
    /// whenever stderr is not a terminal
    #[arg(long, global = true)]
    pub timestamps: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// One line of a text report ([`Printer::report`]), newline included.
#[derive(Clone, Debug)]
pub enum Line {
    /// Always printed: what the user asked to see (held back, would update, updated by
    /// autoupdate).
    Data(String),
    /// Always printed: what failed or needs a person (`"level": "error"` in a JSON log).
    Problem(String),
    /// Left out under `-q`: what went well.
    Outcome(String),
}
