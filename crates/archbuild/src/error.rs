//! The crate's one error type. Every message is a lowercase fragment that says what was wrong,
//! what is accepted, and how to fix it, so a build script failure reads as an instruction.

use std::path::{Path, PathBuf};

pub use crate::ended::Ended;

/// Everything that can go wrong finding or provisioning a toolkit, configuring, compiling and
/// packing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No nvcc anywhere archbuild looks.
    #[error(
        "no CUDA toolkit found; looked for nvcc in: {searched}. Fix: install the CUDA toolkit and \
         set CUDA_HOME (or NVCC) to it, or let archbuild download CUDA {pinned} from PyPI: \
         `cargo archbuild toolkit install`, or set ARCHBUILD_PROVISION=1 for builds"
    )]
    ToolkitNotFound {
        searched: String,
        pinned: &'static str,
    },

    /// A build asks for a toolkit version (`toolkit = "13.0"`) that is not on the machine and
    /// was not provisioned; `fix` says how to get one.
    #[error("no CUDA {wanted} toolkit found (asked for by {origin}); {found}. Fix: {fix}")]
    ToolkitVersionNotFound {
        wanted: String,
        origin: String,
        found: String,
        fix: String,
    },

    /// A build asks for a CUDA 13 (or later) release archbuild has no wheels for, and none is on
    /// the machine.
    #[error(
        "CUDA {wanted} (asked for by {origin}) is no release archbuild can provision, and {found}; \
         archbuild provisions {known} (a series such as `13.0` means its newest release). Fix: \
         ask for one of those, or install CUDA {wanted} yourself and set CUDA_HOME to it"
    )]
    ToolkitReleaseUnknown {
        wanted: String,
        origin: String,
        known: String,
        found: String,
    },

    /// A variable names a toolkit location that holds no nvcc.
    #[error(
        "{var}=`{}` does not lead to nvcc ({expected} does not exist): point {var} at {what}, \
         or unset it to let archbuild search PATH and /usr/local/cuda",
        value.display(),
        expected = expected.display()
    )]
    BadToolkitVar {
        var: &'static str,
        value: PathBuf,
        expected: PathBuf,
        what: &'static str,
    },

    /// nvcc could not be run or answered something unexpected.
    #[error(
        "cannot query the CUDA toolkit: `{} {args}` {problem}; check that this is a working nvcc \
         (a complete toolkit, executable bits set) or point NVCC/CUDA_HOME at another one",
        nvcc.display()
    )]
    ToolkitQuery {
        nvcc: PathBuf,
        args: String,
        problem: String,
    },

    /// Provisioning needs Python and there is none.
    #[error(
        "cannot provision the CUDA toolkit: {python} was not found{where_}. archbuild installs \
         {what} from PyPI wheels with `python3 -m pip`; install Python 3 with pip (e.g. \
         `apt-get install python3-pip`) or set ARCHBUILD_PYTHON to its path, or install the CUDA \
         toolkit yourself and set CUDA_HOME"
    )]
    PythonMissing {
        python: String,
        where_: String,
        what: String,
    },

    /// Python is there, pip is not.
    #[error(
        "cannot provision the CUDA toolkit: `{} -m pip` does not work ({detail}); install pip \
         (`{} -m ensurepip --upgrade` or `apt-get install python3-pip`), or install the CUDA \
         toolkit yourself and set CUDA_HOME",
        python.display(),
        python.display()
    )]
    PipMissing { python: PathBuf, detail: String },

    /// pip ran and failed.
    #[error("cannot provision the CUDA toolkit: pip failed ({status}); {hint}\npip said:\n{tail}")]
    PipFailed {
        status: Ended,
        hint: &'static str,
        tail: String,
    },

    /// The toolkit pip installed does not work (it is removed again).
    #[error(
        "the CUDA toolkit pip installed into {} does not work: {detail}; it was removed, nothing \
         was kept. Run the build again to retry, or install the CUDA toolkit yourself and set \
         CUDA_HOME",
        dir.display()
    )]
    ProvisionBroken { dir: PathBuf, detail: String },

    /// A header library is declared wrongly, or its files are not what it pins.
    #[error("header library `{name}`: {problem}; fix: {fix}")]
    HeaderLibrary {
        name: String,
        problem: String,
        fix: String,
    },

    /// A header library's wheel could not be fetched or unpacked.
    #[error(
        "cannot install header library {library} from PyPI: {problem}. \
         Fix: {fix}{}",
        if pip_said.is_empty() { String::new() } else { format!("\npip said:\n{pip_said}") }
    )]
    HeaderInstall {
        /// `nvidia-cutlass 4.2.0`.
        library: String,
        /// What went wrong, then `; tried …` (the pip command and where pip looked).
        problem: String,
        fix: String,
        pip_said: String,
    },

    /// An arch list from some configuration source is invalid.
    #[error("{0}")]
    Arch(#[from] archbuild_arch::Error),

    /// The toolkit cannot build a requested target.
    #[error(
        "CUDA {toolkit} cannot build `{target}` (from {origin}): {reach}. It builds {available}; \
         use one of those, drop `{target}` from the list, or use a toolkit that can"
    )]
    TargetUnsupported {
        target: String,
        origin: String,
        toolkit: String,
        reach: String,
        available: String,
    },

    /// A per-file or per-group list narrowed to the requested list keeps nothing
    /// (`prepare/narrowing.rs`); boxed, as it names much.
    #[error("{0}")]
    NarrowedToNothing(Box<EmptyNarrowing>),

    /// A member of the fleet can load nothing, or an image is loaded by no member
    /// (`prepare/fleet.rs`).
    #[error(
        "the fleet `{fleet}` ({origin}) cannot use what this build makes with CUDA {toolkit}: \
         {}{}",
        render_fleet_issues(issues),
        fleet_fix(issues)
    )]
    FleetCannotLoad {
        fleet: String,
        origin: String,
        toolkit: String,
        issues: Vec<FleetIssue>,
    },

    /// A configuration value that is not understood.
    #[error("invalid {what} in {origin}: `{value}`; {hint}")]
    Config {
        what: &'static str,
        origin: String,
        value: String,
        hint: String,
    },

    /// `[package.metadata.archbuild]` could not be read.
    #[error("cannot read [package.metadata.archbuild] from {}: {detail}", path.display())]
    Manifest { path: PathBuf, detail: String },

    /// A kernel source file is missing.
    #[error(
        "kernel source `{}` {problem}{context}; fix {fix} (relative paths are resolved against \
         the package directory)",
        path.display()
    )]
    SourceMissing {
        path: PathBuf,
        /// `does not exist`, or `is a directory, not a source file`.
        problem: String,
        context: String,
        /// Where the path was given: `the path passed to `.file(...)``, or Cargo.toml's list.
        fix: String,
    },

    /// Nothing to build.
    #[error("no kernel sources given for `{0}`: add some with `.file(\"kernels/name.cu\")`")]
    NoSources(String),

    /// `OUT_DIR` unknown outside a build script.
    #[error(
        "no output directory: OUT_DIR is not set (not running inside a build script); call \
         `.out_dir(...)` to choose one"
    )]
    NoOutDir,

    /// One or more compiles failed; the message holds the compiler's diagnostics, once each.
    #[error("{0}")]
    Compile(String),

    /// nvcc could not run a tool of its own toolkit (a removed `cicc`, a broken install).
    #[error(
        "the CUDA toolkit at {} is incomplete or broken: {detail}; reinstall it or point \
         CUDA_HOME (or NVCC) at a complete one; a toolkit archbuild provisioned is provisioned \
         afresh when its directory is deleted",
        root.display()
    )]
    ToolkitBroken { root: PathBuf, detail: String },

    /// The disk archbuild writes to (cache, temporary files or outputs) is full.
    #[error(
        "the disk holding {} is full: {detail}\nfree space on it, or move what archbuild writes \
         there elsewhere (ARCHBUILD_CACHE_DIR or ARCHBUILD_HOME for the cache, TMPDIR for \
         temporary files, the output path or OUT_DIR for outputs); `cargo archbuild cache \
         clean` empties the build cache",
        dir.display()
    )]
    DiskFull { dir: PathBuf, detail: String },

    /// A compiler process could not be started.
    #[error("cannot run `{}`: {source}; check the toolkit installation", program.display())]
    Spawn {
        program: PathBuf,
        source: std::io::Error,
    },

    /// Packing the fat binary failed.
    #[error("cannot pack the fat binary for `{module}`: {source}")]
    Pack {
        module: String,
        source: Box<archbuild_fatbin::Error>,
    },

    /// Cached outputs disappeared or failed verification twice in a row.
    #[error(
        "the build cache in {} loses entries while building (vanished or corrupt twice in a row); \
         check the disk and anything cleaning that directory, or build without the cache \
         (ARCHBUILD_CACHE=off)",
        dir.display()
    )]
    CacheUnstable { dir: PathBuf },

    /// The build was interrupted (SIGINT/SIGTERM); children were killed.
    /// A kernel whose images of one fat binary lay out its parameters differently: a launch
    /// that is right for one GPU is undefined behaviour on another.
    #[error(
        "kernel `{kernel}` of `{module}` takes different parameters in different images: \
         {detail}; a launch passes one argument list to every GPU, so it would be wrong on some \
         of them; fix: give the kernel the same parameters for every arch (an \
         `#if __CUDA_ARCH__` or a -D that changes a parameter's type belongs inside its body, or \
         in a kernel of another name per arch)"
    )]
    KernelParamsDiffer {
        module: String,
        kernel: String,
        detail: String,
    },

    /// A kernel whose declared C signature (its launch stub) differs between the images of one
    /// fat binary, or from an image's `.entry`: the typed launcher would pass the wrong
    /// arguments to some GPU.
    #[error(
        "kernel `{kernel}` of `{module}` is not declared alike in every image: {detail}; its \
         typed launcher passes the declared arguments to every GPU, so a launch would be wrong on \
         some of them; fix: declare the kernel with the same parameter types for every arch (a \
         type chosen by `#if __CUDA_ARCH__` or by a -D belongs inside the body, or in a kernel \
         of another name per arch)"
    )]
    KernelDeclarationDiffers {
        module: String,
        kernel: String,
        detail: String,
    },

    /// A packed fat binary, read back, does not hold what the build asked for.
    #[error(
        "the fat binary packed for `{module}` holds {written} but the build asked for \
         {requested}; nothing was written. This is a bug in archbuild: please report it with \
         the build's `-v` output"
    )]
    OutputMismatch {
        module: String,
        written: String,
        requested: String,
    },

    /// `ARCHBUILD_VERIFY` recompiled a cache hit and got other bytes: the key misses an input.
    #[error(
        "cache verification failed: {job} of `{module}` served from the cache differs from a \
         fresh compile ({detail}); its key holds: {key_holds}. The cached entry was removed. \
         This is a hole in archbuild's cache key: please report it with this message; meanwhile \
         build with ARCHBUILD_CACHE=off or keep ARCHBUILD_VERIFY=all"
    )]
    VerifyMismatch {
        module: String,
        job: String,
        detail: String,
        key_holds: String,
    },

    #[error("build interrupted; compiler processes were stopped and nothing partial was cached")]
    Interrupted,

    /// A variant group leaves one target of its module with no kernel.
    #[error("variant group `{group}` has no kernel for {target} in module `{module}`: {detail}")]
    VariantMissing {
        group: String,
        module: String,
        target: String,
        /// Which variants there are, where each is, and the fix.
        detail: String,
    },

    /// No module holds any kernel of a variant group.
    #[error(
        "variant group `{group}` names kernels that no module has ({kernels}); the modules have: \
         {known}; fix: use the kernel names as the driver sees them (`extern \"C\"` names, or \
         the mangled C++ names the generated module lists)"
    )]
    VariantUnknown {
        group: String,
        kernels: String,
        known: String,
    },

    /// No build record beside a fat binary.
    #[error(
        "no build record `{}`: archbuild writes one beside each fat binary it builds \
         (`<file>.archbuild.json`), and a fat binary without one is never taken as prebuilt; \
         keep the record beside its fat binary, or rebuild the fat binary to write it again",
        path.display()
    )]
    RecordMissing { path: PathBuf },

    /// A build record that exists but cannot be read.
    #[error(
        "cannot read the build record `{}`: {source}; make it readable by this user, or delete \
         it and rebuild the fat binary to write it again",
        path.display()
    )]
    RecordUnreadable {
        path: PathBuf,
        source: std::io::Error,
    },

    /// A file where a build record belongs that is not one.
    #[error(
        "`{}` is not an archbuild build record ({detail}); a record is the JSON archbuild writes \
         beside each fat binary (`<file>.archbuild.json`): rebuild the fat binary to write it \
         again, or delete the file",
        path.display()
    )]
    RecordInvalid { path: PathBuf, detail: String },

    /// A build record of a format this archbuild does not read.
    #[error(
        "the build record `{}` has format {found}, and this archbuild reads format {accepted} \
         only; rebuild the fat binary with this archbuild to write a record it reads",
        path.display()
    )]
    RecordFormat {
        path: PathBuf,
        found: u32,
        accepted: u32,
    },

    /// A fat binary that is not the one its build record describes.
    #[error(
        "`{}` does not match its record `{}`: its BLAKE3 hash is not the one the record holds \
         (it was replaced or damaged after it was built, or the record belongs to another \
         build); rebuild it to write the fat binary and its record together",
        fatbin.display(),
        record.display()
    )]
    RecordMismatch { fatbin: PathBuf, record: PathBuf },

    /// A package's shipped fat binaries do not cover the build, and no toolkit compiles the rest.
    #[error(
        "the package's prebuilt fat binaries cannot be used and no CUDA toolkit was found to \
         compile instead: {reasons}. Fix: restore the package's files and build for the arch \
         list it ships (docs/publishing.md), or install a toolkit to compile: `cargo archbuild \
         toolkit install`, ARCHBUILD_PROVISION=1 for builds, or CUDA_HOME set to an installed one"
    )]
    PackagedRefused { reasons: String },

    /// A package's shipped fat binaries do not match the build, and compiling them instead
    /// failed: the reason they were refused first, then what compiling ran into.
    #[error(
        "the package's prebuilt fat binaries cannot be used: {reasons}. archbuild then tried to \
         compile instead, which failed: {then}"
    )]
    PackagedRefusedThen { reasons: String, then: Box<Error> },

    /// A package's shipped fat binaries are not what it builds now (`package --check`).
    #[error(
        "the package's prebuilt fat binaries do not match what it builds: {reasons}. Fix: run \
         `cargo archbuild package` and ship the directory it writes"
    )]
    ShippedStale { reasons: String },

    /// A package's shipped fat binary differs from what its sources make (`ARCHBUILD_VERIFY`).
    #[error(
        "{} (module `{module}`) is not what its sources make: compiled again \
         (ARCHBUILD_VERIFY) the bytes differ. The package ships a fat binary its sources and \
         settings do not produce; report it to the package's author, and build without it by \
         removing the file or with Build::packaged(false)",
        fatbin.display()
    )]
    PackagedDiffers { module: String, fatbin: PathBuf },

    /// Something would need the network while Cargo is offline.
    #[error(
        "{what} needs the network, and {setting} is set. Fix: run it once online (`cargo \
         archbuild toolkit install` provisions the toolkit, `cargo archbuild build` installs \
         header libraries), point CUDA_HOME at an installed toolkit, or unset {setting}"
    )]
    Offline { what: String, setting: &'static str },

    /// Merging build records was asked with none to merge.
    #[error(
        "no build records to merge: a merged record is made from the records of one or more \
         shards; pass the shards' fat binaries with their `.archbuild.json` beside them"
    )]
    RecordsNone,

    /// Build records of shards built with different settings.
    #[error(
        "the shards were built with different flags, include dirs, defines or compression \
         (`{first}` and `{other}`), and shards merge only when built alike; build every shard \
         with the same settings"
    )]
    RecordSettingsDiffer { first: String, other: String },

    /// Build records of shards that read different contents of one input.
    #[error(
        "the shards saw different contents of `{input}`, and shards merge only when built from \
         the same sources; build every shard from the same commit"
    )]
    RecordInputsDiffer {
        /// The input, as a path relative to its root.
        input: String,
    },

    /// A file operation failed.
    #[error("cannot {op} {}: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What kind of failure an [`Error`] is: every variant has exactly one, decided here (an
/// exhaustive match), so a caller that maps failures to exit codes or categories (the CLI)
/// matches on this closed set instead of on the open error enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// No usable CUDA toolkit, or it cannot build what was asked.
    Toolkit,
    /// A configuration mistake: an arch list, a flag, a variable, `[package.metadata.archbuild]`,
    /// variant groups.
    Config,
    /// An input file is missing.
    Input,
    /// A compiler rejected a source, or its output could not be packed.
    Compile,
    /// An output could not be written (disk, permissions, a cache that loses entries).
    Output,
    /// The build was interrupted.
    Interrupted,
    /// archbuild wrote or served what it should not have: a bug to report.
    Internal,
}

/// A per-file list that narrowing leaves empty: the file, both lists and where they were set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{file}` is built only for `{own}` ({own_origin}), and none of that runs on a GPU the \
     requested list `{requested}` ({requested_origin}) names, so narrowing it ({mode}) leaves \
     nothing to build; fix: add a GPU it is for ({gpus}) to {requested_origin}, or build it for \
     its own list with ARCHBUILD_ARCH_LIST_MODE=override (docs/arch-lists.md, \"Narrowing a \
     per-file list\")"
)]
pub struct EmptyNarrowing {
    pub file: String,
    pub own: String,
    pub own_origin: String,
    pub requested: String,
    pub requested_origin: String,
    pub gpus: String,
    /// The arch-list mode and where it was set.
    pub mode: String,
}

/// One problem of a fleet with one list the build makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetIssue {
    /// Which list: "the build's list `…`" or "`kernels/h.cu`'s list `…`".
    pub list: String,
    pub problem: archbuild_arch::FleetProblem,
}

fn render_fleet_issues(issues: &[FleetIssue]) -> String {
    let each: Vec<String> = issues
        .iter()
        .map(|i| format!("with {}, {}", i.list, i.problem))
        .collect();
    each.join(". ")
}

/// How to get a toolkit whose output old drivers load, when a toolkit's floor is the problem.
fn fleet_fix(issues: &[FleetIssue]) -> String {
    use archbuild_arch::{FleetProblem, Requirement};
    let blocked_by = |wanted: fn(&Requirement) -> bool| {
        issues.iter().any(|i| match &i.problem {
            FleetProblem::DriverTooOld { blocked, .. } => {
                blocked.iter().any(|(_, f)| wanted(&f.requirement))
            }
            FleetProblem::ImageLoadedByNone { blocked, .. } => {
                blocked.iter().any(|(_, f)| wanted(&f.requirement))
            }
            FleetProblem::NotCovered { .. } => false,
        })
    };
    let ptx = if blocked_by(|r| matches!(r, Requirement::PtxIsa { .. })) {
        ". For PTX too new for a driver, make the PTX with the toolkit the fleet's oldest driver \
         can JIT: `ptx-toolkit = \"fleet\"` in [package.metadata.archbuild] (or \
         ARCHBUILD_PTX_TOOLKIT_VERSION=fleet, or a version such as `13.0`)"
    } else {
        ""
    };
    if blocked_by(|r| !matches!(r, Requirement::Zstd)) {
        format!(
            "{ptx}. A CUDA 12 toolkit's cubins load on drivers from CUDA 12.0 (R525): install \
             one (NVIDIA's installer or your distribution's `cuda-toolkit-12-*`; PyPI's CUDA 12 \
             wheels have no nvcc) and point CUDA_HOME or NVCC at it, or update the drivers, or \
             take the member out of the fleet (docs/build.md, \"Fleets\")"
        )
    } else {
        " (docs/build.md, \"Fleets\")".to_owned()
    }
}

impl ErrorKind {
    /// Every kind.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::Toolkit,
        ErrorKind::Config,
        ErrorKind::Input,
        ErrorKind::Compile,
        ErrorKind::Output,
        ErrorKind::Interrupted,
        ErrorKind::Internal,
    ];
}

impl Error {
    /// The kind of this failure.
    pub fn kind(&self) -> ErrorKind {
        match self {
            // What stopped the build is what compiling ran into.
            Error::PackagedRefusedThen { then, .. } => then.kind(),
            Error::ToolkitNotFound { .. }
            | Error::ToolkitVersionNotFound { .. }
            | Error::ToolkitReleaseUnknown { .. }
            | Error::BadToolkitVar { .. }
            | Error::ToolkitQuery { .. }
            | Error::PythonMissing { .. }
            | Error::PipMissing { .. }
            | Error::PipFailed { .. }
            | Error::ProvisionBroken { .. }
            | Error::HeaderInstall { .. }
            | Error::PackagedRefused { .. }
            | Error::Offline { .. }
            | Error::TargetUnsupported { .. }
            | Error::ToolkitBroken { .. }
            | Error::Spawn { .. } => ErrorKind::Toolkit,
            // A wrong type in [package.metadata.archbuild] is a configuration error like a
            // wrong value there, and a variant group that names what no module has is one too.
            Error::Arch(_)
            | Error::NarrowedToNothing(_)
            | Error::FleetCannotLoad { .. }
            | Error::Config { .. }
            | Error::Manifest { .. }
            | Error::NoSources(_)
            | Error::NoOutDir
            | Error::VariantMissing { .. }
            | Error::VariantUnknown { .. }
            | Error::HeaderLibrary { .. } => ErrorKind::Config,
            // A build record is an input of `merge`, `inspect` and `doctor`, and what a
            // prebuilt fat binary is checked against.
            Error::SourceMissing { .. }
            | Error::RecordMissing { .. }
            | Error::RecordUnreadable { .. }
            | Error::RecordInvalid { .. }
            | Error::RecordFormat { .. }
            | Error::RecordMismatch { .. }
            | Error::RecordsNone
            | Error::RecordSettingsDiffer { .. }
            | Error::RecordInputsDiffer { .. }
            | Error::PackagedDiffers { .. }
            | Error::ShippedStale { .. } => ErrorKind::Input,
            Error::Compile(_) | Error::Pack { .. } => ErrorKind::Compile,
            Error::DiskFull { .. } | Error::CacheUnstable { .. } | Error::Io { .. } => {
                ErrorKind::Output
            }
            Error::Interrupted => ErrorKind::Interrupted,
            Error::KernelParamsDiffer { .. } | Error::KernelDeclarationDiffers { .. } => {
                ErrorKind::Compile
            }
            Error::OutputMismatch { .. } | Error::VerifyMismatch { .. } => ErrorKind::Internal,
        }
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        if source.kind() == std::io::ErrorKind::StorageFull {
            return Error::DiskFull {
                detail: format!("cannot {op} {}: {source}", path.display()),
                dir: path.parent().map_or(path.clone(), Path::to_path_buf),
            };
        }
        Error::Io { op, path, source }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
