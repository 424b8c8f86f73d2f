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

// What a user cannot reach stays `pub(crate)`, so the root's exports are the whole API.
#![warn(unreachable_pub)]

// The source is in folders, each using only the folders before it in this order (a test in
// `crates/cargo-archbuild/tests/e2e/packaging.rs` keeps it): `base/` (environment, paths,
// processes, the store), `toolkit/`, `headers/`, `config/`, `report/`, `cache/`, `plan/`, `host/`,
// `prepare/`, `jobs/`, `output/`. At the root: this facade, the two builders (`builder.rs`,
// `library.rs`), `run.rs` (a build, start to end), and `error.rs` with `ended.rs`, which every
// folder may use. `docs/architecture.md` has the map.

mod base;
mod builder;
pub mod cache;
pub mod config;
mod ended;
mod error;
pub mod headers;
mod host;
mod jobs;
mod library;
mod output;
mod plan;
mod prepare;
mod report;
mod run;
pub mod toolkit;

pub use archbuild_arch::{
    Arch, ArchList, ComputeCapability, CoverageGap, GapGroup, Target, TargetKind,
};
pub use builder::Build;
pub use cache::record;
pub use config::cc_flags::{configure_cc, configure_cc_with_toolkit};
pub use config::Env;
pub use error::{EmptyNarrowing, Ended, Error, ErrorKind, FleetIssue, Result};
pub use headers::HeaderLibrary;
pub use host::link::Cudart;
pub use library::Library;
pub use report::compiler_output::{CompilerMessage, MessageKind};
pub use report::warning::Warning;
pub use report::{
    BuildReport, HostObjectRecord, JobPhase, JobRecord, LibraryReport, Miss, ModuleReport, Served,
    VariantReport,
};
pub use run::{PlanListing, PlannedJob};
pub use toolkit::Toolkit;

/// The README's examples, compiled (and run) as doctests so the crates.io page stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
