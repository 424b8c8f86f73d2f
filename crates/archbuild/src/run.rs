//! What `Build::try_compile` does, start to end: resolve the configuration once, announce it,
//! then attempt the build (plan, run the jobs cache first, pack one fat binary per module,
//! generate the Rust module, tell Cargo what to watch) — a second time only when a cache entry
//! vanished under the first.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

use crate::base::paths::write_if_changed;
use crate::cache::deps::Roots;
use crate::config::archs::ArchSource;
use crate::error::{Error, Result};
use crate::jobs::keys::Facts;
use crate::jobs::{Failure, JobOut, JobRunner};
use crate::output::codegen::{self, ModuleCode};
use crate::output::prebuilt::{
    compression_text, left_over, take_prebuilt, verify_packaged, write_record, Taken,
};
use crate::plan::exec::Outcome;
use crate::plan::{self, Module, Phase};
use crate::prepare::spec::Spec;
use crate::prepare::{announce, resolve, Mode, Prepared, Serve, Take};
use crate::report::warning::Warning;
use crate::report::{BuildReport, JobPhase, JobRecord, ModuleReport};
use crate::toolkit::makers::Maker;

/// The commands a cold build would run (`Build::try_plan`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanListing {
    /// The build's arch list.
    pub archs: String,
    /// Where it came from (in words, its `Display`).
    pub source: ArchSource,
    pub jobs: Vec<PlannedJob>,
    /// The compression asked for, as a record's `compression` item holds it.
    pub compression: String,
}

/// One job a cold build would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedJob {
    pub module: String,
    pub phase: JobPhase,
    /// `compute_89` for cicc jobs, `sm_89` for ptxas jobs.
    pub target: String,
    /// The command line; temp paths read `<tmp>/…`.
    pub command: String,
}

/// The commands a cold build would run; writes nothing (and, in [`Mode::Plan`], provisions
/// and installs nothing).
pub(crate) fn plan_only(b: &Spec, name: &str, mode: Mode) -> Result<PlanListing> {
    let p = resolve(b, name, mode)?;
    let jobs = plan::plan_jobs(&p.modules, p.share_cicc, &|t| p.maker(t));
    let tmp = Path::new("<tmp>");
    let units: Vec<Vec<plan::Module>> = p.modules.iter().map(plan::Module::units).collect();
    let listing = jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let m = &p.modules[job.module];
            let unit = &units[job.module][job.unit];
            let cmd = plan::job_command(p.toolkits.main(), &p.settings, unit, j, job.phase, tmp);
            PlannedJob {
                module: m.name.clone(),
                phase: job.phase.kind(),
                target: job.label(),
                command: cmd.display(),
            }
        })
        .collect();
    Ok(PlanListing {
        archs: p.archs.list.to_string(),
        source: p.archs.source.clone(),
        jobs: listing,
        compression: compression_text(&p),
    })
}

/// A build: first the package's shipped fat binaries, before any toolkit is looked for
/// (`packaged.rs`); then the usual build, which takes what of them matches and compiles the
/// rest; with no toolkit, what matches unverified, or an error that says why not.
pub(crate) fn compile(b: &Spec, name: &str) -> Result<BuildReport> {
    let Some(s) = crate::prepare::packaged::stand_in(b)? else {
        return compile_as(b, name, None, Take::Matching);
    };
    let take = if s.docs { Take::Docs } else { Take::Matching };
    let clock = (SystemTime::now(), Instant::now());
    let (shipped, refused) = match prepare_as(b, name, Some(&s.toolkit), take) {
        Ok(p) => match run_prepared(&p, name, clock) {
            Ok(report) => return Ok(report),
            Err(e) => (Some(p), e),
        },
        Err(e) => (None, e),
    };
    // docs.rs takes anything: what fails there fails for a reason of its own.
    if s.docs {
        return Err(refused);
    }
    // What does not match is compiled, and says why; with no toolkit at all, what matches is
    // taken unverified, from the same resolution. Whatever stops the compile, the user reads
    // first why the package's files were refused (a provisioning error alone would hide an
    // edited kernel).
    let then = match compile_as(b, name, None, Take::Matching) {
        Ok(report) => return Ok(report),
        Err(then) => then,
    };
    // No toolkit to be had (none found, none to provision): the files that match are taken
    // unverified, from the same resolution; any that do not stay refused, with both reasons.
    let unverified = match (&then, shipped) {
        (Error::ToolkitNotFound { .. }, None) => {
            compile_as(b, name, Some(&s.toolkit), Take::Unverified)
        }
        (then, Some(p)) if then.kind() == crate::ErrorKind::Toolkit => {
            run_prepared(&p.taking(Take::Unverified), name, clock)
        }
        _ => Err(refused),
    };
    match unverified {
        Ok(report) => Ok(report),
        Err(Error::PackagedRefused { reasons }) => Err(Error::PackagedRefusedThen {
            reasons,
            then: Box::new(then),
        }),
        Err(Error::ToolkitNotFound { .. }) => Err(then),
        Err(refused) => Err(Error::PackagedRefusedThen {
            reasons: refused.to_string(),
            then: Box::new(then),
        }),
    }
}

/// What a dependent takes from the package's shipped fat binaries, compiling nothing
/// (`Build::try_check_shipped`).
pub(crate) fn check_shipped(b: &Spec, name: &str) -> Result<BuildReport> {
    let mut spec = b.clone();
    spec.packaged = Some(true);
    spec.toolkit = None;
    spec.prebuilt = None;
    // Whether the files match is the question; compiling one again to compare is not.
    spec.verify = Some("off".into());
    let Some(s) = crate::prepare::packaged::stand_in(&spec)? else {
        return Err(Error::ShippedStale {
            reasons: "it ships no fat binary with a record in its `prebuilt` directory".into(),
        });
    };
    compile_as(&spec, name, Some(&s.toolkit), Take::Matching).map_err(|e| match e {
        Error::PackagedRefused { reasons } => Error::ShippedStale { reasons },
        other => other,
    })
}

/// One build: with a stand-in toolkit (`Mode::Packaged`, nothing compiled) or the one found.
fn compile_as(
    b: &Spec,
    name: &str,
    stand_in: Option<&crate::toolkit::nvcc::Toolkit>,
    take: Take,
) -> Result<BuildReport> {
    // Cache entries used since then are this build's (or a concurrent one's): never evicted.
    let clock = (SystemTime::now(), Instant::now());
    let p = prepare_as(b, name, stand_in, take)?;
    run_prepared(&p, name, clock)
}

/// The build resolved with a stand-in toolkit (`Mode::Packaged`) or the one found.
fn prepare_as(
    b: &Spec,
    name: &str,
    stand_in: Option<&crate::toolkit::nvcc::Toolkit>,
    take: Take,
) -> Result<Prepared> {
    match stand_in {
        Some(tk) => {
            let mut spec = b.clone();
            spec.toolkit = Some(tk.clone());
            resolve(&spec, name, Mode::Packaged(take))
        }
        None => resolve(b, name, Mode::Build),
    }
}

/// A resolved build, announced and attempted; `clock`: when the build started (for the
/// cache's eviction and the report's time).
fn run_prepared(
    p: &Prepared,
    name: &str,
    (started, start): (SystemTime, Instant),
) -> Result<BuildReport> {
    let out_root = p.out_root.clone().ok_or(Error::NoOutDir)?;
    announce(p);
    // A cache entry that vanished mid-build (`cache clean`, or a corrupt entry deleted when
    // packing) is not the build's fault: the second attempt recompiles exactly what is missing,
    // and a second vanishing is an error.
    for retry in [true, false] {
        if let Some(report) = attempt(p, name, &out_root, retry, started, start)? {
            return Ok(report);
        }
    }
    Err(Error::CacheUnstable {
        dir: p.home.cache_dir().to_path_buf(),
    })
}

/// The error of a build whose jobs failed: a broken toolkit, a full disk, or the compile errors
/// grouped once.
fn failure_error(
    failures: &[(usize, &crate::jobs::Failure)],
    skipped: usize,
    jobs: &[plan::Job],
    p: &Prepared,
    compiler: &JobRunner,
) -> Error {
    let tmp = compiler.tmp_dir();
    match crate::output::diag::cause(failures, tmp) {
        crate::output::diag::Cause::ToolkitBroken(detail) => Error::ToolkitBroken {
            root: p.toolkits.main().root().to_path_buf(),
            detail,
        },
        crate::output::diag::Cause::DiskFull => {
            let cache = p.home.cache_dir();
            Error::DiskFull {
                // The cache, when the compiles' temporary files live there.
                dir: if tmp.starts_with(cache) {
                    cache.to_path_buf()
                } else {
                    tmp.parent().unwrap_or(tmp).to_path_buf()
                },
                detail: crate::output::diag::first_line(failures, tmp),
            }
        }
        crate::output::diag::Cause::Compile => Error::Compile(crate::output::diag::describe(
            failures, jobs, &p.modules, tmp, skipped,
        )),
    }
}

/// Writes the `include!` module naming every fat binary, its kernels and variant groups.
fn write_rust_module(
    p: &Prepared,
    modules: &[ModuleReport],
    groups: &[(String, Vec<String>)],
    out_root: &Path,
    name: &str,
) -> Result<PathBuf> {
    let code: Vec<ModuleCode> = modules
        .iter()
        .map(|m| ModuleCode {
            name: &m.name,
            fatbin: &m.fatbin,
            fatbin_len: m.bytes,
            kernels: &m.kernels,
            archs: m.archs.clone(),
            target_kernels: &m.target_kernels,
            variants: groups
                .iter()
                .filter(|(_, ks)| ks.iter().any(|k| m.kernels.contains(k)))
                .map(|(g, ks)| (g.as_str(), ks.as_slice()))
                .collect(),
            declared: &m.declared,
        })
        .collect();
    let targets = p.archs.list.target_names();
    let text = codegen::generate(
        &p.archs.list.to_string(),
        &p.archs.source.to_string(),
        &targets,
        &code,
        &p.launchers,
    );
    let path = out_root.join(format!("{name}.rs"));
    write_if_changed(&path, text.as_bytes()).map_err(|e| Error::io("write", &path, e))?;
    Ok(path)
}

/// One go at a build; `None` when a cache entry vanished under it and `retry` allows another.
fn attempt(
    p: &Prepared,
    name: &str,
    out_root: &Path,
    retry: bool,
    started: SystemTime,
    start: Instant,
) -> Result<Option<BuildReport>> {
    let out = out_root.join(name);
    let order: Vec<String> = p.modules.iter().map(|m| m.name.clone()).collect();
    let roots = crate::jobs::keys::roots(&p.settings, p.toolkits.main());
    let store = p.cache.store.clone();
    let main = p.toolkits.main();
    let facts = match p.serve {
        Serve::Shipped(_) => {
            Facts::packaged(main.release(), p.toolkits.asked(), &p.settings, &roots)
        }
        Serve::Compile => Facts::gather(&p.toolkits, &p.settings, &roots, store.as_ref()),
    };
    let settings_key = crate::jobs::keys::output(&p.settings, &facts, &compression_text(p));
    let mut taken = match &p.prebuilt {
        Some(source) => take_prebuilt(p, source, &out, &settings_key, &roots)?,
        None => Taken::none(p.modules.len()),
    };
    if let Some((origin, asked)) = p.packing.unwritten() {
        if taken.compile.iter().any(|&c| c) {
            taken.warnings.push(Warning::NoZstdWriter { origin, asked });
        }
    }
    if let Some(available) = p.cache.full {
        taken.warnings.push(Warning::CacheFull {
            dir: p.home.cache_dir().to_path_buf(),
            available,
        });
    }
    // Shipped files only: what is left to compile is an error, or under docs.rs empty.
    if let Serve::Shipped(_) = p.serve {
        left_over(p, &out, &roots, &mut taken)?;
    }
    let jobs = plan::plan_jobs_of(&p.modules, &taken.compile, p.share_cicc, &|t| p.maker(t));
    // sccache (the launcher that runs cicc itself) and its cluster.
    let sccache = p
        .settings
        .launcher
        .clone()
        .filter(|_| !p.settings.launch_cicc);
    let fell_back = crate::plan::dist::Watch::start(
        &p.cluster,
        sccache.as_deref(),
        p.settings.compiler_env.vars(),
    );
    let compiler = JobRunner::new(p, &jobs, store, &facts)?;
    let outcomes = compiler.run(p.workers, p.on_job.as_ref());
    if let Some(e) = compiler.mismatch.lock().ok().and_then(|mut m| m.take()) {
        return Err(e);
    }
    let Some(done) = finished(&outcomes, &jobs, p, &compiler, retry)? else {
        return Ok(None);
    };
    let Some(packed) = pack_all(
        p,
        (&jobs, &done),
        &taken.compile,
        &out,
        &compiler,
        &settings_key,
        retry,
    )?
    else {
        return Ok(None);
    };
    // The package files compiled again to verify them: the same bytes, or an error.
    let agreed = verify_packaged(&taken.to_verify, &packed.modules)?;
    taken.verified += agreed.len();
    taken.names.extend(agreed);
    let mut modules = std::mem::take(&mut taken.modules);
    modules.extend(packed.modules);
    modules.sort_by_key(|m| order.iter().position(|n| *n == m.name));
    let mut deps = std::mem::take(&mut taken.deps);
    deps.extend(packed.deps);
    let library = match &p.library {
        Some(lib) => {
            let stage = crate::output::host_stage::run(
                &compiler, p, &jobs, &done, &modules, lib, out_root,
            )?;
            if let Some(e) = compiler.mismatch.lock().ok().and_then(|mut m| m.take()) {
                return Err(e);
            }
            deps.extend(stage.deps);
            Some(stage.report)
        }
        None => None,
    };
    deps.sort();
    deps.dedup();
    taken.warnings.extend(fell_back.finish(
        &p.cluster,
        sccache.as_deref(),
        p.settings.compiler_env.vars(),
    ));
    let ran = Ran {
        compiler: &compiler,
        jobs: &jobs,
        done: &done,
        modules,
        deps,
        library,
        taken,
        remote: p.cache.remote.clone(),
        roots,
    };
    conclude(p, name, out_root, ran, started, start).map(Some)
}

/// What an attempt that ran to the end made.
struct Ran<'a> {
    compiler: &'a JobRunner<'a>,
    jobs: &'a [plan::Job],
    done: &'a [&'a JobOut],
    modules: Vec<ModuleReport>,
    deps: Vec<PathBuf>,
    library: Option<crate::report::LibraryReport>,
    taken: Taken,
    remote: Option<std::sync::Arc<archbuild_store::Remote>>,
    roots: Roots,
}

/// The checks on what was built (variant groups, coverage, modules without kernels), what a
/// build script tells Cargo, the Rust module, eviction, and the report.
fn conclude(
    p: &Prepared,
    name: &str,
    out_root: &Path,
    ran: Ran<'_>,
    started: SystemTime,
    start: Instant,
) -> Result<BuildReport> {
    let Ran {
        compiler,
        jobs,
        done,
        mut modules,
        deps,
        library,
        taken,
        remote,
        roots,
    } = ran;
    let mut warnings: Vec<Warning> = p
        .arch_warnings
        .iter()
        .map(|message| Warning::ArchListDialect {
            message: message.clone(),
        })
        .collect();
    warnings.extend(taken.warnings);
    // A relocatable library's source of device functions alone is the point of linking them.
    let relocatable_library =
        p.library.is_some() && p.settings.device_code == crate::plan::DeviceCode::Relocatable;
    if !relocatable_library {
        warnings.extend(no_kernel_warnings(&modules));
    }
    let variant_reports = crate::report::variants::check(&p.groups, &modules)?;
    warnings.extend(crate::report::coverage::check(&mut modules, &p.groups));
    tell_cargo(
        p,
        &taken.compile,
        &taken.names,
        p.prebuilt.as_ref().map(|s| s.dir()),
        &warnings,
        &deps,
    );
    let rust_module = match p.rust_module {
        true => Some(write_rust_module(p, &modules, &p.groups, out_root, name)?),
        false => None,
    };
    let cache_eviction = evict(p, compiler, started);
    let remote_stats = remote_stats(p, remote);
    let records: Vec<JobRecord> = done
        .iter()
        .enumerate()
        .map(|(j, d)| compiler.record(j, d))
        .collect();
    let compiler_output = compiler_messages(&records, &p.modules, &roots);
    if p.env.cargo_metadata() {
        for line in crate::report::compiler_output::cargo_warnings(&compiler_output) {
            println!(
                "{}",
                p.env.syntax().line("warning", format!("archbuild: {line}"))
            );
        }
    }
    let jobs_run = records.iter().filter(|r| !r.served.cached()).count();
    let report = BuildReport {
        name: name.to_owned(),
        archs: p.archs.list.clone(),
        source: p.archs.source.clone(),
        toolkit: match p.serve {
            Serve::Shipped(_) => format!("{} (packaged)", p.toolkits.main().release()),
            Serve::Compile => p.toolkits.main().release().to_owned(),
        },
        compression: p.packing.written.to_string(),
        nvcc: p.toolkits.main().nvcc().to_path_buf(),
        programs: programs(p),
        jobs_planned: jobs.len(),
        jobs_run,
        cache_hits: jobs.len() - jobs_run,
        processes_started: p.spawns.started(),
        verified: compiler.verified.load(Ordering::SeqCst) + taken.verified,
        jobserver: compiler.uses_jobserver(),
        workers: p.workers,
        jobs: records,
        modules,
        rust_module,
        dependencies: deps,
        env_vars: p.env.read_names(),
        cache_eviction,
        remote: remote_stats,
        prebuilt: taken.names,
        warnings,
        variants: variant_reports,
        compiler_output,
        seconds: start.elapsed().as_secs_f64(),
        library,
    };
    if p.env.cargo_metadata() && !p.quiet {
        // The last of the job lines a build script streams (Cargo shows them with `-vv`).
        eprintln!(
            "archbuild: {}: {} jobs, {} from cache, {} compiled, {:.2} s",
            report.name, report.jobs_planned, report.cache_hits, report.jobs_run, report.seconds
        );
    }
    if p.env.cargo_metadata() {
        let headers = &p.settings.header_libraries;
        for line in crate::output::metadata::lines(&report, headers, p.env.syntax()) {
            println!("{line}");
        }
    }
    Ok(report)
}

/// The cache capped once per build, after everything is packed; a build that stored nothing
/// adds nothing to evict for, and an unchanged rebuild stays a few milliseconds.
fn evict(
    p: &Prepared,
    compiler: &JobRunner<'_>,
    started: SystemTime,
) -> Option<crate::report::CacheEviction> {
    let eviction = compiler
        .store
        .as_ref()
        .filter(|s| s.wrote())
        .map(|s| crate::cache::evict::evict(s, p.cache_max, started))
        .filter(|e| e.entries > 0);
    if let Some(e) = eviction.filter(|_| !p.quiet) {
        eprintln!("archbuild: {e}");
    }
    eviction
}

/// The remote tier's statistics; its warnings become Cargo warnings in a build script, and
/// stay in the report for other callers (the CLI prints them with its own styling).
fn remote_stats(
    p: &Prepared,
    remote: Option<std::sync::Arc<archbuild_store::Remote>>,
) -> Option<archbuild_store::RemoteStats> {
    let stats = remote.map(|r| r.stats());
    if let Some(stats) = stats.as_ref().filter(|_| p.env.cargo_metadata()) {
        for w in &stats.warnings {
            println!(
                "{}",
                p.env.syntax().line("warning", format!("archbuild: {w}"))
            );
        }
    }
    stats
}

/// Every job's output once all succeeded; `None` when the build should run once more (an
/// input removed from the cache mid-build, by `cache clean`, is not the build's fault).
fn finished<'a>(
    outcomes: &'a [Outcome<JobOut, Failure>],
    jobs: &[plan::Job],
    p: &Prepared,
    compiler: &JobRunner,
    retry: bool,
) -> Result<Option<Vec<&'a JobOut>>> {
    if crate::base::process::interrupted() {
        return Err(Error::Interrupted);
    }
    let failures: Vec<_> = outcomes
        .iter()
        .enumerate()
        .filter_map(|(j, o)| match o {
            Outcome::Failed(f) => Some((j, f)),
            _ => None,
        })
        .collect();
    let vanished = |f: &&Failure| f.status == crate::jobs::Status::Vanished;
    if retry && !failures.is_empty() && failures.iter().all(|(_, f)| vanished(f)) {
        return Ok(None);
    }
    if !failures.is_empty() {
        let skipped = outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Skipped))
            .count();
        return Err(failure_error(&failures, skipped, jobs, p, compiler));
    }
    outcomes
        .iter()
        .map(|o| match o {
            Outcome::Done(d) => Ok(&**d),
            _ => Err(Error::Interrupted),
        })
        .collect::<Result<_>>()
        .map(Some)
}

/// What packing the compiled modules gave.
struct Packed {
    modules: Vec<ModuleReport>,
    deps: Vec<PathBuf>,
}

/// Packs every compiled module's fat binary and writes its record; `None` when a cache entry
/// vanished or was corrupt (and is now deleted) and the build should run once more.
fn pack_all(
    p: &Prepared,
    (jobs, done): (&[plan::Job], &[&JobOut]),
    compile: &[bool],
    out: &Path,
    compiler: &JobRunner,
    settings_key: &str,
    retry: bool,
) -> Result<Option<Packed>> {
    let mut packed = Packed {
        modules: Vec::new(),
        deps: Vec::new(),
    };
    let compiled = p.modules.iter().enumerate().filter(|(m, _)| compile[*m]);
    for (m, module) in compiled {
        let store = compiler.store.as_ref();
        let Some((mut report, module_deps)) =
            crate::output::pack::pack(p, m, (jobs, done), out, store)?
        else {
            if retry {
                return Ok(None);
            }
            return Err(Error::CacheUnstable {
                dir: p.home.cache_dir().to_path_buf(),
            });
        };
        // Each image by the toolkit of the job that made it (`plan::Maker`).
        let release_of = |target: &str| {
            jobs.iter()
                .filter(|j| j.module == m)
                .find(|j| j.targets.iter().any(|t| t.to_string() == target))
                .map_or(p.toolkits.main(), |j| p.toolkits.of(j.maker))
                .release()
                .to_owned()
        };
        report.made_by = report
            .targets
            .iter()
            .map(|t| (t.clone(), release_of(t)))
            .collect();
        let module_groups: Vec<(String, Vec<String>)> = p
            .groups
            .iter()
            .filter(|(_, ks)| ks.iter().any(|k| report.kernels.contains(k)))
            .cloned()
            .collect();
        let cicc = |j: &&plan::Job| j.module == m && matches!(j.phase, Phase::Cicc(_));
        let read = crate::output::prebuilt::module_read(
            jobs.iter()
                .zip(done)
                .filter(|(j, _)| cicc(j))
                .map(|(_, d)| d.read.as_ref()),
        );
        write_record(
            compiler,
            (module, read.as_ref()),
            &report,
            settings_key,
            p,
            module_groups,
        )?;
        packed.modules.push(report);
        packed.deps.extend(module_deps);
    }
    Ok(Some(packed))
}

/// What a build script tells Cargo: the prebuilt fat binaries used, the build's warnings, and
/// every file to watch (system headers are hashed for the cache but not watched).
fn tell_cargo(
    p: &Prepared,
    compiled: &[bool],
    prebuilt_used: &[String],
    prebuilt_dir: Option<&Path>,
    warnings: &[Warning],
    deps: &[PathBuf],
) {
    if !p.env.cargo_metadata() {
        return;
    }
    let syntax = p.env.syntax();
    if !prebuilt_used.is_empty() {
        let line = format!(
            "archbuild: using prebuilt fat binaries for {} from {} (checked against the sources, \
             flags and targets; nothing compiled for them)",
            prebuilt_used.join(", "),
            prebuilt_dir.unwrap_or(Path::new("?")).display()
        );
        println!("{}", syntax.line("warning", line));
    }
    for w in warnings {
        println!("{}", syntax.line("warning", format!("archbuild: {w}")));
    }
    let watch = p.watch.iter().chain(
        p.modules
            .iter()
            .zip(compiled)
            .filter(|(_, c)| **c)
            .flat_map(|(m, _)| m.members.iter()),
    );
    for path in watch.chain(deps.iter().filter(|d| !is_system(d))) {
        println!("{}", syntax.line("rerun-if-changed", path.display()));
    }
}

/// A warning for each module whose fat binary holds no kernel.
fn no_kernel_warnings(modules: &[ModuleReport]) -> Vec<Warning> {
    // An empty file is docs.rs's stand-in for one nothing made: no fat binary to speak of.
    modules
        .iter()
        .filter(|m| m.kernels.is_empty() && m.bytes > 0)
        .map(|m| Warning::NoKernels {
            module: m.name.clone(),
            sources: m.sources.clone(),
            fatbin: m.fatbin.clone(),
        })
        .collect()
}

/// What the compilers printed, grouped per file and de-duplicated across targets.
fn compiler_messages(
    records: &[JobRecord],
    modules: &[Module],
    roots: &Roots,
) -> Vec<crate::report::compiler_output::CompilerMessage> {
    let sources: Vec<(&str, String)> = modules
        .iter()
        .map(|m| {
            // The path the compiler was given: relative to the package where it lies inside.
            let p = roots.portable(&m.source);
            let shown = p.split_once(':').map_or(p.clone(), |(_, r)| r.to_owned());
            (m.name.as_str(), shown)
        })
        .collect();
    let texts: Vec<crate::report::compiler_output::JobText> = records
        .iter()
        .filter_map(|r| {
            let output = r.output.as_deref()?;
            let source = sources.iter().find(|(n, _)| *n == r.module)?;
            Some(crate::report::compiler_output::JobText {
                module: &r.module,
                source: &source.1,
                target: &r.target,
                output,
            })
        })
        .collect();
    crate::report::compiler_output::collect(&texts)
}

/// System headers are hashed for the cache but not handed to Cargo's change tracking.
fn is_system(p: &Path) -> bool {
    p.starts_with("/usr") || p.starts_with("/lib")
}

/// What the build runs (`BuildReport::programs`): the toolkit's nvcc and ptxas, the host
/// compiler nvcc runs, and the launcher.
fn programs(p: &Prepared) -> Vec<PathBuf> {
    if let Serve::Shipped(_) = p.serve {
        return Vec::new();
    }
    let mut out = vec![
        p.toolkits.main().nvcc().to_path_buf(),
        p.toolkits.main().tool("ptxas"),
        crate::jobs::keys::host_compiler_path(&p.settings),
    ];
    // The PTX toolkit runs cicc alone; the legacy one, cicc and ptxas.
    for (maker, t) in p.toolkits.others() {
        out.push(t.nvcc().to_path_buf());
        if maker == Maker::Legacy {
            out.push(t.tool("ptxas"));
        }
    }
    out.extend(p.settings.launcher.iter().cloned());
    out
}
