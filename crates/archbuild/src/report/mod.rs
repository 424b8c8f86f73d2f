//! What a build tells its caller, as data: this module's report (below), the warnings
//! (`warning.rs`), what the compilers printed (`compiler_output.rs`), and the two checks after
//! packing whose findings go into them: kernel coverage (`coverage.rs`) and variant groups
//! (`variants.rs`), how each job was served (`served.rs`), and each kernel's declared C
//! signature, read from cicc's launch stub and checked against every image (`signature.rs`).
//!
//! What a build did: jobs planned, run and served from the cache, processes started, and the
//! time of every job that ran. Tests assert on this, not on wall time.

mod build_report;
pub(crate) mod compiler_output;
pub(crate) mod coverage;
mod served;
pub(crate) mod signature;
pub(crate) mod variants;
pub(crate) mod warning;

pub use build_report::*;
