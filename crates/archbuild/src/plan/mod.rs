//! The job graph before it runs, and what it runs within: this module plans jobs and their
//! command lines (below); `share.rs` decides when one cicc run serves several archs, `deps.rs`
//! records what each compile read (with `preprocessed.rs`, which tokenises preprocessed
//! sources), `exec.rs` runs a graph within the machine's limits, `dist.rs` asks sccache-dist for
//! its cluster, and `evict.rs` caps the build cache.
//!
//! Planning: from modules and their arch lists to jobs and exact command lines.
//!
//! Each target is split into the two phases nvcc runs internally. The *cicc* phase
//! (`nvcc -ptx -arch=compute_XY`) turns the source into PTX for one virtual arch; that PTX is
//! the `compute_XY` target's output as is. The *ptxas* phase (`ptxas -arch=sm_XY -m64`) turns
//! that PTX into the `sm_XY` cubin. So `8.9+PTX` costs one cicc job and one ptxas job, not two
//! full compiles, and the scheduler can interleave phases of different targets. With the same
//! flags this produces cubins byte-identical to `nvcc -cubin -arch=sm_XY` (checked by
//! `tests/tests/it/build_toolkit.rs`): nvcc passes `-m64` to ptxas, and the cubin's
//! `.note.nv.tkinfo` records ptxas's command line, so we pass it too.

pub(crate) mod deps;
pub(crate) mod dist;
pub(crate) mod evict;
pub(crate) mod exec;
pub(crate) mod observe;
pub(crate) mod preprocessed;
pub(crate) mod share;
pub(crate) mod stat_memo;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use archbuild_arch::{Arch, Target, TargetKind};

use crate::base::process::Cmd;
use crate::config::archs::ResolvedArchs;
use crate::config::compiler_env::CompilerEnv;
use crate::config::flag_inputs::FlagInputs;
use crate::error::{Error, Result};
use crate::toolkit::nvcc::Toolkit;

/// Settings shared by every compile of a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Settings {
    /// Extra nvcc flags for the cicc phase, in order.
    pub nvcc_flags: Vec<String>,
    /// Extra ptxas flags after `-arch` and `-m64`: explicit ones plus those nvcc derives from
    /// `nvcc_flags` (`prepare/ptxas_line.rs`).
    pub ptxas_flags: Vec<String>,
    /// The ptxas flags nvcc puts before `-arch` (`-w`, `--warning-as-error`, …).
    pub ptxas_pre: Vec<String>,
    /// The build's own ptxas flags (`ptxas-flags`, `Build::ptxas_flag`), as given.
    pub explicit_ptxas: Vec<String>,
    pub includes: Vec<PathBuf>,
    /// `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// Directory compiles run in; relative source paths are relative to it.
    pub base_dir: PathBuf,
    /// `ARCHBUILD_COMPILER_LAUNCHER` (or `RUSTC_WRAPPER` when it is sccache), e.g. sccache.
    pub launcher: Option<PathBuf>,
    /// Whether the launcher also wraps the cicc phase (`nvcc -ptx`); not for sccache, which
    /// cannot cache it with CUDA 13.3 and newer (`docs/build.md`, "sccache").
    pub launch_cicc: bool,
    /// The whole environment of compiler processes (`config/compiler_env.rs`).
    pub compiler_env: CompilerEnv,
    /// The words of `NVCC_PREPEND_FLAGS` and of `NVCC_APPEND_FLAGS`: flags nvcc adds to every
    /// command line it runs, so they shape the output as `nvcc_flags` do.
    pub env_flags: EnvFlags,
    /// Files, directories and the host compiler named inside `nvcc_flags` and `env_flags`.
    pub flag_inputs: FlagInputs,
    /// Every directory the preprocessor searches besides the toolkit's and the system's:
    /// `includes`, those in flags, those of `CPATH` and its kin. Direct mode probes them for
    /// headers that would shadow the ones it read.
    pub probe_dirs: Vec<PathBuf>,
    /// Header libraries, their include directories after `includes` (`headers/library.rs`).
    pub header_libraries: Vec<crate::headers::tree::Resolved>,
    /// The build list's `__CUDA_ARCH_LIST__`, or, in a CI shard, the whole list's: part of
    /// the output's key, so shards of other wholes do not merge and a one-shot build takes
    /// only shards of its own list.
    pub arch_list: String,
    /// Whether preprocessing runs are observed (`observe.rs`).
    pub observation: observe::Observation,
    /// The GPUs and drivers the build is for (`prepare/fleet.rs`), checked before compiling.
    pub fleet: Option<archbuild_arch::Fleet>,
}

/// nvcc's flag variables, split into words as nvcc splits them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EnvFlags {
    pub prepend: Vec<String>,
    pub append: Vec<String>,
}

impl EnvFlags {
    /// Every word, prepended ones first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &String> {
        self.prepend.iter().chain(&self.append)
    }
}

impl Settings {
    /// Every nvcc flag in the order nvcc reads them: `NVCC_PREPEND_FLAGS`, the build's flags,
    /// `NVCC_APPEND_FLAGS`.
    pub(crate) fn all_nvcc_flags(&self) -> Vec<String> {
        self.env_flags
            .prepend
            .iter()
            .chain(&self.nvcc_flags)
            .chain(&self.env_flags.append)
            .cloned()
            .collect()
    }

    /// Checks user nvcc flags and derives the ptxas flags nvcc would pass for them.
    pub(crate) fn finish(mut self, origin: &str) -> Result<Self> {
        // nvcc's order (`nvcc --dryrun`): `-Xptxas` options first, then flags it derives from
        // its own options; the cubin records this command line, so order matters for identity.
        let mut xptxas = Vec::new();
        let mut derived = Vec::new();
        let mut fast_compile = None;
        // nvcc reads NVCC_PREPEND_FLAGS, its command line, then NVCC_APPEND_FLAGS; the ptxas
        // phase archbuild runs itself gets what nvcc would derive from all three.
        let all = self.all_nvcc_flags();
        let (first, last) = (
            self.env_flags.prepend.len(),
            self.env_flags.prepend.len() + self.nvcc_flags.len(),
        );
        let mut it = all.iter().enumerate().peekable();
        while let Some((at, f)) = it.next() {
            let origin = match at {
                a if a < first => "NVCC_PREPEND_FLAGS",
                a if a >= last => "NVCC_APPEND_FLAGS",
                _ => origin,
            };
            let name = f.split('=').next().unwrap_or(f);
            const OWNED: &[&str] = &[
                "-arch",
                "--gpu-architecture",
                "-code",
                "--gpu-code",
                "-gencode",
                "--generate-code",
                "-ptx",
                "--ptx",
                "-cubin",
                "--cubin",
                "-fatbin",
                "--fatbin",
                "-c",
                "--compile",
                "-o",
                "--output-file",
                "-M",
                "-MD",
                "-MF",
                "-E",
            ];
            if OWNED.contains(&name) {
                return Err(Error::Config {
                    what: "nvcc flag",
                    origin: origin.to_owned(),
                    value: f.clone(),
                    hint: "archbuild sets the phase, targets and outputs itself; set the \
                           architectures with `.archs(...)` / ARCHBUILD_ARCHS and remove this flag"
                        .into(),
                });
            }
            let value = f.split_once('=').map(|(_, v)| v);
            let rdc = match name {
                "-rdc" | "--relocatable-device-code" => {
                    let v = value
                        .or_else(|| it.peek().map(|(_, s)| s.as_str()))
                        .unwrap_or("");
                    v.eq_ignore_ascii_case("true")
                }
                "-dc" | "--device-c" | "-dlink" | "--device-link" => true,
                _ => false,
            };
            if rdc {
                return Err(Error::Config {
                    what: "nvcc flag",
                    origin: origin.to_owned(),
                    value: f.clone(),
                    hint: "archbuild builds whole-program device code (each module one \
                           translation unit, its cubins loaded as they are); relocatable device \
                           code needs a device link, which archbuild does not do: remove the \
                           flag and put the `extern` device functions a kernel calls in the \
                           same module (one file, or several compiled as one with \
                           `.module(\"name\", [files])`), or build that code with `nvcc -rdc=true \
                           -dlink` yourself"
                        .into(),
                });
            }
            match name {
                "-G" | "--device-debug" => derived.extend(
                    ["-g", "--dont-merge-basicblocks", "--return-at-end"].map(String::from),
                ),
                "-lineinfo" | "--generate-line-info" => derived.push("--generate-line-info".into()),
                "-Xptxas" | "--ptxas-options" => {
                    let v = match f.split_once('=') {
                        Some((_, v)) => v.to_owned(),
                        None => it.next().map(|(_, s)| s.clone()).unwrap_or_default(),
                    };
                    xptxas.extend(v.split(',').filter(|s| !s.is_empty()).map(str::to_owned));
                }
                "-Ofc" | "--Ofast-compile" => {
                    fast_compile = Some(match f.split_once('=') {
                        Some((_, v)) => v.to_owned(),
                        None => it.next().map(|(_, s)| s.clone()).unwrap_or_default(),
                    });
                }
                "-maxrregcount" | "--maxrregcount" => {
                    let v = match f.split_once('=') {
                        Some((_, v)) => v.to_owned(),
                        None => it.next().map(|(_, s)| s.clone()).unwrap_or_default(),
                    };
                    derived.push(format!("-maxrregcount={v}"));
                }
                _ => {}
            }
        }
        // nvcc gives ptxas the fast-compile level first, and drops it for debug code (`-G`)
        // unless it is `0` (`tests/tests/it/ptxas_flags.rs` checks every option against
        // `nvcc --dryrun`).
        let debug = derived.iter().any(|d| d == "-g");
        let mut flags: Vec<String> = fast_compile
            .filter(|v| !debug || v == "0")
            .map(|v| format!("--Ofast-compile={v}"))
            .into_iter()
            .collect();
        flags.append(&mut xptxas);
        self.explicit_ptxas = self.ptxas_flags.clone();
        flags.append(&mut self.ptxas_flags);
        flags.append(&mut derived);
        self.ptxas_flags = flags;
        self.flag_inputs = crate::config::flag_inputs::scan(&all, &self.base_dir);
        let mut dirs: Vec<PathBuf> = self.includes.clone();
        dirs.extend(self.flag_inputs.dirs.iter().map(|d| self.base_dir.join(d)));
        dirs.extend(self.compiler_env.include_dirs());
        self.probe_dirs = dirs;
        Ok(self)
    }
}

/// One output fat binary: a source file, or a group compiled as one translation unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Module {
    /// Name of the fat binary and of the generated Rust module.
    pub name: String,
    /// The file nvcc compiles (for a group: its last member).
    pub source: PathBuf,
    /// Files the user named, `source` last (a group's others are `-include`d before it).
    pub members: Vec<PathBuf>,
    pub archs: ResolvedArchs,
    /// Its device passes' `__CUDA_ARCH_LIST__` (`750,860,900`): its list's, or, in a CI shard,
    /// the whole list's (`shard_of`).
    pub arch_list: String,
    /// A source of a host library (`Library`): its cicc jobs also write the host stub and the
    /// module ID its host side is compiled with (`host/steps.rs`).
    pub host: bool,
}

/// The compile phase of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Phase {
    /// `nvcc -ptx -arch=compute_XY`.
    Cicc(Arch),
    /// `ptxas -arch=sm_XY` on the cicc phase's PTX.
    Ptxas(Arch),
}

impl Phase {
    /// The compiler this phase runs, as reports name it.
    pub(crate) fn kind(self) -> crate::report::JobPhase {
        match self {
            Phase::Cicc(_) => crate::report::JobPhase::Cicc,
            Phase::Ptxas(_) => crate::report::JobPhase::Ptxas,
        }
    }
}

/// One job: a phase of one module, and the job it needs first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Job {
    pub module: usize,
    pub phase: Phase,
    /// Which of the build's toolkits runs it.
    pub maker: Maker,
    pub dep: Option<usize>,
    /// The targets this job's output is packed as.
    pub targets: Vec<Target>,
}

impl Job {
    /// `compute_89 (cicc)` / `sm_89 (ptxas)`.
    pub(crate) fn label(&self) -> String {
        match self.phase {
            Phase::Cicc(a) => format!("compute_{}", a.sm_name()),
            Phase::Ptxas(a) => format!("sm_{}", a.sm_name()),
        }
    }
}

/// Which toolkit runs a job (`docs/build.md` "Toolkit versions"): the build's; for the PTX
/// images of a build with a PTX toolkit (`ptx-toolkit`), that one, in cicc jobs of their own (a
/// cubin's PTX still comes from the build's toolkit); for the targets the build's toolkit
/// cannot build, the legacy toolkit (`legacy-toolkit`), cicc and ptxas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Maker {
    Build,
    Ptx,
    Legacy,
}

/// Every job of a build, cicc jobs first; `maker` says which toolkit makes each target. With a
/// sharing rule, the cicc job of each arch of a class (`share.rs`) depends on the class's
/// lowest arch of the module, whose PTX it may take: among the build toolkit's jobs only, the
/// toolkit the rule is proven for.
pub(crate) fn plan_jobs(
    modules: &[Module],
    share: Option<crate::plan::share::Rule>,
    maker: &dyn Fn(Target) -> Maker,
) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut cicc_of = std::collections::HashMap::new();
    for (m, module) in modules.iter().enumerate() {
        for t in module.archs.list.targets() {
            let maker = maker(*t);
            let id = *cicc_of.entry((m, t.arch, maker)).or_insert_with(|| {
                jobs.push(Job {
                    module: m,
                    phase: Phase::Cicc(t.arch),
                    maker,
                    dep: None,
                    targets: vec![],
                });
                jobs.len() - 1
            });
            if t.kind == TargetKind::Ptx {
                jobs[id].targets.push(*t);
            }
        }
    }
    let cicc_count = jobs.len();
    if let Some(rule) = share {
        let mut lead_of = std::collections::HashMap::new();
        let mut order: Vec<usize> = (0..cicc_count).collect();
        order.sort_by_key(|&id| (jobs[id].module, jobs[id].maker, cicc_arch(&jobs[id])));
        for id in order {
            let arch = cicc_arch(&jobs[id]);
            if jobs[id].maker != Maker::Build {
                continue;
            }
            if let Some(class) = rule.class(arch) {
                let key = (jobs[id].module, jobs[id].maker, class);
                let lead = *lead_of.entry(key).or_insert(id);
                if lead != id {
                    jobs[id].dep = Some(lead);
                }
            }
        }
    }
    for id in 0..cicc_count {
        let (m, arch, by) = (jobs[id].module, cicc_arch(&jobs[id]), jobs[id].maker);
        let cubin = Target::cubin(arch);
        if modules[m].archs.list.contains(cubin) && maker(cubin) == by {
            jobs.push(Job {
                module: m,
                phase: Phase::Ptxas(arch),
                maker: by,
                dep: Some(id),
                targets: vec![Target::cubin(arch)],
            });
        }
    }
    jobs
}

fn cicc_arch(job: &Job) -> Arch {
    match job.phase {
        Phase::Cicc(a) | Phase::Ptxas(a) => a,
    }
}

/// Start order, as a priority per job (higher first), for a short makespan without knowing
/// durations: longest chain first — cicc jobs whose PTX other cicc jobs of their family may
/// take, then cicc jobs that feed a ptxas job, then other cicc jobs, then ptxas jobs — and within each class the newest arch first, because newer targets
/// compile slower (measured on `benches/inputs/bench_kernels.cu`: sm_90's ptxas job is the
/// longest). The job that finishes the build is then a short one (an old arch's ptxas), not
/// the newest arch's. Deterministic; it changes only when jobs run, never what they produce.
pub(crate) fn priorities(jobs: &[Job]) -> Vec<u32> {
    let feeds: std::collections::HashSet<usize> = jobs.iter().filter_map(|j| j.dep).collect();
    let leads: std::collections::HashSet<usize> = jobs
        .iter()
        .filter(|j| matches!(j.phase, Phase::Cicc(_)))
        .filter_map(|j| j.dep)
        .collect();
    jobs.iter()
        .enumerate()
        .map(|(i, j)| match j.phase {
            Phase::Cicc(a) if leads.contains(&i) => 30_000 + a.cc.sm(),
            Phase::Cicc(a) if feeds.contains(&i) => 20_000 + a.cc.sm(),
            Phase::Cicc(a) => 10_000 + a.cc.sm(),
            Phase::Ptxas(a) => a.cc.sm(),
        })
        .collect()
}

/// The cicc-phase command: PTX for `arch`, with its dependency list written to `depfile`.
///
/// Paths under the package directory are passed relative to it (the compile runs there), and
/// cicc is told the source's relative path as its original path: nvcc would otherwise hand it
/// the absolute one, which seeds the module ID in the names of internal-linkage device symbols
/// (`_INTERNAL_<id>_…`) and would make two checkouts produce different PTX.
pub(crate) fn cicc_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    out: &Path,
    depfile: &Path,
) -> Cmd {
    device_command(tk, s, m, arch, "-ptx", out, depfile)
}

/// `cicc_command` that also keeps nvcc's intermediate files (the preprocessed device source)
/// in `keep_dir`; the PTX is byte-identical.
pub(crate) fn cicc_command_keep(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    out: &Path,
    depfile: &Path,
    keep_dir: &Path,
) -> Cmd {
    let cmd = device_command(tk, s, m, arch, "-ptx", out, depfile);
    let mut args = cmd.args.clone();
    let at = args.len() - 3;
    args.splice(
        at..at,
        [
            OsString::from("--keep"),
            "--keep-dir".into(),
            keep_dir.as_os_str().to_owned(),
        ],
    );
    Cmd { args, ..cmd }
}

/// The preprocessing nvcc runs before cicc for `arch` (`nvcc -E -arch=compute_XY`, the same
/// `gcc -E` line as in `nvcc -ptx --dryrun`), with its dependency list.
pub(crate) fn preprocess_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    out: &Path,
    depfile: &Path,
) -> Cmd {
    device_command(tk, s, m, arch, "-E", out, depfile)
}

/// A group's members compiled before its source, in order, as `-include`s: together one
/// translation unit, as if one file included them all.
pub(crate) fn preincludes(m: &Module) -> &[PathBuf] {
    match m.members.split_last() {
        Some((last, rest)) if *last == m.source => rest,
        _ => &[],
    }
}

/// The `__CUDA_ARCH_LIST__` a module's device passes get (`Module::arch_list`).
pub(crate) fn arch_list_macro(m: &Module) -> String {
    m.arch_list.clone()
}

/// nvcc's `__CUDA_ARCH_LIST__` for a list: every virtual arch of it, ascending, as
/// `750,860,900` (variants dropped, as nvcc writes it).
pub(crate) fn arch_list_value(list: &archbuild_arch::ArchList) -> String {
    let mut sms: Vec<u32> = list.targets().iter().map(|t| t.arch.cc.sm() * 10).collect();
    sms.sort_unstable();
    sms.dedup();
    sms.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// The include path of every compile of the build, device and host side alike: the user's
/// `-I`s, then the header libraries' directories (before the toolkit's own, so a newer CCCL
/// wins).
pub(crate) fn include_flags(s: &Settings) -> Vec<OsString> {
    let dirs = s
        .includes
        .iter()
        .chain(s.header_libraries.iter().flat_map(|l| &l.dirs));
    dirs.map(|d| {
        let mut a = OsString::from("-I");
        a.push(relative(&s.base_dir, d));
        a
    })
    .collect()
}

/// A path as passed to the compiler: relative to the package directory when under it.
pub(crate) fn relative(base: &Path, p: &Path) -> PathBuf {
    let abs = crate::base::paths::lexical(&base.join(p));
    match abs.strip_prefix(crate::base::paths::lexical(base)) {
        Ok(r) if !r.as_os_str().is_empty() => r.to_path_buf(),
        Ok(_) => PathBuf::from("."),
        Err(_) => abs,
    }
}

/// The `-frandom-seed` archbuild gives nvcc for a source (`0x` and 8 hex digits of its path
/// relative to the package; CUDA 13 and newer, `gives_seed`). Without one, cicc names the
/// internal-linkage symbols of a source whose first external definition is a template after
/// the process and the time
/// (`_INTERNAL_b172d92f_4_t_cu_5a7daca2_17224`): every run, and every arch of one build, would
/// name them differently — PTX no cache reproduces, and a host library registering an internal
/// kernel by the name of one arch's image. With a seed the names are the same in every run
/// and image; module IDs nvcc derives from a symbol (the usual case) do not change.
pub(crate) fn random_seed(package_relative_source: &Path) -> String {
    let k = crate::base::store::Key::of(package_relative_source.as_os_str().as_encoded_bytes());
    format!("0x{}", &k.hex()[..8])
}

/// Whether archbuild gives this compile a seed: nvcc has `-frandom-seed` from CUDA 13 on (12.6
/// has none; later 12.x releases are not assumed to), and a flag of the build may set its own
/// (either spelling).
fn gives_seed(tk: &Toolkit, s: &Settings) -> bool {
    tk.version() >= archbuild_arch::CudaVersion::new(13, 0)
        && !s
            .all_nvcc_flags()
            .iter()
            .any(|f| f.trim_start_matches('-').starts_with("frandom-seed"))
}

fn device_command(
    tk: &Toolkit,
    s: &Settings,
    m: &Module,
    arch: Arch,
    phase: &str,
    out: &Path,
    depfile: &Path,
) -> Cmd {
    let source = relative(&s.base_dir, &m.source);
    let mut args: Vec<OsString> = vec![
        phase.into(),
        format!("-arch=compute_{}", arch.sm_name()).into(),
    ];
    args.extend(s.nvcc_flags.iter().map(OsString::from));
    if gives_seed(tk, s) {
        args.push(format!("-frandom-seed={}", random_seed(&source)).into());
    }
    args.extend(include_flags(s));
    args.extend(s.defines.iter().map(|d| OsString::from(format!("-D{d}"))));
    for f in preincludes(m) {
        args.extend(["-include".into(), relative(&s.base_dir, f).into_os_string()]);
    }
    // nvcc defines `__CUDA_ARCH_LIST__` as the whole list in every device pass of a
    // multi-arch compile; a one-target pass would get its own arch only, and CUB's inline
    // namespace (`cub::_V_300500_SM_750_800`) would then name one kernel differently in every
    // image. The host compiler's `-U`/`-D`, after nvcc's own `-D`, set nvcc's value.
    let list = arch_list_macro(m);
    if list.contains(',') {
        args.extend([
            "-Xcompiler".into(),
            format!("-U{ARCH_LIST},-D{ARCH_LIST}={}", list.replace(',', "\\,")).into(),
        ]);
    }
    if let Some(name) = (phase == "-ptx").then(|| cicc_path_arg(&source)).flatten() {
        args.extend([
            "-Xcicc".into(),
            "--orig_src_path_name".into(),
            "-Xcicc".into(),
            name,
        ]);
    }
    if phase == "-ptx" && m.host {
        // cicc writes what the host compile includes (`host/steps.rs`); nvcc's own temp name
        // for the included fat binary comes first on its command line, and cicc takes the
        // last. The module ID goes to nvcc's temp file, which `--keep` keeps.
        let side = HostSide::of(out);
        let stem = m.source.file_stem().unwrap_or_default().to_string_lossy();
        for (opt, value) in [
            ("--stub_file_name", side.stub.as_os_str().to_owned()),
            ("--gen_c_file_name", side.gen_c.as_os_str().to_owned()),
            ("--include_file_name", format!("{stem}.fatbin.c").into()),
        ] {
            let mut v = OsString::from(opt);
            v.push(",");
            v.push(value.to_string_lossy().replace(',', "\\,"));
            args.extend(["-Xcicc".into(), v]);
        }
    }
    args.extend(depfile_args(depfile));
    args.extend([
        "-o".into(),
        out.as_os_str().to_owned(),
        source.as_os_str().to_owned(),
    ]);
    // Preprocessing is not worth a launcher's round trip (and sccache would not cache it).
    let launcher = if phase == "-ptx" && s.launch_cicc {
        s.launcher.as_deref()
    } else {
        None
    };
    let mut cmd = Cmd::new(tk.nvcc())
        .args(args)
        .hermetic(s.compiler_env.vars());
    // Through a launcher the compile may not run at all (a launcher's own cache hit reads
    // the files it remembers, not the paths the preprocessor would try): nothing is observed,
    // and direct mode predicts.
    if launcher.is_none() {
        s.observation.wrap(&mut cmd, &observe::log_path(depfile));
    }
    let mut cmd = cmd.with_launcher(launcher);
    cmd.cwd = Some(s.base_dir.clone());
    cmd
}

/// Where a host library source's cicc job writes its host-side files, beside its PTX.
pub(crate) struct HostSide {
    pub stub: PathBuf,
    pub gen_c: PathBuf,
}

impl HostSide {
    pub(crate) fn of(ptx: &Path) -> Self {
        let with = |ext: &str| {
            let mut p = ptx.as_os_str().to_owned();
            p.push(ext);
            PathBuf::from(p)
        };
        Self {
            stub: with(".stub.c"),
            gen_c: with(".cudafe1.c"),
        }
    }
}

/// The source's relative path as `-Xcicc`'s value: nvcc splits `-X` values on commas (`\,`
/// keeps one) and hands cicc a command line split on white space (double quotes keep a path
/// with spaces whole). A path with a character that would need more quoting than that (`"`,
/// `$`, `` ` ``, `\`) gets no original path: nvcc's own, the absolute one, then names the
/// internal symbols, which only costs sharing between checkouts.
pub(crate) fn cicc_path_arg(source: &Path) -> Option<OsString> {
    let s = source.to_str()?;
    if s.contains(['"', '$', '`', '\\']) {
        return None;
    }
    let escaped = s.replace(',', "\\,");
    Some(if s.chars().any(char::is_whitespace) {
        format!("\"{escaped}\"").into()
    } else {
        escaped.into()
    })
}

/// Flags that make the compile write its dependency list. The host compiler's `-MD` on nvcc's
/// device preprocessing pass (`-Xcompiler -MD,-MF,FILE`) lists exactly the files that pass —
/// with this target's `__CUDA_ARCH__` — read, i.e. the inputs of the PTX, at no extra cost;
/// nvcc's own `-MD` would add a host preprocessing pass. `-Xcompiler` splits on commas, so a
/// path with a comma falls back to nvcc's `-MD -MF`. nvcc runs the host compiler through a
/// shell, unquoted: the path is single-quoted for it, so a home, cache or `TMPDIR` with a
/// space (or any character a shell reads) works.
fn depfile_args(depfile: &Path) -> Vec<OsString> {
    match depfile.to_str() {
        Some(p) if !p.contains(',') => {
            let quoted = format!("'{}'", p.replace('\'', "'\\''"));
            vec!["-Xcompiler".into(), format!("-MD,-MF,{quoted}").into()]
        }
        _ => vec!["-MD".into(), "-MF".into(), depfile.as_os_str().to_owned()],
    }
}

/// The ptxas-phase command: the cubin for `sm_XY` from `dir/in.ptx` to `dir/out.cubin`, run
/// in `dir`. The command line is the same for every build of one target and flags, so a
/// launcher that caches by command line and input (sccache) hits across builds; the cubin does
/// not record file names.
pub(crate) fn ptxas_command(tk: &Toolkit, s: &Settings, arch: Arch, dir: &Path) -> Cmd {
    let mut args: Vec<OsString> = s.ptxas_pre.iter().map(OsString::from).collect();
    args.extend([format!("-arch=sm_{}", arch.sm_name()).into(), "-m64".into()]);
    args.extend(s.ptxas_flags.iter().map(OsString::from));
    args.extend([PTXAS_IN.into(), "-o".into(), PTXAS_OUT.into()]);
    let mut cmd = Cmd::new(tk.tool("ptxas"))
        .args(args)
        .hermetic(s.compiler_env.vars())
        .with_launcher(s.launcher.as_deref());
    cmd.cwd = Some(dir.to_path_buf());
    cmd
}

const ARCH_LIST: &str = crate::plan::deps::ARCH_LIST_MACRO;

/// The ptxas job's input and output file names inside its directory.
pub(crate) const PTXAS_IN: &str = "in.ptx";
pub(crate) const PTXAS_OUT: &str = "out.cubin";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_chains_and_newest_archs_start_first() {
        use crate::config::archs::{ArchSource, ResolvedArchs};
        let list: archbuild_arch::ArchList = "7.5 8.6 compute_90".parse().unwrap();
        let archs = ResolvedArchs {
            list,
            source: ArchSource::Explicit,
            input: String::new(),
        };
        let m = Module {
            name: "k".into(),
            source: "k.cu".into(),
            members: vec![],
            arch_list: arch_list_value(&archs.list),
            archs,
            host: false,
        };
        let jobs = plan_jobs(&[m], None, &|_| Maker::Build);
        let labels: Vec<String> = jobs.iter().map(Job::label).collect();
        assert_eq!(
            labels,
            ["compute_75", "compute_86", "compute_90", "sm_75", "sm_86"]
        );
        let p = priorities(&jobs);
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(p[i]));
        let started: Vec<&str> = order.iter().map(|&i| labels[i].as_str()).collect();
        // compute_90 feeds no ptxas job (PTX only), so the cicc jobs with a ptxas after them go first.
        assert_eq!(
            started,
            ["compute_86", "compute_75", "compute_90", "sm_86", "sm_75"]
        );
    }

    #[test]
    fn a_class_shares_its_lowest_archs_cicc_job_which_starts_first() {
        use crate::config::archs::{ArchSource, ResolvedArchs};
        let module = |name: &str| Module {
            name: name.into(),
            source: format!("{name}.cu").into(),
            members: vec![],
            archs: ResolvedArchs {
                list: "8.9 7.5 8.0 8.6 8.8 9.0+PTX 12.0 12.1".parse().unwrap(),
                source: ArchSource::Explicit,
                input: String::new(),
            },
            arch_list: "750,800,860,880,890,900,1200,1210".into(),
            host: false,
        };
        let env = crate::base::env::Env::from_vars(Vec::<(&str, &str)>::new());
        let v135 = archbuild_arch::CudaVersion::new(13, 5);
        let rule = crate::plan::share::enabled(None, &env, v135, &[], false).unwrap();
        let jobs = plan_jobs(&[module("a"), module("b")], rule, &|_| Maker::Build);
        let label = |j: &Job| format!("{}:{}", j.module, j.label());
        let leads: Vec<(String, String)> = jobs
            .iter()
            .filter(|j| matches!(j.phase, Phase::Cicc(_)))
            .filter_map(|j| j.dep.map(|d| (label(j), label(&jobs[d]))))
            .collect();
        let pairs = |m: usize| {
            [("89", "80"), ("88", "86")]
                .map(|(f, l)| (format!("{m}:compute_{f}"), format!("{m}:compute_{l}")))
        };
        let mut want: Vec<_> = pairs(0).into_iter().chain(pairs(1)).collect();
        let mut got = leads.clone();
        want.sort();
        got.sort();
        assert_eq!(
            got, want,
            "a family's archs share within their own module only"
        );
        let p = priorities(&jobs);
        let first = (0..jobs.len()).max_by_key(|&i| p[i]).unwrap();
        assert_eq!(
            jobs[first].label(),
            "compute_86",
            "leads first, newest first"
        );
        // Without sharing no cicc job waits for another.
        let separate = plan_jobs(&[module("a")], None, &|_| Maker::Build);
        assert!(separate
            .iter()
            .all(|j| matches!(j.phase, Phase::Ptxas(_)) || j.dep.is_none()));
    }

    #[test]
    fn a_ptx_toolkit_makes_the_ptx_images_in_cicc_jobs_of_its_own() {
        use crate::config::archs::{ArchSource, ResolvedArchs};
        let module = Module {
            name: "k".into(),
            source: "k.cu".into(),
            members: vec![],
            archs: ResolvedArchs {
                list: "8.0 8.9 9.0+PTX".parse().unwrap(),
                source: ArchSource::Explicit,
                input: String::new(),
            },
            arch_list: "800,890,900".into(),
            host: false,
        };
        let env = crate::base::env::Env::from_vars(Vec::<(&str, &str)>::new());
        let v135 = archbuild_arch::CudaVersion::new(13, 5);
        let rule = crate::plan::share::enabled(None, &env, v135, &[], false).unwrap();
        let ptx_apart = |t: Target| match t.kind {
            TargetKind::Ptx => Maker::Ptx,
            TargetKind::Cubin => Maker::Build,
        };
        let jobs = plan_jobs(std::slice::from_ref(&module), rule, &ptx_apart);
        let shown: Vec<String> = jobs
            .iter()
            .map(|j| {
                let targets: Vec<String> = j.targets.iter().map(|t| t.to_string()).collect();
                let dep = j.dep.map(|d| format!(" after {}", jobs[d].label()));
                format!(
                    "{:?} {} [{}]{}",
                    j.maker,
                    j.label(),
                    targets.join(" "),
                    dep.unwrap_or_default()
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "Build compute_80 []",
                "Build compute_89 [] after compute_80",
                "Build compute_90 []",
                "Ptx compute_90 [compute_90]",
                "Build sm_80 [sm_80] after compute_80",
                "Build sm_89 [sm_89] after compute_89",
                "Build sm_90 [sm_90] after compute_90",
            ],
            "the cubins' PTX from the build's toolkit, the PTX image from the PTX toolkit's cicc"
        );
        let together = plan_jobs(&[module], None, &|_| Maker::Build);
        assert!(together.iter().all(|j| j.maker == Maker::Build));
        assert_eq!(
            together.len(),
            6,
            "without a PTX toolkit one cicc job per arch"
        );
    }

    #[test]
    fn relocatable_device_code_is_refused_with_the_alternative() {
        for flags in [
            vec!["-rdc=true"],
            vec!["-rdc", "true"],
            vec!["--relocatable-device-code=true"],
            vec!["-dc"],
        ] {
            let err = Settings {
                nvcc_flags: flags.iter().map(|f| f.to_string()).collect(),
                ..Default::default()
            }
            .finish("ARCHBUILD_NVCC_FLAGS")
            .unwrap_err()
            .to_string();
            assert!(
                err.contains("device link") && err.contains(".module("),
                "{err}"
            );
        }
        let ok = Settings {
            nvcc_flags: vec!["-rdc=false".into()],
            ..Default::default()
        };
        assert!(ok.finish("x").is_ok());
        let err = Settings {
            nvcc_flags: vec!["-rdc=true".into()],
            ..Default::default()
        }
        .finish("ARCHBUILD_NVCC_FLAGS")
        .unwrap_err()
        .to_string();
        insta::assert_snapshot!(err);
    }

    #[test]
    fn derives_ptxas_flags_and_rejects_owned_ones() {
        let s = Settings {
            nvcc_flags: [
                "-O3",
                "-lineinfo",
                "-Xptxas",
                "-v,-warn-spills",
                "--maxrregcount=64",
            ]
            .map(String::from)
            .to_vec(),
            ptxas_flags: vec!["--allow-expensive-optimizations=true".into()],
            ..Default::default()
        }
        .finish("test")
        .unwrap();
        assert_eq!(
            s.ptxas_flags,
            [
                "-v",
                "-warn-spills",
                "--allow-expensive-optimizations=true",
                "--generate-line-info",
                "-maxrregcount=64",
            ]
        );
        let err = Settings {
            nvcc_flags: vec!["-arch=sm_80".into()],
            ..Default::default()
        }
        .finish("ARCHBUILD_NVCC_FLAGS")
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("`-arch=sm_80`") && err.contains("ARCHBUILD_ARCHS"),
            "{err}"
        );
    }
}
