//! The CUDA toolkit: found (`Discovery`), provisioned from PyPI wheels, queried (`Toolkit`).
//!
//! In this folder: `discover.rs` finds nvcc in one documented order, `provision.rs` installs the
//! pinned toolkit from PyPI, `releases.rs` holds the releases it can provision and the version a
//! build asks for, `nvcc.rs` queries a located toolkit (its release and targets),
//! `fingerprint.rs` gives its programs' content identity for cache keys, `native.rs` says
//! which GPUs `native` means, and `makers.rs` holds a build's toolkits as one value keyed by
//! what each makes (the build's, the PTX images', the legacy archs').

pub(crate) mod discover;
pub(crate) mod fingerprint;
pub(crate) mod makers;
pub(crate) mod native;
pub(crate) mod nvcc;
pub(crate) mod provision;
pub(crate) mod releases;

pub use crate::base::pypi::InstallEvent;
pub use discover::{Candidate, Discovery, Wanted};
pub use nvcc::{FoundBy, Toolkit, ROOT_VARS, SEARCH_ORDER};
pub use provision::{
    provision, provision_release, provisioned_dir, release_dir, stderr_progress, PINNED_RELEASE,
    PINNED_WHEELS,
};
pub use releases::{
    release_for, requested_by_env, Release, Requested, LEGACY_TOOLKIT_VERSION_VAR,
    PTX_TOOLKIT_VERSION_VAR, RELEASES, TOOLKIT_VERSION_VAR,
};

#[cfg(test)]
mod versions_tests;
