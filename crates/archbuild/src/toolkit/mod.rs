//! The CUDA toolkit: found (`Discovery`), provisioned from PyPI wheels, queried (`Toolkit`).
//!
//! In this folder: `discover.rs` finds nvcc in one documented order, `provision.rs` installs the
//! pinned toolkit from PyPI, `nvcc.rs` queries a located toolkit (its release and targets),
//! `fingerprint.rs` gives its programs' content identity for cache keys, and `native.rs` says
//! which GPUs `native` means.

pub(crate) mod discover;
pub(crate) mod fingerprint;
pub(crate) mod native;
pub(crate) mod nvcc;
pub(crate) mod provision;

pub use crate::base::pypi::InstallEvent;
pub use discover::{Candidate, Discovery};
pub use nvcc::{FoundBy, Toolkit, ROOT_VARS, SEARCH_ORDER};
pub use provision::{provision, provisioned_dir, stderr_progress, PINNED_RELEASE, PINNED_WHEELS};
