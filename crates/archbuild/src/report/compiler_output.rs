//! What the compilers printed, made readable: nvcc, cudafe++ and cicc warnings (`k.cu(12):
//! warning #177-D: …` with their context lines), ptxas warnings and, when `-Xptxas -v` asks for
//! them, ptxas's resource reports. A one-target-per-job build runs each compiler once per arch,
//! so the same warning arrives once per arch: it is shown once, with the targets that printed
//! it, grouped per file. Resource reports are condensed to one line per kernel and merged across
//! targets with the same figures. The raw output of every job stays in the job records (`-v`).

use serde::Serialize;

/// One message, shown once for every target that printed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompilerMessage {
    /// The module (fat binary) whose jobs printed it.
    pub module: String,
    /// The file it is about: the file a warning names, else the module's source.
    pub file: String,
    pub kind: MessageKind,
    /// The message; a warning keeps its source line and caret.
    pub text: String,
    /// The targets whose jobs printed it (`compute_75`, `sm_86`), in build order.
    pub targets: Vec<String>,
}

/// What a [`CompilerMessage`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// A compiler warning (nvcc, cudafe++, cicc or ptxas).
    Warning,
    /// Anything else a compiler printed that is not a resource report.
    Note,
    /// A kernel's resource usage, from `-Xptxas -v` (`--resource-usage`).
    Resources,
}

/// One job's printed output, as the driver recorded it.
pub(crate) struct JobText<'a> {
    pub module: &'a str,
    /// The module's source, relative to the package where possible.
    pub source: &'a str,
    pub target: &'a str,
    pub output: &'a str,
}

/// Groups the outputs of a build's jobs: per module, per file, one message per distinct text.
pub(crate) fn collect(jobs: &[JobText<'_>]) -> Vec<CompilerMessage> {
    let mut out: Vec<CompilerMessage> = Vec::new();
    for job in jobs {
        for (file, kind, text) in parse(job.output, job.source) {
            match out
                .iter_mut()
                .find(|m| m.module == job.module && m.file == file && m.text == text)
            {
                Some(m) if !m.targets.iter().any(|t| t == job.target) => {
                    m.targets.push(job.target.to_owned())
                }
                Some(_) => {}
                None => out.push(CompilerMessage {
                    module: job.module.to_owned(),
                    file,
                    kind,
                    text,
                    targets: vec![job.target.to_owned()],
                }),
            }
        }
    }
    // Stable order: module and file as first seen, warnings before resource reports.
    let first_seen: Vec<(String, String)> = out
        .iter()
        .map(|m| (m.module.clone(), m.file.clone()))
        .collect();
    let rank = |m: &CompilerMessage| {
        first_seen
            .iter()
            .position(|(mo, f)| *mo == m.module && *f == m.file)
    };
    // Resource reports by kernel name, so a kernel's figures for different targets sit together.
    out.sort_by(|a, b| {
        let by_text =
            |m: &CompilerMessage| (m.kind == MessageKind::Resources).then(|| m.text.clone());
        (rank(a), a.kind, by_text(a)).cmp(&(rank(b), b.kind, by_text(b)))
    });
    out
}

/// The messages of one job's output: `(file, kind, text)`.
fn parse(output: &str, source: &str) -> Vec<(String, MessageKind, String)> {
    let mut messages: Vec<(String, MessageKind, String)> = Vec::new();
    let mut open_warning = false;
    let mut resources = Resources::default();
    for line in output.lines() {
        if let Some(rest) = line.strip_prefix("ptxas info    :") {
            open_warning = false;
            resources.line(rest.trim());
            continue;
        }
        if line.trim().ends_with("spill loads") && resources.current.is_some() {
            resources.properties(line.trim());
            continue;
        }
        if line.starts_with("Remark: The warnings can be suppressed") {
            // The hint is in the CLI's heading, once; per job it is noise.
            open_warning = false;
            continue;
        }
        if let Some((file, text)) = located_warning(line) {
            messages.push((file, MessageKind::Warning, text));
            open_warning = true;
            continue;
        }
        let ptxas_warning = line.starts_with("ptxas ") && line.contains("warning");
        if ptxas_warning || line.starts_with("nvcc warning") {
            messages.push((source.to_owned(), MessageKind::Warning, strip_temp(line)));
            open_warning = false;
            continue;
        }
        if line.trim().is_empty() {
            open_warning = false;
            continue;
        }
        match messages.last_mut() {
            // The source line and the caret under it belong to the warning above.
            Some((_, MessageKind::Warning, text)) if open_warning => {
                text.push('\n');
                text.push_str(line);
            }
            _ => messages.push((source.to_owned(), MessageKind::Note, line.to_owned())),
        }
    }
    messages.extend(
        resources
            .finish()
            .into_iter()
            .map(|t| (source.to_owned(), MessageKind::Resources, t)),
    );
    messages
}

/// `k.cu(12): warning #177-D: text` (the EDG front end's form, used by cudafe++ and cicc).
fn located_warning(line: &str) -> Option<(String, String)> {
    let open = line.find("): ")?;
    let paren = line[..open].rfind('(')?;
    let (file, number) = (&line[..paren], &line[paren + 1..open]);
    let rest = &line[open + 3..];
    let is_warning = rest.starts_with("warning") || rest.starts_with("remark");
    (is_warning && !file.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
        .then(|| (file.to_owned(), line.to_owned()))
}

/// ptxas names its input by the job's temporary path (`/…/.tmp-build-x/3/in.ptx`), which says
/// nothing to a user and would keep identical warnings of two targets apart.
fn strip_temp(line: &str) -> String {
    match line.find("in.ptx") {
        Some(i) if line.starts_with("ptxas ") => {
            let rest = line[i + "in.ptx".len()..].trim_start_matches([',', ' ']);
            format!("ptxas, PTX {rest}")
        }
        _ => line.to_owned(),
    }
}

/// ptxas `-v` lines, condensed per kernel.
#[derive(Default)]
struct Resources {
    /// The kernel being described: `(name, figures)`.
    current: Option<(String, Vec<String>)>,
    done: Vec<String>,
}

impl Resources {
    fn line(&mut self, rest: &str) {
        if let Some(name) = rest
            .strip_prefix("Compiling entry function '")
            .or_else(|| rest.strip_prefix("Function properties for "))
        {
            let name = name.split('\'').next().unwrap_or(name).to_owned();
            if self.current.as_ref().map(|(n, _)| n) != Some(&name) {
                self.flush();
                self.current = Some((name, Vec::new()));
            }
        } else if let Some(used) = rest.strip_prefix("Used ") {
            if let Some((_, figures)) = &mut self.current {
                figures.insert(0, used.to_owned());
            }
        }
        // `Compile time = …` differs on every run and `0 bytes gmem` says nothing per kernel.
    }

    fn properties(&mut self, line: &str) {
        if let Some((_, figures)) = &mut self.current {
            figures.push(line.to_owned());
        }
    }

    fn flush(&mut self) {
        if let Some((name, figures)) = self.current.take() {
            if !figures.is_empty() {
                self.done.push(format!("{name}: {}", figures.join("; ")));
            }
        }
    }

    fn finish(mut self) -> Vec<String> {
        self.flush();
        self.done
    }
}

/// The lines a build script prints as `cargo:warning`: one per message, without a warning's
/// context lines (Cargo shows each `cargo:warning` as one line).
pub(crate) fn cargo_warnings(messages: &[CompilerMessage]) -> Vec<String> {
    let mut out = Vec::new();
    for m in messages {
        let first = m.text.lines().next().unwrap_or_default();
        let what = match m.kind {
            MessageKind::Warning => "",
            MessageKind::Note => "note: ",
            MessageKind::Resources => "resources: ",
        };
        out.push(format!("{what}{first} [{}]", m.targets.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CICC: &str = "k.cu(2): warning #177-D: variable \"unused\" was declared but never referenced\n    int unused = 3;\n        ^\n\nRemark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n";

    fn ptxas(arch: &str, regs: u32) -> String {
        format!(
            "ptxas info    : 0 bytes gmem\nptxas info    : Compiling entry function '_Z3addPfi' for '{arch}'\nptxas info    : Function properties for _Z3addPfi\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\nptxas info    : Used {regs} registers, used 0 barriers, 364 bytes cmem[0]\nptxas info    : Compile time = 1.576 ms\n"
        )
    }

    #[test]
    fn a_warning_of_two_archs_is_one_message_with_both_targets() {
        let jobs = [
            JobText {
                module: "k",
                source: "k.cu",
                target: "compute_75",
                output: CICC,
            },
            JobText {
                module: "k",
                source: "k.cu",
                target: "compute_86",
                output: CICC,
            },
        ];
        let m = collect(&jobs);
        assert_eq!(m.len(), 1, "{m:#?}");
        assert_eq!(m[0].kind, MessageKind::Warning);
        assert_eq!(m[0].file, "k.cu");
        assert_eq!(m[0].targets, ["compute_75", "compute_86"]);
        assert!(
            m[0].text.ends_with("int unused = 3;\n        ^"),
            "{}",
            m[0].text
        );
    }

    #[test]
    fn resource_reports_merge_targets_with_equal_figures_only() {
        let (a, b, c) = (ptxas("sm_75", 8), ptxas("sm_86", 8), ptxas("sm_90", 16));
        let jobs: Vec<JobText> = [("sm_75", &a), ("sm_86", &b), ("sm_90", &c)]
            .into_iter()
            .map(|(t, o)| JobText {
                module: "k",
                source: "k.cu",
                target: t,
                output: o,
            })
            .collect();
        let m = collect(&jobs);
        assert_eq!(m.len(), 2, "{m:#?}");
        let eight = m.iter().find(|m| m.text.contains(": 8 registers")).unwrap();
        assert_eq!(eight.targets, ["sm_75", "sm_86"]);
        assert_eq!(
            eight.text,
            "_Z3addPfi: 8 registers, used 0 barriers, 364 bytes cmem[0]; 0 bytes stack frame, \
             0 bytes spill stores, 0 bytes spill loads"
        );
        let sixteen = m
            .iter()
            .find(|m| m.text.contains(": 16 registers"))
            .unwrap();
        assert_eq!(sixteen.targets, ["sm_90"]);
    }

    #[test]
    fn ptxas_warnings_lose_the_temporary_path() {
        let w = "ptxas /tmp/c/.tmp-build-1/3/in.ptx, line 12; warning : Unresolved extern";
        let jobs = [3, 4].map(|n| JobText {
            module: "k",
            source: "k.cu",
            target: if n == 3 { "sm_75" } else { "sm_86" },
            output: w,
        });
        let m = collect(&jobs);
        assert_eq!(m.len(), 1, "{m:#?}");
        assert_eq!(m[0].text, "ptxas, PTX line 12; warning : Unresolved extern");
        assert_eq!(m[0].targets.len(), 2);
    }

    #[test]
    fn cargo_warning_lines_are_single_lines_with_targets() {
        let m = collect(&[JobText {
            module: "k",
            source: "k.cu",
            target: "compute_75",
            output: CICC,
        }]);
        assert_eq!(
            cargo_warnings(&m),
            [
                "k.cu(2): warning #177-D: variable \"unused\" was declared but never referenced \
              [compute_75]"
            ]
        );
    }
}
