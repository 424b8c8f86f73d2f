//! The host side of a `Library` build that the job graph builds on: `steps.rs`, the host half of
//! `nvcc -c` as this toolkit's `nvcc --dryrun` prints it, and `link.rs`, a library's settings
//! (`Cudart`), its archive and the lines that link it. The job that compiles a host object is
//! `jobs/host.rs`, the stage that runs those jobs and writes the archive `output/host_stage.rs`,
//! and the `Library` builder `library.rs` at the root.

pub(crate) mod link;
pub(crate) mod steps;
