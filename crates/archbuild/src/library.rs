//! The build.rs API for CUDA sources with host code (`<<<…>>>` launches through the CUDA
//! runtime): a static library the crate links, shaped like the `cc` crate's builder.
//!
//! Each source's device side goes through archbuild's job graph like a kernel (per-arch cicc
//! and ptxas jobs, cached, shared, remote, coverage-checked); its host side is compiled once
//! with that fat binary embedded the way nvcc embeds its own (`host/steps.rs`), and cached
//! too. Moving a crate from `cc`:
//!
//! ```no_run
//! // build.rs, before:
//! //   cc::Build::new().cuda(true).cudart("static").flag("-gencode=arch=compute_86,code=sm_86")
//! //       .file("src/kernels.cu").compile("kernels");
//! // after:
//! archbuild::Library::new()
//!     .file("src/kernels.cu")
//!     .cudart("static")
//!     .compile("kernels");
//! ```
//!
//! The arch list comes from the same precedence as kernel builds (`ARCHBUILD_ARCHS`, Cargo.toml's
//! `archs`, `CUDA_COMPUTE_CAP`-style variables, …) or `.archs(…)`.

use std::path::Path;

use crate::base::env::Env;
use crate::base::paths::Home;
use crate::builder::Build;
use crate::error::Result;
use crate::host::link::LibrarySpec;
use crate::report::BuildReport;
use crate::toolkit::nvcc::Toolkit;

/// Builds `.cu` files with host code into `lib<name>.a` and links it. See the module docs and
/// `docs/build.md`, "Host libraries".
#[derive(Debug, Clone, Default)]
pub struct Library {
    build: Build,
    host_flags: Vec<String>,
    cudart: Option<String>,
    source_dirs: Vec<std::path::PathBuf>,
}

impl Library {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a source file (one host object and one fat binary each).
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.build.file(path);
        self
    }

    pub fn files<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Self {
        self.build.files(paths);
        self
    }

    /// Adds every `.cu` file directly in `dir` (relative to the package), in name order:
    /// cudaforge's `source_dir`. A file added or removed there reruns the build script.
    pub fn source_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.source_dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// The arch list, in any dialect `Build::archs` takes.
    pub fn archs(&mut self, list: &str) -> &mut Self {
        self.build.archs(list);
        self
    }

    /// An nvcc flag for both sides (`-std=c++17`, `--expt-relaxed-constexpr`, `-lineinfo`).
    pub fn flag(&mut self, flag: &str) -> &mut Self {
        self.build.flag(flag);
        self
    }

    pub fn flags<S: AsRef<str>>(&mut self, flags: impl IntoIterator<Item = S>) -> &mut Self {
        self.build.flags(flags);
        self
    }

    /// An nvcc flag for the host side only (`-O3`, `-Xcompiler=-Wall`): device jobs do not see
    /// it, so their cache entries are those of any build with the same device flags.
    pub fn host_flag(&mut self, flag: &str) -> &mut Self {
        self.host_flags.push(flag.to_owned());
        self
    }

    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.build.include(dir);
        self
    }

    /// A header library (CUTLASS/CuTe, CCCL, a directory or a pinned checkout), provisioned,
    /// pinned and keyed as for kernels (`Build::header_library`, `docs/build.md`, "Header
    /// libraries"): the replacement for cudaforge's `with_cutlass(commit)`.
    pub fn header_library(&mut self, lib: crate::headers::library::HeaderLibrary) -> &mut Self {
        self.build.header_library(lib);
        self
    }

    pub fn define(&mut self, name: &str, value: Option<&str>) -> &mut Self {
        self.build.define(name, value);
        self
    }

    /// How the CUDA runtime is linked: `static` (the default, as nvcc's), `shared` or `none`.
    pub fn cudart(&mut self, linkage: &str) -> &mut Self {
        self.cudart = Some(linkage.to_owned());
        self
    }

    pub fn compression(&mut self, mode: &str) -> &mut Self {
        self.build.compression(mode);
        self
    }

    /// The GPUs and drivers the library must load on (`Build::fleet`): the CUDA runtime hands
    /// its fat binaries to the driver whole, so a driver below 12.4 gets no zstd.
    pub fn fleet(&mut self, fleet: &str) -> &mut Self {
        self.build.fleet(fleet);
        self
    }

    /// The CUDA version to build with (`Build::toolkit_version`).
    pub fn toolkit_version(&mut self, version: &str) -> &mut Self {
        self.build.toolkit_version(version);
        self
    }

    /// The CUDA version that makes the PTX images (`Build::ptx_toolkit_version`).
    pub fn ptx_toolkit_version(&mut self, version: &str) -> &mut Self {
        self.build.ptx_toolkit_version(version);
        self
    }

    /// The CUDA version that builds what the build's toolkit cannot
    /// (`Build::legacy_toolkit_version`).
    pub fn legacy_toolkit_version(&mut self, version: &str) -> &mut Self {
        self.build.legacy_toolkit_version(version);
        self
    }

    /// How Cargo.toml's per-file lists meet the requested list (`Build::arch_list_mode`).
    pub fn arch_list_mode(&mut self, mode: &str) -> &mut Self {
        self.build.arch_list_mode(mode);
        self
    }

    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.build.out_dir(dir);
        self
    }

    pub fn cache(&mut self, on: bool) -> &mut Self {
        self.build.cache(on);
        self
    }

    /// Compiles each source as relocatable device code (`nvcc -rdc=true -c`) and adds the
    /// device link of all of them (`nvcc -dlink`) to the archive: a kernel may call a
    /// `__device__` function or use a `__device__` variable another source defines
    /// (`Build::relocatable_device_code`; `docs/build.md`, "Relocatable device code").
    pub fn relocatable_device_code(&mut self, on: bool) -> &mut Self {
        self.build.relocatable_device_code(on);
        self
    }

    pub fn remote_cache(&mut self, url: &str) -> &mut Self {
        self.build.remote_cache(url);
        self
    }

    pub fn toolkit(&mut self, toolkit: Toolkit) -> &mut Self {
        self.build.toolkit(toolkit);
        self
    }

    pub fn home(&mut self, home: Home) -> &mut Self {
        self.build.home(home);
        self
    }

    pub fn manifest_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.build.manifest_dir(dir);
        self
    }

    pub fn env(&mut self, env: Env) -> &mut Self {
        self.build.env(env);
        self
    }

    pub fn jobs(&mut self, n: usize) -> &mut Self {
        self.build.jobs(n);
        self
    }

    pub fn provision(&mut self, on: bool) -> &mut Self {
        self.build.provision(on);
        self
    }

    pub fn cargo_metadata(&mut self, on: bool) -> &mut Self {
        self.build.cargo_metadata(on);
        self
    }

    pub fn verify(&mut self, setting: &str) -> &mut Self {
        self.build.verify(setting);
        self
    }

    /// Called after every device job, cached or not (`Build::on_job`), for progress bars.
    pub fn on_job(
        &mut self,
        f: impl Fn(&crate::report::JobRecord) + Send + Sync + 'static,
    ) -> &mut Self {
        self.build.on_job(f);
        self
    }

    pub fn quiet(&mut self, on: bool) -> &mut Self {
        self.build.quiet(on);
        self
    }

    /// Builds the library, prints Cargo's link lines and exits the build script with the
    /// error on failure (as `cc` does).
    pub fn compile(&mut self, name: &str) -> BuildReport {
        match self.try_compile(name) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("\n\nerror occurred in archbuild: {e}\n\n");
                std::process::exit(1)
            }
        }
    }

    /// Builds `<out_dir>/lib<name>.a` (and each source's fat binary in `<out_dir>/<name>/`).
    pub fn try_compile(&mut self, name: &str) -> Result<BuildReport> {
        let cudart = match &self.cudart {
            Some(word) => Some(crate::host::link::parse_cudart(word, "Library::cudart")?),
            None => None,
        };
        for dir in std::mem::take(&mut self.source_dirs) {
            let files = self.sources_in(&dir)?;
            self.build.files(files);
        }
        self.build.spec_mut().library = Some(LibrarySpec {
            archive: None,
            host_flags: self.host_flags.clone(),
            cudart,
        });
        self.build.try_compile(name)
    }

    /// The `.cu` files directly in `dir`, relative to the package like `file`'s paths.
    fn sources_in(&mut self, dir: &Path) -> Result<Vec<std::path::PathBuf>> {
        let spec = self.build.spec_mut();
        let base = spec
            .manifest_dir
            .clone()
            .or_else(|| {
                let process = crate::base::env::Env::process;
                spec.env
                    .clone()
                    .unwrap_or_else(process)
                    .path("CARGO_MANIFEST_DIR")
            })
            .unwrap_or_default();
        let abs = base.join(dir);
        let missing = |problem: &str| crate::error::Error::SourceMissing {
            path: dir.to_path_buf(),
            problem: problem.to_owned(),
            context: format!(" (looked at {})", abs.display()),
            fix: "the path passed to `.source_dir(...)`: a directory holding the library's `.cu` \
                  files"
                .into(),
        };
        let rd = std::fs::read_dir(&abs).map_err(|e| {
            missing(match e.kind() {
                std::io::ErrorKind::NotFound => "does not exist",
                std::io::ErrorKind::NotADirectory => "is a file, not a directory of sources",
                _ => "cannot be read",
            })
        })?;
        let mut files: Vec<std::path::PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "cu"))
            .filter_map(|p| p.file_name().map(|n| dir.join(n)))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(missing("holds no `.cu` file"));
        }
        if spec.env.as_ref().is_none_or(|e| e.cargo_metadata())
            && spec.cargo_metadata != Some(false)
        {
            let syntax = spec
                .env
                .as_ref()
                .map_or_else(|| crate::base::env::Env::process().syntax(), |e| e.syntax());
            println!(
                "{}",
                syntax.line("rerun-if-changed", base.join(dir).display())
            );
        }
        Ok(files)
    }
}
