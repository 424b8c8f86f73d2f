//! Running a prepared build's jobs: this module's `JobRunner` (below; cicc jobs in `cicc.rs`,
//! host objects in `host.rs`, `ARCHBUILD_VERIFY` in `verify.rs`),
//! every cache key (`keys.rs`), and the cicc job as two processes for sccache
//! (`cicc_split.rs`).
//!
//! Executing a plan: for each job, look it up in the cache, else run its command; then check
//! the results. This is where the cache keys are defined.
//!
//! Every key is made in `keys.rs` (one function over the settings, destructured without `..`).
//!
//! * cicc phase, three ways to a result, cheapest first:
//!   1. *direct mode*: the *manifest key* (the cicc settings, the source's path relative to the
//!      package, the virtual arch) has a manifest (`deps`) that maps the state of every input
//!      the preprocessor read or probed to the PTX's key: when all match, nothing runs.
//!   2. *preprocessor mode*: when a manifest exists but no entry matches (a source changed),
//!      `nvcc -E` preprocesses the source for this arch (one process, no cicc); the PTX is
//!      keyed on the preprocessed text as `cache/preprocessed.rs` reduces it (line markers and blank
//!      lines outside literals dropped only where they cannot reach the PTX), so a
//!      comment-only edit finds the PTX it already has.
//!   3. the compile, `nvcc -ptx --keep`, whose kept preprocessed text gives the same key.
//! * ptxas phase: the key holds the ptxas settings, the PTX content and the arch — exactly
//!   ptxas's inputs — so a source edit that leaves the PTX unchanged skips ptxas. An alias keyed
//!   on the PTX's key points at the cubin, so a rebuild finds it without reading the PTX.
//! * device link (`link.rs`, relocatable device code): the key holds the toolkit, the target,
//!   nvlink's command line and the content of every input, in order.
//! * `ARCHBUILD_VERIFY` (`verify.rs`) compiles a sample of hits again and compares.
//!
//! No key holds an absolute path of the package, the home or the toolkit, so machines with
//! different checkouts share entries through a remote tier. Hits only check that the entry
//! exists; payloads are read and verified when packing needs them (`pack`), which an
//! up-to-date output does not.

mod cicc;
pub(crate) mod cicc_split;
mod host;
pub(crate) mod keys;
mod link;
mod runner;
mod verify;

pub(crate) use runner::*;
