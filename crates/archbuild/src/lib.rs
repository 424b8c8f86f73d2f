//! archbuild's build driver: find (or provision) a CUDA toolkit, resolve the arch list from one
//! documented precedence of configuration sources, compile every (source, target) pair in
//! parallel with a per-target content cache, pack one fat binary per module, and expose it all
//! to `build.rs` scripts through a cc-rs-style [`Build`] builder.
//!
//! ```no_run
//! // build.rs
//! let report = archbuild::Build::new()
//!     .file("kernels/add.cu")
//!     .archs("7.5 8.6 8.9+PTX")
//!     .compile("kernels");
//! println!("{report}");
//! // src/lib.rs: include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
//! ```
//!
//! The design, cache keys and measured costs are in `docs/build.md`; every environment
//! variable is in `docs/environment.md`.

mod archs;
mod builder;
mod cc_flags;
mod cicc_split;
mod codegen;
mod compiler_env;
mod compiler_output;
mod coverage;
mod deps;
mod diag;
mod discover;
mod dist;
mod ended;
mod env;
mod error;
mod evict;
mod exec;
mod fingerprint;
mod flag_inputs;
mod header_install;
mod header_lib;
mod header_tree;
mod host_link;
mod host_stage;
mod host_steps;
mod jobs;
mod keys;
mod library;
mod manifest;
mod native;
mod nvcc;
mod pack;
mod paths;
mod plan;
mod prebuilt;
mod prepare;
mod preprocessed;
mod process;
mod provision;
pub mod record;
mod remote;
mod report;
mod run;
mod setup;
mod share;
mod spec;
mod store;
mod variants;
mod verification;
mod warning;

pub use archbuild_arch::{
    Arch, ArchList, ComputeCapability, CoverageGap, GapGroup, Target, TargetKind,
};
pub use builder::Build;
pub use cc_flags::{configure_cc, configure_cc_with_toolkit};
pub use compiler_output::{CompilerMessage, MessageKind};
pub use env::Env;
pub use error::{Ended, Error, ErrorKind, Result};
pub use header_lib::HeaderLibrary;
pub use host_link::Cudart;
pub use library::Library;
pub use nvcc::Toolkit;
pub use report::{
    BuildReport, HostObjectRecord, JobPhase, JobRecord, LibraryReport, ModuleReport, VariantReport,
};
pub use run::{PlanListing, PlannedJob};
pub use warning::Warning;

/// The CUDA toolkit: found (`Discovery`), provisioned from PyPI wheels, queried (`Toolkit`).
pub mod toolkit {
    pub use crate::discover::{Candidate, Discovery};
    pub use crate::nvcc::{FoundBy, Toolkit};
    pub use crate::provision::{
        provision, provisioned_dir, stderr_progress, ProvisionEvent, PINNED_RELEASE, PINNED_WHEELS,
    };
}

/// Header-only libraries (CUTLASS, CCCL) installed from PyPI into archbuild's home, or taken
/// from a directory or git checkout, pinned and hashed (`docs/build.md`, "Header libraries").
pub mod headers {
    pub use crate::header_install::{
        headers_dir, installed, short, stderr_progress, HeaderEvent, InstalledHeaders,
        KNOWN_PACKAGES,
    };
    pub use crate::header_lib::HeaderLibrary;
}

/// Where a build's settings come from: the environment, archbuild's home, Cargo.toml, the arch
/// list's precedence and dialects, the remote cache.
pub mod config {
    pub use crate::archs::{choose_arch_list, ArchSource, Dialect, ResolvedArchs};
    pub use crate::env::Env;
    pub use crate::manifest::PackageConfig;
    pub use crate::paths::Home;
    pub use archbuild_config::RemoteMode;
    pub use archbuild_store::RemoteStats;
}

/// The build cache, as `cargo archbuild cache` sees it.
pub mod cache {
    pub use crate::evict::{cache_dir, max_bytes};
    pub use crate::report::CacheEviction;
}

/// The README's examples, compiled (and run) as doctests so the crates.io page stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
