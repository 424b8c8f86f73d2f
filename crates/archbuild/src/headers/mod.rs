//! Header-only libraries (CUTLASS, CCCL) installed from PyPI into archbuild's home, or taken
//! from a directory or git checkout, pinned and hashed (`docs/build.md`, "Header libraries").
//!
//! In this folder: `library.rs` declares and resolves them (`HeaderLibrary`; its tests are in
//! `library/tests.rs`), `install.rs` installs a PyPI wheel once, and `tree.rs` gives a library's
//! files their content hash and stat fingerprint.

pub(crate) mod install;
pub(crate) mod library;
pub(crate) mod tree;

pub use install::{headers_dir, installed, short, InstalledHeaders, KNOWN_PACKAGES};
pub use library::HeaderLibrary;
