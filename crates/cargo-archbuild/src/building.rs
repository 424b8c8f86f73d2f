//! Running the build driver from the CLI: plan first (toolkit, arch list, job count), then
//! compile under a progress bar, then report each fat binary — its targets, its kernels, the
//! kernels missing from some images, and what each local GPU will load from it.
//!
//! Shared by `build` (one run per Cargo package) and `compile` (one run for the given files).

use std::time::Duration;

use archbuild::{config::ArchSource, Build, BuildReport, CompilerMessage, Env, MessageKind};
use archbuild_runtime::FatBinary;

use crate::error::CliError;
use crate::files::display_path;
use crate::gpus::Gpus;
use crate::messages::{self, Message};
use crate::shell::{human_bytes, Shell};

/// One build to run: a label for the output (package name or output file) and the builder.
pub(crate) struct Pending {
    pub label: String,
    pub build: Build,
    /// Name each fat binary after its module (`package/module`), not just the label (`compile`
    /// writes exactly one, named by `-o`).
    pub per_module: bool,
    /// The package ships fat binaries (`prebuilt`): with no toolkit, the build takes them.
    pub ships: bool,
}

pub(crate) use crate::outcome::{BuildOutcome, ModuleOutcome};

/// The name every CLI build uses for its output subdirectory.
pub(crate) const BUILD_NAME: &str = "kernels";

/// The process environment without the variables Cargo sets for build scripts and `cargo run`:
/// the CLI is not a build script, and `CARGO_MANIFEST_DIR` would redirect relative paths.
pub(crate) fn cli_env() -> Env {
    cli_env_for(false)
}

/// [`cli_env`], with `CARGO_NET_OFFLINE=true` when `--offline` was given (nothing installs from
/// the network, `docs/publishing.md`).
pub(crate) fn cli_env_for(offline: bool) -> Env {
    cli_env_with(offline, None)
}

/// [`cli_env_for`], building for `target` (`--target`): the build sees it as `TARGET`, as a
/// build script does, which picks the host compiler (`CXX_<target>`).
pub(crate) fn cli_env_with(offline: bool, target: Option<&str>) -> Env {
    const CARGO_ONLY: [&str; 4] = ["CARGO_MANIFEST_DIR", "OUT_DIR", "TARGET", "HOST"];
    const OFFLINE: &str = "CARGO_NET_OFFLINE";
    let forced = offline.then(|| (OFFLINE.into(), "true".into()));
    let target = target.map(|t| ("TARGET".into(), t.into()));
    Env::from_vars(
        std::env::vars_os()
            .filter(|(k, _)| !CARGO_ONLY.iter().any(|c| k == c))
            .filter(|(k, _)| !offline || k != OFFLINE)
            .chain(forced)
            .chain(target),
    )
}

/// Plans, compiles and checks every pending build, with one progress bar over all their jobs.
pub(crate) fn run_all(
    pending: Vec<Pending>,
    shell: &mut Shell,
) -> Result<Vec<BuildOutcome>, CliError> {
    // The GPUs the summary checks each fat binary against, opened first so that a bad
    // ARCHBUILD_SIMULATED_GPUS stops the command before anything compiles. (The builds read that
    // variable themselves for `native`, through the same parser.)
    let gpus = crate::gpus::open_for_summary()?;
    let (planned, default_used) = plan_all(pending, shell)?;
    if default_used {
        shell.note(
            "the default arch list is portable (every GPU generation); set ARCHBUILD_ARCHS=native for a fast \
             build for this machine's GPUs, or e.g. ARCHBUILD_ARCHS=\"8.6 8.9+PTX\", or `archs` in \
             [package.metadata.archbuild]",
        );
    }
    let total: u64 = planned.iter().map(|(_, n)| n).sum();
    let bar = shell.start_progress("Building", total);
    bar.enable_steady_tick(Duration::from_millis(120));
    let mut reports = Vec::with_capacity(planned.len());
    let mut failure = None;
    for (mut p, jobs) in planned {
        bar.set_message(p.label.clone());
        let done_before = bar.position();
        let per_job = bar.clone();
        let (json, verbose, label) = (shell.is_json(), shell.verbose_printer(), p.label.clone());
        p.build.on_job(move |job| {
            per_job.inc(1);
            if json {
                messages::emit(&Message::JobFinished {
                    package: &label,
                    job,
                });
            }
            if let Some(v) = &verbose {
                if let Some(miss) = job.served.miss() {
                    let what = format!("{} {} {}: {miss}", job.module, job.phase, job.target);
                    v.job("Dirty", &what, None);
                }
                match &job.command {
                    Some(command) => v.job("Running", command, job.output.as_deref()),
                    None => v.job(
                        "Fresh",
                        &format!("{} {} {} (cache)", job.module, job.phase, job.target),
                        job.output.as_deref(),
                    ),
                }
                if let Some(note) = job.served.note() {
                    v.job("Note", note, None);
                }
            }
        });
        // The driver runs its jobs on its own workers; this thread only keeps the bar alive.
        let result = std::thread::scope(|s| s.spawn(|| p.build.try_compile(BUILD_NAME)).join());
        // Failed and skipped jobs are not reported one by one: settle this package's count.
        bar.set_position(done_before + jobs);
        match result {
            Ok(Ok(report)) => {
                announce(&p.label, &report, shell);
                reports.push((p.label, p.per_module, report));
            }
            Ok(Err(e)) => {
                failure = Some(CliError::from(e));
                break;
            }
            Err(_) => {
                failure = Some(CliError::internal("the build thread panicked"));
                break;
            }
        }
    }
    shell.finish_progress();
    if let Some(e) = failure {
        return Err(e);
    }
    reports
        .into_iter()
        .map(|(label, per_module, report)| check(label, per_module, report, &gpus, shell))
        .collect()
}

/// Plans every pending build (installing what it will need), saying what each will build; with
/// whether any uses the default arch list.
fn plan_all(
    pending: Vec<Pending>,
    shell: &mut Shell,
) -> Result<(Vec<(Pending, u64)>, bool), CliError> {
    let mut planned = Vec::with_capacity(pending.len());
    let mut default_used = false;
    for mut p in pending {
        // The plan installs what the build will need (a fresh machine has no toolkit yet).
        let listing = match p.build.try_plan_to_build(BUILD_NAME) {
            Ok(listing) => listing,
            // No toolkit to be had: a package that ships fat binaries is still served from
            // them by the build, which names what does not match when they do not.
            Err(e) if p.ships && e.kind() == archbuild::ErrorKind::Toolkit => {
                shell.status(
                    "Planning",
                    format!(
                        "{}: no CUDA toolkit ({}); taking the package's shipped fat binaries",
                        p.label,
                        first_line(&e.to_string())
                    ),
                );
                planned.push((p, 0));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        shell.status(
            "Planning",
            format!(
                "{}: {} job(s) for `{}` (from {})",
                p.label,
                listing.jobs.len(),
                listing.archs,
                cli_source(listing.source.clone())
            ),
        );
        default_used |= listing.source == ArchSource::Default;
        if shell.is_json() {
            messages::emit(&Message::BuildStarted {
                package: &p.label,
                archs: &listing.archs,
                arch_source: &cli_source(listing.source.clone()).to_string(),
                jobs_planned: listing.jobs.len(),
            });
        }
        planned.push((p, listing.jobs.len() as u64));
    }
    Ok((planned, default_used))
}

/// Why the summary has no GPU verdicts, e.g. "none visible (no CUDA driver: …)".
pub(crate) fn no_gpu_note() -> String {
    match crate::gpus::open_for_summary() {
        Ok(g) => no_gpu_reason(&g),
        Err(e) => e.to_string(),
    }
}

/// Why `gpus` has no verdicts: empty when there are GPUs.
fn no_gpu_reason(gpus: &Gpus) -> String {
    let f = gpus.facts();
    if !f.gpus.is_empty() {
        return String::new();
    }
    // The first clause of the driver's message ("no CUDA driver: libcuda.so.1 could not be
    // loaded (…)"); `doctor` prints the whole text with its fix.
    match f.problem {
        Some(p) => format!("none visible: {}", p.split(';').next().unwrap_or(&p)),
        None => "none visible".into(),
    }
}

/// Cargo-style lines for one finished build.
fn announce(label: &str, r: &BuildReport, shell: &Shell) {
    let verb = if r.jobs_run == 0 { "Fresh" } else { "Compiled" };
    let shared = r
        .jobs
        .iter()
        .filter(|j| j.served.shared_from().is_some())
        .count();
    let shared = match shared {
        0 => String::new(),
        n => format!(", {n} sharing another arch's cicc run"),
    };
    shell.status(
        verb,
        format!(
            "{label} ({} job(s) run, {} from cache{shared}, {} nvcc/ptxas process(es), toolkit {}) \
             in {:.2}s",
            r.jobs_run, r.cache_hits, r.processes_started, r.toolkit, r.seconds
        ),
    );
    if let Some(lib) = &r.library {
        let cached = lib.objects.iter().filter(|o| o.served.cached()).count();
        shell.status(
            "Archived",
            format!(
                "{} ({} host object(s), {cached} from cache; CUDA runtime {})",
                crate::files::display_path(&lib.archive),
                lib.objects.len(),
                lib.cudart
            ),
        );
    }
    if let Some(e) = &r.cache_eviction {
        shell.note(e.to_string());
    }
    for v in &r.variants {
        shell.note(v.to_string());
    }
    for w in &r.warnings {
        shell.warn(w);
    }
    compiler_output(&r.compiler_output, shell);
    if let Some(remote) = &r.remote {
        shell.note(format!(
            "remote cache {} ({}): {} hit(s), {} miss(es), {} written{}",
            remote.url,
            remote.mode,
            remote.hits,
            remote.misses,
            remote.writes,
            if remote.rejected > 0 {
                format!(", {} rejected", remote.rejected)
            } else {
                String::new()
            }
        ));
        for w in &remote.warnings {
            shell.warn(w);
        }
    }
}

/// What the compilers printed: per file, warnings as one warning (each message once, with the
/// targets that printed it), resource reports (`-Xptxas -v`) and other output as one note.
fn compiler_output(messages: &[CompilerMessage], shell: &Shell) {
    let mut files: Vec<(&str, &str)> = Vec::new();
    for m in messages {
        if !files.contains(&(m.module.as_str(), m.file.as_str())) {
            files.push((&m.module, &m.file));
        }
    }
    for (module, file) in files {
        let of = |kind: MessageKind| -> Vec<&CompilerMessage> {
            messages
                .iter()
                .filter(|m| m.module == module && m.file == file && m.kind == kind)
                .collect()
        };
        let body = |list: &[&CompilerMessage]| -> String {
            list.iter()
                .map(|m| {
                    let mut lines = m.text.lines();
                    let first = lines.next().unwrap_or_default();
                    let mut s = format!("\n  {first} [{}]", m.targets.join(", "));
                    for l in lines {
                        s.push_str(&format!("\n  {l}"));
                    }
                    s
                })
                .collect()
        };
        let warnings = of(MessageKind::Warning);
        if !warnings.is_empty() {
            shell.warn(format!(
                "{file}: {} compiler warning(s) (shown once for all targets; `-v` shows each \
                 compiler's output, `--nvcc-flag=-diag-suppress=NUMBER` silences one){}",
                warnings.len(),
                body(&warnings)
            ));
        }
        let resources = of(MessageKind::Resources);
        if !resources.is_empty() {
            shell.note(format!(
                "resource usage in module `{module}` (ptxas -v), per kernel{}",
                body(&resources)
            ));
        }
        let notes = of(MessageKind::Note);
        if !notes.is_empty() {
            shell.note(format!(
                "the compilers printed, for {file}:{}",
                body(&notes)
            ));
        }
    }
}

/// Reads each fat binary back: kernel coverage, and the local GPUs' verdicts.
fn check(
    label: String,
    per_module: bool,
    mut report: BuildReport,
    gpus: &Gpus,
    shell: &Shell,
) -> Result<BuildOutcome, CliError> {
    report.source = cli_source(report.source);
    let mut modules_checked = Vec::new();
    let no_gpus = gpus.ccs().is_empty();
    for m in &report.modules {
        // Kernel coverage is the report's (`coverage_gaps`, and its warnings); the file is read
        // only for the GPUs to judge (an unchanged rebuild without one reads no image at all).
        let verdicts = if no_gpus {
            Vec::new()
        } else {
            let bytes = crate::files::read_input(&m.fatbin)?;
            let fatbin = FatBinary::from_vec(bytes).map_err(|source| CliError::Unloadable {
                path: m.fatbin.clone(),
                module: None,
                source,
            })?;
            crate::gpus::check(gpus, &fatbin, None)?
        };
        let gpus_note = verdicts.is_empty().then(|| no_gpu_reason(gpus));
        let outcome = ModuleOutcome {
            module: m.clone(),
            gpus: verdicts,
            gpus_note,
        };
        if shell.is_json() {
            messages::emit(&Message::ModuleFinished {
                package: &label,
                module: &outcome,
            });
        }
        modules_checked.push(outcome);
    }
    Ok(BuildOutcome {
        label,
        per_module,
        report,
        modules_checked,
    })
}

/// The human summary: per fat binary, what it holds and what each local GPU gets from it.
pub(crate) fn print_summary(
    outcomes: &[BuildOutcome],
    gpus_note: Option<&str>,
    shell: &Shell,
) -> Result<(), CliError> {
    for o in outcomes {
        for m in &o.modules_checked {
            let name = if o.per_module {
                format!("{}/{}", o.label, m.module.name)
            } else {
                o.label.clone()
            };
            shell.println(format!(
                "{}  {} ({})",
                crate::shell::bold(name),
                display_path(&m.module.fatbin),
                human_bytes(m.module.bytes as u64)
            ))?;
            shell.println(format!("  targets  {}", m.module.targets.join(" ")))?;
            shell.println(format!(
                "  kernels  {}",
                crate::names::list(&m.module.kernels)
            ))?;
            if m.gpus.is_empty() {
                shell.println(format!(
                    "  GPUs     {}",
                    gpus_note.unwrap_or("none visible")
                ))?;
            }
            for g in &m.gpus {
                let verdict = match (&g.image, &g.error) {
                    (Some(img), _) => format!("{img} ({})", g.route.as_deref().unwrap_or("")),
                    (None, e) => {
                        format!("cannot run it: {}", e.as_deref().unwrap_or("no image fits"))
                    }
                };
                shell.println(format!(
                    "  GPU {}    {} ({}): {verdict}",
                    g.ordinal, g.name, g.cc
                ))?;
            }
        }
    }
    Ok(())
}

/// The build driver knows a `--archs` list as the build's own (`.archs(...)`); on the command
/// line it is the flag.
fn cli_source(source: ArchSource) -> ArchSource {
    match source {
        ArchSource::Explicit => ArchSource::Flag("--archs"),
        other => other,
    }
}

/// The first sentence of a message, for a one-line status.
fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or(text);
    line.split("; ").next().unwrap_or(line)
}
