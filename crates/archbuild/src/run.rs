//! What `Build::try_compile` does, start to end: resolve the configuration, plan, run the jobs
//! (cache first), pack one fat binary per module, generate the Rust module, and tell Cargo what
//! to watch.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

use archbuild_arch::{ComputeCapability, Target};
use archbuild_fatbin::CompressionChoice;

use crate::archs::{ArchSource, ResolvedArchs};
use crate::codegen::{self, ModuleCode};
use crate::deps::{self, FileHashes, Roots};
use crate::discover::Discovery;
use crate::driver::{Compiler, JobOut};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::exec::{self, Outcome};
use crate::manifest::PackageConfig;
use crate::nvcc::Toolkit;
use crate::paths::{write_if_changed, Home};
use crate::plan::{self, Module, Phase, Settings};
use crate::prebuilt;
use crate::process::Cmd;
use crate::report::{BuildReport, JobPhase, JobRecord, ModuleReport};
use crate::setup;
use crate::spec::Spec;
use crate::store::Store;

/// The commands a cold build would run (`Build::try_plan`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanListing {
    /// The build's arch list.
    pub archs: String,
    /// Where it came from, in words (as `BuildReport::arch_source`).
    pub arch_source: String,
    /// Where it came from.
    pub source: ArchSource,
    pub jobs: Vec<PlannedJob>,
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

/// Everything resolved before any compile runs.
pub(crate) struct Prepared {
    pub env: Env,
    pub toolkit: Toolkit,
    pub archs: ResolvedArchs,
    /// Warnings about the list in its own dialect (a `TORCH_CUDA_ARCH_LIST` PyTorch rejects).
    pub arch_warnings: Vec<String>,
    pub modules: Vec<Module>,
    pub settings: Settings,
    pub compression: CompressionChoice,
    pub home: Home,
    pub cache_on: bool,
    /// The rule cicc runs are shared by, when they are (`share.rs`).
    pub share_cicc: Option<crate::share::Rule>,
    /// The build cache's size cap (read only when the cache is on).
    pub cache_max: u64,
    pub remote: Option<archbuild_store::RemoteConfig>,
    /// `[package.metadata.archbuild.variants]`, when Cargo.toml has the table.
    pub pkg_variants: Option<Vec<(String, Vec<String>)>>,
    pub spawned: usize,
    pub watch: Vec<PathBuf>,
}

/// Resolves everything a build needs. `out_dir` is where generated sources go; `write` is false
/// for a plan, which must write nothing (a module group's source is then only named).
pub(crate) fn prepare(
    b: &Spec,
    name: &str,
    out_dir: Option<&Path>,
    write: bool,
) -> Result<Prepared> {
    let mut env = b.env.clone().unwrap_or_else(Env::process);
    if let Some(on) = b.cargo_metadata {
        env = env.with_cargo_metadata(on);
    }
    let manifest_dir = b
        .manifest_dir
        .clone()
        .or_else(|| env.path("CARGO_MANIFEST_DIR"));
    let base_dir = match &manifest_dir {
        Some(d) => d.clone(),
        None => {
            std::env::current_dir().map_err(|e| Error::io("find", "the current directory", e))?
        }
    };
    let mut watch = Vec::new();
    let pkg = match &manifest_dir {
        Some(d) if d.join("Cargo.toml").is_file() => {
            watch.push(d.join("Cargo.toml"));
            PackageConfig::from_manifest(&d.join("Cargo.toml"))?
        }
        _ => None,
    };
    let mut home = b.home.clone().unwrap_or_else(|| Home::from_env(&env));
    if let Some(c) = &b.cache_dir {
        home = home.with_cache_dir(c.clone());
    }
    let cache_on = match (b.cache, env.var("ARCHBUILD_CACHE")) {
        (Some(on), _) => on,
        (None, None) => true,
        (None, Some(v)) if archbuild_store::is_off(&v) => false,
        (None, Some(v)) if archbuild_store::is_on(&v) => true,
        (None, Some(v)) => {
            return Err(Error::Config {
                what: "cache switch",
                origin: "ARCHBUILD_CACHE".into(),
                value: v,
                hint: "use `off` (or `0`, `false`, `no`, `none`) to build without the cache, \
                       `on` (or `1`, `true`, `yes`) or nothing to use it"
                    .into(),
            })
        }
    };
    let cache_max = if cache_on {
        crate::evict::max_bytes(&env)?
    } else {
        0
    };
    let remote = crate::remote::resolve(b, &env, pkg.as_ref())?;
    let toolkit = match &b.toolkit {
        // Queried by the caller, before this build.
        Some(t) => {
            let mut t = t.clone();
            t.query_processes = 0;
            t
        }
        None => {
            let provision = b.provision.unwrap_or(false);
            Discovery::new(home.clone()).locate(
                &env,
                provision,
                &mut crate::provision::stderr_progress,
            )?
        }
    };
    let mut spawned = toolkit.query_processes;
    let device_cell = std::cell::Cell::new(0usize);
    let devices = || match &b.devices {
        Some(d) => d.clone(),
        None => {
            device_cell.set(device_cell.get() + 1);
            query_devices(&toolkit)
        }
    };
    let archs =
        crate::archs::resolve_archs(b.archs.as_deref(), &env, pkg.as_ref(), &toolkit, &devices)?;
    // In the report's warnings (and so `cargo:warning` in build scripts, and the CLI's output).
    let arch_warnings = archs.source.dialect().warnings(&archs.input);
    if let Some(line) = archs.announcement().filter(|_| !b.quiet) {
        if env.cargo_metadata() {
            println!("cargo:warning=archbuild: {line}");
        } else {
            eprintln!("archbuild: {line}");
        }
    }
    let settings = setup::settings(b, &env, pkg.as_ref(), &base_dir)?;
    let compression = setup::compression(b, &env, pkg.as_ref())?;
    let share_cicc = crate::share::enabled(
        b.share_cicc,
        &env,
        toolkit.version(),
        &settings.nvcc_flags,
        settings.launch_cicc && settings.launcher.is_some(),
    )?;
    let modules = setup::modules(
        b,
        name,
        pkg.as_ref(),
        &base_dir,
        out_dir,
        write,
        &archs,
        &toolkit,
        &devices,
    )?;
    spawned += device_cell.get();
    // What the build depends on is the toolkit found, not PATH (see `Env::var_os`).
    watch.push(toolkit.nvcc().to_path_buf());
    Ok(Prepared {
        env,
        toolkit,
        archs,
        arch_warnings,
        modules,
        settings,
        compression,
        home,
        cache_on,
        share_cicc,
        cache_max,
        remote,
        pkg_variants: pkg.as_ref().map(|p| p.variants.clone()),
        spawned,
        watch,
    })
}

/// The GPUs of this machine, from the toolkit's `__nvcc_device_query` (what `nvcc
/// -arch=native` uses). Empty when there is no GPU (it then fails with `CUDA_ERROR_NO_DEVICE`).
fn query_devices(tk: &Toolkit) -> Vec<ComputeCapability> {
    match Cmd::new(tk.tool("__nvcc_device_query")).output() {
        Ok(out) if out.status.success() => {
            parse_device_query(&String::from_utf8_lossy(&out.stdout))
        }
        _ => Vec::new(),
    }
}

/// `__nvcc_device_query` prints the SM numbers of the visible GPUs without a newline (`90` on
/// an H200, observed; comma-separated for several GPUs).
fn parse_device_query(stdout: &str) -> Vec<ComputeCapability> {
    let mut ccs: Vec<ComputeCapability> = stdout
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse::<u32>().ok())
        .filter(|&sm| sm >= 10)
        .map(ComputeCapability::from_sm)
        .collect();
    ccs.sort();
    ccs.dedup();
    ccs
}

fn out_dir(b: &Spec, env: &Env) -> Result<PathBuf> {
    b.out_dir
        .clone()
        .or_else(|| env.path("OUT_DIR"))
        .ok_or(Error::NoOutDir)
}

pub(crate) fn plan_only(b: &Spec, name: &str) -> Result<PlanListing> {
    let env = b.env.clone().unwrap_or_else(Env::process);
    let out = out_dir(b, &env).ok().map(|o| o.join(name));
    let p = prepare(b, name, out.as_deref(), false)?;
    let jobs = plan::plan_jobs(&p.modules, p.share_cicc);
    let tmp = Path::new("<tmp>");
    let listing = jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let m = &p.modules[job.module];
            let (phase, cmd) = match job.phase {
                Phase::Cicc(a) => (
                    JobPhase::Cicc,
                    plan::cicc_command(
                        &p.toolkit,
                        &p.settings,
                        m,
                        a,
                        &tmp.join(format!("{j}.ptx")),
                        &tmp.join(format!("{j}.d")),
                    ),
                ),
                Phase::Ptxas(a) => (
                    JobPhase::Ptxas,
                    plan::ptxas_command(&p.toolkit, &p.settings, a, &tmp.join(j.to_string())),
                ),
            };
            PlannedJob {
                module: m.name.clone(),
                phase,
                target: job.label(),
                command: cmd.display(),
            }
        })
        .collect();
    Ok(PlanListing {
        archs: p.archs.list.to_string(),
        arch_source: p.archs.source.to_string(),
        source: p.archs.source.clone(),
        jobs: listing,
    })
}

pub(crate) fn compile(b: &Spec, name: &str) -> Result<BuildReport> {
    // Cache entries used since then are this build's (or a concurrent one's): never evicted.
    compile_attempt(b, name, true, SystemTime::now())
}

/// What [`take_prebuilt`] took from `ARCHBUILD_PREBUILT`.
#[derive(Default)]
struct Taken {
    names: Vec<String>,
    modules: Vec<ModuleReport>,
    deps: Vec<PathBuf>,
    warnings: Vec<String>,
}

/// Takes every module whose prebuilt fat binary in `dir` matches this build (sources, flags,
/// targets) out of `p.modules`, writing it as the module's output; the others stay to compile,
/// each with a warning saying why its prebuilt one was not used.
fn take_prebuilt(
    p: &mut Prepared,
    dir: &Path,
    out: &Path,
    settings_key: &str,
    roots: &Roots,
) -> Result<Taken> {
    let hashes = FileHashes::default();
    let mut taken = Taken::default();
    let mut rest = Vec::new();
    for module in std::mem::take(&mut p.modules) {
        let targets: Vec<String> = module
            .archs
            .list
            .targets()
            .iter()
            .map(Target::to_string)
            .collect();
        match prebuilt::check(dir, &module.name, &targets, settings_key, roots, &hashes) {
            Ok(bytes) => {
                let (report, inputs) = use_prebuilt(&module, out, &bytes, dir, roots)?;
                taken.deps.extend(inputs);
                taken.names.push(module.name.clone());
                taken.modules.push(report);
            }
            Err(why) => {
                taken.warnings.push(format!(
                    "the prebuilt {} is not used: {why}; compiling `{}` instead",
                    dir.join(format!("{}.fatbin", module.name)).display(),
                    module.name
                ));
                rest.push(module);
            }
        }
    }
    p.modules = rest;
    Ok(taken)
}

/// The error of a build whose jobs failed: a broken toolkit, a full disk, or the compile errors
/// grouped once.
fn failure_error(
    failures: &[(usize, &crate::driver::Failure)],
    skipped: usize,
    jobs: &[plan::Job],
    p: &Prepared,
    compiler: &Compiler,
) -> Error {
    let tmp = compiler.tmp_dir();
    match crate::diag::cause(failures, tmp) {
        crate::diag::Cause::ToolkitBroken(detail) => Error::ToolkitBroken {
            root: p.toolkit.root().to_path_buf(),
            detail,
        },
        crate::diag::Cause::DiskFull => {
            let cache = p.home.cache_dir();
            Error::DiskFull {
                // The cache, when the compiles' temporary files live there.
                dir: if tmp.starts_with(cache) {
                    cache.to_path_buf()
                } else {
                    tmp.parent().unwrap_or(tmp).to_path_buf()
                },
                detail: crate::diag::first_line(failures, tmp),
            }
        }
        crate::diag::Cause::Compile => Error::Compile(crate::diag::describe(
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
        })
        .collect();
    let targets: Vec<String> = p
        .archs
        .list
        .targets()
        .iter()
        .map(Target::to_string)
        .collect();
    let text = codegen::generate(
        &p.archs.list.to_string(),
        &p.archs.source.to_string(),
        &targets,
        &code,
    );
    let path = out_root.join(format!("{name}.rs"));
    write_if_changed(&path, text.as_bytes()).map_err(|e| Error::io("write", &path, e))?;
    Ok(path)
}

fn compile_attempt(b: &Spec, name: &str, retry: bool, started: SystemTime) -> Result<BuildReport> {
    let start = Instant::now();
    let env0 = b.env.clone().unwrap_or_else(Env::process);
    let out_root = out_dir(b, &env0)?;
    let out = out_root.join(name);
    let mut p = prepare(b, name, Some(&out), true)?;
    let order: Vec<String> = p.modules.iter().map(|m| m.name.clone()).collect();
    let settings_key = prebuilt::settings_key(&p.settings, &format!("{:?}", p.compression));
    let roots = Roots {
        base: deps::lexical(&p.settings.base_dir),
        toolkit: deps::lexical(p.toolkit.root()),
    };
    let mut warnings = p.arch_warnings.clone();
    let mut modules = Vec::new();
    let mut prebuilt_used = Vec::new();
    let mut deps: Vec<PathBuf> = Vec::new();
    let prebuilt_dir = b.prebuilt.clone().or_else(|| p.env.path(PREBUILT_VAR));
    if let Some(dir) = &prebuilt_dir {
        let mut taken = take_prebuilt(&mut p, dir, &out, &settings_key, &roots)?;
        deps.append(&mut taken.deps);
        prebuilt_used = taken.names;
        modules = taken.modules;
        warnings.append(&mut taken.warnings);
    }
    let jobs = plan::plan_jobs(&p.modules, p.share_cicc);
    let remote = if p.cache_on {
        crate::remote::open(p.remote.clone())
    } else {
        None
    };
    let store = p
        .cache_on
        .then(|| Store::new(p.home.cache_dir()).with_remote(remote.clone()));
    let compiler = Compiler::new(&p.toolkit, &p.settings, &p.modules, &jobs, store, &p.env)?;
    let workers = exec::parallelism(&p.env, b.jobs)?;
    let outcomes = compiler.run(workers, b.on_job.as_ref());
    if crate::process::interrupted() {
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
    // An input removed from the cache mid-build (`cache clean`) is not the build's fault: once
    // more, and the missing outputs are compiled again (as for a vanished entry when packing).
    let vanished = |f: &&crate::driver::Failure| f.status == crate::driver::VANISHED;
    if retry && !failures.is_empty() && failures.iter().all(|(_, f)| vanished(f)) {
        return compile_attempt(b, name, false, started);
    }
    if !failures.is_empty() {
        let skipped = outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Skipped))
            .count();
        return Err(failure_error(&failures, skipped, &jobs, &p, &compiler));
    }
    let done: Vec<&JobOut> = outcomes
        .iter()
        .map(|o| match o {
            Outcome::Done(d) => Ok(&**d),
            _ => Err(Error::Interrupted),
        })
        .collect::<Result<_>>()?;

    for (m, module) in p.modules.iter().enumerate() {
        let packed = crate::pack::pack(
            module,
            m,
            &jobs,
            &done,
            p.compression,
            &out,
            compiler.store.as_ref(),
        )?;
        let Some((report, module_deps)) = packed else {
            // A cache entry vanished or was corrupt (and is now deleted): build once more,
            // which recompiles exactly the missing outputs.
            if retry {
                return compile_attempt(b, name, false, started);
            }
            return Err(Error::CacheUnstable {
                dir: p.home.cache_dir().to_path_buf(),
            });
        };
        let module_groups: Vec<(String, Vec<String>)> =
            crate::variants::groups(&b.variants, p.pkg_variants.as_deref().unwrap_or_default())
                .into_iter()
                .filter(|(_, ks)| ks.iter().any(|k| report.kernels.contains(k)))
                .collect();
        write_record(
            &compiler,
            module,
            &report,
            &module_deps,
            &settings_key,
            &p,
            module_groups,
        )?;
        modules.push(report);
        deps.extend(module_deps);
    }
    modules.sort_by_key(|m| order.iter().position(|n| *n == m.name));
    for m in modules.iter().filter(|m| m.kernels.is_empty()) {
        let sources: Vec<String> = m.sources.iter().map(|s| s.display().to_string()).collect();
        warnings.push(format!(
            "`{}` defines no kernel: the fat binary {} holds nothing to launch (no \
             `__global__` function survived preprocessing for any arch); add a kernel or remove \
             the file from the build",
            sources.join("`, `"),
            m.fatbin.display()
        ));
    }
    let groups =
        crate::variants::groups(&b.variants, p.pkg_variants.as_deref().unwrap_or_default());
    let variant_reports = crate::variants::check(&groups, &modules)?;
    warnings.extend(crate::coverage::warnings(&modules, &groups));
    deps.sort();
    deps.dedup();
    if p.env.cargo_metadata() && !prebuilt_used.is_empty() {
        println!(
            "cargo:warning=archbuild: using prebuilt fat binaries for {} from {} (checked against \
             the sources, flags and targets; nothing compiled for them)",
            prebuilt_used.join(", "),
            prebuilt_dir.as_deref().unwrap_or(Path::new("?")).display()
        );
    }
    for w in warnings.iter().filter(|_| p.env.cargo_metadata()) {
        println!("cargo:warning=archbuild: {w}");
    }

    let rust_module = match b.no_rust_module {
        true => None,
        false => Some(write_rust_module(&p, &modules, &groups, &out_root, name)?),
    };

    if p.env.cargo_metadata() {
        let watch = p
            .watch
            .iter()
            .chain(p.modules.iter().flat_map(|m| m.members.iter()));
        for path in watch.chain(deps.iter().filter(|d| !is_system(d))) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }

    // Once per build, after everything is packed; a build that stored nothing adds nothing to
    // evict for, and an unchanged rebuild stays a few milliseconds.
    let cache_eviction = compiler
        .store
        .as_ref()
        .filter(|s| s.wrote())
        .map(|s| crate::evict::evict(s, p.cache_max, started))
        .filter(|e| e.entries > 0);
    if let Some(e) = cache_eviction.filter(|_| !b.quiet) {
        eprintln!("archbuild: {e}");
    }

    let remote_stats = remote.map(|r| r.stats());
    // Build scripts show them as cargo warnings; other callers have them in the report (the
    // CLI prints them with its own styling).
    if let Some(stats) = remote_stats.as_ref().filter(|_| p.env.cargo_metadata()) {
        for w in &stats.warnings {
            println!("cargo:warning=archbuild: {w}");
        }
    }
    let records: Vec<JobRecord> = done
        .iter()
        .enumerate()
        .map(|(j, d)| compiler.record(j, d))
        .collect();
    let compiler_output = compiler_messages(&records, &p.modules, &roots);
    if p.env.cargo_metadata() {
        for line in crate::compiler_output::cargo_warnings(&compiler_output) {
            println!("cargo:warning=archbuild: {line}");
        }
    }
    let jobs_run = records.iter().filter(|r| !r.cached).count();
    Ok(BuildReport {
        name: name.to_owned(),
        archs: p.archs.list.to_string(),
        arch_source: p.archs.source.to_string(),
        source: p.archs.source.clone(),
        toolkit: p.toolkit.release().to_owned(),
        nvcc: p.toolkit.nvcc().to_path_buf(),
        jobs_planned: jobs.len(),
        jobs_run,
        cache_hits: jobs.len() - jobs_run,
        processes_started: p.spawned + compiler.spawned.load(Ordering::SeqCst),
        jobserver: compiler.uses_jobserver(),
        workers,
        jobs: records,
        modules,
        rust_module,
        dependencies: deps,
        env_vars: p.env.read_names(),
        cache_eviction,
        remote: remote_stats,
        prebuilt: prebuilt_used,
        warnings,
        variants: variant_reports,
        compiler_output,
        seconds: start.elapsed().as_secs_f64(),
        arch_list: p.archs.list.clone(),
    })
}

/// What the compilers printed, grouped per file and de-duplicated across targets.
fn compiler_messages(
    records: &[JobRecord],
    modules: &[Module],
    roots: &Roots,
) -> Vec<crate::compiler_output::CompilerMessage> {
    let sources: Vec<(&str, String)> = modules
        .iter()
        .map(|m| {
            // The path the compiler was given: relative to the package where it lies inside.
            let p = roots.portable(&m.source);
            let shown = p.split_once(':').map_or(p.clone(), |(_, r)| r.to_owned());
            (m.name.as_str(), shown)
        })
        .collect();
    let texts: Vec<crate::compiler_output::JobText> = records
        .iter()
        .filter_map(|r| {
            let output = r.output.as_deref()?;
            let source = sources.iter().find(|(n, _)| *n == r.module)?;
            Some(crate::compiler_output::JobText {
                module: &r.module,
                source: &source.1,
                target: &r.target,
                output,
            })
        })
        .collect();
    crate::compiler_output::collect(&texts)
}

/// The variable naming a directory of prebuilt fat binaries (`docs/ci.md`).
const PREBUILT_VAR: &str = "ARCHBUILD_PREBUILT";

/// Writes a prebuilt fat binary (and its record) into the output directory; returns its report
/// and the inputs to watch.
fn use_prebuilt(
    module: &plan::Module,
    out: &Path,
    bytes: &[u8],
    dir: &Path,
    roots: &Roots,
) -> Result<(ModuleReport, Vec<PathBuf>)> {
    let path = out.join(format!("{}.fatbin", module.name));
    write_if_changed(&path, bytes).map_err(|e| Error::io("write", &path, e))?;
    let from = prebuilt::record_path(&dir.join(format!("{}.fatbin", module.name)));
    let record = prebuilt::Record::read(&from).map_err(|detail| Error::Config {
        what: "prebuilt record",
        origin: PREBUILT_VAR.to_owned(),
        value: from.display().to_string(),
        hint: detail,
    })?;
    record
        .write(&prebuilt::record_path(&path))
        .map_err(|e| Error::io("write", prebuilt::record_path(&path), e))?;
    let images = archbuild_fatbin::read_any(bytes).map_err(|e| Error::Pack {
        module: module.name.clone(),
        source: Box::new(e),
    })?;
    let target_kernels: Vec<(String, Vec<String>)> = images
        .iter()
        .filter_map(|i| {
            let t = match i.kind {
                archbuild_fatbin::EntryKind::Ptx => Target::ptx(i.arch),
                archbuild_fatbin::EntryKind::Elf => Target::cubin(i.arch),
                _ => return None,
            };
            let mut k = i.kernels.clone();
            k.sort();
            Some((t.to_string(), k))
        })
        .collect();
    let mut kernels: Vec<String> = images.iter().flat_map(|i| i.kernels.clone()).collect();
    kernels.sort();
    kernels.dedup();
    let inputs = record
        .inputs
        .iter()
        .filter(|(p, _)| p.starts_with("b:"))
        .filter_map(|(p, _)| roots.local(p))
        .collect();
    let report = ModuleReport {
        name: module.name.clone(),
        sources: module.members.clone(),
        fatbin: path,
        bytes: bytes.len(),
        archs: module.archs.list.to_string(),
        targets: record.targets.clone(),
        kernels,
        target_kernels,
    };
    Ok((report, inputs))
}

/// Writes the record beside a fat binary this build packed, unless an identical one is there.
fn write_record(
    compiler: &Compiler<'_>,
    module: &plan::Module,
    report: &ModuleReport,
    module_deps: &[PathBuf],
    settings_key: &str,
    p: &Prepared,
    variants: Vec<(String, Vec<String>)>,
) -> Result<()> {
    let Some(inputs) = deps::inputs(
        &compiler.roots,
        module_deps,
        &p.settings.includes,
        &compiler.hashes,
        &plan::arch_list_macro(module),
    ) else {
        return Ok(());
    };
    let path = prebuilt::record_path(&report.fatbin);
    if let Ok(old) = prebuilt::Record::read(&path) {
        let mut targets = report.targets.clone();
        targets.sort();
        let mut deps = inputs.deps.clone();
        deps.sort();
        deps.dedup();
        if old.module == module.name
            && old.settings == settings_key
            && old.targets == targets
            && old.inputs == deps
            && old.variants == variants
            && crate::paths::file_stamp(&report.fatbin)
                .is_some_and(|(len, _)| len == report.bytes as u64)
        {
            return Ok(());
        }
    }
    let bytes = std::fs::read(&report.fatbin).map_err(|e| Error::io("read", &report.fatbin, e))?;
    let mut record = prebuilt::Record::new(
        &module.name,
        &report.targets,
        settings_key.to_owned(),
        p.toolkit.release(),
        inputs,
        &bytes,
    );
    record.variants = variants;
    record
        .write(&path)
        .map_err(|e| Error::io("write", &path, e))
}

/// System headers are hashed for the cache but not handed to Cargo's change tracking.
fn is_system(p: &Path) -> bool {
    p.starts_with("/usr") || p.starts_with("/lib")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_query_output() {
        let cc = ComputeCapability::new;
        assert_eq!(parse_device_query("90"), [cc(9, 0)]);
        assert_eq!(parse_device_query("89,86,86\n"), [cc(8, 6), cc(8, 9)]);
        assert_eq!(parse_device_query(""), []);
    }
}
