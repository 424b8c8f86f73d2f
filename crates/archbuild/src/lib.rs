//! archbuild's build driver: find (or provision) a CUDA toolkit, resolve the arch list from one
//! documented precedence of configuration sources, compile every (source, target) pair in
//! parallel with a per-target content cache, pack one fat binary per module, and expose it all
//! to `build.rs` scripts through a cc-rs-style [`Build`] builder.

mod cache;
mod discover;
mod env;
mod error;
mod paths;
mod process;
mod provision;
mod toolkit;

pub use discover::{Candidate, Discovery};
pub use env::Env;
pub use error::{Error, Result};
pub use paths::Home;
pub use provision::{
    provision, provisioned_dir, stderr_progress, ProvisionEvent, PINNED_RELEASE, PINNED_WHEELS,
};
pub use toolkit::{FoundBy, Toolkit};
