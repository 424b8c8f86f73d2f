//! What every other folder uses, none of it about one stage of a build: environment variables
//! (`env.rs`, every read through one `Env`), a setting from its layers by the one precedence
//! (`layered.rs`), archbuild's home and atomic file writes
//! (`paths.rs`), tool processes (`process.rs`: argument vectors, captured output, no orphans),
//! and the build cache's store (`store.rs`).

pub(crate) mod env;
pub(crate) mod layered;
pub(crate) mod paths;
pub(crate) mod process;
pub(crate) mod pypi;
pub(crate) mod store;

#[cfg(test)]
pub(crate) use paths::doc_section;
