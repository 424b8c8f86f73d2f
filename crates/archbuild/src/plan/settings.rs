//! The settings every compile of a build shares, and the flags they turn into.

use crate::cache::observe;
use crate::config::compiler_env::CompilerEnv;
use crate::config::flag_inputs::FlagInputs;
use crate::error::{Error, Result};
use std::path::PathBuf;

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
    /// Whole-program device code, or relocatable device code linked per target.
    pub device_code: DeviceCode,
}

/// How a module's device code is compiled, decided once for the build
/// (`relocatable-device-code`, `prepare/setup.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) enum DeviceCode {
    /// Each module one translation unit (a group's other files `-include`d), its images loaded
    /// as they are: nvcc's default.
    #[default]
    Whole,
    /// Each file of a module compiled on its own as relocatable device code (`nvcc -rdc=true`),
    /// then device-linked per target: `extern __device__` functions and variables across
    /// files, as `nvcc -rdc=true` and `nvcc -dlink` make them.
    Relocatable,
}

impl DeviceCode {
    /// The word keys and records hold.
    pub(crate) fn word(self) -> &'static str {
        match self {
            DeviceCode::Whole => "whole",
            DeviceCode::Relocatable => "relocatable",
        }
    }
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
            refuse_owned(name, f, it.peek().map(|(_, s)| s.as_str()), origin)?;
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
        // Relocatable code's cubins are linked, not loaded: nvcc's `-rdc=true` gives ptxas
        // `--compile-only` after the `-Xptxas` options, before what it derives.
        if self.device_code == DeviceCode::Relocatable {
            flags.push("--compile-only".into());
        }
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

/// Refuses a flag archbuild sets itself (the phase, targets, outputs, and relocatable device
/// code with its device link, a setting of its own); `next` is the argument after `f`, for
/// `-rdc true`.
fn refuse_owned(name: &str, f: &str, next: Option<&str>, origin: &str) -> Result<()> {
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
            value: f.to_owned(),
            hint: "archbuild sets the phase, targets and outputs itself; set the \
                   architectures with `.archs(...)` / ARCHBUILD_ARCHS and remove this flag"
                .into(),
        });
    }
    let value = f.split_once('=').map(|(_, v)| v);
    let rdc = match name {
        "-rdc" | "--relocatable-device-code" => {
            let v = value.or(next).unwrap_or("");
            v.eq_ignore_ascii_case("true")
        }
        "-dc" | "--device-c" | "-dlink" | "--device-link" => true,
        _ => false,
    };
    if rdc {
        return Err(Error::Config {
            what: "nvcc flag",
            origin: origin.to_owned(),
            value: f.to_owned(),
            hint: "archbuild runs the relocatable compile and the device link itself: remove \
                   the flag and set `relocatable-device-code = true` in \
                   [package.metadata.archbuild] (or `.relocatable_device_code(true)`, \
                   `--relocatable-device-code`, ARCHBUILD_RELOCATABLE_DEVICE_CODE=1); the \
                   files of a module (`.module(\"name\", [files])`) are then compiled one by \
                   one and device-linked per target"
                .into(),
        });
    }
    Ok(())
}
