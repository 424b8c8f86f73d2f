//! Machine-readable output, as cargo's `--message-format json` does it: JSON Lines on stdout,
//! one object per line, each with a `reason` and this format's `format_version`, written as
//! things happen. The schema is in `docs/cli.md` ("JSON messages"); a field may be added within
//! a version, never removed or changed.

use std::io::Write;

use archbuild::JobRecord;
use serde::Serialize;

use crate::outcome::ModuleOutcome;

/// The version of the message schema; bumped when a field is removed or changes meaning.
pub const FORMAT_VERSION: u32 = 1;

/// The messages a build streams before its final report (`build-finished`, `compile-finished`).
#[derive(Debug, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Message<'a> {
    /// A package's (or `compile`'s output's) build was planned and starts.
    BuildStarted {
        package: &'a str,
        archs: &'a str,
        arch_source: &'a str,
        jobs_planned: usize,
    },
    /// One compile job finished: run, or served from the cache.
    JobFinished {
        package: &'a str,
        #[serde(flatten)]
        job: &'a JobRecord,
    },
    /// Something the user should know (what `warning:` says in human mode).
    Warning { message: &'a str },
    /// One fat binary was written and checked against the local GPUs.
    ModuleFinished {
        package: &'a str,
        #[serde(flatten)]
        module: &'a ModuleOutcome,
    },
}

/// One line of JSON: the value with `format_version` first. Errors only for values that are
/// not JSON objects (a bug), reported as the error text.
pub fn line<T: Serialize>(value: &T) -> Result<String, String> {
    let text = serde_json::to_string(value).map_err(|e| e.to_string())?;
    match text.strip_prefix('{') {
        Some("}") => Ok(format!("{{\"format_version\":{FORMAT_VERSION}}}")),
        Some(rest) => Ok(format!("{{\"format_version\":{FORMAT_VERSION},{rest}")),
        None => Err(format!("a message must be a JSON object, not `{text}`")),
    }
}

/// Writes one message line to stdout (from any thread; each line is written whole). A closed
/// stdout is ignored here: the command's final report notices it and sets the exit code.
pub fn emit<T: Serialize>(value: &T) {
    if let Ok(text) = line(value) {
        let _ = writeln!(std::io::stdout().lock(), "{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_has_the_version_and_a_reason() {
        let text = line(&Message::Warning { message: "x" }).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["format_version"], FORMAT_VERSION);
        assert_eq!(v["reason"], "warning");
        assert!(text.starts_with("{\"format_version\":1,\"reason\":\"warning\""));
        assert!(!text.contains('\n'));
        assert!(line(&[1, 2]).is_err());
    }
}
