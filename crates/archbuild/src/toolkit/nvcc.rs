//! A located CUDA toolkit: where its tools are, which CUDA release it is, and which targets its
//! nvcc can build (`nvcc --version`, `--list-gpu-code`, `--list-gpu-arch`).
//!
//! Queries are memoised in the build cache, keyed on nvcc's path, size and modification time, so
//! an unchanged rebuild starts no nvcc at all — not even `nvcc --version`.

use std::path::{Path, PathBuf};

use archbuild_arch::{
    arch_support, toolkit_can_build, toolkits_for, Arch, CudaVersion, Target, TargetKind, Variant,
};

use crate::base::process::{Cmd, Spawns};
use crate::base::store::{KeyBuilder, Ns, Store};
use crate::error::{Error, Result};

/// How a toolkit was found (reported by `cargo archbuild toolkit which`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoundBy {
    /// An environment variable (`NVCC`, `CUDA_HOME`, `CUDA_PATH`, `CUDA_ROOT`).
    Var(&'static str),
    /// `nvcc` on `PATH`.
    Path,
    /// The conventional `/usr/local/cuda`.
    UsrLocal,
    /// A toolkit archbuild provisioned under its home directory.
    Provisioned,
    /// Given explicitly through the API.
    Explicit,
    /// Not on this machine: the toolkit that made a package's shipped fat binaries, as their
    /// build records describe it (`docs/publishing.md`). It runs nothing.
    Packaged,
}

/// The variables that name a toolkit's root (the directory with `bin/nvcc`), in search order.
pub const ROOT_VARS: &[&str] = &["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"];

/// Where archbuild looks for a toolkit, in order (`docs/environment.md`, "Toolkit"): the first
/// place that has one is used. A package's stand-in comes first when its records match and is
/// listed last, as it is not on the machine.
pub const SEARCH_ORDER: &[FoundBy] = &[
    FoundBy::Explicit,
    FoundBy::Var("NVCC"),
    FoundBy::Var(ROOT_VARS[0]),
    FoundBy::Var(ROOT_VARS[1]),
    FoundBy::Var(ROOT_VARS[2]),
    FoundBy::Path,
    FoundBy::UsrLocal,
    FoundBy::Provisioned,
    FoundBy::Packaged,
];

impl FoundBy {
    /// Where this place comes in [`SEARCH_ORDER`].
    pub fn rank(&self) -> usize {
        SEARCH_ORDER
            .iter()
            .position(|f| f == self)
            .unwrap_or(SEARCH_ORDER.len())
    }
}

impl std::fmt::Display for FoundBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FoundBy::Var(v) => write!(f, "${v}"),
            FoundBy::Path => f.write_str("PATH"),
            FoundBy::UsrLocal => f.write_str("/usr/local/cuda"),
            FoundBy::Provisioned => f.write_str("provisioned by archbuild"),
            FoundBy::Explicit => f.write_str("set by the build"),
            FoundBy::Packaged => {
                f.write_str("the package's prebuilt fat binaries (not on this machine)")
            }
        }
    }
}

/// A CUDA toolkit whose nvcc has been queried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolkit {
    nvcc: PathBuf,
    bin_dir: PathBuf,
    version: CudaVersion,
    release: String,
    version_text: String,
    targets: Vec<Target>,
    found_by: FoundBy,
}

impl Toolkit {
    /// Queries the nvcc at `nvcc` (its directory must also hold ptxas). With a cache store the
    /// answers are memoised.
    /// The processes it starts are counted in `spawns`.
    pub(crate) fn query(
        nvcc: &Path,
        found_by: FoundBy,
        store: Option<&Store>,
        spawns: &Spawns,
    ) -> Result<Self> {
        // Resolve the directory but not a symlinked nvcc itself: ptxas and friends live next to
        // the nvcc named, which is what nvcc's own `$(_HERE_)` means too.
        let nvcc = match (nvcc.parent().map(std::fs::canonicalize), nvcc.file_name()) {
            (Some(Ok(dir)), Some(name)) => dir.join(name),
            _ => nvcc.to_path_buf(),
        };
        let memo_key = store.and_then(|_| memo_key(&nvcc));
        let memo = memo_key.and_then(|k| store?.get(Ns::Toolkit.dir(), &k));
        let text = match memo.and_then(|m| String::from_utf8(m).ok()) {
            Some(t) => t,
            None => {
                let mut text = run_query(&nvcc, "--version", spawns)?;
                text.push_str("\n--list-gpu-code\n");
                text.push_str(&run_query(&nvcc, "--list-gpu-code", spawns)?);
                text.push_str("\n--list-gpu-arch\n");
                text.push_str(&run_query(&nvcc, "--list-gpu-arch", spawns)?);
                if let (Some(store), Some(k)) = (store, memo_key) {
                    let _ = store.put(Ns::Toolkit.dir(), &k, text.as_bytes());
                }
                text
            }
        };
        Self::from_query_text(&nvcc, &text, found_by)
    }

    /// Builds a toolkit from the combined output of the three queries.
    pub(crate) fn from_query_text(nvcc: &Path, text: &str, found_by: FoundBy) -> Result<Self> {
        let bad = |problem: String| Error::ToolkitQuery {
            nvcc: nvcc.to_path_buf(),
            args: "--version".into(),
            problem,
        };
        // "Cuda compilation tools, release 13.5, V13.5.37"
        let line = text
            .lines()
            .find(|l| l.contains("release ") && l.contains(", V"))
            .ok_or_else(|| bad("printed no `release X.Y, VX.Y.Z` line".into()))?;
        let release = line.rsplit(", V").next().unwrap_or("").trim().to_owned();
        let mut parts = release.split('.').map(|p| p.parse::<u32>());
        let version = match (parts.next(), parts.next()) {
            (Some(Ok(ma)), Some(Ok(mi))) => CudaVersion::new(ma, mi),
            _ => return Err(bad(format!("reported an unreadable release `{release}`"))),
        };
        let mut targets: Vec<Target> = text
            .split_whitespace()
            .filter_map(Target::parse_nvcc_name)
            .collect();
        targets.sort();
        targets.dedup();
        if !targets.iter().any(|t| t.kind == TargetKind::Cubin) {
            return Err(bad("`--list-gpu-code` listed no sm_ targets".into()));
        }
        let version_text = text
            .lines()
            .filter(|l| l.starts_with("Cuda") || l.starts_with("Build"))
            .collect::<Vec<_>>()
            .join("\n");
        let bin_dir = nvcc.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(Self {
            nvcc: nvcc.to_path_buf(),
            bin_dir,
            version,
            release,
            version_text,
            targets,
            found_by,
        })
    }

    /// What a build record keeps of this toolkit, enough for [`Toolkit::stand_in`]: the
    /// version lines and every target nvcc lists.
    pub(crate) fn query_text(&self) -> String {
        let targets: Vec<String> = self.targets.iter().map(|t| t.to_string()).collect();
        format!("{}\n{}", self.version_text, targets.join(" "))
    }

    /// The toolkit a record's [`Toolkit::query_text`] describes, standing in for one that is
    /// not on this machine: its arch tables answer, it runs nothing.
    pub(crate) fn stand_in(text: &str) -> Result<Self> {
        Self::from_query_text(Path::new("(packaged)"), text, FoundBy::Packaged)
    }

    /// Whether this is a [`Toolkit::stand_in`], with no program behind it.
    pub(crate) fn is_stand_in(&self) -> bool {
        self.found_by == FoundBy::Packaged
    }

    /// The toolkit whose nvcc is at this path, queried now (for tools and tests).
    pub fn from_nvcc(nvcc: impl AsRef<Path>) -> Result<Self> {
        Self::query(nvcc.as_ref(), FoundBy::Explicit, None, &Spawns::default())
    }

    pub fn nvcc(&self) -> &Path {
        &self.nvcc
    }

    /// The directory holding nvcc, ptxas, fatbinary, cuobjdump.
    pub fn bin_dir(&self) -> &Path {
        &self.bin_dir
    }

    /// Path of another tool of this toolkit (`ptxas`, `cuobjdump`, `fatbinary`, `nvlink`).
    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin_dir.join(name)
    }

    /// The toolkit root (parent of `bin/`).
    pub fn root(&self) -> &Path {
        self.bin_dir.parent().unwrap_or(&self.bin_dir)
    }

    /// `13.5`.
    pub fn version(&self) -> CudaVersion {
        self.version
    }

    /// `13.5.37`.
    pub fn release(&self) -> &str {
        &self.release
    }

    /// nvcc's version and build lines; part of every cache key.
    pub(crate) fn identity(&self) -> &str {
        &self.version_text
    }

    pub fn found_by(&self) -> &FoundBy {
        &self.found_by
    }

    /// The architectures nvcc lists for cubins, ascending (what `all` means for this toolkit).
    pub fn archs(&self) -> Vec<Arch> {
        self.targets
            .iter()
            .filter(|t| t.kind == TargetKind::Cubin)
            .map(|t| t.arch)
            .collect()
    }

    /// Whether this nvcc can build `target`. Plain targets must be listed; `a`/`f` variants are
    /// not listed by nvcc, so their plain arch must be listed and the release must know the
    /// variant. nvcc lists no `lto_` names: LTO-IR is cicc's, for every `compute_` it lists.
    pub fn can_build(&self, target: Target) -> bool {
        let kind = match target.kind {
            TargetKind::LtoIr => TargetKind::Ptx,
            k => k,
        };
        let plain = Target {
            arch: Arch::new(target.arch.cc, Variant::Plain),
            kind,
        };
        self.targets.contains(&plain)
            && (target.arch.variant == Variant::Plain
                || toolkit_can_build(self.version, target.arch))
    }

    /// Checks every target, with an error that says which toolkits can build a missing one.
    pub fn check_targets(&self, targets: &[Target], origin: &str) -> Result<()> {
        for &t in targets {
            if !self.can_build(t) {
                let removed = arch_support(t.arch)
                    .and_then(|s| s.removed)
                    .filter(|&v| v <= self.version);
                let reach = match (toolkits_for(t.arch), removed) {
                    // Maxwell, Pascal and Volta (P40, V100, Jetson Xavier): CUDA 13 dropped
                    // them, and the fix is an older toolkit, asked for by version.
                    (Some(r), Some(gone)) => {
                        let older = gone.major().saturating_sub(1);
                        let gone_major = gone.major();
                        format!(
                            "`{t}` is built by {r}; CUDA {gone} dropped it, so build it with a \
                             CUDA {older} toolkit: install one and set `toolkit = \"{older}.x\"` \
                             in [package.metadata.archbuild] (or \
                             ARCHBUILD_TOOLKIT_VERSION={older}.x, `Build::toolkit_version`), \
                             or keep CUDA {gone_major} for the rest of the list with \
                             `legacy-toolkit = \"{older}.x\"` (ARCHBUILD_LEGACY_TOOLKIT_VERSION)"
                        )
                    }
                    (Some(r), None) => format!("`{t}` is built by {r}"),
                    (None, _) => format!("no CUDA release builds `{t}`"),
                };
                let archs = self.archs();
                let available = match (archs.first(), archs.last()) {
                    (Some(a), Some(b)) => format!("sm_{} to sm_{}", a.sm_name(), b.sm_name()),
                    _ => "nothing".into(),
                };
                return Err(Error::TargetUnsupported {
                    target: t.to_string(),
                    origin: origin.to_owned(),
                    toolkit: self.release.clone(),
                    reach,
                    available,
                });
            }
        }
        Ok(())
    }
}

fn run_query(nvcc: &Path, arg: &str, spawns: &Spawns) -> Result<String> {
    let out = Cmd::new(nvcc)
        .arg(arg)
        .output_counted(spawns)
        .map_err(|e| Error::ToolkitQuery {
            nvcc: nvcc.to_path_buf(),
            args: arg.into(),
            problem: format!("could not be started ({e})"),
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(Error::ToolkitQuery {
            nvcc: nvcc.to_path_buf(),
            args: arg.into(),
            problem: format!("failed ({}): {}", out.status, stderr.trim()),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Identifies one nvcc binary by path, size and modification time.
pub(crate) fn memo_key(nvcc: &Path) -> Option<crate::base::store::Key> {
    let (size, mtime) = crate::base::paths::file_stamp(nvcc)?;
    Some(
        KeyBuilder::new("toolkit-query")
            .str("path", &nvcc.to_string_lossy())
            .str("size", &size.to_string())
            .str("mtime", &mtime.to_string())
            .finish(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.5, V13.5.37\nBuild cuda_13.5.r13.5/compiler.39125733_0\n--list-gpu-code\nsm_75\nsm_86\nsm_89\nsm_90\nsm_100\n--list-gpu-arch\ncompute_75\ncompute_86\ncompute_89\ncompute_90\ncompute_100\n";

    #[test]
    fn parses_queries_and_checks_variants() {
        let tk = Toolkit::from_query_text(Path::new("/x/bin/nvcc"), TEXT, FoundBy::Path).unwrap();
        assert_eq!(tk.version(), CudaVersion::new(13, 5));
        assert_eq!(tk.release(), "13.5.37");
        assert_eq!(tk.tool("ptxas"), Path::new("/x/bin/ptxas"));
        let t = |s| Target::parse_nvcc_name(s).unwrap();
        assert!(tk.can_build(t("sm_90a")));
        assert!(tk.can_build(t("compute_100f")));
        assert!(!tk.can_build(t("sm_70")));
        assert!(!tk.can_build(t("sm_120")));
        let err = tk
            .check_targets(&[t("sm_86"), t("sm_70")], "ARCHBUILD_ARCHS")
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("CUDA 9.0 up to (not including) 13.0"),
            "{err}"
        );
    }

    #[test]
    fn rejects_garbage() {
        let err = Toolkit::from_query_text(Path::new("nvcc"), "hello", FoundBy::Path).unwrap_err();
        assert!(err.to_string().contains("release"), "{err}");
    }
}
