//! Compile failures, reported once. A syntax error fails the cicc job of every arch with the
//! same diagnostics; they are grouped by module, phase and text (arch names and temp paths
//! masked), and each distinct diagnostic is printed once with the list of targets it failed
//! for. A diagnostic that only one arch hits (code under `#if __CUDA_ARCH__ >= 900`) stays
//! separate, with its own target.

use std::path::Path;

use crate::jobs::{Failure, Status};
use crate::plan::{Job, Module};

/// One group of identical failures.
struct Group<'a> {
    module: &'a Module,
    phase: crate::report::JobPhase,
    key: String,
    labels: Vec<String>,
    failure: &'a Failure,
}

/// The error text for every failure, plus how many jobs never started.
pub(crate) fn describe(
    failures: &[(usize, &Failure)],
    jobs: &[Job],
    modules: &[Module],
    tmp: &Path,
    not_started: usize,
) -> String {
    let mut groups: Vec<Group> = Vec::new();
    for &(j, f) in failures {
        let job = &jobs[j];
        let phase = job.phase.kind();
        let key = mask(&f.output, tmp);
        match groups.iter_mut().find(|g| {
            g.key == key && g.phase == phase && std::ptr::eq(g.module, &modules[job.module])
        }) {
            Some(g) => g.labels.push(job.label()),
            None => groups.push(Group {
                module: &modules[job.module],
                phase,
                key,
                labels: vec![job.label()],
                failure: f,
            }),
        }
    }
    let mut out = String::new();
    for g in &groups {
        let file = g
            .module
            .members
            .iter()
            .map(|m| m.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let same = if g.labels.len() > 1 {
            " (the same diagnostics for each)"
        } else {
            ""
        };
        let at = first_location(&g.failure.output)
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "failed to compile `{file}` for {} ({} phase{same}){at}:\n",
            g.labels.join(", "),
            g.phase
        ));
        let text = g
            .failure
            .output
            .trim_end()
            .replace(&tmp.display().to_string(), "<tmp>");
        for line in text.lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
        let command = g
            .failure
            .command
            .replace(&tmp.display().to_string(), "<tmp>");
        out.push_str(&format!("  ({}; command: {command})\n", g.failure.status));
    }
    let skipped = if not_started > 0 {
        format!(" ({not_started} other job(s) were not started)")
    } else {
        String::new()
    };
    if failures.iter().any(|(_, f)| killed_silently(f)) {
        out.push_str(&format!(
            "a compiler was killed by SIGKILL without a word, most likely by the kernel's \
             out-of-memory killer: run fewer compiles at once (ARCHBUILD_JOBS or `--jobs`), or \
             raise ARCHBUILD_JOB_MEMORY (the MiB one compile needs) so archbuild does, and build \
             again{skipped}"
        ));
    } else {
        out.push_str(&format!("fix the error(s) above and build again{skipped}"));
    }
    out
}

/// SIGKILL with no diagnostics is almost always the kernel's out-of-memory killer: the source
/// is fine, the machine ran too many compiles at once. Killed directly (ptxas), the process
/// dies by signal 9; killed under nvcc (cicc), nvcc exits 137 and its shell says `Killed`.
fn killed_silently(f: &Failure) -> bool {
    let quiet = f
        .output
        .lines()
        .all(|l| l.trim().is_empty() || l.trim() == "Killed");
    quiet && matches!(f.status, Status::Ended(e) if e.killed())
}

/// Why a build's compiles failed, when it is not the source's fault.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// nvcc could not run a tool of its own toolkit (exit 127, `…/cicc: not found`).
    ToolkitBroken(String),
    /// The disk the compiles write to is full.
    DiskFull,
    /// Anything else: the diagnostics say what.
    Compile,
}

/// Below this much free space, a failed compile is put down to a full disk: nvcc then dies in
/// several ways (a segmentation fault with no message, `No space left on device`, `ptxas fatal:
/// Internal error: writing file`), none of which says so reliably.
const NEARLY_FULL: u64 = 1 << 20;

/// Classifies failures; `work` is the directory the compilers wrote to.
pub(crate) fn cause(failures: &[(usize, &Failure)], work: &Path) -> Cause {
    for (_, f) in failures {
        let missing_program = match f.status {
            Status::Ended(e) => e.command_not_found(),
            Status::NotStarted => true,
            _ => false,
        };
        if missing_program {
            if let Some(line) = f
                .output
                .lines()
                .find(|l| l.contains("not found") || l.contains("No such file"))
            {
                return Cause::ToolkitBroken(line.trim().to_owned());
            }
        }
    }
    let said_so = failures
        .iter()
        .any(|(_, f)| f.output.contains("No space left on device"));
    let nearly_full = crate::base::paths::available_space(work).is_some_and(|a| a < NEARLY_FULL);
    if said_so || nearly_full {
        return Cause::DiskFull;
    }
    Cause::Compile
}

/// The first thing a failed compiler said (or how it ended), temp paths masked.
pub(crate) fn first_line(failures: &[(usize, &Failure)], tmp: &Path) -> String {
    let Some((_, f)) = failures.first() else {
        return String::new();
    };
    let line = f
        .output
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map_or_else(
            || format!("the compiler ended with {}", f.status),
            str::to_owned,
        );
    line.replace(&tmp.display().to_string(), "<tmp>")
}

/// Masks what differs between archs and runs, so identical diagnostics compare equal.
fn mask(text: &str, tmp: &Path) -> String {
    let text = text.replace(&tmp.display().to_string(), "<tmp>");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(pos) = rest.find(['s', 'c']) {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        let prefix = ["sm_", "compute_"]
            .into_iter()
            .find(|p| tail.starts_with(p));
        match prefix {
            Some(p) => {
                let digits = tail[p.len()..]
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric())
                    .count();
                out.push_str("<arch>");
                rest = &tail[p.len() + digits..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    // Different jobs number their temp files differently.
    out.lines()
        .map(|l| l.split("<tmp>/").next().unwrap_or(l).to_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first `file(line): error` (nvcc/cicc) or `file:line:col: error` (the preprocessor) as
/// `file:line`.
fn first_location(text: &str) -> Option<String> {
    for line in text.lines() {
        if !line.contains("error") {
            continue;
        }
        if let Some(open) = line.find('(') {
            if let Some(close) = line[open..].find("):") {
                let num = &line[open + 1..open + close];
                if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
                    return Some(format!("{}:{num}", &line[..open]));
                }
            }
        }
        let mut parts = line.splitn(3, ':');
        if let (Some(file), Some(num)) = (parts.next(), parts.next()) {
            if !file.is_empty() && !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
                return Some(format!("{file}:{num}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::process::Ended;

    fn failure(status: Status, output: &str) -> Failure {
        Failure {
            command: "nvcc -ptx k.cu".into(),
            status,
            output: output.into(),
        }
    }

    /// Each way a compiler ends is classified on how it ended, not on the words: killed by
    /// SIGKILL without a word (directly, or exit 137 under nvcc) is the out-of-memory hint; a
    /// missing program (exit 127, or not started) with `not found` is a broken toolkit.
    #[test]
    fn failures_are_classified_by_how_the_compiler_ended() {
        let sig = |signal| {
            Status::Ended(Ended::Signalled {
                signal,
                core_dumped: false,
            })
        };
        let exit = |code| Status::Ended(Ended::Exited(code));
        assert!(killed_silently(&failure(sig(9), "")));
        assert!(killed_silently(&failure(exit(137), "Killed\n")));
        assert!(!killed_silently(&failure(sig(9), "k.cu(3): error: x")));
        assert!(!killed_silently(&failure(sig(11), "")));
        assert!(!killed_silently(&failure(exit(1), "")));
        assert!(!killed_silently(&failure(Status::NotStarted, "")));

        // A directory that does not exist has no free space to measure: no disk-full guess.
        let work = Path::new("/nonexistent-archbuild-work");
        let broken = "sh: 1: /opt/cuda/bin/../nvvm/bin/cicc: not found";
        for status in [exit(127), Status::NotStarted] {
            assert_eq!(
                cause(&[(0, &failure(status, broken))], work),
                Cause::ToolkitBroken(broken.into()),
                "{status}"
            );
        }
        for status in [exit(1), sig(9), Status::Vanished] {
            assert_eq!(
                cause(&[(0, &failure(status, broken))], work),
                Cause::Compile,
                "{status}"
            );
        }
        assert_eq!(sig(9).to_string(), "signal: 9 (SIGKILL)");
        assert_eq!(exit(127).to_string(), "exit status: 127");
        assert_eq!(Status::NotStarted.to_string(), "not started");
    }

    #[test]
    fn masks_arch_names_and_finds_locations() {
        let a = mask("bad.cu(3): error: x for compute_86\n", Path::new("/t"));
        let b = mask("bad.cu(3): error: x for compute_75\n", Path::new("/t"));
        assert_eq!(a, b);
        assert_eq!(
            first_location("k/bad.cu(12): error: identifier \"y\" is undefined"),
            Some("k/bad.cu:12".into())
        );
        assert_eq!(
            first_location("k/b.cu:7:10: fatal error: nope.h: No such file"),
            Some("k/b.cu:7".into())
        );
        assert_eq!(
            first_location("ptxas fatal   : Unresolved extern function 'f'"),
            None
        );
    }
}
