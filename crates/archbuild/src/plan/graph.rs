//! The job graph: modules, their cicc and ptxas jobs per target, their LTO-IR jobs, who makes
//! each (`Maker`), and the order they start in.

use crate::config::archs::ResolvedArchs;
use crate::plan::DeviceCode;
use crate::toolkit::makers::Maker;
use archbuild_arch::{Arch, Target, TargetKind};
use std::path::PathBuf;

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
    /// Whole-program, or each member relocatable and device-linked per target (the build's
    /// `Settings::device_code`).
    pub device_code: DeviceCode,
}

impl Module {
    /// The translation units its jobs compile: the module itself (its other members
    /// `-include`d), or with relocatable device code each member on its own.
    pub(crate) fn units(&self) -> Vec<Module> {
        // A host library's source is one object, as `nvcc -rdc=true -c` makes it; the
        // library's device link is its host stage's (`output/host_stage.rs`).
        if !self.links_per_target() {
            return vec![self.clone()];
        }
        let unit = |f: &PathBuf| Module {
            source: f.clone(),
            members: vec![f.clone()],
            ..self.clone()
        };
        self.members.iter().map(unit).collect()
    }

    /// Whether its jobs are a relocatable module's: per file, then a device link per target.
    fn links_per_target(&self) -> bool {
        self.device_code == DeviceCode::Relocatable && !self.host
    }
}

/// The compile phase of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Phase {
    /// `nvcc -ptx -arch=compute_XY`.
    Cicc(Arch),
    /// `ptxas -arch=sm_XY` on the cicc phase's PTX.
    Ptxas(Arch),
    /// `nvcc -ltoir -gencode=arch=compute_XY,code=lto_XY`: cicc's whole-program LTO-IR, which
    /// nvJitLink links for the GPU at load time.
    Lto(Arch),
    /// The device link of a module's relocatable code for one target (`nvlink`): its files'
    /// relocatable cubins into the `sm_XY` image (`nvcc -dlink -cubin`), or their LTO-IR into
    /// whole-program PTX for `compute_XY` (`nvlink -dlto --emit-ptx`).
    Link(Target),
}

impl Phase {
    /// The compiler this phase runs, as reports name it.
    pub(crate) fn kind(self) -> crate::report::JobPhase {
        match self {
            Phase::Cicc(_) | Phase::Lto(_) => crate::report::JobPhase::Cicc,
            Phase::Ptxas(_) => crate::report::JobPhase::Ptxas,
            Phase::Link(_) => crate::report::JobPhase::Nvlink,
        }
    }
}

/// What a cicc run emits: PTX (a cicc job, which ptxas jobs may read) or whole-program LTO-IR
/// (an LTO-IR job). Both are cached the same way, under keys that name which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Emit {
    Ptx,
    LtoIr,
}

impl Emit {
    /// The label of its direct-mode and compile-inputs keys.
    pub(crate) fn key_labels(self) -> (&'static str, &'static str) {
        match self {
            Emit::Ptx => ("cicc", "cicc-compile"),
            Emit::LtoIr => ("cicc-ltoir", "cicc-ltoir-compile"),
        }
    }
}

/// One job: a phase of one module, and the job it needs first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Job {
    pub module: usize,
    /// Which of the module's translation units it compiles (`Module::units`; 0 but for
    /// relocatable device code).
    pub unit: usize,
    pub phase: Phase,
    /// Which of the build's toolkits runs it.
    pub maker: Maker,
    pub dep: Option<usize>,
    /// A device link's inputs, one job per translation unit, in the module's order.
    pub links: Vec<usize>,
    /// The targets this job's output is packed as.
    pub targets: Vec<Target>,
}

impl Job {
    /// `compute_89` (cicc) / `sm_89` (ptxas) / `lto_90` (cicc's LTO-IR).
    pub(crate) fn label(&self) -> String {
        match self.phase {
            Phase::Cicc(a) => format!("compute_{}", a.sm_name()),
            Phase::Ptxas(a) => format!("sm_{}", a.sm_name()),
            Phase::Lto(a) => format!("lto_{}", a.sm_name()),
            Phase::Link(t) => format!("dlink {t}"),
        }
    }
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
    plan_jobs_of(modules, &vec![true; modules.len()], share, maker)
}

/// The jobs of the modules `compile` marks (the others are served from prebuilt files); a
/// job's `module` is its index in `modules`.
pub(crate) fn plan_jobs_of(
    modules: &[Module],
    compile: &[bool],
    share: Option<crate::plan::share::Rule>,
    maker: &dyn Fn(Target) -> Maker,
) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut cicc_of = std::collections::HashMap::new();
    let marked = modules
        .iter()
        .enumerate()
        .filter(|(m, module)| compile[*m] && !module.links_per_target());
    for (m, module) in marked.clone() {
        let list = module.archs.list.targets();
        // LTO-IR does not name its kernels: a list of LTO-IR alone gets the cicc job of its
        // lowest arch too, unpacked, for the kernels, their parameters and declarations.
        let lto_only = list.iter().all(|t| t.kind == TargetKind::LtoIr);
        for t in list {
            if t.kind == TargetKind::LtoIr && !(lto_only && t == &list[0]) {
                continue;
            }
            let maker = maker(*t);
            let id = *cicc_of.entry((m, t.arch, maker)).or_insert_with(|| {
                jobs.push(Job::new(m, 0, Phase::Cicc(t.arch), maker, vec![]));
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
                dep: Some(id),
                ..Job::new(m, 0, Phase::Ptxas(arch), by, vec![cubin])
            });
        }
    }
    // LTO-IR is cicc's own output for its arch: a job of its own, sharing no PTX.
    for (m, module) in marked {
        for t in module.archs.list.lto() {
            let target = Target::lto(t);
            jobs.push(Job::new(m, 0, Phase::Lto(t), maker(target), vec![target]));
        }
    }
    let relocatable = modules
        .iter()
        .enumerate()
        .filter(|(m, module)| compile[*m] && module.links_per_target());
    // Planned after the sharing above: a relocatable module's cicc jobs are per file and
    // share nothing.
    for (m, module) in relocatable {
        plan_relocatable(&mut jobs, m, module, maker);
    }
    jobs
}

impl Job {
    fn new(module: usize, unit: usize, phase: Phase, maker: Maker, targets: Vec<Target>) -> Self {
        Self {
            module,
            unit,
            phase,
            maker,
            dep: None,
            links: Vec::new(),
            targets,
        }
    }
}

/// The jobs of a module of relocatable device code, as `nvcc -rdc=true` and `nvcc -dlink` run
/// them: per file and cubin target a cicc and a ptxas job (`--compile-only`), per file and PTX
/// target an LTO-IR job, none of them packed; then per target one device link of every file's
/// output, which is what the fat binary holds. A list without cubins still gets each file's
/// cicc job of its lowest arch, unpacked, for the kernels' declarations.
fn plan_relocatable(
    jobs: &mut Vec<Job>,
    m: usize,
    module: &Module,
    maker: &dyn Fn(Target) -> Maker,
) {
    let list = module.archs.list.targets();
    let cubins: Vec<Arch> = list
        .iter()
        .filter(|t| t.kind == TargetKind::Cubin)
        .map(|t| t.arch)
        .collect();
    let ptx: Vec<Arch> = list
        .iter()
        .filter(|t| t.kind == TargetKind::Ptx)
        .map(|t| t.arch)
        .collect();
    let units = module.members.len().max(1);
    let mut linked: Vec<(Target, Vec<usize>)> = Vec::new();
    let mut link_input = |target: Target, id: usize| match linked.iter_mut().find(|l| l.0 == target)
    {
        Some((_, ids)) => ids.push(id),
        None => linked.push((target, vec![id])),
    };
    for u in 0..units {
        for &a in &cubins {
            let by = maker(Target::cubin(a));
            jobs.push(Job::new(m, u, Phase::Cicc(a), by, vec![]));
            let cicc = jobs.len() - 1;
            jobs.push(Job {
                dep: Some(cicc),
                ..Job::new(m, u, Phase::Ptxas(a), by, vec![])
            });
            link_input(Target::cubin(a), jobs.len() - 1);
        }
        if cubins.is_empty() {
            if let Some(first) = list.first() {
                jobs.push(Job::new(
                    m,
                    u,
                    Phase::Cicc(first.arch),
                    maker(*first),
                    vec![],
                ));
            }
        }
        for &a in &ptx {
            jobs.push(Job::new(m, u, Phase::Lto(a), maker(Target::ptx(a)), vec![]));
            link_input(Target::ptx(a), jobs.len() - 1);
        }
    }
    for (target, inputs) in linked {
        jobs.push(Job {
            links: inputs,
            ..Job::new(m, 0, Phase::Link(target), maker(target), vec![target])
        });
    }
}

fn cicc_arch(job: &Job) -> Arch {
    match job.phase {
        Phase::Cicc(a) | Phase::Ptxas(a) | Phase::Lto(a) => a,
        Phase::Link(t) => t.arch,
    }
}

/// Start order, as a priority per job (higher first), for a short makespan without knowing
/// durations: longest chain first — cicc jobs whose PTX other cicc jobs of their family may
/// take, then cicc jobs that feed a ptxas job, then other cicc jobs, then ptxas jobs — and
/// within each class the newest arch first, because newer targets compile slower (measured on `benches/inputs/bench_kernels.cu`: sm_90's ptxas job is the
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
            Phase::Cicc(a) | Phase::Lto(a) => 10_000 + a.cc.sm(),
            Phase::Ptxas(a) => a.cc.sm(),
            Phase::Link(t) => t.arch.cc.sm(),
        })
        .collect()
}
