//! What every other folder uses, none of it about one stage of a build: environment variables
//! (`env.rs`, every read through one `Env`), a setting from its layers by the one precedence
//! (`layered.rs`), archbuild's home and atomic file writes
//! (`paths.rs`), tool processes (`process.rs`: argument vectors, captured output, no orphans),
//! the build cache's store (`store.rs`), and a TOML value as error messages quote it
//! (`shown.rs`).

pub(crate) mod env;
pub(crate) mod layered;
pub(crate) mod paths;
pub(crate) mod process;
pub(crate) mod pypi;
pub(crate) mod shown;
pub(crate) mod store;

#[cfg(test)]
pub(crate) use paths::doc_section;
