//! Where a build's settings come from: the environment, archbuild's home, Cargo.toml, the arch
//! list's precedence and dialects, the remote cache.
//!
//! In this folder: `manifest.rs` reads `[package.metadata.archbuild]`, `archs.rs` resolves the
//! arch list (and `ArchListMode`, whether per-file lists narrow it: `prepare/narrowing.rs`),
//! `compiler_env.rs` builds the environment compilers run in, `flag_inputs.rs` finds
//! the files and directories named inside flags, `verification.rs` picks the cache hits to
//! compile again, `runtime_dep.rs` decides whether the generated module has typed launchers, and `cc_flags.rs` gives the `cc` crate the same archs. `Env` and `Home` live in
//! `base/`; the remote cache's precedence is `prepare/remote.rs`.

pub(crate) mod archs;
pub(crate) mod cc_flags;
pub(crate) mod compiler_env;
pub(crate) mod flag_inputs;
pub(crate) mod manifest;
pub(crate) mod runtime_dep;
pub(crate) mod verification;

pub use crate::base::env::Env;
pub use crate::base::paths::{short_of_room, Home, CACHE_ROOM};
pub use archbuild_arch::Dialect;
pub use archbuild_config::RemoteMode;
pub use archbuild_store::RemoteStats;
pub use archs::ArchListMode;
pub use archs::{choose_arch_list, ArchSource, ResolvedArchs};
pub use flag_inputs::{files_named_in_flags, NVCC_FLAG_VARS};
pub use manifest::PackageConfig;
