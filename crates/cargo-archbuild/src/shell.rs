//! Cargo-style terminal output: a right-aligned bold status word (`   Compiling`), `warning:` and
//! `error:` prefixes, a progress bar, and the switch to JSON.
//!
//! Status, warnings, errors and the progress bar go to stderr; reports go to stdout, so with
//! `--message-format json` stdout holds only JSON Lines ([`crate::messages`]). Colour goes
//! through `anstream`, which strips it when the stream is not a terminal or `NO_COLOR` is set
//! (and honours `CLICOLOR_FORCE`), unless `--color` or else `CARGO_TERM_COLOR` says otherwise;
//! the progress bar follows the same choice.

use std::fmt::Display;
use std::io::Write;

use anstyle::{AnsiColor, Style};
use clap::ValueEnum;
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
    verbose: bool,
    /// Whether stderr gets colour (the progress bar's style needs to know).
    stderr_color: bool,
    progress: Option<ProgressBar>,
    /// Set once a JSON report went to stdout; an error after it then stays off stdout so that
    /// stdout remains exactly one document (the report carries the failure, e.g. doctor's `ok`).
    json_written: std::cell::Cell<bool>,
}

impl Shell {
    /// `color` is `--color`; without it, `CARGO_TERM_COLOR` (`auto`, `always`, `never`) decides,
    /// as for cargo itself.
    pub fn new(
        format: MessageFormat,
        color: Option<ColorWhen>,
        quiet: bool,
        verbose: bool,
    ) -> Self {
        let color = color.unwrap_or_else(|| {
            archbuild::Env::process()
                .with_cargo_metadata(false)
                .var("CARGO_TERM_COLOR")
                .and_then(|v| ColorWhen::from_str(v.trim(), true).ok())
                .unwrap_or(ColorWhen::Auto)
        });
        let choice = match color {
            ColorWhen::Auto => anstream::ColorChoice::Auto,
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
        };
        choice.write_global();
        let stderr_color =
            anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never;
        Self {
            format,
            quiet,
            verbose,
            stderr_color,
            progress: None,
            json_written: std::cell::Cell::new(false),
        }
    }

    pub fn is_json(&self) -> bool {
        self.format == MessageFormat::Json
    }

    /// `-v`: show compiler commands and their output (human mode only).
    pub fn is_verbose(&self) -> bool {
        self.verbose && !self.is_json()
    }

    /// `   Compiling kernels.cu (sm_86)`: a progress line, suppressed by `--quiet` and in JSON mode.
    pub fn status(&self, verb: &str, message: impl Display) {
        if self.quiet || self.is_json() {
            return;
        }
        self.to_stderr(format!("{STATUS}{verb:>12}{STATUS:#} {message}"));
    }

    /// One line on stderr as it is: another tool's words, repeated (`inspect --format cuobjdump`).
    pub fn raw_stderr(&self, line: &str) {
        self.to_stderr(line.to_owned());
    }

    /// `warning: …`, shown even with `--quiet` (as cargo does); in JSON mode a `warning` message.
    pub fn warn(&self, message: impl Display) {
        if self.is_json() {
            let message = message.to_string();
            crate::messages::emit(&crate::messages::Message::Warning { message: &message });
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

    /// Prints an error: as `error: … / help: …` on stderr, and in JSON mode also as an `error`
    /// message on stdout (unless a final report is already there, which then carries the
    /// failure, e.g. doctor's `ok`), so a consumer of stdout always gets a final message.
    /// The message is the error's own: a `CliError` already says what its `source()` says, so
    /// walking the chain would print that twice.
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
            crate::messages::emit(&doc);
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

    /// The command's final report as one JSON line on stdout (JSON mode only).
    pub fn json<T: Serialize>(&self, report: &T) -> Result<(), CliError> {
        if !self.is_json() {
            return Ok(());
        }
        let text = crate::messages::line(report)
            .map_err(|e| CliError::internal(format!("cannot serialise the report: {e}")))?;
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
        let style = ProgressStyle::with_template(progress_template(self.stderr_color))
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

    /// Verbose lines from a build's worker threads: above the progress bar, as `status` does.
    pub fn verbose_printer(&self) -> Option<VerbosePrinter> {
        self.is_verbose().then(|| VerbosePrinter {
            progress: self.progress.clone(),
        })
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

/// The progress bar's template. indicatif colours by its own rules, not `--color`'s, so without
/// colour the template names none.
fn progress_template(color: bool) -> &'static str {
    if color {
        "{prefix:>12.cyan.bold} [{bar:27}] {pos}/{len} {spinner} {wide_msg} {elapsed}"
    } else {
        "{prefix:>12} [{bar:27}] {pos}/{len} {spinner} {wide_msg} {elapsed}"
    }
}

/// Prints `-v` lines (commands, compiler output) from any thread, above the progress bar.
#[derive(Clone)]
pub struct VerbosePrinter {
    progress: Option<ProgressBar>,
}

impl VerbosePrinter {
    /// `     Running <command>`, then the compiler's output, indented.
    pub fn job(&self, verb: &str, what: &str, output: Option<&str>) {
        let mut text = format!("{STATUS}{verb:>12}{STATUS:#} {what}");
        for line in output.into_iter().flat_map(str::lines) {
            text.push_str("\n             ");
            text.push_str(line);
        }
        let write = || {
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

/// Human-readable byte count (indicatif's `HumanBytes`): `812 B`, `14.20 KiB`, `3.19 MiB`.
pub fn human_bytes(n: u64) -> String {
    indicatif::HumanBytes(n).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_colour_means_a_progress_bar_without_styles() {
        let plain = progress_template(false);
        assert!(!plain.contains('.'), "{plain}");
        let shell = Shell::new(MessageFormat::Human, Some(ColorWhen::Never), false, false);
        assert!(!shell.stderr_color);
    }

    #[test]
    fn bytes_are_readable() {
        assert_eq!(human_bytes(812), "812 B");
        assert_eq!(human_bytes(14_540), "14.20 KiB");
        assert_eq!(human_bytes(3 * 1024 * 1024 + 200_000), "3.19 MiB");
    }
}
