//! Which architectures to build, from one documented precedence (highest first):
//!
//! 1. the build script API (`Build::archs`) or the CLI flag (`--archs`),
//! 2. `ARCHBUILD_ARCHS`,
//! 3. `CUDA_COMPUTE_CAP`, as bindgen_cuda and cudaforge read it (`90` is nvcc's `-arch=sm_90`:
//!    the sm_90 cubin and compute_90 PTX; `9.0` as `nvidia-smi` prints it; several with `,`),
//! 4. `archs` in `[package.metadata.archbuild]` of the package's Cargo.toml,
//! 5. `TORCH_CUDA_ARCH_LIST`, then `CUDAARCHS` (CMake's syntax: a bare `86` means cubin *and*
//!    PTX, `86-real` cubin only, `86-virtual` PTX only),
//! 6. the default: the toolkit's `all-major` set (cubins for every X.0 arch and the oldest, PTX
//!    for the newest X.0), announced in one line that says how to change it.
//!
//! The first source that is set wins entirely; lists are never merged across sources, so what
//! you set is what you get. Blank values count as unset. One exception serves a package's
//! dependents: `CUDA_COMPUTE_CAP` names the GPUs a user runs on, and when the package ships fat
//! binaries (`prebuilt`) whose own list covers every one of those GPUs, the build takes the
//! package's list (`ArchSource::Covering`), so the shipped files serve it with no toolkit.

use std::fmt;

use archbuild_arch::{Arch, ArchList, ComputeCapability, Dialect, ListFacts};

use crate::base::env::Env;
use crate::base::layered::{Layer, Layered, Origin, Setting};
use crate::config::manifest::PackageConfig;
use crate::error::Result;
use crate::toolkit::makers::Toolkits;
use crate::toolkit::nvcc::Toolkit;

/// Where the arch list came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchSource {
    /// `Build::archs` in a build script.
    Explicit,
    /// A flag of the program that gave `Build::archs` its list, as it names it (`--archs`).
    Flag(&'static str),
    /// An environment variable (`ARCHBUILD_ARCHS`, `TORCH_CUDA_ARCH_LIST`, `CUDAARCHS`).
    Var(&'static str),
    /// `[package.metadata.archbuild] archs`.
    Manifest,
    /// A per-file override (`Build::file_archs`, `[package.metadata.archbuild.file-archs]`).
    FileOverride(String),
    /// Nothing set: the toolkit's `all-major`.
    Default,
    /// The package's own list (`shipped`: its `archs`, or the default), taken for a request
    /// (`CUDA_COMPUTE_CAP=90`) whose GPUs it all runs on, because the package ships fat
    /// binaries of that list.
    Covering {
        request: String,
        shipped: Box<ArchSource>,
    },
}

impl fmt::Display for ArchSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchSource::Explicit => {
                f.write_str("the build's arch list (`.archs(...)` / `--archs`)")
            }
            ArchSource::Var(v) | ArchSource::Flag(v) => f.write_str(v),
            ArchSource::Manifest => f.write_str("Cargo.toml [package.metadata.archbuild] archs"),
            ArchSource::FileOverride(file) => write!(f, "the arch override for `{file}`"),
            ArchSource::Default => f.write_str("the default (`all-major` of the toolkit)"),
            ArchSource::Covering { request, shipped } => write!(
                f,
                "{shipped}, the list the package ships, which runs on every GPU {request} names"
            ),
        }
    }
}

impl ArchSource {
    /// The dialect a list from this source is read in: CMake's for `CUDAARCHS`, PyTorch's
    /// for `TORCH_CUDA_ARCH_LIST`, archbuild's otherwise.
    pub fn dialect(&self) -> Dialect {
        match self {
            ArchSource::Var(v) => Dialect::of_variable(v),
            _ => Dialect::Archbuild,
        }
    }
}

/// A resolved arch list and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedArchs {
    pub list: ArchList,
    pub source: ArchSource,
    /// The text that was parsed (`all-major` for the default).
    pub input: String,
}

impl ResolvedArchs {
    /// The one line announcing the default, or `None` when the user chose the list.
    pub fn announcement(&self) -> Option<String> {
        (self.source == ArchSource::Default).then(|| {
            format!(
                "building for `{}` (all-major, portable default); set ARCHBUILD_ARCHS=native \
                 for a fast build for this machine's GPUs, or e.g. ARCHBUILD_ARCHS=\"8.6 8.9+PTX\"",
                self.list
            )
        })
    }
}

/// The compute capabilities `native` means (`toolkit/native.rs`), asked only when a list says `native`.
pub(crate) type DeviceQuery<'a> = &'a dyn Fn() -> Result<Vec<ComputeCapability>>;

/// Picks the arch list by the precedence above and checks it against the toolkit.
pub(crate) fn resolve_archs(
    explicit: Option<&str>,
    env: &Env,
    manifest: Option<&PackageConfig>,
    toolkit: &Toolkits,
    devices: DeviceQuery<'_>,
) -> Result<ResolvedArchs> {
    let (input, source) = choose_written(explicit, env, || {
        Ok::<_, crate::Error>(manifest.and_then(|m| m.archs.clone()))
    })?;
    let asked = parse_checked(&input, source, toolkit, devices)?;
    match covering(&asked, manifest, toolkit, devices)? {
        Some(own) => Ok(own),
        None => Ok(asked),
    }
}

/// The package's own list, when `asked` comes from `CUDA_COMPUTE_CAP`, the package ships fat
/// binaries, and that list runs on every GPU the variable names: what the author built and
/// recorded then serves the request (`docs/publishing.md`).
fn covering(
    asked: &ResolvedArchs,
    manifest: Option<&PackageConfig>,
    toolkit: &Toolkits,
    devices: DeviceQuery<'_>,
) -> Result<Option<ResolvedArchs>> {
    let (ArchSource::Var(var @ COMPUTE_CAP_VAR), Some(pkg)) = (&asked.source, manifest) else {
        return Ok(None);
    };
    if !pkg.prebuilt_dir().is_some_and(|d| d.is_dir()) {
        return Ok(None);
    }
    let (text, own_source) = match &pkg.archs {
        Some(a) => (a.clone(), ArchSource::Manifest),
        None => ("all-major".to_owned(), ArchSource::Default),
    };
    let own = parse_checked(&text, own_source.clone(), toolkit, devices)?;
    let gpus: Vec<ComputeCapability> = asked.list.targets().iter().map(|t| t.arch.cc).collect();
    let runs = |cc: ComputeCapability| {
        own.list
            .targets()
            .iter()
            .any(|t| archbuild_arch::target_runs_on(*t, cc))
    };
    if !gpus.iter().all(|cc| runs(*cc)) {
        return Ok(None);
    }
    Ok(Some(ResolvedArchs {
        source: ArchSource::Covering {
            request: format!("{var}={}", asked.input),
            shipped: Box::new(own_source),
        },
        ..own
    }))
}

/// The variable bindgen_cuda and cudaforge read the GPU's compute capability from.
pub(crate) const COMPUTE_CAP_VAR: &str = "CUDA_COMPUTE_CAP";

/// The arch-list text a build would parse, and where it came from, by the precedence above
/// (CMake's `CUDAARCHS` already rewritten into archbuild's syntax). Tools that plan builds
/// (`cargo archbuild matrix`) use this so they agree with the build script.
///
/// `manifest` yields the package's `[package.metadata.archbuild] archs`; it is called only when
/// neither an explicit list nor `ARCHBUILD_ARCHS` is set, so a caller that must run
/// `cargo metadata` to answer pays for it only when the answer matters.
pub fn choose_arch_list<E>(
    explicit: Option<&str>,
    env: &Env,
    manifest: impl FnOnce() -> std::result::Result<Option<String>, E>,
) -> std::result::Result<(String, ArchSource), E> {
    let (value, source) = choose_written(explicit, env, manifest)?;
    // A variable's list is read in its tool's dialect, rewritten into archbuild's syntax.
    Ok((source.dialect().to_archbuild(&value), source))
}

/// [`choose_arch_list`]'s text as written in its source (its dialect's, not rewritten).
fn choose_written<E>(
    explicit: Option<&str>,
    env: &Env,
    manifest: impl FnOnce() -> std::result::Result<Option<String>, E>,
) -> std::result::Result<(String, ArchSource), E> {
    // An explicit or Cargo.toml list is taken as written: a blank one is an error (as in
    // `explain ""`), not a silent default. Only a blank variable means "unset", so a CI matrix
    // can leave ARCHBUILD_ARCHS empty for the default.
    let Some(Layered { value, origin }) = ARCHS.resolve_lazily(explicit, env, manifest)? else {
        return Ok(("all-major".to_owned(), ArchSource::Default));
    };
    Ok((value, ArchSource::from(origin)))
}

/// The arch list's layers, by the precedence above.
const ARCHS: Setting = Setting(&[
    Layer::Builder("the build's arch list (`.archs(...)` / `--archs`)"),
    Layer::Variable("ARCHBUILD_ARCHS"),
    Layer::Variable(COMPUTE_CAP_VAR),
    Layer::Manifest("archs"),
    Layer::Variable("TORCH_CUDA_ARCH_LIST"),
    Layer::Variable("CUDAARCHS"),
]);

impl From<Origin> for ArchSource {
    fn from(origin: Origin) -> Self {
        match origin.0 {
            Layer::Builder(_) => ArchSource::Explicit,
            Layer::Variable(var) => ArchSource::Var(var),
            Layer::Manifest(_) => ArchSource::Manifest,
        }
    }
}

/// Parses one list (from any source) and checks the toolkit can build every target. The GPUs
/// are asked for only when an entry is `native` (the arch crate's parser decides).
pub(crate) fn parse_checked(
    input: &str,
    source: ArchSource,
    toolkit: &Toolkits,
    devices: DeviceQuery<'_>,
) -> Result<ResolvedArchs> {
    let origin = source.to_string();
    source.dialect().check(input, &origin)?;
    // Read in its source's dialect (`CUDAARCHS`, `CUDA_COMPUTE_CAP`); `input` stays as written.
    let text = source.dialect().to_archbuild(input);
    let mut facts = BuildFacts {
        toolkit: toolkit.main(),
        devices,
    };
    let list = ArchList::resolve(&text, &origin, &mut facts)?;
    toolkit.check_targets(list.targets(), &origin)?;
    Ok(ResolvedArchs {
        list,
        source,
        input: input.to_owned(),
    })
}

/// The build's answers to the arch parser: the toolkit it builds with, and the device query.
struct BuildFacts<'a> {
    toolkit: &'a Toolkit,
    devices: DeviceQuery<'a>,
}

impl ListFacts for BuildFacts<'_> {
    type Error = crate::Error;

    fn devices(&mut self) -> Result<Vec<ComputeCapability>> {
        (self.devices)()
    }

    fn toolkit_archs(&mut self) -> Result<Option<Vec<Arch>>> {
        Ok(Some(self.toolkit.archs()))
    }
}

/// How a per-file list meets the requested one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArchListMode {
    /// Narrow when the requested list comes from the environment, else override.
    #[default]
    Auto,
    /// Always intersect with the requested list (unless nothing was requested).
    Narrow,
    /// The file's list replaces the requested one (archbuild before this mode existed).
    Override,
}

impl ArchListMode {
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(Self::Auto),
            "narrow" | "intersect" => Some(Self::Narrow),
            "override" | "replace" => Some(Self::Override),
            _ => None,
        }
    }

    /// The word that sets it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ArchListMode::Auto => "auto",
            ArchListMode::Narrow => "narrow",
            ArchListMode::Override => "override",
        }
    }

    /// Whether a per-file list narrows a requested list from `source`.
    pub(crate) fn narrows(self, source: &ArchSource) -> bool {
        match self {
            ArchListMode::Override => false,
            _ if *source == ArchSource::Default => false,
            ArchListMode::Narrow => true,
            ArchListMode::Auto => matches!(source, ArchSource::Var(_)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_default_is_announced_and_the_line_says_how_to_change_it() {
        let list: ArchList = "7.5 8.0 9.0 10.0 11.0 12.0+PTX".parse().unwrap();
        let default = ResolvedArchs {
            list: list.clone(),
            source: ArchSource::Default,
            input: "all-major".into(),
        };
        let line = default.announcement().unwrap();
        assert!(
            line.starts_with("building for `7.5 8.0 9.0 10.0 11.0 12.0+PTX` (all-major"),
            "{line}"
        );
        assert!(line.contains("ARCHBUILD_ARCHS=native"), "{line}");
        assert!(!line.contains('\n'), "one line");
        let chosen = ResolvedArchs {
            list,
            source: ArchSource::Var("ARCHBUILD_ARCHS"),
            input: String::new(),
        };
        assert_eq!(chosen.announcement(), None);
    }

    #[test]
    fn precedence_asks_the_manifest_only_when_it_matters() {
        let pick = |vars: &[(&str, &str)], explicit: Option<&str>, manifest: Option<&str>| {
            let env = Env::from_vars(vars.iter().copied());
            let asked = std::cell::Cell::new(false);
            let r = choose_arch_list(explicit, &env, || {
                asked.set(true);
                Ok::<_, ()>(manifest.map(str::to_owned))
            })
            .unwrap();
            (r.0, r.1, asked.get())
        };
        let all = [
            ("ARCHBUILD_ARCHS", "8.6"),
            ("TORCH_CUDA_ARCH_LIST", "7.5"),
            ("CUDAARCHS", "90"),
        ];
        assert_eq!(
            pick(&all, Some("8.9"), Some("8.0")),
            ("8.9".into(), ArchSource::Explicit, false)
        );
        // A blank explicit list is taken (and refused by the parser), not skipped.
        assert_eq!(
            pick(&all, Some("  "), Some("8.0")),
            ("  ".into(), ArchSource::Explicit, false)
        );
        assert_eq!(
            pick(&all[1..], None, Some("8.0")),
            ("8.0".into(), ArchSource::Manifest, true)
        );
        assert_eq!(
            pick(&all[1..], None, Some(" ")),
            (" ".into(), ArchSource::Manifest, true)
        );
        assert_eq!(
            pick(&all[2..], None, None),
            (
                "90-real 90-virtual".into(),
                ArchSource::Var("CUDAARCHS"),
                true
            )
        );
        assert_eq!(
            pick(&[], None, None),
            ("all-major".into(), ArchSource::Default, true)
        );
        // An error from the manifest lookup is the caller's, passed through.
        let env = Env::from_vars([("CUDAARCHS", "90")]);
        assert_eq!(
            choose_arch_list(None, &env, || Err("no cargo")),
            Err("no cargo")
        );
    }

    #[test]
    fn a_blank_explicit_or_manifest_list_is_taken_and_refused() {
        let env = Env::from_vars([("ARCHBUILD_ARCHS", "")]);
        let none = || Ok::<_, ()>(None);
        assert_eq!(
            choose_arch_list(Some(""), &env, none).unwrap(),
            (String::new(), ArchSource::Explicit)
        );
        assert_eq!(
            choose_arch_list(None, &env, || Ok::<_, ()>(Some(" ".to_owned()))).unwrap(),
            (" ".to_owned(), ArchSource::Manifest)
        );
        assert_eq!(
            choose_arch_list(None, &env, none).unwrap().1,
            ArchSource::Default,
            "a blank variable is unset"
        );
        let ctx = archbuild_arch::ResolveContext::new("--archs");
        let explain_err = archbuild_arch::ArchList::parse("", &ctx).unwrap_err();
        assert!(explain_err.to_string().contains("--archs"), "{explain_err}");
    }

    #[test]
    fn the_gpus_are_asked_only_for_a_native_entry() {
        let text = "Cuda compilation tools, release 13.5, V13.5.37\n--list-gpu-code\nsm_75\n\
                    sm_80\nsm_86\nsm_90\n--list-gpu-arch\ncompute_75\ncompute_80\ncompute_86\n\
                    compute_90\n";
        let tk = Toolkit::from_query_text(
            std::path::Path::new("/x/bin/nvcc"),
            text,
            crate::toolkit::nvcc::FoundBy::Path,
        )
        .unwrap();
        let asked = std::cell::Cell::new(0);
        let gpus = || {
            asked.set(asked.get() + 1);
            Ok(vec![ComputeCapability::new(8, 6)])
        };
        let toolkits = Toolkits::new(tk);
        let parse = |input: &str| parse_checked(input, ArchSource::Explicit, &toolkits, &gpus);
        // Words that merely contain the letters are not `native`: no device query for them.
        let err = parse("natives 8.6").unwrap_err();
        assert!(err.to_string().contains("unknown arch `natives`"), "{err}");
        assert_eq!(
            parse("Ampere 9.0").unwrap().list.to_string(),
            "8.0 8.6+PTX 9.0"
        );
        assert_eq!(asked.get(), 0, "no list above names `native`");
        let native = parse("7.5 Native").unwrap();
        assert_eq!(native.list.to_string(), "7.5 8.6+PTX");
        assert_eq!(asked.get(), 1);
        assert_eq!(
            parse("all-major").unwrap().list.to_string(),
            "7.5 8.0 9.0+PTX"
        );
        assert_eq!(asked.get(), 1);
    }
}
