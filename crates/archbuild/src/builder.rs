//! The build.rs API: a cc-rs-style builder. Setters take `&mut self` and return it, `compile`
//! prints the error and exits the build script with status 1 (as cc-rs does: Cargo shows the
//! message, with no panic and no backtrace hint), `try_compile` returns it.
//!
//! ```no_run
//! // build.rs
//! let report = archbuild::Build::new()
//!     .file("kernels/add.cu")
//!     .file("kernels/scale.cu")
//!     .include("kernels/include")
//!     .flag("-O3")
//!     .compile("kernels");
//! // src/lib.rs: include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
//! let _ = report;
//! ```

use std::path::Path;
use std::sync::Arc;

use archbuild_arch::ComputeCapability;

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::error::Result;
use crate::prepare::spec::{JobCallback, Spec};
use crate::report::{BuildReport, JobRecord};
use crate::toolkit::makers::Maker;
use crate::toolkit::nvcc::Toolkit;

/// Builds CUDA kernels into fat binaries. See the module docs and `docs/build.md`.
#[derive(Debug, Clone, Default)]
pub struct Build {
    spec: Spec,
}

impl Build {
    pub fn new() -> Self {
        Self::default()
    }

    /// What the setters filled in (for `Library`, which wraps a `Build`).
    pub(crate) fn spec_mut(&mut self) -> &mut Spec {
        &mut self.spec
    }

    /// Shares results through a remote cache (`redis://host:port/db`, `webdav://host/path`,
    /// `s3://bucket/prefix`, `gs://…`, `azblob://…`, `gha`, `file:///shared/dir`); overrides
    /// `ARCHBUILD_REMOTE_CACHE` and Cargo.toml's `remote-cache`; `off` turns it off. Needs the
    /// `remote` feature to reach anything (without it, one warning and the local cache only).
    /// Redis and WebDAV take `user:password@` before the host (percent-encoded); the password
    /// is sent to the server and shown nowhere (`***` in reports, warnings and errors).
    pub fn remote_cache(&mut self, url: &str) -> &mut Self {
        self.spec.remote_cache = Some(archbuild_config::RemoteUrl::new(url));
        self
    }

    /// Whether this build may write to the remote cache (pull-request builds: read-only).
    pub fn remote_cache_mode(&mut self, mode: archbuild_config::RemoteMode) -> &mut Self {
        self.spec.remote_cache_mode = Some(mode);
        self
    }

    /// Uses prebuilt fat binaries from `dir` (what `cargo archbuild merge` or a CI job wrote)
    /// when they match this build's sources, flags and targets; overrides
    /// `ARCHBUILD_PREBUILT`. A module without a matching prebuilt fat binary is compiled.
    pub fn prebuilt(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.spec.prebuilt = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Whether a package's shipped fat binaries (`prebuilt = "DIR"` in its
    /// `[package.metadata.archbuild]`, `docs/publishing.md`) may be taken instead of compiling;
    /// on by default. `cargo archbuild package` turns it off to make them anew.
    pub fn packaged(&mut self, on: bool) -> &mut Self {
        self.spec.packaged = Some(on);
        self
    }

    /// Declares a group of kernel variants, most preferred first, e.g. `.variants("gemm",
    /// &["gemm_wgmma", "gemm_mma", "gemm_simt"])` for kernels compiled only for some archs.
    /// The build fails when some target of the module would have none of them, and the
    /// generated module lists the group (`VARIANTS`) for the runtime loader
    /// (`FatBinary::with_variants`, `Loaded::variant`). Overrides a group of the same name in
    /// `[package.metadata.archbuild.variants]`.
    pub fn variants<S: AsRef<str>>(&mut self, group: &str, kernels: &[S]) -> &mut Self {
        self.spec.variants.retain(|(g, _)| g != group);
        self.spec.variants.push((
            group.to_owned(),
            kernels.iter().map(|k| k.as_ref().to_owned()).collect(),
        ));
        self
    }

    /// Adds a kernel source; it becomes its own fat binary, named after the file stem.
    /// Relative paths are relative to the package directory (`CARGO_MANIFEST_DIR`).
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.spec
            .modules
            .push((None, vec![path.as_ref().to_path_buf()]));
        self
    }

    /// Adds several kernel sources, one fat binary each.
    pub fn files<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Self {
        for p in paths {
            self.file(p);
        }
        self
    }

    /// Adds a module named `name` compiled from `files` as one translation unit (a generated
    /// file `#include`s each member), giving one fat binary with all their kernels. A single
    /// file with a name other than its stem is a module of one.
    pub fn module<P: AsRef<Path>>(
        &mut self,
        name: &str,
        files: impl IntoIterator<Item = P>,
    ) -> &mut Self {
        let files = files
            .into_iter()
            .map(|p| p.as_ref().to_path_buf())
            .collect();
        self.spec.modules.push((Some(name.to_owned()), files));
        self
    }

    /// The arch list, e.g. `"7.5 8.6 8.9+PTX"`, `"sm_90a"`, `"Ampere"`, `"native"`, or with
    /// LTO-IR that archbuild-runtime links with nvJitLink at load time, `"8.0 9.0+LTO"` or
    /// `"lto_90"`. Highest precedence: this beats `ARCHBUILD_ARCHS` and everything below it.
    pub fn archs(&mut self, list: &str) -> &mut Self {
        self.spec.archs = Some(list.to_owned());
        self
    }

    /// This build is one CI shard of `list` (`cargo archbuild matrix`'s `whole`): every device
    /// pass gets the whole list's `__CUDA_ARCH_LIST__`, as in a one-shot build of it, so
    /// merged shards equal that build for every source (CUB's and Thrust's kernels are named
    /// after the list). Overrides `ARCHBUILD_SHARD_OF`; the build's own list must be part of it.
    pub fn shard_of(&mut self, list: &str) -> &mut Self {
        self.spec.shard_of = Some(list.to_owned());
        self
    }

    /// A per-file arch list (e.g. `"9.0a"` for a `wgmma` kernel): what the file can be built
    /// for. It replaces the requested list for that file, or is narrowed to the GPUs the
    /// requested list names, as [`Build::arch_list_mode`] says (`docs/arch-lists.md`).
    pub fn file_archs(&mut self, path: impl AsRef<Path>, list: &str) -> &mut Self {
        self.spec
            .file_archs
            .push((path.as_ref().to_path_buf(), list.to_owned()));
        self
    }

    /// How per-file and per-group lists meet the requested list: `auto` (the default: narrow
    /// a list from the environment, such as `ARCHBUILD_ARCHS=native`, else override),
    /// `narrow` or `override`. Overrides `ARCHBUILD_ARCH_LIST_MODE` and Cargo.toml's
    /// `arch-list-mode`; a bad word is the build's error.
    pub fn arch_list_mode(&mut self, mode: &str) -> &mut Self {
        self.spec.arch_list_mode = Some(mode.to_owned());
        self
    }

    /// The GPUs and drivers the fat binaries must load on, e.g. `"7.5@12.4, 8.6@13.0"` or
    /// `"native"` (`docs/build.md`, "Fleets"): a member that could load nothing is an error
    /// before anything compiles, and compression left to archbuild avoids zstd where a
    /// driver cannot read it. Overrides `ARCHBUILD_FLEET` and Cargo.toml's `fleet`.
    pub fn fleet(&mut self, fleet: &str) -> &mut Self {
        self.spec.fleet = Some(fleet.to_owned());
        self
    }

    /// An extra nvcc flag for the compile (cicc) phase; `-lineinfo`, `-G`, `-Xptxas …` and
    /// `-maxrregcount` are passed on to ptxas the way nvcc does. Arch, phase and output flags
    /// (`-arch`, `-gencode`, `-c`, `-o`, …) are refused: archbuild sets those.
    pub fn flag(&mut self, flag: &str) -> &mut Self {
        self.spec.nvcc_flags.push(flag.to_owned());
        self
    }

    /// Several nvcc flags.
    pub fn flags<S: AsRef<str>>(&mut self, flags: impl IntoIterator<Item = S>) -> &mut Self {
        self.spec
            .nvcc_flags
            .extend(flags.into_iter().map(|f| f.as_ref().to_owned()));
        self
    }

    /// An extra ptxas flag (as `-Xptxas` would pass it).
    pub fn ptxas_flag(&mut self, flag: &str) -> &mut Self {
        self.spec.ptxas_flags.push(flag.to_owned());
        self
    }

    /// An include directory (relative paths: relative to the package directory).
    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.spec.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// A header-only library for the compile, pinned: `HeaderLibrary::pypi("nvidia-cutlass",
    /// "4.2.0")` (installed once into archbuild's home), `HeaderLibrary::path(..)` or
    /// `HeaderLibrary::git(.., rev)`. Its include directories follow the `include`s; its pin and
    /// content hash enter the cache key. Replaces a library of the same name from
    /// `[package.metadata.archbuild.headers]`.
    pub fn header_library(&mut self, lib: crate::headers::library::HeaderLibrary) -> &mut Self {
        self.spec
            .header_libraries
            .retain(|l| l.name() != lib.name());
        self.spec.header_libraries.push(lib);
        self
    }

    /// A macro definition: `define("TILE", Some("32"))` is `-DTILE=32`.
    pub fn define(&mut self, name: &str, value: Option<&str>) -> &mut Self {
        self.spec.defines.push(match value {
            Some(v) => format!("{name}={v}"),
            None => name.to_owned(),
        });
        self
    }

    /// Fat binary compression: `none` (stored), `default` (PTX zstd, cubins stored, as nvcc),
    /// `speed` (all LZ4, for the oldest drivers; also `lz4`), `balance` (all zstd; also `zstd`)
    /// or `size` (smallest): [`archbuild_fatbin::COMPRESSION_WORDS`].
    pub fn compression(&mut self, mode: &str) -> &mut Self {
        self.spec.compression = Some(mode.to_owned());
        self
    }

    /// Without a compression set (`.compression`, `ARCHBUILD_COMPRESSION`, Cargo.toml), packs
    /// the smallest fat binaries every driver of the fleet reads (`size`: zstd level 19; LZ4
    /// for a fleet with a driver older than 12.4) instead of nvcc's default. `cargo archbuild
    /// package` does, so that shipped files stay small; a dependent that sets no compression
    /// takes them as they are.
    pub fn smallest_compression(&mut self) -> &mut Self {
        self.spec.default_compression = crate::prepare::packing::DefaultCompression::Smallest;
        self
    }

    /// Where fat binaries and the Rust module go (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.spec.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The build cache directory (default: `ARCHBUILD_CACHE_DIR`, else `<home>/cache`).
    pub fn cache_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.spec.cache_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Turns the build cache off (`false`) or on; `ARCHBUILD_CACHE=off` does the same.
    pub fn cache(&mut self, on: bool) -> &mut Self {
        self.spec.cache = Some(on);
        self
    }

    /// Shares one cicc run among archs of a class whose preprocessed source is identical
    /// (`true`, the default where `docs/build.md` shows the rule holds) or compiles every target
    /// on its own (`false`); `ARCHBUILD_SHARE_CICC=off` does the same.
    pub fn share_cicc(&mut self, on: bool) -> &mut Self {
        self.spec.share_cicc = Some(on);
        self
    }

    /// Compiles each file of a module as relocatable device code and device-links them per
    /// target (`true`), as `nvcc -rdc=true` and `nvcc -dlink` do: a kernel may call an
    /// `extern __device__` function or use an `extern __device__` variable of another file of
    /// its module (`.module("name", [files])`). Overrides `ARCHBUILD_RELOCATABLE_DEVICE_CODE`
    /// and Cargo.toml's `relocatable-device-code`; `docs/build.md`, "Relocatable device code".
    pub fn relocatable_device_code(&mut self, on: bool) -> &mut Self {
        self.spec.relocatable_device_code = Some(on);
        self
    }

    /// Compiles a fraction of the jobs served from the cache again and compares the bytes
    /// (`"all"`, `"off"`, `"0.01"`, `"1%"`; overrides `ARCHBUILD_VERIFY`): a hit that differs is
    /// an error naming the job and what its key holds.
    pub fn verify(&mut self, setting: &str) -> &mut Self {
        self.spec.verify = Some(setting.to_owned());
        self
    }

    /// Uses this toolkit instead of searching for one.
    pub fn toolkit(&mut self, toolkit: Toolkit) -> &mut Self {
        self.spec.toolkit = Some(toolkit);
        self
    }

    /// The CUDA version to build with (`docs/build.md`, "Toolkit versions"): `"13.0"` (the
    /// newest 13.0 release), `"13.0.88"` (exactly), `"12.x"` (any CUDA 12). Only a toolkit of
    /// that version is used: one found on the machine (`CUDA_HOME`, `PATH`, …) or provisioned,
    /// CUDA 13 releases from PyPI side by side (with [`Build::provision`] or
    /// `ARCHBUILD_PROVISION`); CUDA 12 is one the user installed. Overrides
    /// `ARCHBUILD_TOOLKIT_VERSION` and Cargo.toml's `toolkit`; a bad value is the build's
    /// error.
    pub fn toolkit_version(&mut self, version: &str) -> &mut Self {
        self.spec.toolkit_versions[Maker::Build] = Some(version.to_owned());
        self
    }

    /// The CUDA version that makes the PTX images (`+PTX`, `compute_XY` targets), when it is
    /// not the build's (`docs/build.md`, "Toolkit versions"): PTX that the fleet's oldest
    /// driver can JIT (CUDA 13.0's for an R580 driver) beside cubins from the newest toolkit.
    /// Found or provisioned as [`Build::toolkit_version`] is; the record and the report say
    /// which toolkit made each image. Overrides `ARCHBUILD_PTX_TOOLKIT_VERSION` and
    /// Cargo.toml's `ptx-toolkit`.
    pub fn ptx_toolkit_version(&mut self, version: &str) -> &mut Self {
        self.spec.toolkit_versions[Maker::Ptx] = Some(version.to_owned());
        self
    }

    /// The CUDA version that builds the targets the build's toolkit cannot (`docs/build.md`,
    /// "Toolkit versions"): `"12.x"` for sm_50–sm_72 (Maxwell, Pascal, Volta), which CUDA 13
    /// dropped, beside CUDA 13 cubins for the rest of the list in one fat binary. Found as
    /// [`Build::toolkit_version`] is (a CUDA 12 toolkit is one the user installed); the record
    /// and the report say which toolkit made each image. Overrides
    /// `ARCHBUILD_LEGACY_TOOLKIT_VERSION` and Cargo.toml's `legacy-toolkit`.
    pub fn legacy_toolkit_version(&mut self, version: &str) -> &mut Self {
        self.spec.toolkit_versions[Maker::Legacy] = Some(version.to_owned());
        self
    }

    /// archbuild's home (provisioned toolkits, cache); default from `ARCHBUILD_HOME`.
    pub fn home(&mut self, home: Home) -> &mut Self {
        self.spec.home = Some(home);
        self
    }

    /// The package directory: base of relative paths and where Cargo.toml's
    /// `[package.metadata.archbuild]` is read (default: `CARGO_MANIFEST_DIR`).
    pub fn manifest_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.spec.manifest_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Reads configuration from this environment instead of the process's (tools, tests).
    pub fn env(&mut self, env: Env) -> &mut Self {
        self.spec.env = Some(env);
        self
    }

    /// At most this many compiler processes at once (default: CPUs, memory and jobserver).
    pub fn jobs(&mut self, n: usize) -> &mut Self {
        self.spec.jobs = Some(n);
        self
    }

    /// Prints (or not) `cargo:` lines; default: only inside a build script.
    pub fn cargo_metadata(&mut self, on: bool) -> &mut Self {
        self.spec.cargo_metadata = Some(on);
        self
    }

    /// Provisions the pinned toolkit from PyPI when none is found (default:
    /// `ARCHBUILD_PROVISION`).
    pub fn provision(&mut self, on: bool) -> &mut Self {
        self.spec.provision = Some(on);
        self
    }

    /// Skips generating the Rust module (the CLI only wants fat binaries).
    pub fn rust_module(&mut self, on: bool) -> &mut Self {
        self.spec.no_rust_module = !on;
        self
    }

    /// The GPUs `native` means, instead of those `ARCHBUILD_SIMULATED_GPUS` describes or the
    /// toolkit's device query finds (tests, cross builds).
    pub fn native_devices(&mut self, ccs: &[ComputeCapability]) -> &mut Self {
        self.spec.devices = Some(ccs.to_vec());
        self
    }

    /// Don't announce the default arch list.
    pub fn quiet(&mut self, on: bool) -> &mut Self {
        self.spec.quiet = on;
        self
    }

    /// Calls `f` after every job finishes, cached or not, from the worker threads (progress
    /// bars). Failed jobs are reported by the error instead.
    pub fn on_job(&mut self, f: impl Fn(&JobRecord) + Send + Sync + 'static) -> &mut Self {
        self.spec.on_job = Some(JobCallback(Arc::new(f)));
        self
    }

    /// Builds everything; on failure prints `error occurred in archbuild: …` to stderr and
    /// exits with status 1 (for build scripts; use [`Build::try_compile`] elsewhere).
    pub fn compile(&mut self, name: &str) -> BuildReport {
        match self.try_compile(name) {
            Ok(report) => report,
            Err(e) => {
                // Cargo's error directive where the package's Rust has it (its summary line
                // then names the failure); the whole message on stderr either way.
                let env = self.spec.env.clone().unwrap_or_default();
                let syntax = env.syntax();
                if env.cargo_metadata() && syntax.has_error() {
                    let first = e.to_string();
                    let first = first.lines().next().unwrap_or_default();
                    println!("{}", syntax.line("error", format!("archbuild: {first}")));
                }
                eprintln!("\n\nerror occurred in archbuild: {e}\n\n");
                std::process::exit(1)
            }
        }
    }

    /// Builds everything: fat binaries in `<out_dir>/<name>/<module>.fatbin` and the Rust
    /// module `<out_dir>/<name>.rs`.
    pub fn try_compile(&mut self, name: &str) -> Result<BuildReport> {
        crate::run::compile(&self.spec, name)
    }

    /// What a dependent's build takes from this package's shipped fat binaries (`prebuilt` in
    /// `[package.metadata.archbuild]`), compiling nothing and needing no toolkit: the report
    /// when every module's shipped file matches its sources, settings and targets, else
    /// [`Error::PackagedRefused`](crate::Error) naming each file that does not and why. For an
    /// author's CI (`cargo archbuild package --check`).
    pub fn try_check_shipped(&mut self, name: &str) -> Result<BuildReport> {
        crate::run::check_shipped(&self.spec, name)
    }

    /// Resolves the configuration and lists the commands a cold build would run, without
    /// running or writing anything (apart from toolkit and GPU queries): it provisions no
    /// toolkit, installs no header library (one not installed yet is an error naming the build
    /// that installs it) and prints nothing.
    pub fn try_plan(&mut self, name: &str) -> Result<crate::run::PlanListing> {
        crate::run::plan_only(&self.spec, name, crate::prepare::Mode::Plan)
    }

    /// [`Build::try_plan`] for a build about to run: provisions the toolkit and installs header
    /// libraries when the build would (so a plan on a fresh machine does not fail for want of
    /// what the build installs), and writes no output.
    pub fn try_plan_to_build(&mut self, name: &str) -> Result<crate::run::PlanListing> {
        crate::run::plan_only(&self.spec, name, crate::prepare::Mode::PlanToBuild)
    }
}
