//! Cargo-style terminal output: a right-aligned bold status word (`   Compiling`), `warning:` and
//! `error:` prefixes, a progress bar, and the switch to JSON.
//!
//! Status, warnings, errors and the progress bar go to stderr; reports go to stdout, so
//! `--message-format json` leaves exactly one JSON document on stdout. Colour goes through
//! `anstream`, which strips it when the stream is not a terminal or `NO_COLOR` is set (and honours
//! `CLICOLOR_FORCE`), unless `--color` says otherwise.

use std::fmt::Display;
use std::io::Write;

use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use crate::cli::{ColorWhen, MessageFormat};
use crate::error::CliError;

const STATUS: Style = Style::new()
    .bold()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Green)));
const WARN: Style = Style::new()
    .bold()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Yellow)));
const ERROR: Style = Style::new()
    .bold()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Red)));
const HELP: Style = Style::new()
    .bold()
    .fg_color(Some(anstyle::Color::Ansi(AnsiColor::Cyan)));
const BOLD: Style = Style::new().bold();

/// Where and how a command prints.
#[derive(Debug, Clone)]
pub struct Shell {
    format: MessageFormat,
    quiet: bool,
    progress: Option<ProgressBar>,
    /// Set once a JSON report went to stdout; an error after it then stays off stdout so that
    /// stdout remains exactly one document (the report carries the failure, e.g. doctor's `ok`).
    json_written: std::cell::Cell<bool>,
}

impl Shell {
    pub fn new(format: MessageFormat, color: ColorWhen, quiet: bool) -> Self {
        let choice = match color {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        };
        choice.write_global();
        Self {
            format,
            quiet,
            progress: None,
            json_written: std::cell::Cell::new(false),
        }
    }

    pub fn is_json(&self) -> bool {
        self.format == MessageFormat::Json
    }

    /// `   Compiling kernels.cu (sm_86)`: a progress line, suppressed by `--quiet` and in JSON mode.
    pub fn status(&self, verb: &str, message: impl Display) {
        if self.quiet || self.is_json() {
            return;
        }
        self.to_stderr(format!("{STATUS}{verb:>12}{STATUS:#} {message}"));
    }

    /// `warning: …`, shown even with `--quiet` (as cargo does); in JSON mode the report carries it.
    pub fn warn(&self, message: impl Display) {
        if self.is_json() {
            return;
        }
        self.to_stderr(format!("{WARN}warning{WARN:#}{BOLD}:{BOLD:#} {message}"));
    }

    /// `note: …` under a warning or a result.
    pub fn note(&self, message: impl Display) {
        if self.quiet || self.is_json() {
            return;
        }
        self.to_stderr(format!("{BOLD}note:{BOLD:#} {message}"));
    }

    /// Prints an error: as `error: … / help: …` on stderr, and in JSON mode also as a JSON
    /// document on stdout (unless a report is already there) so that a consumer of stdout
    /// always gets exactly one document.
    pub fn error(&self, err: &CliError) {
        let mut text = format!("{ERROR}error{ERROR:#}{BOLD}:{BOLD:#} {err}");
        if let Some(help) = err.help() {
            text.push_str(&format!("\n  {HELP}help{HELP:#}: {help}"));
        }
        self.to_stderr(text);
        if self.is_json() && !self.json_written.get() {
            let doc = serde_json::json!({
                "reason": "error",
                "kind": err.kind(),
                "message": err.to_string(),
                "help": err.help(),
                "exit_code": err.exit_code(),
            });
            // Nothing more can be done if stdout is gone; the exit code still tells.
            let _ = writeln!(anstream::stdout(), "{doc}");
        }
    }

    /// A line of a human report on stdout (never in JSON mode).
    pub fn println(&self, line: impl Display) -> Result<(), CliError> {
        if self.is_json() {
            return Ok(());
        }
        let line = line.to_string();
        match &self.progress {
            Some(pb) => pb.suspend(|| writeln!(anstream::stdout(), "{line}")),
            None => writeln!(anstream::stdout(), "{line}"),
        }
        .map_err(CliError::stdout)
    }

    /// The report as one JSON document on stdout (JSON mode only).
    pub fn json<T: Serialize>(&self, report: &T) -> Result<(), CliError> {
        if !self.is_json() {
            return Ok(());
        }
        let text = serde_json::to_string_pretty(report).map_err(|e| CliError::Internal {
            message: format!("cannot serialise the report: {e}"),
        })?;
        self.json_written.set(true);
        writeln!(anstream::stdout(), "{text}").map_err(CliError::stdout)
    }

    /// Starts a cargo-style progress bar over `len` jobs; hidden when stderr is not a terminal,
    /// with `--quiet`, or in JSON mode. Status lines printed while it runs appear above it.
    pub fn start_progress(&mut self, verb: &str, len: u64) -> ProgressBar {
        let target = if self.quiet || self.is_json() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let style = ProgressStyle::with_template(
            "{prefix:>12.cyan.bold} [{bar:27}] {pos}/{len} {spinner} {wide_msg} {elapsed}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        let pb = ProgressBar::with_draw_target(Some(len), target)
            .with_style(style)
            .with_prefix(verb.to_string());
        self.progress = Some(pb.clone());
        pb
    }

    /// Removes the progress bar (call when the jobs are done).
    pub fn finish_progress(&mut self) {
        if let Some(pb) = self.progress.take() {
            pb.finish_and_clear();
        }
    }

    fn to_stderr(&self, text: String) {
        let write = || {
            // A closed stderr is not worth failing a build over.
            let _ = writeln!(anstream::stderr(), "{text}");
        };
        match &self.progress {
            Some(pb) => pb.suspend(write),
            None => write(),
        }
    }
}

/// Bold text for headings in human reports (stripped when colour is off).
pub fn bold(text: impl Display) -> String {
    format!("{BOLD}{text}{BOLD:#}")
}

/// Yellow bold text for problems inside a report.
pub fn flagged(text: impl Display) -> String {
    format!("{WARN}{text}{WARN:#}")
}

/// Green bold text for a good outcome inside a report.
pub fn good(text: impl Display) -> String {
    format!("{STATUS}{text}{STATUS:#}")
}

/// Red bold text for a failing outcome inside a report.
pub fn bad(text: impl Display) -> String {
    format!("{ERROR}{text}{ERROR:#}")
}

/// Human-readable byte count: `812 B`, `14.2 KiB`, `3.1 MiB`.
pub fn human_bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if f < KIB {
        format!("{n} B")
    } else if f < KIB * KIB {
        format!("{:.1} KiB", f / KIB)
    } else if f < KIB * KIB * KIB {
        format!("{:.1} MiB", f / KIB / KIB)
    } else {
        format!("{:.2} GiB", f / KIB / KIB / KIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_readable() {
        assert_eq!(human_bytes(812), "812 B");
        assert_eq!(human_bytes(14_540), "14.2 KiB");
        assert_eq!(human_bytes(3 * 1024 * 1024 + 200_000), "3.2 MiB");
    }
}
