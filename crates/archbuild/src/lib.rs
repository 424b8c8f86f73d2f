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

mod builder;
mod cache;
mod cc_flags;
mod codegen;
mod compiler_output;
mod config;
mod coverage;
mod deps;
mod diag;
mod discover;
mod driver;
mod env;
mod error;
mod evict;
mod exec;
mod fingerprint;
mod manifest;
mod pack;
mod paths;
mod plan;
pub mod prebuilt;
mod process;
mod provision;
mod remote;
mod report;
mod run;
mod setup;
mod share;
mod spec;
mod toolkit;
mod variants;

pub use archbuild_arch::{Arch, ArchList, ComputeCapability, Target, TargetKind};
pub use archbuild_store::{RemoteMode, RemoteStats};
pub use builder::Build;
pub use cc_flags::{configure_cc, configure_cc_with_toolkit};
pub use compiler_output::{CompilerMessage, MessageKind};
pub use config::{choose_arch_list, ArchSource, Dialect, ResolvedArchs};
pub use discover::{Candidate, Discovery};
pub use env::Env;
pub use error::{Error, Result};
pub use manifest::PackageConfig;
pub use paths::Home;
pub use provision::{
    provision, provisioned_dir, stderr_progress, ProvisionEvent, PINNED_RELEASE, PINNED_WHEELS,
};
pub use report::{BuildReport, CacheEviction, JobPhase, JobRecord, ModuleReport, VariantReport};
pub use run::{PlanListing, PlannedJob};
pub use toolkit::{FoundBy, Toolkit};

/// Statistics of a build cache directory: `(entries, bytes)`.
pub fn cache_stats(home: &Home) -> (u64, u64) {
    let (entries, _) = archbuild_store::scan(home.cache_dir(), std::time::SystemTime::now());
    (entries.len() as u64, entries.iter().map(|e| e.len).sum())
}

/// Applies the size cap now (`cargo archbuild cache trim`): removes stale temp files, then the
/// least recently used entries until the build cache fits `max_bytes`. Entries used in the last
/// couple of seconds (a build running now) are spared.
pub fn cache_trim(home: &Home, max_bytes: u64) -> CacheEviction {
    evict::evict(
        &cache::Store::new(home.cache_dir()),
        max_bytes,
        std::time::SystemTime::now(),
    )
}

/// Removes every entry of the build cache (`cargo archbuild cache clean`) — and nothing a build
/// running now needs: its temp directory (`tmp/.tmp-build-*`, younger than a day) and young
/// temp files stay, and files not laid out as entries are not touched. An entry a running
/// build was about to read is then a miss, and that build compiles it again.
pub fn cache_clean(home: &Home) -> CacheEviction {
    // Entries used "since" a start time in the future: none, so every entry may go.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(24 * 60 * 60);
    evict::evict(&cache::Store::new(home.cache_dir()), 0, later)
}

/// The build cache's size cap in bytes: `ARCHBUILD_CACHE_MAX_BYTES` (`512M`, `2G`, bytes), else
/// 2 GiB. After each build that stored something, the least recently used entries beyond it
/// are removed (see `docs/build.md`).
pub fn cache_max_bytes(env: &Env) -> Result<u64> {
    evict::max_bytes(env)
}

/// The README's examples, compiled (and run) as doctests so the crates.io page stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
