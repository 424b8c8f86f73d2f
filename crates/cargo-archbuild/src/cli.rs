//! The command line, as clap derive types: every subcommand and option of `cargo archbuild`.
//!
//! Cargo runs an external subcommand as `cargo-archbuild archbuild ARGS…`; [`Cli::parse_from_env`]
//! drops that injected word so the binary also works when run directly (`cargo-archbuild inspect
//! x.fatbin`), the way cargo-nextest and cargo-llvm-cov accept both spellings.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Build CUDA kernels for every GPU of a fleet, and check which image each GPU will load.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-archbuild",
    bin_name = "cargo archbuild",
    version,
    about,
    propagate_version = true,
    after_help = crate::error::exit::help()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// How reports are printed: `human` (cargo-style text) or `json` (JSON Lines on stdout, one
    /// message per line, as cargo's; see docs/cli.md)
    #[arg(long, global = true, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,

    /// When to use colours [default: CARGO_TERM_COLOR, else auto]; `auto` honours NO_COLOR,
    /// CLICOLOR_FORCE and whether output is a terminal
    #[arg(long, global = true, value_enum)]
    pub color: Option<ColorWhen>,

    /// Print less: no status lines and no progress bar, only results, warnings and errors
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print more: every compiler command as it runs, and what the compiler printed
    #[arg(long, short, global = true)]
    pub verbose: bool,
}

impl Cli {
    /// Parses `std::env::args_os()`, dropping the `archbuild` word cargo inserts.
    pub fn parse_from_env() -> Result<Self, clap::Error> {
        Self::try_parse_from(strip_cargo_word(std::env::args_os().collect()))
    }
}

/// Removes argv[1] when it is `archbuild` (how cargo invokes `cargo-archbuild`).
pub fn strip_cargo_word(mut args: Vec<OsString>) -> Vec<OsString> {
    if args.get(1).is_some_and(|a| a == "archbuild") {
        args.remove(1);
    }
    args
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MessageFormat {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build the kernels of every workspace package that has [package.metadata.archbuild]
    Build(BuildArgs),
    /// Compile CUDA sources into one fat binary, outside cargo (scripts, CI shards)
    Compile(CompileArgs),
    /// List the images in a fatbin, cubin, PTX file, object, executable or shared library
    Inspect(InspectArgs),
    /// Show the driver, every GPU and the toolkit; with FILE, which image each GPU will load
    Doctor(DoctorArgs),
    /// Show how an arch list expands, its nvcc flags and the GPUs each target runs on
    Explain(ExplainArgs),
    /// Print a GitHub Actions matrix (JSON) that splits an arch list into shards
    Matrix(MatrixArgs),
    /// Build each package's fat binaries into its `prebuilt` directory, for `cargo package`
    Package(PackageArgs),
    /// Combine fat binaries (e.g. CI shard outputs) into one, identical to a one-shot build
    Merge(MergeArgs),
    /// Find, list and provision CUDA toolkits
    #[command(subcommand)]
    Toolkit(ToolkitCommand),
    /// Show or clear the build cache and the JIT cache
    #[command(subcommand)]
    Cache(CacheCommand),
    /// Start a kernel crate: Cargo.toml, build.rs, a kernel, the loader wiring and a main
    New(NewArgs),
    /// Write the GitHub Actions workflow: shard the arch list, build, merge, check, release
    Ci(CiArgs),
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// Directory to create (its name is the package name unless --name says otherwise)
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    /// Package name (default: the directory's name)
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Arch list to write into [package.metadata.archbuild] (default: none, the portable default)
    #[arg(long, value_name = "LIST")]
    pub archs: Option<String>,

    /// Depend on the archbuild crates of this checkout (default: the checkout this CLI was
    /// installed from, if it is still there, else the published crates)
    #[arg(long, value_name = "DIR", conflicts_with_all = ["archbuild_git", "archbuild_version"])]
    pub archbuild_path: Option<PathBuf>,

    /// Depend on the archbuild crates of this git repository
    #[arg(long, value_name = "URL", conflicts_with = "archbuild_version")]
    pub archbuild_git: Option<String>,

    /// The commit (or tag) of --archbuild-git to pin
    #[arg(long, value_name = "REV", requires = "archbuild_git")]
    pub archbuild_rev: Option<String>,

    /// Depend on the published archbuild crates with this version requirement, e.g. 0.1
    #[arg(long, value_name = "REQ")]
    pub archbuild_version: Option<String>,
}

#[derive(Debug, Args)]
pub struct CiArgs {
    /// The package whose [package.metadata.archbuild] lists the kernels (default: the only
    /// workspace member that lists kernels)
    #[arg(long, value_name = "NAME")]
    pub kernel_crate: Option<String>,

    /// Arch list for ARCHBUILD_ARCHS (default: empty, which means the package's `archs`, else
    /// the toolkit's all-major list)
    #[arg(long, value_name = "LIST")]
    pub archs: Option<String>,

    /// GPUs the merged fat binaries must run on, as ARCHBUILD_SIMULATED_GPUS takes them
    /// [default: 7.5,8.6,8.9,9.0@13.0]
    #[arg(long, value_name = "GPUS")]
    pub fleet: Option<String>,

    /// Number of parallel build jobs
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub shards: usize,

    /// What the workflow passes to `cargo install --locked` to get this CLI [default: from where
    /// the kernel crate gets archbuild: its git repository and commit, its version, or its
    /// directory in this repository], e.g. "--git URL --rev COMMIT cargo-archbuild"
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub install: Option<String>,

    /// Where to write it (default: .github/workflows/archbuild.yml in the workspace root;
    /// `-` prints it)
    #[arg(long, short, value_name = "PATH", allow_hyphen_values = true)]
    pub output: Option<PathBuf>,

    /// Replace an existing workflow file
    #[arg(long)]
    pub force: bool,

    /// Path to Cargo.toml
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

/// Options shared by the commands that compile.
#[derive(Debug, Args, Clone, Default)]
pub struct CompileOptions {
    /// Arch list, e.g. "7.5 8.6 8.9+PTX", "sm_90a", "Ampere", "native", "all-major"
    #[arg(long, value_name = "LIST")]
    pub archs: Option<String>,

    /// This build is a CI shard of LIST (`cargo archbuild matrix`'s `whole`): its targets
    /// only, with LIST's __CUDA_ARCH_LIST__, so merged shards equal one build of LIST
    /// (overrides ARCHBUILD_SHARD_OF)
    #[arg(long, value_name = "LIST")]
    pub shard_of: Option<String>,

    /// Number of compile jobs to run at once (default: the number of CPUs)
    #[arg(long, short, value_name = "N")]
    pub jobs: Option<usize>,

    /// Image compression in the fat binary: none, default (as nvcc), speed (LZ4), balance (zstd), size
    #[arg(long, value_name = "MODE")]
    pub compression: Option<String>,

    /// Share results through a remote cache: redis://host:port/db, webdav://host/path,
    /// s3://bucket/prefix, gs://bucket/prefix, azblob://container/prefix, gha, file:///dir
    /// (overrides ARCHBUILD_REMOTE_CACHE; `off` turns it off)
    #[arg(long, value_name = "URL")]
    pub remote_cache: Option<String>,

    /// Whether this build may write to the remote cache: read-write or read-only
    #[arg(long, value_name = "MODE", value_parser = parse_remote_mode)]
    pub remote_cache_mode: Option<archbuild::config::RemoteMode>,

    /// Compile this share of the cache's hits again and compare the bytes: all, off, 0.01, 1%
    /// (overrides ARCHBUILD_VERIFY)
    #[arg(long, value_name = "SHARE")]
    pub verify: Option<String>,

    /// Compile each file of a module as relocatable device code and device-link it per target
    /// (nvcc's -rdc=true and -dlink; overrides ARCHBUILD_RELOCATABLE_DEVICE_CODE and
    /// Cargo.toml's relocatable-device-code)
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub relocatable_device_code: Option<bool>,

    /// Touch no network: no toolkit provisioning and no header-library install from PyPI (as
    /// CARGO_NET_OFFLINE=true)
    #[arg(long)]
    pub offline: bool,
}

fn parse_remote_mode(s: &str) -> Result<archbuild::config::RemoteMode, String> {
    archbuild::config::RemoteMode::parse(s, "--remote-cache-mode").map_err(|e| e.to_string())
}

impl CompileOptions {
    /// Applies the options `build` and `compile` share to a kernel build.
    pub fn apply(&self, b: &mut archbuild::Build) {
        if let Some(list) = &self.archs {
            b.archs(list);
        }
        if let Some(list) = &self.shard_of {
            b.shard_of(list);
        }
        if let Some(j) = self.jobs {
            b.jobs(j);
        }
        if let Some(c) = &self.compression {
            b.compression(c);
        }
        if let Some(u) = &self.remote_cache {
            b.remote_cache(u);
        }
        if let Some(m) = self.remote_cache_mode {
            b.remote_cache_mode(m);
        }
        if let Some(v) = &self.verify {
            b.verify(v);
        }
        if let Some(on) = self.relocatable_device_code {
            b.relocatable_device_code(on);
        }
    }
}

/// Cargo's flags: what `cargo build` would be told, passed to `cargo metadata` so the command
/// reads the same workspace state (lock file, network, features, target) and writes where
/// Cargo would.
#[derive(Debug, Args, Clone, Default)]
pub struct CargoFlags {
    /// Assert that Cargo.lock will remain unchanged, as with `cargo build --locked`
    #[arg(long)]
    pub locked: bool,

    /// --locked and --offline together, as with `cargo build --frozen`
    #[arg(long)]
    pub frozen: bool,

    /// Directory for all generated artifacts (overrides CARGO_TARGET_DIR)
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,

    /// Space or comma separated list of features to activate
    #[arg(long, short = 'F', value_name = "FEATURES")]
    pub features: Vec<String>,

    /// Activate all available features
    #[arg(long)]
    pub all_features: bool,

    /// Do not activate the `default` feature
    #[arg(long)]
    pub no_default_features: bool,

    /// Build for the target triple: its host compiler (CXX_<triple>) and
    /// <target-dir>/<triple>/<profile>/archbuild, as Cargo lays it out
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
}

impl CargoFlags {
    /// The arguments `cargo metadata` takes for these flags (and `--offline`), resolving for
    /// one platform as `cargo build` does: the `--target` given, else `host` (the host's triple,
    /// asked for only then). Without `--filter-platform`, `cargo metadata` needs every
    /// platform's packages, so `--offline` fails on a Windows-only dependency that a build never
    /// downloaded.
    pub fn metadata_args(
        &self,
        offline: bool,
        host: impl FnOnce() -> Option<String>,
    ) -> Vec<String> {
        let mut a = Vec::new();
        let switches = [
            (self.locked, "--locked"),
            (self.frozen, "--frozen"),
            (offline, "--offline"),
            (self.all_features, "--all-features"),
            (self.no_default_features, "--no-default-features"),
        ];
        a.extend(switches.iter().filter(|s| s.0).map(|s| s.1.to_owned()));
        if !self.features.is_empty() {
            a.push("--features".into());
            a.push(self.features.join(","));
        }
        if let Some(platform) = self.target.clone().or_else(host) {
            a.push("--filter-platform".into());
            a.push(platform);
        }
        a
    }
}

#[derive(Debug, Args, Clone)]
pub struct BuildArgs {
    #[command(flatten)]
    pub compile: CompileOptions,

    #[command(flatten)]
    pub cargo: CargoFlags,

    /// Build only this package (repeatable), as with `cargo build -p`
    #[arg(long = "package", short = 'p', value_name = "SPEC")]
    pub packages: Vec<String>,

    /// Build every workspace package that lists kernels (the default without -p)
    #[arg(long, conflicts_with = "packages")]
    pub workspace: bool,

    /// Build with the release profile, as with `cargo build --release`
    #[arg(long, short = 'r', conflicts_with = "profile")]
    pub release: bool,

    /// Build with this cargo profile
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,

    /// Path to Cargo.toml
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// Where to write the fat binaries (default: <target-dir>/<profile>/archbuild/<package>)
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Fail instead of downloading the pinned CUDA toolkit when none is found
    #[arg(long)]
    pub no_provision: bool,
}

#[derive(Debug, Args)]
pub struct PackageArgs {
    #[command(flatten)]
    pub compile: CompileOptions,

    #[command(flatten)]
    pub cargo: CargoFlags,

    /// Package only this package (repeatable); default: every workspace package whose
    /// [package.metadata.archbuild] names a `prebuilt` directory
    #[arg(long = "package", short = 'p', value_name = "SPEC")]
    pub packages: Vec<String>,

    /// Path to Cargo.toml
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// Fail instead of downloading the pinned CUDA toolkit when none is found
    #[arg(long)]
    pub no_provision: bool,

    /// Check that the `prebuilt` directory matches the sources, settings and targets, as a
    /// dependent's build would, compiling nothing and writing nothing into the package (for CI)
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub struct CompileArgs {
    /// CUDA source files (.cu)
    #[arg(required = true, value_name = "FILES")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub compile: CompileOptions,

    /// The fat binary to write
    #[arg(long, short, value_name = "OUT.fatbin")]
    pub output: PathBuf,

    /// Add an include directory (repeatable)
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,

    /// Define a macro, NAME or NAME=VALUE (repeatable)
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,

    /// Extra flag passed to nvcc (repeatable), e.g. --nvcc-flag=-lineinfo
    #[arg(long = "nvcc-flag", value_name = "FLAG", allow_hyphen_values = true)]
    pub nvcc_flags: Vec<String>,

    /// A kernel variant group, most preferred first (repeatable), e.g.
    /// --variants gemm=gemm_wgmma,gemm_mma,gemm_simt: checked on every target, recorded beside
    /// OUT for the loader, `inspect` and `doctor`
    #[arg(long = "variants", value_name = "GROUP=KERNEL,...")]
    pub variants: Vec<String>,

    /// Fail instead of downloading the pinned CUDA toolkit when none is found
    #[arg(long)]
    pub no_provision: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InspectFormat {
    /// A table of images and a kernel-coverage check
    Human,
    /// Lines compatible with `cuobjdump --list-elf --list-ptx`
    Cuobjdump,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A fatbin, cubin, PTX file, object file, executable or shared library
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Output layout for human-readable output
    #[arg(long, value_enum, default_value_t = InspectFormat::Human)]
    pub format: InspectFormat,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// A fat binary (or a file embedding one) to check against every visible GPU
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Image choice policy: prefer-cubin (default, the driver's own order), prefer-ptx,
    /// cubin-only, force-ptx (default: ARCHBUILD_LOAD_POLICY, else prefer-cubin)
    #[arg(long, value_name = "POLICY")]
    pub policy: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The arch list to explain, e.g. "7.5 8.6 8.9+PTX" or "Ampere;Hopper" (default: the list a
    /// build here would use: ARCHBUILD_ARCHS, Cargo.toml, TORCH_CUDA_ARCH_LIST, CUDAARCHS, then
    /// all-major, read in its source's dialect)
    #[arg(value_name = "LIST")]
    pub list: Option<String>,

    /// Read LIST as this tool would: archbuild (a bare 86 is a cubin), cmake (CUDAARCHS: a bare
    /// 86 is cubin and PTX) or pytorch (TORCH_CUDA_ARCH_LIST)
    #[arg(long, value_name = "DIALECT", requires = "list")]
    pub dialect: Option<DialectArg>,
}

/// `--dialect` values.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum DialectArg {
    Archbuild,
    Cmake,
    Pytorch,
}

impl From<DialectArg> for archbuild::config::Dialect {
    fn from(d: DialectArg) -> Self {
        match d {
            DialectArg::Archbuild => archbuild::config::Dialect::Archbuild,
            DialectArg::Cmake => archbuild::config::Dialect::CMake,
            DialectArg::Pytorch => archbuild::config::Dialect::PyTorch,
        }
    }
}

#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Arch list to split (default: resolved as a build would: ARCHBUILD_ARCHS, Cargo.toml,
    /// TORCH_CUDA_ARCH_LIST, CUDAARCHS, then all-major)
    #[arg(long, value_name = "LIST")]
    pub archs: Option<String>,

    /// Number of shards (CI jobs)
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub shards: usize,

    /// Take `archs` from this package's [package.metadata.archbuild]
    #[arg(long = "package", short = 'p', value_name = "SPEC")]
    pub package: Option<String>,

    /// Path to Cargo.toml
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Fat binaries to combine (at least two)
    #[arg(required = true, num_args = 1.., value_name = "FILES")]
    pub files: Vec<PathBuf>,

    /// The merged fat binary to write
    #[arg(long, short, value_name = "OUT")]
    pub output: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum ToolkitCommand {
    /// Provision a CUDA 13 toolkit from PyPI wheels into archbuild's home, beside any other
    Install {
        /// The CUDA version: `13.0` (its newest release), `13.0.88` (exactly); default: the
        /// newest release archbuild knows
        #[arg(value_name = "VERSION", id = "toolkit_version")]
        release: Option<String>,
    },
    /// List every CUDA toolkit archbuild can find, in search order
    List,
    /// Print the toolkit a build would use, and why
    Which,
}

#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// Show where the build and JIT caches are and how much they hold
    Stats,
    /// Delete cache entries
    Clean(CacheCleanArgs),
    /// Apply the size caps now: remove least recently used entries until each cache fits
    Trim(CacheCleanArgs),
    /// Build as `build` does, compiling every cache hit again (or a share of them) and
    /// comparing the bytes: a hit that differs fails, naming the job and what its key holds
    Verify(Box<CacheVerifyArgs>),
}

#[derive(Debug, Args)]
pub struct CacheVerifyArgs {
    /// The share of hits to compile again: all, 0.01, 1%
    #[arg(long, value_name = "SHARE", default_value = "all")]
    pub share: String,

    #[command(flatten)]
    pub build: BuildArgs,
}

#[derive(Debug, Args)]
pub struct CacheCleanArgs {
    /// Only the build cache
    #[arg(long, conflicts_with = "jit")]
    pub build: bool,
    /// Only the JIT cache
    #[arg(long)]
    pub jit: bool,
}
