//! A build's configuration resolved once, before anything runs, into one [`Prepared`].
use super::setup::{self, Sources};
use crate::config::runtime_dep::Launchers;
use std::path::PathBuf;

use archbuild_arch::ComputeCapability;

use crate::base::env::Env;
use crate::base::layered::{Layer, Setting};
use crate::base::paths::Home;
use crate::base::process::{Cmd, Spawns};
use crate::config::archs::ResolvedArchs;
use crate::config::manifest::PackageConfig;
use crate::config::verification::Verify;
use crate::error::{Error, Result};
use crate::plan::{Module, Settings};
use crate::prepare::spec::Spec;
use crate::toolkit::discover::{Discovery, Wanted};
use crate::toolkit::makers::{Maker, Toolkits};
use crate::toolkit::nvcc::Toolkit;
use crate::toolkit::releases::Requested;

/// The variable naming a directory of prebuilt fat binaries (`docs/ci.md`).
pub(crate) const PREBUILT_VAR: &str = "ARCHBUILD_PREBUILT";

/// What resolving may do besides reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A build: provisions the toolkit when asked, installs header libraries, asks a
    /// sccache-dist cluster for its CPUs.
    Build,
    /// The plan of a build about to run (`Build::try_plan_to_build`, the CLI's): installs what
    /// the build would, writes no output.
    PlanToBuild,
    /// A plan (`try_plan`): writes nothing; a toolkit or header library that is not there yet
    /// is an error naming the build that would provision it.
    Plan,
    /// A build that takes a package's shipped fat binaries before any toolkit is looked for
    /// (`docs/publishing.md`): its toolkit is the records' stand-in; installs nothing, runs
    /// nothing, touches no network; `Take` says which files it takes.
    Packaged(Take),
}

impl Mode {
    /// Whether resolving may provision a toolkit and install header libraries.
    fn installs(self) -> bool {
        matches!(self, Mode::Build | Mode::PlanToBuild)
    }

    /// How a build in this mode gets its fat binaries.
    fn serve(self) -> Serve {
        match self {
            Mode::Packaged(take) => Serve::Shipped(take),
            _ => Serve::Compile,
        }
    }
}

/// Where fat binaries made elsewhere come from, and so how they are checked
/// (`output/prebuilt.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Prebuilt {
    /// A CI run's (`Build::prebuilt`, `ARCHBUILD_PREBUILT`): made with this build's toolkit and
    /// host compiler, every input compared.
    Ci(PathBuf),
    /// The package's own (`prebuilt` in `[package.metadata.archbuild]`): made by its author's
    /// toolkit, the package's files and every setting compared.
    Packaged(PathBuf),
}

/// Which fat binaries made elsewhere a build takes (`output/prebuilt.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Take {
    /// Those whose record matches; a package's that `ARCHBUILD_VERIFY` samples is compiled
    /// again and compared instead.
    Matching,
    /// Those whose record matches, none compiled again: no toolkit was found (each sampled one
    /// with a warning).
    Unverified,
    /// Anything shipped, matching or not, and an empty fat binary for a module with none:
    /// docs.rs (`DOCS_RS`), which has no toolkit and runs no kernel.
    Docs,
}

impl Prebuilt {
    pub(crate) fn dir(&self) -> &std::path::Path {
        match self {
            Prebuilt::Ci(d) | Prebuilt::Packaged(d) => d,
        }
    }
}

/// How a build gets its fat binaries, decided once when it is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Serve {
    /// Compiles, with the toolkit found, what prebuilt files (CI's or the package's) do not
    /// cover.
    Compile,
    /// Takes the package's shipped fat binaries with the toolkit their records describe (a
    /// stand-in that runs nothing) and compiles nothing.
    Shipped(Take),
}

/// The build cache as a build uses it, opened once: the store with its remote tier when the
/// cache is on and its disk has room; a full disk never stops a build, which then runs
/// without the cache and says so once (`full`, the bytes left).
#[derive(Clone, Default)]
pub(crate) struct OpenCache {
    pub store: Option<crate::base::store::Store>,
    pub remote: Option<std::sync::Arc<archbuild_store::Remote>>,
    pub full: Option<u64>,
}

/// Everything resolved before any compile runs.
#[derive(Clone)]
pub(crate) struct Prepared {
    pub env: Env,
    /// The build's toolkit, and the PTX (`ptx-toolkit`) and legacy (`legacy-toolkit`: a CUDA
    /// 12 one for sm_50–72) toolkits with the versions asked for, by `plan::Maker`.
    pub toolkits: Toolkits,
    pub archs: ResolvedArchs,
    /// Warnings about the list in its own dialect (a `TORCH_CUDA_ARCH_LIST` PyTorch rejects).
    pub arch_warnings: Vec<String>,
    pub modules: Vec<Module>,
    pub settings: Settings,
    /// The compression asked for and what this build writes (`prepare/packing.rs`).
    pub packing: crate::prepare::packing::Packing,
    pub home: Home,
    /// The rule cicc runs are shared by, when they are (`plan/share.rs`).
    pub share_cicc: Option<crate::plan::share::Rule>,
    /// The build cache's size cap (read only when the cache is on).
    pub cache_max: u64,
    /// The variant groups: the build script's, then Cargo.toml's.
    pub groups: Vec<(String, Vec<String>)>,
    /// `<OUT_DIR>` (`Build::out_dir`, else `OUT_DIR`); a build needs it, a plan does not.
    pub out_root: Option<PathBuf>,
    /// Where fat binaries made elsewhere are taken from (`Build::prebuilt`, else
    /// `ARCHBUILD_PREBUILT`, else the package's `prebuilt`); never for a library, whose host
    /// objects need every source's stub.
    pub prebuilt: Option<Prebuilt>,
    /// Whether it compiles or takes the package's shipped files only.
    pub serve: Serve,
    /// The cache, opened for a build that compiles (none for a plan or shipped files).
    pub cache: OpenCache,
    /// Worker threads: `local_workers`, or with a sccache-dist cluster `ARCHBUILD_DIST_JOBS`,
    /// else `local_workers` plus the cluster's CPUs.
    pub workers: usize,
    /// Processes at once on this machine (`Build::jobs`, `ARCHBUILD_JOBS`, the CPUs).
    pub local_workers: usize,
    /// sccache-dist through the launcher (`plan/dist.rs`); `Off` without sccache.
    pub cluster: crate::plan::dist::Cluster,
    pub on_job: Option<crate::prepare::spec::JobCallback>,
    /// Whether to write the `include!` module.
    pub rust_module: bool,
    /// Whether the Rust module has typed launchers (`config/runtime_dep.rs`).
    pub launchers: Launchers,
    pub quiet: bool,
    /// The build's one count of processes started; its compiler jobs count into it too.
    pub spawns: Spawns,
    pub watch: Vec<PathBuf>,
    /// Which cache hits are compiled again and compared (`ARCHBUILD_VERIFY`).
    pub verify: crate::config::verification::Verify,
    /// A library build (`Library`, or Cargo.toml's `library`): its archive, host flags, runtime.
    pub library: Option<crate::host::link::ResolvedLibrary>,
}

/// The job count with a sccache-dist cluster (`docs/environment.md`).
pub(crate) const DIST_JOBS_VAR: &str = "ARCHBUILD_DIST_JOBS";

/// Resolves everything a build needs, once. The legacy toolkit (`legacy-toolkit`) is looked
/// for only when a target needs it: a machine without CUDA 12 builds every list the build's
/// own toolkit can.
pub(crate) fn resolve(b: &Spec, name: &str, mode: Mode) -> Result<Prepared> {
    match resolve_as(b, name, mode, false) {
        Err(Error::TargetUnsupported { .. }) => resolve_as(b, name, mode, true),
        resolved => resolved,
    }
}

/// [`resolve`], finding the legacy toolkit the build asks for when `find_legacy`.
fn resolve_as(b: &Spec, name: &str, mode: Mode, find_legacy: bool) -> Result<Prepared> {
    let env = environment(b);
    let (base_dir, pkg, mut watch, launchers) = package(b, &env)?;
    let (home, cache_on, cache_max) = home_and_cache(b, &env)?;
    // Offline, the remote tier is not contacted either: the build uses its local cache only.
    let offline = crate::base::pypi::offline(&env)?;
    let remote = crate::prepare::remote::resolve(b, &env, pkg.as_ref())?.filter(|_| !offline);
    let spawns = Spawns::default();
    let finder = Finder {
        b,
        env: &env,
        home: &home,
        spawns: &spawns,
        mode,
        find_legacy,
    };
    let main = main_toolkit(&finder, pkg.as_ref())?;
    let (legacy_asked, legacy) = legacy_toolkit(&finder, &main, pkg.as_ref())?;
    let toolkits = Toolkits::new(main).with(Maker::Legacy, legacy_asked, legacy);
    let serve = mode.serve();
    // A stand-in toolkit runs nothing, its device query included.
    let devices = || {
        crate::toolkit::native::native_devices(&env, b.devices.as_deref(), || match serve {
            Serve::Compile => query_devices(toolkits.main(), &spawns),
            Serve::Shipped(_) => Vec::new(),
        })
    };
    let archs = crate::config::archs::resolve_archs(
        b.archs.as_deref(),
        &env,
        pkg.as_ref(),
        &toolkits,
        &devices,
    )?;
    // In the report's warnings (and so `cargo:warning` in build scripts, and the CLI's output).
    let arch_warnings = archs.source.dialect().warnings(&archs.input);
    let sources = Sources {
        b,
        env: &env,
        pkg: pkg.as_ref(),
        base_dir: &base_dir,
    };
    let mut settings = compile_settings(&sources, &home, mode)?;
    let fleet = crate::prepare::fleet::resolve(b, &env, pkg.as_ref(), &devices)?;
    let packing = crate::prepare::packing::resolve(b, &env, pkg.as_ref(), fleet.as_ref())?;
    let share_cicc = crate::plan::share::enabled(
        b.share_cicc,
        &env,
        toolkits.main().version(),
        &settings.all_nvcc_flags(),
        settings.launch_cicc && settings.launcher.is_some(),
    )?;
    let verify = verification(b, &env)?;
    let library = crate::host::link::resolve(b.library.as_ref(), pkg.as_ref(), name)?;
    let mut modules = modules(&sources, name, (&archs, &toolkits), &devices, &mut settings)?;
    let ptx_of = (toolkits.main(), fleet.as_ref().map(|(f, _)| f));
    let (ptx_asked, ptx) = ptx_toolkit(&finder, ptx_of, pkg.as_ref())?;
    if let Some((ptx_tk, origin)) = &ptx {
        check_ptx_targets(ptx_tk, origin, &modules)?;
    }
    let toolkits = toolkits.with(Maker::Ptx, ptx_asked, ptx.map(|(t, _)| t));
    if let Some((f, origin)) = &fleet {
        crate::prepare::fleet::check((f, origin), &modules, &toolkits, packing.written)?;
    }
    settings.fleet = fleet.map(|(f, _)| f);
    crate::prepare::relocatable::mark(&mut modules, library.is_some(), settings.device_code)?;
    crate::prepare::narrowing::refuse_lto_in_library(&modules)?;
    let cache = match mode {
        Mode::Build => open_cache(cache_on, &home, remote.as_ref()),
        _ => OpenCache::default(),
    };
    // What the build depends on is the toolkit found, not PATH (see `Env::var_os`); a
    // stand-in is no file to watch, and asks nvcc nothing.
    if serve == Serve::Compile {
        let store = cache.store.as_ref();
        ptxas_line(&mut settings, toolkits.main(), &modules, store, &spawns);
        watch.push(toolkits.main().nvcc().to_path_buf());
    }
    let groups = crate::report::variants::groups(
        &b.variants,
        pkg.as_ref().map_or(&[][..], |p| p.variants.as_slice()),
    );
    let out_root = b.out_dir.clone().or_else(|| env.path("OUT_DIR"));
    let prebuilt = match library {
        Some(_) => None,
        None => prebuilt_source(b, &env, pkg.as_ref()),
    };
    let (workers, local_workers, cluster) = workers(b, &env, &settings, mode)?;
    Ok(Prepared {
        env,
        toolkits,
        archs,
        arch_warnings,
        modules,
        settings,
        packing,
        home,
        share_cicc,
        cache_max,
        groups,
        out_root,
        prebuilt,
        serve,
        cache,
        workers,
        local_workers,
        cluster,
        on_job: b.on_job.clone(),
        rust_module: !b.no_rust_module && library.is_none(),
        launchers,
        quiet: b.quiet,
        spawns,
        watch,
        verify,
        library,
    })
}

/// The directory relative paths start from (the package's, else the current one), the
/// package's `[package.metadata.archbuild]` table, the files that table was read from, and
/// whether the generated module has typed launchers (the package depends on archbuild-runtime).
fn package(
    b: &Spec,
    env: &Env,
) -> Result<(PathBuf, Option<PackageConfig>, Vec<PathBuf>, Launchers)> {
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
    let launchers = Launchers::of_manifest(&base_dir.join("Cargo.toml"));
    Ok((base_dir, pkg, watch, launchers))
}

/// archbuild's home (with the build's cache directory), whether the build cache is on, and its
/// size cap (read only when it is).
fn home_and_cache(b: &Spec, env: &Env) -> Result<(Home, bool, u64)> {
    let mut home = b.home.clone().unwrap_or_else(|| Home::from_env(env));
    if let Some(c) = &b.cache_dir {
        home = home.with_cache_dir(c.clone());
    }
    let cache_on = cache_switch(b, env)?;
    let cache_max = if cache_on {
        crate::cache::evict::max_bytes(env)?
    } else {
        0
    };
    Ok((home, cache_on, cache_max))
}

/// The environment a build reads: the build script's `Env`, else the process's, with Cargo's
/// directives on or off as the build asks.
pub(crate) fn environment(b: &Spec) -> Env {
    let env = b.env.clone().unwrap_or_else(Env::process);
    match b.cargo_metadata {
        Some(on) => env.with_cargo_metadata(on),
        None => env,
    }
}

/// Every module's PTX targets checked against the PTX toolkit that makes them.
fn check_ptx_targets(ptx_tk: &Toolkit, origin: &str, modules: &[Module]) -> Result<()> {
    for m in modules {
        let ptx: Vec<_> = m
            .archs
            .list
            .targets()
            .iter()
            .filter(|t| t.kind == archbuild_arch::TargetKind::Ptx)
            .copied()
            .collect();
        ptx_tk.check_targets(&ptx, origin)?;
    }
    Ok(())
}

/// The modules with their arch lists (narrowed when the list mode asks), and the value of
/// `__CUDA_ARCH_LIST__` into `settings`: the whole list's, also in a CI shard.
fn modules(
    s: &Sources<'_>,
    name: &str,
    (archs, toolkits): (&ResolvedArchs, &Toolkits),
    devices: crate::config::archs::DeviceQuery<'_>,
    settings: &mut Settings,
) -> Result<Vec<Module>> {
    let whole = setup::shard_of(s.b, s.env, archs, toolkits, devices)?;
    settings.arch_list = crate::plan::arch_list_value(&whole.as_ref().unwrap_or(archs).list);
    let (list_mode, mode_text) = crate::prepare::narrowing::resolve(s.b, s.env, s.pkg)?;
    setup::modules(
        s,
        name,
        (archs, whole.as_ref()),
        toolkits,
        devices,
        list_mode
            .narrows(&archs.source)
            .then_some(mode_text.as_str()),
    )
}

/// The settings every compile shares, with the header libraries (installed when `mode`
/// installs) and, for a build, the observer of what the preprocessing reads.
fn compile_settings(s: &Sources<'_>, home: &Home, mode: Mode) -> Result<Settings> {
    let mut settings = setup::settings(s.b, s.env, s.pkg, s.base_dir)?;
    let headers = crate::headers::library::resolve_all(
        s.pkg.map_or(&[][..], |p| &p.headers),
        &s.b.header_libraries,
        s.base_dir,
        s.env,
        home,
        mode.installs(),
        &mut crate::base::pypi::stderr_progress,
    )?;
    attach_headers(&mut settings, headers);
    // Only a build runs compiles; a plan writes nothing into the home.
    if matches!(mode, Mode::Build) {
        settings.observation = crate::cache::observe::Observation::from_env(s.env, home.root());
    }
    Ok(settings)
}

/// Where fat binaries made elsewhere come from: `Build::prebuilt`, else `ARCHBUILD_PREBUILT`,
/// else the package's `prebuilt` (unless `Build::packaged(false)`).
fn prebuilt_source(b: &Spec, env: &Env, pkg: Option<&PackageConfig>) -> Option<Prebuilt> {
    b.prebuilt
        .clone()
        .or_else(|| env.path(PREBUILT_VAR))
        .map(Prebuilt::Ci)
        .or_else(|| {
            let packaged = b.packaged.unwrap_or(true);
            let dir = pkg.and_then(|p| p.prebuilt_dir());
            dir.filter(|_| packaged).map(Prebuilt::Packaged)
        })
}

/// The worker threads, the processes at once on this machine, and the sccache-dist cluster.
/// With a cluster, more jobs run at once than this machine has CPUs, its own processes still
/// at most `local_workers` (`JobRunner`'s local slots).
fn workers(
    b: &Spec,
    env: &Env,
    settings: &Settings,
    mode: Mode,
) -> Result<(usize, usize, crate::plan::dist::Cluster)> {
    let local_workers = crate::plan::exec::parallelism(env, b.jobs)?;
    let cluster = match (&settings.launcher, settings.launch_cicc, mode) {
        (Some(l), false, Mode::Build) => crate::plan::dist::status(l, settings.compiler_env.vars()),
        _ => crate::plan::dist::Cluster::Off,
    };
    let workers = match &cluster {
        crate::plan::dist::Cluster::Up { cpus, .. } => match env.var(DIST_JOBS_VAR) {
            Some(v) => v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| Error::Config {
                    what: "job count",
                    origin: DIST_JOBS_VAR.to_owned(),
                    value: v.clone(),
                    hint: "use a whole number of 1 or more, such as `24`, or leave it unset \
                           for this machine's CPUs plus the cluster's"
                        .to_owned(),
                })?,
            None => local_workers + *cpus as usize,
        },
        _ => local_workers,
    };
    Ok((workers, local_workers, cluster))
}

/// The build cache opened for a build: the store with its remote tier (which connects only on
/// a local miss) when the cache is on and its disk has room.
fn open_cache(
    cache_on: bool,
    home: &Home,
    remote: Option<&archbuild_config::RemoteConfig>,
) -> OpenCache {
    let full = cache_on
        .then(|| crate::base::paths::short_of_room(home.cache_dir()))
        .flatten();
    if !cache_on || full.is_some() {
        return OpenCache {
            full,
            ..OpenCache::default()
        };
    }
    let remote = crate::prepare::remote::open(remote.cloned());
    OpenCache {
        store: Some(crate::base::store::Store::new(home.cache_dir()).with_remote(remote.clone())),
        remote,
        full: None,
    }
}

/// What a build says before it compiles: the arch list, when it is the portable default (in a
/// build script as a Cargo warning, elsewhere on stderr), unless quiet.
pub(crate) fn announce(p: &Prepared) {
    if let Some(line) = p.archs.announcement().filter(|_| !p.quiet) {
        if p.env.cargo_metadata() {
            println!(
                "{}",
                p.env.syntax().line("warning", format!("archbuild: {line}"))
            );
        } else {
            eprintln!("archbuild: {line}");
        }
    }
}

/// Adds the libraries to the settings: their include directories come after the user's and
/// are probed (direct mode) like them.
fn attach_headers(s: &mut Settings, libs: Vec<crate::headers::tree::Resolved>) {
    let at = (s.includes.len() + s.flag_inputs.dirs.len()).min(s.probe_dirs.len());
    let dirs: Vec<PathBuf> = libs.iter().flat_map(|l| l.dirs.clone()).collect();
    s.probe_dirs.splice(at..at, dirs);
    s.header_libraries = libs;
}

/// The GPUs of this machine, from the toolkit's `__nvcc_device_query` (what `nvcc
/// -arch=native` uses). Empty when there is no GPU (it then fails with `CUDA_ERROR_NO_DEVICE`).
fn query_devices(tk: &Toolkit, spawns: &Spawns) -> Vec<ComputeCapability> {
    match Cmd::new(tk.tool("__nvcc_device_query")).output_counted(spawns) {
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

/// Whether the build cache is on: `Build::cache`, else `ARCHBUILD_CACHE` (on by default).
fn cache_switch(b: &Spec, env: &Env) -> Result<bool> {
    const SETTING: Setting = Setting(&[
        Layer::Builder("the build's `.cache(...)`"),
        Layer::Variable("ARCHBUILD_CACHE"),
    ]);
    let given = b.cache.map(|on| if on { "on" } else { "off" });
    match SETTING.resolve(given, env, None) {
        None => Ok(true),
        Some(v) if archbuild_config::is_off(&v.value) => Ok(false),
        Some(v) if archbuild_config::is_on(&v.value) => Ok(true),
        Some(v) => Err(Error::Config {
            what: "cache switch",
            origin: v.origin.to_string(),
            value: v.value,
            hint: "use `off` (or `0`, `false`, `no`, `none`) to build without the cache, \
                       `on` (or `1`, `true`, `yes`) or nothing to use it"
                .into(),
        }),
    }
}

/// The ptxas flags nvcc gives for the build's flags (`prepare/ptxas_line.rs`), asked of the
/// toolkit once and memoised in `store` (a plan has none and writes nothing); an nvcc whose
/// plan has no ptxas line leaves the table's derivation (`Settings::finish`).
pub(crate) fn ptxas_line(
    settings: &mut Settings,
    toolkit: &Toolkit,
    modules: &[crate::plan::Module],
    store: Option<&crate::base::store::Store>,
    spawns: &Spawns,
) {
    // No flag at all: nvcc gives ptxas none (the table's answer is exact), and a release build
    // taking CI's fat binaries starts no process.
    let flagless = settings.all_nvcc_flags().is_empty() && settings.explicit_ptxas.is_empty();
    if flagless {
        return;
    }
    let Some(arch) = modules
        .iter()
        .flat_map(|m| m.archs.list.targets())
        .find(|t| t.kind == archbuild_arch::TargetKind::Cubin)
        .map(|t| t.arch)
    else {
        return;
    };
    if let Ok(line) = crate::prepare::ptxas_line::query(toolkit, settings, arch, store, spawns) {
        settings.ptxas_pre = line.pre;
        settings.ptxas_flags = line.post;
    }
}

impl Prepared {
    /// The same build of the package's shipped files, taking them as `take` says (a dependent
    /// found no toolkit to verify or compile with: `Take::Unverified`).
    pub(crate) fn taking(&self, take: Take) -> Prepared {
        Prepared {
            serve: Serve::Shipped(take),
            ..self.clone()
        }
    }

    /// Which of the fat binaries made elsewhere this build takes.
    pub(crate) fn take(&self) -> Take {
        match self.serve {
            Serve::Compile => Take::Matching,
            Serve::Shipped(take) => take,
        }
    }

    /// Which toolkit makes target `t`.
    pub(crate) fn maker(&self, t: archbuild_arch::Target) -> Maker {
        self.toolkits.maker(t)
    }
}

/// The build's toolkit: the caller's, or the one found of the version `toolkit` asks for.
fn main_toolkit(f: &Finder<'_>, pkg: Option<&PackageConfig>) -> Result<Toolkit> {
    let wanted = crate::toolkit::releases::requested(
        f.b.toolkit_versions[Maker::Build].as_deref(),
        f.env,
        pkg.and_then(|p| p.toolkits[Maker::Build].as_deref()),
    )?;
    toolkit(f, f.b.toolkit.as_ref(), wanted.as_ref())
}

/// Which cache hits are compiled again and compared: `Build::verify`, else `ARCHBUILD_VERIFY`.
fn verification(b: &Spec, env: &Env) -> Result<Verify> {
    const SETTING: Setting = Setting(&[
        Layer::Builder("the build's verification (`.verify(...)`)"),
        Layer::Variable(crate::config::verification::VERIFY_VAR),
    ]);
    match SETTING.resolve(b.verify.as_deref(), env, None) {
        Some(v) => Verify::parse(&v.value, &v.origin.to_string()),
        None => Ok(Verify::default()),
    }
}

/// The version `legacy-toolkit` asks for, and the toolkit of that version, found or
/// provisioned as the build's toolkit is, when it is not the build's. A stand-in compiles
/// nothing and needs none.
fn legacy_toolkit(
    f: &Finder<'_>,
    build_tk: &Toolkit,
    pkg: Option<&PackageConfig>,
) -> Result<(Option<String>, Option<Toolkit>)> {
    use crate::toolkit::releases::requested_as;
    let wanted = requested_as(
        Maker::Legacy,
        f.b.toolkit_versions[Maker::Legacy].as_deref(),
        f.env,
        pkg.and_then(|p| p.toolkits[Maker::Legacy].as_deref()),
    )?;
    let Some((version, origin)) = wanted else {
        return Ok((None, None));
    };
    let asked = Some(version.to_string());
    let needless = matches!(f.mode, Mode::Packaged(_)) || !f.find_legacy;
    if needless || version.matches(build_tk.release()) {
        return Ok((asked, None));
    }
    let found = toolkit(f, None, Some(&(version, origin)))?;
    Ok((asked, Some(found)))
}

/// A value with the origin of the request that gave it.
type Origined<T> = (T, String);

/// The version `ptx-toolkit` asks for, and the toolkit that makes the PTX images with the
/// origin of the request when that version is not the build's toolkit's: found, or provisioned
/// as the build's toolkit is. A stand-in (a package's fat binaries) compiles nothing and needs
/// none.
fn ptx_toolkit(
    f: &Finder<'_>,
    (build_tk, fleet): (&Toolkit, Option<&archbuild_arch::Fleet>),
    pkg: Option<&PackageConfig>,
) -> Result<(Option<String>, Option<Origined<Toolkit>>)> {
    use crate::toolkit::releases::{asked_value, parse_asked};
    let asked = asked_value(
        Maker::Ptx,
        f.b.toolkit_versions[Maker::Ptx].as_deref(),
        f.env,
        pkg.and_then(|p| p.toolkits[Maker::Ptx].as_deref()),
    );
    let Some((value, origin)) = asked else {
        return Ok((None, None));
    };
    // `fleet`: the release the fleet's oldest driver JITs, when the build's is newer.
    let value = match (value.trim(), fleet) {
        ("fleet", Some(fleet)) => {
            let Some(oldest) = fleet.members.iter().map(|m| m.driver).min() else {
                return Ok((Some(value), None));
            };
            if oldest >= build_tk.version() {
                return Ok((Some(value), None));
            }
            format!("{}.{}", oldest.major(), oldest.minor())
        }
        ("fleet", None) => {
            return Err(Error::Config {
                what: "PTX toolkit",
                origin,
                value,
                hint: "`fleet` takes the version the fleet's oldest driver can JIT, so the build \
                       needs a fleet: set `fleet = [\"8.6@13.0\"]` in \
                       [package.metadata.archbuild], ARCHBUILD_FLEET or `Build::fleet`, or name \
                       a version such as `13.0`"
                    .to_owned(),
            })
        }
        _ => value,
    };
    let (version, origin) = parse_asked(&value, origin)?;
    let asked = Some(version.to_string());
    if matches!(f.mode, Mode::Packaged(_)) || version.matches(build_tk.release()) {
        return Ok((asked, None));
    }
    // Not the caller's `.toolkit(...)`: that one is the build's, of another version.
    let found = toolkit(f, None, Some(&(version, origin.clone())))?;
    Ok((asked, Some((found, origin))))
}

/// What finding a toolkit needs: the build, its environment and home, its one count of
/// processes, and what resolving may do.
struct Finder<'a> {
    b: &'a Spec,
    env: &'a Env,
    home: &'a Home,
    spawns: &'a Spawns,
    mode: Mode,
    /// Whether to find the legacy toolkit (a target needs it), or only note the version asked.
    find_legacy: bool,
}

/// The toolkit the caller queried (`given`), or the one found (and, for a build, provisioned
/// when asked) now; of the version `wanted` asks for, if any.
fn toolkit(
    f: &Finder<'_>,
    given: Option<&Toolkit>,
    wanted: Option<&(Requested, String)>,
) -> Result<Toolkit> {
    let wanted = wanted.map(|(version, origin)| Wanted {
        version,
        origin: origin.as_str(),
    });
    Ok(match given {
        // The caller's toolkit is of another version than asked: an error, not a silent use.
        Some(t) if !t.is_stand_in() && wanted.is_some_and(|w| !w.version.matches(t.release())) => {
            let w = wanted.expect("checked");
            return Err(Error::ToolkitVersionNotFound {
                wanted: w.version.to_string(),
                origin: w.origin.to_owned(),
                found: format!(
                    "the build's `.toolkit(...)` is CUDA {} ({})",
                    t.release(),
                    t.nvcc().display()
                ),
                fix: "give the build a toolkit of that version, or drop `.toolkit(...)` to let \
                      archbuild find or provision one"
                    .to_owned(),
            });
        }
        // Queried by the caller, before this build: no process of this build.
        Some(t) => t.clone(),
        None => {
            let provision = f.mode.installs() && f.b.provision.unwrap_or(false);
            Discovery::new(f.home.clone()).locate_counted(
                f.env,
                wanted,
                provision,
                &mut crate::toolkit::provision::stderr_progress,
                f.spawns,
            )?
        }
    })
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
