//! What a build tells its caller: `BuildReport` and its records.
use std::fmt;
use std::path::PathBuf;

use archbuild_arch::ArchList;
use serde::Serialize;

use super::served::Wire;
pub use super::served::{Miss, Served};

/// Which compiler a job runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobPhase {
    /// Source to PTX (`nvcc -ptx`, which runs cicc).
    Cicc,
    /// PTX to cubin.
    Ptxas,
    /// The device link of relocatable device code (`nvlink`).
    Nvlink,
}

impl fmt::Display for JobPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JobPhase::Cicc => "cicc",
            JobPhase::Ptxas => "ptxas",
            JobPhase::Nvlink => "nvlink",
        })
    }
}

/// One job of the build.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRecord {
    /// The module (fat binary) it belongs to.
    pub module: String,
    /// `cicc` (source → PTX) or `ptxas` (PTX → cubin).
    pub phase: JobPhase,
    /// `compute_89` for cicc jobs, `sm_89` for ptxas jobs.
    pub target: String,
    /// How its output was served (JSON: `cached`, `preprocessed`, `shared_from`, `note`,
    /// `miss`).
    pub served: Served,
    /// Wall time of the process, 0 when cached.
    pub seconds: f64,
    /// The compiler command line that ran; `None` when served from the cache.
    pub command: Option<String>,
    /// What the compiler printed (warnings, `-Xptxas -v` resource usage); `None` when nothing.
    pub output: Option<String>,
}

impl JobRecord {
    /// One line on how the job ended: `add sm_86 (ptxas): compiled in 1.42 s`.
    pub fn line(&self) -> String {
        let how = match &self.served {
            Served::Hit => "from the cache".to_owned(),
            Served::Preprocessed => "from the cache after preprocessing".to_owned(),
            Served::Shared { lead, .. } => format!(
                "shared compute_{}'s cicc run in {:.2} s",
                lead.sm_name(),
                self.seconds
            ),
            Served::Compiled { .. } => format!("compiled in {:.2} s", self.seconds),
        };
        format!("{} {} ({}): {how}", self.module, self.target, self.phase)
    }
}

impl Serialize for JobRecord {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let w = Wire::from(&self.served);
        let mut st = s.serialize_struct("JobRecord", 11)?;
        st.serialize_field("module", &self.module)?;
        st.serialize_field("phase", &self.phase)?;
        st.serialize_field("target", &self.target)?;
        st.serialize_field("cached", &w.cached)?;
        st.serialize_field("preprocessed", &w.preprocessed)?;
        st.serialize_field("shared_from", &w.shared_from)?;
        st.serialize_field("seconds", &self.seconds)?;
        st.serialize_field("command", &self.command)?;
        st.serialize_field("output", &self.output)?;
        st.serialize_field("note", &w.note)?;
        st.serialize_field("miss", &w.miss)?;
        st.end()
    }
}

/// One fat binary written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModuleReport {
    pub name: String,
    /// The files compiled into it.
    pub sources: Vec<PathBuf>,
    pub fatbin: PathBuf,
    /// Size of the fat binary in bytes.
    pub bytes: usize,
    /// The arch list of this module (differs from the build's with a per-file override).
    pub archs: String,
    /// nvcc names of its targets, e.g. `sm_75 sm_86 compute_86`.
    pub targets: Vec<String>,
    /// Kernel names (`.entry`), mangled as the driver sees them.
    pub kernels: Vec<String>,
    /// Per target (`sm_86`, `compute_90`), the kernels its image holds: a kernel compiled out
    /// for an arch (`#if __CUDA_ARCH__ >= 890`) is missing from that arch's images.
    pub target_kernels: Vec<(String, Vec<String>)>,
    /// Each kernel's declared C signature, checked against every image (the typed launchers';
    /// empty for a module taken from prebuilt or shipped files).
    #[serde(skip)]
    pub(crate) declared: Vec<crate::report::signature::Declared>,
    /// Kernels missing from some of its images, one per kernel (variant groups taken into
    /// account: a group is a gap only where an image has none of its kernels); the build's
    /// warnings group them.
    pub coverage_gaps: Vec<archbuild_arch::CoverageGap>,
    /// Which toolkit release made each image: `(target, release)`, in target order (a
    /// module taken from prebuilt files: as its build record says).
    pub made_by: Vec<(String, String)>,
}

/// Least recently used entries the build removed from the build cache to keep it under its cap
/// (`ARCHBUILD_CACHE_MAX_BYTES`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheEviction {
    /// Entries removed and their bytes.
    pub entries: u64,
    pub bytes: u64,
    /// The cap in bytes.
    pub cap: u64,
    /// Bytes of entries left (above the cap when this build's own entries alone exceed it).
    pub remaining: u64,
}

impl fmt::Display for CacheEviction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "build cache over its cap of {} (ARCHBUILD_CACHE_MAX_BYTES): removed {} least \
             recently used entries ({}), {} left",
            mib(self.cap),
            self.entries,
            mib(self.bytes),
            mib(self.remaining)
        )
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// Which variant of a group each target of a module gets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VariantReport {
    pub group: String,
    pub module: String,
    /// `(target, kernel)` for every target of the module, in the module's target order.
    pub choices: Vec<(String, String)>,
}

impl std::fmt::Display for VariantReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let each: Vec<String> = self
            .choices
            .iter()
            .map(|(t, k)| format!("{t} -> {k}"))
            .collect();
        write!(
            f,
            "variants `{}` ({}): {}",
            self.group,
            self.module,
            each.join(", ")
        )
    }
}

/// The result of [`crate::Build::try_compile`].
#[derive(Debug, Clone, Serialize)]
pub struct BuildReport {
    /// The build's name (`compile("kernels")`).
    pub name: String,
    /// The build's arch list (JSON: its canonical form).
    pub archs: ArchList,
    /// Where it came from (JSON `arch_source`: in words, `ARCHBUILD_ARCHS`, the default, …).
    #[serde(rename = "arch_source", serialize_with = "in_words")]
    pub source: crate::config::archs::ArchSource,
    /// The toolkit release used, e.g. `13.5.37`.
    pub toolkit: String,
    /// How its fat binaries are packed, e.g. `cubins none, PTX zstd-5`.
    #[serde(default)]
    pub compression: String,
    pub nvcc: PathBuf,
    /// The programs the build runs or would run: nvcc, ptxas, the host compiler a flag names,
    /// the launcher. `compile -o` refuses to replace one.
    #[serde(default)]
    pub programs: Vec<PathBuf>,
    pub jobs_planned: usize,
    /// Jobs that started a compiler process.
    pub jobs_run: usize,
    /// Jobs served from the cache.
    pub cache_hits: usize,
    /// Every process started by this build (compiles plus toolkit queries), not counting
    /// verification runs.
    pub processes_started: usize,
    /// Cache hits compiled again and found identical (`ARCHBUILD_VERIFY`).
    pub verified: usize,
    /// Whether Cargo's jobserver limited the parallelism.
    pub jobserver: bool,
    /// Worker threads used.
    pub workers: usize,
    pub jobs: Vec<JobRecord>,
    pub modules: Vec<ModuleReport>,
    /// The generated Rust file, when one was written.
    pub rust_module: Option<PathBuf>,
    /// Every source and header the kernels depend on (outside the toolkit).
    pub dependencies: Vec<PathBuf>,
    /// Every environment variable the build read.
    pub env_vars: Vec<String>,
    /// What was evicted from the build cache after the build; `None` when nothing was.
    pub cache_eviction: Option<CacheEviction>,
    /// The remote cache's use, when one is configured.
    pub remote: Option<archbuild_store::RemoteStats>,
    /// Modules taken from prebuilt fat binaries (`ARCHBUILD_PREBUILT`) instead of compiled.
    pub prebuilt: Vec<String>,
    /// Warnings for the user: kernel coverage gaps, a prebuilt fat binary not used and why, a
    /// module without kernels, an arch list its dialect's tool would reject.
    #[serde(serialize_with = "crate::report::warning::with_messages")]
    pub warnings: Vec<crate::Warning>,
    /// Per variant group, which kernel each target gets.
    pub variants: Vec<VariantReport>,
    /// What the compilers printed (warnings, `-Xptxas -v` reports), one message per distinct
    /// text with the targets that printed it; replayed from the cache on a rebuild.
    pub compiler_output: Vec<crate::report::compiler_output::CompilerMessage>,
    pub seconds: f64,
    /// A host library build's archive and host objects (`Library`); `None` for kernels.
    pub library: Option<LibraryReport>,
}

/// What a [`crate::Library`] build wrote besides its fat binaries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LibraryReport {
    /// `lib<name>.a`, holding one host object per source.
    pub archive: PathBuf,
    /// Whether `ar` ran (false: the archive already held these objects).
    pub archived: bool,
    /// How the CUDA runtime is linked (`static`, `shared`, `none`).
    pub cudart: String,
    /// The `cargo:` lines that link the archive and the runtime (printed in a build script).
    pub link: Vec<String>,
    /// One per source, in build order.
    pub objects: Vec<HostObjectRecord>,
}

/// One source's host object.
#[derive(Debug, Clone, PartialEq)]
pub struct HostObjectRecord {
    /// The module (fat binary) the source's device side is in.
    pub module: String,
    /// How the object was served (JSON: `cached`, `preprocessed`).
    pub served: Served,
    pub seconds: f64,
    /// The host compiler's command line, when it ran.
    pub command: Option<String>,
    /// What `cudafe++` and the host compiler printed, when they ran.
    pub output: Option<String>,
}

impl Serialize for HostObjectRecord {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let w = Wire::from(&self.served);
        let mut st = s.serialize_struct("HostObjectRecord", 6)?;
        st.serialize_field("module", &self.module)?;
        st.serialize_field("cached", &w.cached)?;
        st.serialize_field("preprocessed", &w.preprocessed)?;
        st.serialize_field("seconds", &self.seconds)?;
        st.serialize_field("command", &self.command)?;
        st.serialize_field("output", &self.output)?;
        st.end()
    }
}

impl BuildReport {
    /// The resolved arch list of the build (e.g. for [`crate::configure_cc`]).
    pub fn arch_list(&self) -> &ArchList {
        &self.archs
    }

    /// Jobs that ran a process, as `(module, target)` pairs, sorted.
    pub fn ran(&self) -> Vec<(String, String)> {
        let mut v: Vec<_> = self
            .jobs
            .iter()
            .filter(|j| !j.served.cached())
            .map(|j| (j.module.clone(), j.target.clone()))
            .collect();
        v.sort();
        v
    }

    /// The module report of this name.
    pub fn module(&self, name: &str) -> Option<&ModuleReport> {
        self.modules.iter().find(|m| m.name == name)
    }
}

/// A value as its `Display` words, for JSON.
fn in_words<S: serde::Serializer>(v: &impl fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

impl fmt::Display for BuildReport {
    /// A short human summary, then one line per job that ran.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} jobs for `{}` (from {}): {} run, {} cached, {} processes, {:.2} s on {} workers{}",
            self.name,
            self.jobs_planned,
            self.archs,
            self.source,
            self.jobs_run,
            self.cache_hits,
            self.processes_started,
            self.seconds,
            self.workers,
            if self.jobserver { " (Cargo jobserver)" } else { "" }
        )?;
        for j in self.jobs.iter().filter(|j| !j.served.cached()) {
            write!(
                f,
                "  {:<12} {:<6} {:<14} {:>7.2} s",
                j.module, j.phase, j.target, j.seconds
            )?;
            match j.served.note() {
                Some(note) => writeln!(f, " ({note})")?,
                None => writeln!(f)?,
            }
        }
        for m in &self.modules {
            writeln!(
                f,
                "  -> {} ({} bytes, {} kernels)",
                m.fatbin.display(),
                m.bytes,
                m.kernels.len()
            )?;
        }
        if let Some(e) = &self.cache_eviction {
            writeln!(f, "  {e}")?;
        }
        for v in &self.variants {
            writeln!(f, "  {v}")?;
        }
        Ok(())
    }
}
